//! Invariant: a checkpoint that fails, panics or is killed in any stage of
//! the pipeline (collection, compression, writing, fsync, rename) leaves no
//! file marked complete: the directory holds no new `store.*.dst`, a
//! restore returns the previous checkpoint exactly, and the next checkpoint
//! is taken against the last *committed* one.
mod common;

use common::{Model, Op};
use dao_store::fault::{Action, Fault, Stage};
use dao_store::{Codec, Engine, Kind, Mode, PipelineConfig, StoreConfig, StoreDir};

const STAGES: [Stage; 5] = [Stage::Collect, Stage::Compress, Stage::Write, Stage::Sync, Stage::Rename];

fn cfg() -> StoreConfig {
    cfg_with(Codec::Zstd(1))
}

/// Codec none runs the pipeline without threads (pipeline.rs `Inline`):
/// the same stages fail the same way.
fn cfg_with(codec: Codec) -> StoreConfig {
    StoreConfig {
        mode: Mode::Incremental,
        block_size: 1024,
        pipeline: PipelineConfig {
            codec,
            buffer_size: 4096,
            queue_depth: 2,
            workers: 2,
            write_size: 8192,
            ..PipelineConfig::default()
        },
        ..StoreConfig::default()
    }
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn error_or_panic_in_every_stage_leaves_nothing_marked_complete() {
    for (stage, codec) in STAGES.into_iter().flat_map(|s| [(s, Codec::Zstd(1)), (s, Codec::None)]) {
        for action in [Action::Error, Action::Panic] {
            let tmp = tempfile::tempdir().unwrap();
            let mut e = Engine::open(tmp.path(), cfg_with(codec)).unwrap();
            let mut m = Model::new(&[64_000, 100]);
            let first = e.checkpoint(&m.regions(), &m.meta).unwrap();
            let before = names(tmp.path());
            m.apply(&Op::Write { r: 0, off: 0, len: 64_000, seed: 4 }, 1);
            e.set_fault(Some(Fault { stage, at_chunk: 3, action }));
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| e.checkpoint(&m.regions(), &m.meta)));
            let failed = match &r {
                Ok(Ok(_)) => false,
                Ok(Err(_)) | Err(_) => true,
            };
            assert!(failed, "{stage:?}/{action:?}: the checkpoint did not fail");
            assert_eq!(names(tmp.path()), before, "{stage:?}/{action:?}: directory changed");
            let dir = StoreDir::at(tmp.path());
            let back = dir.restore_latest().unwrap();
            assert_eq!(back.seq, first.seq);
            assert_ne!(back.state, m.state());
            // The next checkpoint is a delta against the committed one.
            e.set_fault(None);
            let next = e.checkpoint(&m.regions(), &m.meta).unwrap();
            assert_eq!((next.kind, next.parent), (Kind::Incremental, Some(first.seq)), "{stage:?}/{action:?}");
            assert_eq!(dir.restore_latest().unwrap().state, m.state());
        }
    }
}

#[test]
fn a_body_error_mid_stream_removes_the_temp_file() {
    let tmp = tempfile::tempdir().unwrap();
    let h = dao_store::file::FileHeader {
        kind: Kind::Full,
        hash: dao_store::HashKind::Xxh3,
        seq: 1,
        base_seq: 1,
        parent_seq: 0,
        parent_id: 0,
        block_size: 4096,
    };
    let r = dao_store::file::write_file(tmp.path(), "store.000001.dst", &h, &cfg().pipeline, None, |p| {
        p.push(&vec![7u8; 100_000])?;
        Err(dao_store::StoreError::InvalidInput("stop".into()))
    });
    assert!(r.is_err());
    assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
}

#[test]
fn dropping_the_pipeline_mid_way_leaves_an_uncommitted_stream() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let out = Shared::default();
    let h = dao_store::file::FileHeader {
        kind: Kind::Full,
        hash: dao_store::HashKind::Xxh3,
        seq: 1,
        base_seq: 1,
        parent_seq: 0,
        parent_id: 0,
        block_size: 4096,
    };
    out.0.lock().unwrap().extend_from_slice(&dao_store::file::encode_header(&h));
    let mut p = dao_store::PipelineWriter::new(out.clone(), &cfg().pipeline).unwrap();
    p.push(&vec![1u8; 50_000]).unwrap();
    drop(p); // killed before finish: threads stop, no commit record
    let b = out.0.lock().unwrap().clone();
    assert!(matches!(dao_store::file::verify(&b), Err(dao_store::StoreError::Uncommitted { .. })));
}

