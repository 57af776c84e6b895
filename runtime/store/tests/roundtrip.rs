//! Invariant: for every mode, codec, filter, block size and pipeline shape,
//! restoring checkpoint n (from its base and chain) yields exactly the
//! regions and metadata the program had at checkpoint n, and garbage
//! collection never deletes a file that a remaining checkpoint needs.
mod common;

use common::{Model, Op};
use dao_store::{Codec, Engine, Filter, Kind, Mode, PipelineConfig, StoreConfig, StoreDir};
use proptest::prelude::*;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..8usize, 0..40_000usize, 1..3000usize, any::<u8>()).prop_map(|(r, off, len, seed)| Op::Write { r, off, len, seed }),
        1 => (0..20_000usize, any::<u8>()).prop_map(|(len, seed)| Op::Add { len, seed }),
        1 => (0..8usize).prop_map(|r| Op::Remove { r }),
        1 => (0..8usize, 0..20_000usize).prop_map(|(r, len)| Op::Resize { r, len }),
    ]
}

fn config() -> impl Strategy<Value = StoreConfig> {
    let mode = prop_oneof![Just(Mode::Full), Just(Mode::Incremental), Just(Mode::Differential), Just(Mode::Adaptive)];
    let codec = prop_oneof![Just(Codec::None), Just(Codec::Lz4), Just(Codec::Zstd(1)), Just(Codec::Zstd(5))];
    let filter = prop_oneof![Just(Filter::None), Just(Filter::Shuffle8), Just(Filter::XorPrev8)];
    let block = prop_oneof![Just(256usize), Just(1024), Just(4096), Just(65536)];
    let buffer = prop_oneof![Just(4096usize), Just(16384), Just(65536)];
    (mode, codec, filter, block, buffer, 1..4usize, 1..4usize, 0..4u32, 1..3usize, 0.5..1.0f64, any::<bool>()).prop_map(
        |(mode, codec, filter, block_size, buffer_size, workers, queue_depth, max_chain, keep_chains, delta, direct)| StoreConfig {
            mode,
            max_chain,
            max_delta_ratio: delta,
            block_size,
            hash_threads: 2,
            keep_chains,
            pipeline: PipelineConfig {
                codec,
                filter,
                buffer_size,
                queue_depth,
                workers,
                skip_ratio: 0.9,
                write_size: 32 << 10,
                // set by Engine::open from `direct_io` below
                direct_io: false,
            },
            // O_DIRECT files (every one) or buffered ones
            direct_io: if direct { dao_store::DirectIo::On } else { dao_store::DirectIo::Off },
            ..StoreConfig::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn chain_restore_equals_full_state(
        cfg in config(),
        lens in prop::collection::vec(0..30_000usize, 0..5),
        steps in prop::collection::vec(prop::collection::vec(op(), 0..4), 1..7),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let mut engine = Engine::open(tmp.path(), cfg.clone()).unwrap();
        let mut model = Model::new(&lens);
        let mut states = std::collections::HashMap::new();
        for (i, ops) in steps.iter().enumerate() {
            if i > 0 {
                for op in ops { model.apply(op, i); }
            }
            let c = engine.checkpoint(&model.regions(), &model.meta).unwrap();
            if cfg.mode == Mode::Full { prop_assert_eq!(c.kind, Kind::Full); }
            if cfg.mode == Mode::Differential && c.kind != Kind::Full {
                prop_assert_eq!(c.kind, Kind::Differential);
            }
            states.insert(c.seq, model.state());
            let r = StoreDir::at(tmp.path()).restore_latest().unwrap();
            prop_assert_eq!(r.seq, c.seq);
            prop_assert!(r.fell_back.is_empty());
            prop_assert_eq!(&r.state, &model.state());
        }
        // Every file GC left must still restore to its own state.
        let dir = StoreDir::at(tmp.path());
        for (seq, _) in dir.list().unwrap() {
            let r = dir.restore(seq).unwrap();
            prop_assert_eq!(&r.state, &states[&seq]);
        }
    }
}

#[test]
fn unchanged_memory_gives_a_tiny_delta() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = StoreConfig { mode: Mode::Incremental, ..StoreConfig::default() };
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    let mut m = Model::new(&[1 << 20, 300_000]);
    let full = e.checkpoint(&m.regions(), &m.meta).unwrap();
    assert_eq!(full.kind, Kind::Full);
    m.apply(&Op::Write { r: 0, off: 70_000, len: 10, seed: 3 }, 1);
    let d = e.checkpoint(&m.regions(), &m.meta).unwrap();
    assert_eq!(d.kind, Kind::Incremental);
    assert_eq!(d.parent, Some(full.seq));
    assert!(d.stored_region_bytes <= 2 * 4096, "{}", d.stored_region_bytes);
    assert!(d.file_bytes < 10_000, "{}", d.file_bytes);
    assert_eq!(StoreDir::at(tmp.path()).restore_latest().unwrap().state, m.state());
}

#[test]
fn adaptive_starts_a_new_base_for_a_large_delta_and_a_long_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = StoreConfig { mode: Mode::Adaptive, max_chain: 3, max_delta_ratio: 0.5, ..StoreConfig::default() };
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    let mut m = Model::new(&[100_000]);
    let kinds: Vec<Kind> = (0..6)
        .map(|i| {
            if i == 2 {
                m.apply(&Op::Write { r: 0, off: 0, len: 80_000, seed: 9 }, i); // 80% changed
            } else if i > 0 {
                m.apply(&Op::Write { r: 0, off: 1000 * i, len: 10, seed: 1 }, i);
            }
            e.checkpoint(&m.regions(), &m.meta).unwrap().kind
        })
        .collect();
    use Kind::*;
    // 0 full; 1 delta; 2 large -> full; 3,4,5 deltas (chain 3); the 7th would be full.
    assert_eq!(kinds, vec![Full, Incremental, Full, Incremental, Incremental, Incremental]);
    m.apply(&Op::Write { r: 0, off: 5, len: 10, seed: 1 }, 7);
    assert_eq!(e.checkpoint(&m.regions(), &m.meta).unwrap().kind, Full);
}

