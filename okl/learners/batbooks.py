r"""BATBooks: Li & Liao, *Online kernel selection with computational constraints*,
Sec. 4.2 ("A nearly optimal algorithm for K > d"), eqs. (10)-(11), Theorems 8-10.

Online kernel selection under a **time budget**: each round evaluates only two of the
``K`` hypotheses -- the exploited kernel ``I_t ~ p_t``, which predicts, and a uniformly
explored kernel ``J_t``, which is updated -- so the per-round time is that of two kernel
rows, against ``K`` rows (or one shared distance row and ``K`` exponentials) for a learner
that combines all the kernels (LKMBooks).  The distribution ``p_t`` is learned by OSMD with
the negative entropy (11) on the decoupled exploration-exploitation estimator (10).
"""
from __future__ import annotations

import math

import numpy as np

from okl._core import SupportSet
from okl._learner import read_fields
from okl._validation import LOSS_CODES, check_choice, check_int, check_real
from okl.kernels import Gaussian, Laplacian
from okl.kernels import gaussian_family as paper_kernels
from okl.learners._batbooks import BATBooksCore
from okl.learners.base import HorizonLearner, OnlineLearner
from okl.learners.budget_kinds import (
    TimeBudget,
    check_budget_choice,
    example_budget,
    example_budget_param,
    memory_per_example,
    memory_used,
    time_budget_param,
    time_per_example,
    time_used,
)
from okl.params import Choice, Int, KernelsParam, Real, Seed, Value
from okl.registry import register_learner

__all__ = ["BATBooks", "batbooks_upsilon", "condition_12", "paper_kernels",
           "sampling_rate"]

_LOSSES = {name: LOSS_CODES[name] for name in ("hinge", "absolute")}
_ETA_FIXED, _ETA_DOUBLING = 0, 1
_LIPSCHITZ = 1.0        # |l'| <= 1 for the hinge loss (|y| = 1) and the absolute loss
_DEFAULT_B = 400


_Z_FORMS = ("theorem8", "printed")
_VARIANTS = {"okl": False, "r": True}      # the core's r_code
#: the scripts' upsilon: table7/BATBooks.R (hinge) and table6/BATBooks-r.R (absolute)
R_UPSILON = {"hinge": 1.0 / 8.0, "absolute": 1.0 / 7.0}


def _z_factor(upsilon, z_form):
    return 1.0 / (1.0 - upsilon) if z_form == "theorem8" else 1.0 - upsilon


def sampling_rate(t, T, upsilon, z_form="theorem8"):
    """``z_{t,i}`` of Theorem 8: ``2 T^(1-upsilon) t^upsilon / (1-upsilon)``
    (``z_form="theorem8"``, what the theorem's ``|S_i| = O(B/2)`` needs) or, as printed,
    ``2 (1-upsilon) T^(1-upsilon) t^upsilon`` (``"printed"``); see :class:`BATBooks`."""
    check_choice(z_form, "z_form", _Z_FORMS)
    return 2.0 * _z_factor(upsilon, z_form) * float(T) ** (1.0 - upsilon) * t ** upsilon


def condition_12(T, K, B, upsilon, z_form="printed"):
    """Condition (12) of Theorem 10, ``z_{1,i} > C = K B``: the sampling probability
    ``min{1, C / z_t}`` is never clipped at 1.  As printed (``z_form="printed"``):
    ``2 (1 - upsilon) T^(1 - upsilon) > K B``; for the rate of ``z_form="theorem8"``:
    ``2 T^(1 - upsilon) / (1 - upsilon) > K B``.
    """
    return sampling_rate(1.0, T, upsilon, z_form) > K * B


def batbooks_upsilon(T, K, B, z_form="printed"):
    """The experiments' choice of ``upsilon`` (Sec. 5.3.1): the largest of
    ``{1/i : i = 3, ..., 12}`` that satisfies condition (12) (for the rate ``z_form``);
    ``0`` when none does (the paper does not say; ``upsilon = 0`` is Theorem 8's uniform
    rule, and Theorem 10's second case covers a failed (12))."""
    T = check_int(T, "T", low=1)
    K = check_int(K, "K", low=1)
    B = check_int(B, "B", low=1)
    for i in range(3, 13):
        if condition_12(T, K, B, 1.0 / i, z_form):
            return 1.0 / i
    return 0.0


