//! One store file: header, chunk stream, commit record; atomic creation and
//! validating, parallel reading.
//!
//! ```text
//! header (64 bytes)
//!  0 magic       "DAOSTOR\0"
//!  8 version     u32   FORMAT_VERSION
//! 12 kind        u8    1 full, 2 incremental, 3 differential
//! 13 hash        u8    0 xxh3, 1 blake3, 2 md5 (the block hash of the signature)
//! 14 reserved    u16   zero
//! 16 seq         u64   this checkpoint's sequence number
//! 24 base_seq    u64   the full checkpoint its chain starts at (= seq for a full one)
//! 32 parent_seq  u64   the checkpoint it is a delta against (0 for a full one)
//! 40 parent_id   u64   that checkpoint's commit id (0 for a full one)
//! 48 block_size  u32
//! 52 reserved    u32   zero
//! 56 header_hash u64   xxh3-64 of bytes 0..56
//! chunks (codec.rs), indices 0, 1, ... in order
//! commit record (40 bytes), written last
//!  0 magic       "DAOCOMIT"
//!  8 chunks      u64
//! 16 raw_len     u64   total decoded bytes
//! 24 commit_id   u64   xxh3-64 of header (64 bytes) ++ chunks digest u64 ++ chunks u64 ++ raw_len u64,
//!                      where the chunks digest is xxh3-64 over every chunk_hash in order
//! 32 end magic   "DAOSEND\0"
//! ```
//!
//! Crash consistency: [`write_file`] writes `.<name>.tmp`, ends it with the
//! commit record, fsyncs it, renames it to `<name>` and fsyncs the
//! directory. Readers only consider `<name>` files, and accept one only when
//! the commit record is present and matches everything before it. A process
//! killed at any point therefore leaves either no `<name>` at all, or a
//! complete one; a temp file left behind is garbage that [`crate::dir`]
//! collects. The commit id also names the file's exact content, so a delta
//! records which parent it was made against (`parent_id`) and a restore
//! detects a parent that was replaced.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::codec::{self, ChunkHeader, CHUNK_HEADER_LEN};
use crate::config::{HashKind, PipelineConfig};
use crate::error::StoreError;
use crate::fault::{Fault, Stage};
use crate::pipeline::{PipelineStats, PipelineWriter, StreamSummary};

pub const MAGIC: [u8; 8] = *b"DAOSTOR\0";
pub const COMMIT_MAGIC: [u8; 8] = *b"DAOCOMIT";
pub const END_MAGIC: [u8; 8] = *b"DAOSEND\0";
pub const FORMAT_VERSION: u32 = 2;
/// The oldest version this reader reads (1: no HEADER_HASH chunks).
pub const OLDEST_VERSION: u32 = 1;
pub const HEADER_LEN: usize = 64;
pub const COMMIT_LEN: usize = 40;

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Full,
    Incremental,
    Differential,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileHeader {
    pub kind: Kind,
    pub hash: HashKind,
    pub seq: u64,
    pub base_seq: u64,
    pub parent_seq: u64,
    pub parent_id: u64,
    pub block_size: u32,
}

pub fn encode_header(h: &FileHeader) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[0..8].copy_from_slice(&MAGIC);
    b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    b[12] = match h.kind {
        Kind::Full => 1,
        Kind::Incremental => 2,
        Kind::Differential => 3,
    };
    b[13] = match h.hash {
        HashKind::Xxh3 => 0,
        HashKind::Blake3 => 1,
        HashKind::Md5 => 2,
    };
    b[16..24].copy_from_slice(&h.seq.to_le_bytes());
    b[24..32].copy_from_slice(&h.base_seq.to_le_bytes());
    b[32..40].copy_from_slice(&h.parent_seq.to_le_bytes());
    b[40..48].copy_from_slice(&h.parent_id.to_le_bytes());
    b[48..52].copy_from_slice(&h.block_size.to_le_bytes());
    let hh = xxh3_64(&b[..56]);
    b[56..64].copy_from_slice(&hh.to_le_bytes());
    b
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap())
}
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().unwrap())
}

const MEM: &str = "<memory>";

