//! Skeletons (the metadata blob of a checkpoint kept by the storage engine):
//! the skeleton plus the regions it references decode to the checkpoint it
//! was made from; a plain decode refuses a skeleton; a missing or short
//! region is an error, never a checkpoint with wrong bytes; every flipped
//! byte of a skeleton is detected.
mod common;
use std::collections::HashMap;

use dao_format::*;

fn lookup<'a>(regions: &'a HashMap<u64, Vec<u8>>) -> impl FnMut(u64, u64) -> Option<&'a [u8]> {
    move |key, len| regions.get(&key).and_then(|b| b.get(..len as usize))
}

fn split(c: &Checkpoint<'_>) -> (Vec<u8>, HashMap<u64, Vec<u8>>) {
    let p = Parts::of(c);
    let sk = encode_skeleton(&p).unwrap();
    let regions: HashMap<u64, Vec<u8>> = skeleton_regions(&p).into_iter().map(|(k, b)| (k, b.to_vec())).collect();
    (sk, regions)
}

#[test]
fn skeleton_and_regions_rebuild_the_checkpoint() {
    let c = common::sample(5, 3);
    let (sk, regions) = split(&c);
    // the skeleton holds no payload bytes: the heap block's 0..16 are not in it
    let block: Vec<u8> = (0..16).collect();
    assert!(!sk.windows(16).any(|w| w == &block[..]));
    assert!(regions.contains_key(&META_KEY));
    let d = decode_skeleton(&sk, &mut lookup(&regions)).expect("valid skeleton");
    assert_eq!(d.header.flags, c.header.flags | FLAG_SKELETON);
    let mut want = c.clone();
    want.header.flags |= FLAG_SKELETON;
    assert_eq!(d, want);
}

#[test]
fn regions_are_unique_and_a_shared_key_keeps_the_longest() {
    let c = common::sample(5, 3);
    let p = Parts::of(&c);
    let r = skeleton_regions(&p);
    let mut keys: Vec<u64> = r.iter().map(|x| x.0).collect();
    keys.dedup();
    assert_eq!(keys.len(), r.len(), "one region per key");
    // slot bytes, stack object, global, 2 tls, worker slot, one saved
    // threadprivate copy, meta, one saved heap block, one saved device
    // region (format 7)
    let total: usize = r.iter().map(|x| x.1.len()).sum();
    assert_eq!(total, 4 + 5 + 6 + 4 + 4 + 4 + 4 + 3 + 16 + 8);

    // an alias: two globals at the same bytes, one a prefix of the other
    let mem: Vec<u8> = (0..32).collect();
    let mut c2 = Checkpoint::default();
    for (i, n) in [(0u32, 32usize), (1, 8)] {
        c2.globals.push(Global {
            module_hash: 1,
            index: i,
            name: format!("g{i}").into(),
            loc: None,
            addr: mem.as_ptr() as u64,
            bytes: std::borrow::Cow::Borrowed(&mem[..n]),
            why: None,
        });
    }
    let p2 = Parts::of(&c2);
    let r2 = skeleton_regions(&p2);
    let g: Vec<_> = r2.iter().filter(|x| x.0 == mem.as_ptr() as u64).collect();
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].1.len(), 32);
    let sk = encode_skeleton(&p2).unwrap();
    let regions: HashMap<u64, Vec<u8>> = r2.into_iter().map(|(k, b)| (k, b.to_vec())).collect();
    let d = decode_skeleton(&sk, &mut lookup(&regions)).unwrap();
    assert_eq!(d.globals[0].bytes.len(), 32);
    assert_eq!(&d.globals[1].bytes[..], &mem[..8]);
}

#[test]
fn a_plain_decode_refuses_a_skeleton() {
    let (sk, _) = split(&common::sample(5, 3));
    match decode(&sk) {
        Err(FormatError::Skeleton { .. }) => {}
        other => panic!("expected Skeleton, got {other:?}"),
    }
    // and a complete file decodes the same through decode_skeleton
    let c = common::sample(5, 3);
    let b = c.encode();
    let d = decode_skeleton(&b, &mut |_, _| None).unwrap();
    assert_eq!(d, c);
}

#[test]
fn a_missing_or_short_region_is_an_error() {
    let c = common::sample(5, 3);
    let (sk, regions) = split(&c);
    for drop in regions.keys() {
        let mut r = regions.clone();
        r.remove(drop);
        let e = decode_skeleton(&sk, &mut lookup(&r)).expect_err("a region is missing");
        assert!(matches!(e, FormatError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains(&format!("{drop:#x}")), "names the key: {e}");
        if let Some(b) = regions.get(drop).filter(|b| !b.is_empty()) {
            let mut r = regions.clone();
            r.insert(*drop, b[..b.len() - 1].to_vec());
            assert!(decode_skeleton(&sk, &mut lookup(&r)).is_err(), "short region {drop:#x}");
        }
    }
}

#[test]
fn every_flipped_byte_of_a_skeleton_is_detected() {
    let c = common::sample(5, 3);
    let (sk, regions) = split(&c);
    for i in 0..sk.len() {
        let mut x = sk.clone();
        x[i] ^= 0x01;
        assert!(decode_skeleton(&x, &mut lookup(&regions)).is_err(), "flip at byte {i} not detected");
    }
}

#[test]
fn a_skeleton_cannot_be_laid_out() {
    let mut c = common::sample(5, 3);
    c.header.flags |= FLAG_SKELETON;
    assert!(Layout::new(Parts::of(&c)).is_err());
}
