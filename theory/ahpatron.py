r"""Mistake bounds of AVP and Ahpatron: Liao, Li, Liao, Hu & Dang, *Ahpatron: A New
Budgeted Online Kernel Learning Machine with Tighter Mistake Bound* (AAAI 2024, seed 002).

Every function names the theorem, corollary, lemma or equation it evaluates.
Notation of the paper: :math:`L_T(f) = \sum_t \max(0, 1 - y_t f(x_t))` (``L``),
:math:`\|f\|_{\mathcal H}` (``f_norm``), the ball
:math:`\mathbb H = \{f : \|f\|_{\mathcal H} \le U\}`, the budget ``B``, the
learning rate :math:`\lambda` (``lam``), the margin slack :math:`\varepsilon`
(``eps``; an update happens when :math:`y_t f_t(x_t) < 1 - \varepsilon`), and the
round sets of Theorem 3

* :math:`M'_T = \{t : y_t f_t(x_t) \le 0\}` (``n_mistakes = |M'_T|``; it
  contains the mistakes :math:`M_T`, so every bound on :math:`|M'_T|` bounds
  :math:`|M_T|`),
* :math:`N_T = \{t : 0 < y_t f_t(x_t) < 1 - \varepsilon_t\}` (``n_margin = |N_T|``),
  the correctly classified rounds that still update.

The paper assumes :math:`\max_x \kappa(x, x) \le 1`; only the Perceptron bounds
take a general ``kappa_max`` here (the Perceptron is invariant under scaling
the kernel, AVP and Ahpatron are not).

Groups of functions:

* Perceptron: :func:`perceptron_theorem1_bound`, :func:`perceptron_theorem2_bound`.
* AVP (no budget): :func:`avp_theorem3_bound`, :func:`avp_constant_rate_bound`,
  :func:`avp_corollary1_parameters`, :func:`avp_corollary1_bound`,
  :func:`avp_corollary2_parameters`, :func:`avp_corollary2_delta`,
  :func:`avp_corollary2_bound`.
* Ahpatron (budget ``B``): :func:`ahpatron_removal_count`,
  :func:`ahpatron_lemma1_bound` (Lemma 1);
  :func:`ahpatron_theorem4_parameters`, :func:`ahpatron_theorem4_conditions`,
  :func:`ahpatron_theorem4_bound` (Theorem 4, eqs. (4) and (10));
  :func:`ahpatron_zeta`, :func:`ahpatron_theorem6_parameters`,
  :func:`ahpatron_theorem6_conditions`, :func:`ahpatron_theorem6_delta`,
  :func:`ahpatron_theorem6_bound` (eq. (11), Theorem 6 and its worked example).
* Theorem 5 (kernel alignment dominates the best hinge loss):
  :func:`ahpatron_check_theorem5`; comparator :func:`comparator_hinge_loss`.
* Bounds of other algorithms as the paper quotes them: :func:`forgetron_radius`,
  :func:`forgetron_mistake_bound` (eq. (1)), :func:`rbp_max_radius`,
  :func:`rbp_expected_mistake_bound` (eq. (2)),
  :func:`bogd_expected_mistake_bound`, :func:`pomdr_mistake_bound` (eq. (3)).

The seed contains no appendix, so the proofs of Lemma 1 and Theorems 3-6 are
not available; where a docstring says "reconstructed", the argument was redone
from the main text (it reproduces every printed constant it mentions).

Depends only on numpy and scipy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _validation as v
from .alignment import kernel_alignment
from .comparators import best_hinge_in_ball

__all__ = [
    "AVPParameters",
    "AhpatronParameters",
    "AhpatronTheorem4Bound",
    "AhpatronTheorem6Bound",
    "Theorem5Check",
    "ahpatron_check_theorem5",
    "ahpatron_lemma1_bound",
    "ahpatron_removal_count",
    "ahpatron_theorem4_bound",
    "ahpatron_theorem4_conditions",
    "ahpatron_theorem4_parameters",
    "ahpatron_theorem6_bound",
    "ahpatron_theorem6_conditions",
    "ahpatron_theorem6_delta",
    "ahpatron_theorem6_parameters",
    "ahpatron_zeta",
    "avp_constant_rate_bound",
    "avp_corollary1_bound",
    "avp_corollary1_parameters",
    "avp_corollary2_bound",
    "avp_corollary2_delta",
    "avp_corollary2_parameters",
    "avp_theorem3_bound",
    "bogd_expected_mistake_bound",
    "comparator_hinge_loss",
    "forgetron_mistake_bound",
    "forgetron_radius",
    "perceptron_theorem1_bound",
    "perceptron_theorem2_bound",
    "pomdr_mistake_bound",
    "projectron_dictionary_bound",
    "projectron_mistake_bound",
    "projectronpp_mistake_bound",
    "rbp_expected_mistake_bound",
    "rbp_max_radius",
]

#: Relative slack allowed in the checks ``f_norm <= U`` and ``U <= U_max`` (round-off
#: of a comparator's norm, or of a radius recomputed from ``B``).
NORM_RTOL = 1e-9
#: Relative tolerance of the equality checks ``lam == prescribed lam``.
LAM_RTOL = 1e-9
#: Theorem 4's fixed shrinking level c_t.
THEOREM4_C = 0.6


# -- argument checks (every failure names the argument) ---------------------------------

_real = v.real
_positive = v.positive
_nonnegative = v.nonnegative
_integer = v.integer


def _open_unit(value, name):
    value = _real(value, name)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return value


def _even_budget(B):
    B = _integer(B, "B", 2)
    if B % 2:
        raise ValueError(f"B must be even (Ahpatron keeps B/2 examples), got {B!r}")
    return B


def _in_ball(f_norm, U, what):
    f_norm = _nonnegative(f_norm, "f_norm")
    if f_norm > U * (1.0 + NORM_RTOL):
        raise ValueError(f"f_norm must be <= U ({what} needs f in the ball of radius U), "
                         f"got f_norm={f_norm!r}, U={U!r}")
    return min(f_norm, U)


def _vector(x, name):
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or inf")
    return x


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


# -- Perceptron: Theorems 1 and 2 --------------------------------------------------------

def perceptron_theorem1_bound(L, f_norm, kappa_max=1.0):
    r"""Theorem 1 (Dekel, Shalev-Shwartz & Singer 2005): Perceptron mistakes
    :math:`|M_T| \le 2L_T(f) + \|f\|_{\mathcal H}^2` for any :math:`f \in \mathcal H`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`, the cumulative hinge loss of the comparator.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \ge 0`.
    kappa_max : float, default 1.0
        :math:`X^2 = \max_t \kappa(x_t, x_t) > 0`.  The paper states the bound
        for :math:`\kappa \le 1`.  The kernel Perceptron's predictions do not
        change when :math:`\kappa` is scaled, and :math:`\kappa / X^2` has the
        same functions with :math:`\|f\|^2_{\kappa/X^2} = X^2\|f\|^2_\kappa`, so
        the bound is :math:`2L_T(f) + X^2\|f\|^2` (tighter than the printed
        one when :math:`X^2 < 1`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` or ``f_norm`` is negative or ``kappa_max`` is not positive.
    """
    L = _nonnegative(L, "L")
    f_norm = _nonnegative(f_norm, "f_norm")
    X2 = _positive(kappa_max, "kappa_max")
    return 2.0 * L + X2 * f_norm * f_norm


def perceptron_theorem2_bound(L, f_norm, kappa_max=1.0):
    r"""Theorem 2 (Shalev-Shwartz 2007): Perceptron mistakes
    :math:`|M_T| \le L_T(f) + \|f\|_{\mathcal H}\sqrt{L_T(f)} + \|f\|_{\mathcal H}^2`.

    With :math:`X^2 = \max_t \kappa(x_t, x_t)` (same scaling argument as
    :func:`perceptron_theorem1_bound`):
    :math:`L + X\|f\|\sqrt L + X^2\|f\|^2`.  The paper's remark holds exactly:
    Theorem 1's bound minus Theorem 2's is :math:`\sqrt L(\sqrt L - X\|f\|)`,
    so Theorem 1 is the better one iff :math:`L_T(f) \le X^2\|f\|^2`.

    Parameters
    ----------
    L, f_norm, kappa_max
        As in :func:`perceptron_theorem1_bound`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` or ``f_norm`` is negative or ``kappa_max`` is not positive.
    """
    L = _nonnegative(L, "L")
    f_norm = _nonnegative(f_norm, "f_norm")
    X = math.sqrt(_positive(kappa_max, "kappa_max"))
    return L + X * f_norm * math.sqrt(L) + (X * f_norm) ** 2


# -- AVP: Theorem 3, Corollaries 1 and 2 --------------------------------------------------

@dataclass(frozen=True)
class AVPParameters:
    r"""Parameters of AVP (Algorithm 1) prescribed by Corollary 1 or 2.

    Attributes
    ----------
    U : float
        Radius of :math:`\mathbb H` (``inf`` for Corollary 1: no projection).
    lam : float
        Learning rate :math:`\lambda_t`.
    eps_low, eps_high : float
        :math:`\varepsilon_t` must lie in the *open* interval
        ``(eps_low, eps_high)`` (condition (5): :math:`\lambda_t/2 < \varepsilon_t < 1`).
    """

    U: float
    lam: float
    eps_low: float
    eps_high: float


def avp_theorem3_bound(L, drift, lam_mistakes, lam_margin, eps_margin):
    r"""Theorem 3: the bound on :math:`|M'_T|` for AVP with any rates and slacks.

    .. math::

        |M'_T| \le L_T(f) + \sum_{t \in M'_T \cup N_T} \frac{\delta_t}{2\lambda_t}
        + \sum_{t \in M'_T}\frac{\lambda_t}{2}
        + \sum_{t \in N_T}\Big(\frac{\lambda_t}{2} - \varepsilon_t\Big),
        \qquad \delta_t = \|f_t - f\|^2 - \|f_{t+1} - f\|^2,

    for any :math:`f \in \mathbb H`, under (5): :math:`0 < \lambda_t < 2` and
    :math:`\lambda_t/2 < \varepsilon_t < 1`.  Meant for a measured run: every
    argument is a per-round quantity of the same run.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    drift : float
        :math:`\sum_{t \in M'_T \cup N_T} \delta_t / (2\lambda_t)` (any sign).
        With a constant :math:`\lambda` it telescopes to at most
        :math:`\|f\|^2/(2\lambda)` (:math:`f_1 = 0`; :math:`\delta_t = 0` on
        rounds without update).
    lam_mistakes : array_like, shape ``(|M'_T|,)``
        :math:`\lambda_t` on the rounds of :math:`M'_T` (may be empty).
    lam_margin : array_like, shape ``(|N_T|,)``
        :math:`\lambda_t` on the rounds of :math:`N_T` (may be empty).
    eps_margin : array_like, shape ``(|N_T|,)``
        :math:`\varepsilon_t` on the rounds of :math:`N_T`.

    Returns
    -------
    float
        The right-hand side (a bound on :math:`|M'_T| \ge |M_T|`).

    Raises
    ------
    ValueError
        If ``L`` is negative, ``drift`` is not finite, an array is not 1-D or
        not finite, ``lam_margin`` and ``eps_margin`` differ in length, or
        (5) fails: some rate is not in ``(0, 2)`` or some
        ``eps_margin`` is not in ``(lam_margin / 2, 1)``.
    """
    L = _nonnegative(L, "L")
    drift = _real(drift, "drift")
    lam_m = _vector(lam_mistakes, "lam_mistakes")
    lam_n = _vector(lam_margin, "lam_margin")
    eps_n = _vector(eps_margin, "eps_margin")
    if lam_n.size != eps_n.size:
        raise ValueError(f"lam_margin and eps_margin must have the same length, got "
                         f"{lam_n.size} and {eps_n.size}")
    for arr, name in ((lam_m, "lam_mistakes"), (lam_n, "lam_margin")):
        if arr.size and not (np.all(arr > 0.0) and np.all(arr < 2.0)):
            raise ValueError(f"{name} must lie in (0, 2) (Theorem 3 needs lambda_t < 2)")
    if eps_n.size and not (np.all(eps_n > lam_n / 2.0) and np.all(eps_n < 1.0)):
        raise ValueError("eps_margin must lie in (lam_margin / 2, 1) (condition (5))")
    return float(L + drift + lam_m.sum() / 2.0 + np.sum(lam_n / 2.0 - eps_n))


def avp_constant_rate_bound(L, f_norm, lam, eps, n_margin):
    r"""Theorem 3 with a constant rate and slack, solved for :math:`|M'_T|`.

    With :math:`\lambda_t = \lambda \in (0, 2)`, :math:`\varepsilon_t =
    \varepsilon \in (\lambda/2, 1)` and the telescoped drift
    :math:`\sum_t \delta_t/(2\lambda) \le \|f\|^2/(2\lambda)`,

    .. math::

        |M_T| \le |M'_T| \le \frac{L_T(f) + \|f\|^2_{\mathcal H}/(2\lambda)
        + (\lambda/2 - \varepsilon)|N_T|}{1 - \lambda/2}.

    :math:`\lambda = 1` is Corollary 1 (:func:`avp_corollary1_bound`).  The
    derivation needs only :math:`\|f\| \le U` (projection onto
    :math:`\mathbb H` is non-expansive towards :math:`f`), so it holds for any
    :math:`U \ge \|f\|`, including :math:`U = \infty`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \ge 0`.
    lam : float
        :math:`0 < \lambda < 2`.
    eps : float
        :math:`\lambda/2 < \varepsilon < 1`.
    n_margin : int
        :math:`|N_T| \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L``/``f_norm`` is negative, ``lam`` is not in ``(0, 2)``, ``eps`` is
        not in ``(lam/2, 1)`` or ``n_margin`` is not an integer ``>= 0``.
    """
    L = _nonnegative(L, "L")
    f_norm = _nonnegative(f_norm, "f_norm")
    lam = _positive(lam, "lam")
    if lam >= 2.0:
        raise ValueError(f"lam must be < 2 (Theorem 3), got {lam!r}")
    eps = _real(eps, "eps")
    if not lam / 2.0 < eps < 1.0:
        raise ValueError(f"eps must lie in (lam/2, 1) (condition (5)), got eps={eps!r}, "
                         f"lam={lam!r}")
    n = _integer(n_margin, "n_margin", 0)
    return (L + f_norm * f_norm / (2.0 * lam) + (lam / 2.0 - eps) * n) / (1.0 - lam / 2.0)


def avp_corollary1_parameters():
    r"""Corollary 1's setting: :math:`U = +\infty`, :math:`\lambda_t = 1`,
    :math:`\varepsilon_t = \varepsilon \in (1/2, 1)`.

    Returns
    -------
    AVPParameters
        ``U=inf, lam=1, eps_low=0.5, eps_high=1``.
    """
    return AVPParameters(U=math.inf, lam=1.0, eps_low=0.5, eps_high=1.0)


def avp_corollary1_bound(L, f_norm, eps, n_margin):
    r"""Corollary 1: :math:`|M_T| \le 2L_T(f) + \|f\|_{\mathcal H}^2 + (1 - 2\varepsilon)|N_T|`.

    AVP with :math:`U = \infty`, :math:`\lambda = 1`, :math:`\varepsilon \in
    (1/2, 1)`, any :math:`f \in \mathcal H`.  The last term is :math:`\le 0`:
    Theorem 1's Perceptron bound minus :math:`(2\varepsilon - 1)|N_T|`.  (The
    "Main Results" section writes it :math:`\Delta_T`, a symbol Corollary 2
    reuses for a different sum, see :func:`avp_corollary2_delta`.)  Note
    :math:`|N_T|` is a property of the run and depends on :math:`\varepsilon`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \ge 0`.
    eps : float
        :math:`\varepsilon \in (1/2, 1)`.
    n_margin : int
        :math:`|N_T| \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L``/``f_norm`` is negative, ``eps`` is not in ``(1/2, 1)`` or
        ``n_margin`` is not an integer ``>= 0``.
    """
    eps_r = _real(eps, "eps")
    if not 0.5 < eps_r < 1.0:
        raise ValueError(f"eps must lie in (1/2, 1) (Corollary 1), got {eps!r}")
    return avp_constant_rate_bound(L, f_norm, 1.0, eps_r, n_margin)


def avp_corollary2_parameters(U, n_mistakes):
    r"""Corollary 2's rate at a round :math:`t`:
    :math:`\lambda_t = U / \sqrt{U^2 + \sum_{\tau=1}^t \mathbb I_{y_\tau f_\tau(x_\tau) \le 0}}`
    and the slack range :math:`\lambda_t/2 < \varepsilon_t < 1`.

    The count includes round :math:`t` itself (so :math:`\lambda_t = 1` until
    the first round of :math:`M'_T`); :math:`\lambda_t \le 1` is
    non-increasing.

    Parameters
    ----------
    U : float
        Finite radius :math:`U > 0`.
    n_mistakes : int
        :math:`|M'_T \cap [t]| \ge 0`.

    Returns
    -------
    AVPParameters

    Raises
    ------
    ValueError
        If ``U`` is not positive and finite or ``n_mistakes`` is not an integer ``>= 0``.
    """
    U = _positive(U, "U")
    n = _integer(n_mistakes, "n_mistakes", 0)
    lam = U / math.sqrt(U * U + n)
    return AVPParameters(U=U, lam=lam, eps_low=lam / 2.0, eps_high=1.0)


def avp_corollary2_delta(lam_margin, eps_margin):
    r"""Corollary 2's :math:`\Delta_T = \sum_{t \in N_T} (\lambda_t/2 - \varepsilon_t) \le 0`.

    Parameters
    ----------
    lam_margin : array_like, shape ``(|N_T|,)``
        :math:`\lambda_t > 0` on the rounds of :math:`N_T` (may be empty).
    eps_margin : array_like, shape ``(|N_T|,)``
        :math:`\varepsilon_t \in (\lambda_t/2, 1)` on the same rounds.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the arrays are not 1-D and finite, differ in length, some rate is
        not positive or some slack is outside ``(lam/2, 1)``.
    """
    lam = _vector(lam_margin, "lam_margin")
    eps = _vector(eps_margin, "eps_margin")
    if lam.size != eps.size:
        raise ValueError(f"lam_margin and eps_margin must have the same length, got "
                         f"{lam.size} and {eps.size}")
    if lam.size and not np.all(lam > 0.0):
        raise ValueError("lam_margin must be > 0")
    if eps.size and not (np.all(eps > lam / 2.0) and np.all(eps < 1.0)):
        raise ValueError("eps_margin must lie in (lam_margin / 2, 1) (condition (5))")
    return float(np.sum(lam / 2.0 - eps))


def avp_corollary2_bound(L, U, delta):
    r"""Corollary 2: AVP with the rates of :func:`avp_corollary2_parameters`,
    for any :math:`f \in \mathbb H`:

    .. math::

        |M_T| \le A + 9U^2 + 3U\sqrt A, \qquad A = \max\{L_T(f) + 2U^2 + \Delta_T, 0\}.

    Reconstructed: :math:`\sum_t \delta_t/(2\lambda_t) \le 2U^2/\lambda_T =
    2U\sqrt{U^2 + m}` (:math:`\lambda_t` non-increasing,
    :math:`\|f_t - f\| \le 2U`), :math:`\sum_{M'_T}\lambda_t/2 \le U\sqrt{U^2+m} - U^2`
    with :math:`m = |M'_T|`, then :math:`\sqrt{U^2+m} \le U + \sqrt m` gives
    :math:`m \le A + 3U\sqrt m`, whose solution is the bound; it bounds
    :math:`|M'_T|`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        Radius :math:`U > 0` (finite).
    delta : float
        :math:`\Delta_T \le 0` from :func:`avp_corollary2_delta`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``U`` is not positive and finite, or ``delta`` is
        positive (impossible under (5)).
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    delta = _real(delta, "delta")
    if delta > 0.0:
        raise ValueError(f"delta must be <= 0 (Delta_T <= 0 under (5)), got {delta!r}")
    A = max(L + 2.0 * U * U + delta, 0.0)
    return A + 9.0 * U * U + 3.0 * U * math.sqrt(A)


