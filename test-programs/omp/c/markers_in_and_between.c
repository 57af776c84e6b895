/* markers_in_and_between.c -- markers inside parallel regions and between them.
 *
 * Exercises: per outer iteration, a `parallel` region with a worksharing
 * loop (marker in the body), serial code (marker), a combined `parallel for`
 * (marker in the body), more serial code (marker), and a third region whose
 * threads all reach a marker after the loop's barrier. A checkpoint may thus
 * be taken while the team is active or while only the master runs.
 *
 * Invariant: whichever marker the checkpoint is taken at, the shared arrays,
 * every active thread's frames and the master's serial frame are restored
 * byte for byte, so the output after a restart equals that of the
 * uninterrupted run.
 * Argument: number of outer iterations (default 1000; 40 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 120000

static int64_t a[N], b[N];

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    for (int i = 0; i < N; i++) {
        a[i] = i % 977;
        b[i] = (i * 7) % 1009;
    }
    uint64_t digest = 0;
    for (int it = 0; it < iters; it++) {
        int64_t mod = 1000003 + it;
#pragma omp parallel
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                a[i] = (a[i] * 31 + b[i]) % mod;
                if ((i & 4095) == 0)
                    dao_potential_checkpoint();
            }
        }
        dao_potential_checkpoint(); /* serial, between regions */
        int64_t a0 = a[0];
#pragma omp parallel for schedule(static)
        for (int i = 1; i < N; i++) {
            b[i] = (b[i] + a[i - 1] + a0) % 1009;
            if ((i & 4095) == 1)
                dao_potential_checkpoint();
        }
        b[0] = (b[0] + a[N - 1]) % 1009;
        dao_potential_checkpoint(); /* serial, between regions */
        int64_t s = 0;
#pragma omp parallel reduction(+ : s)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                s += a[i] ^ b[i];
            dao_potential_checkpoint(); /* every thread, after the barrier */
        }
        digest = (digest ^ (uint64_t)s) * 1099511628211ull;
        if (it % 125 == 124 || it == iters - 1)
            printf("iter %d s=%lld a=%lld b=%lld\n", it + 1, (long long)s, (long long)a[N / 2], (long long)b[N / 3]);
    }
    printf("markers_in_and_between: iters=%d digest=%llu\n", iters, (unsigned long long)digest);
    return 0;
}
