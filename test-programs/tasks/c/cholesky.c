/* Tiled Cholesky factorisation with OpenMP task dependences (the classic
 * task-parallel kernel: potrf, trsm, syrk and gemm tasks on NT x NT tiles of
 * BS x BS doubles, ordered by depend(in/inout) on the tiles). Each step
 * builds a symmetric positive definite matrix from the step number,
 * factors it, and prints a checksum of the factor; the marker is in the
 * serial step loop. Every task computes its tile in a fixed order, so the
 * output does not depend on the thread count.
 * Arguments: steps [tiles per side] [tile side]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

static int NT = 6, BS = 48;
static double *tiles;   /* NT*NT tiles, each BS*BS, row-major inside */

#define T(i, j) (tiles + ((size_t)(i) * NT + (j)) * BS * BS)

static void potrf(double *a) {
    for (int k = 0; k < BS; k++) {
        double d = sqrt(a[k * BS + k]);
        a[k * BS + k] = d;
        for (int i = k + 1; i < BS; i++)
            a[i * BS + k] /= d;
        for (int j = k + 1; j < BS; j++)
            for (int i = j; i < BS; i++)
                a[i * BS + j] -= a[i * BS + k] * a[j * BS + k];
    }
}

/* b := b * inv(l)^T, l lower triangular */
static void trsm(const double *l, double *b) {
    for (int i = 0; i < BS; i++)
        for (int j = 0; j < BS; j++) {
            double s = b[i * BS + j];
            for (int k = 0; k < j; k++)
                s -= b[i * BS + k] * l[j * BS + k];
            b[i * BS + j] = s / l[j * BS + j];
        }
}

/* c := c - a * b^T */
static void gemm(const double *a, const double *b, double *c) {
    for (int i = 0; i < BS; i++)
        for (int j = 0; j < BS; j++) {
            double s = 0;
            for (int k = 0; k < BS; k++)
                s += a[i * BS + k] * b[j * BS + k];
            c[i * BS + j] -= s;
        }
}

static void fill(int step) {
    int n = NT * BS;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = (i == j) ? n + step : 1.0 / (1 + abs(i - j) + (i * 7 + j * 3 + step) % 5);
            T(i / BS, j / BS)[(i % BS) * BS + j % BS] = v;
        }
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 8;
    if (argc > 2) NT = atoi(argv[2]);
    if (argc > 3) BS = atoi(argv[3]);
    tiles = malloc(sizeof(double) * NT * NT * BS * BS);
    for (int step = 0; step < steps; step++) {
        dao_potential_checkpoint();
        fill(step);
        #pragma omp parallel
        #pragma omp single
        for (int k = 0; k < NT; k++) {
            double *akk = T(k, k);
            #pragma omp task depend(inout: akk[0])
            potrf(akk);
            for (int i = k + 1; i < NT; i++) {
                double *aik = T(i, k);
                #pragma omp task depend(in: akk[0]) depend(inout: aik[0])
                trsm(akk, aik);
            }
            for (int i = k + 1; i < NT; i++) {
                double *aik = T(i, k);
                for (int j = k + 1; j <= i; j++) {
                    double *ajk = T(j, k), *aij = T(i, j);
                    #pragma omp task depend(in: aik[0], ajk[0]) depend(inout: aij[0])
                    gemm(aik, ajk, aij);
                }
            }
        }
        double sum = 0, diag = 0;
        for (int i = 0; i < NT; i++)
            for (int j = 0; j <= i; j++)
                for (int x = 0; x < BS * BS; x++)
                    sum += T(i, j)[x] * (1 + (x % 7));
        for (int i = 0; i < NT; i++)
            for (int x = 0; x < BS; x++)
                diag += log(T(i, i)[x * BS + x]);
        printf("step %d checksum %.10e logdet %.10e\n", step, sum, 2 * diag);
    }
    free(tiles);
    return 0;
}
