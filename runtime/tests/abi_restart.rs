//! Whole-program tests of the runtime without the pass: `abi/manual.c` is
//! instrumented by hand exactly as the pass emits code. It is compiled with
//! clang-19 -O0 -no-pie against libdao_rt.a, killed at and inside
//! checkpoints, and restarted.
//!
//! Most tests here check the single-file format (`DAO_STORE=file`, set by
//! `run` unless a test names DAO_STORE); the storage engine, the default,
//! has its crash matrix in tests/store.rs of dao-tests, and
//! `engine_default_*` / `previous_format_*` below.
//!
//! `abi/heapobj.c` (built three ways) has heap objects (ABI 14): the tests
//! at the end check which blocks a checkpoint leaves out, what it lists,
//! the poison of a restart and the records put back.
//!
//! Invariant checked: stdout appended across the killed run and the restart
//! is byte-for-byte the stdout of an uninterrupted run (which requires every
//! live slot, stack object, global and reachable heap block to be restored
//! at its old address, and stdout to be cut back to the checkpoint).
use std::fs::{self, OpenOptions};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

struct Bins {
    manual: PathBuf,
    variant: PathBuf,
    uninstrumented: PathBuf,
    reference: Vec<u8>,
    work: PathBuf,
    lib: PathBuf,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// target/<profile>, from the test executable's path (target/<profile>/deps/x).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

fn build_runtime() -> PathBuf {
    let dir = profile_dir();
    let lib = dir.join("libdao_rt.a");
    let profile = dir.file_name().unwrap().to_str().unwrap().to_string();
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(["build", "-p", "dao-runtime", "--lib"]).current_dir(root());
    if profile == "release" {
        c.arg("--release");
    }
    // Same target directory: the static library lands next to this test.
    c.env("CARGO_TARGET_DIR", dir.parent().unwrap());
    let st = c.status().expect("run cargo build -p dao-runtime");
    assert!(st.success(), "cargo build -p dao-runtime failed");
    assert!(lib.exists(), "{} missing after cargo build", lib.display());
    lib
}

fn cc(lib: &Path, src: &str, out: &Path, defs: &[&str]) {
    let mut c = Command::new("clang-19");
    c.args(["-O0", "-g", "-no-pie", "-Wall", "-Werror"])
        .arg("-I")
        .arg(root().join("include"))
        .args(defs)
        .arg(root().join("tests/abi").join(src))
        .arg(lib)
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s", "-o"])
        .arg(out);
    let o = c.output().expect("run clang-19");
    assert!(o.status.success(), "clang-19 failed on {src}:\n{}", String::from_utf8_lossy(&o.stderr));
}

fn bins() -> &'static Bins {
    static B: OnceLock<Bins> = OnceLock::new();
    B.get_or_init(|| {
        let lib = build_runtime();
        let work = profile_dir().join("abi-test");
        let _ = fs::remove_dir_all(&work);
        fs::create_dir_all(&work).unwrap();
        let manual = work.join("manual");
        let variant = work.join("manual-variant");
        let uninstrumented = work.join("uninstrumented");
        cc(&lib, "manual.c", &manual, &[]);
        cc(&lib, "manual.c", &variant, &["-DVARIANT=2"]);
        cc(&lib, "uninstrumented.c", &uninstrumented, &[]);
        let o = Command::new(&manual).env_remove("DAO_DIR").output().unwrap();
        assert!(o.status.success());
        assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
        let reference = o.stdout;
        assert!(String::from_utf8_lossy(&reference).contains("sum=1345"));
        Bins { manual, variant, uninstrumented, reference, work, lib }
    })
}

