/* Markers inside blocks that only the master runs (issue #18): a `single`
 * (the pass makes the master run a `single` that reaches a marker, so a
 * restart puts the same thread back into it), a `master` and a `masked`
 * block (thread 0), each followed by a barrier where the other threads wait
 * during the checkpoint. Between them, static worksharing loops update a
 * shared array. Every value printed is exact (%a of doubles computed per
 * element; integer sums), identical for any thread count.
 * Argument: the number of iterations. */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 4096

static double x[N];
static long s;

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 20;
#pragma omp parallel
    {
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static) reduction(+ : s)
            for (int i = 0; i < N; i++) {
                x[i] = x[i] * 0.5 + (double)(i % 13);
                s += i % 7;
            }
#pragma omp single
            {
                dao_potential_checkpoint();
                s += it;
                printf("it %d single s=%ld\n", it, s);
            }
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                x[i] = x[i] * 0.75 + (double)(i % 5);
#pragma omp master
            {
                printf("it %d master x=%a\n", it, x[100]);
                dao_potential_checkpoint();
            }
#pragma omp barrier
#pragma omp masked
            {
                dao_potential_checkpoint();
                printf("it %d masked x=%a\n", it, x[4000]);
            }
#pragma omp barrier
        }
    }
    printf("s=%ld\n", s);
    return 0;
}