# -- Ahpatron: Lemma 1 ---------------------------------------------------------------------

def ahpatron_removal_count(n_updates, B):
    r"""Exact number of removal (halving) operations of Ahpatron (Algorithm 2).

    Every update (a round of :math:`M'_T \cup N_T`) adds one example; an update
    that finds :math:`|S_t| = B` first halves :math:`S_t` to :math:`B/2` and
    then adds, leaving :math:`B/2 + 1`.  So the first removal happens at update
    :math:`B + 1` and every later one :math:`B/2` updates after the previous:

    .. math::

        |\mathcal J| = 0 \ (n \le B), \qquad
        |\mathcal J| = 1 + \Big\lfloor \frac{n - B - 1}{B/2} \Big\rfloor \ (n > B),

    with :math:`n = |M'_T| + |N_T|`.  Always :math:`\le` Lemma 1's
    :func:`ahpatron_lemma1_bound` (by at least :math:`2/B` when :math:`n > B`).

    Parameters
    ----------
    n_updates : int
        :math:`n = |M'_T| + |N_T| \ge 0` (at most ``T``).
    B : int
        Even budget ``>= 2``.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``n_updates`` is not an integer ``>= 0`` or ``B`` is not an even
        integer ``>= 2``.
    """
    n = _integer(n_updates, "n_updates", 0)
    B = _even_budget(B)
    if n <= B:
        return 0
    return 1 + (n - B - 1) // (B // 2)


