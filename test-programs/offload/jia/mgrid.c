/* mgrid.c -- multigrid V-cycles for the 3-D Poisson equation -lap(u) = f
 * with zero boundary values, written for dao as an OpenMP offload program
 * (Jia, Yang and Ma's (2013) "Mgrid"): four levels of 31^3, 15^3, 7^3 and
 * 3^3 interior points (vertex-centred, each level's point i is the finer
 * level's 2i), weighted Jacobi smoothing (a residual kernel, then an update
 * kernel), full-weighting restriction (27 points) and trilinear
 * prolongation (a gather: each fine point from its coarse neighbours).
 *
 * Device data: u, f, r over all levels (one array each, levels at offsets;
 * u and r alloc scratch at first, f's finest level from `base`), and
 * `base` (to): 1.3 MiB. Each step scales the finest right-hand side by the
 * step (a kernel) and runs one V-cycle: 29 kernels, a marker after each
 * restriction and each prolongation and at the end of the cycle. Every 4
 * steps the finest u and r come back and their sums of squares are
 * printed (host sums in a fixed order of values each computed by one
 * device thread: the same for any thread count).
 * Argument: steps (default 16).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define L 4
#define TOT (33 * 33 * 33 + 17 * 17 * 17 + 9 * 9 * 9 + 5 * 5 * 5)

static const int nint[L] = {31, 15, 7, 3};
static int off[L];

#define ID(n, i, j, k) ((((i) * ((n) + 2)) + (j)) * ((n) + 2) + (k))

/* r = f - A u on level l (interior points; the boundary stays 0) */
static void resid(double *u, double *f, double *r, int l) {
    const int n = nint[l], o = off[l];
    const double ih2 = (double)(n + 1) * (n + 1);
#pragma omp target teams distribute parallel for collapse(3)
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            for (int k = 1; k <= n; k++) {
                const double *uu = u + o;
                double au = 6 * uu[ID(n, i, j, k)] - uu[ID(n, i - 1, j, k)] - uu[ID(n, i + 1, j, k)] - uu[ID(n, i, j - 1, k)] -
                            uu[ID(n, i, j + 1, k)] - uu[ID(n, i, j, k - 1)] - uu[ID(n, i, j, k + 1)];
                r[o + ID(n, i, j, k)] = f[o + ID(n, i, j, k)] - au * ih2;
            }
}

/* one weighted Jacobi sweep: r = f - A u, u += w h^2/6 r */
static void smooth(double *u, double *f, double *r, int l) {
    resid(u, f, r, l);
    const int n = nint[l], o = off[l];
    const double c = 0.8 / (6.0 * (n + 1) * (n + 1));
#pragma omp target teams distribute parallel for collapse(3)
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            for (int k = 1; k <= n; k++)
                u[o + ID(n, i, j, k)] += c * r[o + ID(n, i, j, k)];
}

/* f(l+1) = full weighting of r(l); u(l+1) = 0 (boundary included) */
static void restrict_to(double *u, double *f, double *r, int l) {
    const int nf = nint[l], nc = nint[l + 1], of = off[l], oc = off[l + 1];
    const int m = nc + 2;
#pragma omp target teams distribute parallel for collapse(3)
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            for (int k = 0; k < m; k++) {
                u[oc + ID(nc, i, j, k)] = 0;
                if (i == 0 || j == 0 || k == 0 || i == m - 1 || j == m - 1 || k == m - 1) {
                    f[oc + ID(nc, i, j, k)] = 0;
                    continue;
                }
                double s = 0;
                for (int a = -1; a <= 1; a++)
                    for (int b = -1; b <= 1; b++)
                        for (int c = -1; c <= 1; c++) {
                            const int d = (a != 0) + (b != 0) + (c != 0);
                            const double w = d == 0 ? 0.125 : d == 1 ? 0.0625 : d == 2 ? 0.03125 : 0.015625;
                            s += w * r[of + ID(nf, 2 * i + a, 2 * j + b, 2 * k + c)];
                        }
                f[oc + ID(nc, i, j, k)] = s;
            }
}

