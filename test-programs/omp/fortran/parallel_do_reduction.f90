! parallel_do_reduction.f90 -- `!$omp parallel do` with reductions, marker in the body.
!
! Exercises: a combined `!$omp parallel do schedule(static)` with integer(8)
! reduction(+:) variables (one a fixed-point conversion of a real(8)
! computed per element) and a reduction(max:) on a real(8) (exact), repeated
! once per round, over a module array.
! Markers: inside the loop body (every 512th iteration) and after each
! region in the main program.
!
! Invariant: the private reduction partials of every thread, the shared array
! and the main program's frame are restored byte for byte, so the output
! (integer sums and exact maxima, independent of the thread count) after a
! restart equals that of the uninterrupted run.
! Argument: number of rounds (default 400; 80 gives ~0.1 s).
program parallel_do_reduction
  use dao
  implicit none
  integer, parameter :: n = 200000
  integer(8), allocatable :: v(:)
  integer(8) :: s, sq, fx, grand, x, check
  real(8) :: w, wmax
  integer :: i, r, rounds
  character(len=32) :: arg

  rounds = 400
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) rounds
  end if
  allocate(v(n))
  do i = 1, n
    v(i) = mod(int(i, 8) * 2654435761_8, 1000_8)
  end do
  grand = 0
  do r = 1, rounds
    s = 0
    sq = 0
    fx = 0
    wmax = 0.0d0
    !$omp parallel do schedule(static) private(x, w) reduction(+:s, sq, fx) reduction(max:wmax)
    do i = 1, n
      x = mod(v(i) * (r + 2) + i, 10007_8)
      w = sqrt(dble(x)) * 0.25d0
      s = s + x
      sq = sq + x * x
      if (iand(i, 511) == 1) call dao_potential_checkpoint()
      fx = fx + nint(w * 65536.0d0, 8)
      wmax = max(wmax, w)
      v(i) = x
    end do
    !$omp end parallel do
    call dao_potential_checkpoint()
    grand = ieor(grand, s + ishft(sq, -7) + fx)
    if (mod(r, 50) == 0 .or. r == rounds) then
      write(*, '(A,I0,A,I0,A,I0,A,I0,A,Z16.16)') 'round ', r, ' s=', s, ' sq=', sq, ' fx=', fx, &
          ' wmax=', transfer(wmax, 0_8)
    end if
  end do
  check = 0
  do i = 1, n
    check = ieor(ieor(ishft(check, 5), v(i)), ishft(check, -59))
  end do
  write(*, '(A,I0,A,I0,A,I0)') 'parallel_do_reduction: rounds=', rounds, ' grand=', grand, ' check=', check
end program parallel_do_reduction
