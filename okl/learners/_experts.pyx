# cython: language_level=3
"""Typed cores of prediction with expert advice and of adversarial bandits.

Three updates of a distribution ``p_t`` over ``K`` actions, used by the kernel
selection learners of Li & Liao, *Online kernel selection with computational
constraints* inside their nogil round loops and by the standalone
learners of ``okl.learners.experts``:

* ``HedgeCore``: exponential weights, ``p_{t+1,i} = p_{t,i} exp(-eta c_{t,i}) / Z``
  (LKMBooks, Sec. 3.2; Cesa-Bianchi & Lugosi 2006, Sec. 2.1).
* ``MSMWCore``: multi-scale multiplicative weights (Bubeck, Devanur, Huang &
  Niazadeh, JMLR 2019) in the loss form of Remark 2 (PFMBooks, Sec. 3.3):
  online mirror descent on the simplex with the scale-weighted negative entropy
  ``psi(p) = sum_k (c_k / eta) p_k ln p_k``.  The step
  ``p_{t+1} = argmin_{p in simplex} <p, l_t> + D_psi(p, p_t)`` is
  ``p_{t+1,k} = p_{t,k} exp(eta (lambda - l_{t,k}) / c_k)`` with the scalar
  ``lambda`` that makes ``p_{t+1}`` sum to one; unlike exponential weights the
  normalization is not a division, and ``lambda`` is solved by a safeguarded
  Newton iteration (below).
* ``OSMDCore``: online stochastic mirror descent with the negative entropy on
  the simplex, eq. (11) (BATBooks, Sec. 4.2), on a loss-estimate vector; with
  the standard importance-weighted estimate (one observed arm) or the
  decoupled exploit/explore estimate (10) of BATBooks.

Numerics: every core keeps ``log p_t`` and renormalizes in the log domain with
max subtraction (``logsumexp``), so no weight over- or underflows however long
the stream; ``p`` is ``exp(log p)``.
"""

from cpython.exc cimport PyErr_CheckSignals
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport exp, log, fabs, INFINITY, isfinite
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from okl.learners._arrays cimport c_vector

import numpy as np

# rounds between two checks for Ctrl-C during a run (as in okl._core._drive)
cdef Py_ssize_t SIGNAL_CHECK_EVERY = 4096

# MSMW normalization: Newton iterations before falling back to bisection
cdef int NEWTON_MAX = 100
cdef int BISECTION_STEPS = 200


cdef inline double _logsumexp(const double* z, int n) noexcept nogil:
    cdef double m = -INFINITY, s = 0.0
    cdef int k
    for k in range(n):
        if z[k] > m:
            m = z[k]
    if m == -INFINITY:
        return m
    for k in range(n):
        s += exp(z[k] - m)
    return m + log(s)


cdef double* _alloc(int n) except NULL:
    cdef double* out = <double*> malloc((n if n > 0 else 1) * sizeof(double))
    if out == NULL:
        raise MemoryError()
    return out


