!mod$ v1 sum:49309345cf3c908f
!need$ 62f7b3dbe0be65d4 n dao
module adi_data
use dao,only:dao_potential_checkpoint
use dao,only:dao_checkpoint_now
integer(4),parameter::n=96_4
real(8),parameter::r=3.4999999999999997779553950749686919152736663818359375e-1_8
real(8),parameter::dt=2.00000000000000004163336342344337026588618755340576171875e-2_8
integer(8),parameter::hmod=2147483647_8
real(8)::u(0_8:97_8,0_8:97_8)
real(8)::src(1_8:96_8,1_8:96_8)
real(8)::cp(1_8:96_8)
!$omp threadprivate(cp)
real(8)::dp(1_8:96_8)
!$omp threadprivate(dp)
real(8)::xl(0_8:97_8)
!$omp threadprivate(xl)
integer(8)::nlines
!$omp threadprivate(nlines)
integer(8)::lhash
!$omp threadprivate(lhash)
contains
subroutine setup_coefficients()
end
subroutine forward()
end
subroutine backward()
end
subroutine x_sweep()
end
subroutine y_sweep()
end
function checksum()
real(8)::checksum
end
end
