//! Byte ranges of a global (sorted, merged `(first, end)` pairs): what
//! the sites want of it, less the boxes dead there, within what any code
//! may still read, small gaps closed (`collect.rs`).

/// Gaps between saved ranges of one global below this many bytes are
/// saved too: each range is a record of the checkpoint, about 165 bytes of
/// header and index (measured: 15,630 records of 40 bytes took 2.6 MB), so
/// a hole much smaller than that costs more left out than saved.
pub const MIN_GAP: u64 = 128;

/// `r` (sorted, merged) with the gaps shorter than `gap` filled.
pub fn coalesce(r: Vec<(u64, u64)>, gap: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(r.len());
    for (a, b) in r {
        match out.last_mut() {
            Some(l) if a < l.1.saturating_add(gap) => l.1 = l.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// `a` within `b` (both sorted and merged).
pub fn intersect_ranges(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.push((lo, hi));
        }
        if a[i].1 <= b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// `a` less `b` (`b` sorted and merged).
pub fn minus_ranges(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for &(mut lo, hi) in a {
        // the runs of b that may overlap [lo, hi)
        let from = b.partition_point(|r| r.1 <= lo);
        for &(blo, bhi) in &b[from..] {
            if blo >= hi {
                break;
            }
            if blo > lo {
                out.push((lo, blo));
            }
            lo = lo.max(bhi);
            if lo >= hi {
                break;
            }
        }
        if lo < hi {
            out.push((lo, hi));
        }
    }
    out
}

/// Sorted, merged ranges within `[0, size)`.
pub fn merge_ranges(mut r: Vec<(u64, u64)>, size: u64) -> Vec<(u64, u64)> {
    r.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(r.len());
    for (a, b) in r {
        let (a, b) = (a.min(size), b.min(size));
        if a >= b {
            continue;
        }
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The parts of `[0, size)` outside `have` (sorted, merged ranges).
pub fn complement(have: &[(u64, u64)], size: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(lo, hi) in have {
        if lo > at {
            out.push((at, lo));
        }
        at = at.max(hi);
    }
    if at < size {
        out.push((at, size));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_less_and_within() {
        let a = [(0, 100), (200, 300)];
        assert_eq!(minus_ranges(&a, &[(10, 20), (90, 210), (250, 400)]), vec![(0, 10), (20, 90), (210, 250)]);
        assert_eq!(minus_ranges(&a, &[]), a.to_vec());
        assert_eq!(minus_ranges(&a, &[(0, 300)]), vec![]);
        assert_eq!(intersect_ranges(&a, &[(10, 20), (90, 210), (250, 400)]), vec![(10, 20), (90, 100), (200, 210), (250, 300)]);
        assert_eq!(intersect_ranges(&a, &[]), vec![]);
        assert_eq!(coalesce(vec![(0, 8), (16, 24), (5000, 5008), (5100, 5300), (9200, 9300)], 128), vec![(0, 24), (5000, 5300), (9200, 9300)]);
        assert_eq!(coalesce(vec![], 4096), vec![]);
    }

    #[test]
    fn complement_of_saved_ranges() {
        assert_eq!(complement(&[], 100), vec![(0, 100)]);
        assert_eq!(complement(&[(0, 100)], 100), vec![]);
        assert_eq!(complement(&[(10, 20), (30, 100)], 100), vec![(0, 10), (20, 30)]);
        assert_eq!(complement(&[(0, 10), (90, 95)], 100), vec![(10, 90), (95, 100)]);
    }

}
