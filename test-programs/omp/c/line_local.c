/* line_local.c -- the shape of NPB 3.0 BT's `lhsx` that array-section
 * liveness must hold on (issue #33): inside one iteration of a worksharing
 * loop over lines (j, k), a scratch array is rebuilt for the whole line
 * (`jac[i][j][k][0..5]`, 0 <= i < grid_points[0]: five fields per point,
 * as NPB's 5x5 blocks, which keeps the vectoriser out as in BT at -O3) and then read back at the
 * neighbours of each interior point (i-1, i+1) of the same line. Every
 * read sees only what the same iteration wrote before it, so `jac` never
 * carries a value from one line, or one step, to the next: it is dead at
 * the marker, although no loop rewrites all of it (its padding and the
 * boundary lines j = 0, k = 0 are written only at start-up). The extents
 * come from a global written before the step loop (by fscanf when an
 * extents file is given) and are padded as in NPB (`[N/2*2+1]`).
 *
 * Negative twin, compiled with:
 * -DNEIGHBOUR_READ  the update also reads `jac` of another line
 *                   (`jac[i][0][k]`, the boundary line no iteration
 *                   writes: its start-up values; a line of another
 *                   iteration would race): `jac` must be kept.
 * A restart with the dead bytes poisoned (DAO_DEAD=poison) prints the
 * uninterrupted run's checksums only if what was left out was dead.
 *
 * Arguments: steps (default 20), an extents file (default none: 24 24 24).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 24
#define NP (N / 2 * 2 + 1)

static int grid_points[3];
static double u[NP][NP][NP];
static double jac[NP][NP][NP][5];

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
                for (int m = 0; m < 5; m++)
                    jac[i][j][k][m] = 3.0 + i - j + m; /* values a read would notice */
            }
}

/* one line at a time: rebuild jac for the line, then use it */
static void sweep(double dt) {
    int i, j, k;
#pragma omp for
    for (j = 1; j < grid_points[1] - 1; j++) {
        for (k = 1; k < grid_points[2] - 1; k++) {
            for (i = 0; i < grid_points[0]; i++) {
                double r = 1.0 / u[i][j][k];
                jac[i][j][k][0] = r * r;
                jac[i][j][k][1] = 0.5 * r;
                jac[i][j][k][2] = r * u[i][j][k + 1];
                jac[i][j][k][3] = r - u[i][j][k - 1];
                jac[i][j][k][4] = 0.25;
            }
            for (i = 1; i < grid_points[0] - 1; i++) {
                double d = jac[i - 1][j][k][0] - jac[i + 1][j][k][0] + 0.25 * (jac[i - 1][j][k][1] + jac[i + 1][j][k][1]) + 0.01 * (jac[i][j][k][2] - jac[i][j][k][3]) * jac[i + 1][j][k][4];
#ifdef NEIGHBOUR_READ
                d += 0.125 * jac[i][0][k][1];
#endif
                u[i][j][k] += dt * d;
            }
        }
    }
}

static double checksum(void) {
    double s = 0.0;
    for (int i = 0; i < grid_points[0]; i++)
        for (int j = 0; j < grid_points[1]; j++)
            for (int k = 0; k < grid_points[2]; k++)
                s += u[i][j][k] * (1 + (i + 2 * j + 3 * k) % 7);
    return s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    read_extents(argc > 2 ? argv[2] : NULL);
    initialize();
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint();
#pragma omp parallel
        sweep(0.01);
        if (step % 5 == 0)
            printf("step %d checksum %.10e\n", step, checksum());
    }
    printf("final checksum %.10e\n", checksum());
    return 0;
}
