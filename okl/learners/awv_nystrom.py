r"""PKAWV with Nyström projections: Section 3.2 and Appendix H (Algorithm 2) of
Jézéquel, Gaillard & Rudi, *Efficient online learning with kernels for adversarial
large scale problems* (2019), with the KORS dictionary of Calandriello, Lazaric &
Valko, *Efficient second-order online kernel learning with adaptive embedding*
(NeurIPS 2017).  Built by ``okl.PKAWV(basis="nystrom", ...)``.

Imports go one way: this module imports ``okl.learners.awv`` (for :class:`PKAWV`) and
registers its class there; KORS itself is ``okl.learners.kors`` (typed core
``okl.learners._kors``), below both and shared with Pros-N-KONS and Sketched-KONS.
"""
from __future__ import annotations

import numpy as np

from okl._learner import Field, fields
from okl.learners._awv_nystrom import DEPENDENCE_TOL, NystromAWVCore
from okl.learners.awv import PKAWV, _basis, _Forecaster
from okl.learners.base import KORSDictionaryView
from okl.params import Choice, Real, Seed

__all__ = ["DEPENDENCE_TOL"]

_FORECASTERS = {"awv": False, "krr": True}      # value: the core's ``krr`` flag

# DEPENDENCE_TOL (1e-10, defined by the typed core): a sampled point joins only if the
# Schur complement of its column in ``A = K^T K + lam K_II`` exceeds
# ``DEPENDENCE_TOL * (1 + d_t)`` (see the Notes of ``_PKAWVNystrom``)


