/* Tasks created by code not compiled with the dao pass
 * (uninstrumented/spawn.c, linked in): a `single nowait` calls it, and
 * markers follow inside the region, where those tasks may be queued or
 * running. A checkpoint there would lose them at restart, and the runtime
 * cannot count them, so it takes none inside a region where such a task
 * was created (one warning), only at the marker between the regions.
 * Every value printed is exact.
 * Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 64

static long data[N];

void spawn_tasks(long *data, int n, int step);

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    for (int step = 0; step < steps; step++) {
        #pragma omp parallel
        {
            #pragma omp single nowait
            spawn_tasks(data, N, step);
            dao_potential_checkpoint(); /* untracked tasks may be in flight: none here */
            #pragma omp barrier
            dao_potential_checkpoint(); /* same region: none either */
        }
        long s = 0;
        for (int k = 0; k < N; k++)
            s += data[k] * (k + 1);
        printf("step %d sum %ld\n", step, s);
        dao_potential_checkpoint(); /* between the regions: taken */
    }
    return 0;
}
