/* fft2d.c -- 2-D complex FFTs, forward and inverse every step, written for
 * dao as an OpenMP offload program (Jia, Yang and Ma's (2013) "FFT2D"):
 * the heat equation on a periodic N x N grid solved spectrally. A step:
 * forward FFT of every row (one device thread per row: bit reversal, then
 * radix-2 butterflies with the twiddles of a table), a transpose into
 * scratch, the rows' FFTs again (the columns), damping of each mode by
 * exp(-nu k^2 dt) (a table), the inverse the same way back, scaling by
 * 1/N^2 and a source added at a few points.
 *
 * Device data: the field x (tofrom, 1 MiB), the transposed scratch t
 * (alloc, 1 MiB), the twiddles (to) and the damping table (to, 512 KiB).
 * Seven kernels a step, a marker after the forward transform and at the end
 * of the step; every 4 steps x comes back and a checksum is printed (a host
 * sum in a fixed order of values each computed by one device thread).
 * Argument: steps (default 24).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 256
#define LOGN 8
#define NN (N * N)

/* one device thread per row of `a` (N rows of N complex numbers, re/im
 * interleaved): an in-place radix-2 FFT; sign -1 forward, +1 inverse */
static void fft_rows(double *a, const double *tw, int sign) {
#pragma omp target teams distribute parallel for
    for (int row = 0; row < N; row++) {
        double *x = a + 2 * (long)row * N;
        for (int i = 0; i < N; i++) {
            int j = 0;
            for (int b = 0; b < LOGN; b++)
                j |= ((i >> b) & 1) << (LOGN - 1 - b);
            if (j > i) {
                double re = x[2 * i], im = x[2 * i + 1];
                x[2 * i] = x[2 * j];
                x[2 * i + 1] = x[2 * j + 1];
                x[2 * j] = re;
                x[2 * j + 1] = im;
            }
        }
        for (int len = 2; len <= N; len <<= 1) {
            const int half = len >> 1, stride = N / len;
            for (int s = 0; s < N; s += len)
                for (int k = 0; k < half; k++) {
                    const double wr = tw[2 * k * stride], wi = sign * tw[2 * k * stride + 1];
                    double *p = x + 2 * (s + k), *q = x + 2 * (s + k + half);
                    const double tr = wr * q[0] - wi * q[1], ti = wr * q[1] + wi * q[0];
                    q[0] = p[0] - tr;
                    q[1] = p[1] - ti;
                    p[0] += tr;
                    p[1] += ti;
                }
        }
    }
}

/* dst = transpose of src (complex N x N) */
static void transpose(double *dst, const double *src) {
#pragma omp target teams distribute parallel for collapse(2)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            dst[2 * ((long)j * N + i)] = src[2 * ((long)i * N + j)];
            dst[2 * ((long)j * N + i) + 1] = src[2 * ((long)i * N + j) + 1];
        }
}

static double checksum(const double *x) {
    double s = 0;
    for (int k = 0; k < NN; k++)
        s += (x[2 * k] * x[2 * k] + x[2 * k + 1] * x[2 * k + 1]) * (1 + k % 11);
    return s;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 24;
    const double pi = 3.14159265358979323846;
    double *x = malloc(2 * NN * sizeof(double)), *t = malloc(2 * NN * sizeof(double));
    double *tw = malloc(N * sizeof(double)), *damp = malloc(NN * sizeof(double));
    for (int k = 0; k < N / 2; k++) {
        tw[2 * k] = cos(2 * pi * k / N);
        tw[2 * k + 1] = -sin(2 * pi * k / N);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            const int ki = i <= N / 2 ? i : i - N, kj = j <= N / 2 ? j : j - N;
            damp[i * N + j] = exp(-2e-4 * (ki * ki + kj * kj));
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            x[2 * (i * N + j)] = ((i / 16 + j / 16) % 2) ? 1.0 : -1.0;
            x[2 * (i * N + j) + 1] = 0.01 * ((i * 7 + j * 3) % 13);
        }
    printf("fft2d %dx%d: initial %.6e\n", N, N, checksum(x));
    const double scale = 1.0 / NN;
#pragma omp target enter data map(to: tw[0:N], damp[0:NN])
#pragma omp target data map(tofrom: x[0:2 * NN]) map(alloc: t[0:2 * NN])
    {
        for (int it = 0; it < steps; it++) {
            fft_rows(x, tw, -1);
            transpose(t, x);
            fft_rows(t, tw, -1);
            dao_potential_checkpoint();
            /* t holds the spectrum transposed: mode (j, i) at row i; the
             * damping table is symmetric */
#pragma omp target teams distribute parallel for
            for (int k = 0; k < NN; k++) {
                t[2 * k] *= damp[k] * scale;
                t[2 * k + 1] *= damp[k] * scale;
            }
            fft_rows(t, tw, 1);
            transpose(x, t);
            fft_rows(x, tw, 1);
            const int si = (it * 37) % N, sj = (it * 91) % N;
#pragma omp target teams distribute parallel for
            for (int d = 0; d < 8; d++)
                x[2 * (((si + d) % N) * N + (sj + 3 * d) % N)] += 2.0;
            dao_potential_checkpoint();
            if (it % 4 == 3) {
#pragma omp target update from(x[0:2 * NN])
                printf("step %d: %.6e\n", it + 1, checksum(x));
            }
        }
    }
#pragma omp target exit data map(delete: tw[0:N], damp[0:NN])
    printf("final: %.6e x[0] %.6e %.6e\n", checksum(x), x[0], x[1]);
    free(x);
    free(t);
    free(tw);
    free(damp);
    return 0;
}
