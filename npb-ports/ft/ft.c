/*
 * ft.c -- dao port of the NAS Parallel Benchmark FT (version 3.x semantics).
 *
 * Solves a 3-D PDE u_t = alpha * Laplace(u) spectrally: the initial field is
 * filled with the NPB pseudo-random generator, transformed forward once, and
 * at every iteration the spectrum is damped by exp(-4 alpha pi^2 |k|^2) (the
 * "twiddle" factors) and transformed back; 1024 elements of the result are
 * summed into the checksum of the iteration.
 *
 * Written for dao from the published NPB algorithm description and constants.
 * Real-world patterns on purpose: big file-scope arrays, complex numbers as a
 * struct of two doubles, a table of twiddle factors, OpenMP worksharing loops
 * with static schedules only (results are bitwise reproducible for a given
 * thread count -- in fact for any thread count), and eight candidate
 * checkpoint markers in serial code (see README.md).
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dao.h"

/* ------------------------------------------------------------------------ */
/* Problem classes                                                          */
/* ------------------------------------------------------------------------ */
#if defined(CLASS_S)
#define NX 64
#define NY 64
#define NZ 64
#define NITER 6
#define CLASS_CHAR 'S'
#elif defined(CLASS_W)
#define NX 128
#define NY 128
#define NZ 32
#define NITER 6
#define CLASS_CHAR 'W'
#elif defined(CLASS_A)
#define NX 256
#define NY 256
#define NZ 128
#define NITER 6
#define CLASS_CHAR 'A'
#elif defined(CLASS_B)
#define NX 512
#define NY 256
#define NZ 256
#define NITER 20
#define CLASS_CHAR 'B'
#elif defined(CLASS_C)
#define NX 512
#define NY 512
#define NZ 512
#define NITER 20
#define CLASS_CHAR 'C'
#else
#error "define one of CLASS_S, CLASS_W, CLASS_A, CLASS_B, CLASS_C"
#endif

#define NTOTAL ((long)NX * NY * NZ)
#define NMAXDIM (NX > NY ? (NX > NZ ? NX : NZ) : (NY > NZ ? NY : NZ))

/* Lines transformed together: the butterflies run over LINES independent
 * 1-D transforms at once (unit-stride inner loop, vectorisable). */
#ifndef LINES
#define LINES 16
#endif

static const double ALPHA = 1.0e-6;
static const double PI = 3.141592653589793238;
static const double SEED = 314159265.0;
static const double MULT = 1220703125.0; /* 5^13 */

typedef struct {
    double re, im;
} dcomplex;

/* ------------------------------------------------------------------------ */
/* Global state                                                             */
/* ------------------------------------------------------------------------ */
static dcomplex u0[NZ][NY][NX];    /* spectrum, evolved in place            */
static dcomplex u1[NZ][NY][NX];    /* initial field / evolved copy          */
static dcomplex u2[NZ][NY][NX];    /* result of the inverse transform       */
static double twiddle[NZ][NY][NX]; /* exp(-4 alpha pi^2 |k|^2)              */
static dcomplex roots[NMAXDIM];    /* roots of unity, per butterfly level   */
static dcomplex sums[NITER + 1];   /* checksum of each iteration            */

/* ------------------------------------------------------------------------ */
/* Timer                                                                    */
/* ------------------------------------------------------------------------ */
static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* NPB linear congruential generator: x <- a*x mod 2^46, value x * 2^-46.   */
/* The reference generator does this product exactly in doubles; 64-bit     */
/* unsigned arithmetic gives the same integers (2^46 divides 2^64).         */
/* ------------------------------------------------------------------------ */
#define MOD46_MASK ((UINT64_C(1) << 46) - 1)

static inline uint64_t mul46(uint64_t a, uint64_t b)
{
    return (a * b) & MOD46_MASK;
}

static uint64_t pow46(uint64_t base, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1)
            r = mul46(r, base);
        base = mul46(base, base);
        e >>= 1;
    }
    return r;
}

/* ------------------------------------------------------------------------ */
/* Set-up                                                                   */
/* ------------------------------------------------------------------------ */

/* First touch of the big arrays by the threads that will work on them. */
static void init_ui(void)
{
#pragma omp parallel for schedule(static)
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                u0[k][j][i].re = u0[k][j][i].im = 0.0;
                u1[k][j][i].re = u1[k][j][i].im = 0.0;
                u2[k][j][i].re = u2[k][j][i].im = 0.0;
                twiddle[k][j][i] = 0.0;
            }
}

