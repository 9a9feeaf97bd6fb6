"""Plain-numpy oracles of BSGD, AMM online and Pegasos, one round at a time.

Sources (notes: notes/bsgd.md)
  [P] Z. Wang, K. Crammer, S. Vucetic, "Breaking the curse of kernelization: budgeted
      stochastic gradient descent for large-scale SVM training", JMLR 13 (2012) 3103-3131.
      Equation and section numbers are those of the copy BudgetedSVM ships
      (doc/pdfs_of_algorithm_papers/BSGD_paper.pdf: Algorithm 1, Eqs. 3.1-3.8, 5.1-5.2,
      Algorithm 2, Eqs. 6.1-6.8).
  [A] Z. Wang, N. Djuric, K. Crammer, S. Vucetic, "Trading representability for
      scalability: adaptive multi-hyperplane machine for nonlinear classification",
      KDD 2011 (Eqs. 3-14, Algorithm 2, Section 3.4).
  [C] BudgetedSVM v1.2, github.com/djurikom/BudgetedSVM at commit
      cce05ffcf9720fdb0201d804335d09cdd82a7e92: src/bsgd.cpp, src/bsgd.h, src/mm_algs.cpp,
      src/mm_algs.h, src/budgetedSVM.cpp.  "bsgd.cpp:816" is a line of that commit.

Every oracle takes ``variant``:
  * ``"budgetedsvm"`` does what [C]'s ``budgetedsvm-train -r 0`` does, quirks included
    (listed in each docstring);
  * ``"paper"`` does what the paper writes where the two disagree.
and ``numerics``:
  * ``"float64"``: plain float64 arithmetic;
  * ``"budgetedsvm"``: [C]'s arithmetic, so that a run can be compared with its model files
    to ~1e-9: coordinates kept as float32 (``budgetedVector::array`` is ``float``), every
    coordinate product rounded to float32 (``float * float`` in
    ``budgetedVector::linearKernel``, budgetedSVM.cpp:1042-1061), sums and coefficients in
    ``np.longdouble`` (x87 80-bit on x86-64 Linux, as g++'s ``long double``), sums taken
    left to right.

Kernel: ``Kernel("gaussian", gamma)`` is ``exp(-gamma ||x - v||^2)``, the paper's
``exp(-sigma ||x - x'||^2)`` (footnote 10).  BudgetedSVM's ``-g`` is twice that gamma (its
kernel is ``exp(-0.5 g ||x - y||^2)``, budgetedSVM.cpp:878-881); okl's ``sigma`` is
``gamma = 1 / (2 sigma^2)``.  ``gamma_from_g`` and ``gamma_from_sigma`` convert.

Labels: class indices follow the first appearance of each label in the training stream
(budgetedData::readChunk, budgetedSVM.cpp:428-446), unless ``classes`` is given.  Ties in
an argmax go to the lowest index (every ``if (fx > maxFx)`` in [C]).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Kernel", "gamma_from_g", "gamma_from_sigma",
    "bsgd", "kernel_pegasos", "amm_online", "pegasos_linear",
    "golden_section", "read_libsvm", "load_model", "predict_model",
]


# --------------------------------------------------------------------------- streams

def gauss_data(n=300, d=3, seed=0, classes=2):
    """The oracle tests' streams: a ring in the first two of ``d`` standard normal
    coordinates (binary, labels -1/+1) or K angular sectors (labels 1..K)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if classes == 2:
        y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4, 1, -1)
    else:
        y = (np.floor((np.arctan2(X[:, 1], X[:, 0]) + np.pi) / (2 * np.pi / classes))
             .astype(int) % classes) + 1
    return X, y


# --------------------------------------------------------------------------- kernels

@dataclass(frozen=True)
class Kernel:
    """``gaussian``: exp(-gamma ||x - v||^2); ``polynomial``: (<x, v> + coef0)^degree
    (BudgetedSVM's ``-K 2``, budgetedSVM.cpp:988-991, no scale); ``linear``: <x, v>."""
    kind: str = "gaussian"
    gamma: float = 1.0
    degree: float = 2.0
    coef0: float = 1.0


def gamma_from_g(g):
    """BudgetedSVM's ``-g`` (exp(-0.5 g d^2)) -> this module's gamma (exp(-gamma d^2))."""
    return g / 2.0


def gamma_from_sigma(sigma):
    """okl's Gaussian ``sigma`` (exp(-d^2 / (2 sigma^2))) -> gamma."""
    return 1.0 / (2.0 * sigma ** 2)


# --------------------------------------------------------------------------- arithmetic

class _Float64:
    """Plain float64."""
    real = np.float64

    def store(self, v):                      # coordinates as kept in a support vector
        return np.asarray(v, dtype=np.float64).copy()

    def dot(self, a, b):                     # <a, b>
        return np.float64(np.dot(a, b))

    def sq_data(self, x):                    # ||x||^2 of a data point
        return np.float64(np.dot(x, x))

    def sq_exact(self, v):                   # ||v||^2 recomputed
        return np.float64(np.dot(v, v))

    def total(self, values):                 # a sum
        return np.float64(np.sum(values))


class _BudgetedSVM:
    """[C]'s arithmetic (see the module docstring)."""
    real = np.longdouble

    def store(self, v):
        return np.asarray(v, dtype=np.float32).astype(np.longdouble)

    def dot(self, a, b):
        # budgetedVector::linearKernel: result(long double) += float * float
        prods = (np.asarray(a, np.float32) * np.asarray(b, np.float32)).astype(np.longdouble)
        return self.total(prods)

    def sq_data(self, x):
        # createVectorUsingDataPoint: sqrL2norm += an[i] * an[i]   (float product)
        return self.dot(x, x)

    def sq_exact(self, v):
        # budgetedVector::sqrNorm: (long double) a * (long double) a
        v = np.asarray(v, np.longdouble)
        return self.total(v * v)

    def total(self, values):
        values = np.asarray(values, dtype=np.longdouble)
        return np.cumsum(values)[-1] if values.size else np.longdouble(0)


def _arith(numerics):
    if numerics == "float64":
        return _Float64()
    if numerics == "budgetedsvm":
        return _BudgetedSVM()
    raise ValueError(f"numerics must be 'float64' or 'budgetedsvm', not {numerics!r}")


def _kernel(kernel, ar, a, sa, b, sb):
    """k(a, b) from the coordinates and the kept squared norms (budgetedSVM.cpp:878-881,
    975-991, 1042-1061): the Gaussian uses ||a||^2 + ||b||^2 - 2<a, b>, as [C] does."""
    R = ar.real
    if kernel.kind == "gaussian":
        return np.exp(-R(kernel.gamma) * (sa + sb - R(2) * ar.dot(a, b)))
    if kernel.kind == "polynomial":
        return np.power(R(kernel.coef0) + ar.dot(a, b), R(kernel.degree))
    if kernel.kind == "linear":
        return ar.dot(a, b)
    raise ValueError(kernel.kind)


def _first_argmax(values, skip=None):
    """Index of the first maximum (``if (fx > maxFx)`` from -INF), ``skip`` excluded."""
    best, arg = -np.inf, None
    for i, v in enumerate(values):
        if i != skip and v > best:
            best, arg = v, i
    return arg


