/* ssa_accumulators.c -- loops carrying several scalar values across a marker.
 *
 * Exercises: a hot loop with eight loop-carried scalars of different types
 * (int, unsigned, long, unsigned long long, float, double x2, a pointer
 * induction variable) that -O2 keeps in registers, i.e. SSA values (phis)
 * that are live across the marker and exist in no memory location. A
 * second loop carries values through a call that reaches a marker.
 *
 * Invariant: every live variable of every frame on the chain -- here the
 * SSA values -- is restored byte for byte, so the printed results equal
 * those of the uninterrupted run.
 * Argument: number of iterations (default 150000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

static const int table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

__attribute__((noinline)) static long inner(long i, long carry) {
    unsigned long t = (unsigned long)carry;
    for (int k = 0; k < 50; k++)
        t = t * 6364136223846793005UL + 1442695040888963407UL + (unsigned long)k;
    if ((i & 1023) == 0)
        dao_potential_checkpoint();
    return (long)((t ^ (t >> 29)) >> 1);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 150000000;
    int ia = 1;
    unsigned ub = 7u;
    long lc = -3;
    unsigned long long hd = 1469598103934665603ULL;
    float fe = 0.0f;
    double df = 0.0, dg = 1.0;
    const int *p = table;
    for (long i = 0; i < n; i++) {
        ia = (int)((unsigned)ia * 1103515245u + 12345u + (unsigned)*p);
        ub ^= ub << 13;
        ub ^= ub >> 17;
        ub ^= ub << 5;
        lc += (long)(ub & 255) - (ia & 127);
        hd = (hd ^ (unsigned long long)(ia & 0xff)) * 1099511628211ULL;
        fe = fe * 0.999f + (float)(ub & 15) * 0.125f;
        df += 1.0 / (double)(i + 1);
        dg = dg * 0.9999999 + 1e-7 * (double)(lc & 7);
        p = (p == table + 15) ? table : p + 1;
        if ((i & 8191) == 0)
            dao_potential_checkpoint();
    }
    printf("loop1 ia=%d ub=%u lc=%ld hd=%llu fe=%a df=%a dg=%a p=%ld\n", ia, ub, lc, hd, (double)fe, df, dg, (long)(p - table));

    long carry = 17;
    long imin = 0, imax = 0;
    double mean = 0.0;
    for (long i = 0; i < n / 100; i++) {
        carry = inner(i, carry);
        long v = carry % 1000;
        if (v < imin)
            imin = v;
        if (v > imax)
            imax = v;
        mean += ((double)v - mean) / (double)(i + 1);
    }
    printf("loop2 carry=%ld min=%ld max=%ld mean=%a\n", carry, imin, imax, mean);
    printf("ssa_accumulators: n=%ld\n", n);
    return 0;
}
