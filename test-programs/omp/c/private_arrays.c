/* private_arrays.c -- private scalars and private (stack) arrays.
 *
 * Exercises: a `#pragma omp parallel` region with stack arrays declared
 * inside it (a double window and an int64 histogram per thread, in the
 * outlined function's frame), a file-scope array made private with
 * `private(...)` (each thread gets an uninitialised stack copy), private
 * scalars from the clause and from declarations in the loop body, and a
 * worksharing loop whose body fills and reads the private arrays; at the end
 * each thread adds its private histogram into the shared one with atomics.
 * Markers: inside the loop body, while the private arrays hold partial
 * results (every 256th iteration).
 *
 * Invariant: every thread's private arrays and scalars (stack memory of the
 * outlined frames) are restored byte for byte, so the output (per-element
 * results and an integer histogram, independent of the thread count) after
 * a restart equals that of the uninterrupted run.
 * Argument: number of rounds (default 600; 40 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 60000
#define W 16
#define NH 32

static double in[N], outv[N];
static int64_t hist[NH];
static double coeffs[W]; /* made private below */

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 600;
    for (int i = 0; i < N; i++)
        in[i] = (double)((i * 7919) % 1000) / 1000.0;
    double tmp, acc;
    int64_t bucket;
    for (int r = 0; r < rounds; r++) {
#pragma omp parallel private(tmp, acc, bucket, coeffs)
        {
            double window[W];
            int64_t myhist[NH];
            for (int b = 0; b < NH; b++)
                myhist[b] = 0;
            for (int w = 0; w < W; w++)
                coeffs[w] = 1.0 / (double)(w + 1 + r % 3);
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                for (int w = 0; w < W; w++)
                    window[w] = in[(i + w) % N];
                acc = 0.0;
                for (int w = 0; w < W; w++) {
                    tmp = window[w] * coeffs[w];
                    acc += tmp;
                }
                if ((i & 255) == 0)
                    dao_potential_checkpoint();
                bucket = (int64_t)(acc * 4.0) % NH;
                myhist[bucket]++;
                outv[i] = acc + window[0] * window[W - 1];
            }
            for (int b = 0; b < NH; b++) {
#pragma omp atomic
                hist[b] += myhist[b];
            }
        }
        for (int i = 0; i < N; i++)
            in[i] = outv[i] - (double)(int64_t)outv[i];
        if (r % 75 == 74 || r == rounds - 1)
            printf("round %d out=%a %a hist=%lld,%lld\n", r + 1, outv[N / 2], outv[17], (long long)hist[1],
                   (long long)hist[(r / 75) % NH]);
    }
    uint64_t c = 0;
    for (int b = 0; b < NH; b++)
        c = c * 1000003 + (uint64_t)hist[b];
    printf("private_arrays: rounds=%d hist=%llu in=%.17g\n", rounds, (unsigned long long)c, in[N - 1]);
    return 0;
}