def ahpatron_lemma1_bound(n_updates, B):
    r"""Lemma 1: Ahpatron removes at most
    :math:`\max\{2(|M'_T| + |N_T|)/B - 1, 0\}` times.

    Since :math:`|M'_T| + |N_T| \le T`, also at most :math:`\max\{2T/B - 1, 0\}`
    (pass ``n_updates=T``).  The exact count is :func:`ahpatron_removal_count`.

    Parameters
    ----------
    n_updates : int
        :math:`|M'_T| + |N_T| \ge 0` (or ``T``).
    B : int
        Even budget ``>= 2``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``n_updates`` is not an integer ``>= 0`` or ``B`` is not an even
        integer ``>= 2``.
    """
    n = _integer(n_updates, "n_updates", 0)
    B = _even_budget(B)
    return max(2.0 * n / B - 1.0, 0.0)


# -- Ahpatron: parameters --------------------------------------------------------------------

@dataclass(frozen=True)
class AhpatronParameters:
    r"""Parameters of Ahpatron (Algorithm 2) prescribed by Theorem 4 or 6.

    Attributes
    ----------
    B : int
        Budget.
    U : float
        Radius of :math:`\mathbb H` used.
    U_max : float
        Largest radius the theorem allows (:math:`\sqrt B/4` for Theorem 4,
        :math:`(1-\gamma)\sqrt B/(1/4 + 9\zeta/2)` for Theorem 6).
    lam : float
        Learning rate :math:`\lambda`.
    c : float or None
        Shrinking level :math:`c_t` of (7): 0.6 (Theorem 4), or ``None`` for
        Theorem 6's :math:`c_t = \|f_t\|_{\mathcal H}/U` (the projection (7)
        keeps the norm of :math:`f_t`).
    eps_low, eps_high : float
        :math:`\varepsilon` must lie in the open interval ``(eps_low, eps_high)``.
    """

    B: int
    U: float
    U_max: float
    lam: float
    c: float | None
    eps_low: float
    eps_high: float


def _theorem4_values(B, U):
    s = U / math.sqrt(B)
    return s, math.sqrt(B) / 4.0, math.sqrt(2.0) * s, 3.0 * s


def ahpatron_theorem4_parameters(B, U=None):
    r"""Theorem 4's setting: :math:`c_t = 0.6`, :math:`\lambda = \sqrt2 U/\sqrt B`,
    :math:`B \ge 50`, :math:`U \le \sqrt B/4`, :math:`3U/\sqrt B < \varepsilon < 1`.

    Parameters
    ----------
    B : int
        Even budget ``>= 50``.
    U : float, optional
        Radius in ``(0, sqrt(B)/4]``; default :math:`\sqrt B/4`, the choice of
        (10) ("resolving the open problem"), where the slack range is
        :math:`(3/4, 1)` and :math:`\lambda = 1/(2\sqrt2)`.

    Returns
    -------
    AhpatronParameters

    Raises
    ------
    ValueError
        If ``B`` is not an even integer ``>= 50`` or ``U`` is not in ``(0, sqrt(B)/4]``.
    """
    B = _even_budget(B)
    if B < 50:
        raise ValueError(f"B must be >= 50 (Theorem 4), got {B!r}")
    U_max = math.sqrt(B) / 4.0
    U = U_max if U is None else _positive(U, "U")
    if U > U_max * (1.0 + NORM_RTOL):
        raise ValueError(f"U must be <= sqrt(B)/4 = {U_max!r} (Theorem 4), got {U!r}")
    U = min(U, U_max)
    s, _, lam, a = _theorem4_values(B, U)
    return AhpatronParameters(B=B, U=U, U_max=U_max, lam=lam, c=THEOREM4_C,
                              eps_low=a, eps_high=1.0)


