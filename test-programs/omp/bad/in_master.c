/* in_master.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside a `#pragma omp master` block: only thread 0 executes it
 * (with no barrier), so the team cannot meet at the marker. `dao cc` must
 * fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double x[4096];

int main(void) {
#pragma omp parallel
    {
        for (int it = 0; it < 20; it++) {
#pragma omp for schedule(static)
            for (int i = 0; i < 4096; i++)
                x[i] = x[i] * 0.5 + (double)(i % 13);
#pragma omp master
            {
                printf("it %d x=%a\n", it, x[100]);
                dao_potential_checkpoint(); /* dao-expect-error */
            }
#pragma omp barrier
        }
    }
    return 0;
}
