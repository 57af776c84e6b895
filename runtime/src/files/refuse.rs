//! What a checkpoint refuses while the program holds it, naming it: a file
//! mapped into memory, a child process, a stream that cannot be opened
//! again (a pipe to a command, a temporary or in-memory stream), a
//! descriptor that is not a regular file or character device, a Fortran
//! unit other than an output unit at its file's end (funit.rs).
use std::ffi::c_int;
use std::sync::Mutex;

use super::real::stat_fd;
use super::table::table;
use crate::libc_alloc::in_runtime;

/// Files the program mapped into memory (start, length, path).
static MAPPINGS: Mutex<Vec<(usize, usize, String)>> = Mutex::new(Vec::new());
/// Child processes the program forked and has not reaped.
static CHILDREN: Mutex<Vec<i32>> = Mutex::new(Vec::new());

pub fn note_mapping(at: usize, len: usize, fd: c_int) {
    if in_runtime() {
        return;
    }
    let path = std::fs::read_link(format!("/proc/self/fd/{fd}")).map(|p| p.display().to_string()).unwrap_or_else(|_| format!("descriptor {fd}"));
    MAPPINGS.lock().unwrap_or_else(|e| e.into_inner()).push((at, len, path));
}

pub fn note_unmapping(at: usize, len: usize) {
    if in_runtime() {
        return;
    }
    MAPPINGS.lock().unwrap_or_else(|e| e.into_inner()).retain(|(a, l, _)| a + l <= at || at + len <= *a);
}

pub fn note_child(pid: i32) {
    if pid > 0 && !in_runtime() {
        CHILDREN.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    }
}

/// Why no checkpoint can be taken now, naming the file; None when every
/// open file can be put back.
pub fn cannot_restore() -> Option<String> {
    if let Some((a, l, p)) = MAPPINGS.lock().unwrap_or_else(|e| e.into_inner()).first() {
        return Some(format!("the file '{p}' is mapped into memory at {a:#x} ({l} bytes, mmap): dao cannot map it again after a restart; unmap it before the checkpoint position"));
    }
    {
        let mut ch = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: kill with signal 0 only checks that the process exists
        // (a zombie not yet reaped by the program still does).
        ch.retain(|&pid| unsafe { libc::kill(pid, 0) } == 0);
        if let Some(pid) = ch.first() {
            return Some(format!("the child process {pid} (fork) is running or not yet waited for: a restart cannot bring it back"));
        }
    }
    let t = table();
    let fortran = crate::stdio::fortran_linked();
    if let Some(e) = t.iter().find(|e| e.refuse) {
        return Some(format!("{} is open: dao cannot open it again after a restart; close it before the checkpoint position", e.path));
    }
    for e in t.iter() {
        let Some(st) = stat_fd(e.fd) else { continue };
        let kind = st.st_mode & libc::S_IFMT;
        if kind != libc::S_IFREG && kind != libc::S_IFCHR {
            return Some(format!("'{}' (descriptor {}) is open and is not a regular file (a pipe, socket or directory): dao cannot reopen it after a restart", e.path, e.fd));
        }
        if fortran && e.stream == 0 && kind == libc::S_IFREG {
            // an output unit at its file's end is put back (funit.rs), and
            // an input unit at a record's start; a descriptor no unit is
            // connected to is a plain one
            let why = match super::funit::inquire(&super::table::given_path(e.fd).unwrap_or_else(|| e.path.clone())) {
                Ok(None) => continue,
                Ok(Some(u)) => match u.refusal() {
                    None if u.action == "READ" => match super::funit::read_position(&u, &e.path) {
                        Ok(_) => continue,
                        Err(w) => w,
                    },
                    None => {
                        super::funit::flush(u.number);
                        // SAFETY: lseek on a descriptor number.
                        let pos = unsafe { libc::lseek(e.fd, 0, libc::SEEK_CUR) };
                        match super::funit::write_position(&u, pos, stat_fd(e.fd).map_or(-1, |st| st.st_size)) {
                            Ok(_) => continue,
                            Err(w) => w.to_string(),
                        }
                    }
                    Some(w) => w.to_string(),
                },
                Err(()) => "flang's runtime could not say which unit it is".to_string(),
            };
            return Some(format!("'{}' (descriptor {}) is open as a Fortran unit and {why}; close the unit before the checkpoint position", e.path, e.fd));
        }
    }
    None
}
