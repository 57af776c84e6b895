; A block loop `for (jj = 0; jj <= n - blk; jj += blk)` that calls a function
; which may not return (NPB 3.0 FT's `cffts1` at -O2, where `cfftz` is not
; inlined): ScalarEvolution trusts the latch's `add nsw` only under a
; predicate ({16,+,16} does not wrap), and gives the count with it. The
; add runs in every completed iteration and the exit test compares it, so
; the predicate holds in a valid run; the writes-only run with `blk`
; pinned to 16 then has the block loop's count, and `out` gets a section
; (issue #33). In @neg the step is a plain `add`: no such count.
; RUN: DAO_DEBUG_LOOPS=1 %opt %s -o /dev/null 2> dbg.txt; %FileCheck %s < dbg.txt
; CHECK: shim facts of pos (writes only)
; CHECK: loop loop: backedge-taken count under its latch's nsw
; CHECK: writes-only run of pos: 1 sections added under 1 pinned values
; CHECK: shim facts of neg (writes only)
; CHECK-NOT: backedge-taken count under its latch's nsw
; CHECK: writes-only run of neg: 0 sections added
@blk = internal global i32 0
@n = internal global i32 0
@out = internal global [1024 x double] zeroinitializer
@sum = internal global double 0.0

declare void @dao_potential_checkpoint()
declare void @may_exit(i32)

define internal void @pos() {
entry:
  %u = load i32, ptr @n
  %lim = sub nsw i32 %u, 16
  %g = icmp sgt i32 %lim, -1
  br i1 %g, label %loop, label %exit

loop:
  %jj = phi i32 [ 0, %entry ], [ %next, %latch ]
  call void @may_exit(i32 %jj)
  %b = load i32, ptr @blk
  %jj64 = sext i32 %jj to i64
  br label %inner

inner:
  %j = phi i64 [ 0, %loop ], [ %j.next, %inner ]
  %idx = add nsw i64 %jj64, %j
  %p = getelementptr inbounds [1024 x double], ptr @out, i64 0, i64 %idx
  store double 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %b64 = sext i32 %b to i64
  %more = icmp slt i64 %j.next, %b64
  br i1 %more, label %inner, label %latch

latch:
  %next = add nsw i32 %b, %jj
  %u2 = load i32, ptr @n
  %lim2 = sub nsw i32 %u2, %b
  %c = icmp sgt i32 %next, %lim2
  br i1 %c, label %exit, label %loop

exit:
  ret void
}

define internal void @neg() {
entry:
  %u = load i32, ptr @n
  %lim = sub nsw i32 %u, 16
  %g = icmp sgt i32 %lim, -1
  br i1 %g, label %loop, label %exit

loop:
  %jj = phi i32 [ 0, %entry ], [ %next, %latch ]
  call void @may_exit(i32 %jj)
  %b = load i32, ptr @blk
  %jj64 = sext i32 %jj to i64
  br label %inner

inner:
  %j = phi i64 [ 0, %loop ], [ %j.next, %inner ]
  %idx = add nsw i64 %jj64, %j
  %p = getelementptr inbounds [1024 x double], ptr @out, i64 0, i64 %idx
  store double 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %b64 = sext i32 %b to i64
  %more = icmp slt i64 %j.next, %b64
  br i1 %more, label %inner, label %latch

latch:
  %next = add i32 %b, %jj
  %u2 = load i32, ptr @n
  %lim2 = sub nsw i32 %u2, %b
  %c = icmp sgt i32 %next, %lim2
  br i1 %c, label %exit, label %loop

exit:
  ret void
}

define i32 @main(i32 %argc) {
entry:
  store i32 16, ptr @blk
  store i32 %argc, ptr @n
  br label %step

step:
  %s = phi i32 [ 0, %entry ], [ %s.next, %step ]
  call void @dao_potential_checkpoint()
  call void @pos()
  call void @neg()
  %q = getelementptr inbounds [1024 x double], ptr @out, i64 0, i64 3
  %v = load double, ptr %q
  store double %v, ptr @sum
  %s.next = add i32 %s, 1
  %again = icmp slt i32 %s.next, 10
  br i1 %again, label %step, label %end

end:
  ret i32 0
}
