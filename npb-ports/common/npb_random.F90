! Part of the dao NPB ports (Fortran side); see npb-ports/README.md.
!-----------------------------------------------------------------------
! The NPB random-number generator: x <- a*x mod 2^46, value x*2^-46.
! Exact in 64-bit integers by splitting both factors into 23-bit halves.
module npb_random
  implicit none
  integer(8), parameter :: mask23 = 8388607_8            ! 2^23 - 1
  integer(8), parameter :: mask46 = 70368744177663_8     ! 2^46 - 1
  real(8), parameter :: two_m46 = 1.0d0 / 70368744177664.0d0
contains
  pure function lcg_mul(s, m) result(res)
    integer(8), intent(in) :: s, m
    integer(8) :: res, s_hi, s_lo, m_hi, m_lo, mid
    s_hi = ishft(s, -23)
    s_lo = iand(s, mask23)
    m_hi = ishft(m, -23)
    m_lo = iand(m, mask23)
    mid = iand(s_hi * m_lo + s_lo * m_hi, mask23)
    res = iand(ishft(mid, 23) + s_lo * m_lo, mask46)
  end function lcg_mul

  function randlc(seed, a) result(res)
    real(8), intent(inout) :: seed
    real(8), intent(in) :: a
    real(8) :: res
    integer(8) :: s
    s = lcg_mul(int(seed, 8), int(a, 8))
    seed = real(s, 8)
    res = real(s, 8) * two_m46
  end function randlc

  ! next n values of the sequence into y(1:n)
  subroutine vranlc(n, seed, a, y)
    integer, intent(in) :: n
    real(8), intent(inout) :: seed
    real(8), intent(in) :: a
    real(8), intent(out) :: y(*)
    integer(8) :: s, m
    integer :: i
    s = int(seed, 8)
    m = int(a, 8)
    do i = 1, n
      s = lcg_mul(s, m)
      y(i) = real(s, 8) * two_m46
    end do
    seed = real(s, 8)
  end subroutine vranlc

  ! a**n mod 2^46: the multiplier that jumps the sequence n steps
  function lcg_pow(a, n) result(res)
    real(8), intent(in) :: a
    integer(8), intent(in) :: n
    real(8) :: res
    integer(8) :: acc, b, k
    acc = 1_8
    b = int(a, 8)
    k = n
    do while (k > 0_8)
      if (iand(k, 1_8) == 1_8) acc = lcg_mul(acc, b)
      b = lcg_mul(b, b)
      k = ishft(k, -1)
    end do
    res = real(acc, 8)
  end function lcg_pow
end module npb_random