def ahpatron_theorem4_conditions(B, U, lam, eps, c=THEOREM4_C, *, raise_on_failure=False):
    r"""Which of Theorem 4's conditions fail.

    The conditions: ``B`` even (implicit: Algorithm 2 keeps :math:`B/2`
    examples), :math:`B \ge 50`, :math:`U \le \sqrt B/4`,
    :math:`\lambda = \sqrt2 U/\sqrt B`, :math:`3U/\sqrt B < \varepsilon < 1`,
    :math:`c_t = 0.6`.

    Parameters
    ----------
    B : int
        Budget, an integer ``>= 1``.
    U : float
        Radius :math:`U > 0`.
    lam : float
        Learning rate :math:`\lambda > 0`.
    eps : float
        Slack :math:`\varepsilon`.
    c : float, default 0.6
        Shrinking level :math:`c_t \in (0, 1]`.
    raise_on_failure : bool, default False
        Raise a ValueError listing the failed conditions instead of returning them.

    Returns
    -------
    tuple of str
        One message per failed condition (each names the arguments); empty
        when all hold.

    Raises
    ------
    ValueError
        If an argument is malformed (``B`` not an integer ``>= 1``, ``U`` or
        ``lam`` not positive, ``eps`` not finite, ``c`` not in ``(0, 1]``), or a
        condition fails and ``raise_on_failure`` is true.
    """
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    lam = _positive(lam, "lam")
    eps = _real(eps, "eps")
    c = _positive(c, "c")
    if c > 1.0:
        raise ValueError(f"c must lie in (0, 1], got {c!r}")
    raise_on_failure = _check_flag(raise_on_failure, "raise_on_failure")
    s, U_max, lam_star, a = _theorem4_values(B, U)
    fails = []
    if B % 2:
        fails.append(f"B must be even (Algorithm 2 keeps B/2 examples), got B={B}")
    if B < 50:
        fails.append(f"B >= 50 fails: B={B}")
    if U > U_max * (1.0 + NORM_RTOL):
        fails.append(f"U <= sqrt(B)/4 fails: U={U!r}, sqrt(B)/4={U_max!r}")
    if abs(lam - lam_star) > LAM_RTOL * lam_star:
        fails.append(f"lam = sqrt(2) U / sqrt(B) fails: lam={lam!r}, "
                     f"sqrt(2) U / sqrt(B)={lam_star!r}")
    if not eps > a:
        fails.append(f"3 U / sqrt(B) < eps fails: eps={eps!r}, 3 U / sqrt(B)={a!r}")
    if not eps < 1.0:
        fails.append(f"eps < 1 fails: eps={eps!r}")
    if abs(c - THEOREM4_C) > 1e-12:
        fails.append(f"c = 0.6 fails: c={c!r}")
    if fails and raise_on_failure:
        raise ValueError("Theorem 4 conditions fail: " + "; ".join(fails))
    return tuple(fails)


@dataclass(frozen=True)
class AhpatronTheorem4Bound:
    r"""Theorem 4's bound and its parts.

    Attributes
    ----------
    bound : float
        :math:`L_T(f) + \max\{\text{bar}, \text{under}\}`, i.e.
        ``max(bound_bar, bound_under)``.
    bound_bar : float
        :math:`L_T(f) + \frac{12U}{\sqrt B}L_T(f) + \overline\Delta`.
    bound_under : float
        :math:`L_T(f) + \frac{0.9U}{\sqrt B}L_T(f) + \frac{\sqrt B}{2U}\|f\|^2 + \underline\Delta`.
    delta_bar : float
        :math:`\overline\Delta = \frac{3U/\sqrt B - \varepsilon}{1 - 3U/\sqrt B}|N_T| \le 0`.
    delta_under : float
        :math:`\underline\Delta = \frac{U/\sqrt{2B} - \varepsilon}{1 - U/\sqrt{2B}}|N_T| \le 0`.
    bound_eq4 : float
        The looser "Main Results" form (4), :math:`L_T(f) + \Delta_T +
        \max\{\frac{12U}{\sqrt B}L_T(f), \frac{0.9U}{\sqrt B}L_T(f) + \frac{\sqrt B}{2U}\|f\|^2\}`
        with :math:`\Delta_T = \max\{\overline\Delta, \underline\Delta\}` (the
        paper leaves :math:`\Delta_T` of (4) undefined; this choice makes (4)
        follow from Theorem 4).  ``bound <= bound_eq4``.
    """

    bound: float
    bound_bar: float
    bound_under: float
    delta_bar: float
    delta_under: float
    bound_eq4: float


def ahpatron_theorem4_bound(L, f_norm, n_margin, B, U, eps):
    r"""Theorem 4: Ahpatron's mistake bound for :math:`f \in \mathbb H`.

    .. math::

        |M_T| \le L_T(f) + \max\Big\{\frac{12U}{\sqrt B}L_T(f) + \overline\Delta,\
        \frac{0.9U}{\sqrt B}L_T(f) + \frac{\sqrt B}{2U}\|f\|^2_{\mathcal H}
        + \underline\Delta\Big\},

    run with :func:`ahpatron_theorem4_parameters` (:math:`c_t = 0.6`,
    :math:`\lambda = \sqrt2U/\sqrt B`).  At :math:`U = \sqrt B/4` it is (10):
    :math:`\max\{4L + \overline\Delta, 1.225L + 2\|f\|^2 + \underline\Delta\}`;
    the paper prints :math:`1.3L` (1.225 rounded up, still a valid bound);
    this function returns the exact 1.225.

    How the branches read (the proof is not in the seed): the second branch is
    at least Theorem 3's bound for AVP with the same :math:`\lambda`,
    :math:`\varepsilon` and no removal (:func:`avp_constant_rate_bound`):
    :math:`(\lambda/2)/(1-\lambda/2) \le 0.86\,U/\sqrt B` and
    :math:`1/(2\lambda(1-\lambda/2)) \le 0.43\sqrt B/U` when
    :math:`U \le \sqrt B/4`; in the first, each update costs
    :math:`a = 3U/\sqrt B` and :math:`a/(1-a) \le 4a = 12U/\sqrt B`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \in [0, U]`.
    n_margin : int
        :math:`|N_T| \ge 0`.
    B : int
        Even budget ``>= 50``.
    U : float
        :math:`0 < U \le \sqrt B/4`.
    eps : float
        :math:`3U/\sqrt B < \varepsilon < 1`.

    Returns
    -------
    AhpatronTheorem4Bound

    Raises
    ------
    ValueError
        If an argument is malformed, ``f_norm > U``, or a condition of
        :func:`ahpatron_theorem4_conditions` fails (the message lists them).
    """
    L = _nonnegative(L, "L")
    n = _integer(n_margin, "n_margin", 0)
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    s, _, lam, a_bar = _theorem4_values(B, U)
    ahpatron_theorem4_conditions(B, U, lam, eps, raise_on_failure=True)
    eps = float(eps)
    f_norm = _in_ball(f_norm, U, "Theorem 4")
    a_under = lam / 2.0                                   # = U / sqrt(2B)
    delta_bar = (a_bar - eps) / (1.0 - a_bar) * n
    delta_under = (a_under - eps) / (1.0 - a_under) * n
    F2 = f_norm * f_norm
    bar = 12.0 * s * L
    under = 0.9 * s * L + F2 / (2.0 * s)
    bound_bar = L + bar + delta_bar
    bound_under = L + under + delta_under
    return AhpatronTheorem4Bound(
        bound=max(bound_bar, bound_under),
        bound_bar=bound_bar,
        bound_under=bound_under,
        delta_bar=delta_bar,
        delta_under=delta_under,
        bound_eq4=L + max(delta_bar, delta_under) + max(bar, under),
    )


# -- Ahpatron: eq. (11) and Theorem 6 ----------------------------------------------------------

def _theorem6_k(zeta):
    return 0.25 + 4.5 * zeta


def _zeta(zeta):
    zeta = _real(zeta, "zeta")
    if not 0.0 < zeta <= 2.0:
        raise ValueError(f"zeta must lie in (0, 2] (eq. (11)), got {zeta!r}")
    return zeta


