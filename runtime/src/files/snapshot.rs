//! At a checkpoint: each open file's position and state, every written
//! file's length and content or fingerprint, and their encoding in the
//! checkpoint (a dao-heap block that the runtime's module points to).
use super::journal::{hex, unhex, WRITTEN};
use super::real::{mtime_ns, stat_fd};
use super::table::{table, Entry, Saved};

/// A file the program wrote, as at a checkpoint: its length and either its
/// whole content (up to [`SAVE_MAX`] bytes) or a fingerprint of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub path: String,
    pub size: i64,
    pub fingerprint: u64,
    pub content: Option<Vec<u8>>,
}

/// Written files up to this size are saved whole in the checkpoint (a
/// restart writes them back exactly, whatever the program did to them
/// after the checkpoint: rewritten in place, cut, deleted); longer ones by
/// length and fingerprint (cut back; a change before their end stops the
/// restart).
pub const SAVE_MAX: i64 = 1 << 20;
/// Bytes at each end of a long file that its fingerprint covers.
const PRINT: i64 = 64 << 10;

/// xxh3 of the first and the last [`PRINT`] bytes of `[0, size)`; None when
/// the file is shorter than `size` or cannot be read.
pub(super) fn fingerprint(path: &str, size: i64) -> Option<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; (size.min(PRINT)) as usize];
    f.read_exact(&mut buf).ok()?;
    if size > PRINT {
        let start = (size - PRINT).max(PRINT);
        let mut tail = vec![0u8; (size - start) as usize];
        f.seek(SeekFrom::Start(start as u64)).ok()?;
        f.read_exact(&mut tail).ok()?;
        buf.extend_from_slice(&tail);
    }
    Some(xxhash_rust::xxh3::xxh3_64(&buf) ^ size as u64)
}

fn read_prefix(path: &str, size: i64) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; size as usize];
    f.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// After stdio was flushed: each open file's position and state, and every
/// written file's length and content or fingerprint.
pub fn snapshot() -> (Vec<Saved>, Vec<Written>) {
    let mut open = Vec::new();
    let fortran = crate::stdio::fortran_linked();
    for e in table().iter() {
        let Some(st) = stat_fd(e.fd) else { continue };
        let pos = if e.stream != 0 {
            // SAFETY: a stream the program holds open (in the table until
            // fclose).
            unsafe { libc::ftello(e.stream as *mut libc::FILE) }
        } else {
            // SAFETY: lseek on a descriptor number.
            unsafe { libc::lseek(e.fd, 0, libc::SEEK_CUR) }
        };
        let regular = st.st_mode & libc::S_IFMT == libc::S_IFREG;
        // a Fortran output unit (refuse.rs let only those through)
        let mut funit = if regular && e.stream == 0 && fortran { super::funit::inquire(&super::table::given_path(e.fd).unwrap_or_else(|| e.path.clone())).ok().flatten() } else { None };
        // an input unit: where it stands (refuse.rs let only countable ones through)
        if let Some(u) = funit.as_mut() {
            if u.action == "READ" {
                (u.pos, u.records) = super::funit::read_position(u, &e.path).unwrap_or((0, 0));
            } else {
                u.pos = super::funit::write_position(u, pos, st.st_size).unwrap_or(0);
            }
        }
        open.push(Saved { e: e.clone(), pos: pos.max(0), size: st.st_size, mtime_ns: mtime_ns(&st), regular, funit });
    }
    let paths = WRITTEN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut written = Vec::new();
    for p in paths {
        let Ok(md) = std::fs::metadata(&p) else { continue };
        if !md.is_file() {
            continue;
        }
        let size = md.len() as i64;
        let content = if size <= SAVE_MAX { read_prefix(&p, size) } else { None };
        let fingerprint = if content.is_some() { 0 } else { fingerprint(&p, size).unwrap_or(0) };
        written.push(Written { path: p, size, fingerprint, content });
    }
    (open, written)
}

/// The checkpoint's table: one line per open file,
/// `F fd group stream flags pos size mtime regular mode path`, after it for
/// a Fortran unit `U number access form action` (an input unit: `... pos records`), and per written
/// file `W size fingerprint content_len path` followed by content_len raw
/// bytes (-1: none); mode and paths hex-encoded.
pub fn encode(open: &[Saved], written: &[Written]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in open {
        out.extend_from_slice(
            format!(
                "F {} {} {} {} {} {} {} {} {} {}\n",
                s.e.fd,
                s.e.group,
                s.e.stream,
                s.e.flags,
                s.pos,
                s.size,
                s.mtime_ns,
                s.regular as u8,
                if s.e.mode.is_empty() { "-".into() } else { hex(&s.e.mode) },
                hex(&s.e.path)
            )
            .as_bytes(),
        );
        if let Some(u) = &s.funit {
            if u.pos != 0 {
                out.extend_from_slice(format!("U {} {} {} {} {} {}\n", u.number, hex(&u.access), hex(&u.form), hex(&u.action), u.pos, u.records).as_bytes());
            } else {
                out.extend_from_slice(format!("U {} {} {} {}\n", u.number, hex(&u.access), hex(&u.form), hex(&u.action)).as_bytes());
            }
        }
    }
    for w in written {
        let n = w.content.as_ref().map_or(-1, |c| c.len() as i64);
        out.extend_from_slice(format!("W {} {} {} {}\n", w.size, w.fingerprint, n, hex(&w.path)).as_bytes());
        if let Some(c) = &w.content {
            out.extend_from_slice(c);
        }
    }
    out
}

