! Callee summaries specialised to the globals a call passes, on flang's IR
! (issue #15; the C twin is sections_params.c): explicit-shape dummy
! arguments receive the module arrays' addresses, and flang's outlined
! regions receive them in a struct of captured addresses. `b` (rewritten
! whole by copy_scaled's `parallel do`) and `d` (three calls deep) are dead
! at the marker; `c` (copy_scaled(c, c) reads what it writes) and `a` stay
! live, and of `e` only its last column (1024 B).
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
! RUN: %flang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
module spmod
  implicit none
  integer, parameter :: m = 128, n = 64
  real(8) :: a(m, n), b(m, n), c(m, n), d(m, n), e(m, n)
contains
  ! rewrites all of y from x: a worksharing loop on dummy arguments
  subroutine copy_scaled(x, y, s)
    real(8), intent(in) :: x(m, n)
    real(8), intent(inout) :: y(m, n)
    real(8), intent(in) :: s
    integer :: i, j
    !$omp parallel do schedule(static) private(i)
    do j = 1, n
      do i = 1, m
        y(i, j) = s * x(i, j)
      end do
    end do
    !$omp end parallel do
  end subroutine
  ! rewrites all of x, three calls deep
  subroutine level3(x, t)
    real(8), intent(out) :: x(m, n)
    integer, intent(in) :: t
    integer :: i, j
    do j = 1, n
      do i = 1, m
        x(i, j) = t + i
      end do
    end do
  end subroutine
  subroutine level2(x, t)
    real(8), intent(out) :: x(m, n)
    integer, intent(in) :: t
    call level3(x, t)
  end subroutine
  subroutine level1(x, t)
    real(8), intent(out) :: x(m, n)
    integer, intent(in) :: t
    call level2(x, t)
  end subroutine
  ! rewrites all columns of x but the last
  subroutine most(x, t)
    real(8), intent(inout) :: x(m, n)
    integer, intent(in) :: t
    integer :: i, j
    do j = 1, n - 1
      do i = 1, m
        x(i, j) = t * j + i
      end do
    end do
  end subroutine
end module
subroutine run(steps, s)
  use spmod
  implicit none
  integer, intent(in) :: steps
  real(8), intent(inout) :: s
  integer :: t
  interface
    subroutine dao_potential_checkpoint() bind(c)
    end subroutine
  end interface
  do t = 1, steps
    call dao_potential_checkpoint()
    call copy_scaled(a, b, 0.5d0)
    call copy_scaled(c, c, 2.0d0)
    call level1(d, t)
    call most(e, t)
    s = s + b(4, 3) + c(6, 5) + d(8, 7) + e(9, n) + e(1, 1) + a(2, 1)
    a(1, 1) = a(1, 1) + s * 1.0d-9
  end do
end subroutine
! CHECK: sections_params.f90:{{[0-9]+}}: candidate 1 in 'run_': {{.*}} 3 globals (132096 B) [_QMspmodEa, _QMspmodEc, _QMspmodEe (1024 of 65536 B live)]; dead in 'run_' after this point: 3 globals (195584 B) [_QMspmodEb (65536 B, rewritten first by {{.*}}copy_scaled{{.*}}), _QMspmodEd (65536 B, rewritten first by {{.*}}), _QMspmodEe (64512 of 65536 B, rewritten first by {{.*}})]
