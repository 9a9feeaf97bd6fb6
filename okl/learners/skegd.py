"""SkeGD: Zhang & Liao, *Incremental Randomized Sketching for Online Kernel Learning*
(ICML 2019), as the baseline "SkeGD" of Li & Liao, *Improved Kernel Alignment Regret Bound
for Online Kernel Learning* (AAAI 2023: Table 1, Table 2 and the supplementary Table 4),
run by those authors with Xiao Zhang's R code (``OKS-SkeGD-20190716.zip`` of
JunfLi-TJU/OKL-Hinge).
"""
from __future__ import annotations

import math

import numpy as np

from okl._learner import Field, fields
from okl._validation import check_int, check_matrix
from okl.kernels import Gaussian
from okl.params import Choice, Flag, Int, KernelParam, Real, Seed, Value
from okl.learners._skegd import SkeGDCore
from okl.learners.base import HorizonLearner, OnlineLearner
from okl.registry import register_learner

__all__ = ["SkeGD", "default_eta", "default_cycle", "default_sizes"]

_HASHES = {"r": 0, "uniform": 1}


def default_eta(T: int) -> float:
    """``eta = 0.1 / sqrt(T)``: the step ``SkeGD.R`` runs (``eta_SkeGD <- 0.1/sqrt(N)``
    overrides the options' 0.01), the point ``10^-1 / sqrt(T)`` of the grid of Li & Liao
    (AAAI 2023)."""
    T = check_int(T, "T", low=1)
    return 0.1 / math.sqrt(T)


def default_cycle(T: int) -> float:
    """``cycle = 0.3 T``: ``SkeGD.R``'s update cycle (``cycle <- 0.3*N`` overrides the
    options' 3000), a float as in R (see :class:`SkeGD`, Notes, on when it refreshes)."""
    T = check_int(T, "T", low=1)
    return 0.3 * T


def default_sizes(B: int) -> tuple[int, int, int]:
    """``(s_p, s_m, k) = (0.75 B, 0.2 * 0.75 B, 0.1 B)`` truncated to integers (at least 1):
    ``experiment_OKS.R``'s ``sa = 0.75*400``, ``sb = 0.2*0.75*400``, ``k = 0.1*400``."""
    B = check_int(B, "B", low=1)
    return (max(1, int(0.75 * B)), max(1, int(0.2 * 0.75 * B)), max(1, int(0.1 * B)))


@register_learner(
    paper="pomdr", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), B=20, s_p=12, s_m=5, k=3, eta=0.3, cycle=25, T=600,
                   seed=3),
              dict(kernel=Gaussian(2.0), B=16, s_p=10, s_m=4, k=3, hash="uniform",
                   truncate_initial=True, eta=0.5, T=600, seed=4)],
    bounds="okl.experiments.bounds.pomdr:skegd")
