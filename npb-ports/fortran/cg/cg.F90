! cg.F90 -- NAS Parallel Benchmark CG (conjugate gradient), OpenMP Fortran
! port for the dao checkpoint/restart test suite (NPB 3.x semantics).
!
! Class fixed at compile time: -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or
! -DCLASS_C.  -DDAO_DISABLE compiles every checkpoint marker out.
!
! Shared modules (dao_markers, npb_random) are in ../../common/*.F90, the
! per-thread helpers (module cg_work) in cg_work.F90; all are compiled
! before this file.
!
! Reductions are per-thread partial sums (static schedule) added in thread
! order, so printed results are bitwise reproducible for a fixed thread count.
!
! Per-thread data in threadprivate common blocks, as in the NPB 3.3 OpenMP
! codes (each procedure declares the blocks it uses; flang allocates the
! workers' copies in libomp, __kmpc_threadprivate_cached):
!   /cg_rng/   tran, amult: the random-number generator state. The master
!              seeds it; the generation region copies it into the team and
!              every thread draws the whole sequence, keeping the rows it
!              owns.
!   /cg_rows/  row_first, row_last: the thread's rows (cg_work.F90), set in
!              that first region and used by every matvec of conj_grad.
!   /cg_acc/   tacc(8): the thread's partial dot products (cg_work.F90);
!              the p.q partial of a CG step is held there across marker 6.

#if defined(CLASS_S)
#define P_CLASS 'S'
#define P_NA 1400
#define P_NONZER 7
#define P_NITER 15
#define P_SHIFT 10.0d0
#define P_ZETA 8.5971775078648d0
#elif defined(CLASS_W)
#define P_CLASS 'W'
#define P_NA 7000
#define P_NONZER 8
#define P_NITER 15
#define P_SHIFT 12.0d0
#define P_ZETA 10.362595087124d0
#elif defined(CLASS_A)
#define P_CLASS 'A'
#define P_NA 14000
#define P_NONZER 11
#define P_NITER 15
#define P_SHIFT 20.0d0
#define P_ZETA 17.130235054029d0
#elif defined(CLASS_B)
#define P_CLASS 'B'
#define P_NA 75000
#define P_NONZER 13
#define P_NITER 75
#define P_SHIFT 60.0d0
#define P_ZETA 22.712745482631d0
#elif defined(CLASS_C)
#define P_CLASS 'C'
#define P_NA 150000
#define P_NONZER 15
#define P_NITER 75
#define P_SHIFT 110.0d0
#define P_ZETA 28.973605592845d0
#else
#error "define one of CLASS_S, CLASS_W, CLASS_A, CLASS_B, CLASS_C"
#endif

!-----------------------------------------------------------------------
module cg_data
  implicit none
  character, parameter :: cls = P_CLASS
  integer, parameter :: na = P_NA, nonzer = P_NONZER, niter = P_NITER
  real(8), parameter :: shift = P_SHIFT, zeta_verify = P_ZETA
  real(8), parameter :: rcond = 0.1d0, epsilon = 1.0d-10
  integer, parameter :: cgitmax = 25
  integer, parameter :: nzmax = na * (nonzer + 1) * (nonzer + 1)
  integer, parameter :: maxthreads = 256

  integer :: rowstr(na + 1), colidx(nzmax)
  real(8) :: a(nzmax)
  integer :: nzloc(na), arow(na), acol(nonzer + 1, na)
  real(8) :: aelt(nonzer + 1, na)
  real(8) :: x(na + 2), z(na + 2), p(na + 2), q(na + 2), r(na + 2)
  real(8) :: partial(8, 0:maxthreads - 1)
  integer :: team_size = 1
end module cg_data

!-----------------------------------------------------------------------
module cg_kernels
  use cg_data
  use cg_work
  use npb_random
  use dao_markers
  use omp_lib
  implicit none
contains

  ! n-vector with nz distinct random nonzero positions (1..n), drawn from
  ! the calling thread's generator
  subroutine random_sparse_vector(n, nz, pow2, val, pos)
    integer, intent(in) :: n, nz, pow2
    real(8), intent(out) :: val(*)
    integer, intent(out) :: pos(*)
    real(8) :: tran, amult
    common /cg_rng/ tran, amult
    !$omp threadprivate(/cg_rng/)
    integer :: cnt, idx, t
    real(8) :: vv, loc
    logical :: seen
    cnt = 0
    do while (cnt < nz)
      vv = randlc(tran, amult)
      loc = randlc(tran, amult)
      idx = int(pow2 * loc) + 1
      if (idx > n) cycle
      seen = .false.
      do t = 1, cnt
        if (pos(t) == idx) then
          seen = .true.
          exit
        end if
      end do
      if (seen) cycle
      cnt = cnt + 1
      val(cnt) = vv
      pos(cnt) = idx
    end do
  end subroutine random_sparse_vector

  subroutine set_sparse_element(val, pos, cnt, which, value)
    real(8), intent(inout) :: val(*)
    integer, intent(inout) :: pos(*), cnt
    integer, intent(in) :: which
    real(8), intent(in) :: value
    integer :: t
    logical :: found
    found = .false.
    do t = 1, cnt
      if (pos(t) == which) then
        val(t) = value
        found = .true.
      end if
    end do
    if (.not. found) then
      cnt = cnt + 1
      val(cnt) = value
      pos(cnt) = which
    end if
  end subroutine set_sparse_element

  ! A = sum_i ratio^(i-1) v_i v_i^T + (rcond - shift) I, duplicates summed,
  ! stored row-wise with sorted column indices.
  subroutine assemble_csr(n)
    integer, intent(in) :: n
    integer :: i, j, e, f, k, kk, row, col, dst, last, src
    real(8) :: size, ratio, scale, va
    logical :: placed

    rowstr(1:n + 1) = 0
    do i = 1, n
      do e = 1, arow(i)
        j = acol(e, i) + 1
        rowstr(j) = rowstr(j) + arow(i)
      end do
    end do
    rowstr(1) = 1
    do j = 2, n + 1
      rowstr(j) = rowstr(j) + rowstr(j - 1)
    end do
    if (rowstr(n + 1) - 1 > nzmax) then
      print *, 'cg: matrix does not fit, entries =', rowstr(n + 1) - 1
      stop 1
    end if

    do j = 1, n
      do k = rowstr(j), rowstr(j + 1) - 1
        a(k) = 0.0d0
        colidx(k) = 0            ! empty slot
      end do
      nzloc(j) = 0
    end do

    size = 1.0d0
    ratio = rcond ** (1.0d0 / dble(n))
    do i = 1, n
      do e = 1, arow(i)
        row = acol(e, i)
        scale = size * aelt(e, i)
        do f = 1, arow(i)
          col = acol(f, i)
          va = aelt(f, i) * scale
          if (col == row .and. row == i) va = va + rcond - shift
          placed = .false.
          do k = rowstr(row), rowstr(row + 1) - 1
            if (colidx(k) > col) then
              do kk = rowstr(row + 1) - 2, k, -1
                if (colidx(kk) > 0) then
                  a(kk + 1) = a(kk)
                  colidx(kk + 1) = colidx(kk)
                end if
              end do
              colidx(k) = col
              a(k) = 0.0d0
              placed = .true.
            else if (colidx(k) == 0) then
              colidx(k) = col
              placed = .true.
            else if (colidx(k) == col) then
              nzloc(row) = nzloc(row) + 1
              placed = .true.
            end if
            if (placed) exit
          end do
          if (.not. placed) then
            print *, 'cg: internal error in assembly, i =', i
            stop 1
          end if
          a(k) = a(k) + va
        end do
      end do
      size = size * ratio
    end do

    do j = 2, n
      nzloc(j) = nzloc(j) + nzloc(j - 1)
    end do
    do j = 1, n
      if (j > 1) then
        dst = rowstr(j) - nzloc(j - 1)
      else
        dst = 1
      end if
      last = rowstr(j + 1) - nzloc(j) - 1
      src = rowstr(j)
      do k = dst, last
        a(k) = a(src)
        colidx(k) = colidx(src)
        src = src + 1
      end do
    end do
    do j = 2, n + 1
      rowstr(j) = rowstr(j) - nzloc(j - 1)
    end do
  end subroutine assemble_csr

  ! The first parallel region: every thread starts from the master's
  ! generator state (copyin), draws the n vectors of the whole sequence and
  ! keeps those of its own rows, which cgw_rows_setup records in /cg_rows/
  ! for the later regions.
  subroutine generate_matrix(n)
    integer, intent(in) :: n
    real(8) :: tran, amult
    common /cg_rng/ tran, amult
    !$omp threadprivate(/cg_rng/)
    integer :: row_first, row_last
    common /cg_rows/ row_first, row_last
    !$omp threadprivate(/cg_rows/)
    integer :: pow2, i, cnt
    real(8) :: vals(nonzer + 1)
    integer :: poss(nonzer + 1)

    pow2 = 1
    do
      pow2 = 2 * pow2
      if (pow2 >= n) exit
    end do
    ! (copyin names the members: flang 19 copies only those members of a
    ! copyin'ed /block/ that the region's own body names)
    !$omp parallel default(shared) private(i, cnt, vals, poss) copyin(tran, amult)
    call cgw_rows_setup(n)
    do i = 1, n
      cnt = nonzer
      call random_sparse_vector(n, nonzer, pow2, vals, poss)
      if (i >= row_first .and. i <= row_last) then
        call set_sparse_element(vals, poss, cnt, i, 0.5d0)
        arow(i) = cnt
        acol(1:cnt, i) = poss(1:cnt)
        aelt(1:cnt, i) = vals(1:cnt)
      end if
    end do
    !$omp end parallel

    ! marker 2: generating vectors done, assembly not started
#ifndef DAO_DISABLE
    call dao_potential_checkpoint()
#endif

    call assemble_csr(n)
  end subroutine generate_matrix

  real(8) function sum_partials(slot)
    integer, intent(in) :: slot
    integer :: t
    sum_partials = 0.0d0
    do t = 0, team_size - 1
      sum_partials = sum_partials + partial(slot, t)
    end do
  end function sum_partials

  subroutine conj_grad(rnorm)
    real(8), intent(out) :: rnorm
    real(8) :: tacc(8)
    common /cg_acc/ tacc
    !$omp threadprivate(/cg_acc/)
    integer :: j, k, cgit, tid
    real(8) :: rho, rho0, alpha, beta, d, s, acc, dlt

    !$omp parallel private(tid, s, j)
    tid = omp_get_thread_num()
    if (tid == 0) team_size = omp_get_num_threads()
    s = 0.0d0
    !$omp do schedule(static)
    do j = 1, na + 1
      q(j) = 0.0d0
      z(j) = 0.0d0
      r(j) = x(j)
      p(j) = x(j)
    end do
    !$omp end do
    !$omp do schedule(static)
    do j = 1, na
      s = s + r(j) * r(j)
    end do
    !$omp end do nowait
    partial(1, tid) = s
    !$omp end parallel
    rho = sum_partials(1)
    beta = 0.0d0

    do cgit = 1, cgitmax
      !$omp parallel private(j)
      if (cgit > 1) then
        !$omp do schedule(static)
        do j = 1, na
          p(j) = r(j) + beta * p(j)
        end do
        !$omp end do
      end if
      ! q = A p on the thread's rows, p.q partial into tacc(1)
      call cgw_matvec(na, rowstr, colidx, a, p, q, 1)
      !$omp end parallel

      ! marker 6: inside the CG iteration, between parallel regions (every
      ! thread's p.q partial is still in its tacc(1))
#ifndef DAO_DISABLE
      call dao_potential_checkpoint()
#endif

      !$omp parallel private(tid, s, j)
      tid = omp_get_thread_num()
      partial(1, tid) = tacc(1)
      !$omp barrier
      !$omp single
      d = sum_partials(1)
      alpha = rho / d
      rho0 = rho
      !$omp end single
      s = 0.0d0
      !$omp do schedule(static)
      do j = 1, na
        z(j) = z(j) + alpha * p(j)
        r(j) = r(j) - alpha * q(j)
        s = s + r(j) * r(j)
      end do
      !$omp end do nowait
      partial(2, tid) = s
      !$omp end parallel
      rho = sum_partials(2)
      beta = rho / rho0
    end do

    ! marker 7: CG steps done, residual check pending
#ifndef DAO_DISABLE
    call dao_potential_checkpoint()
#endif

    !$omp parallel private(tid, s, j, k, acc, dlt)
    tid = omp_get_thread_num()
    s = 0.0d0
    !$omp do schedule(static)
    do j = 1, na
      acc = 0.0d0
      do k = rowstr(j), rowstr(j + 1) - 1
        acc = acc + a(k) * z(colidx(k))
      end do
      r(j) = acc
      dlt = x(j) - acc
      s = s + dlt * dlt
    end do
    !$omp end do nowait
    partial(3, tid) = s
    !$omp end parallel
    rnorm = sqrt(sum_partials(3))
  end subroutine conj_grad

  ! one inverse-power step; xz = x.z before x <- z/||z||
  subroutine power_step(rnorm, xz)
    real(8), intent(out) :: rnorm, xz
    real(8) :: s1, s2, zz, scl
    integer :: j, tid

    call conj_grad(rnorm)
    !$omp parallel private(tid, s1, s2, j)
    tid = omp_get_thread_num()
    s1 = 0.0d0
    s2 = 0.0d0
    !$omp do schedule(static)
    do j = 1, na
      s1 = s1 + x(j) * z(j)
      s2 = s2 + z(j) * z(j)
    end do
    !$omp end do nowait
    partial(4, tid) = s1
    partial(5, tid) = s2
    !$omp end parallel
    xz = sum_partials(4)
    zz = sum_partials(5)
    scl = 1.0d0 / sqrt(zz)
    !$omp parallel do schedule(static)
    do j = 1, na
      x(j) = scl * z(j)
    end do
    !$omp end parallel do
  end subroutine power_step

  subroutine set_x_ones()
    integer :: j
    !$omp parallel do schedule(static)
    do j = 1, na + 1
      x(j) = 1.0d0
    end do
    !$omp end parallel do
  end subroutine set_x_ones
end module cg_kernels

!-----------------------------------------------------------------------
program cg
  use cg_data
  use cg_kernels
  implicit none
  real(8) :: tran, amult
  common /cg_rng/ tran, amult
  !$omp threadprivate(/cg_rng/)
  real(8) :: zeta, rnorm, xz, t0, tinit, tbench, err, mops
  integer :: it, j
  logical :: verified

  write(*, '(/,/,a,/)') ' NAS Parallel Benchmarks (NPB 3.x semantics, dao Fortran port) - CG Benchmark'
  write(*, '(a,i11)') ' Size: ', na
  write(*, '(a,i5)') ' Iterations: ', niter
  write(*, '(a,i5,/)') ' Number of available threads: ', omp_get_max_threads()
  if (omp_get_max_threads() > maxthreads) then
    print *, 'cg: too many threads, at most', maxthreads
    stop 2
  end if

  tran = 314159265.0d0
  amult = 1220703125.0d0
  zeta = randlc(tran, amult)

  ! marker 1: start of initialisation, tiny live set
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  t0 = omp_get_wtime()
  call generate_matrix(na)

  !$omp parallel do schedule(static)
  do j = 1, na + 2
    z(j) = 0.0d0
    p(j) = 0.0d0
    q(j) = 0.0d0
    r(j) = 0.0d0
  end do
  !$omp end parallel do
  call set_x_ones()
  zeta = 0.0d0
  write(*, '(a,i0)') ' Nonzeros of A: ', rowstr(na + 1) - 1

  ! marker 3: matrix assembled, vectors initialised
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  call power_step(rnorm, xz)

  ! marker 4: after the warm-up step, before the reset
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  call set_x_ones()
  zeta = 0.0d0
  tinit = omp_get_wtime() - t0
  write(*, '(a,f15.3,a,/)') ' Time initialisation = ', tinit, ' seconds'

  t0 = omp_get_wtime()
  write(*, '(a)') '   iteration           ||r||                     zeta'
  do it = 1, niter
    ! marker 5: top of the main iteration
#ifndef DAO_DISABLE
    call dao_potential_checkpoint()
#endif
    call power_step(rnorm, xz)
    zeta = shift + 1.0d0 / xz
    write(*, '(4x,i5,4x,es25.17e3,4x,es25.17e3)') it, rnorm, zeta
  end do
  tbench = omp_get_wtime() - t0

  ! marker 8: timed section done, before verification
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  err = abs(zeta - zeta_verify) / zeta_verify
  verified = err <= epsilon
  write(*, '(a)') ' Verification quantities:'
  write(*, '(a,es25.17e3)') '  zeta             = ', zeta
  write(*, '(a,z16.16)')    '  zeta (hex bits)  = ', transfer(zeta, 0_8)
  write(*, '(a,es25.17e3)') '  reference zeta   = ', zeta_verify
  write(*, '(a,es25.17e3)') '  relative error   = ', err
  write(*, '(a,es25.17e3)') '  final ||r||      = ', rnorm

  mops = 0.0d0
  if (tbench > 0.0d0) mops = 2.0d0 * niter * dble(na) &
       * (3.0d0 + dble(nonzer * (nonzer + 1)) &
          + 25.0d0 * (5.0d0 + dble(nonzer * (nonzer + 1))) + 3.0d0) &
       / tbench / 1.0d6

  write(*, '(/,a)') ' CG Benchmark Completed.'
  write(*, '(a,a25)')   ' Class           =', cls
  write(*, '(a,i25)')   ' Size            =', na
  write(*, '(a,i25)')   ' Iterations      =', niter
  write(*, '(a,f25.3)') ' Time in seconds =', tbench
  write(*, '(a,i25)')   ' Total threads   =', team_size
  write(*, '(a,f25.2)') ' Mop/s total     =', mops
  write(*, '(a,f25.2)') ' Mop/s/thread    =', mops / team_size
  write(*, '(a,a25)')   ' Operation type  =', 'floating point'
  if (verified) then
    write(*, '(a,a25)') ' Verification    =', 'SUCCESSFUL'
  else
    write(*, '(a,a25)') ' Verification    =', 'UNSUCCESSFUL'
  end if
  write(*, '(a,a25)')   ' Version         =', '3.x-dao'
  if (.not. verified) stop 1
end program cg
