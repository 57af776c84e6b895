/* ptr_attach.c -- a struct's pointer member mapped with its pointee
 * (`map(tofrom: g.v[0:N])`): libomptarget attaches the device copy of the
 * pointer to the device copy of the data, a device address a restart cannot
 * give back. The first checkpoint stops the run with an error naming it
 * (tests/tests/offload.rs checks the message); never a wrong restart.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"
#define N 1024
struct grid { int n; double *v; };
static struct grid g;
int main(void) {
    g.n = N;
    g.v = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) g.v[i] = i;
#pragma omp target enter data map(to: g) map(to: g.v[0:N])
    for (int it = 0; it < 20; it++) {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < N; i++) g.v[i] += 1;
        dao_potential_checkpoint();
    }
#pragma omp target exit data map(from: g.v[0:N]) map(release: g)
    printf("%f\n", g.v[7]);
    return 0;
}
