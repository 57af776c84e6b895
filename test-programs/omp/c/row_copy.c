/* row_copy.c -- the shapes of NPB 3.0 SP's `compute_rhs` and `z_solve`
 * at -O2/-O3 (issue #33). The arrays are padded (N = 37 for extents up to
 * 36, `IMAX/2*2+1`) and every loop is bounded by `grid_points`, read from
 * the command line, so counts are known only at run time:
 *
 * - `rhs = forcing` per component m, a worksharing loop inside `for (m)`,
 *   and `lhs` zeroed: clang turns each row into one memcpy (memset) of
 *   8 * grid_points[2] bytes, a length known only at run time; the
 *   worksharing loop sits under its team's `lb > ub` test and a guard
 *   `grid_points[1] > 0 && grid_points[2] > 0` (a select of two tests);
 * - a stencil over k = 1 .. n-2, and a back substitution at plane
 *   i = n-2 reading plane n-1, whose vectorised k loop checks for overlap
 *   at run time: its scalar copy, which starts where the vector loop
 *   stopped (not at a constant), LLVM unrolls in the prologue form;
 * - a back substitution at plane k = n-2 over rows j = 1 .. n-2, unrolled
 *   by two with the guard `n - 1 == 2` on the 32-bit value and the count
 *   zext(n - 1) - 1.
 *
 * At the top of the step loop `rhs` and `lhs` are dead (rewritten before
 * any read; their padding is never read), `forcing` and `u` are live
 * (their padding is never read either).
 *
 * Negative twins, compiled with:
 * -DSHORT_COPY  the copy stops one element short of each row: the last
 *               element of every row of `rhs` stays live;
 * -DREAD_FIRST  the step reads `rhs` before the copy: `rhs` is live.
 *
 * Arguments: steps (default 20), extents (default 30; 6 to 36).
 * Output: one checksum line per step.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 37

static int grid_points[3];
static double u[5][N][N][N], rhs[5][N][N][N], forcing[5][N][N][N];
static double lhs[N][N][N];

#ifdef SHORT_COPY
#define COPY_END (grid_points[2] - 1)
#else
#define COPY_END grid_points[2]
#endif

static void step_once(int step, double *first) {
#ifdef READ_FIRST
#pragma omp single
    *first = rhs[1][2][3][4] + rhs[4][grid_points[0] - 1][1][grid_points[2] - 1];
#else
    (void)first;
#endif
    for (int m = 0; m < 5; m++) {
#pragma omp for
        for (int i = 0; i <= grid_points[0] - 1; i++)
            for (int j = 0; j <= grid_points[1] - 1; j++)
                for (int k = 0; k < COPY_END; k++)
                    rhs[m][i][j][k] = forcing[m][i][j][k];
    }
#pragma omp for
    for (int i = 0; i <= grid_points[0] - 1; i++)
        for (int j = 0; j <= grid_points[1] - 1; j++)
            for (int k = 0; k <= grid_points[2] - 1; k++)
                lhs[i][j][k] = 0.0;
    for (int m = 0; m < 5; m++) {
#pragma omp for
        for (int i = 1; i <= grid_points[0] - 2; i++)
            for (int j = 1; j <= grid_points[1] - 2; j++)
                for (int k = 1; k <= grid_points[2] - 2; k++) {
                    rhs[m][i][j][k] += 0.1 * (u[m][i][j][k + 1] - 2.0 * u[m][i][j][k] + u[m][i][j][k - 1]);
                    lhs[i][j][k] += 0.01 * u[m][i][j][k];
                }
    }
    /* back substitution at the far plane i = n-2 (SP's x_solve): row i1
     * = n-1 of the same array is read, at a distance the compiler cannot
     * bound, so the vectorised k loop checks for overlap at run time and
     * its scalar copy, which starts where the vector loop stopped (not at
     * a constant), is unrolled in the prologue form */
    int ib = grid_points[0] - 2, ib1 = grid_points[0] - 1;
    for (int m = 0; m < 3; m++) {
#pragma omp for
        for (int j = 1; j <= grid_points[1] - 2; j++)
            for (int kk = 1; kk <= grid_points[2] - 2; kk++)
                rhs[m][ib][j][kk] = rhs[m][ib][j][kk] - lhs[ib][j][kk] * rhs[m][ib1][j][kk];
    }
    int k = grid_points[2] - 2, k1 = grid_points[2] - 1;
    for (int m = 0; m < 5; m++) {
#pragma omp for
        for (int i = 1; i <= grid_points[0] - 2; i++)
            for (int j = 1; j <= grid_points[1] - 2; j++)
                rhs[m][i][j][k] = rhs[m][i][j][k] - lhs[i][j][k] * rhs[m][i][j][k1];
    }
    for (int m = 0; m < 5; m++) {
#pragma omp for
        for (int i = 1; i <= grid_points[0] - 2; i++)
            for (int j = 1; j <= grid_points[1] - 2; j++)
                for (int kk = 1; kk <= grid_points[2] - 2; kk++)
                    u[m][i][j][kk] += 0.05 * rhs[m][i][j][kk] + 1e-3 * step;
    }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    /* read as NPB reads them (fscanf into the array: one global, not
     * three scalars) */
    grid_points[0] = 30;
    if (argc > 2)
        sscanf(argv[2], "%d", &grid_points[0]);
    int n = grid_points[0];
    if (n < 6 || n > N - 1) {
        printf("extents out of range\n");
        return 1;
    }
    grid_points[1] = grid_points[2] = n;
    for (int m = 0; m < 5; m++)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < N; k++) {
                    u[m][i][j][k] = 1.0 + 0.01 * ((m + i + 2 * j + 3 * k) % 7);
                    forcing[m][i][j][k] = 0.001 * ((m + 3 * i + j + k) % 11);
                    rhs[m][i][j][k] = 0.5;
                }
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: rhs and lhs dead */
        double first = 0.0;
#pragma omp parallel
        step_once(step, &first);
        double s = first;
        for (int m = 0; m < 5; m++)
            for (int i = 0; i < grid_points[0]; i++)
                for (int j = 0; j < grid_points[1]; j++)
                    for (int k = 0; k < grid_points[2]; k++)
                        s += u[m][i][j][k] * (1 + (i + j + k) % 3) + 0.01 * rhs[m][i][j][k];
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
