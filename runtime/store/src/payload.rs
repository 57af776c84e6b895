//! The logical content of a store file (before framing and compression).
//!
//! ```text
//! meta_len u64, meta bytes             opaque bytes of the caller (always whole)
//! region_count u64
//! per region, in the checkpoint's order:
//!   addr u64, len u64, kind u8
//!   kind 0 (whole): len bytes
//!   kind 1 (runs):  run_count u64, run_count x (first_block u64, block_count u64),
//!                   then the bytes of every run in order (the last block of a
//!                   region may be short)
//! ```
//! All integers little-endian. A delta lists the complete region table of
//! its checkpoint: applying it keeps exactly these regions. Integrity is the
//! framing's job (every chunk is checksummed); this parser still checks
//! every length against the buffer, so a bug never reads out of bounds.
use std::collections::HashMap;
use std::io::{self, Write};

use crate::delta::{Change, Plan, Run};
use crate::region::{OwnedRegion, Region};

const WHOLE: u8 = 0;
const RUNS: u8 = 1;

/// Writes the payload of a checkpoint: `regions` as `plan` says.
///
/// `done(i)` is called once region `i`'s bytes have gone into `w` (a
/// pipeline copies them into its buffers: the caller may then drop the
/// memory behind them, as a forked writer does, `Engine::checkpoint_releasing`).
pub fn encode<W: Write>(w: &mut W, meta: &[u8], regions: &[Region<'_>], plan: &Plan, block_size: usize, done: &mut dyn FnMut(usize)) -> io::Result<()> {
    assert_eq!(regions.len(), plan.changes.len());
    w.write_all(&(meta.len() as u64).to_le_bytes())?;
    w.write_all(meta)?;
    w.write_all(&(regions.len() as u64).to_le_bytes())?;
    let bs = block_size as u64;
    for (i, (r, c)) in regions.iter().zip(&plan.changes).enumerate() {
        let mut head = [0u8; 17];
        head[0..8].copy_from_slice(&r.addr.to_le_bytes());
        head[8..16].copy_from_slice(&(r.bytes.len() as u64).to_le_bytes());
        match c {
            Change::New => {
                head[16] = WHOLE;
                w.write_all(&head)?;
                w.write_all(r.bytes)?;
            }
            Change::Runs(runs) => {
                head[16] = RUNS;
                w.write_all(&head)?;
                w.write_all(&(runs.len() as u64).to_le_bytes())?;
                let mut table = Vec::with_capacity(runs.len() * 16);
                for run in runs {
                    table.extend_from_slice(&run.first.to_le_bytes());
                    table.extend_from_slice(&run.count.to_le_bytes());
                }
                w.write_all(&table)?;
                let len = r.bytes.len() as u64;
                for run in runs {
                    let start = run.first * bs;
                    let end = ((run.first + run.count) * bs).min(len);
                    w.write_all(&r.bytes[start as usize..end as usize])?;
                }
            }
        }
        done(i);
    }
    Ok(())
}

/// The number of bytes [`encode`] writes for these arguments.
pub fn encoded_len(meta: &[u8], regions: &[Region<'_>], plan: &Plan, block_size: usize) -> u64 {
    let bs = block_size as u64;
    let mut n = 8 + meta.len() as u64 + 8;
    for (r, c) in regions.iter().zip(&plan.changes) {
        n += 17;
        match c {
            Change::New => n += r.bytes.len() as u64,
            Change::Runs(runs) => {
                n += 8 + 16 * runs.len() as u64;
                let len = r.bytes.len() as u64;
                n += runs.iter().map(|run| ((run.first + run.count) * bs).min(len) - run.first * bs).sum::<u64>();
            }
        }
    }
    n
}

/// One region entry of a parsed payload; byte ranges index the payload.
#[derive(Debug)]
enum Entry {
    Whole { addr: u64, at: usize, len: usize },
    Runs { addr: u64, len: usize, runs: Vec<Run>, at: usize },
}

/// A parsed payload borrowing the decoded bytes.
#[derive(Debug)]
pub struct Parsed<'a> {
    bytes: &'a [u8],
    pub meta: &'a [u8],
    entries: Vec<Entry>,
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8], String> {
        if n > (self.b.len() - self.pos) as u64 {
            return Err(format!("payload record at byte {} runs past the end", self.pos));
        }
        let s = &self.b[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
}

/// Parses a payload; `block_size` is the file's.
pub fn parse(b: &[u8], block_size: usize) -> Result<Parsed<'_>, String> {
    let mut c = Cursor { b, pos: 0 };
    let n = c.u64()?;
    let meta = c.take(n)?;
    let count = c.u64()?;
    let bs = block_size as u64;
    let mut entries = Vec::new();
    for _ in 0..count {
        let addr = c.u64()?;
        let len = c.u64()?;
        match c.u8()? {
            WHOLE => {
                let at = c.pos;
                c.take(len)?;
                entries.push(Entry::Whole { addr, at, len: len as usize });
            }
            RUNS => {
                let nruns = c.u64()?;
                if nruns > (b.len() / 16) as u64 {
                    return Err("run count exceeds the payload".into());
                }
                let mut runs = Vec::with_capacity(nruns as usize);
                let nblocks = len.div_ceil(bs);
                let mut next = 0u64;
                let mut data = 0u64;
                for _ in 0..nruns {
                    let (first, count) = (c.u64()?, c.u64()?);
                    let end = first.checked_add(count).filter(|&e| count > 0 && first >= next && e <= nblocks);
                    let end = end.ok_or_else(|| format!("bad run {first}+{count} in region {addr:#x}"))?;
                    data += (end * bs).min(len) - first * bs;
                    next = end;
                    runs.push(Run { first, count });
                }
                let at = c.pos;
                c.take(data)?;
                entries.push(Entry::Runs { addr, len: len as usize, runs, at });
            }
            k => return Err(format!("unknown region kind {k} for region {addr:#x}")),
        }
    }
    if c.pos != b.len() {
        return Err(format!("{} unexpected bytes after the last region", b.len() - c.pos));
    }
    Ok(Parsed { bytes: b, meta, entries })
}

/// A complete state: what a restore returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub meta: Vec<u8>,
    pub regions: Vec<OwnedRegion>,
}

