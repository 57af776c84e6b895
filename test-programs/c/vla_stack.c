/* vla_stack.c -- variable-size stack allocations on the marker path.
 *
 * Exercises: a VLA at function scope of a function on the chain (live
 * across every marker below it), a VLA declared in the body of the loop
 * that holds a marker (clang saves and restores the stack around each
 * iteration: a fresh array per iteration, live across the marker in it),
 * and an alloca(3) buffer of run-time size written before the loop and
 * read after it. The pass moves each to the heap (to_heap.rs): a restart
 * rebuilds the frames at fixed layouts and finds the arrays at their
 * addresses in the dao heap. Arguments: the array length, the steps.
 *
 * Invariant: the output (a digest of the arrays at every 16th step and at
 * the end) equals an uninterrupted run's.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

__attribute__((noinline)) static double work(double *v, int n, int t) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        v[i] = v[i] * 0.999 + (double)((i * 7 + t) % 13);
        s += v[i];
        if (i % 512 == 0)
            dao_potential_checkpoint();
    }
    return s;
}

__attribute__((noinline)) static double run(int n, int steps) {
    double v[n];
    char *label = alloca((size_t)n / 8 + 32);
    snprintf(label, (size_t)n / 8 + 32, "run of %d cells", n);
    for (int i = 0; i < n; i++)
        v[i] = (double)(i % 17);
    double total = 0.0;
    for (int t = 0; t < steps; t++) {
        double tmp[n / 2 + 1];
        for (int i = 0; i <= n / 2; i++)
            tmp[i] = v[2 * i < n ? 2 * i : n - 1] * 0.5 + t;
        dao_potential_checkpoint();
        for (int i = 0; i < n; i++)
            v[i] += tmp[i / 2] * 1e-3;
        total += work(v, n, t);
        if (t % 16 == 0)
            printf("step %d total %.6e v0 %.6e\n", t, total, v[0]);
    }
    printf("%s: %.9e\n", label, total);
    return total;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int steps = argc > 2 ? atoi(argv[2]) : 50;
    printf("%a\n", run(n, steps));
    return 0;
}
