//! The pipelined compressing writer (PCCR): collection -> compression ->
//! writing, joined by bounded queues.
//!
//! ```text
//!  caller ──write()──▶ [collection: fill buffer of buffer_size]
//!                          │ compress queue (bounded, queue_depth)
//!                          ▼
//!                     [compression: `workers` threads, filter + codec + frame]
//!                          │ file queue (bounded, queue_depth)      ▲ empty buffers
//!                          ▼                                        │ (free pool)
//!                     [writer: reorder by index, aggregate to write_size, write]
//! ```
//!
//! Protocol (the states of a buffer are the paper's Empty/Busy/Ready):
//! - A buffer is *Empty* in the free pool, *Busy* while the collection stage
//!   fills it, *Ready* in the compress queue. A worker turns it into a framed
//!   chunk, returns the raw buffer to the pool and puts the chunk in the file
//!   queue. At most `queue_depth + workers + 2` raw buffers ever exist, so
//!   memory is bounded; when all are in use the caller blocks in `write`
//!   (back-pressure), and a full file queue blocks the workers.
//! - The writer receives chunks out of order (workers race) and emits them
//!   strictly by index; the chunks it holds back are bounded by the buffers
//!   in flight.
//! - Shutdown: `finish` sends the last partial buffer and drops the compress
//!   queue's sender; workers drain it and exit, dropping the file queue's
//!   senders; the writer drains and exits. No thread waits on a queue whose
//!   other end is gone (every blocking call returns an error instead), so no
//!   stage can deadlock, including when another stage has failed.
//! - Failure: a failing or panicking stage sets `broken` and drops its queue
//!   ends; the collection stage sees either flag or a closed queue at its
//!   next hand-off, joins everything and returns the first error.
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender};
use xxhash_rust::xxh3::Xxh3;

use crate::codec::{Encoded, Encoder};
use crate::config::PipelineConfig;
use crate::error::StoreError;
use crate::fault::{Fault, Stage};

/// Time spent and bytes moved by each stage.
#[derive(Clone, Debug, Default)]
pub struct PipelineStats {
    pub raw_bytes: u64,
    /// Bytes written for the chunks (headers included).
    pub stored_bytes: u64,
    pub chunks: u64,
    /// Chunks stored raw (codec none, or compression did not pay).
    pub raw_chunks: u64,
    /// Collection: copying the caller's bytes into buffers (not counting waits).
    pub collect_busy: Duration,
    /// Compression, summed over the workers.
    pub compress_busy: Duration,
    /// Writing (the write calls), not counting waits for chunks.
    pub write_busy: Duration,
    pub workers: usize,
    /// From creation of the writer to the end of `finish`.
    pub wall: Duration,
}

impl PipelineStats {
    /// The busiest stage's time: compression counts as its sum divided by
    /// the workers (they run in parallel).
    pub fn longest_stage(&self) -> Duration {
        let z = self.compress_busy / self.workers.max(1) as u32;
        self.collect_busy.max(z).max(self.write_busy)
    }
}

/// What the commit record needs to know about the stream.
#[derive(Clone, Debug, Default)]
pub struct StreamSummary {
    pub chunks: u64,
    pub raw_len: u64,
    /// xxh3-64 over every chunk's `chunk_hash` (8 bytes LE), in order.
    pub chunks_digest: u64,
    pub stats: PipelineStats,
}

type Chunk = (u32, Vec<u8>, Encoded);

struct WriterOut<W> {
    w: W,
    chunks: u64,
    digest: u64,
    stored: u64,
    raw_chunks: u64,
    busy: Duration,
}

/// The collection stage's handle; see the module docs.
pub struct PipelineWriter<W: Write + Send + 'static> {
    cfg: PipelineConfig,
    cur: Vec<u8>,
    next: u32,
    raw: u64,
    tx: Option<Sender<(u32, Vec<u8>)>>,
    free: Receiver<Vec<u8>>,
    allocated: usize,
    max_buffers: usize,
    workers: Vec<JoinHandle<Result<Duration, String>>>,
    writer: Option<JoinHandle<Result<WriterOut<W>, String>>>,
    broken: Arc<AtomicBool>,
    fault: Option<Fault>,
    collect_busy: Duration,
    /// When the current buffer began to fill: collection time is counted
    /// per buffer, not per `push` (two clock reads per region cost MG.A's
    /// 246 797 regions about 25 ms).
    filling: Instant,
    started: Instant,
    /// Codec none: no threads; each full buffer is framed and written by
    /// the caller's thread (see [`Inline`]).
    inline: Option<Inline<W>>,
}

