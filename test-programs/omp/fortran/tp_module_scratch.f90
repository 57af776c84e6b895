! tp_module_scratch.f90 -- threadprivate module arrays as per-thread line buffers (NPB SP/BT shape).
!
! Exercises: module variables declared `!$omp threadprivate(...)` in a
! module (arrays and scalars; flang allocates the workers' copies in libomp
! through `__kmpc_threadprivate_cached`) used by module subroutines with
! orphaned `!$omp do schedule(static)` loops, like the x/y line solves of
! NPB SP and BT: an implicit (ADI) diffusion step solves one tridiagonal
! system per grid row (x_sweep), then one per column (y_sweep). The
! elimination coefficients cp(:) depend on the matrix only: every thread
! computes its own copy ONCE, in the first parallel region, and every later
! use (a second region enclosing the whole time-step loop) relies on the
! copy that region left in the thread. The forward-elimination values dp(:)
! and the solved line xl(:) are per-thread scratch, live across the marker
! between the forward and the backward pass. Per-thread counters (lines
! solved, a hash of the solutions) persist across both regions and are
! combined with atomics. `!$omp single` computes and prints a checksum in
! the time-step loop; an explicit `!$omp barrier` precedes it.
! Markers: in x_sweep's orphaned loop between forward elimination and back
! substitution (every 4th row), after y_sweep's `!$omp end do` (after its
! implicit barrier), and in the time-step loop after the `!$omp single`;
! one in the serial code between the two regions.
!
! Invariant: the shared grid and every thread's threadprivate copies
! (coefficients, scratch lines, counters) are restored byte for byte, so the
! output (bit patterns of per-element results, serial sums in a fixed order,
! thread-count independent integer totals) after a restart equals that of
! the uninterrupted run, for any thread count.
! Argument: number of time steps (default 6000; 600 gives ~0.1 s).
module adi_data
  use dao
  implicit none
  integer, parameter :: n = 96
  real(8), parameter :: r = 0.35d0, dt = 0.02d0
  integer(8), parameter :: hmod = 2147483647_8
  real(8) :: u(0:n+1, 0:n+1), src(n, n)
  ! per-thread: coefficients (set once), scratch lines, counters
  real(8) :: cp(n), dp(n), xl(0:n+1)
  integer(8) :: nlines, lhash
  !$omp threadprivate(cp, dp, xl, nlines, lhash)
contains
  ! first region only: the thread's elimination coefficients of the
  ! constant tridiagonal matrix (-r, 1 + 2r, -r)
  subroutine setup_coefficients()
    integer :: i
    cp(1) = -r / (1.0d0 + 2.0d0 * r)
    do i = 2, n
      cp(i) = -r / (1.0d0 + 2.0d0 * r + r * cp(i - 1))
    end do
    nlines = 0
    lhash = 0
  end subroutine setup_coefficients

  ! forward elimination of right-hand side xl(1:n) (boundary values in
  ! xl(0), xl(n+1)) into dp
  subroutine forward()
    integer :: i
    dp(1) = (xl(1) + r * xl(0)) / (1.0d0 + 2.0d0 * r)
    do i = 2, n - 1
      dp(i) = (xl(i) + r * dp(i - 1)) / (1.0d0 + 2.0d0 * r + r * cp(i - 1))
    end do
    dp(n) = (xl(n) + r * xl(n + 1) + r * dp(n - 1)) / (1.0d0 + 2.0d0 * r + r * cp(n - 1))
  end subroutine forward

  subroutine backward()
    integer :: i
    xl(n) = dp(n)
    do i = n - 1, 1, -1
      xl(i) = dp(i) - cp(i) * xl(i + 1)
    end do
    nlines = nlines + 1
    do i = 1, n
      lhash = lhash + iand(int(xl(i) * 16777216.0d0, 8), 65535_8)
    end do
    lhash = mod(lhash, hmod)
  end subroutine backward

  subroutine x_sweep()
    integer :: i, j
    !$omp do schedule(static)
    do j = 1, n
      xl(0) = u(0, j)
      xl(n + 1) = u(n + 1, j)
      do i = 1, n
        xl(i) = u(i, j) + dt * src(i, j)
      end do
      call forward()
      if (mod(j, 4) == 0) call dao_potential_checkpoint()
      call backward()
      u(1:n, j) = xl(1:n)
    end do
    !$omp end do
  end subroutine x_sweep

  subroutine y_sweep()
    integer :: i
    !$omp do schedule(static)
    do i = 1, n
      xl(0:n+1) = u(i, 0:n+1)
      call forward()
      call backward()
      u(i, 1:n) = xl(1:n)
    end do
    !$omp end do
    call dao_potential_checkpoint()
  end subroutine y_sweep

  real(8) function checksum()
    integer :: i, j
    checksum = 0.0d0
    do j = 1, n
      do i = 1, n
        checksum = checksum + u(i, j) * dble(1 + mod(3 * i + j, 4))
      end do
    end do
  end function checksum
end module adi_data

program tp_module_scratch
  use dao
  use adi_data
  implicit none
  integer :: i, j, step, steps
  integer(8) :: lines, hash
  real(8) :: cs
  character(len=32) :: arg

  steps = 6000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  do j = 0, n + 1
    do i = 0, n + 1
      u(i, j) = dble(mod(i * 13 + j * 7, 31)) / 31.0d0
    end do
  end do
  u(0, :) = 1.0d0
  u(:, 0) = 0.5d0
  do j = 1, n
    do i = 1, n
      src(i, j) = dble(mod(i * j, 11) - 5) * 0.1d0
    end do
  end do

  !$omp parallel default(shared)
  call setup_coefficients()
  !$omp end parallel

  call dao_potential_checkpoint()

  !$omp parallel default(shared) private(step, cs)
  do step = 1, steps
    call x_sweep()
    call y_sweep()
    !$omp barrier
    !$omp single
    if (mod(step, 500) == 0 .or. step == 1) then
      cs = checksum()
      write(*, '(A,I0,A,Z16.16,A,Z16.16)') 'step ', step, ' sum=', transfer(cs, 0_8), &
          ' u=', transfer(u(n / 2, n / 3), 0_8)
    end if
    !$omp end single
    call dao_potential_checkpoint()
  end do
  !$omp end parallel

  lines = 0
  hash = 0
  !$omp parallel default(shared)
  !$omp atomic
  lines = lines + nlines
  !$omp atomic
  hash = hash + lhash
  !$omp end parallel
  write(*, '(A,I0,A,I0,A,I0,A,ES25.17)') 'tp_module_scratch: steps=', steps, ' lines=', lines, &
      ' hash=', mod(hash, hmod), ' sum=', checksum()
end program tp_module_scratch
