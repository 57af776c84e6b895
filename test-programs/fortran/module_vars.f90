! module_vars.f90 -- module variables (Fortran globals).
!
! Exercises: module scalars, a module array, a module derived-type
! variable, an allocatable module array and a SAVEd local, all updated in
! a subroutine that reaches a marker, and read after restart by other
! procedures of the module.
!
! Invariant: every module variable the continuation may read is restored
! byte for byte, as is every live variable of every frame on the chain, so
! the printed results equal those of the uninterrupted run.
! Argument: number of steps (default 4000000).
module state
  use dao
  implicit none
  integer(8) :: steps = 0
  real(8) :: energy = 1.0d0
  integer :: table(512) = 0
  type stats_t
    real(8) :: mean = 0.0d0
    integer(8) :: hi = -huge(0_8)
  end type stats_t
  type(stats_t) :: stats
  real(8), allocatable :: hist(:)
  integer(8) :: seed = 987654321_8
contains
  integer(8) function next_rand()
    seed = iand(seed * 6364136223846793005_8 + 1442695040888963407_8, huge(0_8))
    next_rand = ishft(seed, -20)
  end function next_rand

  subroutine step()
    integer(8) :: r
    integer :: k
    integer, save :: calls = 0
    calls = calls + 1
    do k = 1, 20
      r = next_rand()
      table(int(mod(r, 512_8)) + 1) = table(int(mod(r, 512_8)) + 1) + int(iand(r, 7_8))
      energy = energy * 0.9995d0 + 1.0d-4 * dble(mod(r, 97_8))
    end do
    if (mod(calls, 16) == 0) call dao_potential_checkpoint()
    steps = steps + 1
    stats%mean = stats%mean + (energy - stats%mean) / dble(steps)
    stats%hi = max(stats%hi, r)
    hist(mod(calls, size(hist)) + 1) = hist(mod(calls, size(hist)) + 1) + energy
  end subroutine step
end module state

program module_vars
  use state
  implicit none
  integer(8) :: n, i
  character(len=32) :: arg

  n = 4000000_8
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  allocate(hist(33))
  hist = 0.0d0
  do i = 1, n
    call step()
    if (mod(i, n / 6) == 0) write(*, '(A,I0,A,Z16.16,A,I0)') 'step ', steps, ' energy=', &
        transfer(energy, 0_8), ' seed=', seed
  end do
  write(*, '(A,I0,A,ES25.17,A,I0)') 'table=', sum(int(table, 8) * [(int(i, 8), i = 1, 512)]), &
      ' hist=', sum(hist), ' hi=', stats%hi
  write(*, '(A,I0,A,ES25.17,A,ES25.17)') 'module_vars: steps=', steps, ' energy=', energy, ' mean=', stats%mean
end program module_vars
