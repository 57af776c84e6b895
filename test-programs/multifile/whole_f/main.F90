! whole_f/main.f90 -- whole-program liveness (issue #33), as whole_c: the
! marker here, the work in work.f90. fill() rewrites the module array
! scratch and the common block part tmp whole, use() reads them: dead at
! the candidate in whole-program mode (--dao-whole-program), kept when
! compiled file by file. -DSCRATCH_READ (cpp): use() runs before fill()
! too, so both must be kept.
! Invariant: the restarted run prints what the uninterrupted run prints.
! Argument: number of steps (default 30).
program main
  use work_mod
  use dao
  implicit none
  integer :: it, steps
  real(8) :: s
  character(len=32) :: arg
  steps = 30
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call init()
  s = 0.0d0
  do it = 0, steps - 1
    call dao_potential_checkpoint()
#ifdef SCRATCH_READ
    s = s + use(it)
#endif
    call fill(it)
    s = s + use(it)
  end do
  print '(a,f20.12,a,f20.8)', 'sum ', s, ' total ', total()
end program