def ahpatron_zeta(distances, U):
    r"""Smallest :math:`\zeta` satisfying (11) on a measured run.

    (11) reads :math:`\frac{U+\lambda}{\lambda}\sum_{t \in \mathcal J}\|f_t - \bar f_t\|
    \le \frac{U+\lambda}{\lambda}\zeta U|\mathcal J|`; the factor cancels, so the
    smallest :math:`\zeta` is the mean of :math:`\|f_t - \bar f_t\|_{\mathcal H}/U`
    over the removal rounds :math:`\mathcal J`.

    Parameters
    ----------
    distances : array_like, shape ``(|J|,)``
        :math:`\|f_t - \bar f_t\|_{\mathcal H} \ge 0` at each removal round
        (may be empty).
    U : float
        Radius :math:`U > 0`.

    Returns
    -------
    float
        The mean ratio; 0.0 if there was no removal, in which case (11) holds
        for every :math:`\zeta \in (0, 2]`.  With :math:`c_t = \|f_t\|/U` it is
        at most 2 up to round-off (:math:`\|f_t - \bar f_t\| \le 2\|f_t\| \le 2U`).

    Raises
    ------
    ValueError
        If ``distances`` is not 1-D, not finite or has a negative entry, or
        ``U`` is not positive.
    """
    d = _vector(distances, "distances")
    U = _positive(U, "U")
    if d.size and np.min(d) < 0.0:
        raise ValueError("distances must be >= 0")
    return float(d.mean() / U) if d.size else 0.0


def ahpatron_theorem6_parameters(B, zeta, gamma, U=None):
    r"""Theorem 6's setting: :math:`c_t = \|f_t\|/U`, :math:`B \ge 16`,
    :math:`\lambda = U/(2\sqrt B)`, :math:`U \le (1-\gamma)\sqrt B/(\frac14 + \frac92\zeta)`,
    :math:`(\frac14 + \frac{9\zeta}2)\frac U{\sqrt B} < \varepsilon < 1`.

    The worked example after Theorem 6: :math:`\zeta = 1/16`, :math:`\gamma = 2/3`
    and :math:`U` at its maximum give :math:`U = \sqrt B/1.59375 \ge \sqrt B/1.6`
    and the slack range :math:`(1/3, 1)`.  The experiments' :math:`U = \sqrt B/2`,
    :math:`\lambda = U/\sqrt{4B}` fit this only when
    :math:`\frac14 + \frac92\zeta \le 2(1-\gamma)`, i.e. :math:`\zeta < 7/18`
    (and :math:`\varepsilon = 0.5` needs :math:`\zeta < 1/6`).

    Parameters
    ----------
    B : int
        Even budget ``>= 16``.
    zeta : float
        :math:`\zeta \in (0, 2]` of (11).
    gamma : float
        :math:`\gamma \in (0, 1)`.
    U : float, optional
        Radius in ``(0, U_max]``; default ``U_max``.

    Returns
    -------
    AhpatronParameters
        With ``c=None`` (:math:`c_t = \|f_t\|/U`).

    Raises
    ------
    ValueError
        If ``B`` is not an even integer ``>= 16``, ``zeta`` is not in ``(0, 2]``,
        ``gamma`` is not in ``(0, 1)`` or ``U`` is not in ``(0, U_max]``.
    """
    B = _even_budget(B)
    if B < 16:
        raise ValueError(f"B must be >= 16 (Theorem 6), got {B!r}")
    zeta = _zeta(zeta)
    gamma = _open_unit(gamma, "gamma")
    k = _theorem6_k(zeta)
    U_max = (1.0 - gamma) * math.sqrt(B) / k
    U = U_max if U is None else _positive(U, "U")
    if U > U_max * (1.0 + NORM_RTOL):
        raise ValueError(f"U must be <= (1 - gamma) sqrt(B) / (1/4 + 9 zeta / 2) = "
                         f"{U_max!r} (Theorem 6), got {U!r}")
    U = min(U, U_max)
    s = U / math.sqrt(B)
    return AhpatronParameters(B=B, U=U, U_max=U_max, lam=s / 2.0, c=None,
                              eps_low=k * s, eps_high=1.0)


def ahpatron_theorem6_conditions(B, U, lam, eps, zeta, gamma, *, raise_on_failure=False):
    r"""Which of Theorem 6's conditions fail.

    The conditions: ``B`` even (implicit), :math:`B \ge 16`,
    :math:`\lambda = U/(2\sqrt B)`,
    :math:`U \le (1-\gamma)\sqrt B/(\frac14 + \frac92\zeta)`,
    :math:`(\frac14 + \frac{9\zeta}2)\frac U{\sqrt B} < \varepsilon < 1`.
    The remaining hypotheses -- :math:`c_t = \|f_t\|/U` and (11) with this
    :math:`\zeta` -- concern the run (see :func:`ahpatron_zeta`).

    Parameters
    ----------
    B : int
        Budget, an integer ``>= 1``.
    U : float
        Radius :math:`U > 0`.
    lam : float
        Learning rate :math:`\lambda > 0`.
    eps : float
        Slack :math:`\varepsilon`.
    zeta : float
        :math:`\zeta \in (0, 2]`.
    gamma : float
        :math:`\gamma \in (0, 1)`.
    raise_on_failure : bool, default False
        Raise a ValueError listing the failed conditions instead of returning them.

    Returns
    -------
    tuple of str
        One message per failed condition; empty when all hold.

    Raises
    ------
    ValueError
        If an argument is malformed, or a condition fails and
        ``raise_on_failure`` is true.
    """
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    lam = _positive(lam, "lam")
    eps = _real(eps, "eps")
    zeta = _zeta(zeta)
    gamma = _open_unit(gamma, "gamma")
    raise_on_failure = _check_flag(raise_on_failure, "raise_on_failure")
    k = _theorem6_k(zeta)
    s = U / math.sqrt(B)
    U_max = (1.0 - gamma) * math.sqrt(B) / k
    lam_star = s / 2.0
    a = k * s
    fails = []
    if B % 2:
        fails.append(f"B must be even (Algorithm 2 keeps B/2 examples), got B={B}")
    if B < 16:
        fails.append(f"B >= 16 fails: B={B}")
    if abs(lam - lam_star) > LAM_RTOL * lam_star:
        fails.append(f"lam = U / (2 sqrt(B)) fails: lam={lam!r}, U / (2 sqrt(B))={lam_star!r}")
    if U > U_max * (1.0 + NORM_RTOL):
        fails.append(f"U <= (1 - gamma) sqrt(B) / (1/4 + 9 zeta / 2) fails: U={U!r}, "
                     f"bound={U_max!r}")
    if not eps > a:
        fails.append(f"(1/4 + 9 zeta / 2) U / sqrt(B) < eps fails: eps={eps!r}, "
                     f"(1/4 + 9 zeta / 2) U / sqrt(B)={a!r}")
    if not eps < 1.0:
        fails.append(f"eps < 1 fails: eps={eps!r}")
    if fails and raise_on_failure:
        raise ValueError("Theorem 6 conditions fail: " + "; ".join(fails))
    return tuple(fails)


def ahpatron_theorem6_delta(n_margin, B, U, zeta, eps):
    r"""Theorem 6's :math:`\Delta_T(\zeta) = \frac{|N_T|}{1 - a}(a - \varepsilon) \le 0`,
    :math:`a = (\frac14 + \frac{9\zeta}2)\frac U{\sqrt B}`.

    Parameters
    ----------
    n_margin : int
        :math:`|N_T| \ge 0`.
    B : int
        Budget, an integer ``>= 1``.
    U : float
        Radius :math:`U > 0` with :math:`a < 1`.
    zeta : float
        :math:`\zeta \in (0, 2]`.
    eps : float
        :math:`a < \varepsilon < 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``n_margin`` is not an integer ``>= 0``, ``B`` not an integer
        ``>= 1``, ``U`` not positive, ``zeta`` not in ``(0, 2]``, ``a >= 1``
        (``U`` too large) or ``eps`` not in ``(a, 1)``.
    """
    n = _integer(n_margin, "n_margin", 0)
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    zeta = _zeta(zeta)
    eps = _real(eps, "eps")
    a = _theorem6_k(zeta) * U / math.sqrt(B)
    if a >= 1.0:
        raise ValueError(f"U must make (1/4 + 9 zeta / 2) U / sqrt(B) < 1, got {a!r}")
    if not a < eps < 1.0:
        raise ValueError(f"eps must lie in ((1/4 + 9 zeta / 2) U / sqrt(B), 1) = ({a!r}, 1), "
                         f"got {eps!r}")
    return n * (a - eps) / (1.0 - a)


@dataclass(frozen=True)
class AhpatronTheorem6Bound:
    r"""Theorem 6's bound
    :math:`\text{coef\_L}\,L_T(f) + \text{coef\_f}\,\|f\|^2 + \Delta_T(\zeta)`.

    Attributes
    ----------
    bound : float
    coef_L : float
        :math:`1 + a/\gamma`.
    coef_f : float
        :math:`(1 - 2\zeta)\sqrt B/(\gamma U)` (``form="paper"``) or
        :math:`\sqrt B/(\gamma U)` (``form="safe"``).
    delta : float
        :math:`\Delta_T(\zeta)`.
    a : float
        :math:`(\frac14 + \frac{9\zeta}2)\frac U{\sqrt B}`, the cost per update.
    """

    bound: float
    coef_L: float
    coef_f: float
    delta: float
    a: float


