! host_teams.f90 -- a host `teams` region in Fortran (flang-19 lowers
! `!$omp teams` outside a target to `__kmpc_fork_teams`; it does not build
! `distribute` yet, so team 0 runs a `parallel do` over the whole range).
!
! Each step: a teams region reads `src` and writes `part`, then a
! `parallel do` rewrites `src` from `part`. At the marker `src` is read
! first by the teams region: live. The pass used to treat
! `__kmpc_fork_teams` as reading only its pointer arguments, and the
! region's outlined function names the saved arrays directly: `src` was dead
! at the marker and a restart went on from a poisoned `src`.
! Argument: steps (default 40).
program host_teams
  use dao
  use omp_lib
  implicit none
  integer, parameter :: n = 8192
  double precision, save :: src(n), part(n)
  integer :: i, it, steps
  character(len=16) :: arg
  double precision :: s

  steps = 40
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  do i = 1, n
    src(i) = mod(i, 13) * 0.25d0
  end do
  part = 0
  do it = 1, steps
    call dao_potential_checkpoint()
    !$omp teams num_teams(2)
    if (omp_get_team_num() == 0) then
      !$omp parallel do
      do i = 1, n
        part(i) = 0.5d0 * src(i) + 0.25d0 * src(mod(i, n) + 1) + 0.001d0 * it
      end do
    end if
    !$omp end teams
    !$omp parallel do
    do i = 1, n
      src(i) = part(i) * 0.99d0 + 0.01d0 * part(mod(i + 2, n) + 1)
    end do
    if (mod(it, 10) == 0) then
      s = 0
      do i = 1, n
        s = s + src(i)
      end do
      print '(a, i0, a, es25.17)', 'step ', it, ': ', s
    end if
  end do
end program host_teams
