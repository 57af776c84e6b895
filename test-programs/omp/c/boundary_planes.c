/* boundary_planes.c -- the shape of NPB 3.0 BT's `lhs` (issue #33): an
 * array written whole once before the step loop (`lhsinit`), whose
 * interior the first worksharing loop of every step rewrites (`lhsx`: per
 * row j, k of the grid, a loop over the Jacobians, then a sibling loop
 * writing the interior cells i = 1 .. n-2), while its boundary faces keep
 * their values from step to step (the solve reads face i = 0 and updates
 * it, and reads face i = n-1). The extents come from a global
 * (`grid_points`, from the command line), so the interior is a box whose
 * bytes are known only at run time: the pass describes it (a write box
 * with runtime-checked conditions), the runtime evaluates it at the
 * checkpoint with the extents' values and leaves its bytes out; the faces,
 * the edges and the padding beyond the extents are not rewritten, and of
 * them only what some read may touch is saved (the read boxes, evaluated
 * the same way): the faces.
 *
 * Negative twins, compiled with:
 * -DREAD_INTERIOR  the step begins by reading one interior cell of `lhs`
 *                  before `lhsx` rewrites it: the interior must be kept;
 * -DSHORT_ROWS     `lhsx` writes the interior only up to i = n-3: cell
 *                  n-2 carries over from the step before and the solve
 *                  reads it: that plane must be kept (the box is smaller).
 *
 * Arguments: steps (default 20), extents (default 24; at most 25).
 * Output: one checksum line per step.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 25

static int grid_points[3];
static double u[N][N][N][5];
static double lhs[N][N][N][3][5];
static double jac[N][N][N][5];

#ifdef SHORT_ROWS
#define SHORT 1
#else
#define SHORT 0
#endif

static void lhsinit(void) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                for (int b = 0; b < 3; b++)
                    for (int m = 0; m < 5; m++)
                        lhs[i][j][k][b][m] = 0.01 * ((i + 2 * j + 3 * k + b + m) % 11);
}

/* per row: the Jacobians of every cell, then the interior of lhs */
static void lhsx(void) {
#pragma omp for
    for (int j = 1; j < grid_points[1] - 1; j++)
        for (int k = 1; k < grid_points[2] - 1; k++) {
            for (int i = 0; i < grid_points[0]; i++)
                for (int m = 0; m < 5; m++)
                    jac[i][j][k][m] = 0.5 * u[i][j][k][m] + 0.1 * m;
            for (int i = 1; i < grid_points[0] - 1 - SHORT; i++)
                for (int b = 0; b < 3; b++)
                    for (int m = 0; m < 5; m++)
                        lhs[i][j][k][b][m] = 0.25 * jac[i - 1 + b][j][k][m];
        }
}

static void solve(void) {
    int n = grid_points[0];
#pragma omp for
    for (int j = 1; j < grid_points[1] - 1; j++)
        for (int k = 1; k < grid_points[2] - 1; k++) {
            /* face i = 0: read and updated, carried to the next step */
            for (int m = 0; m < 5; m++)
                lhs[0][j][k][1][m] = 0.5 * lhs[0][j][k][1][m] + 0.01 * u[0][j][k][m];
            for (int i = 1; i < n - 1; i++)
                for (int m = 0; m < 5; m++)
                    u[i][j][k][m] += 1e-3 * (lhs[i][j][k][0][m] + lhs[i][j][k][1][m] - lhs[i][j][k][2][m])
                                     - 1e-4 * lhs[i - 1][j][k][1][m];
            /* face i = n-1: read */
            for (int m = 0; m < 5; m++)
                u[n - 1][j][k][m] += 1e-3 * lhs[n - 1][j][k][0][m];
        }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int n = argc > 2 ? atoi(argv[2]) : 24;
    if (n < 4 || n > N) {
        printf("extents out of range\n");
        return 1;
    }
    grid_points[0] = grid_points[1] = grid_points[2] = n;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                for (int m = 0; m < 5; m++)
                    u[i][j][k][m] = 1.0 + 0.01 * ((i + 2 * j + 3 * k + m) % 7);
    lhsinit();
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: lhs's interior dead */
        double s = 0.0;
#ifdef READ_INTERIOR
        s += lhs[2][2][2][1][3];
#endif
#pragma omp parallel
        {
            lhsx();
            solve();
        }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < N; k++)
                    s += u[i][j][k][0] * (1 + (i + j + k) % 3) + u[i][j][k][4] + lhs[0][j][k][1][2];
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
