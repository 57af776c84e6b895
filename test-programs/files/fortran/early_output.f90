! early_output.f90 -- output written before the first checkpoint (the
! Fortran twin of files/c/early_output.c).
!
! The program prints a header to the standard output and appends setup
! lines to a log file (opened with position='append' and closed again)
! before it reaches its first marker, then prints at every step.
! Arguments: the directory for the log and the number of steps. With
! EARLY_STOP=1 in the environment the run kills itself with SIGKILL after
! its early output, before its first marker.
!
! Invariant: started again with the same DAO_DIR and its output appended
! to the same file, the standard output and the log are those of one
! uninterrupted run: what the stopped run wrote is cut back.
program early_output
  use dao
  use iso_c_binding, only: c_int
  implicit none
  interface
    function c_raise(sig) bind(C, name='raise') result(r)
      import :: c_int
      integer(c_int), value :: sig
      integer(c_int) :: r
    end function c_raise
  end interface
  character(len=512) :: dir, arg, stop
  character(len=600) :: path
  integer :: i, n, s, st
  real(8) :: x
  call get_command_argument(1, dir)
  call get_command_argument(2, arg)
  read (arg, *) n
  path = trim(dir) // '/log.txt'
  write (*, '(a,i0,a)') 'header: ', n, ' steps'
  open (unit=11, file=trim(path), position='append', action='write')
  do i = 0, 199
    write (11, '(a,i0)') 'setup line ', i
  end do
  close (11)
  call get_environment_variable('EARLY_STOP', stop, status=st)
  if (st == 0 .and. trim(stop) == '1') then
    flush (6)
    st = c_raise(9_c_int)
  end if
  x = 1.0d0
  do s = 0, n - 1
    call dao_potential_checkpoint()
    x = x * 1.000001d0 + s
    write (*, '(a,i0,1x,f0.6)') 'step ', s, x
  end do
  write (*, '(a,f0.6)') 'done ', x
end program early_output
