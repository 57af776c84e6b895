/* Benchmark program for open files across checkpoints (docs/results.md,
 * "Open files (issue #31)"; scripts/bench_files.py).
 *
 * Opens NFILES files for writing in DIR (stdio streams, "w"), then runs
 * STEPS steps: each step writes one line to every file and does WORK
 * iterations of a dependent recurrence (no memory writes), with a marker
 * at the top of the step. The runtime records every open file at each
 * checkpoint (its position, size and, up to 1 MiB, content): the
 * checkpoint time grows with the files, the time between checkpoints does
 * not. Arguments: DIR NFILES STEPS WORK.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int nfiles = argc > 2 ? atoi(argv[2]) : 10;
    long steps = argc > 3 ? atol(argv[3]) : 100;
    long work = argc > 4 ? atol(argv[4]) : 1000000;
    FILE **f = malloc(sizeof(FILE *) * (nfiles > 0 ? nfiles : 1));
    char path[1024];
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/f%04d.txt", dir, i);
        f[i] = fopen(path, "w");
        if (!f[i]) {
            perror(path);
            return 1;
        }
    }
    unsigned long long x = 88172645463325252ULL;
    for (long s = 0; s < steps; s++) {
        dao_potential_checkpoint();
        for (int i = 0; i < nfiles; i++)
            fprintf(f[i], "step %ld file %d value %llu\n", s, i, x % 1000003);
        for (long k = 0; k < work; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    }
    for (int i = 0; i < nfiles; i++)
        fclose(f[i]);
    printf("%llu\n", x);
    return 0;
}