/// A fresh scratch directory for one test: DAO_DIR is `<it>/ckpt`.
fn scratch(name: &str) -> PathBuf {
    let d = bins().work.join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `exe` with `env`, stdout appended to `<dir>/out`.
fn run(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Output {
    let out = OpenOptions::new().create(true).append(true).open(dir.join("out")).unwrap();
    let mut c = Command::new(exe);
    for v in ["DAO_EVERY", "DAO_INTERVAL", "DAO_MTBF", "DAO_CRASH_AFTER", "DAO_CRASH_IN", "DAO_SAVE", "DAO_HEAP", "DAO_VERBOSE", "DAO_RESTART", "DAO_STATS", "DAO_STORE", "DAO_INCREMENTAL", "DAO_DEAD", "DAO_ASYNC", "HEAPOBJ_PEEK", "COVER_SHORT"] {
        c.env_remove(v);
    }
    if !env.iter().any(|(k, _)| *k == "DAO_STORE") {
        c.env("DAO_STORE", "file");
    }
    c.env("DAO_DIR", dir.join("ckpt")).envs(env.iter().copied()).stdout(Stdio::from(out)).stderr(Stdio::piped());
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_killed(o: &Output) {
    assert_eq!(o.status.signal(), Some(9), "expected SIGKILL, got {:?}; stderr:\n{}", o.status, stderr(o));
}

fn assert_same_output(dir: &Path) {
    let got = fs::read(dir.join("out")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&bins().reference),
        "output after crash + restart differs from the uninterrupted run"
    );
}

fn flip_byte(p: &Path, at_fraction: f64) {
    let mut b = fs::read(p).unwrap();
    let i = (b.len() as f64 * at_fraction) as usize;
    b[i] ^= 0x40;
    fs::write(p, b).unwrap();
}

#[test]
fn uninterrupted_with_checkpoints_matches_and_finishes() {
    let d = scratch("plain");
    let st = d.join("stats.json");
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_STATS", st.to_str().unwrap())]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert_same_output(&d);
    let ck = d.join("ckpt");
    let names = names(&ck);
    assert!(names.contains(&"ckpt.000012.dao".to_string()) && names.contains(&"finished".to_string()), "{names:?}");
    assert_eq!(names.len(), 3, "DAO_KEEP=2 plus the marker: {names:?}");
    let stats = fs::read_to_string(&st).unwrap();
    assert_eq!(stats.lines().count(), 12);
    assert!(stats.lines().all(|l| l.starts_with("{\"event\":\"checkpoint\"") && l.contains("\"heap_blocks\"")));
    // The run finished: the next run starts from scratch.
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1")]);
    assert!(o.status.success() && !stderr(&o).contains("resuming"), "{}", stderr(&o));
}

fn crash_and_restart(name: &str, crash: &[(&str, &str)], extra: &[(&str, &str)]) -> (PathBuf, String) {
    let d = scratch(name);
    let mut env = vec![("DAO_EVERY", "1")];
    env.extend_from_slice(extra);
    let mut first = env.clone();
    first.extend_from_slice(crash);
    assert_killed(&run(&bins().manual, &d, &first));
    let o = run(&bins().manual, &d, &env);
    assert!(o.status.success(), "restart failed: {:?}\n{}", o.status, stderr(&o));
    let e = stderr(&o);
    assert!(e.starts_with("dao: resuming from "), "{e}");
    assert_same_output(&d);
    (d, e)
}

#[test]
fn crash_after_k_checkpoints_then_restart() {
    for k in ["1", "2", "3"] {
        let (_, e) = crash_and_restart(&format!("after{k}"), &[("DAO_CRASH_AFTER", k)], &[]);
        assert!(e.contains(&format!("ckpt.00000{k}.dao")), "k={k}: {e}");
    }
}

#[test]
fn crash_twice_then_restart() {
    let d = scratch("twice");
    assert_killed(&run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "2")]));
    // The restarted process is killed after ITS 3rd checkpoint: run checkpoint 5.
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "3")]);
    assert_killed(&o);
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "3")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("ckpt.000005.dao"), "{}", stderr(&o));
    assert_same_output(&d);
}

#[test]
fn crash_while_writing_falls_back_to_previous() {
    let (d, e) = crash_and_restart("in3", &[("DAO_CRASH_IN", "3")], &[]);
    assert!(e.contains("ckpt.000002.dao"), "{e}");
    // The torn temp file was cleaned up by the next commit.
    let stale = fs::read_dir(d.join("ckpt")).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"));
    assert!(!stale);
}

