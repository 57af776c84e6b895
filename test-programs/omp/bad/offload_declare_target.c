/* offload_declare_target.c -- a `declare target` variable written by a
 * kernel: its device copy lives in the device image, outside the mapped
 * ranges a checkpoint saves.
 * dao-flags: -fopenmp-targets=x86_64-pc-linux-gnu
 *
 * Must be REJECTED (issue #35), naming the variable at the kernel that
 * uses it.
 */
#include <stdio.h>
#include "dao.h"
#define N 1024
#pragma omp declare target
double acc[N];
#pragma omp end declare target
int main(void) {
    for (int it = 0; it < 10; it++) {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < N; i++)
            acc[i] += i; /* dao-expect-error */
        dao_potential_checkpoint();
    }
#pragma omp target update from(acc)
    printf("%f\n", acc[7]);
    return 0;
}
