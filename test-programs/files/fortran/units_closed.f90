! units_closed.f90 -- Fortran units opened and closed between checkpoints,
! and one held open across markers.
!
! Exercises (issue #31): each step appends a line to a results file through
! a unit opened (position='append') and closed within the step, with the
! marker outside it: checkpoints are taken and a restart continues the
! file. A second unit, an input file opened for reading at the start and
! read one line a step for the first `hold` steps, is put back at its read
! position by a restart (input_decks.f90); opened with ACCESS='STREAM'
! (a fourth argument `stream`) it refuses the checkpoints while it is open
! (dao cannot put a stream unit's read position back yet: a warning names
! the file) and they are taken again once it is closed. Arguments: the
! directory, the number of steps, hold, and optionally `stream`.
!
! Invariant: the results file and the standard output equal those of an
! uninterrupted run (its length and a digest are printed at the end).
program units_closed
  use dao
  implicit none
  character(len=512) :: dir, arg, access
  character(len=600) :: rpath, hpath
  integer :: i, n, hold, ios, k
  real(8) :: s
  integer(8) :: h, nb
  character(len=1) :: ch
  n = 60
  hold = 6
  dir = '.'
  if (command_argument_count() > 0) call get_command_argument(1, dir)
  if (command_argument_count() > 1) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  if (command_argument_count() > 2) then
    call get_command_argument(3, arg)
    read (arg, *) hold
  end if
  access = 'sequential'
  if (command_argument_count() > 3) call get_command_argument(4, access)
  ! paths joined outside main's body (a concatenation's temporary is a
  ! variable-size stack allocation: moved to the heap by the pass since
  ! 2026-12-02, refused before)
  call join(dir, 'results.txt', rpath)
  call join(dir, 'held.txt', hpath)
  open (unit=11, file=rpath, status='replace', action='write')
  close (11)
  open (unit=12, file=hpath, status='replace', action='write')
  do i = 1, hold
    write (12, '(i5)') i * 3
  end do
  close (12)
  open (unit=12, file=hpath, status='old', action='read', access=trim(access), form='formatted')
  s = 0.0d0
  do i = 1, n
    call dao_potential_checkpoint()
    s = s * 0.75d0 + real(mod(i * 7, 13), 8)
    open (unit=11, file=rpath, position='append', action='write')
    write (11, '(a,i5,f16.6)') 'step', i, s
    close (11)
    if (i <= hold) then
      read (12, *) k
      s = s + real(k, 8) * 1.0d-3
    end if
    if (i == hold) close (12)
    call spin()
  end do
  print '(a,f16.6)', 'sum ', s
  ! digest of the results file, read back byte by byte
  open (unit=13, file=rpath, access='stream', form='unformatted', action='read')
  h = 1469598103_8
  nb = 0
  do
    read (13, iostat=ios) ch
    if (ios /= 0) exit
    h = ieor(h, int(ichar(ch), 8)) * 1099511_8
    h = iand(h, 2147483647_8)
    nb = nb + 1
  end do
  close (13)
  print '(a,i0,a,i0)', 'results.txt bytes ', nb, ' digest ', h
contains
  subroutine join(d, name, out)
    character(len=*), intent(in) :: d, name
    character(len=600), intent(out) :: out
    out = trim(d)//'/'//name
  end subroutine
  subroutine spin()
    integer :: k
    real(8), volatile :: x
    x = 0
    do k = 1, 200000
      x = x + 1.0d0
    end do
  end subroutine
end program
