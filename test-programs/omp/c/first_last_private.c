/* first_last_private.c -- firstprivate and lastprivate variables.
 *
 * Exercises: `parallel for schedule(static)` loops with firstprivate
 * scalars, a firstprivate array and a firstprivate struct (each thread's
 * copies live in its outlined frame, initialised from the master's values),
 * lastprivate scalars and a lastprivate array (copied back from the
 * sequentially last iteration), and a variable that is both firstprivate and
 * lastprivate (read and rewritten by every iteration).
 * Markers: inside the loop bodies, between reading the firstprivate copies
 * and writing the lastprivate ones; and once per round in serial code.
 *
 * Invariant: every thread's private copies are restored byte for byte, so the
 * per-element results and the lastprivate values printed after a restart
 * equal those of the uninterrupted run (and do not depend on the thread
 * count).
 * Argument: number of rounds (default 900; 50 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 200000

struct params {
    double scale;
    int64_t bias;
    int shift;
};

static double out[N];
static int64_t iout[N];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 900;
    double coef[4] = {0.5, -0.25, 0.125, 1.0 / 3.0};
    struct params p = {1.0009765625, 17, 3};
    int64_t base = 1000;
    double last_val = 0.0;
    int64_t last_i = -1, carried = 5000000;
    int64_t tail[3] = {0, 0, 0};
    int64_t total = 0;
    for (int i = 0; i < N; i++)
        out[i] = (double)(i % 97) / 97.0;
    for (int r = 0; r < rounds; r++) {
#pragma omp parallel for schedule(static) firstprivate(coef, p, base) lastprivate(last_val, last_i, tail)
        for (int i = 0; i < N; i++) {
            double x = out[i];
            double y = 3.7 * x * (1.0 - x) * p.scale + coef[i & 3] * 0.01;
            int64_t k = base + p.bias * (i & 15);
            if ((i & 1023) == 7)
                dao_potential_checkpoint();
            out[i] = y - (double)(int64_t)y;
            iout[i] = (iout[i] + k + ((int64_t)(y * 1024.0) >> p.shift)) % 1000003;
            last_val = y;
            last_i = i;
            tail[i % 3] = k;
        }
        /* both firstprivate and lastprivate: every iteration keeps the high
         * part (the master's value, identical in every thread) and replaces
         * the low part; the last iteration's value is copied out */
#pragma omp parallel for schedule(static) firstprivate(carried) lastprivate(carried)
        for (int i = 0; i < 1000; i++) {
            int64_t hi = carried / 1000000;
            if (i % 100 == 0)
                dao_potential_checkpoint();
            carried = hi * 1000000 + 3 * (int64_t)i + r;
            iout[i] += carried & 1;
        }
        carried += 1000000;
        dao_potential_checkpoint();
        total += last_i + (int64_t)(last_val * 4096.0) + tail[0] + tail[1] + tail[2] + carried;
        base += 3;
        p.bias = (p.bias * 5 + 1) % 31;
        if (r % 150 == 149 || r == rounds - 1)
            printf("round %d last_val=%a last_i=%lld tail=%lld,%lld,%lld carried=%lld\n", r + 1, last_val,
                   (long long)last_i, (long long)tail[0], (long long)tail[1], (long long)tail[2],
                   (long long)carried);
    }
    uint64_t check = 0;
    double dsum = 0.0;
    for (int i = 0; i < N; i++) {
        check = check * 131 + (uint64_t)iout[i];
        dsum += out[i];
    }
    printf("first_last_private: rounds=%d total=%lld check=%llu dsum=%.17g\n", rounds, (long long)total,
           (unsigned long long)check, dsum);
    return 0;
}