#[test]
fn save_everything_and_whole_heap_modes_restart() {
    crash_and_restart("saveall", &[("DAO_CRASH_AFTER", "4")], &[("DAO_SAVE", "all")]);
    crash_and_restart("heapall", &[("DAO_CRASH_AFTER", "4")], &[("DAO_HEAP", "all")]);
}

#[test]
fn reachable_heap_saves_less_than_whole_heap() {
    let size = |name: &str, heap: &str| {
        let d = scratch(name);
        let o = run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_HEAP", heap), ("DAO_CRASH_AFTER", "6")]);
        assert_killed(&o);
        fs::metadata(d.join("ckpt/ckpt.000006.dao")).unwrap().len()
    };
    // 6 leaked 100-byte blocks (7 with the header rounding) are left out.
    assert!(size("reach", "reachable") + 6 * 100 <= size("whole", "all"));
}

#[test]
fn corrupt_newest_falls_back() {
    let d = scratch("corrupt");
    assert_killed(&run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "3")]));
    flip_byte(&d.join("ckpt/ckpt.000003.dao"), 0.5);
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1")]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("ckpt.000003.dao is corrupt") && e.contains("falling back to") && e.contains("ckpt.000002.dao"), "{e}");
    assert_same_output(&d);
}

#[test]
fn all_corrupt_is_a_fatal_error() {
    let d = scratch("allcorrupt");
    assert_killed(&run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "3")]));
    flip_byte(&d.join("ckpt/ckpt.000003.dao"), 0.3);
    let f = OpenOptions::new().write(true).open(d.join("ckpt/ckpt.000002.dao")).unwrap();
    f.set_len(50).unwrap();
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1")]);
    assert_eq!(o.status.code(), Some(3));
    let e = stderr(&o);
    assert!(e.starts_with("dao: error: no valid checkpoint in ") && e.contains("truncated") && e.contains("corrupt"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn checkpoint_of_another_executable_is_refused() {
    let d = scratch("foreign");
    assert_killed(&run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "2")]));
    let o = run(&bins().variant, &d, &[("DAO_EVERY", "1")]);
    assert_eq!(o.status.code(), Some(3));
    let e = stderr(&o);
    assert!(e.starts_with("dao: error: ") && e.contains("ckpt.000002.dao was written by a different executable"), "{e}");
    assert!(e.contains("DAO_RESTART=never"), "{e}");
    // DAO_RESTART=never runs the other executable from scratch.
    let o = run(&bins().variant, &d, &[("DAO_EVERY", "1"), ("DAO_RESTART", "never")]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn unwritable_dir_warns_and_continues() {
    let d = scratch("unwritable");
    fs::write(d.join("ckpt"), b"a file, not a directory").unwrap();
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1")]);
    assert_eq!(o.status.code(), Some(0));
    let e = stderr(&o);
    assert!(e.starts_with("dao: warning: checkpoint directory") && e.contains("running without checkpoints"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert_same_output(&d);
}

#[test]
fn write_errors_warn_once_and_continue() {
    // A directory squatting on the temp-file name makes every commit fail
    // (EISDIR) deterministically, even for root (unlike chmod or ENOSPC).
    let d = scratch("writefail");
    fs::create_dir_all(d.join("ckpt/.ckpt.000001.dao.tmp")).unwrap();
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1")]);
    assert_eq!(o.status.code(), Some(0));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "one warning for twelve failed writes: {e}");
    assert!(e.starts_with("dao: warning: checkpoint directory") && e.contains("ckpt.000001.dao failed"), "{e}");
    assert!(e.contains("previous checkpoint stays current"), "{e}");
    assert_same_output(&d);
}

#[test]
fn markers_without_the_pass_warn_once() {
    let o = Command::new(&bins().uninstrumented).output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), "done\n");
    assert_eq!(
        stderr(&o),
        "dao: warning: dao_potential_checkpoint() called from code not compiled with the dao pass; no checkpoint taken\n"
    );
}

/// The checkpoint directory's files, without `started` (where the fresh
/// run's stdout and stderr began: every fresh run writes it).
fn names(ck: &Path) -> Vec<String> {
    assert!(ck.join("started").is_file(), "a fresh start records DAO_DIR/started");
    let mut v: Vec<String> = fs::read_dir(ck).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n != "started").collect();
    v.sort();
    v
}

