/* Task clauses that change how libomp runs a task, under dual/serial execution
 * and checkpoints: if(0) (undeferred: the creating code calls the entry
 * itself), final (tasks created inside run immediately), untied, priority,
 * mergeable, and a task with depend waited for by `taskwait depend`. Each
 * task writes its own elements; every value printed is exact.
 * Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 256

static long v[N];

static void bump(long *p, long k) {
    for (int r = 0; r < 50; r++)
        *p = (*p * 5 + k + r) % 1000003;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 12;
    for (int step = 0; step < steps; step++) {
        dao_potential_checkpoint();
        #pragma omp parallel
        #pragma omp single
        {
            for (int k = 0; k < 32; k++) {
                #pragma omp task if(k % 2) firstprivate(k)
                bump(&v[k], k + step);
            }
            #pragma omp task final(1)
            {
                for (int k = 32; k < 64; k++) {
                    #pragma omp task firstprivate(k)
                    bump(&v[k], k * 2 + step);
                }
            }
            for (int k = 64; k < 96; k++) {
                #pragma omp task untied firstprivate(k)
                bump(&v[k], k + 3 * step);
            }
            for (int k = 96; k < 128; k++) {
                #pragma omp task priority(k % 4) firstprivate(k)
                bump(&v[k], k + step + 1);
            }
            for (int k = 128; k < 160; k++) {
                #pragma omp task mergeable firstprivate(k)
                bump(&v[k], k + step + 2);
            }
            for (int k = 160; k < 192; k++) {
                #pragma omp task depend(out: v[k]) firstprivate(k)
                bump(&v[k], k + step + 3);
            }
            #pragma omp taskwait depend(in: v[160])
            v[160] += 1;
            #pragma omp taskwait
        }
        long s = 0;
        for (int i = 0; i < N; i++)
            s += v[i] * (i % 7 + 1);
        printf("step %d sum %ld\n", step, s);
    }
    return 0;
}
