//! When two boxes with counts known only at run time never overlap
//! (issue #33): upper bounds on the values the counts are read from under
//! which every byte of one box lies before a given offset.
//!
//! The shape: a Fortran common block is one global, and a loop that
//! rewrites one member of it (NPB 3.3 BT's `rho_i`, `us`, ... in
//! `/fields/`, counts from `grid_points`) reads another (`u`). The
//! rewritten part is dead before the loop only if those reads never touch
//! it, for the values the counts will have. This module chooses bounds on
//! the values (checked by the runtime at the checkpoint, with the other
//! conditions of the kill) under which the read box ends before the write
//! box starts, or the write box ends before the read box starts.
//!
//! How the bounds are chosen: the dimensions sorted by stride; every
//! dimension but the outermost is bounded by the ratio of the next stride
//! to its own (an array's declared extent: `u(5, 0:24, 0:24, 0:23)` has
//! strides 40, 1000, 25000, so 25 rows of 25 elements); the outermost by
//! what is left before the limit. Any bound is sound (the runtime refuses
//! the kill when a value exceeds it); these are the ones that hold for
//! the extents the declarations allow.

/// The count of one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// A constant count.
    Const(u64),
    /// At most `max(floor, add + v)` where `v` is value number `value`
    /// (a write's count `max(0, add + v)` is the case `floor` = 0).
    Sym { value: usize, add: i64, floor: i64 },
}

/// `size` bytes at `start` plus any combination of (stride, count) steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boxy {
    pub start: i64,
    pub size: u64,
    pub dims: Vec<(i64, Count)>,
}

/// Upper bounds `(value, max)` under which every byte of `b` lies below
/// `limit` (each value's count at most the bound chosen for its
/// dimension; a value in two dimensions gets two, the smaller holds).
/// None when no such bounds exist (a negative stride, a constant box
/// already reaching the limit, a floor above the room left).
pub fn below(b: &Boxy, limit: i64) -> Option<Vec<(usize, i64)>> {
    let mut dims = b.dims.clone();
    if dims.iter().any(|&(s, _)| s <= 0) {
        return None;
    }
    dims.sort_by_key(|&(s, _)| s);
    let mut end = b.start as i128 + b.size as i128;
    let mut out = Vec::new();
    let n = dims.len();
    for (i, &(stride, count)) in dims.iter().enumerate() {
        let cap: i128 = if i + 1 < n {
            match count {
                Count::Const(c) => c as i128,
                Count::Sym { .. } => (dims[i + 1].0 / stride).max(1) as i128,
            }
        } else {
            match count {
                Count::Const(c) => c as i128,
                // the outermost: as many steps as fit before the limit
                Count::Sym { .. } => (limit as i128 - end) / stride as i128 + 1,
            }
        };
        if cap < 1 {
            return None;
        }
        if let Count::Sym { value, add, floor } = count {
            if (floor as i128) > cap {
                return None;
            }
            let m = cap - add as i128;
            if m < 0 || m > i64::MAX as i128 {
                return None;
            }
            out.push((value, m as i64));
        }
        end += stride as i128 * (cap - 1);
    }
    (end <= limit as i128).then_some(out)
}

