/* stencil3d_heap.c -- 3-D stencils on heap arrays shared by the team (like NPB MG).
 *
 * Exercises: flat 3-D grids malloc'd in main (pointers held in main's frame
 * and passed to the regions as shared variables), a two-level V-cycle:
 * smoothing on the fine grid, restriction to a coarse grid, smoothing there
 * and prolongation back, each a `parallel for schedule(static)` over planes
 * in a helper function; a reduction(max:) of the fine residual (exact).
 * Markers: in the plane loop body of the fine smoother (every plane) and of
 * the restriction, and in main after each cycle.
 *
 * Invariant: every heap block is restored at its old address with its old
 * contents, and every thread's frames are restored byte for byte, so the
 * output after a restart equals that of the uninterrupted run.
 * Argument: number of cycles (default 300; 20 gives ~0.1 s).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NF 66
#define NCG 34
#define IF(i, j, k) (((size_t)(i) * NF + (size_t)(j)) * NF + (size_t)(k))
#define IC(i, j, k) (((size_t)(i) * NCG + (size_t)(j)) * NCG + (size_t)(k))

__attribute__((noinline)) static double smooth_fine(double *dst, const double *src, const double *f) {
    double rmax = 0.0;
#pragma omp parallel for schedule(static) reduction(max : rmax)
    for (int i = 1; i < NF - 1; i++) {
        for (int j = 1; j < NF - 1; j++)
            for (int k = 1; k < NF - 1; k++) {
                double nb = src[IF(i - 1, j, k)] + src[IF(i + 1, j, k)] + src[IF(i, j - 1, k)] + src[IF(i, j + 1, k)] +
                            src[IF(i, j, k - 1)] + src[IF(i, j, k + 1)];
                double r = f[IF(i, j, k)] - (6.0 * src[IF(i, j, k)] - nb);
                rmax = fmax(rmax, fabs(r));
                dst[IF(i, j, k)] = src[IF(i, j, k)] + r / 7.0;
            }
        dao_potential_checkpoint();
    }
    return rmax;
}

__attribute__((noinline)) static void restrict_to(double *c, const double *fine, const double *f) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < NCG - 1; i++) {
        for (int j = 1; j < NCG - 1; j++)
            for (int k = 1; k < NCG - 1; k++) {
                int I = 2 * i - 1, J = 2 * j - 1, K = 2 * k - 1;
                double s = 0.0;
                for (int d = 0; d < 8; d++)
                    s += f[IF(I + (d & 1), J + ((d >> 1) & 1), K + (d >> 2))] -
                         (6.0 * fine[IF(I + (d & 1), J + ((d >> 1) & 1), K + (d >> 2))]) * 0.01;
                c[IC(i, j, k)] = s * 0.125;
            }
        if (i % 4 == 0)
            dao_potential_checkpoint();
    }
}

__attribute__((noinline)) static void smooth_coarse(double *dst, const double *src, const double *rc) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < NCG - 1; i++)
        for (int j = 1; j < NCG - 1; j++)
            for (int k = 1; k < NCG - 1; k++) {
                double nb = src[IC(i - 1, j, k)] + src[IC(i + 1, j, k)] + src[IC(i, j - 1, k)] + src[IC(i, j + 1, k)] +
                            src[IC(i, j, k - 1)] + src[IC(i, j, k + 1)];
                dst[IC(i, j, k)] = (rc[IC(i, j, k)] + nb) / 6.5;
            }
}

__attribute__((noinline)) static void prolongate(double *fine, const double *c) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < NF - 1; i++)
        for (int j = 1; j < NF - 1; j++)
            for (int k = 1; k < NF - 1; k++)
                fine[IF(i, j, k)] += 0.05 * c[IC((i + 1) / 2, (j + 1) / 2, (k + 1) / 2)];
}

int main(int argc, char **argv) {
    int cycles = argc > 1 ? atoi(argv[1]) : 300;
    size_t nf = (size_t)NF * NF * NF, nc = (size_t)NCG * NCG * NCG;
    double *u = calloc(nf, sizeof *u), *v = calloc(nf, sizeof *v), *f = malloc(nf * sizeof *f);
    double *c1 = calloc(nc, sizeof *c1), *c2 = calloc(nc, sizeof *c2), *rc = calloc(nc, sizeof *rc);
    for (int i = 0; i < NF; i++)
        for (int j = 0; j < NF; j++)
            for (int k = 0; k < NF; k++)
                f[IF(i, j, k)] = ((i * 5 + j * 3 + k) % 13 == 0) ? 1.0 : ((i + 2 * j + 3 * k) % 29 == 0 ? -1.0 : 0.0);
    for (int cy = 0; cy < cycles; cy++) {
        double r1 = smooth_fine(v, u, f);
        double r2 = smooth_fine(u, v, f);
        restrict_to(rc, u, f);
        for (int s = 0; s < 4; s++) {
            smooth_coarse(c2, c1, rc);
            smooth_coarse(c1, c2, rc);
        }
        prolongate(u, c1);
        dao_potential_checkpoint();
        if (cy % 30 == 29 || cy == cycles - 1)
            printf("cycle %d r1=%a r2=%a u=%a c=%a\n", cy + 1, r1, r2, u[IF(NF / 2, NF / 3, NF / 4)],
                   c1[IC(NCG / 2, NCG / 2, NCG / 2)]);
    }
    double s = 0.0;
    for (size_t q = 0; q < nf; q++)
        s += u[q] * (double)(1 + q % 7);
    printf("stencil3d_heap: cycles=%d sum=%.17g\n", cycles, s);
    free(u);
    free(v);
    free(f);
    free(c1);
    free(c2);
    free(rc);
    return 0;
}
