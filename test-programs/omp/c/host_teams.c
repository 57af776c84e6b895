/* host_teams.c -- a host `teams` region (OpenMP 5.0: `teams` outside a
 * `target`; clang calls `__kmpc_fork_teams` with the region's outlined
 * function) right after a marker.
 *
 * Each step: a `teams distribute parallel for` reads `src` and writes `dst`,
 * then a `parallel for` rewrites `src` from `dst`, then a second teams region
 * (`teams`, and in team 0 a `parallel for`) accumulates `acc` from `dst`. At the marker `src` and `acc` are read first by the teams
 * regions: both are live. The pass used to treat `__kmpc_fork_teams` as a
 * runtime call that reads only its pointer arguments, and the region's
 * outlined function, which names the static arrays directly, read nothing:
 * `src` was dead at the marker (rewritten first by the `parallel for`), and
 * a restart went on from a poisoned or zeroed `src`. A teams region kills
 * nothing (its teams share no barrier): `dst` stays live too.
 * Argument: steps (default 40).
 */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include "dao.h"

#define N 8192
static double src[N], dst[N], acc[N];

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 40;
    for (int i = 0; i < N; i++)
        src[i] = (i % 13) * 0.25;
    for (int it = 0; it < steps; it++) {
        dao_potential_checkpoint();
#pragma omp teams distribute parallel for num_teams(2)
        for (int i = 0; i < N; i++)
            dst[i] = 0.5 * src[i] + 0.25 * src[(i + 1) % N] + 0.001 * it;
#pragma omp parallel for
        for (int i = 0; i < N; i++)
            src[i] = dst[i] * 0.99 + 0.01 * dst[(i + 3) % N];
#pragma omp teams num_teams(2)
        if (omp_get_team_num() == 0) {
#pragma omp parallel for
            for (int i = 0; i < N; i++)
                acc[i] += dst[i] * (1 + i % 3);
        }
        if (it % 10 == 9) {
            double s = 0, t = 0;
            for (int i = 0; i < N; i++) {
                s += src[i];
                t += acc[i];
            }
            printf("step %d: %.17g %.17g\n", it + 1, s, t);
        }
    }
    return 0;
}
