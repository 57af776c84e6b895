! dynamic_f/main.f90 -- dynamic_c's shape in Fortran: an `!$omp do
! schedule(dynamic)` loop calling weight() of work.F90, which may reach a
! marker (-DMARKER_IN_LOOP), and a `master` block calling progress(),
! which does; the marker of this file is in the step loop, between regions.
! The region is built and held at run time (no checkpoint inside it).
! Invariant: the restarted run prints what the uninterrupted run prints.
! Argument: number of steps (default 30).
program dynamic_f
  use dao
  implicit none
  integer, parameter :: n = 4096
  real(8) :: field(n), total, top
  real(8), external :: weight
  external :: progress
  integer :: i, s, steps
  character(len=16) :: arg
  steps = 30
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  do i = 1, n
    field(i) = dble(mod(i - 1, 17)) * 0.25d0
  end do
  do s = 0, steps - 1
    call dao_potential_checkpoint()
    total = 0.0d0
    top = 0.0d0
    !$omp parallel
    !$omp do schedule(dynamic, 7) reduction(+:total)
    do i = 1, n
      field(i) = 0.5d0 * field(i) + weight(i - 1, s)
      total = total + field(i)
    end do
    !$omp end do
    !$omp do schedule(guided) reduction(max:top)
    do i = 1, n
      top = max(top, field(i))
    end do
    !$omp end do nowait
    !$omp master
    call progress(s)
    !$omp end master
    !$omp end parallel
    write (*, '(a,i0,a,es20.12,a,es20.12)') 'step ', s, ' sum ', total, ' top ', top
  end do
end program dynamic_f
