! input_decks.f90 -- Fortran input units held open across checkpoints.
!
! The shape of CloverLeaf's clover.in and TeaLeaf's tea.in (github
! UK-MAC): an input deck opened with NEWUNIT= and ACTION='READ', read to
! its end at the start and never closed; and two data files read as the
! steps go: a formatted one (several values per line, list-directed, one
! line every step) on unit 31 and an unformatted sequential one (one record
! every second step) on unit 32. The program writes its inputs itself
! (deck.in, rows.txt, records.bin in the directory given), then runs.
! Arguments: the directory and the number of steps.
!
! Invariant: the standard output equals an uninterrupted run's: at a
! restart dao opens each unit again, rewound, and reads past as many
! records as stood before its position at the checkpoint, then checks
! that position (INQUIRE(POS=); runtime/src/files/funit.rs).
program input_decks
  use dao
  implicit none
  character(len=512) :: dir, arg
  character(len=600) :: dpath, rpath, bpath
  character(len=32) :: key
  integer :: i, n, ud, ios, k, m
  real(8) :: s, scale, a, b, c
  real(8) :: rec(5)
  n = 40
  call get_command_argument(1, dir)
  if (command_argument_count() > 1) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  dpath = trim(dir) // '/deck.in'
  rpath = trim(dir) // '/rows.txt'
  bpath = trim(dir) // '/records.bin'
  ! the inputs
  open (unit=30, file=dpath, status='replace', action='write')
  write (30, '(a)') '*deck'
  write (30, '(a)') 'scale 1.25'
  write (30, '(a)') 'offset 3'
  write (30, '(a)') '*end'
  close (30)
  open (unit=30, file=rpath, status='replace', action='write')
  do i = 1, n + 2
    write (30, '(3f12.4)') i * 0.5d0, mod(i * 7, 11) * 1.0d0, 1.0d0 / i
  end do
  close (30)
  open (unit=30, file=bpath, status='replace', action='write', form='unformatted')
  do i = 1, n
    rec = [(real(i * m, 8), m = 1, 5)]
    write (30) i, rec(1:mod(i, 5) + 1)
  end do
  close (30)
  ! the deck: read to its end, held open
  open (newunit=ud, file=dpath, status='old', action='read')
  scale = 1.0d0
  k = 0
  do
    read (ud, *, iostat=ios) key
    if (ios /= 0) exit
    if (key == 'scale') then
      backspace (ud)
      read (ud, *) key, scale
    else if (key == 'offset') then
      backspace (ud)
      read (ud, *) key, k
    end if
  end do
  open (unit=31, file=rpath, status='old', action='read')
  open (unit=32, file=bpath, status='old', action='read', form='unformatted')
  s = k
  do i = 1, n
    call dao_potential_checkpoint()
    read (31, *) a, b, c
    s = s * 0.5d0 + scale * (a + b * c)
    if (mod(i, 2) == 0) then
      read (32) m, rec(1:mod(i / 2, 5) + 1)
      s = s + m + sum(rec(1:mod(i / 2, 5) + 1)) * 1.0d-3
    end if
    print '(a,i0,a,f18.8)', 'step ', i, ' s ', s
  end do
  close (31)
  close (32)
  print '(a,f18.8)', 'sum ', s
end program
