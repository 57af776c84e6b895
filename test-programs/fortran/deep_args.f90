! deep_args.f90 -- a marker in a subroutine three calls deep, with array arguments.
!
! Exercises: main -> sweep -> relax_rows -> relax_row, passing an
! explicit-shape 2-D array, an assumed-shape 1-D array and scalars by
! reference down the chain; the marker is in the deepest subroutine and in
! the middle one, and each level keeps its own local sums live across the
! call.
!
! Invariant: every live variable of every frame on the chain is restored
! byte for byte (arrays passed by reference are the caller's storage), so
! the printed results equal those of the uninterrupted run.
! Argument: number of sweeps (default 8000).
module deep_args_kernels
  use dao
  implicit none
contains
  subroutine relax_row(row, m, w, rsum)
    integer, intent(in) :: m
    real(8), intent(inout) :: row(m)
    real(8), intent(in) :: w
    real(8), intent(inout) :: rsum
    integer :: k
    real(8) :: old
    do k = 2, m - 1
      old = row(k)
      row(k) = (1.0d0 - w) * row(k) + w * 0.5d0 * (row(k - 1) + row(k + 1))
      rsum = rsum + abs(row(k) - old)
    end do
    call dao_potential_checkpoint()
  end subroutine relax_row

  subroutine relax_rows(a, m, n, w, rsum, counts)
    integer, intent(in) :: m, n
    real(8), intent(inout) :: a(m, n)
    real(8), intent(in) :: w
    real(8), intent(out) :: rsum
    integer, intent(inout) :: counts(:)
    integer :: j
    real(8) :: local
    rsum = 0.0d0
    local = 0.0d0
    do j = 1, n
      call relax_row(a(:, j), m, w, local)
      counts(mod(j, size(counts)) + 1) = counts(mod(j, size(counts)) + 1) + 1
    end do
    rsum = local
  end subroutine relax_rows

  subroutine sweep(a, m, n, it, hist, counts)
    integer, intent(in) :: m, n, it
    real(8), intent(inout) :: a(m, n)
    real(8), intent(inout) :: hist(:)
    integer, intent(inout) :: counts(:)
    real(8) :: r, w
    w = 0.8d0 + 0.1d0 * dble(mod(it, 3))
    call relax_rows(a, m, n, w, r, counts)
    call dao_potential_checkpoint()
    hist(mod(it, size(hist)) + 1) = hist(mod(it, size(hist)) + 1) + r
  end subroutine sweep
end module deep_args_kernels

program deep_args
  use deep_args_kernels
  implicit none
  integer, parameter :: m = 200, n = 50
  real(8) :: a(m, n), hist(7)
  integer :: counts(5), it, nsweeps, i, j
  character(len=32) :: arg

  nsweeps = 8000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) nsweeps
  end if
  do j = 1, n
    do i = 1, m
      a(i, j) = dble(mod(i * 7 + j * 3, 11)) / 11.0d0
    end do
  end do
  hist = 0.0d0
  counts = 0
  do it = 1, nsweeps
    call sweep(a, m, n, it, hist, counts)
    if (mod(it, max(nsweeps / 6, 1)) == 0) write(*, '(A,I0,A,Z16.16,A,ES25.17)') 'sweep ', it, ' a(100,25)=', &
        transfer(a(100, 25), 0_8), ' h1=', hist(1)
  end do
  write(*, '(A,7ES25.17)') 'hist=', hist
  write(*, '(A,5I8)') 'counts=', counts
  write(*, '(A,I0,A,ES25.17)') 'deep_args: sweeps=', nsweeps, ' sum=', sum(a)
end program deep_args
