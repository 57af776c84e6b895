/* offload_usm.c -- `requires unified_shared_memory`: host and device share
 * memory, which a checkpoint cannot tell apart from device copies.
 * dao-flags: -fopenmp-targets=x86_64-pc-linux-gnu
 *
 * Must be REJECTED (issue #35); the diagnostic names the first offload
 * construct (the requirement itself has no location).
 */
#include <stdio.h>
#include "dao.h"
#pragma omp requires unified_shared_memory
#define N 1024
static double a[N];
int main(void) {
    for (int it = 0; it < 10; it++) {
#pragma omp target teams distribute parallel for /* dao-expect-error */
        for (int i = 0; i < N; i++)
            a[i] += i;
        dao_potential_checkpoint();
    }
    printf("%f\n", a[7]);
    return 0;
}
