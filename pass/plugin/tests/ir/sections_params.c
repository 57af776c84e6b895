// Callee summaries specialised to the globals a call passes (issue #15):
// arrays reach the code that rewrites them through pointer parameters and,
// inside parallel regions, through the region's by-reference captures of
// those pointers. `copy_scaled(a, b)` rewrites all of `b` in a worksharing
// loop (at -O2 the vectoriser versions that loop on a runtime alias check,
// folded in the scratch clone): `b` is dead; `copy_scaled(c, c)` reads what
// it writes, so `c` stays live; `level1(d)` rewrites `d` three calls deep;
// `most(e)` rewrites all rows of `e` but the last, which stays live (1024
// B); `pick` returns one of its arguments, so reading through its result
// reads `a` or `b` (after `b` was rewritten).
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define N 64
#define M 128
static double a[N][M], b[N][M], c[N][M], d[N][M], e[N][M];

/* rewrites all of out from in: a worksharing loop on captured pointers */
static void copy_scaled(double (*in)[M], double (*out)[M], double s)
{
#pragma omp parallel for schedule(static)
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            out[j][i] = s * in[j][i];
}

/* rewrites all of x, three calls deep */
__attribute__((noinline)) static void level3(double (*x)[M], int t)
{
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            x[j][i] = t + i;
}
__attribute__((noinline)) static void level2(double (*x)[M], int t) { level3(x, t); }
__attribute__((noinline)) static void level1(double (*x)[M], int t) { level2(x, t); }

/* rewrites all rows of x but the last */
__attribute__((noinline)) static void most(double (*x)[M], int t)
{
    for (int j = 0; j < N - 1; j++)
        for (int i = 0; i < M; i++)
            x[j][i] = t * j + i;
}

/* returns one of its arguments */
__attribute__((noinline)) static double (*pick(double (*p)[M], double (*q)[M], int k))[M]
{
    return k ? p : q;
}

double run(int steps)
{
    double s = 0;
    for (int t = 0; t < steps; t++) {
        dao_potential_checkpoint();
        copy_scaled(a, b, 0.5);
        copy_scaled(c, c, 2.0);
        level1(d, t);
        most(e, t);
        double (*r)[M] = pick(a, b, t & 1);
        s += r[1][2] + b[3][4] + c[5][6] + d[7][8] + e[N - 1][9] + e[0][1];
        a[0][0] += s * 1e-9;
    }
    return s;
}
// CHECK: sections_params.c:{{[0-9]+}}: candidate 1 in 'run': {{.*}} 3 globals (132096 B) [a, c, e (1024 of 65536 B live)]; dead in 'run' after this point: 3 globals (195584 B) [b (65536 B, rewritten first by {{.*}}copy_scaled{{.*}}), d (65536 B, rewritten first by {{.*}}), e (64512 of 65536 B, rewritten first by {{.*}})]
// CHECK: callee summaries specialised to the globals a call passes
