//! The byte layout of a checkpoint file (all integers little-endian).
//!
//! ```text
//! header (80 bytes)
//!   0  magic        [u8; 8]  "DAOCKPT\0"
//!   8  version      u32      FORMAT_VERSION
//!  12  flags        u32      FLAG_* bits
//!  16  binary_hash  u64      xxh3-64 of the executable file
//!  24  binary_size  u64
//!  32  image_base   u64
//!  40  run_id       u64
//!  48  seq          u64
//!  56  threads      u32
//!  60  pid          u32
//!  64  timestamp    u64      unix seconds
//!  72  header_hash  u64      xxh3-64 of bytes 0..72
//! sections, SECTION_COUNT of them, in the order RUNTIME, CHAIN, THREADS, GLOBALS, HEAP
//!   kind u32, length u64, checksum u64 (chunked xxh3 of the payload, below), payload[length]
//! trailer (16 bytes)
//!   file_hash u64  xxh3-64 of the header (80 bytes) followed by every
//!                  section's 20-byte (kind, length, checksum) record: since
//!                  each checksum covers its payload, this covers the file
//!   end magic [u8; 8] "DAOEND\0\0"
//! ```
//!
//! Section checksum (format 3): the payload is cut into chunks of [`CHUNK`]
//! bytes (the last one shorter; an empty payload is one empty chunk); the
//! checksum is the xxh3-64 of the concatenated little-endian xxh3-64 digests
//! of the chunks. Chunks can be hashed (and written, and verified) by
//! different threads: this is what distributed saving and parallel
//! verification on restart use.
//!
//! Payload primitives: `u32`, `u64`, `i64`; `str` = u32 length + UTF-8;
//! `opt_str` = u32 length (0xFFFF_FFFF: none) + UTF-8; `bytes` = u64 length +
//! bytes. Section payloads:
//! - RUNTIME: candidates u64, checkpoints u64, stdout_offset i64, stderr_offset i64.
//! - CHAIN: u32 frame count, then per frame (outermost first): function str,
//!   module_hash u64, site u32, frame_addr u64, u32 slot count, slots (index
//!   u32, name str, loc opt_str, bytes), u32 object count, objects (index u32,
//!   name str, loc opt_str, addr u64, bytes).
//! - THREADS (format 2): the OpenMP state. team_size u32 (0: the checkpoint
//!   was taken outside a parallel region), the master's ICVs at the last
//!   fork or at the checkpoint: nthreads u32, dynamic u32, max_active_levels
//!   u32, schedule kind u32, schedule chunk i32, singles_won u64,
//!   master_singles u64, the master's thread-local values (as below); then
//!   u32 worker count, per worker: thread number u32, state u32 (1 at a
//!   candidate, 2 waiting at a barrier, 3 finished its part of the region, 4
//!   idle outside a region: saved for its thread-local values only), singles
//!   u64, its frames encoded as in CHAIN (count + frames), then its
//!   thread-local values: u32 count, then (module hash u64, index u32, name
//!   str, bytes); then (format 4) its copies of flang's threadprivate
//!   variables: u32 count, then (name str, var u64, addr u64, size u64,
//!   saved u8, and bytes when saved is 1).
//! - GLOBALS: u32 count, then (module_hash u64, index u32, name str, loc
//!   opt_str, addr u64, bytes); from format 8 a record of the same global
//!   as the record before it (another saved range of it) is
//!   ([`CONTINUED`] u64, addr u64, bytes); then (format 5) the defined globals of the
//!   instrumented modules that the checkpoint does not hold whole, dead at
//!   it: u32 count, then (module_hash u64, index u32, name str, size u64,
//!   saved u64 (< size: the bytes of its records above), why opt_str (what
//!   rewrites it first on the paths from the checkpoint, the pass's words));
//!   then (format 6) why the big globals are saved: u32 count, then
//!   (record u32: an index into the first list, why str); then (format 7)
//!   the mapped ranges of OpenMP offload devices: u32 count, then (device
//!   u32 (an i32), addr u64, size u64, map_type u64, dyn_refs u64,
//!   hold_refs u64, name opt_str, saved u8, and bytes when saved is 1: the
//!   device copy's `size` bytes; from format 10 saved 2: the device copy
//!   held the bytes this file saves of the host at `addr`, a global's or
//!   a heap block's, stored there once). Format 4 to 9 files (no such
//!   lists; every record whole) are still read.
//! - HEAP: meta bytes, u64 block count, then (addr u64, size u64, saved u8,
//!   and `size` raw bytes when saved is 1); then (format 9) the heap
//!   objects (ABI 14: blocks of allocation calls the pass follows), one per
//!   valid heap record of a registered module: u32 count, then (module_hash
//!   u64, index u32 (into the module's heap records), name str, loc
//!   opt_str, addr u64, size u64 (bytes asked for), saved u8 (0: left out,
//!   dead in every walked frame of its module), why opt_str (left out: what
//!   rewrites it first; saved: why it is kept, for 64 KiB and more)).
//!   Files before format 9 have no such list (read as empty).

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

