//! The undo log of an execution in place (`DAO_TASK_FT=serial`): the old
//! bytes of every span it overwrote, to put back when its result is not
//! confirmed, and the trace of what it left there, to compare executions.
//! The reads and writes of program memory here are the only ones of serial
//! mode outside the hooks.

pub(super) type Spans = Vec<(usize, u32, u64)>;

thread_local! {
    /// Span vectors of finished executions, kept for the next ones (a
    /// fresh large vector would be fresh pages: page faults every task).
    static SPARE: std::cell::RefCell<Vec<Spans>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn spans() -> Spans {
    SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_default()
}

fn spare(mut v: Spans) {
    v.clear();
    SPARE.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < 8 {
            s.push(v);
        }
    });
}

/// What an execution in place (`DAO_TASK_FT=serial`) overwrote: spans of
/// memory with their old bytes (inline up to 8 bytes), in order.
pub(super) struct Undo {
    spans: Spans,
    big: Vec<u8>,
}

impl Default for Undo {
    fn default() -> Self {
        Undo { spans: spans(), big: Vec::new() }
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        spare(std::mem::take(&mut self.spans));
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        spare(std::mem::take(&mut self.spans));
    }
}

/// Read `n <= 8` bytes at `a` as a little-endian u64.
///
/// # Safety
/// The range is readable.
#[inline]
unsafe fn read_small(a: usize, n: usize) -> u64 {
    // SAFETY: see above.
    unsafe {
        match n {
            8 => (a as *const u64).read_unaligned(),
            4 => (a as *const u32).read_unaligned() as u64,
            _ => {
                let mut b = [0u8; 8];
                std::ptr::copy_nonoverlapping(a as *const u8, b.as_mut_ptr(), n);
                u64::from_le_bytes(b)
            }
        }
    }
}

/// # Safety
/// The range is writable.
#[inline]
unsafe fn write_small(a: usize, n: usize, v: u64) {
    // SAFETY: see above.
    unsafe {
        match n {
            8 => (a as *mut u64).write_unaligned(v),
            4 => (a as *mut u32).write_unaligned(v as u32),
            _ => std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), a as *mut u8, n),
        }
    }
}

/// An in-place execution's result: every span it wrote, in order, with
/// what the span holds at its end (spans up to 8 bytes inline).
#[derive(PartialEq)]
pub(super) struct Trace {
    spans: Spans,
    big: Vec<u8>,
}

impl Undo {
    /// Record the bytes at `[addr, addr + n)` before a write.
    ///
    /// # Safety
    /// The range is readable (a fault is caught in a replica).
    #[inline]
    pub(super) unsafe fn record(&mut self, addr: usize, n: usize) {
        if n <= 8 {
            // SAFETY: see above.
            let v = unsafe { read_small(addr, n) };
            self.spans.push((addr, n as u32, v));
        } else {
            let off = self.big.len();
            // SAFETY: see above.
            self.big.extend_from_slice(unsafe { std::slice::from_raw_parts(addr as *const u8, n) });
            self.spans.push((addr, n as u32, off as u64));
        }
    }

    /// What the execution left in the spans it wrote.
    ///
    /// # Safety
    /// The spans are readable (they were written).
    pub(super) unsafe fn trace(&self) -> Trace {
        let mut t = Trace { spans: spans(), big: Vec::new() };
        t.spans.reserve(self.spans.len());
        for &(a, n, _) in &self.spans {
            let n = n as usize;
            if n <= 8 {
                // SAFETY: see above.
                t.spans.push((a, n as u32, unsafe { read_small(a, n) }));
            } else {
                let off = t.big.len() as u64;
                // SAFETY: see above.
                t.big.extend_from_slice(unsafe { std::slice::from_raw_parts(a as *const u8, n) });
                t.spans.push((a, n as u32, off));
            }
        }
        t
    }

    /// Put the old bytes back, newest first.
    ///
    /// # Safety
    /// The spans are writable (they were written).
    pub(super) unsafe fn undo(&self) {
        for &(a, n, v) in self.spans.iter().rev() {
            let n = n as usize;
            // SAFETY: see above.
            unsafe {
                if n <= 8 {
                    write_small(a, n, v);
                } else {
                    std::ptr::copy_nonoverlapping(self.big.as_ptr().add(v as usize), a as *mut u8, n);
                }
            }
        }
    }
}

impl Trace {
    /// Flip one bit of one span's final bytes, in the trace and in memory:
    /// a fault in a written value. False when nothing was written.
    ///
    /// # Safety
    /// The spans are writable.
    pub(super) unsafe fn flip(&mut self, r: u64) -> bool {
        if self.spans.is_empty() {
            return false;
        }
        let k = (r % self.spans.len() as u64) as usize;
        let (a, n, v) = self.spans[k];
        let n = n as usize;
        let bit = ((r >> 16) % (8 * n.min(8) as u64)) as usize;
        // SAFETY: see above.
        unsafe {
            if n <= 8 {
                let f = v ^ (1u64 << bit);
                self.spans[k].2 = f;
                write_small(a, n, f);
            } else {
                let off = v as usize + bit / 8;
                self.big[off] ^= 1 << (bit % 8);
                *((a + bit / 8) as *mut u8) = self.big[off];
            }
        }
        true
    }
}
