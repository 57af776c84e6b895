/* Ranks that reach checkpoint candidates in different orders (a program
 * error for coordinated checkpoints): even ranks reach the marker in
 * phase_a first, odd ranks the one in phase_b. With DAO_DIR set, dao
 * must stop the job at the first look with an error naming every rank's
 * candidate; without DAO_DIR the program runs normally. */
#include <mpi.h>
#include <stdio.h>
#include "dao.h"

static double acc;

__attribute__((noinline)) static void phase_a(int i) {
    dao_potential_checkpoint();
    acc += i * 0.5;
}

__attribute__((noinline)) static void phase_b(int i) {
    dao_potential_checkpoint();
    acc -= i * 0.25;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 20; i++) {
        if (rank % 2 == 0) {
            phase_a(i);
            phase_b(i);
        } else {
            phase_b(i);
            phase_a(i);
        }
    }
    double total = 0.0;
    MPI_Reduce(&acc, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %.6f\n", total);
    MPI_Finalize();
    return 0;
}
