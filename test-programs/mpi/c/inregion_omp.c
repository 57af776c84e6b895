/* Checkpoints inside OpenMP parallel regions of an MPI program: the marker
 * is reached by every thread of each rank's team inside a parallel region
 * (the master looks with the other ranks, MPI_THREAD_FUNNELED; the team is
 * gathered by the non-blocking protocol); an MPI_Allreduce between the
 * regions. Rank 0 prints every 10 steps and a total. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"
#define N 20000
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *a = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) a[i] = (rank + 1) * 0.001 * (i % 13);
    double total = 0;
    for (int t = 0; t < 40; t++) {
        #pragma omp parallel
        {
            for (int k = 0; k < 3; k++) {
                dao_potential_checkpoint();
                #pragma omp for schedule(static)
                for (int i = 0; i < N; i++) a[i] = a[i] * 0.999 + 0.001 * k;
            }
        }
        double s = 0, g = 0;
        for (int i = 0; i < N; i++) s += a[i];
        MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += g;
        if (rank == 0 && t % 10 == 0) printf("t %d g %.12e\n", t, g);
    }
    if (rank == 0) printf("total %.12e\n", total);
    MPI_Finalize();
    return 0;
}
