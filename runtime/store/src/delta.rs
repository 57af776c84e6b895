//! Comparing two signatures: which blocks of which regions changed.
//!
//! A region of the current checkpoint is *new* (stored whole) when the
//! reference has no region with its key, or has one of another length, or
//! the two signatures use another block size or hash. Otherwise its changed
//! blocks are merged into runs of consecutive blocks. Regions of the
//! reference missing from the current checkpoint simply do not appear in the
//! delta: a delta record always lists the complete region table of its
//! checkpoint, so a restore drops them.
use crate::hash::Signature;

/// Consecutive changed blocks `first .. first + count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub first: u64,
    pub count: u64,
}

/// What a delta stores for one region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Every byte (new region, or its length changed).
    New,
    /// Only these blocks (empty: unchanged).
    Runs(Vec<Run>),
}

/// The changes of one checkpoint relative to a reference, in the current
/// checkpoint's region order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub changes: Vec<Change>,
    /// Bytes the delta will carry (new regions whole, changed blocks).
    pub changed_bytes: u64,
    /// Bytes of the current checkpoint.
    pub total_bytes: u64,
    pub new_regions: usize,
    /// Regions of the reference absent from the current checkpoint.
    pub removed_regions: usize,
}

impl Plan {
    /// A plan that stores everything (a full checkpoint).
    pub fn full(current: &Signature) -> Plan {
        Plan {
            changes: vec![Change::New; current.regions.len()],
            changed_bytes: current.data_bytes(),
            total_bytes: current.data_bytes(),
            new_regions: current.regions.len(),
            removed_regions: 0,
        }
    }
}

/// Compares `current` with `reference` block by block.
pub fn diff(reference: &Signature, current: &Signature) -> Plan {
    let compatible = reference.block_size == current.block_size && reference.hash == current.hash;
    let bs = current.block_size as u64;
    let mut plan = Plan {
        changes: Vec::with_capacity(current.regions.len()),
        changed_bytes: 0,
        total_bytes: 0,
        new_regions: 0,
        removed_regions: 0,
    };
    let mut matched = 0usize;
    for cur in &current.regions {
        plan.total_bytes += cur.len;
        let old = reference.get(cur.addr).filter(|o| compatible && o.len == cur.len);
        let Some(old) = old else {
            plan.changes.push(Change::New);
            plan.changed_bytes += cur.len;
            plan.new_regions += 1;
            continue;
        };
        matched += 1;
        let mut runs: Vec<Run> = Vec::new();
        for (i, (a, b)) in old.hashes.iter().zip(&cur.hashes).enumerate() {
            if a == b {
                continue;
            }
            let i = i as u64;
            match runs.last_mut() {
                Some(r) if r.first + r.count == i => r.count += 1,
                _ => runs.push(Run { first: i, count: 1 }),
            }
            plan.changed_bytes += bs.min(cur.len - i * bs);
        }
        plan.changes.push(Change::Runs(runs));
    }
    // Keys of the reference not in the current checkpoint (a region whose
    // length changed counts as matched-by-key but is stored as New).
    let same_key = current.regions.iter().filter(|c| reference.get(c.addr).is_some()).count();
    debug_assert!(same_key >= matched);
    plan.removed_regions = reference.regions.len() - same_key;
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HashKind;
    use crate::hash::signature;
    use crate::region::Region;

    #[test]
    fn runs_new_and_removed() {
        let a = vec![1u8; 10_000];
        let mut b = a.clone();
        b[0] = 9; // block 0
        b[1024] = 9; // block 1
        b[9_999] = 9; // block 9 (partial: 784 bytes)
        let c = vec![3u8; 100];
        let r0 = signature(&[Region { addr: 1, bytes: &a }, Region { addr: 2, bytes: &c }], 1024, HashKind::Xxh3);
        let r1 = signature(&[Region { addr: 1, bytes: &b }, Region { addr: 5, bytes: &c }], 1024, HashKind::Xxh3);
        let p = diff(&r0, &r1);
        assert_eq!(p.changes[0], Change::Runs(vec![Run { first: 0, count: 2 }, Run { first: 9, count: 1 }]));
        assert_eq!(p.changes[1], Change::New);
        assert_eq!(p.changed_bytes, 2048 + 784 + 100);
        assert_eq!(p.removed_regions, 1);
        assert_eq!(p.new_regions, 1);
    }

    #[test]
    fn resized_region_is_new() {
        let a = vec![1u8; 4096];
        let r0 = signature(&[Region { addr: 1, bytes: &a }], 1024, HashKind::Xxh3);
        let r1 = signature(&[Region { addr: 1, bytes: &a[..4000] }], 1024, HashKind::Xxh3);
        assert_eq!(diff(&r0, &r1).changes, vec![Change::New]);
        let r2 = signature(&[Region { addr: 1, bytes: &a }], 2048, HashKind::Xxh3);
        assert_eq!(diff(&r0, &r2).changes, vec![Change::New]);
    }
}
