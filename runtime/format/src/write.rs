//! Streaming checkpoint encoder.
//!
//! [`Writer`] writes the header, then each section in file order, then the
//! trailer. Payload bytes go straight from the caller's slices to the output
//! (no copy of program memory is made); each section's length and checksum
//! are computed while streaming and patched into its record afterwards, which
//! is why the output must be seekable.
//!
//! [`Writer::skeleton`] writes a *skeleton* (flag [`FLAG_SKELETON`]): the same
//! file with every byte payload replaced by a reference (length and key, see
//! `wire.rs`); [`skeleton_regions`] lists the referenced bytes under the same
//! keys. The storage engine stores the skeleton as its metadata blob and the
//! bytes as its regions.
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use xxhash_rust::xxh3::Xxh3;

use crate::model::{Checkpoint, DeadGlobal, DeviceRegion, Frame, Global, Header, Heap, OmpState, RuntimeState, TlsValue, TpCopy, Worker, FLAG_SKELETON, META_KEY};
use crate::wire::{self, ChunkedHash, SectionKind, CONTINUED, END_MAGIC, NONE_STR, SECTIONS, SECTION_HEADER_LEN};

/// Streaming encoder; call the section methods in file order
/// (runtime, chain, threads, globals, heap), then [`Writer::finish`].
pub struct Writer<W: Write + Seek> {
    w: W,
    file_hash: Xxh3,
    next_section: usize,
    skeleton: bool,
}

/// The key of a byte payload in a skeleton: the address of its bytes. The
/// runtime describes program memory in place (`Cow::Borrowed`), so this is
/// the object's address, the same object from one checkpoint to the next
/// (address-preserving restart, docs/design.md section 1). The heap
/// metadata, which the runtime copies, has the fixed key [`META_KEY`].
pub fn key_of(b: &[u8]) -> u64 {
    b.as_ptr() as u64
}

/// Where the section bodies put their bytes: the streaming writer (hash and
/// write at once) or a [`Layout`] (remember where each byte will go).
/// `bulk` marks bytes of program memory that a layout may write without
/// copying them (heap blocks, globals, stack objects).
trait Sink<'a> {
    fn raw(&mut self, b: &[u8]) -> io::Result<()>;
    fn bulk(&mut self, b: &'a [u8]) -> io::Result<()> {
        self.raw(b)
    }
    /// Writing a skeleton: byte payloads become references (key_of).
    fn skeleton(&self) -> bool {
        false
    }

    fn u8(&mut self, v: u8) -> io::Result<()> {
        self.raw(&[v])
    }
    fn u32(&mut self, v: u32) -> io::Result<()> {
        self.raw(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) -> io::Result<()> {
        self.raw(&v.to_le_bytes())
    }
    fn i64(&mut self, v: i64) -> io::Result<()> {
        self.raw(&v.to_le_bytes())
    }
    fn str(&mut self, s: &str) -> io::Result<()> {
        let n = u32::try_from(s.len()).ok().filter(|&n| n != NONE_STR);
        let n = n.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "name too long"))?;
        self.u32(n)?;
        self.raw(s.as_bytes())
    }
    fn opt_str(&mut self, s: Option<&str>) -> io::Result<()> {
        match s {
            Some(s) => self.str(s),
            None => self.u32(NONE_STR),
        }
    }
    fn bytes(&mut self, b: &'a [u8]) -> io::Result<()> {
        self.u64(b.len() as u64)?;
        if self.skeleton() {
            return self.u64(key_of(b));
        }
        self.bulk(b)
    }
    fn count(&mut self, n: usize) -> io::Result<()> {
        let n = u32::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "too many records"))?;
        self.u32(n)
    }
    fn tls(&mut self, v: &'a [TlsValue<'_>]) -> io::Result<()> {
        self.count(v.len())?;
        for t in v {
            self.u64(t.module_hash)?;
            self.u32(t.index)?;
            self.str(&t.name)?;
            self.bytes(&t.bytes)?;
        }
        Ok(())
    }
    fn tp(&mut self, v: &'a [TpCopy<'_>]) -> io::Result<()> {
        self.count(v.len())?;
        for t in v {
            self.str(&t.name)?;
            self.u64(t.var)?;
            self.u64(t.addr)?;
            self.u64(t.size)?;
            match &t.bytes {
                Some(b) => {
                    if b.len() as u64 != t.size {
                        return Err(io::Error::new(io::ErrorKind::InvalidInput, "threadprivate copy bytes differ from its size"));
                    }
                    self.u8(1)?;
                    self.bytes(b)?;
                }
                None => self.u8(0)?,
            }
        }
        Ok(())
    }
    fn frames(&mut self, frames: &'a [Frame<'_>]) -> io::Result<()> {
        self.count(frames.len())?;
        for f in frames {
            self.str(&f.function)?;
            self.u64(f.module_hash)?;
            self.u32(f.site)?;
            self.u64(f.frame_addr)?;
            self.count(f.slots.len())?;
            for v in &f.slots {
                self.u32(v.index)?;
                self.str(&v.name)?;
                self.opt_str(v.loc.as_deref())?;
                self.bytes(&v.bytes)?;
            }
            self.count(f.stack_objects.len())?;
            for o in &f.stack_objects {
                self.u32(o.index)?;
                self.str(&o.name)?;
                self.opt_str(o.loc.as_deref())?;
                self.u64(o.addr)?;
                self.bytes(&o.bytes)?;
            }
        }
        Ok(())
    }
}

