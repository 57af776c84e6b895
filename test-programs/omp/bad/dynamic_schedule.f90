! dynamic_schedule.f90 -- MUST BE REJECTED at compile time.
!
! A marker inside the body of an `!$omp do schedule(dynamic)` loop: which
! iterations a thread runs is decided at run time by the order in which
! threads grab chunks, so a restarted run cannot hand each thread the rest of
! its iterations. `dao fc` must fail with a diagnostic naming file:line and
! mentioning dao.
!
! The harness accepts a diagnostic naming any line marked `dao-expect-error`.
program dynamic_schedule
  use dao
  implicit none
  integer :: i
  integer(8) :: s
  real(8) :: v(100000)
  v = 1.0d0
  s = 0
  !$omp parallel do schedule(dynamic, 16) reduction(+:s)
  do i = 1, 100000
    v(i) = v(i) * 0.5d0 + dble(mod(i, 17))
    if (mod(i, 1000) == 0) call dao_potential_checkpoint() ! dao-expect-error
    s = s + int(v(i), 8)
  end do
  !$omp end parallel do
  print '(I0)', s
end program dynamic_schedule
