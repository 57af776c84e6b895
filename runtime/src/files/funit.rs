//! Fortran units held open across a checkpoint: output units, and input
//! units of sequential access.
//!
//! flang's runtime (libFortranRuntime.a, linked statically, not built with
//! dao) keeps each connected unit in an object of its own: unit number,
//! file descriptor, access, form, position, buffers. Its objects are in the
//! dao heap, but the map that finds them is in the runtime library's own
//! static data, which no checkpoint holds: after a restart no unit but the
//! standard ones is connected. So the unit is opened again through flang's
//! I/O API, as the program's OPEN statement would.
//!
//! **Which units.** At a checkpoint, the descriptors the program opened
//! with `open(2)` in a program linked with flang's runtime are looked up
//! with `INQUIRE(FILE=path)`: one that no unit is connected to is a plain
//! descriptor (C code's `open`), put back as such. A connected unit is
//! flushed (`FLUSH(unit)`) and is put back when it is open for writing
//! (`ACTION='WRITE'` or `'READWRITE'`), with sequential or stream access,
//! and its descriptor stands at the end of the file: its next record goes
//! after everything written so far, which `POSITION='APPEND'` reproduces
//! exactly. A unit open for reading (`ACTION='READ'`) with sequential
//! access is put back at its read position: `INQUIRE(UNIT=, POS=)` gives
//! the byte of its next record (flang answers it for sequential units
//! too), and the records before it are counted in the file (newlines of a
//! formatted file, the record markers of an unformatted one); a position
//! inside a record (a non-advancing read) refuses. Any other unit (one
//! rewound while being written, stream or direct access being read, direct
//! access) refuses the checkpoint while it is open, naming it (refuse.rs).
//!
//! **At a restart** the file is first cut back (or written back) to its
//! size at the checkpoint, like every file the program wrote (restore.rs),
//! then `OPEN(UNIT=n, FILE=path, STATUS='OLD', ACTION=, ACCESS=, FORM=,
//! POSITION='APPEND')` runs with an IOSTAT handler (an error stops the
//! restart naming the file), as the program: its `open(2)` is recorded by
//! the table like the program's own. An input unit is opened with
//! `POSITION='REWIND'` and as many records as stood before its position
//! are read past (`READ(n,*)` or `READ(n)` with no items); then its
//! `INQUIRE(POS=)` must be the checkpoint's, or the restart stops. Its file
//! is checked unchanged (size and modification time) like every open file.
//!
//! The entry points are weak references (0 when the program does not link
//! flang's runtime): a program that opened a unit links `io-api.cpp.o`,
//! which defines all of them.
use std::ffi::{c_char, c_int, c_void};

core::arch::global_asm!(
    ".weak _FortranAioBeginInquireFile",
    ".weak _FortranAioInquireInteger64",
    ".weak _FortranAioInquireCharacter",
    ".weak _FortranAioBeginOpenUnit",
    ".weak _FortranAioEnableHandlers",
    ".weak _FortranAioSetFile",
    ".weak _FortranAioSetStatus",
    ".weak _FortranAioSetAction",
    ".weak _FortranAioSetAccess",
    ".weak _FortranAioSetForm",
    ".weak _FortranAioSetPosition",
    ".weak _FortranAioBeginFlush",
    ".weak _FortranAioEndIoStatement",
    ".weak _FortranAioBeginOpenNewUnit",
    ".weak _FortranAioGetNewUnit",
    ".weak _FortranAioBeginClose",
    ".weak _FortranAioBeginInquireUnit",
    ".weak _FortranAioBeginExternalListInput",
    ".weak _FortranAioBeginUnformattedInput",
    ".pushsection .data.dao_rt_fortran_units,\"aw\"",
    ".balign 8",
    ".globl dao_rt_fortran_units",
    ".hidden dao_rt_fortran_units",
    "dao_rt_fortran_units:",
    ".8byte _FortranAioBeginInquireFile",
    ".8byte _FortranAioInquireInteger64",
    ".8byte _FortranAioInquireCharacter",
    ".8byte _FortranAioBeginOpenUnit",
    ".8byte _FortranAioEnableHandlers",
    ".8byte _FortranAioSetFile",
    ".8byte _FortranAioSetStatus",
    ".8byte _FortranAioSetAction",
    ".8byte _FortranAioSetAccess",
    ".8byte _FortranAioSetForm",
    ".8byte _FortranAioSetPosition",
    ".8byte _FortranAioBeginFlush",
    ".8byte _FortranAioEndIoStatement",
    ".8byte _FortranAioBeginOpenNewUnit",
    ".8byte _FortranAioGetNewUnit",
    ".8byte _FortranAioBeginClose",
    ".8byte _FortranAioBeginInquireUnit",
    ".8byte _FortranAioBeginExternalListInput",
    ".8byte _FortranAioBeginUnformattedInput",
    ".popsection",
);

