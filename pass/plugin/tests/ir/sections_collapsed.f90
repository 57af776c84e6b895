! Collapsed loop nests on flang's IR (issue #15; the C twin is
! sections_collapsed.c): `collapse(2)` worksharing loops index with the
! quotient and remainder of one induction variable. `a` is rewritten whole
! before it is read (dead at the marker); `d`'s last row of every plane is
! not rewritten and is read, so those bytes (16 rows of 64 doubles, 8192 B)
! stay live.
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
! RUN: %flang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s
module grids
  implicit none
  integer, parameter :: nz = 16, ny = 32, nx = 64
  double precision, save :: a(nx, ny, nz), d(nx, ny, nz)
contains
  subroutine fill_a(x)
    double precision, intent(in) :: x
    integer :: i, j, k
    !$omp parallel do collapse(2) schedule(static)
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          a(i, j, k) = x + i
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine
  subroutine fill_d(x)
    double precision, intent(in) :: x
    integer :: i, j, k
    !$omp parallel do collapse(2) schedule(static)
    do k = 1, nz
      do j = 1, ny - 1
        do i = 1, nx
          d(i, j, k) = x + i
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine
end module
subroutine run(steps, s)
  use grids
  implicit none
  integer, intent(in) :: steps
  double precision, intent(inout) :: s
  integer :: t, k
  interface
    subroutine dao_potential_checkpoint() bind(c)
    end subroutine
  end interface
  do t = 1, steps
    call dao_potential_checkpoint()
    call fill_a(dble(t))
    call fill_d(dble(t))
    do k = 1, nz
      s = s + a(2, 3, k) + d(5, ny, k)
    end do
  end do
end subroutine
! CHECK: sections_collapsed.f90:{{[0-9]+}}: candidate 1 in 'run_': {{.*}} 1 globals (8192 B) [_QMgridsEd (8192 of 262144 B live)]; dead in 'run_' after this point: 2 globals (516096 B) [_QMgridsEa (262144 B, rewritten first by {{.*}}), _QMgridsEd (253952 of 262144 B, rewritten first by {{.*}})]
! CHECK-DAG: every call of '_QMgridsPfill_a..omp_par' writes all of _QMgridsEa (262144 B) before reading it
! CHECK-NOT: writes all of _QMgridsEd
