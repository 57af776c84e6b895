/* cg.c -- NAS Parallel Benchmark CG (conjugate gradient), OpenMP C port for
 * the dao checkpoint/restart test suite.
 *
 * Estimates the smallest eigenvalue of a large sparse symmetric positive
 * definite matrix with inverse power iteration; each outer iteration solves
 * A z = x approximately with CGITMAX unpreconditioned conjugate-gradient
 * steps.  The matrix is a sum of NA scaled outer products of random sparse
 * vectors, plus a shifted diagonal (NPB 3.x specification).
 *
 * Parallel reductions are computed as per-thread partial sums (static
 * schedule) and added in thread order, so the printed results are bitwise
 * reproducible for a fixed thread count.
 *
 * Eight candidate checkpoint markers (dao_potential_checkpoint) are placed at
 * serial points; see README.md for the table.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#include "dao.h"
#include "npb_common.h"
#include "cg_params.h"

/* ---------------------------------------------------------------------- */
/* Global problem data (statically sized, as in the classic NPB codes).    */

static int    rowstr[NA + 1];
static int    colidx[NZ_MAX];
static double a[NZ_MAX];

static int    nzloc[NA];             /* row fill cursors during assembly   */
static int    arow[NA];              /* nonzeros of each generating vector */
static int    acol[NA][NONZER + 1];  /* their positions (0-based)          */
static double aelt[NA][NONZER + 1];  /* their values                       */

static double x[NA + 2], z[NA + 2], p[NA + 2], q[NA + 2], r[NA + 2];

/* Random-number state shared by the matrix generator. */
static double tran, amult;

/* Per-thread partial sums, padded to a cache line each. */
#define MAX_THREADS 256
static double partial[MAX_THREADS][8];
static int    team_size;

static int    naa, nzz;

/* ---------------------------------------------------------------------- */
/* Matrix generation                                                      */

/* Random sparse vector of length n with nz distinct nonzero positions.
 * Positions (1-based, as the specification numbers them) go to pos[],
 * values to val[]. */
static void random_sparse_vector(int n, int nz, int pow2, double *val, int *pos)
{
    int count = 0;
    while (count < nz) {
        double v   = randlc(&tran, amult);
        double loc = randlc(&tran, amult);
        int idx = (int)(pow2 * loc) + 1;
        int seen = 0;
        if (idx > n)
            continue;
        for (int t = 0; t < count; t++)
            if (pos[t] == idx) { seen = 1; break; }
        if (seen)
            continue;
        val[count] = v;
        pos[count] = idx;
        count++;
    }
}

/* Force element `which` (1-based) of the sparse vector to `value`,
 * appending it when not present. */
static void set_sparse_element(double *val, int *pos, int *count, int which, double value)
{
    int found = 0;
    for (int t = 0; t < *count; t++) {
        if (pos[t] == which) {
            val[t] = value;
            found = 1;
        }
    }
    if (!found) {
        val[*count] = value;
        pos[*count] = which;
        (*count)++;
    }
}

/* Assemble the CSR matrix from the NA generating vectors:
 *   A = sum_i  size_i * v_i v_i^T  + (rcond - shift) I,
 * with size_i = ratio^i, ratio = rcond^(1/n); duplicates are summed.
 *
 * The result is the matrix of NPB 3.x's `sparse`: each row's column indices
 * ascending, each entry the sum of its contributions added in generation
 * order (i, then e, then f) starting from 0.0.  NPB builds it by inserting
 * every contribution into its sorted row, shifting the row's tail (quadratic
 * in the row length; 0.3 s of CG.A's set-up).  Here the contributions are
 * first bucketed by row in generation order (a stable counting sort), then
 * each row is summed in a dense accumulator -- the same additions in the
 * same order, so the same bits -- and its distinct columns are listed in
 * ascending order from a bitmap; the rows are independent, so that part
 * runs in parallel. */
