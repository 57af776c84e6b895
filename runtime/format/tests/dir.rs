//! The checkpoint directory: atomic commit, retention, fallback to an older
//! valid checkpoint, and the finished marker.
mod common;
use std::path::PathBuf;

use dao_format::*;

fn tmpdir(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("dao-format-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

fn commit(d: &CheckpointDir, run: u64, seq: u64) -> PathBuf {
    let c = common::sample(run, seq);
    d.commit(seq, |w| Writer::write_all(w, &c).map(|_| ())).unwrap()
}

#[test]
fn commit_prune_and_select() {
    let p = tmpdir("select");
    let d = CheckpointDir::open(&p).unwrap();
    std::fs::write(p.join(".ckpt.000009.dao.tmp"), b"stale").unwrap();
    for s in 1..=4 {
        commit(&d, 77, s);
        d.prune(77, DEFAULT_KEEP).unwrap();
    }
    let names: Vec<u64> = d.list().unwrap().into_iter().map(|x| x.0).collect();
    assert_eq!(names, vec![3, 4]);
    assert!(!p.join(".ckpt.000009.dao.tmp").exists());
    assert_eq!(d.max_seq(), 4);

    let l = d.latest_valid().unwrap();
    let (path, bytes) = l.found.unwrap();
    assert!(path.ends_with("ckpt.000004.dao"));
    assert_eq!(decode(&bytes).unwrap().header.seq, 4);
    assert!(l.skipped.is_empty());

    // Corrupt the newest: fall back to the previous one, naming the reason.
    let newest = p.join("ckpt.000004.dao");
    let mut b = std::fs::read(&newest).unwrap();
    let n = b.len();
    b[n - 40] ^= 0x10;
    std::fs::write(&newest, &b).unwrap();
    let l = d.latest_valid().unwrap();
    assert!(l.found.unwrap().0.ends_with("ckpt.000003.dao"));
    assert_eq!(l.skipped.len(), 1);
    assert!(l.skipped[0].path.ends_with("ckpt.000004.dao"));
    assert!(l.skipped[0].error.reason().contains("section HEAP"), "{}", l.skipped[0].error);

    // Truncate the other one too: nothing valid, two reasons.
    let f = std::fs::OpenOptions::new().write(true).open(p.join("ckpt.000003.dao")).unwrap();
    f.set_len(100).unwrap();
    let l = d.latest_valid().unwrap();
    assert!(l.found.is_none());
    assert_eq!(l.skipped.len(), 2);
    assert!(matches!(l.skipped[1].error, FormatError::Truncated { got: 100, .. }));
    std::fs::remove_dir_all(&p).unwrap();
}

#[test]
fn finished_runs_are_not_resumed() {
    let p = tmpdir("finished");
    let d = CheckpointDir::open(&p).unwrap();
    commit(&d, 1, 1);
    commit(&d, 1, 2);
    assert!(d.latest_valid().unwrap().found.is_some());
    d.mark_finished(1).unwrap();
    assert_eq!(d.finished_run(), Some(1));
    let l = d.latest_valid().unwrap();
    assert!(l.found.is_none() && l.skipped.is_empty());
    // A new run's checkpoint is found again; prune removes the old run's files.
    commit(&d, 2, 3);
    assert!(d.latest_valid().unwrap().found.unwrap().0.ends_with("ckpt.000003.dao"));
    d.prune(2, 2).unwrap();
    assert_eq!(d.list().unwrap().len(), 1);
    std::fs::remove_dir_all(&p).unwrap();
}

#[test]
fn failed_commit_leaves_no_file() {
    let p = tmpdir("fail");
    let d = CheckpointDir::open(&p).unwrap();
    let r = d.commit(1, |w| {
        use std::io::Write;
        w.write_all(b"partial")?;
        Err(std::io::Error::other("disk full"))
    });
    let e = r.unwrap_err();
    assert!(e.to_string().contains("ckpt.000001.dao"), "{e}");
    assert_eq!(std::fs::read_dir(&p).unwrap().count(), 0);
    std::fs::remove_dir_all(&p).unwrap();
}

#[test]
fn unwritable_directory_is_an_open_error() {
    let p = tmpdir("unwritable");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("file"), b"x").unwrap();
    let e = CheckpointDir::open(p.join("file").join("sub")).unwrap_err();
    assert!(matches!(e, DirError::Open { .. }));
    std::fs::remove_dir_all(&p).unwrap();
}

/// A run that starts fresh past stale checkpoints and finishes without
/// writing one must not make the stale ones resumable again (the marker
/// covers every sequence number present when a run finishes).
#[test]
fn a_finished_run_without_checkpoints_keeps_older_ones_stale() {
    let t = tmpdir("finished-empty-run");
    let d = CheckpointDir::open(&t).unwrap();
    commit(&d, 7, 1);
    commit(&d, 7, 2);
    d.mark_finished(7).unwrap();
    assert!(d.latest_valid().unwrap().found.is_none());
    // run 8 starts fresh, writes nothing, finishes
    d.mark_finished(8).unwrap();
    assert_eq!(d.finished_run(), Some(8));
    assert!(d.latest_valid().unwrap().found.is_none(), "stale checkpoints of run 7 came back");
    // run 9 writes checkpoint 3 and is killed: it must be found
    commit(&d, 9, 3);
    let l = d.latest_valid().unwrap();
    assert!(l.found.as_ref().is_some_and(|(p, _)| p.ends_with("ckpt.000003.dao")));
}

/// The `started` record: round trip, replaced atomically, and a torn or
/// foreign file is ignored rather than half applied.
#[test]
fn started_record_round_trip_and_torn_files() {
    let t = tmpdir("started");
    let d = CheckpointDir::open(&t).unwrap();
    assert_eq!(d.started(), None);
    let s = Started {
        run_id: 0xdead_beef_0123_4567,
        streams: vec![StreamStart { fd: 1, dev: 2049, ino: 77, offset: 1234 }, StreamStart { fd: 2, dev: 2049, ino: 78, offset: 0 }],
    };
    d.record_started(&s).unwrap();
    assert_eq!(d.started(), Some(s.clone()));
    let none = Started { run_id: 9, streams: vec![] };
    d.record_started(&none).unwrap();
    assert_eq!(d.started(), Some(none));
    assert!(!t.join(".started.tmp").exists());
    for torn in ["", "fd 1 2 3 4\n", "run 9\nfd 1 2 3\n", "run 9\nfd 1 2 3 -5\n", "run xyz\n", "run 9\nsomething else\n"] {
        std::fs::write(t.join("started"), torn).unwrap();
        assert_eq!(d.started(), None, "{torn:?}");
    }
    // finished markers and checkpoints do not see it
    commit(&d, 9, 1);
    assert!(d.latest_valid().unwrap().found.is_some());
    std::fs::remove_dir_all(&t).unwrap();
}

/// The two phases of a commit apart (MPI ranks agree between them): a
/// prepared checkpoint is synced under its temp name and invisible until
/// published; discarded or dropped, its temp file is gone.
#[test]
fn prepare_then_publish_or_discard() {
    let p = tmpdir("prepare");
    let d = CheckpointDir::open(&p).unwrap();
    let c = common::sample(5, 1);
    let prep = d.prepare_file(1, |f| Writer::write_all(std::io::BufWriter::new(f), &c).map(|_| ())).unwrap();
    assert!(prep.temp_path().exists());
    assert!(d.list().unwrap().is_empty(), "not visible before publish");
    let path = prep.publish().unwrap();
    assert!(path.ends_with("ckpt.000001.dao"));
    assert_eq!(d.latest_valid().unwrap().found.unwrap().0, path);
    let prep = d.prepare_file(2, |f| Writer::write_all(std::io::BufWriter::new(f), &common::sample(5, 2)).map(|_| ())).unwrap();
    let tmp = prep.temp_path().to_path_buf();
    prep.discard();
    assert!(!tmp.exists());
    {
        let _dropped = d.prepare_named("ckpt.000002.mpi", |mut f| std::io::Write::write_all(&mut f, b"side")).unwrap();
    }
    assert!(!p.join(".ckpt.000002.mpi.tmp").exists() && !p.join("ckpt.000002.mpi").exists());
    assert_eq!(d.list().unwrap().len(), 1);
    // a failed write leaves nothing
    let e = d.prepare_file(3, |_| Err(std::io::Error::other("disk full"))).unwrap_err();
    assert!(e.to_string().contains("disk full"), "{e}");
    assert!(!p.join(".ckpt.000003.dao.tmp").exists());
    let _ = std::fs::remove_dir_all(&p);
}
