! The Fortran twin of ../c/cart_omp.c: a 2-D heat stencil on a 256 x 256
! grid decomposed over a 2-D Cartesian communicator, with `include
! 'mpif.h'` (flang cannot read the gfortran-built `mpi` module of Debian's
! Open MPI). MPI objects created before the main loop and used in every
! iteration (they must stay valid across a checkpoint/restart):
!   - MPI_Dims_create + MPI_Cart_create (rows non-periodic, columns
!     periodic), MPI_Cart_coords, neighbours from MPI_Cart_shift;
!   - MPI_Comm_dup of the Cartesian communicator (row halos on the
!     duplicate, everything else on the Cartesian one);
!   - derived datatypes, committed before the loop: MPI_Type_vector for the
!     non-contiguous column halos, MPI_Type_contiguous for the row halos;
!   - in the loop: column halos with MPI_Irecv/MPI_Isend + MPI_Waitall (an
!     integer request array), row halos with MPI_Sendrecv (MPI_PROC_NULL at
!     the non-periodic edges), the update an OpenMP parallel do (in
!     subroutine relax), a residual by MPI_Allreduce;
!   - after the loop: a checksum by MPI_Reduce, MPI_Type_free, MPI_Comm_free.
! Markers: one at the top of the loop body, one in subroutine relax (the
! update and the local residual), called once per iteration.
! The array is u(column, row) (columns contiguous), so the memory layout,
! the datatypes and the order of every floating-point operation are those of
! the C program: the output is the same, line for line. It does not depend
! on the thread count (the update is pointwise, every sum sequential).
! Steps: first argument, default 1000.
module cart_work
  use dao
  implicit none
  include 'mpif.h'
