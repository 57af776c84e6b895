/* nbody.c -- a small N-body integration with heap arrays of structs.
 *
 * Exercises: arrays of structs on the heap (calloc), pointer arithmetic over
 * them in a noinline force kernel, double accumulators across the marker,
 * a marker inside the pair loop (deep in the hot loop nest) and one per
 * time step, and sqrt/division-heavy floating point.
 *
 * Invariant: every heap block and every live variable of every frame on the
 * chain is restored byte for byte, so the printed results (%a) equal those of
 * the uninterrupted run.
 * Argument: number of time steps (default 5000).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

struct body {
    double x, y, z, vx, vy, vz, m;
};

__attribute__((noinline)) static double kick(struct body *b, int n, double dt) {
    double pot = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
            double d2 = dx * dx + dy * dy + dz * dz + 1e-3;
            double inv = 1.0 / sqrt(d2);
            double mag = dt * inv * inv * inv;
            pot -= b[i].m * b[j].m * inv;
            b[i].vx -= dx * b[j].m * mag;
            b[i].vy -= dy * b[j].m * mag;
            b[i].vz -= dz * b[j].m * mag;
            b[j].vx += dx * b[i].m * mag;
            b[j].vy += dy * b[i].m * mag;
            b[j].vz += dz * b[i].m * mag;
        }
        if (i == n / 2)
            dao_potential_checkpoint();
    }
    return pot;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 5000;
    int n = 160;
    struct body *b = calloc((size_t)n, sizeof *b);
    for (int i = 0; i < n; i++) {
        double t = (double)i * 0.7;
        b[i].x = cos(t) * (1.0 + 0.01 * i);
        b[i].y = sin(t) * (1.0 + 0.01 * i);
        b[i].z = 0.05 * (double)(i % 7);
        b[i].vx = -0.3 * sin(t);
        b[i].vy = 0.3 * cos(t);
        b[i].m = 1.0 / (double)n * (1.0 + (double)(i % 3));
    }
    double pot = 0.0;
    for (int s = 0; s < steps; s++) {
        pot = kick(b, n, 0.001);
        for (int i = 0; i < n; i++) {
            b[i].x += 0.001 * b[i].vx;
            b[i].y += 0.001 * b[i].vy;
            b[i].z += 0.001 * b[i].vz;
        }
        dao_potential_checkpoint();
        if (s % 500 == 499)
            printf("step %d pot %a x0 %a\n", s + 1, pot, b[0].x);
    }
    double ke = 0.0;
    for (int i = 0; i < n; i++)
        ke += 0.5 * b[i].m * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
    printf("nbody: steps=%d ke=%.17g pot=%.17g\n", steps, ke, pot);
    free(b);
    return 0;
}
