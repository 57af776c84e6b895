/* mg.c -- NAS Parallel Benchmark MG (multigrid), OpenMP C port for the dao
 * checkpoint/restart test suite.
 *
 * Solves the 3-D discrete Poisson problem  A u = v  on a periodic cubic grid
 * with V-cycles (NPB 3.x specification): residual r = v - A u, restriction
 * P^T, smoother u += S r, trilinear prolongation Q.  The right-hand side v
 * is zero except for +1 at the ten largest and -1 at the ten smallest values
 * of a pseudo-random field.
 *
 * Grids are stored the way the popular C port of NPB stores them: every
 * level is a `double ***` built from many small allocations (an array of
 * plane pointers, one row-pointer array per plane, one allocation per grid
 * line), collected into `double ****` level tables u[k], r[k].  Index order
 * is [i3][i2][i1], 0-based, with one ghost layer on each side.
 *
 * The only reduction (the residual norm) uses per-thread partial sums added
 * in thread order, so the printed results are bitwise reproducible.
 *
 * Eight candidate checkpoint markers (dao_potential_checkpoint) are placed at
 * serial points; see README.md for the table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#include "dao.h"
#include "npb_common.h"
#include "mg_params.h"

/* ---------------------------------------------------------------------- */
/* Global state                                                            */

static int lt, lb;
static int nx[LT_TOP + 1], ny[LT_TOP + 1], nz[LT_TOP + 1];
static int m1[LT_TOP + 1], m2[LT_TOP + 1], m3[LT_TOP + 1];

static double ****u;   /* u[k] : solution/correction on level k (1..lt)  */
static double ****r;   /* r[k] : residual on level k                      */
static double ***v;    /* right-hand side, finest level only              */

static double acoef[4];   /* the operator A      */
static double ccoef[4];   /* the smoother S      */

/* Per-thread line buffers for the stencil kernels (one grid line each). */
static double line1[NM], line2[NM];
#pragma omp threadprivate(line1, line2)

#define MAX_THREADS 256
static double part_sum[MAX_THREADS][8];
static double part_max[MAX_THREADS][8];
static int    team_size = 1;

/* ---------------------------------------------------------------------- */
/* Grid allocation                                                         */

static double ***grid_alloc(int n1, int n2, int n3)
{
    double ***g = malloc((size_t)n3 * sizeof(double **));
    if (!g) { perror("malloc"); exit(1); }
    for (int i3 = 0; i3 < n3; i3++) {
        g[i3] = malloc((size_t)n2 * sizeof(double *));
        if (!g[i3]) { perror("malloc"); exit(1); }
        for (int i2 = 0; i2 < n2; i2++) {
            g[i3][i2] = malloc((size_t)n1 * sizeof(double));
            if (!g[i3][i2]) { perror("malloc"); exit(1); }
        }
    }
    return g;
}

static void grid_free(double ***g, int n2, int n3)
{
    for (int i3 = 0; i3 < n3; i3++) {
        for (int i2 = 0; i2 < n2; i2++)
            free(g[i3][i2]);
        free(g[i3]);
    }
    free(g);
}

static void setup_levels(void)
{
    lt = LT_TOP;
    lb = LB;
    nx[lt] = NX_TOP;
    ny[lt] = NY_TOP;
    nz[lt] = NZ_TOP;
    for (int k = lt - 1; k >= 1; k--) {
        nx[k] = nx[k + 1] / 2;
        ny[k] = ny[k + 1] / 2;
        nz[k] = nz[k + 1] / 2;
    }
    for (int k = 1; k <= lt; k++) {
        m1[k] = nx[k] + 2;
        m2[k] = ny[k] + 2;
        m3[k] = nz[k] + 2;
    }
}

