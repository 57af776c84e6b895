//! Streaming checkpoint encoder.
//!
//! [`Writer`] writes the header, then each section in file order, then the
//! trailer. Payload bytes go straight from the caller's slices to the output
//! (no copy of program memory is made); each section's length and checksum
//! are computed while streaming and patched into its record afterwards, which
//! is why the output must be seekable.
use std::io::{self, Seek, SeekFrom, Write};

use xxhash_rust::xxh3::Xxh3;

use crate::model::{Checkpoint, Frame, Global, Header, Heap, OmpState, RuntimeState, TlsValue, Worker};
use crate::wire::{self, SectionKind, END_MAGIC, NONE_STR, SECTIONS, SECTION_HEADER_LEN};

/// Streaming encoder; call the section methods in file order
/// (runtime, chain, globals, heap), then [`Writer::finish`].
pub struct Writer<W: Write + Seek> {
    w: W,
    file_hash: Xxh3,
    next_section: usize,
}

/// One open section: payload writes are hashed and counted.
struct Section<'a, W: Write + Seek> {
    w: &'a mut W,
    hash: Xxh3,
    len: u64,
}

impl<W: Write + Seek> Section<'_, W> {
    fn raw(&mut self, b: &[u8]) -> io::Result<()> {
        self.hash.update(b);
        self.len += b.len() as u64;
        self.w.write_all(b)
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
    fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.u64(b.len() as u64)?;
        self.raw(b)
    }
    fn tls(&mut self, v: &[TlsValue<'_>]) -> io::Result<()> {
        self.count(v.len())?;
        for t in v {
            self.u64(t.module_hash)?;
            self.u32(t.index)?;
            self.str(&t.name)?;
            self.bytes(&t.bytes)?;
        }
        Ok(())
    }
    fn frames(&mut self, frames: &[Frame<'_>]) -> io::Result<()> {
        let s = self;
        s.count(frames.len())?;
        for f in frames {
            s.str(&f.function)?;
            s.u64(f.module_hash)?;
            s.u32(f.site)?;
            s.u64(f.frame_addr)?;
            s.count(f.slots.len())?;
            for v in &f.slots {
                s.u32(v.index)?;
                s.str(&v.name)?;
                s.opt_str(v.loc.as_deref())?;
                s.bytes(&v.bytes)?;
            }
            s.count(f.stack_objects.len())?;
            for o in &f.stack_objects {
                s.u32(o.index)?;
                s.str(&o.name)?;
                s.opt_str(o.loc.as_deref())?;
                s.u64(o.addr)?;
                s.bytes(&o.bytes)?;
            }
        }
        Ok(())
    }
    fn count(&mut self, n: usize) -> io::Result<()> {
        let n = u32::try_from(n)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "too many records"))?;
        self.u32(n)
    }
}

impl<W: Write + Seek> Writer<W> {
    /// Writes the header.
    pub fn new(mut w: W, header: &Header) -> io::Result<Self> {
        let h = wire::encode_header(header);
        w.write_all(&h)?;
        let mut file_hash = Xxh3::new();
        file_hash.update(&h);
        Ok(Writer { w, file_hash, next_section: 0 })
    }

    fn section(
        &mut self,
        kind: SectionKind,
        body: impl FnOnce(&mut Section<'_, W>) -> io::Result<()>,
    ) -> io::Result<()> {
        assert_eq!(SECTIONS.get(self.next_section), Some(&kind), "sections out of order");
        self.next_section += 1;
        let start = self.w.stream_position()?;
        self.w.write_all(&[0u8; SECTION_HEADER_LEN])?;
        let mut s = Section { w: &mut self.w, hash: Xxh3::new(), len: 0 };
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
        self.section(SectionKind::Runtime, |s| {
            s.u64(r.candidates)?;
            s.u64(r.checkpoints)?;
            s.i64(r.stdout_offset)?;
            s.i64(r.stderr_offset)
        })
    }

    /// The label stack, outermost frame first.
    pub fn chain(&mut self, frames: &[Frame<'_>]) -> io::Result<()> {
        self.section(SectionKind::Chain, |s| s.frames(frames))
    }

    /// The OpenMP state: ICVs, the master's thread-local values, the workers.
    pub fn threads(&mut self, omp: &OmpState, master_tls: &[TlsValue<'_>], workers: &[Worker<'_>]) -> io::Result<()> {
        self.section(SectionKind::Threads, |s| {
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
            }
            Ok(())
        })
    }

    pub fn globals(&mut self, globals: &[Global<'_>]) -> io::Result<()> {
        self.section(SectionKind::Globals, |s| {
            s.count(globals.len())?;
            for g in globals {
                s.u64(g.module_hash)?;
                s.u32(g.index)?;
                s.str(&g.name)?;
                s.opt_str(g.loc.as_deref())?;
                s.u64(g.addr)?;
                s.bytes(&g.bytes)?;
            }
            Ok(())
        })
    }

    /// The heap. A block's saved bytes must be exactly `size` long.
    pub fn heap(&mut self, heap: &Heap<'_>) -> io::Result<()> {
        self.section(SectionKind::Heap, |s| {
            s.bytes(&heap.meta)?;
            s.u64(heap.blocks.len() as u64)?;
            for b in &heap.blocks {
                s.u64(b.addr)?;
                s.u64(b.size)?;
                match &b.bytes {
                    Some(bytes) => {
                        if bytes.len() as u64 != b.size {
                            return Err(io::Error::new(
                                io::ErrorKind::InvalidInput,
                                "heap block bytes differ from its size",
                            ));
                        }
                        s.u8(1)?;
                        s.raw(bytes)?;
                    }
                    None => s.u8(0)?,
                }
            }
            Ok(())
        })
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
        wr.globals(&c.globals)?;
        wr.heap(&c.heap)?;
        wr.finish()
    }
}
