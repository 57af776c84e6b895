//! A dense, fixed-domain bit set: the domain of every data-flow fact here.
use std::fmt;

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitSet {
    words: Vec<u64>,
    domain: usize,
}

impl BitSet {
    pub fn new_empty(domain: usize) -> Self {
        BitSet { words: vec![0; domain.div_ceil(64)], domain }
    }
    pub fn domain(&self) -> usize {
        self.domain
    }
    pub fn insert(&mut self, i: usize) -> bool {
        assert!(i < self.domain, "bit {i} outside domain {}", self.domain);
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & b != 0;
        self.words[w] |= b;
        !was
    }
    pub fn remove(&mut self, i: usize) -> bool {
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & b != 0;
        self.words[w] &= !b;
        was
    }
    pub fn contains(&self, i: usize) -> bool {
        i < self.domain && self.words[i / 64] & (1u64 << (i % 64)) != 0
    }
    /// `self |= other`; returns whether `self` changed.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        debug_assert_eq!(self.domain, other.domain);
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    pub fn subtract(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !*b;
        }
    }
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + t)
            })
        })
    }
}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn insert_union_iter() {
        let mut a = BitSet::new_empty(130);
        assert!(a.insert(3));
        assert!(!a.insert(3));
        a.insert(129);
        let mut b = BitSet::new_empty(130);
        b.insert(64);
        assert!(a.union_with(&b));
        assert!(!a.union_with(&b));
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![3, 64, 129]);
        a.subtract(&b);
        assert_eq!(a.count(), 2);
        assert!(a.remove(3) && !a.contains(3));
    }
}