static void allocate_grids(void)
{
    u = malloc((size_t)(lt + 1) * sizeof(double ***));
    r = malloc((size_t)(lt + 1) * sizeof(double ***));
    u[0] = r[0] = NULL;
    for (int k = 1; k <= lt; k++) {
        u[k] = grid_alloc(m1[k], m2[k], m3[k]);
        r[k] = grid_alloc(m1[k], m2[k], m3[k]);
    }
    v = grid_alloc(m1[lt], m2[lt], m3[lt]);
}

static void free_grids(void)
{
    for (int k = 1; k <= lt; k++) {
        grid_free(u[k], m2[k], m3[k]);
        grid_free(r[k], m2[k], m3[k]);
    }
    grid_free(v, m2[lt], m3[lt]);
    free(u);
    free(r);
}

/* ---------------------------------------------------------------------- */
/* Grid kernels                                                            */

static void zero3(double ***g, int n1, int n2, int n3)
{
    #pragma omp parallel for schedule(static)
    for (int i3 = 0; i3 < n3; i3++)
        for (int i2 = 0; i2 < n2; i2++)
            for (int i1 = 0; i1 < n1; i1++)
                g[i3][i2][i1] = 0.0;
}

/* periodic boundary: copy the opposite interior layer into the ghosts */
static void comm3(double ***g, int n1, int n2, int n3)
{
    #pragma omp parallel
    {
        #pragma omp for schedule(static)
        for (int i3 = 1; i3 < n3 - 1; i3++)
            for (int i2 = 1; i2 < n2 - 1; i2++) {
                g[i3][i2][0]      = g[i3][i2][n1 - 2];
                g[i3][i2][n1 - 1] = g[i3][i2][1];
            }
        #pragma omp for schedule(static)
        for (int i3 = 1; i3 < n3 - 1; i3++)
            for (int i1 = 0; i1 < n1; i1++) {
                g[i3][0][i1]      = g[i3][n2 - 2][i1];
                g[i3][n2 - 1][i1] = g[i3][1][i1];
            }
        #pragma omp for schedule(static)
        for (int i2 = 0; i2 < n2; i2++)
            for (int i1 = 0; i1 < n1; i1++) {
                g[0][i2][i1]      = g[n3 - 2][i2][i1];
                g[n3 - 1][i2][i1] = g[1][i2][i1];
            }
    }
}

/* rr = vv - A uu   (rr may be the same grid as vv) */
static void resid(double ***uu, double ***vv, double ***rr, int n1, int n2, int n3)
{
    const double a0 = acoef[0], a2 = acoef[2], a3 = acoef[3];

    #pragma omp parallel for schedule(static)
    for (int i3 = 1; i3 < n3 - 1; i3++) {
        for (int i2 = 1; i2 < n2 - 1; i2++) {
            for (int i1 = 0; i1 < n1; i1++) {
                line1[i1] = uu[i3][i2 - 1][i1] + uu[i3][i2 + 1][i1]
                          + uu[i3 - 1][i2][i1] + uu[i3 + 1][i2][i1];
                line2[i1] = uu[i3 - 1][i2 - 1][i1] + uu[i3 - 1][i2 + 1][i1]
                          + uu[i3 + 1][i2 - 1][i1] + uu[i3 + 1][i2 + 1][i1];
            }
            /* acoef[1] is zero: the face-neighbour term is omitted */
            for (int i1 = 1; i1 < n1 - 1; i1++) {
                rr[i3][i2][i1] = vv[i3][i2][i1]
                               - a0 * uu[i3][i2][i1]
                               - a2 * (line2[i1] + line1[i1 - 1] + line1[i1 + 1])
                               - a3 * (line2[i1 - 1] + line2[i1 + 1]);
            }
        }
    }
    comm3(rr, n1, n2, n3);
}

