"""POMD and POMDR: Li & Liao, *Improved Kernel Alignment Regret Bound for Online Kernel
Learning* (AAAI 2023), Algorithm 1, eqs. (2)-(10) and the appendix "Computing"."""
from __future__ import annotations

import math
import warnings


from okl._validation import check_int, check_real
from okl.kernels import Gaussian
from okl.params import Choice, Int, KernelParam, Real, Seed
from okl.learners._pomdr import POMDRCore
from okl.learners import blas as _blas
from okl.learners.base import HorizonLearner, KernelExpansion, OnlineLearner, _unlocked
from okl.registry import register_learner

__all__ = ["POMD", "POMDR", "default_B0", "budget_B0"]

_DICTIONARIES = {"cholesky": 0, "inverse": 1}


def default_B0(T: int, c: float = 15.0) -> int:
    """``B0 = ceil(c ln T)`` (at least 1): the rule after Theorem 2 (``c > 4``); the
    experiments use ``c = 15`` ("we set B0 = ceil(15 ln T)", and Table 3's text)."""
    T = check_int(T, "T", low=1)
    c = check_real(c, "c", low=0, low_open=True)
    return max(1, math.ceil(c * math.log(T)))


def budget_B0(T: int, B: int) -> tuple[int, str | None]:
    """The ``B0`` POMDR uses when none is given, and why, for horizon ``T`` and budget ``B``.

    Algorithm 1 needs ``B0 < B`` (OMDR starts at ``|S| = B0`` and halves at ``B``);
    Theorem 2 needs ``B0`` above a data-dependent ``O(ln T)`` level, for which the
    paper sets ``ceil(c ln T)``, ``c > 4``, and its experiments ``c = 15``
    (:func:`default_B0`).  Where ``ceil(15 ln T) < B`` that is ``B0``.  Where it is
    not -- Table 2 of the Ahpatron paper (Liao et al., AAAI 2024) runs POMDR with ``B =
    150`` on a9a, ``ceil(15 ln T) = 156`` -- ``B0 = B / 2``: the size OMDR's halvings
    return ``S`` to, so POMD hands over at the level every OMDR cycle starts from (each
    OMDR phase then runs from ``B/2`` to ``B``, the first one included).  Returns ``(B0,
    note)`` where ``note`` explains a fallback (``None`` when the paper's rule applies); it
    also says when ``B/2 <= 4 ln T``, below the ``c > 4`` of Theorem 2's rule, where the
    theorem's condition on ``B0`` is not known to hold.  (The authors' ``POMDR.R`` of the
    Ahpatron repository, used for the Ahpatron paper's tables, sets ``round(10 ln T)``,
    104 on a9a; ``okl.experiments.ahpatron`` passes that ``B0`` explicitly.)
    """
    rule = default_B0(T)
    if rule < B:
        return rule, None
    B0 = B // 2
    note = (f"POMDR: the default B0 = ceil(15 ln T) = {rule} for T = {T} is not below "
            f"B = {B} (Algorithm 1 needs B0 < B); using B0 = B/2 = {B0}, the size OMDR "
            f"halves back to.  Pass B0 to choose another value.")
    if B0 <= 4.0 * math.log(T):
        note += (f"  B0 = {B0} <= 4 ln T = {4.0 * math.log(T):.1f}: below the rule "
                 f"ceil(c ln T), c > 4, that Theorem 2 asks of B0.")
    return B0, note


