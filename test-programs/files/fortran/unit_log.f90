! unit_log.f90 -- Fortran output units held open across checkpoints.
!
! The shape of CloverLeaf's clover.out and of most Fortran codes' logs: a
! unit opened with ACTION='WRITE' before the main loop and written at
! every step across the markers, closed at the end; a second one opened
! with NEWUNIT= and the default action (READWRITE), unformatted stream
! access, written every third step; a third, `old.log`, opened with
! ACTION='WRITE' and no STATUS on a longer file an earlier run left
! (TeaLeaf's `tea.out`: flang writes over it from the start and deletes
! what follows its last record at CLOSE), written every second step.
! Arguments: the directory for the files and the number of steps.
!
! Invariant: both files, and the standard output, end as in an
! uninterrupted run: at a restart dao cuts each file back to its size at
! the checkpoint and opens the unit again with POSITION='APPEND'
! (runtime/src/files/funit.rs); old.log it cuts after its last record and
! appends to. The end prints each file's length and digest, so the output
! comparison covers them.
program unit_log
  use dao
  implicit none
  character(len=512) :: dir, arg
  character(len=600) :: lpath, bpath, opath
  integer :: i, n, ub
  real(8) :: s
  n = 60
  call get_command_argument(1, dir)
  if (command_argument_count() > 1) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  lpath = trim(dir) // '/run.log'
  bpath = trim(dir) // '/series.bin'
  opath = trim(dir) // '/old.log'
  ! what an earlier run left: longer than what this run writes
  open (unit=23, file=opath, status='replace', action='write')
  do i = 1, 4 * n
    write (23, '(a)') 'an earlier run''s line, longer than this run writes'
  end do
  close (23)
  open (unit=23, file=opath, action='write')
  open (unit=21, file=lpath, status='replace', action='write')
  open (newunit=ub, file=bpath, status='replace', access='stream', form='unformatted')
  write (21, '(a,i0,a)') 'run of ', n, ' steps'
  s = 0.0d0
  do i = 1, n
    call dao_potential_checkpoint()
    s = s * 0.75d0 + real(mod(i * 7, 13), 8)
    write (21, '(a,i5,f16.6)') 'step', i, s
    if (mod(i, 3) == 0) write (ub) i, s
    if (mod(i, 2) == 0) write (23, '(i6,f14.4)') i, s
    call spin()
  end do
  write (21, '(a)') 'done'
  close (21)
  close (ub)
  close (23)
  print '(a,f16.6)', 'sum ', s
  call digest(lpath, 'run.log')
  call digest(bpath, 'series.bin')
  call digest(opath, 'old.log')
contains
  subroutine digest(path, name)
    character(len=*), intent(in) :: path, name
    integer :: u, ios
    integer(8) :: h, nb
    character(len=1) :: ch
    open (newunit=u, file=path, access='stream', form='unformatted', action='read')
    h = 1469598103_8
    nb = 0
    do
      read (u, iostat=ios) ch
      if (ios /= 0) exit
      h = ieor(h, int(ichar(ch), 8)) * 1099511_8
      h = iand(h, 2147483647_8)
      nb = nb + 1
    end do
    close (u)
    print '(a,a,i0,a,i0)', name, ' bytes ', nb, ' digest ', h
  end subroutine
  subroutine spin()
    integer :: k
    real(8), volatile :: x
    x = 0
    do k = 1, 200000
      x = x + 1.0d0
    end do
  end subroutine
end program unit_log
