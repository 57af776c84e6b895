! common_f/main.f90 -- the members of a Fortran common block rewritten
! and read in one loop (issue #33, NPB 3.3 BT's /fields/): the marker at
! the top of the step loop, the work in work.F90. In whole-program mode
! (--dao-whole-program) rho and sq, which the first loop of every step
! rewrites over the extents np read from the command line while it reads
! u, and rhs, which the second copies from forc, are left out of the
! checkpoint when the extents keep the reads apart from them (checked at
! run time); rho is kept when work.F90 is built with -DREAD_RHO, rhs with
! -DREAD_RHS, all when the files are compiled one by one.
! Invariant: the restarted run prints what the uninterrupted run prints.
! Arguments: steps, then the extents n1 n2 n3 (default 30 25 25 24).
program main
  use dao
  implicit none
  integer :: it, steps, n(3), a
  real(8) :: s, total
  character(len=32) :: arg
  steps = 30
  n = (/25, 25, 24/)
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  do a = 1, 3
    if (command_argument_count() > a) then
      call get_command_argument(a + 1, arg)
      read (arg, *) n(a)
    end if
  end do
  call init(n(1), n(2), n(3))
  s = 0.0d0
  do it = 0, steps - 1
    call dao_potential_checkpoint()
    call step(it)
    s = s + total() * 1.0d-6
    call spin()
  end do
  print '(a,f24.12)', 'sum ', s
end program

subroutine spin()
  integer :: w
  real(8) :: x
  common /spinc/ x
  do w = 1, 200000
    x = x * 0.999d0 + 1.0d-9
  end do
end subroutine
