//! The word table: 8-byte words of memory keyed by address, with the
//! values and byte masks of an execution's buffered writes; and the
//! process-wide counters of buffered words (`dao_ft_words`) that let a
//! replica skip its hook on a load nobody buffers.
use std::sync::atomic::AtomicU32;

/// How many running executions buffer a word, by `(address >> 3) & mask`
/// (`dao_abi::FT_WORDS`): a replica loads a word whose counter is 0 without
/// calling the load hook (hooks.rs; the pass's inline test). An execution
/// counts each word when it first buffers it and uncounts its words when it
/// ends; other executions' words sharing the index only send loads the slow
/// way.
#[no_mangle]
pub static dao_ft_words: [AtomicU32; 1 << dao_abi::FT_WORDS_BITS] = [const { AtomicU32::new(0) }; 1 << dao_abi::FT_WORDS_BITS];

pub(super) fn word_counter(w: usize) -> &'static AtomicU32 {
    &dao_ft_words[(w >> 3) & ((1 << dao_abi::FT_WORDS_BITS) - 1)]
}

/// Open-addressing table of buffered words: word address (0: empty) ->
/// (value, mask of the bytes written). Linear probing, at most half full.
pub(super) struct WordTable {
    keys: Vec<usize>,
    vals: Vec<(u64, u8)>,
    pub(super) len: usize,
    shift: u32,
}

impl WordTable {
    pub(super) fn new() -> Self {
        WordTable { keys: vec![0; 64], vals: vec![(0, 0); 64], len: 0, shift: 64 - 6 }
    }
    #[inline]
    fn slot(&self, w: usize) -> usize {
        ((w as u64 >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }
    #[inline]
    fn find(&self, w: usize) -> Result<usize, usize> {
        let m = self.keys.len() - 1;
        let mut i = self.slot(w);
        loop {
            let k = self.keys[i];
            if k == w {
                return Ok(i);
            }
            if k == 0 {
                return Err(i);
            }
            i = (i + 1) & m;
        }
    }
    #[inline]
    pub(super) fn get(&self, w: usize) -> Option<&(u64, u8)> {
        if self.len == 0 {
            return None;
        }
        self.find(w).ok().map(|i| &self.vals[i])
    }
    /// The entry of `w`, inserted empty if new (then `on_new` runs).
    #[inline]
    pub(super) fn entry(&mut self, w: usize, on_new: impl FnOnce()) -> &mut (u64, u8) {
        match self.find(w) {
            Ok(i) => &mut self.vals[i],
            Err(mut i) => {
                if 2 * (self.len + 1) > self.keys.len() {
                    self.grow();
                    i = self.find(w).unwrap_err();
                }
                on_new();
                self.keys[i] = w;
                self.len += 1;
                &mut self.vals[i]
            }
        }
    }
    fn grow(&mut self) {
        let old: Vec<(usize, (u64, u8))> = self.iter().map(|(k, v)| (k, *v)).collect();
        let n = self.keys.len() * 4;
        self.keys = vec![0; n];
        self.vals = vec![(0, 0); n];
        self.shift = 64 - n.trailing_zeros();
        for (k, v) in old {
            let i = self.find(k).unwrap_err();
            self.keys[i] = k;
            self.vals[i] = v;
        }
    }
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &(u64, u8))> {
        self.keys.iter().zip(&self.vals).filter(|(k, _)| **k != 0).map(|(k, v)| (*k, v))
    }
}

impl PartialEq for WordTable {
    fn eq(&self, o: &Self) -> bool {
        self.len == o.len && self.iter().all(|(k, v)| o.get(k) == Some(v))
    }
}

/// The 8-byte words `[addr, addr + n)` spans: (word, first byte, end byte).
pub(super) struct WordChunks {
    a: usize,
    end: usize,
}
impl WordChunks {
    pub(super) fn new(addr: usize, n: usize) -> Self {
        WordChunks { a: addr, end: addr + n }
    }
}
impl Iterator for WordChunks {
    type Item = (usize, usize, usize);
    fn next(&mut self) -> Option<Self::Item> {
        if self.a >= self.end {
            return None;
        }
        let w = self.a & !7;
        let lo = self.a - w;
        let hi = (self.end - w).min(8);
        self.a = w + hi;
        Some((w, lo, hi))
    }
}
