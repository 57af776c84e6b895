/* devices.c -- one time loop over every offload device (issue #35: several
 * devices). The host offload plugin offers four: each gets its own slice
 * of the state (`target enter data ... device(d)`), a kernel per step on
 * its slice, and a scratch array mapped `alloc` on it alone; the slices
 * meet on the host every 10 steps (`target update from ... device(d)`),
 * and a coefficient changed by the host goes to every device every 25
 * steps (`target update to ... device(d)`). A marker on the host between
 * the devices' kernels.
 *
 * Each device's copies differ from the host's between the updates: a
 * restart that put a slice back on the wrong device, or on device 0 only,
 * would compute with stale or missing data and print other checksums.
 * Argument: steps (default 120).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 2048
#define MAXDEV 4
static double u[MAXDEV][N];
static double coef = 0.5;

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 120;
    int nd = omp_get_num_devices();
    if (nd > MAXDEV)
        nd = MAXDEV;
    if (nd < 1) {
        printf("no offload device\n");
        return 1;
    }
    double *scratch[MAXDEV];
    for (int d = 0; d < nd; d++) {
        scratch[d] = malloc(N * sizeof(double));
        for (int i = 0; i < N; i++)
            u[d][i] = (i % (7 + d)) * 0.01 + d;
        double *ud = u[d], *sd = scratch[d];
#pragma omp target enter data device(d) map(to: ud[0:N], coef) map(alloc: sd[0:N])
    }
    for (int it = 0; it < steps; it++) {
        for (int d = 0; d < nd; d++) {
            double *ud = u[d], *sd = scratch[d];
#pragma omp target teams distribute parallel for device(d)
            for (int i = 0; i < N; i++)
                sd[i] = coef * ud[i] + 0.25 * ud[(i + 1 + d) % N];
#pragma omp target teams distribute parallel for device(d)
            for (int i = 0; i < N; i++)
                ud[i] = 0.5 * (ud[i] + sd[(i + 3) % N]) + 0.001 * (it + d);
            if (d == nd / 2)
                dao_potential_checkpoint();
        }
        if (it % 10 == 9) {
            double s = 0;
            for (int d = 0; d < nd; d++) {
                double *ud = u[d];
#pragma omp target update from(ud[0:N]) device(d)
                for (int i = 0; i < N; i++)
                    s += ud[i] * (1 + (i + d) % 3);
            }
            printf("step %d: %.10e\n", it + 1, s);
        }
        if (it % 25 == 24) {
            coef = 0.5 + 0.01 * (it / 25 + 1);
            for (int d = 0; d < nd; d++) {
#pragma omp target update to(coef) device(d)
            }
        }
    }
    double s = 0;
    for (int d = 0; d < nd; d++) {
        double *ud = u[d], *sd = scratch[d];
#pragma omp target exit data device(d) map(from: ud[0:N]) map(release: coef) map(delete: sd[0:N])
        for (int i = 0; i < N; i++)
            s += ud[i] * (d + 1);
        free(scratch[d]);
    }
    printf("devices %d final: %.10e\n", nd, s);
    return 0;
}
