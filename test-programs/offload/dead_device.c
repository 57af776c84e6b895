/* dead_device.c -- device liveness (issue #35): device copies that the next
 * kernel rewrites whole before any device operation reads them are dead at
 * the marker, and a checkpoint neither copies them back nor saves them.
 *
 * A `target data` region maps the state `u` (tofrom), a scratch array `w`
 * and an output array `o` (both `alloc`: their device copies are all there
 * is of them). Each step, right after the marker, kernel 1 (`target teams
 * distribute parallel for`) writes all of `w` from `u`; kernel 2 writes all
 * of `u` from `w` and all of `o` from `w`; every 10 steps `target update
 * from(o)` brings `o` to the host, which prints a checksum of it. At the
 * marker `w` (rewritten by kernel 1) and `o` (rewritten by kernel 2, which
 * reads neither) are dead on the device; `u` is live (kernel 1 reads it).
 * At -O2 the pass sees that from the kernels' host fallbacks; at -O0 it
 * keeps everything (docs/design.md section 21).
 *
 * Twins that must keep `w`:
 * - `-DREAD_SCRATCH`: kernel 1 also reads `w` (each element before
 *   rewriting it);
 * - `-DSHORT_WRITE`: kernel 1 leaves `w[0]` unwritten, and kernel 2 reads
 *   it: `w[0]` carries a value from step to step.
 * A restart with `DAO_DEAD=poison` fills unsaved device copies with 0xff:
 * a device copy wrongly found dead prints `nan`s.
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
#ifdef SHORT_WRITE
#pragma omp target teams distribute parallel for
            for (int i = 1; i < N; i++)
                w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N];
#elif defined(READ_SCRATCH)
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++)
                w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N] + 0.001 * w[i];
#else
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++)
                w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N];
#endif
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++) {
                u[i] = w[i] + 0.125 * w[(i + 7) % N] + 0.0001 * it;
                o[i] = w[i] * w[i] + w[0];
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
