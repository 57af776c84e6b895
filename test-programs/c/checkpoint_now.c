/* checkpoint_now.c -- forced checkpoints with dao_checkpoint_now().
 *
 * Exercises: dao_checkpoint_now() at phase boundaries (always writes a
 * checkpoint when DAO_DIR is set, whatever the policy), mixed with ordinary
 * dao_potential_checkpoint() markers inside the phases, and a forced
 * checkpoint in a callee with live state in the caller.
 *
 * Invariant: every live variable of every frame on the chain is restored
 * byte for byte at forced and at potential checkpoints alike, so the
 * printed results equal those of the uninterrupted run.
 * Argument: number of phases (default 12).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

__attribute__((noinline)) static double phase(int p, double *state, int n) {
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 1000; k++)
            state[(i + k) % 256] = state[(i + k) % 256] * 0.999 + (double)((p * 31 + i + k) % 17) * 0.001;
        acc += state[i % 256];
        if (i % 100 == 50)
            dao_potential_checkpoint();
    }
    dao_checkpoint_now();
    return acc;
}

int main(int argc, char **argv) {
    int phases = argc > 1 ? atoi(argv[1]) : 12;
    double *state = calloc(256, sizeof *state);
    double total = 0.0;
    long marks = 0;
    for (int p = 0; p < phases; p++) {
        double a = phase(p, state, 30000);
        total += a;
        marks += p;
        printf("phase %d acc %a total %a\n", p, a, total);
        dao_checkpoint_now();
    }
    double s = 0.0;
    for (int i = 0; i < 256; i++)
        s += state[i];
    printf("checkpoint_now: phases=%d total=%.17g state=%.17g marks=%ld\n", phases, total, s, marks);
    free(state);
    return 0;
}
