/* batch_omp.c -- an OpenMP job that batch systems signal (issue #37).
 *
 * Exercises: the checkpoint a signal asks for taken where the program's
 * markers are: MODE `region` (every thread of a parallel region reaches a
 * marker, then a barrier), `for` (a marker in the body of a static
 * worksharing loop), `between` (a marker between two parallel regions).
 * Each step sleeps STEP_MS (inside the region for `region` and `for`), so
 * the signal arrives while the team works or while only the master runs.
 * Progress is printed and flushed every 10 steps.
 *
 * Invariant: the shared array, the digest and every thread's frame are
 * restored byte for byte, so the output after a restart equals the
 * uninterrupted run's, whatever the thread count.
 * Arguments: MODE (region, for, between; default between) STEPS (default
 * 200) STEP_MS (default 10).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"
#include "pause.h"

#define N 24000
#define CHUNKS 8

static double a[N];

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "between";
    int steps = argc > 2 ? atoi(argv[2]) : 200;
    double step_ms = argc > 3 ? atof(argv[3]) : 10;
    int m = strcmp(mode, "region") == 0 ? 0 : strcmp(mode, "for") == 0 ? 1 : 2;
    for (int i = 0; i < N; i++)
        a[i] = (i % 101) * 0.25;
    double digest = 0;
    for (int it = 0; it < steps; it++) {
        if (m == 0) {
#pragma omp parallel
            {
                int t = omp_get_thread_num(), nt = omp_get_num_threads();
                for (int i = t; i < N; i += nt)
                    a[i] = a[i] * 0.999 + (it % 5) * 1e-3;
                pause_ms(step_ms);
                dao_potential_checkpoint(); /* every thread, inside the region */
#pragma omp barrier
            }
        } else if (m == 1) {
#pragma omp parallel for schedule(static)
            for (int c = 0; c < CHUNKS; c++) {
                for (int i = c; i < N; i += CHUNKS)
                    a[i] = a[i] * 0.999 + (it % 5) * 1e-3;
                pause_ms(step_ms / 4);
                dao_potential_checkpoint(); /* inside the worksharing loop */
            }
        } else {
#pragma omp parallel for schedule(static)
            for (int i = 0; i < N; i++)
                a[i] = a[i] * 0.999 + (it % 5) * 1e-3;
            pause_ms(step_ms);
            dao_potential_checkpoint(); /* between regions */
        }
        digest += a[(it * 131) % N];
        if (it % 10 == 9) {
            printf("step %d digest %a\n", it + 1, digest);
            fflush(stdout);
        }
    }
    printf("batch_omp %s: steps=%d digest=%.17g\n", mode, steps, digest);
    return 0;
}
