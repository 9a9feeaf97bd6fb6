"""The papers' datasets, prepared as each paper prepares them.

``paper_data(name, paper)`` reads the files of dataset ``name`` from the data directory
(``$OKL_DATA``, see ``okl.datasets.fetch``) and applies the declaration of ``paper``
for it (``okl.datasets.registry.PAPER_DATASETS``), in this order:

1. **files and classes**: the declared files (``DATASETS`` names) are read and their
   rows concatenated; where a paper keeps some classes only (mnist12 = MNIST digits 1
   and 2), the other rows are dropped and the kept classes relabelled to -1 / +1.
2. **row draw**: when the stream is to be shorter than the prepared set (the paper's own
   subsample, e.g. SUSY's 50,000 rows; or ``n_rows=`` smaller than the paper's size),
   ``k`` rows are drawn uniformly without replacement: the row indices
   ``numpy.sort(numpy.random.default_rng(seed).choice(N, k, replace=False))`` of the
   ``N`` rows of step 1, kept in file order.  Never the head of a file (UCI's magic04
   lists every gamma before every hadron).  A large file is read in one streaming pass
   keeping only the drawn rows (``okl.datasets.fetch.load``).
3. **feature selection** (the "-v" sets of the kernel-selection paper of Li & Liao: the
   first features).
4. **scaling**, with the statistics of the whole prepared set (after the draw): min-max
   to [0, 1] (magic04 in Li & Liao, AAAI 2023, after the authors' "magic04-N"), min-max
   to [-1, 1] (Jezequel, Gaillard & Rudi, NeurIPS 2019, Sec. 4), division by the standard
   deviation (the kernel-selection paper: Hardware, Twitter).
5. **adversarial rescaling** (the kernel-selection paper's Adv- sets): a property of the
   rounds, not of the rows, so it is applied to each permuted stream:
   ``PaperData.stream(order)`` returns ``X[order]`` with every round after the first
   ``ceil(T/20)`` multiplied by ``2^-3`` (``okl.datasets.adversarial_rescaling``).
   ``PaperData.X`` itself is not rescaled.

Each step says, in ``PaperData.steps``, what was done and where its rule comes from:
the paper's text, the authors' released code or data files, or (where both are silent)
what reproduces the paper's table.  ``paper_datasets(paper)`` lists the declarations of
a paper (name, size, dimension, task, steps) without reading any file.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from okl.datasets import fetch
from okl.datasets.fetch import draw_indices  # the row draw of ``load``, used here too
from okl.datasets.files import _check_n_rows
from okl.datasets.registry import DATASETS, PAPER_DATASETS, PAPERS, SCALINGS, PaperDataset
from okl.datasets.synthetic import adversarial_rescaling

__all__ = ["PaperData", "PaperDataset", "PaperDataNotFoundError", "paper_data", "paper_datasets", "PAPERS",
           "ADVERSARIAL_SCALE"]

ADVERSARIAL_SCALE = 2.0 ** -3


@dataclass(frozen=True, repr=False)
class PaperData:
    """A paper's dataset, prepared (``paper_data``).

    Attributes
    ----------
    name : str
        As the paper names it (``"magic04"``, ``"Adv-magic04"``, ``"mnist12"``, ...).
    paper : str
        One of ``PAPERS``.
    X : ndarray or CSR matrix, float64
        The prepared rows, ready to stream (before any permutation).
    y : ndarray
        -1 / +1 for classification, reals for regression, the class for novelty.
    task : str
        ``"classification"``, ``"regression"`` or ``"novelty"`` (NORMA's USPS: ``y`` is
        the digit, shown only; the learner gets no labels).
    steps : tuple of str
        What was done, in order, each with where the rule comes from.
    files : tuple of str
        The files read.
    adversarial : float or None
        The factor of the adversarial rescaling of the kernel-selection paper of Li &
        Liao, applied by ``stream``.
    n_paper : int or None
        The paper's number of rows (``None`` when the paper does not state it).
    """

    name: str
    paper: str
    X: object
    y: np.ndarray
    task: str
    steps: tuple
    files: tuple
    adversarial: float | None = None
    n_paper: int | None = None

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def stream(self, order=None):
        """``(X, y)`` in round order: rows ``order`` (default: as prepared), then the
        adversarial rescaling of the later rounds when the dataset has one.

        The rescaling acts on rounds ``t > ceil(T/20)`` of the permuted stream (seed
        004, Sec. 5.1), so permute with ``order`` here rather than permuting the output.
        """
        X, y = self.X, self.y
        if order is not None:
            order = np.asarray(order)
            X, y = X[order], y[order]
        if self.adversarial is not None:
            X, y = adversarial_rescaling(X, y, scale=self.adversarial)
        return X, y

    def __repr__(self) -> str:
        kind = "CSR" if sp.issparse(self.X) else "dense"
        return (f"PaperData({self.name!r} of {self.paper!r}: {self.n_rows} x "
                f"{self.n_features} {kind}, {self.task}; " + "; ".join(self.steps) + ")")


_TARGET_SCALINGS = {
    "minmax01": "min-max scaled to [0, 1]",
    "minmax11": "min-max scaled to [-1, 1]",
    "std": "divided by its standard deviation (n - 1; not centred)",
}


def _declaration(name: str, paper: str) -> PaperDataset:
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {list(PAPERS)}")
    decl = PAPER_DATASETS.get((paper, name))
    if decl is None:
        folded = {k[1].lower(): v for k, v in PAPER_DATASETS.items() if k[0] == paper}
        decl = folded.get(str(name).lower())
    if decl is None:
        names = [k[1] for k in PAPER_DATASETS if k[0] == paper]
        raise ValueError(f"paper {paper!r} names no dataset {name!r}; it names {names}")
    return decl


def paper_datasets(paper: str) -> dict:
    """``{name: PaperDataset}``: every dataset ``paper`` names, with its declaration
    (``n``, ``d``, ``task``, the rules and where they come from); no file is read."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {list(PAPERS)}")
    return {k[1]: v for k, v in PAPER_DATASETS.items() if k[0] == paper}