/* u(l) += trilinear interpolation of u(l+1) */
static void prolong(double *u, int l) {
    const int nf = nint[l], nc = nint[l + 1], of = off[l], oc = off[l + 1];
#pragma omp target teams distribute parallel for collapse(3)
    for (int i = 1; i <= nf; i++)
        for (int j = 1; j <= nf; j++)
            for (int k = 1; k <= nf; k++) {
                double s = 0;
                for (int a = 0; a <= (i & 1); a++)
                    for (int b = 0; b <= (j & 1); b++)
                        for (int c = 0; c <= (k & 1); c++) {
                            const double w = ((i & 1) ? 0.5 : 1.0) * ((j & 1) ? 0.5 : 1.0) * ((k & 1) ? 0.5 : 1.0);
                            s += w * u[oc + ID(nc, (i >> 1) + a, (j >> 1) + b, (k >> 1) + c)];
                        }
                u[of + ID(nf, i, j, k)] += s;
            }
}

static void vcycle(double *u, double *f, double *r) {
    for (int l = 0; l < L - 1; l++) {
        smooth(u, f, r, l);
        resid(u, f, r, l);
        restrict_to(u, f, r, l);
        dao_potential_checkpoint();
    }
    for (int s = 0; s < 4; s++)
        smooth(u, f, r, L - 1);
    for (int l = L - 2; l >= 0; l--) {
        prolong(u, l);
        dao_potential_checkpoint();
        smooth(u, f, r, l);
    }
    resid(u, f, r, 0);
    dao_potential_checkpoint();
}

static double sumsq(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i] * (1 + i % 5);
    return s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 16;
    for (int l = 1; l < L; l++)
        off[l] = off[l - 1] + (nint[l - 1] + 2) * (nint[l - 1] + 2) * (nint[l - 1] + 2);
    const int nf = nint[0], m0 = (nf + 2) * (nf + 2) * (nf + 2);
    double *u = malloc(TOT * sizeof(double)), *f = malloc(TOT * sizeof(double)), *r = malloc(TOT * sizeof(double));
    double *base = malloc(m0 * sizeof(double));
    /* a few point charges of both signs */
    for (int i = 0; i < m0; i++)
        base[i] = 0;
    unsigned s = 12345;
    for (int q = 0; q < 24; q++) {
        s = s * 1103515245u + 12345u;
        int i = 1 + (s >> 8) % nf, j = 1 + (s >> 13) % nf, k = 1 + (s >> 18) % nf;
        base[ID(nf, i, j, k)] = (q % 2 ? -1.0 : 1.0) * (1 + q % 3) * 1000.0;
    }
#pragma omp target enter data map(to: base[0:m0]) map(alloc: u[0:TOT], f[0:TOT], r[0:TOT])
    /* zero u, f, r on the device */
#pragma omp target teams distribute parallel for
    for (int i = 0; i < TOT; i++) {
        u[i] = 0;
        f[i] = 0;
        r[i] = 0;
    }
    for (int it = 0; it < steps; it++) {
        const double scale = 1.0 + 0.25 * (it % 8);
#pragma omp target teams distribute parallel for
        for (int i = 0; i < m0; i++)
            f[i] = base[i] * scale;
        vcycle(u, f, r);
        if (it % 4 == 3) {
#pragma omp target update from(u[0:m0], r[0:m0])
            printf("step %d: u %.6e r %.6e\n", it + 1, sumsq(u, m0), sumsq(r, m0));
        }
    }
#pragma omp target exit data map(from: u[0:TOT]) map(delete: base[0:m0], f[0:TOT], r[0:TOT])
    printf("final: u %.6e coarse %.6e\n", sumsq(u, m0), sumsq(u + off[1], TOT - off[1]));
    free(u);
    free(f);
    free(r);
    free(base);
    return 0;
}
