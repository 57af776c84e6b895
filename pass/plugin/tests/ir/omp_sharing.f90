! The data-sharing roles of flang's outlining, through the remarks (-O0).
! flang passes ONE argument to the outlined function: a struct holding a
! pointer to each shared variable AND to the original of each firstprivate,
! reduction and lastprivate variable. The private copies are allocas of the
! outlined function. flang gives locals no IR names, so the remark calls them
! local<N>, N being the position among the function's allocas. flang-19
! allocates a subroutine's locals in reverse alphabetical order, after the
! structs for the forks:
!   roles_:            structArg29 0, structArg 1, sh 2, red 3, pv 4, lp 5,
!                      it 6, i 7, fp 8
!   roles_..omp_par:   tid.addr.local 0, red's partial sum 1, red.array 2,
!                      fp's copy 3, it 4, pv 5
!   roles_..omp_par.1: p.lastiter 0 .. p.stride 3, tid.addr.local 4, i 5,
!                      lp's copy 6
! Checked:
!   master at the forks: the structs, sh, the originals of red, lp and fp
!     (flang's firstprivate copies from the original through the struct, so
!     the fork reads it); not pv or it (private: the region never sees the
!     enclosing function's variables).
!   every thread in region 1: red's partial sum, fp's copy, it, pv; never
!     the shared 512-byte sh (the thread holds only a pointer to it).
!   every thread in region 2: lp's private copy.
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2> omp_sharing_f90.txt
! RUN: %FileCheck %s --check-prefix=IN < omp_sharing_f90.txt
! RUN: %FileCheck %s --check-prefix=OUT < omp_sharing_f90.txt
subroutine roles(n, res)
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer, intent(in) :: n
  real(8), intent(out) :: res
  real(8) :: sh(64), fp, pv, red, lp
  integer :: it, i
  do i = 1, 64
    sh(i) = i
  end do
  fp = 2.0d0
  red = 0
  lp = 0
  !$omp parallel firstprivate(fp) private(pv, it) shared(sh) reduction(+:red)
  pv = 1
  do it = 1, n
    red = red + pv * sh(mod(it, 64) + 1)
    call dao_potential_checkpoint()
    pv = pv + fp
  end do
  !$omp end parallel
  !$omp parallel do lastprivate(lp) schedule(static)
  do i = 1, n
    lp = sh(mod(i, 64) + 1) * 2
    call dao_potential_checkpoint()
    lp = lp + 1
  end do
  !$omp end parallel do
  res = red + lp + sh(2)
end subroutine

! IN: parallel region 1 in 'roles_' (outlined 'roles_..omp_par'): live: 0 values (0 B) [], 6 stack objects (592 B) [structArg29, structArg, local2, local3, local5, local8], 0 globals
! IN: parallel region 2 in 'roles_' (outlined 'roles_..omp_par.1'): live: 0 values (0 B) [], {{[0-9]+}} stack objects ({{[0-9]+}} B) [{{[^]]*}}local2, {{[^]]*}}local5{{[],]}}
! OUT: parallel region 1 in 'roles_' (outlined 'roles_..omp_par'): live: {{.*}} stack objects ({{[0-9]+}} B)
! OUT-NOT: {{[[ ](local4|local6|local7)[],]}}
! OUT-SAME: , 0 globals
! IN: omp_sharing.f90:53: candidate 2 in 'roles_..omp_par.1'; private, saved by every thread of the team: live: {{.*}}, {{[0-9]+}} stack objects ({{[0-9]+}} B) [{{[^]]*}}local6]
! OUT: omp_sharing.f90:53: candidate 2 in 'roles_..omp_par.1'; private, saved by every thread of the team: live: {{.*}} stack objects ({{[0-9]?[0-9]}} B)
! IN: omp_sharing.f90:46: candidate 2 in 'roles_..omp_par'; private, saved by every thread of the team: live: {{.*}}, {{[0-9]+}} stack objects ({{[0-9]+}} B) [local1, {{[^]]*}}local3, local4, local5]
! OUT: omp_sharing.f90:46: candidate 2 in 'roles_..omp_par'; private, saved by every thread of the team: live: {{.*}} stack objects ({{[0-9]?[0-9]}} B)
! OUT-NOT: structArg
! OUT-SAME: ; shared
