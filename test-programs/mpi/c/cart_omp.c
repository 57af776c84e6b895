/* A hybrid MPI + OpenMP program: a 2-D heat stencil on a 256 x 256 grid
 * decomposed over a 2-D Cartesian communicator. It exercises MPI objects
 * that must stay valid across a checkpoint/restart, all created before the
 * main loop and used in every iteration:
 *   - MPI_Dims_create + MPI_Cart_create (rows non-periodic, columns
 *     periodic), MPI_Cart_coords, neighbours from MPI_Cart_shift;
 *   - MPI_Comm_dup of the Cartesian communicator (the row halos travel on
 *     the duplicate, everything else on the Cartesian one);
 *   - derived datatypes, committed before the loop: MPI_Type_vector for the
 *     non-contiguous column halos, MPI_Type_contiguous for the row halos;
 *   - in the loop: column halos with MPI_Irecv/MPI_Isend + MPI_Waitall, row
 *     halos with MPI_Sendrecv (MPI_PROC_NULL at the non-periodic edges), the
 *     update an OpenMP parallel for, a residual by MPI_Allreduce;
 *   - after the loop: a checksum by MPI_Reduce, then MPI_Type_free and
 *     MPI_Comm_free of everything created.
 * Markers: one at the top of the loop body, one in local_residual (not
 * inlined), called once per iteration.
 * Rank 0 prints the residual every 10 steps and a checksum at the end. The
 * output does not depend on the thread count: the update is pointwise and
 * every sum is a sequential loop (the sums over ranks are MPI's, in a fixed
 * order for a fixed rank count). Steps: argv[1], default 1000. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NX 256          /* global rows    (dimension 0, non-periodic) */
#define NY 256          /* global columns (dimension 1, periodic)     */

/* The decomposition: every MPI handle the loop uses. */
struct decomp {
    MPI_Comm cart;          /* 2-D Cartesian communicator          */
    MPI_Comm dup;           /* its duplicate: row halos            */
    MPI_Datatype row_t;     /* nc contiguous doubles (a row)       */
    MPI_Datatype col_t;     /* nr doubles, stride nc + 2 (a column) */
    int up, down;           /* neighbours in dimension 0           */
    int left, right;        /* neighbours in dimension 1 (periodic) */
    int nr, nc;             /* local rows, columns (no halo)       */
    int row0, col0;         /* global index of the first local cell */
};

#define AT(u, d, i, j) ((u)[(size_t)(i) * ((d)->nc + 2) + (j)])

static void exchange(double *u, const struct decomp *d) {
    MPI_Request req[4];
    int nr = d->nr, nc = d->nc;
    /* columns (periodic): non-blocking, on the Cartesian communicator */
    MPI_Irecv(&AT(u, d, 1, 0), 1, d->col_t, d->left, 10, d->cart, &req[0]);
    MPI_Irecv(&AT(u, d, 1, nc + 1), 1, d->col_t, d->right, 11, d->cart, &req[1]);
    MPI_Isend(&AT(u, d, 1, nc), 1, d->col_t, d->right, 10, d->cart, &req[2]);
    MPI_Isend(&AT(u, d, 1, 1), 1, d->col_t, d->left, 11, d->cart, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    /* rows (non-periodic): MPI_Sendrecv on the duplicate communicator */
    MPI_Sendrecv(&AT(u, d, 1, 1), 1, d->row_t, d->up, 20,
                 &AT(u, d, nr + 1, 1), 1, d->row_t, d->down, 20, d->dup, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, d, nr, 1), 1, d->row_t, d->down, 21,
                 &AT(u, d, 0, 1), 1, d->row_t, d->up, 21, d->dup, MPI_STATUS_IGNORE);
}

/* Sum of (v - u)^2 over the local cells, then u = v; sequential, so the
 * same for any thread count. Holds the second marker. */
