r"""Primal-dual interior-point solver for the hinge loss over a Euclidean ball.

Solves, for a matrix :math:`G \in \mathbb{R}^{T \times r}` whose rows already
carry the labels and the radius (:math:`g_t = U y_t \phi_t`),

.. math::

    \min_{\|u\| \le 1} \sum_t \max(0, 1 - g_t^\top u)
    = \max_{\beta \in [0,1]^T} \mathbf 1^\top \beta - \|G^\top \beta\| .

The primal is the smooth convex program :math:`\min \mathbf 1^\top \xi`
subject to :math:`\xi + G u - 1 \ge 0` (multiplier :math:`\beta`),
:math:`\xi \ge 0` (:math:`\nu`) and :math:`h = (1 - \|u\|^2)/2 \ge 0`
(:math:`\eta`).  It is solved by Mehrotra's predictor-corrector primal-dual
method from the strictly feasible point :math:`u = 0, \xi = 2`, with three
safeguards that matter for the (nonlinear) ball constraint:

* :math:`\eta_0 = \max(1, \|G^\top\beta_0\|)`, so the first steps do not
  crush :math:`u` onto the sphere;
* the corrector of the pair :math:`(\eta, h)` includes the curvature
  :math:`-\|\Delta u\|^2/2` of :math:`h` along the predictor direction;
* steps stay in the wide neighbourhood
  :math:`\min_i s_i z_i \ge 10^{-3} \cdot \mathrm{mean}_i\, s_i z_i`
  (backtracking), and :math:`u` stays strictly inside the ball.

Each iteration forms and factors one :math:`r \times r` matrix
:math:`G^\top D G + \eta I + (\eta / h) u u^\top` (BLAS ``syrk``, Cholesky),
i.e. costs :math:`O(T r^2 + r^3)`.  The stopping test is a certificate
independent of the iteration's internals: the hinge loss at the current
feasible :math:`u` minus the dual value at :math:`\mathrm{clip}(\beta, 0, 1)`.
"""
import numpy as np
from scipy import linalg
from scipy.linalg import blas

_FRACTION = 0.99  # fraction-to-the-boundary factor
_GAMMA = 1e-3  # wide-neighbourhood parameter


def _max_step(x, dx):
    """Largest alpha with x + alpha * dx >= 0 (inf if dx >= 0), for x > 0."""
    neg = dx < 0
    return float(np.min(-x[neg] / dx[neg])) if np.any(neg) else np.inf


def _ball_step(u, du):
    """Largest alpha with ||u + alpha * du|| <= 1, for ||u|| < 1."""
    a = du @ du
    if a == 0.0:
        return np.inf
    b = u @ du
    return float((-b + np.sqrt(b * b + a * (1.0 - u @ u))) / a)


