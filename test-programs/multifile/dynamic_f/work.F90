! dynamic_f/work.F90 -- the other file of dynamic_f (see main.f90):
! weight() reaches a marker inside main.f90's dynamic loop with
! -DMARKER_IN_LOOP, progress() one in the region's `master` block.
! Neither is ever a checkpoint.
function weight(i, step) result(w)
  use dao
  implicit none
  integer, intent(in) :: i, step
  real(8) :: w
#ifdef MARKER_IN_LOOP
  if (mod(i, 512) == 0) call dao_potential_checkpoint()
#endif
  w = dble(mod(i * 7 + step * 3, 11)) / 8.0d0
end function weight

subroutine progress(step)
  use dao
  implicit none
  integer, intent(in) :: step
  if (step >= 0) call dao_potential_checkpoint()
end subroutine progress