class _POMDBase(KernelExpansion, HorizonLearner, OnlineLearner, POMDRCore):
    """Shared surface of POMD and POMDR: the horizon ``T``, extras and pickling."""

    _blas_in_round_loop = True  # triangular solves / dgemv against the ALD dictionary

    kernel = KernelParam()
    U = Real(25.0, low=0, low_open=True)
    M = Int(15, low=1)
    zeta = Real(0.5, low=0, high=1, low_open=True)
    T = Int(None, low=1, role="horizon", none="run takes it from its stream", core=False)
    D = Real(None, low=0, low_open=True, none="kernel.sup_diag (D_)", core=False)
    ald_scale = Real(None, low=0, low_open=True, none="sqrt(D), as in (5) (ald_scale_)")
    dictionary = Choice("cholesky", _DICTIONARIES, core="dict_kind")
    seed = Seed()

    def _check_params(self):
        if self.D is None and not math.isfinite(self.kernel.sup_diag):
            raise ValueError(f"D must be given for an unbounded kernel ({self.kernel!r} has "
                             f"sup k(x, x) = inf); Algorithm 1 needs k(x, x) <= D")

    def _configure(self):
        super()._configure()
        if self.T is not None:
            # the default B0's warning names the constructor's caller (6 frames up)
            B0, thr = self._settings_for(self.T, stacklevel=6)
            self._pomdr_set_horizon(self.T, 0 if B0 is None else B0, thr)

    # -- the horizon T ------------------------------------------------------------------

    def _budget_B0(self, T, stacklevel):
        return None  # POMD: no switch to OMDR

    def _settings_for(self, T, stacklevel=4):
        """``(B0, threshold)`` for the horizon ``T``; ValueError when they are invalid.

        A function of ``T`` and the constructor's parameters, computed once per ``T``
        (every learning call checks its horizon; the default ``B0``'s fallback warns
        once, ``stacklevel`` frames above ``_budget_B0``)."""
        cached = self.__dict__.get("_settings_cache")
        if cached is not None and cached[0] == T:
            return cached[1]
        B0 = self._budget_B0(T, stacklevel)
        thr = self.ald_scale_ * float(T) ** (-self.zeta)
        self._settings_cache = (T, (B0, thr))
        return B0, thr

    _horizon_depends = "The ALD threshold T^-zeta, B0 and line 8 of Algorithm 1"

    def _horizon_for(self, n_rounds):
        T = super()._horizon_for(n_rounds)
        self._settings_for(T)   # validates B0 < B for this T
        return T

    def _checked(self, X, y):
        stream, labels = super()._checked(X, y)
        T = self.T
        if T is None or self.n_rounds + stream.T > T:
            self._horizon_for(stream.T)     # raises past T; checks B0 for a run's own T
        return stream, labels               # (a given T's B0 was checked at construction)

    def _begin_stream(self, n_rounds):
        # the callers checked the horizon (``_checked``, ``HorizonLearner.learn_one``)
        if self._horizon() <= 0:        # a first run without T: its stream is the horizon
            T = self._horizon_for(n_rounds)
            B0, thr = self._settings_for(T)
            self._pomdr_set_horizon(T, 0 if B0 is None else B0, thr)
        self._pomdr_begin_records(n_rounds)

    @_unlocked
    def learn_one(self, x, y=None) -> None:
        """Learn from one example (see ``OnlineLearner.learn_one``; ``T`` is required).

        A float64 row (1-D, or 1-row CSR with int32 indices) and a float label take
        one typed call (``_pomdr_learn_one``: checks, horizon, records and the round
        under the learner's lock); anything else, or a call that must raise, takes
        the general path with its messages."""
        if self.T is not None:
            mode = _blas._BLAS_MODE
            if mode == "fast" or mode == "none":
                done = self._pomdr_learn_one(self._okl_lock, x, y, mode == "fast")
                if done is not None:
                    if not done:
                        raise MemoryError(f"{type(self).__name__} could not grow its memory")
                    return
        super().learn_one(x, y)

    # -- inspection ---------------------------------------------------------------------

    @property
    def D_(self) -> float:
        """``D`` in use (``kernel.sup_diag`` when ``D`` is None)."""
        return float(self.kernel.sup_diag) if self.D is None else self.D

    @property
    def ald_scale_(self) -> float:
        """ALD scale in use (``sqrt(D)`` when ``ald_scale`` is None)."""
        return math.sqrt(self.D_) if self.ald_scale is None else self.ald_scale

    @property
    def threshold_(self):
        """The ALD threshold ``ald_scale * T^-zeta`` on ``sqrt(alpha_t)`` (None until T is known)."""
        T = self.horizon_
        return None if T is None else self._settings_for(T)[1]

    @property
    def norm_(self) -> float:
        """``||f'_t||_H`` (kept incrementally, appendix "Computing ||f'_t||")."""
        return math.sqrt(max(self.norm_sq, 0.0))

    def _extras(self):
        tb = self.t_bar
        out = {
            "sum_delta": self.sum_delta,
            "sum_delta_tilde": self.sum_delta_tilde,
            "rate_sum": self.rate_sum,
            "lam": self.lam_next,
            "t_bar": math.inf if tb < 0 else int(tb),
            "omdr": bool(self.omdr),
            "halvings": self.n_halv,
            "halving_rounds": self._halving_rounds(),
            "ald_added": self.n_added,
            "ald_projected": self.n_projected,
            "n_updates": self.n_updates,
            "norm": math.sqrt(max(self.norm_sq, 0.0)),
            "T": self.horizon_,
            "B0": self.b0 if self.b0 > 0 else None,
            "threshold": self.threshold_,
        }
        out.update(self._pomdr_records())
        return out

    def _state(self):
        return self._pomdr_state()

    def _restore(self, state):
        self._pomdr_restore(state)


