/* nb_imbalance.c -- thread 0 does ten times the work of each other thread.
 *
 * Exercises: a parallel region enclosing the step loop; per step two static
 * `omp for nowait` loops over N items (the second reads only the items of
 * its own iterations from the first: same static schedule), then an
 * explicit barrier. An item's private computation is repeated `reps` times
 * (its result divided by reps, so exactly the same value either way): 10
 * for the items of thread 0's static block [0, N / threads), 1 otherwise.
 * So per step thread 0 works ten times as long as any other thread (with
 * one thread, every item is heavy): the others run ahead through both
 * loops and wait at the barrier (or drift from the first loop into the
 * second) while thread 0 is still at its markers. Shared data is written
 * only at the end of an iteration (the item's element, an `atomic` sum and
 * an `atomic` count of finished items).
 * Markers: inside the private computation of both loops (after each of the
 * PASSES passes of every repetition), and after the per-step barrier.
 *
 * Invariant: every thread's position inside its private computation (its
 * repetition, pass and partial sums) and the shared arrays are restored
 * byte for byte, whichever loop each thread is in, so the output after a
 * restart equals that of the uninterrupted run. Checked after each
 * barrier: the count of finished items equals 2 * N * (step + 1), from each
 * thread's private step index (failures counted in `bad`, printed).
 * Argument: number of steps (default 600; 60 gives ~0.1 s).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 48 /* items: a multiple of 1, 2, 3 and 4 */
#define PASSES 4 /* markers per repetition */
#define WORK 400 /* generator steps per pass */
#define HEAVY 10 /* repetitions of thread 0's items */
#define P 1000000007ll

static int64_t a[N], b[N];
static int64_t sum, finished, bad;

/* the private computation of an item: PASSES passes, a marker after each */
static int64_t compute(uint64_t x, int reps) {
    uint64_t acc = 0;
    for (int rep = 0; rep < reps; rep++) {
        uint64_t y = x | 1;
        for (int pass = 0; pass < PASSES; pass++) {
            for (int q = 0; q < WORK; q++) {
                y ^= y << 13;
                y ^= y >> 7;
                y ^= y << 17;
            }
            acc += y >> 40;
            dao_potential_checkpoint();
        }
    }
    return (int64_t)(acc / (uint64_t)reps); /* each repetition added the same */
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 600;
    for (int i = 0; i < N; i++) {
        a[i] = (i * 7919) % 1009;
        b[i] = i;
    }
    uint64_t digest = 0;
#pragma omp parallel
    {
        int blk = N / omp_get_num_threads(); /* thread 0's static block: [0, blk) */
        for (int s = 0; s < steps; s++) {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                int64_t v = compute((uint64_t)a[i] * 2654435761u + (uint64_t)s * 97 + (uint64_t)i, i < blk ? HEAVY : 1);
                a[i] = (a[i] * 31 + v) % P;
#pragma omp atomic
                sum += v & 0xffff;
#pragma omp atomic
                finished += 1;
            }
            /* same schedule and trip count: a[i] was written by this thread */
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                int64_t v = compute((uint64_t)a[i] * 40503u + (uint64_t)b[i], i < blk ? HEAVY : 1);
                b[i] = (b[i] * 17 + v) % P;
#pragma omp atomic
                sum += v & 0xff;
#pragma omp atomic
                finished += 1;
            }
#pragma omp barrier
            dao_potential_checkpoint();
            if (finished != (int64_t)2 * N * (s + 1)) {
#pragma omp atomic
                bad += 1;
            }
#pragma omp single nowait
            {
                uint64_t h = 0;
                for (int i = 0; i < N; i++)
                    h = (h * 31 + (uint64_t)a[i]) * 31 + (uint64_t)b[i];
                digest = (digest ^ h) * 1099511628211ull;
                if (s % 10 == 9 || s == steps - 1)
                    printf("step %d sum=%lld h=%llu\n", s + 1, (long long)sum, (unsigned long long)h);
            }
            /* the next step's writes wait for the checks and the digest */
#pragma omp barrier
        }
    }
    printf("nb_imbalance: steps=%d digest=%llu sum=%lld bad=%lld\n", steps, (unsigned long long)digest, (long long)sum,
           (long long)bad);
    return 0;
}
