//! A forked writer: the child process runs the engine's checkpoint on its
//! copy-on-write image and hands what it moved forward (the chain state and
//! the new signature) back; the parent imports it and continues the chain.
//! Invariant: after the import the parent's next checkpoint is exactly what
//! it would have been had it committed the child's checkpoint itself (same
//! kind, same parent, same restored state), in every mode.
mod common;

use common::{Model, Op};
use dao_store::{Engine, Kind, Mode, StoreConfig, StoreDir};

fn engine(dir: &std::path::Path, mode: Mode) -> Engine {
    Engine::open(dir, StoreConfig { mode, block_size: 1024, hash_threads: 2, ..StoreConfig::default() }).unwrap()
}

/// Held by each test for its whole run: the harness runs tests on threads
/// of one process, and a child forked while another test's thread holds
/// an allocator or pool lock inherits it held and waits forever (seen
/// once: a child asleep on a futex, its parent in waitpid). In the
/// runtime the other threads are parked in the checkpoint protocol when
/// the writer forks; here they are serialized.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Commits one checkpoint of `m` in a forked child; returns the child's export.
fn in_child(e: &mut Engine, m: &Model) -> Vec<u8> {
    let regions = m.regions();
    let bound = e.advance_bound(&regions);
    // SAFETY: an anonymous shared mapping of `bound + 8` bytes, unmapped below.
    let shm = unsafe {
        libc::mmap(std::ptr::null_mut(), bound + 8, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1, 0)
    };
    assert_ne!(shm, libc::MAP_FAILED);
    // SAFETY: fork; the child only runs the engine and _exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let code = (|| {
            e.after_fork().ok()?;
            let c = e.checkpoint(&regions, &m.meta).ok()?;
            let b = e.export_advance(&c);
            if b.len() > bound {
                return None;
            }
            // SAFETY: the mapping holds bound + 8 bytes.
            unsafe {
                std::ptr::copy_nonoverlapping((b.len() as u64).to_le_bytes().as_ptr(), shm.cast::<u8>(), 8);
                std::ptr::copy_nonoverlapping(b.as_ptr(), shm.cast::<u8>().add(8), b.len());
            }
            Some(())
        })()
        .map_or(1, |_| 0);
        // SAFETY: leave the child without destructors.
        unsafe { libc::_exit(code) };
    }
    let mut st = 0;
    // SAFETY: waiting for our child.
    unsafe { libc::waitpid(pid, &mut st, 0) };
    assert!(libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == 0, "child failed: {st}");
    // SAFETY: reading what the child wrote into the mapping, then unmapping it.
    let b = unsafe {
        let mut n = [0u8; 8];
        std::ptr::copy_nonoverlapping(shm.cast::<u8>(), n.as_mut_ptr(), 8);
        let n = u64::from_le_bytes(n) as usize;
        let v = std::slice::from_raw_parts(shm.cast::<u8>().add(8), n).to_vec();
        libc::munmap(shm, bound + 8);
        v
    };
    b
}

#[test]
fn a_forked_writers_chain_continues_in_the_parent() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for mode in [Mode::Full, Mode::Incremental, Mode::Differential, Mode::Adaptive] {
        let forked = tempfile::tempdir().unwrap();
        let direct = tempfile::tempdir().unwrap();
        let mut ef = engine(forked.path(), mode);
        let mut ed = engine(direct.path(), mode);
        let mut m = Model::new(&[300_000, 7000, 2048]);
        let mut states = Vec::new();
        for i in 0..6usize {
            let b = in_child(&mut ef, &m);
            ef.import_advance(&b).unwrap();
            let d = ed.checkpoint(&m.regions(), &m.meta).unwrap();
            assert_eq!(ef.next_seq(), ed.next_seq(), "{mode:?} step {i}");
            states.push((d.seq, d.kind, d.parent, m.state()));
            m.apply(&Op::Write { r: 0, off: i * 4000, len: 2500, seed: i as u8 + 1 }, i + 1);
        }
        let dir = StoreDir::at(forked.path());
        let ddir = StoreDir::at(direct.path());
        let names = |d: &StoreDir| d.list().unwrap().into_iter().map(|(s, _)| s).collect::<Vec<_>>();
        assert_eq!(names(&dir), names(&ddir), "{mode:?}: garbage collection kept the same files");
        let mut checked = 0;
        for (seq, kind, parent, state) in &states {
            if ddir.restore(*seq).is_err() {
                continue; // collected
            }
            let r = dir.restore(*seq).unwrap();
            assert_eq!(&r.state, state, "{mode:?} checkpoint {seq}");
            assert_eq!(r.header.kind, *kind, "{mode:?} checkpoint {seq}: the same kind as the engine that committed itself");
            assert_eq!(if *kind == Kind::Full { None } else { Some(r.header.parent_seq) }, *parent, "{mode:?} checkpoint {seq}");
            checked += 1;
        }
        assert!(checked >= 2, "{mode:?}: {checked} checkpoints left to compare");
        if mode != Mode::Full {
            assert!(states.iter().any(|s| s.1 != Kind::Full), "{mode:?}: deltas were written");
        }
    }
}

#[test]
fn a_malformed_hand_over_is_an_error() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let mut e = engine(tmp.path(), Mode::Incremental);
    assert!(e.import_advance(b"short").is_err());
    let m = Model::new(&[5000]);
    let b = in_child(&mut e, &m);
    assert!(e.import_advance(&b[..b.len() - 3]).is_err());
    e.import_advance(&b).unwrap();
}
