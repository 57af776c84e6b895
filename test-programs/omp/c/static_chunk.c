/* static_chunk.c -- static schedules with a chunk size.
 *
 * Exercises: `#pragma omp for schedule(static, chunk)` loops (round-robin
 * chunks: each thread's iterations are not contiguous, so the runtime loop
 * has an outer chunk loop) with a constant chunk (7), a chunk of 1, and a
 * chunk size taken from a variable, inside a parallel region enclosing the
 * rounds, plus a combined `parallel for schedule(static, 64)`.
 * Markers: inside each loop body (every 1000th iteration, or per row).
 *
 * Invariant: every thread's frame, including the position inside its current
 * chunk and the next chunk's bounds, is restored byte for byte, so the
 * output after a restart equals that of the uninterrupted run.
 * Argument: number of rounds (default 300; 40 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 100003
#define R 61

static int64_t a[N], b[N];
static int64_t rows[R][1000];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    int chunk = argc > 2 ? atoi(argv[2]) : 13;
    for (int i = 0; i < N; i++)
        a[i] = i % 1009;
    uint64_t digest = 0;
#pragma omp parallel
    {
        for (int r = 0; r < rounds; r++) {
#pragma omp for schedule(static, 7)
            for (int i = 0; i < N; i++) {
                b[i] = (a[i] * 29 + a[(i + 1) % N] + r) % 100003;
                if (i % 1000 == 3)
                    dao_potential_checkpoint();
            }
#pragma omp for schedule(static, 1)
            for (int k = 0; k < R; k++) {
                int64_t t = k + r;
                for (int j = 0; j < 1000; j++) {
                    t = (t * 48271 + b[(k * 1000 + j) % N]) % 2147483647;
                    rows[k][j] = t;
                }
                dao_potential_checkpoint();
            }
#pragma omp for schedule(static, chunk)
            for (int i = 0; i < N; i++) {
                a[i] = (b[i] + rows[i % R][i % 1000]) % 1000003;
                if (i % 1000 == 500)
                    dao_potential_checkpoint();
            }
#pragma omp single
            {
                uint64_t c = 0;
                for (int i = 0; i < N; i += 101)
                    c = c * 31 + (uint64_t)a[i];
                digest = (digest ^ c) * 1099511628211ull;
                if (r % 50 == 49 || r == rounds - 1)
                    printf("round %d a=%llu row=%lld\n", r + 1, (unsigned long long)c, (long long)rows[R - 1][999]);
            }
        }
    }
    int64_t s = 0;
#pragma omp parallel for schedule(static, 64) reduction(+ : s)
    for (int i = 0; i < N; i++) {
        s += a[i] * (i % 3);
        if (i % 1000 == 0)
            dao_potential_checkpoint();
    }
    printf("static_chunk: rounds=%d digest=%llu s=%lld\n", rounds, (unsigned long long)digest, (long long)s);
    return 0;
}
