!mod$ v1 sum:73a3706e6b07642a
module walk_params
integer(4),parameter::np=4096_4
integer(4),parameter::nbins=64_4
integer(4),parameter::nsub=24_4
integer(8),parameter::mask23=8388607_8
integer(8),parameter::mask46=70368744177663_8
integer(8)::span
!$omp threadprivate(span)
integer(8)::seen(0_8:63_8)
!$omp threadprivate(seen)
contains
pure function lcg_mul(s,m)
integer(8),intent(in)::s
integer(8),intent(in)::m
integer(8)::lcg_mul
end
pure function lcg_pow(m,k)
integer(8),intent(in)::m
integer(8),intent(in)::k
integer(8)::lcg_pow
end
end
