/* dynamic_schedule.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside the body of a `schedule(dynamic)` loop: which iterations a
 * thread runs is decided at run time by the order in which threads grab
 * chunks, so a restarted run cannot hand each thread the rest of its
 * iterations (the dispatcher's shared state is not reproducible). `dao cc`
 * must fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double v[100000];

int main(void) {
    double s = 0.0;
    for (int r = 0; r < 10; r++) {
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : s)
        for (int i = 0; i < 100000; i++) {
            v[i] = v[i] * 0.5 + (double)(i % 17);
            if (i % 1000 == 0)
                dao_potential_checkpoint(); /* dao-expect-error */
            s += v[i];
        }
    }
    printf("%a\n", s);
    return 0;
}
