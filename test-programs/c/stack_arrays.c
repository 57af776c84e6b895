/* stack_arrays.c -- local arrays passed to callees.
 *
 * Exercises: arrays on the stack of main and of an intermediate function
 * (double[64][64], int[256], a small struct array) that are passed by
 * pointer to callees which read and write them and reach a marker. The
 * arrays are stack objects of frames on the chain at every checkpoint, and
 * the marker sits between reading and updating them.
 *
 * Invariant: every live variable of every frame on the chain -- here mainly
 * the stack arrays -- is restored byte for byte, so the printed results equal
 * those of the uninterrupted run.
 * Argument: number of sweeps (default 40000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 64

struct cell {
    int hits;
    float weight;
    double value;
};

__attribute__((noinline)) static void relax(double g[N][N], int hist[256], int sweep) {
    for (int i = 1; i < N - 1; i++) {
        for (int j = 1; j < N - 1; j++) {
            double v = 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]);
            g[i][j] = v;
        }
        if (i % 16 == 0)
            dao_potential_checkpoint();
    }
    for (int j = 0; j < N; j++) {
        unsigned b = (unsigned)(g[N / 2][j] * 255.0) & 255u;
        hist[b] += sweep % 3 + 1;
    }
}

__attribute__((noinline)) static double middle(double g[N][N], int sweeps_here, int first) {
    int hist[256] = {0};
    struct cell cells[16];
    for (int c = 0; c < 16; c++) {
        cells[c].hits = c;
        cells[c].weight = 1.0f / (float)(c + 1);
        cells[c].value = 0.0;
    }
    for (int s = 0; s < sweeps_here; s++) {
        relax(g, hist, first + s);
        dao_potential_checkpoint();
        for (int c = 0; c < 16; c++) {
            cells[c].hits += hist[c * 16] & 7;
            cells[c].value += g[c * 4][c * 4] * cells[c].weight;
        }
    }
    double r = 0.0;
    for (int c = 0; c < 16; c++)
        r += cells[c].value * (double)cells[c].hits;
    for (int b = 0; b < 256; b++)
        r += (double)hist[b] * 1e-6 * (double)b;
    return r;
}

int main(int argc, char **argv) {
    int sweeps = argc > 1 ? atoi(argv[1]) : 40000;
    double g[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            g[i][j] = (i == 0) ? 1.0 : (j == N - 1 ? 0.5 : 0.0);
    double results[8];
    int chunks = 8;
    for (int c = 0; c < chunks; c++) {
        results[c] = middle(g, sweeps / chunks, c * (sweeps / chunks));
        dao_potential_checkpoint();
        printf("chunk %d result %a g[32][32] %a\n", c, results[c], g[32][32]);
    }
    double s = 0.0;
    for (int c = 0; c < chunks; c++)
        s += results[c];
    printf("stack_arrays: sweeps=%d sum=%.17g corner=%.17g\n", sweeps, s, g[1][1]);
    return 0;
}
