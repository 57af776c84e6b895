/* gaussian.c -- Gaussian elimination of a series of dense linear systems
 * A x = b, written for dao as an OpenMP offload program (Jia, Yang and
 * Ma's (2013) "Gaussian"). Per system: a kernel generates A on the device
 * (diagonally dominant, from the system's number), b comes from the host
 * (`target update to`: built from the previous solution); then for every
 * column t two kernels: Fan1 computes the multipliers m[i][t] =
 * a[i][t] / a[t][t] of the rows below, Fan2 subtracts m[i][t] times row t
 * from them (and from b); the triangular system comes back (`target update
 * from`) and the host solves it by back-substitution.
 *
 * Device data: A and the multipliers (alloc; 512 KiB each), b (tofrom).
 * A marker every 32 columns and after each system (the host's solution
 * changes there). Each system prints a checksum of its solution (a host
 * sum in a fixed order of values each computed by one device thread).
 * Argument: systems (default 8).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 256

static double b[N], x[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 8;
    double *a = malloc(N * N * sizeof(double)), *m = malloc(N * N * sizeof(double));
    for (int i = 0; i < N; i++)
        x[i] = 1.0 / (1 + i % 4);
    printf("gaussian: %dx%d\n", N, N);
#pragma omp target enter data map(alloc: a[0:N * N], m[0:N * N])
#pragma omp target data map(tofrom: b)
    {
        for (int it = 0; it < steps; it++) {
            const unsigned seed = 977u * (it + 1);
#pragma omp target teams distribute parallel for collapse(2)
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++) {
                    unsigned h = (unsigned)(i * N + j) * 2654435761u ^ seed;
                    h ^= h >> 15;
                    h *= 2246822519u;
                    h ^= h >> 13;
                    a[i * N + j] = (i == j ? 2.0 * N : 0.0) + ((h & 0xffff) / 65536.0 - 0.5) * 2.0;
                    m[i * N + j] = 0;
                }
            for (int i = 0; i < N; i++)
                b[i] = 1.0 + 0.5 * x[i] + 0.001 * (i % 17);
#pragma omp target update to(b)
            for (int t = 0; t < N - 1; t++) {
                /* Fan1: the multipliers of column t */
#pragma omp target teams distribute parallel for
                for (int i = t + 1; i < N; i++)
                    m[i * N + t] = a[i * N + t] / a[t * N + t];
                /* Fan2: the rows below t, and b */
#pragma omp target teams distribute parallel for collapse(2)
                for (int i = t + 1; i < N; i++)
                    for (int j = t; j < N; j++) {
                        a[i * N + j] -= m[i * N + t] * a[t * N + j];
                        if (j == t)
                            b[i] -= m[i * N + t] * b[t];
                    }
                if (t % 32 == 31)
                    dao_potential_checkpoint();
            }
#pragma omp target update from(a[0:N * N], b)
            for (int i = N - 1; i >= 0; i--) {
                double s = b[i];
                for (int j = i + 1; j < N; j++)
                    s -= a[i * N + j] * x[j];
                x[i] = s / a[i * N + i];
            }
            double c = 0;
            for (int i = 0; i < N; i++)
                c += x[i] * (1 + i % 5);
            printf("system %d: %.6e x[0] %.6e\n", it + 1, c, x[0]);
            dao_potential_checkpoint();
        }
    }
#pragma omp target exit data map(delete: a[0:N * N], m[0:N * N])
    double c = 0;
    for (int i = 0; i < N; i++)
        c += x[i] * x[i];
    printf("final: %.6e\n", c);
    free(a);
    free(m);
    return 0;
}
