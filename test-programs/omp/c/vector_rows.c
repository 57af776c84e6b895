/* vector_rows.c -- a scratch array rewritten row by row by a vectorised
 * loop and its scalar remainder (issue #33: NPB 3.0 SP's `lhs`, whose rows
 * are zeroed and filled by loops LLVM vectorises; the extent is known only
 * at run time, so each row is a vector loop over the first n & -k
 * elements, the two fields of a cell interleaved in one vector store, and
 * a scalar loop over the rest; at -O2 each row under a guard `n > 0`).
 * At -O2 and -O3 `w` is dead at the top of the step loop when the extent
 * is at least the array's (a condition checked at run time); `a` and `b`
 * are live.
 *
 * Negative twin, compiled with:
 * -DSKIP_LAST  the rows stop one element short: the last column of `w`
 *              keeps what the step before wrote there, and the next loop
 *              reads it: `w` is live.
 *
 * Arguments: steps (default 20), extent (default 96; 8 to 96).
 * Output: one checksum line per step.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 96

#ifdef SKIP_LAST
#define COLS (n - 1)
#else
#define COLS n
#endif

static int n;
static double w[N][N][2], a[N][N], b[N][N];

static void step_once(int step) {
    double f = 1.0 / (1.0 + step);
    /* (f by value: the loop vectorises, no load of a capture per element) */
#pragma omp parallel for firstprivate(f)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < COLS; j++) {
            /* the two fields of a cell stored separately */
            w[i][j][0] = a[i][j] * 0.5 + b[i][j] * f;
            w[i][j][1] = a[i][j] - b[i][j];
        }
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = 0.25 * w[i][j][0] + 0.75 * w[i][n - 1 - j][1];
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    n = argc > 2 ? atoi(argv[2]) : 96;
    if (n < 8 || n > N) {
        fprintf(stderr, "extent must be 8 to %d\n", N);
        return 2;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = ((i * 37 + j * 11) % 101) / 101.0;
            b[i][j] = ((i * 5 + j * 23) % 89) / 89.0;
            w[i][j][0] = 0.5 * i - 0.25 * j;
            w[i][j][1] = 0.125 * j;
        }
    for (int step = 1; step <= steps; step++) {
        dao_potential_checkpoint();
        step_once(step);
        double s = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                s += a[i][j] * (1 + (i + j) % 3);
        printf("step %d checksum %.12e\n", step, s);
    }
    return 0;
}
