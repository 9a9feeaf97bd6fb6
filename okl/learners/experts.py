r"""Prediction with expert advice and adversarial bandits: Hedge, MSMW, OSMD.

The three updates of the kernel-selection learners of Li & Liao, *Online kernel
selection with computational constraints*, as learners of their own:

* :class:`Hedge` -- exponential weights over ``K`` actions with full information
  (the update of LKMBooks, Sec. 3.2; Cesa-Bianchi & Lugosi 2006, Sec. 2.1).
* :class:`MSMW` -- multi-scale multiplicative weights over ``K'`` actions whose
  losses have different ranges ``[0, c_k]`` (PFMBooks, Sec. 3.3, the algorithm
  ``E(K')`` of Theorem 5 / Remark 2; Bubeck, Devanur, Huang & Niazadeh, JMLR 2019).
* :class:`OSMD` -- online stochastic mirror descent with the negative entropy,
  eq. (11), for bandit feedback, with the importance-weighted estimate (one
  observed arm) or the exploit/explore estimate (10) of BATBooks (Sec. 4.2).

They are not kernel learners: a stream is a ``(T, K)`` loss matrix, row ``t``
holding the loss of every action at round ``t`` (full-information learners see
the whole row after playing; bandit learners see only the entries of the arms
they pulled, the rest of the row is used only to evaluate them).  ``run``
returns an :class:`ExpertsTrace`.  The typed cores (``okl.learners._experts``)
are what LKMBooks, PFMBooks and BATBooks ``cimport``.
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field

import numpy as np

from okl import params as _params
from okl._validation import check_choice, check_int, check_real
from okl.learners.base import Serialized
from okl.params import Choice, Int, Real, Seed, Value
from okl.learners._experts import (
    HedgeCore,
    MSMWCore,
    OSMDCore,
    _explore_draw,
    _run_bandit,
    _run_full,
)

__all__ = ["ExpertsTrace", "Hedge", "MSMW", "OSMD", "msmw_scale_prior"]


# ----------------------------------------------------------------------------
# What a run returns
# ----------------------------------------------------------------------------

@dataclass(repr=False)
class ExpertsTrace:
    """Per-round record of an experts or bandit learner over a loss matrix.

    Attributes
    ----------
    actions : (T,) int array
        ``I_t ~ p_t``, the action played at round ``t``.
    expected_losses : (T,) float array
        ``<p_t, l_t>``, the learner's expected loss (the quantity the regret
        bounds are about).
    realized_losses : (T,) float array
        ``l_{t, I_t}``, the loss of the action played.
    entropy : (T,) float array
        ``H(p_t) = -sum_k p_{t,k} ln p_{t,k}`` (nats).
    cumulative_regret : (T,) float array
        ``sum_{s<=t} <p_s, l_s> - min_k sum_{s<=t} l_{s,k}``: regret of the
        expected loss against the best fixed action of the first ``t`` rounds.
    action_losses : (K,) float array
        ``sum_t l_{t,k}`` for every action ``k``.
    probabilities : (T, K) float array or None
        ``p_t`` of every round (``run(..., keep_probabilities=True)``).
    explored : (T,) int array or None
        ``J_t``, the uniformly drawn exploration arm (OSMD with ``feedback="explore"``).
    seconds : float
        Wall time of the typed loop.
    extras : dict
        Algorithm quantities (``eta``, Newton iterations of MSMW, ...).
    learner : str
        ``repr`` of the learner.

    Everything is about the stream passed to ``run``; a learner continuing from an
    earlier state is compared with the best action of this stream only.
    """

    actions: np.ndarray
    expected_losses: np.ndarray
    realized_losses: np.ndarray
    entropy: np.ndarray
    cumulative_regret: np.ndarray
    action_losses: np.ndarray
    probabilities: np.ndarray | None = None
    explored: np.ndarray | None = None
    seconds: float = 0.0
    extras: dict = field(default_factory=dict)
    learner: str = ""

    @property
    def n_rounds(self) -> int:
        return int(self.actions.shape[0])

    @property
    def regret(self) -> float:
        """``sum_t <p_t, l_t> - min_k sum_t l_{t,k}``."""
        return float(self.cumulative_regret[-1])

    @property
    def realized_regret(self) -> float:
        """``sum_t l_{t,I_t} - min_k sum_t l_{t,k}``."""
        return float(self.realized_losses.sum() - self.action_losses.min())

    @property
    def best_action(self) -> int:
        """The best fixed action in hindsight (the first, on ties)."""
        return int(np.argmin(self.action_losses))

    def regret_to(self, action=None):
        """``sum_t <p_t, l_t> - sum_t l_{t,k}`` for action ``k`` (all actions if ``None``)."""
        r = self.expected_losses.sum() - self.action_losses
        return r if action is None else float(r[action])

    def to_dict(self, per_round: bool = False) -> dict:
        out = {"learner": self.learner, "n_rounds": self.n_rounds, "seconds": self.seconds,
               "regret": self.regret, "realized_regret": self.realized_regret,
               "best_action": self.best_action,
               "extras": {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                          for k, v in self.extras.items()}}
        if per_round:
            out["actions"] = self.actions.tolist()
            out["expected_losses"] = self.expected_losses.tolist()
            out["realized_losses"] = self.realized_losses.tolist()
            out["entropy"] = self.entropy.tolist()
        return out

    def __repr__(self) -> str:
        return (f"ExpertsTrace({self.learner or 'learner'}: {self.n_rounds} rounds, regret "
                f"{self.regret:.4g}, best action {self.best_action}, {self.seconds:.3g} s)")


# ----------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------

def _as_loss_matrix(losses, K, low, high, name="losses"):
    """``losses`` as a C-contiguous float64 ``(T, K)`` matrix with ``low <= l <= high``
    (``low``/``high`` scalars or per-action vectors)."""
    try:
        L = np.asarray(losses)
    except Exception as exc:  # ragged lists
        raise ValueError(f"{name} must be a numeric (T, {K}) matrix: {exc}") from None
    if L.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {L.dtype}")
    if L.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rounds x actions), got shape {L.shape}")
    if L.shape[0] == 0:
        raise ValueError(f"{name} is empty: a stream needs at least one round")
    if L.shape[1] != K:
        raise ValueError(f"{name} has {L.shape[1]} columns, but this learner has {K} actions")
    L = np.ascontiguousarray(L, dtype=np.float64)
    finite = np.isfinite(L)
    if not finite.all():
        t, k = np.argwhere(~finite)[0]
        raise ValueError(f"{name} contains NaN or infinity (round {t}, action {k})")
    bad = (L < low) | (L > high)
    if bad.any():
        t, k = np.argwhere(bad)[0]
        lo = low[k] if np.ndim(low) else low
        hi = high[k] if np.ndim(high) else high
        raise ValueError(f"{name}[{t}, {k}] = {L[t, k]!r} is outside the declared range "
                         f"[{lo}, {hi}] of action {k}")
    return L


def _as_loss_vector(losses, K, low, high, name="losses"):
    v = np.asarray(losses) if not isinstance(losses, numbers.Real) else np.array([losses])
    if v.dtype.kind not in "biuf" or v.ndim != 1:
        raise ValueError(f"{name} must be a numeric vector of {K} losses, got "
                         f"{getattr(v, 'shape', None)}")
    return _as_loss_matrix(v.reshape(1, -1), K, low, high, name)[0]


def _check_action(a, K, name):
    a = check_int(a, name, low=0, high=K - 1)
    return a


def _check_loss_range(loss_range, name="loss_range"):
    """``(a, b)``: two reals with ``a < b``."""
    try:
        a, b = loss_range
    except Exception:
        raise ValueError(f"{name} must be a pair (a, b), got {loss_range!r}") from None
    a = check_real(a, f"{name}[0]")
    b = check_real(b, f"{name}[1]")
    if not b > a:
        raise ValueError(f"{name} must have a < b, got {loss_range!r}")
    return (a, b)


def _check_scales(scales, name="scales"):
    """``scales`` as a float64 vector of positive finite numbers (``c_k``)."""
    try:
        c = np.array(scales, dtype=float)
    except Exception as exc:
        raise ValueError(f"{name} must be a vector of positive floats: {exc}") from None
    if c.ndim != 1 or c.shape[0] < 1:
        raise ValueError(f"{name} must be a non-empty vector, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c <= 0.0):
        raise ValueError(f"{name} must be positive and finite (losses of action k lie in "
                         "[0, c_k])")
    return c


def _check_msmw_prior(prior, name="prior"):
    """A name (``"scale"``, ``"uniform"``) checked; a vector is checked against ``K`` by
    ``MSMW._check_params``."""
    if isinstance(prior, str):
        check_choice(prior, name, {"scale", "uniform"})
    return prior


class _Scales(Value):
    """``scales``: read as a copy (as the core's ``scales`` was)."""

    def __get__(self, obj, cls=None):
        value = super().__get__(obj, cls)
        return value if obj is None else value.copy()


def _check_prior_vector(prior, K):
    p = np.asarray(prior, dtype=float)
    if p.ndim != 1 or p.shape[0] != K:
        raise ValueError(f"prior must be a vector of {K} probabilities, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p <= 0.0):
        raise ValueError("prior must hold positive finite numbers (every action needs p_1 > 0)")
    if abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"prior must sum to 1, got {p.sum()!r}")
    return p / p.sum()


def msmw_scale_prior(scales):
    r"""The initial distribution of :class:`MSMW` (``prior="scale"``).

    ``pi_k = c_min / (K' c_k)`` for every action, and the remaining mass
    ``1 - sum_k pi_k`` shared equally by the actions of the smallest scale, so that

    * ``pi_k >= c_min / (K' c_k)``  (hence ``ln(1/pi_k) <= ln(K' c_k / c_min)``), and
    * ``sum_j c_j pi_j <= 2 c_min``,

    which makes the divergence term ``(c_k ln(1/pi_k) - c_k + sum_j c_j pi_j)/eta`` of the
    mirror-descent bound at most ``c_k (ln(K' c_k / c_min) + 1) / eta`` for *every* action
    ``k`` (see ``theory.experts.msmw_regret_bound``).  Equal scales give the uniform
    distribution.
    """
    c = np.asarray(scales, dtype=float)
    K = c.shape[0]
    cmin = c.min()
    pi = cmin / (K * c)
    rest = 1.0 - pi.sum()
    low = c == cmin
    pi[low] += max(rest, 0.0) / low.sum()
    return pi / pi.sum()


# ----------------------------------------------------------------------------
# The shared Python surface
# ----------------------------------------------------------------------------

class _ExpertsLearner(Serialized):
    """get_params / repr / seeded sampling / pickling for the three cores.

    The parameters are declared as those of the kernel learners (``okl.params``: the
    constructor, the checks and ``_param_names`` come from the declarations);
    ``_check_params`` holds the checks between them and ``_configure`` sets up the typed
    core (the actions, the learning rate in use, ``p_1``) and seeds the draws.

    ``Serialized``: each public call holds the learner's lock (a run's loop is
    released from the GIL; threads sharing a learner take turns)."""

    _param_names: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _params.install(cls)
        if "_okl_params" in cls.__dict__:
            cls._param_names = tuple(cls._okl_params)

    def _check_params(self) -> None:
        """Checks involving several declared parameters (each one alone was checked when
        it was assigned); ``ValueError`` naming them."""

    def _configure(self) -> None:
        """Set up the typed core for the declared parameters and seed the draws."""
        raise NotImplementedError

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in self._param_names}

    def __repr__(self) -> str:
        def fmt(v):
            if isinstance(v, np.ndarray):
                return repr(v.tolist())
            return repr(v)
        args = ", ".join(f"{k}={fmt(v)}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _start(self, seed):
        self._set_rng(np.random.default_rng(seed))

    @property
    def n_rounds(self) -> int:
        """Rounds learned so far."""
        return self.n_updates

    def sample(self) -> int:
        """Draw ``I_t ~ p_t`` (one uniform from the learner's generator, inverse CDF)."""
        return int(self._sample_py(self._uniform_py()))

    def _extras(self) -> dict:
        return {"eta": self.learning_rate, "n_rounds": self.n_updates}

    def _trace(self, L, actions, expected, realized, entropy, probs, keep, seconds,
               explored=None):
        cum_best = np.cumsum(L, axis=0).min(axis=1)
        return ExpertsTrace(
            actions=actions, expected_losses=expected, realized_losses=realized,
            entropy=entropy, cumulative_regret=np.cumsum(expected) - cum_best,
            action_losses=L.sum(axis=0), probabilities=probs if keep else None,
            explored=explored, seconds=seconds, extras=self._extras(), learner=repr(self))

    @staticmethod
    def _buffers(T, K, keep):
        return (np.empty(T, dtype=np.int64), np.empty(T), np.empty(T), np.empty(T),
                np.empty((T, K) if keep else (1, 1)))

    def __reduce__(self):
        return (_rebuild, (type(self), self.get_params(), self._core_state()))


def _rebuild(cls, params, state):
    obj = cls(**params)
    obj._core_restore(state)
    return obj


class _FullInformation(_ExpertsLearner):
    """Full-information learners: ``update(l_t)`` with the loss of every action."""

    def _bounds(self):
        raise NotImplementedError

    def update(self, losses) -> None:
        """Learn from one round: ``losses`` holds the loss of each of the ``K`` actions."""
        low, high = self._bounds()
        v = _as_loss_vector(losses, self.n_actions, low, high)
        self._update_py(v)

    def run(self, losses, keep_probabilities: bool = False) -> ExpertsTrace:
        """Play the rounds of the ``(T, K)`` loss matrix ``losses``; return their trace.

        Round ``t``: draw ``I_t ~ p_t`` (one uniform of the learner's generator -- the
        draw ``sample()`` makes), suffer ``<p_t, l_t>`` in expectation and ``l_{t,I_t}``,
        then update from the whole row ``l_t``.  The learner continues from its current
        state.  Invalid input raises ``ValueError`` before anything is learned.
        """
        low, high = self._bounds()
        L = _as_loss_matrix(losses, self.n_actions, low, high)
        T, K = L.shape
        actions, expected, realized, entropy, probs = self._buffers(T, K, keep_probabilities)
        start = time.perf_counter()
        _run_full(self, L, actions, expected, realized, entropy, probs, keep_probabilities)
        seconds = time.perf_counter() - start
        return self._trace(L, actions, expected, realized, entropy, probs,
                           keep_probabilities, seconds)


class Hedge(_FullInformation, HedgeCore):
    r"""Exponential weights (Hedge) with full information.

    ``p_1 = prior`` (uniform by default) and after each round

    .. math:: p_{t+1,i} = \frac{p_{t,i} \exp(-\eta c_{t,i})}{\sum_j p_{t,j} \exp(-\eta c_{t,j})},

    the update of ``p_t`` in LKMBooks (Li & Liao, Sec. 3.2, display after (6); the
    exponentially weighted average forecaster of Cesa-Bianchi & Lugosi 2006, Sec. 2.1).
    Kept in the log domain (``log p`` renormalized by ``logsumexp``), so weights never
    over- or underflow.

    Parameters
    ----------
    n_actions : int >= 1
        ``K``.
    eta : float >= 0 or None
        Learning rate.  ``None``: the tuned rate of Theorem 3 of Li & Liao,
        ``eta = sqrt(8 ln K / T) / (b - a)`` for losses in ``[a, b]`` (``horizon`` = T
        required), for which the regret is at most ``(b - a) sqrt(T ln K / 2)``
        (``theory.experts.hedge_regret_bound``).
    horizon : int >= 1 or None
        ``T``, used only to tune ``eta``.
    loss_range : (float, float), default (0.0, 1.0)
        ``[a, b]``: losses outside it are rejected (criterion (6) lies in [0, 1]).
    prior : array of K positive numbers or None
        ``p_1`` (uniform if ``None``).
    seed : int, Generator or None
        Seed of the draws ``I_t ~ p_t``.
    """

    n_actions = Int(low=1, positional=True, core=False)
    eta = Real(None, low=0, none="sqrt(8 ln K / horizon) / (b - a) (Theorem 3)")
    horizon = Int(None, low=1, role="horizon", none="unknown (eta is then required)")
    loss_range = Value((0.0, 1.0), check=_check_loss_range,
                       text="a pair (a, b) of reals, a < b")
    prior = Value(None, none="uniform", text="a vector of K positive numbers summing to 1")
    seed = Seed()

    def _check_params(self):
        if self.eta is None and self.horizon is None:
            raise ValueError("give eta, or horizon to use the tuned eta = "
                             "sqrt(8 ln K / T) / (b - a)")
        if self.prior is not None:
            self.prior = _check_prior_vector(self.prior, self.n_actions)

    def _configure(self):
        K = self.n_actions
        a, b = self.loss_range
        rate = (math.sqrt(8.0 * math.log(K) / self.horizon) / (b - a) if self.eta is None
                else self.eta)
        self._init_weights(K, rate, self.prior)
        self._start(self.seed)

    def _bounds(self):
        return self.loss_range


class MSMW(_FullInformation, MSMWCore):
    r"""Multi-scale multiplicative weights (MSMW) in the loss form of Li & Liao.

    The expert algorithm ``E(K')`` of PFMBooks (Li & Liao, Sec. 3.3, Theorem 5 and
    Remark 2), after Bubeck, Devanur, Huang & Niazadeh, *Multi-scale online learning:
    theory and applications to online auctions and pricing* (JMLR 2019).  Action ``k``
    has losses in ``[0, c_k]`` (``scales``; in PFMBooks ``c_{h(i,j)} = g(U_j, D_i, Y)``).
    Online mirror descent on the simplex with the scale-weighted negative entropy

    .. math:: \psi(p) = \sum_k \frac{c_k}{\eta} p_k \ln p_k, \qquad
              p_{t+1} = \arg\min_{p \in \Delta} \langle p, \ell_t\rangle + D_\psi(p, p_t),

    i.e. :math:`p_{t+1,k} = p_{t,k} \exp(\eta(\lambda_t - \ell_{t,k}) / c_k)` with the
    multiplier :math:`\lambda_t` that normalizes :math:`p_{t+1}`, solved exactly by a
    safeguarded Newton iteration in the typed core (``MSMWCore``).

    What was followed: the paper as read here shows its Algorithm 3 only as a figure
    (absent from the text) and does not include its Appendix; Bubeck et al.'s text could not be
    retrieved.  Remark 2 fixes two departures from Bubeck et al.'s MSMW: (i) losses
    are fed directly (no reward transform ``r = g - c``), (ii) a different initial
    distribution.  This class is OMD with the scale-weighted entropy (the multi-scale
    multiplicative-weights step) on the losses, with the initial distribution
    :func:`msmw_scale_prior` (``pi_k >= c_min / (K' c_k)`` and
    ``sum_j c_j pi_j <= 2 c_min``), for which the mirror-descent analysis gives, for
    every action ``k`` and ``eta < 2``,

    .. math:: \mathrm{Reg}_k \le \frac{c_k(\ln(K' c_k / c_{\min}) + 1)/\eta
              + \eta c_k T / 2}{1 - \eta/2}

    (``theory.experts.msmw_regret_bound``; the losses being non-negative is what makes
    the second term scale with ``c_k`` -- the point of Remark 2 (i)).  At the rate of
    Theorem 5, ``eta = sqrt(2 ln(K' T) / T)``, and with ``c_k / c_min <= T`` this is
    ``c_k sqrt(T ln(K'T)) (2 + 1/ln(K'T)) / (sqrt(2) (1 - eta/2))``: Theorem 5's
    ``O(g_k sqrt(T ln(K'T)))`` with its constant.  These are reconstructions; the
    tests check the inequality on runs and the OMD step against a general-purpose
    solver.

    Parameters
    ----------
    scales : array of K' positive floats
        ``c_k``: the losses of action ``k`` must lie in ``[0, c_k]``.
    eta : float >= 0 or None
        Learning rate; ``None``: Theorem 5's ``sqrt(2 ln(K' T) / T)`` (``horizon`` required).
    horizon : int >= 1 or None
        ``T``, used only to tune ``eta``.
    prior : {"scale", "uniform"} or array, default "scale"
        ``p_1``: :func:`msmw_scale_prior`, uniform, or an explicit distribution.
    seed : int, Generator or None
        Seed of the draws ``I_t ~ p_t``.
    """

    scales = _Scales(check=_check_scales, positional=True,
                     text="a non-empty vector of positive floats")
    eta = Real(None, low=0, none="Theorem 5's sqrt(2 ln(K' T) / T), T = horizon")
    horizon = Int(None, low=1, role="horizon", none="unknown (eta is then required)")
    prior = Value("scale", check=_check_msmw_prior,
                  text="'scale', 'uniform' or a vector of K' positive numbers summing to 1")
    seed = Seed()

    def _check_params(self):
        self.scales_ = self.scales
        if self.eta is None and self.horizon is None:
            raise ValueError("give eta, or horizon to use Theorem 5's eta = "
                             "sqrt(2 ln(K' T) / T)")
        if not isinstance(self.prior, str):
            self.prior = _check_prior_vector(self.prior, self.scales_.shape[0])

    def _configure(self):
        c = self.scales_
        K = c.shape[0]
        rate = (math.sqrt(2.0 * math.log(K * self.horizon) / self.horizon)
                if self.eta is None else self.eta)
        if isinstance(self.prior, str):
            p0 = msmw_scale_prior(c) if self.prior == "scale" else None
        else:
            p0 = self.prior
        self._init_scales(c, rate, p0)
        self._start(self.seed)

    def get_params(self) -> dict:
        params = super().get_params()
        params["scales"] = self.scales_.copy()
        return params

    def _bounds(self):
        return 0.0, self.scales_

    def _extras(self):
        last, most = self.newton_iterations
        return {**super()._extras(), "last_multiplier": self.last_multiplier,
                "newton_iterations_max": most}


class OSMD(_ExpertsLearner, OSMDCore):
    r"""Online stochastic mirror descent with the negative entropy, for bandits.

    Eq. (11) of Li & Liao (BATBooks, Sec. 4.2; Bubeck & Cesa-Bianchi 2012):

    .. math:: p_{t+1} = \arg\min_{p \in \Delta_{K-1}} \langle p, \tilde c_t\rangle
              + D_\psi(p, p_t), \qquad \psi(p) = \frac{1}{\eta}\sum_i p_i \ln p_i,

    which on the simplex is :math:`p_{t+1,i} \propto p_{t,i} e^{-\eta \tilde c_{t,i}}`.
    The paper prints :math:`\psi_t(p) = \sum_i \eta_t p_i \ln p_t`: a typo for
    :math:`\frac{1}{\eta_t}\sum_i p_i \ln p_i` (``eta`` is a learning rate in
    Theorem 9).  Losses lie in ``[0, 1]`` (Theorem 9: ``c_t in [0, 1]^K``; BATBooks
    normalizes by ``ell_m``).

    Feedback (``feedback``):

    * ``"bandit"``: pull ``I_t ~ p_t``, observe ``c_{t,I_t}``; importance-weighted
      estimate ``c~_{t,i} = c_{t,i} 1{i = I_t} / p_{t,i}`` (Exp3 in loss form).  Expected
      regret at most ``ln K / eta + eta K T / 2``, ``sqrt(2 T K ln K)`` at
      ``eta = sqrt(2 ln K / (K T))`` (Bubeck & Cesa-Bianchi 2012, Thm. 3.1).
    * ``"explore"``: BATBooks' decoupled exploration: also ``J_t`` uniform, both
      ``c_{t,I_t}`` and ``c_{t,J_t}`` observed, estimate (10)
      ``c~_{t,i} = c_{t,i} 1{i in {I_t, J_t}} / ((K-1)/K p_{t,i} + 1/K)``
      (Theorem 9: ``2 sqrt(2 L K ln K)`` for the best action's loss ``L``).

    Parameters
    ----------
    n_actions : int >= 1
        ``K``.
    eta : float >= 0 or None
        Learning rate.  ``None`` (``horizon`` = T required): ``sqrt(2 ln K / (K T))``
        for ``"bandit"``; for ``"explore"`` Theorem 9's
        ``min{sqrt(2 ln K / (K C)), 1/K}`` with the unknown ``C~_{T,*}`` replaced by its
        worst case ``T`` (pass ``theory.experts.batbooks_theorem9_eta(K, L)`` to tune
        to a known best loss ``L``).
    horizon : int >= 1 or None
    feedback : {"bandit", "explore"}, default "bandit"
    seed : int, Generator or None
        Seed of the draws ``I_t`` (and ``J_t``).
    """

    n_actions = Int(low=1, positional=True, core=False)
    eta = Real(None, low=0, none="sqrt(2 ln K / (K T)), T = horizon ('explore': at most 1/K)")
    horizon = Int(None, low=1, role="horizon", none="unknown (eta is then required)")
    feedback = Choice("bandit", ("bandit", "explore"))
    seed = Seed()

    def _check_params(self):
        if self.eta is None and self.horizon is None:
            raise ValueError("give eta, or horizon to use the tuned learning rate")

    def _configure(self):
        K = self.n_actions
        if self.eta is None:
            rate = math.sqrt(2.0 * math.log(K) / (K * self.horizon))
            if self.feedback == "explore":
                rate = min(rate, 1.0 / K)
        else:
            rate = self.eta
        self._init_weights(K, rate, None)
        self._start(self.seed)

    def explore(self) -> int:
        """Draw ``J_t`` uniformly (``floor(K u)`` from one uniform of the generator)."""
        return int(_explore_draw(self))

    def _positive(self, arm, name):
        arm = _check_action(arm, self.n_actions, name)
        if self.probabilities[arm] <= 0.0:
            raise ValueError(f"{name}={arm} has probability 0 under p_t: it cannot have been "
                             "drawn from p_t")
        return arm

    @staticmethod
    def _loss(value, name):
        return check_real(value, name, low=0.0, high=1.0)

    def update(self, arm, loss) -> None:
        """Bandit feedback: ``arm = I_t`` was pulled and ``loss = c_{t,I_t}`` observed."""
        arm = self._positive(arm, "arm")
        loss = self._loss(loss, "loss")
        self._update_py(arm, loss)

    def update_pair(self, exploit, explore, loss_exploit, loss_explore) -> None:
        """BATBooks' feedback: ``I_t = exploit ~ p_t`` and ``J_t = explore`` (uniform),
        with their losses; estimate (10) then (11).  With ``I_t = J_t`` the two losses
        must be equal."""
        i = self._positive(exploit, "exploit")
        j = _check_action(explore, self.n_actions, "explore")
        li = self._loss(loss_exploit, "loss_exploit")
        lj = self._loss(loss_explore, "loss_explore")
        if i == j and li != lj:
            raise ValueError(f"exploit == explore == {i} but loss_exploit={li} != "
                             f"loss_explore={lj}: one arm has one loss per round")
        self._update_pair_py(i, j, li, lj)

    def update_estimates(self, estimates) -> None:
        """Step (11) on a given vector of ``K`` finite loss estimates."""
        v = np.asarray(estimates)
        if v.dtype.kind not in "biuf" or v.ndim != 1 or v.shape[0] != self.n_actions:
            raise ValueError(f"estimates must be a numeric vector of {self.n_actions} "
                             f"entries, got shape {getattr(v, 'shape', None)}")
        v = np.ascontiguousarray(v, dtype=np.float64)
        if not np.all(np.isfinite(v)):
            raise ValueError("estimates contains NaN or infinity")
        self._step_py(v)

    def importance_weighted(self, arm, loss) -> np.ndarray:
        """The estimate ``c~_i = loss 1{i = arm} / p_{t,arm}`` (no update)."""
        return self._importance_weighted_py(self._positive(arm, "arm"),
                                            self._loss(loss, "loss"))

    def explore_exploit_estimate(self, exploit, explore, loss_exploit, loss_explore):
        """Estimate (10) from ``I_t = exploit`` and ``J_t = explore`` (no update)."""
        i = _check_action(exploit, self.n_actions, "exploit")
        j = _check_action(explore, self.n_actions, "explore")
        return self._explore_exploit_estimate_py(i, j, self._loss(loss_exploit, "loss_exploit"),
                                                 self._loss(loss_explore, "loss_explore"))

    def run(self, losses, keep_probabilities: bool = False) -> ExpertsTrace:
        """Play the rounds of the ``(T, K)`` loss matrix ``losses`` (entries in [0, 1]).

        Round ``t``: ``I_t ~ p_t`` (one uniform); with ``feedback="explore"`` then
        ``J_t = floor(K u)`` (a second uniform); the learner is updated from the observed
        entries only.  ``<p_t, l_t>`` uses the whole row, for evaluation.
        """
        L = _as_loss_matrix(losses, self.n_actions, 0.0, 1.0)
        T, K = L.shape
        actions, expected, realized, entropy, probs = self._buffers(T, K, keep_probabilities)
        explored = np.full(T, -1, dtype=np.int64)
        explore = self.feedback == "explore"
        start = time.perf_counter()
        _run_bandit(self, L, actions, explored, expected, realized, entropy, probs,
                    keep_probabilities, explore)
        seconds = time.perf_counter() - start
        return self._trace(L, actions, expected, realized, entropy, probs,
                           keep_probabilities, seconds, explored if explore else None)
