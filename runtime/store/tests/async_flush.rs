//! Invariants of the asynchronous flush: `checkpoint` returns once the
//! regions are copied, so what is committed is the state at the call, not
//! what the program writes afterwards; with the Wait policy every staged
//! checkpoint is committed in order; with Skip a checkpoint requested while
//! one is flushing is skipped and nothing else changes; a failed flush is
//! reported and the previous checkpoint stays current.
mod common;

use common::{Model, Op};
use dao_store::fault::{Action, Fault, Stage};
use dao_store::{AsyncEngine, AsyncPolicy, Engine, FlushState, Kind, Mode, Staged, StoreConfig, StoreDir};
use std::time::Duration;

fn engine(dir: &std::path::Path, mode: Mode) -> Engine {
    Engine::open(dir, StoreConfig { mode, block_size: 1024, ..StoreConfig::default() }).unwrap()
}

#[test]
fn wait_policy_commits_every_staged_state_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let mut a = AsyncEngine::new(engine(tmp.path(), Mode::Incremental), AsyncPolicy::Wait).unwrap();
    let mut m = Model::new(&[200_000, 5000]);
    let mut states = Vec::new();
    for i in 0..5 {
        match a.checkpoint(&m.regions(), &m.meta).unwrap() {
            Staged::Started { previous, .. } => {
                if i > 0 {
                    let p = previous.expect("the previous flush is reported by the next checkpoint").unwrap();
                    assert_eq!(p.seq, i as u64);
                }
            }
            Staged::Skipped => panic!("Wait never skips"),
        }
        states.push(m.state());
        // The program continues and changes its memory right away.
        m.apply(&Op::Write { r: 0, off: i * 5000, len: 3000, seed: i as u8 }, i + 1);
    }
    let last = a.wait().unwrap().unwrap();
    assert_eq!((last.seq, last.kind), (5, Kind::Incremental));
    assert!(matches!(a.poll(), FlushState::Idle));
    let dir = StoreDir::at(tmp.path());
    for (i, s) in states.iter().enumerate() {
        assert_eq!(&dir.restore(i as u64 + 1).unwrap().state, s, "checkpoint {}", i + 1);
    }
}

#[test]
fn skip_policy_skips_while_flushing() {
    let tmp = tempfile::tempdir().unwrap();
    let mut e = engine(tmp.path(), Mode::Full);
    e.set_fault(Some(Fault { stage: Stage::Sync, at_chunk: 0, action: Action::Sleep(400) }));
    let mut a = AsyncEngine::new(e, AsyncPolicy::Skip).unwrap();
    let mut m = Model::new(&[10_000]);
    assert!(matches!(a.checkpoint(&m.regions(), &m.meta).unwrap(), Staged::Started { .. }));
    let s1 = m.state();
    m.apply(&Op::Write { r: 0, off: 0, len: 10, seed: 1 }, 1);
    let t = std::time::Instant::now();
    assert!(matches!(a.checkpoint(&m.regions(), &m.meta).unwrap(), Staged::Skipped));
    assert!(t.elapsed() < Duration::from_millis(200), "Skip must not wait");
    assert!(matches!(a.poll(), FlushState::Flushing));
    let c = a.wait().unwrap().unwrap();
    assert_eq!(c.seq, 1);
    assert_eq!(StoreDir::at(tmp.path()).restore_latest().unwrap().state, s1);
    // Idle again: the next one starts.
    assert!(matches!(a.checkpoint(&m.regions(), &m.meta).unwrap(), Staged::Started { .. }));
    let c = a.wait().unwrap().unwrap();
    assert_eq!(c.seq, 2);
    assert_eq!(StoreDir::at(tmp.path()).restore_latest().unwrap().state, m.state());
}

#[test]
fn wait_policy_waits_for_a_slow_flush() {
    let tmp = tempfile::tempdir().unwrap();
    let mut e = engine(tmp.path(), Mode::Full);
    e.set_fault(Some(Fault { stage: Stage::Sync, at_chunk: 0, action: Action::Sleep(300) }));
    let mut a = AsyncEngine::new(e, AsyncPolicy::Wait).unwrap();
    let m = Model::new(&[10_000]);
    a.checkpoint(&m.regions(), &m.meta).unwrap();
    match a.checkpoint(&m.regions(), &m.meta).unwrap() {
        Staged::Started { waited, previous, .. } => {
            assert!(waited >= Duration::from_millis(150), "{waited:?}");
            assert_eq!(previous.unwrap().unwrap().seq, 1);
        }
        Staged::Skipped => panic!(),
    }
    drop(a); // waits for checkpoint 2
    assert_eq!(StoreDir::at(tmp.path()).restore_latest().unwrap().seq, 2);
}

#[test]
fn a_failed_flush_is_reported_and_the_previous_checkpoint_stays_current() {
    let tmp = tempfile::tempdir().unwrap();
    let mut e = engine(tmp.path(), Mode::Incremental);
    let mut m = Model::new(&[50_000]);
    e.checkpoint(&m.regions(), &m.meta).unwrap();
    e.set_fault(Some(Fault { stage: Stage::Write, at_chunk: 0, action: Action::Error }));
    let mut a = AsyncEngine::new(e, AsyncPolicy::Wait).unwrap();
    m.apply(&Op::Write { r: 0, off: 0, len: 100, seed: 1 }, 1);
    a.checkpoint(&m.regions(), &m.meta).unwrap();
    assert!(a.wait().unwrap().is_err());
    let r = StoreDir::at(tmp.path()).restore_latest().unwrap();
    assert_eq!(r.seq, 1);
    let (e, _) = a.shutdown();
    let mut e = e.unwrap();
    e.set_fault(None);
    let c = e.checkpoint(&m.regions(), &m.meta).unwrap();
    assert_eq!(c.parent, Some(1));
    assert_eq!(StoreDir::at(tmp.path()).restore_latest().unwrap().state, m.state());
}

/// The staging arena grows when a checkpoint holds more bytes than the one
/// before (a new mapping, across the 2 MiB granule), and is reused when it
/// holds fewer: every committed state is exactly the one staged, never a
/// byte of an earlier, larger one.
#[test]
fn the_staging_arena_grows_and_is_reused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut a = AsyncEngine::new(engine(tmp.path(), Mode::Incremental), AsyncPolicy::Wait).unwrap();
    let mut m = Model::new(&[100_000]);
    let mut states = Vec::new();
    let ops = [
        Op::Add { len: 3 << 20, seed: 7 },
        Op::Remove { r: 1 },
        Op::Resize { r: 0, len: 5000 },
        Op::Add { len: (4 << 20) + 17, seed: 9 },
    ];
    for (i, op) in ops.iter().enumerate() {
        a.checkpoint(&m.regions(), &m.meta).unwrap();
        states.push(m.state());
        m.apply(op, i + 1);
    }
    a.checkpoint(&m.regions(), &m.meta).unwrap();
    states.push(m.state());
    a.wait().unwrap().unwrap();
    let dir = StoreDir::at(tmp.path());
    for (i, s) in states.iter().enumerate() {
        assert_eq!(&dir.restore(i as u64 + 1).unwrap().state, s, "checkpoint {}", i + 1);
    }
}
