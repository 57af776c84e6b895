/* param_read.c -- device liveness sees a kernel's reads through a parameter
 * of the function that launches it (issue #35).
 *
 * A `target data` region in `main` maps the state `u` (tofrom) and an array
 * `w` (to). Each step `main` calls `step(w, it)`, which takes a checkpoint
 * first and then launches two kernels: kernel 1 reads `w` through its
 * parameter `p` and rewrites `u`, kernel 2 rewrites all of `w` by name.
 * Back in `main`, kernel 3 rewrites all of `w` again. So `w`'s device copy
 * is live at the marker (kernel 1 reads it through `p`), although in both
 * frames the next kernel that names `w` rewrites it whole: a device view
 * that took `p` for "no global" found `w` dead in `step` (kernel 2) and
 * after the call in `main` (kernel 3), and the restart computed with a
 * device copy that was never saved (`nan`s with DAO_DEAD=poison, garbage
 * without).
 *
 * Twin `-DBY_NAME`: kernel 1 reads `u` only (not `p`): then `w` is dead in
 * both frames and its device copy is not saved.
 * `step` has external linkage so that clang cannot replace `p` by `w`.
 * Argument: steps (default 60).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 8192
static double u[N], w[N];

__attribute__((noinline)) void step(double *p, int it) {
    dao_potential_checkpoint();
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
#ifdef BY_NAME
        u[i] = 0.5 * u[i] + 0.25 + 0.0001 * it;
#else
        u[i] = 0.5 * p[i] + 0.25 * u[i] + 0.0001 * it;
#endif
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
        w[i] = 1.0 + 0.5 * u[(i + 5) % N];
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    for (int i = 0; i < N; i++) {
        u[i] = (i % 23) * 0.125;
        w[i] = 1.0;
    }
#pragma omp target data map(tofrom: u) map(to: w)
    {
        for (int it = 0; it < steps; it++) {
            step(w, it);
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++)
                w[i] = 0.75 * u[(i + 3) % N] + 0.125;
            if (it % 10 == 9) {
#pragma omp target update from(u)
                double s = 0;
                for (int i = 0; i < N; i++)
                    s += u[i] * (1 + i % 7);
                printf("step %d: %.17g\n", it + 1, s);
            }
        }
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += u[i];
    printf("final: %.17g\n", s);
    return 0;
}