// ---- section bodies (the payload layouts of wire.rs), shared by both encoders ----

fn runtime_body<'a>(s: &mut impl Sink<'a>, r: &RuntimeState) -> io::Result<()> {
    s.u64(r.candidates)?;
    s.u64(r.checkpoints)?;
    s.i64(r.stdout_offset)?;
    s.i64(r.stderr_offset)
}

fn threads_body<'a>(s: &mut impl Sink<'a>, omp: &OmpState, master_tls: &'a [TlsValue<'_>], workers: &'a [Worker<'_>]) -> io::Result<()> {
    s.u32(omp.team_size)?;
    s.u32(omp.nthreads)?;
    s.u32(omp.dynamic)?;
    s.u32(omp.max_active_levels)?;
    s.u32(omp.sched_kind)?;
    s.u32(omp.sched_chunk as u32)?;
    s.u64(omp.singles_won)?;
    s.u64(omp.master_singles)?;
    s.tls(master_tls)?;
    s.count(workers.len())?;
    for w in workers {
        s.u32(w.thread)?;
        s.u32(w.state)?;
        s.u64(w.singles)?;
        s.frames(&w.chain)?;
        s.tls(&w.tls)?;
        s.tp(&w.tp)?;
    }
    Ok(())
}

fn globals_body<'a>(s: &mut impl Sink<'a>, globals: &'a [Global<'_>], dead: &[DeadGlobal<'_>], devices: &'a [DeviceRegion<'_>]) -> io::Result<()> {
    s.count(globals.len())?;
    let mut prev: Option<&Global<'_>> = None;
    for g in globals {
        if prev.is_some_and(|p| (p.module_hash, p.index, &p.name, &p.loc) == (g.module_hash, g.index, &g.name, &g.loc)) {
            // another range of the same global (format 8)
            s.u64(CONTINUED)?;
        } else {
            if g.module_hash == CONTINUED {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "a module hash equal to the continued-record mark"));
            }
            s.u64(g.module_hash)?;
            s.u32(g.index)?;
            s.str(&g.name)?;
            s.opt_str(g.loc.as_deref())?;
        }
        s.u64(g.addr)?;
        s.bytes(&g.bytes)?;
        prev = Some(g);
    }
    // format 5: the defined globals not saved whole
    s.count(dead.len())?;
    for d in dead {
        s.u64(d.module_hash)?;
        s.u32(d.index)?;
        s.str(&d.name)?;
        s.u64(d.size)?;
        s.u64(d.saved)?;
        s.opt_str(d.why.as_deref())?;
    }
    // format 6: why the big globals are saved
    let whys: Vec<(usize, &str)> = globals.iter().enumerate().filter_map(|(k, g)| g.why.as_deref().map(|w| (k, w))).collect();
    s.count(whys.len())?;
    for (k, w) in whys {
        s.u32(k as u32)?;
        s.str(w)?;
    }
    // format 7: the mapped ranges of offload devices
    s.count(devices.len())?;
    for d in devices {
        s.u32(d.device as u32)?;
        s.u64(d.addr)?;
        s.u64(d.size)?;
        s.u64(d.map_type)?;
        s.u64(d.dyn_refs)?;
        s.u64(d.hold_refs)?;
        s.opt_str(d.name.as_deref())?;
        match &d.bytes {
            Some(_) if d.from_host => return Err(io::Error::new(io::ErrorKind::InvalidInput, "a device region with bytes of its own marked as the host's")),
            Some(b) => {
                if b.len() as u64 != d.size {
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, "device region bytes differ from its size"));
                }
                s.u8(1)?;
                s.bytes(b)?;
            }
            // format 10: the host's bytes at its address
            None if d.from_host => s.u8(2)?,
            None => s.u8(0)?,
        }
    }
    Ok(())
}

