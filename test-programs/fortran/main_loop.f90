! main_loop.f90 -- a marker in a loop of the main program.
!
! Exercises: the main program's own variables (scalars of several kinds,
! fixed-size arrays, which flang may place in static storage) updated in a
! loop with dao_potential_checkpoint() in its body, and a nested loop with a
! marker in the inner loop.
!
! Invariant: every live variable of every frame on the chain (here main's
! locals and saved variables) is restored byte for byte, so the printed
! results (exact hex and ES25.17) equal those of the uninterrupted run.
! Argument: number of iterations (default 40000000).
program main_loop
  use dao
  implicit none
  integer(8) :: n, i, j, cnt
  integer :: ia
  real(8) :: x, s, t(64)
  real(4) :: f
  character(len=32) :: arg

  n = 40000000_8
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  x = 0.3d0
  s = 0.0d0
  f = 0.0
  ia = 1
  cnt = 0
  t = 0.0d0
  do i = 1, n
    x = 3.9d0 * x * (1.0d0 - x)
    s = s + x / dble(i)
    f = f * 0.999 + real(x, 4)
    ia = ieor(ia * 5 + 1, int(iand(i, 1023_8)))
    t(mod(i, 64_8) + 1) = t(mod(i, 64_8) + 1) + x
    if (mod(i, 1000_8) == 0) call dao_potential_checkpoint()
    if (mod(i, n / 8) == 0) then
      write(*, '(A,I0,A,Z16.16,A,ES25.17)') 'i=', i, ' x=', transfer(x, 0_8), ' s=', s
    end if
  end do
  do i = 1, 64
    do j = 1, 2000
      t(i) = t(i) * 0.99999d0 + 1.0d-6 * dble(j)
      cnt = cnt + 1
      if (mod(j, 500) == 0) call dao_potential_checkpoint()
    end do
  end do
  write(*, '(A,ES25.17,A,ES25.17,A,I0,A,I0)') 'f=', real(f, 8), ' tsum=', sum(t), ' ia=', ia, ' cnt=', cnt
  write(*, '(A,I0,A,ES25.17)') 'main_loop: n=', n, ' s=', s
end program main_loop
