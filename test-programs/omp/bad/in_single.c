/* in_single.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside a `#pragma omp single` block: only one thread of the team
 * executes it while the others wait at the single's implicit barrier, so
 * the team cannot meet at the marker (a checkpoint there would need every
 * thread). `dao cc` must fail with a diagnostic naming file:line and
 * mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

int main(void) {
    long s = 0;
#pragma omp parallel
    {
        for (int it = 0; it < 10; it++) {
#pragma omp for schedule(static) reduction(+ : s)
            for (int i = 0; i < 1000; i++)
                s += i % 7;
#pragma omp single
            {
                dao_potential_checkpoint(); /* dao-expect-error */
                s += it;
            }
        }
    }
    printf("%ld\n", s);
    return 0;
}