/// Entry points in the table above.
const N_API: usize = 19;

extern "C" {
    static dao_rt_fortran_units: [usize; N_API];
}

type Cookie = *mut c_void;
type BeginInquireFile = unsafe extern "C" fn(*const c_char, usize, *const c_char, c_int) -> Cookie;
type InquireInteger64 = unsafe extern "C" fn(Cookie, u64, *mut i64, c_int) -> bool;
type InquireCharacter = unsafe extern "C" fn(Cookie, u64, *mut c_char, usize) -> bool;
type BeginUnit = unsafe extern "C" fn(c_int, *const c_char, c_int) -> Cookie;
type EnableHandlers = unsafe extern "C" fn(Cookie, bool, bool, bool, bool, bool);
type SetChars = unsafe extern "C" fn(Cookie, *const c_char, usize) -> bool;
type EndIo = unsafe extern "C" fn(Cookie) -> c_int;
type BeginNewUnit = unsafe extern "C" fn(*const c_char, c_int) -> Cookie;
type GetNewUnit = unsafe extern "C" fn(Cookie, *mut c_int, c_int) -> bool;

/// flang's `HashInquiryKeyword`: the keyword's letters in base 26.
fn hash(k: &str) -> u64 {
    k.bytes().fold(1u64, |h, c| 26 * h + (c.to_ascii_uppercase() - b'A') as u64)
}

/// The entry points, when every one is linked.
fn api() -> Option<[usize; N_API]> {
    // SAFETY: reading the table emitted above.
    let t = unsafe { std::ptr::addr_of!(dao_rt_fortran_units).read_volatile() };
    t.iter().all(|&a| a != 0).then_some(t)
}

/// A connected Fortran unit as a checkpoint records it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unit {
    pub number: i32,
    /// `SEQUENTIAL`, `STREAM` or `DIRECT`.
    pub access: String,
    /// `FORMATTED` or `UNFORMATTED`.
    pub form: String,
    /// `READ`, `WRITE` or `READWRITE`.
    pub action: String,
    /// An input unit: its `INQUIRE(POS=)` (1-based byte of the next
    /// record) and the records before it. An output unit: 0 at its file's
    /// end, else its `POS=` ([`write_position`]); `records` 0.
    pub pos: i64,
    pub records: u64,
}

impl Unit {
    /// Why a checkpoint cannot put this unit back, or None.
    pub fn refusal(&self) -> Option<&'static str> {
        if self.action == "READ" && self.access != "SEQUENTIAL" {
            return Some("it is open for reading with stream or direct access, whose read position dao cannot put back yet");
        }
        if self.access == "DIRECT" {
            return Some("it has direct access, which dao cannot put back yet");
        }
        None
    }
}

const SRC: &std::ffi::CStr = c"dao runtime";

