/* nb_figure8.c -- every marker immediately followed by writes of shared data.
 *
 * Exercises: the scenario of the paper's non-blocking protocol (its figure
 * 8): threads reach a candidate at different times, and right after it each
 * one updates shared data. Inside a parallel region enclosing the step
 * loop, every thread per step: reaches a marker and at once increments a
 * shared arrival counter (`atomic`); then, in a static `omp for` over K
 * items, computes a private value, reaches a marker and at once does
 * read-modify-writes of its items' shared elements (own_val[k], own_cnt[k]),
 * an `atomic` add into a shared counter and an update of a shared histogram
 * under `critical` (a lock acquisition right after the marker); after the
 * loop's barrier a second static loop reaches a marker and at once updates
 * nb[k] from the neighbours own_val[k-1], own_val[k+1] (written by other
 * threads before the barrier) and increments a second `atomic` counter.
 * A `single` folds a digest and prints every 16 steps.
 * Markers: at the top of each step (outside worksharing), in both loop
 * bodies right before the shared writes.
 *
 * Invariant: a checkpoint is never torn: the shared state it holds
 * includes exactly the shared writes each thread made before its saved
 * position (had the shared state been saved after a thread's write but the
 * thread's private state before it, a restart would redo the write). Every
 * shared write is a read-modify-write, so a write done twice or lost shows:
 * after each loop's barrier every thread checks, from its private step
 * index, counter == (step + 1) * WSUM, arrivals == threads * (step + 1),
 * own_cnt[k] == step + 1 for every k, and the `single` checks counter2 ==
 * (step + 1) * K after the second loop; at the end the sum of the threads' private tallies of their counter adds must
 * equal counter. Failed checks are counted in `bad` (printed); the digest
 * and the histogram are printed.
 * Argument: number of steps (default 2000; 150 gives ~0.1 s).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define K 96 /* items: a multiple of 1, 2, 3 and 4 */
#define WORK 6000 /* private work per item and step */
#define P 1000000007ll
#define NH 16

static int64_t own_val[K], own_cnt[K], nb[K];
static int64_t counter, counter2, arrivals, tally;
static int64_t hist[NH];
static int64_t bad;

/* what item k adds to counter per step; WSUM: the sum over k */
static int64_t weight(int k) { return 1 + (k % 5); }

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 2000;
    int64_t wsum = 0;
    for (int k = 0; k < K; k++) {
        wsum += weight(k);
        own_val[k] = (k * 7919) % 1009;
        nb[k] = k;
    }
    uint64_t digest = 0;
#pragma omp parallel
    {
        int64_t mine = 0; /* private: this thread's adds to counter */
        int nth = omp_get_num_threads();
        for (int step = 0; step < steps; step++) {
            dao_potential_checkpoint();
#pragma omp atomic
            arrivals += 1;
#pragma omp for schedule(static)
            for (int k = 0; k < K; k++) {
                /* private computation from shared data written last step */
                uint64_t x = (uint64_t)own_val[k] * 2654435761u + (uint64_t)step * 40503u + (uint64_t)k + 1;
                for (int j = 0; j < WORK; j++) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                }
                int64_t v = (int64_t)(x >> 34);
                dao_potential_checkpoint();
                /* shared writes right after the candidate */
                own_val[k] = (own_val[k] * 31 + v) % P;
                own_cnt[k] += 1;
#pragma omp atomic
                counter += weight(k);
                mine += weight(k);
#pragma omp critical(nb_figure8_hist)
                hist[v % NH] += 1 + (k & 1);
            }
            /* after the barrier: what every thread wrote this step is there exactly once */
            {
                int64_t err = 0;
                err += counter != (int64_t)(step + 1) * wsum;
                err += arrivals != (int64_t)nth * (step + 1);
                for (int k = 0; k < K; k++)
                    err += own_cnt[k] != step + 1;
                if (err) {
#pragma omp atomic
                    bad += err;
                }
            }
#pragma omp for schedule(static)
            for (int k = 0; k < K; k++) {
                dao_potential_checkpoint();
                nb[k] = (nb[k] * 3 + own_val[(k + K - 1) % K] - own_val[(k + 1) % K] + P) % P;
#pragma omp atomic
                counter2 += 1;
            }
#pragma omp single
            {
                uint64_t h = 0;
                for (int k = 0; k < K; k++)
                    h = h * 1099511628211ull + (uint64_t)nb[k];
                digest = (digest ^ h) * 1099511628211ull;
                if (counter2 != (int64_t)(step + 1) * K)
                    bad += 1;
                if (step % 16 == 15 || step == steps - 1)
                    printf("step %d counter=%lld nb=%llu own=%lld\n", step + 1, (long long)counter, (unsigned long long)h,
                           (long long)own_val[K / 3]);
            }
        }
#pragma omp atomic
        tally += mine;
    }
    uint64_t hh = 0;
    for (int i = 0; i < NH; i++)
        hh = hh * 31 + (uint64_t)hist[i];
    printf("nb_figure8: steps=%d digest=%llu hist=%llu tally_ok=%d bad=%lld\n", steps, (unsigned long long)digest,
           (unsigned long long)hh, tally == counter, (long long)bad);
    return 0;
}
