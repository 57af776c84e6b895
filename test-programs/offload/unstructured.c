/* unstructured.c -- unstructured maps (`target enter/exit data`) of heap
 * arrays, a `map(alloc:)` scratch array, a reduction on the device, `target
 * update` both ways, a marker in a called function, and mappings whose
 * reference counts change during the run: `u` is mapped twice (enter data,
 * then a `target data` region around half of the steps: count 2 at some
 * markers, 1 at others), `w` is unmapped and mapped again every 25 steps
 * (absent from some checkpoints).
 * Argument: steps (default 150).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 2048

static void step(double *u, double *tmp, double *w, int it, double *norm) {
#pragma omp target teams distribute parallel for map(alloc: tmp[0:N]) map(alloc: u[0:N])
    for (int i = 0; i < N; i++)
        tmp[i] = 0.25 * (u[(i + N - 1) % N] + 2 * u[i] + u[(i + 1) % N]);
    dao_potential_checkpoint();
    double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(tofrom: s) map(alloc: tmp[0:N], u[0:N], w[0:N])
    for (int i = 0; i < N; i++) {
        u[i] = tmp[i] + 0.01 * w[i] + 1e-4 * it;
        s += u[i] * u[i];
    }
    *norm = s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 150;
    double *u = malloc(N * sizeof(double));
    double *tmp = malloc(N * sizeof(double));
    double *w = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        u[i] = (i % 13) - 6.0;
        w[i] = (i % 7) * 0.5;
    }
#pragma omp target enter data map(to: u[0:N]) map(alloc: tmp[0:N])
#pragma omp target enter data map(to: w[0:N])
    double norm = 0;
    for (int it = 0; it < steps; it++) {
        if (it % 2 == 0) {
#pragma omp target data map(tofrom: u[0:N])
            step(u, tmp, w, it, &norm);
        } else {
            step(u, tmp, w, it, &norm);
        }
        if (it % 25 == 24) {
            /* w changes on the host and goes back to the device: unmapped
             * (copied out), changed, mapped again */
#pragma omp target exit data map(from: w[0:N])
            for (int i = 0; i < N; i++)
                w[i] = 0.5 * w[i] + (it % 3);
#pragma omp target enter data map(to: w[0:N])
        }
        if (it % 10 == 9) {
#pragma omp target update from(u[0:N])
            /* the host changes one element and sends it back */
            u[it % N] += 1.0;
#pragma omp target update to(u[it % N:1])
            printf("step %d: norm %.10e u[5] %.10e\n", it + 1, norm, u[5]);
        }
    }
#pragma omp target exit data map(from: u[0:N]) map(delete: tmp[0:N], w[0:N])
    double s = 0;
    for (int i = 0; i < N; i++)
        s += u[i];
    printf("final: %.10e\n", s);
    free(u);
    free(tmp);
    free(w);
    return 0;
}