pub const MAGIC: [u8; 8] = *b"DAOCKPT\0";
pub const END_MAGIC: [u8; 8] = *b"DAOEND\0\0";
pub const FORMAT_VERSION: u32 = 10;
/// The oldest version the reader accepts: format 4 differs only in having no
/// list of dead globals, 5 in having no reasons for the saved ones, 6 in
/// having no device regions (read as empty), 7 in having no continued
/// global records, 8 in having no heap objects (read as empty), 9 in having
/// no device regions stored as the host's bytes.
pub const OLDEST_READ_VERSION: u32 = 4;
/// In place of a global record's module hash (format 8): the record is
/// another range of the global of the record before it (same module,
/// index, name and location), and only its address and bytes follow. A
/// global saved as thousands of ranges (the padding cells between a
/// common block member's dead rows) then costs 24 bytes a range, not 50.
/// No module hash is this value (the writer refuses one).
pub const CONTINUED: u64 = u64::MAX;
/// Checksum chunk size (see the module comment).
pub const CHUNK: usize = 1 << 20;
pub const HEADER_LEN: usize = 80;
pub const HEADER_HASHED_LEN: usize = 72;
pub const SECTION_HEADER_LEN: usize = 20;
pub const TRAILER_LEN: usize = 16;
pub const NONE_STR: u32 = u32::MAX;

/// Section kinds, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum SectionKind {
    Runtime = 1,
    Chain = 2,
    Globals = 3,
    Heap = 4,
    Threads = 5,
}

pub const SECTIONS: [SectionKind; 5] =
    [SectionKind::Runtime, SectionKind::Chain, SectionKind::Threads, SectionKind::Globals, SectionKind::Heap];

impl SectionKind {
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::Runtime => "RUNTIME",
            SectionKind::Chain => "CHAIN",
            SectionKind::Globals => "GLOBALS",
            SectionKind::Heap => "HEAP",
            SectionKind::Threads => "THREADS",
        }
    }
}

/// Encodes the fixed header (including its own hash).
pub fn encode_header(h: &crate::model::Header) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[0..8].copy_from_slice(&MAGIC);
    b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    b[12..16].copy_from_slice(&h.flags.to_le_bytes());
    b[16..24].copy_from_slice(&h.binary_hash.to_le_bytes());
    b[24..32].copy_from_slice(&h.binary_size.to_le_bytes());
    b[32..40].copy_from_slice(&h.image_base.to_le_bytes());
    b[40..48].copy_from_slice(&h.run_id.to_le_bytes());
    b[48..56].copy_from_slice(&h.seq.to_le_bytes());
    b[56..60].copy_from_slice(&h.threads.to_le_bytes());
    b[60..64].copy_from_slice(&h.pid.to_le_bytes());
    b[64..72].copy_from_slice(&h.timestamp.to_le_bytes());
    let hh = xxhash_rust::xxh3::xxh3_64(&b[..HEADER_HASHED_LEN]);
    b[72..80].copy_from_slice(&hh.to_le_bytes());
    b
}

pub fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

pub fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Combines chunk digests into a section checksum.
pub fn combine(digests: impl IntoIterator<Item = u64>) -> u64 {
    let mut h = Xxh3::new();
    for d in digests {
        h.update(&d.to_le_bytes());
    }
    h.digest()
}

/// The chunk digests of a payload (one for an empty payload).
pub fn chunk_digests(p: &[u8]) -> Vec<u64> {
    if p.is_empty() {
        return vec![xxh3_64(&[])];
    }
    p.chunks(CHUNK).map(xxh3_64).collect()
}

/// The section checksum of a payload.
pub fn payload_checksum(p: &[u8]) -> u64 {
    combine(chunk_digests(p))
}

/// [`payload_checksum`] computed by up to `threads` threads (for large
/// payloads at restart: verification runs at memory bandwidth per core).
pub fn payload_checksum_par(p: &[u8], threads: usize) -> u64 {
    let n = p.len().div_ceil(CHUNK);
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        return payload_checksum(p);
    }
    let per = n.div_ceil(threads);
    let parts: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = p.chunks(per * CHUNK).map(|part| s.spawn(move || chunk_digests(part))).collect();
        hs.into_iter().map(|h| h.join().expect("checksum thread panicked")).collect()
    });
    combine(parts.into_iter().flatten())
}

/// Streaming form of [`payload_checksum`].
#[derive(Clone)]
pub struct ChunkedHash {
    outer: Xxh3,
    chunk: Xxh3,
    fill: usize,
    chunks: u64,
}

impl Default for ChunkedHash {
    fn default() -> Self {
        ChunkedHash { outer: Xxh3::new(), chunk: Xxh3::new(), fill: 0, chunks: 0 }
    }
}

impl ChunkedHash {
    pub fn update(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            let n = (CHUNK - self.fill).min(b.len());
            self.chunk.update(&b[..n]);
            self.fill += n;
            b = &b[n..];
            if self.fill == CHUNK {
                self.outer.update(&self.chunk.digest().to_le_bytes());
                self.chunk.reset();
                self.fill = 0;
                self.chunks += 1;
            }
        }
    }

    pub fn digest(&self) -> u64 {
        let mut o = self.outer.clone();
        if self.fill > 0 || self.chunks == 0 {
            o.update(&self.chunk.digest().to_le_bytes());
        }
        o.digest()
    }
}
