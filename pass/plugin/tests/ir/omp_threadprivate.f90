! flang's threadprivate (a common block and module variables): every call of
! __kmpc_threadprivate_cached is routed to the runtime's
! dao_threadprivate_cached (same operands), the module lists its
! threadprivate variables in dao.tp (the original's address, size, and
! DAO_TP_IN_REGION = 1 when code that may run in a parallel region uses it),
! the cache globals (<var>.cache) are not among the saved globals, and the
! liveness analysis treats each thread's copy as the variable itself: the
! candidate in the region lists the variables its continuation reads.
! RUN: %flang -fopenmp -O0 %s | %opt | %FileCheck %s --check-prefixes=CHECK,O0
! RUN: %flang -fopenmp -O2 %s | %opt | %FileCheck %s --check-prefixes=CHECK,O2
! RUN: %flang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=REM,REMO0
! RUN: %flang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=REM,REMO2
module tpmod
  implicit none
  integer(8) :: seed = 7
  real(8) :: scratch(32)
  !$omp threadprivate(seed, scratch)
end module tpmod

subroutine advance(n, out)
  use tpmod
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer, intent(in) :: n
  integer(8), intent(inout) :: out
  integer(8) :: acc
  common /work/ acc
  !$omp threadprivate(/work/)
  integer :: i
  !$omp parallel copyin(seed) reduction(+:out)
  acc = 0
  !$omp do schedule(static)
  do i = 1, n
    seed = mod(seed * 1103515245_8 + 12345_8, 2147483648_8)
    scratch(mod(i, 32) + 1) = real(seed, 8)
    call dao_potential_checkpoint()
    acc = acc + mod(seed, 1000_8)
  end do
  !$omp end do
  out = out + acc + int(scratch(1), 8)
  !$omp end parallel
end subroutine

! `mult` is copied in at the start of the only region that uses it (the
! region writes each thread's copy whole before reading it): a worker's copy
! carries nothing into a later region, DAO_TP_IN_REGION is 0. The same holds
! for /work/ (acc = 0 first in advance's region): the fork in `advance`
! reads only what the region reads before writing it whole (the region's
! summary, issue #15), so `advance`, a root as every Fortran subroutine, no
! longer counts acc as read at its entry: 0 at -O2; at -O0 flang stores
! through the copy pointer reloaded from a local slot, which is no
! whole-object kill, and /work/ stays 1.
module tpmod2
  implicit none
  integer(8) :: mult = 1
  !$omp threadprivate(mult)
end module tpmod2

program main
  use tpmod2
  implicit none
  integer(8) :: total, s
  total = 0
  do s = 1, 10
    mult = s
    !$omp parallel copyin(mult) reduction(+:total)
    total = total + mult
    !$omp end parallel
    call advance(100, total)
  end do
  print *, total
end program main

! CHECK-NOT: call ptr @__kmpc_threadprivate_cached(
! CHECK-DAG: call ptr @dao_threadprivate_cached(ptr {{(nonnull )?}}@{{[0-9]+}}, i32 %{{[^,]+}}, ptr {{(nonnull )?}}@_QMtpmodEseed, i64 8, ptr {{(nonnull )?}}@_QMtpmodEseed.cache)
! CHECK-DAG: call ptr @dao_threadprivate_cached(ptr {{(nonnull )?}}@{{[0-9]+}}, i32 %{{[^,]+}}, ptr {{(nonnull )?}}@work_, i64 8, ptr {{(nonnull )?}}@work_.cache)
! CHECK-DAG: @dao.tp = private unnamed_addr constant [4 x { ptr, ptr, i64, i64, ptr }]
! CHECK-DAG: { ptr @{{[^,]+}}, ptr null, i64 8, i64 0, ptr @_QMtpmod2Emult }
! O0-DAG: { ptr @{{[^,]+}}, ptr null, i64 8, i64 1, ptr @work_ }
! O2-DAG: { ptr @{{[^,]+}}, ptr null, i64 8, i64 0, ptr @work_ }
! CHECK-DAG: { ptr @{{[^,]+}}, ptr null, i64 256, i64 1, ptr @_QMtpmodEscratch }
! CHECK-DAG: { ptr @{{[^,]+}}, ptr null, i64 8, i64 1, ptr @_QMtpmodEseed }
! CHECK-DAG: @dao.module = private constant {{.*}} i32 4, ptr @dao.tp, i32 0, ptr null, i32 0, ptr null, i32 0, ptr null }
! CHECK-DAG: declare ptr @dao_threadprivate_cached(ptr, i32, ptr, i64, ptr)
! CHECK-NOT: ptr @work_.cache, i64 0
! CHECK-NOT: ptr @_QMtpmodEseed.cache }

! REMO0-DAG: threadprivate variable work_ (8 B) through __kmpc_threadprivate_cached, routed to dao_threadprivate_cached: the master's copy is the variable, each worker's a copy at a fixed address; a parallel region may read a worker's copy before writing it whole
! REMO2-DAG: threadprivate variable work_ (8 B) through __kmpc_threadprivate_cached, routed to dao_threadprivate_cached: the master's copy is the variable, each worker's a copy at a fixed address; no parallel region reads a worker's copy before writing it whole
! REM-DAG: threadprivate variable _QMtpmodEseed (8 B) through
! REM-DAG: threadprivate variable _QMtpmodEscratch (256 B) through
! REM-DAG: threadprivate variable _QMtpmod2Emult (8 B) {{.*}}; no parallel region reads a worker's copy before writing it whole
! REM-DAG: omp_threadprivate.f90:39: candidate {{[0-9]+}} in 'advance_..omp_par'; private, saved by every thread of the team: {{.*}} globals ({{[0-9]+}} B) [{{.*}}_QMtpmodEseed (threadprivate: each thread's copy){{.*}}]
