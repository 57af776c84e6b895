// OpenMP instrumentation of clang's shape (docs/design.md section 9), at -O0
// and at -O2 (where `work` is also inlined into main: one source region,
// two fork sites).
// - The __kmpc_fork_call of a region whose outlined function reaches a marker
//   is a labelled site of kind Fork (4) whose callee is the outlined
//   function. Its label and restart edge sit before the
//   __kmpc_push_num_threads right before it, so a restart replays the
//   num_threads clause; dao_omp_fork/dao_omp_join bracket the fork.
// - The outlined function calls dao_omp_begin right after the inline frame
//   push (before the restart check) and dao_omp_end on every return. Its
//   last site is an Exit site (6) whose restore block goes to dao.exit.
// - Barriers in the region (the implicit one of `omp for`, the one of
//   `single`) are Sync sites (5): label, then dao_omp_park / __kmpc_barrier /
//   dao_omp_unpark; the restore block re-enters before the park.
// - A marker in parallel code also tests dao_omp_request.
// - __kmpc_single is routed to dao_omp_single (__kmpc_end_single stays).
// Site kinds (dao_abi::SiteKind): Call 1, Marker 2, Forced 3, Fork 4, Sync 5, Exit 6.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | %opt | %FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | %opt | %FileCheck %s --check-prefixes=CHECK,O2
#include "dao.h"
double a[1000];
void work(int n) {
#pragma omp parallel num_threads(4)
  {
    for (int it = 0; it < n; it++) {
#pragma omp for schedule(static)
      for (int i = 0; i < 1000; i++) a[i] += it;
      dao_potential_checkpoint();
#pragma omp single
      a[0] += 1;
    }
  }
}
int main(void) {
  work(10);
  return (int)a[3];
}

// Descriptors: the fork site of `work` names the outlined function; the
// outlined function's sites are barrier, marker, barrier, exit.
// CHECK: [[OUTLINED:@dao.str.[0-9]+]] = private unnamed_addr constant [18 x i8] c"work.omp_outlined\00"
// CHECK: @dao.sites.0 = private unnamed_addr constant [1 x
// CHECK-SAME: { i32 4, i32 0, ptr @dao.str.{{[0-9]+}}, ptr [[OUTLINED]], i32 1,
// CHECK: @dao.sites.1 = private unnamed_addr constant [4 x
// CHECK-SAME: { i32 5, i32 0, ptr @dao.str.{{[0-9]+}}, ptr null,
// CHECK-SAME: { i32 2, i32 0, ptr @dao.str.{{[0-9]+}}, ptr null,
// CHECK-SAME: { i32 5, i32 0, ptr @dao.str.{{[0-9]+}}, ptr null,
// CHECK-SAME: { i32 6, i32 0, ptr null, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, i32 0, ptr null }]
// O2: @dao.sites.2 = private unnamed_addr constant [1 x
// O2-SAME: { i32 4, i32 0, ptr @dao.str.{{[0-9]+}}, ptr [[OUTLINED]], i32 1,

// The enclosing function: the gtid is saved at the label (a live value), the
// block dao.fork.1 starts with the push, then dao_omp_fork, the fork with the
// shared `n` by address, dao_omp_join.
// CHECK-LABEL: define dso_local void @work(
// CHECK: [[GTID:%[0-9]+]] = call i32 @__kmpc_global_thread_num(
// CHECK: store i32 1, ptr %{{[0-9]+}}
// CHECK-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds i8, ptr %dao.slots, i64 0
// CHECK-NEXT: store i32 [[GTID]], ptr [[SLOT]]
// CHECK-NEXT: br label %dao.fork.1
// CHECK: dao.fork.1:
// CHECK-NEXT: [[G:%dao.demote[0-9.]*]] = phi i32 [ %dao.reload, %dao.restore.1 ], [ [[GTID]], %entry.cont ]
// CHECK-NEXT: call void @__kmpc_push_num_threads(ptr {{.*}}@{{[0-9]+}}, i32 [[G]], i32 4)
// CHECK-NEXT: call void @dao_omp_fork(ptr %dao.frame)
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr {{.*}}@{{[0-9]+}}, i32 1, ptr {{.*}}@work.omp_outlined, ptr {{.*}}%n.addr)
// CHECK-NEXT: call void @dao_omp_join(ptr %dao.frame)
// CHECK: dao.dispatch:
// CHECK-NEXT: switch i32 %dao.site, label %dao.badsite [
// CHECK-NEXT: i32 1, label %dao.restore.1
// CHECK-NEXT: ]
// CHECK: dao.restore.1:
// CHECK: %dao.reload = load i32, ptr
// CHECK-NEXT: br label %dao.fork.1
// CHECK-NEXT: }