fn heap_body<'a>(s: &mut impl Sink<'a>, heap: &'a Heap<'_>) -> io::Result<()> {
    if s.skeleton() {
        s.u64(heap.meta.len() as u64)?;
        s.u64(META_KEY)?;
    } else {
        s.bytes(&heap.meta)?;
    }
    s.u64(heap.blocks.len() as u64)?;
    for b in &heap.blocks {
        s.u64(b.addr)?;
        s.u64(b.size)?;
        match &b.bytes {
            Some(bytes) => {
                if bytes.len() as u64 != b.size {
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, "heap block bytes differ from its size"));
                }
                s.u8(1)?;
                if s.skeleton() {
                    s.u64(key_of(bytes))?;
                } else {
                    s.bulk(bytes)?;
                }
            }
            None => s.u8(0)?,
        }
    }
    // format 9: the heap objects
    s.count(heap.objects.len())?;
    for o in &heap.objects {
        s.u64(o.module_hash)?;
        s.u32(o.index)?;
        s.str(&o.name)?;
        s.opt_str(o.loc.as_deref())?;
        s.u64(o.addr)?;
        s.u64(o.size)?;
        s.u8(o.saved as u8)?;
        s.opt_str(o.why.as_deref())?;
    }
    Ok(())
}

/// One open section of the streaming writer: payload writes are hashed and counted.
struct Section<'w, W: Write + Seek> {
    w: &'w mut W,
    hash: ChunkedHash,
    len: u64,
    skeleton: bool,
}

impl<'a, W: Write + Seek> Sink<'a> for Section<'_, W> {
    fn raw(&mut self, b: &[u8]) -> io::Result<()> {
        self.hash.update(b);
        self.len += b.len() as u64;
        self.w.write_all(b)
    }
    fn skeleton(&self) -> bool {
        self.skeleton
    }
}

impl<W: Write + Seek> Writer<W> {
    /// Writes the header.
    pub fn new(mut w: W, header: &Header) -> io::Result<Self> {
        let h = wire::encode_header(header);
        w.write_all(&h)?;
        let mut file_hash = Xxh3::new();
        file_hash.update(&h);
        Ok(Writer { w, file_hash, next_section: 0, skeleton: header.flags & FLAG_SKELETON != 0 })
    }

    /// Writes the header of a skeleton ([`FLAG_SKELETON`] is added to the
    /// header's flags): the sections then reference their byte payloads
    /// instead of holding them.
    pub fn skeleton(w: W, header: &Header) -> io::Result<Self> {
        let h = Header { flags: header.flags | FLAG_SKELETON, ..header.clone() };
        Writer::new(w, &h)
    }

