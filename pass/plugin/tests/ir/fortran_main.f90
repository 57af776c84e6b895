! flang's main program: main calls _FortranAProgramStart and _QQmain. The
! restart jumps straight to the _QQmain call, so the runtime start (hidden
! state of the Fortran runtime) is replayed in the restore block.
! RUN: %flang -O0 %s | %opt | %FileCheck %s
program p
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine
  end interface
  integer :: i
  real(8) :: s
  s = 0
  do i = 1, 10
    s = s + i
    call dao_potential_checkpoint()
  end do
  print *, s
end program
! CHECK-LABEL: define void @_QQmain()
! CHECK: call void @dao_candidate(ptr %dao.frame)
! CHECK-LABEL: define internal i32 @__dao_user_main(
! CHECK: dao.restore.1:
! CHECK-NEXT: call void @_FortranAProgramStart(
! CHECK: br label %dao.site.1
