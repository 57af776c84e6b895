//! The write buffer of an execution in dual mode (`DAO_TASK_FT=dual`):
//! its writes to non-private memory, kept as words (`words.rs`) until the
//! executions agree and one buffer is committed to memory.
use std::sync::atomic::Ordering::Relaxed;

use super::words::{word_counter, WordChunks, WordTable};

/// One execution's writes to non-private memory: 8-byte words with the
/// bytes written (mask) and their values (unwritten bytes zero).
pub(super) struct WriteBuf {
    words: WordTable,
    /// Counted in `dao_ft_words` (a running execution's buffer; not a
    /// result collected after the execution).
    counted: bool,
    /// One bit per word address hash: a read of words none of whose bits is
    /// set needs no lookup.
    filter: [u64; 64],
}

impl Default for WriteBuf {
    fn default() -> Self {
        WriteBuf { words: WordTable::new(), counted: true, filter: [0; 64] }
    }
}

impl PartialEq for WriteBuf {
    fn eq(&self, o: &Self) -> bool {
        self.words == o.words
    }
}

/// A byte mask as a mask of the bits of those bytes.
#[inline]
fn mask_bytes(m: u8) -> u64 {
    let mut r = 0u64;
    for k in 0..8 {
        if m & (1 << k) != 0 {
            r |= 0xff << (8 * k);
        }
    }
    r
}

fn filter_bit(w: usize) -> (usize, u64) {
    let h = (w >> 3) & 4095;
    (h >> 6, 1u64 << (h & 63))
}

impl WriteBuf {
    /// The entry of word `w`, new ones counted in `dao_ft_words` (a running
    /// execution's buffer) and marked in the filter.
    #[inline]
    fn word(&mut self, w: usize) -> &mut (u64, u8) {
        let (i, bit) = filter_bit(w);
        self.filter[i] |= bit;
        let counted = self.counted;
        self.words.entry(w, || {
            if counted {
                word_counter(w).fetch_add(1, Relaxed);
            }
        })
    }

    #[inline]
    pub(super) fn put(&mut self, addr: usize, bytes: &[u8]) {
        if bytes.len() == 8 && addr & 7 == 0 {
            *self.word(addr) = (u64::from_le_bytes(bytes.try_into().unwrap()), 0xff);
            return;
        }
        self.put_bytes(addr, bytes)
    }

    fn put_bytes(&mut self, addr: usize, bytes: &[u8]) {
        let mut a = addr;
        for chunk in WordChunks::new(addr, bytes.len()) {
            let e = self.word(chunk.0);
            let mut v = e.0.to_le_bytes();
            for k in chunk.1..chunk.2 {
                v[k] = bytes[a - addr];
                e.1 |= 1 << k;
                a += 1;
            }
            e.0 = u64::from_le_bytes(v);
        }
    }

    /// Overlay the buffered bytes of `[addr, addr + dst.len())` on `dst`.
    #[inline]
    pub(super) fn overlay(&self, addr: usize, dst: &mut [u8]) {
        if self.words.len == 0 {
            return;
        }
        if dst.len() == 8 && addr & 7 == 0 {
            if let Some(&(v, m)) = self.words.get(addr) {
                let old = u64::from_le_bytes((&*dst).try_into().unwrap());
                let mm = mask_bytes(m);
                dst.copy_from_slice(&((old & !mm) | (v & mm)).to_le_bytes());
            }
            return;
        }
        let mut a = addr;
        for (w, lo, hi) in WordChunks::new(addr, dst.len()) {
            let (i, bit) = filter_bit(w);
            if self.filter[i] & bit != 0 {
                if let Some(&(v, m)) = self.words.get(w) {
                    let v = v.to_le_bytes();
                    for k in lo..hi {
                        if m & (1 << k) != 0 {
                            dst[a - addr + k - lo] = v[k];
                        }
                    }
                }
            }
            a += hi - lo;
        }
    }

    /// Uncount the buffered words (the execution has ended).
    pub(super) fn release(&self) {
        if !self.counted {
            return;
        }
        for (w, _) in self.words.iter() {
            word_counter(w).fetch_sub(1, Relaxed);
        }
    }

    /// Write the buffer to memory.
    ///
    /// # Safety
    /// Every buffered address is writable program memory (the replica would
    /// have written it there).
    pub(super) unsafe fn commit(&self) {
        for (w, &(v, m)) in self.words.iter() {
            if m == 0xff {
                // SAFETY: see above.
                unsafe { (w as *mut u64).write_unaligned(v) };
            } else {
                let b = v.to_le_bytes();
                for (k, byte) in b.iter().enumerate() {
                    if m & (1 << k) != 0 {
                        // SAFETY: see above.
                        unsafe { ((w + k) as *mut u8).write(*byte) };
                    }
                }
            }
        }
    }

    /// Flip bit `r` (mod the written bits) of one written byte: a fault in
    /// a buffered write. The word flipped; None when nothing was written.
    pub(super) fn flip(&mut self, r: u64) -> Option<usize> {
        if self.words.len == 0 {
            return None;
        }
        let mut keys: Vec<usize> = self.words.iter().map(|(k, _)| k).collect();
        keys.sort_unstable();
        let w = keys[(r % keys.len() as u64) as usize];
        let e = self.words.entry(w, || unreachable!("a buffered word"));
        let bytes: Vec<u32> = (0..8).filter(|k| e.1 & (1 << k) != 0).collect();
        let k = bytes[((r >> 16) % bytes.len() as u64) as usize];
        e.0 ^= 1u64 << (k * 8 + ((r >> 32) % 8) as u32);
        Some(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_overlays_and_compares() {
        let mut mem = [0u8; 32];
        let base = mem.as_mut_ptr() as usize;
        let mut b = WriteBuf::default();
        b.put(base + 5, &[1, 2, 3, 4, 5, 6]); // spans two words
        let mut d = [9u8; 12];
        b.overlay(base + 2, &mut d);
        assert_eq!(d, [9, 9, 9, 1, 2, 3, 4, 5, 6, 9, 9, 9]);
        let mut c = WriteBuf::default();
        c.put(base + 5, &[1, 2, 3]);
        assert!(b != c);
        c.put(base + 8, &[4, 5, 6]);
        assert!(b == c);
        // SAFETY: the addresses are `mem`'s.
        unsafe { b.commit() };
        assert_eq!(&mem[4..12], &[0, 1, 2, 3, 4, 5, 6, 0]);
        assert!(c.flip(12345).is_some());
        assert!(b != c);
    }
}
