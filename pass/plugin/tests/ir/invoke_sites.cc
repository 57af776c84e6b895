// C++ (docs/design.md section 20): a call that may throw in a function
// with a cleanup is an invoke. On the marker's path an invoke is a
// labelled site like a call: the label and spills before it, its block
// split so that the restore block branches to it; its result, live at the
// next site, is defined on the normal edge only, which gets a block of its
// own (dao.invoke.ok) for the restart edge's demotion. A landing pad sets
// the chain top back to this frame (the frames the exception left are
// gone); `resume` pops the frame like `ret`.
// RUN: %clangxx -O2 %s | %opt | %FileCheck %s
#include "dao.h"
struct Guard { ~Guard(); };
long deeper(long);
long step(long i) {
  Guard g;
  dao_potential_checkpoint();
  long r = deeper(i);
  long t = deeper(r);
  return r + t + i;
}
// CHECK-LABEL: define {{.*}}i64 @_Z4stepl(
// CHECK: store i32 2, ptr %{{[0-9]+}}
// CHECK: invoke noundef i64 @_Z6deeperl(i64 noundef %i)
// CHECK-NEXT: to label %dao.invoke.ok unwind label %lpad
// CHECK: dao.invoke.ok:
// CHECK-NEXT: br label %invoke.cont
// CHECK: invoke.cont:
// CHECK: store i32 3, ptr
// CHECK: store i64 %call, ptr
// CHECK: dao.site.3:
// CHECK-NEXT: phi i64 [ %dao.reload{{[0-9]*}}, %dao.restore.3 ], [ %call, %invoke.cont ]
// CHECK: lpad:
// CHECK-NEXT: landingpad { ptr, i32 }
// CHECK-NEXT: cleanup
// CHECK-NEXT: store ptr %dao.frame, ptr @dao_tls_top
// CHECK: store ptr %dao.parent{{[0-9]+}}, ptr @dao_tls_top
// CHECK-NEXT: resume
// CHECK: dao.restore.2:
// CHECK-NEXT: br label %dao.site.2
