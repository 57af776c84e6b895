//! Validating checkpoint decoder.
//!
//! [`decode`] checks, in this order: magic, version, header checksum, each
//! section record (kind, length within the file, payload checksum), the
//! trailer (end magic, file checksum), and only then parses the payloads.
//! Any single changed or missing byte is therefore reported as an error and
//! never yields a checkpoint. Decoded byte fields borrow from the input.
//!
//! A skeleton (flag [`FLAG_SKELETON`], written by the storage engine's
//! runtime path) holds references instead of byte payloads: [`decode`]
//! refuses it, [`decode_skeleton`] resolves every reference through the
//! caller's lookup (the regions restored from the store).
use std::borrow::Cow;
use std::path::Path;

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::FormatError;
use crate::model::*;
use crate::wire::*;

const MEM: &str = "<memory>";

fn corrupt(section: &'static str, what: impl Into<String>) -> FormatError {
    FormatError::Corrupt { file: MEM.into(), section, what: what.into() }
}

fn truncated(expected: usize, got: usize) -> FormatError {
    FormatError::Truncated { file: MEM.into(), expected: expected as u64, got: got as u64 }
}

/// Validates magic, version and header checksum; returns the header.
pub fn read_header(b: &[u8]) -> Result<Header, FormatError> {
    if b.len() < MAGIC.len() {
        return Err(if b == &MAGIC[..b.len()] {
            truncated(HEADER_LEN, b.len())
        } else {
            FormatError::NotACheckpoint { file: MEM.into() }
        });
    }
    if b[..8] != MAGIC {
        return Err(FormatError::NotACheckpoint { file: MEM.into() });
    }
    if b.len() < HEADER_LEN {
        return Err(truncated(HEADER_LEN, b.len()));
    }
    let hash_ok = xxh3_64(&b[..HEADER_HASHED_LEN]) == le_u64(b, HEADER_HASHED_LEN);
    let version = le_u32(b, 8);
    if !(OLDEST_READ_VERSION..=FORMAT_VERSION).contains(&version) && hash_ok {
        return Err(FormatError::UnsupportedVersion {
            file: MEM.into(),
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if !hash_ok {
        return Err(corrupt("header", "checksum"));
    }
    Ok(Header {
        flags: le_u32(b, 12),
        binary_hash: le_u64(b, 16),
        binary_size: le_u64(b, 24),
        image_base: le_u64(b, 32),
        run_id: le_u64(b, 40),
        seq: le_u64(b, 48),
        threads: le_u32(b, 56),
        pid: le_u32(b, 60),
        timestamp: le_u64(b, 64),
    })
}

/// A section's checksum; payloads of 8 chunks and more are verified by
/// several threads (restart time is dominated by this on large heaps).
fn checksum(payload: &[u8]) -> u64 {
    if payload.len() >= 8 * CHUNK {
        let t = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        payload_checksum_par(payload, t)
    } else {
        payload_checksum(payload)
    }
}

/// Validates the whole buffer and returns the section payloads in file order.
fn split(b: &[u8]) -> Result<(Header, [&[u8]; 5]), FormatError> {
    let header = read_header(b)?;
    let mut file_hash = Xxh3::new();
    file_hash.update(&b[..HEADER_LEN]);
    let mut pos = HEADER_LEN;
    let mut payloads: [&[u8]; 5] = [&[]; 5];
    for (i, kind) in SECTIONS.iter().enumerate() {
        let rec_end = pos + SECTION_HEADER_LEN;
        if b.len() < rec_end {
            return Err(truncated(rec_end + TRAILER_LEN, b.len()));
        }
        if le_u32(b, pos) != *kind as u32 {
            return Err(corrupt(kind.name(), "kind field"));
        }
        let len = le_u64(b, pos + 4);
        let end = (rec_end as u64).checked_add(len).filter(|&e| e <= usize::MAX as u64 - 64);
        let end = end.ok_or_else(|| corrupt(kind.name(), "length field"))? as usize;
        if b.len() < end + TRAILER_LEN {
            return Err(truncated(end + TRAILER_LEN, b.len()));
        }
        let payload = &b[rec_end..end];
        if checksum(payload) != le_u64(b, pos + 12) {
            return Err(corrupt(kind.name(), "checksum"));
        }
        file_hash.update(&b[pos..rec_end]);
        payloads[i] = payload;
        pos = end;
    }
    if b.len() != pos + TRAILER_LEN {
        return Err(corrupt("trailer", format!("{} unexpected bytes before the end", b.len() - pos - TRAILER_LEN)));
    }
    if b[pos + 8..pos + 16] != END_MAGIC {
        return Err(corrupt("trailer", "end magic"));
    }
    if le_u64(b, pos) != file_hash.digest() {
        return Err(corrupt("trailer", "file checksum"));
    }
    Ok((header, payloads))
}

/// Decodes and fully validates a checkpoint held in memory.
pub fn decode(b: &[u8]) -> Result<Checkpoint<'_>, FormatError> {
    decode_with(b, None)
}

/// Looks up the bytes of a skeleton reference: `(key, length)` to a slice of
/// exactly `length` bytes, or None when the store has no such region.
pub type Fill<'f, 'a> = &'f mut dyn FnMut(u64, u64) -> Option<&'a [u8]>;

/// Decodes and validates a skeleton, taking every byte payload from `fill`
/// (the payloads then borrow from what `fill` returns). A payload `fill`
/// cannot provide is a `Corrupt` error naming the section and the key.
/// A complete checkpoint is decoded as by [`decode`] (`fill` unused).
pub fn decode_skeleton<'a>(b: &'a [u8], fill: Fill<'_, 'a>) -> Result<Checkpoint<'a>, FormatError> {
    decode_with(b, Some(fill))
}