contains
  ! Halo exchange: columns (periodic) non-blocking on the Cartesian
  ! communicator, rows (non-periodic) by MPI_Sendrecv on its duplicate.
  subroutine exchange(u, nr, nc, cart, dup, row_t, col_t, up, down, left, right)
    integer, intent(in) :: nr, nc, cart, dup, row_t, col_t, up, down, left, right
    double precision, intent(inout) :: u(0:nc+1, 0:nr+1)
    integer :: req(4), ierr
    integer :: stat(MPI_STATUS_SIZE)
    call MPI_Irecv(u(0, 1), 1, col_t, left, 10, cart, req(1), ierr)
    call MPI_Irecv(u(nc+1, 1), 1, col_t, right, 11, cart, req(2), ierr)
    call MPI_Isend(u(nc, 1), 1, col_t, right, 10, cart, req(3), ierr)
    call MPI_Isend(u(1, 1), 1, col_t, left, 11, cart, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    call MPI_Sendrecv(u(1, 1), 1, row_t, up, 20, u(1, nr+1), 1, row_t, down, 20, dup, stat, ierr)
    call MPI_Sendrecv(u(1, nr), 1, row_t, down, 21, u(1, 0), 1, row_t, up, 21, dup, stat, ierr)
  end subroutine exchange

  ! One step of the update, then the residual: v = u + 0.2 * (Laplacian of
  ! u), an OpenMP parallel do; then the sum of (v - u)^2 over the local
  ! cells and u = v, sequential, so the same for any thread count. Holds the
  ! second marker, between the two. (flang-new-19 has no `noinline`
  ! directive; at -O2 LLVM inlines a small subroutine like the residual sum
  ! alone into the main program, but not one holding a parallel region: the
  ! update is here so that the marker stays in a frame of its own.)
  subroutine relax(u, v, nr, nc, s)
    integer, intent(in) :: nr, nc
    double precision, intent(inout) :: u(0:nc+1, 0:nr+1)
    double precision, intent(inout) :: v(0:nc+1, 0:nr+1)
    double precision, intent(out) :: s
    double precision :: diff
    integer :: i, j
    !$omp parallel do schedule(static) private(j)
    do i = 1, nr
      do j = 1, nc
        v(j, i) = u(j, i) + 0.2d0 * (u(j, i-1) + u(j, i+1) + u(j-1, i) + u(j+1, i) &
                                     - 4.0d0 * u(j, i))
      end do
    end do
    !$omp end parallel do
    call dao_potential_checkpoint()
    s = 0.0d0
    do i = 1, nr
      do j = 1, nc
        diff = v(j, i) - u(j, i)
        s = s + diff * diff
        u(j, i) = v(j, i)
      end do
    end do
  end subroutine relax

  ! x as C's "%.12e" prints it (ES format, lower-case exponent letter).
  function efmt(x) result(str)
    double precision, intent(in) :: x
    character(len=24) :: str
    integer :: k
    write (str, '(es24.12)') x
    str = adjustl(str)
    k = index(str, 'E')
    if (k > 0) str(k:k) = 'e'
  end function efmt
end module cart_work

program cart_omp
  use cart_work
  implicit none
  integer, parameter :: nx = 256, ny = 256
  integer :: ierr, nranks, rank, steps, t, i, j, gi, gj, nr, nc, row0, col0
  integer :: cart, dup, row_t, col_t, up, down, left, right
  integer :: dims(2), coords(2)
  logical :: periods(2)
  double precision, allocatable :: u(:, :), v(:, :)
  double precision :: val, local, global, s, total
  character(len=32) :: arg
  integer :: arglen, argstat

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  steps = 1000
  call get_command_argument(1, arg, arglen, argstat)
  if (argstat == 0 .and. arglen > 0) read (arg, *) steps

  dims = 0
  periods = (/ .false., .true. /)
  call MPI_Dims_create(nranks, 2, dims, ierr)
  if (mod(nx, dims(1)) /= 0 .or. mod(ny, dims(2)) /= 0) then
    write (0, '(a)') 'cart_omp: the process grid does not divide the global grid'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Comm_rank(cart, rank, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  call MPI_Cart_shift(cart, 0, 1, up, down, ierr)
  call MPI_Cart_shift(cart, 1, 1, left, right, ierr)
  call MPI_Comm_dup(cart, dup, ierr)
  nr = nx / dims(1)
  nc = ny / dims(2)
  row0 = coords(1) * nr
  col0 = coords(2) * nc
  call MPI_Type_contiguous(nc, MPI_DOUBLE_PRECISION, row_t, ierr)
  call MPI_Type_commit(row_t, ierr)
  call MPI_Type_vector(nr, 1, nc + 2, MPI_DOUBLE_PRECISION, col_t, ierr)
  call MPI_Type_commit(col_t, ierr)

  allocate(u(0:nc+1, 0:nr+1), v(0:nc+1, 0:nr+1))
  ! interior: a fixed pattern of the global indices; halos of the global
  ! top edge 1.0, of the bottom edge 0.0 (fixed: MPI_PROC_NULL there)
  do i = 0, nr + 1
    do j = 0, nc + 1
      gi = row0 + i - 1
      gj = col0 + j - 1
      val = dble(mod(gi * 7 + gj * 13 + 5, 23)) / 23.0d0
      if (gi < 0) then
        val = 1.0d0
      else if (gi >= nx) then
        val = 0.0d0
      end if
      u(j, i) = val
      v(j, i) = val
    end do
  end do

  do t = 0, steps - 1
    call dao_potential_checkpoint()
    call exchange(u, nr, nc, cart, dup, row_t, col_t, up, down, left, right)
    call relax(u, v, nr, nc, local)
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
    if (rank == 0 .and. mod(t, 10) == 0) &
      write (*, '(a, i0, a, a)') 'step ', t, ' residual ', trim(efmt(global))
  end do

  s = 0.0d0
  do i = 1, nr
    do j = 1, nc
      s = s + u(j, i) * dble((row0 + i - 1) * ny + (col0 + j - 1) + 1) / dble(nx * ny)
    end do
  end do
  call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, cart, ierr)
  if (rank == 0) write (*, '(a, i0, a, a)') 'ranks ', nranks, ' checksum ', trim(efmt(total))
  deallocate(u, v)
  call MPI_Type_free(row_t, ierr)
  call MPI_Type_free(col_t, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)
end program cart_omp
