// The fork of a region with num_threads and proc_bind clauses is labelled
// before both pushes (__kmpc_push_num_threads, __kmpc_push_proc_bind), so
// the restart replays them with the fork.
// RUN: %clang -fopenmp -O0 %s | %opt | %FileCheck %s
// RUN: %clang -fopenmp -O2 %s | %opt | %FileCheck %s
#include "dao.h"
void sweep(double *a, int n) {
#pragma omp parallel for num_threads(3) proc_bind(close) schedule(static)
  for (int i = 0; i < n; i++) {
    a[i] *= 2.0;
    dao_potential_checkpoint();
  }
}
// CHECK-LABEL: define {{.*}}void @sweep(
// CHECK: dao.fork.1:
// CHECK-NEXT: phi i32
// CHECK-NEXT: call void @__kmpc_push_num_threads({{.*}}, i32 3)
// CHECK-NEXT: call void @__kmpc_push_proc_bind({{.*}}, i32 3)
// CHECK-NEXT: call void @dao_omp_fork(
// CHECK-NEXT: call void {{.*}}@__kmpc_fork_call(
// CHECK: dao.restore.1:
// CHECK: br label %dao.fork.1
