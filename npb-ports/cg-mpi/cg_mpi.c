/* cg_mpi.c -- NAS Parallel Benchmark CG (conjugate gradient), a hybrid
 * MPI + OpenMP C port for the dao checkpoint/restart test suite.
 *
 * Inverse power iteration for the smallest eigenvalue of a random sparse
 * symmetric positive definite matrix (NPB 3.x specification): each of the
 * NITER outer iterations runs CGITMAX = 25 unpreconditioned CG steps on
 * A z = x, then zeta = SHIFT + 1 / (x.z) and x = z / ||z||.  The matrix is
 * the one of ../cg/cg.c (same generator, same assembly: each row's columns
 * ascending, duplicates summed in generation order).
 *
 * Class at run time: argv[1] = S (default), W or A (A: benchmarks only).
 *
 * Distribution and what it exercises:
 *   - MPI_COMM_WORLD only; rank r owns the contiguous block of rows
 *     [r*NA/size, (r+1)*NA/size).  Every rank draws the whole random
 *     sequence of generating vectors (cheap) and assembles only its rows,
 *     so its rows are exactly the serial program's.
 *   - The sparse mat-vec needs all of p: MPI_Allgatherv (in place) once per
 *     CG step; the final residual's A z gathers z the same way.
 *   - Dot products: local sums + MPI_Allreduce (x.z and z.z together, two
 *     doubles in one call).
 *   - Row loops: OpenMP `parallel for schedule(static)`.
 *   - Markers: dao_potential_checkpoint() at the top of the outer (NITER)
 *     loop in main, and at the top of each CG step in conj_grad (kept out
 *     of line with noinline, so that a checkpoint there has two frames).
 *
 * Determinism: every local dot product is a sum over fixed blocks of BLK
 * rows (block sums in parallel, each block summed sequentially, the block
 * sums added in block order), so the output does not depend on the thread
 * count; the sums over ranks are MPI_Allreduce's, in a fixed order for a
 * fixed rank count (results differ between rank counts in the last bits).
 *
 * Output (rank 0, stdout): `CG class C na N nonzer K nonzeros M`, then
 * `iter I zeta Z rnorm R` per outer iteration, `Verification: SUCCESSFUL`
 * or `UNSUCCESSFUL` (zeta within 1e-10 relative of the reference), then
 * `ranks N class C zeta Z`.  The time goes to stderr only.  Exit status 0
 * when verified, 1 otherwise, 2 on a bad argument.
 *
 * Build: dao mpicc -O2 -fopenmp -I npb-ports/common npb-ports/cg-mpi/cg_mpi.c
 *        npb-ports/common/npb_common.c -o cg_mpi -lm
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "dao.h"
#include "npb_common.h"

#define RCOND      0.1
#define CGITMAX    25
#define EPSILON_CG 1.0e-10
#define BLK        64          /* rows per block of a dot product */

struct cg_class {
    char   name;
    int    na, nonzer, niter;
    double shift, zeta_ref;
};

static const struct cg_class classes[] = {
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},
    {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},
};

/* ---------------------------------------------------------------------- */
/* Problem data (heap, sized at run time).                                 */

static struct cg_class cls;
static int rank, nranks;
static int row0, nrows;            /* first global row, local row count  */
static int *counts, *displs;       /* rows of every rank (Allgatherv)    */

static int    *rowptr;             /* local CSR: nrows + 1               */
static int    *colidx;             /* global column indices              */
static double *aval;

static double *x, *z, *q, *r;      /* local parts, nrows each            */
static double *p;                  /* all NA entries; own part at row0   */
static double *zall;               /* all NA entries of z (residual)     */
static double *blocksum;           /* one partial sum per BLK-row block  */
static int     nblocks;

/* ---------------------------------------------------------------------- */
/* Matrix generation                                                      */