class _Kernels(KernelsParam):
    """``kernels`` as given (scikit-learn's ``clone`` checks identity), the checked list
    (the paper's 9 Gaussians for ``None``) in ``kernels_``."""

    def assign(self, obj, value):
        obj.__dict__["kernels_"] = list(self.check(value))
        obj.__dict__[self.name] = value
        return value


class _Among(Choice):
    """A choice checked against its names as a sequence: an unhashable value gets the
    choice's ``ValueError`` (a ``dict`` lookup would raise ``TypeError``)."""

    def _check(self, value):
        return check_choice(value, self.name, tuple(self.choices))


def _check_lam(lam, name="lam"):
    """``None``, a rule (``"theorem10"``, ``"experiments"``, ``"r"``) or a step size
    ``> 0``."""
    if lam is None:
        return None
    if isinstance(lam, str):
        return check_choice(lam, name, {"theorem10", "experiments", "r"})
    return check_real(lam, name, low=0, low_open=True)


def _check_eta(eta, name="eta"):
    """``None``, a rule (``"theorem9"``, ``"doubling"``, ``"experiments"``, ``"r"``) or a
    rate ``>= 0``."""
    if eta is None:
        return None
    if isinstance(eta, str):
        return check_choice(eta, name, {"theorem9", "doubling", "experiments", "r"})
    return check_real(eta, name, low=0)


def _check_ell_max(ell_max, name="ell_max"):
    """``"doubling"`` or a normalizer ``> 0``."""
    if isinstance(ell_max, str):
        return check_choice(ell_max, name, {"doubling"})
    return check_real(ell_max, name, low=0, low_open=True)


def _example_budget(spec, K, d):
    """``B`` of a budget spec for inputs of dimension ``d``: ``None`` while ``d`` is
    needed (a time budget without ``beta``); ValueError when it is below 2.  A kernel
    evaluation against a stored example costs ``d + 1`` quanta, the OSMD step ``K``."""
    if isinstance(spec, TimeBudget) and spec.beta is None and d is None:
        return None
    B = example_budget(spec, time_per_example=time_per_example(1 if d is None else d, 1),
                       time_fixed=K)
    if B < 2:
        raise ValueError(f"time_budget={spec!r} allows B = {B} kernel evaluations a round"
                         f"{'' if d is None else f' for d = {d}'}: BATBooks needs B >= 2 "
                         "(two rows, floor(B/2) >= 1 examples a buffer)")
    return B


@register_learner(
    paper="selection", task="both",
    examples=[dict(kernels=[Gaussian(0.5), Gaussian(1.0), Gaussian(2.0)], B=40, T=600,
                   seed=0),
              dict(kernels=[Gaussian(1.0), Laplacian(2.0)], loss="absolute", B=30, T=600,
                   eta="doubling", ell_max="doubling", seed=1)],
    bounds="okl.experiments.bounds.selection:batbooks")
