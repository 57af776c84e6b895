//! At a restart: every file checked first (a problem stops the restart
//! before anything is changed), then the written files put back, the files
//! first written after the checkpoint cut back (the journal), and the open
//! ones reopened on their descriptors, each stream's `FILE` rebuilt at its
//! address.
use std::ffi::c_int;

use super::alloc::with_redirect;
use super::journal::{read_journal, WRITTEN};
use super::real::{real_close, real_dup, real_dup2, real_fdopen, real_open, stat_fd};
use super::snapshot::{fingerprint, Written};
use super::table::{table, writable, Saved};

/// What is wrong with putting the open file `s` back now (nothing changed).
/// A written file whose content the checkpoint holds is always put back
/// (written anew), unless its path is now something else than a file.
pub fn check(s: &Saved, saved_whole: bool) -> Option<String> {
    if !s.regular {
        // a character device (/dev/null): reopened by name
        return std::fs::metadata(&s.e.path).is_err().then(|| format!("'{}' no longer exists", s.e.path));
    }
    let md = match std::fs::metadata(&s.e.path) {
        Ok(m) => m,
        Err(_) if saved_whole => return None,
        Err(_) => return Some(format!("'{}', open at the checkpoint, no longer exists (deleted or moved)", s.e.path)),
    };
    if !md.is_file() {
        return Some(format!("'{}', a regular file at the checkpoint, is no longer one (a directory or device now)", s.e.path));
    }
    use std::os::unix::fs::MetadataExt;
    let size = md.size() as i64;
    if writable(s.e.flags) {
        if size < s.size && !saved_whole {
            return Some(format!("'{}' is shorter than at the checkpoint ({size} bytes, was {}): what the program wrote before it is lost", s.e.path, s.size));
        }
    } else {
        let mt = md.mtime() * 1_000_000_000 + md.mtime_nsec();
        if size != s.size || mt != s.mtime_ns {
            return Some(format!(
                "the input file '{}' changed since the checkpoint ({} bytes, was {}; modified {}): the program read it up to byte {} and would go on with different data",
                s.e.path,
                size,
                s.size,
                if mt != s.mtime_ns { "since" } else { "no" },
                s.pos
            ));
        }
    }
    None
}

/// What is wrong with putting the written file `w` back (nothing changed).
pub fn check_written(w: &Written) -> Option<String> {
    match std::fs::metadata(&w.path) {
        Ok(md) if !md.is_file() => Some(format!("'{}', a file the program wrote, is no longer a regular file (a directory or device now)", w.path)),
        Ok(_) if w.content.is_some() => None,
        Ok(md) if (md.len() as i64) < w.size => Some(format!("'{}' is shorter than at the checkpoint ({} bytes, was {}): what the program wrote before it is lost", w.path, md.len(), w.size)),
        Ok(_) => (fingerprint(&w.path, w.size) != Some(w.fingerprint)).then(|| {
            format!("'{}' ({} bytes at the checkpoint, too long to be saved whole) was changed before its end since the checkpoint: the restart cannot undo that", w.path, w.size)
        }),
        Err(_) if w.content.is_some() => None,
        Err(_) => Some(format!("'{}', a file of {} bytes the program wrote, no longer exists (deleted or moved)", w.path, w.size)),
    }
}

/// Puts the written file `w` back as it was at the checkpoint.
fn put_back(w: &Written) -> Result<(), String> {
    match &w.content {
        Some(c) => std::fs::write(&w.path, c).map_err(|e| format!("cannot write '{}' back: {e}", w.path)),
        None => std::fs::OpenOptions::new()
            .write(true)
            .open(&w.path)
            .and_then(|f| f.set_len(w.size as u64))
            .map_err(|e| format!("cannot cut '{}' back to {} bytes: {e}", w.path, w.size)),
    }
}

