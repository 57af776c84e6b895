! sections_dead.f90 -- array-section liveness (issue #15): module work arrays
! completely overwritten by static worksharing loop nests before any read.
!
! Exercises (NPB 3.0 shape: big module arrays with `parameter` extents, the
! work of a time step split over subroutines and static worksharing loops),
! seven integer(8) arrays of nx x ny (256 KiB each):
! - `state`: carried from step to step (read, then rewritten, every step);
! - `work1`: completely overwritten each step by an
!   `!$omp parallel do collapse(2) schedule(static)` nest in the main
!   program (one loop over both indices, split again by division and
!   remainder), then read (dead at the top of the step loop);
! - `work2`: completely overwritten each step by an orphaned
!   `!$omp do schedule(static)` nest in fill_work2, three calls deep (main
!   -> phase_a, which opens the region -> phase_b -> fill_work2), then read
!   by another orphaned loop (dead at the top of the step loop);
! - `work3`: passed to fill_work3 as a dummy argument and rewritten column
!   by column there by a `parallel do`
!   whose iteration j first fills column j and then reads it back (a running
!   sum along it: reads after writes in one iteration, the shape of NPB BT's
!   compute_rhs), then read (dead at the top of the step loop);
! - `part`: only the interior (1..n-2 in both dimensions) overwritten each
!   step; the halo ring keeps its distinct starting values and is read every
!   step (into the state update and the checksum): must be saved;
! - `cond`: overwritten only on steps where mod(step, every_k) == 0 (every_k
!   from the command line), read every step: must be saved;
! - `subset`: overwritten by thread 0 only (`if (omp_get_thread_num() == 0)`
!   inside a region), read afterwards: must be saved (a write by some threads
!   of a team never makes an array dead in the first version of the
!   analysis, although here thread 0 always exists).
! Markers: at the top of the step loop in the main program (between regions:
! there work1, work2 and work3 are dead, the other four live) and in phase_b after
! fill_work2's `!$omp end do` (inside the region, after the barrier).
!
! Invariant: `state`, the halo of `part`, `cond`, `subset` and every thread's
! frames are restored byte for byte, so the per-step checksums (exact
! integer(8) arithmetic modulo a prime, per-element results, serial sums)
! after a restart equal those of the uninterrupted run, for any thread
! count. A restart that lost the halo of `part` or a `cond` written on an
! earlier step prints other checksums.
! Arguments: number of time steps (default 500; 120 gives ~0.1 s at 2
! threads -O2); optional every_k (default 3).
module sections
  use dao
  use omp_lib
  implicit none
  integer, parameter :: nx = 512, ny = 64
  integer(8), parameter :: p = 1000003_8
  integer(8) :: state(0:nx-1, 0:ny-1), work1(0:nx-1, 0:ny-1), work2(0:nx-1, 0:ny-1)
  integer(8) :: work3(0:nx-1, 0:ny-1)
  integer(8) :: part(0:nx-1, 0:ny-1), cond(0:nx-1, 0:ny-1), subset(0:nx-1, 0:ny-1)
  ! per-step column sums of work2 (written by read_work2, read by the main program)
  integer(8) :: w2rows(0:ny-1)
contains
  ! Overwrites all of work2 (orphaned loop: the team of phase_a's region).
  subroutine fill_work2(step)
    integer, intent(in) :: step
    integer :: i, j
    !$omp do schedule(static)
    do j = 0, ny - 1
      do i = 0, nx - 1
        work2(i, j) = mod(work1(mod(i + 3, nx), j) * 5 + state(i, mod(j + ny - 1, ny)) + int(step, 8), p)
      end do
    end do
    !$omp end do
  end subroutine fill_work2

  ! Reads work2 (orphaned loop).
  subroutine read_work2()
    integer :: i, j
    integer(8) :: s
    !$omp do schedule(static)
    do j = 0, ny - 1
      s = 0
      do i = 0, nx - 1
        s = s + work2(i, j) * int(1 + iand(i, 7), 8)
      end do
      w2rows(j) = mod(s, p)
    end do
    !$omp end do
  end subroutine read_work2

  subroutine phase_b(step)
    integer, intent(in) :: step
    call fill_work2(step)
    call dao_potential_checkpoint()   ! in the region, after the loop's barrier
    call read_work2()
  end subroutine phase_b

  ! Opens the region the orphaned loops bind to.
  subroutine phase_a(step)
    integer, intent(in) :: step
    !$omp parallel
    call phase_b(step)
    !$omp end parallel
  end subroutine phase_a

  ! Rewrites work3 column by column: iteration j fills column j, then reads
  ! it back.
  subroutine fill_work3(w, step)
    integer(8), intent(inout) :: w(0:nx-1, 0:ny-1)
    integer, intent(in) :: step
    integer :: i, j
    !$omp parallel do schedule(static) private(i)
    do j = 0, ny - 1
      do i = 0, nx - 1
        w(i, j) = mod(state(i, j) * 7 + int(step + i, 8), p)
      end do
      do i = 1, nx - 1
        w(i, j) = mod(w(i, j) + w(i - 1, j) * 3, p)
      end do
    end do
    !$omp end parallel do
  end subroutine fill_work3

  ! Overwrites the interior of part only; the halo ring is never written.
  subroutine update_part(step)
    integer, intent(in) :: step
    integer :: i, j
    !$omp parallel do schedule(static) private(i)
    do j = 1, ny - 2
      do i = 1, nx - 2
        part(i, j) = mod(state(i, j) * 3 + work2(i, j) + int(step, 8) * int(i + 1, 8), p)
      end do
    end do
    !$omp end parallel do
  end subroutine update_part

  ! Overwrites all of cond, called only on some steps.
  subroutine update_cond(step)
    integer, intent(in) :: step
    integer :: i, j
    !$omp parallel do schedule(static) private(i)
    do j = 0, ny - 1
      do i = 0, nx - 1
        cond(i, j) = mod(state(i, j) * 11 + work1(i, j) + int(step, 8), p)
      end do
    end do
    !$omp end parallel do
  end subroutine update_cond

  ! Thread 0 alone overwrites subset.
  subroutine update_subset(step)
    integer, intent(in) :: step
    integer :: i, j
    !$omp parallel private(i, j)
    if (omp_get_thread_num() == 0) then
      do j = 0, ny - 1
        do i = 0, nx - 1
          subset(i, j) = mod(state(mod(i + 1, nx), j) * 13 + int(step, 8) * 7 + int(j, 8), p)
        end do
      end do
    end if
    !$omp end parallel
  end subroutine update_subset
end module sections

program sections_dead
  use sections
  implicit none
  integer :: i, j, jn, in, step, steps, every_k
  integer(8) :: x, cs, halo
  character(len=32) :: arg

  steps = 500
  every_k = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read(arg, *) every_k
  end if
  if (every_k < 1) every_k = 1
  do j = 0, ny - 1
    do i = 0, nx - 1
      x = int(j, 8) * nx + i
      state(i, j) = mod(x * 7919, p)
      part(i, j) = mod(x * 104729 + 17, p)   ! distinct values, the halo kept for good
      cond(i, j) = mod(x * 31, p)
      subset(i, j) = mod(x * 61 + 5, p)
    end do
  end do
  do step = 1, steps
    call dao_potential_checkpoint()   ! top of the step loop: work1, work2 dead (and work3)
    !$omp parallel do collapse(2) schedule(static)
    do j = 0, ny - 1
      do i = 0, nx - 1
        work1(i, j) = mod(state(i, j) * 3 + state(i, mod(j + 1, ny)) + int(step, 8), p)
      end do
    end do
    !$omp end parallel do
    call phase_a(step)
    call fill_work3(work3, step)
    call update_part(step)
    if (mod(step, every_k) == 0) call update_cond(step)
    call update_subset(step)
    !$omp parallel do schedule(static) private(i, jn, in)
    do j = 0, ny - 1
      do i = 0, nx - 1
        ! part read around (i, j), clamped: the halo reaches the boundary rows/columns
        jn = min(j + 1, ny - 1)
        in = min(i + 1, nx - 1)
        state(i, j) = mod(state(i, j) + work1(i, j) + work2(i, j) * 2 + part(i, j) + part(in, jn) &
            + cond(i, j) * 5 + subset(i, j) + w2rows(j) + work3(i, j) * 4, p)
      end do
    end do
    !$omp end parallel do
    cs = 0
    do j = 0, ny - 1
      do i = 0, nx - 1
        cs = cs + state(i, j) * int(1 + mod(i + 2 * j, 7), 8)
      end do
    end do
    halo = 0
    do i = 0, nx - 1
      halo = halo + part(i, 0) + 2 * part(i, ny - 1)
    end do
    do j = 1, ny - 2
      halo = halo + 3 * part(0, j) + 5 * part(nx - 1, j)
    end do
    write(*, '(A,I0,A,I0,A,I0,A,I0,A,I0)') 'step ', step, ' state=', cs, ' halo=', halo, &
        ' cond=', cond(nx / 3, ny / 2), ' subset=', subset(nx / 2, ny / 3)
    ! the halo feeds back into the state
    state(mod(step * 37, nx), mod(step, ny)) = state(mod(step * 37, nx), mod(step, ny)) + mod(halo, p)
  end do
  cs = 0
  do j = 0, ny - 1
    do i = 0, nx - 1
      cs = cs + ieor(state(i, j), int(j * nx + i, 8))
    end do
  end do
  write(*, '(A,I0,A,I0,A,I0)') 'sections_dead: steps=', steps, ' every_k=', every_k, ' state=', cs
end program sections_dead
