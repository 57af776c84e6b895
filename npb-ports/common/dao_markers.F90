! Part of the dao NPB ports (Fortran side); see npb-ports/README.md.
!-----------------------------------------------------------------------
! Candidate checkpoint marker of the dao runtime (C entry point).
module dao_markers
  implicit none
#ifndef DAO_DISABLE
  interface
    subroutine dao_potential_checkpoint() bind(C, name="dao_potential_checkpoint")
    end subroutine dao_potential_checkpoint
  end interface
#endif
end module dao_markers

