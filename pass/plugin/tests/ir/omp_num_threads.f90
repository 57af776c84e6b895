! The fork of a region with a num_threads clause is labelled before
! flang's __kmpc_push_num_threads, so the restart replays the push and the
! new team has the clause's size (otherwise the runtime stops with "the
! thread count cannot change inside a region"). flang fills the argument
! struct (and the `.reloaded` copy of the by-value capture `n`) between the
! push and the fork, at -O0 in the next block: those stores are redone too.
! Whole-program test: test-programs/omp/fortran/num_threads_clause.f90.
! RUN: %flang -fopenmp -O0 %s | %opt | %FileCheck %s --check-prefixes=CHECK,O0
! RUN: %flang -fopenmp -O2 %s | %opt | %FileCheck %s
subroutine sweep(a, n)
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer, intent(in) :: n
  real(8) :: a(n)
  integer :: i
  !$omp parallel num_threads(3)
  !$omp do schedule(static)
  do i = 1, n
    a(i) = a(i) * 2.0d0
    call dao_potential_checkpoint()
  end do
  !$omp end do
  !$omp end parallel
end subroutine
! CHECK-LABEL: define void @sweep_(
! CHECK: dao.fork.1:
! CHECK-NOT: {{^[a-z._0-9]+:}}
! CHECK: call void @__kmpc_push_num_threads(ptr {{.*}}@1, i32 %dao.demote{{[0-9]*}}.0, i32 3)
! CHECK-NEXT: store i64 %dao.demote{{[0-9]*}}.0, ptr %[[COPY:[a-zA-Z._0-9]+]]
! O0-NEXT: br label %omp_parallel
! O0: omp_parallel:
! O0-NEXT: getelementptr
! CHECK-NEXT: store ptr %[[COPY]], ptr
! CHECK: call void @dao_omp_fork(
! CHECK-NEXT: call void {{.*}}@__kmpc_fork_call(
! CHECK: dao.restore.1:
! CHECK: br label %dao.fork.1
