//! Asynchronous flush: the program pays for a copy of its live data, and
//! hashing, compression, writing, fsync and commit run on a background
//! thread.
//!
//! Protocol. [`AsyncEngine::checkpoint`] copies the regions into a staging
//! arena (in parallel, at memory bandwidth) and hands the arena to the
//! flush thread, which runs [`Engine::checkpoint`] on it and sends back the
//! result and the arena (reused by the next checkpoint: its pages are
//! already mapped, so the next copy does not pay first-touch page faults).
//! At most one checkpoint is in flight. The states:
//!
//! ```text
//!   Idle ──checkpoint()──▶ Flushing(seq) ──thread done──▶ Done(result) ──poll/wait──▶ Idle
//! ```
//!
//! When a checkpoint is requested while one is Flushing, the policy decides:
//! - [`AsyncPolicy::Wait`] (default for async): wait for the one in flight to
//!   commit (or fail), then stage the new one. The program's pause is then
//!   the rest of the previous flush plus the copy; the newest state is
//!   never dropped.
//! - [`AsyncPolicy::Skip`]: return [`Staged::Skipped`] at once; the program
//!   continues, and its next candidate tries again. The pause stays the
//!   copy's, at the price of fewer checkpoints when flushing is slower than
//!   the interval.
//!
//! A checkpoint becomes current only when its commit record is durable
//! (file fsynced and renamed, directory fsynced): until then a crash
//! restarts from the previous one. The result of each flush is reported
//! exactly once, by `poll`, `wait` or the next `checkpoint` (see [`Staged`]).
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender, TryRecvError};
use rayon::prelude::*;

use crate::config::AsyncPolicy;
use crate::engine::{Committed, Engine};
use crate::error::StoreError;
use crate::region::Region;

/// The staging arena: an anonymous mapping populated by the kernel when it
/// is made (`MADV_POPULATE_WRITE`). A copy into freshly faulted 4 KiB
/// pages costs a trap and a zeroed page per 4 KiB, about what the
/// copy-on-write of a forked writer costs (MG.A's 455 MB: 0.27 s, the
/// memcpy itself 0.04 s); populated in the kernel, in parallel, the first
/// copy takes 0.11-0.13 s. Transparent huge pages are not asked for: with
/// the kernel's usual `defrag=madvise` the populate then waits for
/// compaction (0.9-1.05 s for 465 MB in two runs of three). Kept across
/// checkpoints; not inherited by a child process (`MADV_DONTFORK`: a
/// forked process has no flush thread to write it).
#[derive(Default)]
struct Arena {
    map: Option<memmap2::MmapMut>,
}

/// The arena's length is a multiple of this (a growth of the live data by
/// less than it reuses the arena).
const GRANULE: usize = 2 << 20;

impl Arena {
    fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// An arena of at least `total` bytes, and an eighth more than the old
    /// one (live data that grows a little at every checkpoint does not
    /// populate a new arena every time). The old one is unmapped first: the
    /// two are never held at once.
    fn grow(&mut self, total: usize) -> Result<(), StoreError> {
        let old = self.len();
        self.map = None;
        let len = total.max(old + old / 8).div_ceil(GRANULE).max(1) * GRANULE;
        let map = memmap2::MmapMut::map_anon(len).map_err(|e| StoreError::FlushThread(format!("staging arena of {len} bytes: {e}")))?;
        // Advice only: a kernel without MADV_POPULATE_WRITE (before Linux
        // 5.14) leaves the pages to the first copy.
        #[cfg(target_os = "linux")]
        {
            let _ = map.advise(memmap2::Advice::DontFork);
            // populated in pieces by every thread of the pool, as the copy
            // that follows: the kernel zeroes the pages in parallel
            const PIECE: usize = 8 << 20;
            (0..len.div_ceil(PIECE)).into_par_iter().for_each(|k| {
                let off = k * PIECE;
                let _ = map.advise_range(memmap2::Advice::PopulateWrite, off, PIECE.min(len - off));
            });
        }
        self.map = Some(map);
        Ok(())
    }

    fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        self.map.as_deref_mut().unwrap_or(&mut [])
    }
}

/// A staged checkpoint: the copy of every region, contiguous.
struct Job {
    arena: Arena,
    /// (key, offset in arena, length)
    layout: Vec<(u64, usize, usize)>,
    meta: Vec<u8>,
    /// None: keep the engine's own setting.
    fault: Option<Option<crate::fault::Fault>>,
}

type Outcome = (Result<Committed, StoreError>, Arena);

/// What [`AsyncEngine::checkpoint`] did. (One value per checkpoint: the
/// size difference of the variants does not matter.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Staged {
    /// The regions are copied; the flush runs in the background.
    Started {
        /// Time spent waiting for the previous flush (Wait policy).
        waited: Duration,
        /// Time spent copying.
        copy: Duration,
        bytes: u64,
        /// The previous flush's result, if it finished since last reported.
        previous: Option<Result<Committed, StoreError>>,
    },
    /// Skipped: a flush was in flight (Skip policy).
    Skipped,
}

/// Where the background flush stands.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum FlushState {
    Idle,
    Flushing,
    Done(Result<Committed, StoreError>),
}

/// An [`Engine`] running on a background thread.
pub struct AsyncEngine {
    policy: AsyncPolicy,
    tx: Option<Sender<Job>>,
    rx: Receiver<Outcome>,
    in_flight: bool,
    spare: Arena,
    thread: Option<std::thread::JoinHandle<Engine>>,
    /// The number the next staged checkpoint gets (the engine numbers one
    /// per checkpoint it is handed, committed or failed).
    next_seq: u64,
    /// Set by [`AsyncEngine::set_fault`] (None: the engine's own, if any).
    fault: Option<Option<crate::fault::Fault>>,
}

