//! Chunk encoding: filter, codec, adaptive skip, framing and checksums.
//!
//! A chunk on disk is a 32-byte header followed by its stored bytes:
//!
//! ```text
//!  0 index      u32   position in the stream (0, 1, ...)
//!  4 flags      u8    bits 0-1 codec (0 none, 1 lz4, 2 zstd); bit 2 HEADER_HASH
//!                     (format 2, codec none only); bits 4-5 filter
//!                     (0 none, 1 shuffle8, 2 xor8); other bits zero
//!  5 reserved   [u8;3] zero
//!  8 raw_len    u32   bytes after decoding
//! 12 stored_len u32   bytes that follow the header
//! 16 raw_hash   u64   xxh3-64 of the decoded bytes
//! 24 chunk_hash u64   xxh3-64 of header bytes 0..24 followed by the stored bytes;
//!                     with HEADER_HASH, xxh3-64 of header bytes 0..24 only
//! ```
//!
//! HEADER_HASH (store format 2) is how a raw chunk is framed without a
//! codec: its stored bytes are its raw bytes, so `raw_hash` already covers
//! them and hashing them a second time for `chunk_hash` bought nothing
//! (about 20 ms of every full MG.A checkpoint, 459 MB). `chunk_hash` then
//! covers the header, `raw_hash` included, and a reader checks `raw_hash`
//! against the stored bytes before it trusts the chunk: the same bytes are
//! protected, each hashed once.
//!
//! `chunk_hash` is checked before anything is decompressed, so a flipped
//! byte anywhere in a chunk is caught without trusting the codec with
//! damaged input; `raw_hash` then checks the decoder's output. The stream's
//! commit record (see `file.rs`) covers the sequence of chunk hashes, which
//! catches a flipped `chunk_hash` field, a missing, repeated or reordered
//! chunk, and truncation.
//!
//! A chunk whose compressed size exceeds `skip_ratio` times its raw size is
//! stored raw (flags 0): incompressible data costs one failed compression
//! attempt and no decompression.
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::config::{Codec, Filter, PipelineConfig};

pub const CHUNK_HEADER_LEN: usize = 32;

const CODEC_NONE: u8 = 0;
const CODEC_LZ4: u8 = 1;
const CODEC_ZSTD: u8 = 2;
const FILTER_SHIFT: u8 = 4;
/// Flag bit: `chunk_hash` covers the header only (a raw chunk, format 2).
pub const HEADER_HASH: u8 = 0b100;

/// Per-worker encoder state (a reusable zstd context and scratch buffer).
pub struct Encoder {
    codec: Codec,
    filter: Filter,
    skip_ratio: f64,
    zstd: Option<zstd::bulk::Compressor<'static>>,
    scratch: Vec<u8>,
}

/// Result of encoding one chunk.
#[derive(Clone, Copy, Debug, Default)]
pub struct Encoded {
    pub raw_len: usize,
    pub stored_len: usize,
    /// False when the chunk was stored raw (codec none, or it did not pay).
    pub compressed: bool,
    pub chunk_hash: u64,
}

/// The header of chunk `index` stored raw (codec none): a HEADER_HASH
/// chunk whose stored bytes are `raw`, and the chunk's hash; the caller
/// writes the header and then `raw` itself (no copy of the bytes, each byte
/// hashed once).
pub fn raw_chunk_header(index: u32, raw: &[u8]) -> std::io::Result<([u8; CHUNK_HEADER_LEN], Encoded)> {
    let raw_len = u32::try_from(raw.len()).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "chunk over 4 GiB"))?;
    let mut h = [0u8; CHUNK_HEADER_LEN];
    h[0..4].copy_from_slice(&index.to_le_bytes());
    h[4] = CODEC_NONE | HEADER_HASH;
    h[8..12].copy_from_slice(&raw_len.to_le_bytes());
    h[12..16].copy_from_slice(&raw_len.to_le_bytes());
    h[16..24].copy_from_slice(&xxh3_64(raw).to_le_bytes());
    let chunk_hash = xxh3_64(&h[0..24]);
    h[24..32].copy_from_slice(&chunk_hash.to_le_bytes());
    Ok((h, Encoded { raw_len: raw.len(), stored_len: raw.len(), compressed: false, chunk_hash }))
}

