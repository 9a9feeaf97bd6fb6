r"""Best comparators in hindsight for the regret bounds.

* :func:`best_hinge_in_ball` -- the comparator of the hinge-loss bounds of
  Li & Liao (AAAI 2023) and of the Ahpatron paper (Liao et al., AAAI 2024):
  :math:`\min_{\|f\|_{\mathcal H} \le U}
  \sum_t \max(0, 1 - y_t f(x_t))`.
* :func:`kernel_ridge_comparator` -- the regularized square-loss comparator
  :math:`\min_f \sum_t (y_t - f(x_t))^2 + \lambda \|f\|^2` of Jezequel,
  Gaillard & Rudi (NeurIPS 2019).

By the representer theorem both minimizers are
:math:`f = \sum_t a_t \kappa(x_t, \cdot)`, so :math:`f(x_t) = (K a)_t` and
:math:`\|f\|^2 = a^\top K a`.
"""
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from . import _validation as v
from ._hinge_ipm import solve_hinge_ball

__all__ = [
    "HingeComparator",
    "RidgeComparator",
    "best_hinge_in_ball",
    "kernel_ridge_comparator",
]


@dataclass(frozen=True, eq=False)
class HingeComparator:
    """Solution of :func:`best_hinge_in_ball`.

    Attributes
    ----------
    loss : float
        :math:`\\sum_t \\max(0, 1 - y_t f(x_t))` at the returned ``f``.
    coef : ndarray, shape (T,)
        Coefficients ``a`` of :math:`f = \\sum_t a_t \\kappa(x_t, \\cdot)`.
    fitted : ndarray, shape (T,)
        :math:`f(x_t) = (K a)_t`.
    norm : float
        :math:`\\|f\\|_{\\mathcal H} = \\sqrt{a^\\top K a}` (at most ``U`` up to round-off).
    U : float
        Radius of the ball.
    dual : ndarray, shape (T,)
        Dual point :math:`\\beta \\in [0, 1]^T`.
    lower_bound : float
        Dual value :math:`\\mathbf 1^\\top\\beta - U\\sqrt{(\\beta y)^\\top K (\\beta y)}`,
        a certified lower bound on the minimum.
    gap : float
        ``loss - lower_bound`` (>= 0): ``loss`` is within ``gap`` of the minimum.
    rank : int
        Number of pivot columns spanning the feature space used.
    iterations : int
        Interior-point iterations.
    """

    loss: float
    coef: np.ndarray
    fitted: np.ndarray
    norm: float
    U: float
    dual: np.ndarray
    lower_bound: float
    gap: float
    rank: int
    iterations: int


@dataclass(frozen=True, eq=False)
class RidgeComparator:
    """Solution of :func:`kernel_ridge_comparator`.

    Attributes
    ----------
    coef : ndarray, shape (T,)
        :math:`a = (K + \\lambda I)^{-1} y`.
    fitted : ndarray, shape (T,)
        :math:`f(x_t) = (K a)_t`.
    loss : float
        Total square loss :math:`\\sum_t (y_t - f(x_t))^2`.
    norm2 : float
        :math:`\\|f\\|_{\\mathcal H}^2 = a^\\top K a`.
    objective : float
        ``loss + lam * norm2``.
    lam : float
        Regularization :math:`\\lambda`.
    """

    coef: np.ndarray
    fitted: np.ndarray
    loss: float
    norm2: float
    objective: float
    lam: float


