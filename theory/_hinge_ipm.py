r"""Primal-dual interior-point solver for the hinge loss over a Euclidean ball.

Solves, for a feature matrix :math:`G \in \mathbb{R}^{T \times r}` whose rows
already carry the labels and the radius (:math:`g_t = U y_t \phi_t`),

.. math::

    \min_{\|u\| \le 1} \sum_t \max(0, 1 - g_t^\top u)
    = \max_{\beta \in [0,1]^T} \mathbf 1^\top \beta - \|G^\top \beta\| .

The primal is written as the smooth convex program
:math:`\min \mathbf 1^\top \xi` s.t. :math:`\xi + G u - 1 \ge 0` (multiplier
:math:`\beta`), :math:`\xi \ge 0` (:math:`\nu`),
:math:`(1 - \|u\|^2)/2 \ge 0` (:math:`\eta`), and solved by Mehrotra's
predictor-corrector primal-dual method started from the strictly feasible
point :math:`u = 0, \xi = 2`.  Each iteration factors one
:math:`r \times r` matrix :math:`G^\top D G + \eta I + (\eta / h) u u^\top`.
The stopping test is a certificate independent of the iteration's internals:
the primal value at the current (feasible) :math:`u` minus the dual value at
:math:`\mathrm{clip}(\beta, 0, 1)`.
"""
import numpy as np
from scipy import linalg

_FRACTION = 0.99  # fraction-to-the-boundary factor


def hinge_ball_dual(G, beta):
    """Dual objective ``sum(beta) - ||G^T beta||`` (a lower bound for any beta in [0,1]^T)."""
    return float(np.sum(beta) - np.linalg.norm(G.T @ beta))


def _max_step(x, dx):
    """Largest alpha <= 1e300 with x + alpha * dx >= 0 (x > 0)."""
    neg = dx < 0
    return float(np.min(-x[neg] / dx[neg])) if np.any(neg) else np.inf


def _ball_step(u, du):
    """Largest alpha with ||u + alpha du|| <= 1 (||u|| < 1)."""
    a = du @ du
    if a == 0.0:
        return np.inf
    b = u @ du
    c = 1.0 - u @ u
    return float((-b + np.sqrt(b * b + a * c)) / a)


def solve_hinge_ball(G, tol=1e-9, max_iter=200):
    """Minimize ``sum(max(0, 1 - G u))`` over the unit ball.

    Parameters
    ----------
    G : ndarray, shape (T, r)
        Rows ``U * y_t * phi_t``.
    tol : float
        Stop when ``primal - dual <= tol * max(1, primal)``.
    max_iter : int
        Iteration cap.

    Returns
    -------
    u : ndarray, shape (r,)
        Best primal point found, ``||u|| < 1``.
    beta : ndarray, shape (T,)
        Best dual point found, in ``[0, 1]^T``.
    iterations : int
    """
    T, r = G.shape
    u, xi = np.zeros(r), np.full(T, 2.0)
    beta, nu, eta = np.full(T, 0.5), np.full(T, 0.5), 1.0
    best_p, best_u = np.inf, u
    best_d, best_b = -np.inf, np.zeros(T)
    m = 2 * T + 1
    for it in range(1, max_iter + 1):
        Gu = G @ u
        primal = float(np.sum(np.maximum(0.0, 1.0 - Gu)))
        b_clip = np.clip(beta, 0.0, 1.0)
        dual = hinge_ball_dual(G, b_clip)
        if primal < best_p:
            best_p, best_u = primal, u
        if dual > best_d:
            best_d, best_b = dual, b_clip
        if best_p - best_d <= tol * max(1.0, best_p):
            break

        g = xi + Gu - 1.0
        h = 0.5 * (1.0 - u @ u)
        mu = (beta @ g + nu @ xi + eta * h) / m
        r_dw = eta * u - G.T @ beta
        r_dxi = 1.0 - beta - nu
        a, b = beta / g, nu / xi
        ab = a + b
        M = (G.T * (a * b / ab)) @ G
        M[np.diag_indices_from(M)] += eta
        M += (eta / h) * np.outer(u, u)
        cho = linalg.cho_factor(M, lower=True, check_finite=False)

        def newton(rc_b, rc_n, rc_e):
            q = -r_dxi - rc_b / g - rc_n / xi
            rhs = -r_dw - G.T @ (rc_b / g + a * q / ab) + u * (rc_e / h)
            du = linalg.cho_solve(cho, rhs, check_finite=False)
            Gdu = G @ du
            dxi = (q - a * Gdu) / ab
            dg = dxi + Gdu
            dbeta = -rc_b / g - a * dg
            dnu = -rc_n / xi - b * dxi
            deta = (eta * (u @ du) - rc_e) / h
            return du, dxi, dg, dbeta, dnu, deta

        def step(du, dxi, dg, dbeta, dnu, deta):
            primal_step = min(_max_step(g, dg), _max_step(xi, dxi), _ball_step(u, du))
            dual_step = min(_max_step(beta, dbeta), _max_step(nu, dnu),
                            -eta / deta if deta < 0 else np.inf)
            return min(primal_step, dual_step)

        # Predictor (affine-scaling) direction.
        aff = newton(beta * g, nu * xi, eta * h)
        du, dxi, dg, dbeta, dnu, deta = aff
        alpha = min(1.0, step(*aff))
        dh = -(u @ du)
        mu_aff = ((g + alpha * dg) @ (beta + alpha * dbeta)
                  + (xi + alpha * dxi) @ (nu + alpha * dnu)
                  + (h + alpha * dh) * (eta + alpha * deta)) / m
        sigma = min(1.0, (max(mu_aff, 0.0) / mu) ** 3)
        # Corrector with centring.
        smu = sigma * mu
        cor = newton(beta * g + dg * dbeta - smu, nu * xi + dxi * dnu - smu,
                     eta * h + dh * deta - smu)
        alpha = min(1.0, _FRACTION * step(*cor))
        du, dxi, dg, dbeta, dnu, deta = cor
        u = u + alpha * du
        xi = xi + alpha * dxi
        beta = beta + alpha * dbeta
        nu = nu + alpha * dnu
        eta = eta + alpha * deta
    return best_u, best_b, it