impl Encoder {
    pub fn new(cfg: &PipelineConfig) -> std::io::Result<Encoder> {
        let zstd = match cfg.codec {
            Codec::Zstd(level) => Some(zstd::bulk::Compressor::new(level)?),
            _ => None,
        };
        Ok(Encoder { codec: cfg.codec, filter: cfg.filter, skip_ratio: cfg.skip_ratio, zstd, scratch: Vec::new() })
    }

    /// Appends the framed chunk (header + stored bytes) of `raw` to `out`.
    pub fn encode(&mut self, index: u32, raw: &[u8], out: &mut Vec<u8>) -> std::io::Result<Encoded> {
        let raw_len = u32::try_from(raw.len())
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "chunk over 4 GiB"))?;
        let start = out.len();
        out.resize(start + CHUNK_HEADER_LEN, 0);
        let mut flags = CODEC_NONE;
        if self.codec != Codec::None && !raw.is_empty() {
            let input: &[u8] = match self.filter {
                Filter::None => raw,
                f => {
                    self.scratch.resize(raw.len(), 0);
                    apply_filter(f, raw, &mut self.scratch);
                    &self.scratch
                }
            };
            let body = start + CHUNK_HEADER_LEN;
            let n = match self.codec {
                Codec::Lz4 => {
                    out.resize(body + lz4_flex::block::get_maximum_output_size(input.len()), 0);
                    lz4_flex::block::compress_into(input, &mut out[body..])
                        .map_err(|e| std::io::Error::other(format!("lz4: {e}")))?
                }
                Codec::Zstd(_) => {
                    out.reserve(zstd::zstd_safe::compress_bound(input.len()));
                    let mut cur = std::io::Cursor::new(std::mem::take(out));
                    cur.set_position(body as u64);
                    let z = self.zstd.as_mut().expect("zstd context");
                    let r = z.compress_to_buffer(input, &mut cur);
                    *out = cur.into_inner();
                    r?
                }
                Codec::None => unreachable!(),
            };
            if (n as f64) <= self.skip_ratio * raw.len() as f64 {
                out.truncate(body + n);
                flags = match self.codec {
                    Codec::Lz4 => CODEC_LZ4,
                    _ => CODEC_ZSTD,
                } | (filter_id(self.filter) << FILTER_SHIFT);
            } else {
                out.truncate(body);
            }
        }
        if flags == CODEC_NONE {
            out.extend_from_slice(raw);
        }
        let stored_len = out.len() - start - CHUNK_HEADER_LEN;
        let h = &mut out[start..start + CHUNK_HEADER_LEN];
        h[0..4].copy_from_slice(&index.to_le_bytes());
        h[4] = flags;
        h[8..12].copy_from_slice(&raw_len.to_le_bytes());
        h[12..16].copy_from_slice(&(stored_len as u32).to_le_bytes());
        h[16..24].copy_from_slice(&xxh3_64(raw).to_le_bytes());
        let mut ch = Xxh3::new();
        ch.update(&out[start..start + 24]);
        ch.update(&out[start + CHUNK_HEADER_LEN..]);
        let chunk_hash = ch.digest();
        out[start + 24..start + 32].copy_from_slice(&chunk_hash.to_le_bytes());
        Ok(Encoded { raw_len: raw.len(), stored_len, compressed: flags != CODEC_NONE, chunk_hash })
    }
}

fn filter_id(f: Filter) -> u8 {
    match f {
        Filter::None => 0,
        Filter::Shuffle8 => 1,
        Filter::XorPrev8 => 2,
    }
}

/// A chunk header, parsed and checked against its stored bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    pub index: u32,
    pub flags: u8,
    pub raw_len: u32,
    pub stored_len: u32,
    pub raw_hash: u64,
    pub chunk_hash: u64,
}