/* uu = uu + S rr */
static void psinv(double ***rr, double ***uu, int n1, int n2, int n3)
{
    const double c0 = ccoef[0], c1 = ccoef[1], c2 = ccoef[2];

    #pragma omp parallel for schedule(static)
    for (int i3 = 1; i3 < n3 - 1; i3++) {
        for (int i2 = 1; i2 < n2 - 1; i2++) {
            for (int i1 = 0; i1 < n1; i1++) {
                line1[i1] = rr[i3][i2 - 1][i1] + rr[i3][i2 + 1][i1]
                          + rr[i3 - 1][i2][i1] + rr[i3 + 1][i2][i1];
                line2[i1] = rr[i3 - 1][i2 - 1][i1] + rr[i3 - 1][i2 + 1][i1]
                          + rr[i3 + 1][i2 - 1][i1] + rr[i3 + 1][i2 + 1][i1];
            }
            /* ccoef[3] is zero: the corner term is omitted */
            for (int i1 = 1; i1 < n1 - 1; i1++) {
                uu[i3][i2][i1] = uu[i3][i2][i1]
                               + c0 * rr[i3][i2][i1]
                               + c1 * (rr[i3][i2][i1 - 1] + rr[i3][i2][i1 + 1] + line1[i1])
                               + c2 * (line2[i1] + line1[i1 - 1] + line1[i1 + 1]);
            }
        }
    }
    comm3(uu, n1, n2, n3);
}

/* restriction: s (coarse, level k-1) = P^T rf (fine, level k) */
static void rprj3(double ***rf, int mk1, int mk2, int mk3,
                  double ***s, int mj1, int mj2, int mj3)
{
    /* offset of the fine point under coarse point j: i = 2 j + 1 - d */
    const int d1 = (mk1 == 3) ? 2 : 1;
    const int d2 = (mk2 == 3) ? 2 : 1;
    const int d3 = (mk3 == 3) ? 2 : 1;

    #pragma omp parallel for schedule(static)
    for (int j3 = 1; j3 < mj3 - 1; j3++) {
        int i3 = 2 * j3 + 1 - d3;
        for (int j2 = 1; j2 < mj2 - 1; j2++) {
            int i2 = 2 * j2 + 1 - d2;
            for (int j1 = 1; j1 < mj1; j1++) {
                int i1 = 2 * j1 + 1 - d1;
                line1[i1 - 1] = rf[i3][i2 - 1][i1 - 1] + rf[i3][i2 + 1][i1 - 1]
                              + rf[i3 - 1][i2][i1 - 1] + rf[i3 + 1][i2][i1 - 1];
                line2[i1 - 1] = rf[i3 - 1][i2 - 1][i1 - 1] + rf[i3 + 1][i2 - 1][i1 - 1]
                              + rf[i3 - 1][i2 + 1][i1 - 1] + rf[i3 + 1][i2 + 1][i1 - 1];
            }
            for (int j1 = 1; j1 < mj1 - 1; j1++) {
                int i1 = 2 * j1 + 1 - d1;
                double edge = rf[i3 - 1][i2 - 1][i1] + rf[i3 + 1][i2 - 1][i1]
                            + rf[i3 - 1][i2 + 1][i1] + rf[i3 + 1][i2 + 1][i1];
                double face = rf[i3][i2 - 1][i1] + rf[i3][i2 + 1][i1]
                            + rf[i3 - 1][i2][i1] + rf[i3 + 1][i2][i1];
                s[j3][j2][j1] = 0.5 * rf[i3][i2][i1]
                              + 0.25 * (rf[i3][i2][i1 - 1] + rf[i3][i2][i1 + 1] + face)
                              + 0.125 * (line1[i1 - 1] + line1[i1 + 1] + edge)
                              + 0.0625 * (line2[i1 - 1] + line2[i1 + 1]);
            }
        }
    }
    comm3(s, mj1, mj2, mj3);
}

