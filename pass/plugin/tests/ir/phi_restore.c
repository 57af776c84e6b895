// At -O2 the loop-carried values live in registers. Every value live at the
// marker is spilled to the frame's slot area on the candidate's cold path
// (never in the hot loop), reloaded in the restore block, and merged by a
// phi at the resume point (built by PromoteMemToReg), so the loop continues
// with the restored values.
// RUN: %clang -O2 %s | %opt | %FileCheck %s
#include "dao.h"
long work(long n) {
  long s = 0, t = 1;
  for (long i = 0; i < n; i++) {
    s += i * t;
    t = t * 3 % 1000003;
    dao_potential_checkpoint();
  }
  return s + t;
}
// CHECK-LABEL: define {{.*}}i64 @work(
// CHECK: for.body:
// CHECK-NOT: store i64 %{{.*}}, ptr %{{.*}}, align 8
// CHECK: br i1 %dao.due, label %dao.candidate.1, label %dao.resume.1
// CHECK: dao.resume.1:
// CHECK-NEXT: phi i64 [ %dao.reload{{[0-9]*}}, %dao.restore.1 ], [ %{{.*}}, %dao.candidate.1 ], [ %{{.*}}, %for.body ]
// CHECK: dao.candidate.1:
// CHECK: store i64 %{{.*}}, ptr %{{.*}}, align 8
// CHECK: store i64 %{{.*}}, ptr %{{.*}}, align 8
// CHECK: store i64 %{{.*}}, ptr %{{.*}}, align 8
// CHECK: call void @dao_candidate(ptr %dao.frame)
// CHECK: dao.restore.1:
// CHECK: %dao.reload = load i64
// CHECK: br label %dao.resume.1
