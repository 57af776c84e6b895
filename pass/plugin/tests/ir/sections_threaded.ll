; Jump threading's copies of an induction variable (issue #15): GVN and jump
; threading turn the index `i` after an inlined switch on `i` into
; `phi [1, case 1], [6, i == 6], [i, default]`, which ScalarEvolution cannot
; see through (NPB BT's compute_rhs, where the dissipation stencil switches on
; the grid index). In the scratch clone such a phi is `i` when every block a
; constant arrives from can only be entered when `i` equals it, so the read
; is found to see only what the same iteration wrote and the loop kills its
; array. Not when a constant differs from the case that leads to it (@b), or
; the switch is on a truncation that may drop bits (@c: no `nuw`).
; RUN: DAO_REMARKS=1 %opt %s -o /dev/null 2> rem.txt; %FileCheck %s < rem.txt
; CHECK-DAG: every call of 'fa' writes all of a (512 B) before reading it: dead before the call
; CHECK-DAG: candidate 1 in 'main': {{.*}}dead in 'main' after this point: 1 globals (512 B) [a (512 B, rewritten first by the call of 'fa'
; CHECK-NOT: writes all of {{b|c}}
; The candidate's descriptor names what rewrites `a` first (ABI 7: for dao
; inspect's list of dead globals):
; RUN: %opt %s | %FileCheck %s --check-prefix=IR
; IR-DAG: @[[WHY:dao.str.[0-9]+]] = private unnamed_addr constant [43 x i8] c"the call of 'fa' at sections_threaded.ll:3\00"
; IR-DAG: @dao.site.0.0.dead_why = private unnamed_addr constant [1 x ptr] [ptr @[[WHY]]]
; IR-DAG: @dao.site.0.0.dead = private unnamed_addr constant [1 x i32] zeroinitializer
; IR-DAG: i32 1, ptr @dao.site.0.0.dead, ptr @dao.site.0.0.dead_why, i32 0, ptr null, ptr null, i32 0, ptr null, i32 0, ptr null }]
@a = internal global [8 x [8 x double]] zeroinitializer
@b = internal global [8 x [8 x double]] zeroinitializer
@c = internal global [8 x [8 x double]] zeroinitializer
@src = internal global [8 x [8 x double]] zeroinitializer

declare void @dao_potential_checkpoint()
@out = global double 0.0

; reads the 64 doubles at %p (a read through a parameter: the call uses the
; object it passes, whole)
define internal void @use(ptr %p) noinline {
entry:
  br label %l
l:
  %i = phi i64 [ 0, %entry ], [ %n, %l ]
  %s = phi double [ 0.0, %entry ], [ %s2, %l ]
  %q = getelementptr inbounds double, ptr %p, i64 %i
  %x = load double, ptr %q, align 8
  %s2 = fadd double %s, %x
  %n = add nuw nsw i64 %i, 1
  %d = icmp eq i64 %n, 64
  br i1 %d, label %e, label %l
e:
  %o = load double, ptr @out, align 8
  %o2 = fadd double %o, %s2
  store double %o2, ptr @out, align 8
  ret void
}

; 'fa': row k of @a copied, then updated at an index that jump
; threading made a phi (case 1 -> 1, i == 6 -> 6 through an unconditional
; block, otherwise i)
define internal void @fa() noinline {
entry:
  br label %k.head
k.head:
  %k = phi i64 [ 0, %entry ], [ %k.next, %k.latch ]
  br label %j.body
j.body:
  %j = phi i64 [ 0, %k.head ], [ %j.next, %j.body ]
  %ps = getelementptr inbounds [8 x [8 x double]], ptr @src, i64 0, i64 %k, i64 %j, !dbg !20
  %v = load double, ptr %ps, align 8, !dbg !20
  %pd = getelementptr inbounds [8 x [8 x double]], ptr @a, i64 0, i64 %k, i64 %j, !dbg !20
  store double %v, ptr %pd, align 8, !dbg !20
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 8
  br i1 %j.done, label %i.pre, label %j.body
i.pre:
  br label %i.head
i.head:
  %i = phi i64 [ 1, %i.pre ], [ %i.next, %merge ]
  %t = trunc nuw nsw i64 %i to i32
  switch i32 %t, label %chk [
    i32 1, label %c1
  ]
chk:
  %is6 = icmp eq i64 %i, 6
  br i1 %is6, label %c6pre, label %dflt
c1:
  br label %merge
c6pre:
  br label %c6
c6:
  br label %merge
dflt:
  br label %merge
merge:
  %idx = phi i64 [ 1, %c1 ], [ 6, %c6 ], [ %i, %dflt ]
  %pr = getelementptr inbounds [8 x [8 x double]], ptr @a, i64 0, i64 %k, i64 %idx, !dbg !21
  %r = load double, ptr %pr, align 8, !dbg !21
  %r2 = fmul double %r, 2.0
  store double %r2, ptr %pr, align 8, !dbg !21
  %i.next = add nuw nsw i64 %i, 1
  %i.done = icmp eq i64 %i.next, 7
  br i1 %i.done, label %k.latch, label %i.head
k.latch:
  %k.next = add nuw nsw i64 %k, 1
  %k.done = icmp eq i64 %k.next, 8
  br i1 %k.done, label %exit, label %k.head
exit:
  ret void
}

