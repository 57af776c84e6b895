! dao.f90 -- the user-facing API of dao for Fortran.
!
!   use dao
!   call dao_potential_checkpoint()   ! a candidate position
!   call dao_checkpoint_now()         ! a forced checkpoint
!
! Build with `dao fc` (flang-new-19 with the dao pass) and link libdao_rt.a.
! Without the pass the calls reach the runtime, warn once and do nothing.
module dao
  implicit none
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine dao_potential_checkpoint
    subroutine dao_checkpoint_now() bind(C, name="dao_checkpoint_now")
    end subroutine dao_checkpoint_now
  end interface
end module dao
