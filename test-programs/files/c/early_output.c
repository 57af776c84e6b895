/* early_output.c -- output written before the first checkpoint.
 *
 * The shape of Rodinia's pathfinder and of NPB's headers: a program prints
 * (to stdout and stderr) and appends to a log file before it reaches its
 * first marker, then prints at every step. Arguments: the directory for
 * the log (made by the caller) and the number of steps. With EARLY_STOP=1
 * in the environment the run kills itself with SIGKILL after its early
 * output, before its first marker (a job stopped before its first
 * checkpoint).
 *
 * Invariant: started again with the same DAO_DIR and its streams appended
 * to the same files, the program writes stdout, stderr and the log as one
 * uninterrupted run does: what the stopped run wrote is cut back (there is
 * no checkpoint to resume, so the new run starts from the beginning).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    char path[600];
    snprintf(path, sizeof path, "%s/log.txt", argv[1]);
    int steps = atoi(argv[2]);
    FILE *log = fopen(path, "a");
    if (!log)
        return 3;
    printf("header: %d steps\n", steps);
    fprintf(stderr, "early: starting\n");
    for (int i = 0; i < 200; i++)
        fprintf(log, "setup line %d\n", i);
    fflush(log);
    fflush(stdout);
    const char *stop = getenv("EARLY_STOP");
    if (stop && strcmp(stop, "1") == 0)
        raise(SIGKILL);
    double x = 1.0;
    for (int s = 0; s < steps; s++) {
        dao_potential_checkpoint();
        x = x * 1.000001 + s;
        printf("step %d %.6f\n", s, x);
        fprintf(log, "step %d\n", s);
    }
    fclose(log);
    printf("done %.6f\n", x);
    return 0;
}
