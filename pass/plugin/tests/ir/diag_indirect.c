// A marker reachable only through a function pointer is rejected.
// RUN: %clang -O0 -gline-tables-only %s > in.ll && %not %opt in.ll -o /dev/null 2> err.txt; %FileCheck %s < err.txt
#include "dao.h"
static void step(void) { dao_potential_checkpoint(); }
void (*volatile hook)(void) = step;
void tick(void) { hook(); }
// CHECK: dao: function 'step' contains or reaches a checkpoint marker and its address is taken
