! nb_figure8.f90 -- every marker immediately followed by writes of shared data.
!
! Exercises: the scenario of the paper's non-blocking protocol (its figure
! 8), as test-programs/omp/c/nb_figure8.c: threads reach a candidate at
! different times and right after it each one updates shared data. Inside
! an `!$omp parallel` region enclosing the step loop, every thread per step:
! reaches a marker and at once increments a shared arrival counter
! (`!$omp atomic`); then, in a static `!$omp do` over nk items, computes a
! private value, reaches a marker and at once does read-modify-writes of
! its items' shared elements (own_val(k), own_cnt(k)), an `!$omp atomic` add
! into a shared counter and an update of a shared histogram in an
! `!$omp critical` section (a lock acquisition right after the marker);
! after the loop's barrier a second static `!$omp do` reaches a marker and
! at once updates nb(k) from the neighbours own_val(k-1), own_val(k+1)
! (written by other threads before the barrier) and increments a second
! atomic counter. An `!$omp single` folds a digest and prints every 16 steps.
! Markers: at the top of each step (outside worksharing), in both loop
! bodies right before the shared writes.
!
! Invariant: a checkpoint is never torn: the shared state it holds includes
! exactly the shared writes each thread made before its saved position (had
! the shared state been saved after a thread's write but the thread's
! private state before it, a restart would redo the write). Every shared
! write is a read-modify-write, so a write done twice or lost shows: after
! the first loop's barrier every thread checks, from its private step
! index, counter == step * wsum, arrivals == threads * step and
! own_cnt(k) == step for every k; the single checks counter2 == step * nk
! after the second loop; at the end the sum of the threads' private tallies
! of their counter adds must equal counter. Failed checks are counted in
! `bad` (printed); the digest and the histogram are printed.
! Argument: number of steps (default 2000; 150 gives ~0.1 s).
program nb_figure8
  use dao
  use omp_lib
  implicit none
  integer, parameter :: nk = 96, work = 6000, nh = 16
  integer(8), parameter :: p = 1000000007_8
  integer(8) :: own_val(0:nk-1), own_cnt(0:nk-1), nb(0:nk-1), hist(0:nh-1)
  integer(8) :: counter, counter2, arrivals, tally, bad, wsum, digest, h, hh
  integer(8) :: x, v, err, mine
  integer :: k, j, step, steps, nth
  character(len=32) :: arg

  steps = 2000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  wsum = 0
  do k = 0, nk - 1
    wsum = wsum + 1 + mod(k, 5)
    own_val(k) = mod(int(k, 8) * 7919_8, 1009_8)
    own_cnt(k) = 0
    nb(k) = k
  end do
  hist = 0
  counter = 0
  counter2 = 0
  arrivals = 0
  tally = 0
  bad = 0
  digest = 0

  !$omp parallel default(shared) private(k, j, step, x, v, err, mine, nth)
  mine = 0
  nth = omp_get_num_threads()
  do step = 1, steps
    call dao_potential_checkpoint()
    !$omp atomic
    arrivals = arrivals + 1
    !$omp do schedule(static)
    do k = 0, nk - 1
      ! private computation from shared data written last step
      x = own_val(k) * 2654435761_8 + int(step, 8) * 40503_8 + int(k, 8) + 1
      do j = 1, work
        x = ieor(x, ishft(x, 13))
        x = ieor(x, ishft(x, -7))
        x = ieor(x, ishft(x, 17))
      end do
      v = ishft(x, -34)
      call dao_potential_checkpoint()
      ! shared writes right after the candidate
      own_val(k) = mod(own_val(k) * 31 + v, p)
      own_cnt(k) = own_cnt(k) + 1
      !$omp atomic
      counter = counter + (1 + mod(k, 5))
      mine = mine + (1 + mod(k, 5))
      !$omp critical (nb_figure8_hist)
      hist(mod(v, int(nh, 8))) = hist(mod(v, int(nh, 8))) + 1 + iand(k, 1)
      !$omp end critical (nb_figure8_hist)
    end do
    !$omp end do
    ! after the barrier: what every thread wrote this step is there exactly once
    err = 0
    if (counter /= int(step, 8) * wsum) err = err + 1
    if (arrivals /= int(nth, 8) * int(step, 8)) err = err + 1
    do k = 0, nk - 1
      if (own_cnt(k) /= step) err = err + 1
    end do
    if (err /= 0) then
      !$omp atomic
      bad = bad + err
    end if
    !$omp do schedule(static)
    do k = 0, nk - 1
      call dao_potential_checkpoint()
      nb(k) = mod(nb(k) * 3 + own_val(mod(k + nk - 1, nk)) - own_val(mod(k + 1, nk)) + p, p)
      !$omp atomic
      counter2 = counter2 + 1
    end do
    !$omp end do
    !$omp single
    h = 0
    do k = 0, nk - 1
      h = mod(h * 31 + nb(k), p)
    end do
    digest = mod(digest * 1000003_8 + h, p)
    if (counter2 /= int(step, 8) * nk) bad = bad + 1
    if (mod(step, 16) == 0 .or. step == steps) then
      write(*, '(A,I0,A,I0,A,I0,A,I0)') 'step ', step, ' counter=', counter, ' nb=', h, ' own=', own_val(nk / 3)
    end if
    !$omp end single
  end do
  !$omp atomic
  tally = tally + mine
  !$omp end parallel

  hh = 0
  do k = 0, nh - 1
    hh = mod(hh * 31 + hist(k), p)
  end do
  write(*, '(A,I0,A,I0,A,I0,A,L1,A,I0)') 'nb_figure8: steps=', steps, ' digest=', digest, ' hist=', hh, &
      ' tally_ok=', tally == counter, ' bad=', bad
end program nb_figure8