/// The default storage (DAO_STORE unset: the engine): checkpoints are
/// store files, a crash after k restarts from store.k.
#[test]
fn engine_default_crash_and_restart() {
    let d = scratch("engine-default");
    let env = [("DAO_EVERY", "1"), ("DAO_STORE", "")];
    assert_killed(&run(&bins().manual, &d, &[env[0], env[1], ("DAO_CRASH_AFTER", "2")]));
    assert_eq!(names(&d.join("ckpt")), ["store.000001.dst", "store.000002.dst"]);
    let o = run(&bins().manual, &d, &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("dao: resuming from ") && stderr(&o).contains("store.000002.dst"), "{}", stderr(&o));
    assert_same_output(&d);
    let n = names(&d.join("ckpt"));
    assert!(n.iter().all(|f| f == "finished" || (f.starts_with("store.") && f.ends_with(".dst"))), "{n:?}");
}

/// A directory written by the previous format (single files, as every
/// release before the engine became the default wrote them) is resumed by
/// the default storage, which continues in its own format; the single
/// files stay as long as they are the only fallback (one chain), and are
/// collected once the engine holds DAO_KEEP_CHAINS complete chains.
#[test]
fn previous_format_directory_is_resumed_and_then_collected() {
    for (mode, single_files_left) in [("incremental", 2), ("full", 0)] {
        let d = scratch(&format!("previous-format-{mode}"));
        assert_killed(&run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_STORE", "file"), ("DAO_CRASH_AFTER", "3")]));
        assert_eq!(names(&d.join("ckpt")), ["ckpt.000002.dao", "ckpt.000003.dao"]);
        let o = run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("DAO_STORE", ""), ("DAO_INCREMENTAL", mode)]);
        let e = stderr(&o);
        assert!(o.status.success(), "{e}");
        assert!(e.starts_with("dao: resuming from ") && e.contains("ckpt.000003.dao"), "{e}");
        assert_same_output(&d);
        let n = names(&d.join("ckpt"));
        assert_eq!(n.iter().filter(|f| f.starts_with("ckpt.")).count(), single_files_left, "{mode}: {n:?}");
        assert!(n.contains(&"store.000012.dst".to_string()), "{mode}: {n:?}");
    }
}

/// A program started by an MPI launcher (here only its variable) but not
/// linked with MPI takes no checkpoints (every process would write the
/// same files): one warning naming how the launcher was seen, no file in
/// DAO_DIR, the output of an uninterrupted run.
#[test]
fn mpi_launch_runs_without_checkpoints() {
    let d = scratch("mpi-launch");
    let o = run(&bins().manual, &d, &[("DAO_EVERY", "1"), ("OMPI_COMM_WORLD_SIZE", "2")]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("this process was started by Open MPI's mpirun: OMPI_COMM_WORLD_SIZE=2 and is not linked with MPI") && e.contains("running without checkpoints"), "{e}");
    assert!(!d.join("ckpt").exists() || names(&d.join("ckpt")).is_empty());
    assert_same_output(&d);
}

// ---- heap objects (ABI 14): abi/heapobj.c ----

/// heapobj.c as it is (w dead at the marker), with -DW_LIVE (w live) and
/// with -DW_COND (w dead under a cover condition), and its uninterrupted
/// output.
struct HeapBins {
    dead: PathBuf,
    live: PathBuf,
    cond: PathBuf,
    reference: Vec<u8>,
}

fn heap_bins() -> &'static HeapBins {
    static B: OnceLock<HeapBins> = OnceLock::new();
    B.get_or_init(|| {
        let b = bins();
        let (dead, live, cond) = (b.work.join("heapobj"), b.work.join("heapobj-live"), b.work.join("heapobj-cond"));
        cc(&b.lib, "heapobj.c", &dead, &[]);
        cc(&b.lib, "heapobj.c", &live, &["-DW_LIVE"]);
        cc(&b.lib, "heapobj.c", &cond, &["-DW_COND"]);
        let o = Command::new(&dead).env_remove("DAO_DIR").output().unwrap();
        assert!(o.status.success() && o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).ends_with("sum=2261376\n"));
        HeapBins { dead, live, cond, reference: o.stdout }
    })
}

