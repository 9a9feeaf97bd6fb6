# cython: language_level=3
"""Typed core of OKS / BOKS (Yang, Mahdavi, Jin, Yi & Hoi, *Online kernel selection:
algorithms and evaluations*, AAAI 2012; the budgeted variant BOKS of the kernel-selection
paper of Li & Liao, Sec. 5.2), as the authors of the kernel-selection paper ran it
(``table4/BOKS-r.R``, ``table5/BOKS-c.R`` of JunfLi-TJU/ACML2021-Journal-Track).

``K`` kernel hypotheses with separate support sets (``okl.learners._ksets.KernelSets``);
a round draws ``I_t ~ q_t`` (the draw is made at the end of the previous round, so that
``score`` is the next prediction and consumes no randomness), predicts with
``f_{t,I_t}`` (one kernel row against ``S_{I_t}``), adds ``x_t`` to ``S_{I_t}`` with an
importance-weighted coefficient when the loss asks for it (and, for BOKS, while the total
number of entries is below ``B``), and updates the exponential weights over the
importance-weighted losses.  See ``okl/learners/oks.py`` for the algorithm.
"""

from libc.math cimport exp, fabs
from libc.stdlib cimport malloc, calloc, free
from cpython.pycapsule cimport PyCapsule_GetPointer
from numpy.random cimport bitgen_t

from okl._core cimport Learner, Row
from okl._losses cimport LOSS_HINGE, loss_value
from okl.learners._ksets cimport KernelSets
from okl.learners._sign cimport sgn

import numpy as np

from okl._learner import Field, fields

cdef enum:
    TASK_CLASSIFY = 0       # labels +-1, Perceptron-type updates
    TASK_REGRESS = 1        # absolute loss, gradient steps

cdef enum:
    RULE_MISTAKE = 0        # update on sign(f) != y (BOKS-c.R)
    RULE_HINGE = 1          # update on y f < 1 (OKS.R of KARegret-OKS; the hinge loss)


