r"""BSGD's guarantees (Wang, Crammer & Vucetic, *Breaking the curse of kernelization:
budgeted stochastic gradient descent for large-scale SVM training*, JMLR 13, 2012,
Section 4) and the comparator they are stated against: the minimiser :math:`w^*` of the
regularised SVM problem (3.1) on the stream.

Setting ([P] Sections 3-5).  Algorithm 1 on :math:`S = ((x_t, y_t))_{t=1}^N`,

.. math::

    P(w) = \tfrac\lambda2\|w\|^2 + \tfrac1N\sum_t \ell_t(w),\qquad
    P_t(w) = \tfrac\lambda2\|w\|^2 + \ell_t(w)                                      (3.1, 3.3)

with the hinge loss :math:`\ell_t(w) = \max(0, 1 - y_t w^\top\Phi(x_t))` (binary) or the
Crammer-Singer loss :math:`\max(0, 1 + f_{r_t}(x_t) - f_{y_t}(x_t))` (multiclass, (5.1)).
A round is :math:`w_{t+1} = \Pi_C(w_t - \eta_t(g_t + E_t))` with :math:`g_t` a subgradient
of :math:`P_t` at :math:`w_t`, :math:`E_t = \Delta_t/\eta_t` the *gradient error* of the
round's budget maintenance :math:`\Delta_t` (0 in rounds without one) and :math:`\Pi_C`
the projection onto the ball of radius :math:`U` (BMP only; the identity otherwise).
:math:`E = \frac1N\sum_t\|E_t\|` is the average gradient error.

The theorems as printed (binary, :math:`\|\Phi(x)\| \le 1`, :math:`\|E_t\| \le 1`; the
multiclass counterparts under :math:`\|\Phi(x)\|^2 \le 1/2`, Section 5), with
:math:`U = 2/\lambda` for :math:`\lambda \le 4` and :math:`1/\lambda` otherwise (4.1):

* Theorem 1 (BPegasos, :math:`\eta_t = 1/(\lambda t)`):
  :math:`\frac1N\sum_t P_t(w_t) - \frac1N\sum_t P_t(w^*) \le
  \frac{(\lambda U + 2)^2(\ln N + 1)}{2\lambda N} + 2UE` (4.2);
* Theorem 2 (BNorma, :math:`\eta_t = \eta/\sqrt t`):
  :math:`\le (2U^2/\eta + \eta(\lambda U + 2)^2)\sqrt N/N + 2UE` (4.3);
* Theorem 3 (BMP, :math:`\lambda = 0`, :math:`\eta_t = \eta`, the ball of radius
  :math:`U`, :math:`w^*` the minimiser of (3.1) at :math:`\lambda = 0` in the ball):
  :math:`\le 2U^2/(N\eta) + 2\eta + 2UE` (4.4).

**The run's constants.**  Each theorem is Lemma 1 (Appendix A) with two constants fixed:
:math:`G \ge \|\partial\ell_t\|` (the loss's subgradient: :math:`\|\Phi(x_t)\| \le 1`
binary; :math:`\sqrt2\|\Phi(x_t)\|` for the Crammer-Singer loss, whose subgradient is
:math:`\Phi(x_t)(e_{r} - e_{y})`) and :math:`\epsilon \ge \|E_t\|` (the assumption
:math:`\|E_t\| \le 1`): the "2" of :math:`(\lambda U + 2)^2` is :math:`G + \epsilon`.
The proof, step by step with :math:`a_t = \|w_t - u\|^2`, any :math:`\|u\| \le U`:

1. :math:`a_{t+1} \le a_t - 2\eta_t\langle g_t + E_t, w_t - u\rangle + \eta_t^2
   \|g_t + E_t\|^2` (the projection is non-expansive and :math:`u \in C`);
2. :math:`P_t(w_t) - P_t(u) \le \langle g_t, w_t - u\rangle - \frac\lambda2 a_t`
   (:math:`\lambda`-strong convexity);
3. :math:`\|g_t + E_t\| \le \lambda U + G + \epsilon` and
   :math:`-\langle E_t, w_t - u\rangle \le 2U\|E_t\|` (needs :math:`\|w_t\| \le U`);

so :math:`\frac1N\sum_t (P_t(w_t) - P_t(u)) \le \frac1N\bigl(\sum_t \frac{a_t -
a_{t+1}}{2\eta_t} - \frac\lambda2\sum_t a_t + \frac{(\lambda U + G + \epsilon)^2}2
\sum_t\eta_t\bigr) + 2UE`.  Pegasos: the first two sums telescope to
:math:`-\frac{\lambda N}2 a_{N+1} \le 0` and :math:`\sum_t\eta_t \le (\ln N + 1)/\lambda`;
Norma: :math:`\sum_t (a_t - a_{t+1})/(2\eta_t) \le 4U^2/(2\eta_N) = 2U^2\sqrt N/\eta`
(:math:`1/\eta_t` grows) and :math:`\sum_t\eta_t \le \eta(2\sqrt N - 1)`; BMP: the first
sum is at most :math:`a_1/(2\eta) \le 4U^2/(2\eta)` as printed and :math:`\sum_t\eta_t = N\eta`.
:math:`U` must bound every iterate and :math:`w^*`: without a ball, by induction
:math:`\|w_{t+1}\| \le (1 - \lambda\eta_t)\|w_t\| + \eta_t(G + \epsilon) \le (G +
\epsilon)/\lambda` (Pegasos: :math:`\lambda\eta_t = 1/t`; Norma: needs
:math:`\lambda\eta \le 1`), and :math:`\frac\lambda2\|w^*\|^2 \le P(w^*) \le P(0) = 1`,
so :math:`U = \max((G + \epsilon)/\lambda, \sqrt{2/\lambda})`
(:func:`iterate_radius`); at :math:`G = \epsilon = 1`, :math:`\lambda \le 2` this is the
printed :math:`2/\lambda`.  With :math:`E = 0` and :math:`\epsilon = 0` Theorem 1 is
Shalev-Shwartz et al.'s Pegasos bound (Math. Prog. 2011, Theorem 1 without the
projection step, :math:`c = 4R^2`; :func:`pegasos_regret_bound`).

**The comparator.**  The theorems hold for every :math:`u` in the ball, so the left
side is largest at :math:`u = w^*`, the minimiser of (3.1); :func:`svm_minimum`
(binary) and :func:`multiclass_svm_minimum` (Crammer-Singer) solve it on a Gram matrix by
dual coordinate descent and return a *certified lower bound* on
:math:`P(w^*)` (the dual value): a measured gap computed with it is at least the true
one, so "measured <= bound" is checked on the safe side whatever the solver's accuracy
(which the returned ``gap`` states).  BMP's constrained problem is
:func:`theory.best_hinge_in_ball` (binary) or :func:`multiclass_ball_minimum` (a
Lagrangian lower bound over the regularised problems).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _validation as v

__all__ = [
    "SVMMinimum", "svm_minimum", "multiclass_svm_minimum", "multiclass_ball_minimum",
    "bsgd_paper_radius", "iterate_radius", "bsgd_theorem1_bound", "bsgd_theorem2_bound",
    "bsgd_theorem3_bound", "pegasos_regret_bound", "average_objective",
]


@dataclass(frozen=True, eq=False)
class SVMMinimum:
    r"""The minimum of (3.1) (or (5.1)) on a stream, as :func:`svm_minimum` and
    :func:`multiclass_svm_minimum` solve it.

    Attributes
    ----------
    value : float
        :math:`P(w)` at the returned ``w`` (an upper bound on the minimum).
    lower_bound : float
        The dual value, a certified lower bound on :math:`\min P`.
    gap : float
        ``value - lower_bound`` (>= 0 up to round-off).
    coef : ndarray, shape (T,) or (T, K)
        ``w = sum_t coef_t Phi(x_t)`` (binary) or ``w_m = sum_t coef[t, m] Phi(x_t)``.
    fitted : ndarray, shape (T,) or (T, K)
        :math:`w^\top\Phi(x_t)` (binary) or the class scores.
    norm : float
        :math:`\|w\|` (Frobenius norm for the multiclass problem).
    lam : float
    epochs : int
        Passes of coordinate descent.
    """

    value: float
    lower_bound: float
    gap: float
    coef: np.ndarray
    fitted: np.ndarray
    norm: float
    lam: float
    epochs: int


def _check(K, lam, tol, max_epochs):
    K = v.kernel_matrix(K)
    lam = v.positive(lam, "lam")
    tol = v.positive(tol, "tol")
    max_epochs = v.integer(max_epochs, "max_epochs", 1)
    d = np.diag(K)
    if np.any(d <= 0.0):
        raise ValueError("K must have a positive diagonal (k(x, x) > 0 for every row)")
    return K, lam, tol, max_epochs, d


def svm_minimum(K, y, lam, *, tol=1e-7, max_epochs=3000, seed=0) -> SVMMinimum:
    r"""Solve (3.1), :math:`\min_w \frac\lambda2\|w\|^2 + \frac1N\sum_t\max(0, 1 - y_t
    w^\top\Phi(x_t))` (no bias), on the Gram matrix ``K`` of the stream.

    Dual coordinate descent (Hsieh et al. 2008, with a kernel): with :math:`C = 1/(\lambda
    N)`, :math:`w = \sum_t\alpha_t y_t\Phi(x_t)`, :math:`0 \le \alpha \le C`, the dual
    :math:`D(\alpha) = \lambda(\sum_t\alpha_t - \frac12\|w\|^2) \le \min P`; each epoch
    visits the rows in a random order (``seed``) and stops once :math:`P(w) - D(\alpha)
    \le` ``tol`` :math:`\max(1, P(w))` or after ``max_epochs``.  Cost: ``O(T)`` a
    coordinate step, ``O(T^2)`` an epoch.
    """
    K, lam, tol, max_epochs, d = _check(K, lam, tol, max_epochs)
    T = K.shape[0]
    y = v.labels(y, T, binary=True)
    C = 1.0 / (lam * T)
    alpha = np.zeros(T)
    f = np.zeros(T)                      # w' Phi(x_t)
    rng = np.random.default_rng(seed)
    epochs = 0

    def values():
        wsq = float(np.dot(alpha * y, f))
        hinge = float(np.sum(np.maximum(0.0, 1.0 - y * f)))
        primal = lam * (0.5 * wsq + C * hinge)
        dual = lam * (float(alpha.sum()) - 0.5 * wsq)
        return primal, dual, wsq

    primal, dual, wsq = values()
    while epochs < max_epochs and primal - dual > tol * max(1.0, primal):
        for t in rng.permutation(T):
            g = y[t] * f[t] - 1.0
            a = alpha[t]
            new = min(max(a - g / d[t], 0.0), C)
            if new != a:
                f += ((new - a) * y[t]) * K[:, t]
                alpha[t] = new
        epochs += 1
        primal, dual, wsq = values()
    return SVMMinimum(value=primal, lower_bound=dual, gap=primal - dual, coef=alpha * y,
                      fitted=f.copy(), norm=math.sqrt(max(wsq, 0.0)), lam=lam, epochs=epochs)


def _cs_subproblem(A, B, yi, C):
    """LIBLINEAR's Crammer-Singer subproblem: ``min_a A/2 ||a||^2 + B'a`` subject to
    ``a_m <= C [m == yi]`` and ``sum_m a_m = 0``."""
    D = B.copy()
    D[yi] += A * C
    D = np.sort(D)[::-1]
    beta = D[0] - A * C
    r = 1
    while r < D.size and beta < r * D[r]:
        beta += D[r]
        r += 1
    beta /= r
    out = np.minimum(0.0, (beta - B) / A)
    out[yi] = min(C, (beta - B[yi]) / A)
    return out


def multiclass_svm_minimum(K, y, n_classes, lam, *, tol=1e-7, max_epochs=3000,
                           seed=0, warm=None) -> SVMMinimum:
    r"""Solve (5.1), :math:`\min_W \frac\lambda2\|W\|_F^2 + \frac1N\sum_t\max(0, 1 +
    \max_{m \ne y_t} f_m(x_t) - f_{y_t}(x_t))`, on the Gram matrix ``K``; ``y`` holds class
    indices ``0..n_classes-1``.

    Crammer & Singer's dual by block coordinate descent (LIBLINEAR's MCSVM_CS with a
    kernel, one row's ``n_classes`` variables at a time, solved exactly): with :math:`C =
    1/(\lambda N)`, :math:`w_m = \sum_t\alpha_{tm}\Phi(x_t)`, :math:`\alpha_{tm} \le C[m =
    y_t]`, :math:`\sum_m\alpha_{tm} = 0`, the dual value :math:`-\lambda(\frac12\|W\|^2 +
    \sum_t\sum_{m \ne y_t}\alpha_{tm}) \le \min P`.  Stops as :func:`svm_minimum`.
    ``warm``: a start, ``alpha / C`` of an earlier solve (any ``lam``; the constraints
    scale with ``C``), e.g. the ``coef`` of another ``lam`` times ``lam N``.
    """
    K, lam, tol, max_epochs, d = _check(K, lam, tol, max_epochs)
    T = K.shape[0]
    n = v.integer(n_classes, "n_classes", 2)
    yi = np.asarray(y)
    if yi.shape != (T,) or not np.array_equal(yi.astype(np.int64), yi) or yi.min() < 0 \
            or yi.max() >= n:
        raise ValueError(f"y must hold {T} class indices in 0..{n - 1}")
    yi = yi.astype(np.int64)
    C = 1.0 / (lam * T)
    alpha = np.zeros((T, n)) if warm is None else np.array(warm, dtype=float) * C
    if alpha.shape != (T, n):
        raise ValueError(f"warm must have shape {(T, n)}")
    FT = np.ascontiguousarray((K @ alpha).T)        # class scores, one row per class
    e = np.ones((T, n))
    e[np.arange(T), yi] = 0.0
    rows = np.arange(T)
    cap = np.zeros((T, n))
    cap[rows, yi] = C
    rng = np.random.default_rng(seed)
    epochs = 0

    def values():
        F = FT.T
        wsq = float(np.sum(alpha * F))
        other = np.where(e > 0, F, -np.inf).max(axis=1)
        hinge = float(np.sum(np.maximum(0.0, 1.0 + other - F[rows, yi])))
        primal = lam * (0.5 * wsq + C * hinge)
        dual = -lam * (0.5 * wsq + float(np.sum(e * alpha)))
        return primal, dual, wsq

    primal, dual, wsq = values()
    while epochs < max_epochs and primal - dual > tol * max(1.0, primal):
        for t in rng.permutation(T):
            g = FT[:, t] + e[t]
            a = alpha[t]
            free = a < cap[t]
            if g.max() - g[free].min() <= 1e-12:
                continue                   # the row's subproblem is solved already
            A = d[t]
            new = _cs_subproblem(A, g - A * a, yi[t], C)
            delta = new - a
            col = K[t]
            for m in np.flatnonzero(delta):
                FT[m] += delta[m] * col
            alpha[t] = new
        epochs += 1
        primal, dual, wsq = values()
    F = FT.T
    return SVMMinimum(value=primal, lower_bound=dual, gap=primal - dual, coef=alpha,
                      fitted=np.array(F), norm=math.sqrt(max(wsq, 0.0)), lam=lam, epochs=epochs)


def multiclass_ball_minimum(K, y, n_classes, U, *, mus=None, **solver) -> float:
    r"""A certified lower bound on :math:`\min_{\|W\| \le U}\frac1N\sum_t\ell^M_t(W)` (BMP's
    comparator, Theorem 3, multiclass).

    Weak duality: for every :math:`\mu > 0`, :math:`\min_{\|W\| \le U} L(W) \ge
    \min_W (L(W) + \frac\mu2\|W\|^2) - \frac\mu2 U^2`, and the first term is at least the
    dual value of (5.1) at :math:`\lambda = \mu` (:func:`multiclass_svm_minimum`); the
    largest over ``mus`` (default :math:`10^{-4..2}`, 13 points, refined around the best
    by a golden-section search in :math:`\log\mu`) is returned (>= 0).
    """
    U = v.positive(U, "U")
    solver.setdefault("tol", 1e-5)
    solver.setdefault("max_epochs", 200)    # any dual point gives a valid lower bound
    T = np.shape(K)[0]
    state = {}

    def lb(log_mu):
        mu = math.exp(log_mu)
        r = multiclass_svm_minimum(K, y, n_classes, mu, warm=state.get("warm"), **solver)
        state["warm"] = r.coef * (mu * T)
        return r.lower_bound - 0.5 * mu * U * U

    grid = np.log(np.logspace(-4, 2, 13) if mus is None else np.asarray(mus, dtype=float))
    vals = [lb(g) for g in grid]
    i = int(np.argmax(vals))
    best = vals[i]
    if mus is None and grid.size > 2:
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        gold = (math.sqrt(5.0) - 1.0) / 2.0
        p, q = b - gold * (b - a), a + gold * (b - a)
        fp, fq = lb(p), lb(q)
        for _ in range(12):
            if fp >= fq:
                b, q, fq = q, p, fp
                p = b - gold * (b - a)
                fp = lb(p)
            else:
                a, p, fp = p, q, fq
                q = a + gold * (b - a)
                fq = lb(q)
        best = max(best, fp, fq)
    return max(best, 0.0)


def bsgd_paper_radius(lam) -> float:
    r""":math:`U` of (4.1) as printed: :math:`2/\lambda` for :math:`\lambda \le 4`, else
    :math:`1/\lambda`."""
    lam = v.positive(lam, "lam")
    return 2.0 / lam if lam <= 4.0 else 1.0 / lam


def iterate_radius(lam, G=1.0, eps=1.0) -> float:
    r""":math:`U = \max((G + \epsilon)/\lambda, \sqrt{2/\lambda})`: a bound on every
    iterate of BPegasos / BNorma (no ball) whose loss subgradients are at most ``G`` and
    gradient errors at most ``eps``, and on :math:`\|w^*\|` (module docstring)."""
    lam = v.positive(lam, "lam")
    G, eps = v.nonnegative(G, "G"), v.nonnegative(eps, "eps")
    return max((G + eps) / lam, math.sqrt(2.0 / lam))


def _constants(G, eps):
    return v.nonnegative(G, "G"), v.nonnegative(eps, "eps")


def _radius(U, lam, G, eps):
    """Theorems 1 and 2's comparator radius: ``U`` as given, else the paper's (4.1) at
    ``G = eps = 1`` (:func:`bsgd_paper_radius`) or :func:`iterate_radius`."""
    if U is None:
        U = bsgd_paper_radius(lam) if (G, eps) == (1.0, 1.0) else iterate_radius(lam, G, eps)
    return v.positive(U, "U")


def bsgd_theorem1_bound(lam, N, E, *, U=None, G=1.0, eps=1.0) -> float:
    r"""Theorem 1 (BPegasos): :math:`\frac{(\lambda U + G + \epsilon)^2(\ln N + 1)}{2
    \lambda N} + 2UE`; at ``G = eps = 1`` and ``U=None`` (:func:`bsgd_paper_radius`) the
    printed (4.2).  ``U=None`` with other constants: :func:`iterate_radius`."""
    lam = v.positive(lam, "lam")
    N = v.integer(N, "N", 1)
    E = v.nonnegative(E, "E")
    G, eps = _constants(G, eps)
    U = _radius(U, lam, G, eps)
    return (lam * U + G + eps) ** 2 * (math.log(N) + 1.0) / (2.0 * lam * N) + 2.0 * U * E


def bsgd_theorem2_bound(lam, eta, N, E, *, U=None, G=1.0, eps=1.0) -> float:
    r"""Theorem 2 (BNorma, :math:`\eta_t = \eta/\sqrt t`): :math:`(2U^2/\eta + \eta(\lambda U
    + G + \epsilon)^2)\sqrt N/N + 2UE` (the printed (4.3) at ``G = eps = 1``)."""
    lam = v.positive(lam, "lam")
    eta = v.positive(eta, "eta")
    N = v.integer(N, "N", 1)
    E = v.nonnegative(E, "E")
    G, eps = _constants(G, eps)
    U = _radius(U, lam, G, eps)
    return (2.0 * U * U / eta + eta * (lam * U + G + eps) ** 2) * math.sqrt(N) / N \
        + 2.0 * U * E


def bsgd_theorem3_bound(U, eta, N, E, *, G=1.0, eps=1.0) -> float:
    r"""Theorem 3 (BMP, :math:`\lambda = 0`, constant :math:`\eta`, the ball of radius
    :math:`U`): :math:`2U^2/(N\eta) + (G + \epsilon)^2\eta/2 + 2UE` (the printed (4.4),
    :math:`2U^2/(N\eta) + 2\eta + 2UE`, at ``G = eps = 1``)."""
    U = v.positive(U, "U")
    eta = v.positive(eta, "eta")
    N = v.integer(N, "N", 1)
    E = v.nonnegative(E, "E")
    G, eps = _constants(G, eps)
    return 2.0 * U * U / (N * eta) + (G + eps) ** 2 * eta / 2.0 + 2.0 * U * E


def pegasos_regret_bound(lam, N, R2) -> float:
    r"""Shalev-Shwartz, Singer, Srebro & Cotter (Math. Prog. 2011), Theorem 1 without the
    projection step: :math:`\frac1N\sum_t P_t(w_t) - \frac1N\sum_t P_t(w^*) \le c(1 + \ln
    N)/(2\lambda N)` with :math:`c = 4R^2`, :math:`R^2 \ge \|\Phi(x_t)\|^2` (here for the
    hinge loss; pass :math:`R^2 = 2\max k(x, x)` for the Crammer-Singer loss, whose
    subgradient is at most :math:`\sqrt2\|\Phi(x)\|`).  It is
    :func:`bsgd_theorem1_bound` at ``E = eps = 0``, ``G = R``."""
    R2 = v.positive(R2, "R2")
    return bsgd_theorem1_bound(lam, N, 0.0, G=math.sqrt(R2), eps=0.0)


def average_objective(lam, sq_norms, losses) -> float:
    r""":math:`\frac1N\sum_t P_t(w_t) = \frac1N\sum_t(\frac\lambda2\|w_t\|^2 + \ell_t(w_t))`
    from the iterates' squared norms and losses (the left side's first term)."""
    sq = np.asarray(sq_norms, dtype=float)
    ls = np.asarray(losses, dtype=float)
    if sq.shape != ls.shape or sq.ndim != 1 or sq.size == 0:
        raise ValueError("sq_norms and losses must be vectors of the same nonzero length")
    lam = v.nonnegative(lam, "lam")
    return float(np.mean(0.5 * lam * sq + ls))
