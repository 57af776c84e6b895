!mod$ v1 sum:9acefac4438eaf52
module solver_size
integer(4),parameter::nx=128_4
integer(4),parameter::ny=128_4
integer(4),parameter::ninner=4_4
integer(8),parameter::hmod=2147483647_8
end
