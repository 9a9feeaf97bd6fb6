r"""Mistake and loss bounds of okl's native multiclass kernel learners (issue 26).

Sources (the derivations and every convention are in ``notes/multiclass_algorithms.md``):

* **[CS03]** K. Crammer & Y. Singer, *Ultraconservative online algorithms for multiclass
  problems*, JMLR 3 (2003) 951-991: the additive ultraconservative family (their Fig. 2:
  max-score, uniform and proportional steps), Theorem 1 (separable) and Theorem 2
  (non-separable).
* **[PA06]** K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz & Y. Singer, *Online
  passive-aggressive algorithms*, JMLR 7 (2006) 551-585: Lemma 1 and Theorems 2-5 of the
  binary analysis, which the multiclass section carries over with the update vector
  :math:`\Phi(x_t, y_t) - \Phi(x_t, s_t)` in place of :math:`y_t x_t`; one prototype per
  class makes :math:`\|\Phi(x, y) - \Phi(x, s)\|^2 = 2k(x, x)`.
* **[KSW04]** J. Kivinen, A. J. Smola & R. C. Williamson, *Online learning with kernels*,
  IEEE TSP 52(8) (2004) and **[Z03]** M. Zinkevich, *Online convex programming and
  generalized infinitesimal gradient ascent*, ICML 2003, Theorem 1: online gradient descent
  at a constant step, carried to the multiclass hinge loss through Kesler's construction
  (:func:`multiclass_ogd_regret_bound`; LIBOKL's multiclass OGD, BOGD's, NOGD's and FOGD's
  update).
* **[OKC09]** F. Orabona, J. Keshet & B. Caputo, *Bounded kernel-based online learning*,
  JMLR 10 (2009) 2643-2666 (ICML 2008: *The Projectron*): the Projectron and Projectron++
  mistake bounds and the bounded support set, with the multiclass extension (update vector
  :math:`\Phi(x_t, y_t) - \Phi(x_t, s_t)` projected onto the span of the support set).

**About the statements.**  The papers' full texts were not reachable from this machine (only
their abstracts, and the code of LIBOL and DOGMA).  Each docstring states the theorem as
recalled *and* gives the proof's inequality chain, which was redone here; every constant
below follows from that chain, and ``tests/theory/test_multiclass_theory.py`` checks each
bound on oracle runs.  Theorem numbers of [CS03] and [PA06] are those of the JMLR versions as
recalled; the [OKC09] numbering is not asserted.

Notation (K classes, a Mercer kernel :math:`k`, a stream :math:`(x_t, y_t)_{t \le T}`):

* :math:`\kappa = \max_t k(x_t, x_t)` (``kappa_max``); [CS03]'s :math:`R = \sqrt{\kappa}`.
* A comparator :math:`U = (u_0, .., u_{K-1})` in :math:`\mathcal H^K`, with the norm
  :math:`\|U\|^2 = \sum_r \|u_r\|^2` ([CS03]'s matrix norm, [PA06]'s :math:`\|u\|` of the
  stacked prototypes), margins :math:`m_t(U) = u_{y_t}(x_t) - \max_{r \ne y_t} u_r(x_t)` and
  multiclass hinge losses :math:`\ell_t(U) = \max(0, 1 - m_t(U))`.
* The learner's margin :math:`m_t = f_{y_t}(x_t) - \max_{r \ne y_t} f_r(x_t)` before
  round t's update; an *error round* is :math:`m_t \le 0` (every mistake
  :math:`\hat y_t \ne y_t` is one, whatever the tie-breaking).

Every bound holds for every comparator; :func:`multiclass_comparator` finds a good one on
the stream (any comparator it returns is exactly evaluated, so suboptimality only loosens a
bound, never invalidates it), and :func:`best_over_comparators` takes the smallest bound over
a family of them (a minimum of valid bounds is valid).

Depends only on numpy and scipy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize

from . import _validation as v

__all__ = [
    "MulticlassComparator",
    "SupportBound",
    "best_over_comparators",
    "crammer_singer_comparator_bound",
    "crammer_singer_deficit",
    "crammer_singer_hinge_form",
    "crammer_singer_mistake_bound",
    "crammer_singer_nonseparable_bound",
    "multiclass_comparator",
    "multiclass_hinge",
    "multiclass_margins",
    "multiclass_ogd_path",
    "multiclass_ogd_regret_bound",
    "pa1_mistake_bound",
    "pa2_loss_bound",
    "pa_loss_bound",
    "pa_multiclass_bound",
    "pa_realizable_bound",
    "projectron_mistake_bound",
    "projectron_support_bound",
    "projectronpp_mistake_bound",
    "support_cover_bound",
    "support_determinant_bound",
    "ultraconservative_hinge_bound",
]

_positive = v.positive
_nonnegative = v.nonnegative

#: Relative slack of the check ``eta ||g|| <= 1`` (round-off of a comparator's norm).
NORM_RTOL = 1e-9


# -- margins, hinge losses -----------------------------------------------------------------

def _scores_labels(scores, y):
    F = np.asarray(scores, dtype=float)
    if F.ndim != 2 or F.shape[1] < 2:
        raise ValueError(f"scores must be a (T, K) array with K >= 2, got shape {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError("scores contains NaN or inf")
    y = np.asarray(y)
    if y.shape != (F.shape[0],):
        raise ValueError(f"y must have shape ({F.shape[0]},), got {y.shape}")
    yi = y.astype(np.int64)
    if not np.array_equal(yi, y) or yi.min() < 0 or yi.max() >= F.shape[1]:
        raise ValueError(f"y must hold class indices in 0..{F.shape[1] - 1}")
    return F, yi


def multiclass_margins(scores, y):
    r""":math:`m_t = F_{t, y_t} - \max_{r \ne y_t} F_{t, r}` for a ``(T, K)`` score array."""
    F, y = _scores_labels(scores, y)
    T = F.shape[0]
    G = F.copy()
    G[np.arange(T), y] = -np.inf
    return F[np.arange(T), y] - G.max(axis=1)


def multiclass_hinge(scores, y):
    r""":math:`\ell_t = \max(0, 1 - m_t)` ([CS03]'s and [PA06]'s multiclass hinge loss)."""
    return np.maximum(0.0, 1.0 - multiclass_margins(scores, y))


# -- the comparator ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class MulticlassComparator:
    r"""A comparator :math:`U = (u_r)_r`, :math:`u_r = \sum_j B_{j r} k(x_j, \cdot)`.

    Attributes
    ----------
    coef : (T, K)    ``B``.
    scores : (T, K)  :math:`u_r(x_t) = (K_{\rm gram} B)_{t r}`.
    norm : float     :math:`\|U\| = \sqrt{\mathrm{tr}(B^\top K_{\rm gram} B)}`.
    margins : (T,)   :math:`m_t(U)`.
    hinge : (T,)     :math:`\ell_t(U)`.
    C : float        the weight it was fitted with.
    """

    coef: np.ndarray
    scores: np.ndarray
    norm: float
    margins: np.ndarray
    hinge: np.ndarray
    C: float

    @property
    def loss(self) -> float:
        r""":math:`\sum_t \ell_t(U)`."""
        return float(self.hinge.sum())

    @property
    def sq_loss(self) -> float:
        r""":math:`\sum_t \ell_t(U)^2`."""
        return float(np.sum(self.hinge ** 2))

    @property
    def gamma(self) -> float:
        r"""Normalized margin :math:`\min_t m_t(U) / \|U\|` ([CS03]'s :math:`\gamma` of
        :math:`U/\|U\|`; positive iff :math:`U` separates the stream)."""
        return float(self.margins.min() / self.norm) if self.norm > 0 else -math.inf


def multiclass_comparator(gram, y, n_classes=None, *, C=1.0, rank_rtol=1e-10,
                          max_iter=3000):
    r"""A comparator fitted on the stream: the minimizer of

    .. math::

        \tfrac12\|U\|^2 + C \sum_t \sum_{r \ne y_t} \max(0, 1 - u_{y_t}(x_t) + u_r(x_t))^2

    (a smooth, strongly convex surrogate of the multiclass SVM of Crammer & Singer), over
    :math:`U` in the span of the stream: with :math:`K_{\rm gram} = V\Lambda V^\top`
    (eigenvalues above ``rank_rtol * max``), :math:`U` has the coordinates
    :math:`W \in \mathbb R^{r \times K}` in the features :math:`V\Lambda^{1/2}`, solved by
    L-BFGS.  Large ``C`` approaches the hard-margin comparator (largest :math:`\gamma`).

    The returned margins, hinge losses and norm are those of the returned :math:`U`
    (exact), so every bound evaluated with it is valid.
    """
    K = v.kernel_matrix(gram, "gram")
    T = K.shape[0]
    y = np.asarray(y)
    yi = y.astype(np.int64)
    if y.shape != (T,) or not np.array_equal(yi, y) or yi.min() < 0:
        raise ValueError(f"y must hold {T} class indices >= 0")
    n = int(yi.max()) + 1 if n_classes is None else int(n_classes)
    if n < 2 or yi.max() >= n:
        raise ValueError(f"n_classes must be >= 2 and exceed every label, got {n}")
    C = _positive(C, "C")
    lam, V = linalg.eigh(K)
    keep = lam > rank_rtol * max(lam.max(), 0.0)
    if not np.any(keep):
        raise ValueError("gram has no positive eigenvalue")
    lam, V = lam[keep], V[:, keep]
    Phi = V * np.sqrt(lam)
    r = Phi.shape[1]
    rows = np.arange(T)
    other = np.ones((T, n), dtype=bool)
    other[rows, yi] = False

    def fun(w):
        W = w.reshape(r, n)
        F = Phi @ W
        h = np.maximum(0.0, 1.0 - F[rows, yi][:, None] + F) * other
        gF = 2.0 * C * h
        gF[rows, yi] = -gF.sum(axis=1)
        return 0.5 * float(w @ w) + C * float(np.sum(h * h)), (W + Phi.T @ gF).ravel()

    res = optimize.minimize(fun, np.zeros(r * n), jac=True, method="L-BFGS-B",
                            options=dict(maxiter=max_iter, maxcor=30, gtol=1e-9,
                                         ftol=1e-13))
    W = res.x.reshape(r, n)
    F = Phi @ W
    B = (V / np.sqrt(lam)) @ W
    m = multiclass_margins(F, yi)
    return MulticlassComparator(coef=B, scores=F, norm=float(np.linalg.norm(W)),
                                margins=m, hinge=np.maximum(0.0, 1.0 - m), C=C)


def best_over_comparators(bound, gram, y, n_classes=None, Cs=None, **solver):
    r"""``min_C bound(multiclass_comparator(gram, y, C=C))`` over ``Cs``.

    Each comparator gives a valid bound, so their minimum is valid.  ``bound`` maps a
    :class:`MulticlassComparator` to a float (``inf`` where the theorem's conditions
    fail).  Returns ``(value, comparator)``.
    """
    Cs = np.logspace(-2, 4, 13) if Cs is None else Cs
    best, arg = math.inf, None
    for C in Cs:
        comp = multiclass_comparator(gram, y, n_classes, C=float(C), **solver)
        val = bound(comp)
        if val < best:
            best, arg = val, comp
    return best, arg


# -- Crammer & Singer (2003) --------------------------------------------------------------------

def crammer_singer_mistake_bound(R, gamma):
    r"""[CS03] Theorem 1 (separable case), as recalled:

        *Let* :math:`(x^1, y^1), .., (x^T, y^T)` *be an input sequence for any multiclass
        algorithm from the family of Fig. 2, with* :math:`R = \max_t \|x^t\|`.  *Assume there
        is a matrix* :math:`M^*` *of unit norm,* :math:`\|M^*\| = 1`, *that classifies the
        sequence with margin* :math:`\gamma = \min_t \{M^*_{y^t}\cdot x^t - \max_{r \ne y^t}
        M^*_r\cdot x^t\} > 0`.  *Then the number of mistakes the algorithm makes is at most*
        :math:`2R^2/\gamma^2`.

    Kernelized: :math:`R^2 = \max_t k(x_t, x_t)`, :math:`M^* \in \mathcal H^K`.  The proof
    bounds the number of *update* rounds (:math:`E^t \ne \emptyset`, ties counted), a
    superset of the mistakes: :math:`\langle M^*, M^{t+1} - M^t\rangle = \sum_r \tau_r
    M^*_r\cdot x \ge \gamma` (as :math:`\tau_y = 1`, :math:`\sum_{r \in E}|\tau_r| = 1`),
    :math:`\|M^{t+1}\|^2 - \|M^t\|^2 = 2\sum_r\tau_r M_r\cdot x + \|\tau\|^2\|x\|^2 \le 2R^2`
    (:math:`M_r\cdot x \ge M_y\cdot x` on :math:`E`; :math:`\|\tau\|^2 \le 1 + \sum_E\tau_r^2
    \le 2`), then Cauchy-Schwarz: :math:`M\gamma \le \sqrt{2R^2M}`.
    """
    R = _positive(R, "R")
    gamma = _positive(gamma, "gamma")
    return 2.0 * R * R / (gamma * gamma)


def crammer_singer_deficit(margins, gamma):
    r"""[CS03]'s :math:`D = \sqrt{\sum_t (d^t)^2}`, :math:`d^t = \max(0, \gamma - m_t)`, for
    the margins :math:`m_t` of a *unit-norm* comparator (divide by its norm first)."""
    m = np.asarray(margins, dtype=float)
    gamma = _positive(gamma, "gamma")
    return float(np.sqrt(np.sum(np.maximum(0.0, gamma - m) ** 2)))


def crammer_singer_nonseparable_bound(R, gamma, D):
    r"""[CS03] Theorem 2 (non-separable case), as recalled:

        *Let* :math:`M^*` *be any matrix of norm 1, fix* :math:`\gamma > 0`, *let*
        :math:`d^t = \max\{0, \gamma - (M^*_{y^t}\cdot x^t - \max_{r \ne y^t} M^*_r\cdot
        x^t)\}` *and* :math:`D = \sqrt{\sum_t (d^t)^2}`.  *Then the number of mistakes of any
        algorithm of the family is at most* :math:`2(R + D)^2/\gamma^2`.

    (Freund & Schapire's reduction: append :math:`\Delta e_t` to :math:`x^t` and
    :math:`d^t/\Delta` to row :math:`y^t` of :math:`M^*`, renormalize, apply Theorem 1 and
    take :math:`\Delta^2 = RD`.)  At :math:`D = 0` it is Theorem 1.
    """
    R = _positive(R, "R")
    gamma = _positive(gamma, "gamma")
    D = _nonnegative(D, "D")
    return 2.0 * (R + D) ** 2 / (gamma * gamma)


def crammer_singer_hinge_form(kappa_max, U_norm, sq_hinge_sum):
    r"""[CS03] Theorem 2 at :math:`\gamma = 1/\|U\|` for an unnormalized comparator
    :math:`U`: with :math:`M^* = U/\|U\|`, :math:`d^t = \ell_t(U)/\|U\|` and so

    .. math::

        \text{mistakes} \le 2\big(R\|U\| + \sqrt{\textstyle\sum_t \ell_t(U)^2}\big)^2,
        \qquad R^2 = \kappa.

    At :math:`K = 2`, :math:`U = (-w, w)/2` (:math:`m_t(U) = y_tw(x_t)`,
    :math:`\|U\|^2 = \|w\|^2/2`) gives :math:`(R\|w\| + \sqrt2\sqrt{\sum_t\ell_t^2})^2`:
    the binary Perceptron's :math:`R^2\|w\|^2` when separable, a factor
    :math:`\sqrt2` on the deficit otherwise (Freund & Schapire's binary bound has 1).
    """
    R = math.sqrt(_positive(kappa_max, "kappa_max"))
    U = _nonnegative(U_norm, "U_norm")
    L2 = _nonnegative(sq_hinge_sum, "sq_hinge_sum")
    return 2.0 * (R * U + math.sqrt(L2)) ** 2


def crammer_singer_comparator_bound(kappa_max, margins, U_norm):
    r"""The best [CS03] bound a comparator gives: :math:`\min_{\gamma > 0}
    2(R + D(\gamma))^2/\gamma^2` (Theorem 2; Theorem 1 where :math:`D = 0`) for
    :math:`M^* = U/\|U\|`, with :math:`R^2 = \kappa` and the margins :math:`m_t(U)`.

    The minimum is searched on the kinks :math:`\gamma = m_t/\|U\|` and a geometric grid,
    then refined (bounded scalar search): every evaluated :math:`\gamma` gives a valid
    bound, so the search's precision only affects tightness.
    """
    R = math.sqrt(_positive(kappa_max, "kappa_max"))
    U = _positive(U_norm, "U_norm")
    mt = np.asarray(margins, dtype=float) / U

    def f(g):
        D = np.sqrt(np.sum(np.maximum(0.0, g - mt) ** 2))
        return 2.0 * (R + D) ** 2 / (g * g)

    hi = max(float(mt.max()), 1e-12) * 4.0
    cands = np.concatenate([mt[mt > 0], np.geomspace(hi * 1e-6, hi, 400)])
    vals = np.array([f(g) for g in cands])
    i = int(np.argmin(vals))
    g0 = cands[i]
    lo_b, hi_b = g0 / 1.5, g0 * 1.5
    res = optimize.minimize_scalar(f, bounds=(lo_b, hi_b), method="bounded",
                                   options=dict(xatol=1e-12 * g0))
    return float(min(vals[i], res.fun))


def ultraconservative_hinge_bound(kappa_max, U_norm, L):
    r"""A hinge-loss mistake bound for the whole additive ultraconservative family (not a
    theorem of [CS03]; the Projectron bound of :func:`projectron_mistake_bound` at
    :math:`\eta = 0`): for any comparator :math:`U`,

    .. math::

        |M| \le \Big(\frac{\|U\|R + \sqrt{\|U\|^2R^2 + 4L}}{2}\Big)^2,\qquad
        R^2 = 2\kappa,\ L = \sum_{t \in M}\ell_t(U),

    :math:`M` the update rounds (:math:`E_t \ne \emptyset`).  Chain: for any step of the
    family, :math:`\langle U, \Delta F\rangle = u_y(x) - \sum_{r \in E}|\tau_r|u_r(x) \ge
    m_t(U) \ge 1 - \ell_t(U)` and :math:`\|F\|^2` grows by at most :math:`\|\tau\|^2\kappa
    \le 2\kappa`; then Cauchy-Schwarz and the quadratic in :math:`\sqrt{|M|}`.  At
    :math:`K = 2` with :math:`U = (-w, w)/2` it is the binary kernel Perceptron's
    :math:`((R_b\|w\| + \sqrt{R_b^2\|w\|^2 + 4L})/2)^2`, :math:`R_b^2 = \kappa`.  It sums
    :math:`\ell_t(U)` (not its square) over the update rounds only, and is usually much
    smaller than Theorem 2's.
    """
    return projectron_mistake_bound(kappa_max, U_norm, 0.0, L)


# -- Passive-Aggressive, multiclass (2006) -------------------------------------------------------

def pa_realizable_bound(kappa_max, U_norm):
    r"""[PA06] Theorem 2 in the multiclass section: if a comparator :math:`U` attains
    :math:`\ell_t(U) = 0` on every round, multiclass PA suffers

    .. math::  \sum_t \ell_t^2 \le \|U\|^2 R^2,\qquad
               R^2 = \max_t\|\Phi(x_t, y_t) - \Phi(x_t, s_t)\|^2 = 2\kappa.

    The binary statement (*"Let* :math:`(x_1, y_1), .., (x_T, y_T)` *be a sequence of
    examples with* :math:`\|x_t\| \le R`.  *Assume there exists* :math:`u` *with*
    :math:`\ell_t^* = 0` *for all t.  Then the cumulative squared loss of PA is bounded by*
    :math:`\sum_t \ell_t^2 \le \|u\|^2R^2`") holds verbatim with the update vector
    :math:`\Phi(x_t, y_t) - \Phi(x_t, s_t)` of norm :math:`\sqrt{2k(x_t,x_t)}`.  Every
    error round has :math:`\ell_t \ge 1`, so this also bounds the mistakes.
    """
    kappa = _positive(kappa_max, "kappa_max")
    U = _nonnegative(U_norm, "U_norm")
    return 2.0 * kappa * U * U


def pa_loss_bound(kappa_max, U_norm, sq_loss_sum, kappa_min=None):
    r"""[PA06] Theorem 3 in the multiclass section: for any comparator :math:`U`,

    .. math::  \sum_t \ell_t^2 \le \Big(\rho\,\|U\| + 2\sqrt{\textstyle\sum_t
               \ell_t(U)^2}\Big)^2,\qquad \rho^2 = 2\kappa,

    under the theorem's condition that :math:`\|\Phi(x_t, y_t) - \Phi(x_t, s_t)\|^2 =
    2k(x_t, x_t)` is the same on every round (binary: :math:`\|x_t\| = 1`; here e.g. a
    Gaussian kernel).  From Lemma 1, :math:`\sum_t \tau_t(2\ell_t - \tau_t\rho^2 -
    2\ell_t(U)) \le \|U\|^2`, with :math:`\tau_t = \ell_t/\rho^2`.

    With ``kappa_min < kappa_max`` (norms varying in :math:`[\rho_-^2, \rho_+^2]`, this
    module's extension, same chain): :math:`\sum_t\ell_t^2 \le (\rho_+\|U\| +
    2q\sqrt{\sum_t\ell_t(U)^2})^2`, :math:`q = \rho_+^2/\rho_-^2`.
    """
    kappa = _positive(kappa_max, "kappa_max")
    kmin = kappa if kappa_min is None else _positive(kappa_min, "kappa_min")
    if kmin > kappa * (1 + 1e-12):
        raise ValueError(f"kappa_min must be <= kappa_max, got {kmin!r} > {kappa!r}")
    U = _nonnegative(U_norm, "U_norm")
    L2 = _nonnegative(sq_loss_sum, "sq_loss_sum")
    q = kappa / kmin
    return (math.sqrt(2.0 * kappa) * U + 2.0 * q * math.sqrt(L2)) ** 2


def pa1_mistake_bound(kappa_max, U_norm, loss_sum, C):
    r"""[PA06] Theorem 4 in the multiclass section (PA-I): for any comparator :math:`U`,

    .. math::  \#\{t : m_t \le 0\} \le \max\{R^2, 1/C\}\,\Big(\|U\|^2 + 2C\sum_t
               \ell_t(U)\Big),\qquad R^2 = 2\kappa.

    Binary statement: *"...with* :math:`\|x_t\| \le R` *for all t.  Then, for any vector*
    :math:`u`, *the number of prediction mistakes made by PA-I on this sequence is bounded
    from above by* :math:`\max\{R^2, 1/C\}(\|u\|^2 + 2C\sum_t\ell_t^*)`".  Chain: Lemma 1,
    :math:`\tau_t \le C`, :math:`\tau_t \le \ell_t/\rho_t^2` and, on an error round
    (:math:`\ell_t \ge 1`), :math:`\tau_t\ell_t \ge \min\{1/R^2, C\}`.  Ties count.
    """
    kappa = _positive(kappa_max, "kappa_max")
    U = _nonnegative(U_norm, "U_norm")
    L = _nonnegative(loss_sum, "loss_sum")
    C = _positive(C, "C")
    return max(2.0 * kappa, 1.0 / C) * (U * U + 2.0 * C * L)


def pa2_loss_bound(kappa_max, U_norm, sq_loss_sum, C):
    r"""[PA06] Theorem 5 in the multiclass section (PA-II): for any comparator :math:`U`,

    .. math::  \sum_t \ell_t^2 \le \Big(R^2 + \frac{1}{2C}\Big)\Big(\|U\|^2 + 2C\sum_t
               \ell_t(U)^2\Big),\qquad R^2 = 2\kappa.

    Binary statement: *"...the cumulative squared loss of PA-II on this sequence of
    examples is bounded by* :math:`\sum_t\ell_t^2 \le (R^2 + \frac1{2C})(\|u\|^2 +
    2C\sum_t(\ell_t^*)^2)`".  Also bounds the number of error rounds (:math:`\ell_t \ge 1`).
    """
    kappa = _positive(kappa_max, "kappa_max")
    U = _nonnegative(U_norm, "U_norm")
    L2 = _nonnegative(sq_loss_sum, "sq_loss_sum")
    C = _positive(C, "C")
    return (2.0 * kappa + 1.0 / (2.0 * C)) * (U * U + 2.0 * C * L2)


def pa_multiclass_bound(variant, kappa_max, U_norm, *, loss_sum=None, sq_loss_sum=None,
                        C=None, kappa_min=None):
    r"""The [PA06] multiclass bound of a variant, and what it bounds.

    ``loss_sum`` and ``sq_loss_sum`` are the *comparator's* :math:`\sum_t \ell_t(U)` and
    :math:`\sum_t \ell_t(U)^2` (e.g. ``MulticlassComparator.loss`` / ``.sq_loss``); the
    measured side is the learner's :math:`\sum_t \ell_t^2` (its hinge losses before each
    update) or its number of error rounds.

    * ``"pa"``: :func:`pa_loss_bound` (needs ``sq_loss_sum``), or :func:`pa_realizable_bound`
      when ``sq_loss_sum == 0``; bounds :math:`\sum_t \ell_t^2`;
    * ``"pa1"``: :func:`pa1_mistake_bound` (needs ``loss_sum``, ``C``); bounds the error
      rounds;
    * ``"pa2"``: :func:`pa2_loss_bound` (needs ``sq_loss_sum``, ``C``); bounds
      :math:`\sum_t \ell_t^2`.

    Returns ``(value, quantity)`` with ``quantity`` in ``{"sum_sq_loss", "errors"}``.
    """
    if variant == "pa":
        if sq_loss_sum is None:
            raise ValueError("pa needs sq_loss_sum")
        if sq_loss_sum == 0:
            return pa_realizable_bound(kappa_max, U_norm), "sum_sq_loss"
        return pa_loss_bound(kappa_max, U_norm, sq_loss_sum, kappa_min), "sum_sq_loss"
    if variant == "pa1":
        if loss_sum is None or C is None:
            raise ValueError("pa1 needs loss_sum and C")
        return pa1_mistake_bound(kappa_max, U_norm, loss_sum, C), "errors"
    if variant == "pa2":
        if sq_loss_sum is None or C is None:
            raise ValueError("pa2 needs sq_loss_sum and C")
        return pa2_loss_bound(kappa_max, U_norm, sq_loss_sum, C), "sum_sq_loss"
    raise ValueError(f"variant must be 'pa', 'pa1' or 'pa2', got {variant!r}")


# -- Online gradient descent on the multiclass hinge loss (Kesler) ---------------------------------

def multiclass_ogd_regret_bound(dist2, eta, sum_grad2):
    r"""Regret of online gradient descent at a constant step on the multiclass hinge loss:
    for every comparator :math:`U`,

    .. math::

        \sum_{t \le \tau} \big(c_t(F_t) - c_t(U)\big) \le \frac{\|F_1 - U\|^2}{2\eta}
        + \frac{\eta}{2}\sum_{t \le \tau}\|g_t\|^2 \qquad (\text{every prefix } \tau),

    ``dist2`` :math:`= \|F_1 - U\|^2` (:math:`\|U\|^2` from :math:`F_1 = 0`) and
    ``sum_grad2`` :math:`= \sum_t \|g_t\|^2` of the subgradients the learner stepped along
    (:func:`multiclass_ogd_path`).  This is [Z03] Theorem 1 without the projection (and
    [KSW04]'s NORMA analysis with :math:`c_t = \ell_t + \tfrac\lambda2\|F\|^2`):
    :math:`\|F_{t+1} - U\|^2 = \|F_t - U\|^2 - 2\eta\langle g_t, F_t - U\rangle +
    \eta^2\|g_t\|^2` and convexity :math:`c_t(F_t) - c_t(U) \le \langle g_t, F_t - U
    \rangle`; sum and drop :math:`\|F_{\tau+1} - U\|^2 \ge 0`.

    Why it carries over to the multiclass learners (Kesler's construction).  With one
    function per class, :math:`F = (f_r)_r \in \mathcal H^K` and the Kesler vector
    :math:`v_t = \phi(x_t) \otimes (e_{y_t} - e_{s_t})`, :math:`\langle F, v_t\rangle =
    f_{y_t}(x_t) - f_{s_t}(x_t)` and :math:`\|v_t\|^2 = 2k(x_t, x_t)`.  When
    :math:`s_t` is a best wrong class, :math:`\ell_t(F) = \max(0, 1 - \min_{r \ne y_t}
    (f_{y_t} - f_r)(x_t))` is convex in :math:`F` with subgradient :math:`-v_t` where
    :math:`\ell_t(F_t) > 0` (and 0 where it is 0): the max-score step ":math:`+\eta` on
    :math:`y_t`, :math:`-\eta` on :math:`s_t` when :math:`\ell_t > 0`" of LIBOKL's
    ``ogd.m`` (and of ``BOGD.m``, ``NyGD.m``, ``FouGD.m`` in their feature spaces, where
    :math:`\phi = z` and :math:`\|v_t\|^2 = 2\|z(x_t)\|^2`) is exactly
    :math:`F_{t+1} = F_t - \eta g_t`.  The bound holds on every run, for every :math:`U`,
    deterministically.
    """
    d2 = _nonnegative(dist2, "dist2")
    eta = _positive(eta, "eta")
    g2 = _nonnegative(sum_grad2, "sum_grad2")
    return d2 / (2.0 * eta) + 0.5 * eta * g2


def multiclass_ogd_path(sq_norms, margins, update, eta, lam=0.0):
    r"""The squared norms :math:`N_t = \|F_t\|^2` and :math:`\|g_t\|^2` along a run of
    multiclass kernel OGD (:math:`F_1 = 0`): every round
    :math:`F_{t+1} = (1 - \eta\lambda)F_t + \eta v_t[\text{update}_t]`, i.e. gradient
    descent on :math:`c_t(F) = \ell_t(F) + \tfrac\lambda2\|F\|^2` with
    :math:`g_t = \lambda F_t - v_t[\text{update}_t]`.

    ``sq_norms`` :math:`= \|v_t\|^2` (:math:`2k(x_t, x_t)`), ``margins``
    :math:`m_t = \langle F_t, v_t\rangle = f_{y_t}(x_t) - f_{s_t}(x_t)` (before the update),
    ``update`` the rounds with :math:`\ell_t > 0`.  Exact recursions:

    .. math::

        \|g_t\|^2 = \lambda^2 N_t - 2\lambda m_t u_t + \|v_t\|^2 u_t,\qquad
        N_{t+1} = (1 - \eta\lambda)^2 N_t + 2\eta(1 - \eta\lambda) m_t u_t +
        \eta^2\|v_t\|^2 u_t

    (:math:`u_t \in \{0, 1\}` the update indicator).  With :math:`\lambda = 0`:
    :math:`\|g_t\|^2 = \|v_t\|^2 u_t`.  Returns ``(N, grad2)``, two arrays of length T.
    """
    q = np.asarray(sq_norms, dtype=float)
    m = np.asarray(margins, dtype=float)
    u = np.asarray(update, dtype=bool)
    if not (q.shape == m.shape == u.shape and q.ndim == 1):
        raise ValueError("sq_norms, margins and update must be 1-d arrays of one length")
    eta = _positive(eta, "eta")
    lam = _nonnegative(lam, "lam")
    a = 1.0 - eta * lam
    N = np.zeros(q.size)
    g2 = np.zeros(q.size)
    n = 0.0
    for t in range(q.size):
        N[t] = n
        if u[t]:
            g2[t] = lam * lam * n - 2.0 * lam * m[t] + q[t]
            n = a * a * n + 2.0 * eta * a * m[t] + eta * eta * q[t]
        else:
            g2[t] = lam * lam * n
            n = a * a * n
        n = max(n, 0.0)
    return N, np.maximum(g2, 0.0)


# -- Projectron, Projectron++ (2009) --------------------------------------------------------------

def _proj_args(kappa_max, g_norm, eta, L, n_classes):
    kappa = _positive(kappa_max, "kappa_max")
    g = _nonnegative(g_norm, "g_norm")
    eta = _nonnegative(eta, "eta")
    L = _nonnegative(L, "L")
    if n_classes is None:
        R2 = 2.0 * kappa
    else:
        K = v.integer(n_classes, "n_classes", 1)
        R2 = kappa if K == 1 else 2.0 * kappa       # n_classes=1: the binary Projectron
    c = 1.0 - eta * g
    return R2, g, eta, L, c


def projectron_mistake_bound(kappa_max, g_norm, eta, L, *, form="tight", n_classes=None):
    r"""Multiclass Projectron mistake bound ([OKC09], Projectron theorem with the
    multiclass update vector).  For any comparator :math:`G` with :math:`\eta\|G\| < 1`,
    :math:`c = 1 - \eta\|G\|`, :math:`R^2 = 2\kappa` and
    :math:`L = \sum_{t \in M}\ell_t(G)` (error rounds; the sum over all rounds is a valid
    larger value):

    * ``form="paper"`` (the statement as recalled, :math:`\|\Phi(x)\| \le 1` there, so
      :math:`\|G\|R` reads :math:`\|G\|`):

      .. math:: |M| \le \frac{\|G\|^2R^2}{c^2} + \frac{L}{c} + \frac{\|G\|R\sqrt L}{c^{3/2}};

    * ``form="tight"`` (the quadratic solved exactly, never larger):

      .. math:: |M| \le \Big(\frac{\|G\|R + \sqrt{\|G\|^2R^2 + 4cL}}{2c}\Big)^2.

    Chain: on an error round :math:`F \leftarrow F + P u_t`,
    :math:`u_t = \Phi(x_t, y_t) - \Phi(x_t, s_t)`, :math:`\|Pu_t - u_t\| \le \eta` (or 0 when
    :math:`x_t` is added); :math:`\langle G, Pu_t\rangle \ge 1 - \ell_t(G) - \eta\|G\|` and
    :math:`\|F_{t+1}\|^2 - \|F_t\|^2 = 2m_t + \|Pu_t\|^2 \le R^2` (:math:`F_t` lies in the
    span); so :math:`c|M| - L \le \|G\|R\sqrt{|M|}`.  At :math:`\eta = 0`: the multiclass
    kernel Perceptron (max-score), whose bound this is with :math:`c = 1`.

    ``n_classes=1`` gives the binary Projectron (:math:`R^2 = \kappa`).
    """
    R2, g, eta, L, c = _proj_args(kappa_max, g_norm, eta, L, n_classes)
    if c <= 0.0:
        raise ValueError(f"the Projectron bound needs eta ||G|| < 1, got eta = {eta!r}, "
                         f"||G|| = {g!r}")
    a = g * math.sqrt(R2)
    if form == "paper":
        return a * a / (c * c) + L / c + a * math.sqrt(L) / c ** 1.5
    if form == "tight":
        root = (a + math.sqrt(a * a + 4.0 * c * L)) / (2.0 * c)
        return root * root
    raise ValueError(f"form must be 'tight' or 'paper', got {form!r}")


def projectronpp_mistake_bound(kappa_max, g_norm, eta, L, *, n_classes=None):
    r"""Multiclass Projectron++ mistake bound: for any comparator :math:`G` with
    :math:`\|G\| \le 1/\eta` and :math:`c = 1 - \eta\|G\| > 0`, :math:`R^2 = 2\kappa`,

    .. math::

        |M| \le \min_{\lambda \ge 1,\ 2\lambda c > R^2}
        \frac{\lambda^2\|G\|^2 + 2\lambda L}{2\lambda c - R^2},

    :math:`L = \sum_{t \in M \cup U}\ell_t(G)` over the error rounds :math:`M` and the
    margin-update rounds :math:`U` (the sum over all rounds is a valid larger value).

    Derived here (potential :math:`\|F_t - \lambda G\|^2`; the paper's own Projectron++
    statement, which keeps the margin updates' gain as a subtracted term, is not
    reproduced): an error round lowers the potential by at least
    :math:`2\lambda(c - \ell_t(G)) - R^2`; a margin update, made only when
    :math:`\eta l_t > \|\delta_t\|` with :math:`\tau_t \le 2(l_t - \|\delta_t\|/\eta)/
    \|Pu_t\|^2` and :math:`\tau_t \le 1`, lowers it by at least :math:`-2\lambda\ell_t(G)`
    once :math:`\lambda \ge 1` and :math:`\|G\| \le 1/\eta`.  The potential starts at
    :math:`\lambda^2\|G\|^2` and stays :math:`\ge 0`.  With no margin updates (the
    Projectron) :math:`\lambda` is free and the minimum is the ``tight`` form of
    :func:`projectron_mistake_bound`.
    """
    R2, g, eta, L, c = _proj_args(kappa_max, g_norm, eta, L, n_classes)
    if eta > 0 and eta * g > 1.0 + NORM_RTOL:
        raise ValueError(f"the Projectron++ bound needs ||G|| <= 1/eta, got eta = {eta!r}, "
                         f"||G|| = {g!r}")
    if c <= 0.0:
        raise ValueError(f"the Projectron++ bound needs eta ||G|| < 1, got {eta * g!r}")
    lo = max(1.0, R2 / (2.0 * c))

    def h(lam):
        return (lam * lam * g * g + 2.0 * lam * L) / (2.0 * lam * c - R2)

    # h is a ratio of a convex increasing numerator and a linear denominator: unimodal on
    # (R2/(2c), inf).  The stationary point solves g^2 c lam^2 - g^2 R2 lam - L R2 = 0.
    if g > 0:
        disc = (g * g * R2) ** 2 + 4.0 * g * g * c * L * R2
        lam_star = (g * g * R2 + math.sqrt(disc)) / (2.0 * g * g * c)
    else:
        lam_star = math.inf
    if lam_star == math.inf:                    # g = 0: h decreases to L/c
        return L / c if L > 0 else 0.0
    return h(max(lam_star, lo))                # lam_star > R2/c: right of the pole


@dataclass(frozen=True)
class SupportBound:
    r"""Certified bounds on the support size of the multiclass Projectron(++) on a stream.

    Attributes
    ----------
    determinant : int  :func:`support_determinant_bound` (times K for per-class spans).
    cover : int        :func:`support_cover_bound` (times K for per-class spans).
    value : int        ``min(determinant, cover, T)`` (T only with the shared span).
    threshold2 : float :math:`\eta^2/2`, the squared residual an added vector exceeds in
                       the span it enters.
    """

    determinant: int
    cover: int
    value: int
    threshold2: float


def support_determinant_bound(gram, threshold2):
    r"""Largest :math:`m` with :math:`\prod_{i \le m}\lambda_i > \theta^m`
    (:math:`\theta` = ``threshold2``, :math:`\lambda_1 \ge \lambda_2 \ge ..` the eigenvalues of
    the stream's Gram matrix).

    A set :math:`S` of stream points added one at a time, each with squared residual
    :math:`> \theta` to the span of the previous ones, has :math:`\det K_S = \prod
    (\text{residuals}) > \theta^{|S|}`; by Cauchy interlacing the eigenvalues of the
    principal submatrix :math:`K_S` are at most :math:`\lambda_1, .., \lambda_{|S|}`, so
    :math:`\prod_{i \le |S|}\lambda_i > \theta^{|S|}`.  (A rank-r kernel gives at most r.)
    """
    lam = v.spectrum(K=gram)
    theta = _positive(threshold2, "threshold2")
    with np.errstate(divide="ignore"):
        cum = np.cumsum(np.log(lam) - math.log(theta))
    ok = np.flatnonzero(cum > 0.0)
    return int(ok.max() + 1) if ok.size else 0


def support_cover_bound(gram, radius):
    r"""Size of a greedy ``radius``-cover of the stream's points in feature space
    (:math:`\|k(x_i,\cdot) - k(x_j,\cdot)\|^2 = k_{ii} + k_{jj} - 2k_{ij}`).

    Vectors added with residual :math:`> 2\,\cdot` ``radius`` to a span containing every
    earlier one are pairwise more than :math:`2\,\cdot` ``radius`` apart, so no ball of the
    cover holds two of them: the cover's size bounds their number (the packing argument
    behind [OKC09]'s finite support set).
    """
    K = v.kernel_matrix(gram, "gram")
    r2 = _positive(radius, "radius") ** 2
    dg = np.diag(K)
    centers = []
    for i in range(K.shape[0]):
        if centers:
            c = np.asarray(centers)
            d2 = dg[i] + dg[c] - 2.0 * K[i, c]
            if np.any(d2 <= r2):
                continue
        centers.append(i)
    return len(centers)


def projectron_support_bound(gram, eta, *, span="shared", n_classes=None):
    r"""Support size of the multiclass Projectron / Projectron++ on the stream of ``gram``.

    A support vector is added only on an error round whose joint residual exceeds
    :math:`\eta`: :math:`\|\delta_t\|^2 = \|\delta_{y}\|^2 + \|\delta_{s}\|^2 > \eta^2`, so
    one of the two classes has a squared residual :math:`> \eta^2/2` to its span.

    * ``span="shared"``: both residuals are equal (one span), so every added vector has
      squared residual :math:`> \eta^2/2` to the span of all earlier ones:
      :math:`|S| \le \min(` :func:`support_determinant_bound` :math:`(\eta^2/2)`,
      :func:`support_cover_bound` :math:`(\eta/(2\sqrt2)))`.
    * ``span="class"``: charge each added vector to a class whose residual exceeds
      :math:`\eta^2/2`; the vectors charged to one class have that residual to the span of
      the earlier ones charged to it, so each class has at most the shared-span count:
      :math:`|S| \le K\cdot` that count.

    ([OKC09] proves the support set finite for a continuous kernel on a compact set; these
    are the same arguments evaluated on the stream.)  Margin updates of Projectron++ never
    add, so the bound holds for it too.
    """
    eta = _positive(eta, "eta")
    K = v.kernel_matrix(gram, "gram")
    theta = eta * eta / 2.0
    det = support_determinant_bound(K, theta)
    cov = support_cover_bound(K, eta / (2.0 * math.sqrt(2.0)))
    if span == "shared":
        mult = 1
    elif span == "class":
        if n_classes is None:
            raise ValueError("span='class' needs n_classes")
        mult = v.integer(n_classes, "n_classes", 2)
    else:
        raise ValueError(f"span must be 'shared' or 'class', got {span!r}")
    value = min(mult * det, mult * cov, K.shape[0])
    return SupportBound(determinant=mult * det, cover=mult * cov, value=value,
                        threshold2=theta)