_COMMON_DOC = r"""
    Rounds (``t = 1, ..., T``), with ``f'_0 = 0``, ``S_1 = {}`` and the optimistic gradient
    of the last ``M_t = min(t - 1, M)`` examples (every example, whatever its loss)

    ``grad_bar_t = -(1/M_t) sum_{r=1}^{M_t} y_{t-r} k(x_{t-r}, .)``, ``grad_bar_1 = 0``:

    * (2) ``f_t = f'_{t-1} - lambda_t grad_bar_t``, so
      ``f_t(x_t) = f'_{t-1}(x_t) + lambda_t / M_t sum_r y_{t-r} k(x_{t-r}, x_t)``
      (appendix, "Computing f_t(x_t)"); predict ``sign(f_t(x_t))``; hinge loss
      ``l_t = max(0, 1 - y_t f_t(x_t))``.  ``decision_function`` evaluates this ``f_t``
      (the next round's hypothesis, optimistic term included).
    * If ``l_t > 0`` (``grad_t = -y_t k(x_t, .)``), POMD: the ALD residual (4)
      ``alpha_t = k(x_t, x_t) - k_S^T K_S^{-1} k_S`` (``alpha_t = D`` for ``S_t = {}``,
      footnote 2) and the test (5) ``sqrt(alpha_t) <= ald_scale * T^-zeta``
      (``ald_scale = sqrt(D)`` in (5)).  If it holds, (6): the replaced gradient
      ``grad_hat_t = -y_t Phi_S beta*_t``, ``beta*_t = K_S^{-1} k_S``, i.e. the
      coefficients of ``S`` grow by ``lambda_t y_t beta*_t``; otherwise (7): ``x_t`` joins
      ``S`` with coefficient ``lambda_t y_t``.  Both end with the projection
      ``f'_t = min{1, U / ||fbar'_t||} fbar'_t`` onto ``||f|| <= U`` ("Solution of OMD").
    * Learning rate (before OMDR, the formula above "OMDR")
      ``lambda_t = U / sqrt(3 D + sum_{tau < t} delta~_tau)``,
      ``delta~_tau = max(||grad~_tau - grad_bar_tau||^2 - ||grad_bar_tau||^2, 0)`` with
      ``grad~_tau`` the gradient actually used (``grad_hat`` under ALD, else ``grad``;
      0 on rounds without loss).  In closed form (appendix):
      ``k(x,x) - 2 y_t g_t`` for ``grad`` and ``beta^T K_S beta - 2 y_t beta^T v_t / M_t``
      for ``grad_hat``, with ``g_t = (1/M_t) sum_r y_{t-r} k(x_t, x_{t-r})`` and
      ``v_t = sum_r y_{t-r} k_S(x_{t-r})``.
"""


