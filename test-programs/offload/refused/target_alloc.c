/* target_alloc.c -- device memory from omp_target_alloc, live at a marker:
 * the program holds its device address, which a restart cannot give back.
 * The first checkpoint stops the run with an error naming it
 * (tests/tests/offload.rs checks the message).
 */
#include <stdio.h>
#include <omp.h>
#include "dao.h"
#define N 1024
int main(void) {
    int dev = omp_get_default_device();
    double *d = omp_target_alloc(N * sizeof(double), dev);
    for (int it = 0; it < 20; it++) {
#pragma omp target teams distribute parallel for is_device_ptr(d)
        for (int i = 0; i < N; i++) d[i] = i + it;
        dao_potential_checkpoint();
    }
    double h[N];
    omp_target_memcpy(h, d, sizeof h, 0, 0, omp_get_initial_device(), dev);
    omp_target_free(d, dev);
    printf("%f\n", h[7]);
    return 0;
}
