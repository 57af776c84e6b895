/* A tiled wavefront with `depend`: tile (i, j) of a global matrix needs
 * tiles (i-1, j) and (i, j-1) (the dependence pattern of a tiled LU or
 * Cholesky sweep), each tile a task with depend(in: ...) depend(out: ...)
 * on the tiles' first elements; a global coefficient read only inside the
 * tasks. Checkpoints between the parallel regions, one sweep per step.
 * Integer arithmetic modulo a prime: the output is exact for any thread
 * count. Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define T 8      /* tiles per side */
#define B 32     /* tile side */
#define N (T * B)
#define P 1000003L

static long m[N][N];
static long coef;   /* read only inside the tasks */

static void tile(int ti, int tj) {
    for (int i = ti * B; i < (ti + 1) * B; i++)
        for (int j = tj * B; j < (tj + 1) * B; j++) {
            long up = i > 0 ? m[i - 1][j] : 1, left = j > 0 ? m[i][j - 1] : 1;
            m[i][j] = (m[i][j] + coef * up + left) % P;
        }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 24;
    coef = 3;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            m[i][j] = (i * 31 + j * 17) % 97;
    for (int step = 0; step < steps; step++) {
        dao_potential_checkpoint();
        #pragma omp parallel
        #pragma omp single
        for (int ti = 0; ti < T; ti++)
            for (int tj = 0; tj < T; tj++) {
                #pragma omp task firstprivate(ti, tj) depend(in: m[ti > 0 ? (ti - 1) * B : 0][tj * B], m[ti * B][tj > 0 ? (tj - 1) * B : 0]) depend(out: m[ti * B][tj * B])
                tile(ti, tj);
            }
        long sum = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                sum = (sum + m[i][j] * ((i + j) % 7 + 1)) % P;
        printf("step %d checksum %ld\n", step, sum);
    }
    return 0;
}
