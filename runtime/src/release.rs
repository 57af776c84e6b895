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
const RELEASE_MIN: u64 = 256 << 10;

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