/// Upper bounds under which boxes `a` and `b` share no byte: `a` below
/// `b`'s start, or `b` below `a`'s start (whichever holds; the first when
/// both do). Every stride must be positive, so a box's least byte is its
/// start whatever the counts.
pub fn apart(a: &Boxy, b: &Boxy) -> Option<Vec<(usize, i64)>> {
    if a.dims.iter().chain(&b.dims).any(|&(s, _)| s <= 0) {
        return None;
    }
    if a.start <= b.start {
        below(a, b.start)
    } else {
        below(b, a.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(value: usize, add: i64) -> Count {
        Count::Sym { value, add, floor: i64::MIN }
    }

    /// NPB 3.3 BT's `/fields/`: `u(5, 0:24, 0:24, 0:23)` read (counts
    /// grid_points(1..3), values 0, 1, 2) in the loop that writes
    /// `us(0:24, 0:24, 0:23)` at byte 600000.
    #[test]
    fn common_block_members() {
        let u = Boxy { start: 32, size: 8, dims: vec![(40, sym(0, 0)), (1000, sym(1, 0)), (25000, sym(2, 0))] };
        let us = Boxy { start: 600000, size: 8, dims: vec![(8, sym(0, 0)), (200, sym(1, 0)), (5000, sym(2, 0))] };
        let b = apart(&u, &us).unwrap();
        assert_eq!(b, vec![(0, 25), (1, 25), (2, 24)]);
        // the bounds hold: the last byte of u at the largest counts
        assert!(32 + 8 + 40 * 24 + 1000 * 24 + 25000 * 23 <= 600000);
        // one plane more would reach us
        assert!(32 + 8 + 40 * 24 + 1000 * 24 + 25000 * 24 > 600000);
        // symmetric
        assert_eq!(apart(&us, &u), Some(b));
    }

    /// The write below the read (`rhs` rewritten, `forcing` after it read):
    /// the write's counts are bounded.
    #[test]
    fn write_below_read() {
        let rhs = Boxy { start: 1320000, size: 40, dims: vec![(40, sym(0, 0)), (1000, sym(1, 0)), (25000, sym(2, 0))] };
        let forcing = Boxy { start: 1920000, size: 40, dims: vec![(40, Count::Sym { value: 0, add: 0, floor: 1 }), (1000, sym(1, 0)), (25000, sym(2, 0))] };
        assert_eq!(apart(&forcing, &rhs), Some(vec![(0, 25), (1, 25), (2, 24)]));
    }

    #[test]
    fn refusals() {
        // a constant box already over the limit
        let c = Boxy { start: 0, size: 100, dims: vec![(100, Count::Const(3))] };
        assert_eq!(below(&c, 300), Some(vec![]));
        assert_eq!(below(&c, 299), None);
        // a negative stride
        let n = Boxy { start: 1000, size: 8, dims: vec![(-8, sym(0, 0))] };
        assert_eq!(below(&n, 2000), None);
        // a floor above the room left
        let f = Boxy { start: 0, size: 8, dims: vec![(8, Count::Sym { value: 0, add: 0, floor: 20 })] };
        assert_eq!(below(&f, 100), None);
        assert_eq!(below(&f, 160), Some(vec![(0, 20)]));
        // an add: count = add + v <= cap, so v <= cap - add
        let a = Boxy { start: 0, size: 8, dims: vec![(8, sym(0, -2))] };
        assert_eq!(below(&a, 80), Some(vec![(0, 12)]));
        // no room for a single step
        assert_eq!(below(&a, 4), None);
    }

    /// Every bound returned keeps the box below the limit: a brute-force
    /// check over small boxes and every value up to the bounds.
    #[test]
    fn bounds_are_sound() {
        for start in [0i64, 8, 96] {
            for s0 in [8i64, 16, 24] {
                for s1 in [40i64, 100, 160] {
                    for add in [-2i64, 0, 1] {
                        let b = Boxy { start, size: 8, dims: vec![(s0, sym(0, add)), (s1, sym(1, 0))] };
                        for limit in [200i64, 1000, 2500] {
                            let Some(bounds) = below(&b, limit) else { continue };
                            let m0 = bounds.iter().filter(|x| x.0 == 0).map(|x| x.1).min().unwrap();
                            let m1 = bounds.iter().filter(|x| x.0 == 1).map(|x| x.1).min().unwrap();
                            for v0 in 0..=m0 {
                                for v1 in 0..=m1 {
                                    let (c0, c1) = ((add + v0).max(0), v1);
                                    if c0 == 0 || c1 == 0 {
                                        continue;
                                    }
                                    let last = start + 8 + s0 * (c0 - 1) + s1 * (c1 - 1);
                                    assert!(last <= limit, "{b:?} limit {limit} v {v0},{v1}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