/* Wave number of index n in a dimension of size len (n in 0..len-1). */
static inline int wave(int n, int len)
{
    return (n + len / 2) % len - len / 2;
}

static void compute_indexmap(void)
{
    const double ap = -4.0 * ALPHA * PI * PI;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < NZ; k++) {
        int kk = wave(k, NZ);
        for (int j = 0; j < NY; j++) {
            int jj = wave(j, NY);
            int jk2 = jj * jj + kk * kk;
            for (int i = 0; i < NX; i++) {
                int ii = wave(i, NX);
                twiddle[k][j][i] = exp(ap * (double)(ii * ii + jk2));
            }
        }
    }
}

/* The field is the generator's stream, real and imaginary parts interleaved,
 * x fastest: plane k starts 2*NX*NY*k numbers into the stream. */
static void compute_initial_conditions(dcomplex field[NZ][NY][NX])
{
    const uint64_t a = (uint64_t)MULT;
    const uint64_t plane_jump = pow46(a, (uint64_t)2 * NX * NY);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < NZ; k++) {
        uint64_t x = mul46((uint64_t)SEED, pow46(plane_jump, (uint64_t)k));
        double *out = &field[k][0][0].re;
        for (long n = 0; n < 2L * NX * NY; n++) {
            x = mul46(a, x);
            out[n] = 0x1p-46 * (double)x;
        }
    }
}

/* Roots of unity for the butterflies: level with half-length h stores
 * exp(i*pi*t/h), t = 0..h-1, at roots[h + t]. */
static void fft_init(int n)
{
    for (int h = 1; h < n; h *= 2) {
        double step = PI / (double)h;
        for (int t = 0; t < h; t++) {
            double ang = (double)t * step;
            roots[h + t].re = cos(ang);
            roots[h + t].im = sin(ang);
        }
    }
    roots[0].re = roots[0].im = 0.0;
}

static int ilog2(int n)
{
    int m = 0;
    while ((1 << m) < n)
        m++;
    return m;
}

/* ------------------------------------------------------------------------ */
/* 1-D FFTs over LINES lines at once (Stockham, radix 2, unnormalised).      */
/* A work buffer holds n rows; row p has LINES real parts then LINES        */
/* imaginary parts.                                                          */
/* ------------------------------------------------------------------------ */
typedef double lines_t[2 * LINES];

/* One butterfly level l (1..m): from src to dst. */
static void butterfly_level(int dir, int l, int m, int n,
                            const lines_t *restrict src, lines_t *restrict dst)
{
    const int half = n / 2;
    const int span = 1 << (l - 1); /* length of the sub-transforms merged */
    const int groups = 1 << (m - l);
    for (int g = 0; g < groups; g++) {
        const double wr = roots[groups + g].re;
        const double wi = dir >= 1 ? roots[groups + g].im : -roots[groups + g].im;
        const int in_a = g * span, in_b = in_a + half;
        const int out_a = 2 * g * span, out_b = out_a + span;
        for (int q = 0; q < span; q++) {
            const double *restrict ar = src[in_a + q];
            const double *restrict br = src[in_b + q];
            double *restrict sr = dst[out_a + q];
            double *restrict dr = dst[out_b + q];
            for (int v = 0; v < LINES; v++) {
                double xr = ar[v], xi = ar[LINES + v];
                double yr = br[v], yi = br[LINES + v];
                sr[v] = xr + yr;
                sr[LINES + v] = xi + yi;
                double tr = xr - yr, ti = xi - yi;
                dr[v] = wr * tr - wi * ti;
                dr[LINES + v] = wr * ti + wi * tr;
            }
        }
    }
}

/* Transform the LINES lines held in buf (scratch: tmp); returns the buffer
 * holding the result. */
static lines_t *fft_lines(int dir, int n, lines_t *buf, lines_t *tmp)
{
    const int m = ilog2(n);
    lines_t *x = buf, *y = tmp;
    for (int l = 1; l <= m; l++) {
        butterfly_level(dir, l, m, n, x, y);
        lines_t *t = x;
        x = y;
        y = t;
    }
    return x;
}

