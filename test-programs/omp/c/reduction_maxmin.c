/* reduction_maxmin.c -- max/min reductions mixed with sums, several variables.
 *
 * Exercises: `parallel for schedule(static)` with reduction(max:) and
 * reduction(min:) over doubles (exact, so order-independent) and int64s,
 * an argmax packed into one int64 (value << 20 | index) reduced with max,
 * and reduction(+:) int64 sums, several variables per clause and several
 * clauses per loop.
 * Markers: inside the loop bodies (every 1024th iteration) and after each
 * round in serial code.
 *
 * Invariant: every thread's private reduction copies are restored byte for
 * byte, so the combined values printed after a restart equal those of the
 * uninterrupted run.
 * Argument: number of rounds (default 300; 60 gives ~0.1 s).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 200000

static double v[N];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    for (int i = 0; i < N; i++)
        v[i] = sin((double)i * 0.001) * 100.0;
    uint64_t digest = 0;
    for (int r = 0; r < rounds; r++) {
        double mx = -HUGE_VAL, mn = HUGE_VAL;
        int64_t imax = INT64_MIN, imin = INT64_MAX, s = 0, cnt = 0, arg = -1;
#pragma omp parallel for schedule(static) reduction(max : mx, imax, arg) reduction(min : mn, imin) reduction(+ : s, cnt)
        for (int i = 0; i < N; i++) {
            double x = v[i] * 0.999 + cos((double)(i + r)) * 0.5;
            v[i] = x;
            mx = fmax(mx, x);
            mn = fmin(mn, x);
            int64_t q = (int64_t)floor(x * 1000.0);
            if (q > imax)
                imax = q;
            if (q < imin)
                imin = q;
            if ((i & 1023) == 0)
                dao_potential_checkpoint();
            int64_t packed = ((q + 200000) << 20) | (int64_t)(N - 1 - i); /* ties: smallest i wins */
            if (packed > arg)
                arg = packed;
            s += q;
            cnt += x > 0.0;
        }
        dao_potential_checkpoint();
        int64_t argi = N - 1 - (arg & ((1 << 20) - 1));
        digest = (digest ^ (uint64_t)s ^ ((uint64_t)argi << 32)) * 1099511628211ull;
        if (r % 50 == 49 || r == rounds - 1)
            printf("round %d max=%a min=%a imax=%lld imin=%lld argmax=%lld sum=%lld pos=%lld\n", r + 1, mx, mn,
                   (long long)imax, (long long)imin, (long long)argi, (long long)s, (long long)cnt);
    }
    printf("reduction_maxmin: rounds=%d digest=%llu v=%a\n", rounds, (unsigned long long)digest, v[N / 3]);
    return 0;
}