    fn section(&mut self, kind: SectionKind, body: impl FnOnce(&mut Section<'_, W>) -> io::Result<()>) -> io::Result<()> {
        assert_eq!(SECTIONS.get(self.next_section), Some(&kind), "sections out of order");
        self.next_section += 1;
        let start = self.w.stream_position()?;
        self.w.write_all(&[0u8; SECTION_HEADER_LEN])?;
        let mut s = Section { w: &mut self.w, hash: ChunkedHash::default(), len: 0, skeleton: self.skeleton };
        body(&mut s)?;
        let (len, sum) = (s.len, s.hash.digest());
        let mut rec = [0u8; SECTION_HEADER_LEN];
        rec[0..4].copy_from_slice(&(kind as u32).to_le_bytes());
        rec[4..12].copy_from_slice(&len.to_le_bytes());
        rec[12..20].copy_from_slice(&sum.to_le_bytes());
        self.w.seek(SeekFrom::Start(start))?;
        self.w.write_all(&rec)?;
        self.w.seek(SeekFrom::Start(start + SECTION_HEADER_LEN as u64 + len))?;
        self.file_hash.update(&rec);
        Ok(())
    }

    pub fn runtime(&mut self, r: &RuntimeState) -> io::Result<()> {
        self.section(SectionKind::Runtime, |s| runtime_body(s, r))
    }

    /// The label stack, outermost frame first.
    pub fn chain(&mut self, frames: &[Frame<'_>]) -> io::Result<()> {
        self.section(SectionKind::Chain, |s| s.frames(frames))
    }

    /// The OpenMP state: ICVs, the master's thread-local values, the workers.
    pub fn threads(&mut self, omp: &OmpState, master_tls: &[TlsValue<'_>], workers: &[Worker<'_>]) -> io::Result<()> {
        self.section(SectionKind::Threads, |s| threads_body(s, omp, master_tls, workers))
    }

    /// The saved globals, and the defined globals not saved whole.
    pub fn globals(&mut self, globals: &[Global<'_>], dead: &[DeadGlobal<'_>], devices: &[DeviceRegion<'_>]) -> io::Result<()> {
        self.section(SectionKind::Globals, |s| globals_body(s, globals, dead, devices))
    }

    /// The heap. A block's saved bytes must be exactly `size` long.
    pub fn heap(&mut self, heap: &Heap<'_>) -> io::Result<()> {
        self.section(SectionKind::Heap, |s| heap_body(s, heap))
    }

    /// Writes the trailer and returns the output (not flushed or synced).
    pub fn finish(mut self) -> io::Result<W> {
        assert_eq!(self.next_section, SECTIONS.len(), "missing sections");
        self.w.write_all(&self.file_hash.digest().to_le_bytes())?;
        self.w.write_all(&END_MAGIC)?;
        Ok(self.w)
    }

    /// Encodes a whole checkpoint.
    pub fn write_all(w: W, c: &Checkpoint<'_>) -> io::Result<W> {
        let mut wr = Writer::new(w, &c.header)?;
        wr.runtime(&c.runtime)?;
        wr.chain(&c.chain)?;
        wr.threads(&c.omp, &c.master_tls, &c.workers)?;
        wr.globals(&c.globals, &c.dead, &c.devices)?;
        wr.heap(&c.heap)?;
        wr.finish()
    }
}

// ---- skeletons ----

/// The byte payloads a skeleton of `p` references, as (key, bytes), sorted
/// by key, each key once: when two payloads share a key (the same address:
/// an alias, or an empty payload) the longest is kept, and every payload of
/// that key is a prefix of it. These are the regions the storage engine
/// stores; `decode_skeleton` finds each payload again by key and length.
pub fn skeleton_regions<'a>(p: &Parts<'a>) -> Vec<(u64, &'a [u8])> {
    let mut v: Vec<(u64, &'a [u8])> = Vec::new();
    each_payload(p, |k, b| v.push((k, b)));
    // longest first within a key, then keep the first of each key
    v.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.len().cmp(&a.1.len())));
    v.dedup_by_key(|r| r.0);
    v
}

/// The address ranges `[start, end)` of every byte payload of `p` (the
/// memory a writer of it reads; empty payloads left out).
pub fn payload_ranges(p: &Parts<'_>) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    each_payload(p, |_, b| {
        if !b.is_empty() {
            v.push((b.as_ptr() as u64, b.as_ptr() as u64 + b.len() as u64));
        }
    });
    v
}

