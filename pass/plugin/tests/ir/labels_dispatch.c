// Recognition, labels and the restart dispatch at -O0: a marker two calls
// deep. Every function on the path gets a frame, dao_frame_enter, a switch
// over its sites, one restore block per site, and dao_frame_leave at return.
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
// CHECK-LABEL: define {{.*}}void @inner(
// CHECK: %dao.frame = alloca
// CHECK: %dao.site = call i32 @dao_frame_enter(ptr %dao.frame)
// CHECK: br i1 %dao.restarting, label %dao.dispatch, label %entry.cont, !prof
// CHECK: store i32 1, ptr
// CHECK: call void @dao_candidate(ptr %dao.frame)
// CHECK-NOT: call void @dao_potential_checkpoint
// CHECK: call void @dao_frame_leave(ptr %dao.frame)
// CHECK-NEXT: ret void
// CHECK: dao.dispatch:
// CHECK-NEXT: switch i32 %dao.site, label %dao.badsite [
// CHECK-NEXT: i32 1, label %dao.restore.1
// CHECK: dao.restore.1:
// CHECK-NEXT: br label %dao.resume.1

// CHECK-LABEL: define {{.*}}void @outer(
// CHECK: dao_frame_enter
// CHECK: dao.site.1:
// CHECK-NOT: {{^}}dao.
// CHECK: call void @inner(

// CHECK-LABEL: define {{.*}}i32 @helper(
// CHECK-NOT: dao_frame_enter
// CHECK: ret i32

// The program's main is renamed and run through dao_main.
// CHECK-LABEL: define internal i32 @__dao_user_main(
// CHECK: dao_frame_enter
// CHECK: call {{.*}}@helper(
// CHECK: dao.site.1:
// CHECK-NOT: {{^}}dao.
// CHECK: call void @outer(
// CHECK-LABEL: define i32 @main(i32 %0, ptr %1, ptr %2)
// CHECK: call i32 @dao_main(i32 %0, ptr %1, ptr %2, ptr @__dao_main_adapter)
