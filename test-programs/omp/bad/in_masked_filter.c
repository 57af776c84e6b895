/* in_masked_filter.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside a `#pragma omp masked filter(1)` block: only thread 1 runs
 * it, and checkpoints inside a region are driven by the master (thread 0),
 * which never gets there. (A marker in `masked` without a filter, in
 * `master` or in `single` is accepted: thread 0 runs those.) `dao cc` must
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
                x[i] = x[i] * 0.5 + (double)(i % 11);
#pragma omp masked filter(1)
            {
                dao_potential_checkpoint(); /* dao-expect-error */
                printf("it %d x=%a\n", it, x[100]);
            }
#pragma omp barrier
        }
    }
    return 0;
}
