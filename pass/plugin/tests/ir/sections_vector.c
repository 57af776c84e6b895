// Loops with symbolic counts at -O2 (issue #15). `fill`'s loop over i < n
// is vectorised, with a check for too few iterations that branches to the
// scalar copy, and a remainder that the scalar copy runs after the vector
// loop: the shim folds the check towards the scalar copy in its clone (it
// covers the whole range from the loop's start), so `a` is dead under the
// runtime-checked condition n >= 4096. `fill_w`'s worksharing nest has, at
// -O2, its inner loop under its own zero-trip guard (`0 < cols`) in every
// row: the guard becomes a requirement of the condition (implied by cols
// >= 128), so `w` is dead under rows >= 32 and cols >= 128. The same at
// -O0 (no vectorisation, guards at the top of the loops).
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define N 4096
static int n, rows, cols;
static double a[N], b[N];
static double w[32][128];
__attribute__((noinline)) static void fill(double s) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] * s;
}
/* a worksharing nest; at -O2 the inner loop sits under its own zero-trip
 * guard in every row */
__attribute__((noinline)) static void fill_w(double s) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < rows; j++)
        for (int i = 0; i < cols; i++)
            w[j][i] = s * j + i;
}
int main(int argc, char **argv) {
    n = argc > 5 ? 17 : N;
    rows = argc > 6 ? 3 : 32;
    cols = argc > 7 ? 5 : 128;
    double out = 0;
    for (int i = 0; i < N; i++) b[i] = i;
    for (int t = 0; t < 10; t++) {
        dao_potential_checkpoint();
        fill(t);
        fill_w(t);
        out += a[t] + a[N - 1] + w[t][t] + w[31][127];
    }
    return (int)out;
}
// CHECK: sections_vector.c:{{[0-9]+}}: candidate 1 in 'main': {{.*}}saved unless the runtime-checked conditions hold at the checkpoint: 2 globals [a (32768 B) if n >= 4096, w (32768 B) if rows >= 32 and cols >= 128]
