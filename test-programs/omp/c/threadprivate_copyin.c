/* threadprivate_copyin.c -- threadprivate globals with copyin, used across regions.
 *
 * Exercises: threadprivate globals (scalars and an array, in each thread's
 * TLS block) whose values differ per thread and persist from one parallel
 * region to the next: `copyin` broadcasts the master's multiplier into
 * every thread at the start of each step's region; each thread accumulates
 * its own partial sum, count and histogram in threadprivate storage over
 * many regions; a final region combines them with atomics. Between regions
 * the serial code prints a checksum of the shared array.
 * Markers: inside each step's region (in the worksharing loop body, every
 * 2048th iteration, and after the loop).
 *
 * Invariant: every thread's threadprivate values (not only the master's) are
 * restored byte for byte, so the combined totals printed after a restart
 * equal those of the uninterrupted run (they are independent of the thread
 * count: the sum over threads of per-thread partials of integer values).
 * Argument: number of steps (default 1500; 60 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 200000
#define NB 16

static int64_t tp_sum;
static int64_t tp_count;
static int64_t tp_mult = 1;
static int64_t tp_hist[NB];
#pragma omp threadprivate(tp_sum, tp_count, tp_mult, tp_hist)

static int64_t a[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 1500;
    for (int i = 0; i < N; i++)
        a[i] = i % 1013;
    /* region 1: every thread clears its own threadprivate accumulators */
#pragma omp parallel
    {
        tp_sum = 0;
        tp_count = 0;
        for (int b = 0; b < NB; b++)
            tp_hist[b] = 0;
    }
    for (int s = 0; s < steps; s++) {
        tp_mult = 3 + s % 5; /* the master's value; copyin broadcasts it */
#pragma omp parallel copyin(tp_mult)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                int64_t x = (a[i] * tp_mult + s) % 65521;
                a[i] = x;
                tp_sum += x;
                tp_count++;
                tp_hist[x % NB] += 1;
                if ((i & 2047) == 0)
                    dao_potential_checkpoint();
            }
            dao_potential_checkpoint();
        }
        if (s % 250 == 249 || s == steps - 1) {
            uint64_t c = 0;
            for (int i = 0; i < N; i++)
                c = c * 7 + (uint64_t)a[i];
            printf("step %d check=%llu\n", s + 1, (unsigned long long)c);
        }
    }
    /* last region: combine the per-thread values */
    int64_t total = 0, count = 0, hist[NB] = {0};
#pragma omp parallel
    {
#pragma omp atomic
        total += tp_sum;
#pragma omp atomic
        count += tp_count;
        for (int b = 0; b < NB; b++) {
#pragma omp atomic
            hist[b] += tp_hist[b];
        }
    }
    printf("hist:");
    for (int b = 0; b < NB; b++)
        printf(" %lld", (long long)hist[b]);
    printf("\n");
    printf("threadprivate_copyin: steps=%d total=%lld count=%lld\n", steps, (long long)total, (long long)count);
    return 0;
}