/* Transform along x (unit stride): lines are rows (k, j..j+LINES-1). */
static void fft_x(int dir, dcomplex (*in)[NY][NX], dcomplex (*out)[NY][NX])
{
#pragma omp parallel
    {
        lines_t *buf = malloc(sizeof(lines_t) * NX);
        lines_t *tmp = malloc(sizeof(lines_t) * NX);
#pragma omp for schedule(static)
        for (int blk = 0; blk < NZ * (NY / LINES); blk++) {
            int k = blk / (NY / LINES), j0 = (blk % (NY / LINES)) * LINES;
            for (int v = 0; v < LINES; v++)
                for (int i = 0; i < NX; i++) {
                    buf[i][v] = in[k][j0 + v][i].re;
                    buf[i][LINES + v] = in[k][j0 + v][i].im;
                }
            lines_t *res = fft_lines(dir, NX, buf, tmp);
            for (int v = 0; v < LINES; v++)
                for (int i = 0; i < NX; i++) {
                    out[k][j0 + v][i].re = res[i][v];
                    out[k][j0 + v][i].im = res[i][LINES + v];
                }
        }
        free(buf);
        free(tmp);
    }
}

/* Transform along y: lines are columns (k, i..i+LINES-1). */
static void fft_y(int dir, dcomplex (*in)[NY][NX], dcomplex (*out)[NY][NX])
{
#pragma omp parallel
    {
        lines_t *buf = malloc(sizeof(lines_t) * NY);
        lines_t *tmp = malloc(sizeof(lines_t) * NY);
#pragma omp for schedule(static)
        for (int blk = 0; blk < NZ * (NX / LINES); blk++) {
            int k = blk / (NX / LINES), i0 = (blk % (NX / LINES)) * LINES;
            for (int j = 0; j < NY; j++)
                for (int v = 0; v < LINES; v++) {
                    buf[j][v] = in[k][j][i0 + v].re;
                    buf[j][LINES + v] = in[k][j][i0 + v].im;
                }
            lines_t *res = fft_lines(dir, NY, buf, tmp);
            for (int j = 0; j < NY; j++)
                for (int v = 0; v < LINES; v++) {
                    out[k][j][i0 + v].re = res[j][v];
                    out[k][j][i0 + v].im = res[j][LINES + v];
                }
        }
        free(buf);
        free(tmp);
    }
}

/* Transform along z: lines are pillars (j, i..i+LINES-1). */
static void fft_z(int dir, dcomplex (*in)[NY][NX], dcomplex (*out)[NY][NX])
{
#pragma omp parallel
    {
        lines_t *buf = malloc(sizeof(lines_t) * NZ);
        lines_t *tmp = malloc(sizeof(lines_t) * NZ);
#pragma omp for schedule(static)
        for (int blk = 0; blk < NY * (NX / LINES); blk++) {
            int j = blk / (NX / LINES), i0 = (blk % (NX / LINES)) * LINES;
            for (int k = 0; k < NZ; k++)
                for (int v = 0; v < LINES; v++) {
                    buf[k][v] = in[k][j][i0 + v].re;
                    buf[k][LINES + v] = in[k][j][i0 + v].im;
                }
            lines_t *res = fft_lines(dir, NZ, buf, tmp);
            for (int k = 0; k < NZ; k++)
                for (int v = 0; v < LINES; v++) {
                    out[k][j][i0 + v].re = res[k][v];
                    out[k][j][i0 + v].im = res[k][LINES + v];
                }
        }
        free(buf);
        free(tmp);
    }
}

/* 3-D transform: forward x, y, z; inverse z, y, x.  x1 is overwritten. */
static void fft3d(int dir, dcomplex (*x1)[NY][NX], dcomplex (*x2)[NY][NX])
{
    if (dir == 1) {
        fft_x(1, x1, x1);
        fft_y(1, x1, x1);
        fft_z(1, x1, x2);
    } else {
        fft_z(-1, x1, x1);
        /* Marker 6: between the z and y passes of the inverse transform;
         * live: the half-transformed x1 (= u1), u0, twiddle, sums. */
        dao_potential_checkpoint();
        fft_y(-1, x1, x1);
        fft_x(-1, x1, x2);
    }
}

/* ------------------------------------------------------------------------ */
/* Time step and checksum                                                   */
/* ------------------------------------------------------------------------ */
static void evolve(void)
{
#pragma omp parallel for schedule(static)
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double t = twiddle[k][j][i];
                u0[k][j][i].re *= t;
                u0[k][j][i].im *= t;
                u1[k][j][i] = u0[k][j][i];
            }
}

static void checksum(int it, dcomplex field[NZ][NY][NX])
{
    dcomplex chk = {0.0, 0.0};
    for (int j = 1; j <= 1024; j++) {
        int q = j % NX, r = (3 * j) % NY, s = (5 * j) % NZ;
        chk.re += field[s][r][q].re;
        chk.im += field[s][r][q].im;
    }
    chk.re /= (double)NTOTAL;
    chk.im /= (double)NTOTAL;
    printf(" T =%5d     Checksum =%22.12E%22.12E\n", it, chk.re, chk.im);
    fflush(stdout);
    sums[it] = chk;
}

