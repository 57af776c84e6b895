/* critical_atomic.c -- critical sections and atomic updates of shared data.
 *
 * Exercises: inside a parallel region enclosing the rounds, a static
 * worksharing loop whose body updates a shared histogram and a shared total
 * with `#pragma omp atomic`, takes tickets with `atomic capture` (to append
 * values to a shared buffer, sorted afterwards), and maintains a shared
 * top-8 list under a named `#pragma omp critical`. All results are
 * independent of the update order (ties broken by index; the buffer is
 * sorted before use).
 * Markers: in the region, outside the critical sections: in the loop body
 * after the critical section (every 1024th iteration) and after the loop's
 * implicit barrier.
 *
 * Invariant: the shared histogram, total, buffer and top list and every
 * thread's frame are restored byte for byte, so the output after a restart
 * equals that of the uninterrupted run.
 * Argument: number of rounds (default 150; 8 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 100000
#define NH 64
#define TOPK 8

static int64_t hist[NH];
static int64_t total;
static int64_t buf[N];
static int64_t nbuf;
static int64_t top_val[TOPK], top_idx[TOPK];
static int ntop;

static int cmp64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* (v, i) beats (w, j) if v > w, or v == w and i < j */
static int better(int64_t v, int64_t i, int64_t w, int64_t j) {
    return v > w || (v == w && i < j);
}

static void top_insert(int64_t v, int64_t i) {
    int pos = ntop;
    while (pos > 0 && better(v, i, top_val[pos - 1], top_idx[pos - 1]))
        pos--;
    if (pos >= TOPK)
        return;
    int last = ntop < TOPK ? ntop : TOPK - 1;
    for (int k = last; k > pos; k--) {
        top_val[k] = top_val[k - 1];
        top_idx[k] = top_idx[k - 1];
    }
    top_val[pos] = v;
    top_idx[pos] = i;
    if (ntop < TOPK)
        ntop++;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 150;
    uint64_t digest = 0;
#pragma omp parallel
    {
        for (int r = 0; r < rounds; r++) {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)r * 0xBF58476D1CE4E5B9ull;
                for (int k = 0; k < 8; k++)
                    h = (h ^ (h >> 29)) * 0x94D049BB133111EBull;
                int64_t v = (int64_t)(h >> 40);
#pragma omp atomic
                hist[v % NH]++;
#pragma omp atomic
                total += v & 0xffff;
                if ((v & 15) == 0) {
                    int64_t t;
#pragma omp atomic capture
                    t = nbuf++;
                    buf[t] = v;
                }
                if (v >= ((int64_t)1 << 24) - 4096) {
#pragma omp critical(top)
                    top_insert(v, (int64_t)r * N + i);
                }
                if ((i & 1023) == 0)
                    dao_potential_checkpoint();
            }
            /* implicit barrier: every update of this round is done */
            dao_potential_checkpoint();
#pragma omp single
            {
                qsort(buf, (size_t)nbuf, sizeof buf[0], cmp64);
                uint64_t d = 0;
                for (int64_t k = 0; k < nbuf; k++)
                    d = d * 1000003 + (uint64_t)buf[k];
                digest ^= d + (uint64_t)r;
                if (r % 25 == 24 || r == rounds - 1)
                    printf("round %d nbuf=%lld total=%lld top=%lld@%lld digest=%llu\n", r + 1, (long long)nbuf,
                           (long long)total, (long long)top_val[0], (long long)top_idx[0], (unsigned long long)digest);
                nbuf = 0;
            }
        }
    }
    uint64_t hc = 0;
    for (int k = 0; k < NH; k++)
        hc = hc * 31 + (uint64_t)hist[k];
    printf("top:");
    for (int k = 0; k < ntop; k++)
        printf(" %lld@%lld", (long long)top_val[k], (long long)top_idx[k]);
    printf("\n");
    printf("critical_atomic: rounds=%d total=%lld hist=%llu digest=%llu\n", rounds, (long long)total, (unsigned long long)hc,
           (unsigned long long)digest);
    return 0;
}
