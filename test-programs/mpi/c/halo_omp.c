/* A hybrid MPI + OpenMP program: a 1-D heat stencil split over the ranks,
 * halo cells exchanged with MPI_Sendrecv, each rank's update an OpenMP loop,
 * a global residual by MPI_Allreduce on a communicator made by
 * MPI_Comm_split, the largest |u| by MPI_Allreduce with a user-defined
 * operation (MPI_Op_create), and a marker in the main loop (the
 * communicator and the operation are handles in main's locals, which a
 * restart must keep working). Rank 0 prints the residual every 10 steps and
 * a checksum at the end. Output is
 * independent of the thread count (the reduction is over ranks in a fixed
 * order and each rank's sum is a sequential loop). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 4000

/* The user-defined reduction: the largest absolute value. */
static void absmax_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    double *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    int n = N / size;
    double *u = malloc((n + 2) * sizeof(double));
    double *v = malloc((n + 2) * sizeof(double));
    for (int i = 0; i < n + 2; i++)
        u[i] = (double)((rank * n + i) % 17) / 17.0;
    MPI_Comm all;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &all);
    MPI_Op absmax;
    MPI_Op_create(absmax_fn, 1, &absmax);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int t = 0; t < steps; t++) {
        dao_potential_checkpoint();
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        #pragma omp parallel for schedule(static)
        for (int i = 1; i <= n; i++)
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        double local = 0.0;
        for (int i = 1; i <= n; i++) {
            local += (v[i] - u[i]) * (v[i] - u[i]);
            u[i] = v[i];
        }
        double global = 0.0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, all);
        double lmax = u[n / 2], gmax = 0.0;
        MPI_Allreduce(&lmax, &gmax, 1, MPI_DOUBLE, absmax, all);
        if (rank == 0 && t % 10 == 0)
            printf("step %d residual %.12e max %.12e\n", t, global, gmax);
    }
    double sum = 0.0, total = 0.0;
    for (int i = 1; i <= n; i++)
        sum += u[i] * (rank * n + i);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d checksum %.12e\n", size, total);
    free(u);
    free(v);
    MPI_Op_free(&absmax);
    MPI_Comm_free(&all);
    MPI_Finalize();
    return 0;
}
