! batch_omp.f90 -- an OpenMP Fortran job that batch systems signal (issue #37).
!
! Exercises: MODE 1, a marker in the body of an `!$omp do` loop (the signal
! arrives while the team works); MODE 2, a marker between parallel regions.
! Each step sleeps STEP_US (usleep through bind(C); in MODE 1 inside the
! loop). Progress is written and flushed every 10 steps.
!
! Invariant: the shared array, the digest and every thread's frame are
! restored byte for byte, so the output after a restart equals the
! uninterrupted run's, whatever the thread count.
! Arguments: MODE (default 2) STEPS (default 200) STEP_US (default 10000).
program batch_omp
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
  integer, parameter :: n = 24000, chunks = 8
  real(8) :: a(n), digest
  integer :: mode, steps, step_us, it, i, c, rc
  character(len=32) :: arg

  mode = 2
  steps = 200
  step_us = 10000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) mode
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read(arg, *) steps
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read(arg, *) step_us
  end if
  do i = 1, n
    a(i) = mod(i, 101) * 0.25d0
  end do
  digest = 0
  do it = 1, steps
    if (mode == 1) then
      !$omp parallel do schedule(static) private(i, rc)
      do c = 1, chunks
        do i = c, n, chunks
          a(i) = a(i) * 0.999d0 + mod(it, 5) * 1d-3
        end do
        rc = usleep(int(step_us / 4, c_int))
        call dao_potential_checkpoint()
      end do
      !$omp end parallel do
    else
      !$omp parallel do schedule(static)
      do i = 1, n
        a(i) = a(i) * 0.999d0 + mod(it, 5) * 1d-3
      end do
      !$omp end parallel do
      rc = usleep(int(step_us, c_int))
      call dao_potential_checkpoint()
    end if
    digest = digest + a(mod(it * 131, n) + 1)
    if (mod(it, 10) == 0) then
      write(*, '(A,I6,A,Z16.16)') 'step ', it, ' digest ', digest
      flush(6)
    end if
  end do
  write(*, '(A,I2,A,I6,A,ES25.17)') 'batch_omp mode ', mode, ': steps=', steps, ' digest=', digest
end program batch_omp
