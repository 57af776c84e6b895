! in_single.f90 -- MUST BE REJECTED at compile time.
!
! A marker inside an `!$omp single` block: only one thread of the team
! executes it while the others wait at the single's implicit barrier, so the
! team cannot meet at the marker. `dao fc` must fail with a diagnostic naming
! file:line and mentioning dao.
!
! The harness accepts a diagnostic naming any line marked `dao-expect-error`.
program in_single
  use dao
  implicit none
  integer :: i, it
  integer(8) :: s
  s = 0
  !$omp parallel private(it)
  do it = 1, 10
    !$omp do schedule(static) reduction(+:s)
    do i = 1, 1000
      s = s + mod(i, 7)
    end do
    !$omp end do
    !$omp single
    call dao_potential_checkpoint() ! dao-expect-error
    s = s + it
    !$omp end single
  end do
  !$omp end parallel
  print '(I0)', s
end program in_single
