! mg.F90 -- NAS Parallel Benchmark MG (multigrid), OpenMP Fortran port for
! the dao checkpoint/restart test suite (NPB 3.x semantics).
!
! Class fixed at compile time: -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or
! -DCLASS_C.  -DDAO_DISABLE compiles every checkpoint marker out.  Shared
! modules (dao_markers, npb_random) are in ../../common/*.F90.
!
! Storage follows the classic Fortran style: all levels of u and of r live
! in one allocatable 1-D array each, level k starting at offset ir(k); the
! kernels receive u(ir(k)) and view it as an explicit-shape (m1,m2,m3) array.
! The one reduction (residual norm) uses per-thread partial sums added in
! thread order, so printed results are bitwise reproducible.

#if defined(CLASS_S)
#define P_CLASS 'S'
#define P_NX 32
#define P_LT 5
#define P_NIT 4
#define P_VERIFY 0.5307707005734d-04
#elif defined(CLASS_W)
#define P_CLASS 'W'
#define P_NX 128
#define P_LT 7
#define P_NIT 4
#define P_VERIFY 0.6467329375339d-05
#elif defined(CLASS_A)
#define P_CLASS 'A'
#define P_NX 256
#define P_LT 8
#define P_NIT 4
#define P_VERIFY 0.2433365309069d-05
#elif defined(CLASS_B)
#define P_CLASS 'B'
#define P_NX 256
#define P_LT 8
#define P_NIT 20
#define P_VERIFY 0.1800564401355d-05
#elif defined(CLASS_C)
#define P_CLASS 'C'
#define P_NX 512
#define P_LT 9
#define P_NIT 20
#define P_VERIFY 0.5706732285740d-06
#else
#error "define one of CLASS_S, CLASS_W, CLASS_A, CLASS_B, CLASS_C"
#endif

!-----------------------------------------------------------------------
module mg_data
  implicit none
  character, parameter :: cls = P_CLASS
  integer, parameter :: nx_top = P_NX, lt_top = P_LT, nit = P_NIT
  integer, parameter :: nm = nx_top + 2           ! longest grid line
  real(8), parameter :: verify_value = P_VERIFY, epsilon = 1.0d-8
  integer, parameter :: maxthreads = 256

  integer :: lt, lb
  integer :: nx(lt_top), ny(lt_top), nz(lt_top)
  integer :: m1(lt_top), m2(lt_top), m3(lt_top)
  integer(8) :: ir(lt_top)
  real(8), allocatable :: u(:), r(:), v(:)
  real(8) :: acoef(0:3), ccoef(0:3)
  real(8) :: part_sum(8, 0:maxthreads - 1), part_max(8, 0:maxthreads - 1)
  integer :: team_size = 1
end module mg_data

!-----------------------------------------------------------------------
module mg_kernels
  use mg_data
  use npb_random
  use dao_markers
  use omp_lib
  implicit none
contains

  subroutine setup_levels()
    integer :: k
    lt = lt_top
    lb = 1
    nx(lt) = nx_top
    ny(lt) = nx_top
    nz(lt) = nx_top
    do k = lt - 1, 1, -1
      nx(k) = nx(k + 1) / 2
      ny(k) = ny(k + 1) / 2
      nz(k) = nz(k + 1) / 2
    end do
    do k = 1, lt
      m1(k) = nx(k) + 2
      m2(k) = ny(k) + 2
      m3(k) = nz(k) + 2
    end do
    ir(lt) = 1
    do k = lt - 1, 1, -1
      ir(k) = ir(k + 1) + int(m1(k + 1), 8) * m2(k + 1) * m3(k + 1)
    end do
  end subroutine setup_levels

  subroutine zero3(g, n1, n2, n3)
    integer, intent(in) :: n1, n2, n3
    real(8), intent(out) :: g(n1, n2, n3)
    integer :: i1, i2, i3
    !$omp parallel do private(i1, i2) schedule(static)
    do i3 = 1, n3
      do i2 = 1, n2
        do i1 = 1, n1
          g(i1, i2, i3) = 0.0d0
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine zero3

  ! periodic ghost layers
  subroutine comm3(g, n1, n2, n3)
    integer, intent(in) :: n1, n2, n3
    real(8), intent(inout) :: g(n1, n2, n3)
    integer :: i1, i2, i3
    !$omp parallel private(i1, i2, i3)
    !$omp do schedule(static)
    do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
        g(1, i2, i3) = g(n1 - 1, i2, i3)
        g(n1, i2, i3) = g(2, i2, i3)
      end do
    end do
    !$omp end do
    !$omp do schedule(static)
    do i3 = 2, n3 - 1
      do i1 = 1, n1
        g(i1, 1, i3) = g(i1, n2 - 1, i3)
        g(i1, n2, i3) = g(i1, 2, i3)
      end do
    end do
    !$omp end do
    !$omp do schedule(static)
    do i2 = 1, n2
      do i1 = 1, n1
        g(i1, i2, 1) = g(i1, i2, n3 - 1)
        g(i1, i2, n3) = g(i1, i2, 2)
      end do
    end do
    !$omp end do
    !$omp end parallel
  end subroutine comm3

  ! rr = vv - A uu   (rr and vv may be the same grid, as in the original)
  subroutine resid(uu, vv, rr, n1, n2, n3)
    integer, intent(in) :: n1, n2, n3
    real(8), intent(in) :: uu(n1, n2, n3), vv(n1, n2, n3)
    real(8), intent(inout) :: rr(n1, n2, n3)
    integer :: i1, i2, i3
    real(8) :: f1(nm), f2(nm)
    !$omp parallel do private(i1, i2, f1, f2) schedule(static)
    do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
        do i1 = 1, n1
          f1(i1) = uu(i1, i2 - 1, i3) + uu(i1, i2 + 1, i3) &
                 + uu(i1, i2, i3 - 1) + uu(i1, i2, i3 + 1)
          f2(i1) = uu(i1, i2 - 1, i3 - 1) + uu(i1, i2 + 1, i3 - 1) &
                 + uu(i1, i2 - 1, i3 + 1) + uu(i1, i2 + 1, i3 + 1)
        end do
        ! acoef(1) = 0: face term omitted
        do i1 = 2, n1 - 1
          rr(i1, i2, i3) = vv(i1, i2, i3) - acoef(0) * uu(i1, i2, i3) &
                         - acoef(2) * (f2(i1) + f1(i1 - 1) + f1(i1 + 1)) &
                         - acoef(3) * (f2(i1 - 1) + f2(i1 + 1))
        end do
      end do
    end do
    !$omp end parallel do
    call comm3(rr, n1, n2, n3)
  end subroutine resid

  ! uu = uu + S rr
  subroutine psinv(rr, uu, n1, n2, n3)
    integer, intent(in) :: n1, n2, n3
    real(8), intent(in) :: rr(n1, n2, n3)
    real(8), intent(inout) :: uu(n1, n2, n3)
    integer :: i1, i2, i3
    real(8) :: f1(nm), f2(nm)
    !$omp parallel do private(i1, i2, f1, f2) schedule(static)
    do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
        do i1 = 1, n1
          f1(i1) = rr(i1, i2 - 1, i3) + rr(i1, i2 + 1, i3) &
                 + rr(i1, i2, i3 - 1) + rr(i1, i2, i3 + 1)
          f2(i1) = rr(i1, i2 - 1, i3 - 1) + rr(i1, i2 + 1, i3 - 1) &
                 + rr(i1, i2 - 1, i3 + 1) + rr(i1, i2 + 1, i3 + 1)
        end do
        ! ccoef(3) = 0: corner term omitted
        do i1 = 2, n1 - 1
          uu(i1, i2, i3) = uu(i1, i2, i3) + ccoef(0) * rr(i1, i2, i3) &
                         + ccoef(1) * (rr(i1 - 1, i2, i3) + rr(i1 + 1, i2, i3) + f1(i1)) &
                         + ccoef(2) * (f2(i1) + f1(i1 - 1) + f1(i1 + 1))
        end do
      end do
    end do
    !$omp end parallel do
    call comm3(uu, n1, n2, n3)
  end subroutine psinv

  ! s (coarse) = restriction of rf (fine)
  subroutine rprj3(rf, mk1, mk2, mk3, s, mj1, mj2, mj3)
    integer, intent(in) :: mk1, mk2, mk3, mj1, mj2, mj3
    real(8), intent(in) :: rf(mk1, mk2, mk3)
    real(8), intent(inout) :: s(mj1, mj2, mj3)
    integer :: d1, d2, d3, i1, i2, i3, j1, j2, j3
    real(8) :: e1(nm), e2(nm), edge, face
    d1 = 1
    d2 = 1
    d3 = 1
    if (mk1 == 3) d1 = 2
    if (mk2 == 3) d2 = 2
    if (mk3 == 3) d3 = 2
    !$omp parallel do private(i1, i2, i3, j1, j2, e1, e2, edge, face) schedule(static)
    do j3 = 2, mj3 - 1
      i3 = 2 * j3 - d3
      do j2 = 2, mj2 - 1
        i2 = 2 * j2 - d2
        do j1 = 2, mj1
          i1 = 2 * j1 - d1
          e1(i1 - 1) = rf(i1 - 1, i2 - 1, i3) + rf(i1 - 1, i2 + 1, i3) &
                     + rf(i1 - 1, i2, i3 - 1) + rf(i1 - 1, i2, i3 + 1)
          e2(i1 - 1) = rf(i1 - 1, i2 - 1, i3 - 1) + rf(i1 - 1, i2 - 1, i3 + 1) &
                     + rf(i1 - 1, i2 + 1, i3 - 1) + rf(i1 - 1, i2 + 1, i3 + 1)
        end do
        do j1 = 2, mj1 - 1
          i1 = 2 * j1 - d1
          edge = rf(i1, i2 - 1, i3 - 1) + rf(i1, i2 - 1, i3 + 1) &
               + rf(i1, i2 + 1, i3 - 1) + rf(i1, i2 + 1, i3 + 1)
          face = rf(i1, i2 - 1, i3) + rf(i1, i2 + 1, i3) &
               + rf(i1, i2, i3 - 1) + rf(i1, i2, i3 + 1)
          s(j1, j2, j3) = 0.5d0 * rf(i1, i2, i3) &
                        + 0.25d0 * (rf(i1 - 1, i2, i3) + rf(i1 + 1, i2, i3) + face) &
                        + 0.125d0 * (e1(i1 - 1) + e1(i1 + 1) + edge) &
                        + 0.0625d0 * (e2(i1 - 1) + e2(i1 + 1))
        end do
      end do
    end do
    !$omp end parallel do
    call comm3(s, mj1, mj2, mj3)
  end subroutine rprj3

  ! uf (fine) += trilinear prolongation of zc (coarse)
  subroutine interp(zc, mm1, mm2, mm3, uf, n1, n2, n3)
    integer, intent(in) :: mm1, mm2, mm3, n1, n2, n3
    real(8), intent(in) :: zc(mm1, mm2, mm3)
    real(8), intent(inout) :: uf(n1, n2, n3)
    integer :: i1, i2, i3
    real(8) :: y1(nm), y2(nm), y3(nm)
    if (n1 == 3 .or. n2 == 3 .or. n3 == 3) then
      print *, 'mg: interp on a 1-point grid is not supported'
      stop 1
    end if
    !$omp parallel do private(i1, i2, y1, y2, y3) schedule(static)
    do i3 = 1, mm3 - 1
      do i2 = 1, mm2 - 1
        do i1 = 1, mm1
          y1(i1) = zc(i1, i2 + 1, i3) + zc(i1, i2, i3)
          y2(i1) = zc(i1, i2, i3 + 1) + zc(i1, i2, i3)
          y3(i1) = zc(i1, i2 + 1, i3 + 1) + zc(i1, i2, i3 + 1) + y1(i1)
        end do
        do i1 = 1, mm1 - 1
          uf(2*i1 - 1, 2*i2 - 1, 2*i3 - 1) = uf(2*i1 - 1, 2*i2 - 1, 2*i3 - 1) + zc(i1, i2, i3)
          uf(2*i1, 2*i2 - 1, 2*i3 - 1) = uf(2*i1, 2*i2 - 1, 2*i3 - 1) &
               + 0.5d0 * (zc(i1 + 1, i2, i3) + zc(i1, i2, i3))
        end do
        do i1 = 1, mm1 - 1
          uf(2*i1 - 1, 2*i2, 2*i3 - 1) = uf(2*i1 - 1, 2*i2, 2*i3 - 1) + 0.5d0 * y1(i1)
          uf(2*i1, 2*i2, 2*i3 - 1) = uf(2*i1, 2*i2, 2*i3 - 1) + 0.25d0 * (y1(i1) + y1(i1 + 1))
        end do
        do i1 = 1, mm1 - 1
          uf(2*i1 - 1, 2*i2 - 1, 2*i3) = uf(2*i1 - 1, 2*i2 - 1, 2*i3) + 0.5d0 * y2(i1)
          uf(2*i1, 2*i2 - 1, 2*i3) = uf(2*i1, 2*i2 - 1, 2*i3) + 0.25d0 * (y2(i1) + y2(i1 + 1))
        end do
        do i1 = 1, mm1 - 1
          uf(2*i1 - 1, 2*i2, 2*i3) = uf(2*i1 - 1, 2*i2, 2*i3) + 0.25d0 * y3(i1)
          uf(2*i1, 2*i2, 2*i3) = uf(2*i1, 2*i2, 2*i3) + 0.125d0 * (y3(i1) + y3(i1 + 1))
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine interp

  subroutine norm2u3(g, n1, n2, n3, rnm2, rnmu, npts)
    integer, intent(in) :: n1, n2, n3
    real(8), intent(in) :: g(n1, n2, n3), npts
    real(8), intent(out) :: rnm2, rnmu
    integer :: i1, i2, i3, tid, t
    real(8) :: s, mx
    !$omp parallel private(i1, i2, i3, tid, s, mx)
    tid = omp_get_thread_num()
    if (tid == 0) team_size = omp_get_num_threads()
    s = 0.0d0
    mx = 0.0d0
    !$omp do schedule(static)
    do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
        do i1 = 2, n1 - 1
          s = s + g(i1, i2, i3)**2
          mx = max(mx, abs(g(i1, i2, i3)))
        end do
      end do
    end do
    !$omp end do nowait
    part_sum(1, tid) = s
    part_max(1, tid) = mx
    !$omp end parallel
    s = 0.0d0
    mx = 0.0d0
    do t = 0, team_size - 1
      s = s + part_sum(1, t)
      mx = max(mx, part_max(1, t))
    end do
    rnm2 = sqrt(s / npts)
    rnmu = mx
  end subroutine norm2u3

  ! insert (val, position) into a list of ncand kept candidates, sorted so
  ! that entry 1 is the weakest; sgn = +1 keeps the largest, -1 the smallest
  subroutine offer(bval, bpos, ncand, val, i1, i2, i3, sgn)
    integer, intent(in) :: ncand, i1, i2, i3
    real(8), intent(inout) :: bval(ncand)
    integer, intent(inout) :: bpos(3, ncand)
    real(8), intent(in) :: val, sgn
    integer :: t, tp(3)
    real(8) :: tv
    if (sgn * val <= sgn * bval(1)) return
    bval(1) = val
    bpos(:, 1) = (/ i1, i2, i3 /)
    do t = 1, ncand - 1
      if (sgn * bval(t) <= sgn * bval(t + 1)) exit
      tv = bval(t); bval(t) = bval(t + 1); bval(t + 1) = tv
      tp = bpos(:, t); bpos(:, t) = bpos(:, t + 1); bpos(:, t + 1) = tp
    end do
  end subroutine offer

  ! right-hand side: +1 at the 10 largest, -1 at the 10 smallest values of
  ! the random field (laid out plane by plane, line by line)
  subroutine zran3(g, n1, n2, n3, gx, gy)
    integer, intent(in) :: n1, n2, n3, gx, gy
    real(8), intent(inout) :: g(n1, n2, n3)
    integer, parameter :: ncand = 10
    real(8), parameter :: amul = 1220703125.0d0
    real(8) :: a_row, a_pln, seed_pln, seed_row, seed, dummy
    real(8) :: hval(ncand), lval(ncand)
    integer :: hpos(3, ncand), lpos(3, ncand)
    integer :: i1, i2, i3, t

    a_row = lcg_pow(amul, int(gx, 8))
    a_pln = lcg_pow(amul, int(gx, 8) * gy)
    call zero3(g, n1, n2, n3)
    seed_pln = 314159265.0d0
    do i3 = 2, n3 - 1
      seed_row = seed_pln
      do i2 = 2, n2 - 1
        seed = seed_row
        call vranlc(n1 - 2, seed, amul, g(2, i2, i3))
        dummy = randlc(seed_row, a_row)
      end do
      dummy = randlc(seed_pln, a_pln)
    end do

    hval = 0.0d0
    lval = 1.0d0
    hpos = 0
    lpos = 0
    do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
        do i1 = 2, n1 - 1
          call offer(hval, hpos, ncand, g(i1, i2, i3), i1, i2, i3, 1.0d0)
          call offer(lval, lpos, ncand, g(i1, i2, i3), i1, i2, i3, -1.0d0)
        end do
      end do
    end do

    call zero3(g, n1, n2, n3)
    do t = ncand, 1, -1
      g(lpos(1, t), lpos(2, t), lpos(3, t)) = -1.0d0
    end do
    do t = ncand, 1, -1
      g(hpos(1, t), hpos(2, t), hpos(3, t)) = 1.0d0
    end do
    call comm3(g, n1, n2, n3)
  end subroutine zran3

  ! one V-cycle
  subroutine mg3p()
    integer :: j, k

    do k = lt, lb + 1, -1
      j = k - 1
      call rprj3(r(ir(k)), m1(k), m2(k), m3(k), r(ir(j)), m1(j), m2(j), m3(j))
      ! marker 5: between levels of the down cycle
#ifndef DAO_DISABLE
      call dao_potential_checkpoint()
#endif
    end do

    k = lb
    call zero3(u(ir(k)), m1(k), m2(k), m3(k))
    call psinv(r(ir(k)), u(ir(k)), m1(k), m2(k), m3(k))

    ! marker 6: bottom of the V-cycle
#ifndef DAO_DISABLE
    call dao_potential_checkpoint()
#endif

    do k = lb + 1, lt - 1
      j = k - 1
      call zero3(u(ir(k)), m1(k), m2(k), m3(k))
      call interp(u(ir(j)), m1(j), m2(j), m3(j), u(ir(k)), m1(k), m2(k), m3(k))
      call resid(u(ir(k)), r(ir(k)), r(ir(k)), m1(k), m2(k), m3(k))
      call psinv(r(ir(k)), u(ir(k)), m1(k), m2(k), m3(k))
      ! marker 7: between levels of the up cycle
#ifndef DAO_DISABLE
      call dao_potential_checkpoint()
#endif
    end do

    j = lt - 1
    k = lt
    call interp(u(ir(j)), m1(j), m2(j), m3(j), u(ir(k)), m1(k), m2(k), m3(k))
    call resid(u(ir(k)), v, r(ir(k)), m1(k), m2(k), m3(k))
    call psinv(r(ir(k)), u(ir(k)), m1(k), m2(k), m3(k))
  end subroutine mg3p
end module mg_kernels

!-----------------------------------------------------------------------
program mg
  use mg_data
  use mg_kernels
  implicit none
  real(8) :: rnm2, rnmu, t0, tinit, tbench, mops, err, npts
  integer(8) :: ntot
  integer :: it
  logical :: verified

  write(*, '(/,/,a,/)') ' NAS Parallel Benchmarks (NPB 3.x semantics, dao Fortran port) - MG Benchmark'
  write(*, '(a,i4,a,i4,a,i4,a,a,a)') ' Size: ', nx_top, 'x', nx_top, 'x', nx_top, '  (class ', cls, ')'
  write(*, '(a,i4)') ' Iterations: ', nit
  write(*, '(a,i5,/)') ' Number of available threads: ', omp_get_max_threads()
  if (omp_get_max_threads() > maxthreads) then
    print *, 'mg: too many threads, at most', maxthreads
    stop 2
  end if

  acoef = (/ -8.0d0 / 3.0d0, 0.0d0, 1.0d0 / 6.0d0, 1.0d0 / 12.0d0 /)
  if (cls == 'A' .or. cls == 'S' .or. cls == 'W') then
    ccoef = (/ -3.0d0 / 8.0d0, 1.0d0 / 32.0d0, -1.0d0 / 64.0d0, 0.0d0 /)
  else
    ccoef = (/ -3.0d0 / 17.0d0, 1.0d0 / 33.0d0, -1.0d0 / 61.0d0, 0.0d0 /)
  end if

  t0 = omp_get_wtime()
  call setup_levels()
  npts = dble(nx(lt)) * dble(ny(lt)) * dble(nz(lt))

  ! marker 1: level sizes known, nothing allocated yet (small live set)
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  ntot = ir(1) + int(m1(1), 8) * m2(1) * m3(1) - 1
  allocate(u(ntot), r(ntot), v(int(m1(lt), 8) * m2(lt) * m3(lt)))
  call zero3(u, m1(lt), m2(lt), m3(lt))
  call zran3(v, m1(lt), m2(lt), m3(lt), nx(lt), ny(lt))
  call norm2u3(v, m1(lt), m2(lt), m3(lt), rnm2, rnmu, npts)
  write(*, '(a,es25.17e3,a,es25.17e3)') ' Initial norms: rhs L2 = ', rnm2, '  max = ', rnmu
  call resid(u, v, r, m1(lt), m2(lt), m3(lt))
  call norm2u3(r, m1(lt), m2(lt), m3(lt), rnm2, rnmu, npts)

  ! marker 2: right-hand side and first residual ready (all grids live)
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  call mg3p()
  call resid(u, v, r, m1(lt), m2(lt), m3(lt))

  ! marker 3: after the warm-up cycle, before re-initialisation
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  call setup_levels()
  call zero3(u, m1(lt), m2(lt), m3(lt))
  call zran3(v, m1(lt), m2(lt), m3(lt), nx(lt), ny(lt))
  tinit = omp_get_wtime() - t0
  write(*, '(a,f15.3,a,/)') ' Time initialisation = ', tinit, ' seconds'

  t0 = omp_get_wtime()
  call resid(u, v, r, m1(lt), m2(lt), m3(lt))
  call norm2u3(r, m1(lt), m2(lt), m3(lt), rnm2, rnmu, npts)
  do it = 1, nit
    ! marker 4: top of the main iteration
#ifndef DAO_DISABLE
    call dao_potential_checkpoint()
#endif
    call mg3p()
    call resid(u, v, r, m1(lt), m2(lt), m3(lt))
  end do
  call norm2u3(r, m1(lt), m2(lt), m3(lt), rnm2, rnmu, npts)
  tbench = omp_get_wtime() - t0

  ! marker 8: timed section done, before verification
#ifndef DAO_DISABLE
  call dao_potential_checkpoint()
#endif

  err = abs(rnm2 - verify_value) / verify_value
  verified = err <= epsilon
  write(*, '(a)') ' Verification quantities:'
  write(*, '(a,es25.17e3)') '  L2 norm of residual  = ', rnm2
  write(*, '(a,z16.16)')    '  L2 norm (hex bits)   = ', transfer(rnm2, 0_8)
  write(*, '(a,es25.17e3)') '  max norm of residual = ', rnmu
  write(*, '(a,es25.17e3)') '  reference L2 norm    = ', verify_value
  write(*, '(a,es25.17e3)') '  relative error       = ', err

  mops = 0.0d0
  if (tbench > 0.0d0) mops = 58.0d0 * nit * npts / tbench / 1.0d6

  write(*, '(/,a)') ' MG Benchmark Completed.'
  write(*, '(a,a25)')   ' Class           =', cls
  write(*, '(a,i11,a,i6,a,i6)') ' Size            =', nx_top, 'x', nx_top, 'x', nx_top
  write(*, '(a,i25)')   ' Iterations      =', nit
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
  deallocate(u, r, v)
  if (.not. verified) stop 1
end program mg
