/* guided_schedule.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside the body of a `schedule(guided)` loop: as with dynamic,
 * chunks are handed out at run time by a shared dispatcher, so a restarted
 * run cannot reproduce which thread runs which iterations. `dao cc` must
 * fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double v[100000];

int main(void) {
    double s = 0.0;
#pragma omp parallel
    {
        for (int r = 0; r < 10; r++) {
#pragma omp for schedule(guided) reduction(+ : s)
            for (int i = 0; i < 100000; i++) {
                v[i] = v[i] * 0.5 + (double)(i % 19);
                s += v[i];
                if (i % 1000 == 0)
                    dao_potential_checkpoint(); /* dao-expect-error */
            }
        }
    }
    printf("%a\n", s);
    return 0;
}
