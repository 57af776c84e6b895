! whole_f/work.f90 -- the state and the work of whole_f (see main.f90):
! a module's arrays u and scratch, and a common block /wk/ with a live
! part (carry) and a scratch part (tmp), as NPB keeps its fields.
module work_mod
  implicit none
  integer, parameter :: n = 32768
  real(8) :: u(n), scratch(n)
contains
  subroutine init()
    integer :: i
    real(8) :: carry(n), tmp(n)
    common /wk/ carry, tmp
    do i = 1, n
      u(i) = 1.0d0 + dble(mod(i, 17)) / 17.0d0
      carry(i) = dble(mod(i, 5))
    end do
  end subroutine

  subroutine fill(it)
    integer, intent(in) :: it
    integer :: i
    real(8) :: carry(n), tmp(n)
    common /wk/ carry, tmp
    do i = 1, n
      scratch(i) = u(i) * 0.5d0 + dble(it)
      tmp(i) = carry(i) + dble(it)
    end do
  end subroutine

  real(8) function use(it)
    integer, intent(in) :: it
    integer :: i, w
    real(8) :: carry(n), tmp(n)
    common /wk/ carry, tmp
    use = 0.0d0
    do i = 1, n
      u(i) = 0.75d0 * u(i) + 0.25d0 * scratch(mod(i * 7, n) + 1) / (1.0d0 + dble(it))
      use = use + scratch(i) * 1.0d-6 + tmp(i) * 1.0d-9
      carry(i) = carry(i) * 0.5d0 + 1.0d0
    end do
    w = 0
    do while (w < 300000)
      w = w + 1
      call spin(w)
    end do
  end function

  real(8) function total()
    total = sum(u)
  end function
end module

subroutine spin(w)
  integer, intent(inout) :: w
end subroutine
