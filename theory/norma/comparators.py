r"""What NORMA's bounds are evaluated at, measured on a stream: the soft margin losses
(13), the best soft margin comparator in a ball, a comparator sequence's path
(:math:`B`, :math:`D_1`, :math:`D_2` of :math:`\mathcal G(B, D_1, D_2)`), the regularized
risks (4)-(5) and the best regularized soft margin comparator.

Notation: :mod:`theory.norma`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .. import _validation as v
from ..comparators import best_hinge_in_ball
from ._checks import _integer, _nonnegative, _positive, _vector

__all__ = [
    "soft_margin_losses",
    "SoftMarginComparator",
    "soft_margin_comparator_loss",
    "ComparatorPath",
    "comparator_path",
    "regularized_risk",
    "cumulative_instantaneous_risk",
    "RegularizedComparator",
    "best_regularized_soft_margin",
]


def soft_margin_losses(values, y, margin):
    r"""Per-round soft margin loss (13): :math:`l_\mu(g_t(x_t), y_t) = \max(0, \mu - y_t g_t(x_t))`.

    Its sum is :math:`L_{\mathrm{cum},\mu}[\mathbf g, S]` (6), the ``K`` of
    Theorems 2-3 when ``values`` are a comparator's predictions.

    Parameters
    ----------
    values : array_like, shape (m,)
        Predictions :math:`g_t(x_t)`.
    y : array_like, shape (m,)
        Labels in {-1, +1}.
    margin : float
        :math:`\mu \ge 0`.

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    ValueError
        If ``values`` is not a finite non-empty vector, ``y`` not a matching
        vector of -1/+1 labels, or ``margin < 0``.
    """
    values = _vector(values, "values")
    y = v.labels(y, values.size, binary=True)
    margin = _nonnegative(margin, "margin")
    return np.maximum(0.0, margin - y * values)


@dataclass(frozen=True, eq=False)
class SoftMarginComparator:
    """Solution of :func:`soft_margin_comparator_loss`.

    Attributes
    ----------
    loss : float
        :math:`\\sum_t \\max(0, \\mu - y_t g(x_t))` at the returned ``g`` (an achieved
        value: a valid ``K`` for Theorems 2-3).
    lower_bound : float
        Certified lower bound on the minimum (``loss - lower_bound`` is the gap).
    coef : ndarray, shape (m,)
        :math:`g = \\sum_t a_t k(x_t, \\cdot)`.
    fitted : ndarray, shape (m,)
        :math:`g(x_t)`.
    norm : float
        :math:`\\|g\\|_{\\mathcal H}` (at most ``B`` up to round-off).
    B, mu : float
        Radius and margin.
    """

    loss: float
    lower_bound: float
    coef: np.ndarray
    fitted: np.ndarray
    norm: float
    B: float
    mu: float


def soft_margin_comparator_loss(K, y, B, mu, **solver):
    r"""Best stationary comparator of Theorems 2-3:
    :math:`\min_{\|g\|_{\mathcal H} \le B} \sum_t \max(0, \mu - y_t g(x_t))`.

    Scaling: :math:`\max(0, \mu - y g(x)) = \mu\max(0, 1 - y (g/\mu)(x))` and
    :math:`\|g\| \le B \iff \|g/\mu\| \le B/\mu`, so the minimum is
    :math:`\mu` times the hinge minimum over the ball of radius :math:`B/\mu`,
    computed by :func:`theory.best_hinge_in_ball`; the returned ``g`` is
    :math:`\mu` times its minimizer.

    Parameters
    ----------
    K : array_like, shape (m, m)
        PSD kernel matrix of the stream.
    y : array_like, shape (m,)
        Labels in {-1, +1}.
    B : float
        Radius :math:`B > 0`.
    mu : float
        Margin :math:`\mu > 0`.
    **solver
        Passed to :func:`theory.best_hinge_in_ball` (``tol``, ``rank_rtol``, ``max_iter``).

    Returns
    -------
    SoftMarginComparator

    Raises
    ------
    ValueError
        If ``B`` or ``mu`` is not positive, or ``K``/``y`` are invalid (see
        :func:`theory.best_hinge_in_ball`).
    """
    B = _positive(B, "B")
    mu = _positive(mu, "mu")
    res = best_hinge_in_ball(K, y, B / mu, **solver)
    return SoftMarginComparator(loss=mu * res.loss, lower_bound=mu * res.lower_bound,
                                coef=mu * res.coef, fitted=mu * res.fitted,
                                norm=mu * res.norm, B=B, mu=mu)


@dataclass(frozen=True)
class ComparatorPath:
    """Norms and path lengths of a comparator sequence (Sec. IV-B).

    Attributes
    ----------
    B : float
        :math:`\\max_t \\|g_t\\|_{\\mathcal H}`.
    D1 : float
        :math:`\\sum_{t=1}^{m-1} \\|g_t - g_{t+1}\\|_{\\mathcal H}`.
    D2 : float
        :math:`\\sum_{t=1}^{m-1} \\|g_t - g_{t+1}\\|_{\\mathcal H}^2`.
    norms : ndarray, shape (m,)
        :math:`\\|g_t\\|`.
    steps : ndarray, shape (m - 1,)
        :math:`\\|g_t - g_{t+1}\\|`.
    """

    B: float
    D1: float
    D2: float
    norms: np.ndarray
    steps: np.ndarray


def comparator_path(weights=None, *, coef=None, gram=None):
    r"""Path quantities :math:`B, D_1, D_2` of :math:`\mathcal G(B, D_1, D_2)` (Sec. IV-B).

    Give either explicit weight vectors (linear kernel :math:`k(x, v) = \langle x, v\rangle`,
    :math:`g_t = \langle w_t, \cdot\rangle`, :math:`\|g_t - g_{t+1}\| = \|w_t - w_{t+1}\|`),
    or kernel-expansion coefficients ``coef[t]`` of :math:`g_t = \sum_j a_{tj} k(z_j, \cdot)`
    with the Gram matrix ``gram`` of the centres :math:`z_j`
    (:math:`\|g_t - g_{t+1}\|^2 = (a_t - a_{t+1})^\top G (a_t - a_{t+1})`).

    Parameters
    ----------
    weights : array_like, shape (m, d), optional
    coef : array_like, shape (m, n), optional
    gram : array_like, shape (n, n), optional
        Required with ``coef``.

    Returns
    -------
    ComparatorPath

    Raises
    ------
    ValueError
        Unless exactly one of ``weights`` and ``coef`` (with ``gram``) is given as a
        finite 2-D array of matching shapes.
    """
    if (weights is None) == (coef is None):
        raise ValueError("give exactly one of weights and coef")
    if weights is not None:
        if gram is not None:
            raise ValueError("gram goes with coef, not with weights")
        W = np.asarray(weights, dtype=float)
        if W.ndim != 2 or W.shape[0] == 0:
            raise ValueError(f"weights must be a non-empty 2-D array (m, d), got shape {W.shape}")
        if not np.all(np.isfinite(W)):
            raise ValueError("weights contains NaN or inf")
        norms = np.linalg.norm(W, axis=1)
        steps = np.linalg.norm(np.diff(W, axis=0), axis=1)
    else:
        if gram is None:
            raise ValueError("gram is required with coef")
        A = np.asarray(coef, dtype=float)
        if A.ndim != 2 or A.shape[0] == 0:
            raise ValueError(f"coef must be a non-empty 2-D array (m, n), got shape {A.shape}")
        if not np.all(np.isfinite(A)):
            raise ValueError("coef contains NaN or inf")
        G = v.kernel_matrix(gram, "gram")
        if G.shape[0] != A.shape[1]:
            raise ValueError(f"gram must be ({A.shape[1]}, {A.shape[1]}) to match coef, "
                             f"got {G.shape}")
        sq = lambda M: np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", M, G, M), 0.0))  # noqa: E731
        norms = sq(A)
        steps = sq(np.diff(A, axis=0))
    return ComparatorPath(B=float(norms.max()), D1=float(steps.sum()),
                          D2=float(np.sum(steps ** 2)), norms=norms, steps=steps)


def regularized_risk(losses, norm_sq, lam):
    r"""Regularized risk (4) of a fixed ``g``:
    :math:`R_{\mathrm{reg},\lambda}[g, S] = \frac1m\sum_t l(g(x_t), y_t) + \frac\lambda2\|g\|^2`.

    Parameters
    ----------
    losses : array_like, shape (m,)
        :math:`l(g(x_t), y_t)`.
    norm_sq : float
        :math:`\|g\|_{\mathcal H}^2 \ge 0`.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``losses`` is not a finite non-empty vector or ``norm_sq``/``lam`` is negative.
    """
    losses = _vector(losses, "losses")
    norm_sq = _nonnegative(norm_sq, "norm_sq")
    lam = _nonnegative(lam, "lam")
    return float(losses.mean() + 0.5 * lam * norm_sq)


def cumulative_instantaneous_risk(losses, norm_sq, lam):
    r"""Left side of (35)/(37): :math:`\sum_t R_{\mathrm{inst},\lambda}[f_t, x_t, y_t]
    = \sum_t \big(l(f_t(x_t), y_t) + \frac\lambda2\|f_t\|^2\big)`, as a running sum.

    With an okl trace: ``losses = tr.losses``, ``norm_sq = tr.extras["norm_sq"]``
    (recorded with ``track_norm=True``).

    Parameters
    ----------
    losses : array_like, shape (m,)
    norm_sq : array_like, shape (m,)
        :math:`\|f_t\|^2 \ge 0` of the hypothesis used at round t.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    ndarray, shape (m,)
        Entry ``n - 1`` is the sum over the first ``n`` rounds.

    Raises
    ------
    ValueError
        If the arrays are not finite vectors of equal length, ``norm_sq`` has a
        negative entry below round-off, or ``lam < 0``.
    """
    losses = _vector(losses, "losses")
    norm_sq = _vector(norm_sq, "norm_sq", losses.size)
    lam = _nonnegative(lam, "lam")
    if norm_sq.min() < -1e-9 * max(1.0, norm_sq.max()):
        raise ValueError("norm_sq has negative entries")
    return np.cumsum(losses + 0.5 * lam * np.maximum(norm_sq, 0.0))


@dataclass(frozen=True, eq=False)
class RegularizedComparator:
    """Solution of :func:`best_regularized_soft_margin`.

    Attributes
    ----------
    risk : float
        :math:`R_{\\mathrm{reg},\\lambda}[g, S]` at the returned ``g`` (achieved: any
        ``g`` is valid in Theorems 4 and 6).
    lower_bound : float
        Dual value, a certified lower bound on :math:`\\min_g R_{\\mathrm{reg},\\lambda}[g, S]`.
    gap : float
        ``risk - lower_bound``.
    coef : ndarray, shape (m,)
        :math:`g = \\sum_t a_t k(x_t, \\cdot)`.
    fitted : ndarray, shape (m,)
        :math:`g(x_t)`.
    norm_sq : float
        :math:`\\|g\\|_{\\mathcal H}^2`.
    lam, rho : float
    """

    risk: float
    lower_bound: float
    gap: float
    coef: np.ndarray
    fitted: np.ndarray
    norm_sq: float
    lam: float
    rho: float


def best_regularized_soft_margin(K, y, lam, rho=1.0, *, features=None, tol=1e-9,
                                 max_iter=20000):
    r"""Near-minimizer of (4) for the soft margin loss:
    :math:`\min_g \frac1m\sum_t \max(0, \rho - y_t g(x_t)) + \frac\lambda2\|g\|^2`.

    The comparator :math:`\hat g` of Theorems 4 and 6.  By the representer
    theorem :math:`g = \sum_t a_t k(x_t, \cdot)`.  Solved through the dual
    (the bias-free SVM dual)

    .. math::

        \max_{\beta \in [0, 1]^m} \frac{\rho}{m}\sum_t \beta_t
        - \frac{1}{2\lambda m^2}(\beta\circ y)^\top K (\beta\circ y),
        \qquad a = \frac{\beta \circ y}{\lambda m},

    a smooth box-constrained concave quadratic, with ``scipy.optimize``'s
    L-BFGS-B.  The returned ``g`` is the primal point of the final
    :math:`\beta` and ``risk`` its exact primal value, so the result is valid
    in the bounds however accurate the solver was (they hold for every ``g``);
    ``gap`` certifies how close to the minimum it is.  The primal point is then
    rescaled by the best :math:`s \in [0, 4]` (a convex 1-D problem; ``s = 0`` is
    :math:`g = 0`, risk :math:`\rho`), which repairs a dual point that is
    accurate while its primal image is not (degenerate duals).  ``rho = 0``
    returns :math:`g = 0` (risk 0, exact).

    Accuracy and cost: for :math:`\rho` of order 1 and :math:`\lambda \ge 0.05`
    the gap is below ``1e-6`` in the cases tried; for :math:`\rho` far below
    :math:`X^2/\lambda` (e.g. ``rho = 6e-5``, ``lam = 0.5``) the dual stalls and
    ``gap / risk`` can reach 0.3 -- the returned ``g`` remains valid.  L-BFGS-B
    needs many iterations when :math:`\lambda` is small (2-5 s for ``m = 1000``
    and :math:`\lambda \le 0.1` with a dense ``K``); with explicit ``features``
    each iteration costs :math:`O(m r)` instead of :math:`O(m^2)`.

    Parameters
    ----------
    K : array_like, shape (m, m), or None
        PSD kernel matrix; ``None`` when ``features`` is given.
    y : array_like, shape (m,)
        Labels in {-1, +1}.
    lam : float
        :math:`\lambda > 0`.
    rho : float, default 1.0
        Margin :math:`\rho \ge 0` of the loss (13).
    features : array_like, shape (m, r), optional
        Explicit features with :math:`K = \Phi\Phi^\top` (for the linear
        kernel, the inputs themselves); exclusive with ``K``.  Then ``coef`` is
        still the expansion on the ``m`` points, and ``g`` is also
        :math:`w = \Phi^\top a`.
    tol : float, default 1e-9
        ``ftol`` (and ``gtol = tol / m``) of L-BFGS-B, on the dual objective
        divided by :math:`\rho` (a relative tolerance).
    max_iter : int, default 20000
        Iteration cap.

    Returns
    -------
    RegularizedComparator

    Raises
    ------
    ValueError
        If not exactly one of ``K`` (a symmetric finite square matrix) and
        ``features`` (a finite 2-D array) is given, ``y`` is not a matching
        vector of -1/+1 labels, ``lam <= 0``, ``rho < 0``, ``tol <= 0`` or
        ``max_iter < 1``.
    """
    if (K is None) == (features is None):
        raise ValueError("give exactly one of K and features")
    if K is not None:
        K = v.kernel_matrix(K)
        m = K.shape[0]
        apply_K = lambda a: K @ a  # noqa: E731
    else:
        Phi = np.asarray(features, dtype=float)
        if Phi.ndim != 2 or Phi.shape[0] == 0 or Phi.shape[1] == 0:
            raise ValueError(f"features must be a non-empty 2-D array (m, r), got shape "
                             f"{Phi.shape}")
        if not np.all(np.isfinite(Phi)):
            raise ValueError("features contains NaN or inf")
        m = Phi.shape[0]
        apply_K = lambda a: Phi @ (Phi.T @ a)  # noqa: E731
    y = v.labels(y, m, binary=True)
    lam = _positive(lam, "lam")
    rho = _nonnegative(rho, "rho")
    tol = _positive(tol, "tol")
    max_iter = _integer(max_iter, "max_iter", 1)
    if rho == 0.0:      # the loss and the penalty are >= 0 and g = 0 attains 0
        zero = np.zeros(m)
        return RegularizedComparator(risk=0.0, lower_bound=0.0, gap=0.0, coef=zero,
                                     fitted=zero.copy(), norm_sq=0.0, lam=lam, rho=rho)
    scale = 1.0 / (lam * m)

    # minimize -dual / rho = (-rho sum(beta) + beta^T Q beta / 2) / (rho m), with
    # Q = diag(y) K diag(y) / (lam m): of order 1, so that L-BFGS-B's tolerances
    # (relative to max(|f|, 1)) are relative for every rho
    def fun(beta):
        Qb = scale * y * apply_K(y * beta)
        return ((-rho * beta.sum() + 0.5 * beta @ Qb) / (rho * m), (Qb - rho) / (rho * m))

    res = optimize.minimize(fun, np.full(m, 0.5), jac=True, method="L-BFGS-B",
                            bounds=[(0.0, 1.0)] * m,
                            options={"maxiter": max_iter, "ftol": tol, "gtol": tol / m,
                                     "maxcor": 30})
    beta = np.clip(res.x, 0.0, 1.0)
    by = beta * y
    coef = by / (lam * m)
    fitted = apply_K(coef)
    norm_sq = float(max(coef @ fitted, 0.0))
    dual = float(rho * beta.mean() - 0.5 * lam * norm_sq)   # ||w||^2 = (by)^T K (by)/(lam m)^2
    # polish the primal point along its own ray (s g, s >= 0; s = 0 is g = 0): a
    # convex 1-D problem, which repairs the scale when the dual point is accurate but
    # its primal image is not (degenerate duals, rho small against X^2 / lam)
    yf = y * fitted

    def ray(s):
        return float(np.mean(np.maximum(0.0, rho - s * yf)) + 0.5 * lam * s * s * norm_sq)
    s_best = min((0.0, 1.0), key=ray)
    if norm_sq > 0.0:
        line = optimize.minimize_scalar(ray, bounds=(0.0, 4.0), method="bounded",
                                        options={"xatol": 1e-12})
        if ray(line.x) < ray(s_best):
            s_best = float(line.x)
    risk = ray(s_best)
    coef, fitted, norm_sq = s_best * coef, s_best * fitted, s_best * s_best * norm_sq
    # the value of the returned g itself (equal to ray(s_best) up to round-off)
    risk = float(np.mean(np.maximum(0.0, rho - y * fitted)) + 0.5 * lam * norm_sq)
    return RegularizedComparator(risk=risk, lower_bound=dual, gap=max(risk - dual, 0.0),
                                 coef=coef, fitted=fitted, norm_sq=norm_sq, lam=lam, rho=rho)
