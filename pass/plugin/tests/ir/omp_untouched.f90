! flang's shape of omp_untouched.c: the region of `quiet` reaches no marker,
! so neither `quiet_` nor `quiet_..omp_par` is instrumented (no frame, no
! label on the fork, no dao_omp_begin, no dao_omp_park around its three
! barriers: the implicit one of `!$omp do`, the explicit `!$omp barrier`,
! the one of `!$omp single`). Only `loud`'s region is. `!$omp single` is
! still routed to dao_omp_single (module-wide; it forwards to libomp outside
! an instrumented region).
! RUN: %flang -fopenmp -O0 %s | %opt | %FileCheck %s
! RUN: %flang -fopenmp -O2 %s | %opt | %FileCheck %s
! RUN: %flang -fopenmp -O0 %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
! RUN: %flang -fopenmp -O2 %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REM
subroutine quiet(a, n)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: a(n)
  integer :: i
  !$omp parallel
  !$omp do schedule(static)
  do i = 1, n
    a(i) = i
  end do
  !$omp end do
  !$omp barrier
  !$omp single
  a(1) = a(1) + 1
  !$omp end single
  !$omp end parallel
end subroutine

subroutine loud(n)
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer, intent(in) :: n
  integer :: it
  !$omp parallel private(it)
  do it = 1, n
    call dao_potential_checkpoint()
  end do
  !$omp end parallel
end subroutine

! CHECK-LABEL: define void @quiet_(
! CHECK-NOT: dao
! CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@quiet_..omp_par, ptr {{.*}}%structArg)
! CHECK-NOT: dao
! CHECK: ret void
! CHECK-NEXT: }

! CHECK-LABEL: define internal void @quiet_..omp_par(
! CHECK-NOT: dao
! CHECK: call void @__kmpc_barrier(
! CHECK-NOT: dao
! CHECK: call void @__kmpc_barrier(
! CHECK-NOT: dao
! CHECK: call i32 @dao_omp_single(
! CHECK-NOT: dao
! CHECK: call void @__kmpc_barrier(
! CHECK-NOT: dao
! CHECK: {{^}}}

! CHECK-LABEL: define void @loud_(
! CHECK: call void @dao_omp_fork(ptr %dao.frame)
! CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call({{.*}}@loud_..omp_par, ptr {{.*}}%structArg)
! CHECK-LABEL: define internal void @loud_..omp_par(
! CHECK: call void @dao_omp_begin(ptr %dao.frame)

! REM-NOT: quiet
! REM: 2 instrumented functions, 3 labelled sites,
