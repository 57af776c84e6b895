! data_f/grid_data.f90 -- a file that holds only data (a module without
! procedures), as CloverLeaf's data.f90 and definitions.f90: see main.f90.
module grid_data
  implicit none
  integer, parameter :: n = 2000
  real(8) :: u(n), v(n)
  integer :: steps_done = 0
end module grid_data
