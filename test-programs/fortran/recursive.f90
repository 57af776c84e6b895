! recursive.f90 -- a marker inside a recursive subroutine.
!
! Exercises: a RECURSIVE subroutine (adaptive Simpson integration) whose
! recursion contains the marker, so the chain holds many activations of the
! same subroutine, each with its own interval, tolerance and partial
! results live across the recursive calls; and a recursive function
! (tree sum) with a marker at the leaves.
!
! Invariant: every live variable of every activation on the chain is
! restored byte for byte, so the printed results equal those of the
! uninterrupted run.
! Argument: number of integrals (default 1000).
module rec_mod
  use dao
  implicit none
  integer(8) :: evals = 0
contains
  real(8) function f(x)
    real(8), intent(in) :: x
    evals = evals + 1
    f = sin(x * x) * exp(-0.1d0 * x) + 1.0d0 / (1.0d0 + x * x)
  end function f

  recursive subroutine simpson(a, b, fa, fm, fb, whole, tol, depth, res)
    real(8), intent(in) :: a, b, fa, fm, fb, whole, tol
    integer, intent(in) :: depth
    real(8), intent(out) :: res
    real(8) :: m, lm, rm, flm, frm, left, right, rl, rr
    m = 0.5d0 * (a + b)
    lm = 0.5d0 * (a + m)
    rm = 0.5d0 * (m + b)
    flm = f(lm)
    frm = f(rm)
    left = (m - a) / 6.0d0 * (fa + 4.0d0 * flm + fm)
    right = (b - m) / 6.0d0 * (fm + 4.0d0 * frm + fb)
    if (depth <= 0 .or. abs(left + right - whole) <= 15.0d0 * tol) then
      res = left + right + (left + right - whole) / 15.0d0
      return
    end if
    call simpson(a, m, fa, flm, fm, left, 0.5d0 * tol, depth - 1, rl)
    if (depth > 12) call dao_potential_checkpoint()
    call simpson(m, b, fm, frm, fb, right, 0.5d0 * tol, depth - 1, rr)
    res = rl + rr
  end subroutine simpson

  recursive integer(8) function tree(id, depth) result(s)
    integer(8), intent(in) :: id
    integer, intent(in) :: depth
    integer(8) :: l
    if (depth == 0) then
      s = mod(id * 2654435761_8, 1000_8)
      if (mod(id, 64_8) == 0) call dao_potential_checkpoint()
      return
    end if
    l = tree(2 * id, depth - 1)
    s = l * 3 + tree(2 * id + 1, depth - 1)
    s = mod(s, 1000000007_8)
  end function tree
end module rec_mod

program recursive_prog
  use rec_mod
  implicit none
  integer :: n, k
  real(8) :: a, b, r, total
  integer(8) :: t
  character(len=32) :: arg

  n = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  total = 0.0d0
  t = 0
  do k = 1, n
    a = 0.0d0
    b = 2.0d0 + dble(mod(k, 7))
    call simpson(a, b, f(a), f(0.5d0 * (a + b)), f(b), 0.0d0, 1.0d-11, 40, r)
    total = total + r
    t = mod(t * 31 + tree(int(k, 8), 10), 1000000007_8)
    if (mod(k, max(n / 6, 1)) == 0) write(*, '(A,I0,A,Z16.16,A,I0)') 'k=', k, ' r=', transfer(r, 0_8), ' t=', t
  end do
  write(*, '(A,I0,A,ES25.17,A,I0,A,I0)') 'recursive: n=', n, ' total=', total, ' evals=', evals, ' t=', t
end program recursive_prog