@register_learner(
    paper="pomdr", task="classification",
    examples=[dict(kernel=Gaussian(1.0), M=4, U=5.0, T=600)],
    bounds="okl.experiments.bounds.pomdr:pomdr")
class POMD(_POMDBase):
    __doc__ = r"""POMD, Projected Optimistic Mirror Descent: Algorithm 1 of Li & Liao
    (AAAI 2023) without the switch to OMDR (Remark 1: "if we always execute POMD").

    The support set is maintained by the ALD condition only, so it is unbudgeted (Theorem 1
    bounds it: ``O(ln T)`` under exponential eigenvalue decay).
""" + _COMMON_DOC + r"""
    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        Must be bounded, ``k(x, x) <= D`` (Gaussian, Laplacian); for the linear and
        polynomial kernels pass ``D``.
    U : float > 0, default 25.0
        Radius of ``H = {f : ||f||_H <= U}`` (the experiments' 25).
    M : int >= 1, default 15
        Window of the optimistic gradient (the experiments' 15).
    zeta : float in (0, 1], default 0.5
        ALD threshold exponent in (5) (the experiments use 0.5 or 2/3; Theorem 2 takes 1).
    T : int >= 1 or None, default None
        The horizon.  ``None``: ``run`` takes it from its stream (one ``run`` then learns
        the whole horizon).  Required for ``learn_one`` / ``partial_fit`` (ValueError naming
        ``T``); learning more than ``T`` rounds raises ValueError.
    D : float > 0 or None, default None
        ``sup_x k(x, x)`` (``kernel.sup_diag`` when None; must be finite).
    ald_scale : float > 0 or None, default None
        The ALD threshold is ``ald_scale * T^-zeta`` on ``sqrt(alpha_t)``.  ``None`` is (5),
        ``sqrt(D)``; the experiments state "we set the threshold 10 T^-zeta" (``10``).
    dictionary : {"cholesky", "inverse"}, default "cholesky"
        How ``K_S`` is kept for (4) and ``beta*``: ``"inverse"`` is the paper's own
        (appendix, "the second approach": the Projectron rank-one update of
        ``K_S^{-1}``, ``okl.GramInverse``); ``"cholesky"`` keeps ``K_S = L L^T``
        (``okl.GramCholesky``): ``alpha = k(x,x) - ||L^{-1} k||^2``,
        ``beta* = L^{-T} L^{-1} k`` -- the same quantities in exact arithmetic at the same
        ``O(|S|^2)`` cost, without the drift of an explicit inverse when ``K_S`` is
        ill-conditioned (the ALD test admits residuals down to ``D T^-2 zeta``).
        ``tests/test_pomdr.py`` checks both against the same oracle and the residuals
        against high-precision determinant ratios.
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    See :class:`POMDR` for the reconstructions (the ``3 D`` in the learning rate, the
    appendix's typos) and for ``Trace.extras``.
    """

    def _allocation(self):
        return 64, True     # no budget: S grows whenever the ALD test fails


@register_learner(
    paper="pomdr", task="classification",
    examples=[dict(kernel=Gaussian(1.0), B=12, B0=5, M=3, T=600, c=0.1)],
    bounds="okl.experiments.bounds.pomdr:pomdr")
