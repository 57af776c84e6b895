/* heap_scratch.c -- heap objects (issue #33, item 3): blocks that main
 * allocates once, which the liveness names one by one, so a block the next
 * step rewrites before reading is left out of a checkpoint instead of being
 * saved because a saved pointer reaches it.
 *
 * Blocks, each of n doubles (n from the command line, in a static global:
 * the extent of the loops, checked at run time against each block's size):
 * - `u` (calloc): carried from step to step: read, then updated in place;
 * - `w` (malloc): scratch, rewritten whole by a `parallel for` at the top
 *   of every step before anything reads it: dead at the marker;
 * - `t` (malloc): written once before the step loop, read every step;
 * - `o` (C: malloc of n+1 doubles): rewritten whole by a serial loop in
 *   main every step, element n included, then summed: dead at the marker.
 * The marker is at the top of the step loop in main (between regions).
 *
 * Twins that must keep what they name (built with -D):
 * - READ_FIRST: each step first reads w[k] for one k (the old value flows
 *   into the output): `w` is live at the marker;
 * - SHORT: the rewrite of `w` stops one element short of its end, whose old
 *   value is read next: `w` is live (its cover condition fails at run time:
 *   8 * (n - 1) bytes do not reach the block's end);
 * - FIXED_N (not a twin that keeps, a variant): n is the constant 32768,
 *   so every block has a size known at compile time and the loops constant
 *   extents; `w` and `o` are dead as in the plain build, without a cover
 *   condition (the pass takes such a block for an object of that size);
 * - ESCAPE: `w`'s address is also stored into a global other files can
 *   name: the pass does not track it, and the runtime saves it by
 *   reachability as before.
 *
 * Invariant: `u`, `t` and the loop's scalars are restored byte for byte,
 * so the per-step checksums (exact int64 arithmetic on values derived from
 * the doubles' bits) after a restart equal those of the uninterrupted run
 * for any thread count, also when every byte left out of a checkpoint was
 * poisoned (DAO_DEAD=poison). A wrong kill of `w` or `o` prints other
 * checksums in the twins (their old values are read).
 * Arguments: number of steps (default 400), n (default 65536).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "dao.h"

#define P 1000003

#ifdef FIXED_N
/* every size and extent known at compile time: the blocks are objects of
 * that size, killed without a run-time cover condition */
#define n 32768
#else
static int n;
#endif

#ifdef ESCAPE
double *escaped_w;
#endif

static int64_t bits(double x) {
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return (b >> 11) % P;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 400;
#ifndef FIXED_N
    n = argc > 2 ? atoi(argv[2]) : 65536;
#endif
    if (n < 8) {
        fprintf(stderr, "n must be at least 8\n");
        return 1;
    }
    double *u = calloc(n, sizeof(double));
    double *w = malloc(n * sizeof(double));
    double *t = malloc(n * sizeof(double));
    double *o = malloc((n + 1) * sizeof(double));
#ifdef ESCAPE
    escaped_w = w;
#endif
    for (int i = 0; i < n; i++) {
        u[i] = (i % 17) * 0.25;
        t[i] = 1.0 + (i % 5) * 0.125;
    }
    int64_t carry = 1;
    for (int s = 0; s < steps; s++) {
        dao_potential_checkpoint(); /* top of the step loop: w and o dead */
#ifdef READ_FIRST
        carry = (carry * 31 + bits(w[(s * 7) % n])) % P;
#endif
#pragma omp parallel for schedule(static)
#ifdef SHORT
        for (int i = 0; i < n - 1; i++)
#else
        for (int i = 0; i < n; i++)
#endif
            w[i] = u[i] * t[i] + (double)((i + s) % 3);
#ifdef SHORT
        carry = (carry * 31 + bits(w[n - 1])) % P;
#endif
#pragma omp parallel for schedule(static)
        for (int i = 1; i < n - 1; i++)
            u[i] = 0.25 * (w[i - 1] + w[i + 1]) + 0.5 * u[i] - 0.125 * t[i];
        for (int i = 0; i <= n; i++)
            o[i] = (i < n ? u[i] : (double)s) * 0.5;
        int64_t sum = 0;
        for (int i = 0; i <= n; i += 7)
            sum = (sum * 7 + bits(o[i])) % P;
        carry = (carry * 13 + sum) % P;
        printf("step %d: %" PRId64 " %" PRId64 "\n", s, sum, carry);
    }
    free(u);
    free(w);
    free(t);
    free(o);
    return 0;
}
