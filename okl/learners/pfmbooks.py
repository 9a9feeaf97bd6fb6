r"""PFMBooks: Li & Liao, *Online kernel selection with computational constraints*,
Sec. 3.3 (hypothesis space discretization (7), oblivious sampling, projected OGD (8),
MSMW over the ``K' = K M`` hypotheses), Theorems 4-6, Assumption 5 and Remark 2."""
from __future__ import annotations

import math

import numpy as np

from okl._learner import read_fields
from okl._validation import LOSS_CODES, check_int, check_real, check_row
from okl.kernels import Gaussian
from okl.kernels import gaussian_family as paper_kernels
from okl.learners._experts import MSMWCore
from okl.learners._pfmbooks import PFMBooksCore
from okl.learners.base import HorizonLearner, OnlineLearner
from okl.learners.budget_kinds import (
    MemoryBudget,
    TimeBudget,
    check_budget_choice,
    example_budget_param,
    memory_budget_param,
    memory_per_example,
    memory_used,
    time_budget_param,
    time_per_example,
    time_used,
)
from okl.learners.experts import msmw_scale_prior
from okl.params import Choice, Int, KernelsParam, Real, Seed
from okl.registry import register_learner

__all__ = ["PFMBooks", "nested_radii", "paper_kernels", "r_prior", "sampling_probabilities"]

_LOSSES = {name: LOSS_CODES[name] for name in ("hinge", "absolute")}
_PREDICTIONS = {"sample": 0, "mean": 1}
_VARIANTS = {"okl": False, "r": True}       # the core's r_code
_G = {"assumption5", "experiments", "r"}


class _Kernels(KernelsParam):
    """``kernels`` as given (``None`` stays ``None``), the checked ones in ``kernels_``."""

    def assign(self, obj, value):
        kernels = self.check(value)
        obj.__dict__["kernels_"] = tuple(kernels)
        obj.__dict__[self.name] = None if value is None else kernels
        return obj.__dict__[self.name]


def nested_radii(U: float, U_min: float) -> tuple[int, np.ndarray]:
    r"""``(M, [U_1, ..., U_M])`` of the discretization (7).

    ``(0, U] = (0, e^{ceil(ln U_min)}] \cup_{j=ceil(ln U_min)}^{ceil(ln U)-1} (e^j, e^{j+1}]``,
    ``M = ceil(ln U) - ceil(ln U_min) + 1`` and ``U_j = e^{j + ceil(ln U_min) - 1}``, so
    ``U_1 = e^{ceil(ln U_min)} >= U_min`` and ``U_M = e^{ceil(ln U)} >= U`` (the largest
    ball contains ``{||f|| <= U}``; its radius exceeds ``U`` by a factor below ``e``).
    """
    U = check_real(U, "U", low=0, low_open=True)
    U_min = check_real(U_min, "U_min", low=0, low_open=True)
    if U_min > U:
        raise ValueError(f"U_min must be <= U (the discretization (7) of (0, U]), got "
                         f"U_min={U_min!r} > U={U!r}")
    lo, hi = math.ceil(math.log(U_min)), math.ceil(math.log(U))
    M = hi - lo + 1
    return M, np.exp(np.arange(1, M + 1) + lo - 1.0)


def r_prior(K: int, M: int, U: float, T: int) -> np.ndarray:
    r"""The initial ``p_1`` of the authors' ``PFMBooks-{c,r}.R``: ``1 / (U sqrt(T) K M)``
    for every hypothesis, plus ``(1 - 1 / (U sqrt(T))) / K`` for the smallest radius of
    each kernel (``U`` the largest norm ``sqrt(B)``)."""
    c = U * math.sqrt(T)
    p = np.full(K * M, 1.0 / (c * K * M))
    p[::M] = (1.0 - 1.0 / c) * (1.0 / K) + 1.0 / (K * M * c)
    return p


