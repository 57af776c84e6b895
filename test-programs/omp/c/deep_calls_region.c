/* deep_calls_region.c -- a marker three calls deep below a parallel region.
 *
 * Exercises: a `#pragma omp parallel` region (no worksharing construct) in
 * which every thread calls process_item -> refine -> relax for the items it
 * owns (items tid, tid+nt, ...: a cyclic distribution computed from
 * omp_get_thread_num()), each frame holding live locals and pointers into
 * the item's heap arrays; a stack struct in the region's frame is passed by
 * pointer down the chain.
 * Markers: in relax (three calls below the outlined region function, every
 * 8th sweep) and in process_item after refine returns.
 *
 * Invariant: each thread's whole chain of frames (outlined region,
 * process_item, refine, relax) and the heap items are restored byte for
 * byte, so the per-item results (independent of the distribution) printed
 * after a restart equal those of the uninterrupted run.
 * Argument: number of rounds (default 120; 8 gives ~0.1 s).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NITEMS 37
#define LEN 2000

struct item {
    double *val;
    int64_t *cnt;
    double energy;
};

struct ctx {
    int round;
    double alpha;
    int64_t calls;
};

__attribute__((noinline)) static double relax(double *v, int n, double alpha, int sweep) {
    double e = 0.0;
    for (int j = 1; j < n - 1; j++) {
        double nv = v[j] + alpha * (v[j - 1] - 2.0 * v[j] + v[j + 1]);
        e += (nv - v[j]) * (nv - v[j]);
        v[j] = nv;
    }
    if (sweep % 8 == 0)
        dao_potential_checkpoint();
    return e;
}

__attribute__((noinline)) static double refine(struct item *it, struct ctx *c, int sweeps) {
    double total = 0.0;
    for (int s = 0; s < sweeps; s++) {
        total += relax(it->val, LEN, c->alpha, s);
        it->cnt[s % 4]++;
    }
    c->calls++;
    return total;
}

__attribute__((noinline)) static void process_item(struct item *it, struct ctx *c, int idx) {
    double e = refine(it, c, 16 + idx % 5);
    dao_potential_checkpoint();
    it->energy = e;
    it->val[0] = it->val[LEN - 1] = e * 1e-3;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 120;
    struct item items[NITEMS];
    for (int k = 0; k < NITEMS; k++) {
        items[k].val = malloc(LEN * sizeof(double));
        items[k].cnt = calloc(4, sizeof(int64_t));
        items[k].energy = 0.0;
        for (int j = 0; j < LEN; j++)
            items[k].val[j] = (double)((j * (k + 3)) % 101) / 101.0;
    }
    int64_t total_calls = 0;
    for (int r = 0; r < rounds; r++) {
#pragma omp parallel
        {
            struct ctx c = {r, 0.2 + 0.01 * (double)(r % 4), 0};
            int tid = omp_get_thread_num(), nt = omp_get_num_threads();
            for (int k = tid; k < NITEMS; k += nt)
                process_item(&items[k], &c, k);
#pragma omp atomic
            total_calls += c.calls;
        }
        if (r % 15 == 14 || r == rounds - 1)
            printf("round %d e0=%a e36=%a v=%a\n", r + 1, items[0].energy, items[36].energy, items[12].val[LEN / 2]);
    }
    uint64_t cc = 0;
    double es = 0.0;
    for (int k = 0; k < NITEMS; k++) {
        es += items[k].energy;
        for (int q = 0; q < 4; q++)
            cc = cc * 31 + (uint64_t)items[k].cnt[q];
        free(items[k].val);
        free(items[k].cnt);
    }
    printf("deep_calls_region: rounds=%d calls=%lld cnt=%llu energy=%.17g\n", rounds, (long long)total_calls,
           (unsigned long long)cc, es);
    return 0;
}
