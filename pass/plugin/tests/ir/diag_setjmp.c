// setjmp in a function on the marker path is rejected with file:line.
// RUN: %clang -O0 -gline-tables-only %s > in.ll && %not %opt in.ll -o /dev/null 2> err.txt; %FileCheck %s < err.txt
#include <setjmp.h>
#include "dao.h"
jmp_buf env;
void work(void) {
  if (setjmp(env)) return;
  dao_potential_checkpoint();
}
// CHECK: diag_setjmp.c:7: dao: '_setjmp' (setjmp family) in function 'work'