static void *xmalloc(size_t bytes) {
    void *m = malloc(bytes ? bytes : 1);
    if (!m) {
        fprintf(stderr, "cg_mpi: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return m;
}

/* The NA generating vectors: vector i has cnt[i] nonzeros, at 0-based
 * positions pos[i*w + e] with values val[i*w + e] (w = NONZER + 1).  Each
 * draws NONZER distinct positions in 1..NA (a value, then a position from
 * a uniform number scaled by the power of two >= NA; out-of-range and
 * repeated positions are drawn again), then element i is set to 0.5
 * (overwritten when drawn, appended otherwise). */
static void make_vectors(double *seed, int *cnt, int *pos, double *val) {
    const int n = cls.na, nz = cls.nonzer, w = cls.nonzer + 1;
    int pow2 = 1;
    while (pow2 < n)
        pow2 *= 2;
    for (int i = 0; i < n; i++) {
        int *ps = pos + (size_t)i * w;
        double *vs = val + (size_t)i * w;
        int k = 0;
        while (k < nz) {
            double v = randlc(seed, NPB_A5_13);
            double u = randlc(seed, NPB_A5_13);
            int at = (int)(pow2 * u);          /* 0-based position */
            if (at >= n)
                continue;
            int dup = 0;
            for (int e = 0; e < k; e++)
                if (ps[e] == at)
                    dup = 1;
            if (dup)
                continue;
            ps[k] = at;
            vs[k] = v;
            k++;
        }
        int self = 0;
        for (int e = 0; e < k; e++)
            if (ps[e] == i) {
                vs[e] = 0.5;
                self = 1;
            }
        if (!self) {
            ps[k] = i;
            vs[k] = 0.5;
            k++;
        }
        cnt[i] = k;
    }
}

/* The local rows of A = sum_i s_i v_i v_i^T + (RCOND - SHIFT) I, with
 * s_i = RCOND^(i/NA).  Contributions to the own rows are bucketed by row in
 * generation order; each row is then stably sorted by column and the
 * entries of a column summed in that order. */
static void assemble(const int *cnt, const int *pos, const double *val) {
    const int n = cls.na, w = cls.nonzer + 1, row1 = row0 + nrows;

    rowptr = xmalloc((size_t)(nrows + 1) * sizeof *rowptr);
    for (int j = 0; j <= nrows; j++)
        rowptr[j] = 0;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < cnt[i]; e++) {
            int row = pos[(size_t)i * w + e];
            if (row >= row0 && row < row1)
                rowptr[row - row0 + 1] += cnt[i];
        }
    for (int j = 0; j < nrows; j++)
        rowptr[j + 1] += rowptr[j];
    int total = rowptr[nrows];
    int *bcol = xmalloc((size_t)total * sizeof *bcol);
    double *bval = xmalloc((size_t)total * sizeof *bval);
    int *fill = xmalloc((size_t)(nrows + 1) * sizeof *fill);
    for (int j = 0; j < nrows; j++)
        fill[j] = rowptr[j];

    double size = 1.0, ratio = pow(RCOND, 1.0 / (double)n);
    for (int i = 0; i < n; i++) {
        const int *ps = pos + (size_t)i * w;
        const double *vs = val + (size_t)i * w;
        for (int e = 0; e < cnt[i]; e++) {
            int row = ps[e];
            if (row < row0 || row >= row1)
                continue;
            double scale = size * vs[e];
            for (int f = 0; f < cnt[i]; f++) {
                double v = vs[f] * scale;
                if (ps[f] == row && row == i)
                    v = v + RCOND - cls.shift;
                int k = fill[row - row0]++;
                bcol[k] = ps[f];
                bval[k] = v;
            }
        }
        size *= ratio;
    }

    /* per row: stable insertion sort by column, then merge equal columns
     * (fill[j] becomes the row's distinct column count) */
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < nrows; j++) {
        int b = rowptr[j], e = rowptr[j + 1];
        for (int k = b + 1; k < e; k++) {
            int c = bcol[k];
            double v = bval[k];
            int m = k;
            while (m > b && bcol[m - 1] > c) {
                bcol[m] = bcol[m - 1];
                bval[m] = bval[m - 1];
                m--;
            }
            bcol[m] = c;
            bval[m] = v;
        }
        int d = b;
        for (int k = b; k < e; k++) {
            if (k > b && bcol[k] == bcol[d - 1]) {
                bval[d - 1] += bval[k];
            } else {
                bcol[d] = bcol[k];
                bval[d] = bval[k];
                d++;
            }
        }
        fill[j] = d - b;
    }

    int nnz = 0;
    for (int j = 0; j < nrows; j++)
        nnz += fill[j];
    colidx = xmalloc((size_t)nnz * sizeof *colidx);
    aval = xmalloc((size_t)nnz * sizeof *aval);
    int at = 0;
    for (int j = 0; j < nrows; j++) {
        int b = rowptr[j];
        rowptr[j] = at;
        for (int t = 0; t < fill[j]; t++, at++) {
            colidx[at] = bcol[b + t];
            aval[at] = bval[b + t];
        }
    }
    rowptr[nrows] = at;
    free(bcol);
    free(bval);
    free(fill);
}