def _pivoted_features(K, rtol):
    """Pivoted Cholesky ``K ~ Phi Phi^T`` with ``Phi[S] = L11`` lower triangular.

    Returns ``Phi`` (T x r), the pivot indices ``S`` (r,) and ``L11``.  The
    columns ``K[:, S]`` are reproduced exactly: ``K[:, S] = Phi @ L11.T``.
    """
    tol = rtol * float(np.max(np.diag(K)))
    c, piv, rank, info = linalg.lapack.dpstrf(K, tol=tol, lower=1)
    if info < 0:
        raise RuntimeError(f"dpstrf failed (info={info})")
    piv = piv - 1
    L = np.tril(c)[:, :rank]
    Phi = np.empty_like(L)
    Phi[piv] = L
    S = piv[:rank]
    if rank < K.shape[0]:
        R = K - Phi @ Phi.T
        # The residual of a PSD matrix has diagonal <= tol, hence entries <= tol.
        bound = 10 * tol + 64 * K.shape[0] * np.finfo(float).eps * np.max(np.abs(K))
        if np.max(np.abs(R)) > bound:
            raise ValueError("K is not positive semidefinite")
    return Phi, S, L[:rank, :rank]


def best_hinge_in_ball(K, y, U, *, tol=1e-8, rank_rtol=1e-13, max_iter=200):
    r"""Best hinge-loss function in the RKHS ball, with a duality certificate.

    Computes :math:`\min_{f \in \mathcal H, \|f\|_{\mathcal H} \le U}
    \sum_{t=1}^T \max(0, 1 - y_t f(x_t))`, the comparator
    :math:`\min_{f \in \mathbb H} \sum_t \ell(f(x_t), y_t)` of the regret
    :math:`\mathrm{Reg}(f)` in Li & Liao (AAAI 2023, eq. (1), with
    :math:`\mathbb H = \{f \in \mathcal H : \|f\|_{\mathcal H} \le U\}`
    and the hinge loss) and of the AVP/Ahpatron bounds of Liao et al. (AAAI 2024).

    Parameters
    ----------
    K : array_like, shape (T, T)
        PSD kernel matrix (may be singular).
    y : array_like, shape (T,)
        Labels in {-1, +1}.
    U : float
        Radius :math:`U > 0` of the ball.
    tol : float, default 1e-8
        Target relative gap of the solver: it stops when
        ``gap <= tol * max(1, loss)`` on the reduced problem.
    rank_rtol : float, default 1e-13
        Pivoted-Cholesky tolerance, relative to ``max_t K_tt``.
    max_iter : int, default 200
        Cap on interior-point iterations.

    Returns
    -------
    HingeComparator
        ``loss``, ``coef``, ``fitted``, ``norm``, the dual point and the
        certified ``gap`` (always check it: ``loss - gap`` is a lower bound on
        the minimum).

    Raises
    ------
    ValueError
        If ``K`` is not square, symmetric, finite or PSD, ``y`` is not a
        length-``T`` vector of -1/+1 labels, ``U``, ``tol`` or ``rank_rtol``
        is not a positive number, or ``max_iter`` is not a positive integer.

    Notes
    -----
    1. *Features.*  Pivoted Cholesky (LAPACK ``dpstrf``) gives
       :math:`K \approx \Phi\Phi^\top` with pivot set :math:`S`, stopping when
       every residual diagonal is at most ``rank_rtol * max_t K_tt``; ``r = |S|``
       is the numerical rank (duplicate points and low-rank ``K`` are fine).
       ``f`` is searched in :math:`\mathrm{span}\{\kappa(x_s,\cdot)\}_{s\in S}`,
       a subset of the representer span, so the returned ``f`` is always
       feasible: with :math:`a_S = L_{11}^{-\top} w` (:math:`L_{11} = \Phi_S`),
       :math:`f(x_t) = (\Phi w)_t` and :math:`\|f\| = \|w\|`.
    2. *Solver.*  :math:`\min_{\|w\| \le U} \sum_t \max(0, 1 - y_t
       \phi_t^\top w)`, whose dual is :math:`\max_{\beta \in [0,1]^T}
       \mathbf 1^\top\beta - U\|\Phi^\top(\beta \circ y)\|`, is solved by a
       primal-dual interior-point method (Mehrotra predictor-corrector, see
       ``theory._hinge_ipm``), followed by one polishing step through the KKT
       maps (:math:`\beta_t = 1` / :math:`0` for margins clearly below / above
       1; :math:`w \propto \Phi^\top(\beta \circ y)`).  Each iteration costs
       :math:`O(T r^2 + r^3)`; 6-25 iterations were observed.
    3. *Certificate.*  Recomputed on the full ``K``: ``loss`` from
       ``K @ coef`` and ``lower_bound`` from
       :math:`(\beta y)^\top K (\beta y)`, so ``gap`` bounds the
       suboptimality for the exact problem, truncation included.  ``norm`` is
       also recomputed from ``K`` and may exceed ``U`` by round-off.
    """
    K = v.kernel_matrix(K)
    T = K.shape[0]
    y = v.labels(y, T, binary=True)
    U = v.positive(U, "U")
    tol = v.positive(tol, "tol")
    rank_rtol = v.positive(rank_rtol, "rank_rtol")
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    diag = np.diag(K)
    if np.min(diag) < 0 or (np.max(diag) == 0.0 and np.any(K != 0.0)):
        raise ValueError("K is not positive semidefinite")

    coef = np.zeros(T)
    if np.max(diag) == 0.0:  # K = 0: every f in the span is 0
        beta, rank, iterations = np.ones(T), 0, 0
    else:
        Phi, S, L11 = _pivoted_features(K, rank_rtol)
        rank = S.size
        u, beta, iterations = solve_hinge_ball(U * y[:, None] * Phi, tol=tol, max_iter=max_iter)
        coef[S] = linalg.solve_triangular(L11, U * u, trans="T", lower=True)

    fitted = K @ coef
    loss = float(np.sum(np.maximum(0.0, 1.0 - y * fitted)))
    by = beta * y
    lower = float(np.sum(beta) - U * np.sqrt(max(by @ K @ by, 0.0)))
    return HingeComparator(
        loss=loss,
        coef=coef,
        fitted=fitted,
        norm=float(np.sqrt(max(coef @ fitted, 0.0))),
        U=U,
        dual=beta,
        lower_bound=lower,
        gap=max(loss - lower, 0.0),
        rank=int(rank),
        iterations=int(iterations),
    )