/// The pipeline without threads, for codec none: with nothing to compress
/// the stages only copied every byte twice more (into a framed chunk, into
/// an aggregated write) and handed it between threads, which made a full
/// MG.A checkpoint (246 797 regions, 459 MB) take the engine 0.8 s against
/// 0.3 s for the single-file writer. Here a full buffer gets its chunk
/// header (the same bytes the encoder writes for a raw chunk) and the
/// header and the buffer are written as they are. Fault stages are
/// checked in the same order (collection, compression, writing) and fail
/// with the same stage names.
struct Inline<W> {
    w: Option<W>,
    digest: Xxh3,
    stored: u64,
    write_busy: Duration,
    compress_busy: Duration,
}

/// Sets `broken` when dropped during a panic.
struct PanicFlag(Arc<AtomicBool>);
impl Drop for PanicFlag {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Release);
        }
    }
}

impl<W: Write + Send + 'static> PipelineWriter<W> {
    /// Starts the worker and writer threads writing to `w`.
    pub fn new(w: W, cfg: &PipelineConfig) -> io::Result<Self> {
        Self::with_fault(w, cfg, None)
    }

    #[doc(hidden)]
    pub fn with_fault(w: W, cfg: &PipelineConfig, fault: Option<Fault>) -> io::Result<Self> {
        if cfg.codec == crate::config::Codec::None {
            let (_tx, free) = bounded::<Vec<u8>>(1);
            return Ok(PipelineWriter {
                cfg: cfg.clone(),
                cur: Vec::with_capacity(cfg.buffer_size),
                next: 0,
                raw: 0,
                tx: None,
                free,
                allocated: 1,
                max_buffers: 1,
                workers: Vec::new(),
                writer: None,
                broken: Arc::new(AtomicBool::new(false)),
                fault,
                collect_busy: Duration::ZERO,
                filling: Instant::now(),
                started: Instant::now(),
                inline: Some(Inline { w: Some(w), digest: Xxh3::new(), stored: 0, write_busy: Duration::ZERO, compress_busy: Duration::ZERO }),
            });
        }
        let depth = cfg.queue_depth.max(1);
        let nworkers = cfg.workers.max(1);
        let max_buffers = depth + nworkers + 2;
        let (tx, rx) = bounded::<(u32, Vec<u8>)>(depth);
        let (wtx, wrx) = bounded::<Chunk>(depth);
        let (free_tx, free) = bounded::<Vec<u8>>(max_buffers);
        let broken = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::with_capacity(nworkers);
        for i in 0..nworkers {
            let (rx, wtx, free_tx, broken) = (rx.clone(), wtx.clone(), free_tx.clone(), broken.clone());
            let mut enc = Encoder::new(cfg)?;
            let h = std::thread::Builder::new().name(format!("dao-zip-{i}")).spawn(move || {
                crate::thread_started();
                let _flag = PanicFlag(broken.clone());
                let mut busy = Duration::ZERO;
                while let Ok((idx, raw)) = rx.recv() {
                    let t = Instant::now();
                    let r = Fault::check(fault.as_ref(), Stage::Compress, idx).and_then(|()| {
                        let mut out = Vec::with_capacity(raw.len() / 2 + 64);
                        enc.encode(idx, &raw, &mut out).map(|e| (out, e))
                    });
                    busy += t.elapsed();
                    let (out, e) = match r {
                        Ok(x) => x,
                        Err(e) => {
                            broken.store(true, Ordering::Release);
                            return Err(format!("chunk {idx}: {e}"));
                        }
                    };
                    let _ = free_tx.try_send(raw);
                    if wtx.send((idx, out, e)).is_err() {
                        break; // the writer is gone; it reports why
                    }
                }
                Ok(busy)
            })?;
            workers.push(h);
        }
        drop((rx, wtx, free_tx));
        let write_size = cfg.write_size.max(1);
        let wbroken = broken.clone();
        let writer = std::thread::Builder::new().name("dao-write".into()).spawn(move || {
            crate::thread_started();
            let _flag = PanicFlag(wbroken.clone());
            let r = write_stage(w, wrx, write_size, fault);
            if r.is_err() {
                wbroken.store(true, Ordering::Release);
            }
            r
        })?;
        Ok(PipelineWriter {
            cfg: cfg.clone(),
            cur: Vec::with_capacity(cfg.buffer_size),
            next: 0,
            raw: 0,
            tx: Some(tx),
            free,
            allocated: 1,
            max_buffers,
            workers,
            writer: Some(writer),
            broken,
            fault,
            collect_busy: Duration::ZERO,
            filling: Instant::now(),
            started: Instant::now(),
            inline: None,
        })
    }

    /// Codec none: frames and writes the current buffer on this thread.
    fn write_inline(&mut self) -> Result<(), StoreError> {
        let idx = self.next;
        let fault = self.fault;
        let il = self.inline.as_mut().expect("inline pipeline");
        let stage = |stage: &'static str, e: io::Error| StoreError::Pipeline { stage, what: format!("chunk {idx}: {e}") };
        Fault::check(fault.as_ref(), Stage::Collect, idx).map_err(|e| stage("collection", e))?;
        let t = Instant::now();
        Fault::check(fault.as_ref(), Stage::Compress, idx).map_err(|e| stage("compression", e))?;
        let (head, e) = crate::codec::raw_chunk_header(idx, &self.cur).map_err(|e| stage("compression", e))?;
        il.compress_busy += t.elapsed();
        Fault::check(fault.as_ref(), Stage::Write, idx).map_err(|e| stage("writing", e))?;
        let t = Instant::now();
        let w = il.w.as_mut().expect("output");
        w.write_all(&head).and_then(|()| w.write_all(&self.cur)).map_err(|e| stage("writing", e))?;
        il.write_busy += t.elapsed();
        il.digest.update(&e.chunk_hash.to_le_bytes());
        il.stored += (head.len() + self.cur.len()) as u64;
        self.next += 1;
        self.cur.clear();
        Ok(())
    }

    /// Hands the current buffer to the compressors and takes an empty one.
    fn hand_off(&mut self) -> Result<(), StoreError> {
        self.collect_busy += self.filling.elapsed();
        let r = self.hand_off_buffer();
        self.filling = Instant::now();
        r
    }

    fn hand_off_buffer(&mut self) -> Result<(), StoreError> {
        if self.inline.is_some() {
            return self.write_inline();
        }
        if self.broken.load(Ordering::Acquire) {
            return Err(self.fail());
        }
        if let Err(e) = Fault::check(self.fault.as_ref(), Stage::Collect, self.next) {
            self.broken.store(true, Ordering::Release);
            let _ = self.fail();
            return Err(StoreError::Pipeline { stage: "collection", what: e.to_string() });
        }
        let full = std::mem::take(&mut self.cur);
        let sent = self.tx.as_ref().expect("pipeline open").send((self.next, full));
        if sent.is_err() {
            return Err(self.fail());
        }
        self.next += 1;
        self.cur = match self.free.try_recv() {
            Ok(b) => b,
            Err(_) if self.allocated < self.max_buffers => {
                self.allocated += 1;
                Vec::with_capacity(self.cfg.buffer_size)
            }
            Err(_) => match self.free.recv() {
                Ok(b) => b,
                Err(_) => return Err(self.fail()),
            },
        };
        self.cur.clear();
        Ok(())
    }

    /// Appends bytes to the stream (blocks when the pipeline is full).
    pub fn push(&mut self, mut data: &[u8]) -> Result<(), StoreError> {
        while !data.is_empty() {
            let take = (self.cfg.buffer_size - self.cur.len()).min(data.len());
            self.cur.extend_from_slice(&data[..take]);
            self.raw += take as u64;
            data = &data[take..];
            if self.cur.len() == self.cfg.buffer_size {
                self.hand_off()?;
            }
        }
        Ok(())
    }

    /// Joins every thread after a failure and returns the first error.
    fn fail(&mut self) -> StoreError {
        self.tx = None;
        let mut first: Option<StoreError> = None;
        for h in self.workers.drain(..) {
            let e = match h.join() {
                Ok(Ok(_)) => None,
                Ok(Err(e)) => Some(e),
                Err(p) => Some(panic_text(p)),
            };
            if let (None, Some(e)) = (&first, e) {
                first = Some(StoreError::Pipeline { stage: "compression", what: e });
            }
        }
        if let Some(h) = self.writer.take() {
            let e = match h.join() {
                Ok(Ok(_)) => None,
                Ok(Err(e)) => Some(e),
                Err(p) => Some(panic_text(p)),
            };
            if let (None, Some(e)) = (&first, e) {
                first = Some(StoreError::Pipeline { stage: "writing", what: e });
            }
        }
        first.unwrap_or(StoreError::Pipeline { stage: "collection", what: "a stage stopped".into() })
    }

    /// Flushes the last buffer, waits for every stage and returns the output.
    pub fn finish(mut self) -> Result<(W, StreamSummary), StoreError> {
        if !self.cur.is_empty() {
            self.hand_off()?;
        }
        if let Some(mut il) = self.inline.take() {
            let chunks = self.next as u64;
            let stats = PipelineStats {
                raw_bytes: self.raw,
                stored_bytes: il.stored,
                chunks,
                raw_chunks: chunks,
                collect_busy: self.collect_busy,
                compress_busy: il.compress_busy,
                write_busy: il.write_busy,
                workers: 0,
                wall: self.started.elapsed(),
            };
            let w = il.w.take().expect("output");
            return Ok((w, StreamSummary { chunks, raw_len: self.raw, chunks_digest: il.digest.digest(), stats }));
        }
        self.tx = None;
        let mut compress_busy = Duration::ZERO;
        let mut err = None;
        for h in self.workers.drain(..) {
            match h.join() {
                Ok(Ok(b)) => compress_busy += b,
                Ok(Err(e)) => err = err.or(Some(StoreError::Pipeline { stage: "compression", what: e })),
                Err(p) => err = err.or(Some(StoreError::Pipeline { stage: "compression", what: panic_text(p) })),
            }
        }
        let out = match self.writer.take().expect("writer").join() {
            Ok(Ok(o)) => Some(o),
            Ok(Err(e)) => {
                err = err.or(Some(StoreError::Pipeline { stage: "writing", what: e }));
                None
            }
            Err(p) => {
                err = err.or(Some(StoreError::Pipeline { stage: "writing", what: panic_text(p) }));
                None
            }
        };
        if let Some(e) = err {
            return Err(e);
        }
        let o = out.expect("writer output");
        if o.chunks != self.next as u64 {
            return Err(StoreError::Pipeline {
                stage: "writing",
                what: format!("{} chunks written of {}", o.chunks, self.next),
            });
        }
        let stats = PipelineStats {
            raw_bytes: self.raw,
            stored_bytes: o.stored,
            chunks: o.chunks,
            raw_chunks: o.raw_chunks,
            collect_busy: self.collect_busy,
            compress_busy,
            write_busy: o.busy,
            workers: self.cfg.workers.max(1),
            wall: self.started.elapsed(),
        };
        Ok((o.w, StreamSummary { chunks: o.chunks, raw_len: self.raw, chunks_digest: o.digest, stats }))
    }
}

