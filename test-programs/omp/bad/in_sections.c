/* in_sections.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside a `#pragma omp section` of a `sections` construct: each
 * section is run by one thread (which one is decided at run time), so the
 * team cannot meet at the marker. `dao cc` must fail with a diagnostic
 * naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double a[1000], b[1000];

int main(void) {
    for (int it = 0; it < 10; it++) {
#pragma omp parallel sections
        {
#pragma omp section
            {
                for (int i = 0; i < 1000; i++)
                    a[i] += 0.5 * i;
            }
#pragma omp section
            {
                for (int i = 0; i < 1000; i++)
                    b[i] -= 0.25 * i;
                dao_potential_checkpoint(); /* dao-expect-error */
            }
        }
    }
    printf("%a %a\n", a[999], b[999]);
    return 0;
}
