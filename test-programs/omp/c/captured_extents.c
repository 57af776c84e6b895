/* captured_extents.c -- NPB 3.0 FT's `evolve` shape that array-section
 * liveness must hold on (issue #33): the extents live in a 2-D global
 * (`dims[3][3]`, set from an input file when there is one) and reach the
 * loops as a parameter `int d[3]` of a static function whose body is one
 * `#pragma omp parallel for`. At -O2 the function is inlined into `main`
 * and `d` becomes the region's by-reference capture: `dims[0]` is stored
 * into a stack slot whose address the fork passes, and the region loads
 * the pointer from it to read the extents through. The slot is only read
 * through, so `dims` keeps its runtime-checked conditions.
 *
 * `u0` carries the state (set once, scaled every step); `u1` is rebuilt
 * from `u0` over the extents by every step before anything reads it (the
 * checksum, in a region of its own), so at the marker at the top of the
 * step loop it is dead when the extents cover the array, as in FT (a
 * condition checked at the checkpoint: with smaller extents from a file
 * the rest of `u1` keeps its start-up values, which the checksum does not
 * read but the analysis cannot tell apart, so `u1` is saved).
 *
 * Negative twin, compiled with -DEARLY_READ: each step reads `u1` before
 * `evolve` rewrites it: `u1` must be kept whatever the extents. A restart
 * with the dead bytes poisoned (DAO_DEAD=poison) prints the uninterrupted
 * run's checksums only if what was left out was dead.
 *
 * Arguments: steps (default 20), an extents file (default none: 24 24 24).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 24

static int dims[3][3];
static double u0[N][N][N];
static double u1[N][N][N];
static double part[N];

static void read_extents(const char *path) {
    FILE *f = path ? fopen(path, "r") : NULL;
    if (f != NULL) {
        if (fscanf(f, "%d%d%d", &dims[0][0], &dims[0][1], &dims[0][2]) != 3) {
            fprintf(stderr, "bad extents file %s\n", path);
            exit(2);
        }
        fclose(f);
    } else {
        dims[0][0] = N;
        dims[0][1] = N;
        dims[0][2] = N;
    }
    for (int i = 0; i < 3; i++) {
        if (dims[0][i] > N || dims[0][i] < 3) {
            printf("extents out of range\n");
            exit(1);
        }
        dims[1][i] = dims[0][(i + 1) % 3];
        dims[2][i] = dims[0][(i + 2) % 3];
    }
}

static void initialize(void) {
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                u0[k][j][i] = 1.0 + 0.01 * ((i * 7 + j * 5 + k * 3) % 11);
                u1[k][j][i] = 100.0 + i + j + k;
            }
}

/* FT's evolve: u1 from u0 over the extents d[0..2] */
static void evolve(double a[N][N][N], double b[N][N][N], int t, int d[3]) {
    int i, j, k;
#pragma omp parallel for default(shared) private(i, j, k)
    for (k = 0; k < d[2]; k++)
        for (j = 0; j < d[1]; j++)
            for (i = 0; i < d[0]; i++)
                b[k][j][i] = a[k][j][i] * (1.0 + 1e-3 * ((t + i + 2 * j + 3 * k) % 7));
}

/* FT's checksum: a region of its own (the partial sums per plane, added
 * up in a fixed order: the same digits at any thread count) */
static double checksum(double b[N][N][N], int d[3]) {
    int i, j, k;
#pragma omp parallel for default(shared) private(i, j, k)
    for (k = 0; k < d[2]; k++) {
        double s = 0.0;
        for (j = 0; j < d[1]; j++)
            for (i = 0; i < d[0]; i++)
                s += b[k][j][i] * (1 + (i + j + k) % 3);
        part[k] = s;
    }
    double s = 0.0;
    for (k = 0; k < d[2]; k++)
        s += part[k];
    return s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    read_extents(argc > 2 ? argv[2] : NULL);
    initialize();
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: u1 dead */
#ifdef EARLY_READ
        printf("corner %.6f\n", u1[step % N][1][2]);
#endif
        evolve(u0, u1, step, dims[0]);
        double s = checksum(u1, dims[0]);
        /* the state moves a little every step */
        for (int k = 0; k < N; k++)
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++)
                    u0[k][j][i] *= 1.0 + 1e-4 * ((i + j + k + step) % 5);
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