/// Opens `s` on its descriptor at its position and, for a stream, rebuilds
/// the `FILE` at its address. Errors name the file.
/// `shared`: a descriptor already reopened for the same open file
/// description (dup), which this one duplicates instead of opening anew.
pub fn reopen(s: &Saved, shared: Option<c_int>) -> Result<(), String> {
    let e = &s.e;
    let cpath = std::ffi::CString::new(e.path.clone()).map_err(|_| format!("'{}': NUL in the path", e.path))?;
    let flags = e.flags & !(libc::O_CREAT | libc::O_TRUNC | libc::O_EXCL);
    let fd = match shared {
        Some(d) => real_dup(d),
        None => real_open(cpath.as_ptr(), flags, 0),
    };
    if fd < 0 {
        return Err(format!("cannot open '{}' again: {}", e.path, std::io::Error::last_os_error()));
    }
    if fd != e.fd {
        if stat_fd(e.fd).is_some() {
            real_close(fd);
            return Err(format!("cannot open '{}' again on descriptor {}: it is in use at the restart", e.path, e.fd));
        }
        if real_dup2(fd, e.fd) < 0 {
            real_close(fd);
            return Err(format!("cannot open '{}' again on descriptor {}: {}", e.path, e.fd, std::io::Error::last_os_error()));
        }
        real_close(fd);
    }
    if s.regular && shared.is_none() {
        // SAFETY: lseek on the descriptor just opened.
        unsafe { libc::lseek(e.fd, s.pos, libc::SEEK_SET) };
    }
    if e.stream != 0 {
        let mode = std::ffi::CString::new(e.mode.clone()).unwrap_or_else(|_| c"r".into());
        let f = with_redirect(e.stream, || real_fdopen(e.fd, mode.as_ptr()));
        if f as usize != e.stream {
            return Err(format!("cannot rebuild the stream of '{}' at its address {:#x}", e.path, e.stream));
        }
        if e.flags & libc::O_APPEND == 0 && s.regular {
            // SAFETY: the stream just rebuilt.
            unsafe { libc::fseeko(f as *mut libc::FILE, s.pos, libc::SEEK_SET) };
        }
    }
    table().retain(|x| x.fd != e.fd);
    table().push(e.clone());
    Ok(())
}

/// A file of the journal put back to its size at the run's first open of
/// it (removed when it did not exist then); whether it changed.
fn cut_back(p: &str, size: i64) -> Result<bool, String> {
    if size < 0 {
        return Ok(std::fs::remove_file(p).is_ok());
    }
    if !std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() as i64 > size) {
        return Ok(false);
    }
    std::fs::OpenOptions::new().write(true).open(p).and_then(|f| f.set_len(size as u64)).map(|()| true).map_err(|e| format!("cannot cut '{p}' back to {size} bytes: {e}"))
}

/// A fresh start after a run of this directory that was stopped before its
/// first checkpoint (startup.rs): every file that run wrote (the journal,
/// not yet emptied) cut back to its size at that run's first open of it,
/// as a restart cuts back the files first written after its checkpoint.
/// Returns the files changed; one that cannot be cut is a warning.
pub fn cut_back_unfinished() -> usize {
    let mut n = 0;
    for (p, size) in read_journal() {
        match cut_back(&p, size) {
            Ok(true) => n += 1,
            Ok(false) => {}
            Err(e) => crate::diag::warn(format_args!("{e}: it keeps what the run stopped before its first checkpoint wrote")),
        }
    }
    n
}

