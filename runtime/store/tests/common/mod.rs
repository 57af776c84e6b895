//! Shared helpers of the integration tests: a model of the program's memory
//! (regions keyed by address) and the mutations a program makes between
//! checkpoints.
#![allow(dead_code)]
use dao_store::{OwnedRegion, Region, State};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    pub regions: Vec<(u64, Vec<u8>)>,
    pub meta: Vec<u8>,
}

#[derive(Clone, Debug)]
pub enum Op {
    /// Overwrite `len` bytes at `off` of region `r` (indices taken modulo).
    Write { r: usize, off: usize, len: usize, seed: u8 },
    Add { len: usize, seed: u8 },
    Remove { r: usize },
    Resize { r: usize, len: usize },
}

pub fn fill(len: usize, seed: u8) -> Vec<u8> {
    // Mildly compressible: runs of a pattern with some noise.
    let mut x = seed as u32 * 2654435761 + 1;
    (0..len)
        .map(|i| {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            if i % 64 < 40 { (i / 64) as u8 ^ seed } else { (x >> 16) as u8 }
        })
        .collect()
}

impl Model {
    pub fn new(lens: &[usize]) -> Model {
        let regions = lens.iter().enumerate().map(|(i, &l)| (0x1000 + i as u64 * 0x10_0000, fill(l, i as u8))).collect();
        Model { regions, meta: b"meta-0".to_vec() }
    }

    pub fn regions(&self) -> Vec<Region<'_>> {
        self.regions.iter().map(|(a, b)| Region { addr: *a, bytes: b }).collect()
    }

    pub fn apply(&mut self, op: &Op, step: usize) {
        self.meta = format!("meta-{step}").into_bytes();
        let n = self.regions.len();
        match *op {
            Op::Write { r, off, len, seed } if n > 0 => {
                let b = &mut self.regions[r % n].1;
                if b.is_empty() {
                    return;
                }
                let off = off % b.len();
                let end = (off + len).min(b.len());
                let src = fill(end - off, seed.wrapping_add(step as u8));
                b[off..end].copy_from_slice(&src);
                // Make sure at least one byte really changes.
                b[off] = b[off].wrapping_add(1);
            }
            Op::Add { len, seed } => {
                let addr = self.regions.iter().map(|r| r.0).max().unwrap_or(0) + 0x10_0000;
                self.regions.push((addr, fill(len, seed)));
            }
            Op::Remove { r } if n > 0 => {
                self.regions.remove(r % n);
            }
            Op::Resize { r, len } if n > 0 => {
                let b = &mut self.regions[r % n].1;
                let old = b.len();
                b.resize(len, 0x5a);
                if len > old {
                    b[old..].copy_from_slice(&fill(len - old, 7));
                }
            }
            _ => {}
        }
    }

    pub fn state(&self) -> State {
        State {
            meta: self.meta.clone(),
            regions: self.regions.iter().map(|(a, b)| OwnedRegion { addr: *a, bytes: b.clone() }).collect(),
        }
    }
}
