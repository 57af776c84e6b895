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

    // A (hypothetical) version 2 file with a valid header checksum.
    let mut b = common::sample(1, 1).encode();
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    let h = xxhash_rust::xxh3::xxh3_64(&b[..72]);
    b[72..80].copy_from_slice(&h.to_le_bytes());
    match decode(&b) {
        Err(FormatError::UnsupportedVersion { found: 1, supported: 2, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn corrupt_payload_names_the_section() {
    let c = common::sample(1, 1);
    let b = c.encode();
    // The last saved heap byte sits just before the 16-byte trailer, the 32-byte
    // unsaved block record and the second block's flag.
    let mut x = b.clone();
    let n = x.len();
    x[n - 16 - 17 - 2] ^= 1;
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
    w.globals(&c.globals).unwrap();
    w.heap(&c.heap).unwrap();
    w.finish().unwrap();
    assert_eq!(cur.into_inner(), c.encode());
}