/* ---------------------------------------------------------------------- */
/* Kernels on the local rows                                              */

/* The local rows are taken in blocks of BLK: a local reduction is one sum
 * per block (the blocks in parallel, each summed sequentially into
 * blocksum[b]), then the block sums added in block order by sum_blocks()
 * -- the same for any thread count. */
static inline int block_end(int b) {
    return (b + 1) * BLK < nrows ? (b + 1) * BLK : nrows;
}

static double sum_blocks(void) {
    double s = 0.0;
    for (int b = 0; b < nblocks; b++)
        s += blocksum[b];
    return s;
}

/* The sum over the ranks of a local value. */
static double global_sum(double local) {
    double g = 0.0;
    MPI_Allreduce(&local, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return g;
}

/* u.v over the local rows. */
static double local_dot(const double *u, const double *v) {
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < nblocks; b++) {
        double s = 0.0;
        for (int j = b * BLK; j < block_end(b); j++)
            s += u[j] * v[j];
        blocksum[b] = s;
    }
    return sum_blocks();
}

/* q = A p on the local rows (p gathered: all NA entries); returns the
 * local part of p.q. */
static double matvec_pq(void) {
    const double *pl = p + row0;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < nblocks; b++) {
        double s = 0.0;
        for (int j = b * BLK; j < block_end(b); j++) {
            double acc = 0.0;
            for (int k = rowptr[j]; k < rowptr[j + 1]; k++)
                acc += aval[k] * p[colidx[k]];
            q[j] = acc;
            s += pl[j] * acc;
        }
        blocksum[b] = s;
    }
    return sum_blocks();
}

/* z += alpha p, r -= alpha q; returns the local part of r.r. */
static double update_zr(double alpha) {
    const double *pl = p + row0;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < nblocks; b++) {
        double s = 0.0;
        for (int j = b * BLK; j < block_end(b); j++) {
            z[j] += alpha * pl[j];
            r[j] -= alpha * q[j];
            s += r[j] * r[j];
        }
        blocksum[b] = s;
    }
    return sum_blocks();
}

/* r = A z on the local rows (z gathered into zall); returns the local part
 * of ||x - r||^2. */
static double residual_sq(void) {
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < nblocks; b++) {
        double s = 0.0;
        for (int j = b * BLK; j < block_end(b); j++) {
            double acc = 0.0;
            for (int k = rowptr[j]; k < rowptr[j + 1]; k++)
                acc += aval[k] * zall[colidx[k]];
            r[j] = acc;
            double dlt = x[j] - acc;
            s += dlt * dlt;
        }
        blocksum[b] = s;
    }
    return sum_blocks();
}

/* Make every rank's part of a full-length vector known to all. */
static void gather(double *full) {
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, full, counts, displs,
                   MPI_DOUBLE, MPI_COMM_WORLD);
}

