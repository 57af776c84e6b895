/* qsort_callback.c -- static state read by a callback (issue #31).
 *
 * Exercises: a comparator handed to qsort (unknown code that calls it
 * back) reads a file-scope static set before the first checkpoint; a
 * handler-style function called through a pointer table reads another
 * static and a static it calls reads a third. The marker's own analysis
 * sees only the calls to qsort and through the table, never a read of
 * these statics by name.
 *
 * Invariant: every global a function whose address is taken may read is
 * kept live across the unknown and indirect calls that may call it, so the
 * sorted order and the sums after a restart equal an uninterrupted run's.
 * Argument: number of steps (default 3000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

static int key_col;
static long scale = 1;
static long bias;

static int cmp(const void *a, const void *b) {
    const int *x = a, *y = b;
    return x[key_col] - y[key_col];
}

static long add_bias(long v) { return v + bias; }
static long op_scale(long v) { return add_bias(v * scale); }
static long op_neg(long v) { return -add_bias(v); }
static long (*const ops[2])(long) = {op_scale, op_neg};

int main(int argc, char **argv) {
    long steps = argc > 1 ? atol(argv[1]) : 3000;
    static int rows[64][4];
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 4; j++)
            rows[i][j] = (i * 37 + j * 11) % 101;
    key_col = 2;
    scale = 3;
    bias = 7;
    long s = 0;
    for (long it = 0; it < steps; it++) {
        dao_potential_checkpoint();
        qsort(rows, 64, sizeof rows[0], cmp);
        s += rows[it % 64][0] * (it % 13 + 1);
        s += ops[it & 1](rows[(it * 7) % 64][1]);
        rows[it % 64][2] = (rows[it % 64][2] + (int)it) % 1000;
    }
    printf("s %ld first %d %d %d %d\n", s, rows[0][0], rows[0][1], rows[0][2], rows[0][3]);
    return 0;
}
