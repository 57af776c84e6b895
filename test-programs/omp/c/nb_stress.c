/* nb_stress.c -- randomised imbalance and random shared writes right after markers.
 *
 * Exercises: a parallel region enclosing many short steps; per step a
 * static `omp for nowait` over NI iterations whose inner trip counts are
 * drawn from a xorshift generator seeded by (step, iteration index) --
 * never by thread id, so the work of every iteration, and the output, are
 * the same for any thread count, while the threads' loads differ at random
 * from step to step (an iteration is 1-4 inner passes, one in eight is
 * 12-30): threads drift apart within a step and meet at an explicit
 * barrier. Right after every marker a thread writes shared data picked at
 * random: an `atomic` add into one of NS shared slots, or a
 * read-modify-write of its iteration's own shared element, and always an
 * `atomic` increment of a shared marker counter. After the barrier a
 * `single nowait` folds the shared slots and elements into a digest
 * (printed every 256 steps and at the end).
 * Markers: in the inner pass loop (once per pass), each immediately
 * followed by the shared writes; and after the per-step barrier.
 * With DAO_EVERY=1 every marker the master reaches starts a checkpoint
 * round: about 58 per step with 2 threads, 29 with 4 (the stress test of
 * tests/tests/omp.rs runs 50 and 100 steps: about 3000 rounds).
 *
 * Invariant: a checkpoint holds the shared data as of the instant every
 * thread's saved position was taken (no shared write of a thread after its
 * saved marker, none missing from before it), so a restart redoes exactly
 * the writes that the checkpoint lacks. Checked: after each step's barrier
 * every thread compares the shared marker counter with the number of
 * passes of all steps so far, recomputed privately from the generator (a
 * write redone or lost makes it differ; mismatches are counted in `bad`,
 * printed at the end); the slot digest and the per-iteration values are
 * printed.
 * Argument: number of steps (default 4000; 400 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NI 24 /* iterations per step: a multiple of 1, 2, 3 and 4 */
#define NS 61 /* shared slots */
#define WORK 2000 /* generator steps per pass */

static int64_t slot[NS];
static int64_t own[NI];
static int64_t passes_done; /* atomic: one per marker in the pass loop */
static int64_t bad;

static uint64_t xs(uint64_t x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

/* the generator's seed for iteration i of step s (splitmix64 finaliser; never 0) */
static uint64_t seed(int s, int i) {
    uint64_t z = (uint64_t)s * NI + (uint64_t)i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z | 1;
}

/* inner passes of iteration i of step s: 1-4, one in eight 12-30 */
static int passes(int s, int i) {
    uint64_t r = seed(s, i);
    return (r >> 61) == 0 ? 12 + (int)((r >> 8) % 19) : 1 + (int)((r >> 8) % 4);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 4000;
    uint64_t digest = 0;
#pragma omp parallel
    {
        int64_t expect = 0; /* private: passes of all steps so far */
        for (int s = 0; s < steps; s++) {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < NI; i++) {
                uint64_t r = seed(s, i);
                int np = passes(s, i);
                int64_t p = 0;
                for (int j = 0; j < np; j++) {
                    for (int q = 0; q < WORK; q++) {
                        r = xs(r);
                        p += (int64_t)(r >> 44);
                    }
                    dao_potential_checkpoint();
                    /* shared writes immediately after the marker */
#pragma omp atomic
                    passes_done += 1;
                    r = xs(r);
                    if (r & 1) {
#pragma omp atomic
                        slot[(r >> 8) % NS] += (int64_t)((r >> 20) & 0xffff) + (p & 0xff);
                    } else {
                        own[i] = (own[i] * 31 + (p & 0xffff)) % 1000000007;
                    }
                }
                own[i] = (own[i] + p) % 1000000007;
            }
            for (int i = 0; i < NI; i++)
                expect += passes(s, i);
#pragma omp barrier
            dao_potential_checkpoint();
            if (passes_done != expect) {
#pragma omp atomic
                bad += 1;
            }
#pragma omp single nowait
            {
                uint64_t h = 0;
                for (int k = 0; k < NS; k++)
                    h = h * 1099511628211ull + (uint64_t)slot[k];
                for (int i = 0; i < NI; i++)
                    h = h * 31 + (uint64_t)own[i];
                digest = (digest ^ h) * 1099511628211ull;
                if (s % 256 == 255 || s == steps - 1)
                    printf("step %d passes=%lld slots=%llu own=%lld\n", s + 1, (long long)passes_done,
                           (unsigned long long)h, (long long)own[NI / 3]);
            }
            /* nobody starts the next step's writes before every thread has
             * compared the counter and the digest is taken */
#pragma omp barrier
        }
    }
    printf("nb_stress: steps=%d digest=%llu bad=%lld\n", steps, (unsigned long long)digest, (long long)bad);
    return 0;
}
