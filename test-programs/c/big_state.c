/* big_state.c -- a large heap state that every step rewrites a little of
 * on every page.
 *
 * Exercises: background checkpoints (issue #16) at their worst: the state
 * is one big heap block, and each step rewrites one word in every 4 KiB
 * page, so while a snapshot is being written the program copies every
 * page it touches (copy-on-write). A marker at the top of each step.
 *
 * Invariant: the block is restored at its old address with its old
 * contents, so the per-step hashes and the final sum equal those of the
 * uninterrupted run.
 * Arguments: size in MiB (default 16), steps (default 40), passes of the
 * hash over the whole state per step (default 1; 0: a sample only): the
 * program's work between two checkpoints.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

int main(int argc, char **argv) {
    long mib = argc > 1 ? atol(argv[1]) : 16;
    int steps = argc > 2 ? atoi(argv[2]) : 40;
    int passes = argc > 3 ? atoi(argv[3]) : 1;
    size_t n = (size_t)mib * (1u << 20) / sizeof(uint64_t);
    uint64_t *a = malloc(n * sizeof *a);
    if (!a) {
        perror("malloc");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = i * 0x9E3779B97F4A7C15ull;
    uint64_t sum = 0;
    for (int s = 0; s < steps; s++) {
        dao_potential_checkpoint();
        /* one word in every page (512 words = 4 KiB) */
        for (size_t i = (size_t)s % 512; i < n; i += 512)
            a[i] = a[i] * 6364136223846793005ull + 1442695040888963407ull + (uint64_t)s;
        uint64_t h = 0;
        for (size_t i = (size_t)s % 61; i < n; i += 61)
            h ^= a[i] + (h << 6) + (h >> 2);
        for (int p = 0; p < passes; p++)
            for (size_t i = 0; i < n; i++)
                h = (h ^ a[i]) * 0x100000001B3ull;
        sum += h;
        printf("step %d %016llx\n", s, (unsigned long long)h);
    }
    printf("final %016llx\n", (unsigned long long)sum);
    free(a);
    return 0;
}