def _first_argmin(values, rtol=0.0):
    """Index of the first minimum (``if (best > v)`` from INF); with ``rtol`` > 0, the
    first index whose value is within rtol |min| of the minimum (a near-tie goes to the
    lowest index instead of to round-off)."""
    values = list(values)
    best, arg = np.inf, None
    for i, v in enumerate(values):
        if v < best:
            best, arg = v, i
    if rtol > 0 and arg is not None:
        for i, v in enumerate(values):
            if v - best <= rtol * abs(best):
                return i
    return arg


def _classes_of(y, classes):
    if classes is not None:
        classes = list(classes)
    else:
        classes = []
        for label in y:                                   # first appearance
            if label not in classes:
                classes.append(label)
    index = {c: i for i, c in enumerate(classes)}
    return classes, np.array([index[label] for label in y])


# --------------------------------------------------------------------------- merging

def golden_section(k12, a1, a2, lo, hi, tol=1e-4, real=np.float64):
    """bsgd.cpp:381-416 verbatim: minimise  -(a1 k12^((1-h)^2) + a2 k12^(h^2))  over
    [lo, hi] (the one-dimensional merging problem below Eq. 6.7 of [P]); stops when the
    bracket is shorter than 2 tol and returns its midpoint.  With tol = 1e-4 that is 18
    evaluations after the first two on [0, 1] and 22 on [1, 6] or [-5, 0]."""
    R = real
    k12, a1, a2, a, b, tol = R(k12), R(a1), R(a2), R(lo), R(hi), R(tol)

    def f(h):
        return -(a1 * np.power(k12, (R(1) - h) * (R(1) - h)) + a2 * np.power(k12, h * h))

    gold = R((np.sqrt(5.0) - 1.0) / 2.0)                 # a double in [C]
    p = b - gold * (b - a)
    q = a + gold * (b - a)
    fp, fq = f(p), f(q)
    while (b - a) >= R(2) * tol:
        if fp <= fq:
            b, q, fq = q, p, fp
            p = b - gold * (b - a)
            fp = f(p)
        else:
            a, p, fp = p, q, fq
            q = a + gold * (b - a)
            fq = f(q)
    return (a + b) / R(2)


def _merge_weights(alpha_m, alpha_n, real, variant="budgetedsvm"):
    """a1 = sum_i m^(i), a2 = sum_i (1 - m^(i)) with m^(i) = alpha_m^(i) / (alpha_m^(i) +
    alpha_n^(i)) ([P] Eq. 6.7), which [P] defines only for alpha_m^(i) + alpha_n^(i) != 0.
    "budgetedsvm" (bsgd.cpp:446-457): a zero denominator is replaced by 0.0001, so a class
    where both are 0 adds nothing, and a class where they cancel adds +-alpha / 0.0001 to
    a1 and the opposite to a2: for a pair that cancels in every class (a binary pair with
    opposite coefficients) a1 and a2 are round-off, and so are the sign tests of
    _merge_bracket.  m^(i) is scale-free, so a class whose coefficients are round-off
    residues (1e-18 after earlier merges, where they should be 0) counts as much as any
    other.  "paper": a class whose sum alpha_m^(i) + alpha_n^(i) is 0 within 1e-12 of the
    pair's largest |alpha_m^(i)| + |alpha_n^(i)| is left out; when no class is left (the
    pair cancels, alpha_n = -alpha_m), a1 = 1 and a2 = -1: h maximises k^((1-h)^2) -
    k^(h^2) on [1, 6], which also minimises the true ||Delta||^2 = ||alpha_m||^2 (2 - 2 k -
    (k_mz - k_nz)^2) over that bracket, a z beyond x_m on the line (what [C] does when
    the round-off residue a1 comes out positive)."""
    R = real
    a1 = a2 = R(0)
    used = False
    scale = max(abs(am) + abs(an) for am, an in zip(alpha_m, alpha_n))
    for am, an in zip(alpha_m, alpha_n):
        d = am + an
        if variant == "paper":
            if abs(d) <= R(1e-12) * scale:
                continue
            used = True
        elif d == 0:
            d = R(0.0001)
        a1 += am / d
        a2 += an / d
    if variant == "paper" and not used:
        return R(1), R(-1)
    return a1, a2


def _merge_bracket(a1, a2):
    """bsgd.cpp:459-470: [0, 1] when a1 a2 > 0, [1, 6] when a1 > 0 (otherwise), else [-5, 0]."""
    if a1 * a2 > 0:
        return 0.0, 1.0
    if a1 > 0:
        return 1.0, 6.0
    return -5.0, 0.0


# --------------------------------------------------------------------------- BSGD

@dataclass
class MaintenanceStep:
    """One budget maintenance (Algorithm 1 line 7 of [P]).

    ``sq_degradation`` is ||Delta_t||^2 of the step actually taken, computed from kernel
    values (Eq. 6.1); ``grad_error`` is ||E_t|| = ||Delta_t|| / eta_t (Theorem 1).  For a
    merge, ``sq_degradation_code`` is the quantity computeKmax minimises (bsgd.cpp:475-480,
    ``sum_i a_m^2 + a_n^2 + 2 k_mn a_m a_n - a_z^2``), which equals ``sq_degradation``
    unless [C] clipped a negative h to 0 (bsgd.cpp:492-493).  Indices are positions in the
    support-vector list at the time, the new support vector being the last."""
    t: int
    kind: str                     # remove | project | merge | merge-duplicate | remove-duplicate
    removed: int                  # position of the vector that left the list
    kept: int | None = None       # merge: position (before removal) of the merged vector
    h: float | None = None        # merge: z = h x_m + (1 - h) x_n  (after any clipping)
    h_search: float | None = None  # merge: golden-section result (before clipping)
    sq_degradation: float = 0.0
    sq_degradation_code: float | None = None
    grad_error: float = 0.0
    # ||alpha_p||^2 k(x_p, x_p) of the smallest vector p (for a merge, m): what removing
    # it would have cost; projection and merging never exceed it ([P] Sections 6.2-6.3)
    sq_degradation_removal: float | None = None


@dataclass
class BSGDModel:
    """Support vectors (rows of ``sv``), their coefficients ``alpha`` (n, c) (c = 1 in the
    binary formulation), the kept squared norms ``sq``, the kernel and the class labels."""
    sv: np.ndarray
    alpha: np.ndarray
    sq: np.ndarray
    kernel: Kernel
    classes: list
    binary: bool = False
    numerics: str = "float64"

    def decision(self, X):
        """Class scores f^(i)(x) = sum_j alpha_j^(i) k(x_j, x) ([P] Eq. 3.8 / Section 5)."""
        ar = _arith(self.numerics)
        out = np.zeros((len(X), self.alpha.shape[1]), dtype=ar.real)
        for r, x in enumerate(X):
            x = ar.store(x)
            sx = ar.sq_data(x)
            k = np.array([_kernel(self.kernel, ar, v, s, x, sx)
                          for v, s in zip(self.sv, self.sq)], dtype=ar.real)
            for c in range(self.alpha.shape[1]):
                out[r, c] = ar.total(self.alpha[:, c] * k)
        return out

    def predict(self, X):
        scores = self.decision(X)
        if self.binary:
            return np.where(scores[:, 0] >= 0, 1, -1)
        return np.array([self.classes[_first_argmax(s)] for s in scores])


