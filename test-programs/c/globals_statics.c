/* globals_statics.c -- global variables and function-local statics.
 *
 * Exercises: external globals (scalars, an array, a struct), file-scope
 * statics, a function-local static counter and a function-local static
 * array, a global pointer to a heap block, and a const table that is only
 * read. All are modified between markers; some are only reached through a
 * pointer (so their address escapes).
 *
 * Invariant: every global and static the continuation may read is restored
 * byte for byte, as is every live variable of every frame on the chain, so
 * the printed results equal those of the uninterrupted run.
 * Argument: number of steps (default 1000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

long g_steps;
double g_energy = 1.0;
int g_table[1024];
struct stats {
    long min, max;
    double mean;
} g_stats = {1L << 40, -(1L << 40), 0.0};
double *g_heap;

static unsigned g_seed = 12345u;
static const double k_coeffs[4] = {0.5, 0.25, 0.125, 0.0625};
static int *g_escaped_ptr = &g_table[7];

static unsigned lcg(void) {
    g_seed = g_seed * 1103515245u + 12345u;
    return (g_seed >> 16) & 0x7fff;
}

static long counter(void) {
    static long calls;
    static double history[16];
    calls++;
    history[calls % 16] += g_energy;
    return calls + (long)history[(calls + 5) % 16];
}

__attribute__((noinline)) static void step(long i) {
    for (int k = 0; k < 200; k++) {
        unsigned r = lcg();
        g_table[r % 1024] += (int)(r & 15);
        g_energy = g_energy * 0.999 + k_coeffs[r & 3] * 0.001 * (double)(r % 97);
    }
    long c = counter();
    dao_potential_checkpoint();
    if (c < g_stats.min)
        g_stats.min = c;
    if (c > g_stats.max)
        g_stats.max = c;
    g_stats.mean += ((double)c - g_stats.mean) / (double)(i + 1);
    g_heap[i % 64] += g_energy;
    *g_escaped_ptr += 1;
    g_steps++;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    g_heap = calloc(64, sizeof *g_heap);
    for (long i = 0; i < n; i++) {
        step(i);
        if (i % 100000 == 99999)
            printf("step %ld energy %a seed %u\n", g_steps, g_energy, g_seed);
    }
    unsigned long tsum = 0;
    for (int k = 0; k < 1024; k++)
        tsum = tsum * 7 + (unsigned long)g_table[k];
    double hsum = 0.0;
    for (int k = 0; k < 64; k++)
        hsum += g_heap[k];
    printf("globals_statics: steps=%ld energy=%.17g tsum=%lu min=%ld max=%ld mean=%a hsum=%a counter=%ld\n",
           g_steps, g_energy, tsum, g_stats.min, g_stats.max, g_stats.mean, hsum, counter());
    free(g_heap);
    return 0;
}
