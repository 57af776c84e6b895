/* heap_device.c -- device liveness of heap arrays (issue #35): the shape
 * of dead_device.c with its three arrays allocated by `main` (`malloc` of a
 * size known at compile time), as real offload codes and Jia's programs
 * keep them. The state `u` is mapped tofrom, the scratch `w` to, the
 * output `o` alloc (array sections `[0:N]`). Each step, right after the
 * marker, kernel 1 writes all of `w` from `u`; kernel 2 writes all of `u`
 * and `o` from `w`; every 10 steps `target update from(o)` brings `o` to
 * the host, which prints a checksum of it. At the marker the device copies
 * of `w` and `o` are dead (the next kernels rewrite them whole before any
 * device operation reads them), `u`'s is live; the pass follows the three
 * blocks one by one (heap objects: their addresses reach only the module's
 * code, the offload argument arrays and the kernels' host fallbacks) and,
 * at -O2, sees the kernels' writes in the host fallbacks (docs/design.md
 * section 21). At -O0 it keeps everything.
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

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 120;
    double *u = malloc(N * sizeof(double));
    double *w = malloc(N * sizeof(double));
    double *o = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        u[i] = (i % 23) * 0.125;
        w[i] = 1.0;
    }
#pragma omp target data map(tofrom: u[0:N]) map(to: w[0:N]) map(alloc: o[0:N])
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
#pragma omp target update from(o[0:N])
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
    free(u);
    free(w);
    free(o);
    return 0;
}