def ahpatron_theorem6_bound(L, f_norm, n_margin, B, U, zeta, gamma, eps, form="paper"):
    r"""Theorem 6 (algorithm-dependent mistake bound of Ahpatron), for :math:`f \in \mathbb H`:

    .. math::

        |M_T| \le L_T(f) + \frac1\gamma\Big(\frac14 + \frac{9\zeta}2\Big)\frac U{\sqrt B}L_T(f)
        + \frac{1 - 2\zeta}{\gamma}\frac{\|f\|^2_{\mathcal H}\sqrt B}{U} + \Delta_T(\zeta).

    Worked example after the theorem: :math:`\zeta \le 1/16`, :math:`\gamma = 2/3`,
    :math:`U = U_{\max}` give :math:`|M_T| \le \frac32 L_T(f) + 2.1\|f\|^2 + \Delta_T(\zeta)`
    (exactly :math:`\text{coef\_f} = 4.5(1-2\zeta)(\frac14 + \frac{9\zeta}2)`,
    increasing in :math:`\zeta` up to :math:`2.0918` at :math:`\zeta = 1/16`).

    The factor :math:`1 - 2\zeta` is a gap in the statement: it is
    :math:`\le 0` for :math:`\zeta \ge 1/2`, and the printed bound then fails.
    Counterexample: two orthogonal points with opposite labels and a large
    ``B``; there is no removal, so (11) holds for every :math:`\zeta`;
    :math:`f_1 = 0` and :math:`f_2 = \lambda y_1\kappa(x_1,\cdot)` vanish at
    :math:`x_2`, so :math:`|M_T| \ge 1` whatever :math:`\mathrm{sign}(0)` is;
    :math:`f = y_1\kappa(x_1,\cdot) + y_2\kappa(x_2,\cdot)` has
    :math:`L_T(f) = 0`, and with :math:`|N_T| = 0` the printed right side is
    :math:`\le 0`.  Reconstructing the proof from (11) and Lemma 1: a
    removal round costs at most :math:`\frac{U+\lambda}\lambda\|f_t - \bar f_t\|`
    in units of :math:`\delta_t/(2\lambda)` (as :math:`\|\bar f_t\| = \|f_t\|`,
    :math:`\|\bar f_t - f\|^2 - \|f_t - f\|^2 = 2\langle f_t - \bar f_t, f\rangle
    \le 2U\|f_t - \bar f_t\|`, and
    :math:`|(f_t - \bar f_t)(x_t)| \le \|f_t - \bar f_t\|`); with :math:`|\mathcal J| \le 2n/B`,
    :math:`U/\lambda = 2\sqrt B` and :math:`B \ge 16` this is
    :math:`\frac92\zeta\frac U{\sqrt B}` per update, giving
    :math:`(1-a)|M'_T| \le L_T(f) + \|f\|^2\sqrt B/U + (a - \varepsilon)|N_T|`
    and then ``form="safe"`` (coefficient 1 instead of :math:`1 - 2\zeta`).
    Keeping Lemma 1's :math:`-1` subtracts
    :math:`(1 + 2\sqrt B)\zeta U \ge 2\zeta\|f\|^2\sqrt B/U`, which is exactly
    the printed :math:`-2\zeta` -- but this needs :math:`|M'_T| + |N_T| \ge B/2`
    (else Lemma 1's max is 0) and dividing the then negative term by
    :math:`1 - a \ge \gamma` is only valid for :math:`\zeta \le 1/2`.
    ``form="paper"`` (the default) returns the printed expression; use
    ``form="safe"`` for short runs or :math:`\zeta > 1/2`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \in [0, U]`.
    n_margin : int
        :math:`|N_T| \ge 0`.
    B : int
        Even budget ``>= 16``.
    U : float
        :math:`0 < U \le (1-\gamma)\sqrt B/(\frac14 + \frac92\zeta)`.
    zeta : float
        :math:`\zeta \in (0, 2]` satisfying (11) (e.g. :func:`ahpatron_zeta`
        of the run, or any larger value).
    gamma : float
        :math:`\gamma \in (0, 1)`.
    eps : float
        :math:`a < \varepsilon < 1`.
    form : {"paper", "safe"}, default "paper"

    Returns
    -------
    AhpatronTheorem6Bound

    Raises
    ------
    ValueError
        If an argument is malformed, ``f_norm > U``, ``form`` is unknown, or a
        condition of :func:`ahpatron_theorem6_conditions` fails (the message
        lists them).
    """
    if form not in ("paper", "safe"):
        raise ValueError(f"form must be 'paper' or 'safe', got {form!r}")
    L = _nonnegative(L, "L")
    n = _integer(n_margin, "n_margin", 0)
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    s = U / math.sqrt(B)
    ahpatron_theorem6_conditions(B, U, s / 2.0, eps, zeta, gamma, raise_on_failure=True)
    zeta, gamma, eps = float(zeta), float(gamma), float(eps)
    f_norm = _in_ball(f_norm, U, "Theorem 6")
    a = _theorem6_k(zeta) * s
    delta = n * (a - eps) / (1.0 - a)
    coef_L = 1.0 + a / gamma
    coef_f = (1.0 - 2.0 * zeta if form == "paper" else 1.0) / (gamma * s)
    return AhpatronTheorem6Bound(bound=coef_L * L + coef_f * f_norm * f_norm + delta,
                                 coef_L=coef_L, coef_f=coef_f, delta=delta, a=a)


# -- Theorem 5 ---------------------------------------------------------------------------------

def comparator_hinge_loss(K, y, U, *, return_norm=False, **solver):
    r""":math:`L_T(f^*) = \min_{\|f\|_{\mathcal H} \le U} \sum_t \max(0, 1 - y_t f(x_t))`,
    the comparator of every bound here with :math:`f \in \mathbb H`.

    Wraps :func:`theory.best_hinge_in_ball`.  The returned loss is the loss of
    the returned (feasible) function, so it is at least the minimum (within the
    solver's certified ``gap``), and every bound of this module, valid for each
    :math:`f \in \mathbb H`, holds with it.

    Parameters
    ----------
    K : array_like, shape (T, T)
        PSD kernel matrix.
    y : array_like, shape (T,)
        Labels in {-1, +1}.
    U : float
        Radius :math:`U > 0`.
    return_norm : bool, default False
        Also return :math:`\|f^*\|_{\mathcal H}`, clipped to ``U`` (it can exceed
        ``U`` by round-off).
    **solver
        ``tol``, ``rank_rtol``, ``max_iter`` of :func:`theory.best_hinge_in_ball`.

    Returns
    -------
    float or (float, float)
        The loss, or ``(loss, norm)``.

    Raises
    ------
    ValueError
        As :func:`theory.best_hinge_in_ball`, or if ``return_norm`` is not a bool.
    """
    return_norm = _check_flag(return_norm, "return_norm")
    res = best_hinge_in_ball(K, y, U, **solver)
    if return_norm:
        return res.loss, min(res.norm, res.U)
    return res.loss


@dataclass(frozen=True)
class Theorem5Check:
    r"""Both sides of Theorem 5, :math:`\mathcal A_T \ge \min_{f \in \mathbb H} L_T(f)`.

    Attributes
    ----------
    alignment : float
        :math:`\mathcal A_T = \sum_t\kappa(x_t,x_t) - \frac1T Y^\top KY`.
    min_loss : float
        :func:`comparator_hinge_loss` (loss of a feasible :math:`f`).
    lower_bound : float
        Certified lower bound on the minimum (dual value).
    gap : float
        ``min_loss - lower_bound``.
    witness_loss : float
        :math:`L_T(f_Y)` of :math:`f_Y = \frac1T\sum_t y_t\kappa(x_t,\cdot)`;
        equals :math:`\mathcal A_T` when :math:`\kappa(x, x) = 1`.
    witness_norm : float
        :math:`\|f_Y\| = \sqrt{Y^\top KY}/T \le 1 \le U`.
    holds : bool
        ``min_loss <= alignment`` up to ``1e-9 * max(1, alignment)``.
    """

    alignment: float
    min_loss: float
    lower_bound: float
    gap: float
    witness_loss: float
    witness_norm: float
    holds: bool


