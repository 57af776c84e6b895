// Consecutive worksharing loops in one region (the shape of
// test-programs/omp/c/nowait_loops.c). At -O0 clang puts the first loop's
// `__kmpc_for_static_fini` and the second loop's `__kmpc_for_static_init_4`
// in one block; the blocks the second loop's kill is checked over start
// there and must reach its body. A loop that reads the array it rewrites
// (`c`) never kills it, so `c` stays live at the marker in the first loop,
// and `b`, rewritten whole by the first loop but read by the second, is live
// at the marker in the second loop. `w`, rewritten whole by the third loop
// and read only after the region, is dead at both markers.
// (Regression: the kill check once stopped in the shared block, saw no read,
// and dropped `c` from every checkpoint of the region: a wrong restart.)
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define N 1000
static long b[N], c[N], w[N];
long run(int rounds)
{
    long s = 0;
#pragma omp parallel
    {
        for (int r = 0; r < rounds; r++) {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                b[i] = r + i;
                if ((i & 255) == 0)
                    dao_potential_checkpoint();
            }
#pragma omp for schedule(static) nowait
            for (int i = 0; i < N; i++) {
                c[i] = (c[i] * 13 + b[i]) % 65537;
                if ((i & 255) == 1)
                    dao_potential_checkpoint();
            }
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                w[i] = c[i];
        }
    }
    for (int i = 0; i < N; i++)
        s += w[i];
    return s;
}
// Inside the loop that rewrites `b` a checkpoint keeps what the earlier
// iterations wrote, so `b` is live at both markers. At -O2 no loop here
// kills (its worksharing loops are not described yet); the live sets agree.
// CHECK-DAG: sections_nowait_chain.c:27: candidate {{[0-9]+}} in 'run.omp_outlined'{{.*}}; shared, {{.*}} 2 globals (16000 B) [b, c]
// CHECK-DAG: sections_nowait_chain.c:33: candidate {{[0-9]+}} in 'run.omp_outlined'{{.*}}; shared, {{.*}} 2 globals (16000 B) [b, c]
// O0-DAG: sections_nowait_chain.c:24: loop in 'run.omp_outlined' writes all of b (8000 B) before reading it
// O0-DAG: sections_nowait_chain.c:36: loop in 'run.omp_outlined' writes all of w (8000 B) before reading it
// CHECK-NOT: writes all of c