class BATBooks(HorizonLearner, OnlineLearner, BATBooksCore):
    r"""BATBooks (Bandit with Additional observation for Time BOunded Online Kernel
    Selection): Li & Liao, *Online kernel selection with computational constraints*,
    Sec. 4.2, eqs. (10)-(11), Theorems 8-10 (the paper's Algorithm 4).

    **Reconstruction.**  The paper's algorithm boxes are figures missing from its text;
    Algorithm 4 is rebuilt from Sec. 4.2 and Theorems 8-10.  With ``p_1`` uniform,
    ``S_i = {}`` and ``f_{1,i} = 0`` for the ``K`` kernels, round ``t = 1, ..., T``:

    1. **Exploit.** ``I_t ~ p_t``; predict :math:`\hat y_t = f_{t,I_t}(x_t)` (``sign`` for
       classification; ``Trace.scores`` holds :math:`\hat y_t`).
    2. **Explore.** ``J_t`` uniform on ``[K]``; compute :math:`f_{t,J_t}(x_t)` (nothing
       more when ``J_t = I_t``).  Only the kernel rows of ``S_{I_t}`` and ``S_{J_t}`` are
       evaluated: ``|S_{I_t}| + |S_{J_t}| <= B`` kernel evaluations (one row when
       ``I_t = J_t``).
    3. **Criteria.** :math:`c_{t,i} = \ell(f_{t,i}(x_t), y_t) / \ell_m` for
       ``i in {I_t, J_t}``.
    4. **Estimator (10)** :math:`\tilde c_{t,i} = c_{t,i}\,\mathbb 1_{i \in \{I_t,J_t\}}
       / (\frac{K-1}{K} p_{t,i} + \frac1K)` and **OSMD (11)** with the negative entropy:
       :math:`p_{t+1,i} \propto p_{t,i} e^{-\eta_t \tilde c_{t,i}}`
       (``okl.learners._experts.OSMDCore.update_pair``).  (11) prints
       :math:`\psi_t(p) = \sum_i \eta_t p_i \ln p_t`; Theorem 9's analysis needs
       :math:`\frac1{\eta_t}\sum_i p_i\ln p_i` (see ``okl.learners.experts.OSMD``).
    5. **Sampling rule.** If :math:`\ell'(f_{t,J_t}(x_t), y_t) \ne 0`, draw
       :math:`\rho_{t,J_t} \sim \mathrm{Ber}(q_t)`, :math:`q_t = \min\{1, C/z_{t,J_t}\}`
       with Theorem 8's ``C = K B`` and ``z_{t,i}`` below.  If :math:`\rho_{t,J_t} = 1`,
       ``x_t`` joins ``S_{J_t}`` with the step of (8) on the unbiased gradient
       :math:`\tilde\nabla_{t,J_t} = \nabla_{t,J_t} / (P[J_t = i]\,q_t) = K\nabla_{t,J_t}
       / q_t`: coefficient :math:`-\lambda_{J_t} K \ell'(f_{t,J_t}(x_t), y_t) / q_t`,
       then the projection :math:`\min\{1, U/\|\bar f\|\}\bar f` onto
       :math:`\mathbb H_{J_t} = \{\|f\| \le U\}`, with
       :math:`\|\bar f\|^2 = \|f\|^2 + 2 a f(x_t) + a^2 \kappa(x_t, x_t)` kept
       incrementally ("the projection can be computed incrementally in time O(1)"; the
       rescaling of the coefficients is one ``dscal``).  The other hypotheses, including
       ``f_{t,I_t}`` when ``I_t != J_t``, are not updated ("we do not update
       :math:`f_{t,I_t}` unless :math:`I_t = J_t`").
    6. ``I_{t+1} ~ p_{t+1}``.

    Choices where the text is open (each tested in ``tests/test_batbooks.py``):

    * **Budget.** ``B = beta * time_budget`` kernel evaluations a round (Theorem 8:
      ``B = beta T``); with ``time_budget`` quanta and no ``beta``,
      ``B = floor((time_budget - K) / (d + 1))`` (``okl.learners.budget_kinds``: one kernel
      evaluation against a stored example costs ``d + 1`` multiplications, the OSMD step
      ``K``, the paper's :math:`O(dB + K)`).  Two rows are evaluated a round, so each
      buffer holds at most ``floor(B/2)`` examples (Theorem 8's :math:`|S_i| = O(B/2)`)
      and a round never exceeds ``B`` kernel evaluations: the **hard guard** of the
      experiments ("we stop updating hypotheses when the actual budget exceeds the
      available budget", Sec. 5.2.1): when ``rho = 1`` and ``S_{J_t}`` is full, nothing
      is added and nothing updated (counted in ``extras["n_full"]``).
    * **The rate z_t (Theorem 8).**  Printed: :math:`z_{t,i} = 2(1-\upsilon)
      T^{1-\upsilon} t^\upsilon`.  Then ``E|S_i| <= sum_t (1/K) C/z_t =
      (B / (2(1-upsilon) T^(1-upsilon))) sum_{t<=T} t^-upsilon``, about
      ``B / (2 (1-upsilon)^2)``, not Theorem 8's ``B/2`` (``9B/8`` at ``upsilon = 1/3``):
      the Bernstein bound of Theorem 8 (mean ``B/2``) fails for ``upsilon > 0``.
      ``z_form="theorem8"`` (default) moves ``(1-upsilon)`` to the denominator,
      :math:`z_{t,i} = 2 T^{1-\upsilon} t^\upsilon / (1-\upsilon)`, so that
      ``sum_t (1/K) C/z_t <= B/2`` (``sum_{t<=T} t^-upsilon <= T^(1-upsilon)/(1-upsilon)``)
      and Theorem 8 holds; ``z_form="printed"`` is the printed rate.  Both coincide at
      ``upsilon = 0``.  The same reconstruction as LKMBooks' ``z_form`` and
      ``theory.selection.sampling_rate(form="corrected")``.  The step sizes of Theorem 10
      and Sec. 5.3.2 are kept as printed for both forms (they were tuned to the printed
      rate; with the corrected one the variance term changes by ``(1-upsilon)^-2``, the
      order of Theorem 10 is unchanged).  Condition (12) is ``z_{1,i} > C`` (no
      probability clipped at 1), evaluated for the rate in use (printed:
      ``2(1-upsilon)T^(1-upsilon) > KB``); it selects Theorem 10's step and the
      experiments' ``upsilon``.  Whatever the rate, the **hard guard** keeps every buffer
      within ``floor(B/2)``.
    * **t in z_t** is the round index (1-based), as printed (Theorem 2's ``|E_t| + 1`` is
      replaced in Theorem 8 by ``t``).
    * ``l'`` is ``-y 1{y f < 1}`` (hinge) and ``sign(f - y)`` (absolute, 0 at ``f = y``);
      ``L = 1`` for both.  ``D_i = kernel.sup_diag`` (must be finite: Assumption 1).
    * ``I_{t+1}`` is drawn at the end of round ``t`` (as soon as ``p_{t+1}`` is known):
      equivalent in distribution, and it makes ``decision_function`` return exactly the
      next prediction without consuming randomness.  Draw order of round ``t``: ``J_t =
      floor(K u)``; ``1{u < q_t}`` (only when ``l' != 0``); ``I_{t+1}`` by inverse CDF.

    Parameters
    ----------
    kernels : list of okl kernels or None
        The candidates ``kappa_1..kappa_K`` (bounded); default the paper's 9 Gaussians
        ``sigma = 2^-4..2^4`` (:func:`paper_kernels`).
    loss : {"hinge", "absolute"}, default "hinge"
        Classification with labels +-1 (hinge) or regression (absolute loss), Sec. 5.1.
    B : int >= 2 or None
        Example budget: kernel evaluations a round (each buffer holds ``floor(B/2)``).
        Give ``B`` or ``time_budget``, not both; neither means ``B = 400``.
    time_budget : float > 0 or okl.learners.budget_kinds.TimeBudget or None
        Time budget in quanta (one multiplication each), translated to ``B`` at the first
        example (``B_``).
    U : float > 0 or None
        Radius of :math:`\mathbb H_i`; ``None``: ``sqrt(B)`` (Theorem 10: ``U =
        Theta(sqrt(B))``; the experiments use ``B_0^{1/3}``), or ``B^{1/3}`` with
        ``variant="r"`` (the scripts' ``U <- B^(1/3)``).
    upsilon : float in [0, 1) or None
        Exponent of ``z_{t,i}``.  ``None``: :func:`batbooks_upsilon` (the experiments'
        rule), or the scripts' hard-coded ``1/8`` (hinge) / ``1/7`` (absolute) with
        ``variant="r"`` (``R_UPSILON``).
    lam : {"theorem10", "experiments", "r"}, float > 0 or None, default None
        Step sizes.  ``"theorem10"``: if (12) holds,
        :math:`\lambda_i = \sqrt{(1+\upsilon)B} / (\sqrt{2(1-\upsilon)D_i} L T)`, else
        :math:`\lambda_i = 1/(\sqrt{K D_i T} L)`.  ``"experiments"`` (Sec. 5.3.2):
        :math:`\lambda_i = U\sqrt{(1+\upsilon)B} / (\sqrt{2(1-\upsilon)D_i} L T)` (the
        paper's Gaussians have ``D_i = 1``).  ``"r"``: the scripts' -- ``"experiments"``
        (hinge, ``BATBooks.R``) or :math:`\sqrt{(1+\upsilon)B} / (\sqrt{(1-\upsilon)D_i}
        T)` (absolute, ``BATBooks-r.R``).  A float: the same step for every kernel.
        ``None``: ``"theorem10"``, or ``"r"`` with ``variant="r"``.
    eta : {"theorem9", "doubling", "experiments", "r"}, float >= 0 or None, default None
        Learning rate of (11).  Theorem 9's :math:`\eta = \min\{\sqrt{2\ln K /
        (K\tilde C_{T,*})}, 1/K\}` depends on the unknown :math:`\tilde C_{T,*} =
        \min_i\sum_t \tilde c_{t,i}`.  ``"theorem9"``: ``C~`` replaced by ``T`` (its
        expectation's worst case, ``E C~_{T,i} = sum_t c_{t,i} <= T``), a fixed rate, as
        ``okl.learners.experts.OSMD``.  ``"doubling"``: Theorem 9's formula with ``C~``
        guessed by the doubling trick: before round ``t``, ``C^`` is the least power of
        two ``>= max(1, C~_{t-1,*})`` (the running minimum of the cumulative estimates);
        ``p`` is not restarted when ``C^`` doubles.  ``"experiments"`` (Sec. 5.3.1):
        :math:`4\sqrt{\ln K/(K \hat C)}` with the same doubling (no ``1/K`` cap).
        ``"r"`` (only with ``variant="r"``): the scripts' rule, ``4 sqrt(ln K / (K m))``
        with ``m = 4, 16, 64, ...`` and restarts (Notes).  A float: fixed.  ``None``:
        ``"theorem9"``, or ``"r"`` with ``variant="r"``.
    z_form : {"theorem8", "printed"} or None, default None
        The rate ``z_{t,i}`` of the sampling rule (see above); ``None``: ``"theorem8"``,
        or ``"printed"`` with ``variant="r"``.
    ell_max : float > 0 or "doubling", default 1.0
        The normalizer ``ell_m`` of ``c_{t,i} = l / ell_m``; the experiments set 1.
        ``"doubling"``: the least power of two ``>= max(1, largest loss observed so far,
        this round's included)``, so that ``c in [0, 1]`` as Theorem 9 requires.
    T : int >= 1 or None
        The horizon (``z_t``, ``lambda``, ``eta``, ``upsilon`` depend on it).  ``None``:
        ``run`` takes it from its stream (one ``run`` is then the whole horizon); required
        for ``learn_one`` / ``partial_fit``.  Learning more than ``T`` rounds raises
        ``ValueError``.
    variant : {"okl", "r"}, default "okl"
        okl's reading of the paper, or the round of the authors' R scripts
        (``table7/BATBooks.R``, ``table6/BATBooks-r.R``) literally: see "The authors' R
        code" in the Notes.  Sets the defaults of ``U``, ``upsilon``, ``lam``, ``eta`` and
        ``z_form`` left at ``None``, and the guard ``|S_i| < B/2`` (``ceil(B/2)``).
    seed : int, Generator or None
        Seed of ``I_t``, ``J_t`` and ``rho_t``.

    Notes
    -----
    **The authors' R code** (``table7/BATBooks.R``, ``Adv-BATBooks.R``,
    ``table6/BATBooks-r.R`` of JunfLi-TJU/ACML2021-Journal-Track; ``variant="r"`` runs
    it, reproduced round for round by ``tests/test_batbooks.py`` on the fixtures of
    ``tests/fixtures/r/selection/``) runs the printed ``z_t``, ``ell_max = 1``,
    ``C = K B``, the estimator (10) and ``J_t`` uniform as okl, and differs from okl's
    default in:

    1. The learning rate: ``eta = 4 sqrt(ln K) / sqrt(K m)`` with ``m = 4`` at the start
       and ``m <- 4 m`` whenever ``min_i C~_{t,i} > m``; then ``p`` restarts from
       uniform.  Classification (``BATBooks.R``): checked after the round, that round's
       update discarded, ``C~`` kept.  Regression (``BATBooks-r.R``): checked after each
       observed kernel, ``C~`` reset to 0, so a restart after ``I_t`` leaves ``J_t``'s
       update on the uniform ``p``.  okl follows Theorem 9 by default (``eta`` fixed,
       ``C~`` replaced by ``T``; ``eta="doubling"`` / ``"experiments"``: a power of two
       ``>= C~``, no restart): Theorem 9's bound is for a fixed rate.
    2. The step divides by the unclipped ``P[J_t = i] P[rho = 1] = (K B / z_t) / K``
       (the draw uses ``min{1, .}``); the norm recursion adds ``1e-7`` under the square
       root and, in regression, ``(lambda / P)^2`` even when ``l' = 0``.  okl: the
       unbiased ``K / q_t`` and the exact norm.
    3. Regression draws ``rho_t`` whenever ``J_t`` is observed (okl: only when
       ``l' != 0``; with the absolute loss they differ only at ``f = y``).
    4. ``upsilon = 1/8`` (classification) and ``1/7`` (regression), ``U = B^{1/3}`` and
       the guard ``k_i < B/2`` (``ceil(B/2)`` examples), ``B = 2900`` / ``1300``
       hard-coded per data set; steps ``lam="experiments"`` (classification) and
       ``sqrt((1+upsilon) B) / (sqrt(1-upsilon) T)`` (regression: ``sqrt 2`` times
       Theorem 10's, without ``U``).  okl: :func:`batbooks_upsilon`, ``U = sqrt(B)``,
       ``floor(B/2)``, Theorem 10's steps.
    5. ``I_t`` and ``J_t`` are drawn by ``sample(prob = .)`` at the start of the round,
       ``rho_t`` when ``J_t``'s turn comes: the same order of draws as okl's; the
       fixtures' scripts map the uniforms as okl does (``J_t = floor(K u)``, ``I_t`` by
       inverse CDF in index order; R's ``sample`` sorts the probabilities first).
       Mistakes: ``y != (+1 if f >= 0 else -1)``
       (``okl.experiments.selection.authors_mistakes``).

    ``Trace.losses``: :math:`\ell(f_{t,I_t}(x_t), y_t)`; ``Trace.budget``: the examples
    stored in all buffers, :math:`\sum_i |S_i|`, after each round.  ``Trace.extras``:
    ``p`` (``p_{T+1}``), ``sizes`` (``|S_i|``), ``n_added`` (additions per kernel),
    ``exploit_counts`` / ``explore_counts``, ``n_gradient`` (rounds with
    ``l'(f_{t,J_t}) != 0``), ``n_rho`` (``rho = 1``), ``n_full`` (``rho = 1`` refused by the
    hard guard), ``n_projections``, ``max_kernel_evaluations`` (over all rounds; ``<= B``),
    ``max_time`` (quanta of the costliest round, ``<= time_budget``), ``B``, ``capacity``,
    ``U``, ``upsilon``, ``condition_12``, ``lam``, ``eta``, ``T``, and per round of this run:
    ``exploited`` (``I_t``), ``explored`` (``J_t``), ``kernel_rows`` (1 or 2),
    ``kernel_evaluations``, ``rho`` (-1: no gradient, 0, 1: added, 2: refused, full),
    ``q`` (``min{1, C/z_t}``, NaN-free: -1 without gradient) and ``eta`` (``eta_t``).
    """

    kernels = _Kernels(bounded=True)
    loss = Choice("hinge", _LOSSES, core="loss_kind")
    B = example_budget_param(none=f"{_DEFAULT_B} if time_budget is None too")
    time_budget = time_budget_param(none="not given: the budget is B")
    U = Real(None, low=0, low_open=True, none="sqrt(B) (variant='r': B^(1/3))")
    upsilon = Real(None, low=0, high=1, high_open=True,
                   none="batbooks_upsilon(T, K, B) (variant='r': R_UPSILON[loss])")
    lam = Value(None, check=_check_lam, none="'theorem10' ('r' with variant='r')",
                text="a real > 0 or one of ['experiments', 'r', 'theorem10']")
    eta = Value(None, check=_check_eta, none="'theorem9' ('r' with variant='r')",
                text="a real >= 0 or one of ['doubling', 'experiments', 'r', 'theorem9']")
    ell_max = Value(1.0, check=_check_ell_max, text="a real > 0 or 'doubling'")
    z_form = _Among(None, _Z_FORMS, none="'theorem8' ('printed' with variant='r')")
    T = Int(None, low=1, role="horizon", none="the length of the first run's stream")
    variant = _Among("okl", _VARIANTS, core="r_code")
    seed = Seed()

    def _check_params(self):
        B, time_budget, eta, variant = self.B, self.time_budget, self.eta, self.variant
        spec = _DEFAULT_B if B is None and time_budget is None else \
            check_budget_choice(B, None, time_budget)
        if isinstance(spec, int) and spec < 2:
            raise ValueError(f"B must be >= 2 (two kernel rows a round, each buffer holds "
                             f"floor(B/2) >= 1 examples), got {spec}")
        if (eta == "r") != (variant == "r") and eta is not None:
            raise ValueError(f"eta='r' (the scripts' restarts) goes with variant='r' and "
                             f"variant='r' with eta='r' or None, got eta={eta!r}, "
                             f"variant={variant!r}")
        if variant == "r" and self.ell_max != 1.0:
            raise ValueError(f"variant='r' runs the scripts' max_loss = 1, got "
                             f"ell_max={self.ell_max!r}")
        _example_budget(spec, self.K, None)     # B < 2 from a time budget with beta
        r = variant == "r"
        self.z_form_ = self.z_form or ("printed" if r else "theorem8")
        self.lam_rule_ = self.lam if self.lam is not None else ("r" if r else "theorem10")
        self.eta_rule_ = eta if eta is not None else ("r" if r else "theorem9")
        self._budget_spec = spec
        self._B = None

    def _classifies(self):
        return self.loss == "hinge"

    def _configure(self):
        super()._configure()            # the seed, the kernels, ell_m, I_1 (the core's _setup)
        B = _example_budget(self._budget_spec, self.K, None)     # None: needs d
        if B is not None:
            self._apply_budget(B)
            if self.T is not None:
                self._apply_horizon(self.T)

    # -- budget and horizon ----------------------------------------------------------

    @property
    def K(self) -> int:
        return len(self.kernels_)

    def _example_budget(self, d):
        return _example_budget(self._budget_spec, self.K, d)

    def _apply_budget(self, B):
        self._B = B
        # the scripts' guard k_i < B/2 keeps ceil(B/2) examples
        self._bat_set_capacity((B + 1) // 2 if self.variant == "r" else B // 2,
                               self._radius(B))

    def _radius(self, B):
        if self.U is not None:
            return self.U
        return B ** (1.0 / 3.0) if self.variant == "r" else math.sqrt(B)

    def _settings_for(self, T, B):
        """Every horizon-dependent setting: ``upsilon``, (12), ``lambda_i``, the rate."""
        K = self.K
        zf = self.z_form_
        ups = self.upsilon
        if ups is None:
            ups = R_UPSILON[self.loss] if self.variant == "r" else \
                batbooks_upsilon(T, K, B, zf)
        cond = condition_12(T, K, B, ups, zf)
        D = np.array([k.sup_diag for k in self.kernels_], dtype=float)
        U = self._radius(B)
        lam_rule = self.lam_rule_
        if lam_rule == "r":
            lam_rule = "experiments" if self.loss == "hinge" else "r"
        if isinstance(lam_rule, str):
            if lam_rule == "theorem10" and not cond:
                lam = 1.0 / (np.sqrt(K * D * T) * _LIPSCHITZ)
            elif lam_rule == "r":
                # BATBooks-r.R: sqrt((1 + nu) B) / (sqrt(1 - nu) T)
                lam = math.sqrt((1.0 + ups) * B) / (np.sqrt((1.0 - ups) * D) * T)
            else:
                lam = (math.sqrt((1.0 + ups) * B)
                       / (np.sqrt(2.0 * (1.0 - ups) * D) * _LIPSCHITZ * T))
                if lam_rule == "experiments":
                    lam = U * lam
        else:
            lam = np.full(K, lam_rule)
        lnK = math.log(K)
        eta_rule = self.eta_rule_
        if eta_rule == "r":
            # the typed core runs the scripts' rule (m = 4, 16, ...; restarts)
            mode, eta0, c, cap = _ETA_FIXED, 4.0 * math.sqrt(lnK) / math.sqrt(4.0 * K), \
                0.0, 0.0
        elif isinstance(eta_rule, str):
            if eta_rule == "theorem9":
                mode = _ETA_FIXED
                eta0 = min(math.sqrt(2.0 * lnK / (K * T)), 1.0 / K)
                c, cap = 0.0, 0.0
            elif eta_rule == "doubling":
                mode = _ETA_DOUBLING
                c, cap = math.sqrt(2.0 * lnK / K), 1.0 / K
                eta0 = min(c, cap)
            else:
                mode = _ETA_DOUBLING
                c, cap = 4.0 * math.sqrt(lnK / K), math.inf
                eta0 = c
        else:
            mode, eta0, c, cap = _ETA_FIXED, eta_rule, 0.0, 0.0
        return {"upsilon": ups, "z_factor": _z_factor(ups, zf), "condition_12": cond,
                "lam": np.ascontiguousarray(lam),
                "eta_mode": mode, "eta": eta0, "eta_c": c, "eta_cap": cap, "C": float(K * B)}

    def _apply_horizon(self, T):
        s = self._settings_for(T, self._B)
        self._bat_set_horizon(T, s["upsilon"], s["z_factor"], s["C"], s["lam"], s["eta_mode"],
                              s["eta"], s["eta_c"], s["eta_cap"])

    _horizon_depends = "z_t, lambda and eta"

    def _core_horizon(self):
        return self._bat_horizon()

    def _checked(self, X, y):
        stream, labels = super()._checked(X, y)
        T = self._horizon_for(stream.T)
        B = self._B if self._B is not None else self._example_budget(stream.d)
        self._settings_for(T, B)
        return stream, labels

    def _ensure_allocated(self, d):
        if self.n_features is None and self._B is None:
            self._apply_budget(self._example_budget(d))
        super()._ensure_allocated(d)

    def _begin_stream(self, n_rounds):
        T = self._horizon_for(n_rounds)
        if self._bat_horizon() <= 0:
            self._apply_horizon(T)
        self._bat_begin(n_rounds)

    # -- inspection ------------------------------------------------------------------

    @property
    def B_(self):
        """The example budget ``B`` in use (kernel evaluations a round); ``None`` until
        known (a ``time_budget`` without ``beta`` needs ``d``)."""
        return self._B

    @property
    def capacity_(self):
        """``floor(B/2)`` (``variant="r"``: ``ceil(B/2)``): the most examples a buffer
        holds."""
        if self._B is None:
            return None
        return (self._B + 1) // 2 if self.variant == "r" else self._B // 2

    @property
    def U_(self):
        return None if self._B is None else self._radius(self._B)

    def _settings(self):
        T = self.horizon_
        return None if T is None or self._B is None else self._settings_for(T, self._B)

    @property
    def upsilon_(self):
        s = self._settings()
        return None if s is None else s["upsilon"]

    @property
    def lam_(self):
        """The step sizes ``lambda_i`` in use."""
        s = self._settings()
        return None if s is None else s["lam"].copy()

    @property
    def probabilities(self) -> np.ndarray:
        """``p_{t+1}``: the distribution of the next exploited kernel."""
        return self.osmd.probabilities

    @property
    def next_exploit(self) -> int:
        """``I_{t+1}``, already drawn: the kernel that predicts the next example."""
        return int(self.I_next)

    @property
    def buffer_sizes(self) -> np.ndarray:
        return np.array(self.n, dtype=np.int64)

    def buffer(self, i):
        """``(support vectors (n, d), coefficients (n,))`` of ``S_i``:
        :math:`f_i = \\sum_m a_m \\kappa_i(s_m, \\cdot)`."""
        i = check_int(i, "i", low=0, high=self.K - 1)
        V, A, _ = self._bat_buffer(i)
        return V, A

    def _support_set(self, i):
        if self.n_features is None:
            return None
        V, A, S = self._bat_buffer(i)
        out = SupportSet(self.kernels_[i], self.n_features, max(len(A), 1))
        for r in range(len(A)):
            out.push(V[r], float(A[r]), int(S[r]))
        return out

    @property
    def support_sets(self):
        """The ``K`` buffers as ``okl.SupportSet`` copies (``None`` before any example)."""
        if self.n_features is None:
            return None
        return [self._support_set(i) for i in range(self.K)]

    @property
    def support_set(self):
        """A copy of ``S_{I_{t+1}}``, the buffer of the hypothesis that predicts next."""
        return self._support_set(self.next_exploit)

    @property
    def support_vectors(self):
        s = self.support_set
        return np.empty((0, 0)) if s is None else s.vectors

    @property
    def coefficients(self):
        s = self.support_set
        return np.empty(0) if s is None else s.coefficients

    def _extras(self):
        v = read_fields(self, self._values_fields)
        out = {k: v[k] for k in ("p", "sizes", "n_added", "exploit_counts", "explore_counts",
                                 "n_gradient", "n_rho", "n_full", "n_projections",
                                 "max_kernel_evaluations", "kernel_rows_total",
                                 "kernel_evaluations_total", "max_buffer_size",
                                 "max_criterion", "C_hat", "ell_max", "norms_sq",
                                 "cum_estimates", "restarts")}
        out["eta_final"] = v["eta"]
        out["next_exploit"] = v["next_exploit"]
        s = self._settings()
        out.update({"B": self._B, "capacity": self.capacity_, "U": self.U_,
                    "T": self.horizon_,
                    "upsilon": None if s is None else s["upsilon"],
                    "condition_12": None if s is None else s["condition_12"],
                    "lam": None if s is None else s["lam"].copy()})
        d = self.n_features
        if d is not None:
            out["max_time"] = time_used(v["max_kernel_evaluations"], time_per_example(d, 1),
                                        self.K)
            out["memory"] = memory_used(int(v["sizes"].sum()), memory_per_example(d, 1),
                                        self.K)
        if isinstance(self._budget_spec, TimeBudget):
            out["time_budget"] = self._budget_spec.quanta
        out.update(self._bat_records())
        return out

    # -- pickling --------------------------------------------------------------------

    def _state(self):
        # the budget and horizon first: restoring them sets up what the core's state needs
        return {"B": self._B, "horizon": self._bat_horizon(), "core": super()._state()}

    def _restore(self, state):
        if state["B"] is not None and self._B is None:
            self._apply_budget(state["B"])
        if state["horizon"] > 0 and self._bat_horizon() <= 0:
            self._apply_horizon(state["horizon"])
        super()._restore(state["core"])
