/* far_face.c -- the shape of NPB 3.0 BT's `x_solve_cell` (issue #33):
 * `lhs` holds three 5x5 blocks per cell (AA, BB, CC: 600 bytes), is
 * written whole once before the step loop (`lhsinit`), and every step
 * rewrites its interior (`lhsx`, cells i = 1 .. n-2). The solve then
 * reads face i = 0's BB and CC (and updates BB), runs a sequential loop
 * `for (i = 1; i < isize; i++)` with a worksharing loop inside, and after
 * it reads the far face isize = n-1: AA at plane `isize` and BB at plane
 * `i`, the loop's exit value (a phi of 1 and isize once clang is done).
 * The extents come from the command line (`grid_points`), so the far
 * face's plane is a bound's value: the pass describes the read as the
 * planes 1 to isize (plane 0, the near face, is not the far one), and
 * face 0's AA, which no code reads, is dead at the top of the step loop.
 *
 * Negative twin, compiled with:
 * -DREAD_FACE0  the face-0 update also reads face 0's AA: it must be kept.
 *
 * Arguments: steps (default 20), extents (default 24; 5 to 25).
 * Output: one checksum line per step.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 25
#define AA 0
#define BB 1
#define CC 2

static int grid_points[3];
static double u[N][N][N][5];
static double lhs[N][N][N][3][25];

static void lhsinit(void) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                for (int b = 0; b < 3; b++)
                    for (int m = 0; m < 25; m++)
                        lhs[i][j][k][b][m] = 0.01 * ((i + 2 * j + 3 * k + 5 * b + m) % 13);
}

/* the interior, rewritten before any read */
static void lhsx(void) {
#pragma omp for
    for (int j = 1; j < grid_points[1] - 1; j++)
        for (int k = 1; k < grid_points[2] - 1; k++)
            for (int i = 1; i < grid_points[0] - 1; i++)
                for (int b = 0; b < 3; b++)
                    for (int m = 0; m < 25; m++)
                        lhs[i][j][k][b][m] = 0.2 * u[i][j][k][m % 5] + 0.01 * (b + 1);
}

static void solve_cell(void) {
    int i, isize = grid_points[0] - 1;
    /* face 0: BB and CC read, BB updated (carried to the next step) */
#pragma omp for
    for (int j = 1; j < grid_points[1] - 1; j++)
        for (int k = 1; k < grid_points[2] - 1; k++)
            for (int m = 0; m < 25; m++) {
                double x = 0.5 * lhs[0][j][k][BB][m] + 0.1 * lhs[0][j][k][CC][m];
#ifdef READ_FACE0
                x += 0.01 * lhs[0][j][k][AA][m];
#endif
                lhs[0][j][k][BB][m] = x;
            }
    for (i = 1; i < isize; i++) {
#pragma omp for
        for (int j = 1; j < grid_points[1] - 1; j++)
            for (int k = 1; k < grid_points[2] - 1; k++)
                for (int m = 0; m < 5; m++)
                    u[i][j][k][m] += 1e-3 * (lhs[i][j][k][AA][m] + lhs[i][j][k][BB][m + 5]) - 1e-4 * lhs[i - 1][j][k][CC][m + 10];
    }
    /* the far face: AA at plane isize, BB at plane i (the loop's exit) */
#pragma omp for
    for (int j = 1; j < grid_points[1] - 1; j++)
        for (int k = 1; k < grid_points[2] - 1; k++)
            for (int m = 0; m < 5; m++)
                u[isize][j][k][m] += 1e-3 * lhs[isize][j][k][AA][m] + 1e-4 * lhs[i][j][k][BB][m];
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int n = argc > 2 ? atoi(argv[2]) : 24;
    if (n < 5 || n > N) {
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
        dao_potential_checkpoint(); /* top of the step loop: face 0's AA dead */
#pragma omp parallel
        {
            lhsx();
            solve_cell();
        }
        double s = 0.0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < N; k++)
                    s += u[i][j][k][0] * (1 + (i + j + k) % 3) + u[i][j][k][4];
        s += lhs[0][2][3][BB][7];
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
