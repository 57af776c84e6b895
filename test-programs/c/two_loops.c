/* two_loops.c -- markers in two different loops of one function.
 *
 * Exercises: one function with two sequential loops, each containing its
 * own marker, with different sets of live values at each (the first loop's
 * results stay live through the second loop; the second loop's accumulators
 * are not live at the first marker), and a nested loop where the marker sits
 * in the inner loop. A restart must resume in the right loop at the right
 * iteration.
 *
 * Invariant: every live variable of every frame on the chain is restored
 * byte for byte, and execution resumes at the marker that was reached, so
 * the printed results equal those of the uninterrupted run.
 * Argument: work per loop (default 300000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

__attribute__((noinline)) static void phases(long n, double *out) {
    double a = 0.0;
    long ca = 0;
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 500; k++)
            a += (double)((i * 500 + k) % 101) * 1e-3;
        ca += i % 13;
        dao_potential_checkpoint();
        if (i % 30000 == 29999)
            printf("loop1 i=%ld a=%a ca=%ld\n", i + 1, a, ca);
    }
    double b = 1.0;
    unsigned long long cb = 5;
    for (long i = 0; i < n; i++) {
        for (int j = 0; j < 4; j++) {
            for (int k = 0; k < 125; k++)
                b = b * 0.99999 + (double)((cb >> (k & 31)) & 1) * 1e-5;
            cb = cb * 2862933555777941757ULL + 3037000493ULL;
            if (j == 2)
                dao_potential_checkpoint();
        }
        if (i % 30000 == 29999)
            printf("loop2 i=%ld b=%a cb=%llu a=%a\n", i + 1, b, cb, a);
    }
    out[0] = a;
    out[1] = (double)ca;
    out[2] = b;
    out[3] = (double)(cb >> 11);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 300000;
    double out[4];
    phases(n, out);
    printf("two_loops: n=%ld a=%.17g ca=%.17g b=%.17g cb=%.17g\n", n, out[0], out[1], out[2], out[3]);
    return 0;
}
