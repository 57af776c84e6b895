! tp_common_solver.f90 -- threadprivate COMMON blocks in an NPB-style solver.
!
! Exercises: flang's threadprivate common blocks (`common /name/` +
! `!$omp threadprivate(/name/)`, per-thread copies allocated by libomp
! through `__kmpc_threadprivate_cached`) declared in the main program and in
! external subroutines, F77/NPB style:
!   /tpblk/  each thread's row range jlo..jhi, set ONLY in the first parallel
!            region (from an orphaned `!$omp do schedule(static)` in
!            setup_rows) and used by every later region instead of a
!            worksharing loop;
!   /tpwrk/  a per-thread scratch grid: sweep writes the new values of the
!            thread's own rows into it, copy_back copies them to the shared
!            grid after a barrier (it is live across the marker there);
!   /tpcnt/  per-thread integer counters (cells updated, a hash of the low
!            fixed-point bits of every new value, timer ticks from
!            system_clock) that persist across all regions and are combined
!            with atomics at the end.
! Shared data live in plain common blocks (/fields/, /gstat/); a
! `!$omp parallel do ... reduction(+:gres)` reduces into the common-block
! variable gres. Each outer time step (serial loop) opens a
! `!$omp parallel default(shared) private(...)` region for ninner inner
! steps: an orphaned `!$omp do` in smooth_source (which also updates
! /tpcnt/), the own-row sweep, barriers, `!$omp master` printing between
! barriers, system_clock timing.
! Markers: in the serial outer time-step loop (between regions); inside the
! regions in the body of the orphaned `!$omp do` of smooth_source (every 8th
! row), in sweep's own-row loop (every 16th row), after the barrier that
! follows sweep (the scratch grid holds the new rows), and in the body of the
! reduction loop (every 32nd row).
!
! Invariant: the shared grids and every thread's threadprivate copies (row
! range, scratch grid, counters) are restored byte for byte, so the output
! (bit patterns of per-element results and of serial sums in a fixed order,
! thread-count independent integer totals) after a restart equals that of
! the uninterrupted run, for any thread count.
! Argument: number of outer time steps (default 1500; 500 gives ~0.1 s).
module solver_size
  implicit none
  integer, parameter :: nx = 128, ny = 128, ninner = 4
  integer(8), parameter :: hmod = 2147483647_8
end module solver_size

program tp_common_solver
  use dao
  use solver_size
  implicit none
  real(8) :: u(0:nx+1, 0:ny+1), f(nx, ny)
  common /fields/ u, f
  integer(8) :: gres
  common /gstat/ gres
  integer :: jlo, jhi
  common /tpblk/ jlo, jhi
  !$omp threadprivate(/tpblk/)
  integer(8) :: tcells, thash, tclock
  common /tpcnt/ tcells, thash, tclock
  !$omp threadprivate(/tpcnt/)
  integer(8) :: c0, c1, cells, hash
  real(8) :: cs
  integer :: i, j, it, outer, nouter, step
  character(len=32) :: arg

  nouter = 1500
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) nouter
  end if
  do j = 0, ny + 1
    do i = 0, nx + 1
      u(i, j) = dble(mod(i * 5 + j * 11, 29)) / 29.0d0
    end do
  end do
  do j = 1, ny
    do i = 1, nx
      f(i, j) = dble(mod(i * 3 + j * 7, 13)) * 1.0d-3
    end do
  end do
  gres = 0

  ! the only region that initialises /tpblk/ and /tpcnt/
  !$omp parallel default(shared)
  call setup_rows()
  !$omp end parallel

  do outer = 1, nouter
    call dao_potential_checkpoint()
    !$omp parallel default(shared) private(it, step, c0, c1, cs, i, j)
    do it = 1, ninner
      call system_clock(c0)
      step = (outer - 1) * ninner + it
      call smooth_source(step)
      call sweep()
      !$omp barrier
      call dao_potential_checkpoint()
      call copy_back()
      !$omp barrier
      !$omp master
      if (mod(step, 200) == 0 .or. step == 1) then
        cs = 0.0d0
        do j = 1, ny
          do i = 1, nx
            cs = cs + u(i, j) * dble(1 + mod(i + 2 * j, 3))
          end do
        end do
        write(*, '(A,I0,A,Z16.16,A,Z16.16)') 'step ', step, ' sum=', transfer(cs, 0_8), &
            ' u=', transfer(u(nx / 3, ny / 2), 0_8)
      end if
      !$omp end master
      !$omp barrier
      call system_clock(c1)
      tclock = tclock + (c1 - c0)
    end do
    !$omp end parallel

    !$omp parallel do default(shared) private(i, j) reduction(+:gres) schedule(static)
    do j = 1, ny
      do i = 1, nx
        gres = gres + iand(int(u(i, j) * 16777216.0d0, 8), 65535_8)
      end do
      if (mod(j, 32) == 0) call dao_potential_checkpoint()
    end do
    !$omp end parallel do
    if (mod(outer, 100) == 0 .or. outer == nouter) then
      write(*, '(A,I0,A,I0)') 'outer ', outer, ' gres=', gres
    end if
  end do

  cells = 0
  hash = 0
  !$omp parallel default(shared)
  !$omp atomic
  cells = cells + tcells
  !$omp atomic
  hash = hash + thash
  !$omp end parallel
  hash = mod(hash, hmod)
  cs = 0.0d0
  do j = 0, ny + 1
    do i = 0, nx + 1
      cs = cs + u(i, j)
    end do
  end do
  write(*, '(A,I0,A,I0,A,I0,A,ES25.17)') 'tp_common_solver: steps=', nouter * ninner, ' cells=', cells, &
      ' hash=', hash, ' sum=', cs
