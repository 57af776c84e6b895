/* offload_target.c -- OpenMP offload with a marker between two kernels.
 * dao-flags: -fopenmp-targets=x86_64-pc-linux-gnu
 *
 * Must be REJECTED until device data is checkpointed (issue #35): the
 * device copies of `a` and `b` would not be saved, and a restart would go
 * on with the host's stale copies, silently wrong (issue #31). The target
 * regions call libomptarget (`__tgt_target_data_begin_mapper`,
 * `__tgt_target_kernel`), which clang leaves without a debug location: the
 * diagnostic takes the line from the construct's ident_t.
 */
#include <stdio.h>
#include "dao.h"
#define N 4096
static double a[N], b[N];
int main(void) {
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp target data map(tofrom: a) map(alloc: b) /* dao-expect-error */
    for (int it = 0; it < 50; it++) {
#pragma omp target teams distribute parallel for /* dao-expect-error */
        for (int i = 0; i < N; i++)
            b[i] = a[i] * 0.5 + 1;
        dao_potential_checkpoint();
#pragma omp target teams distribute parallel for /* dao-expect-error */
        for (int i = 0; i < N; i++)
            a[i] = b[i] + 0.25;
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += a[i];
    printf("%f\n", s);
    return 0;
}
