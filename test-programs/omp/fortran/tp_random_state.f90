! tp_random_state.f90 -- threadprivate random-number state (NPB randlc-like) across regions.
!
! Exercises: a linear congruential generator x <- 5**13 * x mod 2**46 in
! exact integer(8) arithmetic (23-bit halves) whose state lives in a
! threadprivate common block /rngst/ (state, multiplier, a move counter) and
! is advanced inside the parallel regions by every thread; every walker
! (particle) has its own stream, whose state is kept between steps by the
! thread that owns the walker in the threadprivate common array /pstate/
! (static schedule, same team size: a thread owns the same walkers in every
! region). The master sets /rngst/ and /gstream/, and the FIRST region only
! copies them into the team (`copyin` of the blocks' members) and seeds
! /pstate/ through an orphaned `!$omp do`; every later region uses what that
! region left in each thread. Per step: the module
! variable `span` (threadprivate, `copyin` every step), an `!$omp single`
! drawing the step's drift from /gstream/ and broadcasting it with
! `copyprivate(/gstream/)` (every thread holds the same /gstream/, so which
! thread runs the single does not matter), a `!$omp do schedule(static)`
! calling move_walker, which loads the walker's stream into /rngst/, draws
! nsub steps and stores it back; a per-thread histogram `seen` (threadprivate
! module array) and move counter, combined with atomics at the end.
! Markers: at the top of the serial step loop (between regions); in
! move_walker halfway through the draws (every 64th walker: the generator
! state is live in /rngst/); after the walker loop's implicit barrier.
!
! Invariant: every thread's threadprivate copies are restored byte for byte,
! so the walker positions (integers, each a function of its own stream only)
! and the combined histogram and counters after a restart equal those of the
! uninterrupted run, for any thread count.
! Argument: number of steps (default 1500; 150 gives ~0.1 s).
module walk_params
  implicit none
  integer, parameter :: np = 4096, nbins = 64, nsub = 24
  integer(8), parameter :: mask23 = 8388607_8, mask46 = 70368744177663_8
  integer(8) :: span = 1
  integer(8) :: seen(0:nbins-1) = 0
  !$omp threadprivate(span, seen)
contains
  ! s * m mod 2**46, exact: the high halves' product is a multiple of 2**46
  pure integer(8) function lcg_mul(s, m)
    integer(8), intent(in) :: s, m
    integer(8) :: cross
    cross = iand(ishft(s, -23) * iand(m, mask23) + iand(s, mask23) * ishft(m, -23), mask23)
    lcg_mul = iand(ishft(cross, 23) + iand(s, mask23) * iand(m, mask23), mask46)
  end function lcg_mul

  ! m**k mod 2**46 (the multiplier that jumps a stream k draws ahead)
  pure integer(8) function lcg_pow(m, k)
    integer(8), intent(in) :: m, k
    integer(8) :: b, e
    lcg_pow = 1
    b = m
    e = k
    do while (e > 0)
      if (iand(e, 1_8) == 1) lcg_pow = lcg_mul(lcg_pow, b)
      b = lcg_mul(b, b)
      e = ishft(e, -1)
    end do
  end function lcg_pow
end module walk_params

program tp_random_state
  use dao
  use walk_params
  implicit none
  integer(8) :: pos(np)
  common /walkers/ pos
  integer(8) :: rseed, rmult, tmoves
  common /rngst/ rseed, rmult, tmoves
  !$omp threadprivate(/rngst/)
  integer(8) :: gseed, drift
  common /gstream/ gseed, drift
  !$omp threadprivate(/gstream/)
  integer(8) :: hist(0:nbins-1), moves, c
  integer :: i, b, s, steps
  character(len=32) :: arg

  steps = 1500
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  pos = 0
  ! the master's copies, copied into the team by the first region only
  rmult = 1220703125_8
  rseed = 314159265_8
  tmoves = 0
  gseed = lcg_mul(271828183_8, rmult)
  drift = 0

  ! (members named: flang 19's copyin(/rngst/) copies only the members the
  ! region's own body names, and none of the items after a /block/; the
  ! workers' copies of /gstream/ start at zero and must equal the master's
  ! before the first single)
  !$omp parallel default(shared) copyin(rseed, rmult, tmoves, gseed, drift)
  call seed_walkers()
  !$omp end parallel

  do s = 1, steps
    call dao_potential_checkpoint()
    span = 1 + mod(s, 3)
    !$omp parallel default(shared) private(i) copyin(span)
    !$omp single
    gseed = lcg_mul(gseed, rmult)
    drift = mod(ishft(gseed, -40), 3_8) - 1
    !$omp end single copyprivate(/gstream/)
    !$omp do schedule(static)
    do i = 1, np
      call move_walker(i)
    end do
    !$omp end do
    call dao_potential_checkpoint()
    !$omp end parallel
    if (mod(s, 250) == 0 .or. s == 1 .or. s == steps) then
      c = 0
      do i = 1, np
        c = c + pos(i) * i
      end do
      write(*, '(A,I0,A,I0,A,I0,A,I0)') 'step ', s, ' check=', c, ' pos1=', pos(1), ' posn=', pos(np)
    end if
  end do

  hist = 0
  moves = 0
  !$omp parallel default(shared) private(b)
  !$omp atomic
  moves = moves + tmoves
  do b = 0, nbins - 1
    !$omp atomic
    hist(b) = hist(b) + seen(b)
  end do
  !$omp end parallel
  write(*, '(A,16(1X,I0))') 'hist:', hist(0:15)
  write(*, '(A,16(1X,I0))') '     ', hist(16:31)
  write(*, '(A,16(1X,I0))') '     ', hist(32:47)
  write(*, '(A,16(1X,I0))') '     ', hist(48:63)
  write(*, '(A,I0,A,I0,A,I0)') 'tp_random_state: steps=', steps, ' moves=', moves, ' gseed=', gseed
end program tp_random_state

! First region only: each thread seeds the streams of the walkers the static
! schedule gives it (walker i starts i * 1000003 draws into the sequence
! that continues the master's /rngst/ state) and clears its histogram.
subroutine seed_walkers()
  use walk_params
  implicit none
  integer(8) :: rseed, rmult, tmoves
  common /rngst/ rseed, rmult, tmoves
  !$omp threadprivate(/rngst/)
  integer(8) :: pseed(np)
  common /pstate/ pseed
  !$omp threadprivate(/pstate/)
  integer :: i
  seen = 0
  !$omp do schedule(static)
  do i = 1, np
    pseed(i) = lcg_mul(rseed, lcg_pow(rmult, int(i, 8) * 1000003_8))
  end do
  !$omp end do
end subroutine seed_walkers

! nsub random steps of walker i, drawn from its own stream through /rngst/.
subroutine move_walker(i)
  use dao
  use walk_params
  implicit none
  integer, intent(in) :: i
  integer(8) :: pos(np)
  common /walkers/ pos
  integer(8) :: rseed, rmult, tmoves
  common /rngst/ rseed, rmult, tmoves
  !$omp threadprivate(/rngst/)
  integer(8) :: pseed(np)
  common /pstate/ pseed
  !$omp threadprivate(/pstate/)
  integer(8) :: gseed, drift
  common /gstream/ gseed, drift
  !$omp threadprivate(/gstream/)
  integer :: k
  rseed = pseed(i)
  do k = 1, nsub
    rseed = lcg_mul(rseed, rmult)
    pos(i) = pos(i) + mod(ishft(rseed, -30), 2 * span + 1) - span + drift
    tmoves = tmoves + 1
    if (k == nsub / 2 .and. mod(i, 64) == 1) call dao_potential_checkpoint()
  end do
  pseed(i) = rseed
  seen(modulo(pos(i), int(nbins, 8))) = seen(modulo(pos(i), int(nbins, 8))) + 1
end subroutine move_walker
