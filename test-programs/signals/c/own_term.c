/* own_term.c -- a program with its own SIGTERM handler (issue #37).
 *
 * Exercises: the program installs a SIGTERM handler with sigaction (it sets
 * a flag; the loop then prints where it stopped and returns 0, the
 * program's own orderly stop). dao's handler must not replace it unless
 * DAO_EXIT_SIGNALS names TERM; with DAO_EXIT_SIGNALS=TERM dao's stays and
 * the program's is never called.
 *
 * Invariant: with the program's handler the run ends by it (status 0,
 * "stopped by its own handler"); with dao's, the run is checkpointed, exits
 * with 143, and the resumed run prints the uninterrupted output.
 * Arguments: STEPS (default 300) STEP_MS (default 10).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"
#include "pause.h"

static volatile sig_atomic_t stop_flag;

static void on_term(int sig) {
    (void)sig;
    stop_flag = 1;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    double step_ms = argc > 2 ? atof(argv[2]) : 10;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    long long acc = 1;
    for (int it = 0; it < steps; it++) {
        acc = (acc * 6364136223846793005LL + it) % 1000000007LL;
        if (stop_flag) {
            printf("stopped by its own handler at step %d\n", it);
            return 0;
        }
        if (it % 10 == 9) {
            printf("step %d acc %lld\n", it + 1, acc);
            fflush(stdout);
        }
        pause_ms(step_ms);
        dao_potential_checkpoint();
    }
    printf("own_term: steps=%d acc=%lld\n", steps, acc);
    return 0;
}
