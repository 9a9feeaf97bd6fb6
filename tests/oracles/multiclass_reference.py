r"""Plain-numpy reference oracles for okl's native multiclass kernel learners (issue 26).

Readable, deliberately slow (a Gram solve per round), deterministic.  No okl import: the
oracles are what okl's typed cores are tested against, round for round.  The equations,
their sources and every convention chosen here are in ``notes/multiclass_algorithms.md``.

Setting
-------
A stream ``X`` (T, d) float64, ``y`` integer classes ``0..K-1``, a kernel callable
``kernel(A, B) -> Gram matrix`` (shape ``(len(A), len(B))``).  The hypothesis is K functions

    f_r(x) = sum_i A[i, r] k(s_i, x),   r = 0..K-1,

over one support set ``s_1..s_S``: each support vector is stored once with a row of K
coefficients (the layout issue 26 asks for).  On round t, with the scores
``F_t = (f_0(x_t), .., f_{K-1}(x_t))`` of the hypothesis *before* the round's update:

* prediction ``pred_t = argmax_r F_t[r]``, ties to the **lowest class index** (numpy's
  ``argmax``; MATLAB's ``max``, hence LIBOL and DOGMA, also return the first maximum);
* rival ``s_t = argmax_{r != y_t} F_t[r]``, ties to the lowest index (LIBOL and DOGMA
  set ``F(y) = -inf`` and take ``max``: the same);
* margin ``m_t = F_t[y_t] - F_t[s_t]`` (score of the true class minus the best other);
* mistake ``pred_t != y_t``;  error round ``m_t <= 0`` (a tie with the true class counts:
  Crammer & Singer's error set ``E_t = {r != y_t : f_r(x_t) >= f_{y_t}(x_t)}`` is then
  non-empty).  Every mistake is an error round; an error round with ``pred_t == y_t`` is a
  tie won by the true class through the lowest-index rule;
* multiclass hinge loss ``loss_t = max(0, 1 - m_t)``.

Every oracle returns a :class:`MulticlassRun`.

Learners (one function per learner / variant)
---------------------------------------------
* :func:`perceptron_max`, :func:`perceptron_uniform`, :func:`perceptron_proportional`
  (Crammer & Singer 2003, additive ultraconservative family; LIBOL's PerceptronM,
  PerceptronU and PerceptronS), all through :func:`crammer_singer_perceptron`;
* :func:`pa`, :func:`pa1`, :func:`pa2` (Crammer et al. 2006, multiclass section, one
  prototype per class), through :func:`passive_aggressive`;
* :func:`projectron`, :func:`projectron_pp` (Orabona, Keshet & Caputo 2009, multiclass
  extension), through :func:`multiclass_projectron`.

Conventions that differ between the paper and the MATLAB code are parameters:
``convention="paper"|"libol"`` for the Perceptron (LIBOL updates only when
``pred != y`` and uses a strict error set), ``rule="max-loss"|"prediction-based"`` for PA
(LIBOL and DOGMA: max-loss), ``span="class"|"shared"`` and ``convention="okl"|"dogma"``
for the Projectron (DOGMA thresholds each class's squared residual).  Checked under Octave:
``convention="libol"`` equals LIBOL's ``M_Perceptron{M,U,S}`` and ``M_PA*`` (linear), the
paper convention equals DOGMA's ``k_perceptron_multi_train`` and ``k_pa_multi_train``, and
``convention="dogma"`` equals ``k_projectron2_multi_train`` (scores within 1e-11).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "MulticlassRun",
    "EPS",
    "RESIDUAL_RTOL",
    "crammer_singer_perceptron",
    "cs_tau",
    "gaussian_kernel",
    "linear_kernel",
    "multiclass_projectron",
    "pa",
    "pa1",
    "pa2",
    "pa_step",
    "passive_aggressive",
    "perceptron_max",
    "perceptron_proportional",
    "perceptron_uniform",
    "projectron",
    "projectron_pp",
]

#: MATLAB's ``eps`` (DOGMA's test for a residual that is numerically 0).
EPS = float(np.finfo(float).eps)

#: A projection residual ``||delta||^2 <= RESIDUAL_RTOL * k(x, x)`` counts as 0: the point is
#: in the span up to round-off, and adding it would make the span's Gram matrix singular
#: (the rule of okl's binary ``Projectron``; DOGMA tests ``delta < eps``).
RESIDUAL_RTOL = 1e-10

# codes of MulticlassRun.kind
NONE, ADD, PROJECT, MARGIN = "none", "add", "project", "margin"


# -- kernels (plain numpy, for the tests) ------------------------------------------------

def blobs_stream(T=200, K=3, seed=1):
    """K Gaussian blobs on a circle of radius 2 in the plane (noise 0.7), 5 % of the labels
    flipped to another class: a stream no comparator separates."""
    rng = np.random.default_rng(seed)
    ang = 2 * np.pi * np.arange(K) / K
    centers = 2.0 * np.c_[np.cos(ang), np.sin(ang)]
    y = rng.integers(K, size=T)
    X = centers[y] + 0.7 * rng.normal(size=(T, 2))
    flip = rng.random(T) < 0.05
    return X, np.where(flip, (y + rng.integers(1, K, size=T)) % K, y)


def sectors_stream(T=300, K=3, gap=0.3, seed=0):
    """K angular sectors of the annulus 0.3 <= r <= 1, separated by ``gap`` radians on each
    side: a separable stream."""
    rng = np.random.default_rng(seed)
    y = rng.integers(K, size=T)
    th = 2 * np.pi * y / K + rng.uniform(-np.pi / K + gap, np.pi / K - gap, size=T)
    r = rng.uniform(0.3, 1.0, size=T)
    return np.c_[r * np.cos(th), r * np.sin(th)], y


def linear_kernel(A, B):
    """``k(a, b) = <a, b>``."""
    return np.asarray(A, dtype=float) @ np.asarray(B, dtype=float).T


def gaussian_kernel(sigma):
    """``k(a, b) = exp(-||a - b||^2 / (2 sigma^2))`` from explicit differences."""
    def k(A, B):
        A = np.asarray(A, dtype=float)
        B = np.asarray(B, dtype=float)
        diff = A[:, None, :] - B[None, :, :]
        return np.exp(-np.einsum("ijk,ijk->ij", diff, diff) / (2.0 * sigma ** 2))
    return k


# -- result -------------------------------------------------------------------------------

@dataclass
class MulticlassRun:
    """Per-round record and final model of one oracle run.

    Attributes (T rounds, K classes, S support vectors)
    ----------
    pred : (T,) int       predicted class, argmax of ``scores[t]``, ties to lowest index.
    scores : (T, K)       ``f_r(x_t)`` before round t's update.
    margin : (T,)         ``scores[t, y_t] - max_{r != y_t} scores[t, r]``.
    rival : (T,) int      ``s_t``, the highest-scoring wrong class (lowest index on ties);
                          for the prediction-based PA update, the predicted class.
    mistake : (T,) bool   ``pred != y``.
    error : (T,) bool     ``margin <= 0`` (Crammer & Singer's ``E_t`` non-empty).
    update : (T,) bool    the hypothesis changed on round t.
    loss : (T,)           multiclass hinge ``max(0, 1 - margin)``.
    tau : (T, K)          the step: ``f_r += tau[t, r] * (update direction of class r)``
                          (``k(x_t, .)`` for Perceptron and PA; for the Projectron the
                          projected or full direction, see ``kind``); 0 where no update.
    residual : (T,)       Projectron: ``||delta_t||`` of the joint update (nan elsewhere).
    kind : (T,) str       ``"none"``, ``"add"`` (support grew), ``"project"`` (projected
                          mistake update), ``"margin"`` (Projectron++ margin update),
                          or, for Perceptron / PA, ``"add"`` on every update.
    support : (S, d)      support vectors, in the order added.
    support_rounds : (S,) the round that added each support vector.
    coef : (S, K)         coefficient rows, ``f_r = sum_i coef[i, r] k(support[i], .)``.
    members : (S, K) bool Projectron with per-class spans: which classes' spans contain
                          each support vector (all True otherwise).
    """

    pred: np.ndarray
    scores: np.ndarray
    margin: np.ndarray
    rival: np.ndarray
    mistake: np.ndarray
    error: np.ndarray
    update: np.ndarray
    loss: np.ndarray
    tau: np.ndarray
    residual: np.ndarray
    kind: np.ndarray
    support: np.ndarray
    support_rounds: np.ndarray
    coef: np.ndarray
    members: np.ndarray
    params: dict = field(default_factory=dict)

    @property
    def n_mistakes(self) -> int:
        return int(self.mistake.sum())

    @property
    def n_errors(self) -> int:
        return int(self.error.sum())

    @property
    def n_updates(self) -> int:
        return int(self.update.sum())

    @property
    def n_support(self) -> int:
        return int(self.coef.shape[0])

    def decision_function(self, X, kernel):
        """``(n, K)`` scores of the final model on ``X``."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if self.n_support == 0:
            return np.zeros((X.shape[0], self.coef.shape[1]))
        return kernel(X, self.support) @ self.coef

    def predict(self, X, kernel):
        """Final model's classes on ``X`` (ties to the lowest index)."""
        return np.argmax(self.decision_function(X, kernel), axis=1)


# -- shared helpers -------------------------------------------------------------------------

def _check_stream(X, y, n_classes):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (T, d), got shape {X.shape}")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        if not np.all(np.asarray(y, dtype=float) == np.round(np.asarray(y, dtype=float))):
            raise ValueError("y must hold integer class indices")
    y = y.astype(np.int64)
    K = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if K < 2:
        raise ValueError(f"need at least 2 classes, got n_classes = {K}")
    if y.min() < 0 or y.max() >= K:
        raise ValueError(f"labels must lie in 0..{K - 1}")
    return X, y, K


def _rival(F, y):
    """The highest-scoring class other than ``y`` (lowest index on ties)."""
    G = F.copy()
    G[y] = -np.inf
    return int(np.argmax(G))


class _Record:
    """Per-round arrays, filled by the oracles."""

    def __init__(self, T, K):
        self.pred = np.zeros(T, dtype=np.int64)
        self.scores = np.zeros((T, K))
        self.margin = np.zeros(T)
        self.rival = np.full(T, -1, dtype=np.int64)
        self.update = np.zeros(T, dtype=bool)
        self.tau = np.zeros((T, K))
        self.residual = np.full(T, np.nan)
        self.kind = np.full(T, NONE, dtype=object)

    def observe(self, t, F, y_t):
        s = _rival(F, y_t)
        self.scores[t] = F
        self.pred[t] = int(np.argmax(F))
        self.rival[t] = s
        self.margin[t] = F[y_t] - F[s]
        return s, self.margin[t]

    def finish(self, y, support, rounds, coef, members, d, K, params):
        margin = self.margin
        return MulticlassRun(
            pred=self.pred, scores=self.scores, margin=margin, rival=self.rival,
            mistake=self.pred != y, error=margin <= 0.0, update=self.update,
            loss=np.maximum(0.0, 1.0 - margin), tau=self.tau, residual=self.residual,
            kind=self.kind.astype(str),
            support=np.asarray(support, dtype=float).reshape(-1, d),
            support_rounds=np.asarray(rounds, dtype=np.int64),
            coef=np.asarray(coef, dtype=float).reshape(-1, K),
            members=np.asarray(members, dtype=bool).reshape(-1, K),
            params=params)


def _scores(kernel, support, coef, x, K):
    if not support:
        return np.zeros(K), np.zeros(0)
    kx = kernel(np.asarray(support), x[None, :])[:, 0]
    return np.asarray(coef).T @ kx, kx


def _kxx(kernel, x):
    return float(kernel(x[None, :], x[None, :])[0, 0])


# -- Crammer & Singer (2003): the additive ultraconservative multiclass Perceptron ----------

_CS_UPDATES = ("max", "uniform", "proportional")
_CS_CONVENTIONS = ("paper", "libol")


def cs_tau(F, y_t, update="max", convention="paper"):
    r"""The step ``tau`` (K-vector) of one Crammer & Singer round, or None (no update).

    ``convention="paper"`` (Crammer & Singer 2003, Fig. 2; DOGMA's max-score agrees):
    ``E = {r != y : F[r] >= F[y]}``; update iff ``E`` is non-empty; ``tau[y] = 1``,
    ``tau[r] <= 0`` on ``E``, 0 elsewhere, ``sum(tau) = 0``:

    * ``"max"``: ``tau[s] = -1`` for ``s = argmax_{r != y} F[r]`` (lowest index on ties);
    * ``"uniform"``: ``tau[r] = -1/|E|`` on ``E``;
    * ``"proportional"``: ``tau[r] = -(F[r] - F[y]) / sum_{q in E}(F[q] - F[y])`` on ``E``;
      when every ``r`` in ``E`` ties with ``y`` (the sum is 0, the paper's formula is 0/0)
      the uniform step is taken.

    ``convention="libol"`` (LIBOL's ``M_PerceptronM/U/S.m`` exactly): update iff
    ``pred != y``; ``E = {r : F[r] > F[y]}`` (strict); max: ``tau[s] = -1`` as above;
    uniform / proportional: as above on the strict ``E``, and when ``E`` is empty (the
    mistake came from a tie) only ``tau[y] = 1`` -- a step outside the family
    (``sum(tau) = 1``).
    """
    K = F.shape[0]
    s = _rival(F, y_t)
    tau = np.zeros(K)
    if convention == "paper":
        E = [r for r in range(K) if r != y_t and F[r] >= F[y_t]]
        if not E:
            return None
    else:
        if int(np.argmax(F)) == y_t:
            return None
        E = [r for r in range(K) if r != y_t and F[r] > F[y_t]]
    tau[y_t] = 1.0
    if update == "max":
        tau[s] = -1.0
    elif not E:                                   # libol only: a tie-made mistake
        pass
    elif update == "uniform":
        tau[E] = -1.0 / len(E)
    else:                                         # proportional
        excess = np.array([F[r] - F[y_t] for r in E])
        total = excess.sum()
        if total > 0.0:
            tau[E] = -excess / total
        else:                                     # every r in E ties with y: 0/0
            tau[E] = -1.0 / len(E)
    return tau


def crammer_singer_perceptron(X, y, kernel, *, n_classes=None, update="max",
                              convention="paper"):
    r"""Kernel multiclass Perceptron of Crammer & Singer (2003), additive ultraconservative
    family (their Fig. 2), with the step of :func:`cs_tau`.

    On an update round ``x_t`` joins the support with the coefficient row ``tau_t``:
    ``f_r <- f_r + tau_t[r] k(x_t, .)``.  Starts from ``f = 0``.
    """
    if update not in _CS_UPDATES:
        raise ValueError(f"update must be one of {_CS_UPDATES}, got {update!r}")
    if convention not in _CS_CONVENTIONS:
        raise ValueError(f"convention must be one of {_CS_CONVENTIONS}, got {convention!r}")
    X, y, K = _check_stream(X, y, n_classes)
    T, d = X.shape
    rec = _Record(T, K)
    support, rounds, coef = [], [], []
    for t in range(T):
        x = X[t]
        F, _ = _scores(kernel, support, coef, x, K)
        rec.observe(t, F, y[t])
        tau = cs_tau(F, y[t], update, convention)
        if tau is None:
            continue
        support.append(x.copy())
        rounds.append(t)
        coef.append(tau)
        rec.update[t] = True
        rec.tau[t] = tau
        rec.kind[t] = ADD
    return rec.finish(y, support, rounds, coef, np.ones((len(coef), K), bool), d, K,
                      dict(learner="crammer_singer_perceptron", update=update,
                           convention=convention, n_classes=K))


def perceptron_max(X, y, kernel, *, n_classes=None, convention="paper"):
    """Max-score update (LIBOL ``PerceptronM``; DOGMA ``k_perceptron_multi_train``, update 1)."""
    return crammer_singer_perceptron(X, y, kernel, n_classes=n_classes, update="max",
                                     convention=convention)


def perceptron_uniform(X, y, kernel, *, n_classes=None, convention="paper"):
    """Uniform update on the error set (LIBOL ``PerceptronU``)."""
    return crammer_singer_perceptron(X, y, kernel, n_classes=n_classes, update="uniform",
                                     convention=convention)


def perceptron_proportional(X, y, kernel, *, n_classes=None, convention="paper"):
    """Proportional update (LIBOL ``PerceptronS``, "similarity-score"; the manual's
    "proportion"/"promotion" update)."""
    return crammer_singer_perceptron(X, y, kernel, n_classes=n_classes,
                                     update="proportional", convention=convention)


# -- Crammer, Dekel, Keshet, Shalev-Shwartz & Singer (2006): multiclass PA ---------------------

_PA_VARIANTS = ("pa", "pa1", "pa2")
_PA_RULES = ("max-loss", "prediction-based")


def pa_step(loss, kxx, variant, C):
    r"""The PA step for one round, multiclass with one prototype per class:
    ``||Phi(x, y) - Phi(x, s)||^2 = 2 k(x, x)``, so

    * PA: ``tau = loss / (2 k(x, x))``;
    * PA-I: ``tau = min(C, loss / (2 k(x, x)))``;
    * PA-II: ``tau = loss / (2 k(x, x) + 1 / (2 C))``.

    With ``k(x, x) = 0`` PA and PA-I cannot move the scores: ``tau = 0`` (no update).
    """
    q = 2.0 * kxx
    if variant == "pa2":
        return loss / (q + 1.0 / (2.0 * C))
    if q <= 0.0:
        return 0.0
    if variant == "pa":
        return loss / q
    return min(C, loss / q)


def passive_aggressive(X, y, kernel, *, n_classes=None, variant="pa", C=1.0,
                       rule="max-loss"):
    r"""Kernel multiclass PA / PA-I / PA-II (Crammer et al. 2006, multiclass section).

    ``rule="max-loss"`` (the multiclass hinge; LIBOL ``M_PA*`` and DOGMA
    ``k_pa_multi_train`` exactly): ``loss_t = max(0, 1 - (f_y - f_s))`` with the rival
    ``s = argmax_{r != y} f_r``; update iff ``loss_t > 0``.

    ``rule="prediction-based"``: update iff ``pred != y``, against ``s = pred``, with the
    loss ``f_pred - f_y + 1`` (the paper's prediction-based update with the 0/1 cost,
    ``sqrt(rho) = 1``); no update on margin errors the prediction got right.

    Update: ``f_y += tau k(x_t, .)``, ``f_s -= tau k(x_t, .)`` with :func:`pa_step`;
    ``x_t`` joins the support with the row ``tau (e_y - e_s)``.
    """
    if variant not in _PA_VARIANTS:
        raise ValueError(f"variant must be one of {_PA_VARIANTS}, got {variant!r}")
    if rule not in _PA_RULES:
        raise ValueError(f"rule must be one of {_PA_RULES}, got {rule!r}")
    C = float(C)
    if variant != "pa" and not C > 0.0:
        raise ValueError(f"C must be > 0, got {C!r}")
    X, y, K = _check_stream(X, y, n_classes)
    T, d = X.shape
    rec = _Record(T, K)
    support, rounds, coef = [], [], []
    for t in range(T):
        x = X[t]
        F, _ = _scores(kernel, support, coef, x, K)
        s, m = rec.observe(t, F, y[t])
        if rule == "max-loss":
            loss = max(0.0, 1.0 - m)
        else:
            p = int(np.argmax(F))
            if p == y[t]:
                continue
            s = p
            rec.rival[t] = s
            loss = F[p] - F[y[t]] + 1.0
        if loss <= 0.0:
            continue
        step = pa_step(loss, _kxx(kernel, x), variant, C)
        if step == 0.0:
            continue
        row = np.zeros(K)
        row[y[t]] = step
        row[s] = -step
        support.append(x.copy())
        rounds.append(t)
        coef.append(row)
        rec.update[t] = True
        rec.tau[t] = row
        rec.kind[t] = ADD
    return rec.finish(y, support, rounds, coef, np.ones((len(coef), K), bool), d, K,
                      dict(learner="passive_aggressive", variant=variant, C=C, rule=rule,
                           n_classes=K))


def pa(X, y, kernel, *, n_classes=None, rule="max-loss"):
    """Multiclass PA, ``tau = loss / (2 k(x, x))``."""
    return passive_aggressive(X, y, kernel, n_classes=n_classes, variant="pa", rule=rule)


def pa1(X, y, kernel, *, C=1.0, n_classes=None, rule="max-loss"):
    """Multiclass PA-I, ``tau = min(C, loss / (2 k(x, x)))``."""
    return passive_aggressive(X, y, kernel, n_classes=n_classes, variant="pa1", C=C,
                              rule=rule)


def pa2(X, y, kernel, *, C=1.0, n_classes=None, rule="max-loss"):
    """Multiclass PA-II, ``tau = loss / (2 k(x, x) + 1 / (2 C))``."""
    return passive_aggressive(X, y, kernel, n_classes=n_classes, variant="pa2", C=C,
                              rule=rule)


# -- Orabona, Keshet & Caputo (2009): multiclass Projectron and Projectron++ ------------------

_SPANS = ("class", "shared")


def _project(G, kx, kxx, idx):
    """Projection of ``k(x, .)`` onto ``span{k(s_i, .) : i in idx}``.

    Returns ``(d, res2)``: the coefficients ``d = G[idx, idx]^{-1} kx[idx]`` and the squared
    residual ``||P k(x, .) - k(x, .)||^2 = k(x, x) - kx[idx] . d`` (clipped at 0).
    """
    if idx.size == 0:
        return np.zeros(0), kxx
    d = np.linalg.solve(G[np.ix_(idx, idx)], kx[idx])
    return d, max(kxx - float(kx[idx] @ d), 0.0)


def multiclass_projectron(X, y, kernel, *, eta=0.1, n_classes=None, plus_plus=False,
                          span="class", convention="okl"):
    r"""Kernel multiclass Projectron / Projectron++ (Orabona, Keshet & Caputo 2009,
    multiclass extension: the update vector ``Phi(x_t, y_t) - Phi(x_t, s_t)`` of the
    multi-prototype joint feature map, projected onto the span of the current support set).

    Span of class r: ``span="class"`` (the paper's joint-feature span; DOGMA's
    ``k_projectron2_multi_train``): the support vectors whose row gave class r a full
    (non-projected) coefficient; ``span="shared"``: every support vector (one projection
    per round serves both classes; okl's one-kernel-row layout).

    Error round (``margin_t <= 0``), rival ``s = s_t``: for ``r in (y_t, s)`` project
    ``k(x_t, .)`` onto class r's span: coefficients ``d_r``, squared residual ``res2_r``;
    the joint residual is ``||delta_t|| = sqrt(res2_y + res2_s)``.

    * ``||delta_t|| <= eta``: ``f_y += P_y k(x_t, .)``, ``f_s -= P_s k(x_t, .)``
      (coefficients ``+d_y`` on class y's span, ``-d_s`` on class s's); support unchanged;
    * else ``x_t`` joins the support with ``f_y += k(x_t, .)``, ``f_s -= k(x_t, .)``, except
      that a class whose own ``res2_r <= RESIDUAL_RTOL k(x_t, x_t)`` (numerically in its
      span) takes its projected step instead (the same function) and does not get x_t in
      its span; if both classes are in that case nothing is added.

    Projectron++ margin error (``0 < margin_t < 1``), ``l = 1 - margin_t``, with the same
    projections and ``||P u||^2 = (k - res2_y) + (k - res2_s)``:
    if ``eta * l > ||delta_t||`` (so never with ``eta = 0``) and ``||P u||^2 > 0``:
    ``tau = min(l / ||P u||^2, 2 (l - ||delta_t|| / eta) / ||P u||^2, 1)``,
    ``f_y += tau P_y k(x_t, .)``, ``f_s -= tau P_s k(x_t, .)``; the support never grows on
    a margin error.

    ``eta`` thresholds the *norm* of the joint residual (okl's binary convention; DOGMA
    compares each class's *squared* residual with ``eta``, see the notes).

    ``convention="dogma"`` reproduces DOGMA's ``k_projectron2_multi_train`` (per-class
    spans; ``res2_r`` are squared residuals): an error round projects both classes iff
    ``res2_y <= eta and res2_s <= eta``; otherwise ``x_t`` is added and each class takes its
    full step unless its ``res2_r < EPS`` (machine epsilon: then projected; the added row
    may then be all zero); a margin error updates iff
    ``l - (res2_y + res2_s) / (2 eta) > 0``, with
    ``tau = min(l / ||P u||^2, 1, 2 (l - (res2_y + res2_s) / (2 eta)) / ||P u||^2)``.
    """
    if convention not in ("okl", "dogma"):
        raise ValueError(f"convention must be 'okl' or 'dogma', got {convention!r}")
    if convention == "dogma":
        span = "class"
    if span not in _SPANS:
        raise ValueError(f"span must be one of {_SPANS}, got {span!r}")
    eta = float(eta)
    if not eta >= 0.0:
        raise ValueError(f"eta must be >= 0, got {eta!r}")
    X, y, K = _check_stream(X, y, n_classes)
    T, d = X.shape
    rec = _Record(T, K)
    support, rounds = [], []
    coef = np.zeros((0, K))
    members = np.zeros((0, K), dtype=bool)
    G = np.zeros((0, 0))
    for t in range(T):
        x = X[t]
        yt = y[t]
        F, kx = _scores(kernel, support, coef, x, K)
        s, m = rec.observe(t, F, yt)
        if m > 0.0 and not (plus_plus and m < 1.0):
            continue
        kxx = _kxx(kernel, x)
        idx_y = np.flatnonzero(members[:, yt])
        idx_s = np.flatnonzero(members[:, s])
        d_y, r2_y = _project(G, kx, kxx, idx_y)
        d_s, r2_s = _project(G, kx, kxx, idx_s)
        nd = float(np.sqrt(r2_y + r2_s))
        rec.residual[t] = nd
        if m > 0.0:                                   # Projectron++ margin error
            loss = 1.0 - m
            pu2 = (kxx - r2_y) + (kxx - r2_s)
            if convention == "dogma":
                excess = loss - (r2_y + r2_s) / (2.0 * eta) if eta > 0 else -1.0
                ok, cap = excess > 0.0 and pu2 > 0.0, 2.0 * excess
            else:
                ok = eta * loss > nd and pu2 > 0.0           # never with eta = 0
                cap = 2.0 * (loss - nd / eta) if ok else 0.0
            if ok:
                tau = min(loss / pu2, cap / pu2, 1.0)
                coef[idx_y, yt] += tau * d_y
                coef[idx_s, s] -= tau * d_s
                rec.update[t] = True
                rec.tau[t, yt], rec.tau[t, s] = tau, -tau
                rec.kind[t] = MARGIN
            continue
        rec.update[t] = True
        rec.tau[t, yt], rec.tau[t, s] = 1.0, -1.0
        if convention == "dogma":
            both = r2_y <= eta and r2_s <= eta
            proj = {yt: both or r2_y < EPS, s: both or r2_s < EPS}
            adds = r2_y > eta or r2_s > eta
        else:
            tiny = RESIDUAL_RTOL * kxx
            proj = {yt: r2_y <= tiny, s: r2_s <= tiny}
            adds = nd > eta and not (proj[yt] and proj[s])
        if not adds:
            coef[idx_y, yt] += d_y
            coef[idx_s, s] -= d_s
            rec.kind[t] = PROJECT
            continue
        row = np.zeros(K)
        member = np.zeros(K, dtype=bool) if span == "class" else np.ones(K, dtype=bool)
        for r, idx, dr, sign in ((yt, idx_y, d_y, 1.0), (s, idx_s, d_s, -1.0)):
            if proj[r]:
                coef[idx, r] += sign * dr
            else:
                row[r] = sign
                member[r] = True
        support.append(x.copy())
        rounds.append(t)
        coef = np.vstack([coef, row])
        members = np.vstack([members, member])
        S = np.asarray(support)
        G = kernel(S, S)
        G = 0.5 * (G + G.T)
        rec.kind[t] = ADD
    return rec.finish(y, support, rounds, coef, members, d, K,
                      dict(learner="projectron_pp" if plus_plus else "projectron", eta=eta,
                           span=span, convention=convention, n_classes=K))


def projectron(X, y, kernel, *, eta=0.1, n_classes=None, span="class", convention="okl"):
    """Multiclass Projectron (mistake-driven: updates only on ``margin <= 0``)."""
    return multiclass_projectron(X, y, kernel, eta=eta, n_classes=n_classes,
                                 plus_plus=False, span=span, convention=convention)


def projectron_pp(X, y, kernel, *, eta=0.1, n_classes=None, span="class",
                  convention="okl"):
    """Multiclass Projectron++ (also projected updates on margin errors)."""
    return multiclass_projectron(X, y, kernel, eta=eta, n_classes=n_classes,
                                 plus_plus=True, span=span, convention=convention)
