//! Encoding/decoding: round trip, and every corruption or truncation of a
//! small checkpoint is detected (invariant: decode never returns a
//! checkpoint for bytes that differ from what the writer produced).
mod common;
use dao_format::*;

#[test]
fn round_trip() {
    let c = common::sample(5, 3);
    let b = c.encode();
    let d = decode(&b).expect("valid");
    assert_eq!(d, c);
    assert_eq!(d.into_owned(), c);
}

#[test]
fn empty_checkpoint_round_trips() {
    let c = Checkpoint::default();
    assert_eq!(decode(&c.encode()).unwrap(), c);
}

#[test]
fn every_flipped_byte_is_detected() {
    let b = common::sample(5, 3).encode();
    for i in 0..b.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut x = b.clone();
            x[i] ^= mask;
            assert!(decode(&x).is_err(), "flip {mask:#x} at byte {i} of {} not detected", b.len());
        }
    }
}

#[test]
fn every_truncation_is_detected() {
    let b = common::sample(5, 3).encode();
    for n in 0..b.len() {
        match decode(&b[..n]) {
            Err(FormatError::Truncated { got, .. }) => assert_eq!(got, n as u64),
            Err(e) if n == 0 => panic!("empty input: {e}"),
            Err(e) => panic!("truncation at {n} reported as {e}"),
            Ok(_) => panic!("truncation at {n} not detected"),
        }
    }
    let mut longer = b.clone();
    longer.push(0);
    assert!(matches!(decode(&longer), Err(FormatError::Corrupt { .. })));
}