__attribute__((noinline)) static double local_residual(double *u, const double *v,
                                                       const struct decomp *d) {
    dao_potential_checkpoint();
    double s = 0.0;
    for (int i = 1; i <= d->nr; i++)
        for (int j = 1; j <= d->nc; j++) {
            double diff = AT(v, d, i, j) - AT(u, d, i, j);
            s += diff * diff;
            AT(u, d, i, j) = AT(v, d, i, j);
        }
    return s;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 1000;

    struct decomp d;
    int dims[2] = {0, 0}, periods[2] = {0, 1}, coords[2];
    MPI_Dims_create(size, 2, dims);
    if (NX % dims[0] != 0 || NY % dims[1] != 0) {
        fprintf(stderr, "cart_omp: %d x %d ranks do not divide %d x %d\n", dims[0], dims[1], NX, NY);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &d.cart);
    MPI_Comm_rank(d.cart, &rank);
    MPI_Cart_coords(d.cart, rank, 2, coords);
    MPI_Cart_shift(d.cart, 0, 1, &d.up, &d.down);
    MPI_Cart_shift(d.cart, 1, 1, &d.left, &d.right);
    MPI_Comm_dup(d.cart, &d.dup);
    d.nr = NX / dims[0];
    d.nc = NY / dims[1];
    d.row0 = coords[0] * d.nr;
    d.col0 = coords[1] * d.nc;
    MPI_Type_contiguous(d.nc, MPI_DOUBLE, &d.row_t);
    MPI_Type_commit(&d.row_t);
    MPI_Type_vector(d.nr, 1, d.nc + 2, MPI_DOUBLE, &d.col_t);
    MPI_Type_commit(&d.col_t);

    size_t cells = (size_t)(d.nr + 2) * (d.nc + 2);
    double *u = malloc(cells * sizeof(double));
    double *v = malloc(cells * sizeof(double));
    /* interior: a fixed pattern of the global indices; halos of the global
     * top edge 1.0, of the bottom edge 0.0 (fixed: MPI_PROC_NULL there) */
    for (int i = 0; i < d.nr + 2; i++)
        for (int j = 0; j < d.nc + 2; j++) {
            int gi = d.row0 + i - 1, gj = d.col0 + j - 1;
            double val = (double)((gi * 7 + gj * 13 + 5) % 23) / 23.0;
            if (gi < 0)
                val = 1.0;
            else if (gi >= NX)
                val = 0.0;
            AT(u, &d, i, j) = val;
            AT(v, &d, i, j) = val;
        }

    for (int t = 0; t < steps; t++) {
        dao_potential_checkpoint();
        exchange(u, &d);
        #pragma omp parallel for schedule(static)
        for (int i = 1; i <= d.nr; i++)
            for (int j = 1; j <= d.nc; j++)
                AT(v, &d, i, j) = AT(u, &d, i, j)
                    + 0.2 * (AT(u, &d, i - 1, j) + AT(u, &d, i + 1, j)
                             + AT(u, &d, i, j - 1) + AT(u, &d, i, j + 1)
                             - 4.0 * AT(u, &d, i, j));
        double local = local_residual(u, v, &d), global = 0.0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, d.cart);
        if (rank == 0 && t % 10 == 0)
            printf("step %d residual %.12e\n", t, global);
    }

    double sum = 0.0, total = 0.0;
    for (int i = 1; i <= d.nr; i++)
        for (int j = 1; j <= d.nc; j++)
            sum += AT(u, &d, i, j) * (double)((d.row0 + i - 1) * NY + (d.col0 + j - 1) + 1) / (NX * NY);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, d.cart);
    if (rank == 0)
        printf("ranks %d checksum %.12e\n", size, total);
    free(u);
    free(v);
    MPI_Type_free(&d.row_t);
    MPI_Type_free(&d.col_t);
    MPI_Comm_free(&d.dup);
    MPI_Comm_free(&d.cart);
    MPI_Finalize();
    return 0;
}