@dataclass
class BSGDRun:
    """What an oracle run returns: per round (``rounds = epochs * len(X)``) the class
    scores before the update, the prediction (first argmax; binary: sign, 0 -> +1), the
    hinge loss, whether the round added a support vector and its learning rate; the final
    model; every maintenance step; and, with ``track_objective``, the instantaneous
    objective P_t(w_t) = lambda/2 ||W_t||^2 + l_t ([P] Eq. 3.3 / 5.1)."""
    model: BSGDModel
    scores: np.ndarray
    predictions: np.ndarray
    losses: np.ndarray
    updated: np.ndarray
    eta: np.ndarray
    steps: list = field(default_factory=list)
    objective: np.ndarray | None = None

    @property
    def grad_errors(self):
        """||E_t|| per round (0 where no maintenance happened)."""
        e = np.zeros(len(self.losses))
        for s in self.steps:
            e[s.t - 1] = s.grad_error
        return e

    @property
    def average_gradient_error(self):
        """E = sum_t ||E_t|| / N of Theorems 1-3 of [P] (N = rounds)."""
        return float(self.grad_errors.mean())


def bsgd(X, y, *, budget, lam=1e-4, rule="pegasos", maintenance="merge", kernel=Kernel(),
         eta=None, radius=None, epochs=1, binary=False, classes=None, order=None,
         variant="budgetedsvm", numerics="float64", projection_solve="incremental",
         tie_rtol=None, track_objective=False):
    """Budgeted SGD, [P] Algorithm 1, binary (Section 3, ``binary=True``, labels +-1, one
    coefficient per support vector) or multi-class (Section 5, a coefficient per class per
    support vector, Crammer-Singer loss l = max(0, 1 + f^(r)(x) - f^(y)(x)), r the
    best-scoring wrong class; a binary file is two classes, as [C] always runs it).

    Round t (t counts across epochs; ``order`` is the row order of an epoch, default the
    file's, which is [C]'s with ``-r 0``):
      scores f_t(x_t) of the model w_t; loss at w_t;
      w <- (1 - eta_t lambda) w                            Algorithm 1 line 2 / bsgd.cpp:812-814
      if loss > 0: add x_t with beta_t                     lines 3-5 / bsgd.cpp:816-831
                   (binary: eta_t y_t; multi-class: +eta_t for y_t, -eta_t for r_t, Eq. 5 update)
        if more than ``budget`` vectors: maintenance       lines 6-8 / bsgd.cpp:833-914
      rule "mp": w <- min(1, U / ||w||) w (radius U)      Section 4, after line 8
    Rules (Table 2): "pegasos" eta_t = 1 / (lambda t); "norma" eta_t = eta / sqrt(t);
    "mp" (margin perceptron) eta_t = eta, lambda = 0, projection onto the ball of radius U.
    [C] has only "pegasos" (its BSGD is Pegasos-style, BudgetedSVM paper Section 2.3).

    Maintenance (Algorithm 2, Section 6; ``budget=None``: none, the non-budgeted baseline):
      "remove":  p = argmin_j ||alpha_j||^2 k(x_j, x_j) over the B + 1 vectors (Section 6.1;
                 bsgd.cpp:843-853 the same); ||Delta||^2 = ||alpha_p||^2 k(x_p, x_p).
      "project": p as for removal (Section 6.2's simplification); alpha^(i) of the others
                 += alpha_p^(i) K_p^{-1} k_p (Eq. 6.3); ||Delta||^2 = ||alpha_p||^2 (k_pp -
                 k_p' K_p^{-1} k_p) (Eq. 6.4).  Not in [C].  ``projection_solve="incremental"``
                 keeps the inverse of the support vectors' kernel matrix: a new vector
                 borders it (Schur complement s = k_nn - k' K^{-1} k), and with M the
                 inverse over the B + 1 vectors, K_p^{-1} k_p = -M[-p, p] / M[p, p],
                 k_pp - k_p' K_p^{-1} k_p = 1 / M[p, p], and the inverse without p is
                 M[-p, -p] - M[-p, p] M[p, -p] / M[p, p]: O(B^2) a round, no solve.
                 ``"fresh"`` solves K_p x = k_p each time (np.linalg.solve), for checking.
      "merge":   Gaussian kernel only.  m = argmin_j ||alpha_j||^2 (Section 6.3;
                 bsgd.cpp:874-883), then every other n: h by golden_section on the bracket
                 of _merge_bracket, k_mz = k_mn^((1-h)^2), k_nz = k_mn^(h^2), alpha_z^(i) =
                 alpha_m^(i) k_mz + alpha_n^(i) k_nz, and ||Delta||^2 = sum_i (alpha_m^(i)2 +
                 alpha_n^(i)2 + 2 k_mn alpha_m^(i) alpha_n^(i) - alpha_z^(i)2) (Eq. 6.8 with
                 k(x, x) = 1); the n of smallest ||Delta||^2 (first on ties, bsgd.cpp:440-490)
                 is merged: z = h x_m + (1 - h) x_n takes m's place in the list, n leaves it
                 (bsgd.cpp:894-909).

    Where [C] and [P] disagree (``variant``):
      1. first round: [C] sets alpha^(y) = 1, alpha^((y+1) mod c) = -1 and skips the round
         (bsgd.cpp:724-738); [P] adds x_1 with beta_1 = eta_1 (1 / lambda for Pegasos).
      2. a new point whose Gaussian kernel with a support vector rounds to 1 at 1e-8
         (bsgd.cpp:778-795; the last such vector) is, on a budget overflow, added to that
         vector's coefficients (merge) or discarded (removal) (bsgd.cpp:855-859, 898-905);
         [P] has no such rule.
      3. a merge whose h came out negative: [C] puts z at h = 0 (i.e. at x_n) but keeps the
         coefficients computed with the negative h (bsgd.cpp:492-499, 894-896); [P] puts z
         at the h it found.  The trace's ``sq_degradation`` is the true ||Delta||^2 either way.
    Both variants use [C]'s bracket and tolerance for h ([P] only says "golden search").

    Ties.  In BPegasos every support vector that was never merged or projected onto has
    |alpha| = 1 / (lambda t) exactly (Eq. 3.7: beta_j prod_{k>j} (1 - 1/k) = 1 / (lambda t)),
    so "the smallest ||alpha_j||" of removal, projection and merging is a tie among them,
    decided in [C] by the round-off of the running products (bsgd.h:94-99).  Under
    ``numerics="budgetedsvm"`` the oracle reproduces that round-off (``tie_rtol`` 0);
    under float64 it breaks ties within ``tie_rtol`` (default 1e-9) relatively of the
    minimum by the lowest list position instead, which an implementation can reproduce.

    ``radius``: U of BMP.  ``eta``: the constant of Norma / MP.  ``lam``: lambda (0 for MP).
    Parameters given to budgetedsvm-train are read as float32 (parseInputPrompt,
    budgetedSVM.cpp:1306-1319): pass ``float(np.float32(lam))`` to reproduce a file.
    """
    ar = _arith(numerics)
    R = ar.real
    if tie_rtol is None:
        tie_rtol = 0.0 if numerics == "budgetedsvm" else 1e-9
    X = np.asarray(X, dtype=np.float64)
    if binary:
        if variant == "budgetedsvm":
            raise ValueError("BudgetedSVM has no binary formulation: use binary=False")
        yv = np.asarray(y)
        if not set(np.unique(yv)) <= {-1, 1}:
            raise ValueError("binary=True needs labels in {-1, +1}")
        classes_, yi = [1], None
        c = 1
    else:
        classes_, yi = _classes_of(list(np.asarray(y).tolist()), classes)
        c = len(classes_)
    if rule not in ("pegasos", "norma", "mp"):
        raise ValueError(rule)
    if maintenance not in ("remove", "project", "merge"):
        raise ValueError(maintenance)
    if maintenance == "merge" and kernel.kind != "gaussian":
        raise ValueError("merging needs the Gaussian kernel ([P] Section 6.3; "
                         "budgetedSVM.cpp:1504-1509 switches to it)")
    if rule == "mp":
        if eta is None or radius is None:
            raise ValueError("rule 'mp' needs eta and radius")
        lam = 0.0
    if rule == "norma" and eta is None:
        raise ValueError("rule 'norma' needs eta")
    n_rows = len(X)
    order = np.arange(n_rows) if order is None else np.asarray(order)

    sv, sq = [], []                                # coordinates and kept squared norms
    alpha = np.zeros((0, c), dtype=R)
    kinv = np.zeros((0, 0))                        # projection: inverse kernel matrix
    steps = []
    rounds = epochs * len(order)
    scores = np.zeros((rounds, c), dtype=R)
    preds = np.empty(rounds, dtype=object)
    losses = np.zeros(rounds)
    updated = np.zeros(rounds, dtype=bool)
    etas = np.zeros(rounds)
    objective = np.zeros(rounds) if track_objective else None

    def kern(a, sa, b, sb):
        return _kernel(kernel, ar, a, sa, b, sb)

    def gram():
        n = len(sv)
        G = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                G[i, j] = float(kern(sv[i], sq[i], sv[j], sq[j]))
        return G

    def sq_norm_w():
        G = gram()
        A = alpha.astype(np.float64)
        return float(np.einsum("ic,ij,jc->", A, G, A))

    def add_to_inverse(knew, knn):
        nonlocal kinv
        if len(knew) == 0:
            kinv = np.array([[1.0 / knn]])
            return
        u = kinv @ knew
        s = knn - knew @ u
        if s <= 1e-12 * max(knn, 1.0):             # new vector in the span: pseudo-inverse
            full = np.block([[gram(), knew[:, None]], [knew[None, :], np.array([[knn]])]])
            kinv = np.linalg.pinv(full)
            return
        top = kinv + np.outer(u, u) / s
        kinv = np.block([[top, -u[:, None] / s], [-u[None, :] / s, np.array([[1.0 / s]])]])

    t = 0
    for _epoch in range(epochs):
        for row in order:
            t += 1
            r_ = t - 1
            x = ar.store(X[row])
            sx = ar.sq_data(x)
            # learning rate and shrink factor (Table 2)
            if rule == "pegasos":
                eta_t = R(1) / (R(t) * R(lam))
                shrink = R(1) - R(1) / R(t)                       # bsgd.h:94-99
            elif rule == "norma":
                eta_t = R(eta) / np.sqrt(R(t))
                shrink = R(1) - eta_t * R(lam)
            else:
                eta_t = R(eta)
                shrink = R(1)
            etas[r_] = float(eta_t)

            if variant == "budgetedsvm" and t == 1:               # bsgd.cpp:724-738
                yc = yi[row]
                a = np.zeros(c, dtype=R)
                a[yc], a[(yc + 1) % c] = R(1), R(-1)
                sv.append(x), sq.append(sx)
                alpha = np.vstack([alpha, a[None, :]])
                preds[r_] = classes_[0]
                losses[r_] = 1.0
                updated[r_] = True
                if maintenance == "project":
                    add_to_inverse(np.zeros(0), float(kern(x, sx, x, sx)))
                if track_objective:
                    objective[r_] = 1.0
                continue

            k = np.array([kern(v, s, x, sx) for v, s in zip(sv, sq)], dtype=R)
            duplicate = None
            if variant == "budgetedsvm" and len(sv):              # bsgd.cpp:762-800
                # [C] tests a vector when it first computes its kernel: class by class,
                # vector by vector, only vectors with a nonzero coefficient for the class;
                # the last vector found wins
                seen = np.zeros(len(sv), dtype=bool)
                for kc in range(c):
                    for i, (v, s) in enumerate(zip(sv, sq)):
                        if alpha[i, kc] != 0 and not seen[i]:
                            seen[i] = True
                            g = R(duplicate_gamma(kernel))
                            kg = np.exp(-g * (s + sx - R(2) * ar.dot(v, x)))
                            if int(kg * R(100000000.0) + R(0.5)) == 100000000:
                                duplicate = i
            f = np.array([ar.total(alpha[:, j] * k) for j in range(c)], dtype=R)
            scores[r_] = f
            if track_objective:
                objective[r_] = 0.5 * lam * sq_norm_w()

            if binary:
                label = int(np.asarray(y)[row])
                preds[r_] = 1 if f[0] >= 0 else -1
                margin = R(1) - R(label) * f[0]
                violated = margin > 0
                loss = max(float(margin), 0.0)
                beta = np.array([R(label) * eta_t], dtype=R)
            else:
                yc = yi[row]
                preds[r_] = classes_[_first_argmax(f)]
                rc = _first_argmax(f, skip=yc)
                margin = R(1) + f[rc] - f[yc]                     # bsgd.cpp:816
                violated = margin > 0
                loss = max(float(margin), 0.0)
                beta = np.zeros(c, dtype=R)
                beta[yc], beta[rc] = eta_t, -eta_t                # bsgd.cpp:827-828
            losses[r_] = loss
            if track_objective:
                objective[r_] += loss

            alpha = alpha * shrink                                 # line 2
            if violated:                                           # lines 3-5
                updated[r_] = True
                if maintenance == "project":
                    add_to_inverse(np.array([float(kv) for kv in k]), float(kern(x, sx, x, sx)))
                sv.append(x), sq.append(sx)
                alpha = np.vstack([alpha, beta[None, :]])
                if budget is not None and len(sv) > budget:        # lines 6-8
                    if maintenance == "remove":
                        step = _remove(t, sv, sq, alpha, kern, ar, variant, duplicate, tie_rtol)
                        alpha = np.delete(alpha, step.removed, axis=0)
                        del sv[step.removed], sq[step.removed]
                    elif maintenance == "project":
                        step, alpha, kinv = _project(t, sv, sq, alpha, kinv, kern, ar,
                                                     projection_solve, tie_rtol)
                    else:
                        step, alpha = _merge(t, sv, sq, alpha, kernel, kern, ar, variant,
                                             duplicate, tie_rtol)
                    step.grad_error = float(np.sqrt(max(step.sq_degradation, 0.0)) / float(eta_t))
                    steps.append(step)

            if rule == "mp" and len(sv):                           # projection onto the ball
                norm = np.sqrt(sq_norm_w())
                if norm > radius:
                    alpha = alpha * R(radius / norm)

    coords = np.array([np.asarray(v, np.float64) for v in sv]).reshape(len(sv), X.shape[1])
    model = BSGDModel(sv=coords,
                      alpha=alpha, sq=np.array(sq, dtype=R), kernel=kernel, classes=classes_,
                      binary=binary, numerics=numerics)
    return BSGDRun(model=model, scores=scores, predictions=preds, losses=losses,
                   updated=updated, eta=etas, steps=steps, objective=objective)


