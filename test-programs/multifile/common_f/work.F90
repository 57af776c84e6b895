! common_f/work.f90 -- the fields and the work of common_f (see
! main.F90), as NPB 3.3 BT keeps them: the extents in one common block
! (/grid/ np, read once at start-up), the arrays in another (/fields/:
! u, rho, sq, rhs, forc, padded to their declared extents), and a time
! step whose first worksharing loop reads u and rewrites rho and sq over
! the extents (NPB's compute_rhs: rho_i, us, ..., square from u), whose
! second copies forc into rhs (`rhs = forcing`: the first loop's reads of
! u come before it, and never touch rhs) and whose third updates rhs and
! u from them.
! -DREAD_RHO (cpp): the rewrite also reads the old rho; -DREAD_RHS: the
! first loop also reads rhs, before the copy rewrites it.
! -DCOPY_EXTENTS: the copy runs over other members of /grid/, nc = np - 2
! (NPB 3.3 SP's `do k = 0, nz2 + 1`): the first loop's reads of u are
! bounded by np, which the copy's own counts do not bound.
subroutine init(n1, n2, n3)
  implicit none
  integer, intent(in) :: n1, n2, n3
  integer :: np(3), nc(3)
  real(8) :: u(5, 0:24, 0:24, 0:23), rho(0:24, 0:24, 0:23), sq(0:24, 0:24, 0:23)
  real(8) :: rhs(5, 0:24, 0:24, 0:23), forc(5, 0:24, 0:24, 0:23)
  common /grid/ np, nc
  common /fields/ u, rho, sq, rhs, forc
  integer :: i, j, k, m
  np(1) = n1
  np(2) = n2
  np(3) = n3
  nc(1) = n1 - 2
  nc(2) = n2 - 2
  nc(3) = n3 - 2
  do k = 0, 23
    do j = 0, 24
      do i = 0, 24
        do m = 1, 5
          u(m, i, j, k) = 1.0d0 + dble(mod(i + 2 * j + 3 * k + m, 11)) / 11.0d0
        end do
        rho(i, j, k) = 1.0d0
        sq(i, j, k) = 0.0d0
        do m = 1, 5
          rhs(m, i, j, k) = 0.0d0
          forc(m, i, j, k) = 1.0d-3 * dble(mod(3 * i + j + 5 * k + m, 7))
        end do
      end do
    end do
  end do
end subroutine

subroutine step(it)
  implicit none
  integer, intent(in) :: it
  integer :: np(3), nc(3)
  real(8) :: u(5, 0:24, 0:24, 0:23), rho(0:24, 0:24, 0:23), sq(0:24, 0:24, 0:23)
  real(8) :: rhs(5, 0:24, 0:24, 0:23), forc(5, 0:24, 0:24, 0:23)
  common /grid/ np, nc
  common /fields/ u, rho, sq, rhs, forc
  integer :: i, j, k, m
  real(8) :: r
!$omp parallel default(shared) private(i, j, k, m, r)
!$omp do schedule(static)
  do k = 0, np(3) - 1
    do j = 0, np(2) - 1
      do i = 0, np(1) - 1
        r = 1.0d0 / u(1, i, j, k)
#ifdef READ_RHO
        r = 0.5d0 * (r + rho(i, j, k))
#endif
#ifdef READ_RHS
        r = r + 1.0d-12 * rhs(1, i, j, k)
#endif
        rho(i, j, k) = r
        sq(i, j, k) = 0.5d0 * (u(2, i, j, k)**2 + u(3, i, j, k)**2) * r
      end do
    end do
  end do
!$omp end do nowait
!$omp do schedule(static)
#ifdef COPY_EXTENTS
  do k = 0, nc(3) + 1
    do j = 0, nc(2) + 1
      do i = 0, nc(1) + 1
#else
  do k = 0, np(3) - 1
    do j = 0, np(2) - 1
      do i = 0, np(1) - 1
#endif
        do m = 1, 5
          rhs(m, i, j, k) = forc(m, i, j, k)
        end do
      end do
    end do
  end do
!$omp end do
!$omp do schedule(static)
  do k = 0, np(3) - 1
    do j = 0, np(2) - 1
      do i = 0, np(1) - 1
        do m = 1, 5
          rhs(m, i, j, k) = rhs(m, i, j, k) + 0.1d0 * (1.0d0 + sq(i, j, k) * rho(i, j, k))
          u(m, i, j, k) = 0.9d0 * u(m, i, j, k) + rhs(m, i, j, k) + 1.0d-3 * dble(mod(it, 3))
        end do
      end do
    end do
  end do
!$omp end do
!$omp end parallel
end subroutine

real(8) function total()
  implicit none
  integer :: np(3), nc(3)
  real(8) :: u(5, 0:24, 0:24, 0:23), rho(0:24, 0:24, 0:23), sq(0:24, 0:24, 0:23)
  real(8) :: rhs(5, 0:24, 0:24, 0:23), forc(5, 0:24, 0:24, 0:23)
  common /grid/ np, nc
  common /fields/ u, rho, sq, rhs, forc
  total = sum(u(:, 0:np(1) - 1, 0:np(2) - 1, 0:np(3) - 1)) + sum(rho(0:np(1) - 1, 0:np(2) - 1, 0:np(3) - 1))
end function