class POMDR(_POMDBase):
    __doc__ = r"""POMDR: Algorithm 1 of Li & Liao, *Improved Kernel Alignment Regret Bound for
    Online Kernel Learning* (AAAI 2023): POMD, then OMDR once ``|S| = B0``.
""" + _COMMON_DOC + r"""
    * Line 17: when ``|S_{t+1}| = B0`` (an ALD addition), ``t_bar = t + 1``.  Line 8: the
      POMD branch runs while ``t_bar >= T`` (``t_bar = +inf`` initially); from round
      ``t_bar`` on (when ``t_bar < T``) every round is OMDR.
    * OMDR, (8): if ``l_t > 0``, ``f'_t = Proj(f'_{t-1} + lambda_t y_t k(x_t, .))`` and
      ``x_t`` joins ``S`` (no ALD test).  Line 22: when ``|S_{t+1}| = B`` the newest half
      ``tau_{B/2+1..B}`` is removed and each removed coefficient is added to the kept
      vector nearest to it, ``argmax_{i <= B/2} k(x_{tau_i}, x_{tau_j})`` (9); the result
      is rescaled to ``||f'_t|| = U`` and the learning rate is reset, (10):
      ``lambda_t = c U / sqrt(3 D + sum_{tau = t_j + 1}^{t - 1} delta_tau)``.  Between
      ``t_bar`` and the first halving the POMD rate continues (the proof of Theorem 2,
      Case 2: "for ``t <= t_1`` the regret bound is same with Case 1").

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        Must be bounded, ``k(x, x) <= D`` (Gaussian, Laplacian); for the linear and
        polynomial kernels pass ``D``.
    U : float > 0, default 25.0
        Radius of ``H = {f : ||f||_H <= U}`` (the experiments' 25).
    B : int, default 400
        Budget of OMDR: even, ``> B0`` (the experiments' 400).
    B0 : int >= 1 or None, default None
        ``|S|`` at which POMD hands over to OMDR.  ``None``: ``ceil(15 ln T)`` (the
        experiments; Theorem 2 asks ``ceil(c ln T)`` with ``c > 4``; see
        :func:`default_B0`) where that is below ``B``, else ``B / 2`` with a
        ``UserWarning`` (the Ahpatron paper's ``B = 150`` on a9a: ``ceil(15 ln T) =
        156``); see :func:`budget_B0`.  A given ``B0`` must be ``< B`` (ValueError naming ``B0``
        otherwise).
    M : int >= 1, default 15
        Window of the optimistic gradient (the experiments' 15).
    zeta : float in (0, 1], default 0.5
        ALD threshold exponent in (5) (experiments: 0.5 or 2/3; Theorem 2: 1).
    c : float > 0, default 1.0
        Multiplier of the reset learning rate (10), used after each halving.  1 is
        Algorithm 1; the experiments "multiply by a constant c in {0.05, 0.1} on the
        learning rate lambda_t (see (10))".
    T : int >= 1 or None, default None
        The horizon.  ``None``: ``run`` takes it from its stream (one ``run`` then learns
        the whole horizon).  Required for ``learn_one`` / ``partial_fit`` (ValueError naming
        ``T``); learning more than ``T`` rounds raises ValueError.
    D : float > 0 or None, default None
        ``sup_x k(x, x)`` (``kernel.sup_diag`` when None; must be finite).
    ald_scale : float > 0 or None, default None
        ALD threshold ``ald_scale * T^-zeta`` on ``sqrt(alpha_t)``; None is (5)'s
        ``sqrt(D)``; the experiments use 10 ("we set the threshold 10 T^-zeta").
    dictionary : {"cholesky", "inverse"}, default "cholesky"
        How ``K_S`` is kept for (4) during POMD; see :class:`POMD`.
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Reconstructions and typos (each tested in ``tests/test_pomdr.py``):

    * (10) sets ``lambda_t = U / sqrt(max_{t in [t_j+1, t_{j+1}]} delta_t + ...)``: the max
      runs over future rounds up to the next halving and cannot be computed online.  Its
      role (Lemma 3 with ``epsilon >= max sigma_t``) is met by ``3 D``, an upper bound of
      every ``delta_t`` (``||grad||^2 + 2 ||grad|| ||grad_bar|| <= 3 D``); ``3 D`` is also
      the POMD rate's constant, printed as ``3`` (= ``3 D`` for the paper's Gaussian
      kernels, ``D = 1``).
    * Appendix, "Computing ||f'_t||": ``||f'_t||^2 = ||f'_{t-1}||^2 + lambda_t ||grad~||^2
      - 2 lambda_t <f', grad~>`` lacks the square on the first ``lambda_t``; the update
      used is ``||f' + lambda y h||^2 = ||f'||^2 + 2 lambda y <f', h> + lambda^2 ||h||^2``.
      For ``h = Phi_S beta*`` the appendix's ``sum_i beta_i f'(x_i)`` equals ``f'(x_t)``
      (``f'`` lies in the span of ``S``), which is what is used; ``||h||^2 = k_S^T beta*``.
    * Line 8 reads "if ``t_bar >= T``": if ``|S|`` reaches ``B0`` at round ``T - 1``
      (``t_bar = T``) the last round stays in POMD; the text's "stop executing POMD for
      ``t >= t_bar + 1``" would keep round ``t_bar`` in POMD, one round later than
      Algorithm 1 (and the authors' released code), which is followed.
    * (9) on ties of ``k``: the oldest kept vector (the first index).  A rescale (9) of
      ``f = 0`` is left at 0.  ``B`` must be even ("remove B/2 examples").
    * If the ALD test fails but the residual is not positive in floating point (only for
      ``kernel(x, x) = 0`` or a vanishing threshold) ``x_t`` is treated as dependent: (6).

    ``Trace.losses`` is the hinge loss ``max(0, 1 - y_t f_t(x_t))``; ``Trace.budget`` is
    ``|S_{t+1}|`` after each round.  ``Trace.extras``:

    * ``sum_delta``: ``sum_tau delta_tau`` with ``delta_tau`` of (10) (the true gradient),
      the quantity of Theorem 2 and Table 3; ``sum_delta_tilde``: the same with ``grad~``
      (what the POMD rate accumulated); ``rate_sum``: the sum in the current rate (since
      the last reset); ``lam``: ``lambda_{t+1}``.
    * ``t_bar``: Algorithm 1's ``t_bar`` (``math.inf`` when ``|S|`` never reached
      ``B0``, as in Table 3); ``omdr``: whether OMDR runs (``t_bar < T``).
    * ``halvings`` (the ``N`` of the proof of Theorem 2; ``<= 2T/B - 1``),
      ``halving_rounds`` (the ``t_i``), ``ald_added`` / ``ald_projected`` (rounds where (5)
      failed / held), ``n_updates`` (rounds with ``l_t > 0``), ``norm`` (``||f'_T||``),
      ``T``, ``B0``, ``threshold``.
    * Per round of this run (aligned with ``Trace.scores``): ``rates`` (``lambda_t``),
      ``deltas`` (``delta_t``), ``ald_residuals`` (``alpha_t``, NaN where (5) was not
      evaluated).
    """

    # B and c are read by the core's _setup (POMD declares neither)
    B = Int(400, low=2, role="budget", core=False)
    B0 = Int(None, low=1, none="ceil(15 ln T) where below B, else B / 2 with a UserWarning "
             "(budget_B0)", core=False)
    c = Real(1.0, low=0, low_open=True, core=False)
    _param_order = ("kernel", "U", "B", "B0", "M", "zeta", "c", "T", "D", "ald_scale",
                    "dictionary", "seed")

    def _check_params(self):
        if self.B % 2:
            raise ValueError(f"B must be even (OMDR removes B/2 examples), got {self.B}")
        super()._check_params()

    def _budget_B0(self, T, stacklevel):
        if self.B0 is None:
            B0, note = budget_B0(T, self.B)
            if note is not None:
                warnings.warn(note, UserWarning, stacklevel=stacklevel)
            return B0
        if self.B0 >= self.B:
            raise ValueError(f"B0 must be < B (Algorithm 1: B > B0), got B0 = {self.B0} and "
                             f"B = {self.B}")
        return self.B0

    @property
    def B0_(self):
        """The ``B0`` in use (None until ``T`` is known)."""
        T = self.horizon_
        return None if T is None else self._settings_for(T)[0]

    def _allocation(self):
        return self.B, False    # |S| <= B always (halving at |S| = B)
