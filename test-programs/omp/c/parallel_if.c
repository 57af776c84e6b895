/* parallel_if.c -- `#pragma omp parallel for if(...)`, both branches.
 *
 * Exercises: a region whose `if` clause is false every third round: clang
 * then calls the outlined function directly between
 * __kmpc_serialized_parallel and __kmpc_end_serialized_parallel (a team of
 * one), otherwise it forks. A checkpoint in the serialized branch must
 * re-enter the serialized region on restart (libomp aborts on an unmatched
 * __kmpc_end_serialized_parallel otherwise); one in the forked branch is a
 * normal in-region checkpoint.
 * Markers: in the loop body (every 1024th iteration) and after the region.
 *
 * Invariant: integer reduction and per-element results, the same for any
 * thread count; the output after a restart equals the uninterrupted run's.
 * Argument: number of rounds (default 600; 120 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 40000

static int64_t v[N];

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 600;
    for (int i = 0; i < N; i++)
        v[i] = (i * 7919) % 10007;
    int64_t grand = 0;
    for (int r = 0; r < rounds; r++) {
        int64_t s = 0;
#pragma omp parallel for if(r % 3 != 0) reduction(+:s) schedule(static)
        for (int i = 0; i < N; i++) {
            v[i] = (v[i] * 31 + r) % 10007;
            s += v[i];
            if ((i & 1023) == 0)
                dao_potential_checkpoint();
        }
        dao_potential_checkpoint();
        grand = grand * 3 + s;
        if (r % 50 == 0 || r == rounds - 1)
            printf("round %d s=%lld grand=%lld\n", r, (long long)s, (long long)grand);
    }
    return 0;
}
