/* sections_cond.c -- runtime-checked conditions (issue #15): arrays
 * overwritten before they are read only when extents read from the input
 * are large enough.
 *
 * NPB 3.0 shape: big file-scope arrays with compile-time sizes, loop
 * extents in a global (`grid[0]` rows, `grid[1]` columns, `cells`), set
 * once from the command line:
 * - `state`: carried from step to step (read, then rewritten, every step);
 * - `work`: rewritten each step by a `parallel for` over j < grid[0],
 *   i < grid[1] (the team writes all of it when grid[0] >= NY and
 *   grid[1] >= NX), then every element is read;
 * - `scan`: rewritten each step by a serial recurrence over k < cells (all
 *   of it when cells >= NY*NX; not vectorisable, so the -O2 loop keeps its
 *   shape), then every element is read;
 * - `vec`: rewritten each step by a loop over k < cells that -O2
 *   vectorises (a vector loop, a remainder, a check for short counts: the
 *   pass reads it through the loop's scalar copy), then every element is
 *   read.
 * With full extents (no arguments after the step count) work, scan and vec are
 * dead at the top of the step loop when the checkpoint is taken; with
 * smaller ones (e.g. `40 63 512`) part of each keeps its start-up values,
 * which the checksum reads: they must be saved and restored.
 * Invariant: per-step checksums (exact int64 arithmetic modulo a prime)
 * after a restart equal those of the uninterrupted run, any thread count.
 * Arguments: steps (default 200), rows, columns (default NY, NX).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include "dao.h"

#define NY 64
#define NX 512
#define P 1000003

static int64_t state[NY][NX];
static int64_t work[NY][NX];
static int64_t scan[NY * NX];
static int64_t vec[NY * NX];
static int grid[2];
static int cells;

/* Rewrites work[0..grid[0])[0..grid[1]) (the team's chunks). */
__attribute__((noinline)) static void fill_work(int step) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < grid[0]; j++)
        for (int i = 0; i < grid[1]; i++)
            work[j][i] = (state[j][i] * 3 + state[j][(i + 1) % NX] + step) % P;
}

/* Rewrites scan[0..cells): a running recurrence, serial. */
__attribute__((noinline)) static void fill_scan(int step) {
    int64_t x = step;
    for (int k = 0; k < cells; k++) {
        x = (x * 7 + state[k / NX][k % NX]) % P;
        scan[k] = x;
    }
}

/* Rewrites vec[0..cells) from scan: vectorised at -O2. */
__attribute__((noinline)) static void fill_vec(int step) {
    for (int k = 0; k < cells; k++)
        vec[k] = scan[k] * 5 + step;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 200;
    int rows = argc > 2 ? atoi(argv[2]) : NY;
    int cols = argc > 3 ? atoi(argv[3]) : NX;
    if (rows < 0 || rows > NY || cols < 0 || cols > NX) {
        fprintf(stderr, "rows must be in [0, %d], columns in [0, %d]\n", NY, NX);
        return 2;
    }
    grid[0] = rows;
    grid[1] = cols;
    cells = rows * cols;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int64_t x = (int64_t)j * NX + i;
            state[j][i] = (x * 7919) % P;
            work[j][i] = (x * 104729 + 17) % P; /* kept where the extents stop short */
            scan[j * NX + i] = (x * 31 + 5) % P;
            vec[j * NX + i] = (x * 71 + 3) % P;
        }
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: work, scan and vec dead with full extents */
        fill_work(step);
        fill_scan(step);
        fill_vec(step);
        int64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                state[j][i] = (state[j][i] + work[j][i] * 5 + scan[j * NX + i] + vec[j * NX + i] * 3) % P;
                sum += state[j][i] % 1000;
            }
        if (step % 10 == 0 || step == steps)
            printf("step %d checksum %" PRId64 "\n", step, sum);
    }
    return 0;
}