def duplicate_gamma(kernel):
    """The Gaussian width of [C]'s duplicate test, which always calls gaussianKernel with
    KERNEL_GAMMA_PARAM whatever the kernel (bsgd.cpp:792): ``kernel.gamma``."""
    return kernel.gamma


def _remove(t, sv, sq, alpha, kern, ar, variant, duplicate, tie_rtol):
    """[P] Section 6.1, bsgd.cpp:838-863."""
    if variant == "budgetedsvm" and duplicate is not None:
        p = len(sv) - 1                                    # the new vector (bsgd.cpp:858)
        kind = "remove-duplicate"
    else:
        norms = [ar.total(a * a) * kern(v, s, v, s) for a, v, s in zip(alpha, sv, sq)]
        p = _first_argmin(norms, tie_rtol)
        kind = "remove"
    kpp = float(kern(sv[p], sq[p], sv[p], sq[p]))
    sqd = float(np.sum(alpha[p].astype(np.float64) ** 2)) * kpp
    return MaintenanceStep(t=t, kind=kind, removed=p, sq_degradation=sqd,
                           sq_degradation_removal=sqd)


def _project(t, sv, sq, alpha, kinv, kern, ar, solve, tie_rtol):
    """[P] Section 6.2, Eqs. 6.2-6.4 (not in [C])."""
    norms = [ar.total(a * a) * kern(v, s, v, s) for a, v, s in zip(alpha, sv, sq)]
    p = _first_argmin(norms, tie_rtol)
    rest = [j for j in range(len(sv)) if j != p]
    ap = alpha[p].astype(np.float64)
    kpp = float(kern(sv[p], sq[p], sv[p], sq[p]))
    if solve == "incremental":
        M = kinv
        coef = -M[rest, p] / M[p, p]                       # K_p^{-1} k_p
        resid = 1.0 / M[p, p]                              # k_pp - k_p' K_p^{-1} k_p
        new_inv = M[np.ix_(rest, rest)] - np.outer(M[rest, p], M[p, rest]) / M[p, p]
    elif solve == "fresh":
        Kp = np.array([[float(kern(sv[i], sq[i], sv[j], sq[j])) for j in rest] for i in rest])
        kp = np.array([float(kern(sv[i], sq[i], sv[p], sq[p])) for i in rest])
        coef = np.linalg.solve(Kp, kp)
        resid = float(kern(sv[p], sq[p], sv[p], sq[p])) - kp @ coef
        new_inv = np.linalg.inv(Kp)
    else:
        raise ValueError(solve)
    alpha = alpha.astype(np.float64) if alpha.dtype != ar.real else alpha.copy()
    alpha[rest] += np.outer(coef, ap).astype(alpha.dtype)   # Delta alpha^(i) = alpha_p^(i) coef
    alpha = np.delete(alpha, p, axis=0)
    del sv[p], sq[p]
    step = MaintenanceStep(t=t, kind="project", removed=p,
                           sq_degradation=float(np.sum(ap ** 2) * resid),
                           sq_degradation_removal=float(np.sum(ap ** 2)) * kpp)
    return step, alpha, new_inv


