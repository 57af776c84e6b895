/* nowait_loops.c -- `#pragma omp for nowait` followed by another loop.
 *
 * Exercises: inside a parallel region enclosing the rounds, a static
 * `#pragma omp for nowait` loop followed immediately (no barrier) by a
 * second static nowait loop over the same iteration space (OpenMP guarantees the
 * same thread gets the same iterations, so it may read its own results of
 * the first loop), then a third nowait loop on independent data and a loop
 * with the normal barrier. Threads may thus be in different loops at the
 * same time; an explicit barrier precedes the fourth loop.
 * Markers: in the bodies of the nowait loops and of the following loops
 * (every 2048th iteration), and after the explicit barrier.
 *
 * Invariant: every thread's frame (which loop it is in, its position) and
 * the shared arrays are restored byte for byte, so the output after a
 * restart equals that of the uninterrupted run.
 * Argument: number of rounds (default 600; 60 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 100000

static int64_t a[N], b[N], c[N], d[N];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 600;
    for (int i = 0; i < N; i++) {
        a[i] = i % 1000;
        c[i] = (i * 3) % 1000;
    }
    uint64_t digest = 0;
#pragma omp parallel
    {
        for (int r = 0; r < rounds; r++) {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                b[i] = (a[i] * 7 + r) % 100003;
                if ((i & 2047) == 0)
                    dao_potential_checkpoint();
            }
            /* same static schedule, same trip count: reads only b[i] of its own iterations */
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                a[i] = (b[i] * b[i] + i) % 1000003;
                if ((i & 2047) == 1)
                    dao_potential_checkpoint();
            }
            /* independent data */
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                c[i] = (c[i] * 13 + 5) % 65537;
                if ((i & 2047) == 2)
                    dao_potential_checkpoint();
            }
            /* wait for every thread's nowait loops, then a loop with its
             * implicit barrier that reads neighbours written by other threads */
#pragma omp barrier
            dao_potential_checkpoint();
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                d[i] = (a[(i + 1) % N] + c[(i + N - 1) % N]) % 1000003;
                if ((i & 2047) == 3)
                    dao_potential_checkpoint();
            }
#pragma omp single
            {
                uint64_t h = 0;
                for (int i = 0; i < N; i += 7)
                    h = h * 31 + (uint64_t)d[i];
                digest = (digest ^ h) * 1099511628211ull;
                if (r % 100 == 99 || r == rounds - 1)
                    printf("round %d d=%llu a=%lld c=%lld\n", r + 1, (unsigned long long)h, (long long)a[N / 2],
                           (long long)c[N / 3]);
            }
        }
    }
    printf("nowait_loops: rounds=%d digest=%llu\n", rounds, (unsigned long long)digest);
    return 0;
}