impl AsyncEngine {
    /// Moves `engine` to a new flush thread. `policy` must be Wait or Skip
    /// (Off is treated as Wait).
    pub fn new(mut engine: Engine, policy: AsyncPolicy) -> Result<AsyncEngine, StoreError> {
        let next_seq = engine.next_seq();
        engine.in_background();
        let (tx, jobs) = bounded::<Job>(1);
        let (done, rx) = bounded::<Outcome>(1);
        let thread = std::thread::Builder::new()
            .name("dao-flush".into())
            .spawn(move || {
                crate::thread_started();
                while let Ok(job) = jobs.recv() {
                    let regions: Vec<Region<'_>> =
                        job.layout.iter().map(|&(addr, off, len)| Region { addr, bytes: &job.arena.bytes()[off..off + len] }).collect();
                    if let Some(f) = job.fault {
                        engine.set_fault(f);
                    }
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.checkpoint(&regions, &job.meta)));
                    let r = r.unwrap_or_else(|p| {
                        let what = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
                        Err(StoreError::FlushThread(format!("panicked: {}", what.unwrap_or_default())))
                    });
                    drop(regions);
                    if done.send((r, job.arena)).is_err() {
                        break;
                    }
                }
                engine
            })
            .map_err(|e| StoreError::FlushThread(e.to_string()))?;
        let policy = if policy == AsyncPolicy::Off { AsyncPolicy::Wait } else { policy };
        Ok(AsyncEngine { policy, tx: Some(tx), rx, in_flight: false, spare: Arena::default(), thread: Some(thread), next_seq, fault: None })
    }

    /// Sequence number the next staged checkpoint will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Fault injection for the checkpoints staged from now on (see
    /// [`Engine::set_fault`]).
    #[doc(hidden)]
    pub fn set_fault(&mut self, f: Option<crate::fault::Fault>) {
        self.fault = Some(f);
    }

    fn take_outcome(&mut self, (r, arena): Outcome) -> Result<Committed, StoreError> {
        self.in_flight = false;
        self.spare = arena;
        r
    }

    /// Stages a checkpoint and returns as soon as the regions are copied
    /// (after waiting for, or skipping because of, one in flight).
    pub fn checkpoint(&mut self, regions: &[Region<'_>], meta: &[u8]) -> Result<Staged, StoreError> {
        crate::region::check_unique(regions)?;
        let t0 = Instant::now();
        let mut previous = None;
        if self.in_flight {
            match self.policy {
                AsyncPolicy::Skip => match self.rx.try_recv() {
                    Ok(o) => previous = Some(self.take_outcome(o)),
                    Err(TryRecvError::Empty) => return Ok(Staged::Skipped),
                    Err(TryRecvError::Disconnected) => return Err(StoreError::FlushThread("exited".into())),
                },
                _ => {
                    let o = self.rx.recv().map_err(|_| StoreError::FlushThread("exited".into()))?;
                    previous = Some(self.take_outcome(o));
                }
            }
        }
        let waited = t0.elapsed();
        let t1 = Instant::now();
        let total: usize = regions.iter().map(|r| r.bytes.len()).sum();
        let mut arena = std::mem::take(&mut self.spare);
        if arena.len() < total {
            // Growing populates the new pages once; later checkpoints reuse them.
            arena.grow(total)?;
        }
        let mut layout = Vec::with_capacity(regions.len());
        let mut off = 0;
        for r in regions {
            layout.push((r.addr, off, r.bytes.len()));
            off += r.bytes.len();
        }
        stage_copy(regions, &mut arena.bytes_mut()[..total]);
        let copy = t1.elapsed();
        let job = Job { arena, layout, meta: meta.to_vec(), fault: self.fault };
        self.tx
            .as_ref()
            .expect("open")
            .send(job)
            .map_err(|_| StoreError::FlushThread("exited".into()))?;
        self.in_flight = true;
        self.next_seq += 1;
        Ok(Staged::Started { waited, copy, bytes: total as u64, previous })
    }

    /// Where the flush stands; a finished result is reported once.
    pub fn poll(&mut self) -> FlushState {
        if !self.in_flight {
            return FlushState::Idle;
        }
        match self.rx.try_recv() {
            Ok(o) => FlushState::Done(self.take_outcome(o)),
            Err(TryRecvError::Empty) => FlushState::Flushing,
            Err(TryRecvError::Disconnected) => {
                self.in_flight = false;
                FlushState::Done(Err(StoreError::FlushThread("exited".into())))
            }
        }
    }

    /// Waits for the flush in flight, if any, and returns its result.
    pub fn wait(&mut self) -> Option<Result<Committed, StoreError>> {
        if !self.in_flight {
            return None;
        }
        Some(match self.rx.recv() {
            Ok(o) => self.take_outcome(o),
            Err(_) => {
                self.in_flight = false;
                Err(StoreError::FlushThread("exited".into()))
            }
        })
    }

    /// Waits for the flush in flight and returns the engine.
    pub fn shutdown(mut self) -> (Option<Engine>, Option<Result<Committed, StoreError>>) {
        let last = self.wait();
        self.tx = None;
        let e = self.thread.take().and_then(|t| t.join().ok());
        (e, last)
    }
}

impl Drop for AsyncEngine {
    /// Waits for the flush in flight: a checkpoint that was staged is
    /// committed (or fails) before the process may exit normally.
    fn drop(&mut self) {
        let _ = self.wait();
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Copies every region into `arena` (concatenated), splitting large ones so
/// that every thread of the current rayon pool copies.
pub fn stage_copy(regions: &[Region<'_>], arena: &mut [u8]) {
    const PIECE: usize = 1 << 20;
    let mut work: Vec<(&[u8], &mut [u8])> = Vec::new();
    let mut rest = arena;
    for r in regions {
        let (mut dst, tail) = std::mem::take(&mut rest).split_at_mut(r.bytes.len());
        rest = tail;
        let mut src = r.bytes;
        while !src.is_empty() {
            let n = PIECE.min(src.len());
            let (d, dt) = std::mem::take(&mut dst).split_at_mut(n);
            work.push((&src[..n], d));
            src = &src[n..];
            dst = dt;
        }
    }
    work.into_par_iter().with_min_len(1).for_each(|(s, d)| d.copy_from_slice(s));
}
