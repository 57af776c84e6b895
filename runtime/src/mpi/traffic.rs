//! What the program's MPI calls do, as the PMPI layer (wrap.rs) reports
//! them: point-to-point messages sent (counted when posted) and received
//! (counted when complete), the program's pending requests, and the first
//! call dao cannot follow (persistent requests, one-sided windows, ...),
//! which turns coordinated checkpoints off with a warning. At a checkpoint
//! the sum over all ranks of sent - received must be 0 and no rank may hold
//! a pending request (collectives.rs, `look`): then no message is in flight
//! (a message is received at most once, so equal totals mean every sent one
//! has been received).
use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::Mutex;

use super::sym::{request_null, F_NULL, H, PROC_NULL};
use super::world::{prefix, started};
use crate::diag;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Send,
    /// A receive; `counts`: from a real rank (not MPI_PROC_NULL).
    Recv { counts: bool },
    /// A non-blocking collective.
    Coll,
}

/// One creation (or free) of an MPI object, as the program made it.

#[derive(Default)]
struct Traffic {
    sent: u64,
    received: u64,
    pending_c: HashMap<usize, Kind>,
    pending_f: HashMap<i32, Kind>,
    /// The first call the layer cannot follow (coordinated checkpoints off).
    unfollowed: Option<String>,
}

static TRAFFIC: Mutex<Option<Traffic>> = Mutex::new(None);

/// The state, changed with glibc's allocator (`libc_alloc::own`): the
/// wrappers run on the program's calls, whose `malloc` is the dao heap's.
fn with<R>(f: impl FnOnce(&mut Traffic) -> R) -> R {
    crate::libc_alloc::own(|| f(TRAFFIC.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(Traffic::default)))
}

pub fn note_send(dest: c_int) {
    if dest != PROC_NULL {
        with(|t| t.sent += 1);
    }
}

pub fn note_recv(source: c_int) {
    if source != PROC_NULL {
        with(|t| t.received += 1);
    }
}

pub fn pending_c(req: H, kind: Kind) {
    if req != request_null() {
        with(|t| t.pending_c.insert(req as usize, kind));
    }
}

pub fn pending_f(req: i32, kind: Kind) {
    if req as i64 != F_NULL {
        with(|t| t.pending_f.insert(req, kind));
    }
}

fn complete(t: &mut Traffic, k: Option<Kind>) {
    if let Some(Kind::Recv { counts: true }) = k {
        t.received += 1;
    }
}

/// A C request the program had pending has completed (or was freed).
pub fn completed_c(req: H) {
    with(|t| {
        let k = t.pending_c.remove(&(req as usize));
        complete(t, k)
    });
}

pub fn completed_f(req: i32) {
    with(|t| {
        let k = t.pending_f.remove(&req);
        complete(t, k)
    });
}

/// A call the layer cannot follow: coordinated checkpoints stop (once, with
/// the call's name).
pub fn unfollowed(call: &str) {
    crate::libc_alloc::own(|| unfollowed_own(call))
}

fn unfollowed_own(call: &str) {
    let first = with(|t| {
        if t.unfollowed.is_none() {
            t.unfollowed = Some(call.to_string());
            true
        } else {
            false
        }
    });
    if first && started() {
        diag::warn(format_args!(
            "{}the program calls {call}, which dao's MPI layer does not follow (docs/design.md, section 16): no checkpoint is taken from here on",
            prefix()
        ));
    }
}

/// Whether a call the layer cannot follow was made (its name).
pub fn unfollowed_call() -> Option<String> {
    with(|t| t.unfollowed.clone())
}

/// The program's pending requests (C and Fortran), and whether a call the
/// layer cannot follow was made.
pub(super) fn pending_state() -> (usize, bool) {
    with(|t| (t.pending_c.len() + t.pending_f.len(), t.unfollowed.is_some()))
}

/// Messages sent and received so far.
pub(super) fn balance() -> (u64, u64) {
    with(|t| (t.sent, t.received))
}