def _merge(t, sv, sq, alpha, kernel, kern, ar, variant, duplicate, tie_rtol):
    """[P] Section 6.3 (Eqs. 6.5-6.8), bsgd.cpp:865-910 with computeKmax (432-500)."""
    R = ar.real
    if variant == "budgetedsvm" and duplicate is not None:   # bsgd.cpp:898-905
        m, n = duplicate, len(sv) - 1
        alpha[m] = alpha[m] + alpha[n]
        alpha = np.delete(alpha, n, axis=0)
        del sv[n], sq[n]
        return MaintenanceStep(t=t, kind="merge-duplicate", removed=n, kept=m), alpha

    m = _first_argmin([ar.total(a * a) for a in alpha], tie_rtol)   # bsgd.cpp:874-883
    best = None
    for n in range(len(sv)):                                 # computeKmax
        if n == m:
            continue
        k12 = kern(sv[m], sq[m], sv[n], sq[n])
        a1, a2 = _merge_weights(alpha[m], alpha[n], R, variant)
        lo, hi = _merge_bracket(a1, a2)
        h = golden_section(k12, a1, a2, lo, hi, 1e-4, R)
        kz1 = np.power(k12, (R(1) - h) * (R(1) - h))
        kz2 = np.power(k12, h * h)
        loss = R(0)
        for am, an in zip(alpha[m], alpha[n]):
            za = am * kz1 + an * kz2
            loss += am * am + an * an + R(2) * k12 * am * an - za * za
        if best is None or loss < best[0]:
            best = (loss, n, h, kz1, kz2, k12)
    loss, n, h, kz1, kz2, k12 = best
    h_pos = h
    if variant == "budgetedsvm" and h < 0:                   # bsgd.cpp:492-493
        h_pos = R(0)
    # the merged vector takes m's place (updateSV, bsgd.cpp:290-340)
    xm, xn = sv[m], sv[n]
    lin = ar.dot(xm, xn)
    z = ar.store(h_pos * np.asarray(xm, R) + (R(1) - h_pos) * np.asarray(xn, R))
    if isinstance(ar, _BudgetedSVM):
        sz = (h_pos * h_pos * sq[m] + (R(1) - h_pos) * (R(1) - h_pos) * ar.sq_exact(xn)
              + R(2) * h_pos * (R(1) - h_pos) * lin)
    else:
        sz = ar.sq_exact(z)
    am, an = alpha[m].copy(), alpha[n].copy()
    az = am * kz1 + an * kz2                                  # bsgd.cpp:895-896
    # true ||Delta||^2 for the z actually kept (float64, from kernel values)
    kmz = float(kern(xm, sq[m], z, sz))
    knz = float(kern(xn, sq[n], z, sz))
    kzz = float(kern(z, sz, z, sz))
    kmm = float(kern(xm, sq[m], xm, sq[m]))
    knn = float(kern(xn, sq[n], xn, sq[n]))
    amf, anf, azf = (v.astype(np.float64) for v in (am, an, az))
    sqd = float(np.sum(amf ** 2 * kmm + anf ** 2 * knn + 2 * amf * anf * float(k12)
                       - 2 * azf * (amf * kmz + anf * knz) + azf ** 2 * kzz))
    sv[m], sq[m] = z, sz
    alpha[m] = az
    alpha = np.delete(alpha, n, axis=0)
    del sv[n], sq[n]
    return MaintenanceStep(t=t, kind="merge", removed=n, kept=m, h=float(h_pos),
                           h_search=float(h), sq_degradation=sqd,
                           sq_degradation_code=float(loss),
                           sq_degradation_removal=float(np.sum(amf ** 2)) * kmm), alpha


def kernel_pegasos(X, y, *, lam=1e-4, kernel=Kernel(), epochs=1, **kw):
    """Non-budgeted kernel Pegasos, the "Pegasos" rows of [P]'s Tables 3 (Section 7.1:
    "non-budgeted kernelized Pegasos"): ``bsgd`` with no budget (eta_t = 1 / (lambda t),
    every violating example kept).  BudgetedSVM's ``-A 0`` is a different algorithm:
    linear Pegasos, see ``pegasos_linear``."""
    return bsgd(X, y, budget=None, lam=lam, rule="pegasos", maintenance="remove",
                kernel=kernel, epochs=epochs, **kw)


# --------------------------------------------------------------------------- AMM / Pegasos

