/* in_teams.c -- MUST BE REJECTED at compile time.
 *
 * A marker reached inside a host `#pragma omp teams` region (OpenMP 5.0:
 * `teams` outside a `target`): each team of the league runs the region's
 * outlined function with its own master thread, and the teams share no
 * barrier, so no checkpoint can stop them at one point and a restart
 * cannot put them back. `dao cc` must fail with a diagnostic naming
 * file:line (the marker, in the function the region calls) and
 * mentioning dao.
 */
#include <stdio.h>
#include "dao.h"

#define N 4096
static double a[N];

static void step(void) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        a[i] += 1;
    dao_potential_checkpoint(); /* dao-expect-error */
}

int main(void) {
    for (int it = 0; it < 10; it++) {
#pragma omp teams num_teams(2)
        step();
    }
    printf("%f\n", a[7]);
    return 0;
}