/// Parses and checks the header (magic, version, checksum, fields).
pub fn parse_header(b: &[u8]) -> Result<FileHeader, StoreError> {
    if b.len() < 8 || b[..8] != MAGIC {
        return Err(if b.len() < 8 && MAGIC.starts_with(b) {
            StoreError::Uncommitted { file: MEM.into() }
        } else {
            StoreError::NotAStoreFile { file: MEM.into() }
        });
    }
    if b.len() < HEADER_LEN {
        return Err(StoreError::Uncommitted { file: MEM.into() });
    }
    let ok = xxh3_64(&b[..56]) == u64_at(b, 56);
    let version = u32_at(b, 8);
    if ok && !(OLDEST_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(StoreError::UnsupportedVersion { file: MEM.into(), found: version, supported: FORMAT_VERSION });
    }
    if !ok {
        return Err(StoreError::corrupt(MEM, "header (checksum)"));
    }
    let kind = match b[12] {
        1 => Kind::Full,
        2 => Kind::Incremental,
        3 => Kind::Differential,
        k => return Err(StoreError::corrupt(MEM, format!("header (kind {k})"))),
    };
    let hash = match b[13] {
        0 => HashKind::Xxh3,
        1 => HashKind::Blake3,
        2 => HashKind::Md5,
        k => return Err(StoreError::corrupt(MEM, format!("header (hash {k})"))),
    };
    let h = FileHeader {
        kind,
        hash,
        seq: u64_at(b, 16),
        base_seq: u64_at(b, 24),
        parent_seq: u64_at(b, 32),
        parent_id: u64_at(b, 40),
        block_size: u32_at(b, 48),
    };
    let consistent = match kind {
        Kind::Full => h.base_seq == h.seq && h.parent_seq == 0,
        Kind::Incremental => h.parent_seq < h.seq && h.base_seq <= h.parent_seq,
        Kind::Differential => h.parent_seq == h.base_seq && h.base_seq < h.seq,
    };
    if !consistent || !h.block_size.is_power_of_two() {
        return Err(StoreError::corrupt(MEM, "header (inconsistent fields)"));
    }
    Ok(h)
}

fn commit_id(header: &[u8], s: &StreamSummary) -> u64 {
    let mut x = Xxh3::new();
    x.update(&header[..HEADER_LEN]);
    x.update(&s.chunks_digest.to_le_bytes());
    x.update(&s.chunks.to_le_bytes());
    x.update(&s.raw_len.to_le_bytes());
    x.digest()
}

/// A committed file.
#[derive(Clone, Debug)]
pub struct Written {
    pub path: PathBuf,
    pub commit_id: u64,
    pub file_bytes: u64,
    pub raw_bytes: u64,
    pub stats: PipelineStats,
    /// fsync of the file + rename + fsync of the directory.
    pub sync: Duration,
    /// The whole write, from opening the temp file to the directory fsync.
    pub total: Duration,
}

/// Removes the temp file unless disarmed.
struct TempGuard(Option<PathBuf>);
impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = fs::remove_file(p);
        }
    }
}

pub fn temp_name(name: &str) -> String {
    format!(".{name}.tmp")
}

/// Alignment of O_DIRECT buffers, offsets and lengths (the largest
/// logical block size in use).
const DIRECT_ALIGN: usize = 4096;
/// Bytes per O_DIRECT write.
const DIRECT_BLOCK: usize = 4 << 20;
/// O_DIRECT writes in flight (threads of the pool). One at a time was
/// slower than a buffered write plus fsync on this machine's disk (1.24-2.32
/// s against 1.24-2.03 s for 470 MB with dd); four in flight took 0.41-1.0 s.
const DIRECT_DEPTH: usize = 4;

/// An aligned block buffer.
struct Block {
    buf: Vec<u8>,
    /// Where the aligned block starts in `buf`.
    start: usize,
}

impl Block {
    fn new() -> Block {
        let buf = vec![0u8; DIRECT_BLOCK + DIRECT_ALIGN];
        let start = buf.as_ptr().align_offset(DIRECT_ALIGN);
        Block { buf, start }
    }
    fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.start + DIRECT_BLOCK]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + DIRECT_BLOCK]
    }
}

/// The threads that write full blocks at their offsets (pwrite on one
/// descriptor is safe from several threads), and the blocks they hand back.
struct Pool {
    tx: Option<crossbeam_channel::Sender<(u64, Block)>>,
    free: crossbeam_channel::Receiver<Block>,
    threads: Vec<std::thread::JoinHandle<()>>,
    err: std::sync::Arc<std::sync::Mutex<Option<io::Error>>>,
    allocated: usize,
}

