/* sections_dead.c -- array-section liveness (issue #15): global work arrays
 * completely overwritten by static worksharing loop nests before any read.
 *
 * Exercises (NPB 3.0 shape: big file-scope arrays with compile-time extents,
 * the work of a time step split over functions and static worksharing
 * loops), seven arrays of NY x NX int64 (256 KiB each):
 * - `state`: carried from step to step (read, then rewritten, every step);
 * - `work1`: completely overwritten each step by a combined
 *   `parallel for collapse(2) schedule(static)` nest in main (one loop over
 *   both indices, which the code recovers as `iv / NX` and `iv % NX`), then
 *   read (dead at the top of the step loop);
 * - `work2`: completely overwritten each step by an orphaned
 *   `omp for schedule(static)` nest in fill_work2, three calls deep
 *   (main -> phase_a, which opens the region -> phase_b -> fill_work2),
 *   then read by another orphaned loop (dead at the top of the step loop);
 * - `work3`: passed to fill_work3 as a pointer argument and rewritten row
 *   by row there by a `parallel for` (on the region's captured pointer) whose
 *   iteration j first fills row j and then reads it back (a running sum
 *   along the row: reads after writes in one iteration, the shape of NPB
 *   BT's compute_rhs), then read (dead at the top of the step loop);
 * - `part`: only the interior (rows and columns 1..N-2) overwritten each
 *   step; the halo ring keeps its distinct starting values and is read every
 *   step (into the state update and the checksum): must be saved;
 * - `cond`: overwritten only on steps where step % every_k == 0 (every_k
 *   from the command line), read every step: must be saved;
 * - `subset`: overwritten by thread 0 only (`if (omp_get_thread_num() == 0)`
 *   inside a region), read afterwards: must be saved (a write by some
 *   threads of a team never makes an array dead in the first version of the
 *   analysis, although here thread 0 always exists).
 * Markers: at the top of the step loop in main (between regions: there
 * work1, work2 and work3 are dead, the other four live) and in phase_b after
 * fill_work2's loop (inside the region, after the implicit barrier).
 *
 * Invariant: `state`, the halo of `part`, `cond`, `subset` and every
 * thread's frames are restored byte for byte, so the per-step checksums
 * (exact int64 arithmetic modulo a prime, per-element results, serial
 * sums) after a restart equal those of the uninterrupted run, for any
 * thread count. A restart that lost the halo of `part` or a `cond` written
 * on an earlier step prints other checksums.
 * Arguments: number of time steps (default 500; 120 gives ~0.1 s at 2
 * threads -O2); optional every_k (default 3).
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
static int64_t work1[NY][NX];
static int64_t work2[NY][NX];
static int64_t work3[NY][NX];
static int64_t part[NY][NX];
static int64_t cond[NY][NX];
static int64_t subset[NY][NX];
/* per-step row sums of work2 (written by read_work2, read by main) */
static int64_t w2rows[NY];

/* Overwrites all of work2 (orphaned loop: the team of phase_a's region). */
__attribute__((noinline)) static void fill_work2(int step) {
#pragma omp for schedule(static)
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            work2[j][i] = (work1[j][(i + 3) % NX] * 5 + state[(j + NY - 1) % NY][i] + step) % P;
}

/* Reads work2 (orphaned loop). */
__attribute__((noinline)) static void read_work2(void) {
#pragma omp for schedule(static)
    for (int j = 0; j < NY; j++) {
        int64_t s = 0;
        for (int i = 0; i < NX; i++)
            s += work2[j][i] * (1 + (i & 7));
        w2rows[j] = s % P;
    }
}

__attribute__((noinline)) static void phase_b(int step) {
    fill_work2(step);
    dao_potential_checkpoint(); /* in the region, after the loop's barrier */
    read_work2();
}

/* Opens the region the orphaned loops bind to. */
__attribute__((noinline)) static void phase_a(int step) {
#pragma omp parallel
    phase_b(step);
}

/* Rewrites the array w points to (work3) row by row: iteration j fills row
 * j, then reads it back. */
__attribute__((noinline)) static void fill_work3(int64_t (*w)[NX], int step) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++)
            w[j][i] = (state[j][i] * 7 + step + i) % P;
        for (int i = 1; i < NX; i++)
            w[j][i] = (w[j][i] + w[j][i - 1] * 3) % P;
    }
}

/* Overwrites the interior of part only; the halo ring is never written. */
__attribute__((noinline)) static void update_part(int step) {
#pragma omp parallel for schedule(static)
    for (int j = 1; j < NY - 1; j++)
        for (int i = 1; i < NX - 1; i++)
            part[j][i] = (state[j][i] * 3 + work2[j][i] + (int64_t)step * (i + 1)) % P;
}

/* Overwrites all of cond, called only on some steps. */
__attribute__((noinline)) static void update_cond(int step) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            cond[j][i] = (state[j][i] * 11 + work1[j][i] + step) % P;
}

/* Thread 0 alone overwrites subset. */
__attribute__((noinline)) static void update_subset(int step) {
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++)
                    subset[j][i] = (state[j][(i + 1) % NX] * 13 + step * 7 + j) % P;
        }
    }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 500;
    int every_k = argc > 2 ? atoi(argv[2]) : 3;
    if (every_k < 1)
        every_k = 1;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int64_t x = (int64_t)j * NX + i;
            state[j][i] = (x * 7919) % P;
            part[j][i] = (x * 104729 + 17) % P; /* distinct values, the halo kept for good */
            cond[j][i] = (x * 31) % P;
            subset[j][i] = (x * 61 + 5) % P;
        }
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: work1, work2 dead (and work3) */
#pragma omp parallel for collapse(2) schedule(static)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                work1[j][i] = (state[j][i] * 3 + state[(j + 1) % NY][i] + step) % P;
        phase_a(step);
        fill_work3(work3, step);
        update_part(step);
        if (step % every_k == 0)
            update_cond(step);
        update_subset(step);
#pragma omp parallel for schedule(static)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                /* part read around (j, i), clamped: the halo reaches the boundary rows/columns */
                int jn = j + 1 < NY ? j + 1 : j, in = i + 1 < NX ? i + 1 : i;
                state[j][i] = (state[j][i] + work1[j][i] + work2[j][i] * 2 + part[j][i] + part[jn][in] +
                               cond[j][i] * 5 + subset[j][i] + w2rows[j] + work3[j][i] * 4) %
                              P;
            }
        int64_t cs = 0, halo = 0;
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                cs += state[j][i] * (1 + (i + 2 * j) % 7);
        for (int i = 0; i < NX; i++)
            halo += part[0][i] + 2 * part[NY - 1][i];
        for (int j = 1; j < NY - 1; j++)
            halo += 3 * part[j][0] + 5 * part[j][NX - 1];
        printf("step %d state=%" PRId64 " halo=%" PRId64 " cond=%" PRId64 " subset=%" PRId64 "\n", step, cs, halo,
               cond[NY / 2][NX / 3], subset[NY / 3][NX / 2]);
        state[step % NY][(step * 37) % NX] += halo % P; /* the halo feeds back into the state */
    }
    int64_t cs = 0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            cs += state[j][i] ^ (int64_t)(j * NX + i);
    printf("sections_dead: steps=%d every_k=%d state=%" PRId64 "\n", steps, every_k, cs);
    return 0;
}
