/* callees.c -- device liveness across functions (issue #35): the marker is
 * in `main`'s time loop and every kernel is launched by a function it
 * calls, the usual shape of real offload codes.
 *
 * A `target data` region maps the state `u` (tofrom), a scratch array `w`
 * and an output array `o` (both `alloc`). Each step `main` takes a
 * checkpoint, then calls `smooth()`, whose kernel rewrites all of `w` from
 * `u`, then `advance(it)`, whose first kernel rewrites `u` from `w` and
 * whose second writes all of `o` from `u`; every 10 steps `report()`
 * brings `o` to the host (`target update from`) and prints a checksum. At
 * the marker `w` and `o` are dead on the device: the calls' device
 * summaries say that `smooth` rewrites `w` before any device operation
 * reads it, and that `advance` rewrites `o` (and reads `u` and `w`).
 * Before such summaries a call of a function that launches kernels read
 * every mapped global, and nothing was dead at a marker in `main`.
 *
 * Twins:
 * - `-DREAD_SCRATCH`: `smooth`'s kernel also reads `w`, which is kept;
 * - `-DREPORT_FIRST`: `report()` runs before `smooth()` every 10 steps, on
 *   step 0 too: its `target update from(o)` reads `o`, which is kept; `w`
 *   stays dead (the update reads only the copies it names).
 * A restart with DAO_DEAD=poison fills unsaved device copies with 0xff.
 * Argument: steps (default 120).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 8192
static double u[N], w[N], o[N];

__attribute__((noinline)) static void smooth(void) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
#ifdef READ_SCRATCH
        w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N] + 0.001 * w[i];
#else
        w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N];
#endif
}

__attribute__((noinline)) static void advance(int it) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
        u[i] = w[i] + 0.125 * w[(i + 7) % N] + 0.0001 * it;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
        o[i] = u[i] * u[i] + 0.5;
}

__attribute__((noinline)) static void report(int it) {
#pragma omp target update from(o)
    double s = 0;
    for (int i = 0; i < N; i++)
        s += o[i] * (1 + i % 5);
    printf("step %d: %.17g\n", it, s);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 120;
    for (int i = 0; i < N; i++) {
        u[i] = (i % 23) * 0.125;
        w[i] = 1.0;
    }
#pragma omp target data map(tofrom: u) map(to: w) map(alloc: o)
    {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < N; i++)
            o[i] = 0.0;
        for (int it = 0; it < steps; it++) {
            dao_potential_checkpoint();
#ifdef REPORT_FIRST
            if (it % 10 == 0)
                report(it);
#endif
            smooth();
            advance(it);
#ifndef REPORT_FIRST
            if (it % 10 == 9)
                report(it + 1);
#endif
        }
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += u[i];
    printf("final: %.17g\n", s);
    return 0;
}
