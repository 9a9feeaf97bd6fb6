r"""Kernel online Newton step (KONS) with a sketched Newton matrix or a restarted Nyström
embedding, the two second-order competitors of Kernel-AWV/PKAWV in Jézéquel, Gaillard &
Rudi, *Efficient online learning with kernels for adversarial large scale problems*
(NeurIPS 2019): eq. (8), Table 1, Figure 1 and the experiments of Section 4 and Appendix G
(Figure 3).

* :class:`SketchedKONS` -- Calandriello, Lazaric & Valko, *Second-order kernel online
  convex optimization with adaptive sketching* (ICML 2017), "[12]" of Jézéquel et al.
* :class:`ProsNKONS` -- Calandriello, Lazaric & Valko, *Efficient second-order online
  kernel learning with adaptive embedding* (NeurIPS 2017), "[13]": KONS on the Nyström
  embedding of a KORS dictionary, restarted whenever KORS adds a point.

Sources.  No code of Calandriello et al. is reachable from here.  The code of
Jézéquel et al. for their experiments (a Python file with ``KORS``, ``Pros_n_kons``,
``Nystrom_chol_kernel_vovk_reg``, ...; found in the public code index, repository name
not shown) contains Pros-N-KONS but no Sketched-KONS: :class:`ProsNKONS` follows the
papers' algorithm by default and reproduces that code with ``variant="jgr2019"`` (each
difference listed in its docstring); :class:`SketchedKONS` is reconstructed from the
ICML paper's algorithm as recalled here and from Jézéquel et al.'s summary of it (eq. (8):
``R_n <~ lambda + (n/m) d_eff(lambda)``; Table 1: regret ``c (log n)^{d+1}`` at
per-round cost ``(n/c)^2``), equation by equation in its docstring.  Both are for the
square loss, the loss of Jézéquel et al.; classification regresses the labels in {-1, +1} and
predicts their sign, as okl's Kernel-AWV and PKAWV do.
"""
from __future__ import annotations

import numpy as np

from okl._learner import Field, fields
from okl._validation import check_real
from okl.kernels import Gaussian, Laplacian
from okl.learners._kons import DEPENDENCE_TOL, ProsNKONSCore, SketchedKONSCore
from okl.learners.base import KORSDictionaryView, OnlineLearner
from okl.params import Choice, KernelParam, Real, Seed
from okl.registry import register_learner

__all__ = ["SketchedKONS", "ProsNKONS", "DEPENDENCE_TOL", "square_loss_eta"]

_TASKS = {"regression": False, "classification": True}
_VARIANTS = {"paper": False, "jgr2019": True}     # value: the core's ``code`` flag


def square_loss_eta(C=1.0, Y=1.0) -> float:
    r"""The largest Newton step ``eta`` for which the KONS regret bound holds with the
    square loss: ``eta = 1 / (2 (C + Y)^2)`` for forecasts ``|yhat| <= C`` and labels
    ``|y| <= Y``.

    For ``l(z) = (z - y)^2``, ``l(z') = l(z) + l'(z)(z' - z) + (z' - z)^2`` exactly; the
    curvature term ``(eta/2) (l'(z)(z' - z))^2`` of the ONS analysis is at most
    ``(z' - z)^2`` iff ``eta <= 2 / l'(z)^2 = 1 / (2 (z - y)^2)``.  ``C = Y = 1`` (the
    scaling of Jézéquel et al.'s experiments) gives ``1/8``; okl's default ``eta = 1/16`` is
    the step of the code of Jézéquel et al. (``u = g/4``, ``A += u u^T``).
    """
    C = check_real(C, "C", low=0, low_open=True)
    Y = check_real(Y, "Y", low=0)
    return 1.0 / (2.0 * (C + Y) ** 2)


class _KONS:
    """The leading parameters both KONS learners share (``okl.params``)."""

    kernel = KernelParam()
    alpha = Real(1.0, low=0, low_open=True)
    C = Real(1.0, low=0, low_open=True, allow_inf=True)
    eta = Real(1.0 / 16, low=0, low_open=True)

    def _classifies(self):
        return _TASKS[self.task]


