/* blocked_rows.c -- the shape of NPB 3.0 FT's `fft` and `cffts1` (issue
 * #33): the output array of a transform is rewritten in blocks of `blk`
 * rows, `for (jj = 0; jj <= d[1] - blk; jj += blk) for (j = 0; j < blk;
 * j++) ...`, where
 *
 * - `blk` is an `int` of external linkage (FT's `int fftblock;` in its
 *   global.h) that every store of the program sets to one constant;
 * - the extents come through `d`, the address of a row of `dims` (FT's
 *   `cffts3(.., dims[2], ..)`: inside `dims`, not at its start);
 * - the block loop holds the check FT's `cfftz` makes, a message and
 *   `exit(1)` on a bad direction;
 * - `transform(dir, x1, x2)` rewrites all of `x2` only when `dir` is not
 *   1: called with `-1` in the step loop, the analysis of that call takes
 *   the branch on `dir` one way.
 *
 * At the top of the step loop `u1` and `u2` are dead when `blk` is 16 and
 * the extents are at least the arrays' (conditions checked at run time);
 * `u0` is live.
 *
 * Negative twins, compiled with:
 * -DSHORT_BLOCKS  `blk` is 24, which does not divide 64: the last 16 rows
 *                 of every plane of `u2` are never rewritten, and the
 *                 checksum reads them: `u2` is live;
 * -DREAD_IN_CHECK the message before `exit` prints an element of the
 *                 output: the path to `exit` reads it, `u2` is live.
 *
 * -DCHECK_CALL moves the check into a function the block loop calls (FT's
 * `cfftz` at -O2, not inlined): a call that may not return, after which
 * -O2 reloads `d` and `blk`. ScalarEvolution then trusts the block step's
 * `nsw` only under a predicate, and the reloads of `d` meet in phis; at
 * -O2 and -O3 `u1` and `u2` are dead as above.
 *
 * Arguments: steps (default 20), extent (default 64; 32 to 64).
 * Output: one checksum line per step.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NX 64
#define NY 64
#define NZ 8
#define BLKPAD 33

#ifdef SHORT_BLOCKS
#define BLOCK 24
#else
#define BLOCK 16
#endif

typedef struct {
    double real, imag;
} dcomplex;

int blk;
static int dims[3][3];
static dcomplex u0[NZ][NY][NX], u1[NZ][NY][NX], u2[NZ][NY][NX];
static double scale[NX], ex[256];
static int ix[NZ][NY][NX];

#ifdef CHECK_CALL
/* FT's `cfftz` at -O2: a call the block loop makes that may not return
 * (it stops the program on a bad direction) and writes only its scratch */
__attribute__((noinline)) static void check(int is, dcomplex *y) {
    if (is != 1 && is != -1) {
        printf("rows: bad direction %d\n", is);
        exit(1);
    }
    y[0].imag += 0.0;
}
#endif

static void rows(int is, int d[3], dcomplex x[NZ][NY][NX], dcomplex xout[NZ][NY][NX]) {
#pragma omp parallel
    {
        dcomplex y[NX][BLKPAD];
#pragma omp for
        for (int k = 0; k < d[2]; k++) {
            for (int jj = 0; jj <= d[1] - blk; jj += blk) {
                for (int j = 0; j < blk; j++)
                    for (int i = 0; i < d[0]; i++) {
                        y[i][j].real = x[k][j + jj][i].real;
                        y[i][j].imag = x[k][j + jj][i].imag;
                    }
#ifdef CHECK_CALL
                check(is, &y[0][0]);
#else
                if (is != 1 && is != -1) {
#ifdef READ_IN_CHECK
                    printf("rows: bad direction %d (%f)\n", is, xout[k][jj][0].real);
#else
                    printf("rows: bad direction %d\n", is);
#endif
                    exit(1);
                }
#endif
                for (int j = 0; j < blk; j++)
                    for (int i = 0; i < d[0]; i++) {
                        xout[k][j + jj][i].real = is * y[i][j].real * scale[i] + 0.5 * y[(i + 1) % d[0]][j].imag;
                        xout[k][j + jj][i].imag = y[i][j].imag - 0.25 * y[i][j].real;
                    }
            }
        }
    }
}

/* every other plane only: on the `dir == 1` path `x2` is not rewritten */
static void half(dcomplex x[NZ][NY][NX], dcomplex xout[NZ][NY][NX]) {
#pragma omp parallel for
    for (int k = 0; k < NZ; k += 2)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                xout[k][j][i] = x[k][j][i];
}

static void transform(int dir, dcomplex x1[NZ][NY][NX], dcomplex x2[NZ][NY][NX]) {
    if (dir == 1) {
        rows(1, dims[1], x1, x1);
        half(x1, x2);
    } else {
        rows(-1, dims[2], x1, x1);
        rows(-1, dims[0], x1, x2);
    }
}

/* FT's `evolve`: u1 = u0 times a factor looked up per element */
static void evolve(int step, int d[3]) {
#pragma omp parallel for
    for (int k = 0; k < d[2]; k++)
        for (int j = 0; j < d[1]; j++)
            for (int i = 0; i < d[0]; i++) {
                double f = ex[(step * ix[k][j][i]) % 256];
                u1[k][j][i].real = u0[k][j][i].real * f;
                u1[k][j][i].imag = u0[k][j][i].imag * f;
            }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int n = argc > 2 ? atoi(argv[2]) : 64;
    if (n < 32 || n > 64) {
        fprintf(stderr, "extent must be 32 to 64\n");
        return 2;
    }
    for (int i = 0; i < 3; i++) {
        dims[i][0] = n;
        dims[i][1] = n;
        dims[i][2] = NZ;
    }
    blk = BLOCK;
    for (int i = 0; i < NX; i++)
        scale[i] = 1.0 + i / 128.0;
    for (int i = 0; i < 256; i++)
        ex[i] = 1.0 / (1.0 + 0.01 * (i % 7));
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                u0[k][j][i].real = ((k * 131 + j * 17 + i * 3) % 97) / 97.0;
                u0[k][j][i].imag = ((k * 7 + j * 29 + i * 11) % 89) / 89.0;
                ix[k][j][i] = (i * i + j * 3 + k) % 251;
                u2[k][j][i].real = 0.125 * i;
                u2[k][j][i].imag = -0.5 * j;
            }
    transform(1, u0, u1);
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint();
        evolve(step, dims[0]);
        transform(-1, u1, u2);
        double sr = 0.0, si = 0.0;
        for (int q = 1; q <= 256; q++) {
            int i = (q * 5) % NX, j = (q * 3) % NY, k = q % NZ;
            sr += u2[k][j][i].real;
            si += u2[k][j][i].imag;
        }
        printf("step %d checksum %.10e %.10e\n", step, sr, si);
    }
    return 0;
}
