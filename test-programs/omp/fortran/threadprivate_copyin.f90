! threadprivate_copyin.f90 -- threadprivate module variables and common block, copyin.
!
! Exercises: threadprivate module variables (scalars and an array) and a
! threadprivate common block, whose values differ per thread and persist
! from one parallel region to the next; `copyin` broadcasts the master's
! multiplier (module variable) and the common block into every thread at the
! start of each step's region; each thread accumulates its own partial sums
! and histogram across regions; a final region combines them with atomics.
! Markers: inside each step's region (in the `!$omp do` body every 2048th
! iteration, and after the loop), and at the top of each step, between
! regions: there the workers' copies of tp_mult are dead (every region that
! uses it copies it in first: the pass does not flag it DAO_TP_IN_REGION, so
! they are not saved), while their tp_sum/tp_count/tp_hist carry over and
! must be saved.
!
! Invariant: every thread's threadprivate values are restored byte for byte,
! so the combined totals (sums over threads of per-thread integer partials,
! independent of the thread count) after a restart equal those of the
! uninterrupted run.
! Argument: number of steps (default 800; 200 gives ~0.1 s).
module tpstate
  implicit none
  integer, parameter :: nb = 16
  integer(8) :: tp_sum = 0, tp_count = 0, tp_mult = 1
  integer(8) :: tp_hist(0:nb-1) = 0
  !$omp threadprivate(tp_sum, tp_count, tp_mult, tp_hist)
end module tpstate

program threadprivate_copyin
  use dao
  use tpstate
  implicit none
  integer, parameter :: n = 100000
  integer(8) :: a(n), x, total, count, hist(0:nb-1), c
  integer(8) :: cb_off, cb_scale
  common /cbtp/ cb_off, cb_scale
  !$omp threadprivate(/cbtp/)
  integer :: i, s, steps, b
  character(len=32) :: arg

  steps = 800
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  do i = 1, n
    a(i) = mod(i, 1013)
  end do
  !$omp parallel
  tp_sum = 0
  tp_count = 0
  tp_hist = 0
  !$omp end parallel
  do s = 1, steps
    call dao_potential_checkpoint()
    tp_mult = 3 + mod(s, 5)
    cb_off = s
    cb_scale = 1 + mod(s, 3)
    !$omp parallel private(x) copyin(tp_mult, /cbtp/)
    !$omp do schedule(static)
    do i = 1, n
      x = mod(a(i) * tp_mult * cb_scale + cb_off, 65521_8)
      a(i) = x
      tp_sum = tp_sum + x
      tp_count = tp_count + 1
      tp_hist(mod(x, int(nb, 8))) = tp_hist(mod(x, int(nb, 8))) + 1
      if (iand(i, 2047) == 1) call dao_potential_checkpoint()
    end do
    !$omp end do
    call dao_potential_checkpoint()
    !$omp end parallel
    if (mod(s, 100) == 0 .or. s == steps) then
      c = 0
      do i = 1, n
        c = ieor(ieor(ishft(c, 3), a(i)), ishft(c, -61))
      end do
      write(*, '(A,I0,A,I0)') 'step ', s, ' check=', c
    end if
  end do
  total = 0
  count = 0
  hist = 0
  !$omp parallel private(b)
  !$omp atomic
  total = total + tp_sum
  !$omp atomic
  count = count + tp_count
  do b = 0, nb - 1
    !$omp atomic
    hist(b) = hist(b) + tp_hist(b)
  end do
  !$omp end parallel
  write(*, '(A,16(1X,I0))') 'hist:', hist
  write(*, '(A,I0,A,I0,A,I0)') 'threadprivate_copyin: steps=', steps, ' total=', total, ' count=', count
end program threadprivate_copyin