def _n(value) -> str:
    return f"{value:,}"


class PaperDataNotFoundError(fetch.DatasetNotFoundError):
    """Files of a paper's dataset are not in the data directory (``paper_data`` never
    downloads).

    The message names the files, the directory, ``$OKL_DATA``, how to download them
    (``okl.datasets.fetch_file(name)``, or what ``message(download)`` is given) and
    how to get a file that needs a login.

    Attributes
    ----------
    name, paper : str
        The dataset as the paper names it, and the paper.
    parts : tuple of str
        The datasets of ``DATASETS`` it is made of.
    missing : tuple of str
        The parts whose file is missing.
    directory : Path
        The data directory searched.
    filenames : tuple of tuple of str
        The file names accepted for each missing part.
    how_to_get : tuple of str
        The missing parts' instructions for a file that needs a login (may be empty).
    """

    def __init__(self, name, paper, parts, missing, directory, filenames, how_to_get=()):
        self.name, self.paper, self.directory = name, paper, directory
        self.parts, self.missing = tuple(parts), tuple(missing)
        self.filenames = tuple(tuple(f) for f in filenames)
        self.how_to_get, self.url, self.page = tuple(how_to_get), None, None
        FileNotFoundError.__init__(self, self.message())

    def __reduce__(self):           # pickled by its fields (joblib and Dask workers)
        return functools.partial(type(self), self.name, self.paper, self.parts,
                                 self.missing, self.directory, self.filenames,
                                 self.how_to_get), ()

    def message(self, download: str | None = None) -> str:
        """The message, with ``download`` (how to download the files) in place of the
        Python call ``okl.datasets.fetch_file(name)``."""
        wanted = ", ".join(" or ".join(f) for f in self.filenames)
        extra = " ".join(self.how_to_get)
        return (f"{self.name} ({self.paper}) needs {' + '.join(self.parts)}; missing from "
                f"{self.directory}: {wanted} (plain or .gz/.bz2/.xz/.zip).  Set the "
                f"environment variable {fetch.DATA_ENV} to a directory that has them, or "
                f"download them with {download or 'okl.datasets.fetch_file(name)'}"
                + (f".  {extra}" if extra else ""))


def _missing_error(decl, data_home):
    missing = [p for p in decl.parts if fetch.find(p, data_home) is None]
    if not missing:
        return None
    return PaperDataNotFoundError(
        decl.name, decl.paper, decl.parts, missing, fetch.data_home(data_home),
        [DATASETS[p].filenames for p in missing],
        [DATASETS[p].how_to_get for p in missing if DATASETS[p].how_to_get])


