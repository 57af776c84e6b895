/* nested_parallel.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside a parallel region nested in another parallel region (an
 * inner team forked by a thread of the outer team; run serially unless
 * nesting is enabled): only one level of teams is supported. `dao cc` must
 * fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double grid[4][1000];

int main(void) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < 4; k++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < 1000; i++) {
            grid[k][i] = (double)(i * (k + 1) % 23);
            if (i % 100 == 0)
                dao_potential_checkpoint(); /* dao-expect-error */
        }
    }
    double s = 0.0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 1000; i++)
            s += grid[k][i];
    printf("%a\n", s);
    return 0;
}
