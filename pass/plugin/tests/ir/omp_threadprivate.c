// threadprivate and copyin in clang's shape: `thread_local` globals that are
// read through llvm.threadlocal.address.
// - Thread-local globals are not in the module's global table (the master
//   saves those for the whole program). They are in the thread-local table
//   @dao.tls (name, size), and dao.tls_addrs writes the calling thread's
//   address of each one, so that every thread saves its copies whole.
// - The remarks never list them as live globals, private or shared.
// - copyin: the master's address (a TLS address taken before the fork) is
//   the fork's operand and is saved at the fork's label. In the outlined
//   function the copy into the worker's own variable comes before the copyin
//   barrier, which is Sync site 1. Its restore block re-enters at the
//   barrier, after the copy, so a restarted worker keeps its restored value.
// Same shape at -O0 and -O2 (at -O2 step is also inlined into main).
// RUN: %clang -fopenmp -O0 %s | %opt | %FileCheck %s
// RUN: %clang -fopenmp -O2 %s | %opt | %FileCheck %s
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
#include "dao.h"
int counter;
static double hist[4];
#pragma omp threadprivate(counter, hist)
double shared_total;
void step(int n) {
#pragma omp parallel copyin(counter)
  {
    for (int it = 0; it < n; it++) {
      counter += it;
      hist[it % 4] += counter;
      dao_potential_checkpoint();
      counter *= 2;
    }
#pragma omp atomic
    shared_total += counter + hist[1];
  }
}
int main(void) {
  step(5);
  return (int)shared_total;
}

// CHECK: @counter = dso_local thread_local global i32 0
// CHECK: @hist = internal thread_local {{(unnamed_addr )?}}global [4 x double] zeroinitializer
// The module descriptor: 1 global (2 at -O2: step's `n`, inlined into main
// and read by the region, is main's local made a global, promote.rs), then 2
// thread-local variables and their accessor.
// CHECK: @dao.module = private constant {{.*}} i32 {{[12]}}, ptr @dao.globals, {{.*}} i32 2, ptr @dao.tls, ptr @dao.tls_addrs, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null }
// CHECK: @dao.globals = private unnamed_addr constant [{{[12]}} x
// CHECK-NOT: @counter
// CHECK-NOT: @hist
// CHECK-SAME: ptr @shared_total }{{(, .*ptr @main.n.addr.i })?}}]
// CHECK: [[CNAME:@dao.str.[0-9]+]] = private unnamed_addr constant [8 x i8] c"counter\00"
// CHECK: [[HNAME:@dao.str.[0-9]+]] = private unnamed_addr constant [5 x i8] c"hist\00"
// CHECK: @dao.tls = private unnamed_addr constant [2 x { ptr, ptr, i64, i64, ptr }] [{ ptr, ptr, i64, i64, ptr } { ptr [[CNAME]], ptr null, i64 4, i64 0, ptr null }, { ptr, ptr, i64, i64, ptr } { ptr [[HNAME]], ptr null, i64 32, i64 0, ptr null }]

// The enclosing function: the master's TLS address of `counter` is saved at
// the fork's label and passed again on restart.
// CHECK-LABEL: define dso_local void @step(
// CHECK: [[MASTER:%[0-9]+]] = call align 4 ptr @llvm.threadlocal.address.p0(ptr align 4 @counter)
// CHECK-NEXT: getelementptr
// CHECK-NEXT: store i32 1, ptr
// CHECK-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds i8, ptr %dao.slots, i64 0
// CHECK-NEXT: store ptr [[MASTER]], ptr [[SLOT]], align 8
// CHECK-NEXT: br label %dao.fork.1
// CHECK: dao.fork.1:
// CHECK-NEXT: [[M:%dao.demote[0-9.]*]] = phi ptr [ %dao.reload, %dao.restore.1 ], [ [[MASTER]], %entry.cont ]
// CHECK-NEXT: call void @dao_omp_fork(ptr %dao.frame)
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr {{.*}}@{{[0-9]+}}, i32 2, ptr {{.*}}@step.omp_outlined, ptr {{.*}}%n.addr, ptr {{.*}}[[M]])

// The outlined function: copyin, then the copyin barrier as Sync site 1.
// CHECK-LABEL: define internal void @step.omp_outlined(
// CHECK-SAME: ptr {{.*}}%counter)
// CHECK: call void @dao_omp_begin(ptr %dao.frame)
// CHECK: entry.cont:
// CHECK: [[MINE:%[0-9]+]] = call align 4 ptr @llvm.threadlocal.address.p0(ptr align 4 @counter)
// CHECK: copyin.not.master:
// CHECK: store i32 %{{[0-9]+}}, ptr [[MINE]], align 4
// CHECK: copyin.not.master.end:
// CHECK: store i32 1, ptr
// CHECK: br label %dao.sync.1
// CHECK: dao.sync.1:
// CHECK-NOT: llvm.threadlocal.address
// CHECK: call void @dao_omp_park(ptr %dao.frame)
// CHECK-NEXT: call void @__kmpc_barrier(
// CHECK-NEXT: call void @dao_omp_unpark(ptr %dao.frame)
// CHECK: dao.restore.1:
// CHECK-NOT: {{^}}dao.restore
// CHECK: br label %dao.sync.1

// The accessor: the calling thread's address of each variable, in table order.
// CHECK-LABEL: define internal void @dao.tls_addrs(ptr %0) {
// CHECK-NEXT: entry:
// CHECK-NEXT: %1 = call ptr @llvm.threadlocal.address.p0(ptr @counter)
// CHECK-NEXT: %2 = getelementptr inbounds i8, ptr %0, i64 0
// CHECK-NEXT: store ptr %1, ptr %2, align 8
// CHECK-NEXT: %3 = call ptr @llvm.threadlocal.address.p0(ptr @hist)
// CHECK-NEXT: %4 = getelementptr inbounds i8, ptr %0, i64 8
// CHECK-NEXT: store ptr %3, ptr %4, align 8
// CHECK-NEXT: ret void

// Remarks: neither variable is a live global of any site (each REM-NOT
// covers the rest of its line); the fork saves the master's address (8 B).
// REM: omp_threadprivate.c:24: parallel region 1 in 'step' (outlined 'step.omp_outlined'): live: 1 values (8 B) [tmp0], 1 stack objects (4 B) [n.addr],
// REM-NOT: {{counter|hist}}
// REM-SAME: {{$}}
// REM: omp_threadprivate.c:24: barrier 1 in 'step.omp_outlined'; private, saved by every thread of the team:
// REM-NOT: {{counter|hist}}
// REM-SAME: {{$}}
// REM: omp_threadprivate.c:29: candidate 2 in 'step.omp_outlined'; private, saved by every thread of the team:
// REM-NOT: {{counter|hist}}
// REM-SAME: {{$}}