class _PKAWVNystrom(KORSDictionaryView, _Forecaster, PKAWV, NystromAWVCore):
    r"""PKAWV (4) on ``H~_t = Span{phi(x): x in I_t}`` (7), with the KORS dictionary
    ``I_1 ⊂ I_2 ⊂ ...`` (Section 3.2, Proposition 5, Theorem 6) and the Cholesky
    implementation of Appendix H, Algorithm 2.  Any okl kernel.

    Round ``t``, with ``x_t`` received:

    1. **KORS** (Calandriello et al. 2017; Proposition 5).  With the dictionary
       ``I_{t-1}`` and its weights ``w_j = 1/sqrt(p_j)`` (``S = diag(w)``), the
       ridge leverage of ``x_t`` under the temporary dictionary ``I_{t-1} + (t, 1)``

       .. math::

           \tilde\tau_t = \frac{1+\varepsilon}{\mu}\Big(k_{tt} - \bar k^\top
               (\bar S \bar K \bar S + \mu I)^{-1} \bar k\Big), \qquad
           \bar k = \bar S\, [k_{I}(x_t); k_{tt}],

       equals ``(1 + eps) r_t / (r_t + mu)`` with ``r_t = k_tt - w^T (S K_II S + mu I)^{-1} w``,
       ``w = S k_I(x_t)`` (block inversion), computed from the Cholesky factor of
       ``S K_II S + mu I`` (kept by appended rows: KORS never drops a point).
       ``p_t = min(beta tau_t, 1)``; ``z_t = [u_t < p_t]`` with ``u_t`` the learner's
       seeded ``uniform()`` draw of round ``t``; if ``z_t = 1``, ``x_t`` joins with
       weight ``1/sqrt(p_t)``.
    2. **Forecast** (4) on ``I_t``: ``yhat_t = b_t^T A_t^{-1} K_t^T (Y_{t-1}, 0)`` with
       ``K_t = (k(x_s, x~_j))_{s <= t, j in I_t}``, ``A_t = K_t^T K_t + lam K_{I_t I_t}``
       and ``b_t = k_{I_t}(x_t)`` (Algorithm 2's ``alpha_t`` and ``yhat_t``).
    3. **Update** (Algorithm 2): ``R_t = cholup(R_{t-1}, k_{I_{t-1}}(x_t), '+')``; if
       ``x_t`` joined, with ``a_t = (k(x_s, x_t))_{s <= t}``,
       ``c_t = K_t^T a_t + lam b_t``, ``d_t = a_t^T a_t + lam k(x_t, x_t)``,
       ``g_t = sqrt(1 + d_t)``: ``R_t = [[R_t, 0], [0, 0]]``, then
       ``cholup(R_t, (c_t/(1+g_t), g_t), '+')`` and
       ``cholup(R_t, (c_t/(1+g_t), -1), '-')`` (since ``u u^T - v v^T = [[0, c], [c^T, d]]``).

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        Any kernel (``k(x, x)`` must be bounded on the data for Theorem 6's ``kappa``).
    basis : "nystrom"
    lam : float > 0, default 1.0
        The ``lambda`` of (4).  Theorem 6 assumes ``lam >= mu``.
    mu : float > 0, default 1.0
        KORS regularization (the ``gamma`` of Calandriello et al.): Proposition 5
        gives ``||(I - P_t) C_t^{1/2}||^2 <= mu`` and ``|I_n| <= 9 d_eff(mu) log(2n/delta)^2``.
        Corollary 7 takes ``mu = n m^{-1/gamma}`` for a dictionary of size ``m``.
    beta : float > 0 or inf, default 1.0
        KORS oversampling: ``p_t = min(beta tau_t, 1)``.  Proposition 5 needs
        ``beta = 12 log(n / delta)``; the paper's experiments use ``mu = beta = 1``,
        ``eps = 0.5``.  ``beta = inf``: every point of positive leverage is sampled.
    eps : float in (0, 1), default 0.5
        KORS accuracy ``epsilon`` (Proposition 5 is stated with ``eps = 1/2``).
    forecaster : {"awv", "krr"}, default "awv"
        ``"awv"``: (4); ``"krr"``: projected kernel ridge regression (no ``f(x_t)^2``
        term, the "Projected-KRR" of the experiments): ``yhat_t = b_t^T
        (K_{t-1}^T K_{t-1} + lam K_II)^{-1} K_{t-1}^T Y_{t-1}`` on the same ``I_t``.
    task : {"regression", "classification"}, default "regression"
        ``"classification"``: labels in {-1, +1}, predictions ``sign(yhat_t)``, mistakes
        ``y_t yhat_t <= 0``; the forecaster is unchanged (it regresses the labels).
    seed : int, Generator, SeedSequence or None
        KORS' Bernoulli draws: exactly one ``uniform()`` per round (``u_t``), drawn
        at the end of round ``t - 1`` (the first at the first example) so that
        ``decision_function`` can show the next round's forecast.

    Notes
    -----
    *Computation.*  ``K_t^T (Y_{t-1}, 0) = q_{t-1}`` and the forecast is computed from
    ``L`` (``L L^T = A_{t-1}``, rows ``s < t``) without changing any state, so that
    ``decision_function(x)`` is exactly the forecast of a next round with input ``x``:
    with ``h = L^{-1} b``, ``g = L^{-1} q``, the projected KRR forecast is ``h^T g`` and
    (4) is ``h^T g / (1 + ||h||^2)`` (Sherman-Morrison for the row ``b_t`` of round
    ``t``); when ``x_t`` joins, the bordered system is solved by block elimination
    with ``c^0 = K_{t-1}^T a + lam b`` (O(t m) for ``a`` and ``c^0``, the
    ``n d_eff`` of App. H).  ``update`` then applies Algorithm 2's factor updates
    (rank-one Givens update, LINPACK ``dchud``; downdate by Stewart's ``dchdd``,
    which checks positive definiteness before touching the factor; both in typed
    Cython over BLAS ``drot``/``dtrsv``).  A round costs O(m^2 + m d) without a new
    point and O(t (m + d) + m^2) with one; memory O(t (m + d) + m^2): Algorithm 2
    needs every past input and ``K_{t,I}`` for ``c_t``.

    *Choices and paper typos.*

    * Algorithm 2 writes ``a_t = (k(x_t, x_1), ..., k(x_t, x_t))`` for the first
      ``cholup``; the vector there is ``(k(x_t, x~_j))_{j in I_{t-1}}`` (the new row
      of ``K_t``; the code of App. H.2 passes ``KnM[-1, :]``).  ``b_t`` in the
      definition of ``c_t`` is the row against ``I_{t-1}``.
    * KORS weights: App. H.2's code multiplies the kernel column by the weight
      ``1/p_j`` on both sides (``S_jj = 1/p_j``); KORS (Calandriello et al.) uses the
      selection matrix ``S_jj = 1/sqrt(p_j)`` (so that ``E[S S^T] = I``), which
      Proposition 5's guarantee is about.  We follow KORS.
    * App. H.2 calls KORS with ``lbd = lambda`` (the experiments have ``mu = lambda
      = 1``); here ``mu`` is KORS' own parameter, as in Proposition 5.
    * A sampled point whose new column is linearly dependent on the dictionary up to
      round-off (Schur complement ``s <= DEPENDENCE_TOL (1 + d_t)`` in ``A`` without
      the row of round ``t``; ``s >= lam * ALD residual`` of ``x_t``) is not added
      to the dictionary nor to KORS: ``H~_t`` would not change, and ``A_t`` would be
      singular (e.g. an exact repeat of a dictionary point).  Such rounds are
      counted in ``extras["rejected"]``.  Should the downdate still fail by
      round-off, the factor is restored and bordered instead
      (``extras["downdate_fallbacks"]``).

    ``Trace.scores`` holds ``yhat_t``, ``Trace.losses`` the square loss
    ``(y_t - yhat_t)^2`` (both tasks), ``Trace.budget`` ``|I_t|``.  ``Trace.extras``:
    ``"dictionary_size"``, ``"added"``, ``"rejected"``, ``"downdate_fallbacks"``,
    ``"sum_p"`` (``sum_t p_t``, the expected number of draws), and, as for the Taylor
    basis, ``"log_det"`` = ``sum_t log(1 + q_t)`` and ``"sum_y2_leverage"`` =
    ``sum_t y_t^2 q_t / (1 + q_t)`` with ``q_t = <(P_t C_{t-1} P_t + lam I)^{-1} P_t
    phi(x_t), P_t phi(x_t)>`` -- the latter is the first term of Theorem 9
    (``<A~_t^{-1} P_t phi(x_t), P_t phi(x_t)>``).  All accumulated over the
    learner's life.
    """

    basis = _basis("nystrom", "_PKAWVNystrom")
    mu = Real(1.0, low=0, low_open=True)
    beta = Real(1.0, low=0, low_open=True, allow_inf=True)
    eps = Real(0.5, low=0, high=1, low_open=True, high_open=True)
    forecaster = Choice("awv", _FORECASTERS, core="krr")
    seed = Seed()
    _param_order = ("kernel", "basis", "lam", "mu", "beta", "eps", "forecaster", "task", "seed")

    _blas_in_round_loop = True     # m x m triangular solves and rotations each round

    # -- hooks ----------------------------------------------------------------------

    def _allocation(self):
        return 64, True

    def _begin_stream(self, n_rounds):
        self._nystrom_begin(n_rounds)

    _extras_fields = fields(
        Field("dictionary_size", get="_support_size"), ("added", "n_added"),
        ("rejected", "n_rejected"), ("downdate_fallbacks", "n_fallback"), "sum_p", "log_det",
        ("sum_y2_leverage", "sum_y2_lev"))

    def _state(self):
        return self._nystrom_state()

    def _restore(self, state):
        self._nystrom_restore(state)

    # -- inspection -----------------------------------------------------------------

    def ridge_coefficients(self) -> np.ndarray:
        """``alpha = A_t^{-1} K_t^T Y_t``: the minimizer over ``H~_t`` of
        ``sum_{s<=t} (y_s - f(x_s))^2 + lam ||f||^2`` (``g^_{t+1}`` of (10)) as
        ``sum_j alpha_j k(x~_j, .)``."""
        L = self.factor
        if L.shape[0] == 0:
            return np.empty(0)
        import scipy.linalg as sl

        z = sl.solve_triangular(L, self.ridge_target, lower=True)
        return sl.solve_triangular(L.T, z, lower=False)


# get_params (repr, pickles) lists basis first; the constructor takes the kernel first
_PKAWVNystrom._param_names = ("basis",) + tuple(
    n for n in _PKAWVNystrom._param_names if n != "basis")
PKAWV._basis_classes["nystrom"] = _PKAWVNystrom
