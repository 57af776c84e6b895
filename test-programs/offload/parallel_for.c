/* parallel_for.c -- device liveness of `target parallel for` kernels
 * (issue #35): the kernel's host fallback forks its parallel region
 * directly (no teams), whose static worksharing loop covers the whole
 * iteration space.
 *
 * A `target data` region maps the state `u` (tofrom), a scratch array `w`
 * (to) and an output array `o` (alloc). Each step, right after the marker,
 * kernel 1 (`target parallel for`) rewrites all of `w` from `u`; kernel 2
 * rewrites `u` from `w` and all of `o`; every 10 steps `target update
 * from(o)` brings `o` back for a checksum. At the marker `w` and `o` are
 * dead on the device.
 *
 * Twin `-DSERIAL_READ`: kernel 1 is a `target` region whose serial code
 * reads `w[3]` (into `o[0]`) before its `parallel for` rewrites `w`: the
 * fallback is then more than the fork, and `w` must be kept (a kernel of
 * that shape reads every mapped copy).
 * A restart with DAO_DEAD=poison fills unsaved device copies with 0xff.
 * Argument: steps (default 120).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 8192
static double u[N], w[N], o[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 120;
    for (int i = 0; i < N; i++) {
        u[i] = (i % 23) * 0.125;
        w[i] = 1.0;
    }
#pragma omp target data map(tofrom: u) map(to: w) map(alloc: o)
    {
        for (int it = 0; it < steps; it++) {
            dao_potential_checkpoint();
#ifdef SERIAL_READ
#pragma omp target
            {
                double keep = w[3];
#pragma omp parallel for
                for (int i = 0; i < N; i++)
                    w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N];
                w[0] += 0.001 * keep;
            }
#else
#pragma omp target parallel for
            for (int i = 0; i < N; i++)
                w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N];
#endif
#pragma omp target parallel for
            for (int i = 0; i < N; i++) {
                u[i] = w[i] + 0.125 * w[(i + 7) % N] + 0.0001 * it;
                o[i] = w[i] * w[i] + 0.5;
            }
            if (it % 10 == 9) {
#pragma omp target update from(o)
                double s = 0;
                for (int i = 0; i < N; i++)
                    s += o[i] * (1 + i % 5);
                printf("step %d: %.17g\n", it + 1, s);
            }
        }
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += u[i];
    printf("final: %.17g\n", s);
    return 0;
}
