! allocatable.f90 -- allocatable arrays.
!
! Exercises: allocatable arrays allocated, grown (allocate a bigger one,
! copy, move_alloc), deallocated and reallocated with a different size
! between markers; an allocatable 2-D work array allocated inside a
! subroutine on the chain; an allocatable array of a derived type.
!
! Invariant: every heap block (allocatable array data) is restored at its
! old address with its old contents, and every live variable of every frame
! on the chain (including array descriptors) is restored byte for byte, so
! the printed results equal those of the uninterrupted run.
! Argument: number of rounds (default 12000).
module alloc_work
  use dao
  implicit none
  type particle
    real(8) :: x, v
    integer :: id
  end type particle
contains
  subroutine grow(v, n)
    real(8), allocatable, intent(inout) :: v(:)
    integer, intent(in) :: n
    real(8), allocatable :: tmp(:)
    integer :: old
    old = size(v)
    allocate(tmp(n))
    tmp(1:old) = v
    tmp(old + 1:n) = 0.0d0
    call move_alloc(tmp, v)
    call dao_potential_checkpoint()
  end subroutine grow

  subroutine smooth(v, rounds, out)
    real(8), intent(inout) :: v(:)
    integer, intent(in) :: rounds
    real(8), intent(out) :: out
    real(8), allocatable :: w(:, :)
    integer :: r, k, n
    n = size(v)
    allocate(w(n, 2))
    w(:, 1) = v
    do r = 1, rounds
      w(1, 2) = w(1, 1)
      w(n, 2) = w(n, 1)
      do k = 2, n - 1
        w(k, 2) = 0.25d0 * w(k - 1, 1) + 0.5d0 * w(k, 1) + 0.25d0 * w(k + 1, 1)
      end do
      w(:, 1) = w(:, 2)
      if (mod(r, 8) == 0) call dao_potential_checkpoint()
    end do
    v = w(:, 1)
    out = sum(w(:, 1))
    deallocate(w)
  end subroutine smooth
end module alloc_work

program allocatable
  use alloc_work
  implicit none
  real(8), allocatable :: v(:)
  integer, allocatable :: idx(:)
  type(particle), allocatable :: ps(:)
  integer :: rounds, r, n, k
  real(8) :: total, s
  character(len=32) :: arg

  rounds = 12000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) rounds
  end if
  allocate(v(16))
  do k = 1, 16
    v(k) = dble(k)
  end do
  allocate(ps(100))
  do k = 1, 100
    ps(k) = particle(dble(k) * 0.01d0, 0.0d0, k)
  end do
  total = 0.0d0
  n = 16
  do r = 1, rounds
    if (n < 4000) then
      n = n + 10
      call grow(v, n)
      v(n) = dble(r)
    end if
    call smooth(v, 16, s)
    total = total + s
    if (allocated(idx)) deallocate(idx)
    allocate(idx(mod(r, 50) + 1))
    do k = 1, size(idx)
      idx(k) = mod(r * k, 100) + 1
    end do
    do k = 1, size(idx)
      ps(idx(k))%v = ps(idx(k))%v + 0.001d0 * v(mod(k, n) + 1)
      ps(idx(k))%x = ps(idx(k))%x + ps(idx(k))%v
    end do
    call dao_potential_checkpoint()
    if (mod(r, rounds / 8) == 0) write(*, '(A,I0,A,I0,A,Z16.16,A,ES25.17)') 'round ', r, ' n=', n, &
        ' v1=', transfer(v(1), 0_8), ' total=', total
  end do
  write(*, '(A,ES25.17,A,I0)') 'px=', sum(ps%x), ' ids=', sum(ps%id)
  write(*, '(A,I0,A,I0,A,ES25.17)') 'allocatable: rounds=', rounds, ' n=', n, ' total=', total
end program allocatable
