! num_threads_clause.f90 -- `!$omp parallel num_threads(...)` with a marker inside.
!
! Exercises: a region with a `num_threads(3)` clause (flang emits
! `__kmpc_push_num_threads` and then fills the outlined function's argument
! struct before `__kmpc_fork_call`: the restart must replay the push, or the
! new team would have the default size), next to a region without the
! clause. Both contain a static `!$omp do` loop with a marker in the body.
! Markers: in both loop bodies (every 256th iteration) and between regions.
!
! Invariant: the team of the first region always has 3 threads whatever
! OMP_NUM_THREADS says; per-element integer results and an integer
! reduction, so the output is the same for any thread count and after a
! restart equals that of the uninterrupted run.
! Argument: number of rounds (default 300; 60 gives ~0.1 s).
program num_threads_clause
  use dao
  implicit none
  integer, parameter :: n = 50000
  integer(8), allocatable :: a(:), b(:)
  integer(8) :: s, t, grand
  integer :: i, r, rounds, k
  character(len=32) :: arg

  rounds = 300
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) rounds
  end if
  allocate(a(n), b(n))
  do i = 1, n
    a(i) = mod(int(i, 8) * 40503_8, 65521_8)
    b(i) = 0
  end do
  grand = 0
  do r = 1, rounds
    s = 0
    !$omp parallel num_threads(3) private(k) reduction(+:s)
    !$omp do schedule(static)
    do i = 1, n
      do k = 1, 3
        a(i) = mod(a(i) * 75_8 + int(r + k, 8), 65537_8)
      end do
      s = s + a(i)
      if (iand(i, 255) == 1) call dao_potential_checkpoint()
    end do
    !$omp end do
    !$omp end parallel
    call dao_potential_checkpoint()
    t = 0
    !$omp parallel do schedule(static) reduction(+:t)
    do i = 1, n
      b(i) = ieor(b(i), a(i) + int(i, 8))
      t = t + iand(b(i), 1023_8)
      if (iand(i, 255) == 1) call dao_potential_checkpoint()
    end do
    !$omp end parallel do
    grand = ieor(grand * 3_8, s + t)
    if (mod(r, 30) == 0 .or. r == rounds) then
      write(*, '(A,I0,A,I0,A,I0,A,I0)') 'round ', r, ' s=', s, ' t=', t, ' grand=', grand
    end if
  end do
end program num_threads_clause
