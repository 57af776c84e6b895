// A VLA in a function on the marker path is moved to the heap (to_heap.rs):
// malloc at the VLA, its pointer in a slot, freed at the scope's stack
// restore and at the return; no variable-size alloca is left.
// RUN: %clang -O0 -gline-tables-only %s > in.ll && %opt in.ll -S -o out.ll && %FileCheck %s --check-prefix=HEAP < out.ll
// A VLA allocated in a loop with no stack restore around it (each
// iteration would need its own block) is still refused, with file:line and
// the reason; opt fails (the module is not transformed).
// RUN: %clang -O0 -gline-tables-only -DLOOP %s > in2.ll && %not %opt in2.ll -o /dev/null 2> err.txt; %FileCheck %s --check-prefix=LOOP < err.txt
#include <alloca.h>
#include "dao.h"
#ifndef LOOP
void run(int n) {
  double tmp[n];
  for (int i = 0; i < n; i++) tmp[i] = i;
  dao_potential_checkpoint();
  tmp[0] += 1;
}
#else
void run(int n) {
  double *keep[4];
  for (int k = 0; k < 4; k++) {
    keep[k] = alloca(n * sizeof(double));
    keep[k][0] = k;
  }
  dao_potential_checkpoint();
  keep[0][0] += keep[3][0];
}
#endif
// HEAP-LABEL: define{{.*}} void @run(
// HEAP: %dao.vla.heap = alloca ptr
// HEAP: store ptr null, ptr %dao.vla.heap
// HEAP: %dao.vla = call ptr @{{.*}}malloc{{.*}}(i64 %dao.vla.size)
// HEAP: store ptr %dao.vla, ptr %dao.vla.heap
// HEAP: %dao.vla.free = load ptr, ptr %dao.vla.heap
// HEAP-NEXT: call void @{{.*}}free{{.*}}(ptr %dao.vla.free)
// HEAP: call void @llvm.stackrestore
// HEAP: ret void
// HEAP-NOT: alloca double, i64
// LOOP: diag_vla.c:22: dao: variable-size stack allocation (a VLA or alloca()) in function 'run', which lies on the path to a checkpoint marker, cannot be moved to the heap: it is allocated in a loop
