/* heap_churn.c -- many small heap blocks, some unreachable, allocated and
 * freed by the main thread between regions and by every thread inside them.
 *
 * Exercises: the heap's part of a checkpoint collected by a forked writer
 * on its snapshot (DAO_HEAP_SCAN=writer, the default with DAO_ASYNC=wait):
 * the walk of a heap of a few thousand blocks, the reachability scan
 * through a table of pointers and lists hanging from it (blocks reached
 * only through other blocks), blocks the program leaks (unreachable: never
 * saved; a few hundred after a hundred steps), and threads that call malloc/free while the checkpoint is taken
 * (inside a region, with the non-blocking protocol the checked-in threads
 * go on; between regions libomp's threads are idle).
 * Markers: at the top of every step (main) and inside the region's loop
 * (every thread, every 8 nodes).
 *
 * Invariant: every reachable block is restored at its address with its
 * contents, the allocator's state with them, so the sums printed after a
 * restart (which depend on node values only, not on addresses or on which
 * thread updated a node) equal those of the uninterrupted run.
 * Argument: number of steps (default 400).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

#define NT 512

struct node {
    struct node *next;
    int len;
    double v[];
};

static struct node *make(int len, double seed) {
    struct node *n = malloc(sizeof *n + (size_t)len * sizeof(double));
    n->next = NULL;
    n->len = len;
    for (int i = 0; i < len; i++)
        n->v[i] = seed + 0.001 * i;
    return n;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 400;
    /* the table itself is a heap block: every node is reached through it */
    struct node **tab = calloc(NT, sizeof *tab);
    unsigned x = 12345;
    for (int i = 0; i < NT; i++) {
        tab[i] = make(4 + i % 29, i);
        tab[i]->next = make(2 + i % 7, -i); /* reached only through tab[i] */
    }
    for (int s = 0; s < steps; s++) {
        dao_potential_checkpoint();
        /* churn in main: replace a few lists, leak some blocks */
        for (int k = 0; k < 6; k++) {
            x = x * 1103515245u + 12345u;
            int i = (int)((x >> 8) % NT);
            struct node *old = tab[i];
            struct node *n = make(3 + (int)((x >> 4) % 40), old->v[0] + 1.0);
            n->next = old->next;
            if (k % 3 == 0) {
                /* leaks the old second node: it stays allocated, and no
                   saved byte points to it any more */
                n->next = make(2 + (int)((x >> 12) % 9), old->next->v[0] - 0.5);
            }
            free(old);
            tab[i] = n;
        }
#pragma omp parallel for schedule(static, 8)
        for (int i = 0; i < NT; i++) {
            if (i % 8 == 0)
                dao_potential_checkpoint();
            struct node *n = tab[i];
            /* a scratch block per node, allocated and freed by whichever
               thread runs it */
            double *tmp = malloc((size_t)n->len * sizeof *tmp);
            for (int j = 0; j < n->len; j++)
                tmp[j] = n->v[j] * 0.5 + n->next->v[j % n->next->len] * 0.25;
            for (int j = 0; j < n->len; j++)
                n->v[j] = tmp[(j + 1) % n->len] + 0.125;
            free(tmp);
        }
        if (s % 20 == 19 || s == steps - 1) {
            double sum = 0;
            long blocks = 0;
            for (int i = 0; i < NT; i++)
                for (struct node *n = tab[i]; n; n = n->next, blocks++)
                    for (int j = 0; j < n->len; j++)
                        sum += n->v[j];
            printf("step %d: %ld blocks, sum %.10e\n", s + 1, blocks, sum);
        }
    }
    return 0;
}
