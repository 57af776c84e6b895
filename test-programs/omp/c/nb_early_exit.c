/* nb_early_exit.c -- markers in a loop the other threads have already left.
 *
 * Exercises: static `omp for nowait` loops over N items whose inner trip
 * counts fall steeply with the index (item i: about LEN * ((N - i) / N)^3
 * passes, cut short by a data-dependent `break` in the second half), so
 * thread 0's static block holds most of the work (with 2 threads 15/16 of
 * it; with 4 threads the last thread's share is under 1%): the other
 * threads leave the loop early while thread 0 is still at its markers.
 * Phase A: one region enclosing the steps; after the nowait loop the
 * threads that are done wait at an explicit barrier. Phase B: a region per
 * step holding only the nowait loop; the threads that are done leave the
 * outlined function and wait at the region's end (libomp's join barrier),
 * with serial code between the regions.
 * Markers: in the inner loops (every 4th pass) of both phases, after phase
 * A's barrier, and in the serial code between phase B's regions.
 *
 * Invariant: the frames of the threads still in the loop, the shared
 * results and the fact that the others have finished (waiting at the
 * barrier or at the region's end) are restored, so the output after a
 * restart equals that of the uninterrupted run. Checked after every
 * barrier and region: the shared count of finished items equals N per
 * step so far (failures counted in `bad`, printed).
 * Argument: number of steps of each phase (default 300; 30 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 48 /* items: a multiple of 1, 2, 3 and 4 */
#define LEN 600 /* passes of item 0 */
#define WORK 250 /* generator steps per pass */
#define P 1000000007ll

static int64_t ra[N], rb[N];
static int64_t finished, bad;

static uint64_t pass(uint64_t x) {
    for (int q = 0; q < WORK; q++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

/* passes of item i: steeply falling with i, at least 1 */
static int len(int i) {
    int64_t m = N - i;
    return 1 + (int)(LEN * m * m * m / ((int64_t)N * N * N));
}

/* item i of step s: its passes, a marker every 4th, a data-dependent
 * early exit in the second half */
static int64_t item(int64_t prev, int s, int i) {
    uint64_t x = (uint64_t)prev * 2654435761u + (uint64_t)s * 40503u + (uint64_t)i + 1;
    int n = len(i);
    int64_t acc = 0;
    for (int j = 0; j < n; j++) {
        x = pass(x);
        acc += (int64_t)(x >> 44);
        if ((j & 3) == 3)
            dao_potential_checkpoint();
        if (j >= n / 2 && x % 61 == 0)
            break;
    }
    return acc;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    for (int i = 0; i < N; i++) {
        ra[i] = (i * 7919) % 1009;
        rb[i] = i + 1;
    }
    uint64_t digest = 0;

    /* phase A: the loop's early leavers wait at a barrier */
#pragma omp parallel
    for (int s = 0; s < steps; s++) {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++) {
            int64_t v = item(ra[i], s, i);
            ra[i] = (ra[i] * 31 + v) % P;
#pragma omp atomic
            finished += 1;
        }
#pragma omp barrier
        dao_potential_checkpoint();
        if (finished != (int64_t)N * (s + 1)) {
#pragma omp atomic
            bad += 1;
        }
#pragma omp single nowait
        {
            uint64_t h = 0;
            for (int i = 0; i < N; i++)
                h = h * 31 + (uint64_t)ra[i];
            digest = (digest ^ h) * 1099511628211ull;
            if (s % 10 == 9 || s == steps - 1)
                printf("A step %d h=%llu\n", s + 1, (unsigned long long)h);
        }
#pragma omp barrier
    }

    /* phase B: the early leavers wait at the region's end */
    for (int s = 0; s < steps; s++) {
#pragma omp parallel
        {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                int64_t v = item(rb[i] ^ ra[i], s + steps, i);
                rb[i] = (rb[i] * 17 + v) % P;
#pragma omp atomic
                finished += 1;
            }
        }
        bad += finished != (int64_t)N * (steps + s + 1);
        dao_potential_checkpoint();
        uint64_t h = 0;
        for (int i = 0; i < N; i++)
            h = h * 31 + (uint64_t)rb[i];
        digest = (digest ^ h) * 1099511628211ull;
        if (s % 10 == 9 || s == steps - 1)
            printf("B step %d h=%llu\n", s + 1, (unsigned long long)h);
    }
    printf("nb_early_exit: steps=%d digest=%llu finished=%lld bad=%lld\n", steps, (unsigned long long)digest,
           (long long)finished, (long long)bad);
    return 0;
}
