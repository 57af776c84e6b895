// Array-section kills (issue #15) on real IR, through the remarks. At the
// marker at the top of the step loop, `work` (rewritten whole by a
// `parallel for`, the team's chunks together) and `deep` (rewritten three
// calls deep) are dead; everything the step may read before rewriting it
// whole stays live:
// - `halo`: only the interior is rewritten, the border is read: the
//   border alone (2016 of its 32768 bytes) stays live (byte-level
//   liveness, `bytelive`);
// - `early`: rewritten by a loop that may leave early (`break`);
// - `readin`: rewritten by a loop that reads it;
// - `cond_w`: rewritten on one branch only;
// - `alias_a`, `alias_b`: written through a pointer that may be either;
// - (`viap`, rewritten whole by a callee through its pointer parameter, is
//   dead: the call's summary is write_through's specialised to `viap`).
// `nw`, rewritten by a `nowait` worksharing loop in a region, is dead: the
// region ends with the team's join, and before it a thread may only read
// its own chunk (anything else is a data race).
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,O2
#include "dao.h"
#define N 64
static double work[N][N];
static double state[N][N];
static double halo[N][N];
static double early[N][N];
static double readin[N][N];
static double deep[N][N];
static double cond_w[N][N];
static double alias_a[N], alias_b[N];
static double nw[N][N];
static double viap[N][N];
int flag;

static void fill_nowait(void)
{
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                nw[i][j] = 3;
    }
}
__attribute__((noinline)) static void write_through(double (*p)[N])
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            p[i][j] = 4;
}

static void fill_work(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            work[i][j] = state[i][j] * 0.5;
}
static void c3(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            deep[i][j] = i - j;
}
__attribute__((noinline)) static void c2(void) { c3(); }
__attribute__((noinline)) static void c1(void) { c2(); }
static void interior(void)
{
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            halo[i][j] = work[i][j];
}
static void may_break(void)
{
    for (int i = 0; i < N; i++) {
        if (state[i][0] < 0)
            break;
        for (int j = 0; j < N; j++)
            early[i][j] = 1;
    }
}
static void reads_while(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            readin[i][j] = readin[(i + 1) % N][j] + 1;
}
static void on_branch(void)
{
    if (flag)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                cond_w[i][j] = 2;
}
static void through_ptr(void)
{
    double *p = flag ? alias_a : alias_b;
    for (int i = 0; i < N; i++)
        p[i] = i;
}

double run(int steps)
{
    double s = 0;
    for (int t = 0; t < steps; t++) {
        dao_potential_checkpoint();
        fill_work();
        c1();
        interior();
        may_break();
        reads_while();
        on_branch();
        through_ptr();
        fill_nowait();
        write_through(viap);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                state[i][j] += work[i][j] + deep[i][j] + halo[i][j] + early[i][j] + readin[i][j] + cond_w[i][j] + nw[i][j] + viap[i][j];
        s += alias_a[t % N] + alias_b[t % N];
    }
    return s;
}
// At -O2 the optimiser specialises write_through to the one array it is
// called with (the argument becomes @viap); at -O0 the pass analyses it for
// that call (a callee summary specialised to the global passed).
// O0: sections.c:105: candidate 1 in 'run': live: {{.*}} 8 globals (134116 B) [flag, halo (2016 of 32768 B live), early, readin, cond_w, state, alias_a, alias_b]; dead in 'run' after this point: {{.*}}viap (32768 B, rewritten first by the call of 'write_through' at {{.*}}sections.c:114){{.*}}halo (30752 of 32768 B, rewritten first by the call of 'interior' at {{.*}}sections.c:108)
// O2: sections.c:105: candidate 1 in 'run': live: {{.*}} 8 globals (134116 B) [flag, halo (2016 of 32768 B live), early, readin, cond_w, state, alias_a, alias_b]; dead in 'run' after this point: {{.*}}halo (30752 of 32768 B, rewritten first by the loop at {{.*}}sections.c:{{[0-9]+}})
// O0-DAG: every call of 'interior' writes 30752 of 32768 B of halo before reading it: those bytes dead before the call
// O2-DAG: sections.c:70: loop in 'run' writes 30752 of 32768 B of halo before reading it: those bytes dead before the loop
// CHECK-DAG: every call of 'fill_work.omp_outlined' writes all of work (32768 B) before reading it: dead before the call
// CHECK-DAG: every call of 'fill_nowait.omp_outlined' writes all of nw (32768 B) before reading it: dead before the call
// CHECK-DAG: every call of 'c1' writes all of deep (32768 B) before reading it: dead before the call
// O0-DAG: every call of 'fill_work' writes all of work (32768 B) before reading it
// O0-DAG: every call of 'c3' writes all of deep (32768 B) before reading it
// O2-DAG: every call of 'c2' writes all of deep (32768 B) before reading it
// O2-DAG: every call of 'write_through' writes all of viap (32768 B) before reading it
// CHECK-NOT: writes all of {{(halo|early|readin|cond_w|alias_a|alias_b|state)}}
