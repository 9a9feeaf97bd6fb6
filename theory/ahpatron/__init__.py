r"""Mistake bounds of AVP and Ahpatron: Liao, Li, Liao, Hu & Dang, *Ahpatron: A New
Budgeted Online Kernel Learning Machine with Tighter Mistake Bound* (AAAI 2024).

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

The bounds, one module each (every name is importable from here, ``theory.ahpatron.X``):

* :mod:`theory.ahpatron.perceptron`, the kernel Perceptron (Theorems 1 and 2):
  :func:`perceptron_theorem1_bound`, :func:`perceptron_theorem2_bound`.
* :mod:`theory.ahpatron.avp`, AVP (no budget; Theorem 3, Corollaries 1 and 2):
  :func:`avp_theorem3_bound`, :func:`avp_constant_rate_bound`,
  :func:`avp_corollary1_parameters`, :func:`avp_corollary1_bound`,
  :func:`avp_corollary2_parameters`, :func:`avp_corollary2_delta`,
  :func:`avp_corollary2_bound`.
* :mod:`theory.ahpatron.budgeted`, Ahpatron (budget ``B``): :func:`ahpatron_removal_count`,
  :func:`ahpatron_lemma1_bound` (Lemma 1);
  :func:`ahpatron_theorem4_parameters`, :func:`ahpatron_theorem4_conditions`,
  :func:`ahpatron_theorem4_bound` (Theorem 4, eqs. (4) and (10));
  :func:`ahpatron_zeta`, :func:`ahpatron_theorem6_parameters`,
  :func:`ahpatron_theorem6_conditions`, :func:`ahpatron_theorem6_delta`,
  :func:`ahpatron_theorem6_bound` (eq. (11), Theorem 6 and its worked example).
* :mod:`theory.ahpatron.comparator`, Theorem 5 (kernel alignment dominates the best
  hinge loss): :func:`ahpatron_check_theorem5`; comparator :func:`comparator_hinge_loss`.
* :mod:`theory.ahpatron.baselines`, bounds of other algorithms as the paper quotes
  them: :func:`forgetron_radius`, :func:`forgetron_mistake_bound` (eq. (1)),
  :func:`rbp_max_radius`, :func:`rbp_expected_mistake_bound` (eq. (2)),
  :func:`bogd_expected_mistake_bound`, :func:`pomdr_mistake_bound` (eq. (3)).
* :mod:`theory.ahpatron.projectron`, the Projectron and Projectron++ (Orabona, Keshet &
  Caputo 2009; not in the paper, checked by ``okl bounds`` beside its baselines):
  :func:`projectron_mistake_bound`, :func:`projectronpp_mistake_bound`,
  :func:`projectron_dictionary_bound`.

The paper's text read here contains no appendix, so the proofs of Lemma 1 and
Theorems 3-6 are not available; where a docstring says "reconstructed", the argument
was redone from the main text (it reproduces every printed constant it mentions).

Depends only on numpy and scipy.
"""
from . import avp, baselines, budgeted, comparator, perceptron, projectron
from ._checks import LAM_RTOL, NORM_RTOL  # noqa: F401
from .avp import *  # noqa: F401,F403
from .baselines import *  # noqa: F401,F403
from .budgeted import *  # noqa: F401,F403
from .budgeted import THEOREM4_C  # noqa: F401
from .comparator import *  # noqa: F401,F403
from .perceptron import *  # noqa: F401,F403
from .projectron import *  # noqa: F401,F403

#: The parts, in the paper's order; ``__all__`` is theirs.
PARTS = (perceptron, avp, budgeted, comparator, baselines, projectron)
__all__ = [name for part in PARTS for name in part.__all__]
