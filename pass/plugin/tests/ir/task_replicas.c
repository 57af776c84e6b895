// Explicit tasks (issue #18): every task entry gets a trampoline in its
// place at the allocation site (dao.task.*), which ends with
// dao_omp_task_done; the allocation is routed to dao_omp_task_new. A task
// whose body can run against a write buffer is replicated twice: the
// buffered copy (dao.ft.*) routes its stores through dao_ft_store and
// tests dao_ft_words before its loads, the in-place copy (dao.fi.*) routes
// its stores only; a task that prints is not replicated (its trampoline
// calls the entry).
// RUN: %clang -O2 -fopenmp %s | %opt | %FileCheck %s
// RUN: %clang -O2 -fopenmp %s | %opt | %FileCheck %s --check-prefix=TRAMP
// RUN: %clang -O2 -fopenmp %s | %opt | %FileCheck %s --check-prefix=ONCE
#include <stdio.h>
double a[1024], b[1024];
void work(int n) {
  #pragma omp parallel
  #pragma omp single
  {
    for (int k = 0; k < n; k += 64) {
      #pragma omp task firstprivate(k)
      for (int i = k; i < k + 64; i++)
        a[i] = a[i] * 0.5 + b[i];
    }
    #pragma omp task
    printf("%f\n", a[0]);
  }
}
// CHECK: call {{.*}}@dao_omp_task_new(
// CHECK-NOT: call {{.*}}@__kmpc_omp_task_alloc(
// CHECK-LABEL: define internal {{.*}}@dao.ft..omp_task_entry.(
// CHECK: @dao_ft_words
// CHECK: call void @dao_ft_store(
// CHECK-LABEL: define internal {{.*}}@dao.fi..omp_task_entry.(
// CHECK-NOT: @dao_ft_words
// CHECK: call void @dao_ft_store(
// TRAMP-LABEL: define internal {{.*}}i32 @dao.task..omp_task_entry.(
// TRAMP: call void @dao_ft_task(
// TRAMP: call void @dao_omp_task_done(
// ONCE-LABEL: define internal {{.*}}i32 @dao.task..omp_task_entry..{{[0-9]+}}(
// ONCE-NOT: dao_ft_task
// ONCE: call {{.*}}@.omp_task_entry..{{[0-9]+}}(
// ONCE: call void @dao_omp_task_done(