/* prolongation: uf (fine, level k) += Q zc (coarse, level k-1) */
static void interp(double ***zc, int mm1, int mm2, int mm3,
                   double ***uf, int n1, int n2, int n3)
{
    if (n1 == 3 || n2 == 3 || n3 == 3) {
        /* only reachable for degenerate (non-cubic, 1-point) grids */
        fprintf(stderr, "mg: interp on a 1-point grid is not supported\n");
        exit(1);
    }

    #pragma omp parallel for schedule(static)
    for (int i3 = 0; i3 < mm3 - 1; i3++) {
        for (int i2 = 0; i2 < mm2 - 1; i2++) {
            double *za = zc[i3][i2],     *zb = zc[i3][i2 + 1];
            double *zd = zc[i3 + 1][i2], *ze = zc[i3 + 1][i2 + 1];
            double *z1 = line1, *z2 = line2;
            double z3[NM];
            for (int i1 = 0; i1 < mm1; i1++) {
                z1[i1] = zb[i1] + za[i1];
                z2[i1] = zd[i1] + za[i1];
                z3[i1] = ze[i1] + zd[i1] + z1[i1];
            }
            double *u00 = uf[2 * i3][2 * i2],     *u10 = uf[2 * i3][2 * i2 + 1];
            double *u01 = uf[2 * i3 + 1][2 * i2], *u11 = uf[2 * i3 + 1][2 * i2 + 1];
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u00[2 * i1]     += za[i1];
                u00[2 * i1 + 1] += 0.5 * (za[i1 + 1] + za[i1]);
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u10[2 * i1]     += 0.5 * z1[i1];
                u10[2 * i1 + 1] += 0.25 * (z1[i1] + z1[i1 + 1]);
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u01[2 * i1]     += 0.5 * z2[i1];
                u01[2 * i1 + 1] += 0.25 * (z2[i1] + z2[i1 + 1]);
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u11[2 * i1]     += 0.25 * z3[i1];
                u11[2 * i1 + 1] += 0.125 * (z3[i1] + z3[i1 + 1]);
            }
        }
    }
}

/* L2 norm (scaled by the number of points) and max norm of the interior */
static void norm2u3(double ***g, int n1, int n2, int n3,
                    double *rnm2, double *rnmu, double npts)
{
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        double s = 0.0, mx = 0.0;
        if (tid == 0)
            team_size = omp_get_num_threads();
        #pragma omp for schedule(static)
        for (int i3 = 1; i3 < n3 - 1; i3++)
            for (int i2 = 1; i2 < n2 - 1; i2++)
                for (int i1 = 1; i1 < n1 - 1; i1++) {
                    double val = g[i3][i2][i1];
                    s += val * val;
                    if (fabs(val) > mx)
                        mx = fabs(val);
                }
        part_sum[tid][0] = s;
        part_max[tid][0] = mx;
    }
    double s = 0.0, mx = 0.0;
    for (int t = 0; t < team_size; t++) {
        s += part_sum[t][0];
        if (part_max[t][0] > mx)
            mx = part_max[t][0];
    }
    *rnm2 = sqrt(s / npts);
    *rnmu = mx;
}

/* ---------------------------------------------------------------------- */
/* Right-hand side                                                         */

#define NCAND 10

struct cand { double val; int i1, i2, i3; };

/* keep `best` sorted so that best[0] is the weakest of the kept candidates;
 * sign = +1 keeps the largest values, -1 the smallest */
static void offer(struct cand *best, double val, int i1, int i2, int i3, double sign)
{
    if (sign * val <= sign * best[0].val)
        return;
    best[0].val = val; best[0].i1 = i1; best[0].i2 = i2; best[0].i3 = i3;
    for (int t = 0; t < NCAND - 1 && sign * best[t].val > sign * best[t + 1].val; t++) {
        struct cand tmp = best[t];
        best[t] = best[t + 1];
        best[t + 1] = tmp;
    }
}