// CHECK-LABEL: define internal void @work.omp_outlined(
// CHECK: store ptr %dao.frame, ptr @dao_tls_top
// CHECK-NEXT: call void @dao_omp_begin(ptr %dao.frame)
// CHECK-NEXT: %dao.pending = load atomic i8, ptr @dao_restart_pending monotonic
// At -O2 the loop exit (the normal return) comes first.
// O2: for.cond.cleanup:
// O2: store i32 4, ptr
// O2-NEXT: call void @dao_omp_end(ptr %dao.frame)
// O2: ret void
// The implicit barrier of `omp for`: Sync site 1.
// CHECK: call void @__kmpc_for_static_fini(
// CHECK: store i32 1, ptr %{{[0-9]+}}
// CHECK: br label %dao.sync.1
// CHECK: dao.sync.1:
// CHECK-NOT: {{^}}dao.
// CHECK: call void @dao_omp_park(ptr %dao.frame)
// CHECK-NEXT: call void @__kmpc_barrier(
// CHECK-NEXT: call void @dao_omp_unpark(ptr %dao.frame)
// The marker: countdown or the team's request flag.
// CHECK-NEXT: %dao.poll = load atomic i64, ptr @dao_tls_poll monotonic
// CHECK: %dao.request = load atomic i8, ptr @dao_omp_request monotonic
// CHECK: %dao.due.any = or i1 %dao.due, %dao.asked
// CHECK-NEXT: br i1 %dao.due.any, label %dao.candidate.2, label %dao.resume.2
// `single` goes through dao_omp_single; its end stays.
// CHECK: dao.resume.2:
// CHECK-NOT: @__kmpc_single(
// CHECK: call i32 @dao_omp_single(ptr {{.*}}[[SINGLE_IDENT:@[0-9]+]], i32
// CHECK: call void @__kmpc_end_single(ptr {{.*}}[[SINGLE_IDENT]], i32
// The single's implicit barrier: Sync site 3.
// CHECK: store i32 3, ptr %{{[0-9]+}}
// CHECK: br label %dao.sync.3
// CHECK: dao.sync.3:
// CHECK-NOT: {{^}}dao.
// CHECK: call void @dao_omp_park(ptr %dao.frame)
// CHECK-NEXT: call void @__kmpc_barrier(
// CHECK-NEXT: call void @dao_omp_unpark(ptr %dao.frame)
// O0: for.end:
// O0-NEXT: getelementptr
// O0-NEXT: store i32 4, ptr
// O0-NEXT: call void @dao_omp_end(ptr %dao.frame)
// O0: ret void
// CHECK: dao.dispatch:
// CHECK-NEXT: switch i32 %dao.site, label %dao.badsite [
// CHECK-NEXT: i32 1, label %dao.restore.1
// CHECK-NEXT: i32 2, label %dao.restore.2
// CHECK-NEXT: i32 3, label %dao.restore.3
// CHECK-NEXT: i32 4, label %dao.restore.4
// CHECK-NEXT: ]
// The Exit site: a thread restarted after it had finished its part.
// CHECK: dao.exit:
// CHECK-NEXT: getelementptr
// CHECK-NEXT: store i32 4, ptr
// CHECK-NEXT: call void @dao_omp_end(ptr %dao.frame)
// CHECK: ret void
// CHECK: dao.candidate.2:
// CHECK: store i32 2, ptr
// CHECK: call void @dao_candidate(ptr %dao.frame)
// CHECK-NEXT: br label %dao.resume.2
// CHECK: dao.restore.1:
// CHECK: br label %dao.sync.1
// CHECK: dao.restore.2:
// CHECK: br label %dao.resume.2
// CHECK: dao.restore.3:
// CHECK: br label %dao.sync.3
// CHECK: dao.restore.4:
// CHECK-NEXT: br label %dao.exit
// the slow paths of the shared-write guards come last (guard.rs)
// CHECK: call void @dao_omp_guard_wait()
// CHECK: }

// At -O2, main has `work` inlined: a second Fork site, also anchored at the push.
// CHECK-LABEL: define internal i32 @__dao_user_main(
// O0: call void @work(
// O2: dao.fork.1:
// O2-NEXT: phi i32
// O2-NEXT: call void @__kmpc_push_num_threads(ptr {{.*}}, i32 4)
// O2-NEXT: call void @dao_omp_fork(ptr %dao.frame)
// O2-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr {{.*}}, ptr {{.*}}@work.omp_outlined,
// O2-NEXT: call void @dao_omp_join(ptr %dao.frame)
// The libomp entry is gone from the module; the dao one is declared.
// CHECK-NOT: declare {{.*}}@__kmpc_single(
// CHECK: declare void @dao_omp_begin(ptr)
// CHECK-NOT: declare {{.*}}@__kmpc_single(
// CHECK: declare i32 @dao_omp_single(ptr, i32)