/// The unit connected to `path` (`INQUIRE(FILE=path, NUMBER=, ACCESS=,
/// FORM=, ACTION=)`): `Ok(None)` when none is (or the runtime is not
/// linked: then `Err`).
pub fn inquire(path: &str) -> Result<Option<Unit>, ()> {
    let t = api().ok_or(())?;
    // SAFETY: the entry points of flang's runtime with their declared
    // signatures (flang/Runtime/io-api.h of LLVM 19); the cookie is used
    // only between its Begin and End calls; buffers outlive the calls.
    unsafe {
        let begin: BeginInquireFile = std::mem::transmute(t[0]);
        let int64: InquireInteger64 = std::mem::transmute(t[1]);
        let chars: InquireCharacter = std::mem::transmute(t[2]);
        let handlers: EnableHandlers = std::mem::transmute(t[4]);
        let end: EndIo = std::mem::transmute(t[12]);
        let c = begin(path.as_ptr() as *const c_char, path.len(), SRC.as_ptr(), 0);
        if c.is_null() {
            return Err(());
        }
        handlers(c, true, false, false, false, false);
        let mut number: i64 = -1;
        let ok = int64(c, hash("NUMBER"), &mut number, 8);
        let text = |k: &str| {
            let mut b = [b' ' as c_char; 16];
            chars(c, hash(k), b.as_mut_ptr(), b.len());
            String::from_utf8_lossy(&b.map(|x| x as u8)).trim().to_ascii_uppercase()
        };
        let (access, form, action) = (text("ACCESS"), text("FORM"), text("ACTION"));
        let st = end(c);
        if !ok || st != 0 {
            return Err(());
        }
        if number == -1 {
            return Ok(None);
        }
        Ok(Some(Unit { number: number as i32, access, form, action, pos: 0, records: 0 }))
    }
}

/// `INQUIRE(UNIT=number, POS=)`.
fn inquire_pos(t: &[usize; N_API], number: i32) -> Option<i64> {
    // SAFETY: as in inquire().
    unsafe {
        let begin: BeginUnit = std::mem::transmute(t[16]);
        let int64: InquireInteger64 = std::mem::transmute(t[1]);
        let handlers: EnableHandlers = std::mem::transmute(t[4]);
        let end: EndIo = std::mem::transmute(t[12]);
        let c = begin(number, SRC.as_ptr(), 0);
        if c.is_null() {
            return None;
        }
        handlers(c, true, false, false, false, false);
        let mut pos: i64 = -1;
        let ok = int64(c, hash("POS"), &mut pos, 8);
        (end(c) == 0 && ok && pos >= 1).then_some(pos)
    }
}

/// The records of `file` before byte `before` (0-based), which must start
/// one: newlines of a formatted file; record markers of an unformatted one
/// (flang's 4-byte lengths, before and after each record).
pub fn records_before(file: &[u8], before: usize, formatted: bool) -> Result<u64, &'static str> {
    if before > file.len() {
        return Err("its position is past the end of its file");
    }
    if formatted {
        if before > 0 && file[before - 1] != b'\n' {
            return Err("it stands inside a record (a non-advancing read), which dao cannot put back yet");
        }
        return Ok(file[..before].iter().filter(|&&b| b == b'\n').count() as u64);
    }
    let (mut at, mut n) = (0usize, 0u64);
    while at < before {
        let Some(m) = file.get(at..at + 4) else { return Err("its records do not end at its position") };
        let len = i32::from_le_bytes([m[0], m[1], m[2], m[3]]);
        if len < 0 {
            return Err("it holds records split into subrecords, which dao cannot count yet");
        }
        at += 8 + len as usize;
        n += 1;
    }
    if at == before {
        Ok(n)
    } else {
        Err("its records do not end at its position")
    }
}

