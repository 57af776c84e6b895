//! The hash maps and sets of the pass: std's, with the Fx hash (rustc's
//! multiply-rotate hash, here written out) in place of SipHash. Their keys
//! are LLVM handles (pointers), indices and small tuples, never input an
//! adversary chooses, and SipHash was about a fifth of the pass's own time
//! on NPB SP (`docs/results.md`, compile time). Iteration order is
//! deterministic run to run (no random seed); nothing the pass emits may
//! depend on it all the same.
use std::hash::{BuildHasherDefault, Hasher};

/// rustc-hash's FxHasher (version 2): one multiply per word, and a
/// rotation at the end so that pointer keys, whose low bits are zero, still
/// spread over the low bits the table indexes by.
#[derive(Clone, Copy, Default)]
pub struct FxHasher {
    hash: u64,
}

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = self.hash.wrapping_add(w).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type HashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub type HashSet<T> = std::collections::HashSet<T, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_keys_spread_over_low_bits() {
        // 16-byte aligned addresses: the low 7 bits of their hashes take
        // many values (a plain multiply would leave them all zero)
        let mut low = HashSet::default();
        for k in 0..1024u64 {
            let mut h = FxHasher::default();
            h.write_usize((0x5555_0000_0000 + 16 * k) as usize);
            low.insert(h.finish() & 0x7f);
        }
        assert!(low.len() > 100, "{}", low.len());
    }

    #[test]
    fn maps_work() {
        let mut m: HashMap<(usize, i64), &str> = HashMap::default();
        m.insert((1, -1), "a");
        m.insert((2, 5), "b");
        assert_eq!(m.get(&(2, 5)), Some(&"b"));
        let s: HashSet<&str> = ["x", "y", "x"].into_iter().collect();
        assert_eq!(s.len(), 2);
    }
}