class SkeGD(HorizonLearner, OnlineLearner, SkeGDCore):
    r"""SkeGD: online gradient descent on an incrementally sketched kernel feature map
    (Zhang & Liao, ICML 2019; the baseline of Li & Liao, AAAI 2023, Tables 1, 2 and 4).

    As the authors' R code (``SkeGD.R``) runs it, hinge loss ``max(0, 1 - y f)``:

    1. Kernel OGD: from ``f = 0``, on each round with ``y_t f_t(x_t) < 1`` ("margin
       error") ``x_t`` joins ``SV`` with coefficient ``eta y_t``, until ``|SV| = B``.
    2. Switch, at the next margin error: sample ``s_m`` of the ``B`` support vectors
       (the columns ``S_m`` of ``K_B``; their kernel row ``k_L(x_t)`` must have a sum
       ``> 1e-8``, else nothing happens this round and the next margin error retries), build
       the sketches ``S = S_p^T K S_p`` (``s_p x s_p``) and ``M = S_p^T K S_m``
       (``s_p x s_m``) with a count sketch ``S_p`` of ``cs_d`` non-zeros a row, update both
       with ``x_t`` (rank-one terms of a new row and column of ``K`` and a new sketch row),
       and map ``phi(x) = k_L(x) Qx``, ``Qx = M^+ U_S Sigma_S^{1/2}`` (``S = U_S Sigma_S
       U_S^T``, ``M^+`` MASS's ``ginv``), so ``phi(x) . phi(v)`` approximates ``k(x, v)``.
       The linear weights start at ``w = f_t(x_t) phi(x_t) / ||phi(x_t)||^2`` (the kernel
       model's value at ``x_t`` carried over) and take the step ``w += eta y_t phi(x_t)``.
    3. OGD on ``phi``: ``f(x) = w . phi(x)``, ``w += eta y_t phi(x_t)`` on margin errors.
       Every ``cycle`` margin errors (``T0 %% cycle == 1``, ``T0`` counting every margin
       error since the start) the sketches take ``x_t`` (and ``x_t`` joins ``SV``), the map
       is rebuilt with the rank-``k`` truncation of ``S``, and ``w`` restarts from
       ``f_t(x_t) phi(x_t) / ||phi(x_t)||^2`` before its step.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        (The R code's ``RBF``, ``exp(-||x - v||^2 / (2 sigma^2))``, is ``Gaussian(sigma)``.)
    B : int >= 1, default 400
        Budget of the kernel stage (Table 2's 400; ``B_OKS_SkeGD`` of the R code).
    s_p, s_m, k : int or None, default None
        Sketch sizes and rank: ``s_p`` columns of the count sketch, ``s_m <= B`` sampled
        columns, rank ``k <= s_p`` of the refreshed maps.  None: ``0.75 B``,
        ``0.2 * 0.75 B``, ``0.1 B`` (300, 60, 40 at ``B = 400``; :func:`default_sizes`).
    cs_d : int in [1, s_p], default 4
        Non-zeros a row of the count sketch (``CS_d``, "d in SkeGD").
    eta : float > 0 or None, default None
        Step size; None: ``0.1 / sqrt(T)`` (:func:`default_eta`).  Li & Liao (AAAI 2023)
        tune it over ``10^{-3..3} / sqrt(T)``.
    cycle : float > 0 or None, default None
        Update cycle in margin errors; None: ``0.3 T`` (:func:`default_cycle`).
    hash : {"r", "uniform"}, default "r"
        Column of each count-sketch entry.  ``"r"``: the R code's, see Notes; ``"uniform"``:
        uniform within its block (the count sketch ``CSketch_d`` intends).
    truncate_initial : bool, default False
        False: the first map uses all ``s_p`` singular pairs of ``S``, as the R code (its
        comment there reads "missing a truncation step"); True: rank ``k`` from the start.
    landmark_pool : array (n >= B, d) or None, default None
        None: the map's landmarks are the ``s_m`` sampled support vectors (the method).  An
        array: rows ``r`` of it instead, the R code's ``X[SVb, ]`` (see Notes): pass the
        dataset's rows *in file order* (``X_file``) to reproduce the authors' runs.
    T : int >= 1 or None, default None
        The horizon (``eta`` and ``cycle`` depend on it); None: ``run`` takes it from its
        stream.  Required for ``learn_one`` / ``partial_fit``.
    seed : int, Generator or None
        Seeds the sketches.  ``Learner.uniform()`` values are consumed in the R code's
        order (its ``sample()`` calls): at the first example ``2 cs_d B`` for ``S_p`` (plus
        ``B`` when ``cs_d`` does not divide ``s_p``); at the switch ``s_m`` (a partial
        Fisher-Yates shuffle: slot ``i`` swaps with ``i + floor(u (B - i))``) and, if it
        goes ahead, ``2 cs_d`` (``+ 1``) for ``x_t``'s sketch row; the same at each refresh.

    Notes
    -----
    Sources.  The ICML 2019 paper was not available here (only its abstract: two
    incremental sketches, a sparse transform and a sampling matrix, rank-one updates, a
    time-varying explicit feature map, sublinear regret); Li & Liao (AAAI 2023) give its
    Table 1 rates (:func:`theory.pomdr_baselines.skegd_regret_bound`, ``..._complexity``).  The
    algorithm above is Xiao Zhang's R code with ``experiment_OKS.R``'s options, which okl
    reproduces round for round (``tests/fixtures/r_skegd_*.csv``, made by
    ``tests/fixtures/r/pomdr/SkeGD-run.R`` on the authors' files with the draws of a
    file; scores agree to ~1e-13).  What the code does that its own description (variable
    names, comments, the options list) or a count sketch does not, and which okl follows:

    * Landmarks (``landmark_pool``).  ``RandSM`` returns
      ``list(Sb, Cb, Svb, SVb_location = r)`` and ``SkeGD.R`` reads ``RandSM_res$SVb``:
      no element is named ``SVb`` (it is ``Svb``), and R's ``$`` partial matching returns
      ``SVb_location``, the positions ``r`` in ``1..B``.  Every later round computes
      ``k(x_t, X[SVb, ])``: rows ``r`` of the *dataset in file order*, not the sampled
      support vectors ``X[SV[r], ]`` (the switch round itself uses the correct
      ``psi[SVb_location]``).  Under a random permutation the map is then evaluated on
      landmarks unrelated to the ones ``M`` was built from.  An online learner cannot see
      the file's first ``B`` rows, so the default is the method (the sampled support
      vectors); ``landmark_pool=X_file`` runs the R code's.  On 400 rounds of the fixture
      stream the R code's map makes 162 mistakes where the method's makes 123.  On the
      real files (``benchmarks/pomdr_real_data.py``, 10 permutations, B = 400) the R
      code's landmarks give the SkeGD column of Li & Liao, AAAI 2023 (a9a 17.40 +- 0.21 %
      at ``eta = 1/sqrt(T)``, paper 17.31 +- 0.21; w8a 3.05 +- 0.00, paper 3.04 +- 0.01;
      magic04 26.21 +- 2.04 at the default step, paper 24.17 +- 0.95), the method's err
      less once the step is tuned on the same grid (16.72, 2.58 and 17.60 %).
    * Count sketch (``hash``).  ``CSketch_d`` draws ``sample(1:s/d, ...)``, which R reads
      as ``sample((1:s)/d)``: values ``1/d, 2/d, ..., s/d``, so the subscript
      ``s/d (j - 1) + value`` is truncated to offsets ``0..s/d`` with probabilities
      ``(d-1)/s, d/s, ..., d/s, 1/s``; offset 0 writes nothing in block 1 (subscript 0)
      and overwrites the previous block's last column in later blocks.  Only when
      ``cs_d`` divides ``s_p`` (the experiments': 4 | 300); otherwise the R code takes its
      other branch, a proper count sketch, in both modes.  Default ``"r"``.
    * The first map is not truncated to rank ``k`` (``truncate_initial``); the refreshes are.
    * Step size and cycle: ``experiment_OKS.R`` sets ``eta_SkeGD = 0.01`` and
      ``cycle = 3000``, and ``SkeGD.R`` overwrites both with ``0.1/sqrt(N)`` and
      ``0.3*N``; the latter run and are the defaults.  ``0.3 N`` is a float and R's
      ``T0 %% cycle == 1`` is exact floating-point arithmetic: the sketches are refreshed
      only when ``0.3 N`` is an integer in floating point (magic04's 19,020 rows: cycle
      5706, refreshes at the 5707th, 11413th, 17119th margin error; a9a's 48,842 and
      w8a's 49,749 rows: 14652.6 and 14924.7, never), which okl reproduces (the R
      ``%%`` in long double, ``tests/test_skegd.py``).
    * The sketches are updated only at the switch and at the refreshes, not every round.
    * A mistake is ``y_t f_t(x_t) <= 0`` (as the R code; round 1 has ``f = 0``).
    * Degenerate cases the R code does not guard: a refresh or switch with
      ``||phi(x_t)|| = 0`` gives ``w = 0`` here (NaN in R); ``k = 1`` builds a rank-one map
      here (R's ``diag()`` of a scalar would make it an identity).

    Implementation: the round after the switch computes ``s_m`` kernel values and
    ``phi = F^T k_L(x)`` with ``F = U_Q Sigma_Q`` from the SVD of ``Qx`` (``s_m x r``,
    ``r = min(s_m, rank)``): ``phi . phi'`` and the scores are the R code's without its
    ``s_p``-wide vectors.  ``Qx`` needs only a square root of ``S`` (``R R^T = U_S Sigma_S
    U_S^T``): the untruncated map takes a pivoted Cholesky factor (LAPACK ``dpstrf``; the
    R code's full ``svd(S)`` costs two orders of magnitude more at ``s_p = 300``), the
    truncated ones the ``k`` top eigenpairs (``dsytrd``; all eigenvalues of the tridiagonal by
    ``dsterf`` and the ``k`` vectors by inverse iteration ``dstein``, or MRRR ``dstemr`` for
    those ``k`` if it splits; ``dormtr``: 3.5 ms at ``s_p = 300``, ``k = 40``, against 6 ms
    for ``dsyevr``, whose subset path spends half its time in bisection, and 14 ms for the
    SVD; ``dsyevr`` is the fallback should the others fail); ``ginv(M)`` and ``Qx``'s
    SVD are ``dgesdd`` as R's ``svd``.  All at the switch and the refreshes only.

    ``Trace.budget`` is ``|SV|`` (``B``, then one more per sketch update);
    ``Trace.losses`` the hinge loss.  ``Trace.extras``: ``switched``, ``switch_round``,
    ``margin_errors`` (``T0``), ``n_updates``, ``refreshes``, ``refresh_rounds``, ``rank``
    (``r``), ``ginv_rank`` (singular values of ``M`` kept by ``ginv``),
    ``kernel_evaluations`` (all kernel values computed while learning), ``T``, ``eta``,
    ``cycle``, ``s_p``, ``s_m``, ``k``.
    """

    _horizon_depends = "eta = 0.1/sqrt(T) and cycle = 0.3 T"
    _blas_in_round_loop = True     # dgemv with the s_m x r map every round after the switch

    kernel = KernelParam()
    B = Int(400, low=1, high=2 ** 15, role="budget")
    # the ranges of s_m, k and cs_d depend on B and s_p: _check_params checks them (the
    # core's _setup reads the sizes once checked)
    s_p = Int(None, low=1, high=2 ** 14, none="0.75 B (default_sizes)", core=False)
    s_m = Int(None, none="0.2 * 0.75 B (default_sizes)", core=False)
    k = Int(None, none="0.1 B (default_sizes)", core=False)
    cs_d = Int(4, core=False)
    eta = Real(None, low=0, low_open=True, none="0.1 / sqrt(T) (default_eta)", core=False)
    cycle = Real(None, low=0, low_open=True, none="0.3 T (default_cycle)", core=False)
    hash = Choice("r", _HASHES, core="hash_kind")
    truncate_initial = Flag(False, core="trunc_init")
    landmark_pool = Value(None, none="the s_m sampled support vectors (the method)",
                          text="an array of at least B rows (the dataset in file order)")
    T = Int(None, low=1, role="horizon", none="run takes it from its stream", core=False)
    seed = Seed()

    def _check_params(self):
        dp, dm, dk = default_sizes(self.B)
        sp = dp if self.s_p is None else self.s_p
        if self.s_m is not None:
            check_int(self.s_m, "s_m", low=1, high=self.B)
        if self.k is not None:
            check_int(self.k, "k", low=1, high=sp)
        check_int(self.cs_d, "cs_d", low=1, high=sp)
        self._pool = None
        if self.landmark_pool is not None:
            pool = check_matrix(self.landmark_pool, name="landmark_pool")
            pool = pool.toarray() if hasattr(pool, "toarray") else np.asarray(pool, dtype=float)
            if pool.shape[0] < self.B:
                raise ValueError(f"landmark_pool must have at least B = {self.B} rows (the R "
                                 f"code reads rows 1..B of its dataset), got {pool.shape[0]}")
            self._pool = np.ascontiguousarray(pool[:self.B], dtype=np.float64)
        sm = dm if self.s_m is None else self.s_m
        if sm > self.B:
            raise ValueError(f"s_m must be <= B = {self.B} (it samples columns of K_B), got "
                             f"the default 0.2 * 0.75 B = {sm}")
        if self.k is None and dk > sp:
            raise ValueError(f"k must be <= s_p = {sp}, got the default 0.1 B = {dk}")

    def _configure(self):
        super()._configure()
        if self.T is not None:
            self._skegd_set_horizon(self.T, *self._settings_for(self.T))

    @property
    def sizes_(self) -> tuple[int, int, int]:
        """``(s_p, s_m, k)`` in use."""
        dp, dm, dk = default_sizes(self.B)
        return (dp if self.s_p is None else self.s_p, dm if self.s_m is None else self.s_m,
                dk if self.k is None else self.k)

    # -- the horizon ---------------------------------------------------------------------

    def _settings_for(self, T):
        eta = default_eta(T) if self.eta is None else self.eta
        cycle = default_cycle(T) if self.cycle is None else self.cycle
        return eta, cycle

    def _check_first(self, d):
        if self._pool is not None and d != self._pool.shape[1]:
            raise ValueError(f"X has {d} features, landmark_pool has {self._pool.shape[1]}")

    def _begin_stream(self, n_rounds):
        T = self._horizon_for(n_rounds)
        if self._horizon() <= 0:
            self._skegd_set_horizon(T, *self._settings_for(T))

    def _allocation(self):
        return self.B + 8, True       # B, then one more per sketch update

    def _core_allocate(self, d, capacity, growable):
        super()._core_allocate(d, capacity, growable)
        self._skegd_sets(self._pool)
        self._skegd_first_sketch()

    # -- inspection ----------------------------------------------------------------------

    @property
    def support_vectors(self) -> np.ndarray:
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def coefficients(self) -> np.ndarray:
        """The kernel model's coefficients (``eta y`` of the first ``B``; 0 for the vectors
        the sketch updates added).  After the switch the hypothesis is ``w . phi``."""
        return np.empty(0) if self.support_set is None else self.support_set.coefficients

    @property
    def sketch(self) -> np.ndarray | None:
        """``S_p`` (``rows x s_p``, dense), one row per support vector (``B`` before)."""
        return None if self.n_features is None else self._skegd_sketch()

    @property
    def feature_map(self):
        """After the switch, ``{"F", "w", "S", "M", "rloc", "landmarks"}``:
        ``phi(x) = F^T k(x, landmarks)``, the weights ``w``, the sketches ``S`` and ``M``
        and the sampled positions ``rloc``; None before."""
        m = self._skegd_map()
        if m is not None:
            m["landmarks"] = m["landmarks"].vectors
        return m

    def transform(self, X) -> np.ndarray:
        """``phi(x)`` of each row of ``X`` (``T x r``) after the switch."""
        m = self.feature_map
        if m is None:
            raise ValueError("SkeGD has no feature map before its switch (|SV| = B and a "
                             "margin error)")
        return self.kernel(X, m["landmarks"]) @ m["F"]

    _extras_fields = fields(
        "switched", Field("switch_round", get="_switch_round"), ("margin_errors", "T0"),
        "n_updates", ("refreshes", "n_refresh"), Field("refresh_rounds", get="_refresh_rounds"),
        ("rank", "r"), ("ginv_rank", "npos"), ("kernel_evaluations", "kernel_evals"))

    def _extras(self):
        out = super()._extras()
        T = self.horizon_
        eta, cycle = (self.eta, self.cycle) if T is None else self._settings_for(T)
        sp, sm, k = self.sizes_
        out.update(T=T, eta=eta, cycle=cycle, s_p=sp, s_m=sm, k=k)
        return out

    def _state(self):
        T = self.horizon_
        return {"horizon": None if T is None else (T, *self._settings_for(T)),
                "core": self._skegd_state() if self.n_features is not None else None}

    def _restore(self, state):
        if state["horizon"] is not None and self._horizon() <= 0:
            self._skegd_set_horizon(*state["horizon"])
        if state["core"] is not None:
            self._skegd_sets(self._pool)
            self._skegd_restore(state["core"])