/// Child side of `kill_in_every_stage`: commits one checkpoint, then dies
/// (abort, no cleanup) in the stage named by DAO_STORE_KILL.
#[test]
#[ignore = "run by kill_in_every_stage in a child process"]
fn kill_child() {
    let Ok(which) = std::env::var("DAO_STORE_KILL") else { return };
    let stage = STAGES[which.parse::<usize>().unwrap()];
    let dir = std::env::var("DAO_STORE_KILL_DIR").unwrap();
    let mut e = Engine::open(&dir, cfg()).unwrap();
    let mut m = Model::new(&[64_000, 100]);
    e.checkpoint(&m.regions(), &m.meta).unwrap();
    m.apply(&Op::Write { r: 0, off: 0, len: 64_000, seed: 4 }, 1);
    e.set_fault(Some(Fault { stage, at_chunk: 3, action: Action::Abort }));
    let _ = e.checkpoint(&m.regions(), &m.meta);
    unreachable!("the fault did not fire");
}

#[test]
fn kill_in_every_stage() {
    let exe = std::env::current_exe().unwrap();
    for (i, stage) in STAGES.iter().enumerate() {
        let tmp = tempfile::tempdir().unwrap();
        let st = std::process::Command::new(&exe)
            .args(["kill_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("DAO_STORE_KILL", i.to_string())
            .env("DAO_STORE_KILL_DIR", tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(st.signal(), Some(libc_sigabrt()), "{stage:?}: child was not killed: {st:?}");
        let n = names(tmp.path());
        assert!(n.contains(&"store.000001.dst".to_string()), "{stage:?}: {n:?}");
        assert!(!n.contains(&"store.000002.dst".to_string()), "{stage:?}: a killed checkpoint is visible: {n:?}");
        let dir = StoreDir::at(tmp.path());
        let r = dir.restore_latest().unwrap();
        assert_eq!(r.seq, 1);
        assert_eq!(r.state, Model::new(&[64_000, 100]).state());
        // The temp file a kill leaves is garbage that GC removes.
        let gc = dir.gc(1).unwrap();
        assert!(gc.iter().all(|p| p.file_name().unwrap().to_string_lossy().ends_with(".tmp")), "{gc:?}");
        assert_eq!(names(tmp.path()), vec!["store.000001.dst".to_string()]);
        // And a new engine continues after it.
        let mut e = Engine::open(tmp.path(), cfg()).unwrap();
        assert_eq!(e.next_seq(), 2);
        let m = Model::new(&[10]);
        assert_eq!(e.checkpoint(&m.regions(), &m.meta).unwrap().kind, Kind::Full);
    }
}

fn libc_sigabrt() -> i32 {
    6
}

static HOOK_CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
fn count_hook() {
    HOOK_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// `at_chunk: MIDDLE` fires exactly once per checkpoint, whatever the
/// payload's size (full or delta, one chunk or many), in the stage named,
/// and a Hook that returns lets the checkpoint commit (the runtime's
/// DAO_CRASH_IN hook kills the process there instead). The async engine
/// passes the fault on with every staged checkpoint and numbers them.
#[test]
fn middle_chunk_hook_fires_once_for_every_payload_size() {
    use dao_store::fault::MIDDLE;
    let tmp = tempfile::tempdir().unwrap();
    let mut e = Engine::open(tmp.path(), cfg()).unwrap();
    let mut m = Model::new(&[64_000, 100, 20_000]);
    let mut want = 0;
    for (i, stage) in [Stage::Write, Stage::Collect, Stage::Compress, Stage::Write, Stage::Write].into_iter().enumerate() {
        // first a full checkpoint (17 chunks of 4 KiB), then small deltas (1 chunk)
        e.set_fault(Some(Fault { stage, at_chunk: MIDDLE, action: Action::Hook(count_hook) }));
        let c = e.checkpoint(&m.regions(), &m.meta).unwrap();
        want += 1;
        assert_eq!(HOOK_CALLS.load(std::sync::atomic::Ordering::SeqCst), want, "checkpoint {i} ({:?}, {} bytes)", c.kind, c.raw_bytes);
        m.apply(&Op::Write { r: i, off: 10, len: 5, seed: i as u8 }, 1);
    }
    e.set_fault(None);
    let mut a = dao_store::AsyncEngine::new(e, dao_store::AsyncPolicy::Wait).unwrap();
    let next = a.next_seq();
    assert_eq!(next, 6);
    a.set_fault(Some(Fault { stage: Stage::Write, at_chunk: MIDDLE, action: Action::Hook(count_hook) }));
    a.checkpoint(&m.regions(), &m.meta).unwrap();
    assert_eq!(a.next_seq(), next + 1);
    let c = a.wait().unwrap().unwrap();
    assert_eq!(c.seq, next);
    assert_eq!(HOOK_CALLS.load(std::sync::atomic::Ordering::SeqCst), want + 1);
}