/// The read position of input unit `u` on `path`: (POS, records before it).
/// Counting reads the file up to the position; the count is kept for the
/// next checkpoint at the same position of the same file.
pub fn read_position(u: &Unit, path: &str) -> Result<(i64, u64), String> {
    static SEEN: std::sync::Mutex<Vec<(String, i64, u64, u64)>> = std::sync::Mutex::new(Vec::new());
    let t = api().ok_or_else(|| "flang's runtime is not linked".to_string())?;
    let pos = inquire_pos(&t, u.number).ok_or_else(|| "flang's runtime gave no read position for it".to_string())?;
    let size = std::fs::metadata(path).map(|m| m.len()).map_err(|e| format!("its file cannot be read ({e})"))?;
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, _, _, n)) = seen.iter().find(|(p, q, sz, _)| p == path && *q == pos && *sz == size) {
        return Ok((pos, n));
    }
    let mut file = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(std::fs::File::open(path).map_err(|e| format!("its file cannot be read ({e})"))?, (pos - 1) as u64), &mut file).map_err(|e| format!("its file cannot be read ({e})"))?;
    let n = records_before(&file, (pos - 1) as usize, u.form != "UNFORMATTED").map_err(|w| w.to_string())?;
    seen.retain(|(p, ..)| p != path);
    seen.push((path.to_string(), pos, size, n));
    Ok((pos, n))
}

/// Where output unit `u` (flushed) stands: 0 at its file's end (`offset`
/// of its descriptor = `size`), which `POSITION='APPEND'` reproduces; or,
/// for an `ACTION='WRITE'` sequential unit opened on a longer file
/// without `STATUS='REPLACE'` (TeaLeaf's `tea.out` left by an earlier
/// run), its `INQUIRE(POS=)` when the descriptor stands there: flang
/// deletes what follows the last record a unit wrote at its CLOSE (or at
/// the program's end), so the restart cuts the file there and appends;
/// POS=1 (nothing written yet: the old file stays whole until a write)
/// opens it rewound, uncut.
pub fn write_position(u: &Unit, offset: i64, size: i64) -> Result<i64, &'static str> {
    if offset == size {
        return Ok(0);
    }
    let why = "it does not stand at the end of its file (rewound or read), which dao cannot put back yet";
    if u.action != "WRITE" || u.access != "SEQUENTIAL" {
        return Err(why);
    }
    let t = api().ok_or(why)?;
    match inquire_pos(&t, u.number) {
        Some(p) if p - 1 == offset => Ok(p),
        _ => Err(why),
    }
}

/// `FLUSH(number)`: the unit's buffered records reach its file.
pub fn flush(number: i32) {
    let Some(t) = api() else { return };
    // SAFETY: as in inquire().
    unsafe {
        let begin: BeginUnit = std::mem::transmute(t[11]);
        let handlers: EnableHandlers = std::mem::transmute(t[4]);
        let end: EndIo = std::mem::transmute(t[12]);
        let c = begin(number, SRC.as_ptr(), 0);
        if !c.is_null() {
            handlers(c, true, false, false, false, false);
            end(c);
        }
    }
}

/// Sets an OPEN statement's specifiers, with the IOSTAT handler:
/// `FILE=path, STATUS='OLD', ACTION=, ACCESS=, FORM=, POSITION='APPEND'`.
///
/// # Safety
/// `c` is a cookie of an OPEN statement just begun with `t`'s entry points.
unsafe fn set_specs(t: &[usize; N_API], c: Cookie, u: &Unit, path: &str) {
    let handlers: EnableHandlers = std::mem::transmute(t[4]);
    let set = |i: usize, v: &str| {
        let f: SetChars = std::mem::transmute(t[i]);
        f(c, v.as_ptr() as *const c_char, v.len())
    };
    handlers(c, true, false, false, false, false);
    set(5, path);
    set(6, "OLD");
    set(7, &u.action);
    set(8, &u.access);
    set(9, &u.form);
    if u.action == "READ" || u.pos == 1 {
        set(10, "REWIND");
    } else if u.access != "DIRECT" {
        set(10, "APPEND");
    }
}

