// Specialised callee summaries must not kill what a call may still read
// (issue #15, soundness). Nothing is dead at the marker, at -O0 and -O2:
// - `fill_two(a, p)` rewrites all of `a` through its first argument, but
//   first reads through its second, which may be `a` (`p = flag ? a : b`,
//   `flag` external): the call reads what `p` may point to before its
//   kill, so `a` (and `b`) stay live;
// - `retarget(c)`: the region reassigns its captured pointer (`x = d` in
//   a `single`) before the worksharing loop writes through it, so the
//   capture slot is not bound and neither `c` nor `d` is killed;
// - `from_row(&b[1])` passes an address inside `b`, not `b` itself: no
//   binding (and `b` is read through `p` before anyway).
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define N 64
#define M 128
static double a[N][M], b[N][M], c[N][M], d[N][M];
int flag; /* external: may be set elsewhere */

/* rewrites all of x, after reading y: y may be x */
__attribute__((noinline)) static void fill_two(double (*x)[M], double (*y)[M])
{
    double t = y[0][0];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            x[j][i] = t + i;
}

/* the region reassigns its captured pointer before it writes through it */
__attribute__((noinline)) static void retarget(double (*x)[M])
{
#pragma omp parallel
    {
#pragma omp single
        x = d;
#pragma omp for schedule(static)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++)
                x[j][i] = j + i;
    }
}

/* rewrites all but the first row: called with the second row's address */
__attribute__((noinline)) static void from_row(double (*x)[M])
{
    for (int j = 0; j < N - 1; j++)
        for (int i = 0; i < M; i++)
            x[j][i] = i - j;
}

double run(int steps)
{
    double s = 0;
    for (int t = 0; t < steps; t++) {
        dao_potential_checkpoint();
        double (*p)[M] = flag ? a : b;
        fill_two(a, p);
        retarget(c);
        from_row(&b[1]);
        s += a[1][2] + b[0][1] + b[3][4] + c[5][6] + d[7][8];
    }
    return s;
}
// CHECK: sections_params_neg.c:{{[0-9]+}}: candidate 1 in 'run': {{.*}} 5 globals (262148 B) [flag, a, b, c, d]; dead in 'run' after this point: 0 globals (0 B) []
