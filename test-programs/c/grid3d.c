/* grid3d.c -- a 3-D grid as arrays of pointers to rows (like NPB MG).
 *
 * Exercises: a `double ***` grid built from many small mallocs (one block
 * of plane pointers, one block of row pointers per plane, one block per
 * row), two such grids swapped through pointer variables every iteration,
 * a 7-point stencil, and a marker inside the plane loop and after each
 * sweep. Pointers into the heap are stored in the heap itself.
 *
 * Invariant: every heap block (plane tables, row tables, rows) is restored
 * at its old address with its old contents, and every live variable of
 * every frame on the chain is restored byte for byte, so the printed
 * results equal those of the uninterrupted run.
 * Argument: number of sweeps (default 800).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NX 66

static double ***alloc_grid(int n) {
    double ***g = malloc((size_t)n * sizeof *g);
    for (int i = 0; i < n; i++) {
        g[i] = malloc((size_t)n * sizeof **g);
        for (int j = 0; j < n; j++)
            g[i][j] = calloc((size_t)n, sizeof ***g);
    }
    return g;
}

static void free_grid(double ***g, int n) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            free(g[i][j]);
        free(g[i]);
    }
    free(g);
}

__attribute__((noinline)) static double sweep(double ***dst, double ***src, int n, double c) {
    double resid = 0.0;
    for (int i = 1; i < n - 1; i++) {
        for (int j = 1; j < n - 1; j++) {
            double *d = dst[i][j];
            const double *s0 = src[i][j], *sm = src[i - 1][j], *sp = src[i + 1][j];
            const double *s1 = src[i][j - 1], *s2 = src[i][j + 1];
            for (int k = 1; k < n - 1; k++) {
                double v = c * (sm[k] + sp[k] + s1[k] + s2[k] + s0[k - 1] + s0[k + 1]) + (1.0 - 6.0 * c) * s0[k];
                resid += (v - s0[k]) * (v - s0[k]);
                d[k] = v;
            }
        }
        if (i % 8 == 0)
            dao_potential_checkpoint();
    }
    return resid;
}

int main(int argc, char **argv) {
    int sweeps = argc > 1 ? atoi(argv[1]) : 800;
    int n = NX;
    double ***u = alloc_grid(n), ***v = alloc_grid(n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                double x = (double)((i * 7 + j * 13 + k * 29) % 17) / 17.0;
                u[i][j][k] = x;
                v[i][j][k] = x;
            }
    double total = 0.0;
    for (int s = 0; s < sweeps; s++) {
        double r = sweep(v, u, n, 0.1);
        dao_potential_checkpoint();
        double ***t = u;
        u = v;
        v = t;
        total += r;
        if (s % 100 == 99)
            printf("sweep %d resid %a center %a\n", s + 1, r, u[n / 2][n / 2][n / 2]);
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                sum += u[i][j][k] * (double)(1 + ((i + j + k) & 3));
    printf("grid3d: sweeps=%d total=%.17g sum=%.17g\n", sweeps, total, sum);
    free_grid(u, n);
    free_grid(v, n);
    return 0;
}