def _read_parts(decl, data_home, k=None, seed=0):
    """``(X, y, files, N)``: the concatenated parts, or ``k`` of their ``N`` rows drawn
    with ``draw_indices(N, k, seed)``.

    When a part is large (``fetch.streamed``: SUSY, Twitter), the parts are not read whole:
    ``N`` is then the published count and only the drawn rows are kept, in one
    streaming pass (a file with another count raises).  Otherwise the parts are read
    whole and ``N`` is their actual number of rows.  Both give the same rows.
    """
    error = _missing_error(decl, data_home)
    if error is not None:
        raise error
    files = tuple(str(fetch.find(p, data_home)[0]) for p in decl.parts)
    counts = [DATASETS[p].n_rows for p in decl.parts]
    if k is not None and all(counts) and any(fetch.streamed(p) for p in decl.parts):
        N = sum(counts)
        k = min(k, N)
        rows = draw_indices(N, k, seed) if k < N else np.arange(N)
        blocks, offset = [], 0
        for part, n_part in zip(decl.parts, counts):
            lo, hi = np.searchsorted(rows, [offset, offset + n_part])
            if hi > lo:
                blocks.append(fetch.load_rows(part, rows[lo:hi] - offset,
                                              data_home=data_home))
            offset += n_part
    else:
        blocks = [fetch.load(part, data_home=data_home) for part in decl.parts]
        N = sum(b[0].shape[0] for b in blocks)
        if k is not None and k < N:
            rows = draw_indices(N, k, seed)
            X = _vstack([b[0] for b in blocks])
            y = np.concatenate([b[1] for b in blocks])
            return X[rows], y[rows], files, N
    X = _vstack([b[0] for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    return X, y, files, N


def _vstack(blocks):
    if len(blocks) == 1:
        return blocks[0]
    if any(sp.issparse(b) for b in blocks):
        return sp.vstack([sp.csr_matrix(b) for b in blocks], format="csr")
    return np.vstack(blocks)


def _scale(X, how):
    """``X`` scaled per feature by ``how`` (statistics of ``X`` itself)."""
    if how == "zscore":
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
        mean = X.mean(axis=0)
        sd = X.std(axis=0, ddof=1) if X.shape[0] > 1 else np.zeros(X.shape[1])
        return np.where(sd > 0, (X - mean) / np.where(sd > 0, sd, 1.0), 0.0)
    if how == "std":
        if sp.issparse(X):
            mean = np.asarray(X.mean(axis=0)).ravel()
            sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
            n = X.shape[0]
            var = np.maximum(sq - mean ** 2, 0.0) * n / max(n - 1, 1)
        else:
            var = X.var(axis=0, ddof=1) if X.shape[0] > 1 else np.zeros(X.shape[1])
        sd = np.sqrt(var)
        factor = np.where(sd > 0, 1.0 / np.where(sd > 0, sd, 1.0), 1.0)
        return (sp.csr_matrix(X.multiply(factor[None, :])) if sp.issparse(X)
                else X * factor)
    if sp.issparse(X):
        lo = np.asarray(X.min(axis=0).todense()).ravel()
        hi = np.asarray(X.max(axis=0).todense()).ravel()
    else:
        lo, hi = X.min(axis=0), X.max(axis=0)
    span = hi - lo
    const = ~(span > 0)
    safe = np.where(const, 1.0, span)           # (x - min) / (max - min), as R computes it
    if how == "minmax01":
        if sp.issparse(X) and not lo.any():      # zeros stay zeros: keep it sparse
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.data /= safe[X.indices]
            X.data[const[X.indices]] = 0.0
            X.eliminate_zeros()
            return X
        X = X.toarray() if sp.issparse(X) else X
        out = (X - lo) / safe
        out[:, const] = 0.0
        return out
    if how == "minmax11":
        X = X.toarray() if sp.issparse(X) else X
        out = 2.0 * ((X - lo) / safe) - 1.0
        out[:, const] = 0.0
        return out
    raise ValueError(f"unknown scaling {how!r}")


def _scale_target(y, how):
    if how == "minmax11":
        lo, hi = y.min(), y.max()
        return 2.0 * (y - lo) / (hi - lo) - 1.0 if hi > lo else np.zeros_like(y)
    if how == "minmax01":
        lo, hi = y.min(), y.max()
        return (y - lo) / (hi - lo) if hi > lo else np.zeros_like(y)
    if how == "std":
        sd = y.std(ddof=1) if len(y) > 1 else 0.0
        return y / sd if sd > 0 else y
    raise ValueError(f"unknown scaling {how!r}")


def paper_data(name: str, paper: str, *, n_rows: int | None = None, seed=0,
               data_home=None) -> PaperData:
    """Dataset ``name`` as paper ``paper`` prepares it (see the module docstring).

    Parameters
    ----------
    name : str
        The dataset as the paper names it (case-insensitive): see ``paper_datasets``.
    paper : str
        ``"pomdr"`` (Li & Liao, AAAI 2023), ``"norma"`` (Kivinen, Smola & Williamson,
        IEEE TSP 2004), ``"ahpatron"`` (Liao et al., AAAI 2024), ``"awv"`` (Jezequel,
        Gaillard & Rudi, NeurIPS 2019) or ``"selection"`` (Li & Liao, *Online kernel
        selection with computational constraints*).
    n_rows : int, optional
        A shorter stream: ``n_rows`` rows drawn uniformly (seeded) from the paper's
        dataset.  Default: the paper's full size.
    seed : int or sequence of int
        Seed of the row draw (``numpy.random.default_rng(seed)``); the result depends
        on nothing else.
    data_home : str or Path, optional
        The data directory (default ``$OKL_DATA``, else ``~/.cache/okl``); nothing is
        downloaded.

    Returns
    -------
    PaperData

    Raises
    ------
    DatasetNotFoundError
        A file is missing (the message names the files, the directory and
        ``$OKL_DATA``, and how to get a file that needs a login).
    ValueError
        An unknown paper or dataset, a malformed file.
    """
    decl = _declaration(name, paper)
    n_rows = _check_n_rows(n_rows)
    steps = []
    why = decl.why
    names = " + ".join(decl.parts)

    # 1-2. files, classes, row draw (scalings with the files' statistics come first)
    whole = decl.classes is not None or decl.scale_stats == "file"
    want = min(decl.draw or np.inf, n_rows or np.inf)
    if whole:
        X, y, files, N = _read_parts(decl, data_home)
    else:
        X, y, files, N = _read_parts(decl, data_home,
                                     None if want == np.inf else int(want), seed)
    if decl.classes is not None:
        keep = np.isin(y, list(decl.classes))
        X, y = X[np.flatnonzero(keep)], y[keep]
        y = np.array([float(decl.classes[v]) for v in y.tolist()])
        n_file, N = N, X.shape[0]
        shown = list(decl.classes.items())
        mapping = ", ".join(f"{k!r} -> {v:+g}" for k, v in shown[:4]) + \
            (", ..." if len(shown) > 4 else "")
        steps.append(f"file(s) {names}: {_n(n_file)} rows, the {_n(N)} of classes "
                     f"{mapping} kept" + _versus(N, decl.n, decl.draw)
                     + (f" ({why['classes']})" if "classes" in why else ""))
    else:
        steps.append(f"file(s) {names}: {_n(N)} rows" + _versus(N, decl.n, decl.draw)
                     + (f" ({why['parts']})" if "parts" in why else ""))
    k = X.shape[0] if not whole else min(N, want)

    def transform(X, y, stats):
        if decl.features is not None:
            cols = list(decl.features)
            X = X[:, cols]
            if sp.issparse(X):
                X = sp.csr_matrix(X)
            steps.append(f"features {_columns(cols)} kept ({len(cols)} of "
                         f"{DATASETS[decl.parts[0]].n_features})"
                         + (f" ({why['features']})" if "features" in why else ""))
        if decl.scale is not None:
            X = _scale(X, decl.scale)
            steps.append(f"{SCALINGS[decl.scale]}, {stats}"
                         + (f" ({why['scale']})" if "scale" in why else ""))
        elif "scale" in why:
            steps.append(f"features not scaled ({why['scale']})")
        if decl.target_scale is not None:
            y = _scale_target(np.asarray(y, dtype=float), decl.target_scale)
            steps.append("target " + _TARGET_SCALINGS[decl.target_scale] + f", {stats}"
                         + (f" ({why['target']})" if "target" in why else ""))
        return X, y

    def draw_step():
        reason = []
        if decl.draw and k == decl.draw:
            reason.append(why.get("draw", "the paper's subsample"))
        if n_rows is not None and k == n_rows:
            reason.append(f"n_rows={_n(n_rows)}")
        steps.append(f"{_n(k)} of the {_n(N)} rows drawn uniformly without replacement "
                     f"(sorted indices of numpy default_rng({seed!r}).choice, file order; "
                     + "; ".join(reason) + ")")

    if decl.scale_stats == "file":
        # 3-4 before the draw: the statistics are those of all the files' rows
        X, y = transform(X, y, f"statistics of all {_n(N)} rows, before any draw")
        if k < N:
            rows = draw_indices(N, k, seed)
            X, y = X[rows], y[rows]
            draw_step()
    else:
        if whole and k < N:
            rows = draw_indices(N, k, seed)
            X, y = X[rows], y[rows]
        if k < N:
            draw_step()
        # 3-4. features, scaling: statistics of the prepared rows
        X, y = transform(X, y, f"statistics of the {_n(X.shape[0])} prepared rows")
    # 5. adversarial rescaling (per permuted stream)
    if decl.adversarial is not None:
        steps.append(f"adversarial: rounds after the first ceil(T/20) of each permuted "
                     f"stream multiplied by {decl.adversarial:g} (PaperData.stream)"
                     + (f" ({why['adversarial']})" if "adversarial" in why else ""))
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if decl.task == "classification" and not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError(f"{decl.name} ({paper}): labels outside -1/+1 after preparation")
    return PaperData(name=decl.name, paper=paper, X=X, y=y, task=decl.task,
                     steps=tuple(steps), files=files, adversarial=decl.adversarial,
                     n_paper=decl.n)


def _versus(N, n_paper, draw):
    if n_paper is None or draw:
        return ""
    return " as in the paper" if N == n_paper else f" (the paper: {_n(n_paper)})"


def _columns(cols) -> str:
    if cols == list(range(cols[0], cols[-1] + 1)):
        return f"{cols[0] + 1}..{cols[-1] + 1}"
    return ", ".join(str(c + 1) for c in cols)



def declaration_summary(paper: str | None = None) -> list:
    """One dict per declaration (``paper``, ``name``, ``files``, ``n``, ``d``, ``task``,
    ``preparation``, ``source``): a short account of ``PAPER_DATASETS`` for tables (the
    documentation's dataset page; ``PaperData.steps`` has the full text of a run)."""
    rows = []
    for (p, name), decl in PAPER_DATASETS.items():
        if paper is not None and p != paper:
            continue
        prep = []
        if decl.classes is not None:
            kept = list(decl.classes)
            prep.append("classes " + (", ".join(map(str, kept)) if len(kept) <= 3
                                      else f"{kept[0]}..{kept[-1]}") + " kept")
        if decl.draw:
            prep.append(f"{decl.draw:,} rows drawn uniformly")
        if decl.features is not None:
            prep.append(f"features {_columns(list(decl.features))}")
        if decl.scale:
            prep.append({"minmax01": "x to [0, 1]", "minmax11": "x to [-1, 1]",
                         "std": "x / sd", "zscore": "x to mean 0, sd 1"}[decl.scale])
        if decl.target_scale:
            prep.append({"minmax01": "y to [0, 1]", "minmax11": "y to [-1, 1]",
                         "std": "y / sd"}[decl.target_scale])
        if decl.scale_stats == "file" and (decl.scale or decl.target_scale):
            prep.append("scaled on all rows, then drawn")
        if decl.adversarial:
            prep.append(f"adversarial x {decl.adversarial:g} after round ceil(T/20)")
        if not prep:
            prep.append("as published")
        kinds = [v for k, v in decl.why.items()]
        source = ("paper" if any(v.startswith("paper") for v in kinds) else "") + \
            (" + authors' code/data" if any("authors'" in v for v in kinds) else "") + \
            (" + table check" if any("come from unscaled" in v or "fit pixels" in v
                                     for v in kinds) else "") + \
            (" (assumption)" if any("assumption" in v or "not stated" in v for v in kinds)
             else "")
        rows.append({"paper": p, "name": name, "files": " + ".join(decl.parts),
                     "n": decl.n, "d": decl.d, "task": decl.task,
                     "preparation": "; ".join(prep), "source": source.strip(" +")})
    return rows