/// An input unit just opened again (rewound): read past the records before
/// its checkpointed position, then check that position.
///
/// # Safety
/// `t` holds flang's entry points (api()).
unsafe fn read_to(t: &[usize; N_API], u: &Unit, path: &str) -> Result<(), String> {
    if u.action != "READ" {
        return Ok(());
    }
    let handlers: EnableHandlers = std::mem::transmute(t[4]);
    let end: EndIo = std::mem::transmute(t[12]);
    let begin: BeginUnit = std::mem::transmute(if u.form == "UNFORMATTED" { t[18] } else { t[17] });
    for k in 0..u.records {
        let c = begin(u.number, SRC.as_ptr(), 0);
        if c.is_null() {
            return Err(format!("cannot read Fortran unit {} on '{path}' back to its position: record {} could not be read", u.number, k + 1));
        }
        handlers(c, true, false, true, false, false);
        let st = end(c);
        if st != 0 {
            return Err(format!("cannot read Fortran unit {} on '{path}' back to its position: reading record {} gave IOSTAT={st}", u.number, k + 1));
        }
    }
    match inquire_pos(t, u.number) {
        Some(p) if p == u.pos => Ok(()),
        p => Err(format!("cannot read Fortran unit {} on '{path}' back to its position: after {} records it stands at byte {} where the checkpointed run stood at {}", u.number, u.records, p.unwrap_or(-1), u.pos)),
    }
}

