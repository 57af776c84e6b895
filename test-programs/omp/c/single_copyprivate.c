/* single_copyprivate.c -- `single copyprivate` between nowait loops.
 *
 * Exercises: inside a parallel region enclosing the rounds, each round
 * starts with `#pragma omp single copyprivate(seed, scale)`: one thread
 * advances a serial recurrence and libomp broadcasts its private values to
 * every thread (`__kmpc_copyprivate`, which waits for the whole team). The
 * round's work loop is `omp for nowait` with uneven per-iteration cost, so a
 * thread that finishes its chunk early walks into the next round's single
 * and waits inside `__kmpc_copyprivate` while others are still at markers
 * in the loop: a checkpoint must gather it there (it is a sync site, like a
 * barrier) and the restart must redo the broadcast.
 * Markers: in the loop body (every 512th iteration) and at the end of each
 * round (no barrier before it).
 *
 * Invariant: seed/scale are private copies; after the broadcast every
 * thread holds the winner's values; each element's result depends only on
 * the round's seed and the element. Output: a digest of the array and the
 * final seed, identical for any thread count.
 * Argument: number of rounds (default 400; 40 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 60000

static uint64_t v[N];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    for (int i = 0; i < N; i++)
        v[i] = (uint64_t)i * 2654435761u;
    uint64_t seed = 12345, scale = 1;
    uint64_t last_seed = 0;
#pragma omp parallel firstprivate(seed, scale)
    {
        for (int r = 0; r < rounds; r++) {
#pragma omp single copyprivate(seed, scale)
            {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                scale = 1 + (seed >> 60);
            }
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                /* uneven cost: the first quarter of the array is heavier */
                int reps = i < N / 4 ? 12 : 1;
                uint64_t x = v[i];
                for (int k = 0; k < reps; k++)
                    x = (x ^ (seed + (uint64_t)k)) * 0x9E3779B97F4A7C15ull + scale;
                v[i] = x;
                if ((i & 511) == 0)
                    dao_potential_checkpoint();
            }
            dao_potential_checkpoint();
        }
#pragma omp barrier
#pragma omp master
        last_seed = seed;
    }
    uint64_t digest = 0;
    for (int i = 0; i < N; i++)
        digest = digest * 31 + v[i];
    printf("single_copyprivate: rounds %d seed %016llx digest %016llx\n", rounds, (unsigned long long)last_seed,
           (unsigned long long)digest);
    return 0;
}
