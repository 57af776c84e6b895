/* swim.c -- shallow-water equations on a periodic N x N grid, written for
 * dao from the finite-difference scheme (Sadourny's energy-conserving
 * scheme with a leapfrog step and a Robert-Asselin time filter), as an
 * OpenMP offload program: Jia, Yang and Ma's (2013) "Swim".
 *
 * Device data: the velocities and pressure u, v, p (tofrom), their new and
 * old levels (unew.. alloc scratch, uold.. to), the fluxes cu, cv, the
 * vorticity z and the height h (alloc scratch): 13 arrays of N*N doubles,
 * 1.6 MiB at N = 128. Per step three kernels (fluxes, new levels, time
 * filter), a marker after each of the first two; every 10 steps the
 * pressure comes back (`target update from`) and a checksum is printed.
 * The checksums are sums in a fixed order on the host of values each
 * computed by one device thread: the same for any thread count.
 * Argument: steps (default 60).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 128
#define NN (N * N)
#define P0 50000.0
#define IX(i, j) (((i) & (N - 1)) * N + ((j) & (N - 1)))

static double u[NN], v[NN], p[NN];
static double uold[NN], vold[NN], pold[NN];

/* a sum of squares of the deviations from `base`, weighted by position
 * (the pressure's mean is conserved: its plain sum says nothing) */
static double checksum(const double *a, double base) {
    double s = 0;
    for (int k = 0; k < NN; k++)
        s += (a[k] - base) * (a[k] - base) * (1 + (k % 7));
    return s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    double *unew = malloc(NN * sizeof(double)), *vnew = malloc(NN * sizeof(double)), *pnew = malloc(NN * sizeof(double));
    double *cu = malloc(NN * sizeof(double)), *cv = malloc(NN * sizeof(double));
    double *z = malloc(NN * sizeof(double)), *h = malloc(NN * sizeof(double));
    const double dt = 90.0, dx = 1e5, dy = 1e5, a = 1e6, alpha = 0.001;
    const double pi = 3.14159265358979323846;
    const double di = 2 * pi / N, dj = 2 * pi / N, el = N * dx, pcf = pi * pi * a * a / (el * el);
    /* initial state from a stream function psi */
    double *psi = malloc(NN * sizeof(double));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            psi[IX(i, j)] = a * sin((i + 0.5) * di) * sin((j + 0.5) * dj);
            p[IX(i, j)] = pcf * (cos(2 * i * di) + cos(2 * j * dj)) + P0;
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            u[IX(i, j)] = -(psi[IX(i, j + 1)] - psi[IX(i, j)]) / dy;
            v[IX(i, j)] = (psi[IX(i + 1, j)] - psi[IX(i, j)]) / dx;
        }
    free(psi);
    for (int k = 0; k < NN; k++) {
        uold[k] = u[k];
        vold[k] = v[k];
        pold[k] = p[k];
    }
    printf("swim %dx%d: initial p %.6e u %.6e\n", N, N, checksum(p, P0), checksum(u, 0));
    const double fsdx = 4.0 / dx, fsdy = 4.0 / dy;
    double tdt = dt;

#pragma omp target enter data map(to: uold, vold, pold) map(alloc: cu[0:NN], cv[0:NN], z[0:NN], h[0:NN])
#pragma omp target data map(tofrom: u, v, p) map(alloc: unew[0:NN], vnew[0:NN], pnew[0:NN])
    {
        for (int it = 0; it < steps; it++) {
            /* fluxes, vorticity, height */
#pragma omp target teams distribute parallel for collapse(2)
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++) {
                    cu[IX(i + 1, j)] = 0.5 * (p[IX(i + 1, j)] + p[IX(i, j)]) * u[IX(i + 1, j)];
                    cv[IX(i, j + 1)] = 0.5 * (p[IX(i, j + 1)] + p[IX(i, j)]) * v[IX(i, j + 1)];
                    z[IX(i + 1, j + 1)] = (fsdx * (v[IX(i + 1, j + 1)] - v[IX(i, j + 1)]) - fsdy * (u[IX(i + 1, j + 1)] - u[IX(i + 1, j)])) /
                                          (p[IX(i, j)] + p[IX(i + 1, j)] + p[IX(i + 1, j + 1)] + p[IX(i, j + 1)]);
                    h[IX(i, j)] = p[IX(i, j)] + 0.25 * (u[IX(i + 1, j)] * u[IX(i + 1, j)] + u[IX(i, j)] * u[IX(i, j)] +
                                                        v[IX(i, j + 1)] * v[IX(i, j + 1)] + v[IX(i, j)] * v[IX(i, j)]);
                }
            dao_potential_checkpoint();
            /* new time level */
            const double tdts8 = tdt / 8.0, tdtsdx = tdt / dx, tdtsdy = tdt / dy;
#pragma omp target teams distribute parallel for collapse(2)
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++) {
                    unew[IX(i + 1, j)] = uold[IX(i + 1, j)] +
                                         tdts8 * (z[IX(i + 1, j + 1)] + z[IX(i + 1, j)]) *
                                             (cv[IX(i + 1, j + 1)] + cv[IX(i, j + 1)] + cv[IX(i, j)] + cv[IX(i + 1, j)]) -
                                         tdtsdx * (h[IX(i + 1, j)] - h[IX(i, j)]);
                    vnew[IX(i, j + 1)] = vold[IX(i, j + 1)] -
                                         tdts8 * (z[IX(i + 1, j + 1)] + z[IX(i, j + 1)]) *
                                             (cu[IX(i + 1, j + 1)] + cu[IX(i, j + 1)] + cu[IX(i, j)] + cu[IX(i + 1, j)]) -
                                         tdtsdy * (h[IX(i, j + 1)] - h[IX(i, j)]);
                    pnew[IX(i, j)] = pold[IX(i, j)] - tdtsdx * (cu[IX(i + 1, j)] - cu[IX(i, j)]) - tdtsdy * (cv[IX(i, j + 1)] - cv[IX(i, j)]);
                }
            dao_potential_checkpoint();
            /* time filter; the first step is a forward step */
            const double al = it == 0 ? 0.0 : alpha;
#pragma omp target teams distribute parallel for
            for (int k = 0; k < NN; k++) {
                uold[k] = u[k] + al * (unew[k] - 2 * u[k] + uold[k]);
                vold[k] = v[k] + al * (vnew[k] - 2 * v[k] + vold[k]);
                pold[k] = p[k] + al * (pnew[k] - 2 * p[k] + pold[k]);
                u[k] = unew[k];
                v[k] = vnew[k];
                p[k] = pnew[k];
            }
            if (it == 0)
                tdt = tdt + tdt;
            if (it % 10 == 9) {
#pragma omp target update from(p)
                printf("step %d: p %.6e\n", it + 1, checksum(p, P0));
            }
        }
    }
#pragma omp target exit data map(from: uold, vold, pold) map(delete: cu[0:NN], cv[0:NN], z[0:NN], h[0:NN])
    printf("final: p %.6e u %.6e v %.6e pold %.6e\n", checksum(p, P0), checksum(u, 0), checksum(v, 0), checksum(pold, P0));
    free(unew);
    free(vnew);
    free(pnew);
    free(cu);
    free(cv);
    free(z);
    free(h);
    return 0;
}