/// Opens the units of a checkpoint again, each on its file (`path`, cut
/// back already), as `OPEN(UNIT=, FILE=, STATUS='OLD', ACTION=, ACCESS=,
/// FORM=, POSITION='APPEND')` with IOSTAT. A unit of a positive number is
/// opened on that number; the negative ones (`NEWUNIT=`) come from flang's
/// own numbering, which a fresh runtime hands out from -2 down: they are
/// opened in that order, a number the checkpoint does not hold taken by a
/// placeholder on `/dev/null` and closed again once all are open (so it is
/// free again, as it was); a number other than the expected one stops the
/// restart.
pub fn reopen_all(units: &[(&Unit, &str)]) -> Result<(), String> {
    if units.is_empty() {
        return Ok(());
    }
    let t = api().ok_or_else(|| format!("cannot open Fortran unit {} on '{}' again: flang's I/O runtime is not linked", units[0].0.number, units[0].1))?;
    let failed = |u: &Unit, path: &str, st: c_int| format!("cannot open Fortran unit {} on '{path}' again (OPEN with STATUS='OLD', POSITION='{}' gave IOSTAT={st})", u.number, if u.action == "READ" || u.pos == 1 { "REWIND" } else { "APPEND" });
    // an output unit that stood before its file's end: what follows its
    // last record goes (flang would delete it at CLOSE)
    for &(u, path) in units.iter().filter(|(u, _)| u.action != "READ" && u.pos > 1) {
        std::fs::OpenOptions::new().write(true).open(path).and_then(|f| f.set_len((u.pos - 1) as u64)).map_err(|e| format!("cannot cut '{path}' (Fortran unit {}) back to its last record: {e}", u.number))?;
    }
    // SAFETY: flang's entry points with their declared signatures (as in
    // inquire()); each cookie is used between its Begin and End only.
    unsafe {
        let begin: BeginUnit = std::mem::transmute(t[3]);
        let end: EndIo = std::mem::transmute(t[12]);
        for &(u, path) in units.iter().filter(|(u, _)| u.number >= 0) {
            let c = begin(u.number, SRC.as_ptr(), 0);
            if c.is_null() {
                return Err(failed(u, path, -1));
            }
            set_specs(&t, c, u, path);
            let st = end(c);
            if st != 0 {
                return Err(failed(u, path, st));
            }
            read_to(&t, u, path)?;
        }
        let mut want: Vec<(&Unit, &str)> = units.iter().copied().filter(|(u, _)| u.number < 0).collect();
        let begin_new: BeginNewUnit = std::mem::transmute(t[13]);
        let get_new: GetNewUnit = std::mem::transmute(t[14]);
        let close: BeginUnit = std::mem::transmute(t[15]);
        let lowest = want.iter().map(|(u, _)| u.number).min().unwrap_or(0);
        let mut placeholders = Vec::new();
        let placeholder = Unit { number: 0, access: "SEQUENTIAL".into(), form: "FORMATTED".into(), action: "WRITE".into(), pos: 0, records: 0 };
        // flang gives GetNewUnit only after FILE=: the number is the one
        // expected next (-2 down), the file the one of the unit that had it
        let mut n = -2;
        while n >= lowest {
            let (u, path) = match want.iter().position(|(u, _)| u.number == n) {
                Some(k) => want.remove(k),
                None => (&placeholder, "/dev/null"),
            };
            let c = begin_new(SRC.as_ptr(), 0);
            if c.is_null() {
                return Err(failed(u, path, -1));
            }
            set_specs(&t, c, u, path);
            let mut got: c_int = 0;
            let ok = get_new(c, &mut got, 4);
            let st = end(c);
            if !ok || got != n {
                return Err(format!("cannot open Fortran unit {} on '{path}' again: flang's runtime gave NEWUNIT= number {got} where the checkpointed run had {n}", u.number));
            }
            if st != 0 {
                return Err(failed(u, path, st));
            }
            read_to(&t, u, path)?;
            if std::ptr::eq(u, &placeholder) {
                placeholders.push(n);
            }
            n -= 1;
        }
        for n in placeholders {
            let c = close(n, SRC.as_ptr(), 0);
            if !c.is_null() {
                end(c);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes flang's `HashInquiryKeyword` gives (base 26, from 1).
    #[test]
    fn keyword_hashes_match_flangs() {
        assert_eq!(hash("A"), 26);
        assert_eq!(hash("NUMBER"), hash("number"));
        let by_hand = [b'F', b'O', b'R', b'M'].iter().fold(1u64, |h, c| 26 * h + (c - b'A') as u64);
        assert_eq!(hash("FORM"), by_hand);
    }

    #[test]
    fn stream_reads_and_direct_units_are_refused() {
        let u = |action: &str, access: &str| Unit { number: 11, access: access.into(), form: "FORMATTED".into(), action: action.into(), ..Unit::default() };
        assert!(u("WRITE", "SEQUENTIAL").refusal().is_none());
        assert!(u("READWRITE", "STREAM").refusal().is_none());
        assert!(u("READ", "SEQUENTIAL").refusal().is_none());
        assert!(u("READ", "STREAM").refusal().unwrap().contains("reading"));
        assert!(u("WRITE", "DIRECT").refusal().unwrap().contains("direct"));
    }

    #[test]
    fn records_before_a_position() {
        let f = b"one\ntwo two\n\nlast\n";
        assert_eq!(records_before(f, 0, true), Ok(0));
        assert_eq!(records_before(f, 4, true), Ok(1));
        assert_eq!(records_before(f, 13, true), Ok(3));
        assert_eq!(records_before(f, f.len(), true), Ok(4));
        assert!(records_before(f, 5, true).unwrap_err().contains("inside a record"));
        assert!(records_before(f, 99, true).is_err());
        // unformatted: [len][bytes][len]
        let rec = |n: usize| {
            let mut v = (n as i32).to_le_bytes().to_vec();
            v.extend(std::iter::repeat_n(7u8, n));
            v.extend((n as i32).to_le_bytes());
            v
        };
        let u: Vec<u8> = [rec(24), rec(4), rec(0)].concat();
        assert_eq!(records_before(&u, 0, false), Ok(0));
        assert_eq!(records_before(&u, 32, false), Ok(1));
        assert_eq!(records_before(&u, 44, false), Ok(2));
        assert_eq!(records_before(&u, 52, false), Ok(3));
        assert!(records_before(&u, 30, false).is_err());
        let mut split = u.clone();
        split[..4].copy_from_slice(&(-24i32).to_le_bytes());
        assert!(records_before(&split, 32, false).unwrap_err().contains("subrecords"));
    }
}
