/* The task-generating `single` idiom with markers inside it (issue #18):
 * one parallel region around the whole run; in it a `single` whose thread
 * runs the step loop and generates the tasks, while the other threads wait
 * at the single's barrier and run the tasks there. Markers after a
 * `taskwait` and after a `taskgroup` inside the single (task-quiescent
 * points: every task created so far has finished; the runtime checks that
 * none is in flight). The pass makes the master run a `single` that reaches
 * a marker, so a restart puts the same thread back into it and the others
 * into its barrier. Tasks: a recursive fib with taskwait (cutoff read only
 * in tasks), block updates with firstprivate captures and `depend` chains
 * between steps, a taskloop. Every value printed is exact.
 * Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NB 16
#define BS 256

static int cutoff;           /* read only inside tasks */
static long weights[NB];     /* read only inside the taskloop */

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
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    cutoff = 10;
    for (int b = 0; b < NB; b++)
        weights[b] = (b * 5) % 7 + 1;
    long *blocks = malloc(NB * BS * sizeof(long));
    for (int i = 0; i < NB * BS; i++)
        blocks[i] = i % 9;
    long total = 0;
    #pragma omp parallel
    #pragma omp single
    for (int step = 0; step < steps; step++) {
        for (int b = 0; b < NB; b++) {
            long *blk = blocks + b * BS;
            long add = step + b;
            #pragma omp task firstprivate(blk, add) depend(inout: blk[0])
            for (int i = 0; i < BS; i++)
                blk[i] = (blk[i] * 7 + add) % 1000003;
        }
        long f = fib(14 + step % 4);
        #pragma omp taskwait
        dao_potential_checkpoint(); /* after taskwait: no task in flight */
        long weighted = 0;
        #pragma omp taskgroup
        {
            long sums[NB];
            #pragma omp taskloop grainsize(2) shared(sums)
            for (int b = 0; b < NB; b++) {
                long s = 0;
                for (int i = b * BS; i < (b + 1) * BS; i++)
                    s += blocks[i];
                sums[b] = s * weights[b];
            }
            for (int b = 0; b < NB; b++)
                weighted += sums[b];
        }
        dao_potential_checkpoint(); /* after the taskgroup */
        total = (total + weighted + f) % 1000000007;
        printf("step %d fib %ld weighted %ld total %ld\n", step, f, weighted, total);
    }
    free(blocks);
    return 0;
}