/* ------------------------------------------------------------------------ */
/* Verification                                                             */
/* ------------------------------------------------------------------------ */
static const double ref_re_S[6] = {5.546087004964e+02, 5.546385409189e+02, 5.546148406171e+02,
                                   5.545423607415e+02, 5.544255039624e+02, 5.542683411902e+02};
static const double ref_im_S[6] = {4.845363331978e+02, 4.865304269511e+02, 4.883910722336e+02,
                                   4.901273169046e+02, 4.917475857993e+02, 4.932597244941e+02};
static const double ref_re_W[6] = {5.673612178944e+02, 5.631436885271e+02, 5.594024089970e+02,
                                   5.560698047020e+02, 5.530898991250e+02, 5.504159734538e+02};
static const double ref_im_W[6] = {5.293246849175e+02, 5.282149986629e+02, 5.270996558037e+02,
                                   5.260027904925e+02, 5.249400845633e+02, 5.239212247086e+02};
static const double ref_re_A[6] = {5.046735008193e+02, 5.059412319734e+02, 5.069376896287e+02,
                                   5.077892868474e+02, 5.085233095391e+02, 5.091487099959e+02};
static const double ref_im_A[6] = {5.114047905510e+02, 5.098809666433e+02, 5.098144042213e+02,
                                   5.101336130759e+02, 5.104914655194e+02, 5.107917842803e+02};
static const double ref_re_B[20] = {
    5.177643571579e+02, 5.154521291263e+02, 5.146409228649e+02, 5.142378756213e+02,
    5.139626667737e+02, 5.137423460082e+02, 5.135547056878e+02, 5.133910925466e+02,
    5.132470705390e+02, 5.131197729984e+02, 5.130070319283e+02, 5.129070537032e+02,
    5.128182883502e+02, 5.127393733383e+02, 5.126691062020e+02, 5.126064276004e+02,
    5.125504076570e+02, 5.125002331720e+02, 5.124551951846e+02, 5.124146770029e+02};
static const double ref_im_B[20] = {
    5.077803458597e+02, 5.088249431599e+02, 5.096208912659e+02, 5.101023387619e+02,
    5.103976610617e+02, 5.105948019802e+02, 5.107404165783e+02, 5.108576573661e+02,
    5.109577278523e+02, 5.110460304483e+02, 5.111252433800e+02, 5.111968077718e+02,
    5.112616233064e+02, 5.113203605551e+02, 5.113735928093e+02, 5.114218460548e+02,
    5.114656139760e+02, 5.115053595966e+02, 5.115415130407e+02, 5.115744692211e+02};
static const double ref_re_C[20] = {
    5.195078707457e+02, 5.155422171134e+02, 5.144678022222e+02, 5.140150594328e+02,
    5.137550426810e+02, 5.135811056728e+02, 5.134569343165e+02, 5.133651975661e+02,
    5.132955192805e+02, 5.132410471738e+02, 5.131971141679e+02, 5.131605205716e+02,
    5.131290734194e+02, 5.131012720314e+02, 5.130760908195e+02, 5.130528295923e+02,
    5.130310107773e+02, 5.130103090133e+02, 5.129905029333e+02, 5.129714421109e+02};
static const double ref_im_C[20] = {
    5.149019699238e+02, 5.127578201997e+02, 5.122251847514e+02, 5.121090289018e+02,
    5.121143685824e+02, 5.121496764568e+02, 5.121870921893e+02, 5.122193250322e+02,
    5.122454735794e+02, 5.122663649603e+02, 5.122830879827e+02, 5.122965869718e+02,
    5.123075927445e+02, 5.123166486553e+02, 5.123241541685e+02, 5.123304037599e+02,
    5.123356167976e+02, 5.123399592211e+02, 5.123435588985e+02, 5.123465164008e+02};

