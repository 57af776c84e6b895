//! Reads the memory regions out of a dao checkpoint file of format version 1
//! (the layout of runtime/format/src/wire.rs at the time the NPB series in
//! docs/results.md was taken). Deliberately independent of the dao-format
//! crate, whose format moves on (version 2 adds OpenMP thread state): the
//! benchmark only needs the saved bytes and their addresses.
//!
//! Keys: globals, stack objects and heap blocks by address; SSA slots (no
//! address of their own) by `1 << 63 | frame_addr << 16 | index`; the heap
//! metadata by `u64::MAX`.
use dao_store::Region;

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap())
}

struct P<'a> {
    b: &'a [u8],
    pos: usize,
}
impl<'a> P<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let s = self.b.get(self.pos..self.pos + n).ok_or("record runs past the end")?;
        self.pos += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32_at(self.take(4)?, 0))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64_at(self.take(8)?, 0))
    }
    fn str(&mut self) -> Result<(), String> {
        let n = self.u32()?;
        if n != u32::MAX {
            self.take(n as usize)?;
        }
        Ok(())
    }
    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.u64()? as usize;
        self.take(n)
    }
}

/// The regions of a version-1 checkpoint, borrowing `b`.
pub fn regions(b: &[u8]) -> Result<Vec<Region<'_>>, String> {
    if b.len() < 80 || &b[..8] != b"DAOCKPT\0" || u32_at(b, 8) != 1 {
        return Err("not a dao checkpoint of format version 1".into());
    }
    let mut pos = 80;
    let mut sections = Vec::new();
    for _ in 0..4 {
        let len = u64_at(b, pos + 4) as usize;
        sections.push(b.get(pos + 20..pos + 20 + len).ok_or("truncated")?);
        pos += 20 + len;
    }
    let mut out = Vec::new();
    let mut p = P { b: sections[1], pos: 0 };
    for _ in 0..p.u32()? {
        p.str()?;
        p.u64()?;
        p.u32()?;
        let frame = p.u64()?;
        for _ in 0..p.u32()? {
            let index = p.u32()?;
            p.str()?;
            p.str()?;
            let bytes = p.bytes()?;
            out.push(Region { addr: 1 << 63 | frame << 16 | index as u64, bytes });
        }
        for _ in 0..p.u32()? {
            p.u32()?;
            p.str()?;
            p.str()?;
            let addr = p.u64()?;
            out.push(Region { addr, bytes: p.bytes()? });
        }
    }
    let mut p = P { b: sections[2], pos: 0 };
    for _ in 0..p.u32()? {
        p.u64()?;
        p.u32()?;
        p.str()?;
        p.str()?;
        let addr = p.u64()?;
        out.push(Region { addr, bytes: p.bytes()? });
    }
    let mut p = P { b: sections[3], pos: 0 };
    out.push(Region { addr: u64::MAX, bytes: p.bytes()? });
    for _ in 0..p.u64()? {
        let addr = p.u64()?;
        let size = p.u64()? as usize;
        if p.take(1)?[0] == 1 {
            out.push(Region { addr, bytes: p.take(size)? });
        }
    }
    Ok(out)
}