def ahpatron_check_theorem5(K, y, U, **solver):
    r"""Evaluate both sides of Theorem 5: if :math:`\kappa(x, x) = 1` and
    :math:`U \ge 1`, then :math:`\mathcal A_T \ge \min_{\|f\| \le U} L_T(f)`.

    Left side: :func:`theory.kernel_alignment`; right side:
    :func:`comparator_hinge_loss`.  Proof (reconstructed; the appendix is not
    in the seed): :math:`f_Y = \frac1T\sum_t y_t\kappa(x_t, \cdot)` has
    :math:`\|f_Y\|^2 = Y^\top KY/T^2 \le 1` (:math:`|K_{st}| \le 1`), and
    :math:`|y_tf_Y(x_t)| \le 1`, so every hinge term is active and
    :math:`L_T(f_Y) = T - Y^\top KY/T = \mathcal A_T`.  The consequence
    :math:`\min L_T = O(\sqrt{\mathcal A_T T})` follows from
    :math:`\mathcal A_T \le T`.

    Parameters
    ----------
    K : array_like, shape (T, T)
        PSD kernel matrix with unit diagonal (e.g. a Gaussian kernel).
    y : array_like, shape (T,)
        Labels in {-1, +1}.
    U : float
        :math:`U \ge 1`.
    **solver
        Passed to :func:`theory.best_hinge_in_ball`.

    Returns
    -------
    Theorem5Check

    Raises
    ------
    ValueError
        If ``K`` or ``y`` is invalid, the diagonal of ``K`` is not 1 (to
        ``1e-10``), or ``U < 1``.
    """
    K = v.kernel_matrix(K)
    T = K.shape[0]
    y = v.labels(y, T, binary=True)
    U = _positive(U, "U")
    if U < 1.0:
        raise ValueError(f"U must be >= 1 (Theorem 5), got {U!r}")
    if np.max(np.abs(np.diag(K) - 1.0)) > 1e-10:
        raise ValueError("K must have unit diagonal (Theorem 5 assumes kappa(x, x) = 1)")
    A = kernel_alignment(K, y)
    res = best_hinge_in_ball(K, y, U, **solver)
    Ky = K @ y
    witness_loss = float(np.sum(np.maximum(0.0, 1.0 - y * Ky / T)))
    witness_norm = float(math.sqrt(max(y @ Ky, 0.0)) / T)
    return Theorem5Check(alignment=A, min_loss=res.loss, lower_bound=res.lower_bound,
                         gap=res.gap, witness_loss=witness_loss, witness_norm=witness_norm,
                         holds=bool(res.loss <= A + 1e-9 * max(1.0, A)))


# -- bounds of other algorithms, as quoted -----------------------------------------------------

def forgetron_radius(B):
    r"""The radius :math:`U = \sqrt{B+1}/(4\sqrt{\ln(B+1)})` under which the
    Forgetron's bound (1) holds (introduction).

    The paper's footnote claims :math:`\sqrt B/4 > U`; this holds iff
    :math:`\ln(B+1) > 1 + 1/B`, i.e. for :math:`B \ge 3` (not for
    :math:`B \in \{1, 2\}`; Theorem 4 needs :math:`B \ge 50` anyway).  The
    radius increases with :math:`B` only from :math:`B = 2` on.

    Parameters
    ----------
    B : int
        Budget ``>= 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``B`` is not an integer ``>= 1``.
    """
    B = _integer(B, "B", 1)
    return math.sqrt(B + 1) / (4.0 * math.sqrt(math.log(B + 1)))


def forgetron_mistake_bound(L, f_norm, B):
    r"""Eq. (1), the Forgetron (Dekel, Shalev-Shwartz & Singer 2005) as quoted:
    :math:`|M_T| \le 4L_T(f) + 2\|f\|^2_{\mathcal H}` for
    :math:`\|f\| \le` :func:`forgetron_radius` ``(B)``.

    The original theorem also restricts the budget (the authors' slides say
    :math:`B \ge 84`); the Ahpatron paper does not quote this and it is not
    checked here.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\| \in [0, \text{forgetron\_radius}(B)]`.
    B : int
        Budget ``>= 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``B`` is not an integer ``>= 1`` or ``f_norm`` is
        negative or above the radius.
    """
    L = _nonnegative(L, "L")
    f_norm = _in_ball(f_norm, forgetron_radius(B), "The Forgetron bound (1)")
    return 4.0 * L + 2.0 * f_norm * f_norm


def rbp_max_radius(B, gamma):
    r"""The largest :math:`U` of the RBP bound (2): :math:`\frac{\gamma - 1}{\gamma + 1}\sqrt B`.

    The text prints ":math:`U \le \frac{\gamma-1}{\gamma+1}\sqrt B^2`"; the
    ``2`` is footnote 2's marker (the footnote is about RBP), not a square.

    Parameters
    ----------
    B : int
        Budget ``>= 1``.
    gamma : float
        :math:`\gamma > 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``B`` is not an integer ``>= 1`` or ``gamma <= 1``.
    """
    B = _integer(B, "B", 1)
    gamma = _real(gamma, "gamma")
    if gamma <= 1.0:
        raise ValueError(f"gamma must be > 1 (RBP bound (2)), got {gamma!r}")
    return (gamma - 1.0) / (gamma + 1.0) * math.sqrt(B)


def rbp_expected_mistake_bound(L, U, B, gamma):
    r"""Eq. (2), the Randomized Budget Perceptron (Cesa-Bianchi & Gentile 2006)
    as quoted: :math:`\mathbb E|M_T| \le \gamma L_T(f) + \gamma UB
    + 0.5\gamma U\sqrt B\ln(0.5\gamma B^2)`, for :math:`\|f\| \le U \le`
    :func:`rbp_max_radius`.

    An expected bound; it grows with :math:`B` (the paper's criticism).  The
    introduction defines :math:`\mathbb H` with the Forgetron radius right
    before (2), but (2) carries its own constraint on :math:`U`, used here.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        :math:`0 < U \le \frac{\gamma-1}{\gamma+1}\sqrt B`.
    B : int
        Budget ``>= 1``.
    gamma : float
        :math:`\gamma > 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``B`` is not an integer ``>= 1``, ``gamma <= 1``
        or ``U`` is not in ``(0, rbp_max_radius(B, gamma)]``.
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    U_max = rbp_max_radius(B, gamma)
    if U > U_max * (1.0 + NORM_RTOL):
        raise ValueError(f"U must be <= (gamma - 1)/(gamma + 1) sqrt(B) = {U_max!r} "
                         f"(RBP bound (2)), got {U!r}")
    g = float(gamma)
    return g * L + g * U * B + 0.5 * g * U * math.sqrt(B) * math.log(0.5 * g * B * B)


def bogd_expected_mistake_bound(L, U, T, B, constant=1.0):
    r"""BOGD (Zhao et al. 2012) as quoted in "Comparison with Previous Results":
    :math:`\mathbb E|M_T| = L_T(f) + O(UT/\sqrt B + U\sqrt T)`.

    The paper gives only the order; this returns
    :math:`L_T(f) + C(UT/\sqrt B + U\sqrt T)` with ``C = constant``, for
    side-by-side comparisons of rates, not as a certified bound.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        Radius :math:`U > 0`.
    T : int
        Number of rounds ``>= 1``.
    B : int
        Budget ``>= 1``.
    constant : float, default 1.0
        :math:`C > 0` standing for the hidden constant.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``U``/``constant`` is not positive or
        ``T``/``B`` is not an integer ``>= 1``.
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    T = _integer(T, "T", 1)
    B = _integer(B, "B", 1)
    C = _positive(constant, "constant")
    return L + C * (U * T / math.sqrt(B) + U * math.sqrt(T))


