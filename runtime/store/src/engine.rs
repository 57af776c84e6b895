//! The synchronous engine: one call per checkpoint.
//!
//! [`Engine::checkpoint`] hashes the regions (P-FHash), decides what to
//! store (full or delta, by [`Mode`]), streams the payload through the
//! pipelined writer into a new file, commits it, and only then moves its
//! reference signatures forward: a failed checkpoint leaves the engine
//! exactly as it was, so the next delta is taken against the last
//! *committed* checkpoint.
//!
//! State kept between checkpoints: the signature of the last committed
//! checkpoint (incremental/adaptive) or of the base (differential), their
//! sequence numbers and commit ids, the length of the current chain and the
//! bytes its deltas added up to. A fresh engine (e.g. after a restart) has
//! none, so its first checkpoint is full.
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::config::{Mode, StoreConfig};
use crate::delta::{self, Plan};
use crate::dir::StoreDir;
use crate::error::StoreError;
use crate::fault::Fault;
use crate::file::{self, FileHeader, Kind};
use crate::hash::{self, Signature};
use crate::payload;
use crate::pipeline::PipelineStats;
use crate::region::{self, Region};

const ADVANCE_MAGIC: [u8; 8] = *b"DAOADVN\0";
/// Magic, kind, has-signature flag, five u64.
const ADVANCE_HEADER: usize = 8 + 2 + 5 * 8;

/// A committed checkpoint a delta may refer to.
#[derive(Clone, Debug)]
struct Reference {
    seq: u64,
    id: u64,
    sig: Signature,
}

/// What one checkpoint did.
#[derive(Clone, Debug)]
pub struct Committed {
    pub seq: u64,
    pub kind: Kind,
    pub path: PathBuf,
    /// The checkpoint it is a delta against (None for a full one).
    pub parent: Option<u64>,
    /// Bytes of all regions.
    pub total_bytes: u64,
    /// Region bytes stored (changed blocks for a delta).
    pub stored_region_bytes: u64,
    /// Payload bytes before compression (regions + tables + meta).
    pub raw_bytes: u64,
    pub file_bytes: u64,
    pub hash_time: Duration,
    pub write_time: Duration,
    pub sync_time: Duration,
    pub pipeline: PipelineStats,
    /// Files garbage collection deleted after this commit.
    pub collected: Vec<PathBuf>,
    /// The oldest base garbage collection kept after this (full) commit,
    /// when the store holds `keep_chains` complete chains: checkpoints
    /// older than it, of any format, are no longer needed.
    pub kept_from: Option<u64>,
}

/// The synchronous storage engine of one store directory.
pub struct Engine {
    dir: StoreDir,
    cfg: StoreConfig,
    pool: rayon::ThreadPool,
    next_seq: u64,
    base: Option<Reference>,
    prev: Option<Reference>,
    chain_len: u32,
    chain_bytes: u64,
    base_bytes: u64,
    fault: Option<Fault>,
    /// Full checkpoints this engine (or a forked copy of it that handed its
    /// state back) committed: garbage collection trusts them without
    /// reading them back. Only the newest few matter (GC counts bases
    /// from the newest): the list is cut to 16.
    own_bases: Vec<u64>,
}