class _Weight:
    """A hyperplane w = deg * v ([C]'s budgetedVectorAMM, mm_algs.h:26-190): v stored,
    a scalar degradation, and a kept ||v||^2 updated incrementally (used by pruning)."""

    def __init__(self, v, deg, sq):
        self.v, self.deg, self.sq = v, deg, sq

    def score(self, ar, x):                   # linearKernel, mm_algs.h:174-189
        return self.deg * ar.dot(self.v, x)

    def sq_norm(self):                        # getSqrL2norm
        return self.deg * self.deg * self.sq

    def w(self):
        return np.asarray(self.v, np.float64) * float(self.deg)


def _update_weight(wt, ar, x, sx, sign, step_denominator):
    """w += sign x / step_denominator (step_denominator = (t + 1) lambda in [C], t lambda
    in the paper), i.e. v += x / divisor with divisor = sign (t+1) lambda deg, as
    updateUsingVector does it (mm_algs.cpp:308-345): under [C]'s numerics the increment is
    rounded to float32 and added in float32; the kept ||v||^2 gets ||x||^2 / divisor^2 +
    2 <w, x> / (divisor deg)."""
    R = ar.real
    divisor = R(sign) * step_denominator * wt.deg
    lin = wt.score(ar, x)                     # before the update
    if isinstance(ar, _BudgetedSVM):
        inc = (np.asarray(x, np.longdouble) / divisor).astype(np.float32)
        wt.v = (np.asarray(wt.v, np.float32) + inc).astype(np.longdouble)
    else:
        wt.v = wt.v + x / divisor
    wt.sq = wt.sq + (sx / (divisor * divisor) + R(2) / (divisor * wt.deg) * lin)


def _shrink(weights, factor):
    """All hyperplanes *= factor (downgrade); a hyperplane shrunk to 0 (the paper's first
    round, 1 - 1/1) restarts as v = 0, deg = 1 so that later updates stay defined."""
    for wt in weights:
        wt.deg = wt.deg * factor
        if wt.deg == 0:
            wt.v, wt.deg, wt.sq = np.zeros_like(wt.v), factor.__class__(1), factor.__class__(0)


@dataclass
class AMMRun:
    """Per round: the prediction (class of the best-scoring hyperplane, predictAMM order)
    and its scores before the update, the loss, whether an update happened; the weights
    (``weights[i]`` the list of hyperplanes of class i, each as a dense vector with the bias
    coordinate last when ``bias`` != 0); and each pruning (round, number pruned)."""
    weights: list
    classes: list
    predictions: np.ndarray
    losses: np.ndarray
    updated: np.ndarray
    prunings: list
    bias: float
    zero_hyperplane: bool = False     # the paper variant's reserved zero hyperplane per class

    def decision(self, X):
        """g(i, x) = max_j w_{i,j}'x per class ([A] Eq. 5; with the zero hyperplane, >= 0)."""
        Xb = _with_bias(np.asarray(X, np.float64), self.bias)
        extra = [0.0] if self.zero_hyperplane else []
        return np.array([[max([w @ x for w in ws] + extra) if ws or extra else -np.inf
                          for ws in self.weights] for x in Xb])

    def predict(self, X):
        return np.array([self.classes[_first_argmax(s)] for s in self.decision(X)])


def _with_bias(X, bias):
    if bias != 0:
        return np.hstack([X, np.full((len(X), 1), bias)])
    return X


def amm_online(X, y, *, lam=1e-4, max_weights=50, prune_every=10000, prune_c=10.0,
               bias=1.0, epochs=1, classes=None, order=None, variant="budgetedsvm",
               numerics="float64"):
    """Online AMM, [A] Algorithm 2 (trainAMMonline, mm_algs.cpp:651-955).

    Hyperplanes w_{i,j}; g(i, x) = max_j w_{i,j}' x ([A] Eq. 5).  Round t:
      z_t = argmax_j w_{y,j}' x (Eq. 10) with score f_+; (i_t, j_t) the best hyperplane of
      the other classes with score f_-;
      all hyperplanes *= (1 - eta_t lambda)                                    Eq. 11
      if 1 + f_- - f_+ > 0 (Eq. 8): w_{i_t,j_t} -= eta_t x, and w_{y,z_t} += eta_t x
        (Eq. 13) -- if z_t is the zero hyperplane, that creates a new one, eta_t x
        (Section 3.2), unless the class already has ``max_weights`` (-B) hyperplanes;
      every ``prune_every`` (-k) rounds: prune (Section 3.4, Eq. 14).
    x carries a bias coordinate ``bias`` (-b, default 1) when it is not 0
    (createVectorUsingDataPoint, budgetedSVM.cpp:840-844): the bias is a regularised
    weight like the others.

    variant "budgetedsvm" ([C]):
      * eta_t = 1 / ((t + 1) lambda), shrink (1 - 1/(t + 1)) (mm_algs.h:70-73, 106-108;
        mm_algs.cpp:284, 313);
      * every class starts with one explicit zero hyperplane that is a hyperplane like the
        others (it can be chosen as (i_t, j_t) and pushed away); for the true class the
        update goes to z_t if f_+ > 0, else a new hyperplane eta_t x is appended
        (mm_algs.cpp:801-848); no zero hyperplane is offered for the wrong classes once
        their first one has moved;
      * pruning when t % k == 0 (mm_algs.cpp:858): the squared norms (the kept ones) sorted
        ascending, the count q of the smallest whose cumulative sum stays <= c^2 / (t^2
        lambda^2); then every hyperplane whose squared norm *equals* one of the q smallest
        is deleted, unless it is its class's last (mm_algs.cpp:859-943; ties can delete
        more than q, e.g. several still-zero hyperplanes);
      * cloning (GAMM, -C) is not modelled (default probability 0).
    variant "paper" ([A]): eta_t = 1 / (lambda t) (Eq. 11); each class keeps a reserved
      zero hyperplane scoring 0 in both argmaxes (Section 3.2; a tie at 0 goes to the zero
      hyperplane, as [C] does for the true class); pruning removes the smallest hyperplanes
      while the Frobenius norm of the removed ones stays <= c / ((t - 1) lambda)
      (Theorem 3, Section 3.4), never a class's last nonzero one; ``max_weights`` caps
      the nonzero hyperplanes per class (None: no cap, as in [A]).
    """
    ar = _arith(numerics)
    R = ar.real
    X = _with_bias(np.asarray(X, np.float64), bias)
    classes_, yi = _classes_of(list(np.asarray(y).tolist()), classes)
    c = len(classes_)
    d = X.shape[1]
    order = np.arange(len(X)) if order is None else np.asarray(order)
    paper = variant == "paper"
    if not paper and variant != "budgetedsvm":
        raise ValueError(variant)
    # [C]: one explicit zero hyperplane per class; [P]: no nonzero hyperplane yet
    W = [[] if paper else [_Weight(ar.store(np.zeros(d)), R(1), R(0))] for _ in range(c)]
    rounds = epochs * len(order)
    preds = np.empty(rounds, dtype=object)
    losses = np.zeros(rounds)
    updated = np.zeros(rounds, dtype=bool)
    prunings = []
    t = 0
    for _epoch in range(epochs):
        for row in order:
            t += 1
            r_ = t - 1
            x = ar.store(X[row])
            sx = ar.sq_data(x)
            yc = yi[row]
            # scores; in the paper variant, index -1 is the zero hyperplane (score 0)
            sc = [[wt.score(ar, x) for wt in ws] for ws in W]
            if paper:
                sc = [s + [R(0)] for s in sc]
            flat = [(i, j, s) for i in range(c) for j, s in enumerate(sc[i])]
            preds[r_] = classes_[flat[_first_argmax([f[2] for f in flat])][0]]
            if paper:
                # zero hyperplane (last) wins ties at 0: take the first max of [zero, others...]
                cand = [sc[yc][-1]] + sc[yc][:-1]
                jz = _first_argmax(cand)
                j1 = None if jz == 0 else jz - 1
                f1 = cand[jz]
            else:
                j1 = _first_argmax(sc[yc])
                f1 = sc[yc][j1]
            best = (-np.inf, None, None)
            for i in range(c):
                if i == yc:
                    continue
                cand = ([sc[i][-1]] + sc[i][:-1]) if paper else sc[i]
                for q, s in enumerate(cand):
                    if s > best[0]:
                        jj = (None if q == 0 else q - 1) if paper else q
                        best = (s, i, jj)
            f2, i2, j2 = best
            # shrink (downgrade, mm_algs.cpp:785-788) and the step 1 / denom
            denom = R(t) * R(lam) if paper else (R(t) + R(1)) * R(lam)
            shrink = R(1) - R(1) / R(t) if paper else R(1) - R(1) / (R(t) + R(1))
            _shrink([wt for ws in W for wt in ws], shrink)
            margin = R(1) + f2 - f1                                   # mm_algs.cpp:790
            losses[r_] = max(float(margin), 0.0)
            if margin > 0:
                updated[r_] = True
                # push the wrong class away (mm_algs.cpp:801)
                if j2 is None:                                   # paper: zero hyperplane
                    if max_weights is None or len(W[i2]) < max_weights:
                        W[i2].append(_Weight(x.copy(), R(-1) / denom, sx))
                else:
                    _update_weight(W[i2][j2], ar, x, sx, -1, denom)
                # pull the true class closer (mm_algs.cpp:804-848)
                if (not paper and f1 > 0) or (paper and j1 is not None):
                    _update_weight(W[yc][j1], ar, x, sx, 1, denom)
                elif max_weights is None or len(W[yc]) < max_weights:
                    # new hyperplane x with degradation 1 / ((t+1) lambda) (updateDegradation)
                    W[yc].append(_Weight(x.copy(), R(1) / denom, sx))
            if prune_every and t % prune_every == 0:
                prunings.append((t, _prune(W, t, lam, prune_c, paper, R)))
    weights = [[wt.w() for wt in ws] for ws in W]
    return AMMRun(weights=weights, classes=classes_, predictions=preds, losses=losses,
                  updated=updated, prunings=prunings, bias=bias, zero_hyperplane=paper)


