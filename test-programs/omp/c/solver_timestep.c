/* solver_timestep.c -- an iterative solver with the region around the time-step loop.
 *
 * Exercises: one `#pragma omp parallel` region enclosing the whole
 * time-step loop; per step two `#pragma omp for` loops (a Jacobi update of a
 * diagonally dominant pentadiagonal system, then a copy-back with a
 * reduction(max:) of the change into a shared variable), a `#pragma omp
 * master` block that prints, an explicit `#pragma omp barrier`, a `single`
 * resetting the shared maximum, and a convergence test every thread
 * evaluates identically (a data-dependent exit from the step loop).
 * Markers: once per time step, after the explicit barrier (never inside the
 * master or single blocks).
 *
 * Invariant: the shared vectors, the shared maximum and every thread's frame
 * (its step counter, loop state) are restored byte for byte, so the output
 * after a restart equals that of the uninterrupted run (the maxima are exact,
 * so the step count at convergence does not depend on the thread count).
 * Argument: number of unknowns / 1000 (default 400; 40 gives ~0.1 s).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define MAXSTEPS 2000

static double x[1000000 + 4], xn[1000000 + 4], rhs[1000000 + 4];

int main(int argc, char **argv) {
    int k = argc > 1 ? atoi(argv[1]) : 400;
    if (k < 1)
        k = 1;
    if (k > 1000)
        k = 1000;
    int n = k * 1000;
    for (int i = 0; i < n + 4; i++) {
        rhs[i] = (double)((i * 13) % 17) - 8.0;
        x[i] = 0.0;
    }
    double dmax = 0.0, tol = 1e-13;
    int done_at = -1;
#pragma omp parallel
    {
        for (int step = 1; step <= MAXSTEPS; step++) {
            /* unknowns 2..n+1, zero halo of two on each side */
#pragma omp for schedule(static)
            for (int i = 2; i < n + 2; i++)
                xn[i] = (rhs[i] + 1.5 * (x[i - 1] + x[i + 1]) - 0.5 * (x[i - 2] + x[i + 2])) / 4.4;
#pragma omp for schedule(static) reduction(max : dmax)
            for (int i = 2; i < n + 2; i++) {
                dmax = fmax(dmax, fabs(xn[i] - x[i]));
                x[i] = xn[i];
            }
            int converged = dmax < tol;
#pragma omp master
            {
                if (step % 50 == 0 || step == 1 || converged)
                    printf("step %d dmax=%a x=%a %a\n", step, dmax, x[n / 2], x[3]);
                if (converged)
                    done_at = step;
            }
#pragma omp barrier
            dao_potential_checkpoint();
#pragma omp single
            dmax = 0.0;
            if (converged)
                break;
        }
    }
    double s = 0.0;
    for (int i = 0; i < n + 4; i++)
        s += x[i] * (double)(1 + i % 5);
    printf("solver_timestep: n=%d converged_at=%d sum=%.17g\n", n, done_at, s);
    return 0;
}
