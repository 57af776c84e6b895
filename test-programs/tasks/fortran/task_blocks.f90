! Explicit tasks in Fortran (issue #18): in each step a parallel region
! whose `single` creates one task per block of a shared array (firstprivate
! block index, the step read from a module variable only inside the tasks),
! then a `taskwait`; a checkpoint marker between the regions. Integer
! arithmetic, exact. flang-new-19's explicit tasks hang with more than one
! thread even without dao (docs/design.md, section 17), so this program is
! tested with OMP_NUM_THREADS=1, where libomp still creates, queues and runs
! the tasks. Argument: the number of steps.
module task_data
  implicit none
  integer, parameter :: nb = 16, bs = 128
  integer(8) :: a(nb * bs)
  integer :: cur_step   ! read only inside the tasks
end module task_data

program task_blocks
  use dao
  use task_data
  implicit none
  integer :: b, i, step, steps
  integer(8) :: s, total
  character(len=16) :: arg
  steps = 12
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  do i = 1, nb * bs
    a(i) = mod(i, 9)
  end do
  total = 0
  do step = 1, steps
    call dao_potential_checkpoint()
    cur_step = step
    !$omp parallel private(b, i)
    !$omp single
    do b = 0, nb - 1
      !$omp task firstprivate(b) private(i) shared(a)
      do i = b * bs + 1, (b + 1) * bs
        a(i) = mod(a(i) * 7 + b + cur_step, 1000003_8)
      end do
      !$omp end task
    end do
    !$omp taskwait
    !$omp end single
    !$omp end parallel
    s = 0
    do i = 1, nb * bs
      s = s + a(i) * mod(i, 5)
    end do
    total = mod(total + s, 1000000007_8)
    print '(A,I0,A,I0,A,I0)', 'step ', step, ' sum ', s, ' total ', total
  end do
end program task_blocks
