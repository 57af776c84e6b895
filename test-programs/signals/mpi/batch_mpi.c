/* batch_mpi.c -- a hybrid MPI + OpenMP job that batch systems signal
 * (issue #37).
 *
 * Exercises: each rank updates its part of an array with an OpenMP loop,
 * sleeps STEP_MS, and the ranks combine a value with MPI_Allreduce; a
 * marker per step. mpirun forwards SIGUSR1 / SIGTERM to every rank, and a
 * test may signal one rank only: the ranks must checkpoint (and, for
 * SIGTERM, exit) at the same candidate. Rank 0 prints and flushes every
 * 10 steps.
 *
 * Invariant: every rank's array, the global sum and the counters are
 * restored byte for byte, so the output after a restart equals the
 * uninterrupted run's.
 * Arguments: STEPS (default 300) STEP_MS (default 10).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"
#include "../c/pause.h"

#define N 8000

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    double step_ms = argc > 2 ? atof(argv[2]) : 10;
    int n = N / size;
    double *u = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        u[i] = ((rank * n + i) % 17) / 17.0;
    double total = 0;
    for (int t = 0; t < steps; t++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            u[i] = u[i] * 0.999 + ((t + i) % 3) * 1e-3;
        double local = 0;
        for (int i = 0; i < n; i++)
            local += u[i];
        double global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += global;
        if (rank == 0 && t % 10 == 9) {
            printf("step %d total %a\n", t + 1, total);
            fflush(stdout);
        }
        pause_ms(step_ms);
        dao_potential_checkpoint();
    }
    if (rank == 0)
        printf("batch_mpi: ranks=%d steps=%d total=%.17g\n", size, steps, total);
    free(u);
    MPI_Finalize();
    return 0;
}
