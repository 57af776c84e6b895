/* dynamic_c/main.c -- a worksharing loop with a dynamic schedule in a
 * parallel region that calls code of another file (RSBench's and XSBench's
 * shape: the lookups in a `schedule(dynamic)` loop calling functions of
 * other files). The marker is in main's step loop, between regions. The
 * region calls weight() of work.c, which the pass cannot see: it may reach
 * a marker, and does (work.c's, reached inside the dynamic loop when
 * -DMARKER_IN_LOOP is given to work.c, and in the `master` block after
 * it). Such a region is built, and held at run time: no checkpoint is
 * taken while its master is inside it (which chunks libomp has handed out
 * cannot be restored); the due one is taken at main's next candidate.
 * Invariant: the restarted run prints what the uninterrupted run prints.
 * Argument: number of steps (default 30). */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 4096

double weight(int i, int step);
void progress(int step);

static double field[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 30;
    for (int i = 0; i < N; i++)
        field[i] = (i % 17) * 0.25;
    for (int s = 0; s < steps; s++) {
        dao_potential_checkpoint();
        double sum = 0.0, top = 0.0;
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 7) reduction(+ : sum)
            for (int i = 0; i < N; i++) {
                field[i] = 0.5 * field[i] + weight(i, s);
                sum += field[i];
            }
#pragma omp for schedule(guided) reduction(max : top) nowait
            for (int i = 0; i < N; i++)
                if (field[i] > top)
                    top = field[i];
#pragma omp master
            progress(s);
        }
        printf("step %d sum %.12e top %.12e\n", s, sum, top);
    }
    return 0;
}
