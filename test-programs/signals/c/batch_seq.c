/* batch_seq.c -- a sequential job that batch systems signal (issue #37).
 *
 * Exercises: a marker per step of a slow loop (each step sleeps STEP_MS),
 * progress printed and flushed every 10 steps, so a test knows how far the
 * run is and sends SIGUSR1 / SIGTERM there; optionally one long phase
 * without any candidate (LONG_MS at step LONG_AT), where an exit signal
 * waits for a candidate (DAO_EXIT_GRACE, a second signal).
 *
 * Invariant: the global array, the running sum and main's counters are
 * restored byte for byte, so a run stopped by an exit signal and resumed
 * prints exactly the uninterrupted run's output; a checkpoint signal leaves
 * the output unchanged.
 * Arguments: STEPS (default 300) STEP_MS (default 10) [LONG_AT LONG_MS].
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"
#include "pause.h"

#define N 4096

static double state[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    double step_ms = argc > 2 ? atof(argv[2]) : 10;
    int long_at = argc > 3 ? atoi(argv[3]) : -1;
    double long_ms = argc > 4 ? atof(argv[4]) : 0;
    for (int i = 0; i < N; i++)
        state[i] = i * 0.5;
    double sum = 0;
    for (int it = 0; it < steps; it++) {
        for (int i = 0; i < N; i++)
            state[i] = state[i] * 0.999 + (it % 7) * 0.001;
        sum += state[(it * 37) % N];
        if (it % 10 == 9) {
            printf("step %d sum %a\n", it + 1, sum);
            fflush(stdout);
        }
        if (it == long_at)
            pause_ms(long_ms);
        pause_ms(step_ms);
        dao_potential_checkpoint();
    }
    printf("batch_seq: steps=%d sum=%.17g\n", steps, sum);
    return 0;
}