end program tp_common_solver

! Called once, in the first region: the thread's rows are those the static
! schedule gives it (the later regions use the same team size, hence the
! same partition); the counters start at zero.
subroutine setup_rows()
  use solver_size
  implicit none
  integer :: jlo, jhi
  common /tpblk/ jlo, jhi
  !$omp threadprivate(/tpblk/)
  integer(8) :: tcells, thash, tclock
  common /tpcnt/ tcells, thash, tclock
  !$omp threadprivate(/tpcnt/)
  integer :: j
  jlo = ny + 1
  jhi = 0
  !$omp do schedule(static)
  do j = 1, ny
    jlo = min(jlo, j)
    jhi = max(jhi, j)
  end do
  !$omp end do
  tcells = 0
  thash = 0
  tclock = 0
end subroutine setup_rows

! Orphaned worksharing loop: the source term decays and is refreshed; its
! new values go into the thread's hash.
subroutine smooth_source(step)
  use dao
  use solver_size
  implicit none
  integer, intent(in) :: step
  real(8) :: u(0:nx+1, 0:ny+1), f(nx, ny)
  common /fields/ u, f
  integer(8) :: tcells, thash, tclock
  common /tpcnt/ tcells, thash, tclock
  !$omp threadprivate(/tpcnt/)
  integer :: i, j
  !$omp do schedule(static)
  do j = 1, ny
    do i = 1, nx
      f(i, j) = 0.995d0 * f(i, j) + 1.0d-4 * dble(mod(i * 7 + j * 13 + step, 17))
      thash = thash + iand(int(f(i, j) * 1073741824.0d0, 8), 1023_8)
    end do
    thash = mod(thash, hmod)
    if (mod(j, 8) == 0) call dao_potential_checkpoint()
  end do
  !$omp end do
end subroutine smooth_source

! New values of the thread's own rows (from /tpblk/) into its scratch grid.
subroutine sweep()
  use dao
  use solver_size
  implicit none
  real(8) :: u(0:nx+1, 0:ny+1), f(nx, ny)
  common /fields/ u, f
  integer :: jlo, jhi
  common /tpblk/ jlo, jhi
  !$omp threadprivate(/tpblk/)
  real(8) :: wrk(nx, ny)
  common /tpwrk/ wrk
  !$omp threadprivate(/tpwrk/)
  integer(8) :: tcells, thash, tclock
  common /tpcnt/ tcells, thash, tclock
  !$omp threadprivate(/tpcnt/)
  integer :: i, j
  do j = jlo, jhi
    do i = 1, nx
      wrk(i, j) = u(i, j) + 0.2d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4.0d0 * u(i, j)) &
          + 0.05d0 * f(i, j) - 0.01d0 * u(i, j)
    end do
    tcells = tcells + nx
    if (mod(j, 16) == 0) call dao_potential_checkpoint()
  end do
end subroutine sweep

! The thread's own rows back from its scratch grid, hashing the new values.
subroutine copy_back()
  use solver_size
  implicit none
  real(8) :: u(0:nx+1, 0:ny+1), f(nx, ny)
  common /fields/ u, f
  integer :: jlo, jhi
  common /tpblk/ jlo, jhi
  !$omp threadprivate(/tpblk/)
  real(8) :: wrk(nx, ny)
  common /tpwrk/ wrk
  !$omp threadprivate(/tpwrk/)
  integer(8) :: tcells, thash, tclock
  common /tpcnt/ tcells, thash, tclock
  !$omp threadprivate(/tpcnt/)
  integer :: i, j
  do j = jlo, jhi
    do i = 1, nx
      u(i, j) = wrk(i, j)
      thash = thash + iand(int(wrk(i, j) * 16777216.0d0, 8), 1048575_8)
    end do
    thash = mod(thash, hmod)
  end do
end subroutine copy_back
