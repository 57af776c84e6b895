! state_f/state_mod.f90 -- module state without a marker (see main.f90):
! module variables (public and private), a save variable of a module
! procedure, and a common block.
module state_mod
  implicit none
  integer(8) :: exported = 0
  integer(8), private :: counter = 0
  integer(8), private :: seed = 88172645463325252_8
  real(8), private :: hist(8) = 0.0d0
contains
  integer(8) function st_next()
    counter = counter + 1
    st_next = counter
  end function
  real(8) function st_random()
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -7))
    seed = ieor(seed, ishft(seed, 17))
    st_random = real(ishft(seed, -11), 8) / 9007199254740992.0d0
  end function
  subroutine st_accumulate(r)
    real(8), intent(in) :: r
    integer(8), save :: calls = 0
    integer :: k
    k = iand(int(r * 8.0d0), 7) + 1
    hist(k) = hist(k) + r
    calls = calls + 1
    if (mod(calls, 10_8) == 0) hist(1) = hist(1) + 1.0d0
  end subroutine
  subroutine st_report()
    integer :: k
    print '(a,i0,a,i0)', 'counter ', counter, ' exported ', exported
    do k = 1, 8
      print '(a,i0,a,f20.12)', 'hist ', k, ' ', hist(k)
    end do
  end subroutine
end module state_mod

subroutine st_common_bump(x)
  real(8), intent(in) :: x
  real(8) :: total
  integer(8) :: bumps
  common /stcom/ total, bumps
  total = total + x
  bumps = bumps + 1
end subroutine

subroutine st_common_report()
  real(8) :: total
  integer(8) :: bumps
  common /stcom/ total, bumps
  print '(a,f20.12,a,i0)', 'common ', total, ' bumps ', bumps
end subroutine