; 'fb': row k of @b copied, then updated at an index that jump
; threading made a phi (case 1 -> 1, i == 6 -> 6 through an unconditional
; block, otherwise i)
define internal void @fb() noinline {
entry:
  br label %k.head
k.head:
  %k = phi i64 [ 0, %entry ], [ %k.next, %k.latch ]
  br label %j.body
j.body:
  %j = phi i64 [ 0, %k.head ], [ %j.next, %j.body ]
  %ps = getelementptr inbounds [8 x [8 x double]], ptr @src, i64 0, i64 %k, i64 %j, !dbg !20
  %v = load double, ptr %ps, align 8, !dbg !20
  %pd = getelementptr inbounds [8 x [8 x double]], ptr @b, i64 0, i64 %k, i64 %j, !dbg !20
  store double %v, ptr %pd, align 8, !dbg !20
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 8
  br i1 %j.done, label %i.pre, label %j.body
i.pre:
  br label %i.head
i.head:
  %i = phi i64 [ 1, %i.pre ], [ %i.next, %merge ]
  %t = trunc nuw nsw i64 %i to i32
  switch i32 %t, label %chk [
    i32 1, label %c1
  ]
chk:
  %is6 = icmp eq i64 %i, 6
  br i1 %is6, label %c6pre, label %dflt
c1:
  br label %merge
c6pre:
  br label %c6
c6:
  br label %merge
dflt:
  br label %merge
merge:
  %idx = phi i64 [ 2, %c1 ], [ 6, %c6 ], [ %i, %dflt ]
  %pr = getelementptr inbounds [8 x [8 x double]], ptr @b, i64 0, i64 %k, i64 %idx, !dbg !21
  %r = load double, ptr %pr, align 8, !dbg !21
  %r2 = fmul double %r, 2.0
  store double %r2, ptr %pr, align 8, !dbg !21
  %i.next = add nuw nsw i64 %i, 1
  %i.done = icmp eq i64 %i.next, 7
  br i1 %i.done, label %k.latch, label %i.head
k.latch:
  %k.next = add nuw nsw i64 %k, 1
  %k.done = icmp eq i64 %k.next, 8
  br i1 %k.done, label %exit, label %k.head
exit:
  ret void
}

; 'fc': row k of @c copied, then updated at an index that jump
; threading made a phi (case 1 -> 1, i == 6 -> 6 through an unconditional
; block, otherwise i)
define internal void @fc() noinline {
entry:
  br label %k.head
k.head:
  %k = phi i64 [ 0, %entry ], [ %k.next, %k.latch ]
  br label %j.body
j.body:
  %j = phi i64 [ 0, %k.head ], [ %j.next, %j.body ]
  %ps = getelementptr inbounds [8 x [8 x double]], ptr @src, i64 0, i64 %k, i64 %j, !dbg !20
  %v = load double, ptr %ps, align 8, !dbg !20
  %pd = getelementptr inbounds [8 x [8 x double]], ptr @c, i64 0, i64 %k, i64 %j, !dbg !20
  store double %v, ptr %pd, align 8, !dbg !20
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 8
  br i1 %j.done, label %i.pre, label %j.body
i.pre:
  br label %i.head
i.head:
  %i = phi i64 [ 1, %i.pre ], [ %i.next, %merge ]
  %t = trunc i64 %i to i32
  switch i32 %t, label %chk [
    i32 1, label %c1
  ]
chk:
  %is6 = icmp eq i64 %i, 6
  br i1 %is6, label %c6pre, label %dflt
c1:
  br label %merge
c6pre:
  br label %c6
c6:
  br label %merge
dflt:
  br label %merge
merge:
  %idx = phi i64 [ 1, %c1 ], [ 6, %c6 ], [ %i, %dflt ]
  %pr = getelementptr inbounds [8 x [8 x double]], ptr @c, i64 0, i64 %k, i64 %idx, !dbg !21
  %r = load double, ptr %pr, align 8, !dbg !21
  %r2 = fmul double %r, 2.0
  store double %r2, ptr %pr, align 8, !dbg !21
  %i.next = add nuw nsw i64 %i, 1
  %i.done = icmp eq i64 %i.next, 7
  br i1 %i.done, label %k.latch, label %i.head
k.latch:
  %k.next = add nuw nsw i64 %k, 1
  %k.done = icmp eq i64 %k.next, 8
  br i1 %k.done, label %exit, label %k.head
exit:
  ret void
}

define i32 @main() !dbg !10 {
entry:
  br label %loop
loop:
  %t = phi i32 [ 0, %entry ], [ %t.next, %loop ]
  call void @dao_potential_checkpoint(), !dbg !11
  call void @fa(), !dbg !12
  call void @fb(), !dbg !12
  call void @fc(), !dbg !12
  call void @use(ptr @a), !dbg !12
  call void @use(ptr @b), !dbg !12
  call void @use(ptr @c), !dbg !12
  call void @use(ptr @src), !dbg !12
  %t.next = add i32 %t, 1
  %done = icmp eq i32 %t.next, 3
  br i1 %done, label %exit, label %loop
exit:
  ret i32 0
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "sections_threaded.ll", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!10 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 1, type: !13, unit: !0)
!13 = !DISubroutineType(types: !{})
!11 = !DILocation(line: 2, scope: !10)
!12 = !DILocation(line: 3, scope: !10)
!14 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 5, type: !13, unit: !0)
!20 = !DILocation(line: 6, scope: !14)
!21 = !DILocation(line: 7, scope: !14)
