//! Invariant: damage is detected, never restored as data. Any single
//! flipped byte or truncation of a store file makes that file fail
//! verification; a restore then returns the newest state whose chain is
//! intact (exactly that state), names what it passed over, and never
//! returns bytes from a damaged file.
mod common;

use common::{Model, Op};
use dao_store::{file, Codec, Engine, Filter, Mode, PipelineConfig, StoreConfig, StoreDir, StoreError};
use proptest::prelude::*;
use std::collections::HashMap;

/// Writes 5 checkpoints; returns the dir and the state of each seq.
fn chain(mode: Mode, codec: Codec, filter: Filter) -> (tempfile::TempDir, HashMap<u64, dao_store::State>) {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = StoreConfig {
        mode,
        max_chain: 0,
        keep_chains: 100,
        block_size: 1024,
        pipeline: PipelineConfig { codec, filter, buffer_size: 4096, workers: 2, ..PipelineConfig::default() },
        ..StoreConfig::default()
    };
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    let mut m = Model::new(&[20_000, 3000, 0, 9000]);
    let mut states = HashMap::new();
    for i in 0..5 {
        if i > 0 {
            m.apply(&Op::Write { r: i, off: i * 997, len: 1500, seed: i as u8 }, i);
        }
        let c = e.checkpoint(&m.regions(), &m.meta).unwrap();
        states.insert(c.seq, m.state());
    }
    (tmp, states)
}

fn codec_filter() -> impl Strategy<Value = (Mode, Codec, Filter)> {
    (
        prop_oneof![Just(Mode::Full), Just(Mode::Incremental), Just(Mode::Differential)],
        prop_oneof![Just(Codec::None), Just(Codec::Lz4), Just(Codec::Zstd(3))],
        prop_oneof![Just(Filter::None), Just(Filter::Shuffle8), Just(Filter::XorPrev8)],
    )
}

/// The restore after damaging file `bad` is exact and never uses `bad`.
fn check_restore(dir: &StoreDir, states: &HashMap<u64, dao_store::State>, bad: u64) -> Result<(), TestCaseError> {
    match dir.restore_latest() {
        Ok(r) => {
            prop_assert!(!r.chain.contains(&bad), "restored through the damaged file {bad}: {:?}", r.chain);
            prop_assert_eq!(&r.state, &states[&r.seq]);
            // Everything newer than the result was reported as passed over.
            let newest = *states.keys().max().unwrap();
            prop_assert_eq!(r.fell_back.len() as u64, newest - r.seq);
            prop_assert!(r.fell_back.iter().all(|f| f.broken_seq == bad));
        }
        Err(e) => {
            // Only acceptable when the damaged file is the base of every state.
            prop_assert_eq!(bad, 1, "{}", e);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_flipped_byte_is_detected((mode, codec, filter) in codec_filter(), which in 1..=5u64, pos in any::<prop::sample::Index>(), mask in 1..=255u8) {
        let (tmp, states) = chain(mode, codec, filter);
        let dir = StoreDir::at(tmp.path());
        let p = dir.file_path(which);
        let mut b = std::fs::read(&p).unwrap();
        let i = pos.index(b.len());
        b[i] ^= mask;
        prop_assert!(file::verify(&b).is_err(), "flip at {i} of {} not detected", b.len());
        std::fs::write(&p, &b).unwrap();
        check_restore(&dir, &states, which)?;
    }

    #[test]
    fn any_truncation_is_detected((mode, codec, filter) in codec_filter(), which in 1..=5u64, cut in any::<prop::sample::Index>()) {
        let (tmp, states) = chain(mode, codec, filter);
        let dir = StoreDir::at(tmp.path());
        let p = dir.file_path(which);
        let b = std::fs::read(&p).unwrap();
        let n = cut.index(b.len());
        prop_assert!(file::verify(&b[..n]).is_err());
        std::fs::write(&p, &b[..n]).unwrap();
        check_restore(&dir, &states, which)?;
    }
}

#[test]
fn missing_link_falls_back_and_says_why() {
    let (tmp, states) = chain(Mode::Incremental, Codec::Lz4, Filter::None);
    let dir = StoreDir::at(tmp.path());
    std::fs::remove_file(dir.file_path(3)).unwrap();
    let r = dir.restore_latest().unwrap();
    assert_eq!(r.seq, 2);
    assert_eq!(r.state, states[&2]);
    let passed: Vec<(u64, u64)> = r.fell_back.iter().map(|f| (f.seq, f.broken_seq)).collect();
    assert_eq!(passed, vec![(5, 3), (4, 3)]);
    let msg = r.fell_back[0].error.to_string();
    assert!(msg.contains("store.000003.dst") && msg.contains("missing"), "{msg}");
}

#[test]
fn differential_survives_a_damaged_sibling() {
    let (tmp, states) = chain(Mode::Differential, Codec::Zstd(1), Filter::Shuffle8);
    let dir = StoreDir::at(tmp.path());
    let p = dir.file_path(4);
    let mut b = std::fs::read(&p).unwrap();
    let n = b.len();
    b[n / 2] ^= 0x10;
    std::fs::write(&p, &b).unwrap();
    let r = dir.restore_latest().unwrap();
    assert_eq!((r.seq, r.chain.clone()), (5, vec![1, 5]));
    assert_eq!(r.state, states[&5]);
    // 4 itself is reported broken when asked for.
    assert!(matches!(dir.restore(4), Err(StoreError::BrokenLink { .. })));
}

#[test]
fn a_replaced_parent_is_a_broken_link() {
    let (tmp, states) = chain(Mode::Incremental, Codec::Lz4, Filter::None);
    let dir = StoreDir::at(tmp.path());
    // Replace file 3 by a valid file with other content (same seq, same parent).
    let other = tempfile::tempdir().unwrap();
    let (_t2, _) = (0, 0);
    {
        let mut e = Engine::open(other.path(), StoreConfig { mode: Mode::Full, ..StoreConfig::default() }).unwrap();
        let m = Model::new(&[5]);
        for _ in 0..3 {
            e.checkpoint(&m.regions(), &m.meta).unwrap();
        }
    }
    std::fs::copy(StoreDir::at(other.path()).file_path(3), dir.file_path(3)).unwrap();
    let r = dir.restore_latest().unwrap();
    // 5 and 4 chain through 3, whose id no longer matches what 4 recorded;
    // 3 (now a valid full checkpoint of other content) is restorable as itself.
    assert_eq!(r.seq, 3);
    assert_eq!(r.fell_back.len(), 2);
    assert!(r.fell_back[0].error.to_string().contains("commit id"), "{}", r.fell_back[0].error);
    assert_ne!(r.state, states[&3]);
}