static void assemble_csr(int n)
{
    int nrows = n;

    /* rowstr[j+1] - rowstr[j] = number of contributions to row j */
    for (int j = 0; j <= nrows; j++)
        rowstr[j] = 0;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < arow[i]; e++)
            rowstr[acol[i][e] + 1] += arow[i];
    for (int j = 1; j <= nrows; j++)
        rowstr[j] += rowstr[j - 1];
    if ((long)rowstr[nrows] > NZ_MAX) {
        fprintf(stderr, "cg: matrix needs %d entries, room for %ld\n",
                rowstr[nrows], (long)NZ_MAX);
        exit(1);
    }

    /* 1. bucket the contributions by row, in generation order */
    for (int j = 0; j < nrows; j++)
        nzloc[j] = rowstr[j];          /* fill cursor of row j */

    double size  = 1.0;
    double ratio = pow(RCOND, 1.0 / (double)n);

    for (int i = 0; i < n; i++) {
        for (int e = 0; e < arow[i]; e++) {
            int row = acol[i][e];
            double scale = size * aelt[i][e];
            for (int f = 0; f < arow[i]; f++) {
                int col = acol[i][f];
                double va = aelt[i][f] * scale;
                if (col == row && row == i)
                    va = va + RCOND - SHIFT;
                int k = nzloc[row]++;
                colidx[k] = col;
                a[k] = va;
            }
        }
        size *= ratio;
    }

    /* 2. per row, in parallel: sum the duplicates in a dense accumulator
     *    (in generation order), list the distinct columns in ascending
     *    order, and write the row back to the start of its own bucket (all
     *    of the bucket is read before any of it is written; rows are
     *    independent).  The distinct columns are marked in a bitmap over
     *    the n columns with a summary bitmap of its non-zero words, so they
     *    come out sorted in O(distinct + n / 4096) per row, no sort. */
    const int nwords = (n + 63) / 64, nsumm = (nwords + 63) / 64;
    #pragma omp parallel
    {
        double   *acc  = malloc((size_t)n * sizeof *acc);
        uint64_t *bits = calloc((size_t)nwords, sizeof *bits);
        uint64_t *summ = calloc((size_t)nsumm, sizeof *summ);
        int      *cols = malloc((size_t)n * sizeof *cols);
        if (!acc || !bits || !summ || !cols) {
            fprintf(stderr, "cg: out of memory in assembly\n");
            exit(1);
        }
        #pragma omp for schedule(dynamic, 64)
        for (int j = 0; j < nrows; j++) {
            int begin = rowstr[j], finish = rowstr[j + 1];
            for (int k = begin; k < finish; k++) {
                int c = colidx[k];
                uint64_t m = (uint64_t)1 << (c & 63);
                if (!(bits[c >> 6] & m)) {
                    bits[c >> 6] |= m;
                    summ[c >> 12] |= (uint64_t)1 << ((c >> 6) & 63);
                    acc[c] = 0.0;
                }
                acc[c] += a[k];
            }
            int cnt = 0;
            for (int sw = 0; sw < nsumm; sw++) {
                uint64_t s = summ[sw];
                summ[sw] = 0;
                while (s) {
                    int w = sw * 64 + __builtin_ctzll(s);
                    uint64_t bw = bits[w];
                    bits[w] = 0;
                    s &= s - 1;
                    while (bw) {
                        cols[cnt++] = w * 64 + __builtin_ctzll(bw);
                        bw &= bw - 1;
                    }
                }
            }
            for (int t = 0; t < cnt; t++) {
                int c = cols[t];
                colidx[begin + t] = c;
                a[begin + t] = acc[c];
            }
            nzloc[j] = cnt;                    /* distinct columns of row j */
        }
        free(acc);
        free(bits);
        free(summ);
        free(cols);
    }

    /* 3. squeeze out the unused tail of each bucket */
    int nz = 0;
    for (int j = 0; j < nrows; j++) {
        int src = rowstr[j];
        rowstr[j] = nz;
        for (int t = 0; t < nzloc[j]; t++, nz++) {
            colidx[nz] = colidx[src + t];
            a[nz] = a[src + t];
        }
    }
    rowstr[nrows] = nz;
}

