! The Fortran twin of ../c/halo_omp.c, with `include 'mpif.h'`: the
! residual's MPI_Allreduce on a communicator from MPI_Comm_split, the
! largest |u| with a user-defined operation (MPI_Op_create of absmax_fn).
program halo_omp
  use dao
  implicit none
  include 'mpif.h'
  integer, parameter :: n_all = 4000
  integer :: ierr, rank, nranks, n, left, right, t, i, steps
  double precision, allocatable :: u(:), v(:)
  double precision :: local, global, s, total
  integer :: stat(MPI_STATUS_SIZE)
  integer :: all, absmax
  double precision :: lmax, gmax
  external absmax_fn

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  steps = 60
  n = n_all / nranks
  allocate(u(0:n+1), v(0:n+1))
  do i = 0, n + 1
    u(i) = dble(mod(rank * n + i, 17)) / 17.0d0
  end do
  call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, all, ierr)
  call MPI_Op_create(absmax_fn, .true., absmax, ierr)
  left = rank - 1
  if (rank == 0) left = MPI_PROC_NULL
  right = rank + 1
  if (rank == nranks - 1) right = MPI_PROC_NULL
  do t = 0, steps - 1
    call dao_potential_checkpoint()
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 0, u(n+1), 1, MPI_DOUBLE_PRECISION, right, 0, &
                      MPI_COMM_WORLD, stat, ierr)
    call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, stat, ierr)
    !$omp parallel do schedule(static)
    do i = 1, n
      v(i) = u(i) + 0.25d0 * (u(i-1) - 2.0d0 * u(i) + u(i+1))
    end do
    !$omp end parallel do
    local = 0.0d0
    do i = 1, n
      local = local + (v(i) - u(i)) ** 2
      u(i) = v(i)
    end do
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, all, ierr)
    lmax = u(n / 2)
    call MPI_Allreduce(lmax, gmax, 1, MPI_DOUBLE_PRECISION, absmax, all, ierr)
    if (rank == 0 .and. mod(t, 10) == 0) write (*, '(a, i0, a, es20.12, a, es20.12)') 'step ', t, ' residual ', global, ' max ', gmax
  end do
  s = 0.0d0
  do i = 1, n
    s = s + u(i) * dble(rank * n + i)
  end do
  call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, i0, a, es20.12)') 'ranks ', nranks, ' checksum ', total
  deallocate(u, v)
  call MPI_Op_free(absmax, ierr)
  call MPI_Comm_free(all, ierr)
  call MPI_Finalize(ierr)
end program halo_omp

! The user-defined reduction: the largest absolute value.
subroutine absmax_fn(invec, inoutvec, len, dtype)
  implicit none
  integer :: len, dtype, i
  double precision :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine absmax_fn