impl Parsed<'_> {
    /// True when every region is stored whole (a full checkpoint).
    pub fn is_whole(&self) -> bool {
        self.entries.iter().all(|e| matches!(e, Entry::Whole { .. }))
    }

    /// Applies this payload to `prev` (the state it is relative to; `None`
    /// for a full checkpoint). Fails when a patched region is missing from
    /// `prev` or has another length there.
    pub fn apply(&self, prev: Option<State>, block_size: usize) -> Result<State, String> {
        let mut old: HashMap<u64, Vec<u8>> =
            prev.map(|s| s.regions.into_iter().map(|r| (r.addr, r.bytes)).collect()).unwrap_or_default();
        let mut regions = Vec::with_capacity(self.entries.len());
        for e in &self.entries {
            match e {
                Entry::Whole { addr, at, len } => {
                    regions.push(OwnedRegion { addr: *addr, bytes: self.bytes[*at..*at + *len].to_vec() })
                }
                Entry::Runs { addr, len, runs, at } => {
                    let mut bytes = old
                        .remove(addr)
                        .ok_or_else(|| format!("region {addr:#x} is patched but missing from the previous state"))?;
                    if bytes.len() != *len {
                        return Err(format!(
                            "region {addr:#x} is {} bytes in the previous state, {len} in the delta",
                            bytes.len()
                        ));
                    }
                    let mut src = *at;
                    for r in runs {
                        let s = r.first as usize * block_size;
                        let e = ((r.first + r.count) as usize * block_size).min(*len);
                        bytes[s..e].copy_from_slice(&self.bytes[src..src + (e - s)]);
                        src += e - s;
                    }
                    regions.push(OwnedRegion { addr: *addr, bytes });
                }
            }
        }
        Ok(State { meta: self.meta.to_vec(), regions })
    }
}
