//! The fixed-address heap behind dao_malloc & co.
//!
//! One region is reserved at a fixed virtual address (PROT_NONE,
//! MAP_NORESERVE, MAP_FIXED_NOREPLACE) and committed by mprotect as it grows,
//! so a restarted process gets every block back at its old address. Blocks
//! tile `[base, top)`; each has a 16-byte header `{prev_size, size | flags}`
//! (size includes the header and is a multiple of 16; payloads are 16-byte
//! aligned), which makes the heap walkable. Free blocks of at most
//! `SMALL_MAX` bytes go to exact-size segregated LIFO lists and are never
//! coalesced (fast reuse for the many small mallocs of e.g. MG); larger free
//! blocks are coalesced with free neighbours and kept in a best-fit set
//! ordered by (size, address). Everything is deterministic: the same sequence
//! of calls yields the same addresses. The free structures live outside the
//! region (ordinary Rust allocations) and are serialised by [`Heap::meta`];
//! [`Heap::restore`] rebuilds the exact state (headers, lists, top) from the
//! metadata and the list of allocated blocks.
//!
//! All raw memory access of the allocator is in this file.
use std::collections::BTreeSet;
use std::sync::Mutex;

/// Address of the runtime heap.
pub const HEAP_BASE: usize = 0x1000_0000_0000;
/// Bytes of address space reserved for it.
pub const HEAP_RESERVE: usize = 256 << 30;

const HDR: usize = 16;
const MIN_BLOCK: usize = 32;
/// Largest block (header included) served from the segregated lists.
const SMALL_MAX: usize = 1024 + HDR;
const N_CLASSES: usize = SMALL_MAX / 16 + 1;
const COMMIT_CHUNK: usize = 4 << 20;
const F_INUSE: u64 = 1;
const F_SMALL_FREE: u64 = 2;
const FLAGS: u64 = 15;
const META_MAGIC: u64 = 0x0031_5041_4548_4f41; // "AOHEAP1"

/// One block as seen by a walk: payload address and payload size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub addr: usize,
    pub size: usize,
    pub in_use: bool,
}

/// Why a heap could not be created or restored.
#[derive(Debug)]
pub enum HeapError {
    Map { base: usize, errno: i32 },
    BadMeta(&'static str),
}

impl std::fmt::Display for HeapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeapError::Map { base, errno } => write!(
                f,
                "cannot reserve the address range at {base:#x}: {} (it is taken, or the kernel is older than 4.17)",
                std::io::Error::from_raw_os_error(*errno)
            ),
            HeapError::BadMeta(what) => write!(f, "heap metadata in the checkpoint is inconsistent: {what}"),
        }
    }
}

/// The allocator state.
pub struct Heap {
    base: usize,
    reserve: usize,
    committed: usize,
    top: usize,
    /// Last block below `top` (0: none).
    last: usize,
    small: Vec<Vec<usize>>,
    large: BTreeSet<(usize, usize)>,
    /// Blocks in use (allocated and not freed): what a forked writer's
    /// hand-over is sized from before it walks the heap itself
    /// (`bound`).
    in_use: usize,
}

fn round16(n: usize) -> Option<usize> {
    n.checked_add(15).map(|x| x & !15)
}

