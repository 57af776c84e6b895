! `use mpi` with flang (dao mpifort compiles its own `mpi` module from
! Open MPI's mpif.h; Debian's mpi.mod is gfortran's). A ring: each rank
! passes a block to its right neighbour with MPI_Isend/MPI_Irecv and
! MPI_Waitall, updates it in an OpenMP loop and sums a norm with
! MPI_Allreduce; a marker at the top of the loop. Rank 0 prints every 10
! steps and a final checksum.
program ring_use_mpi
  use dao
  use mpi
  implicit none
  integer, parameter :: m = 2000
  integer :: ierr, rank, nranks, left, right, t, i, steps
  integer :: reqs(2)
  double precision :: a(m), b(m), local, global
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  steps = 80
  right = mod(rank + 1, nranks)
  left = mod(rank - 1 + nranks, nranks)
  do i = 1, m
    a(i) = dble(mod(rank * 31 + i, 13)) / 13.0d0
  end do
  do t = 0, steps - 1
    call dao_potential_checkpoint()
    call MPI_Irecv(b, m, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(a, m, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    !$omp parallel do
    do i = 1, m
      a(i) = 0.5d0 * (a(i) + b(i)) + 1.0d-3 * dble(mod(i, 7))
    end do
    !$omp end parallel do
    local = 0.0d0
    do i = 1, m
      local = local + a(i) * a(i)
    end do
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. mod(t, 10) == 0) write (*, '(a, i0, a, es20.12)') 'step ', t, ' norm ', global
  end do
  local = 0.0d0
  do i = 1, m
    local = local + a(i) * dble(i)
  end do
  call MPI_Reduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, i0, a, es20.12)') 'ranks ', nranks, ' checksum ', global
  call MPI_Finalize(ierr)
end program ring_use_mpi