#[test]
fn a_resumed_engine_continues_the_chain_after_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = StoreConfig { mode: Mode::Incremental, ..StoreConfig::default() };
    let mut m = Model::new(&[100_000, 3000]);
    {
        let mut e = Engine::open(tmp.path(), cfg.clone()).unwrap();
        for i in 0..3 {
            m.apply(&Op::Write { r: 0, off: i * 7000, len: 100, seed: 1 }, i);
            e.checkpoint(&m.regions(), &m.meta).unwrap();
        }
    } // the process dies; a new one restores checkpoint 3 ...
    let r = StoreDir::at(tmp.path()).restore_latest().unwrap();
    assert_eq!(r.state, m.state());
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    assert!(e.resume(&r));
    m.apply(&Op::Write { r: 1, off: 10, len: 10, seed: 2 }, 9);
    let c = e.checkpoint(&m.regions(), &m.meta).unwrap();
    assert_eq!((c.seq, c.kind, c.parent), (4, Kind::Incremental, Some(3)));
    assert!(c.stored_region_bytes <= 4096);
    let back = StoreDir::at(tmp.path()).restore_latest().unwrap();
    assert_eq!((back.seq, back.chain.clone()), (4, vec![1, 2, 3, 4]));
    assert_eq!(back.state, m.state());
    // A differential engine does not resume (it would need the base's signature).
    let mut d = Engine::open(tmp.path(), StoreConfig { mode: Mode::Differential, ..StoreConfig::default() }).unwrap();
    assert!(!d.resume(&back));
}

/// `checkpoint_releasing` tells each region once, in order, and stores
/// what `checkpoint` stores (full and incremental, raw and compressed): a
/// forked writer drops a region's pages when told, so nothing may read
/// them later.
#[test]
fn releasing_checkpoint_tells_each_region_once_in_order() {
    for (mode, codec) in [(Mode::Full, Codec::None), (Mode::Incremental, Codec::Lz4), (Mode::Adaptive, Codec::Zstd(3))] {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = StoreConfig { mode, pipeline: PipelineConfig { codec, ..PipelineConfig::default() }, ..StoreConfig::default() };
        let mut e = Engine::open(tmp.path(), cfg).unwrap();
        let mut m = Model::new(&[1 << 20, 300_000, 17, 70_001]);
        for step in 0..3 {
            if step > 0 {
                m.apply(&Op::Write { r: 1, off: 1000 * step, len: 5000, seed: step as u8 }, step);
            }
            let mut told = Vec::new();
            e.checkpoint_releasing(&m.regions(), &m.meta, &mut |i| told.push(i)).unwrap();
            assert_eq!(told, (0..m.regions().len()).collect::<Vec<_>>(), "{mode:?} {codec:?} step {step}");
            assert_eq!(StoreDir::at(tmp.path()).restore_latest().unwrap().state, m.state(), "{mode:?} {codec:?} step {step}");
        }
    }
}
