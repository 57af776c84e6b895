/* plane_scratch.c -- the shape of NPB 3.0 BT's `lhsy`/`lhsz` that array-
 * section liveness must hold on (issue #33): in each direction an `omp
 * for` fills a scratch array over the whole iteration space (`s[i][j][k]
 * [0..5]`: 0 <= j < grid_points[1] in `sweep_y`, 0 <= k < grid_points[2]
 * in `sweep_z`, two different parts of it), the implicit barrier at its
 * end waits for the team, and the next `omp for` reads it at the
 * neighbours of each interior point. Every read sees only what the first
 * loop of its function wrote in the same call, so `s` is dead at the
 * marker, although no loop rewrites all the bytes any code reads (the
 * two sweeps read different parts): dead when the extents make the first
 * loops run (runtime-checked conditions). The extents come from a global
 * written before the step loop (by fscanf when an extents file is given)
 * and are padded as in NPB (`[N/2*2+1]`).
 *
 * The loops over j are not vectorised (`#pragma clang loop`), as BT's,
 * whose 5x5 blocks the vectoriser leaves alone: reads in a vectorised
 * copy of a loop, which the analysis does not map back to the scalar
 * reads it excuses, keep the object.
 *
 * Negative twin, compiled with:
 * -DSTALE_READ   `sweep_y` also reads the plane k = 0 of `s`, which only
 *                `sweep_z` writes (the previous step's values): `s` must
 *                be kept.
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
static double s[NP][NP][NP][5];

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
                    s[i][j][k][m] = 3.0 + i - j + m; /* values a read would notice */
            }
}

/* fill the scratch array over (j, k), then (after the barrier) use it
   at j-1, j+1 */
static void sweep_y(double dt) {
    int i, j, k;
#pragma omp for
    for (i = 1; i < grid_points[0] - 1; i++)
        for (j = 0; j < grid_points[1]; j++)
            for (k = 1; k < grid_points[2] - 1; k++) {
                double r = 1.0 / u[i][j][k];
                s[i][j][k][0] = r * r;
                s[i][j][k][1] = 0.5 * r;
                s[i][j][k][2] = r * u[i][j][k + 1];
                s[i][j][k][3] = r - u[i][j][k - 1];
                s[i][j][k][4] = 0.25;
            }
#pragma omp for
    for (i = 1; i < grid_points[0] - 1; i++)
        for (k = 1; k < grid_points[2] - 1; k++)
#pragma clang loop vectorize(disable) interleave(disable)
            for (j = 1; j < grid_points[1] - 1; j++) {
                double d = s[i][j - 1][k][0] - s[i][j + 1][k][0] + 0.25 * (s[i][j - 1][k][1] + s[i][j + 1][k][1]) + 0.01 * (s[i][j][k][2] - s[i][j][k][3]) * s[i][j + 1][k][4];
#ifdef STALE_READ
                d += 0.125 * s[i][j][0][1];
#endif
                u[i][j][k] += dt * d;
            }
}

/* the same in the k direction: another part of s (the plane k = 0 and
   the last one too, not j = 0) */
static void sweep_z(double dt) {
    int i, j, k;
#pragma omp for
    for (i = 1; i < grid_points[0] - 1; i++)
        for (k = 0; k < grid_points[2]; k++)
#pragma clang loop vectorize(disable) interleave(disable)
            for (j = 1; j < grid_points[1] - 1; j++) {
                double r = 1.0 / u[i][j][k];
                s[i][j][k][0] = r + 0.5;
                s[i][j][k][1] = r * r * r;
                s[i][j][k][2] = r * u[i][j + 1][k];
                s[i][j][k][3] = r - u[i][j - 1][k];
                s[i][j][k][4] = 0.5;
            }
#pragma omp for
    for (i = 1; i < grid_points[0] - 1; i++)
        for (k = 1; k < grid_points[2] - 1; k++)
#pragma clang loop vectorize(disable) interleave(disable)
            for (j = 1; j < grid_points[1] - 1; j++)
                u[i][j][k] += dt * (s[i][j][k - 1][0] - s[i][j][k + 1][0] + 0.25 * s[i][j][k + 1][1] * s[i][j][k][4] + 0.01 * (s[i][j][k][2] - s[i][j][k][3]));
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
        sweep_y(0.01);
#pragma omp parallel
        sweep_z(0.01);
        if (step % 5 == 0)
            printf("step %d checksum %.10e\n", step, checksum());
    }
    printf("final checksum %.10e\n", checksum());
    return 0;
}
