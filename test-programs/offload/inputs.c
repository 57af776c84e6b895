/* inputs.c -- device copies that are the host's bytes. An input table `w`
 * (a static global, 128 KiB) and one on the heap (`k`, 64 KiB) are mapped
 * `to` and no kernel writes them; the state `u` (tofrom) is advanced by a
 * kernel each step. At the marker the device copies of `w` and `k` hold
 * exactly the bytes the checkpoint saves of the host (the host reads both
 * at the end): they are stored once, as the host's (format 10), and a
 * restart copies them from the restored host memory to the devices.
 *
 * -DHOST_WRITES: every 50 steps the host changes its own copy of `w`
 * without a `target update`: the kernels go on with the old table, the
 * device copy differs from the host's and is saved with its own bytes
 * (a restart that copied the host's would compute with the new table).
 * -DDEVICE_WRITES: a second kernel also rewrites `k` on the device, whose
 * host copy then stays as it was: `k`'s device copy is saved with its own
 * bytes.
 * Argument: steps (default 300).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 16384
#define M 8192
static double w[N];
static double u[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    double *k = malloc(M * sizeof(double));
    for (int i = 0; i < N; i++) {
        w[i] = 1.0 / (1 + i % 7);
        u[i] = (i % 13) * 0.01;
    }
    for (int i = 0; i < M; i++)
        k[i] = 0.5 + (i % 3) * 0.1;
#pragma omp target data map(to: w, k[0:M]) map(tofrom: u)
    {
        for (int it = 0; it < steps; it++) {
            dao_potential_checkpoint();
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++)
                u[i] = 0.5 * u[i] + 0.25 * w[i] * k[i % M] + 0.001 * it;
#ifdef DEVICE_WRITES
#pragma omp target teams distribute parallel for
            for (int i = 0; i < M; i++)
                k[i] = 0.999 * k[i] + 1e-4 * u[i];
#endif
#ifdef HOST_WRITES
            if (it % 50 == 49)
                for (int i = 0; i < N; i++)
                    w[i] += 0.5;
#endif
            if (it % 25 == 24) {
#pragma omp target update from(u)
                double s = 0;
                for (int i = 0; i < N; i++)
                    s += u[i] * (1 + i % 3);
                printf("step %d: %.10e\n", it + 1, s);
            }
        }
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += u[i] + w[i];
    for (int i = 0; i < M; i++)
        s += k[i];
    printf("final: %.10e\n", s);
    free(k);
    return 0;
}
