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

__all__ = ["Source", "RemoteDataset", "DATASETS", "PaperDataset", "PAPER_DATASETS", "PAPERS",
           "SCALINGS"]

#: the papers, by the short names of ``okl reproduce`` (seeds 000 .. 004)
PAPERS = ("pomdr", "norma", "ahpatron", "awv", "selection")

#: the scalings a declaration may ask for (statistics over the whole prepared set)
SCALINGS = {
    "minmax01": "min-max scaled to [0, 1] per feature (constant features to 0)",
    "minmax11": "min-max scaled to [-1, 1] per feature (constant features to 0)",
    "std": "each feature divided by its standard deviation (R's sd, n - 1; not centred; "
           "constant features left as they are)",
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

    ``format`` is ``"libsvm"`` or ``"csv"``; ``n_features`` the number of columns
    (so that the train and test files of a dataset line up); ``n_rows`` the
    published number of examples (``None``: not checked); ``labels`` /
    ``positive`` / ``label_column`` / ``header`` are passed to the reader.
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
    set; ``adversarial`` (a factor, seed 004's Adv- sets) rescales the rounds after the
    first twentieth of each permuted stream (``PaperData.stream``).

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
    why: dict = field(default_factory=dict)
    note: str = ""

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"{self.name}: unknown paper {self.paper!r}; papers: {PAPERS}")
        if self.task not in ("classification", "regression"):
            raise ValueError(f"{self.name}: task must be classification or regression")
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
R_AHPATRON = "authors' R code of seed 002 (alg4ml/Ahpatron)"
R_SELECTION = "authors' R code and data of seed 004 (JunfLi-TJU/ACML2021-Journal-Track)"


def _libsvm(name, files, n_features, n_rows, note="", labels=None):
    return RemoteDataset(name=name, sources=tuple(Source(_LIBSVM + f) for f in files),
                         n_features=n_features, n_rows=n_rows, labels=labels,
                         page=f"{_LIBSVM_PAGE}#{name.split('.')[0]}", note=note)


_PM1 = {-1: -1, 1: 1}

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


# Sizes: the LIBSVM page's counts (rows, features).  Checksums: none found in any
# public record (see okl.datasets.fetch), hence trust on first use.

# -- a9a: UCI Adult, LIBSVM's binarized version (123 features, already 0/1) ---------------
_entry(_libsvm("a9a", ["a9a"], 123, 32_561, "UCI Adult, training part; features 0/1",
               labels=_PM1))
_entry(
    _libsvm("a9a.t", ["a9a.t"], 123, 16_281, "UCI Adult, test part; features 0/1",
            labels=_PM1),
    PaperDataset(
        "a9a", "pomdr", ("a9a", "a9a.t"), n=48_842, d=123,
        why={"parts": "paper: a9a 48,842 rows (App., Table 4); authors' R reads "
                      "'a9a_all' = LIBSVM a9a + a9a.t (" + R_POMDR + ")",
             "scale": "none: LIBSVM's a9a features are already 0/1, and the authors' R "
                      "reads the file as it is"}),
)

# -- w8a: LIBSVM (300 binary features, already 0/1) ---------------------------------------
_entry(
    _libsvm("w8a", ["w8a"], 300, 49_749, "features 0/1", labels=_PM1),
    PaperDataset(
        "w8a", "pomdr", ("w8a",), n=49_749, d=300,
        why={"parts": "paper: w8a 49,749 rows (Sec. 6); authors' R reads 'w8a' "
                      "(" + R_POMDR + ")",
             "scale": "none: LIBSVM's w8a features are already 0/1, read as they are by "
                      "the authors' R"}),
)
_entry(_libsvm("w8a.t", ["w8a.t"], 300, 14_951, "features 0/1", labels=_PM1))

# -- ijcnn1: LIBSVM (22 features, already scaled to [-1, 1] on the LIBSVM page) ------------
_entry(_libsvm("ijcnn1", ["ijcnn1.bz2"], 22, 49_990,
               "IJCNN 2001 challenge, training part; features in [-1, 1]", labels=_PM1))
_entry(
    _libsvm("ijcnn1.t", ["ijcnn1.t.bz2"], 22, 91_701,
            "IJCNN 2001 challenge, test part; features in [-1, 1]", labels=_PM1),
    PaperDataset(
        "ijcnn1", "pomdr", ("ijcnn1", "ijcnn1.t"), n=141_691, d=22,
        why={"parts": "paper: ijcnn1 141,691 rows (App., Table 4) = LIBSVM ijcnn1 "
                      "(49,990) + ijcnn1.t (91,701); authors' R reads 'ijcnn1_all' "
                      "(" + R_POMDR + ")",
             "scale": "none: LIBSVM's ijcnn1 is already scaled to [-1, 1], read as it is "
                      "by the authors' R"}),
)

# -- mushrooms: LIBSVM (UCI Mushroom one-hot, 112 binary features; labels 1 / 2) ----------
_entry(
    _libsvm("mushrooms", ["mushrooms"], 112, 8_124,
            "UCI Mushroom, one-hot (0/1); file labels 1, 2 -> -1, +1",
            labels={1: -1, 2: 1}),
    PaperDataset(
        "mushrooms", "pomdr", ("mushrooms",), n=8_124, d=112,
        why={"parts": "paper: mushrooms 8,124 rows (Sec. 6); authors' R reads 'mushrooms' "
                      "(" + R_POMDR + ")",
             "scale": "none: LIBSVM's mushrooms features are 0/1, read as they are by the "
                      "authors' R"}),
)

# -- SUSY: LIBSVM (UCI SUSY, 5,000,000 x 18, NOT scaled) ------------------------------------
# SUSY is 5,000,000 rows (about 0.9 GB compressed): load(..., n_rows=N) draws N rows
# uniformly in one streaming pass.  The LIBSVM page has offered it as SUSY.xz (and
# formerly SUSY.bz2): both tried.  File labels: 1 signal, 0 (or -1) background.
_entry(
    _libsvm("SUSY", ["SUSY.xz", "SUSY.bz2"], 18, 5_000_000,
            "UCI SUSY, 5,000,000 rows, raw (unscaled) kinematic features; labels 1 signal "
            "-> +1, 0 background -> -1", labels={0: -1, -1: -1, 1: 1}),
    PaperDataset(
        "SUSY", "pomdr", ("SUSY",), n=50_000, d=18, draw=50_000,
        why={"draw": "paper: 'uniformly selecting 50,000 instances from original SUSY' "
                     "(App.); the authors' file 'SUSY50000' is not published",
             "scale": "none: the paper is silent and the authors' R reads 'SUSY50000' "
                      "where it reads the scaled 'magic04-N' (" + R_POMDR + ")"}),
)

# -- cod-rna: LIBSVM (8 features, NOT scaled: the first is in the hundreds) ----------------
_entry(_libsvm("cod-rna", ["cod-rna"], 8, 59_535, "training part; unscaled", labels=_PM1))
_entry(_libsvm("cod-rna.t", ["cod-rna.t"], 8, 271_617,
               "test part (the 271,617 rows the Ahpatron paper uses); unscaled", labels=_PM1))

# -- phishing: LIBSVM (68 features in [0, 1]; labels 0 / 1) ---------------------------------
_entry(_libsvm("phishing", ["phishing"], 68, 11_055, "file labels 0, 1 -> -1, +1",
               labels={0: -1, -1: -1, 1: 1}))

# -- USPS: LIBSVM multiclass (16 x 16 pixels in [-1, 1]; labels 1..10 = digit + 1) ---------
# Used by NORMA's Fig. 3 (novelty detection).
_entry(RemoteDataset(name="usps", sources=(Source(_LIBSVM_MC + "usps.bz2"),), n_features=256,
                     n_rows=7_291, labels="keep", page=f"{_LIBSVM_MC_PAGE}#usps",
                     note="USPS digits, training part; labels 1..10 = digit + 1 (kept)"))
_entry(RemoteDataset(name="usps.t", sources=(Source(_LIBSVM_MC + "usps.t.bz2"),),
                     n_features=256, n_rows=2_007, labels="keep", page=f"{_LIBSVM_MC_PAGE}#usps",
                     note="USPS digits, test part; labels 1..10 = digit + 1 (kept)"))

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
                      "paper's 16.17 % (okl's POMDR agrees with the R code to the "
                      "mistake: issue 12)"}),
)
