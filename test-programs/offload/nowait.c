/* nowait.c -- a `target nowait` kernel in flight at a marker: the
 * checkpoint there is taken only once the kernel has finished (the runtime
 * waits for it, taskwait), so it holds the device data the kernel wrote;
 * the program's own taskwait follows the marker.
 * (Two `nowait` kernels ordered by `depend` outside a parallel region abort
 * in LLVM 19's libomp now and then, without dao: "Assertion failure at
 * kmp_tasking.cpp(4368): task_team != __null"; hence one.)
 * Argument: steps (default 120).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 4096
static double x[N], y[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 120;
    for (int i = 0; i < N; i++)
        x[i] = i % 11;
#pragma omp target enter data map(to: x) map(alloc: y)
    for (int it = 0; it < steps; it++) {
#pragma omp target teams distribute parallel for nowait
        for (int i = 0; i < N; i++)
            y[i] = 0.5 * x[i] + 0.5 * x[(i + 3) % N];
        dao_potential_checkpoint();
#pragma omp taskwait
#pragma omp target teams distribute parallel for
        for (int i = 0; i < N; i++)
            x[i] = y[i] + 0.001 * it;
        if (it % 20 == 19) {
#pragma omp target update from(x)
            double s = 0;
            for (int i = 0; i < N; i++)
                s += x[i] * (i % 4);
            printf("step %d: %.10e\n", it + 1, s);
        }
    }
#pragma omp target exit data map(from: x) map(release: y)
    double s = 0;
    for (int i = 0; i < N; i++)
        s += x[i];
    printf("final: %.10e\n", s);
    return 0;
}
