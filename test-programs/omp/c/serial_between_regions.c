/* serial_between_regions.c -- several parallel regions with serial code between them.
 *
 * Exercises: per phase, three separate `parallel for` regions (a map, a
 * neighbour smoothing and an integer classification) with serial code
 * between them (a serial prefix scan, a serial fix-up and printing). The
 * worker threads sit in the runtime's pool between regions.
 * Markers: only in the serial code between the regions (three per phase,
 * one of them inside a serial loop).
 *
 * Invariant: the shared arrays and the master's frame are restored byte for
 * byte (and the restarted program forks fresh regions after the marker), so
 * the output after a restart equals that of the uninterrupted run.
 * Argument: number of phases (default 1500; 50 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 100000

static double x[N], y[N];
static int64_t cls[N], prefix[N + 1];

int main(int argc, char **argv) {
    int phases = argc > 1 ? atoi(argv[1]) : 1500;
    for (int i = 0; i < N; i++)
        x[i] = (double)(i % 101) / 101.0;
    uint64_t digest = 0;
    for (int p = 0; p < phases; p++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < N; i++)
            y[i] = x[i] * (1.0 - x[i]) * 3.7 + 1e-3 * (double)(p % 3);
        dao_potential_checkpoint();
        /* serial fix-up of the boundary */
        y[0] = y[1];
        y[N - 1] = y[N - 2];
#pragma omp parallel for schedule(static)
        for (int i = 1; i < N - 1; i++)
            x[i] = 0.25 * y[i - 1] + 0.5 * y[i] + 0.25 * y[i + 1];
        x[0] = y[0];
        x[N - 1] = y[N - 1];
        dao_potential_checkpoint();
#pragma omp parallel for schedule(static)
        for (int i = 0; i < N; i++)
            cls[i] = (int64_t)(x[i] * 16.0);
        /* serial prefix scan, with a marker inside the serial loop */
        prefix[0] = 0;
        for (int i = 0; i < N; i++) {
            prefix[i + 1] = prefix[i] + cls[i];
            if (i % 25000 == 24999)
                dao_potential_checkpoint();
        }
        digest = digest * 1099511628211ull + (uint64_t)prefix[N];
        if (p % 250 == 249 || p == phases - 1)
            printf("phase %d prefix=%lld x=%a mid=%lld\n", p + 1, (long long)prefix[N], x[N / 3],
                   (long long)prefix[N / 2]);
    }
    printf("serial_between_regions: phases=%d digest=%llu x0=%a\n", phases, (unsigned long long)digest, x[0]);
    return 0;
}
