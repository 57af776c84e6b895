// Parallel regions whose outlined functions reach no marker are left as they
// are, even in a module that has markers and main. `quiet`'s two regions (a
// static `parallel for`, and a region with an explicit barrier and a
// `single`) get no label, no dao_omp_fork/join, no frame, no dao_omp_begin,
// and their barriers get no dao_omp_park. Only `loud`'s region is
// instrumented. At -O2 `quiet` is inlined into main, which is instrumented:
// its forks there still get no label.
// The one change inside them: the module's __kmpc_single declaration is
// replaced by dao_omp_single, which forwards to libomp outside an
// instrumented region (runtime/src/protocol/).
// RUN: %clang -fopenmp -O0 %s | %opt | %FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fopenmp -O2 %s | %opt | %FileCheck %s --check-prefixes=CHECK,O2
// RUN: %clang -fopenmp -O0 %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
// RUN: %clang -fopenmp -O2 %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
#include "dao.h"
double a[100];
static void quiet(int n) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) a[i] = i;
#pragma omp parallel
  {
#pragma omp barrier
#pragma omp single
    a[0] += 1;
  }
}
void loud(int n) {
#pragma omp parallel
  {
    for (int it = 0; it < n; it++) dao_potential_checkpoint();
  }
}
int main(void) {
  quiet(100);
  loud(3);
  return (int)a[1];
}

// The instrumented region, for contrast.
// CHECK-LABEL: define dso_local void @loud(
// CHECK: dao.fork.1:
// CHECK-NEXT: call void @dao_omp_fork(ptr %dao.frame)
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@loud.omp_outlined,
// CHECK-LABEL: define internal void @loud.omp_outlined(
// CHECK: call void @dao_omp_begin(ptr %dao.frame)

// CHECK-LABEL: define internal i32 @__dao_user_main(
// O0: call void @quiet(i32 noundef 100)
// O0-NOT: {{^}}dao.site
// O0: dao.site.1:
// O0-NEXT: call void @loud(
// O2: entry.cont:
// O2-NOT: @dao_omp_fork
// O2: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@quiet.omp_outlined,
// O2-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@quiet.omp_outlined.1)
// O2-NOT: @dao_omp_join
// O2: dao.fork.1:
// O2-NEXT: call void @dao_omp_fork(ptr %dao.frame)
// O2-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@loud.omp_outlined,
// One site only in main (the call of loud, or loud's fork at -O2).
// CHECK: switch i32 %dao.site, label %dao.badsite [
// CHECK-NEXT: i32 1, label %dao.restore.1
// CHECK-NEXT: ]

// O0-LABEL: define internal void @quiet(
// O0-NOT: dao
// O0: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@quiet.omp_outlined,
// O0-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@quiet.omp_outlined.1)
// O0-NOT: dao
// O0: ret void

// CHECK-LABEL: define internal void @quiet.omp_outlined(
// CHECK-NOT: dao
// CHECK: call void @__kmpc_for_static_init_4(
// CHECK-NOT: dao
// CHECK: ret void

// CHECK-LABEL: define internal void @quiet.omp_outlined.1(
// CHECK-NOT: dao
// CHECK: call void @__kmpc_barrier(
// CHECK-NOT: dao
// CHECK: call i32 @dao_omp_single(
// CHECK-NOT: dao
// CHECK: call void @__kmpc_end_single(
// CHECK-NOT: dao
// CHECK: call void @__kmpc_barrier(
// CHECK-NOT: dao
// CHECK: ret void
// CHECK-NEXT: }

// No site remark names quiet or its regions (a loop kill in them may:
// at -O2 the inlined `n` is main's, promoted to a global, promote.rs).
// REM-NOT: {{(call site|candidate|parallel region|barrier) .*}}quiet
// REM: 3 instrumented functions, 4 labelled sites,
