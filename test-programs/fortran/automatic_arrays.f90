! automatic_arrays.f90 -- variable-size stack allocations on the marker
! path, as every Fortran code has them.
!
! Exercises: an automatic array (`real(8) :: w(n)`, sized by a dummy
! argument) in a subroutine that holds the marker, live across it; the
! character temporary of a concatenation with trim() in the main program
! (a file name built before the loop) and in a subroutine on the chain.
! flang 19 allocates all three on the stack with their run-time sizes;
! the pass moves them to the heap (to_heap.rs). Arguments: the array
! length and the steps.
!
! Invariant: the output equals an uninterrupted run's.
module auto_work
  use dao
  implicit none
contains
  subroutine step(v, n, t, total)
    integer, intent(in) :: n, t
    real(8), intent(inout) :: v(n), total
    real(8) :: w(n)
    integer :: i
    do i = 1, n
      w(i) = v(n + 1 - i) * 0.5d0 + t
    end do
    call dao_potential_checkpoint()
    do i = 1, n
      v(i) = v(i) * 0.999d0 + w(i) * 1.0d-3
      total = total + v(i)
    end do
  end subroutine step

  subroutine report(tag, t, total)
    character(len=*), intent(in) :: tag
    integer, intent(in) :: t
    real(8), intent(in) :: total
    character(len=64) :: line
    line = trim(tag) // ' step'
    call dao_potential_checkpoint()
    write (*, '(a,1x,i0,1x,es16.9)') trim(line), t, total
  end subroutine report
end module auto_work

program automatic_arrays
  use auto_work
  implicit none
  character(len=256) :: arg, name
  integer :: n, steps, t, i
  real(8), allocatable :: v(:)
  real(8) :: total
  n = 1000
  steps = 60
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() > 1) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  call get_command_argument(0, arg)
  name = trim(adjustl('cells')) // '-of-' // 'run'
  allocate (v(n))
  do i = 1, n
    v(i) = mod(i, 17)
  end do
  total = 0.0d0
  do t = 1, steps
    call step(v, n, t, total)
    if (mod(t, 10) == 0) call report(name, t, total)
  end do
  write (*, '(a,1x,es20.12)') trim(name), total
end program automatic_arrays
