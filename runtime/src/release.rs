//! The forked writer gives back the program memory it has written (issue
//! #36, `DAO_WRITER_RELEASE`; docs/design.md section 15, "Fewer copies").
//!
//! Only for the writer child (`background.rs`, `engine_in_child`): after a
//! region's bytes are in the engine's pipeline
//! (`Engine::checkpoint_releasing`), its whole pages are dropped from the
//! child with `MADV_DONTNEED`, so the program's next write of such a page
//! finds it its own and copies nothing.

/// Gives back, in the forked writer, the program memory it has put into
/// its pipeline and never reads again: the child's copy-on-write reference
/// to those pages goes, so the program's next write of such a page finds
/// it its own and copies nothing (pages the program rewrote before were
/// copied already). Only the program's own memory, and only large regions:
/// heap blocks (the dao heap's arena holds nothing but the program's blocks
/// and their headers; the runtime allocates from glibc, libc_alloc.rs) and
/// globals saved in place, each of at least [`RELEASE_MIN`] bytes, whose
/// whole pages hold nothing else; never a stack (the child runs on the
/// stack of the thread that forked), never a copy the runtime made.
pub struct Releaser {
    page: u64,
    globals: Vec<u64>,
    pub released: u64,
}

/// Smaller regions are not given back: one `madvise` each would cost
/// more than the copies it saves. (MG.A's 246 798 heap blocks of about
/// 2 KiB hold no whole page; giving its arena back in 1 MiB runs behind the
/// writer made both the program and the writer slower, docs/design.md
/// section 15, while FT.A's three large arrays gain.)
pub const RELEASE_MIN: u64 = 256 << 10;

impl Releaser {
    pub fn new(parts: &dao_format::Parts<'_>) -> Releaser {
        use std::borrow::Cow;
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        let mut globals: Vec<u64> = parts
            .globals
            .iter()
            .filter_map(|g| match &g.bytes {
                Cow::Borrowed(b) if b.as_ptr() as u64 == g.addr => Some(g.addr),
                _ => None,
            })
            .collect();
        globals.sort_unstable();
        Releaser { page, globals, released: 0 }
    }

    /// Region `b` is in the writer's pipeline: its whole pages go, when it
    /// is large program memory.
    pub fn written(&mut self, b: &[u8]) {
        let (start, end) = (b.as_ptr() as u64, b.as_ptr() as u64 + b.len() as u64);
        if end - start < RELEASE_MIN {
            return;
        }
        let arena = (crate::heap::HEAP_BASE as u64, (crate::heap::HEAP_BASE + crate::heap::HEAP_RESERVE) as u64);
        if (start >= arena.0 && end <= arena.1) || self.globals.binary_search(&start).is_ok() {
            self.released += release(start.next_multiple_of(self.page), end / self.page * self.page);
        }
    }
}

/// Gives back, in the forked writer, before anything else, the whole pages
/// of the program memory the checkpoint does not hold (`unsaved`: dead
/// globals and their dead parts, heap blocks left out; `collect.rs`) that
/// hold no byte the writer reads (`parts`' payloads: a thread-local value
/// or a threadprivate copy may sit in a block the heap scan left out).
/// The program rewrites such memory soonest (an array is dead because the
/// next step rewrites it before reading it), and each first write of a
/// page the child still maps copies the page: NPB FT.A's `u1`, 128 MiB,
/// rewritten by `evolve` while the writer runs. The bytes given back.
pub fn give_back_unsaved(unsaved: &[(u64, u64)], parts: &dao_format::Parts<'_>) -> u64 {
    if unsaved.is_empty() {
        return 0;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let read = dao_format::payload_ranges(parts);
    pages_to_give_back(unsaved, read, page).into_iter().map(|(lo, hi)| release(lo, hi)).sum()
}

/// The whole pages of the `unsaved` ranges (each at least [`RELEASE_MIN`]
/// long) that no `read` range touches, merged: `[lo, hi)` page-aligned.
fn pages_to_give_back(unsaved: &[(u64, u64)], mut read: Vec<(u64, u64)>, page: u64) -> Vec<(u64, u64)> {
    // the pages any read byte lies in, sorted and merged
    read.retain(|r| r.1 > r.0);
    for r in read.iter_mut() {
        *r = (r.0 / page * page, r.1.div_ceil(page) * page);
    }
    read.sort_unstable();
    let mut busy: Vec<(u64, u64)> = Vec::with_capacity(read.len());
    for (a, b) in read {
        match busy.last_mut() {
            Some(l) if a <= l.1 => l.1 = l.1.max(b),
            _ => busy.push((a, b)),
        }
    }
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(lo, hi) in unsaved {
        if hi < lo || hi - lo < RELEASE_MIN {
            continue;
        }
        let (mut a, b) = (lo.next_multiple_of(page), hi / page * page);
        // the busy pages from the first that ends after a
        let mut k = busy.partition_point(|r| r.1 <= a);
        while a < b {
            let (next_busy, busy_end) = busy.get(k).map_or((b, b), |r| (r.0.min(b), r.1));
            if next_busy > a {
                out.push((a, next_busy));
            }
            a = a.max(busy_end);
            k += 1;
        }
    }
    out.sort_unstable();
    out
}

/// `MADV_DONTNEED` on the whole pages `[lo, hi)`; the bytes given back.
fn release(lo: u64, hi: u64) -> u64 {
    if hi <= lo {
        return 0;
    }
    // SAFETY: only in the forked writer (engine_in_child), on whole pages
    // of program memory this process never touches again (Releaser): they
    // read back as zeros here, the program's copy is untouched.
    let r = unsafe { libc::madvise(lo as *mut libc::c_void, (hi - lo) as usize, libc::MADV_DONTNEED) };
    if r == 0 {
        hi - lo
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = 4096;

    #[test]
    fn whole_pages_of_unsaved_ranges_only() {
        // an unaligned dead global of 1 MiB + 100 bytes: its inner pages
        let lo = 10 * P + 100;
        let hi = lo + (1 << 20) + 100;
        assert_eq!(pages_to_give_back(&[(lo, hi)], vec![], P), vec![(11 * P, hi / P * P)]);
        // too small: nothing
        assert!(pages_to_give_back(&[(lo, lo + RELEASE_MIN - 1)], vec![], P).is_empty());
    }

    #[test]
    fn pages_a_payload_touches_stay() {
        let lo = 100 * P;
        let hi = lo + 256 * P;
        // a thread-local value of 10 bytes straddling two pages in the middle,
        // and one at the very start
        let read = vec![(lo + 50 * P - 5, lo + 50 * P + 5), (lo, lo + 1), (0, 0)];
        let got = pages_to_give_back(&[(lo, hi)], read, P);
        assert_eq!(got, vec![(lo + P, lo + 49 * P), (lo + 51 * P, hi)]);
        // a payload covering all of it: nothing
        assert!(pages_to_give_back(&[(lo, hi)], vec![(lo - 1, hi + 1)], P).is_empty());
        // payloads elsewhere change nothing; two unsaved ranges, sorted
        let lo2 = 1000 * P;
        let got = pages_to_give_back(&[(lo2, lo2 + 64 * P), (lo, hi)], vec![(5 * P, 6 * P), (2000 * P, 2001 * P)], P);
        assert_eq!(got, vec![(lo, hi), (lo2, lo2 + 64 * P)]);
    }
}
