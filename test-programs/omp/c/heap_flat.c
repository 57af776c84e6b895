/* heap_flat.c -- heap objects (issue #33) in the shape of Rodinia's SRAD:
 * the extents are main's locals (`rows`, `cols` from the command line,
 * read by the regions through their captures: made globals by the pass,
 * promote.rs), the arrays rows * cols floats indexed `k = i * cols + j`
 * (a nest flattened into one run of cells: its count the inner count
 * times the outer one, checked at run time against each block's size).
 *
 * Blocks:
 * - `img` (rows * cols): carried from step to step, updated from `d`;
 * - `d` and `c` (rows * cols): rewritten whole by a `parallel for` at the
 *   top of every step (`c[k]` read back in the same iteration, clamped):
 *   dead at the marker;
 * - `up` (rows ints): a neighbour index per row, written once before the
 *   step loop and read every step: live.
 *
 * Twins (-D):
 * - SHORT_ROWS: the rewrite skips the last row of `d`, whose old values
 *   the update reads: `d` is live (its cover condition asks for rows
 *   rows of cells, the loop writes rows - 1);
 * - READ_D: each step first reads an element of the old `d`: `d` live;
 * - MOVE_COLS: `cols` is written again in the step loop (a value equal to
 *   the old one, so the results do not change): no condition on it holds
 *   at a checkpoint, so `d` and `c` are kept.
 *
 * Invariant: `img`, `up` and the scalars are restored byte for byte, so
 * the per-step checksums (exact integer arithmetic on the floats' bits)
 * after a restart equal those of the uninterrupted run for any thread
 * count, with the bytes left out of a checkpoint poisoned (DAO_DEAD=
 * poison).
 * Arguments: steps (default 200), rows (default 256), cols (default 256).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

#define P 1000003

static int64_t bits(float x) {
    int32_t b;
    memcpy(&b, &x, sizeof b);
    return ((int64_t)b & 0x7fffffff) % P;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 200;
    int rows = argc > 2 ? atoi(argv[2]) : 256;
    int cols = argc > 3 ? atoi(argv[3]) : 256;
    if (rows < 4 || cols < 4) {
        fprintf(stderr, "rows and cols must be at least 4\n");
        return 1;
    }
    int size = rows * cols;
    float *img = malloc(sizeof(float) * size);
    float *d = malloc(sizeof(float) * size);
    float *c = malloc(sizeof(float) * size);
    int *up = malloc(sizeof(int) * rows);
    for (int i = 0; i < rows; i++)
        up[i] = i == 0 ? 0 : i - 1;
    for (int k = 0; k < size; k++)
        img[k] = (float)((k * 7) % 13) * 0.125f + 1.0f;
    int64_t carry = 1;
    for (int s = 0; s < steps; s++) {
        dao_potential_checkpoint(); /* top of the step loop: d and c dead */
#ifdef READ_D
        carry = (carry * 31 + bits(d[(s * 5) % size])) % P;
#endif
#ifdef MOVE_COLS
        cols = size / rows;
#endif
#pragma omp parallel for
#ifdef SHORT_ROWS
        for (int i = 0; i < rows - 1; i++) {
#else
        for (int i = 0; i < rows; i++) {
#endif
            for (int j = 0; j < cols; j++) {
                int k = i * cols + j;
                d[k] = img[up[i] * cols + j] - img[k];
                c[k] = 1.0f / (1.0f + d[k] * d[k]);
                if (c[k] < 0.25f)
                    c[k] = 0.25f;
            }
        }
#pragma omp parallel for
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                int k = i * cols + j;
                img[k] = img[k] + 0.125f * c[k] * d[k];
            }
        }
        int64_t sum = 0;
        for (int k = 0; k < size; k += 17)
            sum = (sum * 7 + bits(img[k])) % P;
        carry = (carry * 13 + sum) % P;
        printf("step %d: %" PRId64 " %" PRId64 "\n", s, sum, carry);
    }
    free(img);
    free(d);
    free(c);
    free(up);
    return 0;
}
