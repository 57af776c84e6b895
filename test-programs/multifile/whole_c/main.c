/* whole_c/main.c -- whole-program liveness (issue #33): the marker is
 * here, the work in work.c. Each step calls fill(), which rewrites the
 * global `scratch` (256 KiB) whole, then use(), which reads it. Compiled
 * file by file, the candidate calls code the pass cannot see, and work.c's
 * own summary of what other files' code may read keeps `scratch` (use()
 * reads it before writing it); in whole-program mode (--dao-whole-program)
 * the pass sees fill() before use() and `scratch` is dead at the
 * candidate; `u` stays live. -DSCRATCH_READ: use() also runs before
 * fill(), so `scratch` must be kept in both modes.
 * Invariant: the restarted run prints what the uninterrupted run prints.
 * Argument: number of steps (default 30). */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

void init(void);
void fill(int it);
double use(int it);
double total(void);

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 30;
    double s = 0.0;
    init();
    for (int it = 0; it < n; it++) {
        dao_potential_checkpoint();
#ifdef SCRATCH_READ
        s += use(it);
#endif
        fill(it);
        s += use(it);
    }
    printf("sum %.12f total %.12f\n", s, total());
    return 0;
}