@register_learner(
    paper="awv", role="baseline", task="both",
    examples=[dict(kernel=Gaussian(1.0), gamma=0.2, seed=5),
              dict(kernel=Laplacian(2.0), gamma=0.5, task="classification", seed=6)],
    bounds="okl.experiments.bounds.awv:kons")
class SketchedKONS(_KONS, OnlineLearner, SketchedKONSCore):
    r"""Sketched-KONS (Calandriello, Lazaric & Valko, ICML 2017): the kernel online Newton
    step whose Newton matrix keeps only a sample of the gradients, each drawn with a
    probability of at least ``gamma``.

    Square loss ``l_t(f) = (f(x_t) - y_t)^2`` in the RKHS ``H`` of ``kernel`` (``phi_t =
    phi(x_t)``, ``f(x) = <f, phi(x)>``).  With ``w_0 = 0``, ``g_0 = 0``,
    ``A~_0 = alpha I``, round ``t``:

    1. Newton step: ``u_t = w_{t-1} - A~_{t-1}^{-1} g_{t-1}``;
    2. projection on ``S_t = {w : |<w, phi_t>| <= C}`` in the ``A~_{t-1}`` norm,
       ``w_t = u_t - h(<u_t, phi_t>) / <phi_t, A~_{t-1}^{-1} phi_t> A~_{t-1}^{-1} phi_t``,
       ``h(z) = sign(z) max(|z| - C, 0)``;
    3. forecast ``yhat_t = <w_t, phi_t> = clip(<u_t, phi_t>, -C, C)``;
    4. gradient ``g_t = l_t'(yhat_t) phi_t = 2 (yhat_t - y_t) phi_t``;
    5. sketch: ``tau_t = eta <g_t, A~_{t-1}^{-1} g_t>``,
       ``p_t = max(min(beta tau_t, 1), gamma)``, ``z_t = [u_t < p_t]`` (the learner's
       seeded ``uniform()``, one per round);
    6. ``A~_t = A~_{t-1} + eta z_t g_t g_t^T``.

    Without sampling (``gamma = 1``: every ``z_t = 1``) this is KONS, the kernel online
    Newton step of the same paper.

    *Reconstruction.*  Steps 1-6 are the ICML paper's KONS and Sketched-KONS as recalled
    here (no text or code of the paper is reachable): the projected Newton step and the
    clipped forecast of KONS, the score ``tau_t`` computed with the sketch of round
    ``t - 1``, the floor ``gamma`` on ``p_t`` and the *unweighted* sketch update of step 6
    (so ``A~_t <= A_t``).  Jézéquel et al. fix only the trade-off, eq. (8): regret
    ``<~ lambda + (n/m) d_eff(lambda)`` with ``m ~ gamma n`` sampled gradients; this
    reconstruction has it: the ONS argument gives, for every ``f`` with
    ``|f(x_t)| <= C`` and ``eta <= 1 / (2 (yhat_t - y_t)^2)`` (see
    :func:`square_loss_eta`),

    .. math::

        R_n(f) \le \frac{\alpha}{2}\|f\|^2 + \frac12 \sum_t g_t^\top \tilde A_t^{-1} g_t,

    (``theory.kons.kons_regret_bound``, reported as ``extras["sum_leverage"]`` =
    ``sum_t g_t^T A~_t^{-1} g_t``), and in expectation over the draws
    ``E[sum_t g^T A~_t^{-1} g] <= (1 + 1/beta)/(gamma eta) log det(I + eta L^2 K_n /
    alpha)`` (``theory.kons.sketched_kons_expected_bound``).  The step ``eta``: KONS
    updates ``A`` with ``sigma/2 g g^T`` for ``sigma``-exp-concave losses; here ``eta``
    is that coefficient, default ``1/16`` as in the code of Jézéquel et al. for their
    Pros-N-KONS (``u = g/4``).

    *Computation* (kernel form).  ``A~ = alpha I + sum_j s_j^2 phi_j phi_j^T`` over the
    sampled rounds ``j`` (``s_j = sqrt(eta) |l'_j|``); with ``M = S K_SS S + alpha I``
    kept as a Cholesky factor (``okl.learners.kors.RidgeLeverage``, the same weighted
    ridge factor as KORS), Woodbury gives ``A~^{-1} phi(x) = (phi(x) - Phi_S S M^{-1} S
    k_S(x)) / alpha`` and ``<phi(x), A~^{-1} phi(x)> = r(x) / alpha`` (``r`` the
    weighted ridge residual), so ``tau_t = eta l'^2 r_t / alpha``.  The iterate is kept
    as ``u_{t+1} = sum_{s <= t} c_s phi(x_s)``: step 2 and the next Newton step change
    ``c_t`` and the coefficients of the sketch's points only (Sherman-Morrison for
    ``A~_t^{-1} phi_t`` when ``phi_t`` joins).  A round costs a kernel row over every
    past input (O(t d)) and two triangular solves with ``M`` (O(m^2)); memory
    O(t d + m^2), ``m`` the number of sampled gradients: the O(t + (gamma t)^2) of the
    paper.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    alpha : float > 0, default 1.0
        The regularization ``alpha`` of ``A~_0 = alpha I`` (Jézéquel et al.'s
        ``lambda``; their experiments use 1).
    C : float > 0 or inf, default 1.0
        The feasible set ``|f(x_t)| <= C`` (``C = 1`` for labels scaled to [-1, 1]).
    eta : float > 0, default 1/16
        Newton step: ``A~_t = A~_{t-1} + eta z_t g_t g_t^T``.
    beta : float > 0, default 1.0
        Oversampling of the scores (Jézéquel et al.: "beta = 1 ... as in [12]").
    gamma : float in (0, 1], default 0.1
        Floor of the sampling probability: ``m ~ gamma n`` gradients are kept, the cost
        is ``(gamma n)^2`` a round, the regret ``1/gamma`` times KONS'.  Jézéquel et al.
        give no value (Table 1's ``c`` is ``1/gamma``); 0.1 is okl's choice.
    task : {"regression", "classification"}, default "regression"
    seed : int, Generator, SeedSequence or None
        The sketch's Bernoulli draws: one ``uniform()`` per round.

    Notes
    -----
    ``Trace.scores`` holds ``yhat_t``, ``Trace.losses`` ``(y_t - yhat_t)^2``,
    ``Trace.budget`` the number of gradients in the sketch.  ``Trace.extras``:
    ``"dictionary_size"``, ``"sampled"`` (rounds with ``z_t = 1``),
    ``"sampled_zero_gradient"`` (of which ``g_t = 0``: nothing to add),
    ``"projections"`` (rounds where ``h != 0``), ``"sum_p"``, ``"sum_leverage"``
    (``sum_t g_t^T A~_t^{-1} g_t``), ``"log_det"`` (``log det(A~_n / alpha)``) and
    ``"stored_inputs"`` (every input is kept).  All accumulated over the learner's life.
    """

    beta = Real(1.0, low=0, low_open=True)
    gamma = Real(0.1, low=0, high=1, low_open=True)
    task = Choice("regression", _TASKS)
    seed = Seed()

    _blas_in_round_loop = True

    def _allocation(self):
        return 64, True

    def _begin_stream(self, n_rounds):
        self._sketched_begin(n_rounds)

    _extras_fields = fields(
        Field("dictionary_size", get="_support_size"), ("sampled", "n_sampled"),
        ("sampled_zero_gradient", "n_zero"), ("projections", "n_proj"), "sum_p",
        ("sum_leverage", "sum_lev"), "log_det", Field("stored_inputs", get="_stored_inputs"))

    @property
    def sketch(self) -> np.ndarray:
        """The inputs whose gradients are in the sketch, shape ``(m, d)``."""
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def sketch_weights(self) -> np.ndarray:
        """``s_j = sqrt(eta) |l'_j|``: ``A~ = alpha I + sum_j s_j^2 phi_j phi_j^T``."""
        return np.empty(0) if self.support_set is None else self.support_set.coefficients

    def newton_coefficients(self) -> np.ndarray:
        """``c`` with ``u_{t+1} = sum_s c_s phi(x_s)`` over every input learned."""
        h = self.history if self.n_features is not None else None
        return np.empty(0) if h is None else h.coefficients


