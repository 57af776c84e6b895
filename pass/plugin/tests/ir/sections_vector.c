// LoopVectorize's versioning with a symbolic count (issue #15): `fill`'s
// loop over i < n is vectorised at -O2, with a check for too few
// iterations that branches to the scalar copy, and a remainder that the
// scalar copy runs after the vector loop. The shim folds the check towards
// the scalar copy in its clone (it covers the whole range from the loop's
// start), so `a` is dead under the runtime-checked condition n >= 4096, at
// -O0 (no vectorisation) and at -O2 alike.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define N 4096
static int n;
static double a[N], b[N];
__attribute__((noinline)) static void fill(double s) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] * s;
}
int main(int argc, char **argv) {
    n = argc > 5 ? 17 : N;
    double out = 0;
    for (int i = 0; i < N; i++) b[i] = i;
    for (int t = 0; t < 10; t++) {
        dao_potential_checkpoint();
        fill(t);
        out += a[t] + a[N - 1];
    }
    return (int)out;
}
// CHECK: sections_vector.c:{{[0-9]+}}: candidate 1 in 'main': {{.*}}saved unless the runtime-checked conditions hold at the checkpoint: 1 globals [a (32768 B) if n >= 4096]
