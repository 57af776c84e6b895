; A loop unrolled at run time by two (epilogue form) whose guard tests the
; 32-bit bound rather than the trip count: NPB 3.0 SP's `z_solve` rows
; `for (j = 1; j <= n - 2; j++)` at -O3, X = zext(n - 1) - 1 iterations,
; the guard `n - 1 == 2` (X == 1). The read of `a` in the main loop and
; the epilogue is taken whole, one dimension of X rows (issue #33). The
; 64-bit X may be -1 as far as its type goes (n - 1 == 0), so the guard is
; matched as A == KC exactly when X == zext(KC) + dW, X = zext(A) + dW.
; RUN: DAO_DEBUG_LOOPS=1 %opt %s -o /dev/null 2> dbg.txt; %FileCheck %s < dbg.txt
; CHECK-NOT: not a runtime-unrolled loop: the guard is not X < k
; CHECK: read of a in runtime-unrolled loop {{[0-9]+}} taken whole, stride 296, count (-1 + (zext i32 (-1 + %{{[a-z.0-9]+}}) to i64))<nsw>, base 320
@grid = internal global [3 x i32] zeroinitializer
@a = internal global [37 x [37 x double]] zeroinitializer
@out = internal global double 0.0

declare void @dao_potential_checkpoint()

define i32 @main(i32 %argc) {
entry:
  store i32 %argc, ptr getelementptr inbounds (i8, ptr @grid, i64 4)
  br label %step

step:
  %s = phi i32 [ 0, %entry ], [ %s.next, %done ]
  call void @dao_potential_checkpoint()
  %n = load i32, ptr getelementptr inbounds (i8, ptr @grid, i64 4)
  %n1 = add nsw i32 %n, -1
  %enter = icmp sgt i32 %n1, 1
  br i1 %enter, label %pre, label %done

pre:
  %wtc = zext i32 %n1 to i64
  %x = add nsw i64 %wtc, -1
  %xtraiter = and i64 %x, 1
  %one = icmp eq i32 %n1, 2
  %unroll_iter = and i64 %x, -2
  %lcmp.mod.not = icmp eq i64 %xtraiter, 0
  br i1 %one, label %unr, label %body

body:
  %j = phi i64 [ 1, %pre ], [ %j.next.1, %body ]
  %niter = phi i64 [ 0, %pre ], [ %niter.next.1, %body ]
  %acc = phi double [ 0.0, %pre ], [ %acc.1, %body ]
  %p0 = getelementptr inbounds [37 x [37 x double]], ptr @a, i64 0, i64 %j, i64 3
  %v0 = load double, ptr %p0
  %acc.0 = fadd double %acc, %v0
  %j.next = add nuw nsw i64 %j, 1
  %p1 = getelementptr inbounds [37 x [37 x double]], ptr @a, i64 0, i64 %j.next, i64 3
  %v1 = load double, ptr %p1
  %acc.1 = fadd double %acc.0, %v1
  %j.next.1 = add nuw nsw i64 %j, 2
  %niter.next.1 = add i64 %niter, 2
  %niter.ncmp.1 = icmp eq i64 %niter.next.1, %unroll_iter
  br i1 %niter.ncmp.1, label %unr, label %body

unr:
  %j.unr = phi i64 [ 1, %pre ], [ %j.next.1, %body ]
  %acc.unr = phi double [ 0.0, %pre ], [ %acc.1, %body ]
  br i1 %lcmp.mod.not, label %after, label %epil

epil:
  %pe = getelementptr inbounds [37 x [37 x double]], ptr @a, i64 0, i64 %j.unr, i64 3
  %ve = load double, ptr %pe
  %acc.e = fadd double %acc.unr, %ve
  br label %after

after:
  %acc.f = phi double [ %acc.unr, %unr ], [ %acc.e, %epil ]
  store double %acc.f, ptr @out
  br label %done

done:
  %s.next = add nuw nsw i32 %s, 1
  %again = icmp ult i32 %s.next, 10
  br i1 %again, label %step, label %exit

exit:
  ret i32 0
}
