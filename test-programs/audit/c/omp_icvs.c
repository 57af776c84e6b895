/* omp_icvs.c -- OpenMP internal control variables changed by the program
 * between regions (issue #31's audit): omp_set_num_threads and
 * omp_set_dynamic before the first checkpoint and omp_set_num_threads
 * again between two checkpoints. Argument: the number of steps.
 *
 * Invariant: a restart resumes with the team size the checkpointed run had
 * set (not OMP_NUM_THREADS), so the per-step team sizes summed and printed
 * equal an uninterrupted run's.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

int main(int argc, char **argv) {
    long steps = argc > 1 ? atol(argv[1]) : 30;
    omp_set_num_threads(3);
    omp_set_dynamic(0);
    long tot = 0;
    for (long it = 0; it < steps; it++) {
        dao_potential_checkpoint();
        int n = 0;
#pragma omp parallel reduction(+ : n)
        n += 1;
        tot += n * (it + 1);
        if (it == steps / 3)
            omp_set_num_threads(2);
        for (volatile long w = 0; w < 200000; w++)
            ;
    }
    printf("tot %ld max %d\n", tot, omp_get_max_threads());
    return 0;
}
