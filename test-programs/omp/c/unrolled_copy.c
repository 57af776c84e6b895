/* unrolled_copy.c -- the shape of NPB 3.0 BT's and SP's `rhs = forcing`
 * copy that array-section liveness must hold on at -O2 and -O3 (issue
 * #33): extents in a global array (`grid_points`), a copy of one cell's
 * five fields from an array with a padded last dimension (`forcing[..][6]`,
 * so the copy is a 40-byte memcpy per k, not one per row), in a k loop
 * that LLVM unrolls at run time by 2: a main loop writing two cells per
 * iteration up to `n & -2`, and a remainder block after it that writes
 * the last cell when n is odd. Together they rewrite every cell of `rhs`
 * each step before any read, so at the marker at the top of the step
 * loop `rhs` is dead (with the extents at least the arrays' size, as they
 * are: the kill's runtime-checked condition).
 *
 * Negative twins, compiled with:
 * -DSHORT_COPY  the copy stops one cell short in k (`k < grid_points[2]-1`);
 *               the last plane of `rhs` carries over from the step before
 *               and `add` reads it: `rhs` must be kept;
 * -DREAD_FIRST  the step begins by reading one cell of `rhs` (into the
 *               checksum) before the copy rewrites it: `rhs` must be kept;
 * -DREAD_PAD    `add` reads one cell more in k than the copy writes (run
 *               with extents below 25: the padding cell, never written
 *               after the start): `rhs` must be kept;
 * -DREAD_PAD_VEC the same slip in the loop -O2 vectorises only (`qs`
 *               takes rhs[..][k+1]): `rhs` must be kept;
 * -DREAD_PAD_CALL the slip inside `cell_solve`, which reads one double past
 *               the cell its pointer names: `rhs` must be kept;
 * -DREAD_PAD_BACK the back substitution starts one plane higher and reads
 *               the padding plane grid_points[0]: `rhs` must be kept.
 * And a positive twin, -DSETUP_IN_RUN: the extents are set in `run`, which
 *               main calls after `omp_set_num_threads` (`rhs` stays dead:
 *               the extents are still frozen; and main's frame, at its
 *               call of `run`, keeps only what main reads after it: `note`,
 *               not what `run` reads before its loop; see `run`).
 *
 * The reads of `rhs` are in loops -O2/-O3 vectorise or unroll at run time
 * too (`add`'s k loop, the second loop of compute_rhs), one is at the
 * far boundary plane `grid_points[0]-3` (NPB BT's fourth-order
 * dissipation), and `solve` reads it as NPB BT's x_solve does: through a
 * pointer passed to a function that is not inlined, at a loop's exit
 * value, and in a loop running down from a plane given by the extents.
 * With every read inside the extents, the kill needs only the extents,
 * not extents covering the whole padded array.
 * A restart with the dead bytes poisoned (DAO_DEAD=poison) prints the
 * uninterrupted run's checksums only if what was left out was dead.
 *
 * Arguments: steps (default 20), extents (default 25, odd: the remainder
 * block runs; from 4 to 25, below 25 with -DREAD_PAD; the padding beyond
 * them is never read, so `rhs` is dead at any extents).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"
#ifdef SETUP_IN_RUN
#include <omp.h>
#endif

#define N 25
#ifdef READ_PAD_VEC
#define VEC_SHIFT 1
#else
#define VEC_SHIFT 0
#endif

static int grid_points[3];
static double u[N][N][N][5];
static double forcing[N][N][N][5 + 1];
static double rhs[N][N][N][5];
static double qs[N][N][N]; /* a field of rhs, contiguous in k: a loop LLVM vectorises reads it */

static double rho_i[N][N][N]; /* rewritten first in each step, as NPB BT's */

static void compute_rhs(void) {
    int i, j, k, m;
    /* a `nowait` loop over the same first extent before the copy: at -O2
     * and -O3 jump threading sends its zero-trip test straight past the
     * copy's own (NPB BT's compute_rhs), a path around the copy's kill
     * that the kill's conditions rule out */
#pragma omp for nowait
    for (i = 0; i < grid_points[0]; i++)
        for (j = 0; j < grid_points[1]; j++)
            for (k = 0; k < grid_points[2]; k++)
                rho_i[i][j][k] = 1.0 / u[i][j][k][0];
#pragma omp for
    for (i = 0; i < grid_points[0]; i++)
        for (j = 0; j < grid_points[1]; j++)
#ifdef SHORT_COPY
            for (k = 0; k < grid_points[2] - 1; k++)
#else
            for (k = 0; k < grid_points[2]; k++)
#endif
                for (m = 0; m < 5; m++)
                    rhs[i][j][k][m] = forcing[i][j][k][m];
#pragma omp for
    for (i = 1; i < grid_points[0] - 1; i++)
        for (j = 1; j < grid_points[1] - 1; j++)
            for (k = 1; k < grid_points[2] - 1; k++)
                for (m = 0; m < 5; m++)
                    rhs[i][j][k][m] += 0.1 * (u[i + 1][j][k][m] + u[i - 1][j][k][m] + u[i][j][k + 1][m] - 3.0 * u[i][j][k][m]);
#pragma omp for
    for (i = 0; i < grid_points[0]; i++)
        for (j = 0; j < grid_points[1]; j++)
            for (k = 0; k < grid_points[2]; k++)
                qs[i][j][k] = 0.5 * rhs[i][j][k + VEC_SHIFT][1] + 0.25 * rhs[i][j][k][3];
    /* the far boundary plane, as NPB BT's dissipation: i = grid_points[0]-3 */
    i = grid_points[0] - 3;
#pragma omp for
    for (j = 1; j < grid_points[1] - 1; j++)
        for (k = 1; k < grid_points[2] - 1; k++)
            for (m = 0; m < 5; m++)
                rhs[i][j][k][m] = rhs[i][j][k][m] - 0.05 * (u[i - 1][j][k][m] - 2.0 * u[i][j][k][m] + u[i + 1][j][k][m]);
}

