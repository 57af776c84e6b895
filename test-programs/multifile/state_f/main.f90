! state_f/main.f90 -- the marker lives here; the state in state_mod.f90.
! Invariant: as state_c/main.c. Argument: number of steps (default 30).
! The common block /stcom/ is named in both files (multifile.rs checks that
! a checkpoint holds it once).
program main
  use state_mod
  use dao
  implicit none
  integer(8) :: i, n, c
  real(8) :: r, s
  integer(8) :: w
  character(len=32) :: arg
  ! the common block of state_mod.f90's subroutines, named here too: one
  ! global at one address in both modules, held once by a checkpoint
  real(8) :: total
  integer(8) :: bumps
  common /stcom/ total, bumps
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
  print '(a,i0)', 'main sees bumps ', bumps
end program

subroutine spin(w)
  integer(8), intent(inout) :: w
end subroutine