impl Pool {
    fn start(f: &std::sync::Arc<File>) -> io::Result<Pool> {
        let (tx, rx) = crossbeam_channel::bounded::<(u64, Block)>(DIRECT_DEPTH);
        let (free_tx, free) = crossbeam_channel::unbounded::<Block>();
        let err = std::sync::Arc::new(std::sync::Mutex::new(None::<io::Error>));
        let mut threads = Vec::new();
        for i in 0..DIRECT_DEPTH {
            let (rx, free_tx, f, err) = (rx.clone(), free_tx.clone(), f.clone(), err.clone());
            let h = std::thread::Builder::new().name(format!("dao-dio-{i}")).spawn(move || {
                crate::thread_started();
                use std::os::unix::fs::FileExt;
                for (off, b) in rx {
                    if err.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
                        continue; // drain: the caller reports the first error
                    }
                    if let Err(e) = f.write_all_at(b.bytes(), off) {
                        err.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                    }
                    let _ = free_tx.send(b);
                }
            });
            match h {
                Ok(h) => threads.push(h),
                // fewer threads: fewer writes in flight
                Err(e) if threads.is_empty() => return Err(e),
                Err(_) => break,
            }
        }
        Ok(Pool { tx: Some(tx), free, threads, err, allocated: 0 })
    }

    fn error(&self) -> Option<io::Error> {
        self.err.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Queues a full block; returns an empty one.
    fn submit(&mut self, off: u64, b: Block) -> io::Result<Block> {
        if let Some(e) = self.error() {
            return Err(e);
        }
        if self.tx.as_ref().expect("pool open").send((off, b)).is_err() {
            return Err(io::Error::other("the O_DIRECT writers ended"));
        }
        match self.free.try_recv() {
            Ok(b) => Ok(b),
            Err(_) if self.allocated < DIRECT_DEPTH + 1 => {
                self.allocated += 1;
                Ok(Block::new())
            }
            Err(_) => self.free.recv().map_err(|_| io::Error::other("the O_DIRECT writers ended")),
        }
    }

    /// Waits for every queued write.
    fn finish(&mut self) -> io::Result<()> {
        self.tx = None;
        for h in self.threads.drain(..) {
            let _ = h.join();
        }
        self.error().map_or(Ok(()), Err)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// The temp file a checkpoint is written to. Plain writes; or, with
/// `direct`, O_DIRECT writes of whole aligned blocks collected in aligned
/// buffers, DIRECT_DEPTH of them in flight: the device reads the buffers
/// themselves, and the kernel's copy into the page cache and its later
/// writeback, most of a buffered write's CPU time (measured: 0.1 s of
/// system time against 0.5-1.1 s for 486 MB here), are not spent. The
/// tail (less than a block) is written through a second, plain handle at
/// its offset; a file system without O_DIRECT (tmpfs: EINVAL at open or
/// at the first write, which is written by the caller before the pool
/// starts) gets plain writes. `sync_all` covers both handles' data (fsync
/// is per file).
///
/// Plain writes start the page cache's writeback of every WRITEBACK bytes
/// as soon as they are written (`sync_file_range(SYNC_FILE_RANGE_WRITE)`,
/// which queues the pages and does not wait for them): the disk writes
/// while the program copies the next bytes, and the final fsync waits
/// only for the last ones (RocksDB's `bytes_per_sync`, PostgreSQL's
/// `checkpoint_flush_after`). 170 MB written and fsynced in 4 MiB writes
/// here: 0.125 s, 0.075 s with 8 MiB kicks, 0.104 s with 32 MiB (median
/// of 7, interleaved).
pub struct OutFile {
    f: std::sync::Arc<File>,
    path: PathBuf,
    direct: Option<Direct>,
    /// Plain writes: bytes written, and the end of the last range whose
    /// writeback was started (None: the tail of an O_DIRECT file).
    plain_at: Option<(u64, u64)>,
}

/// How many plain bytes are written before their writeback is started.
pub const WRITEBACK: u64 = 8 << 20;

/// Starts the writeback of `len` bytes of `f` at `off` and returns at
/// once (an advice: an error changes nothing, fsync still decides).
#[allow(unsafe_code)]
fn start_writeback(f: &File, off: u64, len: u64) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain system call on a descriptor `f` keeps open; it reads
    // and writes no memory of this process.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::sync_file_range(f.as_raw_fd(), off as libc::off64_t, len as libc::off64_t, libc::SYNC_FILE_RANGE_WRITE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (f, off, len);
}

struct Direct {
    cur: Block,
    len: usize,
    /// Bytes handed to the file so far (a multiple of DIRECT_BLOCK).
    written: u64,
    pool: Option<Pool>,
}

/// Whether files created in `dir` can be written with O_DIRECT: a probe
/// file is created with the flag and removed (tmpfs, for one, refuses the
/// flag with EINVAL; [`OutFile::create`] then writes plainly).
pub fn direct_supported(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join(temp_name(&format!("direct-probe-{}", std::process::id())));
    let ok = OpenOptions::new().write(true).create_new(true).custom_flags(libc::O_DIRECT).open(&probe).is_ok();
    let _ = fs::remove_file(&probe);
    ok
}

impl OutFile {
    pub fn create(path: &Path, direct: bool) -> io::Result<OutFile> {
        use std::os::unix::fs::OpenOptionsExt;
        if direct {
            match OpenOptions::new().write(true).create(true).truncate(true).custom_flags(libc::O_DIRECT).open(path) {
                Ok(f) => {
                    let d = Direct { cur: Block::new(), len: 0, written: 0, pool: None };
                    return Ok(OutFile { f: std::sync::Arc::new(f), path: path.to_path_buf(), direct: Some(d), plain_at: None });
                }
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(e),
            }
        }
        let f = OpenOptions::new().write(true).create(true).truncate(true).open(path)?;
        Ok(OutFile { f: std::sync::Arc::new(f), path: path.to_path_buf(), direct: None, plain_at: Some((0, 0)) })
    }

    /// Whether the file is being written with O_DIRECT.
    pub fn is_direct(&self) -> bool {
        self.direct.is_some()
    }

    fn plain(&mut self) -> &mut File {
        std::sync::Arc::get_mut(&mut self.f).expect("no O_DIRECT writer holds the file")
    }

    /// Hands the full block to the file. The first is written here: EINVAL
    /// (a file system that opens O_DIRECT files but refuses their writes)
    /// reopens the file plain; then the pool starts.
    fn write_block(&mut self) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let d = self.direct.as_mut().expect("direct");
        if let Some(p) = d.pool.as_mut() {
            let full = std::mem::replace(&mut d.cur, Block { buf: Vec::new(), start: 0 });
            d.cur = p.submit(d.written, full)?;
            d.written += DIRECT_BLOCK as u64;
            d.len = 0;
            return Ok(());
        }
        match self.f.write_all_at(d.cur.bytes(), d.written) {
            Ok(()) => {
                d.written += DIRECT_BLOCK as u64;
                d.len = 0;
                // fewer writers than wanted (no thread): one at a time, here
                d.pool = Pool::start(&self.f).ok();
                Ok(())
            }
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) && d.written == 0 => {
                let pending = d.cur.bytes().to_vec();
                self.direct = None;
                self.f = std::sync::Arc::new(OpenOptions::new().write(true).truncate(true).open(&self.path)?);
                self.plain_at = Some((pending.len() as u64, 0));
                self.plain().write_all(&pending)
            }
            Err(e) => Err(e),
        }
    }

    /// Waits for the blocks in flight, writes the tail and returns to plain writes.
    fn end_direct(&mut self) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        if let Some(mut d) = self.direct.take() {
            if let Some(mut p) = d.pool.take() {
                p.finish()?;
            }
            let mut g = OpenOptions::new().write(true).open(&self.path)?;
            g.write_all_at(&d.cur.bytes_mut()[..d.len], d.written)?;
            // later plain writes (none today) append after the tail
            use std::io::Seek;
            g.seek(io::SeekFrom::Start(d.written + d.len as u64))?;
            self.f = std::sync::Arc::new(g);
        }
        Ok(())
    }

    /// Waits for the O_DIRECT writes in flight and writes the tail: a write
    /// that failed in the pool is reported here (or at the next block).
    pub fn finish_writes(&mut self) -> io::Result<()> {
        self.end_direct()
    }

    pub fn sync_all(&mut self) -> io::Result<()> {
        self.end_direct()?;
        self.f.sync_all()
    }

    pub fn len(&mut self) -> io::Result<u64> {
        self.end_direct()?;
        Ok(self.f.metadata()?.len())
    }
}

