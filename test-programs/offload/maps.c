/* maps.c -- the program of issue #35: `target enter data` of a heap array,
 * a `target data` region with `tofrom` and `alloc` maps around the time
 * loop, a marker on the host between two `target teams distribute parallel
 * for` kernels, `target update from` every 16 steps (and `target update to`
 * of a coefficient the host changes every 40 steps).
 *
 * The device copies of `a`, `b` and `c` differ from the host's between the
 * updates: a restart that put back the host's data and not the device's
 * would go on with stale device data and print other checksums.
 * Argument: steps (default 200).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 4096
static double a[N], b[N];
static double coef[4] = {0.5, 0.25, 0.125, 1.0};

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 200;
    double *c = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        a[i] = (i % 17) * 0.1;
        c[i] = 1.0 / (1 + i % 5);
    }
#pragma omp target enter data map(to: c[0:N]) map(to: coef)
#pragma omp target data map(tofrom: a) map(alloc: b)
    {
        for (int it = 0; it < steps; it++) {
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++)
                b[i] = coef[0] * a[i] + coef[1] * a[(i + 1) % N] + coef[2] * c[i];
            dao_potential_checkpoint();
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++) {
                a[i] = b[i] * coef[3] + 0.001 * it;
                c[i] = 0.5 * (c[i] + b[(i + 7) % N]);
            }
            if (it % 16 == 15) {
#pragma omp target update from(a)
                double s = 0;
                for (int i = 0; i < N; i++)
                    s += a[i] * (1 + i % 3);
                printf("step %d: %.10e\n", it + 1, s);
            }
            if (it % 40 == 39) {
                coef[3] = 1.0 - 0.01 * (it / 40 + 1);
#pragma omp target update to(coef)
            }
        }
    }
#pragma omp target exit data map(from: c[0:N]) map(release: coef)
    double s = 0;
    for (int i = 0; i < N; i++)
        s += a[i] + c[i];
    printf("final: %.10e\n", s);
    free(c);
    return 0;
}
