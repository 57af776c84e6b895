/* A marker inside a parallel region right after a `single nowait` that
 * creates tasks: when a thread reaches it, tasks may still be queued or
 * running. A checkpoint there would lose them at restart (a restart rebuilds
 * the threads' stacks, not libomp's task queues), so the runtime defers it
 * to a later candidate where no task is in flight (runtime/src/omp/
 * tasks.rs: here to the marker after the barrier); before that, the
 * restarted run printed wrong sums. The tasks
 * write disjoint elements; every value printed is exact.
 * Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 64

static long data[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    #pragma omp parallel
    for (int step = 0; step < steps; step++) {
        #pragma omp single nowait
        for (int k = 0; k < N; k++) {
            #pragma omp task firstprivate(k, step)
            {
                long x = data[k];
                for (int r = 0; r < 20000; r++)
                    x = (x * 3 + k + step) % 1000003;
                data[k] = x;
            }
        }
        dao_potential_checkpoint(); /* tasks may be in flight: deferred */
        #pragma omp barrier
        dao_potential_checkpoint(); /* after the barrier: none are */
        #pragma omp single
        {
            long s = 0;
            for (int k = 0; k < N; k++)
                s += data[k] * (k + 1);
            printf("step %d sum %ld\n", step, s);
        }
    }
    return 0;
}
