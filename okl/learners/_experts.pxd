# Typed cores of the expert and bandit learners (okl/learners/_experts.pyx).
#
# Kernel-selection learners (LKMBooks, PFMBooks, BATBooks) hold one of these as a
# typed attribute and call it inside their nogil round loops:
#
#     from okl.learners._experts cimport HedgeCore, MSMWCore, OSMDCore
#
#     cdef HedgeCore hedge = HedgeCore(K, eta)          # uniform initial distribution
#     k = hedge.sample(self.uniform())                  # I_t ~ p_t (inverse CDF)
#     ... hedge.p[i] ...                                 # p_{t,i}
#     hedge.update(criteria)                             # full information: K losses
#
#     cdef OSMDCore osmd = OSMDCore(K, eta)
#     osmd.update_pair(I, J, c_I, c_J)                   # estimator (10) then step (11)
#
# Every method below is nogil and allocation-free; ``p`` always holds the current
# distribution p_t (sum 1 up to rounding), ``logp`` its logarithm.

from numpy.random cimport bitgen_t


cdef class ExpertsCore:
    """A distribution over ``K`` actions kept in the log domain."""
    cdef int K                  # number of actions
    cdef long long t            # updates made so far (p is p_{t+1})
    cdef double eta             # learning rate (may be changed between rounds)
    cdef double* p              # current probabilities p_t
    cdef double* logp           # log p_t (exactly normalized: logsumexp(logp) == 0)
    cdef double* logp0          # log of the initial distribution p_1
    cdef double* work           # K doubles of scratch
    cdef object _rng            # numpy Generator of the standalone learners (or None)
    cdef bitgen_t* bitgen

    cdef int sample(self, double u) noexcept nogil
    cdef double entropy(self) noexcept nogil
    cdef double expected_loss(self, const double* losses) noexcept nogil
    cdef double uniform(self) noexcept nogil
    cdef void set_log_weights(self, const double* logw) noexcept nogil


cdef class FullInfoCore(ExpertsCore):
    """Experts with full information: ``update`` receives the loss of every action."""
    cdef void update(self, const double* losses) noexcept nogil


cdef class HedgeCore(FullInfoCore):
    """Exponential weights: ``p_{t+1,i} ∝ p_{t,i} exp(-eta l_{t,i})``."""
    pass


cdef class MSMWCore(FullInfoCore):
    """Multi-scale multiplicative weights: online mirror descent with the
    scale-weighted negative entropy ``sum_k (c_k / eta) p_k ln p_k``."""
    cdef double* scale          # c_k > 0: action k's losses lie in [0, c_k]
    cdef double* b              # eta / c_k
    cdef double last_lambda     # the normalizing multiplier of the last update
    cdef int last_iterations    # Newton iterations of the last update
    cdef int max_iterations     # most Newton iterations of any update so far

    cdef double solve_lambda(self, const double* a, double lo, double hi) noexcept nogil


cdef class OSMDCore(ExpertsCore):
    """OSMD with the negative entropy on the simplex, eq. (11) of Li & Liao."""
    cdef double* est            # the last loss estimate vector

    cdef void step(self, const double* estimates) noexcept nogil
    cdef void importance_weighted(self, int arm, double loss, double* out) noexcept nogil
    cdef void explore_exploit_estimate(self, int i, int j, double loss_i, double loss_j,
                                       double* out) noexcept nogil
    cdef void update(self, int arm, double loss) noexcept nogil
    cdef void update_pair(self, int i, int j, double loss_i, double loss_j) noexcept nogil
