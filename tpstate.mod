!mod$ v1 sum:0af26e4476271d53
module tpstate
integer(4),parameter::nb=16_4
integer(8)::tp_sum
!$omp threadprivate(tp_sum)
integer(8)::tp_count
!$omp threadprivate(tp_count)
integer(8)::tp_mult
!$omp threadprivate(tp_mult)
integer(8)::tp_hist(0_8:15_8)
!$omp threadprivate(tp_hist)
end
