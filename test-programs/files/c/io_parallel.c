/* io_parallel.c -- a file opened inside a parallel region, with markers
 * inside the region.
 *
 * Exercises (issue #31): one thread opens the output file in a `single`
 * inside the parallel region (the FILE pointer in a shared static); every
 * step the team computes a static `omp for` and the master appends a line
 * to the file after a barrier, with a marker in the region (checkpoints
 * of the whole team under either protocol); every 16 steps a `single`
 * closes the file and another opens it again in append mode. Arguments: the
 * directory for the file, the number of steps.
 *
 * Invariant: as io_streams.c: the file ends byte for byte as in an
 * uninterrupted run, at any thread count; its digest is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define N 4096
static double a[N];
static FILE *out;
static char path[600];

int main(int argc, char **argv) {
    snprintf(path, sizeof path, "%s/par.txt", argc > 1 ? argv[1] : ".");
    long steps = argc > 2 ? atol(argv[2]) : 64;
    double total = 0;
#pragma omp parallel
    {
#pragma omp single
        out = fopen(path, "w");
        for (long s = 0; s < steps; s++) {
#pragma omp for schedule(static) reduction(+ : total)
            for (int i = 0; i < N; i++) {
                a[i] = a[i] * 0.5 + (double)((i * 7 + s) % 11);
                total += a[i];
            }
            dao_potential_checkpoint();
#pragma omp master
            fprintf(out, "step %ld total %.3f a[17] %.3f\n", s, total, a[17]);
#pragma omp barrier
            if (s % 16 == 15) {
#pragma omp single
                {
                    fclose(out);
                    out = fopen(path, "a");
                }
            }
        }
#pragma omp single
        fclose(out);
    }
    FILE *f = fopen(path, "rb");
    unsigned long long h = 1469598103934665603ULL;
    long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        h = (h ^ (unsigned char)c) * 1099511628211ULL;
        n++;
    }
    fclose(f);
    printf("total %.3f par.txt %ld bytes fnv %016llx\n", total, n, h);
    return 0;
}
