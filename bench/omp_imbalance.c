/* Benchmark program for the non-blocking checkpoint protocol
 * (docs/results.md, "Non-blocking protocol (issue #4)";
 * scripts/bench_protocol.py): imbalanced private work between a marker and
 * a shared write.
 *
 * One parallel region encloses a loop of STEPS steps. In every step each
 * thread
 *   1. reaches a candidate marker (dao_potential_checkpoint),
 *   2. does private work (a dependent integer recurrence in registers, no
 *      memory writes): 1 unit for the fast threads, IMB units for the slow
 *      ones (--slow workers: threads 1..n-1 are slow, thread 0, the master
 *      and the only thread that initiates checkpoints, is fast; --slow
 *      master: the other way round),
 *   3. writes its result into the shared array (a[tid] = result: the one
 *      shared write of the step, where the compiler puts a guard).
 * After every K-th step the team meets at a `#pragma omp barrier`
 * (K >= STEPS: no barrier inside the loop, the threads drift apart freely).
 *
 * A unit is UNIT iterations of the recurrence (default 800000, about 1 ms
 * on a current x86 core).
 *
 * Usage: omp_imbalance [--imb N] [--slow workers|master] [--steps S]
 *                      [--barrier K] [--unit ITERS]
 * Prints a digest of the shared array (integer arithmetic, a function of
 * the arguments and the thread count only: equal for any interleaving, and
 * after a restart). */
#include <dao.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 256
/* one cache line per thread: the shared writes do not contend */
static uint64_t a[MAXT][8];

/* The private work: `iters` steps of a dependent recurrence in a register. */
static inline uint64_t work(uint64_t x, long iters) {
    for (long i = 0; i < iters; i++)
        x = (x * 6364136223846793005ull + 1442695040888963407ull) ^ (x >> 29);
    return x;
}

static void usage(const char *p) {
    fprintf(stderr, "usage: %s [--imb N] [--slow workers|master] [--steps S] [--barrier K] [--unit ITERS]\n", p);
    exit(2);
}

int main(int argc, char **argv) {
    long imb = 10, steps = 100, every = 10, unit = 800000;
    int slow_master = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage(argv[0]);
        const char *v = argv[i + 1];
        if (!strcmp(argv[i], "--imb"))
            imb = atol(v);
        else if (!strcmp(argv[i], "--steps"))
            steps = atol(v);
        else if (!strcmp(argv[i], "--barrier"))
            every = atol(v);
        else if (!strcmp(argv[i], "--unit"))
            unit = atol(v);
        else if (!strcmp(argv[i], "--slow")) {
            if (!strcmp(v, "master"))
                slow_master = 1;
            else if (!strcmp(v, "workers"))
                slow_master = 0;
            else
                usage(argv[0]);
        } else
            usage(argv[0]);
        i++;
    }
    if (imb < 1 || steps < 1 || every < 1 || unit < 1)
        usage(argv[0]);
    if (omp_get_max_threads() > MAXT) {
        fprintf(stderr, "omp_imbalance: at most %d threads\n", MAXT);
        return 1;
    }
    int nthreads = 1;
#pragma omp parallel
    {
        int tid = omp_get_thread_num();
        if (tid == 0)
            nthreads = omp_get_num_threads();
        int slow = slow_master ? tid == 0 : tid != 0;
        long iters = slow ? imb * unit : unit;
        for (long s = 0; s < steps; s++) {
            dao_potential_checkpoint();
            uint64_t x = work(a[tid][0] ^ ((uint64_t)s << 32) ^ (uint64_t)tid, iters);
            a[tid][0] = x;
            if ((s + 1) % every == 0) {
#pragma omp barrier
            }
        }
    }
    uint64_t d = 0xcbf29ce484222325ull;
    for (int t = 0; t < nthreads; t++)
        d = (d ^ a[t][0]) * 0x100000001b3ull;
    printf("omp_imbalance threads=%d slow=%s imb=%ld steps=%ld barrier=%ld unit=%ld: digest %016llx\n", nthreads,
           slow_master ? "master" : "workers", imb, steps, every, unit, (unsigned long long)d);
    return 0;
}