/// Every byte payload of `p` with its key, in file order (aliases and
/// repeated keys included).
fn each_payload<'a>(p: &Parts<'a>, mut f: impl FnMut(u64, &'a [u8])) {
    let frames = |fs: &'a [Frame<'a>], f: &mut dyn FnMut(u64, &'a [u8])| {
        for fr in fs {
            for x in &fr.slots {
                f(key_of(&x.bytes), &x.bytes);
            }
            for x in &fr.stack_objects {
                f(key_of(&x.bytes), &x.bytes);
            }
        }
    };
    frames(p.chain, &mut f);
    for w in p.workers {
        frames(&w.chain, &mut f);
        for t in &w.tls {
            f(key_of(&t.bytes), &t.bytes);
        }
        for t in &w.tp {
            if let Some(b) = &t.bytes {
                f(key_of(b), b);
            }
        }
    }
    for t in p.master_tls {
        f(key_of(&t.bytes), &t.bytes);
    }
    for g in p.globals {
        f(key_of(&g.bytes), &g.bytes);
    }
    f(META_KEY, &p.heap.meta);
    for b in &p.heap.blocks {
        if let Some(x) = &b.bytes {
            f(key_of(x), x);
        }
    }
    for d in p.devices {
        if let Some(x) = &d.bytes {
            f(key_of(x), x);
        }
    }
}

/// Upper bounds of what [`skeleton_regions`] returns, without building
/// it: (the number of regions, their bytes). A forked writer builds the
/// regions in the child; the program sizes what the child hands back with
/// these.
pub fn skeleton_regions_bound(p: &Parts<'_>) -> (usize, u64) {
    let (mut n, mut bytes) = (0usize, 0u64);
    each_payload(p, |_, b| {
        n += 1;
        bytes += b.len() as u64;
    });
    (n, bytes)
}

impl Checkpoint<'_> {
    /// Encodes the checkpoint into a byte vector. (Here rather than in
    /// model.rs: the model knows nothing of the writer.)
    pub fn encode(&self) -> Vec<u8> {
        let mut cur = std::io::Cursor::new(Vec::new());
        Writer::write_all(&mut cur, self).expect("writing to memory cannot fail");
        cur.into_inner()
    }
}

/// Encodes the skeleton of `p` (see [`Writer::skeleton`]).
pub fn encode_skeleton(p: &Parts<'_>) -> io::Result<Vec<u8>> {
    let mut wr = Writer::skeleton(io::Cursor::new(Vec::new()), p.header)?;
    wr.runtime(p.runtime)?;
    wr.chain(p.chain)?;
    wr.threads(p.omp, p.master_tls, p.workers)?;
    wr.globals(p.globals, p.dead, p.devices)?;
    wr.heap(p.heap)?;
    Ok(wr.finish()?.into_inner())
}

impl<'a> Parts<'a> {
    /// The parts of a whole checkpoint.
    pub fn of(c: &'a Checkpoint<'a>) -> Parts<'a> {
        Parts {
            header: &c.header,
            runtime: &c.runtime,
            chain: &c.chain,
            omp: &c.omp,
            master_tls: &c.master_tls,
            workers: &c.workers,
            globals: &c.globals,
            dead: &c.dead,
            heap: &c.heap,
            devices: &c.devices,
        }
    }
}

// ---- distributed writing ----

/// Payloads shorter than this are copied into the layout's metadata buffer
/// instead of being written from program memory (fewer, larger writes).
const BULK_MIN: usize = 256;

/// A unit made of more pieces than this is assembled in a buffer and
/// written with one system call.
const GATHER_OVER: usize = 8;

thread_local! {
    static GATHER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

enum Src<'a> {
    /// `len` bytes at this offset of the metadata buffer.
    Meta(usize),
    Bulk(&'a [u8]),
}

struct Piece<'a> {
    /// Offset in the section payload.
    off: u64,
    len: u64,
    src: Src<'a>,
}

struct PlannedSection<'a> {
    kind: SectionKind,
    /// File offset of the section record (the payload follows it).
    at: u64,
    len: u64,
    pieces: Vec<Piece<'a>>,
    /// Index of its first unit.
    first_unit: usize,
}

/// A section being planned: metadata bytes are appended to the shared
/// buffer, program memory is referenced.
struct Planner<'a, 'p> {
    meta: &'p mut Vec<u8>,
    pieces: &'p mut Vec<Piece<'a>>,
    len: u64,
}