pub fn decode(mut b: &[u8]) -> Option<(Vec<Saved>, Vec<Written>)> {
    let (mut open, mut written) = (Vec::new(), Vec::new());
    while !b.is_empty() {
        let nl = b.iter().position(|&c| c == b'\n')?;
        let line = std::str::from_utf8(&b[..nl]).ok()?;
        b = &b[nl + 1..];
        let w: Vec<&str> = line.split(' ').collect();
        match w[0] {
            "F" if w.len() == 11 => open.push(Saved {
                e: Entry {
                    fd: w[1].parse().ok()?,
                    group: w[2].parse().ok()?,
                    stream: w[3].parse().ok()?,
                    flags: w[4].parse().ok()?,
                    mode: if w[9] == "-" { String::new() } else { unhex(w[9])? },
                    path: unhex(w[10])?,
                    refuse: false,
                },
                pos: w[5].parse().ok()?,
                size: w[6].parse().ok()?,
                mtime_ns: w[7].parse().ok()?,
                regular: w[8] == "1",
                funit: None,
            }),
            "U" if w.len() == 5 || w.len() == 7 => {
                let s: &mut Saved = open.last_mut()?;
                let (pos, records) = if w.len() == 7 { (w[5].parse().ok()?, w[6].parse().ok()?) } else { (0, 0) };
                s.funit = Some(super::funit::Unit { number: w[1].parse().ok()?, access: unhex(w[2])?, form: unhex(w[3])?, action: unhex(w[4])?, pos, records });
            }
            "W" if w.len() == 5 => {
                let n: i64 = w[3].parse().ok()?;
                let content = if n >= 0 {
                    let n = n as usize;
                    if b.len() < n {
                        return None;
                    }
                    let c = b[..n].to_vec();
                    b = &b[n..];
                    Some(c)
                } else {
                    None
                };
                written.push(Written { size: w[1].parse().ok()?, fingerprint: w[2].parse().ok()?, content, path: unhex(w[4])? });
            }
            _ => return None,
        }
    }
    Some((open, written))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(path: &str, flags: i32) -> Saved {
        Saved { e: Entry { fd: 5, path: path.into(), flags, stream: 0x7000_0000_1000, mode: "a+".into(), group: 3, refuse: false }, pos: 17, size: 40, mtime_ns: 1_700_000_000_123_456_789, regular: true, funit: None }
    }

    #[test]
    fn encode_decode_round_trip() {
        let unit = crate::files::funit::Unit { number: -10, access: "SEQUENTIAL".into(), form: "FORMATTED".into(), action: "WRITE".into(), ..Default::default() };
        let input = crate::files::funit::Unit { number: 12, access: "SEQUENTIAL".into(), form: "UNFORMATTED".into(), action: "READ".into(), pos: 4097, records: 9 };
        let open = vec![
            saved("/tmp/a b\u{e9}/out.txt", libc::O_WRONLY | libc::O_APPEND),
            Saved { e: Entry { mode: String::new(), stream: 0, ..saved("/x", 0).e }, ..saved("/x", 0) },
            Saved { e: Entry { mode: String::new(), stream: 0, ..saved("/log", libc::O_WRONLY).e }, funit: Some(unit), ..saved("/log", libc::O_WRONLY) },
            Saved { e: Entry { mode: String::new(), stream: 0, ..saved("/deck", libc::O_RDONLY).e }, funit: Some(input), ..saved("/deck", libc::O_RDONLY) },
        ];
        let written = vec![
            Written { path: "/tmp/w1".into(), size: 5, fingerprint: 0, content: Some(b"a\nb\n\0".to_vec()) },
            Written { path: "/tmp/big".into(), size: 1 << 30, fingerprint: 77, content: None },
        ];
        assert_eq!(decode(&encode(&open, &written)), Some((open, written)));
        assert_eq!(decode(b"F 1 2 3\n"), None);
        assert_eq!(decode(b"U 11 41 41 41\n"), None, "a unit line before any file");
        assert_eq!(decode(b"W 5 0 9 2f78\nabc"), None, "content cut short");
        assert_eq!(decode(b""), Some((vec![], vec![])));
    }
}