/* CGITMAX CG steps on A z = x from z = 0; returns ||x - A z||. */
__attribute__((noinline)) static double conj_grad(void) {
    double *pl = p + row0;                 /* own part of p */
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < nrows; j++) {
        q[j] = 0.0;
        z[j] = 0.0;
        r[j] = x[j];
        pl[j] = x[j];
    }
    double rho = global_sum(local_dot(r, r)), beta = 0.0;

    for (int cgit = 1; cgit <= CGITMAX; cgit++) {
        dao_potential_checkpoint();

        if (cgit > 1) {
            #pragma omp parallel for schedule(static)
            for (int j = 0; j < nrows; j++)
                pl[j] = r[j] + beta * pl[j];
        }
        gather(p);
        double d = global_sum(matvec_pq());
        double alpha = rho / d, rho0 = rho;
        rho = global_sum(update_zr(alpha));
        beta = rho / rho0;
    }

    /* r = A z, then ||x - r|| */
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < nrows; j++)
        zall[row0 + j] = z[j];
    gather(zall);
    return sqrt(global_sum(residual_sq()));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    char want = argc > 1 ? argv[1][0] : 'S';
    if (want == 's' || want == 'w')
        want -= 'a' - 'A';
    int found = 0;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        if (classes[c].name == want && (argc < 2 || argv[1][1] == '\0')) {
            cls = classes[c];
            found = 1;
        }
    if (!found) {
        if (rank == 0)
            fprintf(stderr, "usage: cg_mpi [S|W]\n");
        MPI_Finalize();
        return 2;
    }

    /* the row blocks of all ranks */
    counts = xmalloc((size_t)nranks * sizeof *counts);
    displs = xmalloc((size_t)nranks * sizeof *displs);
    for (int k = 0; k < nranks; k++) {
        displs[k] = (int)((long)k * cls.na / nranks);
        counts[k] = (int)((long)(k + 1) * cls.na / nranks) - displs[k];
    }
    row0 = displs[rank];
    nrows = counts[rank];
    nblocks = (nrows + BLK - 1) / BLK;

    /* the matrix: the generator's first value is drawn and discarded, as
     * in NPB (it initialises zeta there) */
    double seed = 314159265.0;
    (void)randlc(&seed, NPB_A5_13);
    int w = cls.nonzer + 1;
    int *cnt = xmalloc((size_t)cls.na * sizeof *cnt);
    int *pos = xmalloc((size_t)cls.na * w * sizeof *pos);
    double *val = xmalloc((size_t)cls.na * w * sizeof *val);
    make_vectors(&seed, cnt, pos, val);
    assemble(cnt, pos, val);
    free(cnt);
    free(pos);
    free(val);

    x = xmalloc((size_t)(nrows + 1) * sizeof *x);
    z = xmalloc((size_t)(nrows + 1) * sizeof *z);
    q = xmalloc((size_t)(nrows + 1) * sizeof *q);
    r = xmalloc((size_t)(nrows + 1) * sizeof *r);
    p = xmalloc((size_t)cls.na * sizeof *p);
    zall = xmalloc((size_t)cls.na * sizeof *zall);
    blocksum = xmalloc((size_t)(nblocks + 1) * sizeof *blocksum);
    for (int j = 0; j < cls.na; j++)
        p[j] = zall[j] = 0.0;
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < nrows; j++)
        x[j] = 1.0;

    long nnz_local = rowptr[nrows], nnz = 0;
    MPI_Reduce(&nnz_local, &nnz, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("CG class %c na %d nonzer %d nonzeros %ld\n", cls.name, cls.na, cls.nonzer, nnz);

    double zeta = 0.0, t0 = npb_wtime();
    for (int it = 1; it <= cls.niter; it++) {
        dao_potential_checkpoint();

        double rnorm = conj_grad();
        double sums[2], tot[2];            /* x.z and z.z, one Allreduce */
        sums[0] = local_dot(x, z);
        sums[1] = local_dot(z, z);
        MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

        zeta = cls.shift + 1.0 / tot[0];
        double scale = 1.0 / sqrt(tot[1]);
        #pragma omp parallel for schedule(static)
        for (int j = 0; j < nrows; j++)
            x[j] = scale * z[j];
        if (rank == 0)
            printf("iter %d zeta %.13e rnorm %.13e\n", it, zeta, rnorm);
    }
    double secs = npb_wtime() - t0;

    double err = fabs(zeta - cls.zeta_ref) / cls.zeta_ref;
    int verified = err <= EPSILON_CG;
    if (rank == 0) {
        printf("Verification: %s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
        printf("ranks %d class %c zeta %.13e\n", nranks, cls.name, zeta);
        fprintf(stderr, "cg_mpi: %d iterations in %.3f s (relative error %.3e)\n",
                cls.niter, secs, err);
    }
    free(rowptr);
    free(colidx);
    free(aval);
    free(x);
    free(z);
    free(q);
    free(r);
    free(p);
    free(zall);
    free(blocksum);
    free(counts);
    free(displs);
    MPI_Finalize();
    return verified ? 0 : 1;
}