impl<'a> Sink<'a> for Planner<'a, '_> {
    fn raw(&mut self, b: &[u8]) -> io::Result<()> {
        if b.is_empty() {
            return Ok(());
        }
        let start = self.meta.len();
        self.meta.extend_from_slice(b);
        match self.pieces.last_mut() {
            Some(Piece { src: Src::Meta(at), len, off }) if *at + *len as usize == start && *off + *len == self.len => *len += b.len() as u64,
            _ => self.pieces.push(Piece { off: self.len, len: b.len() as u64, src: Src::Meta(start) }),
        }
        self.len += b.len() as u64;
        Ok(())
    }
    fn bulk(&mut self, b: &'a [u8]) -> io::Result<()> {
        if b.len() < BULK_MIN {
            return self.raw(b);
        }
        self.pieces.push(Piece { off: self.len, len: b.len() as u64, src: Src::Bulk(b) });
        self.len += b.len() as u64;
        Ok(())
    }
}

/// A checkpoint laid out before it is written, so that several threads can
/// write it: every byte's file offset is known, the file is cut into units
/// (one checksum chunk of one section each, [`wire::CHUNK`] bytes), and
/// each unit is hashed and written with positioned writes by whichever
/// thread claims it; [`Layout::finish`] then writes the section records,
/// the header and the trailer from the units' digests. Program memory is
/// referenced, not copied (payloads under 256 bytes are; a unit of many pieces is assembled in a per-thread buffer and written at once).
///
/// The file is the same, byte for byte, as the one [`Writer`] writes.
pub struct Layout<'a> {
    header: [u8; wire::HEADER_LEN],
    meta: Vec<u8>,
    sections: Vec<PlannedSection<'a>>,
    /// (section, chunk index in its payload)
    units: Vec<(usize, u64)>,
    len: u64,
}

/// The parts of a checkpoint, borrowed for a [`Layout`].
pub struct Parts<'a> {
    pub header: &'a Header,
    pub runtime: &'a RuntimeState,
    pub chain: &'a [Frame<'a>],
    pub omp: &'a OmpState,
    pub master_tls: &'a [TlsValue<'a>],
    pub workers: &'a [Worker<'a>],
    pub globals: &'a [Global<'a>],
    pub dead: &'a [DeadGlobal<'a>],
    pub heap: &'a Heap<'a>,
    /// Offload devices' mapped ranges (format 7).
    pub devices: &'a [DeviceRegion<'a>],
}

