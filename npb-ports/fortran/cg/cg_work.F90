! Part of the dao NPB ports (Fortran CG); see npb-ports/README.md.
!-----------------------------------------------------------------------
! Per-thread work of CG's parallel regions, kept the way the NPB 3.3 OpenMP
! codes keep it: in threadprivate common blocks, which cg.F90 declares too
! (same names, same layout; each procedure declares the blocks it uses):
!
!   /cg_rows/  row_first, row_last: the rows a `!$omp do schedule(static)`
!              over 1..na gives the thread. Set once, in the first parallel
!              region (the matrix generation); every later region relies on
!              the values that region left in each thread (the team size
!              does not change, so neither does the static partition).
!   /cg_acc/   tacc(8): the thread's partial dot products. conj_grad copies
!              them into the shared partial(:, tid) (cg_data), where the
!              master adds them in thread order; the p.q partial of a CG
!              step stays in tacc across the marker between the matvec
!              region and the update region.
!
! Compiled before cg.F90 (module cg_work).
module cg_work
  implicit none
contains

  ! Orphaned worksharing loop (called inside a region): record the
  ! thread's rows of a static schedule over 1..n, clear its partials.
  subroutine cgw_rows_setup(n)
    integer, intent(in) :: n
    integer :: row_first, row_last
    common /cg_rows/ row_first, row_last
    !$omp threadprivate(/cg_rows/)
    real(8) :: tacc(8)
    common /cg_acc/ tacc
    !$omp threadprivate(/cg_acc/)
    integer :: j

    row_first = n + 1
    row_last = n
    !$omp do schedule(static)
    do j = 1, n
      if (j < row_first) row_first = j
      row_last = j
    end do
    !$omp end do
    tacc = 0.0d0
  end subroutine cgw_rows_setup

  ! w = A v on the thread's rows (CSR: rowstr, colidx, a), and
  ! tacc(slot) = the same rows' part of v.w, accumulated in row order.
  subroutine cgw_matvec(n, rowstr, colidx, a, v, w, slot)
    integer, intent(in) :: n, slot
    integer, intent(in) :: rowstr(n + 1), colidx(*)
    real(8), intent(in) :: a(*), v(*)
    real(8), intent(inout) :: w(*)
    integer :: row_first, row_last
    common /cg_rows/ row_first, row_last
    !$omp threadprivate(/cg_rows/)
    real(8) :: tacc(8)
    common /cg_acc/ tacc
    !$omp threadprivate(/cg_acc/)
    integer :: j, k
    real(8) :: acc, s

    s = 0.0d0
    do j = row_first, row_last
      acc = 0.0d0
      do k = rowstr(j), rowstr(j + 1) - 1
        acc = acc + a(k) * v(colidx(k))
      end do
      w(j) = acc
      s = s + v(j) * acc
    end do
    tacc(slot) = s
  end subroutine cgw_matvec
end module cg_work