/// Reserves `reserve` bytes of address space at exactly `base`
/// (`PROT_NONE`, committed later with `mprotect`); fails rather than
/// replacing an existing mapping. Also used for the threadprivate arena
/// (omp/tp.rs).
pub fn reserve_fixed(base: usize, reserve: usize) -> Result<(), HeapError> {
    // SAFETY: a fresh anonymous PROT_NONE mapping at a fixed address;
    // MAP_FIXED_NOREPLACE fails instead of replacing an existing mapping.
    let p = unsafe {
        libc::mmap(
            base as *mut libc::c_void,
            reserve,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(HeapError::Map { base, errno: std::io::Error::last_os_error().raw_os_error().unwrap_or(0) });
    }
    if p as usize != base {
        // SAFETY: unmapping the mapping just created at the wrong address.
        unsafe { libc::munmap(p, reserve) };
        return Err(HeapError::Map { base, errno: libc::EEXIST });
    }
    Ok(())
}

/// Block size (header included) for a request of `n` payload bytes.
fn block_size(n: usize) -> Option<usize> {
    round16(n)?.checked_add(HDR).map(|s| s.max(MIN_BLOCK))
}

impl Heap {
    /// Reserves `reserve` bytes at `base`.
    pub fn new(base: usize, reserve: usize) -> Result<Heap, HeapError> {
        reserve_fixed(base, reserve)?;
        Ok(Heap {
            base,
            reserve,
            committed: 0,
            top: base,
            last: 0,
            small: vec![Vec::new(); N_CLASSES],
            large: BTreeSet::new(),
            in_use: 0,
        })
    }

    pub fn contains(&self, p: usize) -> bool {
        p >= self.base && p < self.base + self.reserve
    }

    // ---- headers ----
    fn size_of(&self, b: usize) -> usize {
        // SAFETY: b is a block start in [base, top), committed and readable.
        (unsafe { *((b + 8) as *const u64) } & !FLAGS) as usize
    }
    fn flags_of(&self, b: usize) -> u64 {
        // SAFETY: as in size_of.
        unsafe { *((b + 8) as *const u64) & FLAGS }
    }
    fn prev_size_of(&self, b: usize) -> usize {
        // SAFETY: as in size_of.
        unsafe { *(b as *const u64) as usize }
    }
    fn set_header(&mut self, b: usize, prev: usize, size: usize, flags: u64) {
        // SAFETY: b..b+16 lies in committed heap memory owned by the allocator.
        unsafe {
            *(b as *mut u64) = prev as u64;
            *((b + 8) as *mut u64) = size as u64 | flags;
        }
    }
    fn set_flags(&mut self, b: usize, flags: u64) {
        let (p, s) = (self.prev_size_of(b), self.size_of(b));
        self.set_header(b, p, s, flags);
    }
    /// Records that the block at `b` (size `size`) is followed by its
    /// successor, or is the last block.
    fn link_next(&mut self, b: usize, size: usize) {
        let next = b + size;
        if next < self.top {
            // SAFETY: next is a block start below top.
            unsafe { *(next as *mut u64) = size as u64 };
        } else {
            self.last = b;
        }
    }

    fn ensure_committed(&mut self, end: usize) -> bool {
        let need = end - self.base;
        if need <= self.committed {
            return true;
        }
        if need > self.reserve {
            return false;
        }
        let new = need.div_ceil(COMMIT_CHUNK).saturating_mul(COMMIT_CHUNK).min(self.reserve);
        // SAFETY: [base+committed, base+new) is inside our reservation.
        let r = unsafe {
            libc::mprotect(
                (self.base + self.committed) as *mut libc::c_void,
                new - self.committed,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if r != 0 {
            return false;
        }
        self.committed = new;
        true
    }

    // ---- allocation ----

    /// Allocates a block of exactly-or-more `need` bytes; returns its start.
    fn alloc_block(&mut self, need: usize) -> Option<usize> {
        if need <= SMALL_MAX {
            if let Some(b) = self.small[need / 16].pop() {
                self.set_flags(b, F_INUSE);
                return Some(b);
            }
        }
        if let Some(&(size, b)) = self.large.range((need, 0)..).next() {
            self.large.remove(&(size, b));
            self.set_flags(b, F_INUSE);
            self.trim(b, need);
            return Some(b);
        }
        let b = self.top;
        let end = b.checked_add(need)?;
        if !self.ensure_committed(end) {
            return None;
        }
        let prev = if self.last == 0 { 0 } else { self.size_of(self.last) };
        self.top = end;
        self.set_header(b, prev, need, F_INUSE);
        self.last = b;
        Some(b)
    }

    /// Shrinks the in-use block `b` to `keep` bytes when the rest can form a
    /// block of its own; the rest is freed.
    fn trim(&mut self, b: usize, keep: usize) {
        let size = self.size_of(b);
        if size - keep < MIN_BLOCK {
            return;
        }
        let prev = self.prev_size_of(b);
        self.set_header(b, prev, keep, F_INUSE);
        let rest = b + keep;
        self.set_header(rest, keep, size - keep, F_INUSE);
        self.link_next(rest, size - keep);
        self.free_block(rest);
    }

    /// Frees the in-use block `b`.
    fn free_block(&mut self, mut b: usize) {
        let mut size = self.size_of(b);
        if size <= SMALL_MAX {
            self.set_flags(b, F_SMALL_FREE);
            self.small[size / 16].push(b);
            return;
        }
        let next = b + size;
        if next < self.top && self.flags_of(next) == 0 {
            let ns = self.size_of(next);
            self.large.remove(&(ns, next));
            size += ns;
        }
        if b > self.base {
            let p = b - self.prev_size_of(b);
            if self.flags_of(p) == 0 {
                let ps = self.size_of(p);
                self.large.remove(&(ps, p));
                b = p;
                size += ps;
            }
        }
        let prev = self.prev_size_of(b);
        if b + size == self.top {
            self.top = b;
            self.last = if b > self.base { b - prev } else { 0 };
            return;
        }
        self.set_header(b, prev, size, 0);
        self.link_next(b, size);
        self.large.insert((size, b));
    }

    pub fn malloc(&mut self, n: usize) -> *mut u8 {
        match block_size(n).and_then(|need| self.alloc_block(need)) {
            Some(b) => {
                self.in_use += 1;
                (b + HDR) as *mut u8
            }
            None => std::ptr::null_mut(),
        }
    }

    /// Block start of an allocated payload pointer, or None when `p` is not
    /// an in-use block of this heap.
    fn block_of(&self, p: usize) -> Option<usize> {
        if p % 16 != 0 || p < self.base + HDR || p >= self.top {
            return None;
        }
        let b = p - HDR;
        (self.flags_of(b) == F_INUSE).then_some(b)
    }

    /// Frees `p` (which must be in this heap); false when it is not an
    /// allocated block (double free or a wild pointer).
    pub fn free(&mut self, p: *mut u8) -> bool {
        match self.block_of(p as usize) {
            Some(b) => {
                self.free_block(b);
                self.in_use -= 1;
                true
            }
            None => false,
        }
    }

    /// Payload size of the allocated block at `p`.
    pub fn usable_size(&self, p: *mut u8) -> Option<usize> {
        self.block_of(p as usize).map(|b| self.size_of(b) - HDR)
    }

    pub fn aligned_alloc(&mut self, align: usize, n: usize) -> *mut u8 {
        if align <= 16 {
            return self.malloc(n);
        }
        let Some(need) = block_size(n) else { return std::ptr::null_mut() };
        let Some(b) = need.checked_add(align + MIN_BLOCK).and_then(|t| self.alloc_block(t)) else {
            return std::ptr::null_mut();
        };
        let mut b = b;
        if (b + HDR) % align != 0 {
            let pa = (b + HDR + MIN_BLOCK).next_multiple_of(align);
            let gap = pa - HDR - b;
            let size = self.size_of(b);
            let prev = self.prev_size_of(b);
            self.set_header(b, prev, gap, F_INUSE);
            self.set_header(b + gap, gap, size - gap, F_INUSE);
            self.link_next(b + gap, size - gap);
            self.free_block(b);
            b += gap;
        }
        self.trim(b, need);
        self.in_use += 1;
        (b + HDR) as *mut u8
    }

    /// realloc for a pointer of this heap (None: `p` is not allocated here).
    // `p` is only dereferenced after block_of() found it to be an allocated block.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn realloc(&mut self, p: *mut u8, n: usize) -> Option<*mut u8> {
        let b = self.block_of(p as usize)?;
        let Some(need) = block_size(n) else { return Some(std::ptr::null_mut()) };
        let size = self.size_of(b);
        if need <= size {
            if size > SMALL_MAX {
                self.trim(b, need);
            }
            return Some(p);
        }
        let next = b + size;
        if next == self.top {
            if self.ensure_committed(b + need) {
                self.top = b + need;
                let prev = self.prev_size_of(b);
                self.set_header(b, prev, need, F_INUSE);
                return Some(p);
            }
            return Some(std::ptr::null_mut());
        }
        if size > SMALL_MAX && self.flags_of(next) == 0 && size + self.size_of(next) >= need {
            let ns = self.size_of(next);
            self.large.remove(&(ns, next));
            let prev = self.prev_size_of(b);
            self.set_header(b, prev, size + ns, F_INUSE);
            self.link_next(b, size + ns);
            self.trim(b, need);
            return Some(p);
        }
        let q = self.malloc(n);
        if !q.is_null() {
            // SAFETY: both payloads are allocated, distinct, and at least
            // size - HDR (old) and n (new) bytes long.
            unsafe { std::ptr::copy_nonoverlapping(p, q, (size - HDR).min(n)) };
            self.free_block(b);
            self.in_use -= 1;
        }
        Some(q)
    }

    // ---- walking, saving, restoring ----

    /// Upper bounds of what a walk finds in use, without walking: the
    /// number of blocks and the bytes of their payloads.
    pub fn bound(&self) -> (usize, u64) {
        (self.in_use, (self.top - self.base) as u64)
    }

    /// Every block in address order.
    pub fn walk(&self) -> Vec<Block> {
        let mut v = Vec::new();
        let mut b = self.base;
        while b < self.top {
            let s = self.size_of(b);
            v.push(Block { addr: b + HDR, size: s - HDR, in_use: self.flags_of(b) == F_INUSE });
            b += s;
        }
        v
    }

    /// The allocator's metadata: top, last, the free lists in order.
    pub fn meta(&self) -> Vec<u8> {
        let mut m = Vec::new();
        let mut put = |x: u64| m.extend_from_slice(&x.to_le_bytes());
        put(META_MAGIC);
        put(self.base as u64);
        put(self.top as u64);
        put(self.last as u64);
        for list in &self.small {
            put(list.len() as u64);
            list.iter().for_each(|&b| put(b as u64));
        }
        put(self.large.len() as u64);
        for &(s, b) in &self.large {
            put(s as u64);
            put(b as u64);
        }
        m
    }

    /// Replaces the whole state by the one described by `meta` and the
    /// allocated blocks `(payload address, payload size)`; writes every
    /// header. Block contents are restored by the caller.
    pub fn restore(&mut self, meta: &[u8], allocated: &[(usize, usize)]) -> Result<(), HeapError> {
        let mut words = meta.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap()) as usize);
        let mut next = || words.next().ok_or(HeapError::BadMeta("metadata too short"));
        if next()? as u64 != META_MAGIC || next()? != self.base {
            return Err(HeapError::BadMeta("not this heap's metadata"));
        }
        let (top, last) = (next()?, next()?);
        if top < self.base || top > self.base + self.reserve {
            return Err(HeapError::BadMeta("top outside the heap"));
        }
        let mut small = vec![Vec::new(); N_CLASSES];
        let mut blocks: Vec<(usize, usize, u64)> = Vec::new();
        for (class, list) in small.iter_mut().enumerate() {
            for _ in 0..next()? {
                let b = next()?;
                list.push(b);
                blocks.push((b, class * 16, F_SMALL_FREE));
            }
        }
        let mut large = BTreeSet::new();
        for _ in 0..next()? {
            let (s, b) = (next()?, next()?);
            large.insert((s, b));
            blocks.push((b, s, 0));
        }
        blocks.extend(allocated.iter().map(|&(a, s)| (a.wrapping_sub(HDR), s + HDR, F_INUSE)));
        blocks.sort_unstable();
        let mut at = self.base;
        for &(b, s, _) in &blocks {
            if b != at || s < MIN_BLOCK || s % 16 != 0 {
                return Err(HeapError::BadMeta("blocks do not tile the heap"));
            }
            at += s;
        }
        if at != top || (last != 0 && blocks.last().map(|x| x.0) != Some(last)) {
            return Err(HeapError::BadMeta("blocks do not end at the top"));
        }
        if !self.ensure_committed(top) {
            return Err(HeapError::BadMeta("cannot commit the heap"));
        }
        self.top = top;
        self.last = last;
        let mut prev = 0;
        for &(b, s, f) in &blocks {
            self.set_header(b, prev, s, f);
            prev = s;
        }
        self.small = small;
        self.large = large;
        self.in_use = allocated.len();
        Ok(())
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        // SAFETY: the reservation made in new(); nothing points into it
        // once the Heap is gone (only test heaps are ever dropped).
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.reserve) };
    }
}