impl Engine {
    /// Opens (creating) `dir`; the first checkpoint gets the number after
    /// the highest one present.
    pub fn open(dir: impl Into<PathBuf>, cfg: StoreConfig) -> Result<Engine, StoreError> {
        cfg.validate().map_err(StoreError::InvalidInput)?;
        let mut cfg = cfg;
        cfg.pipeline.direct_io = cfg.direct_io == crate::DirectIo::On;
        let dir = StoreDir::open(dir)?;
        let threads = if cfg.hash_threads == 0 { 0 } else { cfg.hash_threads };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("dao-hash-{i}"))
            .start_handler(|_| crate::thread_started())
            .build()
            .map_err(|e| StoreError::InvalidInput(format!("hash thread pool: {e}")))?;
        let next_seq = dir.max_seq() + 1;
        Ok(Engine { dir, cfg, pool, next_seq, base: None, prev: None, chain_len: 0, chain_bytes: 0, base_bytes: 0, fault: None, own_bases: Vec::new() })
    }

    pub fn dir(&self) -> &StoreDir {
        &self.dir
    }

    pub fn config(&self) -> &StoreConfig {
        &self.cfg
    }

    /// Why a forked writer of this engine is light on the CPU, if it is:
    /// its files bypass the page cache (O_DIRECT, which this directory's
    /// file system accepts) and no codec compresses them, so that its life
    /// is mostly waiting for the disk (the runtime's `DAO_ASYNC=auto`
    /// prior on busy cores: docs/design.md section 15, "auto").
    pub fn light_writer(&self) -> Option<&'static str> {
        let light = self.cfg.direct_io != crate::DirectIo::Off && self.cfg.pipeline.codec == crate::Codec::None;
        (light && crate::file::direct_supported(self.dir.path())).then_some("the writer writes with O_DIRECT and no codec")
    }

    /// Sequence number the next checkpoint will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Makes the next checkpoints fail or die at a chosen point (tests, and
    /// the runtime's DAO_CRASH_IN). `at_chunk` may be [`crate::fault::MIDDLE`].
    #[doc(hidden)]
    pub fn set_fault(&mut self, f: Option<Fault>) {
        self.fault = f;
    }

    /// Numbers the next checkpoints from `seq` on, if that is higher than
    /// the number they would get (a directory shared with files numbered
    /// in the same sequence, e.g. the runtime's single-file checkpoints).
    pub fn skip_to(&mut self, seq: u64) {
        self.next_seq = self.next_seq.max(seq);
    }

    /// Continues the chain of a restored checkpoint instead of starting a
    /// new one: after a restart the program's memory is exactly
    /// `r.state`, so the next checkpoint can be a delta against it.
    /// Only for incremental and adaptive mode with the same block size and
    /// hash as the file (a differential delta needs the base's signature,
    /// which the restored tip does not give); returns whether it resumed.
    /// Call it before the first checkpoint of the new process.
    pub fn resume(&mut self, r: &crate::dir::Restored) -> bool {
        let compatible = matches!(self.cfg.mode, Mode::Incremental | Mode::Adaptive)
            && r.header.block_size as usize == self.cfg.block_size
            && r.header.hash == self.cfg.hash
            && r.seq < self.next_seq;
        if !compatible {
            return false;
        }
        let regions: Vec<Region<'_>> = r.state.regions.iter().map(|o| o.as_region()).collect();
        let (bs, hk) = (self.cfg.block_size, self.cfg.hash);
        let sig = self.pool.install(|| hash::signature(&regions, bs, hk));
        let total = sig.data_bytes();
        self.prev = Some(Reference { seq: r.seq, id: r.commit_id, sig });
        // The base's signature is not needed by these modes; its number is
        // (the header records it) and its size bounds the chain's bytes.
        self.base = Some(Reference { seq: r.header.base_seq, id: 0, sig: hash::signature(&[], bs, hk) });
        self.chain_len = (r.chain.len() - 1) as u32;
        self.chain_bytes = 0;
        self.base_bytes = total;
        true
    }

    /// Forgets the references: the next checkpoint is full.
    pub fn reset_chain(&mut self) {
        self.base = None;
        self.prev = None;
        self.chain_len = 0;
        self.chain_bytes = 0;
    }

    /// Moves the references forward after checkpoint `me` (its signature,
    /// when the mode computes one) of `kind` committed.
    fn advance(&mut self, kind: Kind, me: Option<Reference>, changed_bytes: u64, total: u64) {
        if self.own_bases.len() > 16 {
            self.own_bases.drain(..self.own_bases.len() - 16);
        }
        match kind {
            Kind::Full => {
                self.base = me.clone();
                self.prev = me;
                self.chain_len = 0;
                self.chain_bytes = 0;
                self.base_bytes = total;
            }
            Kind::Incremental => {
                self.prev = me;
                self.chain_len += 1;
                self.chain_bytes += changed_bytes;
            }
            Kind::Differential => {
                self.chain_len += 1;
            }
        }
    }

    /// In a child made by `fork()`: the hashing pool's threads stayed in
    /// the parent, so a new pool is made here (pool threads may be
    /// started in a forked child; what must not be used there is a lock or
    /// a thread of the parent's). Call it first thing in the child.
    pub fn after_fork(&mut self) -> Result<(), StoreError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.cfg.hash_threads)
            .thread_name(|i| format!("dao-hash-{i}"))
            .start_handler(|_| crate::thread_started())
            .build()
            .map_err(|e| StoreError::InvalidInput(format!("hash thread pool: {e}")))?;
        // Never drop the parent's pool here: its threads do not exist in
        // the child, and dropping it wakes them through their sleep
        // mutexes, one of which a parent's worker may have held at the fork
        // (it goes to sleep right after the pool starts): the child would
        // wait forever (seen once: a restarted run hung at its first
        // background checkpoint).
        std::mem::forget(std::mem::replace(&mut self.pool, pool));
        self.in_background();
        Ok(())
    }

    /// This engine writes in the background (a forked writer, or the
    /// staging copy's flush thread): its files bypass the page cache
    /// unless DAO_DIRECT_IO=off.
    pub(crate) fn in_background(&mut self) {
        self.cfg.pipeline.direct_io = self.cfg.direct_io != crate::DirectIo::Off;
    }

    /// An upper bound of [`Engine::export_advance`]'s length for a
    /// checkpoint of `regions` (to size a buffer shared with a forked
    /// writer before the fork).
    pub fn advance_bound(&self, regions: &[Region<'_>]) -> usize {
        let blocks: u64 = regions.iter().map(|r| hash::blocks_of(r.bytes.len() as u64, self.cfg.block_size)).sum();
        ADVANCE_HEADER + regions.len() * 24 + blocks as usize * 16
    }

    /// [`Engine::advance_bound`] of any `regions` of at most `count`
    /// regions and `bytes` bytes in all (each region has at most one
    /// partial block), for a caller that has not built them yet.
    pub fn advance_bound_of(&self, count: usize, bytes: u64) -> usize {
        let blocks = bytes / self.cfg.block_size as u64 + count as u64;
        ADVANCE_HEADER + count * 24 + blocks as usize * 16
    }

    /// What a checkpoint committed by this engine (`c`, its last one) moved
    /// forward, for [`Engine::import_advance`] in another copy of this
    /// engine: a forked writer commits, its parent keeps the chain.
    pub fn export_advance(&self, c: &Committed) -> Vec<u8> {
        let me = match c.kind {
            Kind::Full => self.base.as_ref(),
            Kind::Incremental => self.prev.as_ref(),
            Kind::Differential => None,
        }
        .filter(|r| r.seq == c.seq);
        let mut b = Vec::with_capacity(ADVANCE_HEADER + me.map_or(0, |r| r.sig.memory_bytes()));
        b.extend_from_slice(&ADVANCE_MAGIC);
        b.push(match c.kind {
            Kind::Full => 1,
            Kind::Incremental => 2,
            Kind::Differential => 3,
        });
        b.push(me.is_some() as u8);
        for v in [c.seq, me.map_or(0, |r| r.id), c.stored_region_bytes, c.total_bytes, me.map_or(0, |r| r.sig.regions.len() as u64)] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        if let Some(r) = me {
            for rs in &r.sig.regions {
                for v in [rs.addr, rs.len, rs.hashes.len() as u64] {
                    b.extend_from_slice(&v.to_le_bytes());
                }
                for h in &rs.hashes {
                    b.extend_from_slice(&h.to_le_bytes());
                }
            }
        }
        b
    }

    /// Applies what [`Engine::export_advance`] of a copy of this engine
    /// (same configuration, same references before) wrote: the engine is
    /// then as if it had committed that checkpoint itself. Numbers after it
    /// are not reused.
    pub fn import_advance(&mut self, b: &[u8]) -> Result<(), StoreError> {
        let bad = || StoreError::InvalidInput("a forked writer's chain state is malformed".into());
        if b.len() < ADVANCE_HEADER || b[..8] != ADVANCE_MAGIC {
            return Err(bad());
        }
        let kind = match b[8] {
            1 => Kind::Full,
            2 => Kind::Incremental,
            3 => Kind::Differential,
            _ => return Err(bad()),
        };
        let has_sig = b[9] != 0;
        let u = |off: usize| -> Result<u64, StoreError> { Ok(u64::from_le_bytes(b.get(off..off + 8).ok_or_else(bad)?.try_into().expect("8 bytes"))) };
        let (seq, id, changed, total, nregions) = (u(10)?, u(18)?, u(26)?, u(34)?, u(42)?);
        let me = if has_sig {
            let mut off = ADVANCE_HEADER;
            let mut regions = Vec::with_capacity(nregions as usize);
            for _ in 0..nregions {
                let (addr, len, n) = (u(off)?, u(off + 8)?, u(off + 16)? as usize);
                off += 24;
                let hb = b.get(off..off + n * 16).ok_or_else(bad)?;
                let hashes = hb.chunks_exact(16).map(|c| u128::from_le_bytes(c.try_into().expect("16 bytes"))).collect();
                off += n * 16;
                regions.push(hash::RegionSig { addr, len, hashes });
            }
            Some(Reference { seq, id, sig: Signature::from_regions(self.cfg.block_size, self.cfg.hash, regions) })
        } else {
            None
        };
        self.next_seq = self.next_seq.max(seq + 1);
        if kind == Kind::Full {
            self.own_bases.push(seq);
        }
        self.advance(kind, me, changed, total);
        Ok(())
    }

    /// Stores one checkpoint of `regions` (unique keys) and `meta` (opaque
    /// bytes kept whole, e.g. the runtime's frame and allocator records).
    pub fn checkpoint(&mut self, regions: &[Region<'_>], meta: &[u8]) -> Result<Committed, StoreError> {
        self.checkpoint_releasing(regions, meta, &mut |_| {})
    }

    /// [`Engine::checkpoint`], calling `done(i)` as soon as region `i`'s
    /// bytes are in the pipeline's buffers: nothing reads them again. A
    /// forked writer gives the pages back then (`MADV_DONTNEED`), so the
    /// program's next write of them copies nothing (runtime background.rs).
    pub fn checkpoint_releasing(&mut self, regions: &[Region<'_>], meta: &[u8], done: &mut dyn FnMut(usize)) -> Result<Committed, StoreError> {
        region::check_unique(regions)?;
        let seq = self.next_seq;
        // A number is never reused, even after a failure: a failed commit
        // may still have left a file behind (rename done, dir fsync failed).
        self.next_seq += 1;
        let t0 = Instant::now();
        let (bs, hk) = (self.cfg.block_size, self.cfg.hash);
        let sig = (self.cfg.mode != Mode::Full).then(|| self.pool.install(|| hash::signature(regions, bs, hk)));
        let hash_time = t0.elapsed();

        let total: u64 = regions.iter().map(|r| r.bytes.len() as u64).sum();
        let chain_full = self.cfg.max_chain != 0 && self.chain_len >= self.cfg.max_chain;
        let reference = match self.cfg.mode {
            Mode::Full => None,
            Mode::Incremental | Mode::Adaptive => self.prev.as_ref(),
            Mode::Differential => self.base.as_ref(),
        }
        .filter(|_| !chain_full);
        let mut plan_kind = None;
        if let (Some(r), Some(sig)) = (reference, sig.as_ref()) {
            let plan = delta::diff(&r.sig, sig);
            let large = self.cfg.mode == Mode::Adaptive
                && (plan.changed_bytes as f64 > self.cfg.max_delta_ratio * total as f64
                    || self.chain_bytes + plan.changed_bytes > self.base_bytes.max(total));
            if !large {
                let kind = if self.cfg.mode == Mode::Differential { Kind::Differential } else { Kind::Incremental };
                plan_kind = Some((plan, kind, r.seq, r.id));
            }
        }
        let (plan, kind, parent_seq, parent_id) = match plan_kind {
            Some(x) => x,
            None => {
                let plan = match sig.as_ref() {
                    Some(s) => Plan::full(s),
                    None => Plan {
                        changes: vec![delta::Change::New; regions.len()],
                        changed_bytes: total,
                        total_bytes: total,
                        new_regions: regions.len(),
                        removed_regions: 0,
                    },
                };
                (plan, Kind::Full, 0, 0)
            }
        };
        let header = FileHeader {
            kind,
            hash: hk,
            seq,
            base_seq: if kind == Kind::Full { seq } else { self.base.as_ref().map_or(seq, |b| b.seq) },
            parent_seq,
            parent_id,
            block_size: bs as u32,
        };
        let name = StoreDir::file_name(seq);
        let fault = self.fault.map(|f| {
            if f.at_chunk != crate::fault::MIDDLE {
                return f;
            }
            let raw = payload::encoded_len(meta, regions, &plan, bs);
            let chunks = raw.div_ceil(self.cfg.pipeline.buffer_size as u64).max(1);
            Fault { at_chunk: ((chunks - 1) / 2) as u32, ..f }
        });
        let w = file::write_file(self.dir.path(), &name, &header, &self.cfg.pipeline, fault, |p| {
            payload::encode(p, meta, regions, &plan, bs, done).map_err(|e| match e.into_inner() {
                Some(inner) => match inner.downcast::<StoreError>() {
                    Ok(se) => *se,
                    Err(other) => StoreError::Pipeline { stage: "collection", what: other.to_string() },
                },
                None => StoreError::Pipeline { stage: "collection", what: "write failed".into() },
            })
        })?;

        // Committed: move the references forward.
        let me = sig.map(|sig| Reference { seq, id: w.commit_id, sig });
        self.advance(kind, me, plan.changed_bytes, total);
        if kind == Kind::Full {
            self.own_bases.push(seq);
        }
        let own = &self.own_bases;
        let (kept_from, collected) = if kind == Kind::Full { self.dir.gc_cut_after(self.cfg.keep_chains, &|q| own.contains(&q)).unwrap_or_default() } else { (None, Vec::new()) };
        Ok(Committed {
            seq,
            kind,
            path: w.path,
            parent: (kind != Kind::Full).then_some(parent_seq),
            total_bytes: total,
            stored_region_bytes: plan.changed_bytes,
            raw_bytes: w.raw_bytes,
            file_bytes: w.file_bytes,
            hash_time,
            write_time: w.total,
            sync_time: w.sync,
            pipeline: w.stats,
            collected,
            kept_from,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In place the file goes through the page cache unless
    /// DAO_DIRECT_IO=on; a background writer (forked, or the staging
    /// copy's flush thread) bypasses it unless DAO_DIRECT_IO=off.
    #[test]
    fn background_writers_write_direct() {
        for (d, in_place, background) in
            [(crate::DirectIo::Off, false, false), (crate::DirectIo::Background, false, true), (crate::DirectIo::On, true, true)]
        {
            let tmp = tempfile::tempdir().unwrap();
            let mut e = Engine::open(tmp.path(), StoreConfig { direct_io: d, ..StoreConfig::default() }).unwrap();
            assert_eq!(e.cfg.pipeline.direct_io, in_place, "{d:?} in place");
            e.in_background();
            assert_eq!(e.cfg.pipeline.direct_io, background, "{d:?} in the background");
        }
    }
}
