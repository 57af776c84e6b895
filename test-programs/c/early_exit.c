/* early_exit.c -- loops left by `break` with a marker inside.
 *
 * Exercises: a convergence loop (Newton / fixed-point iterations) whose
 * marker sits before a `break` on convergence, a search loop whose marker
 * sits after the `break` test, and a loop with both `continue` and `break`
 * around the marker. After a restart the loop must still leave at the same
 * iteration with the same values.
 *
 * Invariant: every live variable of every frame on the chain is restored
 * byte for byte, so every loop exits at the same iteration and the printed
 * results equal those of the uninterrupted run.
 * Argument: number of problems (default 2000000).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

__attribute__((noinline)) static int solve(double a, double *root) {
    double x = a > 1.0 ? a : 1.0;
    int it;
    for (it = 0; it < 200; it++) {
        double fx = x * x * x - a;
        double nx = x - fx / (3.0 * x * x);
        if (it % 4 == 3)
            dao_potential_checkpoint();
        if (fabs(nx - x) < 1e-15 * fabs(x)) {
            x = nx;
            break;
        }
        x = nx;
    }
    *root = x;
    return it;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    long iters = 0;
    double rsum = 0.0;
    for (long i = 0; i < n; i++) {
        double r;
        iters += solve(1.0 + (double)i * 0.37, &r);
        rsum += r;
    }
    printf("cbrt: iters=%ld rsum=%a\n", iters, rsum);

    /* search loop: first index whose hash has 20 low zero bits, several times */
    unsigned long long h = 0;
    long found[6];
    long start = 1;
    for (int f = 0; f < 6; f++) {
        long i;
        for (i = start;; i++) {
            h = (unsigned long long)i * 0x9E3779B97F4A7C15ULL;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ULL;
            h ^= h >> 32;
            if ((h & 0xFFFFF) == 0)
                break;
            if ((i & 4095) == 0)
                dao_potential_checkpoint();
        }
        found[f] = i;
        start = i + 1;
        printf("found %d at %ld\n", f, i);
    }

    /* continue and break around a marker */
    double acc = 0.0;
    long kept = 0, i;
    for (i = 0; i < 20 * n; i++) {
        double v = sin((double)i * 0.001);
        if (v < -0.5)
            continue;
        dao_potential_checkpoint();
        acc += v;
        kept++;
        if (acc > 0.25 * (double)n * 10.0)
            break;
    }
    printf("early_exit: n=%ld stop=%ld kept=%ld acc=%.17g last=%ld\n", n, i, kept, acc, found[5]);
    return 0;
}