static void generate_matrix(int n)
{
    int    pow2 = 1;
    double vals[NONZER + 1];
    int    poss[NONZER + 1];

    do {
        pow2 *= 2;
    } while (pow2 < n);

    for (int i = 0; i < n; i++) {
        int cnt = NONZER;
        random_sparse_vector(n, NONZER, pow2, vals, poss);
        set_sparse_element(vals, poss, &cnt, i + 1, 0.5);
        arow[i] = cnt;
        for (int e = 0; e < cnt; e++) {
            acol[i][e] = poss[e] - 1;
            aelt[i][e] = vals[e];
        }
    }

    /* marker 2: generating vectors done, CSR assembly not started */
    dao_potential_checkpoint();

    assemble_csr(n);
}

/* ---------------------------------------------------------------------- */
/* Reduction helper: sum of per-thread partials, in thread order.          */

static double sum_partials(int slot)
{
    double s = 0.0;
    for (int t = 0; t < team_size; t++)
        s += partial[t][slot];
    return s;
}

/* ---------------------------------------------------------------------- */
/* CGITMAX conjugate-gradient steps on A z = x from z = 0; returns in *rnorm
 * the norm of the true residual ||x - A z||.                              */

static void conj_grad(double *rnorm)
{
    const int n = naa;
    double rho, rho0, alpha, beta, d;

    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        double s = 0.0;
        if (tid == 0)
            team_size = omp_get_num_threads();
        #pragma omp for schedule(static)
        for (int j = 0; j < n + 1; j++) {
            q[j] = 0.0;
            z[j] = 0.0;
            r[j] = x[j];
            p[j] = x[j];
        }
        #pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            s += r[j] * r[j];
        partial[tid][0] = s;
    }
    rho = sum_partials(0);
    beta = 0.0;

    for (int cgit = 1; cgit <= CGITMAX; cgit++) {
        /* p = r + beta p (not on the first step), then q = A p, d = p.q */
        #pragma omp parallel
        {
            int tid = omp_get_thread_num();
            double s = 0.0;
            if (cgit > 1) {
                #pragma omp for schedule(static)
                for (int j = 0; j < n; j++)
                    p[j] = r[j] + beta * p[j];
            }
            #pragma omp for schedule(static)
            for (int j = 0; j < n; j++) {
                double acc = 0.0;
                for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
                    acc += a[k] * p[colidx[k]];
                q[j] = acc;
                s += p[j] * acc;
            }
            partial[tid][0] = s;
        }
        d = sum_partials(0);
        alpha = rho / d;
        rho0 = rho;

        /* marker 6: inside the CG iteration, between parallel regions */
        dao_potential_checkpoint();

        /* z += alpha p, r -= alpha q, rho = r.r */
        #pragma omp parallel
        {
            int tid = omp_get_thread_num();
            double s = 0.0;
            #pragma omp for schedule(static)
            for (int j = 0; j < n; j++) {
                z[j] += alpha * p[j];
                r[j] -= alpha * q[j];
                s += r[j] * r[j];
            }
            partial[tid][1] = s;
        }
        rho = sum_partials(1);
        beta = rho / rho0;
    }

    /* marker 7: CG steps done, residual check pending */
    dao_potential_checkpoint();

    /* r = A z, then ||x - r|| */
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        double s = 0.0;
        #pragma omp for schedule(static)
        for (int j = 0; j < n; j++) {
            double acc = 0.0;
            for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
                acc += a[k] * z[colidx[k]];
            r[j] = acc;
            double dlt = x[j] - acc;
            s += dlt * dlt;
        }
        partial[tid][2] = s;
    }
    *rnorm = sqrt(sum_partials(2));
}

/* One outer (inverse power) step: solve, then x = z / ||z||.
 * Returns x.z (before normalisation) through *xz. */
