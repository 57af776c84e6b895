/* fork_term.c -- a program that forks children and stops each with
 * SIGTERM at once (a pool of helpers torn down, a shell's `kill`).
 * Argument 1: the number of children (default 500).
 *
 * Invariant: a child the program forks gets the default action of the
 * signals dao handles (DAO_EXIT_SIGNALS, DAO_CHECKPOINT_SIGNALS) from its
 * first instruction: every child dies of its SIGTERM, none is left
 * waiting, the run ends and prints "children stopped: N of N".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dao.h"

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 500;
    long stopped = 0;
    for (long i = 0; i < n; i++) {
        dao_potential_checkpoint();
        pid_t c = fork();
        if (c < 0)
            return 1;
        if (c == 0) {
            pause();
            _exit(0);
        }
        kill(c, SIGTERM);
        int st = 0;
        if (waitpid(c, &st, 0) == c && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
            stopped++;
    }
    printf("children stopped: %ld of %ld\n", stopped, n);
    return stopped == n ? 0 : 1;
}
