/* okl: the one pass over an input that validation and the rows' norms need.
 *
 * okl_first_nonfinite: index of the first NaN or infinity of an array (-1 if none),
 * from the exponent bits (all ones for NaN and +-inf), tested in blocks whose
 * integer loop vectorizes; only a block that holds one is searched element by element.
 *
 * okl_unsorted: whether a CSR row's column indices fail to increase strictly.
 *
 * okl_row_norms: ||v||_2^2 and ||v||_1 of one row with four independent accumulators
 * (a fixed summation order, the same whatever the vector width, so the result does not
 * depend on the machine's clone).  The stream computes them on the fly for each row
 * it hands out instead of storing two arrays of T doubles (okl._core.Stream.row).
 */
#include <stdint.h>
#include <string.h>
#include <math.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define OKL_CHECK_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define OKL_CHECK_CLONES
#endif

#define OKL_EXP_MASK 0x7ff0000000000000ULL
#define OKL_BLOCK 512

OKL_CHECK_CLONES
static long long okl_first_nonfinite(const double *v, long long n)
{
    long long start = 0;
    while (start < n) {
        long long stop = start + OKL_BLOCK < n ? start + OKL_BLOCK : n;
        long long bad = 0;
        for (long long i = start; i < stop; i++) {
            uint64_t bits;
            memcpy(&bits, v + i, sizeof bits);
            bad += (bits & OKL_EXP_MASK) == OKL_EXP_MASK;
        }
        if (bad) {
            for (long long i = start; i < stop; i++)
                if (!isfinite(v[i])) return i;
        }
        start = stop;
    }
    return -1;
}

/* 1 if idx[0..n) is not strictly increasing (unsorted or duplicate column indices). */
static inline int okl_unsorted(const int *idx, long long n)
{
    int bad = 0;
    for (long long k = 1; k < n; k++)
        bad |= idx[k] <= idx[k - 1];
    return bad;
}

static inline void okl_row_norms(const double *v, int n, double *sq, double *l1)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += v[i] * v[i];
        s1 += v[i + 1] * v[i + 1];
        s2 += v[i + 2] * v[i + 2];
        s3 += v[i + 3] * v[i + 3];
        a0 += fabs(v[i]);
        a1 += fabs(v[i + 1]);
        a2 += fabs(v[i + 2]);
        a3 += fabs(v[i + 3]);
    }
    for (; i < n; i++) {
        s0 += v[i] * v[i];
        a0 += fabs(v[i]);
    }
    *sq = (s0 + s1) + (s2 + s3);
    *l1 = (a0 + a1) + (a2 + a3);
}
