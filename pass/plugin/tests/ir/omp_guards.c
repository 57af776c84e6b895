// Shared-write guards (pass/plugin/src/guard.rs) for the non-blocking
// protocol: `if (dao_omp_guard) dao_omp_guard_wait()` (an acquire load)
// before writes that may touch shared data and before lock acquisitions, in
// functions that may run in a team; one guard on the entry of a loop with no
// check-in point instead of one per iteration; none for private memory.
// RUN: %clang -fopenmp -O0 %s | %opt | %FileCheck %s
// RUN: %clang -fopenmp -O2 %s | %opt | %FileCheck %s
// RUN: %clang -fopenmp -O2 %s | DAO_GUARDS=0 %opt | %FileCheck %s --check-prefix=OFF
// RUN: %clang -fopenmp -O0 %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
#include "dao.h"
#include <stdio.h>
double shared_a[1000];
int counter;

// A kill-free loop writing through a pointer: guarded on the loop's entry
// (at -O2 on the vector loop's and on the remainder loop's), the slow path
// last; the remark counts the loop entries.
// CHECK-LABEL: define {{.*}}void @fill(
// CHECK: load atomic i8, ptr @dao_omp_guard acquire
// CHECK: call void @dao_omp_guard_wait()
__attribute__((noinline)) void fill(double *a, int n) {
  for (int i = 0; i < n; i++) a[i] = i * 0.5;
}

// Only its own stack array: no guard.
// CHECK-LABEL: define {{.*}}double @private_only(
// CHECK-NOT: @dao_omp_guard
// CHECK-LABEL: define {{.*}}void @locked(
__attribute__((noinline)) double private_only(int n) {
  volatile double t[16];
  for (int i = 0; i < 16; i++) t[i] = i * n;
  double s = 0;
  for (int i = 0; i < 16; i++) s += t[i];
  return s;
}

// A lock acquisition is guarded.
// CHECK: load atomic i8, ptr @dao_omp_guard acquire
// CHECK: call void @__kmpc_critical(
__attribute__((noinline)) void locked(void) {
#pragma omp critical
  counter += 1;
}

// The region: a marker, then a shared write (guarded after the marker's
// call), output (guarded).
// CHECK-LABEL: define internal void @main.omp_outlined
// CHECK: call void @dao_candidate(
// CHECK: @dao_omp_guard
// OFF-NOT: @dao_omp_guard
int main(void) {
#pragma omp parallel
  {
    for (int step = 0; step < 10; step++) {
      dao_potential_checkpoint();
      fill(shared_a, 1000);
      shared_a[step] += private_only(step);
      locked();
    }
#pragma omp master
    printf("%d %g\n", counter, shared_a[3]);
  }
  return 0;
}
// REM: remark: {{.*}}omp_guards.c: dao: shared-write guards: {{[1-9][0-9]*}} inserted ({{[1-9][0-9]*}} on loop entries) in {{[1-9][0-9]*}} functions