def sampling_probabilities(T: int, C: float, upsilon: float) -> np.ndarray:
    r"""``P[rho_t = 1] = min{1, C / z_t}``, ``z_t = 2 (1 - upsilon) T^{1-upsilon}
    t^upsilon`` for ``t = 1..T`` (Theorem 4), computed as the typed core does."""
    T = check_int(T, "T", low=1)
    zc = 2.0 * (1.0 - upsilon) * float(T) ** (1.0 - upsilon)
    t = np.arange(1, T + 1, dtype=float)
    return np.minimum(1.0, C / (zc * t ** upsilon))


@register_learner(
    paper="selection", task="both",
    examples=[dict(kernels=[Gaussian(0.5), Gaussian(1.0), Gaussian(2.0)], B=40, T=600,
                   seed=0),
              dict(kernels=[Gaussian(0.5), Gaussian(2.0)], loss="absolute", Y=10.0, B=40,
                   prediction="mean", T=600, seed=1)],
    bounds="okl.experiments.bounds.selection:pfmbooks")
class PFMBooks(HorizonLearner, OnlineLearner, PFMBooksCore):
    r"""PFMBooks (Parameter-Free for Memory BOunded Online Kernel Selection): Li & Liao,
    *Online kernel selection with computational constraints* (Sec. 3.3, Algorithms 2-3,
    eqs. (7)-(8), Theorems 4-6, Remark 2).

    ``K`` Gaussian kernels ``kappa_i`` (``D_i = 1``) and ``M`` nested balls per kernel,
    ``H_{i,j} = {f in H_i : ||f|| <= U_j}`` from the discretization (7) of ``(0, U]``
    (:func:`nested_radii`), give ``K' = K M`` hypotheses ``f_{t,i,j}``, all expanded on one
    shared support set ``S`` (one coefficient vector each).  Round ``t``:

    1. **Predict.** One row of squared distances ``||x_t - s||^2`` (``s in S``), then ``K``
       exponentials give every ``kappa_i(x_t, S)``, then the ``K'`` values
       ``f_{t,i,j}(x_t)``.  With ``prediction="sample"`` (the paper's): ``y_hat_t =
       f_{t,I_t}(x_t)`` with ``I_t ~ p_t``; ``"mean"``: ``sum_k p_{t,k} f_{t,k}(x_t)``.
       Classification predicts ``sign(y_hat_t)``.
    2. **Select.** The criteria ``c_{t,h(i,j)} = l(f_{t,i,j}(x_t), y_t)`` are fed to MSMW,
       ``E(K')`` of Theorem 5 in the loss form of Remark 2, with per-action scales
       ``c_k = g(U_j, D_i, Y)`` (Assumption 5): ``p_{t+1}``.
    3. **Sample** (oblivious, Theorem 4): ``rho_t ~ Ber(P_t)``, ``P_t = min{1, C / z_t}``,
       ``z_t = 2 (1 - upsilon) T^{1-upsilon} t^upsilon``, ``C = B``.
    4. **Update** (8), if ``rho_t = 1``: ``x_t`` joins ``S`` and every hypothesis steps
       ``fbar = f_{t,i,j} - lambda_{i,j} l'(f_{t,i,j}(x_t), y_t) kappa_i(x_t, .) / P_t``
       (the unbiased gradient estimate) and is projected,
       ``f_{t+1,i,j} = min{1, U_j / ||fbar||} fbar``, with Theorem 6's
       ``lambda_{i,j} = U_j sqrt((1 + upsilon) B) / (sqrt(2 (1 - upsilon) D_i) L T)``
       (``L = 1``: hinge loss with labels +-1 and absolute loss are 1-Lipschitz).
    5. ``I_{t+1} ~ p_{t+1}``.

    Parameters
    ----------
    kernels : sequence of ``okl.Gaussian`` or None
        The candidates; ``None``: the experiments' 9 widths ``2^{-4..4}``
        (:func:`paper_kernels`).  Only Gaussian kernels: every kernel value is computed
        from the one shared row of distances (Sec. 4.1).
    loss : {"hinge", "absolute"}, default "hinge"
        ``"hinge"``: classification, labels in {-1, +1}; ``"absolute"``: regression,
        labels with ``|y| <= Y``.
    B : int >= 1 or None
        The example budget ``B = alpha T_mem`` of Theorems 4 and 6 (the capacity of ``S``).
    memory_budget : float, ``MemoryBudget`` or None
        A memory budget in quanta (one quantum = one float64; ``okl.learners.budget_kinds``).
        A stored example costs ``d + K'`` floats (its vector and its ``K'`` coefficients)
        and the fixed state is ``p_t`` (``K'`` floats), so ``B = floor((quanta - K') /
        (d + K'))``: the "available budget" ``d B_0 / (d + K')`` of the paper's Table 3.
    time_budget : float, ``TimeBudget`` or None
        A per-round time budget in multiply operations: ``d + K'`` a stored example (one
        shared distance, then one kernel-value product per hypothesis; ``K'`` fixed for the
        MSMW step).  Exactly one of ``B``, ``memory_budget``, ``time_budget``.
    U : float > 0 or None
        The largest norm considered, ``(0, U]`` in (7); ``None``: ``sqrt(B)`` (Theorem 6,
        ``U = Theta(sqrt(B))``; the experiments' ``U = sqrt(B)``).
    U_min : float > 0 or None
        The smallest radius of (7); ``None``: ``U / sqrt(T)`` (Theorem 6), except
        ``variant="r"`` with the hinge loss: 5 (``PFMBooks-c.R``).  The classification
        experiments use ``U_min = 5``.  Must be ``<= U``.
    upsilon : float in [0, 1), default 1/3
        Exponent of ``z_t`` (the experiments' 1/3).
    C : float > 0 or None
        Numerator of ``P_t``; ``None``: ``B`` (Theorem 4).
    eta : float >= 0 or None
        MSMW learning rate; ``None``: Theorem 5's ``sqrt(2 ln(K' T) / T)``; with
        ``variant="r"`` the scripts' ``sqrt(8 ln(K M T) / T)``.
    g : {"assumption5", "experiments", "r"} or None, default None
        The loss scales of MSMW: Assumption 5's ``g(U_j, D_i, Y) = 1 + Y U_j sqrt(D_i)``
        (hinge) or ``U_j sqrt(D_i) + Y`` (absolute), which bound every criterion of action
        ``h(i, j)``; ``"experiments"``: Sec. 5.1's ``U_j + 0.1``, which does not bound them
        (``PFMBooks-r.R``, ``Adv-PFMBooks-c.R``); ``"r"``: ``U_j + 1`` for the hinge loss
        (``PFMBooks-c.R``), ``U_j + 0.1`` for the absolute loss.  ``None``:
        ``"assumption5"``, or ``"r"`` with ``variant="r"``.
    Y : float > 0, default 1.0
        Bound on ``|y_t|`` (``>= 1`` for the hinge loss); labels beyond it raise ValueError.
    prediction : {"sample", "mean"}, default "sample"
        ``f_{t,I_t}(x_t)`` with ``I_t ~ p_t`` (Sec. 3.3), or the combination
        ``sum_k p_{t,k} f_{t,k}(x_t)``.  Theorem 6's expected regret is about the expected
        loss ``sum_k p_{t,k} c_{t,k}`` of the sampled prediction; the combination's loss is
        at most that by convexity, so the bound holds for it surely.
    T : int >= 1 or None
        The horizon (``z_t``, ``lambda_{i,j}``, ``U_min`` and ``eta`` depend on it).
        ``None``: ``run`` takes it from its stream.  Required for ``learn_one`` /
        ``partial_fit``; learning more than ``T`` rounds raises ValueError.
    variant : {"okl", "r"}, default "okl"
        okl's reading of the paper, or the authors' R scripts (``table5/PFMBooks-c.R``,
        ``table4/PFMBooks-r.R``) literally: see "The authors' R code" in the Notes.
        ``variant="r"`` changes the defaults of ``U_min``, ``eta`` and ``g`` (those left at
        ``None``) and, always, the initial distribution, the update of ``p``, the step's
        ``1/P_t``, ``lambda_{i,j}`` (hinge: twice Theorem 6's) and the guard.
    seed : int, Generator or None
        Seed of ``I_t`` and ``rho_t``: after ``I_1`` (one uniform, drawn when the learner
        is configured, at its first example), each round draws the uniform of ``rho_t``
        then the uniform of ``I_{t+1}`` (inverse CDF of ``p_{t+1}``).  ``I_t`` is drawn
        (and recorded) with ``prediction="mean"`` too, so both modes see the same
        ``rho_t``.

    Attributes
    ----------
    B_ : int or None
        The example budget in use (``None`` until known: memory/time budgets need ``d``).
    settings_ : dict or None
        ``T, B, C, U, U_min, M, radii, lambdas, scales, eta, ...`` once configured.

    Notes
    -----
    **The authors' R code** (``table4/PFMBooks-r.R``, ``table5/PFMBooks-c.R``,
    ``Adv-PFMBooks-c.R`` of JunfLi-TJU/ACML2021-Journal-Track; ``variant="r"`` runs it,
    reproduced round for round by ``tests/test_pfmbooks.py`` on the fixtures of
    ``tests/fixtures/r/selection/``) differs from okl's default in:

    1. ``p_{t+1}``: ``bar p = p_t exp(-eta c / g)`` times ``exp(-lambda* / g)`` with
       ``lambda*`` found by a bisection that stops once ``0.99 <= sum p <= 1 + 1e-5``
       (bracket ``[-B^{k/8}, 0]``), so ``p`` is not exactly normalized (``I_t`` is drawn
       from ``p / sum p``).  okl's MSMW solves for ``lambda*`` exactly (Theorem 5's
       update is on the simplex; its analysis needs it).
    2. ``p_1``: ``1 / (U sqrt(T) K M)`` each plus ``(1 - 1/(U sqrt T)) / K`` on each
       kernel's smallest ball (:func:`r_prior`); okl: Remark 2 (ii)'s
       :func:`okl.learners.experts.msmw_scale_prior`, which the regret bound is for.
    3. Scales ``g = U_j + 1`` (classification) or ``U_j + 0.1`` (regression,
       ``Adv-PFMBooks-c.R``; ``g="experiments"``); ``eta = sqrt(8 ln(K M T) / T)``.
       okl follows Assumption 5 and Theorem 5 (the scales must bound the criteria).
    4. Classification: ``lambda_{i,j}`` twice Theorem 6's, ``U_min = 5`` and the guard
       ``|S| < ceil(B d / (d + K M))`` (Table 3's available budget taken from the
       example budget ``B = B_0``; with a ``memory_budget`` okl's translated ``B`` is the
       guard).  Regression: the guard ``|S| < B / 2`` (``ceil(B/2)`` examples).  okl:
       Theorem 6's steps and the guard ``|S| <= B``.
    5. The step divides by the unclipped ``C / z_t`` (the draw uses ``min{1, .}``;
       ``PFMBooks-r.R`` and ``Adv-PFMBooks-c.R`` have no ``min`` at all, and R stops on
       ``rbinom``'s NA when ``C / z_t > 1``: okl clips the draw there as the fixtures'
       scripts do).  okl: ``1 / P_t``, the unbiased estimate.
    6. Regression: when ``x_t`` is stored, every hypothesis' norm grows by
       ``(lambda / P)^2`` even with ``l' = 0`` (coefficient 0): the projection may then
       shrink a hypothesis that did not move.  okl keeps the exact norm.
    7. ``I_t`` and ``rho_t`` are drawn at the start of round ``t`` (``sample(prob = p)``,
       which sorts ``p`` first, then ``rbinom``): the same order of draws as okl's (``I_1``
       at set-up, then ``rho_t`` and ``I_{t+1}`` each round); the fixtures' scripts map
       the uniform through the inverse CDF in index order as okl does.

    The rest -- the oblivious rate ``z_t = 2 (1 - upsilon) T^{1-upsilon} t^upsilon``, ``C
    = B``, ``U = sqrt(B)``, the radii (7), the shared support set, the criteria, the
    incremental projection -- is the same.  Mistakes: the scripts count ``y != (+1 if
    f >= 0 else -1)`` (``okl.experiments.selection.authors_mistakes``).

    Reconstructions (Algorithms 2 and 3 are figures missing from the text; each point is
    tested in ``tests/test_pfmbooks.py``):

    * The round order (predict with ``I_t ~ p_t``, criteria of the hypotheses before
      their update, MSMW, then ``rho_t`` "at the end of round ``t``" and (8)) follows
      the text of Sec. 3.3.  ``I_{t+1}`` is drawn at the end of round ``t`` so that
      ``decision_function`` is deterministic.
    * The sampling is oblivious: when ``rho_t = 1``, ``x_t`` joins ``S`` even if every
      hypothesis has a zero (hinge) gradient -- the text adds it unconditionally; such
      additions are counted (``extras["n_zero_added"]``).
    * Theorem 4 states ``|S| <= B/2 + O(sqrt(B ln(1/delta)))``, but with the printed
      ``z_t`` the expected size is ``sum_t min{1, C/z_t} ~ C / (2 (1 - upsilon)^2)``
      (``sum_{t<=T} t^-upsilon ~ T^{1-upsilon} / (1 - upsilon)``): ``B/2`` only for
      ``upsilon = 0``, ``1.125 B`` at the experiments' ``upsilon = 1/3``.  The printed
      ``z_t`` is kept (Theorem 6's ``lambda_{i,j}`` is tuned to it:
      ``sum_t 1/P_t ~ 2 (1 - upsilon) T^2 / ((1 + upsilon) B)``), and ``S`` never exceeds
      ``B``: when ``rho_t = 1`` and ``|S| = B`` nothing is updated -- the experiments'
      "we stop updating hypotheses when the actual budget exceeds the available budget"
      (Sec. 5.2); these rounds are counted in ``extras["guard_triggers"]``.
    * Theorem 4 assumes some ``upsilon`` with ``2 (1 - upsilon) T^{1-upsilon} > B``; when
      the given one violates it the first rounds simply have ``P_t = 1`` (not an error).
    * ``U_M = e^{ceil(ln U)}`` may exceed ``U`` (by less than ``e``), as (7) prints it.
    * ``lambda_{i,j}`` is proportional to ``U_j``, so before any projection
      ``||f_{t,i,j}|| / U_j`` is the same for every ``j``; it grows like ``sqrt(B / C)``
      (``E ||sum of steps||^2 ~ lambda^2 sum_t 1/P_t``): with ``C = B`` the projections
      are active only occasionally.
    * MSMW is ``okl.learners._experts.MSMWCore`` with the initial distribution
      :func:`okl.learners.experts.msmw_scale_prior` (Remark 2 (ii)); see ``okl.MSMW``.
      Pickling saves its ``p`` and ``log p`` bit for bit (the core's own pickling
      renormalizes them, which perturbs the last digits).
    * With a memory/time budget and ``U = None`` the budget ``B`` depends on ``M`` (the
      coefficients per example) and ``M`` on ``U = sqrt(B)``: the smallest ``M'`` whose
      budget ``B(M')`` gives ``M(B(M')) <= M'`` is used, so the memory (time) used never
      exceeds the budget.
    * The paper restricts PFMBooks to ``K < d / ln sqrt(T)`` (Sec. 3.3) so that the
      ``K'`` coefficients per example cost less than its ``d`` features; this is not
      enforced (the accounting above charges them).

    ``Trace.extras``: the settings, ``probabilities`` (``p_{T+1}``), ``n_sampled``
    (rounds with ``rho_t = 1``), ``n_added``, ``n_zero_added``, ``guard_triggers``,
    ``max_support_size``, ``max_memory`` / ``max_time`` (quanta at the largest ``|S|``)
    and per round of the stream ``actions`` (``I_t``), ``sampled`` (``rho_t``),
    ``sampling_probabilities`` (``P_t``) and ``expected_criteria``
    (``<p_t, c_t>``).
    """

    kernels = _Kernels(gaussian=True, why=" (the K kernel rows share one row of distances)")
    loss = Choice("hinge", _LOSSES, core="loss_kind")
    B = example_budget_param()
    memory_budget = memory_budget_param()
    time_budget = time_budget_param()
    U = Real(None, low=0, low_open=True, none="sqrt(B) (Theorem 6)")
    U_min = Real(None, low=0, low_open=True,
                 none="U / sqrt(T) (Theorem 6); 5 with variant='r' and the hinge loss")
    upsilon = Real(1.0 / 3.0, low=0, high=1, high_open=True)
    C = Real(None, low=0, low_open=True, none="B (Theorem 4)")
    eta = Real(None, low=0, none="Theorem 5's sqrt(2 ln(K' T) / T) (variant='r': "
                                 "sqrt(8 ln(K M T) / T))")
    g = Choice(None, _G, none="'assumption5' ('r' with variant='r')")
    Y = Real(1.0)                                   # its range depends on loss
    prediction = Choice("sample", _PREDICTIONS, core="pred_kind")
    T = Int(None, low=1, role="horizon", none="the length of the first run's stream")
    variant = Choice("okl", _VARIANTS, core="r_code")
    seed = Seed()

    def _check_params(self):
        self._spec = check_budget_choice(self.B, self.memory_budget, self.time_budget)
        if self.U is not None and self.U_min is not None and self.U_min > self.U:
            raise ValueError(f"U_min must be <= U, got U_min={self.U_min!r} > U={self.U!r}")
        hinge = self.loss == "hinge"
        check_real(self.Y, "Y", low=1.0 if hinge else 0.0, low_open=not hinge)
        self.g_ = self.g or ("r" if self.variant == "r" else "assumption5")
        self.settings_ = None
        if self.T is not None and isinstance(self._spec, int):
            self._settings(self.T, None)        # parameter errors surface here

    def _classifies(self):
        return self.loss == "hinge"

    # -- settings of Theorems 4-6 ---------------------------------------------------------

    @property
    def B_(self):
        """The example budget in use (``None`` until it is known)."""
        if isinstance(self._spec, int):
            return self._spec
        return None if self.settings_ is None else self.settings_["B"]

    def _settings(self, T, d):
        """All horizon-dependent settings (pure: no state changes; ValueError when invalid)."""
        K = len(self.kernels_)
        sqrtT = math.sqrt(T)
        r = self.variant == "r"
        hinge = self.loss == "hinge"
        u_min = self.U_min if self.U_min is not None else (5.0 if r and hinge else None)

        def peel(U):
            return nested_radii(U, U / sqrtT if u_min is None else u_min)

        spec = self._spec
        if isinstance(spec, int):
            B = spec
            U = self.U if self.U is not None else math.sqrt(B)
            M, radii = peel(U)
        else:
            if d is None:
                return None
            kind = "memory" if isinstance(spec, MemoryBudget) else "time"

            def budget_for(M):
                Kp = K * M
                per = memory_per_example(d, Kp) if kind == "memory" else time_per_example(d, Kp)
                return spec.example_budget(per, Kp)

            if self.U is not None:
                U = self.U
                M, radii = peel(U)
                B = budget_for(M)
            else:
                Mtry = 1
                while True:
                    B = budget_for(Mtry)            # ValueError when not even 1 example fits
                    U = math.sqrt(B)
                    M, radii = peel(U)
                    if M <= Mtry:
                        break
                    Mtry += 1
        Kp = K * M
        U_min = U / sqrtT if u_min is None else u_min
        sig = np.array([k.sigma for k in self.kernels_])
        D = np.array([k.sup_diag for k in self.kernels_])
        ups = self.upsilon
        radius = np.tile(radii, K)                               # k = h(i, j) = i M + j
        Dk = np.repeat(D, M)
        lambdas = radius * math.sqrt((1.0 + ups) * B) / (np.sqrt(2.0 * (1.0 - ups) * Dk) * T)
        if r and hinge:
            lambdas = 2.0 * lambdas                 # PFMBooks-c.R: lambda[j] <- 2 U[j] ...
        if self.g_ == "experiments" or (self.g_ == "r" and not hinge):
            scales = radius + 0.1
        elif self.g_ == "r":
            scales = radius + 1.0
        elif hinge:
            scales = 1.0 + self.Y * radius * np.sqrt(Dk)
        else:
            scales = radius * np.sqrt(Dk) + self.Y
        eta = self.eta if self.eta is not None else \
            math.sqrt((8.0 if r else 2.0) * math.log(Kp * T) / T)
        C = float(B) if self.C is None else self.C
        # the hard guard: |S| <= B, or the scripts' k < ceil(B d / (d + K M)) (hinge, an
        # example budget B = B_0) or k < B / 2 (absolute)
        if not r:
            cap = int(B)
        elif not hinge:
            cap = (int(B) + 1) // 2
        elif isinstance(spec, int):
            cap = None if d is None else int(math.ceil(B * d / (d + Kp)))
        else:
            cap = int(B)
        prior = r_prior(K, M, U, T) if r else msmw_scale_prior(scales)
        per_mem = memory_per_example(d, Kp) if d is not None else None
        per_time = time_per_example(d, Kp) if d is not None else None
        return {"T": int(T), "B": int(B), "C": C, "U": float(U), "U_min": float(U_min),
                "M": int(M), "K": K, "K_prime": Kp, "radii": radii, "radius": radius,
                "lambdas": lambdas, "scales": scales, "eta": float(eta), "upsilon": ups,
                "zcoef": 2.0 * (1.0 - ups) * float(T) ** (1.0 - ups),
                "gamma": 1.0 / (2.0 * sig ** 2), "D": D, "capacity": cap, "prior": prior,
                "memory_per_example": per_mem, "time_per_example": per_time}

    def _apply(self, st):
        msmw = MSMWCore(st["scales"], st["eta"], st["prior"])
        self._pfm_configure(st["gamma"], st["D"], st["M"], st["radius"], st["lambdas"],
                            st["capacity"], st["C"], st["zcoef"], st["upsilon"], st["T"], msmw,
                            float(st["B"]) ** 0.125)
        self._pfm_new_support(self.kernels_[0], self.n_features)
        self.settings_ = st
        self._pfm_draw_first()

    # -- the horizon and validation -------------------------------------------------------

    @property
    def horizon_(self):
        """The horizon ``T`` in use (``None`` until known)."""
        if self.settings_ is not None:
            return self.settings_["T"]
        return self.T

    _horizon_depends = "z_t, lambda_ij, U_min and eta"

    def _known_horizon(self):
        return self.horizon_

    def _labels(self, y, n):
        labels = super()._labels(y, n)
        if self.loss == "absolute":
            bad = np.abs(labels) > self.Y
            if bad.any():
                t = int(np.flatnonzero(bad)[0])
                raise ValueError(f"y[{t}] = {labels[t]!r} exceeds Y = {self.Y!r} in absolute "
                                 "value (Assumption 5: |y_t| <= Y bounds the criteria of MSMW)")
        return labels

    def _checked(self, X, y):
        stream, labels = super()._checked(X, y)
        T = self._horizon_for(stream.T)
        if self.settings_ is None:
            self._settings(T, stream.d)
        return stream, labels

    def _begin_stream(self, n_rounds):
        T = self._horizon_for(n_rounds)
        if self.settings_ is None:
            self._apply(self._settings(T, self.n_features))
        self._pfm_begin_records(n_rounds)

    def learn_one(self, x, y=None) -> None:
        if self.settings_ is None:          # the first example fixes d, hence the budget
            self._require_T("to learn one example at a time")
            stream = check_row(x, -1 if self.n_features is None else self.n_features)
            self._settings(self.T, stream.d)
        super().learn_one(x, y)

    # -- inspection -------------------------------------------------------------------------

    @property
    def coefficients_(self) -> np.ndarray:
        """``(|S|, K')``: column ``h(i, j) = i M + j`` holds the coefficients of
        ``f_{t,i,j} = sum_s a_s kappa_i(s, .)``."""
        if self.settings_ is None:
            return np.empty((0, 0))
        return self._pfm_coefficients()

    @property
    def norms_(self) -> np.ndarray:
        """``||f_{t,k}||`` of the ``K'`` hypotheses (kept incrementally)."""
        if self.settings_ is None:
            return np.empty(0)
        return np.sqrt(np.maximum(self._pfm_array("nrm2"), 0.0))

    @property
    def probabilities_(self) -> np.ndarray:
        """``p_t`` over the ``K'`` actions (MSMW)."""
        return np.empty(0) if self.settings_ is None else self.msmw_.probabilities

    @property
    def hypothesis_values_(self) -> np.ndarray:
        """``f_{t,k}(x)`` of the last scored example, for the ``K'`` hypotheses."""
        return np.empty(0) if self.settings_ is None else self._pfm_array("fx")

    @property
    def next_action_(self):
        """``I_t`` of the next round (``None`` until configured)."""
        return None if self.settings_ is None else int(self.I_next)

    def action_index(self, i: int, j: int) -> int:
        """``h(i, j)`` (0-based): kernel ``i``, radius ``U_j``."""
        M = self.settings_["M"]
        return check_int(i, "i", low=0, high=len(self.kernels_) - 1) * M + \
            check_int(j, "j", low=0, high=M - 1)

    def _extras(self):
        v = read_fields(self, self._values_fields)
        st = self.settings_ or {}
        out = {k: st.get(k) for k in ("T", "B", "C", "U", "U_min", "M", "K_prime", "eta",
                                      "upsilon", "capacity")}
        out["radii"] = st.get("radii")
        out["lambdas"] = st.get("lambdas")
        out["scales"] = st.get("scales")
        out["probabilities"] = self.probabilities_
        out.update({"n_sampled": v["n_sampled"], "n_added": v["n_added"],
                    "n_zero_added": v["n_zero_added"], "guard_triggers": v["guard_triggers"],
                    "max_support_size": v["max_size"]})
        if st and st.get("memory_per_example") is not None:
            Kp = st["K_prime"]
            out["max_memory"] = memory_used(v["max_size"], st["memory_per_example"], Kp)
            out["max_time"] = time_used(v["max_size"], st["time_per_example"], Kp)
        out["memory_budget"] = self._spec.quanta if isinstance(self._spec, MemoryBudget) \
            else None
        out["time_budget"] = self._spec.quanta if isinstance(self._spec, TimeBudget) else None
        out.update(self._pfm_records())
        return out

    # -- pickling ---------------------------------------------------------------------------

    def _state(self):
        return {"core": self._pfm_state(), "settings": self.settings_}

    def _restore(self, state):
        self._pfm_restore(state["core"])
        self.settings_ = state["settings"]
