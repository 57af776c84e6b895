! parallel_if.f90 -- `!$omp parallel do if(...)`, both branches.
!
! Exercises: flang's `__kmpc_fork_call_if(ident, argc, microtask, cond,
! struct)`: libomp serialises the region (a team of one) when cond is 0,
! which happens every third round. The call is a fork site like
! `__kmpc_fork_call`; the restart calls it again with the saved condition.
! Markers: in the loop body (every 1024th iteration) and after the region.
!
! Invariant: integer reduction and per-element results, the same for any
! thread count; the output after a restart equals the uninterrupted run's.
! Argument: number of rounds (default 600; 120 gives ~0.1 s).
program parallel_if
  use dao
  implicit none
  integer, parameter :: n = 40000
  integer(8), allocatable :: v(:)
  integer(8) :: s, grand
  integer :: i, r, rounds
  character(len=32) :: arg

  rounds = 600
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) rounds
  end if
  allocate(v(n))
  do i = 1, n
    v(i) = mod(int(i - 1, 8) * 7919_8, 10007_8)
  end do
  grand = 0
  do r = 0, rounds - 1
    s = 0
    !$omp parallel do if(mod(r, 3) /= 0) reduction(+:s) schedule(static)
    do i = 1, n
      v(i) = mod(v(i) * 31_8 + int(r, 8), 10007_8)
      s = s + v(i)
      if (iand(i - 1, 1023) == 0) call dao_potential_checkpoint()
    end do
    !$omp end parallel do
    call dao_potential_checkpoint()
    grand = grand * 3_8 + s
    if (mod(r, 50) == 0 .or. r == rounds - 1) then
      write(*, '(A,I0,A,I0,A,I0)') 'round ', r, ' s=', s, ' grand=', grand
    end if
  end do
end program parallel_if
