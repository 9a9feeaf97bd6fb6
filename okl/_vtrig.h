/* okl: sin and cos of an array, written so that the loop vectorizes (the random
 * Fourier features of FOGD: 2 D values a round).
 *
 * okl_sincos(x, n, scale, c, s, exact) sets c[i] = scale cos(x[i]) and
 * s[i] = scale sin(x[i]).
 *
 * exact != 0, or a CPU without FMA: libm's sincos, element by element.
 *
 * Otherwise, for |x| <= OKL_TRIG_MAX = 2^30 (larger arguments, inf and NaN go to
 * libm in a second pass), without branches:
 *   1. k = round(x 2/pi) by the magic-number rounding of one FMA; k mod 4 is read
 *      from the low bits of the rounded sum (the quadrant).
 *   2. r = x - k pi/2 as a double-double (r, rt), pi/2 = P1 + P2 + P3 (the doubles
 *      nearest pi/2 and its two remainders; what is left is 5.6e-50):
 *      x - k P1 is exact in one FMA (x and k P1 are both multiples of 2^-52 when
 *      |x| >= 1, the result is below 2 in magnitude; |x| < 1 gives k in {-1, 0, 1}),
 *      k P2 is split exactly into p + pe by an FMA, the sums are error-free
 *      (TwoSum), so r + rt carries about 106 bits of x mod pi/2.  A double below
 *      2^30 is never closer than about 2^-62 to a multiple of pi/2, so the reduced
 *      argument keeps its relative accuracy even there (sin near k pi).
 *   3. sin and cos of r + rt on [-pi/4, pi/4]: the kernels of fdlibm / FreeBSD msun
 *      (k_sin.c, k_cos.c: minimax polynomials of degree 13 and 14, errors below
 *      2^-58 before rounding, the tail rt taken to first order).
 *   4. the quadrant swaps sin and cos and flips signs (bit operations).
 * Accuracy, measured against mpmath at 200 bits (tests/test_vtrig.py): below 1 ulp
 * of the true value (largest seen 0.71 ulp; glibc's sincos: 0.51) over uniform
 * arguments up to 2^30, the doubles nearest k pi/2 (where sin or cos is tiny),
 * tiny and subnormal arguments.  It is not bit for bit libm: 5-7 % of the values
 * differ from glibc's sincos, by one unit in the last place.
 *
 * The loop is cloned for x86-64-v4 (AVX-512) and v3 (AVX2 + FMA) with the same
 * operations in the same order, so the two give identical results; the default
 * clone is never used for the fast path (no FMA: libm instead).
 */
#ifndef OKL_VTRIG_H
#define OKL_VTRIG_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math", "no-math-errno")
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define OKL_TRIG_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OKL_TRIG_CLONES
#endif

#define OKL_TRIG_MAX 1073741824.0 /* 2^30 */

/* GNU libm: both at the cost of one */
void sincos(double x, double *s, double *c);

static int okl_trig_has_fma(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_supports("fma");
#elif defined(__aarch64__) || defined(__FP_FAST_FMA) || defined(FP_FAST_FMA)
    return 1;
#else
    return 0;
#endif
}

/* c[i] = scale cos(x[i]), s[i] = scale sin(x[i]) for |x[i]| <= OKL_TRIG_MAX;
 * returns how many x[i] were outside that range (or NaN): their c[i], s[i] are
 * left for the caller (okl_sincos redoes them with libm). */
OKL_TRIG_CLONES
static int okl_sincos_poly(const double *x, int n, double scale, double *c, double *s)
{
    const double two_over_pi = 6.36619772367581382433e-01;
    const double P1 = 1.5707963267948966;               /* 0x1.921fb54442d18p+0 */
    const double P2 = 6.123233995736766e-17;            /* 0x1.1a62633145c07p-54 */
    const double P3 = -1.4973849048591698e-33;          /* -0x1.f1976b7ed8fbcp-110 */
    const double magic = 6755399441055744.0;             /* 1.5 * 2^52 */
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    int outside = 0;
    for (int i = 0; i < n; i++) {
        double v = x[i];
        int inside = fabs(v) <= OKL_TRIG_MAX;
        outside += !inside;
        v = inside ? v : 0.0;
        /* 1. quadrant */
        double t = fma(v, two_over_pi, magic);
        double k = t - magic;
        uint64_t q;
        memcpy(&q, &t, sizeof q);
        /* 2. r + rt = v - k pi/2 */
        double r1 = fma(-k, P1, v);                      /* exact */
        double p = k * P2;
        double pe = fma(k, P2, -p);                      /* k P2 = p + pe exactly */
        double sh = r1 - p;                              /* TwoSum(r1, -p) = sh + se */
        double sb = sh - r1;
        double se = (r1 - (sh - sb)) + (-p - sb);
        double lo = (se - pe) - k * P3;
        double r = sh + lo;                              /* TwoSum(sh, lo) = r + rt */
        double rb = r - sh;
        double rt = (sh - (r - rb)) + (lo - rb);
        /* 3. kernels on [-pi/4, pi/4] (msun k_sin.c with iy = 1, k_cos.c) */
        double z = r * r;
        double w = z * z;
        double ps = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
        double vz = z * r;
        double sn = r - ((z * (0.5 * rt - vz * ps) - rt) - vz * S1);
        double pc = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
        double hz = 0.5 * z;
        double wc = 1.0 - hz;
        double cs = wc + (((1.0 - wc) - hz) + (z * pc - r * rt));
        /* 4. quadrant q mod 4: (sin, cos) = (sn, cs), (cs, -sn), (-sn, -cs), (-cs, sn) */
        double so = (q & 1) ? cs : sn;
        double co = (q & 1) ? sn : cs;
        uint64_t bs, bc;
        memcpy(&bs, &so, sizeof bs);
        memcpy(&bc, &co, sizeof bc);
        bs ^= (q & 2) << 62;
        bc ^= ((q + 1) & 2) << 62;
        memcpy(&so, &bs, sizeof so);
        memcpy(&co, &bc, sizeof co);
        s[i] = scale * so;
        c[i] = scale * co;
    }
    return outside;
}

/* c[i] = scale cos(x[i]), s[i] = scale sin(x[i]), i < n: the polynomial loop above
 * where the CPU has FMA (and exact == 0), libm's sincos elsewhere. */
static void okl_sincos(const double *x, int n, double scale, double *c, double *s, int exact)
{
    static int fma_ok = -1;
    double sv, cv;
    if (fma_ok < 0)
        fma_ok = okl_trig_has_fma();
    if (!exact && fma_ok) {
        if (okl_sincos_poly(x, n, scale, c, s) == 0)
            return;
        for (int i = 0; i < n; i++) {
            if (!(fabs(x[i]) <= OKL_TRIG_MAX)) {
                sincos(x[i], &sv, &cv);
                s[i] = scale * sv;
                c[i] = scale * cv;
            }
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        sincos(x[i], &sv, &cv);
        s[i] = scale * sv;
        c[i] = scale * cv;
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#endif /* OKL_VTRIG_H */