#ifdef READ_PAD
#define PAD_EXTRA 1
#else
#define PAD_EXTRA 0
#endif
#ifdef READ_PAD_CALL
#define CALL_EXTRA 1
#else
#define CALL_EXTRA 0
#endif
#ifdef READ_PAD_BACK
#define BACK_EXTRA 1
#else
#define BACK_EXTRA 0
#endif

/* One cell's solve through a pointer, as NPB BT's binvrhs(lhs, r): not
 * inlined, it reads and rewrites r[0..4] (r[0..5] with -DREAD_PAD_CALL,
 * whose `solve` runs k up to grid_points[2]-1: there the first field of
 * the padding cell k = grid_points[2]). */
static __attribute__((noinline)) void cell_solve(double *r, double c) {
    double p = r[0];
    for (int m = 1; m < 5 + CALL_EXTRA; m++)
        p = 0.5 * p + c * r[m];
    for (int m = 0; m < 5; m++)
        r[m] = 0.9 * r[m] + 0.01 * p;
}

/* NPB BT's x_solve in small: a forward sweep through calls, a call at the
 * sweep's exit value of i (the plane grid_points[0]-1, or 1 when the sweep
 * never ran), then a back substitution from the plane grid_points[0]-2 down
 * to 0 that reads the plane above (from grid_points[0]-1 with
 * -DREAD_PAD_BACK: the padding plane at extents below 25). */
static void solve(void) {
    int i, j, k, m;
    int isize = grid_points[0] - 1;
#pragma omp for
    for (j = 1; j < grid_points[1] - 1; j++)
        for (k = 1; k < grid_points[2] - 1 + CALL_EXTRA; k++) {
            for (i = 1; i < isize; i++)
                cell_solve(rhs[i][j][k], 0.1);
            cell_solve(rhs[i][j][k], 0.2);
            for (i = isize - 1 + BACK_EXTRA; i >= 0; i--)
                for (m = 0; m < 5; m++)
                    rhs[i][j][k][m] -= 0.3 * rhs[i + 1][j][k][m];
        }
}

static void add(void) {
    int i, j, k, m;
#pragma omp for
    for (i = 0; i < grid_points[0]; i++)
        for (j = 0; j < grid_points[1]; j++)
            for (k = 0; k < grid_points[2] + PAD_EXTRA; k++)
                for (m = 0; m < 5; m++)
                    u[i][j][k][m] += 0.01 * rhs[i][j][k][m] + 0.001 * qs[i][j][k < grid_points[2] ? k : 0] + 0.0001 * rho_i[i][j][k < grid_points[2] ? k : 0];
}

/* The run: the extents set, the arrays filled, the step loop. With
 * -DSETUP_IN_RUN a function of its own that main calls after setting
 * OpenMP's thread count (as flang's main calls the main program after the
 * Fortran runtime's start): neither call is a place a thread can stop at
 * before the extents are set, so they stay frozen (the reads' bounds). */
#ifdef SETUP_IN_RUN
/* written by run before its step loop, read by main after run returns:
 * live at the marker through main's frame alone (a wrong drop shows in
 * main's last line after a restart with the dead bytes poisoned) */
static double note[1024];
__attribute__((noinline))
#endif
static int run(int steps, int n) {
    grid_points[0] = grid_points[1] = grid_points[2] = n;
#ifdef SETUP_IN_RUN
    for (int i = 0; i < 1024; i++)
        note[i] = 0.25 * (i % 13) + n;
#endif
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                for (int m = 0; m < 5; m++) {
                    u[i][j][k][m] = 1.0 + 0.01 * ((i + 2 * j + 3 * k + m) % 7);
                    forcing[i][j][k][m] = 0.001 * (m + 1) * ((i + k) % 3);
                    rhs[i][j][k][m] = 0.5; /* a value a wrong kill would lose */
                }
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint(); /* top of the step loop: rhs dead */
        double s = 0.0;
#ifdef READ_FIRST
        s += rhs[1][2][3][4];
#endif
#pragma omp parallel
        {
            compute_rhs();
            solve();
            add();
        }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < N; k++)
                    s += u[i][j][k][0] * (1 + (i + j + k) % 3) + u[i][j][k][4];
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int n = argc > 2 ? atoi(argv[2]) : N;
    if (n < 4 || n + PAD_EXTRA + VEC_SHIFT + CALL_EXTRA + BACK_EXTRA > N) {
        printf("extents out of range\n");
        return 1;
    }
#ifdef SETUP_IN_RUN
    omp_set_num_threads(omp_get_max_threads());
    int rc = run(steps, n);
    double t = 0.0;
    for (int i = 0; i < 1024; i++)
        t += note[i] * (1 + i % 5);
    printf("note %.6f\n", t);
    return rc;
#else
    return run(steps, n);
#endif
}
