// Recognition, labels and the restart dispatch at -O0: a marker two calls
// deep. Every function on the path gets a frame pushed inline on the
// thread's chain (dao_tls_top), a restart check (one relaxed byte load), a
// switch over its sites, one restore block per site, and the pop at return.
// A marker becomes a countdown on dao_tls_poll (thread-local) with the runtime call on the
// cold path.
// RUN: %clang -O0 %s | %opt | %FileCheck %s
#include "dao.h"
int counter;
void inner(int k) {
  counter += k;
  dao_potential_checkpoint();
  counter *= 2;
}
void outer(int n) {
  for (int i = 0; i < n; i++)
    inner(i);
}
int helper(int x) { return x + 1; } // not on a marker path
int main(void) {
  outer(helper(3));
  return counter;
}
// The chain top is one thread-local per program (linkonce_odr, initial-exec).
// CHECK: @dao_tls_top = linkonce_odr hidden thread_local(initialexec) global ptr null, align 8
// CHECK-LABEL: define {{.*}}void @inner(
// CHECK: %dao.frame = alloca
// CHECK: %dao.parent = load ptr, ptr @dao_tls_top
// CHECK: store ptr %dao.frame, ptr @dao_tls_top
// CHECK: %dao.pending = load atomic i8, ptr @dao_restart_pending monotonic
// CHECK: br i1 %dao.restarting, label %dao.restart, label %entry.cont, !prof
// CHECK: %dao.poll = load atomic i64, ptr @dao_tls_poll monotonic
// CHECK: store atomic i64 %dao.poll.next, ptr @dao_tls_poll monotonic
// CHECK: br i1 %dao.due, label %dao.candidate.1, label %dao.resume.1, !prof
// CHECK-NOT: call void @dao_potential_checkpoint
// CHECK: store ptr %{{.*}}, ptr @dao_tls_top
// CHECK-NEXT: ret void
// CHECK: dao.restart:
// CHECK-NEXT: %dao.site = call i32 @dao_frame_restore(ptr %dao.frame)
// CHECK: dao.dispatch:
// CHECK-NEXT: switch i32 %dao.site, label %dao.badsite [
// CHECK-NEXT: i32 1, label %dao.restore.1
// CHECK: dao.candidate.1:
// CHECK: store i32 1, ptr
// CHECK: call void @dao_candidate(ptr %dao.frame)
// CHECK-NEXT: br label %dao.resume.1
// CHECK: dao.restore.1:
// CHECK-NEXT: br label %dao.resume.1

// CHECK-LABEL: define {{.*}}void @outer(
// CHECK: store ptr %dao.frame, ptr @dao_tls_top
// CHECK: dao.site.1:
// CHECK-NOT: {{^}}dao.
// CHECK: call void @inner(

// CHECK-LABEL: define {{.*}}i32 @helper(
// CHECK-NOT: dao_tls_top
// CHECK: ret i32

// The program's main is renamed and run through dao_main.
// CHECK-LABEL: define internal i32 @__dao_user_main(
// CHECK: store ptr %dao.frame, ptr @dao_tls_top
// CHECK: call {{.*}}@helper(
// CHECK: dao.site.1:
// CHECK-NOT: {{^}}dao.
// CHECK: call void @outer(
// CHECK-LABEL: define i32 @main(i32 %0, ptr %1, ptr %2)
// CHECK: call i32 @dao_main(i32 %0, ptr %1, ptr %2, ptr @__dao_main_adapter)