impl Write for OutFile {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let Some(d) = self.direct.as_mut() else {
            let n = self.plain().write(b)?;
            if let Some((at, kicked)) = self.plain_at.as_mut() {
                *at += n as u64;
                if *at - *kicked >= WRITEBACK {
                    start_writeback(&self.f, *kicked, *at - *kicked);
                    *kicked = *at;
                }
            }
            return Ok(n);
        };
        let n = b.len().min(DIRECT_BLOCK - d.len);
        d.cur.bytes_mut()[d.len..d.len + n].copy_from_slice(&b[..n]);
        d.len += n;
        if d.len == DIRECT_BLOCK {
            self.write_block()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Creates `dir/name` atomically with `header` and the bytes `body` pushes
/// through the pipeline. On error (or a panic in `body`) the temp file is
/// removed and `dir` is unchanged.
pub fn write_file(
    dir: &Path,
    name: &str,
    header: &FileHeader,
    cfg: &PipelineConfig,
    fault: Option<Fault>,
    body: impl FnOnce(&mut PipelineWriter<OutFile>) -> Result<(), StoreError>,
) -> Result<Written, StoreError> {
    let t0 = Instant::now();
    let tmp = dir.join(temp_name(name));
    let dst = dir.join(name);
    let ioe = |e: io::Error| StoreError::io(&tmp, e);
    let guard = TempGuard(Some(tmp.clone()));
    let mut f = OutFile::create(&tmp, cfg.direct_io).map_err(ioe)?;
    let hb = encode_header(header);
    f.write_all(&hb).map_err(ioe)?;
    let mut p = PipelineWriter::with_fault(f, cfg, fault).map_err(ioe)?;
    body(&mut p)?;
    let (mut f, summary) = p.finish().map_err(|e| e.with_file(&tmp))?;
    let id = commit_id(&hb, &summary);
    let mut rec = [0u8; COMMIT_LEN];
    rec[0..8].copy_from_slice(&COMMIT_MAGIC);
    rec[8..16].copy_from_slice(&summary.chunks.to_le_bytes());
    rec[16..24].copy_from_slice(&summary.raw_len.to_le_bytes());
    rec[24..32].copy_from_slice(&id.to_le_bytes());
    rec[32..40].copy_from_slice(&END_MAGIC);
    f.write_all(&rec).map_err(ioe)?;
    // a failed write of the O_DIRECT pool is a failed write, wherever it
    // surfaces (the runtime warns once per stage and error)
    f.finish_writes().map_err(|e| StoreError::Pipeline { stage: "writing", what: e.to_string() })?;
    let ts = Instant::now();
    Fault::check(fault.as_ref(), Stage::Sync, 0).map_err(ioe)?;
    f.sync_all().map_err(ioe)?;
    let file_bytes = f.len().map_err(ioe)?;
    drop(f);
    Fault::check(fault.as_ref(), Stage::Rename, 0).map_err(ioe)?;
    fs::rename(&tmp, &dst).map_err(ioe)?;
    let mut guard = guard;
    guard.0 = None;
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| StoreError::io(dir, e))?;
    let sync = ts.elapsed();
    Ok(Written {
        path: dst,
        commit_id: id,
        file_bytes,
        raw_bytes: summary.raw_len,
        stats: summary.stats,
        sync,
        total: t0.elapsed(),
    })
}

/// A file whose every checksum and the commit record have been checked
/// (nothing decompressed yet).
#[derive(Clone, Debug)]
pub struct Verified {
    pub header: FileHeader,
    pub commit_id: u64,
    pub raw_len: u64,
    chunks: Vec<(ChunkHeader, Range<usize>)>,
}

/// Checks header, every chunk checksum and the commit record of `b`.
pub fn verify(b: &[u8]) -> Result<Verified, StoreError> {
    let header = parse_header(b)?;
    if b.len() < HEADER_LEN + COMMIT_LEN || b[b.len() - 8..] != END_MAGIC || b[b.len() - COMMIT_LEN..b.len() - 32] != COMMIT_MAGIC {
        return Err(StoreError::Uncommitted { file: MEM.into() });
    }
    let end = b.len() - COMMIT_LEN;
    let rec = &b[end..];
    let (n_chunks, raw_len, id) = (u64_at(rec, 8), u64_at(rec, 16), u64_at(rec, 24));
    let mut pos = HEADER_LEN;
    let mut chunks = Vec::new();
    let mut digest = Xxh3::new();
    let mut total = 0u64;
    while pos < end {
        if end - pos < CHUNK_HEADER_LEN {
            return Err(StoreError::corrupt(MEM, format!("chunk at byte {pos} (truncated header)")));
        }
        let hb = &b[pos..pos + CHUNK_HEADER_LEN];
        let h = codec::parse_header(hb).map_err(|w| StoreError::corrupt(MEM, format!("chunk at byte {pos} ({w})")))?;
        let s = pos + CHUNK_HEADER_LEN;
        let e = s.checked_add(h.stored_len as usize).filter(|&e| e <= end);
        let e = e.ok_or_else(|| StoreError::corrupt(MEM, format!("chunk at byte {pos} (length runs past the end)")))?;
        if !codec::verify(hb, &b[s..e], &h) {
            return Err(StoreError::corrupt(MEM, format!("chunk {} at byte {pos} (checksum)", h.index)));
        }
        if h.index as usize != chunks.len() {
            return Err(StoreError::corrupt(MEM, format!("chunk at byte {pos} (index {} where {} was expected)", h.index, chunks.len())));
        }
        digest.update(&h.chunk_hash.to_le_bytes());
        total += h.raw_len as u64;
        chunks.push((h, s..e));
        pos = e;
    }
    let summary = StreamSummary { chunks: chunks.len() as u64, raw_len: total, chunks_digest: digest.digest(), stats: Default::default() };
    if n_chunks != summary.chunks || raw_len != total || commit_id(b, &summary) != id {
        return Err(StoreError::corrupt(MEM, "commit record (does not match the chunks)"));
    }
    Ok(Verified { header, commit_id: id, raw_len, chunks })
}

/// Decodes every chunk of a verified file in parallel (current rayon pool)
/// into one buffer.
pub fn decode(b: &[u8], v: &Verified) -> Result<Vec<u8>, StoreError> {
    let mut out = vec![0u8; v.raw_len as usize];
    let mut parts: Vec<(&ChunkHeader, &[u8], &mut [u8])> = Vec::with_capacity(v.chunks.len());
    let mut rest: &mut [u8] = &mut out;
    for (h, r) in &v.chunks {
        let (now, tail) = std::mem::take(&mut rest).split_at_mut(h.raw_len as usize);
        parts.push((h, &b[r.clone()], now));
        rest = tail;
    }
    parts.into_par_iter().try_for_each_init(codec::Decoder::default, |dec, (h, stored, dst)| {
        codec::decode(h, stored, dst, dec).map_err(|w| StoreError::corrupt(MEM, format!("chunk {} ({w})", h.index)))
    })?;
    Ok(out)
}

/// A file's bytes, memory-mapped.
pub struct Mapped(memmap2::Mmap);

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// Maps a committed file read-only (an empty file reads as uncommitted).
#[allow(unsafe_code)]
pub fn map(path: &Path) -> Result<Mapped, StoreError> {
    let f = File::open(path).map_err(|e| StoreError::io(path, e))?;
    if f.metadata().map_err(|e| StoreError::io(path, e))?.len() == 0 {
        return Err(StoreError::Uncommitted { file: path.into() });
    }
    // SAFETY: committed store files are never modified in place (a commit
    // writes a new file and renames it); only GC deletes them, which keeps
    // an existing mapping valid on Linux.
    let m = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| StoreError::io(path, e))?;
    Ok(Mapped(m))
}

