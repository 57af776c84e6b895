// Reads after writes in one iteration (issue #15): a loop whose iteration k
// first rewrites row k of an array and then reads that row kills the
// array at its entry when its iterations together cover it (a time step's
// `rhs[k] = forcing[k]; rhs[k] += ...`, NPB BT's compute_rhs). Dead at the
// marker: `plane` (serial loop), `team` (a worksharing loop: each thread
// its rows), `stmt` (the store and the read in one loop body). Live:
// - `next`: iteration k reads row k + 1, which iteration k + 1 rewrites;
// - `before`: iteration k reads row k before rewriting it;
// - `inside`: the read sits in the loop that writes the row, before the
//   write of the element it reads;
// - `half`: the read sees a byte the iteration did not write.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
#include "dao.h"
#define N 64
static double plane[N][N], team[N][N], stmt[N], next[N][N], before[N][N], inside[N][N], half[N][N];
static double src[N][N];
double out;

__attribute__((noinline)) static void f_plane(void)
{
    for (int k = 0; k < N; k++) {
        for (int j = 0; j < N; j++)
            plane[k][j] = src[k][j];
        for (int j = 1; j < N; j++)
            plane[k][j] += plane[k][j - 1];
    }
}
__attribute__((noinline)) static void f_team(void)
{
#pragma omp parallel for schedule(static)
    for (int k = 0; k < N; k++) {
        for (int j = 0; j < N; j++)
            team[k][j] = src[k][j] * 2;
        for (int j = 1; j < N - 1; j++)
            team[k][j] = 0.5 * (team[k][j - 1] + team[k][j + 1]);
    }
}
__attribute__((noinline)) static void f_stmt(void)
{
    for (int k = 0; k < N; k++) {
        stmt[k] = src[k][0];
        src[k][1] = stmt[k] * 3;
    }
}
__attribute__((noinline)) static void f_next(void)
{
    for (int k = 0; k < N - 1; k++) {
        for (int j = 0; j < N; j++)
            next[k][j] = src[k][j];
        for (int j = 0; j < N; j++)
            next[k][j] += next[k + 1][j];
    }
    for (int j = 0; j < N; j++)
        next[N - 1][j] = 0;
}
__attribute__((noinline)) static void f_before(void)
{
    for (int k = 0; k < N; k++) {
        double s = 0;
        for (int j = 0; j < N; j++)
            s += before[k][j];
        for (int j = 0; j < N; j++)
            before[k][j] = s + src[k][j];
    }
}
__attribute__((noinline)) static void f_inside(void)
{
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++) {
            out += inside[k][N - 1];
            inside[k][j] = src[k][j];
        }
}
__attribute__((noinline)) static void f_half(void)
{
    for (int k = 0; k < N; k++) {
        for (int j = 0; j < N - 1; j++)
            half[k][j] = src[k][j];
        for (int j = 0; j < N; j++)
            half[k][j] += 1;
    }
}

int main(void)
{
    for (int t = 0; t < 3; t++) {
        dao_potential_checkpoint();
        f_plane();
        f_team();
        f_stmt();
        f_next();
        f_before();
        f_inside();
        f_half();
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                out += plane[i][j] + team[i][j] + next[i][j] + before[i][j] + inside[i][j] + half[i][j] + stmt[i] + src[i][j];
    }
    return out > 0;
}
// The candidate's remark lists what is dead after it and the must-write that
// rewrites it first (here the calls; the loop remarks name the loops).
// CHECK: sections_iteration.c:88: candidate 1 in 'main': live: {{.*}} 6 globals (163848 B) [out, next, before, inside, half, src]; dead in 'main' after this point: 3 globals (66048 B) [plane (32768 B, rewritten first by the call of 'f_plane' at {{.*}}sections_iteration.c:89), team (32768 B, rewritten first by the call of 'f_team' at {{.*}}sections_iteration.c:90), stmt (512 B, rewritten first by the call of 'f_stmt' at {{.*}}sections_iteration.c:91)]
// CHECK-DAG: every call of 'f_plane' writes all of plane (32768 B) before reading it
// CHECK-DAG: every call of 'f_team.omp_outlined' writes all of team (32768 B) before reading it
// CHECK-DAG: every call of 'f_stmt' writes all of stmt (512 B) before reading it
// CHECK-NOT: writes all of {{(next|before|inside|half|src)}}
