//! Byte intervals: sorted, disjoint half-open ranges of byte offsets in an
//! object, the lattice of the array-section analyses (the bytes a loop
//! certainly writes, [`crate::sections`]) and of the byte-level liveness
//! ([`crate::bytelive`]), and the partial kills and uses of a statement
//! ([`crate::body::Stmt`]).

/// Sorted, disjoint, non-adjacent half-open byte intervals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals(pub Vec<(i64, i64)>);

impl Intervals {
    pub fn from_unsorted(mut v: Vec<(i64, i64)>) -> Self {
        v.retain(|(a, b)| a < b);
        v.sort();
        let mut out: Vec<(i64, i64)> = Vec::with_capacity(v.len());
        for (a, b) in v {
            match out.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        Intervals(out)
    }
    /// Whether `[lo, hi)` lies inside the union.
    pub fn covers(&self, lo: i64, hi: i64) -> bool {
        if lo >= hi {
            return true;
        }
        // the last interval starting at or before lo
        let i = self.0.partition_point(|&(a, _)| a <= lo);
        i > 0 && hi <= self.0[i - 1].1
    }
    /// Whether every byte of `other` lies inside the union.
    pub fn covers_all(&self, other: &Intervals) -> bool {
        other.0.iter().all(|&(lo, hi)| self.covers(lo, hi))
    }
    /// Bytes of `[lo, hi)` inside the union.
    pub fn bytes_within(&self, lo: i64, hi: i64) -> u64 {
        self.0.iter().map(|&(a, b)| (b.min(hi) - a.max(lo)).max(0) as u64).sum()
    }
    /// `[0, size)`: every byte of an object of `size` bytes.
    pub fn whole(size: u64) -> Self {
        Intervals::from_unsorted(vec![(0, size as i64)])
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The number of bytes in the union.
    pub fn bytes(&self) -> u64 {
        self.0.iter().map(|&(a, b)| (b - a) as u64).sum()
    }
    /// `self ∪ other`.
    pub fn union(&self, other: &Intervals) -> Intervals {
        Intervals::from_unsorted(self.0.iter().chain(&other.0).copied().collect())
    }
    /// `self ∩ [lo, hi)`.
    pub fn clip(&self, lo: i64, hi: i64) -> Intervals {
        Intervals::from_unsorted(
            self.0
                .iter()
                .map(|&(a, b)| (a.max(lo), b.min(hi)))
                .collect(),
        )
    }
    /// `self − other`.
    pub fn minus(&self, other: &Intervals) -> Intervals {
        let mut out = Vec::new();
        for &(mut a, b) in &self.0 {
            // the intervals of `other` that may overlap [a, b), in order
            let from = other.0.partition_point(|&(_, hi)| hi <= a);
            for &(lo, hi) in &other.0[from..] {
                if lo >= b {
                    break;
                }
                if lo > a {
                    out.push((a, lo));
                }
                a = a.max(hi);
                if a >= b {
                    break;
                }
            }
            if a < b {
                out.push((a, b));
            }
        }
        Intervals(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_merge_and_cover() {
        let i = Intervals::from_unsorted(vec![(10, 20), (0, 5), (5, 10), (30, 40)]);
        assert_eq!(i, Intervals(vec![(0, 20), (30, 40)]));
        assert!(i.covers(0, 20));
        assert!(!i.covers(0, 21));
        assert_eq!(i.bytes_within(15, 35), 10);
    }
}
