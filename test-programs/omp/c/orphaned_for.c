/* orphaned_for.c -- orphaned worksharing loops (like NPB BT's compute_rhs).
 *
 * Exercises: `#pragma omp for` loops in functions (compute_rhs, x_sweep,
 * add_update) that are called from inside a `#pragma omp parallel` region
 * enclosing the time-step loop, so the worksharing constructs bind to the
 * enclosing team from another function's frame; the same functions are also
 * called once from serial code before the region (a warm-up step, as BT
 * does), where the orphaned loops run on a team of one. A `single` block
 * prints per-step checksums (computed serially, in a fixed order).
 * Markers: inside the orphaned loop body of compute_rhs (once per plane)
 * and after it (after the loop's implicit barrier), inside x_sweep's body,
 * and after add_update (in the function called from the region).
 *
 * Invariant: the shared grids and every thread's chain of frames (outlined
 * region -> adi -> compute_rhs) are restored byte for byte, so the printed
 * values (per-element results independent of the thread count) after a
 * restart equal those of the uninterrupted run.
 * Argument: number of time steps (default 600; 12 gives ~0.1 s).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NZ 40
#define NY 40
#define NX 40
#define NC 5

static double u[NZ][NY][NX][NC];
static double rhs[NZ][NY][NX][NC];
static double forcing[NZ][NY][NX][NC];

__attribute__((noinline)) static void compute_rhs(double dt) {
#pragma omp for schedule(static)
    for (int k = 1; k < NZ - 1; k++) {
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++)
                for (int m = 0; m < NC; m++) {
                    double c = u[k][j][i][m];
                    double lap = u[k - 1][j][i][m] + u[k + 1][j][i][m] + u[k][j - 1][i][m] + u[k][j + 1][i][m] +
                                 u[k][j][i - 1][m] + u[k][j][i + 1][m] - 6.0 * c;
                    rhs[k][j][i][m] = forcing[k][j][i][m] + dt * lap - 0.01 * c * u[k][j][i][(m + 1) % NC];
                }
        dao_potential_checkpoint();
    }
    /* implicit barrier: rhs is complete */
    dao_potential_checkpoint();
}

__attribute__((noinline)) static void x_sweep(void) {
#pragma omp for schedule(static)
    for (int k = 1; k < NZ - 1; k++) {
        for (int j = 1; j < NY - 1; j++) {
            /* a forward/backward recurrence along x, like a line solve */
            for (int i = 2; i < NX - 1; i++)
                for (int m = 0; m < NC; m++)
                    rhs[k][j][i][m] += 0.25 * rhs[k][j][i - 1][m];
            for (int i = NX - 3; i >= 1; i--)
                for (int m = 0; m < NC; m++)
                    rhs[k][j][i][m] -= 0.125 * rhs[k][j][i + 1][m];
        }
        if (k % 4 == 0)
            dao_potential_checkpoint();
    }
}

__attribute__((noinline)) static void add_update(void) {
#pragma omp for schedule(static)
    for (int k = 1; k < NZ - 1; k++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++)
                for (int m = 0; m < NC; m++)
                    u[k][j][i][m] += 0.1 * rhs[k][j][i][m];
}

__attribute__((noinline)) static void adi(double dt) {
    compute_rhs(dt);
    x_sweep();
    add_update();
    dao_potential_checkpoint();
}

static double checksum(int m) {
    double s = 0.0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                s += u[k][j][i][m] * (double)(1 + (i + 2 * j + 3 * k) % 5);
    return s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 600;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                for (int m = 0; m < NC; m++) {
                    u[k][j][i][m] = (double)((i * 3 + j * 5 + k * 7 + m * 11) % 23) / 23.0;
                    forcing[k][j][i][m] = (double)((i + j + k + m) % 7) * 1e-3;
                }
    adi(0.05); /* warm-up step from serial code: orphaned loops on a team of one */
    printf("warm-up: c0=%a c4=%a\n", checksum(0), checksum(4));
#pragma omp parallel
    {
        for (int step = 1; step <= steps; step++) {
            adi(0.05);
#pragma omp single
            {
                if (step % 100 == 0 || step == 1 || step == steps)
                    printf("step %d c0=%a c2=%a u=%a\n", step, checksum(0), checksum(2), u[NZ / 2][NY / 2][NX / 2][3]);
            }
        }
    }
    printf("orphaned_for: steps=%d c0=%.17g c1=%.17g c3=%.17g c4=%.17g\n", steps, checksum(0), checksum(1),
           checksum(3), checksum(4));
    return 0;
}