def solve_hinge_ball(G, tol=1e-8, max_iter=200):
    """Minimize ``sum(max(0, 1 - G @ u))`` over ``||u|| <= 1``.

    Parameters
    ----------
    G : ndarray, shape (T, r)
        Rows ``U * y_t * phi_t``.
    tol : float
        Stop when ``primal - dual <= tol * max(1, primal)``.
    max_iter : int
        Cap on Newton steps.

    Returns
    -------
    u : ndarray, shape (r,)
        Best primal point seen (``||u|| < 1``).
    beta : ndarray, shape (T,)
        Best dual point seen, in ``[0, 1]^T``.
    steps : int
        Newton steps taken.
    """
    G = np.asfortranarray(G, dtype=float)
    T, r = G.shape
    u, xi = np.zeros(r), np.full(T, 2.0)
    beta, nu = np.full(T, 0.5), np.full(T, 0.5)
    eta = max(1.0, float(np.linalg.norm(G.T @ beta)))
    best_p, best_u, best_d, best_b = np.inf, u, -np.inf, np.zeros(T)
    m = 2 * T + 1
    steps = 0
    while True:
        Gu = G @ u
        primal = float(np.sum(np.maximum(0.0, 1.0 - Gu)))
        b_clip = np.clip(beta, 0.0, 1.0)
        dual = float(np.sum(b_clip) - np.linalg.norm(G.T @ b_clip))
        if primal < best_p:
            best_p, best_u = primal, u
        if dual > best_d:
            best_d, best_b = dual, b_clip
        if best_p - best_d <= tol * max(1.0, best_p) or steps >= max_iter:
            break

        g = xi + Gu - 1.0
        h = 0.5 * (1.0 - u @ u)
        if not (h > 0 and np.all(g > 0) and np.all(xi > 0)):  # round-off reached the boundary
            break
        mu = (beta @ g + nu @ xi + eta * h) / m
        r_dw = eta * u - G.T @ beta
        r_dxi = 1.0 - beta - nu
        a, b = beta / g, nu / xi
        ab = a + b
        # Lower triangle of G^T D G + eta I + (eta / h) u u^T.
        M = blas.dsyrk(1.0, G * np.sqrt(a * b / ab)[:, None], trans=1, lower=1)
        M[np.diag_indices_from(M)] += eta
        M = blas.dsyr(eta / h, u, a=M, lower=1, overwrite_a=1)
        try:
            cho = linalg.cho_factor(M, lower=True, check_finite=False)
        except linalg.LinAlgError:  # numerically singular: keep the best certificate
            break

        def newton(rc_b, rc_n, rc_e):
            # Linearized KKT system with complementarity residuals rc_*.
            q = -r_dxi - rc_b / g - rc_n / xi
            rhs = -r_dw - G.T @ (rc_b / g + a * q / ab) + u * (rc_e / h)
            du = linalg.cho_solve(cho, rhs, check_finite=False)
            Gdu = G @ du
            dxi = (q - a * Gdu) / ab
            dg = dxi + Gdu
            return (du, dxi, dg, -rc_b / g - a * dg, -rc_n / xi - b * dxi,
                    (eta * (u @ du) - rc_e) / h)

        def max_alpha(du, dxi, dg, dbeta, dnu, deta):
            return min(_max_step(g, dg), _max_step(xi, dxi), _ball_step(u, du),
                       _max_step(beta, dbeta), _max_step(nu, dnu),
                       -eta / deta if deta < 0 else np.inf)

        # Predictor (affine scaling), then corrector with centring.
        du, dxi, dg, dbeta, dnu, deta = newton(beta * g, nu * xi, eta * h)
        alpha = min(1.0, max_alpha(du, dxi, dg, dbeta, dnu, deta))
        dh = -(u @ du)
        mu_aff = ((g + alpha * dg) @ (beta + alpha * dbeta)
                  + (xi + alpha * dxi) @ (nu + alpha * dnu)
                  + (h + alpha * dh) * (eta + alpha * deta)) / m
        smu = min(1.0, (max(mu_aff, 0.0) / mu) ** 3) * mu
        direction = newton(beta * g + dg * dbeta - smu, nu * xi + dxi * dnu - smu,
                           eta * h + dh * deta - 0.5 * eta * (du @ du) - smu)
        du, dxi, dg, dbeta, dnu, deta = direction
        alpha = min(1.0, _FRACTION * max_alpha(*direction))
        while alpha > 1e-10:
            un = u + alpha * du
            prod = np.concatenate(((g + alpha * dg) * (beta + alpha * dbeta),
                                   (xi + alpha * dxi) * (nu + alpha * dnu),
                                   [0.5 * (1.0 - un @ un) * (eta + alpha * deta)]))
            if prod.min() >= _GAMMA * prod.mean():
                break
            alpha *= 0.8
        u, xi = u + alpha * du, xi + alpha * dxi
        beta, nu, eta = beta + alpha * dbeta, nu + alpha * dnu, eta + alpha * deta
        steps += 1
    return (*_polish(G, best_u, best_b), steps)


def _polish(G, u, beta, delta=1e-6):
    """Improve the certificate with the KKT maps between primal and dual points.

    Dual: beta_t = 1 where the margin of ``u`` is < 1 - delta, 0 where > 1 + delta.
    Primal: ``u = G^T beta / ||G^T beta||`` (the optimal direction when the ball is active).
    Each candidate replaces the input only if it improves the bound it certifies.
    """
    def primal(v):
        return np.sum(np.maximum(0.0, 1.0 - G @ v))

    def dual(b):
        return np.sum(b) - np.linalg.norm(G.T @ b)

    m = G @ u
    b = np.where(m < 1 - delta, 1.0, np.where(m > 1 + delta, 0.0, beta))
    if dual(b) > dual(beta):
        beta = b
    v = G.T @ beta
    nv = np.linalg.norm(v)
    if nv > 0:
        v = v / (nv * (1 + 4 * np.finfo(float).eps))
        if primal(v) < primal(u):
            u = v
    return u, beta