/// Reads, verifies and decodes a whole file: its header, commit id and payload.
pub fn read(path: &Path) -> Result<(Verified, Vec<u8>), StoreError> {
    let m = map(path)?;
    let v = verify(&m).map_err(|e| e.with_file(path))?;
    let raw = decode(&m, &v).map_err(|e| e.with_file(path))?;
    Ok((v, raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Format 1 headers (before HEADER_HASH chunks) are still read; a newer
    /// version is refused naming both versions.
    #[test]
    fn versions_read() {
        let h = FileHeader { kind: Kind::Full, hash: HashKind::Xxh3, seq: 7, base_seq: 7, parent_seq: 0, parent_id: 0, block_size: 4096 };
        let with_version = |v: u32| {
            let mut b = encode_header(&h);
            b[8..12].copy_from_slice(&v.to_le_bytes());
            let hh = xxh3_64(&b[..56]);
            b[56..64].copy_from_slice(&hh.to_le_bytes());
            b
        };
        assert_eq!(parse_header(&with_version(1)).unwrap(), h);
        assert_eq!(parse_header(&with_version(FORMAT_VERSION)).unwrap(), h);
        match parse_header(&with_version(FORMAT_VERSION + 1)) {
            Err(e @ StoreError::UnsupportedVersion { found, supported, .. }) => {
                assert_eq!((found, supported), (FORMAT_VERSION + 1, FORMAT_VERSION));
                let m = e.to_string();
                assert!(m.contains(&format!("{}", FORMAT_VERSION + 1)), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// O_DIRECT files (the forked writer's) are byte for byte the plain
    /// ones: sizes below a block, exactly blocks, blocks and a tail, with and
    /// without a codec (the threaded pipeline), and each reads back.
    #[test]
    fn direct_and_plain_files_are_identical() {
        let d = tempfile::tempdir().unwrap();
        let h = FileHeader { kind: Kind::Full, hash: HashKind::Xxh3, seq: 1, base_seq: 1, parent_seq: 0, parent_id: 0, block_size: 4096 };
        let probe = OutFile::create(&d.path().join("probe"), true).unwrap();
        if !probe.is_direct() {
            eprintln!("{}: no O_DIRECT on this file system; both files written plainly", d.path().display());
        }
        assert_eq!(direct_supported(d.path()), probe.is_direct(), "the probe and the writer disagree");
        drop(probe);
        fs::remove_file(d.path().join("probe")).unwrap();
        for codec in [crate::Codec::None, crate::Codec::Lz4] {
            for n in [0usize, 1000, DIRECT_BLOCK - HEADER_LEN - 100, 3 * DIRECT_BLOCK, 2 * DIRECT_BLOCK + 12345, 11 * DIRECT_BLOCK + 777] {
                let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
                let mut files = vec![];
                for direct in [false, true] {
                    let cfg = PipelineConfig { codec, direct_io: direct, ..PipelineConfig::default() };
                    let name = format!("f-{codec:?}-{n}-{direct}");
                    let w = write_file(d.path(), &name, &h, &cfg, None, |p| p.write_all(&data).map_err(|e| StoreError::io(Path::new("x"), e))).unwrap();
                    let (_, raw) = read(&w.path).unwrap();
                    assert!(raw == data, "{name}: read back differs");
                    assert_eq!(w.file_bytes, fs::metadata(&w.path).unwrap().len());
                    files.push(fs::read(&w.path).unwrap());
                }
                assert!(files[0] == files[1], "codec {codec:?}, {n} bytes: direct and plain files differ");
            }
        }
        // nothing left behind (temp files)
        assert!(fs::read_dir(d.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
    }

    /// A plain file starts the writeback of every WRITEBACK bytes once
    /// written, whatever the sizes of the writes; an O_DIRECT one never.
    #[test]
    fn plain_writes_start_their_writeback() {
        let d = tempfile::tempdir().unwrap();
        let mut f = OutFile::create(&d.path().join("plain"), false).unwrap();
        let piece = vec![7u8; (1 << 20) + 3];
        let mut n = 0u64;
        while n < 3 * WRITEBACK + 5 {
            f.write_all(&piece).unwrap();
            n += piece.len() as u64;
        }
        let (at, kicked) = f.plain_at.unwrap();
        assert_eq!(at, n);
        assert!(kicked <= at && at - kicked < WRITEBACK && kicked >= 3 * WRITEBACK, "at {at}, kicked {kicked}");
        f.sync_all().unwrap();
        assert_eq!(fs::metadata(d.path().join("plain")).unwrap().len(), n);
        let g = OutFile::create(&d.path().join("direct"), true).unwrap();
        assert_eq!(g.plain_at.is_none(), g.is_direct());
    }
}
