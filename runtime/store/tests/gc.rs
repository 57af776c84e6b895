//! Invariant: garbage collection deletes only files no kept chain needs:
//! everything older than the `keep`-th newest valid base, and temp files.
mod common;

use common::{Model, Op};
use dao_store::{Engine, Kind, Mode, StoreConfig, StoreDir};

#[test]
fn keeps_the_newest_chains_and_only_them() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = StoreConfig { mode: Mode::Incremental, max_chain: 2, keep_chains: 2, ..StoreConfig::default() };
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    let mut m = Model::new(&[30_000]);
    let mut kinds = Vec::new();
    for i in 0..9 {
        m.apply(&Op::Write { r: 0, off: i * 100, len: 10, seed: 2 }, i);
        kinds.push(e.checkpoint(&m.regions(), &m.meta).unwrap().kind);
    }
    // Bases at 1, 4, 7: chains {1,2,3} {4,5,6} {7,8,9}.
    assert_eq!(kinds.iter().filter(|k| **k == Kind::Full).count(), 3);
    let dir = StoreDir::at(tmp.path());
    let seqs: Vec<u64> = dir.list().unwrap().into_iter().map(|x| x.0).collect();
    assert_eq!(seqs, vec![4, 5, 6, 7, 8, 9], "the engine collects after each new base");
    for s in seqs {
        dir.restore(s).unwrap();
    }
    // With one chain kept, only 7.. stay; a damaged newest base does not count.
    assert_eq!(dir.collectable(1).unwrap().len(), 3);
    let p7 = dir.file_path(7);
    let mut b = std::fs::read(&p7).unwrap();
    b[70] ^= 1;
    std::fs::write(&p7, &b).unwrap();
    assert!(dir.collectable(1).unwrap().is_empty(), "4 is now the newest valid base");
    let r = dir.restore_latest().unwrap();
    assert_eq!(r.seq, 6);
    assert_eq!(r.fell_back.len(), 3);
}

#[test]
fn restore_latest_from_ignores_older_tips() {
    let tmp = tempfile::tempdir().unwrap();
    let mut e = Engine::open(tmp.path(), StoreConfig { mode: Mode::Incremental, ..StoreConfig::default() }).unwrap();
    let m = Model::new(&[1000]);
    for _ in 0..3 {
        e.checkpoint(&m.regions(), &m.meta).unwrap();
    }
    let dir = StoreDir::at(tmp.path());
    assert_eq!(dir.restore_latest_from(3).unwrap().seq, 3);
    assert!(matches!(dir.restore_latest_from(4), Err(dao_store::StoreError::NothingToRestore { .. })));
}

/// The engine's GC counts the bases it committed itself as valid without
/// reading them back (a full checkpoint of MG.A would otherwise be read
/// back in whole at every new base); a base it did not commit (an older
/// process's) is verified as before. So a base of its own damaged on disk
/// after its commit still counts, and an older base is collected; a
/// restart then falls back past the damaged one to what is left.
#[test]
fn the_engine_trusts_only_its_own_bases() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = StoreConfig { mode: Mode::Full, keep_chains: 2, ..StoreConfig::default() };
    let mut m = Model::new(&[30_000]);
    // an older process wrote 1 and 2
    {
        let mut e = Engine::open(tmp.path(), cfg.clone()).unwrap();
        e.checkpoint(&m.regions(), &m.meta).unwrap();
        e.checkpoint(&m.regions(), &m.meta).unwrap();
    }
    let dir = StoreDir::at(tmp.path());
    let damage = |seq: u64| {
        let p = dir.file_path(seq);
        let mut b = std::fs::read(&p).unwrap();
        b[70] ^= 1;
        std::fs::write(&p, &b).unwrap();
    };
    // this process: 3; 2 (not its own) damaged is verified and does not
    // count, so 1 stays as the second chain
    damage(2);
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    m.apply(&Op::Write { r: 0, off: 0, len: 10, seed: 3 }, 1);
    assert_eq!(e.checkpoint(&m.regions(), &m.meta).unwrap().seq, 3);
    let seqs = |d: &StoreDir| d.list().unwrap().into_iter().map(|x| x.0).collect::<Vec<u64>>();
    assert_eq!(seqs(&dir), vec![1, 2, 3]);
    // 4: its own 3 counts without being read; 3 damaged on disk still counts
    damage(3);
    m.apply(&Op::Write { r: 0, off: 0, len: 10, seed: 4 }, 2);
    let c = e.checkpoint(&m.regions(), &m.meta).unwrap();
    assert_eq!(c.seq, 4);
    assert_eq!(seqs(&dir), vec![3, 4], "1 and 2 collected: {:?}", c.collected);
    // a fresh reader verifies: 3 does not count
    assert!(dir.collectable(2).unwrap().is_empty());
    assert_eq!(dir.restore_latest().unwrap().seq, 4);
}
