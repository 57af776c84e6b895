/* reduction_sum.c -- `parallel for` with reduction(+:...) over a static schedule.
 *
 * Exercises: a combined `#pragma omp parallel for schedule(static)` with
 * three int64 reduction(+:...) variables (one a fixed-point conversion of a
 * double computed per element), repeated once per round; each thread's
 * private reduction copies and loop bounds are live across the marker.
 * Markers: inside the loop body (every 512th iteration) and in the serial
 * code after each region.
 *
 * Invariant: the private reduction partials of every thread, the shared
 * array and the serial frame are restored byte for byte, so the integer
 * sums (independent of the thread count and of the combination order)
 * printed after a restart equal those of the uninterrupted run.
 * Argument: number of rounds (default 400; 60 gives ~0.1 s).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 250000

static int64_t v[N];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    for (int i = 0; i < N; i++)
        v[i] = (int64_t)(((uint64_t)i * 2654435761u) % 1000u);
    int64_t grand = 0;
    for (int r = 0; r < rounds; r++) {
        int64_t s = 0, sq = 0, fx = 0;
#pragma omp parallel for schedule(static) reduction(+ : s, sq) reduction(+ : fx)
        for (int i = 0; i < N; i++) {
            int64_t x = (v[i] * (r + 3) + i) % 10007;
            double w = sqrt((double)x) * 0.25;
            s += x;
            sq += x * x;
            if ((i & 511) == 0)
                dao_potential_checkpoint();
            fx += (int64_t)llround(w * 65536.0);
            v[i] = x;
        }
        dao_potential_checkpoint();
        grand += s ^ (sq >> 7) ^ fx;
        if (r % 50 == 49 || r == rounds - 1)
            printf("round %d s=%lld sq=%lld fx=%lld\n", r + 1, (long long)s, (long long)sq, (long long)fx);
    }
    uint64_t check = 0;
    for (int i = 0; i < N; i++)
        check = check * 31 + (uint64_t)v[i];
    printf("reduction_sum: rounds=%d grand=%lld check=%llu\n", rounds, (long long)grand, (unsigned long long)check);
    return 0;
}