#[test]
fn wrong_magic_and_version() {
    let mut b = common::sample(1, 1).encode();
    b[0] = b'X';
    assert!(matches!(decode(&b), Err(FormatError::NotACheckpoint { .. })));
    assert!(matches!(decode(b"hello world, no checkpoint"), Err(FormatError::NotACheckpoint { .. })));

    // A (hypothetical) version 1 file with a valid header checksum.
    let mut b = common::sample(1, 1).encode();
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    let h = xxhash_rust::xxh3::xxh3_64(&b[..72]);
    b[72..80].copy_from_slice(&h.to_le_bytes());
    match decode(&b) {
        Err(FormatError::UnsupportedVersion { found: 1, supported: FORMAT_VERSION, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// `b` rewritten as a file of format `version`, each section payload
/// (in file order) passed through `cut` first (section checksums, header
/// and file hashes recomputed).
fn as_version(b: &[u8], version: u32, cut: impl Fn(usize, &mut Vec<u8>)) -> Vec<u8> {
    use dao_format::wire::{payload_checksum, HEADER_HASHED_LEN, HEADER_LEN, SECTION_HEADER_LEN};
    let mut out = b[..HEADER_LEN].to_vec();
    out[8..12].copy_from_slice(&version.to_le_bytes());
    let h = xxhash_rust::xxh3::xxh3_64(&out[..HEADER_HASHED_LEN]);
    out[HEADER_HASHED_LEN..HEADER_LEN].copy_from_slice(&h.to_le_bytes());
    let mut file_hash = xxhash_rust::xxh3::Xxh3::new();
    file_hash.update(&out);
    let mut pos = HEADER_LEN;
    for kind in 0..5 {
        let len = u64::from_le_bytes(b[pos + 4..pos + 12].try_into().unwrap()) as usize;
        let mut payload = b[pos + SECTION_HEADER_LEN..pos + SECTION_HEADER_LEN + len].to_vec();
        cut(kind, &mut payload);
        let mut rec = b[pos..pos + 4].to_vec();
        rec.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        rec.extend_from_slice(&payload_checksum(&payload).to_le_bytes());
        file_hash.update(&rec);
        out.extend_from_slice(&rec);
        out.extend_from_slice(&payload);
        pos += SECTION_HEADER_LEN + len;
    }
    out.extend_from_slice(&file_hash.digest().to_le_bytes());
    out.extend_from_slice(b"DAOEND\0\0");
    out
}

/// HEAP (section 4 in file order) without the list of heap objects
/// (format 9) at its end.
fn cut_heap_objects(kind: usize, payload: &mut Vec<u8>) {
    if kind != 4 {
        return;
    }
    let u64_at = |at: usize| u64::from_le_bytes(payload[at..at + 8].try_into().unwrap()) as usize;
    let mut at = 8 + u64_at(0);
    let n = u64_at(at);
    at += 8;
    for _ in 0..n {
        let size = u64_at(at + 8);
        at += 16 + 1 + if payload[at + 16] == 1 { size } else { 0 };
    }
    payload.truncate(at);
}

/// A format 5 file rewritten as format 4 would have written it: no list of
/// dead globals at the end of GLOBALS, nor anything newer.
fn as_format_4(b: &[u8]) -> Vec<u8> {
    as_version(b, 4, |kind, payload| {
        cut_heap_objects(kind, payload);
        if kind == 3 {
            // GLOBALS: the sample's dead list is cut off
            let n = u32::from_le_bytes(payload[..4].try_into().unwrap());
            let mut at = 4;
            for _ in 0..n {
                at += 8 + 4;
                at += 4 + u32::from_le_bytes(payload[at..at + 4].try_into().unwrap()) as usize;
                let l = u32::from_le_bytes(payload[at..at + 4].try_into().unwrap());
                at += 4 + if l == u32::MAX { 0 } else { l as usize };
                at += 8;
                at += 8 + u64::from_le_bytes(payload[at..at + 8].try_into().unwrap()) as usize;
            }
            payload.truncate(at);
        }
    })
}

#[test]
fn format_4_files_are_read_without_dead_globals() {
    let c = common::sample(2, 3);
    assert_eq!(c.dead.len(), 2);
    let v4 = as_format_4(&c.encode());
    let d = decode(&v4).expect("a format 4 file decodes");
    assert!(d.dead.is_empty());
    // nor reasons for the saved globals (format 6)
    let mut no_why = c.globals.clone();
    no_why.iter_mut().for_each(|g| g.why = None);
    assert_eq!(d.globals, no_why);
    // nor heap objects (format 9)
    assert_eq!(d.heap, Heap { objects: vec![], ..c.heap.clone() });
    // and the current format keeps both
    let enc = c.encode();
    let now = decode(&enc).unwrap();
    assert_eq!(now.dead, c.dead);
    assert!(c.globals[0].why.is_some());
    assert_eq!(now.globals, c.globals);
}

#[test]
fn dead_global_saved_whole_is_corrupt() {
    let mut c = common::sample(1, 1);
    c.dead[0].saved = c.dead[0].size;
    match decode(&c.encode()) {
        Err(FormatError::Corrupt { .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn corrupt_payload_names_the_section() {
    let c = common::sample(1, 1);
    let b = c.encode();
    // The last byte of the HEAP payload (the last heap object's reason)
    // sits just before the 16-byte trailer.
    let mut x = b.clone();
    let n = x.len();
    x[n - 16 - 1] ^= 1;
    let e = decode(&x).unwrap_err().with_file("d/ckpt.000001.dao");
    assert_eq!(e.to_string().split(':').next(), Some("d/ckpt.000001.dao"));
    assert!(e.to_string().contains("checksum of section HEAP"), "{e}");
}

#[test]
fn streaming_writer_matches_encode() {
    let c = common::sample(9, 9);
    let mut cur = std::io::Cursor::new(Vec::new());
    let mut w = Writer::new(&mut cur, &c.header).unwrap();
    w.runtime(&c.runtime).unwrap();
    w.chain(&c.chain).unwrap();
    w.threads(&c.omp, &c.master_tls, &c.workers).unwrap();
    w.globals(&c.globals, &c.dead, &c.devices).unwrap();
    w.heap(&c.heap).unwrap();
    w.finish().unwrap();
    assert_eq!(cur.into_inner(), c.encode());
}

/// A checkpoint with payloads of several checksum chunks: heap blocks that
/// straddle chunk boundaries, a large global, many small blocks (copied into
/// the layout's metadata) between big ones.
fn big_sample() -> Checkpoint<'static> {
    let mut c = common::sample(3, 4);
    let pat = |n: usize, seed: u8| -> Vec<u8> { (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect() };
    c.globals[0].bytes = std::borrow::Cow::Owned(pat(3 * wire::CHUNK + 17, 5));
    let mut blocks = Vec::new();
    let mut addr = 0x10_0000u64;
    for (k, n) in [100usize, wire::CHUNK - 3, 5000, 7, 2 * wire::CHUNK + 1, 4096, 4095, 300_000].into_iter().enumerate() {
        blocks.push(HeapBlock { addr, size: n as u64, bytes: Some(std::borrow::Cow::Owned(pat(n, k as u8))) });
        addr += n as u64 + 64;
    }
    blocks.push(HeapBlock { addr, size: 64, bytes: None });
    c.heap.blocks = blocks;
    c
}

/// Many heap blocks just over the bulk threshold: units made of hundreds of
/// pieces (the gathered write path).
fn many_blocks_sample() -> Checkpoint<'static> {
    let mut c = common::sample(4, 5);
    let mut blocks = Vec::new();
    let mut addr = 0x20_0000u64;
    for k in 0..1500usize {
        let n = 4096 + (k * 37) % 3000;
        blocks.push(HeapBlock { addr, size: n as u64, bytes: Some(std::borrow::Cow::Owned((0..n).map(|i| (i ^ k) as u8).collect())) });
        addr += n as u64 + 16;
    }
    c.heap.blocks = blocks;
    c
}

fn layout_bytes(c: &Checkpoint<'_>, threads: usize) -> Vec<u8> {
    let l = Layout::new(Parts {
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
    })
    .unwrap();
    let dir = std::env::temp_dir().join(format!("dao-layout-{}-{threads}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("x.dao");
    let f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&p).unwrap();
    l.write_with_threads(&f, threads).unwrap();
    drop(f);
    let b = std::fs::read(&p).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(b.len() as u64, l.len());
    b
}

#[test]
fn distributed_layout_writes_the_same_bytes_as_the_stream() {
    for c in [common::sample(9, 9), Checkpoint::default(), big_sample(), many_blocks_sample()] {
        let want = c.encode();
        for threads in [1, 2, 3, 8] {
            let got = layout_bytes(&c, threads);
            assert!(got == want, "layout with {threads} threads differs from the streaming writer ({} vs {} bytes)", got.len(), want.len());
        }
        assert_eq!(decode(&want).unwrap(), c);
    }
}

#[test]
fn chunked_checksum_forms_agree() {
    let b: Vec<u8> = (0..5 * wire::CHUNK + 3).map(|i| (i * 7 % 251) as u8).collect();
    for n in [0, 1, wire::CHUNK - 1, wire::CHUNK, wire::CHUNK + 1, 5 * wire::CHUNK + 3] {
        let p = &b[..n];
        let mut s = wire::ChunkedHash::default();
        for part in p.chunks(777) {
            s.update(part);
        }
        assert_eq!(s.digest(), wire::payload_checksum(p), "streaming, {n} bytes");
        for t in [1, 2, 3, 16] {
            assert_eq!(wire::payload_checksum_par(p, t), wire::payload_checksum(p), "{t} threads, {n} bytes");
        }
    }
    // a changed byte in any chunk changes the checksum
    let base = wire::payload_checksum(&b);
    for at in [0, wire::CHUNK - 1, wire::CHUNK, 3 * wire::CHUNK + 5, b.len() - 1] {
        let mut x = b.clone();
        x[at] ^= 0x40;
        assert_ne!(wire::payload_checksum(&x), base, "flip at {at}");
    }
}

#[test]
fn big_checkpoint_corruption_in_a_later_chunk_is_detected() {
    let b = big_sample().encode();
    for at in [b.len() / 2, b.len() - 20, b.len() / 3 + 12345] {
        let mut x = b.clone();
        x[at] ^= 1;
        assert!(decode(&x).is_err(), "flip at {at} of {} not detected", b.len());
    }
}

/// A global saved as several ranges (a part of it dead) has its reason on
/// its first record only, and the reader gives it to its other ranges: NPB
/// 3.3 SP's `/fields/` is 10,369 ranges, whose repeated reason was half of
/// the file's skeleton. Another global without a reason stays without.
#[test]
fn a_reason_on_the_first_range_is_every_range_s() {
    let mut c = common::sample(1, 1);
    let w = c.globals[0].why.clone().expect("the sample's global has a reason");
    let mut range2 = c.globals[0].clone();
    range2.addr += 4096;
    range2.why = None;
    let mut other = c.globals[0].clone();
    other.index += 1;
    other.addr += 8192;
    other.why = None;
    c.globals.push(range2);
    c.globals.push(other);
    let enc = c.encode();
    let d = decode(&enc).unwrap();
    assert_eq!(d.globals[0].why.as_deref(), Some(&*w));
    assert_eq!(d.globals[1].why.as_deref(), Some(&*w));
    assert_eq!(d.globals[2].why, None);
    assert_eq!(enc.windows(w.len()).filter(|x| *x == w.as_bytes()).count(), 1, "the reason is written once");
}

/// Format 8: the ranges of one global after its first are continued
/// records (address and bytes only); they decode to whole records, a
/// different global between them starts a whole record again, and the
/// name is written once per run of ranges.
#[test]
fn ranges_of_one_global_are_continued_records() {
    let mut c = common::sample(1, 1);
    let first = c.globals[0].clone();
    let mut other = first.clone();
    other.index += 1;
    other.name = "other_global".into();
    other.why = None;
    let mut ranges = Vec::new();
    for k in 1..=3u64 {
        let mut r = first.clone();
        r.addr += 4096 * k;
        r.why = None;
        ranges.push(r);
    }
    let mut tail = ranges[2].clone();
    tail.addr += 4096;
    c.globals.extend(ranges);
    c.globals.push(other);
    c.globals.push(tail);
    let enc = c.encode();
    let d = decode(&enc).unwrap();
    assert_eq!(d.globals.len(), c.globals.len());
    for (a, b) in d.globals.iter().zip(&c.globals) {
        assert_eq!((a.module_hash, a.index, &a.name, &a.loc, a.addr, &a.bytes), (b.module_hash, b.index, &b.name, &b.loc, b.addr, &b.bytes));
    }
    // runs: [first, 3 ranges], [other], [tail]: the first name twice
    let name = first.name.as_bytes();
    assert_eq!(enc.windows(name.len()).filter(|x| *x == name).count(), 2);
    // a continued record costs 8 + 8 + 8 bytes besides its data
    let mut whole = c.clone();
    for (k, g) in whole.globals.iter_mut().enumerate() {
        g.name = format!("g{k}_{}", g.name).into();
    }
    assert!(whole.encode().len() > enc.len() + 3 * (8 + 4 + 4 + name.len()));
}

/// A format 7 file (every global record whole, whatever its global; no
/// heap objects) is still read.
#[test]
fn format_7_files_are_read() {
    let c = common::sample(2, 2);
    let d7 = as_version(&c.encode(), 7, cut_heap_objects);
    let d = decode(&d7).expect("a format 7 file decodes");
    assert_eq!(d.globals, c.globals);
    assert_eq!(d.dead, c.dead);
    assert_eq!(d.devices, c.devices);
}

/// A format 8 file (no heap objects) is read with none; the current format
/// keeps them, left out or saved, with their reasons; and a heap object's
/// saved flag other than 0 or 1 is corrupt.
#[test]
fn heap_objects_round_trip_and_format_8_has_none() {
    let c = common::sample(2, 2);
    assert_eq!(c.heap.objects.len(), 2);
    let d8 = as_version(&c.encode(), 8, cut_heap_objects);
    let d = decode(&d8).expect("a format 8 file decodes");
    assert!(d.heap.objects.is_empty());
    assert_eq!(d.heap.blocks, c.heap.blocks);
    assert_eq!(d.globals, c.globals);
    let enc = c.encode();
    let now = decode(&enc).unwrap();
    assert_eq!(now.heap.objects, c.heap.objects);
    assert!(!now.heap.objects[1].saved && now.heap.objects[1].loc.is_none());
    // a format 8 file that still has the list: bytes the reader does not expect
    let kept = as_version(&c.encode(), 8, |_, _| {});
    assert!(matches!(decode(&kept), Err(FormatError::Corrupt { .. })));
    // the saved flag of the last object: after its addr and size, before
    // its reason (opt_str: 4 + the text)
    let why = c.heap.objects[1].why.as_deref().unwrap().len();
    let mut b = c.encode();
    let at = b.len() - 16 - (4 + why) - 1;
    assert_eq!(b[at], 0);
    b[at] = 2;
    let b = as_version(&b, dao_format::FORMAT_VERSION, |_, _| {});
    match decode(&b) {
        Err(FormatError::Corrupt { what, .. }) => assert!(what.contains("heap object"), "{what}"),
        other => panic!("{other:?}"),
    }
}

/// A device region stored as the host's bytes (format 10) round-trips; the
/// same file labelled format 9 is corrupt (its readers know flags 0 and 1),
/// and a region marked as the host's that carries bytes is refused.
#[test]
fn device_regions_as_the_hosts_bytes() {
    let mut c = common::sample(1, 1);
    c.devices.push(DeviceRegion { device: 0, addr: 0x7ee000, size: 32, map_type: 1, dyn_refs: 1, hold_refs: 0, name: Some("wall".into()), bytes: None, from_host: true });
    let enc = c.encode();
    let d = decode(&enc).expect("decodes");
    assert_eq!(d.devices, c.devices);
    assert!(d.devices[2].from_host && d.devices[2].bytes.is_none());
    let b9 = as_version(&c.encode(), 9, |_, _| {});
    match decode(&b9) {
        Err(FormatError::Corrupt { what, .. }) => assert!(what.contains("saved flag"), "{what}"),
        other => panic!("{other:?}"),
    }
    c.devices[2].bytes = Some(std::borrow::Cow::Owned(vec![1; 32]));
    assert!(std::panic::catch_unwind(|| c.encode()).is_err(), "encoded a region with bytes of its own marked as the host's");
}

/// No module hash may be the continued-record mark: the writer refuses it
/// rather than write a file the reader would misread.
#[test]
fn a_module_hash_equal_to_the_mark_is_refused() {
    let mut c = common::sample(1, 1);
    c.globals[0].module_hash = dao_format::wire::CONTINUED;
    let r = std::panic::catch_unwind(|| c.encode());
    assert!(r.is_err(), "encoded a global whose module hash is the continued-record mark");
}
