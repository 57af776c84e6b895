//! Block hashing (FHash) in parallel over bounded work units (P-FHash).
//!
//! Each region is cut into blocks of `block_size` bytes (the last one may be
//! shorter) and every block gets a 128-bit hash. The [`Signature`] (the list
//! of block hashes per region, 16 bytes per block: 0.4% of the data at 4 KiB
//! blocks) stays in memory to be compared with the next checkpoint's.
//!
//! Parallelism: the blocks of all regions are grouped into work units of at
//! most [`HASH_UNIT`] bytes (never spanning two regions) and the units are
//! hashed by rayon's work stealing, in whatever thread pool the caller runs
//! this in (`pool.install(|| signature(..))`). The paper's static split
//! (m/N blocks per core) is replaced by stealing: OpenMP threads of the
//! program or other processes may hold some cores, and stealing balances
//! around them. Each unit writes its own disjoint slice of the output, so no
//! synchronisation is needed beyond rayon's join.
use std::collections::HashMap;

use md5::Digest;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128;

use crate::config::HashKind;
use crate::region::Region;

/// Upper bound on the bytes one work unit hashes.
pub const HASH_UNIT: usize = 1 << 20;

/// Hash of one block.
pub fn hash_block(kind: HashKind, b: &[u8]) -> u128 {
    match kind {
        HashKind::Xxh3 => xxh3_128(b),
        HashKind::Blake3 => {
            let h = blake3::hash(b);
            u128::from_le_bytes(h.as_bytes()[..16].try_into().expect("32-byte digest"))
        }
        HashKind::Md5 => u128::from_le_bytes(md5::Md5::digest(b).into()),
    }
}

/// Block hashes of one region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionSig {
    pub addr: u64,
    pub len: u64,
    pub hashes: Vec<u128>,
}

/// Block hashes of every region of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub block_size: usize,
    pub hash: HashKind,
    /// In the caller's region order.
    pub regions: Vec<RegionSig>,
    index: HashMap<u64, usize>,
}

impl Signature {
    /// The signature of region `addr`, if present.
    pub fn get(&self, addr: u64) -> Option<&RegionSig> {
        self.index.get(&addr).map(|&i| &self.regions[i])
    }
    /// A signature from its regions' hashes (in the caller's order).
    pub fn from_regions(block_size: usize, hash: HashKind, regions: Vec<RegionSig>) -> Signature {
        let index = regions.iter().enumerate().map(|(i, s)| (s.addr, i)).collect();
        Signature { block_size, hash, regions, index }
    }
    /// Bytes the signature covers.
    pub fn data_bytes(&self) -> u64 {
        self.regions.iter().map(|r| r.len).sum()
    }
    /// Heap bytes the signature occupies (about 16 per block).
    pub fn memory_bytes(&self) -> usize {
        self.regions.iter().map(|r| r.hashes.len() * 16 + 40).sum::<usize>() + self.index.len() * 24
    }
}

/// Number of blocks of a region of `len` bytes.
pub fn blocks_of(len: u64, block_size: usize) -> u64 {
    len.div_ceil(block_size as u64)
}

/// Computes the signature of `regions` (P-FHash) in the current rayon pool.
pub fn signature(regions: &[Region<'_>], block_size: usize, kind: HashKind) -> Signature {
    signature_with_unit(regions, block_size, kind, HASH_UNIT)
}

/// [`signature`] with an explicit work-unit size (bytes; rounded to whole blocks).
pub fn signature_with_unit(regions: &[Region<'_>], block_size: usize, kind: HashKind, unit: usize) -> Signature {
    assert!(block_size > 0);
    let per_unit = (unit / block_size).max(1);
    let mut sigs: Vec<RegionSig> = regions
        .iter()
        .map(|r| RegionSig {
            addr: r.addr,
            len: r.bytes.len() as u64,
            hashes: vec![0; blocks_of(r.bytes.len() as u64, block_size) as usize],
        })
        .collect();
    let mut work: Vec<(&[u8], &mut [u128])> = Vec::new();
    for (r, s) in regions.iter().zip(sigs.iter_mut()) {
        let mut hs: &mut [u128] = &mut s.hashes;
        let mut data = r.bytes;
        while !hs.is_empty() {
            let n = per_unit.min(hs.len());
            let (now, rest) = std::mem::take(&mut hs).split_at_mut(n);
            let nbytes = (n * block_size).min(data.len());
            work.push((&data[..nbytes], now));
            data = &data[nbytes..];
            hs = rest;
        }
    }
    work.into_par_iter().for_each(|(data, hs)| {
        for (h, blk) in hs.iter_mut().zip(data.chunks(block_size)) {
            *h = hash_block(kind, blk);
        }
    });
    let index = sigs.iter().enumerate().map(|(i, s)| (s.addr, i)).collect();
    Signature { block_size, hash: kind, regions: sigs, index }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_equals_serial_for_every_kind() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let regions = [
            Region { addr: 1, bytes: &data[..] },
            Region { addr: 2, bytes: &data[5..5] },
            Region { addr: 3, bytes: &data[7..1000] },
        ];
        for kind in [HashKind::Xxh3, HashKind::Blake3, HashKind::Md5] {
            let s = signature_with_unit(&regions, 256, kind, 1024);
            for (r, rs) in regions.iter().zip(&s.regions) {
                let serial: Vec<u128> = r.bytes.chunks(256).map(|b| hash_block(kind, b)).collect();
                assert_eq!(rs.hashes, serial);
                assert_eq!(rs.len, r.bytes.len() as u64);
            }
            assert_eq!(s.get(3).unwrap().hashes.len(), 4); // 993 bytes: 3 full blocks + 1 partial
        }
    }

    #[test]
    fn one_changed_byte_changes_one_hash() {
        let mut data = vec![0u8; 64 << 10];
        let a = signature(&[Region { addr: 0, bytes: &data }], 1024, HashKind::Xxh3);
        data[5000] ^= 1;
        let b = signature(&[Region { addr: 0, bytes: &data }], 1024, HashKind::Xxh3);
        let diff: Vec<usize> =
            (0..64).filter(|&i| a.regions[0].hashes[i] != b.regions[0].hashes[i]).collect();
        assert_eq!(diff, vec![4]);
    }
}
