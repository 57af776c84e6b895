/* npb_common.h -- shared helpers for the dao NPB ports (CG, MG).
 *
 * Random numbers: the NPB generator is the multiplicative congruential
 * sequence  x_{k+1} = a * x_k  (mod 2^46),  with a = 5^13, returning
 * x_{k+1} * 2^-46 in (0,1).  All quantities are integers below 2^46, so the
 * recurrence is computed exactly with unsigned 64-bit arithmetic: the low 64
 * bits of the product are exact modulo 2^64 and 2^46 divides 2^64.  The
 * results are therefore identical to the double-precision formulation of the
 * specification.
 */
#ifndef NPB_COMMON_H
#define NPB_COMMON_H

#include <stdint.h>

#define NPB_LCG_MASK   ((UINT64_C(1) << 46) - 1)
#define NPB_TWO_M46    (1.0 / 70368744177664.0)   /* 2^-46 */
#define NPB_A5_13      1220703125.0               /* 5^13  */

/* Advance *seed once with multiplier a; return the new value scaled to (0,1). */
static inline double randlc(double *seed, double a)
{
    uint64_t s = (uint64_t)*seed, m = (uint64_t)a;
    s = (s * m) & NPB_LCG_MASK;
    *seed = (double)s;
    return (double)s * NPB_TWO_M46;
}

/* Fill y[0..n-1] with the next n values of the sequence; *seed advances by n. */
static inline void vranlc(int n, double *seed, double a, double *y)
{
    uint64_t s = (uint64_t)*seed, m = (uint64_t)a;
    for (int i = 0; i < n; i++) {
        s = (s * m) & NPB_LCG_MASK;
        y[i] = (double)s * NPB_TWO_M46;
    }
    *seed = (double)s;
}

/* a^n (mod 2^46), as a double holding an integer: the multiplier that jumps
 * the sequence n steps ahead. */
static inline double lcg_pow(double a, long n)
{
    uint64_t r = 1, b = (uint64_t)a;
    while (n > 0) {
        if (n & 1) r = (r * b) & NPB_LCG_MASK;
        b = (b * b) & NPB_LCG_MASK;
        n >>= 1;
    }
    return (double)r;
}

/* Wall-clock seconds. */
double npb_wtime(void);

/* Standard NPB closing report.  Timing-dependent lines all start with
 * " Time" or " Mop/s" (see README.md for the output filter). */
void npb_report(const char *name, char cls, long n1, long n2, long n3,
                int niter, double seconds, double mops, const char *optype,
                int verified, int nthreads);

#endif