static void power_step(double *rnorm, double *xz)
{
    double zz, scale;
    const int n = naa;

    conj_grad(rnorm);

    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        double s1 = 0.0, s2 = 0.0;
        #pragma omp for schedule(static)
        for (int j = 0; j < n; j++) {
            s1 += x[j] * z[j];
            s2 += z[j] * z[j];
        }
        partial[tid][3] = s1;
        partial[tid][4] = s2;
    }
    *xz = sum_partials(3);
    zz  = sum_partials(4);
    scale = 1.0 / sqrt(zz);

    #pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++)
        x[j] = scale * z[j];
}

static void set_x_ones(void)
{
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < naa + 1; j++)
        x[j] = 1.0;
}

int main(void)
{
    double zeta, rnorm = 0.0, xz, t0, tbench, tinit, err, mops;
    int verified, nthreads;

    naa = NA;
    nzz = (int)NZ_MAX;

    printf("\n\n NAS Parallel Benchmarks (NPB 3.x semantics, dao port) - CG Benchmark\n\n");
    printf(" Size: %11d\n", NA);
    printf(" Iterations: %5d\n", NITER);
    nthreads = omp_get_max_threads();
    printf(" Number of available threads: %5d\n\n", nthreads);
    if (nthreads > MAX_THREADS) {
        fprintf(stderr, "cg: at most %d threads supported\n", MAX_THREADS);
        return 2;
    }

    tran  = 314159265.0;
    amult = NPB_A5_13;
    zeta  = randlc(&tran, amult);

    /* marker 1: start of initialisation, tiny live set */
    dao_potential_checkpoint();

    t0 = npb_wtime();
    generate_matrix(naa);

    /* zero the work vectors (first touch in parallel) and set x = 1 */
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < naa + 2; j++) {
        z[j] = 0.0; p[j] = 0.0; q[j] = 0.0; r[j] = 0.0;
    }
    set_x_ones();
    zeta = 0.0;
    printf(" Nonzeros of A: %d\n", rowstr[naa]);

    /* marker 3: matrix assembled, vectors initialised */
    dao_potential_checkpoint();

    /* one untimed step to touch all code and data */
    power_step(&rnorm, &xz);

    /* marker 4: after the warm-up step, before the reset */
    dao_potential_checkpoint();

    set_x_ones();
    zeta = 0.0;
    tinit = npb_wtime() - t0;
    printf(" Time initialisation = %15.3f seconds\n\n", tinit);

    t0 = npb_wtime();
    printf("   iteration           ||r||                     zeta\n");
    for (int it = 1; it <= NITER; it++) {
        /* marker 5: top of the main iteration */
        dao_potential_checkpoint();

        power_step(&rnorm, &xz);
        zeta = SHIFT + 1.0 / xz;
        printf("    %5d    %.17g    %.17g\n", it, rnorm, zeta);
    }
    tbench = npb_wtime() - t0;

    /* marker 8: timed section done, before verification */
    dao_potential_checkpoint();

    err = fabs(zeta - ZETA_VERIFY) / ZETA_VERIFY;
    verified = err <= EPSILON_CG;
    printf(" Verification quantities:\n");
    printf("  zeta             = %.17g\n", zeta);
    printf("  zeta (hex)       = %a\n", zeta);
    printf("  reference zeta   = %.17g\n", ZETA_VERIFY);
    printf("  relative error   = %.17g\n", err);
    printf("  final ||r||      = %.17g\n", rnorm);

    if (tbench > 0.0)
        mops = 2.0 * NITER * (double)NA
             * (3.0 + (double)(NONZER * (NONZER + 1))
                + 25.0 * (5.0 + (double)(NONZER * (NONZER + 1))) + 3.0)
             / tbench / 1.0e6;
    else
        mops = 0.0;

    npb_report("CG", CLASS_CHAR, NA, 0, 0, NITER, tbench, mops,
               "floating point", verified, team_size);
    return verified ? 0 : 1;
}
