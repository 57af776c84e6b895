/* call_result.c -- a marker right after a call whose result is used later.
 *
 * Exercises: `r = f(...); dao_potential_checkpoint(); use(r);` -- the value
 * returned by a call (int, double, a struct returned by value, a pointer
 * returned by malloc) is live across the marker, as are the results of a
 * call that itself reaches a marker (the return value is produced after the
 * resume point in the callee).
 *
 * Invariant: every live variable of every frame on the chain -- including
 * call results held in registers -- is restored byte for byte, so the
 * printed results equal those of the uninterrupted run.
 * Argument: number of iterations (default 10000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

struct pair {
    long lo;
    double hi;
};

__attribute__((noinline)) static long hash_step(long i) {
    unsigned long x = (unsigned long)i;
    for (int k = 0; k < 20; k++)
        x = (x ^ (x >> 31)) * 0x7fb5d329728ea185UL + (unsigned long)k;
    return (long)(x >> 2);
}

__attribute__((noinline)) static double smooth(double x) {
    for (int k = 0; k < 10; k++)
        x = 0.5 * (x + 2.0 / x);
    return x;
}

__attribute__((noinline)) static struct pair make_pair(long i) {
    struct pair p = {i * 3 + 1, (double)i * 0.25};
    return p;
}

/* A callee that reaches a marker before producing its result. */
__attribute__((noinline)) static double with_marker(long i, double x) {
    double y = smooth(x + (double)(i % 5));
    dao_potential_checkpoint();
    return y * 1.5;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    unsigned long acc = 0;
    double dacc = 0.0;
    unsigned long *cells = NULL;
    for (long i = 0; i < n; i++) {
        long h = hash_step(i);
        if (i % 64 == 0)
            dao_potential_checkpoint();
        double s = smooth(1.0 + (double)(i % 100));
        if (i % 64 == 1)
            dao_potential_checkpoint();
        struct pair p = make_pair(i);
        if (i % 64 == 2)
            dao_potential_checkpoint();
        if (i % 10000 == 0) {
            cells = malloc(16 * sizeof *cells);
            if (i % 64 == 0)
                dao_potential_checkpoint();
            for (int k = 0; k < 16; k++)
                cells[k] = (unsigned long)h + (unsigned long)k;
        }
        double w = (i % 100 == 0) ? with_marker(i, s) : 0.0;
        acc ^= (unsigned long)h + (unsigned long)p.lo;
        dacc += s + p.hi + w;
        if (cells)
            cells[i % 16] += acc & 0xff;
        if (i % 1000000 == 999999)
            printf("i=%ld acc=%lu dacc=%a cell=%lu\n", i + 1, acc, dacc, cells ? cells[3] : 0UL);
        if (i % 10000 == 9999) {
            free(cells);
            cells = NULL;
        }
    }
    printf("call_result: n=%ld acc=%lu dacc=%.17g\n", n, acc, dacc);
    free(cells);
    return 0;
}
