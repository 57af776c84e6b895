// A VLA in a function on the marker path is rejected with file:line, and
// opt fails (the module is not transformed).
// RUN: %clang -O0 -gline-tables-only %s > in.ll && %not %opt in.ll -o /dev/null 2> err.txt; %FileCheck %s < err.txt
#include "dao.h"
void run(int n) {
  double tmp[n];
  for (int i = 0; i < n; i++) tmp[i] = i;
  dao_potential_checkpoint();
  tmp[0] += 1;
}
// CHECK: diag_vla.c:6: dao: variable-size stack allocation (a VLA or alloca()) in function 'run'
