! OpenMP instrumentation of flang's shape (docs/design.md section 9), at -O0
! and -O2. flang outlines the region into `sweep_..omp_par(tid, zero, struct)`,
! where the struct holds one pointer per shared variable, and makes every
! barrier an explicit __kmpc_barrier call.
! - The fork is a labelled Fork site (4) whose callee is the outlined function,
!   bracketed by dao_omp_fork/dao_omp_join. The struct is filled before the
!   label, so the master saves it (the remark's `structArg`) and the restart
!   does not fill it again.
! - The outlined function: dao_omp_begin after the frame push, dao_omp_end on
!   return, and an Exit site (6).
! - Three Sync sites (5): the implicit barrier of `!$omp do`, the explicit
!   `!$omp barrier` (flang gives it no source location) and the barrier of
!   `!$omp single`. The marker between them is site 2.
! - `!$omp single` goes through dao_omp_single.
! num_threads is left out on purpose: flang emits __kmpc_push_num_threads
! before the stores that fill the struct, not right before the fork, and the
! pass does not yet anchor the fork site there (the push is not replayed on
! restart). Add that check here when the pass handles it.
! Site kinds (dao_abi::SiteKind): Call 1, Marker 2, Forced 3, Fork 4, Sync 5, Exit 6.
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | %opt | %FileCheck %s --check-prefixes=CHECK,O0
! RUN: %flang -fopenmp -O2 -gline-tables-only %s | %opt | %FileCheck %s --check-prefixes=CHECK,O2
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
! RUN: %flang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
subroutine sweep(a, n)
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer, intent(in) :: n
  real(8), intent(inout) :: a(1000)
  integer :: i, it
  !$omp parallel private(it)
  do it = 1, n
    !$omp do schedule(static)
    do i = 1, 1000
      a(i) = a(i) + it
    end do
    !$omp end do
    call dao_potential_checkpoint()
    !$omp barrier
    !$omp single
    a(1) = a(1) + 1
    !$omp end single
  end do
  !$omp end parallel
end subroutine

! Descriptors: the fork names the outlined function; the outlined function's
! sites are barrier, marker, barrier, barrier, exit.
! CHECK: [[OUTLINED:@dao.str.[0-9]+]] = private unnamed_addr constant [16 x i8] c"sweep_..omp_par\00"
! CHECK: @dao.sites.0 = private unnamed_addr constant [1 x
! CHECK-SAME: { i32 4, i32 {{[01]}}, ptr @dao.str.{{[0-9]+}}, ptr [[OUTLINED]],
! CHECK: @dao.sites.1 = private unnamed_addr constant [5 x
! CHECK-SAME: { i32 5, i32 {{[01]}}, ptr @dao.str.{{[0-9]+}}, ptr null,
! CHECK-SAME: { i32 2, i32 {{[01]}}, ptr @dao.str.{{[0-9]+}}, ptr null,
! CHECK-SAME: { i32 5, i32 {{[01]}}, ptr null, ptr null,
! CHECK-SAME: { i32 5, i32 {{[01]}}, ptr @dao.str.{{[0-9]+}}, ptr null,
! CHECK-SAME: { i32 6, i32 0, ptr null, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, i32 0, ptr null }]

! CHECK-LABEL: define void @sweep_(
! CHECK: store ptr %{{[0-9]+}}, ptr %{{structArg|gep_[0-9]*}}
! CHECK: store i32 1, ptr
! CHECK-NEXT: br label %dao.fork.1
! CHECK: dao.fork.1:
! CHECK-NEXT: call void @dao_omp_fork(ptr %dao.frame)
! CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr {{.*}}@{{[0-9]+}}, i32 1, ptr {{.*}}@sweep_..omp_par, ptr {{.*}}%structArg)
! CHECK-NEXT: call void @dao_omp_join(ptr %dao.frame)
! CHECK: dao.restore.1:
! CHECK-NEXT: br label %dao.fork.1

! CHECK-LABEL: define internal void @sweep_..omp_par(ptr noalias {{.*}}%tid.addr, ptr noalias {{.*}}%zero.addr, ptr {{.*}}%0)
! CHECK: store ptr %dao.frame, ptr @dao_tls_top
! CHECK-NEXT: call void @dao_omp_begin(ptr %dao.frame)
! CHECK-NEXT: %dao.pending = load atomic i8, ptr @dao_restart_pending monotonic
! O2: store i32 5, ptr
! O2-NEXT: call void @dao_omp_end(ptr %dao.frame)
! CHECK: call void @__kmpc_for_static_fini(
! CHECK: store i32 1, ptr
! CHECK: dao.sync.1:
! CHECK-NOT: {{^}}dao.
! CHECK: call void @dao_omp_park(ptr %dao.frame)
! CHECK-NEXT: call void @__kmpc_barrier(
! CHECK-NEXT: call void @dao_omp_unpark(ptr %dao.frame)
! CHECK: %dao.request = load atomic i8, ptr @dao_omp_request monotonic
! CHECK: br i1 %dao.due.any, label %dao.candidate.2, label %dao.resume.2
! CHECK: dao.resume.2:
! CHECK: store i32 3, ptr
! CHECK: dao.sync.3:
! CHECK-NOT: {{^}}dao.
! CHECK: call void @dao_omp_park(ptr %dao.frame)
! CHECK-NEXT: call void @__kmpc_barrier(
! CHECK-NEXT: call void @dao_omp_unpark(ptr %dao.frame)
! CHECK-NOT: @__kmpc_single(
! CHECK: call i32 @dao_omp_single(
! CHECK: store i32 4, ptr
! CHECK: dao.sync.4:
! CHECK-NOT: {{^}}dao.
! CHECK: call void @dao_omp_park(ptr %dao.frame)
! CHECK-NEXT: call void @__kmpc_barrier(
! CHECK-NEXT: call void @dao_omp_unpark(ptr %dao.frame)
! O0: store i32 5, ptr
! O0-NEXT: call void @dao_omp_end(ptr %dao.frame)
! CHECK: dao.dispatch:
! CHECK-NEXT: switch i32 %dao.site, label %dao.badsite [
! CHECK-NEXT: i32 1, label %dao.restore.1
! CHECK-NEXT: i32 2, label %dao.restore.2
! CHECK-NEXT: i32 3, label %dao.restore.3
! CHECK-NEXT: i32 4, label %dao.restore.4
! CHECK-NEXT: i32 5, label %dao.restore.5
! CHECK-NEXT: ]
! CHECK: dao.exit:
! CHECK-NEXT: getelementptr
! CHECK-NEXT: store i32 5, ptr
! CHECK-NEXT: call void @dao_omp_end(ptr %dao.frame)
! CHECK: dao.candidate.2:
! CHECK: call void @dao_candidate(ptr %dao.frame)
! CHECK: dao.restore.1:
! CHECK: br label %dao.sync.1
! CHECK: dao.restore.2:
! CHECK: br label %dao.resume.2
! CHECK: dao.restore.3:
! CHECK: br label %dao.sync.3
! CHECK: dao.restore.4:
! CHECK: br label %dao.sync.4
! CHECK: dao.restore.5:
! CHECK-NEXT: br label %dao.exit
! CHECK-NOT: declare {{.*}}@__kmpc_single(
! CHECK: declare i32 @dao_omp_single(ptr, i32)

! The master saves the struct of pointers with the fork (16 B: two pointers).
! (flang puts the fork's line on the line before the directive: not pinned.)
! REM: omp_fork_sites.f90:{{[0-9]+}}: parallel region 1 in 'sweep_' (outlined 'sweep_..omp_par'): live: 0 values (0 B) [], 1 stack objects (16 B) [structArg],
! REM: omp_fork_sites.f90:35: barrier 1 in 'sweep_..omp_par'; private
! REM: omp_fork_sites.f90:40: candidate 2 in 'sweep_..omp_par'; private
! REM: barrier 3 in 'sweep_..omp_par'; private
! REM: omp_fork_sites.f90:42: barrier 4 in 'sweep_..omp_par'; private
! REM: 2 instrumented functions, 6 labelled sites,
