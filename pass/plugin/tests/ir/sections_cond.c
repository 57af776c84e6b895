// Runtime-checked conditions (issue #15): loops whose extents are read
// from globals rewrite an array whole only when the extents are large
// enough. The pass emits the condition (-Rdao prints it) and the site
// lists the array as dead under it (`cdead`); the runtime checks it at
// each checkpoint.
// - `a`: for (i < n) a[i] = ... in a callee: dead if n >= 4096;
// - `w`: a worksharing nest over j < ext[0], i < ext[1] (the team writes
//   all of w when ext[0] >= 32 and ext[1] >= 128; clang's `0 < ext[0]`
//   guard around the loop adds ext[0] >= 1): at -O0 (at -O2 the inner loop
//   is vectorised with a remainder, which symbolic counts do not cover);
// - `b`: written from b[1] on: never whole, always saved;
// - `m`: its extent `k` is written after the marker, before the loop:
//   never dead under a condition read at the checkpoint.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,O2
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | %opt | %FileCheck %s --check-prefix=IR
#include <stdint.h>
#include "dao.h"
#define N 4096
static double a[N], b[N], m[N], w[32][128];
static int n, k, ext[2];
double out;

__attribute__((noinline)) static void fill_a(int s)
{
    int64_t x = s;
    for (int i = 0; i < n; i++) {
        x = (x * 7 + i) % 1000003;
        a[i] = (double)x;
    }
}
__attribute__((noinline)) static void fill_w(int s)
{
#pragma omp parallel for
    for (int j = 0; j < ext[0]; j++)
        for (int i = 0; i < ext[1]; i++)
            w[j][i] = s + i * j;
}
__attribute__((noinline)) static void fill_b(int s)
{
    for (int i = 1; i < n; i++)
        b[i] = b[i - 1] * 0.5 + s;
}
__attribute__((noinline)) static void fill_m(int s)
{
    int64_t x = s;
    for (int i = 0; i < k; i++) {
        x = (x * 3 + i) % 1000003;
        m[i] = (double)x;
    }
}
int main(int argc, char **argv)
{
    n = argc > 1 ? N : N - 1;
    ext[0] = argc > 2 ? 32 : 31;
    ext[1] = 128;
    for (int s = 0; s < 10; s++) {
        // CHECK: sections_cond.c:[[@LINE+1]]: candidate 1 in 'main':
        dao_potential_checkpoint();
        k = s + N - 10;
        fill_a(s);
        fill_w(s);
        fill_b(s);
        fill_m(s);
        for (int i = 0; i < N; i++)
            out += a[i] + b[i] + m[i] + w[i / 128][i % 128] * s;
    }
    return 0;
}
// O0-SAME: saved unless the runtime-checked conditions hold at the checkpoint: 2 globals [a (32768 B) if n >= 4096, w (32768 B) if ext[bytes 0..4] >= 32 and ext[bytes 4..8] >= 128]
// CHECK-NOT: b (32768 B) if
// CHECK-NOT: m (32768 B) if
// O0: loop in 'fill_a' writes all of a (32768 B) before reading it if n >= 4096 (checked at run time)
// O0: loop in 'fill_w.omp_outlined' writes all of w (32768 B) before reading it if {{.*}}ext[bytes 0..4] >= 32
// (At -O2 fill_a's loop is unrolled by two with a remainder and fill_w's
// vectorised: their counts are not of the shapes symbolic counts cover
// yet, and everything stays saved.)
// O2: 0 kill under runtime-checked conditions
// The descriptor: the module's conditions (object a, value n: i32 signed or
// not, at least 4096, at most 2^30) and the site's cdead list.
// IR-DAG: @dao.conds = private {{.*}}constant [{{[0-9]+}} x { i32, i32, i64, i32, i32, i64, i64, i64, i64, i32, i32, i64, i32, i32, i64 }]
// IR-DAG: { i32 {{[0-9]+}}, i32 {{[0-9]+}}, i64 0, i32 4, i32 {{[01]}}, i64 4096, i64 1073741824, i64 0, i64 0, i32 -1, i32 0, i64 0, i32 0, i32 0, i64 0 }
// IR-DAG: @dao.site.{{[0-9]+}}.{{[0-9]+}}.cdead = private {{.*}}constant [{{[23]}} x i32]