fn decode_with<'a>(b: &'a [u8], mut fill: Option<Fill<'_, 'a>>) -> Result<Checkpoint<'a>, FormatError> {
    let (header, [rt, chain, threads, globals, heap]) = split(b)?;
    let skeleton = header.flags & FLAG_SKELETON != 0;
    if skeleton && fill.is_none() {
        return Err(FormatError::Skeleton { file: MEM.into() });
    }
    if !skeleton {
        fill = None;
    }
    let mut p = Parser { b: rt, pos: 0, section: "RUNTIME", fill: None };
    let runtime = RuntimeState {
        candidates: p.u64()?,
        checkpoints: p.u64()?,
        stdout_offset: p.i64()?,
        stderr_offset: p.i64()?,
    };
    p.end()?;

    let mut p = Parser { b: chain, pos: 0, section: "CHAIN", fill: fill.take() };
    let frames = p.frames()?;
    p.end()?;
    fill = p.fill.take();

    let mut p = Parser { b: threads, pos: 0, section: "THREADS", fill: fill.take() };
    let omp = OmpState {
        team_size: p.u32()?,
        nthreads: p.u32()?,
        dynamic: p.u32()?,
        max_active_levels: p.u32()?,
        sched_kind: p.u32()?,
        sched_chunk: p.u32()? as i32,
        singles_won: p.u64()?,
        master_singles: p.u64()?,
    };
    let master_tls = p.tls()?;
    let n = p.u32()?;
    let mut workers = Vec::new();
    for _ in 0..n {
        let thread = p.u32()?;
        let state = p.u32()?;
        let singles = p.u64()?;
        if !(WORKER_AT_CANDIDATE..=WORKER_IDLE).contains(&state) {
            return Err(corrupt("THREADS", "malformed worker state"));
        }
        let chain = p.frames()?;
        let tls = p.tls()?;
        let tp = p.tp()?;
        workers.push(Worker { thread, state, singles, chain, tls, tp });
    }
    p.end()?;
    fill = p.fill.take();

    let mut p = Parser { b: globals, pos: 0, section: "GLOBALS", fill: fill.take() };
    let n = p.u32()?;
    let mut gs: Vec<Global> = Vec::new();
    let continued = le_u32(b, 8) >= 8;
    for _ in 0..n {
        let module_hash = p.u64()?;
        if continued && module_hash == CONTINUED {
            // another range of the global of the record before (format 8)
            let Some(prev) = gs.last() else {
                return Err(corrupt("GLOBALS", "a continued global record with no record before it"));
            };
            let (module_hash, index, name, loc) = (prev.module_hash, prev.index, prev.name.clone(), prev.loc.clone());
            gs.push(Global { module_hash, index, name, loc, addr: p.u64()?, bytes: p.bytes()?, why: None });
            continue;
        }
        gs.push(Global {
            module_hash,
            index: p.u32()?,
            name: p.str()?,
            loc: p.opt_str()?,
            addr: p.u64()?,
            bytes: p.bytes()?,
            why: None,
        });
    }
    // format 5: the defined globals not saved whole (none in format 4)
    let mut dead = Vec::new();
    if le_u32(b, 8) >= 5 {
        let n = p.u32()?;
        for _ in 0..n {
            let d = DeadGlobal { module_hash: p.u64()?, index: p.u32()?, name: p.str()?, size: p.u64()?, saved: p.u64()?, why: p.opt_str()? };
            if d.saved >= d.size {
                return Err(corrupt("GLOBALS", "a dead global saved whole"));
            }
            dead.push(d);
        }
    }
    // format 6: why the big globals are saved (none before)
    if le_u32(b, 8) >= 6 {
        let n = p.u32()?;
        for _ in 0..n {
            let k = p.u32()? as usize;
            let w = p.str()?;
            let Some(g) = gs.get_mut(k) else {
                return Err(corrupt("GLOBALS", "a reason for a global record that does not exist"));
            };
            g.why = Some(w);
        }
        // a global saved as several ranges has its reason on its first
        // record only (written so since 2026-11-28: SP's `/fields/` is
        // 10,369 ranges): the others share it
        let mut first: std::collections::HashMap<(u64, u32), Cow<'_, str>> = std::collections::HashMap::new();
        for g in gs.iter_mut() {
            match &g.why {
                Some(w) => {
                    first.entry((g.module_hash, g.index)).or_insert_with(|| w.clone());
                }
                None => g.why = first.get(&(g.module_hash, g.index)).cloned(),
            }
        }
    }
    // format 7: the mapped ranges of offload devices (none before)
    let mut devices = Vec::new();
    if le_u32(b, 8) >= 7 {
        let n = p.u32()?;
        for _ in 0..n {
            let device = p.u32()? as i32;
            let (addr, size, map_type, dyn_refs, hold_refs) = (p.u64()?, p.u64()?, p.u64()?, p.u64()?, p.u64()?);
            let name = p.opt_str()?;
            let flag = p.u8()?;
            let from_host = flag == 2 && le_u32(b, 8) >= 10;
            let bytes = match flag {
                0 => None,
                2 if from_host => None,
                1 => {
                    let b = p.bytes()?;
                    if b.len() as u64 != size {
                        return Err(corrupt("GLOBALS", "a device region's bytes differ from its size"));
                    }
                    Some(b)
                }
                _ => return Err(corrupt("GLOBALS", "malformed saved flag of a device region")),
            };
            devices.push(DeviceRegion { device, addr, size, map_type, dyn_refs, hold_refs, name, bytes, from_host });
        }
    }
    p.end()?;
    fill = p.fill.take();

    let mut p = Parser { b: heap, pos: 0, section: "HEAP", fill: fill.take() };
    let meta = p.bytes()?;
    let n = p.u64()?;
    let mut blocks = Vec::new();
    for _ in 0..n {
        let addr = p.u64()?;
        let size = p.u64()?;
        let bytes = match p.u8()? {
            0 => None,
            1 if p.fill.is_some() => {
                let key = p.u64()?;
                Some(p.resolve(key, size)?)
            }
            1 => Some(Cow::Borrowed(p.take(size)?)),
            _ => return Err(corrupt("HEAP", "malformed saved flag")),
        };
        blocks.push(HeapBlock { addr, size, bytes });
    }
    // format 9: the heap objects (none before)
    let mut objects = Vec::new();
    if le_u32(b, 8) >= 9 {
        let n = p.u32()?;
        for _ in 0..n {
            let (module_hash, index, name, loc, addr, size) = (p.u64()?, p.u32()?, p.str()?, p.opt_str()?, p.u64()?, p.u64()?);
            let saved = match p.u8()? {
                0 => false,
                1 => true,
                _ => return Err(corrupt("HEAP", "malformed saved flag of a heap object")),
            };
            objects.push(HeapObject { module_hash, index, name, loc, addr, size, saved, why: p.opt_str()? });
        }
    }
    p.end()?;

    Ok(Checkpoint { header, runtime, chain: frames, omp, master_tls, workers, globals: gs, dead, heap: Heap { meta, blocks, objects }, devices })
}

