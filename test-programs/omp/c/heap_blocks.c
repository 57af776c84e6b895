/* heap_blocks.c -- heap arrays shared by the team, one block per thread.
 *
 * Exercises: heap arrays allocated in main before the region and shared;
 * inside `#pragma omp parallel` each thread computes its own contiguous
 * block, [tid*n/nt, (tid+1)*n/nt), from omp_get_thread_num() and
 * omp_get_num_threads() (no worksharing construct), using a scratch buffer
 * that the thread mallocs itself inside the region (so blocks come from
 * other threads' malloc arenas) and frees at the end; `#pragma omp
 * barrier` between the phases of a step.
 * Markers: inside each thread's block loop (every 1024 elements) and after
 * each barrier (every thread).
 *
 * Invariant: every heap block (including those malloc'd by worker threads)
 * is restored at its old address with its old contents, and every thread's
 * frame (its block bounds, its scratch pointer) is restored byte for byte,
 * so the output (per-element results, independent of the partition) after a
 * restart equals that of the uninterrupted run.
 * Argument: number of steps (default 1200; 60 gives ~0.1 s).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

#define N 100000

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 1200;
    double *x = malloc(N * sizeof *x);
    double *y = malloc(N * sizeof *y);
    int64_t *tag = calloc(N, sizeof *tag);
    for (int i = 0; i < N; i++)
        x[i] = (double)((i * 37) % 1001) / 1001.0;
#pragma omp parallel
    {
        int tid = omp_get_thread_num(), nt = omp_get_num_threads();
        int lo = (int)((int64_t)N * tid / nt), hi = (int)((int64_t)N * (tid + 1) / nt);
        double *scratch = malloc((size_t)(hi - lo + 2) * sizeof *scratch);
        for (int s = 0; s < steps; s++) {
            /* phase 1: each thread reads neighbours (possibly other blocks) */
            for (int i = lo; i < hi; i++) {
                double l = x[i == 0 ? N - 1 : i - 1], r = x[i == N - 1 ? 0 : i + 1];
                scratch[i - lo] = 0.3 * l + 0.4 * x[i] + 0.3 * r;
                if (((i - lo) & 1023) == 1023)
                    dao_potential_checkpoint();
            }
#pragma omp barrier
            dao_potential_checkpoint();
            /* phase 2: write back own block only */
            for (int i = lo; i < hi; i++) {
                double t = scratch[i - lo];
                t = t * (1.0 + 1e-3 * (double)(s % 7)) - 1e-4;
                y[i] = t;
                x[i] = t - (double)(int64_t)t;
                tag[i] = (tag[i] * 3 + (int64_t)(x[i] * 1000.0)) % 1000000007;
            }
#pragma omp barrier
            dao_potential_checkpoint();
#pragma omp master
            {
                if (s % 150 == 149 || s == steps - 1)
                    printf("step %d x=%a y=%a tag=%lld\n", s + 1, x[N / 2], y[N / 7], (long long)tag[N - 1]);
            }
#pragma omp barrier
        }
        free(scratch);
    }
    uint64_t c = 0;
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        c = c * 31 + (uint64_t)tag[i];
        s += x[i];
    }
    printf("heap_blocks: steps=%d sum=%.17g tags=%llu\n", steps, s, (unsigned long long)c);
    free(x);
    free(y);
    free(tag);
    return 0;
}
