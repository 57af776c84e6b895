/* deep_chain.c -- checkpoint markers 1 to 5 calls deep.
 *
 * Exercises: a call chain main -> level1 -> level2 -> level3 -> level4 -> level5
 * with a marker at every level, each frame keeping its own live locals (an
 * integer counter, a double partial sum, a pointer into the caller's frame)
 * across the call that reaches the next marker. The levels are noinline so
 * that -O2 keeps five real frames.
 *
 * Invariant: every live variable of every frame on the chain is restored byte
 * for byte, so the printed results equal those of the uninterrupted run.
 * Argument: number of outer iterations (default 6000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

static unsigned long long mix(unsigned long long x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static double work(long seed, int n) {
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += (double)(mix((unsigned long long)seed * 1000003ULL + (unsigned)k) & 0xffff) / 65536.0;
    return s;
}

__attribute__((noinline)) static double level5(long i, double *acc5) {
    double mine = work(i * 5 + 5, 3000);
    dao_potential_checkpoint();
    *acc5 += mine;
    return mine * 0.5;
}

__attribute__((noinline)) static double level4(long i, double *acc4) {
    double before = work(i * 5 + 4, 3000);
    double acc5 = 0.25;
    double r = level5(i, &acc5);
    dao_potential_checkpoint();
    *acc4 += before - r + acc5;
    return before + r;
}

__attribute__((noinline)) static long level3(long i, long *count3) {
    long tag = (long)(mix((unsigned long long)i) % 1000);
    double acc4 = 0.0;
    double r = level4(i, &acc4);
    (*count3)++;
    dao_potential_checkpoint();
    return tag + (long)(r * 16.0) + (long)acc4;
}

__attribute__((noinline)) static double level2(long i, double scale) {
    long count3 = 0;
    long t = 0;
    for (int rep = 0; rep < 2; rep++)
        t += level3(i * 2 + rep, &count3);
    dao_potential_checkpoint();
    return scale * (double)t + (double)count3;
}

__attribute__((noinline)) static double level1(long i, double *hist) {
    double a = level2(i, 0.001);
    dao_potential_checkpoint();
    hist[i % 8] += a;
    return a;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 6000;
    double hist[8] = {0};
    double total = 0.0;
    unsigned long checksum = 0;
    for (long i = 0; i < n; i++) {
        double a = level1(i, hist);
        dao_potential_checkpoint();
        total += a;
        checksum = checksum * 31 + (unsigned long)(long)(a * 1000.0);
        if (i % 500 == 499)
            printf("iter %ld total %a checksum %lu\n", i + 1, total, checksum);
    }
    for (int k = 0; k < 8; k++)
        printf("hist[%d] = %a\n", k, hist[k]);
    printf("deep_chain: n=%ld total=%.17g checksum=%lu\n", n, total, checksum);
    return 0;
}