/// Reads and fully validates a checkpoint file.
pub fn read_file(path: &Path) -> Result<Checkpoint<'static>, FormatError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| FormatError::Io { file: name.clone(), source })?;
    decode(&bytes).map(Checkpoint::into_owned).map_err(|e| e.with_file(&name))
}

/// Cursor over one section's payload (with a skeleton's lookup).
struct Parser<'a, 'f> {
    b: &'a [u8],
    pos: usize,
    section: &'static str,
    fill: Option<&'f mut dyn FnMut(u64, u64) -> Option<&'a [u8]>>,
}

impl<'a> Parser<'a, '_> {
    /// A skeleton reference: the bytes of region `key`, `len` long.
    fn resolve(&mut self, key: u64, len: u64) -> Result<Cow<'a, [u8]>, FormatError> {
        let f = self.fill.as_mut().expect("resolve is called for skeletons only");
        match f(key, len) {
            Some(b) if b.len() as u64 == len => Ok(Cow::Borrowed(b)),
            _ => Err(corrupt(self.section, format!("skeleton reference to region {key:#x} ({len} bytes), which the store does not hold"))),
        }
    }
    fn take(&mut self, n: u64) -> Result<&'a [u8], FormatError> {
        let rest = (self.b.len() - self.pos) as u64;
        if n > rest {
            return Err(corrupt(self.section, "malformed payload (record runs past the end)"));
        }
        let s = &self.b[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, FormatError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(le_u32(self.take(4)?, 0))
    }
    fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(le_u64(self.take(8)?, 0))
    }
    fn i64(&mut self) -> Result<i64, FormatError> {
        Ok(self.u64()? as i64)
    }
    fn frames(&mut self) -> Result<Vec<Frame<'a>>, FormatError> {
        let n = self.u32()?;
        let mut frames = Vec::new();
        for _ in 0..n {
            let function = self.str()?;
            let module_hash = self.u64()?;
            let site = self.u32()?;
            let frame_addr = self.u64()?;
            let ns = self.u32()?;
            let mut slots = Vec::new();
            for _ in 0..ns {
                slots.push(Slot { index: self.u32()?, name: self.str()?, loc: self.opt_str()?, bytes: self.bytes()? });
            }
            let no = self.u32()?;
            let mut stack_objects = Vec::new();
            for _ in 0..no {
                stack_objects.push(StackObject {
                    index: self.u32()?,
                    name: self.str()?,
                    loc: self.opt_str()?,
                    addr: self.u64()?,
                    bytes: self.bytes()?,
                });
            }
            frames.push(Frame { function, module_hash, site, frame_addr, slots, stack_objects });
        }
        Ok(frames)
    }
    fn tls(&mut self) -> Result<Vec<TlsValue<'a>>, FormatError> {
        let n = self.u32()?;
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(TlsValue { module_hash: self.u64()?, index: self.u32()?, name: self.str()?, bytes: self.bytes()? });
        }
        Ok(v)
    }
    fn tp(&mut self) -> Result<Vec<TpCopy<'a>>, FormatError> {
        let n = self.u32()?;
        let mut v = Vec::new();
        for _ in 0..n {
            let name = self.str()?;
            let var = self.u64()?;
            let addr = self.u64()?;
            let size = self.u64()?;
            let bytes = match self.u8()? {
                0 => None,
                1 => {
                    let b = self.bytes()?;
                    if b.len() as u64 != size {
                        return Err(corrupt(self.section, "threadprivate copy bytes differ from its size"));
                    }
                    Some(b)
                }
                _ => return Err(corrupt(self.section, "malformed saved flag")),
            };
            v.push(TpCopy { name, var, addr, size, bytes });
        }
        Ok(v)
    }
    fn str_of_len(&mut self, n: u32) -> Result<Cow<'a, str>, FormatError> {
        let s = self.take(n as u64)?;
        std::str::from_utf8(s)
            .map(Cow::Borrowed)
            .map_err(|_| corrupt(self.section, "malformed payload (name is not UTF-8)"))
    }
    fn str(&mut self) -> Result<Cow<'a, str>, FormatError> {
        let n = self.u32()?;
        if n == NONE_STR {
            return Err(corrupt(self.section, "malformed payload (missing name)"));
        }
        self.str_of_len(n)
    }
    fn opt_str(&mut self) -> Result<Option<Cow<'a, str>>, FormatError> {
        match self.u32()? {
            NONE_STR => Ok(None),
            n => self.str_of_len(n).map(Some),
        }
    }
    fn bytes(&mut self) -> Result<Cow<'a, [u8]>, FormatError> {
        let n = self.u64()?;
        if self.fill.is_some() {
            let key = self.u64()?;
            return self.resolve(key, n);
        }
        self.take(n).map(Cow::Borrowed)
    }
    fn end(&self) -> Result<(), FormatError> {
        if self.pos != self.b.len() {
            return Err(corrupt(self.section, "malformed payload (unexpected bytes at the end)"));
        }
        Ok(())
    }
}