/// w's block is 16384 doubles.
const W_BYTES: u64 = 16384 * 8;

/// The heap objects of single-file checkpoint `seq` in `dir`, by name.
fn heap_objects(dir: &Path, seq: u64) -> (dao_format::Checkpoint<'static>, [dao_format::HeapObject<'static>; 2]) {
    let c = dao_format::read_file(&dir.join(format!("ckpt/ckpt.{seq:06}.dao"))).unwrap();
    let find = |name: &str| c.heap.objects.iter().find(|o| o.name == name).unwrap_or_else(|| panic!("no heap object {name}: {:?}", c.heap.objects)).clone();
    let (w, u) = (find("w"), find("u"));
    assert_eq!(c.heap.objects.len(), 2, "{:?}", c.heap.objects);
    (c, [w, u])
}

/// Whether the checkpoint holds the bytes of the block at `addr`.
fn block_saved(c: &dao_format::Checkpoint<'_>, addr: u64) -> bool {
    let b = c.heap.blocks.iter().find(|b| b.addr == addr).expect("a heap object's block is an allocated block");
    b.bytes.is_some()
}

fn assert_same_heap_output(dir: &Path) {
    let got = fs::read(dir.join("out")).unwrap();
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&heap_bins().reference), "output after crash + restart differs from the uninterrupted run");
}

/// Invariant: a heap object dead in every walked frame of its module is
/// left out of the checkpoint (listed with saved false and what rewrites
/// it first; its bytes counted as heap_dead), the live one is saved with
/// why; a restart under DAO_DEAD=poison finds the left-out block and the
/// unreachable one all 0xff while the saved block is intact (the output
/// is the uninterrupted run's), and puts the records back, so the
/// restarted run's next checkpoint leaves the block out again.
#[test]
fn a_dead_heap_object_is_left_out_poisoned_and_its_record_restored() {
    let hb = heap_bins();
    let d = scratch("ho-dead");
    let st = d.join("stats.json");
    assert_killed(&run(&hb.dead, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "3"), ("DAO_STATS", st.to_str().unwrap())]));
    let (c, [w, u]) = heap_objects(&d, 3);
    assert_eq!((w.index, w.size, w.saved, w.loc.as_deref(), w.why.as_deref()), (0, W_BYTES, false, Some("heapobj.c:20"), Some("the loop at heapobj.c:30")));
    assert_eq!((u.index, u.size, u.saved, u.why.as_deref()), (1, W_BYTES, true, Some("read first by the loop at heapobj.c:31")));
    assert!(!block_saved(&c, w.addr) && block_saved(&c, u.addr));
    let stats = fs::read_to_string(&st).unwrap();
    let last = stats.lines().last().unwrap();
    assert!(last.contains(&format!("\"heap\":{W_BYTES},\"heap_dead\":{W_BYTES}}}")) && last.contains("\"heap_objects\":{\"total\":2,\"left_out\":1}"), "{last}");

    // the restart poisons w and the unreachable block x, not u; its first
    // checkpoint (4) leaves w out again, at the same address
    let o = run(&hb.dead, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "1"), ("DAO_DEAD", "poison"), ("DAO_VERBOSE", "1"), ("HEAPOBJ_PEEK", "1")]);
    assert_killed(&o);
    let e = stderr(&o);
    assert!(e.contains("heapobj: resumed at step 2: w poisoned, x poisoned"), "{e}");
    assert!(e.contains(&format!("DAO_DEAD=poison, heap: 2 allocated blocks ({} bytes, 1 of them heap objects left out)", W_BYTES + 64)), "{e}");
    let (c4, [w4, u4]) = heap_objects(&d, 4);
    assert_eq!((w4.addr, w4.size, w4.saved), (w.addr, w.size, false), "the record of w is back after the restart");
    assert!(u4.saved && u4.addr == u.addr && !block_saved(&c4, w.addr));
    // keep: the left-out block has what the fresh process had there
    let o = run(&hb.dead, &d, &[("DAO_EVERY", "1"), ("HEAPOBJ_PEEK", "1")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("heapobj: resumed at step 3: w not poisoned, x not poisoned"), "{}", stderr(&o));
    assert_same_heap_output(&d);
}

