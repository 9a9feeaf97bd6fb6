r"""Regret bounds of Kernel-AWV and PKAWV: Jezequel, Gaillard & Rudi, *Efficient online
learning with kernels for adversarial large scale problems* (NeurIPS 2019).

Notation of the paper: ``n`` rounds, inputs :math:`x_t`, outputs
:math:`|y_t| \le B`, a kernel with :math:`\sup_x k(x, x) \le \kappa^2` (``kappa2``),
the kernel matrix :math:`K_{nn}`, the regularization :math:`\lambda > 0` (``lam``),
the covariance operator :math:`C_t = \sum_{s \le t} \phi(x_s) \otimes \phi(x_s)`,
:math:`A_t = C_t + \lambda I`, a projection :math:`P_t` onto the subspace
:math:`\tilde{\mathcal H}_t` used at round ``t`` and :math:`\tilde A_t = P_t C_t P_t + \lambda I`.
The regret against :math:`f \in \mathcal H` is eq. (1),
:math:`R_n(f) = \sum_t (y_t - \hat y_t)^2 - \sum_t (y_t - f(x_t))^2`.

Because every bound has the form :math:`\lambda\|f\|^2 + C`,
:math:`R_n(f) - \lambda\|f\|^2` is largest at the kernel ridge solution
:math:`f^\star = \arg\min_f \sum_t (y_t - f(x_t))^2 + \lambda\|f\|^2`
(:func:`theory.comparators.kernel_ridge_comparator`): checking a bound at :math:`f^\star`
checks it for every :math:`f`.

The bounds, one module each (every name is importable from here, ``theory.awv.X``):

* :mod:`theory.awv.kernel_awv`, Kernel-AWV, eq. (3): :func:`online_leverage` (the
  quantities of Lemma 10), :func:`kernel_awv_forecasts` (eq. (3) in closed form),
  :func:`kernel_awv_regret` (the exact regret identity behind Proposition 1),
  :func:`proposition1_bound`, :func:`proposition2_bound`, :func:`proposition2_refined`.
* :mod:`theory.awv.projections`, the projections: :func:`approximation_mu`
  (:math:`\mu = \|(I - P) C_n^{1/2}\|^2`), :func:`nystrom_projected_kernel`,
  :func:`taylor_projected_kernel`, :func:`taylor_mu`, :func:`nystrom_mu`,
  :func:`taylor_basis_size`.
* :mod:`theory.awv.pkawv`, PKAWV with any projections: :func:`pkawv_forecasts`
  (eq. (4)); Theorem 9 (Appendix B, any sequence of projections):
  :func:`theorem9_terms_fixed`, :func:`theorem9_terms_nested`, :func:`theorem9_bound`;
  Theorem 3 (fixed projection): :func:`theorem3_bound`.
* :mod:`theory.awv.taylor`, Taylor features (Section 3.1): :func:`lemma13_bound`,
  :func:`lemma13_pointwise_bound`, :func:`theorem4_M`, :func:`theorem4_condition`,
  :func:`theorem4_bound`, :func:`theorem4_chain` (every step of the proof in
  Appendix D.2), :func:`theorem4_cost`.
* :mod:`theory.awv.nystrom`, Nystrom / KORS (Section 3.2): :func:`proposition5_beta`,
  :func:`proposition5_size_bound`, :func:`theorem6_bound`, :func:`corollary7`,
  :func:`corollary8`.

Typos and reconstructions (each repeated where it matters)
----------------------------------------------------------
* Theorem 9's statement drops :math:`\lambda\|f\|^2` and the sum over ``t`` of the
  approximation terms and divides by :math:`\lambda` instead of :math:`\lambda^2`; its
  proof (eqs. (15), (23), (27)) gives
  :math:`R_n(f) \le \lambda\|f\|^2 + \sum_t y_t^2\langle\tilde A_t^{-1}P_t\phi(x_t),
  P_t\phi(x_t)\rangle + \sum_{t=1}^n (\mu_t + \lambda)\, t\mu_t B^2/\lambda^2`, used here
  (Theorem 3 also has :math:`\lambda^2`).
* The proof of Proposition 1 (Appendix C.1) drops the factor :math:`y_t^2 \le B^2` of
  Theorem 9's first term; the statement has :math:`B^2`.
* Proof of Lemma 13 (Appendix "E.3", i.e. F.3): the mean-value remainder is that of
  :math:`e^s` at :math:`s = x^\top x'/\sigma^2`, :math:`e^c s^{M+1}/(M+1)!` with ``c``
  between 0 and ``s``; the printed :math:`c^{M+1}` and :math:`e^{-s/\sigma^2}` are typos.
  With :math:`|c| \le \|x\|\|x'\|/\sigma^2 \le (\|x\|^2 + \|x'\|^2)/(2\sigma^2)` the
  Gaussian prefactor absorbs :math:`e^c`, giving the pointwise bound
  :math:`(|x^\top x'|/\sigma^2)^{M+1}/(M+1)!` (:func:`lemma13_pointwise_bound`).
* Theorem 4: the proof (eqs. (33)-(34)) gives the constant
  :math:`1 + 4/9 = 13/9`; the statement rounds it up to :math:`3/2` (both available).
  The proof assumes :math:`M \ge 1` (:math:`8R^2/\sigma^2 > 0` makes the prescribed M at
  least 1) and the Gaussian kernel's :math:`k(x, x) = 1`.
* Theorem 6 bounds :math:`\sum_t \langle \tilde A_t^{-1}P_t\phi_t, P_t\phi_t\rangle` by
  :math:`\log\det(I + K_{nn}/\lambda)`; this telescoping needs nested dictionaries
  :math:`\mathcal I_1 \subset \dots \subset \mathcal I_n` (true for KORS, which never
  drops a point): :math:`P_{t-1} C P_{t-1}` is a compression of :math:`P_t C P_t`.
* Proof of Corollary 7, eq. (36): the ``+ 1`` in :math:`n^2(m^{(\gamma-1)/\gamma} + 1)/\lambda`
  is a typo (with it the term is at least :math:`n^2/\lambda` and neither regime follows);
  :math:`\mu n |\mathcal I_n|/\lambda \le n^2 m^{1 - 1/\gamma}/\lambda` is used.  The
  second bullet of the proof of Corollary 8 repeats the first one; the statement's
  :math:`\lambda = n m^{-1/(2\gamma)}` balances :math:`\lambda` and
  :math:`n^2 m^{-1/\gamma}/\lambda`.

Depends only on numpy and scipy.
"""
from . import kernel_awv, nystrom, pkawv, projections, taylor
from .kernel_awv import *  # noqa: F401,F403
from .nystrom import *  # noqa: F401,F403
from .pkawv import *  # noqa: F401,F403
from .projections import *  # noqa: F401,F403
from .projections import NYSTROM_PSD_RTOL, RANK_RTOL  # noqa: F401
from .taylor import *  # noqa: F401,F403

# autodoc documents a package's data from the package's own comments: Theorem 4's two
# constants (defined in theory.awv.taylor) are bound here again for the API reference.
#: Constant in front of :math:`B^2 \sum_j \log(1 + \lambda_j/\lambda)` in Theorem 4's statement.
THEOREM4_CONSTANT = taylor.THEOREM4_CONSTANT
#: The constant its proof gives: 1 + 4/9 (eqs. (33)-(34)).
THEOREM4_PROOF_CONSTANT = taylor.THEOREM4_PROOF_CONSTANT

#: The parts, in the paper's order; ``__all__`` is theirs.
PARTS = (kernel_awv, projections, pkawv, taylor, nystrom)
__all__ = [name for part in PARTS for name in part.__all__]
