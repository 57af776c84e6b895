/* recursion.c -- a marker inside a recursion.
 *
 * Exercises: recursive functions whose recursion contains the marker, so the
 * chain holds many activations of the same function, each with different
 * live values: (1) a recursive merge sort over a heap array that checkpoints
 * in every call above a cut-off, (2) a recursive tree walk (depth ~14) that
 * checkpoints at the leaves and after both children returned, keeping a
 * partial result of each level live across the recursive call.
 *
 * Invariant: every live variable of every frame on the chain (all
 * activations of the recursive function) is restored byte for byte, so the
 * printed results equal those of the uninterrupted run.
 * Argument: number of rounds (default 60).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

static unsigned long long rng_state = 88172645463325252ULL;
static unsigned long long next_rand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void merge_sort(long *a, long *tmp, long n, int depth) {
    if (n < 2)
        return;
    long h = n / 2;
    merge_sort(a, tmp, h, depth + 1);
    if (n > 2048)
        dao_potential_checkpoint();
    merge_sort(a + h, tmp, n - h, depth + 1);
    long i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

/* Sums f over a complete binary tree of the given depth; each level keeps
   its own partial result (left) live across the call on the right child. */
static double tree(unsigned long long id, int depth, long *leaves) {
    if (depth == 0) {
        (*leaves)++;
        double x = (double)(id % 1000) / 7.0;
        for (int k = 0; k < 20; k++)
            x = x * 0.5 + 1.0 / (1.0 + x);
        if ((id & 255) == 0)
            dao_potential_checkpoint();
        return x;
    }
    double left = tree(id * 2, depth - 1, leaves);
    double right = tree(id * 2 + 1, depth - 1, leaves);
    if (depth >= 10)
        dao_potential_checkpoint();
    return left * 0.75 + right * 0.25 + (double)depth;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 60;
    long n = 60000;
    long *a = malloc((size_t)n * sizeof *a);
    long *tmp = malloc((size_t)n * sizeof *tmp);
    double tsum = 0.0;
    long leaves = 0;
    unsigned long long sortsum = 0;
    for (int r = 0; r < rounds; r++) {
        for (long i = 0; i < n; i++)
            a[i] = (long)(next_rand() % 1000000007ULL);
        merge_sort(a, tmp, n, 0);
        for (long i = 1; i < n; i++)
            if (a[i - 1] > a[i]) {
                printf("NOT SORTED at %ld\n", i);
                return 1;
            }
        sortsum = sortsum * 1099511628211ULL + (unsigned long long)a[n / 3] + (unsigned long long)a[n - 1];
        double t = tree((unsigned long long)r + 1, 14, &leaves);
        tsum += t;
        printf("round %d median %ld tree %a leaves %ld\n", r, a[n / 2], t, leaves);
    }
    printf("recursion: rounds=%d sortsum=%llu tsum=%.17g\n", rounds, sortsum, tsum);
    free(a);
    free(tmp);
    return 0;
}