/// Invariant: a heap object live in a walked frame, or dead only under a
/// condition that fails, is saved; DAO_HEAP=all and DAO_SAVE=all leave
/// nothing out; a cover condition that holds leaves the block out.
#[test]
fn a_live_heap_object_or_one_whose_condition_fails_is_saved() {
    let hb = heap_bins();
    let saved_w = |exe: &Path, name: &str, env: &[(&str, &str)]| -> bool {
        let d = scratch(name);
        let mut e = vec![("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "2")];
        e.extend_from_slice(env);
        assert_killed(&run(exe, &d, &e));
        let (c, [w, u]) = heap_objects(&d, 2);
        assert!(u.saved && block_saved(&c, u.addr), "{name}: u");
        assert_eq!(w.saved, block_saved(&c, w.addr), "{name}: w's flag and its block");
        w.saved
    };
    assert!(saved_w(&hb.live, "ho-live", &[]), "listed in the site's globals");
    assert!(saved_w(&hb.dead, "ho-heapall", &[("DAO_HEAP", "all")]));
    assert!(saved_w(&hb.dead, "ho-saveall", &[("DAO_SAVE", "all")]));
    assert!(!saved_w(&hb.cond, "ho-cond", &[]), "8 * cover_n reaches its size");
    assert!(saved_w(&hb.cond, "ho-cond-short", &[("COVER_SHORT", "1")]), "8 * (n - 1) does not");
    // a restart of the saved one under poison: w intact, x poisoned
    let d = scratch("ho-cond-restart");
    assert_killed(&run(&hb.cond, &d, &[("DAO_EVERY", "1"), ("DAO_CRASH_AFTER", "2"), ("COVER_SHORT", "1")]));
    let o = run(&hb.cond, &d, &[("DAO_EVERY", "1"), ("COVER_SHORT", "1"), ("DAO_DEAD", "poison"), ("HEAPOBJ_PEEK", "1")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("heapobj: resumed at step 1: w not poisoned, x poisoned"), "{}", stderr(&o));
    assert_same_heap_output(&d);
}

/// Invariant: the storage engine's skeletons carry the heap objects, in
/// the program and from the forked background writer, and a restart from
/// the engine puts the records back (its next checkpoint leaves w out).
#[test]
fn heap_objects_travel_through_the_engine_and_the_forked_writer() {
    let hb = heap_bins();
    for mode in ["off", "wait"] {
        let d = scratch(&format!("ho-engine-{mode}"));
        let env = [("DAO_EVERY", "1"), ("DAO_STORE", ""), ("DAO_ASYNC", mode)];
        assert_killed(&run(&hb.dead, &d, &[env[0], env[1], env[2], ("DAO_CRASH_AFTER", "2")]));
        let o = run(&hb.dead, &d, &env);
        assert!(o.status.success(), "{mode}: {}", stderr(&o));
        assert_same_heap_output(&d);
        let sd = dao_store::StoreDir::at(d.join("ckpt"));
        let (seq, _) = sd.list().unwrap().into_iter().next_back().expect("a store file");
        assert_eq!(seq, 6, "{mode}");
        let r = sd.restore(seq).unwrap();
        let by_key: std::collections::HashMap<u64, &[u8]> = r.state.regions.iter().map(|x| (x.addr, &x.bytes[..])).collect();
        let mut fill = |key: u64, len: u64| by_key.get(&key).and_then(|b| b.get(..len as usize));
        let c = dao_format::decode_skeleton(&r.state.meta, &mut fill).unwrap();
        let w = c.heap.objects.iter().find(|o| o.name == "w").unwrap_or_else(|| panic!("{mode}: {:?}", c.heap.objects));
        assert!(!w.saved && w.why.is_some() && !block_saved(&c, w.addr), "{mode}: {w:?}");
        assert!(c.heap.objects.iter().any(|o| o.name == "u" && o.saved), "{mode}");
    }
}
