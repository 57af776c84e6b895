! state_f/main.f90 -- the marker lives here; the state in state_mod.f90.
! Invariant: as state_c/main.c. Argument: number of steps (default 30).
program main
  use state_mod
  use dao
  implicit none
  integer(8) :: i, n, c
  real(8) :: r, s
  integer(8) :: w
  character(len=32) :: arg
  n = 30
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  s = 0.0d0
  do i = 1, n
    call dao_potential_checkpoint()
    c = st_next()
    r = st_random()
    call st_accumulate(r)
    call st_common_bump(r)
    s = s + r * real(c, 8)
    exported = exported + c
    w = 0
    do while (w < 200000)
      w = w + 1
      call spin(w)
    end do
  end do
  print '(a,f20.12)', 'sum ', s
  call st_report()
  call st_common_report()
end program

subroutine spin(w)
  integer(8), intent(inout) :: w
end subroutine
