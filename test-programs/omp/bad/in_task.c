/* in_task.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside an explicit `#pragma omp task`: a task may be run by any
 * thread of the team, deferred, or run at a task scheduling point of
 * another thread, so its frame is not on a fixed thread's chain. `dao cc`
 * must fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double part[8];

int main(void) {
#pragma omp parallel
#pragma omp single
    {
        for (int t = 0; t < 8; t++) {
#pragma omp task firstprivate(t)
            {
                double s = 0.0;
                for (int i = 0; i < 100000; i++)
                    s += (double)((i * (t + 1)) % 7);
                dao_potential_checkpoint(); /* dao-expect-error */
                part[t] = s;
            }
        }
#pragma omp taskwait
    }
    double s = 0.0;
    for (int t = 0; t < 8; t++)
        s += part[t];
    printf("%a\n", s);
    return 0;
}