/// Parses the header at the start of `b` (at least CHUNK_HEADER_LEN bytes).
pub fn parse_header(b: &[u8]) -> Result<ChunkHeader, String> {
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let flags = b[4];
    let (codec, filter) = (flags & 0x3, flags >> FILTER_SHIFT);
    let header_hash_ok = flags & HEADER_HASH == 0 || flags == CODEC_NONE | HEADER_HASH;
    if flags & 0b1100_1000 != 0 || !header_hash_ok || codec > CODEC_ZSTD || filter > 2 || b[5..8] != [0, 0, 0] {
        return Err(format!("chunk flags {flags:#04x}"));
    }
    Ok(ChunkHeader {
        index: u32_at(0),
        flags,
        raw_len: u32_at(8),
        stored_len: u32_at(12),
        raw_hash: u64_at(16),
        chunk_hash: u64_at(24),
    })
}

/// Checks `chunk_hash` over header and stored bytes (HEADER_HASH: over the
/// header, and `raw_hash` over the stored bytes).
pub fn verify(header_bytes: &[u8], stored: &[u8], h: &ChunkHeader) -> bool {
    if h.flags & HEADER_HASH != 0 {
        return xxh3_64(&header_bytes[..24]) == h.chunk_hash && stored.len() == h.raw_len as usize && xxh3_64(stored) == h.raw_hash;
    }
    let mut x = Xxh3::new();
    x.update(&header_bytes[..24]);
    x.update(stored);
    x.digest() == h.chunk_hash
}

/// Per-thread decoder state: scratch space and a reusable zstd context.
#[derive(Default)]
pub struct Decoder {
    scratch: Vec<u8>,
    zstd: Option<zstd::bulk::Decompressor<'static>>,
}

/// Decodes a verified chunk into `out` (exactly `raw_len` bytes) and checks
/// `raw_hash` (a HEADER_HASH chunk's was checked by [`verify`]).
pub fn decode(h: &ChunkHeader, stored: &[u8], out: &mut [u8], d: &mut Decoder) -> Result<(), String> {
    let Decoder { scratch, zstd: zctx } = d;
    assert_eq!(out.len(), h.raw_len as usize);
    let filter = match h.flags >> FILTER_SHIFT {
        0 => Filter::None,
        1 => Filter::Shuffle8,
        _ => Filter::XorPrev8,
    };
    let codec = h.flags & 0x3;
    if codec == CODEC_NONE {
        if stored.len() != out.len() {
            return Err("raw chunk length differs from its header".into());
        }
        out.copy_from_slice(stored);
        if h.flags & HEADER_HASH != 0 {
            return Ok(());
        }
    } else {
        let target: &mut [u8] = if filter == Filter::None {
            &mut *out
        } else {
            scratch.resize(out.len(), 0);
            &mut scratch[..]
        };
        let n = if codec == CODEC_LZ4 {
            lz4_flex::block::decompress_into(stored, target).map_err(|e| format!("lz4: {e}"))?
        } else {
            if zctx.is_none() {
                *zctx = Some(zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?);
            }
            let z = zctx.as_mut().expect("zstd context");
            z.decompress_to_buffer(stored, target).map_err(|e| format!("zstd: {e}"))?
        };
        if n != out.len() {
            return Err(format!("decoded {n} bytes, header says {}", out.len()));
        }
        if filter != Filter::None {
            undo_filter(filter, scratch, out);
        }
    }
    if xxh3_64(out) != h.raw_hash {
        return Err("decoded bytes do not match their checksum".into());
    }
    Ok(())
}

/// `dst = filter(src)`; same length.
pub fn apply_filter(f: Filter, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / 8;
    let tail = n * 8;
    match f {
        Filter::None => dst.copy_from_slice(src),
        Filter::Shuffle8 => {
            for (i, w) in src[..tail].chunks_exact(8).enumerate() {
                for (b, &byte) in w.iter().enumerate() {
                    dst[b * n + i] = byte;
                }
            }
        }
        Filter::XorPrev8 => {
            let mut prev = 0u64;
            for (s, d) in src[..tail].chunks_exact(8).zip(dst[..tail].chunks_exact_mut(8)) {
                let w = u64::from_le_bytes(s.try_into().unwrap());
                d.copy_from_slice(&(w ^ prev).to_le_bytes());
                prev = w;
            }
        }
    }
    dst[tail..].copy_from_slice(&src[tail..]);
}