impl<'a> Layout<'a> {
    pub fn new(p: Parts<'a>) -> io::Result<Self> {
        if p.header.flags & FLAG_SKELETON != 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "a skeleton is written with Writer::skeleton, not laid out"));
        }
        let mut meta = Vec::new();
        let mut sections = Vec::with_capacity(SECTIONS.len());
        let mut at = wire::HEADER_LEN as u64;
        let mut units = Vec::new();
        for kind in SECTIONS {
            let mut pieces = Vec::new();
            let mut s = Planner { meta: &mut meta, pieces: &mut pieces, len: 0 };
            match kind {
                SectionKind::Runtime => runtime_body(&mut s, p.runtime)?,
                SectionKind::Chain => s.frames(p.chain)?,
                SectionKind::Threads => threads_body(&mut s, p.omp, p.master_tls, p.workers)?,
                SectionKind::Globals => globals_body(&mut s, p.globals, p.dead, p.devices)?,
                SectionKind::Heap => heap_body(&mut s, p.heap)?,
            }
            let len = s.len;
            let first_unit = units.len();
            let n = (len as usize).div_ceil(wire::CHUNK).max(1) as u64;
            units.extend((0..n).map(|k| (sections.len(), k)));
            sections.push(PlannedSection { kind, at, len, pieces, first_unit });
            at += SECTION_HEADER_LEN as u64 + len;
        }
        Ok(Layout { header: wire::encode_header(p.header), meta, sections, units, len: at + wire::TRAILER_LEN as u64 })
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Number of units (see the type's comment).
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// Hashes unit `i` and writes its bytes to `f` at their offsets;
    /// returns the unit's chunk digest. Any thread may write any unit, in
    /// any order, concurrently with others.
    pub fn write_unit(&self, i: usize, f: &File) -> io::Result<u64> {
        let (si, k) = self.units[i];
        let s = &self.sections[si];
        let start = k * wire::CHUNK as u64;
        let end = (start + wire::CHUNK as u64).min(s.len);
        let base = s.at + SECTION_HEADER_LEN as u64;
        let mut h = Xxh3::new();
        let first = s.pieces.partition_point(|p| p.off + p.len <= start);
        let pieces = s.pieces[first..].iter().take_while(|p| p.off < end);
        let slices = pieces.map(|p| {
            let (a, b) = (start.max(p.off), end.min(p.off + p.len));
            let bytes = match p.src {
                Src::Meta(m) => &self.meta[m + (a - p.off) as usize..m + (b - p.off) as usize],
                Src::Bulk(x) => &x[(a - p.off) as usize..(b - p.off) as usize],
            };
            (a, bytes)
        });
        if s.pieces[first..].iter().take_while(|p| p.off < end).nth(GATHER_OVER).is_none() {
            // few pieces: write each from where it is
            for (a, bytes) in slices {
                h.update(bytes);
                f.write_all_at(bytes, base + a)?;
            }
        } else {
            // many small pieces (a heap of many blocks): one write per unit
            // costs a copy of at most 1 MiB instead of a system call per piece
            GATHER.with(|g| -> io::Result<()> {
                let mut g = g.borrow_mut();
                g.clear();
                for (_, bytes) in slices {
                    g.extend_from_slice(bytes);
                }
                h.update(&g);
                f.write_all_at(&g, base + start)
            })?;
        }
        Ok(h.digest())
    }

    /// Writes the section records, the header and the trailer, given every
    /// unit's digest (indexed like the units). Call after all units.
    pub fn finish(&self, digests: &[u64], f: &File) -> io::Result<()> {
        assert_eq!(digests.len(), self.units.len(), "one digest per unit");
        let mut file_hash = Xxh3::new();
        file_hash.update(&self.header);
        for (si, s) in self.sections.iter().enumerate() {
            let n = self.units[s.first_unit..].iter().take_while(|u| u.0 == si).count();
            let sum = wire::combine(digests[s.first_unit..s.first_unit + n].iter().copied());
            let mut rec = [0u8; SECTION_HEADER_LEN];
            rec[0..4].copy_from_slice(&(s.kind as u32).to_le_bytes());
            rec[4..12].copy_from_slice(&s.len.to_le_bytes());
            rec[12..20].copy_from_slice(&sum.to_le_bytes());
            f.write_all_at(&rec, s.at)?;
            file_hash.update(&rec);
        }
        let mut trailer = [0u8; wire::TRAILER_LEN];
        trailer[..8].copy_from_slice(&file_hash.digest().to_le_bytes());
        trailer[8..].copy_from_slice(&END_MAGIC);
        f.write_all_at(&trailer, self.len - wire::TRAILER_LEN as u64)?;
        f.write_all_at(&self.header, 0)
    }

    /// Writes the whole file with `threads` threads (each claims units in
    /// turn; used by tests and tools; the runtime uses the team's threads).
    pub fn write_with_threads(&self, f: &File, threads: usize) -> io::Result<()> {
        let next = AtomicUsize::new(0);
        let digests: Vec<AtomicU64> = (0..self.units()).map(|_| AtomicU64::new(0)).collect();
        let work = || -> io::Result<()> {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= self.units() {
                    return Ok(());
                }
                digests[i].store(self.write_unit(i, f)?, Ordering::Relaxed);
            }
        };
        std::thread::scope(|sc| {
            let hs: Vec<_> = (1..threads.max(1)).map(|_| sc.spawn(work)).collect();
            let mine = work();
            hs.into_iter().map(|h| h.join().expect("writer thread panicked")).chain([mine]).collect::<io::Result<Vec<()>>>()
        })?;
        let d: Vec<u64> = digests.into_iter().map(|a| a.into_inner()).collect();
        self.finish(&d, f)
    }
}
