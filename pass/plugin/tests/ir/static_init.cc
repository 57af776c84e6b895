// C++ static initializers and destructors (docs/design.md section 20): in
// a module with a marker, `_GLOBAL__sub_I_...` (in llvm.global_ctors) and
// the destructor handed to __cxa_atexit call unknown code, so they lie on
// a path, and their addresses are taken -- but only to run before main or
// after it: no diagnostic, the module is instrumented.
// RUN: %clangxx -O0 %s | %opt | %FileCheck %s
// RUN: %clangxx -O2 %s | %opt | %FileCheck %s
#include "dao.h"
long seed();
struct Log { long n; Log(); ~Log(); };
static long g = seed();
static Log log_object;
int main() {
  for (int i = 0; i < 10; i++) {
    dao_potential_checkpoint();
    g = g * 3 + log_object.n;
  }
  return (int)g;
}
// CHECK: @llvm.global_ctors
// CHECK: define {{.*}}i32 @main(
// CHECK: call {{.*}}@dao_main(
