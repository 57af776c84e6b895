/* fp_accum.c -- floating-point accumulations.
 *
 * Exercises: long floating-point accumulations whose result depends on every
 * bit of the running values: a naive sum, a Kahan-compensated sum (with its
 * compensation term), a float (single-precision) sum, a product kept in
 * range by frexp, a long double sum, and a running mean/variance (Welford).
 * A marker every few hundred terms; any lost or rounded bit changes the %a
 * output.
 *
 * Invariant: every live variable of every frame on the chain is restored
 * byte for byte (including x87 long double and compensation terms), so the
 * printed results equal those of the uninterrupted run.
 * Argument: number of terms (default 20000000).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    double naive = 0.0, kahan = 0.0, comp = 0.0;
    float fsum = 0.0f;
    long double lsum = 0.0L;
    double prod = 1.0;
    long prod_exp = 0;
    double mean = 0.0, m2 = 0.0;
    for (long i = 1; i <= n; i++) {
        double term = sin((double)i) / (double)i;
        naive += term;
        double y = term - comp;
        double t = kahan + y;
        comp = (t - kahan) - y;
        kahan = t;
        fsum += (float)term;
        lsum += (long double)term * (long double)term;
        int e;
        prod = frexp(prod * (1.0 + term * 1e-3), &e);
        prod_exp += e;
        double d = term - mean;
        mean += d / (double)i;
        m2 += d * (term - mean);
        if (i % 400 == 0)
            dao_potential_checkpoint();
        if (i % 2000000 == 0)
            printf("i=%ld naive=%a kahan=%a comp=%a fsum=%a\n", i, naive, kahan, comp, (double)fsum);
    }
    printf("lsum=%La prod=%a*2^%ld mean=%a var=%a\n", lsum, prod, prod_exp, mean, m2 / (double)(n - 1));
    printf("fp_accum: n=%ld naive=%.17g kahan=%.17g\n", n, naive, kahan);
    return 0;
}