@register_learner(
    paper="awv", role="baseline", task="both",
    examples=[dict(kernel=Gaussian(1.0), seed=7),
              dict(kernel=Gaussian(3.0), mu=3.0, variant="jgr2019", task="classification",
                   seed=8)],
    bounds="okl.experiments.bounds.awv:kons")
class ProsNKONS(KORSDictionaryView, _KONS, OnlineLearner, ProsNKONSCore):
    r"""Pros-N-KONS (Calandriello, Lazaric & Valko, NeurIPS 2017): KONS on the Nyström
    embedding of a KORS dictionary, restarted whenever KORS adds a point.

    Round ``t``, with the dictionary ``I`` (``j`` points so far, epoch ``j``):

    1. **KORS** (shared with PKAWV: ``okl.learners.kors``): ridge leverage of ``x_t``
       under the temporary dictionary ``I + (t, 1)``, ``tau_t = (1 + eps) r_t / (r_t +
       mu)``, ``p_t = min(beta tau_t, 1)``, ``z_t = [u_t < p_t]`` with the learner's
       seeded draw ``u_t`` (drawn at the end of round ``t - 1``, so that
       ``decision_function`` is the next round's forecast, restart included).
    2. **Restart** if ``z_t = 1``: ``x_t`` joins (weight ``p_t^{-1/2}``), the embedding
       becomes ``phi~(x) = K_II^{-1/2} k_I(x)`` on the new dictionary (okl:
       ``L^{-1} k_I(x)`` with ``K_II = L L^T``; the paper's ``Sigma_j^{-1/2} U_j^T
       k_I(x)`` differs by an orthogonal map, which leaves every forecast unchanged),
       and KONS restarts: ``A~ = alpha I``, ``w_t = 0`` (so ``yhat_t = 0``).
    3. Otherwise **KONS** on ``phi~_t``: ``u_t = w_{t-1} - A~^{-1} g_{t-1}``,
       ``w_t = u_t - h(phi~_t^T u_t) / (phi~_t^T A~^{-1} phi~_t) A~^{-1} phi~_t``
       (``h(z) = sign(z) max(|z| - C, 0)``), ``yhat_t = phi~_t^T w_t = clip(phi~_t^T
       u_t, -C, C)``.
    4. ``g_t = 2 (yhat_t - y_t) phi~_t``, ``A~ <- A~ + eta g_t g_t^T`` (Sherman-Morrison
       on ``A~^{-1}``, as the code of Jézéquel et al.).

    Until the first point joins the embedding is empty and ``yhat_t = 0``.  Per round:
    a kernel row against the dictionary (O(m d)), the KORS residual and the embedding
    (two O(m^2) triangular solves), ``A~^{-1} phi~`` and its rank-one update (O(m^2));
    a restart resets ``A~^{-1}`` (O(m^2)).  Memory O(m^2 + m d).

    *Sources.*  The NeurIPS paper's algorithm (as recalled here) and Jézéquel et al.'s summary
    (eq. (8): ``R_n <~ m (lambda + d_eff(lambda)) + n mu / lambda``; Table 1; "restarted
    whenever a point is added in the dictionary").  The code of Jézéquel et al. for
    their Figure 3 (``Pros_n_kons``; see the module docstring) differs, and
    ``variant="jgr2019"`` reproduces it:

    * its ``predict`` returns ``clip(phi~_t^T w_{t-1})`` -- the last projected point,
      without the Newton step ``- A~^{-1} g_{t-1}`` and on the dictionary before round
      ``t``'s KORS draw -- while its ``update`` learns from the KONS forecast of step 3
      (``Trace.scores`` holds ``predict``'s value, the one its experiments record);
    * on a restart round it sets ``phi~_t = 0``: no gradient, ``A~ = alpha I``;
    * its KORS weights a joining point by ``1/p_t`` (the selection matrix of KORS has
      ``p^{-1/2}``) and uses ``mu = alpha`` (its ``lbd``): pass ``mu=alpha``.

    okl follows the paper by default: the recorded forecast is the one the algorithm
    learns from, and the regret bounds are about it.  Both variants draw ``u_t`` the
    same way.

    *Choices.*  A sampled point whose ALD residual ``k(x,x) - k_I^T K_II^{-1} k_I`` is
    at most ``DEPENDENCE_TOL k(x, x)`` (``1e-10``) does not join (``extras["rejected"]``):
    ``K_II`` would be singular and the embedding undefined (the code's SVD would divide
    by a zero singular value).

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    alpha : float > 0, default 1.0
        ``A~ = alpha I`` at every restart (Jézéquel et al.'s ``lambda = 1``).
    C : float > 0 or inf, default 1.0
        Feasible set ``|f(x_t)| <= C``.
    eta : float > 0, default 1/16
        Newton step (the code's ``u = g/4``, ``A += u u^T``; see :func:`square_loss_eta`).
    mu : float > 0, default 1.0
        KORS regularization (Jézéquel et al., Sec. 4: ``mu = 1``).
    beta : float > 0 or inf, default 1.0
        KORS oversampling (``beta = 1``).
    eps : float in (0, 1), default 0.5
        KORS accuracy (``eps = 0.5``).
    variant : {"paper", "jgr2019"}, default "paper"
        ``"jgr2019"``: the code of Jézéquel et al. (see above).
    task : {"regression", "classification"}, default "regression"
    seed : int, Generator, SeedSequence or None
        KORS' draws: one ``uniform()`` per round.

    Notes
    -----
    ``Trace.scores`` holds the forecasts, ``Trace.losses`` ``(y_t - yhat_t)^2``,
    ``Trace.budget`` ``|I_t|``.  ``Trace.extras``: ``"dictionary_size"``,
    ``"restarts"`` (points added), ``"rejected"``, ``"projections"``, ``"sum_p"``,
    ``"sum_leverage"`` (``sum_t g_t^T A~_t^{-1} g_t`` over all epochs, the term of
    ``theory.kons.pros_n_kons_regret_bound``) and ``"log_det"``
    (``sum_t log(1 + eta g_t^T A~_{t-1}^{-1} g_t)``).  All accumulated over the
    learner's life.
    """

    mu = Real(1.0, low=0, low_open=True)
    beta = Real(1.0, low=0, low_open=True, allow_inf=True)
    eps = Real(0.5, low=0, high=1, low_open=True, high_open=True)
    variant = Choice("paper", _VARIANTS, core="code")
    task = Choice("regression", _TASKS)
    seed = Seed()

    _blas_in_round_loop = True

    def _allocation(self):
        return 64, True

    _extras_fields = fields(
        Field("dictionary_size", get="_support_size"), ("restarts", "n_added"),
        ("rejected", "n_rejected"), ("projections", "n_proj"), "sum_p",
        ("sum_leverage", "sum_lev"), "log_det")

    def embed(self, X) -> np.ndarray:
        """``phi~(x) = L^{-1} k_I(x)`` for the rows of ``X`` on the current dictionary,
        shape ``(T, |I_t|)``: the coordinates in which :attr:`newton_point` lives."""
        import scipy.linalg as sl

        from okl._validation import as_stream

        if self.n_features is None:
            return np.zeros((as_stream(X).T, 0))
        as_stream(X, self.n_features)            # validates X
        if self.support_set.size == 0:
            return np.zeros((X.shape[0], 0))
        K = self.kernel(X, self.dictionary)
        return sl.solve_triangular(self.embedding_factor, K.T, lower=True).T
