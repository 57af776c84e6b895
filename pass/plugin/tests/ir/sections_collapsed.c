// Collapsed loop nests (issue #15): a loop over blocks whose indices are
// `blk / D` and `blk % D` (NPB FT's transforms, and what clang makes of
// `collapse(2)`) writes an exact box that ScalarEvolution does not express
// as a recurrence; the shim evaluates the offset at every iteration and
// splits the loop into two dimensions (`splitCollapsed`). `a` (hand-
// collapsed worksharing loop) and `b` (`collapse(2)`) are rewritten whole
// before they are read, so they are dead at the marker; the loop over `c`
// stops one block short, so that block (8 rows of 64 doubles, 4096 B)
// stays live; `d`'s rows repeat (`blk % 2`), its offset is not a box, and
// it is saved whole.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define NZ 16
#define NY 32
#define NX 64
#define L 8
static double a[NZ][NY][NX], b[NZ][NY][NX], c[NZ][NY][NX], d[NZ][NY][NX];
static void fill_a(double x)
{
#pragma omp parallel for schedule(static)
    for (int blk = 0; blk < NZ * (NY / L); blk++) {
        int k = blk / (NY / L), j0 = (blk % (NY / L)) * L;
        for (int v = 0; v < L; v++)
            for (int i = 0; i < NX; i++)
                a[k][j0 + v][i] = x + i;
    }
}
static void fill_b(double x)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                b[k][j][i] = x * j;
}
static void fill_c(double x)
{
    for (int blk = 0; blk < NZ * (NY / L) - 1; blk++) {
        int k = blk / (NY / L), j0 = (blk % (NY / L)) * L;
        for (int v = 0; v < L; v++)
            for (int i = 0; i < NX; i++)
                c[k][j0 + v][i] = x - i;
    }
}
static void fill_d(double x)
{
    for (int blk = 0; blk < NZ * (NY / L); blk++) {
        int k = blk / (NY / L), j0 = (blk % 2) * L;
        for (int v = 0; v < L; v++)
            for (int i = 0; i < NX; i++)
                d[k][j0 + v][i] = x + v;
    }
}
double run(int steps)
{
    double s = 0;
    for (int t = 0; t < steps; t++) {
        dao_potential_checkpoint();
        fill_a(t);
        fill_b(t);
        fill_c(t);
        fill_d(t);
        for (int k = 0; k < NZ; k++)
            s += a[k][1][2] + b[k][3][4] + c[k][NY - 1][NX - 1] + d[k][NY - 1][5];
    }
    return s;
}
// CHECK: sections_collapsed.c:{{[0-9]+}}: candidate 1 in 'run': {{.*}} 2 globals (266240 B) [c (4096 of 262144 B live), d]; dead in 'run' after this point: 3 globals (782336 B) [a (262144 B, rewritten first by {{.*}}), b (262144 B, rewritten first by {{.*}}), c (258048 of 262144 B, rewritten first by {{.*}})]
// CHECK-DAG: every call of 'fill_a.omp_outlined' writes all of a (262144 B) before reading it
// CHECK-DAG: every call of 'fill_b.omp_outlined' writes all of b (262144 B) before reading it
// CHECK-NOT: writes all of d
// CHECK-NOT: of d before
