/* Explicit OpenMP tasks with checkpoints between parallel regions (task-
 * quiescent points): in each step, one region where a single thread
 * generates tasks:
 *   - a recursive fib with `task` + `taskwait` (cutoff from a global read
 *     only inside the tasks);
 *   - tasks that write disjoint blocks of a heap array, with firstprivate
 *     captures, inside a `taskgroup`;
 *   - a `taskloop` summing the blocks with weights from a global table
 *     read only inside the taskloop's body.
 * The marker is in the serial step loop. Every value printed is exact
 * (integers, sums in a fixed order), so the output does not depend on the
 * thread count. Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NB 32
#define BS 512

static int cutoff;            /* read only inside tasks */
static long weights[NB];      /* read only inside the taskloop */
static long fib_results[64];

static long fib(int n) {
    if (n < 2)
        return n;
    if (n < cutoff)
        return fib(n - 1) + fib(n - 2);
    long a, b;
    #pragma omp task shared(a) firstprivate(n)
    a = fib(n - 1);
    #pragma omp task shared(b) firstprivate(n)
    b = fib(n - 2);
    #pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 24;
    cutoff = 12;
    for (int b = 0; b < NB; b++)
        weights[b] = (b * 7) % 11 + 1;
    long *blocks = malloc(NB * BS * sizeof(long));
    for (int i = 0; i < NB * BS; i++)
        blocks[i] = i % 5;
    long total = 0;
    for (int step = 0; step < steps; step++) {
        dao_potential_checkpoint();
        long f = 0, weighted = 0;
        #pragma omp parallel
        #pragma omp single
        {
            f = fib(18 + step % 5);
            #pragma omp taskgroup
            {
                for (int b = 0; b < NB; b++) {
                    long add = step + b;
                    #pragma omp task firstprivate(b, add)
                    for (int i = b * BS; i < (b + 1) * BS; i++)
                        blocks[i] = (blocks[i] * 3 + add) % 1000003;
                }
            }
            long sums[NB];
            #pragma omp taskloop grainsize(4) shared(sums)
            for (int b = 0; b < NB; b++) {
                long s = 0;
                for (int i = b * BS; i < (b + 1) * BS; i++)
                    s += blocks[i];
                sums[b] = s * weights[b];
            }
            for (int b = 0; b < NB; b++)
                weighted += sums[b];
        }
        fib_results[step % 64] = f;
        total = (total + weighted + f) % 1000000007;
        printf("step %d fib %ld weighted %ld total %ld\n", step, f, weighted, total);
    }
    free(blocks);
    return 0;
}
