/* teams_cxx.cpp -- a C++ offload program whose `target teams` region calls
 * OpenMP routines outside its `parallel` region (HeCBench's stencil3d-omp
 * has the shape). In C++ an exception may not leave an OpenMP structured
 * block, so clang calls every routine not declared nothrow through an
 * invoke whose unwind edge goes to `__clang_call_terminate`, which calls
 * `__cxa_begin_catch` and `std::terminate`. The pass took those for unknown
 * code that may reach a marker and refused the program at compile time ("a
 * checkpoint marker is reachable inside an OpenMP `teams` region").
 *
 * Each step, after the marker, kernel 1 (a `target teams` region: each
 * team takes its quarter of the range by its team number and splits it
 * among its threads) writes `w` from `u`; kernel 2 (`target teams
 * distribute parallel for`) writes `u` from `w`; every 10 steps `target
 * update from(u)` brings `u` back and the host prints a checksum.
 * Invariant: the checksums after a restart (DAO_DEAD=poison) equal those of
 * the uninterrupted run. Argument: steps (default 60).
 */
#include <cstdio>
#include <cstdlib>
#include <omp.h>
#include "dao.h"

#define N 4096
#define TEAMS 4

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    double *u = new double[N];
    double *w = new double[N];
    for (int i = 0; i < N; i++) {
        u[i] = (i % 13) * 0.5;
        w[i] = 0.0;
    }
#pragma omp target data map(tofrom: u[0:N]) map(alloc: w[0:N])
    {
        for (int s = 0; s < steps; s++) {
            dao_potential_checkpoint();
#pragma omp target teams num_teams(TEAMS) thread_limit(64)
            {
                int t = omp_get_team_num();
#pragma omp parallel
                {
                    int nth = omp_get_num_threads(), id = omp_get_thread_num();
                    for (int i = t * (N / TEAMS) + id; i < (t + 1) * (N / TEAMS); i += nth)
                        w[i] = 0.5 * u[i] + 0.25 * u[(i + 1) % N];
                }
            }
#pragma omp target teams distribute parallel for
            for (int i = 0; i < N; i++)
                u[i] = w[i] + 0.125 * w[(i + 7) % N] + 0.0001 * s;
            if (s % 10 == 9) {
#pragma omp target update from(u[0:N])
                double sum = 0;
                for (int i = 0; i < N; i++)
                    sum += u[i] * (1 + i % 5);
                printf("step %d: %.17g\n", s + 1, sum);
            }
        }
    }
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += u[i];
    printf("final: %.17g\n", sum);
    delete[] u;
    delete[] w;
    return 0;
}