def pomdr_mistake_bound(L, U, A_T, T, B, constant=1.0):
    r"""POMDR (Li & Liao 2023) as quoted in (3):
    :math:`|M_T| = L_T(f) + O(U\sqrt{\mathcal A_T} + \frac U{\sqrt B}\sqrt{\mathcal A_T T})`.

    Returns :math:`L_T(f) + C(U\sqrt{\mathcal A_T} + U\sqrt{\mathcal A_T T/B})`
    with ``C = constant`` (order only, as :func:`bogd_expected_mistake_bound`).
    "Comparison with Previous Results" restates it without the :math:`U` on
    :math:`\sqrt{\mathcal A_T}`, and "Problem Setting" keeps only the
    :math:`U\sqrt{\mathcal A_T T/B}` term; (3) is used.  :math:`\mathcal A_T`
    is :func:`theory.kernel_alignment`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        Radius :math:`U > 0`.
    A_T : float
        Kernel alignment :math:`\mathcal A_T \ge 0`.
    T : int
        Number of rounds ``>= 1``.
    B : int
        Budget ``>= 1``.
    constant : float, default 1.0
        :math:`C > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L``/``A_T`` is negative, ``U``/``constant`` is not positive or
        ``T``/``B`` is not an integer ``>= 1``.
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    A = _nonnegative(A_T, "A_T")
    T = _integer(T, "T", 1)
    B = _integer(B, "B", 1)
    C = _positive(constant, "constant")
    return L + C * (U * math.sqrt(A) + U * math.sqrt(A * T / B))


def projectron_mistake_bound(L, f_norm, eta, kappa_max=1.0):
    r"""Mistakes of the Projectron (Orabona, Keshet & Caputo, *Bounded kernel-based online
    learning*, JMLR 10, 2009; ICML 2008) against any :math:`g` with
    :math:`\eta\|g\| < 1`:

    .. math::

        |M_T| \le \Big(\frac{\|g\|X + \sqrt{\|g\|^2X^2 + 4(1 - \eta\|g\|)L}}
        {2(1 - \eta\|g\|)}\Big)^2,

    :math:`X^2 = \max_t k(x_t, x_t)`, :math:`L = \sum_t \max(0, 1 - y_t g(x_t))`.

    The paper's text was not reachable here; this is the Perceptron argument its
    Projectron theorem rests on, written out with explicit constants for the update
    ``okl.Projectron`` makes: on a mistake :math:`f_{t+1} = f_t + y_t P_t k(x_t, \cdot)`
    with the projection residual :math:`\delta_t = P_t k(x_t, \cdot) - k(x_t, \cdot)`
    of norm at most :math:`\eta` (or :math:`\delta_t = 0` when :math:`x_t` is added).
    Then :math:`\langle g, f_{T+1}\rangle \ge \sum_{t \in M}(y_t g(x_t) - \|g\|\|\delta_t\|)
    \ge |M|(1 - \eta\|g\|) - L` and :math:`\|f_{T+1}\|^2 = \sum_{t\in M}(2y_tf_t(x_t) +
    \|P_tk(x_t,\cdot)\|^2) \le |M|X^2` (:math:`f_t` lies in the span, so
    :math:`\langle f_t, P_tk(x_t,\cdot)\rangle = f_t(x_t)`); Cauchy-Schwarz and the
    quadratic in :math:`\sqrt{|M|}`.  At :math:`\eta = 0` it is the kernel Perceptron's
    bound :math:`(\|g\|X + \sqrt{\|g\|^2X^2 + 4L})^2/4`.

    Parameters
    ----------
    L : float
        :math:`L \ge 0`.
    f_norm : float
        :math:`\|g\| \ge 0` with :math:`\eta\|g\| < 1`.
    eta : float
        The Projectron's threshold on :math:`\|\delta_t\|`, ``>= 0``.
    kappa_max : float, default 1.0
        :math:`X^2 > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On a negative ``L``, ``f_norm`` or ``eta``, a non-positive ``kappa_max``, or
        :math:`\eta\|g\| \ge 1`.
    """
    L = _nonnegative(L, "L")
    R = _nonnegative(f_norm, "f_norm")
    eta = _nonnegative(eta, "eta")
    X2 = _positive(kappa_max, "kappa_max")
    c = 1.0 - eta * R
    if c <= 0.0:
        raise ValueError(f"the Projectron bound needs eta ||g|| < 1, got eta = {eta!r}, "
                         f"||g|| = {R!r}")
    RX = R * math.sqrt(X2)
    root = (RX + math.sqrt(RX * RX + 4.0 * c * L)) / (2.0 * c)
    return root * root


def projectronpp_mistake_bound(L, f_norm, eta, kappa_max=1.0):
    r"""Mistakes of Projectron++ (Orabona, Keshet & Caputo 2009) against any :math:`g`
    with :math:`\|g\| \le 1/\eta` and :math:`2 - 2\eta\|g\| - X^2 > 0`:

    .. math::

        |M_T| \le \frac{\|g\|^2 + 2L}{2 - 2\eta\|g\| - X^2},

    :math:`X^2 = \max_t k(x_t, x_t)`, :math:`L = \sum_t \max(0, 1 - y_t g(x_t))`
    (:math:`\|g\|^2 + 2L` over :math:`1 - 2\eta\|g\|` for a normalized kernel).

    Reconstructed (the paper's text was not reachable) from the potential
    :math:`\|f_t - g\|^2` for the updates ``okl.ProjectronPP`` makes: a step
    :math:`f_{t+1} = f_t + \tau_t y_t P_tk(x_t,\cdot)` changes it by
    :math:`-2\tau_t y_t\langle g - f_t, P_tk\rangle + \tau_t^2\|P_tk\|^2` and
    :math:`y_t\langle g, P_tk\rangle \ge 1 - \ell_t(g) - \|g\|\|\delta_t\|`.  A mistake
    (:math:`\tau_t = 1`, :math:`y_tf_t(x_t) \le 0`, :math:`\|\delta_t\| \le \eta`) lowers
    it by at least :math:`2 - 2\ell_t(g) - 2\eta\|g\| - X^2`; a margin update
    (:math:`0 < \tau_t \le 1`, made only when :math:`\tau_t(2l_t - \tau_t\|P_tk\|^2 -
    2\|\delta_t\|/\eta) \ge 0` with :math:`l_t = 1 - y_tf_t(x_t)`, the paper's condition)
    by at least :math:`-2\ell_t(g)` once :math:`\|g\| \le 1/\eta`.  The potential starts at
    :math:`\|g\|^2` and stays :math:`\ge 0`.  It holds for the Projectron too (no margin
    updates).

    Parameters
    ----------
    L : float
        :math:`L \ge 0`.
    f_norm : float
        :math:`\|g\| \ge 0`.
    eta : float
        Threshold on :math:`\|\delta_t\|`, ``>= 0``.
    kappa_max : float, default 1.0
        :math:`X^2 > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On negative inputs, a non-positive ``kappa_max``, :math:`\eta\|g\| > 1` or
        :math:`2 - 2\eta\|g\| - X^2 \le 0`.
    """
    L = _nonnegative(L, "L")
    R = _nonnegative(f_norm, "f_norm")
    eta = _nonnegative(eta, "eta")
    X2 = _positive(kappa_max, "kappa_max")
    if eta * R > 1.0 + NORM_RTOL:
        raise ValueError(f"the Projectron++ bound needs ||g|| <= 1/eta, got eta = {eta!r}, "
                         f"||g|| = {R!r}")
    den = 2.0 - 2.0 * eta * R - X2
    if den <= 0.0:
        raise ValueError(f"the Projectron++ bound needs 2 - 2 eta ||g|| - X^2 > 0, got "
                         f"{den!r}")
    return (R * R + 2.0 * L) / den


def projectron_dictionary_bound(K, eta):
    r"""A certified bound on the Projectron's (and Projectron++'s) dictionary size on a
    stream: the size of a greedy :math:`\eta/2`-cover of the stream's points in the
    kernel's feature space.

    A point joins the dictionary only when its distance to the span of the dictionary,
    :math:`\|\delta_t\|`, exceeds :math:`\eta`; so any two dictionary points are more
    than :math:`\eta` apart (:math:`\|k(x_i,\cdot) - k(x_j,\cdot)\|^2 = k_{ii} + k_{jj} -
    2k_{ij}`), and no ball of radius :math:`\eta/2` holds two of them: :math:`|S|` is at
    most the number of balls of any :math:`\eta/2`-cover of the points.  This is the
    packing argument behind the paper's bound on the dictionary (finite for a continuous
    kernel on a compact set); the cover is computed here, on the stream, instead of the
    paper's covering-number estimate (not reachable here).

    Parameters
    ----------
    K : array_like, shape (T, T)
        Gram matrix of the stream.
    eta : float
        Threshold ``> 0`` (at 0 every distinct point may join: no bound).

    Returns
    -------
    int
        Centers of the greedy cover (each point within :math:`\eta/2` of one).

    Raises
    ------
    ValueError
        If ``K`` is not a symmetric matrix or ``eta <= 0``.
    """
    K = v.kernel_matrix(K)
    eta = _positive(eta, "eta")
    d = np.diag(K)
    r2 = (eta / 2.0) ** 2
    covered = np.zeros(K.shape[0], dtype=bool)
    centers = 0
    for t in range(K.shape[0]):
        if covered[t]:
            continue
        centers += 1
        dist2 = d + d[t] - 2.0 * K[t]
        covered |= dist2 <= r2 * (1.0 + 1e-12)
    return centers
