/* jacobi2d.c -- 2-D Jacobi stencil on static arrays, region around the sweeps.
 *
 * Exercises: two static `double a[N][M]` grids (in .bss), a `#pragma omp
 * parallel` region enclosing all the sweeps, each sweep a `#pragma omp for`
 * 5-point stencil (a->b, then b->a) with a reduction(max:) of the update
 * (exact, so independent of the thread count); a `single` prints.
 * Markers: inside the region, after each sweep's implicit barrier (executed
 * by every thread), and inside the row loop every 64 rows.
 *
 * Invariant: both grids and every thread's frame are restored byte for byte,
 * so the printed grid values and maxima after a restart equal those of the
 * uninterrupted run.
 * Argument: number of sweep pairs (default 2000; 50 gives ~0.1 s).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 258
#define M 300

static double a[N][M], b[N][M];

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            a[i][j] = (i == 0 || j == 0) ? 1.0 : (i == N - 1 || j == M - 1) ? -0.5 : (double)((i * j) % 11) / 11.0;
            b[i][j] = a[i][j];
        }
    double dmax = 0.0;
#pragma omp parallel
    {
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (int i = 1; i < N - 1; i++) {
                for (int j = 1; j < M - 1; j++)
                    b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
                if (i % 64 == 0)
                    dao_potential_checkpoint();
            }
            dao_potential_checkpoint(); /* after the implicit barrier of sweep a->b */
#pragma omp for schedule(static) reduction(max : dmax)
            for (int i = 1; i < N - 1; i++)
                for (int j = 1; j < M - 1; j++) {
                    double v = 0.25 * (b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]);
                    dmax = fmax(dmax, fabs(v - a[i][j]));
                    a[i][j] = v;
                }
            dao_potential_checkpoint(); /* after the implicit barrier of sweep b->a */
#pragma omp single
            {
                if (it % 250 == 249 || it == iters - 1)
                    printf("iter %d dmax=%a a=%a %a\n", it + 1, dmax, a[N / 2][M / 2], a[N / 4][3 * M / 4]);
                dmax = 0.0;
            }
        }
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            s += a[i][j] * (double)(1 + (i + j) % 3);
    printf("jacobi2d: iters=%d sum=%.17g corner=%.17g\n", iters, s, a[1][1]);
    return 0;
}
