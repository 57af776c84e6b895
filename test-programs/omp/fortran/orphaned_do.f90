! orphaned_do.f90 -- orphaned !$omp do in subroutines called from a region (like NPB BT).
!
! Exercises: module subroutines containing `!$omp do` loops (compute_rhs,
! add_update) called from a `!$omp parallel` region enclosing the time-step
! loop, so the worksharing binds to the enclosing team from another
! procedure's frame; the same subroutines are also called once from serial
! code (a warm-up step) where they run on a team of one; an `!$omp single`
! prints checksums computed serially.
! Markers: inside the orphaned loop body of compute_rhs (once per plane) and
! after its `!$omp end do` (after the implicit barrier), and in the step
! subroutine after add_update.
!
! Invariant: the shared module arrays and every thread's chain of frames
! (outlined region -> step -> compute_rhs) are restored byte for byte, so the
! printed values after a restart equal those of the uninterrupted run.
! Argument: number of time steps (default 600; 60 gives ~0.1 s).
module bt_like
  use dao
  implicit none
  integer, parameter :: nx = 36, ny = 36, nz = 36
  real(8) :: u(5, 0:nx-1, 0:ny-1, 0:nz-1), rhs(5, 0:nx-1, 0:ny-1, 0:nz-1), frc(5, 0:nx-1, 0:ny-1, 0:nz-1)
contains
  subroutine compute_rhs(dt)
    real(8), intent(in) :: dt
    integer :: i, j, k, m
    !$omp do schedule(static)
    do k = 1, nz - 2
      do j = 1, ny - 2
        do i = 1, nx - 2
          do m = 1, 5
            rhs(m, i, j, k) = frc(m, i, j, k) + dt * (u(m, i-1, j, k) + u(m, i+1, j, k) + u(m, i, j-1, k) &
                + u(m, i, j+1, k) + u(m, i, j, k-1) + u(m, i, j, k+1) - 6.0d0 * u(m, i, j, k)) &
                - 0.01d0 * u(m, i, j, k) * u(mod(m, 5) + 1, i, j, k)
          end do
        end do
      end do
      call dao_potential_checkpoint()
    end do
    !$omp end do
    call dao_potential_checkpoint()
  end subroutine compute_rhs

  subroutine add_update()
    integer :: i, j, k, m
    !$omp do schedule(static)
    do k = 1, nz - 2
      do j = 1, ny - 2
        do i = 1, nx - 2
          do m = 1, 5
            u(m, i, j, k) = u(m, i, j, k) + 0.1d0 * rhs(m, i, j, k)
          end do
        end do
      end do
    end do
    !$omp end do
  end subroutine add_update

  subroutine step(dt)
    real(8), intent(in) :: dt
    call compute_rhs(dt)
    call add_update()
    call dao_potential_checkpoint()
  end subroutine step

  real(8) function checksum(m)
    integer, intent(in) :: m
    integer :: i, j, k
    checksum = 0.0d0
    do k = 0, nz - 1
      do j = 0, ny - 1
        do i = 0, nx - 1
          checksum = checksum + u(m, i, j, k) * dble(1 + mod(i + 2 * j + 3 * k, 5))
        end do
      end do
    end do
  end function checksum
end module bt_like

program orphaned_do
  use bt_like
  implicit none
  integer :: i, j, k, m, it, steps
  character(len=32) :: arg

  steps = 600
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  do k = 0, nz - 1
    do j = 0, ny - 1
      do i = 0, nx - 1
        do m = 1, 5
          u(m, i, j, k) = dble(mod(i * 3 + j * 5 + k * 7 + m * 11, 23)) / 23.0d0
          frc(m, i, j, k) = dble(mod(i + j + k + m, 7)) * 1.0d-3
        end do
      end do
    end do
  end do
  rhs = 0.0d0
  call step(0.05d0)
  write(*, '(A,Z16.16,A,Z16.16)') 'warm-up: c1=', transfer(checksum(1), 0_8), ' c5=', transfer(checksum(5), 0_8)
  !$omp parallel private(it)
  do it = 1, steps
    call step(0.05d0)
    !$omp single
    if (mod(it, 100) == 0 .or. it == 1 .or. it == steps) then
      write(*, '(A,I0,A,Z16.16,A,Z16.16)') 'step ', it, ' c1=', transfer(checksum(1), 0_8), &
          ' u=', transfer(u(3, nx / 2, ny / 2, nz / 2), 0_8)
    end if
    !$omp end single
  end do
  !$omp end parallel
  write(*, '(A,I0,A,ES25.17,A,ES25.17)') 'orphaned_do: steps=', steps, ' c2=', checksum(2), ' c4=', checksum(4)
end program orphaned_do
