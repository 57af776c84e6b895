! data_f/field_data.f90 -- the second file that holds only data: see
! main.f90.
module field_data
  implicit none
  real(8) :: energy(3000)
  real(8) :: total = 0.0d0
  integer :: calls = 0
end module field_data
