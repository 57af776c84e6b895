/* offload_marker_in_target.c -- a marker inside a `target` region: a
 * kernel cannot be interrupted, checkpoints are taken between kernels.
 * dao-flags: -fopenmp-targets=x86_64-pc-linux-gnu
 *
 * Must be REJECTED (issue #35) at the marker (by the device half of the
 * compilation).
 */
#include <stdio.h>
#include "dao.h"
#define N 1024
static double a[N];
int main(void) {
#pragma omp target map(tofrom: a)
    for (int it = 0; it < 10; it++) {
        for (int i = 0; i < N; i++)
            a[i] += i;
        dao_potential_checkpoint(); /* dao-expect-error */
    }
    printf("%f\n", a[7]);
    return 0;
}