/// The process-wide heap, created on first use (global constructors may
/// allocate before main).
static HEAP: Mutex<Option<Heap>> = Mutex::new(None);

/// The process heap while a thread holds its lock across `fork`
/// (`hold_across_fork`); null otherwise.
static HELD: std::sync::atomic::AtomicPtr<Heap> = std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

thread_local! {
    /// This thread holds the heap's lock across a fork (and so does the
    /// child's one thread, a copy of it).
    static HOLDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (which forks a background writer) with the heap's lock held,
/// so that the child's copy of the heap is the consistent state of one
/// instant: no thread of the program is half-way through an allocation in
/// it. The child, which has one thread and never returns from `f`, then
/// reaches the heap through `with` without the lock (the lock word it
/// inherited says held, by the thread it is a copy of). The program's
/// other threads wait in `malloc`/`free` for the fork to return; the
/// holding thread itself (an atfork handler of the program that
/// allocates) goes through as the child does.
pub fn hold_across_fork<R>(f: impl FnOnce() -> R) -> R {
    with(|h| {
        HELD.store(h as *mut Heap, std::sync::atomic::Ordering::SeqCst);
        HOLDING.with(|c| c.set(true));
        let r = f();
        HOLDING.with(|c| c.set(false));
        HELD.store(std::ptr::null_mut(), std::sync::atomic::Ordering::SeqCst);
        r
    })
}

/// Runs `f` on the process heap, creating it when needed.
pub fn with<R>(f: impl FnOnce(&mut Heap) -> R) -> R {
    // the thread that holds the lock across a fork (`hold_across_fork`),
    // or the background writer forked then, whose one thread is a copy of
    // it: the lock is this thread's already, and cannot be taken again
    if HOLDING.with(|c| c.get()) {
        let p = HELD.load(std::sync::atomic::Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: the Heap inside HEAP, whose guard this thread (or the
            // thread this child is a copy of) holds; no other thread uses
            // it meanwhile, and hold_across_fork does not use its own
            // reference until f returns.
            return f(unsafe { &mut *p });
        }
    }
    let mut g = HEAP.lock().unwrap_or_else(|e| e.into_inner());
    if g.is_none() {
        match Heap::new(HEAP_BASE, HEAP_RESERVE) {
            Ok(h) => *g = Some(h),
            Err(e) => {
                drop(g);
                crate::diag::fatal(format_args!("the dao heap: {e}"))
            }
        }
    }
    f(g.as_mut().unwrap())
}

/// Whether `p` lies in the process heap's reservation (no lock, no init).
pub fn in_region(p: *const u8) -> bool {
    let p = p as usize;
    (HEAP_BASE..HEAP_BASE + HEAP_RESERVE).contains(&p)
}