static int verify(void)
{
    const double *rr, *ri;
    switch (CLASS_CHAR) {
    case 'S': rr = ref_re_S; ri = ref_im_S; break;
    case 'W': rr = ref_re_W; ri = ref_im_W; break;
    case 'A': rr = ref_re_A; ri = ref_im_A; break;
    case 'B': rr = ref_re_B; ri = ref_im_B; break;
    default:  rr = ref_re_C; ri = ref_im_C; break;
    }
    const double epsilon = 1.0e-12;
    int ok = 1;
    printf(" Verification being performed for class %c\n", CLASS_CHAR);
    printf(" accuracy setting for epsilon = %20.13E\n", epsilon);
    for (int it = 1; it <= NITER; it++) {
        /* relative error |(s - r) / r| in complex arithmetic */
        double dre = sums[it].re - rr[it - 1], dim = sums[it].im - ri[it - 1];
        double den = rr[it - 1] * rr[it - 1] + ri[it - 1] * ri[it - 1];
        double qre = (dre * rr[it - 1] + dim * ri[it - 1]) / den;
        double qim = (dim * rr[it - 1] - dre * ri[it - 1]) / den;
        double err = hypot(qre, qim);
        if (!(err <= epsilon))
            ok = 0;
        printf(" %s T =%5d %20.13E%20.13E%20.13E\n", err <= epsilon ? "        " : "FAILURE:",
               it, sums[it].re, sums[it].im, err);
    }
    /* Full-precision values for bitwise comparison of runs. */
    for (int it = 1; it <= NITER; it++)
        printf(" Checksum full T =%5d  %.17g %.17g\n", it, sums[it].re, sums[it].im);
    printf(" Verification %s\n", ok ? "Successful" : "failed");
    return ok;
}

/* ------------------------------------------------------------------------ */
int main(void)
{
    int nthreads = omp_get_max_threads();

    printf("\n\n NAS Parallel Benchmarks (NPB3.x-style dao port) - FT Benchmark\n\n");
    printf(" Size                : %4dx%4dx%4d\n", NX, NY, NZ);
    printf(" Iterations                  :%7d\n", NITER);
    printf(" Number of available threads :%7d\n", nthreads);
    printf("\n");

    /* Untimed pass over the whole computation: touches all memory and code. */
    init_ui();
    compute_indexmap();
    compute_initial_conditions(u1);
    fft_init(NMAXDIM);
    /* Marker 1: after the untimed set-up; live: twiddle, u1 (initial field),
     * roots. */
    dao_potential_checkpoint();
    fft3d(1, u1, u0);
    /* Marker 2: after the warm-up transform; live: u0 (thrown away by the
     * timed run, but holds data), twiddle, roots. */
    dao_potential_checkpoint();

    /* The timed run starts over from the beginning: everything is timed. */
    double t_start = wall_seconds();

    compute_indexmap();
    compute_initial_conditions(u1);
    fft_init(NMAXDIM);
    /* Marker 3: after the timed set-up, before the forward transform;
     * live: u1, twiddle, roots, t_start. */
    dao_potential_checkpoint();

    fft3d(1, u1, u0);
    /* Marker 4: after the forward transform; live: u0 (spectrum), twiddle,
     * roots, t_start (u1 is dead until evolve rewrites it). */
    dao_potential_checkpoint();

    for (int iter = 1; iter <= NITER; iter++) {
        evolve();
        /* Marker 5: in the iteration loop after evolve; live: u0, u1, twiddle,
         * roots, sums[1..iter-1], iter, t_start -- the largest live set. */
        dao_potential_checkpoint();
        fft3d(-1, u1, u2); /* contains marker 6 */
        checksum(iter, u2);
        /* Marker 7: end of an iteration; live: u0, twiddle, roots,
         * sums[1..iter], iter, t_start (u1, u2 are dead). */
        dao_potential_checkpoint();
    }

    /* Marker 8: before verification; live: sums, t_start only -- the smallest
     * live set (all big arrays are dead). */
    dao_potential_checkpoint();
    int verified = verify();

    double t_total = wall_seconds() - t_start;
    double ntot = (double)NTOTAL;
    double mops = 0.0;
    if (t_total > 0.0)
        mops = 1.0e-6 * ntot *
               (14.8157 + 7.19641 * log(ntot) + (5.23518 + 7.21113 * log(ntot)) * NITER) /
               t_total;

    printf("\n\n FT Benchmark Completed.\n");
    printf(" Class           =                        %c\n", CLASS_CHAR);
    printf(" Size            =            %4dx%4dx%4d\n", NX, NY, NZ);
    printf(" Iterations      =             %12d\n", NITER);
    printf(" Time in seconds =             %12.2f\n", t_total);
    printf(" Total threads   =             %12d\n", nthreads);
    printf(" Mop/s total     =             %12.2f\n", mops);
    printf(" Operation type  =           floating point\n");
    printf(" Verification    =               %s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
    printf(" Version         =      3.x (dao port)\n");
    printf(" Compile options:\n");
    printf("    CLASS        = %c\n", CLASS_CHAR);
    printf("\n");
    return verified ? 0 : 1;
}
