! private_clauses.f90 -- private, firstprivate and lastprivate in Fortran.
!
! Exercises: `!$omp parallel do schedule(static)` with private scalars and a
! private fixed-size array (each thread's copy in its outlined frame),
! firstprivate scalars and a firstprivate array (initialised from the
! master's values), lastprivate scalars and a lastprivate array (copied back
! from the sequentially last iteration), and a variable both firstprivate and
! lastprivate.
! Markers: inside the loop bodies, while the private copies are live (every
! 1024th iteration), and once per round in the main program.
!
! Invariant: every thread's private copies are restored byte for byte, so the
! per-element results and lastprivate values printed after a restart equal
! those of the uninterrupted run.
! Argument: number of rounds (default 900; 60 gives ~0.1 s).
program private_clauses
  use dao
  implicit none
  integer, parameter :: n = 100000
  real(8), allocatable :: out(:)
  integer(8), allocatable :: iout(:)
  real(8) :: coef(4), scale, y, x, last_val, work(8)
  integer(8) :: base, k, last_i, tail(3), carried, hi, check
  integer :: i, r, rounds, q
  character(len=32) :: arg

  rounds = 900
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) rounds
  end if
  allocate(out(n), iout(n))
  do i = 1, n
    out(i) = dble(mod(i, 97)) / 97.0d0
  end do
  iout = 0
  coef = [0.5d0, -0.25d0, 0.125d0, 1.0d0 / 3.0d0]
  scale = 1.0009765625d0
  base = 1000
  carried = 5000000
  tail = 0
  last_val = 0.0d0
  last_i = -1
  do r = 1, rounds
    !$omp parallel do schedule(static) private(x, y, k, work, q) firstprivate(coef, scale, base) &
    !$omp& lastprivate(last_val, last_i, tail)
    do i = 1, n
      x = out(i)
      do q = 1, 8
        work(q) = x * dble(q)
      end do
      y = 3.7d0 * scale * x * (1.0d0 - x) + coef(iand(i, 3) + 1) * 0.01d0 + work(8) * 1.0d-3
      k = base + 17 * iand(i, 15)
      if (iand(i, 1023) == 7) call dao_potential_checkpoint()
      out(i) = y - aint(y)
      iout(i) = mod(iout(i) + k + ishft(int(y * 1024.0d0, 8), -3), 1000003_8)
      last_val = y + work(3)
      last_i = i
      tail(mod(i, 3) + 1) = k
    end do
    !$omp end parallel do
    !$omp parallel do schedule(static) private(hi) firstprivate(carried) lastprivate(carried)
    do i = 1, 1000
      hi = carried / 1000000
      if (mod(i, 100) == 1) call dao_potential_checkpoint()
      carried = hi * 1000000 + 3 * i + r
      iout(i) = iout(i) + iand(carried, 1_8)
    end do
    !$omp end parallel do
    carried = carried + 1000000
    call dao_potential_checkpoint()
    base = base + 3
    if (mod(r, 150) == 0 .or. r == rounds) then
      write(*, '(A,I0,A,Z16.16,A,I0,A,3(I0,1X),A,I0)') 'round ', r, ' last_val=', transfer(last_val, 0_8), &
          ' last_i=', last_i, ' tail=', tail, 'carried=', carried
    end if
  end do
  check = 0
  y = 0.0d0
  do i = 1, n
    check = ieor(ieor(ishft(check, 7), iout(i)), ishft(check, -57))
    y = y + out(i)
  end do
  write(*, '(A,I0,A,I0,A,ES25.17)') 'private_clauses: rounds=', rounds, ' check=', check, ' osum=', y
end program private_clauses
