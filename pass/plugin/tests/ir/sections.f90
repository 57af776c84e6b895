! Array-section kills (issue #15) on flang's IR, through the remarks: at the
! marker at the top of the step loop, `work` (rewritten whole by a
! `parallel do`, the team's chunks together) and `deep` (rewritten by a
! loop nest two calls deep) are dead; `halo` (only its interior is
! rewritten, its border is read: the border alone stays live) and `state`
! stay live.
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
! RUN: %flang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
module secmod
  implicit none
  integer, parameter :: n = 64
  real(8) :: work(n, n), state(n, n), halo(n, n), deep(n, n)
contains
  subroutine inner()
    integer :: i, j
    do j = 1, n
      do i = 1, n
        deep(i, j) = real(i - j, 8)
      end do
    end do
  end subroutine
  subroutine outer()
    call inner()
  end subroutine
end module

subroutine step_all(steps, s)
  use secmod
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer, intent(in) :: steps
  real(8), intent(out) :: s
  integer :: t, i, j
  s = 0
  do t = 1, steps
    call dao_potential_checkpoint()
    !$omp parallel do schedule(static)
    do j = 1, n
      do i = 1, n
        work(i, j) = state(i, j) * 0.5d0
      end do
    end do
    !$omp end parallel do
    call outer()
    do j = 2, n - 1
      do i = 2, n - 1
        halo(i, j) = work(i, j)
      end do
    end do
    do j = 1, n
      do i = 1, n
        state(i, j) = state(i, j) + work(i, j) + deep(i, j) + halo(i, j)
      end do
    end do
    s = s + state(1, 1)
  end do
end subroutine
! CHECK: sections.f90:39: candidate 1 in 'step_all_': live: {{.*}} 2 globals (34784 B) [_QMsecmodEhalo (2016 of 32768 B live), _QMsecmodEstate]; dead in 'step_all_' after this point: 3 globals (96288 B) [_QMsecmodEdeep (32768 B, rewritten first by {{the call of '_QMsecmodPouter'|the loop}} at sections.f90:{{[0-9]+}}), _QMsecmodEhalo (30752 of 32768 B, rewritten first by the loop at sections.f90:{{48|50}}), _QMsecmodEwork (32768 B, rewritten first by the parallel region 'step_all_..omp_par' at sections.f90:{{[0-9]+}})]
! CHECK: sections.f90:{{48|50}}: loop in 'step_all_' writes 30752 of 32768 B of _QMsecmodEhalo before reading it: those bytes dead before the loop
! CHECK-DAG: every call of 'step_all_..omp_par' writes all of _QMsecmodEwork (32768 B) before reading it: dead before the call
! CHECK-DAG: every call of '_QMsecmodPouter' writes all of _QMsecmodEdeep (32768 B) before reading it: dead before the call