cdef class OKSCore(Learner):
    """Typed state of OKS / BOKS: the K sets, the weights and the counters."""
    cdef public KernelSets sets     # the K support sets (None before the first example)
    cdef int K
    cdef int task                   # TASK_CLASSIFY for the hinge loss, else TASK_REGRESS
    # the learner's parameters (okl.params): update, loss, importance_weighted, delta
    cdef public int rule
    cdef public int loss_kind
    cdef public bint importance_weighted    # coefficient lambda l' / q_{t,I_t} or lambda l'
    cdef public double delta        # smoothing of q_t
    cdef public double rate         # eta, the learning rate of the exponential weights
    cdef public double step         # the step size lambda
    cdef public long long budget    # B, pooled (entries over all K sets); < 0: none
    cdef public long long T_        # the horizon rate and step were set for (0: not yet)
    cdef readonly double[::1] Lcum  # cumulative importance-weighted losses L_{t,i}
    cdef readonly double[::1] q     # q_{t,i} = (1-delta) softmax(-eta L)_i + delta/K
    cdef readonly double[::1] w     # exp(-eta (L_{t,i} - shift)): one changes a round
    cdef public double shift        # the L subtracted in w (min L at the last rescaling)
    cdef readonly long long[::1] n_selected     # rounds with I_t = i
    cdef readonly long long[::1] n_updates      # entries added to S_i
    cdef readonly double[::1] err_sum   # sum of the losses the weights saw, per kernel
    cdef public int I_next          # I_{t+1} ~ q_{t+1}, drawn at the end of round t
    cdef public double last_q       # q_{t,I_t} of the last round
    cdef public long long n_blocked     # updates refused because the budget was full
    cdef public long long n_errors      # sum over rounds of the weights' loss (R's "error")
    cdef public int max_total
    cdef int n_total                # entries over the K sets
    cdef public bint allocated
    cdef public bint q_from_w       # q is (1 - delta) w / z + delta / K of the current w

    # the extras' part first: the keys and order of the pickles written before
    _values_fields = fields(
        Field("L", "Lcum", dtype=np.float64), Field("n_selected", dtype=np.int64),
        Field("n_updates", dtype=np.int64), Field("err_sum", dtype=np.float64),
        Field("sizes", get="_sizes", put="_put_sizes"), "n_blocked", "n_errors",
        ("max_size", "max_total"), "last_q", ("T", "T_"), ("B", "budget"), ("eta", "rate"),
        ("lam", "step"))
    _state_fields = _values_fields + fields(
        Field("q", dtype=np.float64), Field("w", dtype=np.float64), "shift", "I_next", "sets",
        "allocated", Field("q_from_w", default=False))

    def __cinit__(self, *args, **kwargs):
        self.budget = -1

    # -- configuration --------------------------------------------------------------

    def _setup(self):
        """The weights and counters of the ``K`` kernels (the declared list
        ``self.kernels``); ``rule``, ``loss_kind``, ``importance_weighted`` and ``delta``
        are the declared values."""
        cdef int K = len(self.kernels)
        self.Lcum = np.zeros(K)
        self.q = np.full(K, 1.0 / K)
        self.w = np.ones(K)
        self.err_sum = np.zeros(K)
        self.n_selected = np.zeros(K, dtype=np.int64)
        self.n_updates = np.zeros(K, dtype=np.int64)
        self.K = K
        self.task = TASK_CLASSIFY if self.loss_kind == LOSS_HINGE else TASK_REGRESS
        self.shift = 0.0
        self.q_from_w = False        # q_1 = 1/K exactly, not the formula's rounding
        self.I_next = 0
        self.last_q = 1.0 / K
        self.n_blocked = self.n_errors = 0
        self.max_total = 0
        self.n_total = 0

    def _oks_allocate(self, kernels, long long B, capacity):
        """The K sets (growable; the pooled budget ``B`` is enforced by ``update``) and
        the first draw ``I_1 ~ q_1``."""
        self.sets = KernelSets(kernels, self.d, [capacity] * self.K, True)
        self.budget = B
        self.allocated = True
        self.I_next = self._draw()

    def _oks_set_horizon(self, long long T, double eta, double lam):
        self.T_ = T
        if eta != self.rate:
            self.q_from_w = False    # w_I is recomputed with the new eta at the next step
        self.rate = eta
        self.step = lam

    def _horizon(self):
        return self.T_

    # -- the round ------------------------------------------------------------------

    cdef int _draw(self) noexcept nogil:
        """``I ~ q`` by the inverse CDF of one uniform (natural order of the kernels)."""
        cdef double u = self.uniform(), acc = 0.0
        cdef int i, last = 0
        for i in range(self.K):
            if self.q[i] > 0.0:
                acc += self.q[i]
                last = i
                if u < acc:
                    return i
        return last

    cdef double score(self, const Row* x) noexcept nogil:
        """``f_{t,I_t}(x)``: the prediction of the kernel drawn for this round."""
        if not self.allocated:
            return 0.0
        return self.sets.score(self.I_next, x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef int size(self) noexcept nogil:
        return self.n_total

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int I = self.I_next, i, tot
        cdef double qI = self.q[I], err, a = 0.0, lo, z, c1, c0
        cdef bint step = False
        self.last_q = qI
        self.n_selected[I] += 1
        if self.task == TASK_CLASSIFY:
            # y^_t = +1 if f >= 0 else -1 (BOKS-c.R); err = mistake indicator
            err = 1.0 if (1.0 if f >= 0.0 else -1.0) != y else 0.0
            if self.rule == RULE_MISTAKE:
                step = err != 0.0
            else:
                step = y * f < 1.0
            a = self.step * y
        else:
            # absolute loss; the coefficient -lambda sign(f - y) is stored even when 0
            err = fabs(f - y)
            step = True
            a = -self.step * sgn(f - y)
        if step:
            if self.importance_weighted:
                a /= qI
            tot = self.n_total
            if self.budget < 0 or tot < self.budget:
                if self.sets.add(I, x, a, self.t) < 0:
                    self.error = 1
                    return
                self.n_updates[I] += 1
                self.n_total = tot + 1
                if tot + 1 > self.max_total:
                    self.max_total = tot + 1
            else:
                self.n_blocked += 1
        self.err_sum[I] += err
        self.n_errors += <long long> (err if self.task == TASK_CLASSIFY else 0.0)
        if err == 0.0 and self.q_from_w:
            # L_I does not move, so neither do w_I = exp(-eta (L_I - shift)), z and q: the
            # step below would recompute this round's q bit for bit (most rounds of a
            # classifier: no mistake).  Only the draw remains.
            self.I_next = self._draw()
            return
        self.Lcum[I] += err / qI
        # q_{t+1} = (1 - delta) exp(-eta L) / sum exp(-eta L) + delta / K; only L_I moved,
        # so one exponential (all K again only when every weight would underflow)
        self.w[I] = exp(-self.rate * (self.Lcum[I] - self.shift))
        z = 0.0
        for i in range(self.K):
            z += self.w[i]
        if z < 1e-250:
            lo = self.Lcum[0]
            for i in range(1, self.K):
                if self.Lcum[i] < lo:
                    lo = self.Lcum[i]
            self.shift = lo
            z = 0.0
            for i in range(self.K):
                self.w[i] = exp(-self.rate * (self.Lcum[i] - lo))
                z += self.w[i]
        c1 = (1.0 - self.delta) / z
        c0 = self.delta / self.K
        for i in range(self.K):
            self.q[i] = self.w[i] * c1 + c0
        self.q_from_w = True
        self.I_next = self._draw()

    # -- inspection and pickling ------------------------------------------------------

    @property
    def q_(self):
        """The current sampling distribution ``q_t`` (a copy)."""
        return np.array(self.q)

    @property
    def next_kernel_(self):
        """``I_{t+1}``: the kernel that predicts the next example (already drawn)."""
        return int(self.I_next)

    def _sizes(self):
        return self.sets.sizes if self.allocated else np.zeros(self.K, dtype=np.int64)

    def _put_sizes(self, sizes):
        self.n_total = int(np.sum(sizes))


def weights_work_reference(int K, long long T, double eta, double delta, errors, seed=0):
    """The exponential weights of an OKS / BOKS run and nothing else, as a plain typed
    loop: for each of ``T`` rounds with a loss, ``L_I += err / q_I`` (``errors``: one loss
    a round, ``I`` the kernel drawn), one exponential, the sum of the ``K`` weights, ``q =
    (1 - delta) w / z + delta / K``, and for every round the draw ``I ~ q`` (a uniform of
    numpy's bit generator, inverse CDF).  This is what a round requires beyond its kernel row and the dot product;
    ``benchmarks/ratios_selection.py`` times a run against its kernel rows plus this.
    Returns a checksum."""
    if K < 1 or T < 0:
        raise ValueError("K must be >= 1 and T >= 0")
    err_a = np.ascontiguousarray(errors, dtype=np.float64)
    if err_a.shape[0] < T:
        raise ValueError("errors must have T entries")
    cdef const double[::1] err = err_a
    rng = np.random.default_rng(seed)
    cdef bitgen_t* bg = <bitgen_t*> PyCapsule_GetPointer(rng.bit_generator.capsule,
                                                         "BitGenerator")
    Lw = np.zeros(K)
    ww = np.ones(K)
    qw = np.full(K, 1.0 / K)
    cdef double[::1] L = Lw
    cdef double[::1] w = ww
    cdef double[::1] q = qw
    cdef double z, u, acc, c1, c0 = delta / K, total = 0.0
    cdef int i, I = 0, last
    cdef long long t
    with nogil:
        for t in range(T):
            if err[t] != 0.0 or t == 0:          # a zero loss moves nothing but the draw
                L[I] += err[t] / q[I]
                w[I] = exp(-eta * L[I])
                z = 0.0
                for i in range(K):
                    z += w[i]
                c1 = (1.0 - delta) / z
                for i in range(K):
                    q[i] = w[i] * c1 + c0
            u = bg.next_double(bg.state)         # I ~ q as OKSCore._draw
            acc = 0.0
            last = 0
            for i in range(K):
                if q[i] > 0.0:
                    acc += q[i]
                    last = i
                    if u < acc:
                        break
            I = i if u < acc else last
            total += q[I]
    return total
