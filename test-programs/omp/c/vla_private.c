/* vla_private.c -- a variable-length array private to each thread.
 *
 * Exercises: a VLA declared inside a `#pragma omp parallel` region (a
 * window of run-time length in every thread's outlined frame), filled and
 * read in each iteration of a static worksharing loop, with a marker
 * between the fill and the reads (every 64th iteration), and a VLA at
 * main's scope read by every thread. The pass moves both to the heap
 * (to_heap.rs): each thread's window becomes its own block, and a restart
 * finds every thread's block at its address with its pointer in the
 * thread's frame.
 *
 * Invariant: the output (a digest of the shared result array per step,
 * independent of the thread count) after a restart equals that of the
 * uninterrupted run. Arguments: steps (default 40), the window's length
 * (default 24).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define M 4096

static double a[M], b[M];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 40;
    int n = argc > 2 ? atoi(argv[2]) : 24;
    double weight[n];
    for (int k = 0; k < n; k++)
        weight[k] = 1.0 / (k + 1);
    for (int i = 0; i < M; i++)
        a[i] = (double)(i % 97) * 0.01;
    for (int s = 0; s < steps; s++) {
#pragma omp parallel
        {
            double win[n];
#pragma omp for schedule(static)
            for (int i = 0; i < M; i++) {
                for (int k = 0; k < n; k++)
                    win[k] = a[(i + k) % M] * 0.5 + s;
                if (i % 64 == 0)
                    dao_potential_checkpoint();
                double acc = 0.0;
                for (int k = 0; k < n; k++)
                    acc += win[k] * weight[k];
                b[i] = acc;
            }
        }
        double d = 0.0;
        for (int i = 0; i < M; i++) {
            a[i] = b[i] * 0.25;
            d += a[i] * (i % 7 + 1);
        }
        printf("step %d digest %.9e\n", s, d);
    }
    return 0;
}