def _prune(W, t, lam, cpar, paper, R):
    """One pruning ([A] Section 3.4 / mm_algs.cpp:858-943); returns how many hyperplanes
    were deleted.  See amm_online for the two variants."""
    norms = [float(wt.sq_norm()) for ws in W for wt in ws]   # (double) getSqrL2norm()
    srt = sorted(norms)
    if paper:
        if t == 1:
            return 0
        thr = (R(cpar) / ((R(t) - R(1)) * R(lam))) ** 2         # ||Delta W||_F <= c/((t-1) lambda)
    else:
        thr = R(cpar) * R(cpar) / (R(t) * R(t) * R(lam) * R(lam))
    total, q = R(0), 0
    for s in srt:
        total += R(s)
        if total > thr:
            break
        q += 1
    deleted = 0
    if paper:
        # the q smallest hyperplanes (in sorted order) go; zero hyperplanes are implicit
        flat = sorted((float(wt.sq_norm()), i, j) for i, ws in enumerate(W)
                      for j, wt in enumerate(ws))
        doomed = {(i, j) for _, i, j in flat[:q]}
        for i in range(len(W)):
            keep = [wt for j, wt in enumerate(W[i]) if (i, j) not in doomed]
            deleted += len(W[i]) - len(keep)
            W[i] = keep
        return deleted
    smallest = srt[:q]
    for i in range(len(W)):
        # every hyperplane whose norm equals one of the q smallest, unless its class's last
        n_i, out = len(W[i]), []
        for wt in W[i]:
            if float(wt.sq_norm()) in smallest and n_i > 1:
                n_i -= 1
                deleted += 1
                continue
            out.append(wt)
        W[i] = out
    return deleted


def pegasos_linear(X, y, *, lam=1e-4, bias=1.0, epochs=1, classes=None, order=None,
                   variant="budgetedsvm", numerics="float64"):
    """Linear multi-class Pegasos as BudgetedSVM's ``-A 0`` runs it (trainPegasos,
    mm_algs.cpp:477-643): one hyperplane per class (AMM with b_i = 1, BudgetedSVM paper
    Section 2.1), Crammer-Singer loss, the bias a regularised coordinate of value ``bias``.
    Round t: f_+ = w_y' x, f_- = max_{i != y} w_i' x (first max); all w *= (1 - eta_t
    lambda); if 1 + f_- - f_+ > 0: w_r -= eta_t x, then w_y += eta_t x.
    variant "budgetedsvm": eta_t = 1 / ((t + 1) lambda) (mm_algs.h:70-73, mm_algs.cpp:
    313); "paper" (Shalev-Shwartz et al.): eta_t = 1 / (lambda t).  No projection step,
    as [P] footnote 4.  This is *not* the kernel Pegasos of [P]'s tables
    (``kernel_pegasos``)."""
    ar = _arith(numerics)
    R = ar.real
    X = _with_bias(np.asarray(X, np.float64), bias)
    classes_, yi = _classes_of(list(np.asarray(y).tolist()), classes)
    c = len(classes_)
    order = np.arange(len(X)) if order is None else np.asarray(order)
    W = [_Weight(ar.store(np.zeros(X.shape[1])), R(1), R(0)) for _ in range(c)]
    rounds = epochs * len(order)
    preds = np.empty(rounds, dtype=object)
    losses = np.zeros(rounds)
    updated = np.zeros(rounds, dtype=bool)
    t = 0
    for _epoch in range(epochs):
        for row in order:
            t += 1
            r_ = t - 1
            x = ar.store(X[row])
            sx = ar.sq_data(x)
            yc = yi[row]
            f = [wt.score(ar, x) for wt in W]
            preds[r_] = classes_[_first_argmax(f)]
            i2 = _first_argmax(f, skip=yc)
            if variant == "budgetedsvm":
                denom = (R(t) + R(1)) * R(lam)
                shrink = R(1) - R(1) / (R(t) + R(1))
            else:
                denom = R(t) * R(lam)
                shrink = R(1) - R(1) / R(t)
            _shrink(W, shrink)                                     # mm_algs.cpp:591-594
            margin = R(1) + f[i2] - f[yc]                          # mm_algs.cpp:598
            losses[r_] = max(float(margin), 0.0)
            if margin > 0:
                updated[r_] = True
                _update_weight(W[i2], ar, x, sx, -1, denom)        # mm_algs.cpp:600-609
                _update_weight(W[yc], ar, x, sx, 1, denom)
    return AMMRun(weights=[[wt.w()] for wt in W], classes=classes_, predictions=preds,
                  losses=losses, updated=updated, prunings=[], bias=bias)


# --------------------------------------------------------------------------- files

