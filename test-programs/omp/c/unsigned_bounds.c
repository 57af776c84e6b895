/* unsigned_bounds.c -- NPB 3.0 SP's loop shapes that array-section
 * liveness must hold on (issue #33):
 * - worksharing loops written `i <= grid_points[0]-1`: clang gives them an
 *   unsigned iteration variable (`__kmpc_for_static_init_4u`) and an exit
 *   test `i + 1 >u n - 1`, for which ScalarEvolution has no count unless
 *   the guard `n > 0` is used;
 * - a call that may write memory in the body (`sqrt`, which may set
 *   errno), so -O3 reloads the loop's upper bound from its `.omp.ub` slot
 *   after every row;
 * - an orphaned `omp for` over the innermost dimension inside serial `i`
 *   and `j` loops (SP's `z_solve`), which -O2 vectorises: its 32-bit
 *   iteration variable is sign-extended into the address;
 * - the same bounds read signed in one function (`j <= grid_points[1]-2`)
 *   and unsigned in another.
 *
 * `u` carries the state from step to step. `rho` and `spd` are recomputed
 * from `u` over the extents at the start of every step (the first loop of
 * `derive`) and read afterwards, so at the marker at the top of the step
 * loop both are dead when the extents make those loops run (a condition
 * checked at the checkpoint); their padding (index 24), written at
 * start-up, is never read.
 *
 * Negative twin, compiled with -DSTALE_READ: `sweep_k` also reads `spd`
 * at `k = grid_points[2]` (the padding, written only at start-up): `spd`
 * must be kept, `rho` stays dead. A restart with the dead bytes poisoned
 * (DAO_DEAD=poison) prints the uninterrupted run's checksums only if what
 * was left out was dead.
 *
 * Arguments: steps (default 20), an extents file (default none: 24 24 24).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 24
#define NP (N / 2 * 2 + 1)

static int grid_points[3];
static double u[NP][NP][NP];
static double rho[NP][NP][NP];
static double spd[NP][NP][NP];
static double line[NP];

static void read_extents(const char *path) {
    FILE *f = path ? fopen(path, "r") : NULL;
    if (f != NULL) {
        if (fscanf(f, "%d%d%d", &grid_points[0], &grid_points[1], &grid_points[2]) != 3) {
            fprintf(stderr, "bad extents file %s\n", path);
            exit(2);
        }
        fclose(f);
    } else {
        grid_points[0] = N;
        grid_points[1] = N;
        grid_points[2] = N;
    }
    if (grid_points[0] > N || grid_points[1] > N || grid_points[2] > N || grid_points[0] < 3 || grid_points[1] < 3 || grid_points[2] < 3) {
        printf("extents out of range\n");
        exit(1);
    }
}

static void initialize(void) {
    for (int i = 0; i < NP; i++)
        for (int j = 0; j < NP; j++)
            for (int k = 0; k < NP; k++) {
                u[i][j][k] = 1.0 + 0.01 * ((i * 7 + j * 5 + k * 3) % 11);
                rho[i][j][k] = 50.0 + i; /* the padding too */
                spd[i][j][k] = 100.0 + i + j + k;
            }
}

/* SP's compute_rhs: the derived fields over the whole grid, `<= n-1` */
static void derive(void) {
    int i, j, k;
#pragma omp for
    for (i = 0; i <= grid_points[0] - 1; i++) {
        for (j = 0; j <= grid_points[1] - 1; j++) {
            for (k = 0; k <= grid_points[2] - 1; k++) {
                double r = 1.0 / u[i][j][k];
                rho[i][j][k] = r;
                spd[i][j][k] = sqrt(r * u[i][j][k] + 0.5 * r);
            }
        }
    }
}

/* SP's z_solve: serial i, j; an orphaned `omp for` over k, vectorised */
static void sweep_k(void) {
    int i, j, k;
    for (i = 1; i <= grid_points[0] - 2; i++) {
        for (j = 1; j <= grid_points[1] - 2; j++) {
#pragma omp for
            for (k = 0; k <= grid_points[2] - 1; k++) {
                line[k] = rho[i][j][k] * spd[i][j][k];
            }
#pragma omp for
            for (k = 1; k <= grid_points[2] - 2; k++) {
                double d = line[k - 1] + line[k + 1] - 2.0 * line[k];
#ifdef STALE_READ
                if (k == 1)
                    d += 1e-3 * spd[i][j][grid_points[2]];
#endif
                u[i][j][k] += 1e-3 * d;
            }
        }
    }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    read_extents(argc > 2 ? argv[2] : NULL);
    initialize();
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: rho, spd dead */
#pragma omp parallel
        {
            derive();
            sweep_k();
        }
        double s = 0.0;
        for (int i = 0; i < NP; i++)
            for (int j = 0; j < NP; j++)
                for (int k = 0; k < NP; k++)
                    s += u[i][j][k] * (1 + (i + j + k) % 3);
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
