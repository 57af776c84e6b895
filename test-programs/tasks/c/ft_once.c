/* Tasks the pass cannot replicate for DAO_TASK_FT=dual, next to one it can:
 * under dual execution each must still run exactly once (a replicated
 * printf would print twice, a replicated atomic add would count twice):
 *   - a task that prints (I/O);
 *   - a task that adds to a counter with `atomic`;
 *   - a task that calls a function through a pointer;
 *   - a task that writes disjoint parts of an array (replicated).
 * Compiled with DAO_REMARKS=1 the pass names each of the first three with
 * file:line. Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 64

static long counter;
static long data[N];

static long twice(long x) { return 2 * x; }
static long thrice(long x) { return 3 * x; }

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 8;
    long (*volatile op)(long) = (steps % 2) ? twice : thrice;
    for (int step = 0; step < steps; step++) {
        dao_potential_checkpoint();
        #pragma omp parallel
        #pragma omp single
        {
            #pragma omp task firstprivate(step)
            printf("step %d: a task prints once\n", step);
            for (int k = 0; k < 16; k++) {
                #pragma omp task firstprivate(k)
                {
                    #pragma omp atomic
                    counter += k;
                }
            }
            for (int k = 0; k < N; k += 8) {
                #pragma omp task firstprivate(k)
                for (int i = k; i < k + 8; i++)
                    data[i] = op(data[i] + i) % 1000003;
            }
            #pragma omp taskwait
            for (int k = 0; k < N; k += 8) {
                #pragma omp task firstprivate(k, step)
                for (int i = k; i < k + 8; i++)
                    data[i] = (data[i] * 5 + step) % 1000003;
            }
        }
        long sum = 0;
        for (int i = 0; i < N; i++)
            sum += data[i] * (i + 1);
        printf("step %d counter %ld sum %ld\n", step, counter, sum);
    }
    return 0;
}
