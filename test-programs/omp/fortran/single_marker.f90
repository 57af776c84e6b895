! single_marker.f90 -- a marker inside an `!$omp single` block (issue #18):
! the pass makes the master run a single that reaches a marker, while the
! other threads wait at the single's implicit barrier; a restart puts the
! master back into the block. Integer sums, exact for any thread count.
! Argument: the number of iterations.
program single_marker
  use dao
  implicit none
  integer :: i, it, n
  integer(8) :: s
  character(len=16) :: arg
  n = 10
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  s = 0
  !$omp parallel private(it)
  do it = 1, n
    !$omp do schedule(static) reduction(+:s)
    do i = 1, 1000
      s = s + mod(i, 7)
    end do
    !$omp end do
    !$omp single
    call dao_potential_checkpoint()
    s = s + it
    print '(A,I0,A,I0)', 'it ', it, ' s=', s
    !$omp end single
  end do
  !$omp end parallel
  print '(I0)', s
end program single_marker
