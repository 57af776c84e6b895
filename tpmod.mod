!mod$ v1 sum:5ed0c6edc9a3fddd
module tpmod
integer(8)::seed
!$omp threadprivate(seed)
real(8)::scratch(1_8:32_8)
!$omp threadprivate(scratch)
end
