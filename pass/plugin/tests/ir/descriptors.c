// The module descriptor (dao_abi.h) is emitted and registered from a
// constructor; site descriptors name the callee of each call site.
// RUN: %clang -O0 -gline-tables-only %s | %opt | %FileCheck %s
#include "dao.h"
double grid[64];
static void relax(void) {
  for (int i = 1; i < 63; i++) grid[i] = 0.5 * (grid[i - 1] + grid[i + 1]);
  dao_checkpoint_now();
}
int main(void) {
  for (int it = 0; it < 10; it++) relax();
  return (int)grid[3];
}
// CHECK-DAG: @dao.module = private constant { i32, i32, i64, ptr, i32, ptr, i32, ptr, i32, ptr, i32, ptr, ptr, i32, ptr, i32, ptr, i32, ptr, i32, ptr } { i32 14,
// CHECK-DAG: @llvm.global_ctors = appending global {{.*}} @dao.module_ctor
// CHECK-DAG: c"relax\00"
// CHECK-DAG: c"grid\00"
// CHECK-DAG: @dao.globals = private unnamed_addr constant [1 x { ptr, ptr, i64, i64, ptr }] [{ ptr, ptr, i64, i64, ptr } { ptr @{{.*}}, ptr null, i64 512, i64 0, ptr @grid }]
// CHECK: call void @dao_forced(ptr %dao.frame)
// CHECK-LABEL: define internal void @dao.module_ctor()
// CHECK: call void @dao_register_module(ptr @dao.module)