def read_libsvm(path, dim=None):
    """A LIBSVM file as (X dense float64 of float32 values, labels as ints): values go
    through float32 as budgetedData::readChunk reads them (atof -> float)."""
    labels, rows, maxdim = [], [], 0
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if not parts:
                continue
            labels.append(int(parts[0]))
            row = {}
            for tok in parts[1:]:
                i, v = tok.split(":")
                row[int(i)] = float(np.float32(float(v)))
                maxdim = max(maxdim, int(i))
            rows.append(row)
    dim = maxdim if dim is None else dim
    X = np.zeros((len(rows), dim))
    for r, row in enumerate(rows):
        for i, v in row.items():
            X[r, i - 1] = v
    return X, np.array(labels)


@dataclass
class FileModel:
    """A model file written by budgetedsvm-train (saveToTextFile, bsgd.cpp:60-138 and
    mm_algs.cpp:72-132).  Coordinates are float32 (as [C] keeps and reads them back);
    BSGD coefficients and AMM degradations are the printed decimals ("%2.10f"), which
    predict_model rounds to float32 as loadFromTextFile does."""
    algorithm: int          # 0 Pegasos, 1 AMM batch, 2 AMM online, 3 LLSVM, 4 BSGD
    dimension: int
    labels: list
    bias: float
    header: dict
    # BSGD: sv (n, D), alpha (n, c), sq the squared norms as loaded; AMM/Pegasos:
    # weights[i] the list of (degradation, v) of class i, w = degradation * v
    sv: np.ndarray | None = None
    alpha: np.ndarray | None = None
    sq: np.ndarray | None = None
    weights: list | None = None


def _atof(text):
    """C's atof: the longest leading decimal number (atof("1:-6.67") == 1.0)."""
    import re
    m = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text)
    return float(m.group(0)) if m else 0.0


def load_model(path, as_predict_reads_it=False):
    """A model file.  With ``as_predict_reads_it``, the model budgetedsvm-predict actually
    builds from it: loadFromTextFile skips "MODEL:\n" plus one more character
    (``fseek(fModel, strlen("MODEL:\n") + 1, SEEK_CUR)``, bsgd.cpp:244, mm_algs.cpp:216),
    i.e. the first character of the first model line.  BSGD: the first support vector's
    "-1:alpha" becomes "1:alpha", a feature (overwritten by the real feature 1 but added
    to its squared norm), so that vector loses its class-1 coefficient and gets a wrong
    norm; AMM/Pegasos: a one-character label is eaten, so the degradation is read from
    the first feature token (atof("1:v") = 1) and that feature is lost.  A first label
    of two or more characters ("-1", "10") is harmless there."""
    with open(path) as fh:
        lines = fh.read().splitlines()
    header, i = {}, 0
    while not lines[i].startswith("MODEL:"):
        key, _, val = lines[i].partition(":")
        header[key.strip()] = val.strip()
        i += 1
    body = lines[i + 1:]
    if as_predict_reads_it and body:
        body = [body[0][1:]] + body[1:]
    algorithm = int(header["ALGORITHM"])
    dim = int(header["DIMENSION"])
    labels = [int(v) for v in header["LABELS"].split()]
    bias = float(header["BIAS_TERM"])
    m = FileModel(algorithm=algorithm, dimension=dim, labels=labels, bias=bias, header=header)
    c = len(labels)
    if algorithm == 4:
        n = int(header["NUMBER_OF_WEIGHTS"])
        sv = np.zeros((n, dim))
        alpha = np.zeros((n, c))
        sq = np.zeros(n, dtype=np.longdouble)
        for r, line in enumerate(body[:n]):
            for tok in line.split():
                k, v = tok.split(":")
                k, v = int(k), float(v)
                if k < 0:
                    alpha[r, -k - 1] = v                     # as printed ("%2.10f")
                else:
                    f32 = np.float32(v)                      # a float in [C]
                    sv[r, k - 1] = float(f32)
                    sq[r] += np.longdouble(f32 * f32)        # (long double)(tempFloat * tempFloat)
        m.sv, m.alpha, m.sq = sv, alpha, sq
    else:
        counts = [int(v) for v in header["NUMBER_OF_WEIGHTS"].split()]
        weights, pos = [], 0
        for ci in range(c):
            ws = []
            for _ in range(counts[ci]):
                toks = body[pos].split()
                pos += 1
                deg = _atof(toks[1])                         # atof -> long double
                v = np.zeros(dim)
                for tok in toks[2:]:
                    k, val = tok.split(":")
                    v[int(k) - 1] = float(np.float32(float(val)))
                ws.append((deg, v))
            weights.append(ws)
        m.weights = weights
    return m


def predict_model(model, X):
    """What budgetedsvm-predict prints for rows X (dense, as read_libsvm gives them):
    predictBSGD (bsgd.cpp:513-643) or predictAMM (mm_algs.cpp:358-475) on ``model``
    (pass ``load_model(path, as_predict_reads_it=True)`` to reproduce the program,
    ``load_model(path)`` for the model training wrote), float32 coefficients, gamma as
    read back from "%f"; returns (labels, scores), scores the winning class's score minus
    the runner-up's (the ``-o 1`` column)."""
    ar = _BudgetedSVM()
    R = ar.real
    X = np.asarray(X, np.float64)
    labels, margins = [], []
    if model.algorithm == 4:
        g = float(np.float32(float(model.header["KERNEL_GAMMA_PARAM"])))
        kind = int(model.header["KERNEL_FUNCTION"])
        kernel = {0: Kernel("gaussian", gamma=g / 2.0),
                  2: Kernel("polynomial",
                            degree=float(np.float32(float(model.header["KERNEL_DEGREE_PARAM"]))),
                            coef0=float(np.float32(float(model.header["KERNEL_COEF_PARAM"])))),
                  3: Kernel("linear")}[kind]
        sq = model.sq
        for x in X:
            x = ar.store(x[:model.dimension] if len(x) >= model.dimension else
                         np.pad(x, (0, model.dimension - len(x))))
            sx = ar.sq_data(x)
            k = [_kernel(kernel, ar, v, s, x, sx) for v, s in zip(model.sv, sq)]
            f = []
            for c in range(model.alpha.shape[1]):
                # loadFromTextFile reads the coefficients into a float (bsgd.cpp:263, 272)
                terms = [R(np.float32(a)) * kv for a, kv in zip(model.alpha[:, c], k) if a != 0]
                f.append(ar.total(terms))
            y = _first_argmax(f)
            labels.append(model.labels[y])
            runner = max((f[i] for i in range(len(f)) if i != y), default=-np.inf)
            margins.append(float(f[y] - runner))
        return np.array(labels), np.array(margins)
    D = model.dimension
    for x in X:
        xb = np.zeros(D)
        n = min(len(x), D - (1 if model.bias != 0 else 0))
        xb[:n] = x[:n]
        if model.bias != 0:
            xb[D - 1] = model.bias
        xb = ar.store(xb)
        best, y, cls = -np.inf, 0, []
        for ci, ws in enumerate(model.weights):
            cbest = -np.inf
            for deg, v in ws:
                fx = R(deg) * ar.dot(v, xb)
                if fx > best:
                    best, y = fx, ci
                cbest = max(cbest, fx)
            cls.append(cbest)
        labels.append(model.labels[y])
        runner = max((cls[i] for i in range(len(cls)) if i != y), default=-np.inf)
        margins.append(float(best - runner))
    return np.array(labels), np.array(margins)