/// Inverse of [`apply_filter`].
pub fn undo_filter(f: Filter, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / 8;
    let tail = n * 8;
    match f {
        Filter::None => dst.copy_from_slice(src),
        Filter::Shuffle8 => {
            for (i, w) in dst[..tail].chunks_exact_mut(8).enumerate() {
                for (b, byte) in w.iter_mut().enumerate() {
                    *byte = src[b * n + i];
                }
            }
        }
        Filter::XorPrev8 => {
            let mut prev = 0u64;
            for (s, d) in src[..tail].chunks_exact(8).zip(dst[..tail].chunks_exact_mut(8)) {
                let w = u64::from_le_bytes(s.try_into().unwrap()) ^ prev;
                d.copy_from_slice(&w.to_le_bytes());
                prev = w;
            }
        }
    }
    dst[tail..].copy_from_slice(&src[tail..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Format 2's raw chunk (HEADER_HASH) and format 1's (flags 0, the
    /// stored bytes in `chunk_hash`) both verify and decode; a flipped data
    /// byte or hash field is caught in either; HEADER_HASH is refused with
    /// a codec.
    #[test]
    fn raw_chunks_of_both_formats_verify() {
        let raw: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 253) as u8).collect();
        let (h2, e) = raw_chunk_header(3, &raw).unwrap();
        assert_eq!(h2[4], HEADER_HASH);
        let mut h1 = h2;
        h1[4] = 0;
        let mut x = Xxh3::new();
        x.update(&h1[..24]);
        x.update(&raw);
        h1[24..32].copy_from_slice(&x.digest().to_le_bytes());
        let mut enc = Encoder::new(&PipelineConfig { codec: Codec::None, ..PipelineConfig::default() }).unwrap();
        let mut framed = Vec::new();
        enc.encode(3, &raw, &mut framed).unwrap();
        assert_eq!(framed[..32], h1, "format 1's raw chunk is what the encoder writes");
        for (h, name) in [(h2, "format 2"), (h1, "format 1")] {
            let ph = parse_header(&h).unwrap();
            assert!(verify(&h, &raw, &ph), "{name}");
            let mut out = vec![0; raw.len()];
            decode(&ph, &raw, &mut out, &mut Decoder::default()).unwrap();
            assert_eq!(out, raw, "{name}");
            let mut bad = raw.clone();
            bad[4321] ^= 1;
            assert!(!verify(&h, &bad, &ph), "{name}: flipped data byte");
            for field in [16, 24] {
                let mut hb = h;
                hb[field] ^= 1;
                let pb = parse_header(&hb).unwrap();
                assert!(!verify(&hb, &raw, &pb), "{name}: flipped byte {field} of the header");
            }
        }
        if e.chunk_hash != xxh3_64(&h2[..24]) {
            panic!("chunk_hash of a HEADER_HASH chunk covers its header");
        }
        let mut lz = h2;
        lz[4] = HEADER_HASH | CODEC_LZ4;
        assert!(parse_header(&lz).is_err());
    }

    #[test]
    fn filters_invert() {
        let src: Vec<u8> = (0..1003u32).map(|i| (i * 31 % 251) as u8).collect();
        for f in [Filter::None, Filter::Shuffle8, Filter::XorPrev8] {
            let mut a = vec![0; src.len()];
            let mut b = vec![0; src.len()];
            apply_filter(f, &src, &mut a);
            undo_filter(f, &a, &mut b);
            assert_eq!(b, src, "{f:?}");
        }
        let mut a = vec![0; 16];
        apply_filter(Filter::Shuffle8, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], &mut a);
        assert_eq!(a, [1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 8, 16]);
    }

    #[test]
    fn incompressible_chunk_is_stored_raw() {
        let mut rng = dao_placement::synth::Rng::new(1);
        let noise: Vec<u8> = (0..65536).map(|_| rng.next_u64() as u8).collect();
        let cfg = PipelineConfig { codec: Codec::Zstd(3), ..PipelineConfig::default() };
        let mut e = Encoder::new(&cfg).unwrap();
        let mut out = Vec::new();
        let r = e.encode(0, &noise, &mut out).unwrap();
        assert!(!r.compressed);
        assert_eq!(out.len(), CHUNK_HEADER_LEN + noise.len());
        let zeros = vec![0u8; 65536];
        let mut out2 = Vec::new();
        assert!(e.encode(1, &zeros, &mut out2).unwrap().compressed);
        assert!(out2.len() < 1000);
    }
}
