! data_f/main.f90 -- two files that hold only data (modules without
! procedures: CloverLeaf's data.f90 and definitions.f90). flang names every
! LLVM module `FIRModule`, so the two had the same identity in checkpoints
! (names and functions alike) until the globals a module defines were part
! of it: a restart put one module's globals in the other's place, or
! stopped with "does not match this executable's global".
! Invariant: the restarted run prints what the uninterrupted run prints.
! Argument: number of steps (default 30).
program data_f
  use dao
  use grid_data
  use field_data
  implicit none
  integer :: i, s, steps
  character(len=16) :: arg
  steps = 30
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  do i = 1, n
    u(i) = dble(mod(i, 13)) * 0.5d0
    v(i) = 0.0d0
  end do
  energy = 1.0d0
  do s = 1, steps
    call dao_potential_checkpoint()
    do i = 2, n - 1
      v(i) = 0.25d0 * (u(i - 1) + 2.0d0 * u(i) + u(i + 1))
    end do
    u(2:n - 1) = v(2:n - 1)
    energy(1 + mod(s, 3000)) = energy(1 + mod(s, 3000)) + sum(u(1:10))
    total = total + sum(energy(1:50)) * 1.0d-3
    calls = calls + 1
    steps_done = steps_done + 1
    print '(a,i0,a,es22.14,a,i0)', 'step ', s, ' total ', total, ' calls ', calls
  end do
  print '(a,i0,a,es22.14)', 'done ', steps_done, ' u ', sum(u)
end program data_f