/// After the heap and globals of a checkpoint are back: every file checked,
/// then the written ones put back (whole, or cut back to their length),
/// files first written after the checkpoint cut back to their length before
/// that (the journal), and the open ones
/// reopened. A problem stops the restart before anything was changed.
pub fn restore(open: &[Saved], written: &[Written], checkpoint: &str) {
    let whole = |p: &str| written.iter().any(|w| w.path == p && w.content.is_some());
    let mut problems: Vec<String> = open.iter().filter_map(|s| check(s, whole(&s.e.path))).collect();
    problems.extend(written.iter().filter_map(check_written));
    if !problems.is_empty() {
        crate::diag::fatal(format_args!(
            "cannot resume {checkpoint}: {}; restore the file{} or remove the checkpoint directory to start over",
            problems.join("; "),
            if problems.len() == 1 { "" } else { "s" }
        ));
    }
    let later: Vec<(String, i64)> = read_journal().into_iter().filter(|(p, _)| !written.iter().any(|w| w.path == *p)).collect();
    let fail = |r: Result<(), String>| {
        if let Err(e) = r {
            crate::diag::fatal(format_args!("cannot resume {checkpoint}: {e}"));
        }
    };
    for w in written {
        fail(put_back(w));
    }
    for (p, size) in &later {
        fail(cut_back(p, *size).map(|_| ()));
    }
    {
        let mut w = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
        for x in written {
            if !w.contains(&x.path) {
                w.push(x.path.clone());
            }
        }
    }
    // descriptors made by dup share the first reopened one of their group
    let mut groups: Vec<(i32, c_int)> = Vec::new();
    for s in open.iter().filter(|s| s.funit.is_none()) {
        let shared = groups.iter().find(|(g, _)| *g == s.e.group).map(|(_, fd)| *fd);
        fail(reopen(s, shared));
        if shared.is_none() {
            groups.push((s.e.group, s.e.fd));
        }
    }
    // Fortran output units through flang's OPEN, after the descriptors
    // (their new descriptors take free numbers), as the program: the
    // table records their open(2) (funit.rs)
    let units: Vec<(&super::funit::Unit, &str)> = open.iter().filter_map(|s| s.funit.as_ref().map(|u| (u, s.e.path.as_str()))).collect();
    fail(crate::libc_alloc::as_program(|| super::funit::reopen_all(&units)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::table::Entry;

    fn saved(path: &str, flags: i32) -> Saved {
        Saved { e: Entry { fd: 5, path: path.into(), flags, stream: 0x7000_0000_1000, mode: "a+".into(), group: 3, refuse: false }, pos: 17, size: 40, mtime_ns: 1_700_000_000_123_456_789, regular: true, funit: None }
    }

    #[test]
    fn checks_name_the_file_and_what_differs() {
        let d = std::env::temp_dir().join(format!("dao-files-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let out = d.join("out.txt");
        std::fs::write(&out, vec![b'x'; 40]).unwrap();
        let p = out.display().to_string();
        // written: as long or longer is fine, shorter is not (unless saved whole)
        assert_eq!(check(&saved(&p, libc::O_WRONLY), false), None);
        std::fs::write(&out, vec![b'x'; 30]).unwrap();
        let why = check(&saved(&p, libc::O_WRONLY), false).unwrap();
        assert!(why.contains(&p) && why.contains("shorter"), "{why}");
        assert_eq!(check(&saved(&p, libc::O_WRONLY), true), None);
        // read only: any change of size or time
        let why = check(&saved(&p, libc::O_RDONLY), false).unwrap();
        assert!(why.contains("input file") && why.contains(&p), "{why}");
        // deleted, replaced by a directory
        std::fs::remove_file(&out).unwrap();
        assert!(check(&saved(&p, libc::O_WRONLY), false).unwrap().contains("no longer exists"));
        std::fs::create_dir(&out).unwrap();
        assert!(check(&saved(&p, libc::O_WRONLY), true).unwrap().contains("no longer one"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A long written file: cut back when only appended to; a change before
    /// its end is found by the fingerprint.
    #[test]
    fn long_files_by_fingerprint() {
        let d = std::env::temp_dir().join(format!("dao-files-fp-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("big.bin");
        let data: Vec<u8> = (0..(300u32 << 10)).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&f, &data).unwrap();
        let p = f.display().to_string();
        let w = Written { path: p.clone(), size: data.len() as i64, fingerprint: fingerprint(&p, data.len() as i64).unwrap(), content: None };
        let mut more = data.clone();
        more.extend_from_slice(b"appended after the checkpoint");
        std::fs::write(&f, &more).unwrap();
        assert_eq!(check_written(&w), None);
        put_back(&w).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), data);
        let mut changed = data.clone();
        changed[data.len() - 10] ^= 1;
        std::fs::write(&f, &changed).unwrap();
        assert!(check_written(&w).unwrap().contains("changed before its end"));
        std::fs::write(&f, &data[..1000]).unwrap();
        assert!(check_written(&w).unwrap().contains("shorter"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