def kernel_ridge_comparator(K, y, lam):
    r"""Kernel ridge regression solution, the square-loss comparator of Jezequel,
    Gaillard & Rudi (NeurIPS 2019).

    The paper writes the regularized
    cumulative loss without normalization,
    :math:`L_n(f) = \sum_{t=1}^n (y_t - f(x_t))^2 + \lambda \|f\|_{\mathcal H}^2`
    (Appendix, notation; it is eq. (3) without the term :math:`f(x_t)^2`,
    "kernel Ridge regression"), and the regret bounds of Prop. 1 and
    Thm. 3-6 carry :math:`\lambda\|f\|^2` with the same :math:`\lambda`.
    This scaling is used here: the minimizer is
    :math:`f = \sum_t a_t \kappa(x_t,\cdot)` with
    :math:`a = (K + \lambda I)^{-1} y`, solved by Cholesky.

    Parameters
    ----------
    K : array_like, shape (T, T)
        PSD kernel matrix (may be singular).
    y : array_like, shape (T,)
        Real-valued targets.
    lam : float
        Regularization :math:`\lambda > 0`.

    Returns
    -------
    RidgeComparator

    Raises
    ------
    ValueError
        If ``K`` is not square, symmetric or finite, ``y`` is not a finite
        length-``T`` vector, ``lam <= 0``, or ``K + lam I`` is not positive
        definite (``K`` not PSD).
    """
    K = v.kernel_matrix(K)
    T = K.shape[0]
    y = v.labels(y, T)
    lam = v.positive(lam, "lam")
    A = K + lam * np.eye(T)
    try:
        coef = linalg.cho_solve(linalg.cho_factor(A, lower=True), y)
    except linalg.LinAlgError:
        raise ValueError("K + lam * I is not positive definite: K must be PSD") from None
    fitted = K @ coef
    loss = float(np.sum((y - fitted) ** 2))
    norm2 = float(coef @ fitted)
    return RidgeComparator(coef=coef, fitted=fitted, loss=loss, norm2=norm2,
                           objective=loss + lam * norm2, lam=lam)
