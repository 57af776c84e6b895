! timestep_barrier.f90 -- a region around the time-step loop with !$omp do loops and barriers.
!
! Exercises: one `!$omp parallel` region enclosing the whole time-step loop
! over 2-D allocatable arrays; per step an `!$omp do` stencil update, an
! `!$omp do` copy-back with reduction(max:) of the change into a shared
! variable, an `!$omp master` block that prints, an explicit `!$omp
! barrier` and an `!$omp single` resetting the maximum.
! Markers: once per time step, after the explicit barrier (never inside the
! master or single blocks), and in the stencil loop body every 30th column.
!
! Invariant: the shared arrays, the shared maximum and every thread's frame
! (its step counter) are restored byte for byte, so the output (per-element
! results and exact maxima) after a restart equals that of the uninterrupted
! run.
! Argument: number of time steps (default 2000; 150 gives ~0.1 s).
program timestep_barrier
  use dao
  implicit none
  integer, parameter :: nx = 200, ny = 180
  real(8), allocatable :: u(:,:), un(:,:)
  real(8) :: dmax, s
  integer :: i, j, step, steps
  character(len=32) :: arg

  steps = 2000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  allocate(u(0:nx+1, 0:ny+1), un(0:nx+1, 0:ny+1))
  do j = 0, ny + 1
    do i = 0, nx + 1
      u(i, j) = dble(mod(i * 7 + j * 3, 19)) / 19.0d0
    end do
  end do
  u(0, :) = 1.0d0
  u(nx + 1, :) = -1.0d0
  un = u
  dmax = 0.0d0
  !$omp parallel default(shared) private(i, j, step)
  do step = 1, steps
    !$omp do schedule(static)
    do j = 1, ny
      do i = 1, nx
        un(i, j) = u(i, j) + 0.2d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4.0d0 * u(i, j))
      end do
      if (mod(j, 30) == 0) call dao_potential_checkpoint()
    end do
    !$omp end do
    !$omp do schedule(static) reduction(max:dmax)
    do j = 1, ny
      do i = 1, nx
        dmax = max(dmax, abs(un(i, j) - u(i, j)))
        u(i, j) = un(i, j)
      end do
    end do
    !$omp end do
    !$omp master
    if (mod(step, 250) == 0 .or. step == 1) then
      write(*, '(A,I0,A,Z16.16,A,Z16.16)') 'step ', step, ' dmax=', transfer(dmax, 0_8), &
          ' u=', transfer(u(nx / 2, ny / 3), 0_8)
    end if
    !$omp end master
    !$omp barrier
    call dao_potential_checkpoint()
    !$omp single
    dmax = 0.0d0
    !$omp end single
  end do
  !$omp end parallel
  s = 0.0d0
  do j = 0, ny + 1
    do i = 0, nx + 1
      s = s + u(i, j) * dble(1 + mod(i + j, 3))
    end do
  end do
  write(*, '(A,I0,A,ES25.17,A,Z16.16)') 'timestep_barrier: steps=', steps, ' sum=', s, &
      ' c=', transfer(u(1, 1), 0_8)
end program timestep_barrier