def _check_prior(prior, int K):
    """``prior`` as a float64 array of ``K`` positive finite numbers summing to 1 (after
    normalization); ``None`` is the uniform distribution."""
    if prior is None:
        return np.full(K, 1.0 / K)
    arr = np.asarray(prior, dtype=float)
    if arr.ndim != 1 or arr.shape[0] != K:
        raise ValueError(f"prior must be a vector of {K} probabilities, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0.0):
        raise ValueError("prior must hold positive finite numbers (every action needs p_1 > 0)")
    return arr / arr.sum()


cdef class ExpertsCore:
    """A distribution ``p_t`` over ``K`` actions, kept in the log domain.

    Shared by the three updates: inverse-CDF sampling, entropy, expected loss,
    log-domain normalization, pickling and a seeded uniform stream for the
    standalone learners.
    """

    def __dealloc__(self):
        free(self.p)
        free(self.logp)
        free(self.logp0)
        free(self.work)

    def _init_weights(self, int n_actions, double eta, prior=None):
        """Allocate for ``n_actions`` and start from ``prior`` (default uniform): the
        constructor of a core (``HedgeCore(K, eta)`` in LKMBooks and OMKC, ``OSMDCore`` in
        BATBooks, their pickles) and the set-up of the learners Hedge, MSMW and OSMD
        (``okl.learners.experts``: their ``_configure`` passes the actions, the learning
        rate in use and ``p_1``, derived from their declared parameters)."""
        if n_actions < 1:
            raise ValueError(f"n_actions must be >= 1, got {n_actions}")
        if not (eta >= 0.0 and isfinite(eta)):
            raise ValueError(f"eta must be finite and >= 0, got {eta!r}")
        p0 = _check_prior(prior, n_actions)
        free(self.p)
        free(self.logp)
        free(self.logp0)
        free(self.work)
        self.p = self.logp = self.logp0 = self.work = NULL
        self.K = n_actions
        self.p = _alloc(n_actions)
        self.logp = _alloc(n_actions)
        self.logp0 = _alloc(n_actions)
        self.work = _alloc(n_actions)
        self.eta = eta
        cdef int k
        for k in range(n_actions):
            self.work[k] = log(p0[k])
        self.set_log_weights(self.work)
        memcpy(self.logp0, self.logp, n_actions * sizeof(double))
        self.t = 0
        self._allocate_extra()

    def _allocate_extra(self):
        pass

    # -- typed API ---------------------------------------------------------------

    cdef void set_log_weights(self, const double* logw) noexcept nogil:
        """``log p = logw - logsumexp(logw)``; ``p = exp(log p)``.  ``logw`` may alias ``work``."""
        cdef double lse = _logsumexp(logw, self.K)
        cdef int k
        for k in range(self.K):
            self.logp[k] = logw[k] - lse
            self.p[k] = exp(self.logp[k])

    cdef int sample(self, double u) noexcept nogil:
        """The action ``I`` with ``sum_{k<I} p_k <= u < sum_{k<=I} p_k`` (inverse CDF of a
        uniform ``u`` in [0, 1)); if rounding leaves ``u`` beyond the last partial sum,
        the last action of positive probability."""
        cdef double acc = 0.0
        cdef int k, last = 0
        for k in range(self.K):
            if self.p[k] > 0.0:
                acc += self.p[k]
                last = k
                if u < acc:
                    return k
        return last

    cdef double entropy(self) noexcept nogil:
        """``-sum_k p_k ln p_k`` (nats)."""
        cdef double h = 0.0
        cdef int k
        for k in range(self.K):
            if self.p[k] > 0.0:
                h -= self.p[k] * self.logp[k]
        return h

    cdef double expected_loss(self, const double* losses) noexcept nogil:
        """``<p_t, l_t>``."""
        cdef double s = 0.0
        cdef int k
        for k in range(self.K):
            s += self.p[k] * losses[k]
        return s

    cdef double uniform(self) noexcept nogil:
        """A uniform draw in [0, 1) from the standalone learner's generator."""
        return self.bitgen.next_double(self.bitgen.state)

    # -- Python helpers --------------------------------------------------------------

    def _set_rng(self, rng):
        self._rng = rng
        self.bitgen = <bitgen_t*> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")

    def _uniform_py(self):
        if self.bitgen == NULL:
            raise ValueError("this core has no random generator (call _set_rng first)")
        return self.uniform()

    def _sample_py(self, double u):
        return self.sample(u)

    def _entropy_py(self):
        return self.entropy()

    @property
    def n_actions(self):
        return self.K

    @property
    def probabilities(self):
        """A copy of ``p_t``."""
        return c_vector(self.p, self.K)

    @property
    def log_probabilities(self):
        """A copy of ``log p_t``."""
        return c_vector(self.logp, self.K)

    @property
    def initial_distribution(self):
        """A copy of ``p_1``."""
        out = np.empty(self.K)
        cdef int k
        for k in range(self.K):
            out[k] = exp(self.logp0[k])
        return out

    @property
    def n_updates(self):
        return self.t

    property learning_rate:
        """The learning rate used by the next update (may be changed between rounds)."""
        def __get__(self):
            return self.eta

        def __set__(self, double value):
            if not (value >= 0.0 and isfinite(value)):
                raise ValueError(f"eta must be finite and >= 0, got {value!r}")
            self.eta = value

    # -- pickling -----------------------------------------------------------------------

    def _core_state(self):
        return {"K": self.K, "t": self.t, "eta": self.eta,
                "logp": self.log_probabilities, "p": self.probabilities,
                "logp0": c_vector(self.logp0, self.K),
                "rng": self._rng}

    def _core_restore(self, dict state):
        cdef int K = state["K"]
        cdef int k
        if self.K != K:
            raise ValueError(f"state is for {K} actions, this core has {self.K}")
        logp = np.asarray(state["logp"], dtype=float)
        logp0 = np.asarray(state["logp0"], dtype=float)
        # p and log p are restored bit for bit (renormalizing could move p by an ulp
        # and a resumed run would then differ from the uninterrupted one)
        p = np.asarray(state["p"], dtype=float) if "p" in state else np.exp(logp)
        for k in range(K):
            self.logp0[k] = logp0[k]
            self.logp[k] = logp[k]
            self.p[k] = p[k]
        self.t = state["t"]
        self.eta = state["eta"]
        if state["rng"] is not None:
            self._set_rng(state["rng"])

    def _init_args(self):
        return (self.K, self.eta)

    def __reduce__(self):
        return (_rebuild_core, (type(self), self._init_args(), self._core_state()))


def _rebuild_core(cls, args, state):
    obj = cls(*args)
    obj._core_restore(state)
    return obj


cdef class FullInfoCore(ExpertsCore):
    """Full information: after round ``t`` the loss of every action is revealed."""

    cdef void update(self, const double* losses) noexcept nogil:
        pass

    def _update_py(self, const double[::1] losses):
        """One update from a vector of ``K`` losses (no validation: the caller's job)."""
        if losses.shape[0] != self.K:
            raise ValueError(f"losses must have {self.K} entries, got {losses.shape[0]}")
        self.update(&losses[0])


cdef class HedgeCore(FullInfoCore):
    """Exponential weights (Hedge): ``p_{t+1,i} = p_{t,i} exp(-eta l_{t,i}) / Z_t``.

    The update of LKMBooks (Li & Liao, Sec. 3.2, the display after (6)); it is OMD with
    the negative entropy ``(1/eta) sum_i p_i ln p_i`` on the simplex.  ``eta`` may be
    changed between rounds (``learning_rate``); with a constant ``eta`` and
    ``p_1 = prior``, ``p_t ∝ prior * exp(-eta L_{t-1})`` with ``L_{t-1}`` the cumulative
    losses.
    """

    def __init__(self, n_actions=None, eta=None, prior=None):
        if n_actions is not None:
            self._init_weights(n_actions, 0.0 if eta is None else eta, prior)

    cdef void update(self, const double* losses) noexcept nogil:
        cdef int k
        for k in range(self.K):
            self.work[k] = self.logp[k] - self.eta * losses[k]
        self.set_log_weights(self.work)
        self.t += 1


cdef class MSMWCore(FullInfoCore):
    """Multi-scale multiplicative weights in the loss form (Li & Liao, Remark 2;
    Bubeck, Devanur, Huang & Niazadeh 2019).

    Action ``k`` has losses in ``[0, c_k]``.  The step is online mirror descent with
    ``psi(p) = sum_k (c_k / eta) p_k ln p_k``::

        p_{t+1} = argmin_{p in simplex} <p, l_t> + D_psi(p, p_t)
        =>  p_{t+1,k} = p_{t,k} exp(eta (lambda_t - l_{t,k}) / c_k)

    where ``lambda_t`` (the multiplier of ``sum_k p_k = 1``) solves
    ``G(lambda) = log sum_k p_{t,k} exp(eta (lambda - l_{t,k}) / c_k) = 0``.

    ``G`` is convex and increasing, ``G(min_k l_k) <= 0 <= G(max_k l_k)``, so Newton's
    iteration started at ``max_k l_k`` decreases monotonically to the root (no
    overshoot on a convex increasing function); it stops when ``G <= 4 eps`` or the
    step no longer moves ``lambda``; a bisection on the bracket takes over if Newton
    has not converged after 100 iterations (never observed).  ``log p_{t+1}`` is then
    normalized by ``G(lambda_t)`` itself, so ``p_{t+1}`` sums to one to rounding and
    the residual of the root only perturbs ``lambda`` at the level of ``eps``.
    """

    def __dealloc__(self):
        free(self.scale)
        free(self.b)

    def __init__(self, scales=None, eta=None, prior=None):
        if scales is not None:
            self._init_scales(scales, 0.0 if eta is None else eta, prior)

    def _init_scales(self, scales, double eta, prior=None):
        """``_init_weights`` for ``len(scales)`` actions with losses in ``[0, c_k]``."""
        c = np.asarray(scales, dtype=float)
        if c.ndim != 1 or c.shape[0] < 1:
            raise ValueError(f"scales must be a non-empty vector, got shape {c.shape}")
        if not np.all(np.isfinite(c)) or np.any(c <= 0.0):
            raise ValueError("scales must be positive and finite (c_k > 0: losses of action k "
                             "lie in [0, c_k])")
        self._init_weights(c.shape[0], eta, prior)
        cdef int k
        for k in range(self.K):
            self.scale[k] = c[k]
            self.b[k] = eta / c[k]

    def _allocate_extra(self):
        free(self.scale)
        free(self.b)
        self.scale = self.b = NULL
        self.scale = _alloc(self.K)
        self.b = _alloc(self.K)
        cdef int k
        for k in range(self.K):
            self.scale[k] = 1.0
            self.b[k] = self.eta

    property learning_rate:
        def __get__(self):
            return self.eta

        def __set__(self, double value):
            if not (value >= 0.0 and isfinite(value)):
                raise ValueError(f"eta must be finite and >= 0, got {value!r}")
            self.eta = value
            for k in range(self.K):
                self.b[k] = value / self.scale[k]

    @property
    def scales(self):
        return c_vector(self.scale, self.K)

    @property
    def last_multiplier(self):
        """``lambda_t`` of the last update."""
        return self.last_lambda

    @property
    def newton_iterations(self):
        """(last, most) Newton iterations of an update."""
        return self.last_iterations, self.max_iterations

    cdef double solve_lambda(self, const double* a, double lo, double hi) noexcept nogil:
        """The root of ``G(lambda) = logsumexp(a_k + b_k lambda)`` in ``[lo, hi]``
        (``G(lo) <= 0 <= G(hi)``); on return ``work`` holds ``a_k + b_k lambda``."""
        cdef double lam = hi, g, dg, m, s, e, nxt
        cdef int k, it = 0
        cdef bint done = False
        while it < NEWTON_MAX:
            m = -INFINITY
            for k in range(self.K):
                self.work[k] = a[k] + self.b[k] * lam
                if self.work[k] > m:
                    m = self.work[k]
            s = 0.0
            dg = 0.0
            for k in range(self.K):
                e = exp(self.work[k] - m)
                s += e
                dg += e * self.b[k]
            g = m + log(s)
            dg /= s
            if g <= 4.0 * 2.220446049250313e-16 or dg <= 0.0:
                done = True
                break
            it += 1
            nxt = lam - g / dg
            if nxt >= lam:          # the step no longer moves lambda: converged
                done = True
                break
            if nxt < lo:            # impossible in exact arithmetic; stay in the bracket
                nxt = lo
            lam = nxt
        if not done:
            # bisection on [lo, lam] (G(lo) <= 0 < G(lam))
            hi = lam
            for it in range(BISECTION_STEPS):
                lam = 0.5 * (lo + hi)
                if lam <= lo or lam >= hi:
                    break
                for k in range(self.K):
                    self.work[k] = a[k] + self.b[k] * lam
                if _logsumexp(self.work, self.K) > 0.0:
                    hi = lam
                else:
                    lo = lam
            lam = hi
            for k in range(self.K):
                self.work[k] = a[k] + self.b[k] * lam
            it = NEWTON_MAX + BISECTION_STEPS
        self.last_iterations = it
        if it > self.max_iterations:
            self.max_iterations = it
        return lam

    cdef void update(self, const double* losses) noexcept nogil:
        cdef int k
        cdef double lo = INFINITY, hi = -INFINITY
        if self.eta == 0.0:
            self.t += 1
            return
        # a_k = log p_k - eta l_k / c_k is kept in p's buffer until the root is found:
        # p is recomputed from log p below.
        for k in range(self.K):
            self.p[k] = self.logp[k] - self.b[k] * losses[k]
            if losses[k] < lo:
                lo = losses[k]
            if losses[k] > hi:
                hi = losses[k]
        self.last_lambda = self.solve_lambda(self.p, lo, hi)
        self.set_log_weights(self.work)
        self.t += 1

    def _init_args(self):
        return (self.scales, self.eta)

    def _core_state(self):
        state = ExpertsCore._core_state(self)
        state["last_lambda"] = self.last_lambda
        state["iterations"] = (self.last_iterations, self.max_iterations)
        return state

    def _core_restore(self, dict state):
        ExpertsCore._core_restore(self, state)
        self.last_lambda = state["last_lambda"]
        self.last_iterations, self.max_iterations = state["iterations"]


cdef class OSMDCore(ExpertsCore):
    """Online stochastic mirror descent with the negative entropy, eq. (11) of Li & Liao:

    ``p_{t+1} = argmin_{p in simplex} <p, c~_t> + D_psi(p, p_t)``,
    ``psi(p) = (1/eta) sum_i p_i ln p_i``  =>  ``p_{t+1,i} = p_{t,i} exp(-eta c~_{t,i}) / Z``.

    (The paper prints ``psi_t(p) = sum_i eta_t p_i ln p_t``; the analysis of
    Theorem 9 needs ``(1/eta) sum_i p_i ln p_i``: ``eta`` is the learning rate.)  On
    the plain simplex this is exponential weights on the estimates; the paper's
    OSMD has no truncation or mixing constraint (BATBooks explores through ``J_t``
    instead), so the normalization is a division.

    Estimates: ``importance_weighted`` (one observed arm ``I_t ~ p_t``:
    ``c~_i = c_i 1{i = I_t} / p_{t,i}``) and ``explore_exploit_estimate``, eq. (10)
    (``I_t ~ p_t`` and ``J_t`` uniform both observed:
    ``c~_i = c_i 1{i in {I_t, J_t}} / ((K-1)/K p_{t,i} + 1/K)``).
    """

    def __dealloc__(self):
        free(self.est)

    def __init__(self, n_actions=None, eta=None, prior=None):
        if n_actions is not None:
            self._init_weights(n_actions, 0.0 if eta is None else eta, prior)

    def _allocate_extra(self):
        free(self.est)
        self.est = NULL
        self.est = _alloc(self.K)
        cdef int k
        for k in range(self.K):
            self.est[k] = 0.0

    cdef void step(self, const double* estimates) noexcept nogil:
        """Eq. (11) on the loss-estimate vector ``estimates``."""
        cdef int k
        for k in range(self.K):
            self.work[k] = self.logp[k] - self.eta * estimates[k]
        if estimates != self.est:
            memcpy(self.est, estimates, self.K * sizeof(double))
        self.set_log_weights(self.work)
        self.t += 1

    cdef void importance_weighted(self, int arm, double loss, double* out) noexcept nogil:
        """``out_i = loss 1{i = arm} / p_{t,arm}`` (``arm`` drawn from ``p_t``: ``p_arm > 0``)."""
        cdef int k
        for k in range(self.K):
            out[k] = 0.0
        out[arm] = loss * exp(-self.logp[arm])

    cdef void explore_exploit_estimate(self, int i, int j, double loss_i, double loss_j,
                                       double* out) noexcept nogil:
        """Eq. (10): ``out_k = c_k 1{k in {i, j}} / ((K-1)/K p_{t,k} + 1/K)``, with
        ``i = I_t ~ p_t`` (exploit) and ``j = J_t`` uniform (explore); when ``i == j``
        the one observed loss is ``loss_i``."""
        cdef int k
        cdef double K = self.K
        for k in range(self.K):
            out[k] = 0.0
        out[j] = loss_j / ((K - 1.0) / K * self.p[j] + 1.0 / K)
        out[i] = loss_i / ((K - 1.0) / K * self.p[i] + 1.0 / K)

    cdef void update(self, int arm, double loss) noexcept nogil:
        """Bandit feedback: importance-weighted estimate, then (11)."""
        self.importance_weighted(arm, loss, self.est)
        self.step(self.est)

    cdef void update_pair(self, int i, int j, double loss_i, double loss_j) noexcept nogil:
        """BATBooks' feedback: estimate (10) from the exploit and explore arms, then (11)."""
        self.explore_exploit_estimate(i, j, loss_i, loss_j, self.est)
        self.step(self.est)

    # -- Python wrappers (no validation: the caller's job) --------------------------------

    def _step_py(self, const double[::1] estimates):
        if estimates.shape[0] != self.K:
            raise ValueError(f"estimates must have {self.K} entries, got {estimates.shape[0]}")
        self.step(&estimates[0])

    def _update_py(self, int arm, double loss):
        self.update(arm, loss)

    def _update_pair_py(self, int i, int j, double loss_i, double loss_j):
        self.update_pair(i, j, loss_i, loss_j)

    def _importance_weighted_py(self, int arm, double loss):
        out = np.empty(self.K)
        cdef double[::1] o = out
        self.importance_weighted(arm, loss, &o[0])
        return out

    def _explore_exploit_estimate_py(self, int i, int j, double loss_i, double loss_j):
        out = np.empty(self.K)
        cdef double[::1] o = out
        self.explore_exploit_estimate(i, j, loss_i, loss_j, &o[0])
        return out

    @property
    def last_estimate(self):
        """A copy of the last loss-estimate vector ``c~_t`` fed to (11)."""
        return c_vector(self.est, self.K)

    def _core_state(self):
        state = ExpertsCore._core_state(self)
        state["est"] = self.last_estimate
        return state

    def _core_restore(self, dict state):
        ExpertsCore._core_restore(self, state)
        est = np.asarray(state["est"], dtype=float)
        for k in range(self.K):
            self.est[k] = est[k]


# ----------------------------------------------------------------------------
# Stream drivers: one Cython call per stream, no Python objects in the round loop
# ----------------------------------------------------------------------------

def _interrupted(exc, Py_ssize_t done, Py_ssize_t T):
    if hasattr(exc, "add_note"):
        exc.add_note(f"okl: run stopped after {done} of {T} rounds; the learner holds "
                     "exactly the completed rounds")
    return exc


def _run_full(FullInfoCore core, const double[:, ::1] L, long long[::1] actions,
              double[::1] expected, double[::1] realized, double[::1] entropy,
              double[:, ::1] probs, bint keep):
    """Full-information rounds: for each ``t`` record ``H(p_t)`` (and ``p_t``), draw
    ``I_t ~ p_t`` from one uniform of the core's generator, record ``<p_t, l_t>`` and
    ``l_{t,I_t}``, then ``update(l_t)``.  Returns the number of completed rounds."""
    cdef Py_ssize_t t, T = L.shape[0], done = 0
    cdef int k, a
    cdef object signal_exc = None
    with nogil:
        for t in range(T):
            entropy[t] = core.entropy()
            if keep:
                for k in range(core.K):
                    probs[t, k] = core.p[k]
            a = core.sample(core.uniform())
            actions[t] = a
            expected[t] = core.expected_loss(&L[t, 0])
            realized[t] = L[t, a]
            core.update(&L[t, 0])
            done = t + 1
            if done % SIGNAL_CHECK_EVERY == 0:
                with gil:
                    try:
                        PyErr_CheckSignals()
                    except BaseException as exc:
                        signal_exc = exc
                if signal_exc is not None:
                    break
    if signal_exc is not None:
        raise _interrupted(signal_exc, done, T)
    return done


def _run_bandit(OSMDCore core, const double[:, ::1] L, long long[::1] actions,
                long long[::1] explored, double[::1] expected, double[::1] realized,
                double[::1] entropy, double[:, ::1] probs, bint keep, bint explore):
    """Bandit rounds: ``I_t ~ p_t`` (one uniform); with ``explore`` also ``J_t`` uniform on
    the actions (a second uniform ``u``: ``J_t = floor(K u)``) and the update (10)+(11)
    from ``l_{t,I_t}`` and ``l_{t,J_t}``; otherwise the importance-weighted update from
    ``l_{t,I_t}`` alone.  ``<p_t, l_t>`` is recorded for evaluation only."""
    cdef Py_ssize_t t, T = L.shape[0], done = 0
    cdef int k, a, j
    cdef object signal_exc = None
    with nogil:
        for t in range(T):
            entropy[t] = core.entropy()
            if keep:
                for k in range(core.K):
                    probs[t, k] = core.p[k]
            a = core.sample(core.uniform())
            actions[t] = a
            expected[t] = core.expected_loss(&L[t, 0])
            realized[t] = L[t, a]
            if explore:
                j = <int> (core.uniform() * core.K)
                if j >= core.K:
                    j = core.K - 1
                explored[t] = j
                core.update_pair(a, j, L[t, a], L[t, j])
            else:
                core.update(a, L[t, a])
            done = t + 1
            if done % SIGNAL_CHECK_EVERY == 0:
                with gil:
                    try:
                        PyErr_CheckSignals()
                    except BaseException as exc:
                        signal_exc = exc
                if signal_exc is not None:
                    break
    if signal_exc is not None:
        raise _interrupted(signal_exc, done, T)
    return done


def _explore_draw(OSMDCore core):
    """``J = floor(K u)`` from one uniform of the core's generator (as in ``_run_bandit``)."""
    cdef int j = <int> (core.uniform() * core.K)
    return j if j < core.K else core.K - 1
