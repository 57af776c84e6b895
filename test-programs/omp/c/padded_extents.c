/* padded_extents.c -- the shape of NPB 3.0's OpenMP C codes that array-
 * section liveness must hold on (issue #33): file-scope arrays padded
 * beyond the iteration space (`[N/2*2+1]`), loop extents in a global array
 * (`grid_points`) read with fscanf from an input file when there is one
 * (else the defaults), loops `i < grid_points[0]` strictly inside the
 * arrays, orphaned `omp for` loops in static functions called from the
 * parallel region of each time step.
 *
 * `u` carries the state from step to step. `work` and `flux` are rewritten
 * over the extents by every step before they are read (`flux` read at the
 * neighbours of each interior cell), so at the marker at the top of the
 * step loop both are dead: their padding (index 24 in each dimension) is
 * written only at start-up and never read, because no code writes
 * `grid_points` once the step loop runs (its value at a checkpoint is the
 * value every later loop sees). `initialize` fills the padding with values
 * a read would notice.
 *
 * Negative twins, compiled with:
 * -DPAD_READ     one loop per step also reads `work` one past the extent
 *                (`work` must be kept)
 *                (`work[i][j][grid_points[2]]`: the padding, which holds
 *                its start-up values);
 * -DLATE_WRITE   the step loop sets `grid_points[2]` to 25 halfway through,
 *                between the two regions of a step (a write after the
 *                marker: `update` then reads `flux` at k = 24, its padding
 *                from start-up; `flux` must be kept);
 * -DPARAM_READ   every step passes `grid_points` to a function that only
 *                reads through its parameter (`int d[3]`, as NPB FT's
 *                `evolve`; external, not inlined, so no argument promotion
 *                turns it into values): the extents stay eligible, `work`
 *                dead at -O2/-O3 (at -O0 the parameter goes through a
 *                stack slot, which the rule does not follow: kept);
 * -DPARAM_WRITE  as LATE_WRITE, but the extent is moved through such a
 *                parameter (`set_extent(grid_points, 2, NP)`): a function
 *                that writes through it makes the extents ineligible, so
 *                `flux` must be kept.
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
static double work[NP][NP][NP];
static double flux[NP][NP][NP][2];

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
                work[i][j][k] = 100.0 + i + j + k; /* the padding too */
                flux[i][j][k][0] = 3.0;
                flux[i][j][k][1] = 5.0;
            }
}

static void compute_work(void) {
#pragma omp for schedule(static)
    for (int i = 0; i < grid_points[0]; i++)
        for (int j = 0; j < grid_points[1]; j++)
            for (int k = 0; k < grid_points[2]; k++)
                work[i][j][k] = 1.0 / u[i][j][k];
#pragma omp for schedule(static)
    for (int i = 0; i < grid_points[0]; i++)
        for (int j = 0; j < grid_points[1]; j++)
            for (int k = 0; k < grid_points[2]; k++) {
                /* the two fields of a cell stored separately */
                flux[i][j][k][0] = work[i][j][k] * u[i][j][k];
                flux[i][j][k][1] = work[i][j][k] - u[i][j][k];
            }
}

static void update(void) {
#pragma omp for schedule(static)
    for (int i = 1; i < grid_points[0] - 1; i++)
        for (int j = 1; j < grid_points[1] - 1; j++)
            for (int k = 1; k < grid_points[2] - 1; k++) {
                double d = flux[i + 1][j][k][0] + flux[i - 1][j][k][0] + flux[i][j + 1][k][1] + flux[i][j - 1][k][1] + flux[i][j][k + 1][0] + flux[i][j][k - 1][1] - 6.0 * work[i][j][k];
#ifdef PAD_READ
                if (k == 1)
                    d += 1e-3 * work[i][j][grid_points[2]];
#endif
                u[i][j][k] += 1e-4 * d;
            }
}

#ifdef PARAM_READ
__attribute__((noinline)) int extents_volume(int d[3]) {
    return d[0] * d[1] * d[2];
}
#endif
#ifdef PARAM_WRITE
__attribute__((noinline)) void set_extent(int d[3], int k, int v) {
    d[k] = v;
}
#endif

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    read_extents(argc > 2 ? argv[2] : NULL);
    initialize();
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: work, flux dead */
#pragma omp parallel
        compute_work();
#ifdef LATE_WRITE
        /* from here on update reads flux at k = 24, which compute_work
         * did not write this step: its start-up value */
        if (step == steps / 2 + 1)
            grid_points[2] = NP;
#endif
#ifdef PARAM_WRITE
        if (step == steps / 2 + 1)
            set_extent(grid_points, 2, NP);
#endif
#pragma omp parallel
        update();
#ifdef PARAM_READ
        if (step == 1)
            printf("volume %d\n", extents_volume(grid_points));
#endif
        double s = 0.0;
        for (int i = 0; i < NP; i++)
            for (int j = 0; j < NP; j++)
                for (int k = 0; k < NP; k++)
                    s += u[i][j][k] * (1 + (i + j + k) % 3);
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
