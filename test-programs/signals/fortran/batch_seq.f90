! batch_seq.f90 -- a sequential Fortran job that batch systems signal (issue #37).
!
! Exercises: a marker per step of a slow loop (usleep through bind(C)),
! progress written and flushed every 10 steps, so a test sends SIGUSR1 /
! SIGTERM while the run is under way.
!
! Invariant: the array, the sum and the loop counter are restored byte for
! byte, so a run stopped by an exit signal and resumed writes exactly the
! uninterrupted run's output.
! Arguments: STEPS (default 300) STEP_US (default 10000).
program batch_seq
  use dao
  use iso_c_binding
  implicit none
  interface
    function usleep(us) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: us
      integer(c_int) :: usleep
    end function usleep
  end interface
  integer, parameter :: n = 4096
  real(8) :: a(n), s
  integer :: steps, step_us, it, i, rc
  character(len=32) :: arg

  steps = 300
  step_us = 10000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read(arg, *) step_us
  end if
  do i = 1, n
    a(i) = i * 0.5d0
  end do
  s = 0
  do it = 1, steps
    do i = 1, n
      a(i) = a(i) * 0.999d0 + mod(it, 7) * 1d-3
    end do
    s = s + a(mod(it * 37, n) + 1)
    if (mod(it, 10) == 0) then
      write(*, '(A,I6,A,Z16.16)') 'step ', it, ' sum ', s
      flush(6)
    end if
    rc = usleep(int(step_us, c_int))
    call dao_potential_checkpoint()
  end do
  write(*, '(A,I6,A,ES25.17)') 'batch_seq: steps=', steps, ' sum=', s
end program batch_seq