static void zran3(double ***g, int n1, int n2, int n3, int gx, int gy)
{
    const double amul = NPB_A5_13;
    double a_row = lcg_pow(amul, gx);          /* jump one grid line  */
    double a_pln = lcg_pow(amul, (long)gx * gy); /* jump one plane    */
    double seed_pln = 314159265.0, seed_row, seed;
    struct cand hi[NCAND], lo[NCAND];

    zero3(g, n1, n2, n3);

    for (int i3 = 1; i3 < n3 - 1; i3++) {
        seed_row = seed_pln;
        for (int i2 = 1; i2 < n2 - 1; i2++) {
            seed = seed_row;
            vranlc(n1 - 2, &seed, amul, &g[i3][i2][1]);
            (void)randlc(&seed_row, a_row);
        }
        (void)randlc(&seed_pln, a_pln);
    }

    for (int t = 0; t < NCAND; t++) {
        hi[t].val = 0.0; hi[t].i1 = hi[t].i2 = hi[t].i3 = 0;
        lo[t].val = 1.0; lo[t].i1 = lo[t].i2 = lo[t].i3 = 0;
    }
    for (int i3 = 1; i3 < n3 - 1; i3++)
        for (int i2 = 1; i2 < n2 - 1; i2++)
            for (int i1 = 1; i1 < n1 - 1; i1++) {
                double val = g[i3][i2][i1];
                offer(hi, val, i1, i2, i3, +1.0);
                offer(lo, val, i1, i2, i3, -1.0);
            }

    zero3(g, n1, n2, n3);
    for (int t = NCAND - 1; t >= 0; t--)
        g[lo[t].i3][lo[t].i2][lo[t].i1] = -1.0;
    for (int t = NCAND - 1; t >= 0; t--)
        g[hi[t].i3][hi[t].i2][hi[t].i1] = +1.0;
    comm3(g, n1, n2, n3);
}

/* ---------------------------------------------------------------------- */
/* One V-cycle                                                             */

static void mg3p(void)
{
    int k, j;

    /* down: restrict the residual level by level */
    for (k = lt; k >= lb + 1; k--) {
        j = k - 1;
        rprj3(r[k], m1[k], m2[k], m3[k], r[j], m1[j], m2[j], m3[j]);

        /* marker 5: between levels of the down cycle */
        dao_potential_checkpoint();
    }

    /* coarsest level: one smoothing step from zero */
    k = lb;
    zero3(u[k], m1[k], m2[k], m3[k]);
    psinv(r[k], u[k], m1[k], m2[k], m3[k]);

    /* marker 6: bottom of the V-cycle */
    dao_potential_checkpoint();

    /* up: prolongate, form the residual, smooth */
    for (k = lb + 1; k <= lt - 1; k++) {
        j = k - 1;
        zero3(u[k], m1[k], m2[k], m3[k]);
        interp(u[j], m1[j], m2[j], m3[j], u[k], m1[k], m2[k], m3[k]);
        resid(u[k], r[k], r[k], m1[k], m2[k], m3[k]);
        psinv(r[k], u[k], m1[k], m2[k], m3[k]);

        /* marker 7: between levels of the up cycle */
        dao_potential_checkpoint();
    }

    j = lt - 1;
    k = lt;
    interp(u[j], m1[j], m2[j], m3[j], u[lt], m1[lt], m2[lt], m3[lt]);
    resid(u[lt], v, r[lt], m1[lt], m2[lt], m3[lt]);
    psinv(r[lt], u[lt], m1[lt], m2[lt], m3[lt]);
}