impl<W: Write + Send + 'static> Write for PipelineWriter<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.push(b).map_err(io::Error::other)?;
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write + Send + 'static> Drop for PipelineWriter<W> {
    /// Dropping without `finish` abandons the stream: the threads stop and
    /// whatever reached the output is an incomplete stream without a commit
    /// record (the file layer then deletes its temp file).
    fn drop(&mut self) {
        if self.writer.is_some() {
            self.broken.store(true, Ordering::Release);
            let _ = self.fail();
        }
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    let s = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("thread panicked: {s}")
}

fn write_stage<W: Write>(mut w: W, rx: Receiver<Chunk>, write_size: usize, fault: Option<Fault>) -> Result<WriterOut<W>, String> {
    let mut pending: BTreeMap<u32, (Vec<u8>, Encoded)> = BTreeMap::new();
    let mut next = 0u32;
    let mut agg: Vec<u8> = Vec::with_capacity(write_size + (1 << 20));
    let mut digest = Xxh3::new();
    let (mut stored, mut raw_chunks, mut busy) = (0u64, 0u64, Duration::ZERO);
    let emit = |w: &mut W, agg: &mut Vec<u8>, busy: &mut Duration| -> Result<(), String> {
        let t = Instant::now();
        w.write_all(agg).map_err(|e| e.to_string())?;
        *busy += t.elapsed();
        agg.clear();
        Ok(())
    };
    while let Ok((idx, chunk, e)) = rx.recv() {
        pending.insert(idx, (chunk, e));
        while let Some((chunk, e)) = pending.remove(&next) {
            Fault::check(fault.as_ref(), Stage::Write, next).map_err(|e| e.to_string())?;
            digest.update(&e.chunk_hash.to_le_bytes());
            stored += chunk.len() as u64;
            raw_chunks += u64::from(!e.compressed);
            next += 1;
            if agg.is_empty() && chunk.len() >= write_size {
                let t = Instant::now();
                w.write_all(&chunk).map_err(|e| e.to_string())?;
                busy += t.elapsed();
                continue;
            }
            agg.extend_from_slice(&chunk);
            if agg.len() >= write_size {
                emit(&mut w, &mut agg, &mut busy)?;
            }
        }
    }
    if !pending.is_empty() {
        return Err(format!("chunk {next} never arrived (a compression worker stopped)"));
    }
    if !agg.is_empty() {
        emit(&mut w, &mut agg, &mut busy)?;
    }
    Ok(WriterOut { w, chunks: next as u64, digest: digest.digest(), stored, raw_chunks, busy })
}