int main(void)
{
    double rnm2, rnmu, t0, tinit, tbench, mops, err, npts;
    int verified;

    printf("\n\n NAS Parallel Benchmarks (NPB 3.x semantics, dao port) - MG Benchmark\n\n");
    printf(" Size: %4dx%4dx%4d  (class %c)\n", NX_TOP, NY_TOP, NZ_TOP, CLASS_CHAR);
    printf(" Iterations: %4d\n", NIT);
    printf(" Number of available threads: %5d\n\n", omp_get_max_threads());
    if (omp_get_max_threads() > MAX_THREADS) {
        fprintf(stderr, "mg: at most %d threads supported\n", MAX_THREADS);
        return 2;
    }

    acoef[0] = -8.0 / 3.0;
    acoef[1] =  0.0;
    acoef[2] =  1.0 / 6.0;
    acoef[3] =  1.0 / 12.0;
    if (CLASS_CHAR == 'A' || CLASS_CHAR == 'S' || CLASS_CHAR == 'W') {
        ccoef[0] = -3.0 / 8.0;
        ccoef[1] =  1.0 / 32.0;
        ccoef[2] = -1.0 / 64.0;
        ccoef[3] =  0.0;
    } else {
        ccoef[0] = -3.0 / 17.0;
        ccoef[1] =  1.0 / 33.0;
        ccoef[2] = -1.0 / 61.0;
        ccoef[3] =  0.0;
    }

    t0 = npb_wtime();
    setup_levels();
    npts = (double)nx[lt] * (double)ny[lt] * (double)nz[lt];

    /* marker 1: level sizes known, nothing allocated yet (small live set) */
    dao_potential_checkpoint();

    allocate_grids();
    zero3(u[lt], m1[lt], m2[lt], m3[lt]);
    zran3(v, m1[lt], m2[lt], m3[lt], nx[lt], ny[lt]);
    norm2u3(v, m1[lt], m2[lt], m3[lt], &rnm2, &rnmu, npts);
    printf(" Initial norms: rhs L2 = %.17g  max = %.17g\n", rnm2, rnmu);
    resid(u[lt], v, r[lt], m1[lt], m2[lt], m3[lt]);
    norm2u3(r[lt], m1[lt], m2[lt], m3[lt], &rnm2, &rnmu, npts);

    /* marker 2: right-hand side and first residual ready (all grids live) */
    dao_potential_checkpoint();

    /* one untimed V-cycle to touch all code and data */
    mg3p();
    resid(u[lt], v, r[lt], m1[lt], m2[lt], m3[lt]);

    /* marker 3: after the warm-up cycle, before re-initialisation */
    dao_potential_checkpoint();

    setup_levels();
    zero3(u[lt], m1[lt], m2[lt], m3[lt]);
    zran3(v, m1[lt], m2[lt], m3[lt], nx[lt], ny[lt]);
    tinit = npb_wtime() - t0;
    printf(" Time initialisation = %15.3f seconds\n\n", tinit);

    t0 = npb_wtime();
    resid(u[lt], v, r[lt], m1[lt], m2[lt], m3[lt]);
    norm2u3(r[lt], m1[lt], m2[lt], m3[lt], &rnm2, &rnmu, npts);
    for (int it = 1; it <= NIT; it++) {
        /* marker 4: top of the main iteration */
        dao_potential_checkpoint();

        mg3p();
        resid(u[lt], v, r[lt], m1[lt], m2[lt], m3[lt]);
    }
    norm2u3(r[lt], m1[lt], m2[lt], m3[lt], &rnm2, &rnmu, npts);
    tbench = npb_wtime() - t0;

    /* marker 8: timed section done, before verification */
    dao_potential_checkpoint();

    err = fabs(rnm2 - RNM2_VERIFY) / RNM2_VERIFY;
    verified = err <= EPSILON_MG;
    printf(" Verification quantities:\n");
    printf("  L2 norm of residual  = %.17g\n", rnm2);
    printf("  L2 norm (hex)        = %a\n", rnm2);
    printf("  max norm of residual = %.17g\n", rnmu);
    printf("  reference L2 norm    = %.17g\n", RNM2_VERIFY);
    printf("  relative error       = %.17g\n", err);

    if (tbench > 0.0)
        mops = 58.0 * NIT * npts / tbench / 1.0e6;
    else
        mops = 0.0;
    npb_report("MG", CLASS_CHAR, nx[lt], ny[lt], nz[lt], NIT, tbench, mops,
               "floating point", verified, team_size);

    free_grids();
    return verified ? 0 : 1;
}
