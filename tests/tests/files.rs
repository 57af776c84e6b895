//! Open files across checkpoints (issue #31): the programs of
//! `test-programs/files/` keep files open across their markers (stdio
//! streams opened "r", "w", "a" and "r+", descriptors from open(2) with
//! write and pwrite, a dup'ed descriptor, files closed and opened again
//! between checkpoints, a file opened inside a parallel region by one
//! thread, Fortran units opened and closed around the marker, an input
//! unit held open (refused), output units held open (put back)) and go through every crash scenario of `dao_tests::scenario` at
//! -O0 and -O2 (OpenMP: several thread counts, both protocols).
//!
//! Invariant: every file the program writes ends byte for byte as in an
//! uninterrupted run (the programs print each file's length and digest at
//! the end, so the output comparison covers them), and the FILE pointers
//! and descriptors the program holds stay valid after a restart.
//!
//! Stopped before the first checkpoint (`early_output`): the next start
//! has nothing to resume and starts again from the beginning; what the
//! stopped run wrote to stdout, stderr and its files is cut back first.
//!
//! After a crash: small written files deleted or rewritten are written back
//! by the restart; an input file edited, a long written file (over the
//! 1 MiB a checkpoint saves whole) deleted, cut or changed before its end,
//! or a written file replaced by a directory: the restart stops with an
//! error naming the file and what differs, and the checkpoint directory is
//! left as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

use dao_tests::build::{build_sources, dao_env, Lang, Opt, Variant};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::scenario::{check_plan, Plan};

fn source(lang: Lang, name: &str) -> PathBuf {
    let (sub, ext) = if lang == Lang::C { ("c", "c") } else { ("fortran", "f90") };
    tools().repo.join("test-programs/files").join(sub).join(format!("{name}.{ext}"))
}

fn builds(lang: Lang, name: &str, opt: Opt, omp: bool, dir: &Path) -> (PathBuf, PathBuf) {
    let src = source(lang, name);
    let flags: Vec<String> = if omp { vec!["-fopenmp".into()] } else { vec![] };
    let clean = build_sources(lang, std::slice::from_ref(&src), &flags, opt, Variant::Clean, dir).unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build_sources(lang, std::slice::from_ref(&src), &flags, opt, Variant::Instrumented, dir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
    (clean, inst)
}

/// `args` after the files' directory (made here, shared by every run of the
/// case: each run starts its files afresh, a restart continues them).
fn check(lang: Lang, name: &str, opt: Opt, omp: Option<(u32, &str)>, args: &[&'static str], every: u64) {
    let tag = match omp {
        Some((t, p)) => format!("files-{name}-{}-t{t}-{p}", opt.name()),
        None => format!("files-{name}-{}", opt.name()),
    };
    let dir = fresh_dir(&tag);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let (clean, inst) = builds(lang, name, opt, omp.is_some(), &dir);
    let data_arg: &'static str = Box::leak(data.display().to_string().into_boxed_str());
    let all: Vec<&str> = std::iter::once(data_arg).chain(args.iter().copied()).collect();
    let all: &'static [&'static str] = Box::leak(all.into_boxed_slice());
    let mut env = vec![];
    if let Some((t, p)) = omp {
        env.push(("OMP_NUM_THREADS", t.to_string()));
        env.push(("DAO_PROTOCOL", p.to_string()));
    }
    check_plan(&Plan {
        label: tag.clone(),
        dir,
        clean,
        inst,
        args: all,
        env,
        every,
        crash_after: &[1, 3, 6],
        crash_in: &[2, 5],
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
}

#[test]
fn io_streams_o0() {
    check(Lang::C, "io_streams", Opt::O0, None, &["60"], 5);
}
#[test]
fn io_streams_o2() {
    check(Lang::C, "io_streams", Opt::O2, None, &["60"], 5);
}
#[test]
fn io_parallel_o0_t2() {
    check(Lang::C, "io_parallel", Opt::O0, Some((2, "nonblocking")), &["64"], 5);
}
#[test]
fn io_parallel_o2_t4() {
    check(Lang::C, "io_parallel", Opt::O2, Some((4, "nonblocking")), &["64"], 5);
}
#[test]
fn io_parallel_blocking_o2_t3() {
    check(Lang::C, "io_parallel", Opt::O2, Some((3, "blocking")), &["64"], 5);
}
/// units_closed.f90: the results unit opened and closed every step, the
/// input unit held open for 30 steps (put back at its read position).
#[test]
fn f_units_closed_o0() {
    check(Lang::Fortran, "units_closed", Opt::O0, None, &["60", "30"], 5);
}
#[test]
fn f_units_closed_o2() {
    check(Lang::Fortran, "units_closed", Opt::O2, None, &["60", "30"], 5);
}

/// Fortran input units held open across the markers (input_decks.f90,
/// CloverLeaf's and TeaLeaf's shape: a deck read to its end and never
/// closed, a formatted and an unformatted sequential data file read as
/// the steps go): opened again rewound at a restart and read past the
/// records before their checkpointed position, which is then checked.
#[test]
fn f_input_decks_o0() {
    check(Lang::Fortran, "input_decks", Opt::O0, None, &["40"], 3);
}
#[test]
fn f_input_decks_o2() {
    check(Lang::Fortran, "input_decks", Opt::O2, None, &["40"], 3);
}

/// Fortran output units held open across the markers (unit_log.f90: a
/// log opened with ACTION='WRITE', a NEWUNIT= stream file): opened again
/// through flang's OPEN at a restart, their files cut back first.
#[test]
fn f_unit_log_o0() {
    check(Lang::Fortran, "unit_log", Opt::O0, None, &["60"], 5);
}
#[test]
fn f_unit_log_o2() {
    check(Lang::Fortran, "unit_log", Opt::O2, None, &["60"], 5);
}

/// A Fortran input unit of stream access held open refuses the
/// checkpoints while it is, with a warning naming its file, and the run's
/// result is still right.
#[test]
fn fortran_unit_held_open_refuses_with_its_name() {
    let dir = fresh_dir("files-fortran-held");
    let (_, inst) = builds(Lang::Fortran, "units_closed", Opt::O2, false, &dir);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut c = Command::new(&inst);
    c.arg(&data).args(["20", "20", "stream"]).env("DAO_DIR", dir.join("ckpt")).env("DAO_EVERY", "2");
    let o = c.output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("checkpoint not taken") && e.contains("held.txt") && e.contains("Fortran unit") && e.contains("open for reading"), "{e}");
}

/// Crash io_streams (with `pad` bytes after each binary record) after its
/// 3rd checkpoint, change the files with `damage`, restart. `damage`
/// returns the words the restart's error must contain, or none: then the
/// restart must succeed with the clean run's output.
fn after_crash(tag: &str, pad: &str, damage: impl FnOnce(&Path) -> Vec<String>) {
    let dir = fresh_dir(&format!("files-bad-{tag}"));
    let (clean, inst) = builds(Lang::C, "io_streams", Opt::O2, false, &dir);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let ck = dir.join("ckpt");
    let run = |exe: &Path, extra: &[(&str, &str)]| {
        let mut c = Command::new(exe);
        c.arg(&data).args(["60", pad]).env("DAO_DIR", &ck).env("DAO_EVERY", "5");
        for (k, v) in extra {
            c.env(k, v);
        }
        dao_env(&mut c);
        c.output().unwrap()
    };
    let reference = run(&clean, &[]);
    assert!(reference.status.success());
    let o = run(&inst, &[("DAO_CRASH_AFTER", "3")]);
    assert!(!o.status.success(), "the first run must be killed after its 3rd checkpoint");
    let listing = |d: &Path| {
        let mut v: Vec<(String, u64)> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap()).map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len())).collect();
        v.sort();
        v
    };
    let before = listing(&ck);
    let want = damage(&data);
    let o = run(&inst, &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    if want.is_empty() {
        assert!(o.status.success() && e.contains("dao: resuming"), "the restart must resume: {e}");
        // the killed run printed nothing (the output comes at the end)
        assert_eq!(String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&reference.stdout), "{e}");
        return;
    }
    assert!(!o.status.success(), "the restart must stop: {e}");
    for w in &want {
        assert!(e.contains(w.as_str()), "the error must name `{w}`: {e}");
    }
    assert!(e.contains("cannot resume"), "{e}");
    assert_eq!(listing(&ck), before, "the checkpoint directory must be left as it was");
}

#[test]
fn bad_input_edited() {
    after_crash("input", "0", |d| {
        let p = d.join("input.txt");
        let mut t = std::fs::read_to_string(&p).unwrap();
        t.push_str("99.0 an extra line\n");
        std::fs::write(&p, t).unwrap();
        vec![p.display().to_string(), "changed since the checkpoint".into()]
    });
}

/// Written files up to 1 MiB are saved whole: deleted, cut or rewritten
/// after the crash, a restart writes them back as they were.
#[test]
fn small_written_files_are_written_back() {
    after_crash("small-written", "0", |d| {
        std::fs::remove_file(d.join("result.txt")).unwrap();
        std::fs::write(d.join("table.txt"), "garbage").unwrap();
        std::fs::write(d.join("records.bin"), "").unwrap();
        vec![]
    });
}

#[test]
fn bad_long_written_file_deleted() {
    after_crash("deleted", "100000", |d| {
        let p = d.join("records.bin");
        std::fs::remove_file(&p).unwrap();
        vec![p.display().to_string(), "no longer exists".into()]
    });
}

#[test]
fn bad_long_written_file_shorter() {
    after_crash("shorter", "100000", |d| {
        let p = d.join("records.bin");
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        f.set_len(1000).unwrap();
        vec![p.display().to_string(), "shorter than at the checkpoint".into()]
    });
}

#[test]
fn bad_long_written_file_changed_in_place() {
    after_crash("changed", "100000", |d| {
        let p = d.join("records.bin");
        let mut b = std::fs::read(&p).unwrap();
        b[100] ^= 0xff;
        std::fs::write(&p, b).unwrap();
        vec![p.display().to_string(), "changed before its end".into()]
    });
}

#[test]
fn bad_written_file_now_a_directory() {
    after_crash("directory", "0", |d| {
        let p = d.join("run.log");
        std::fs::remove_file(&p).unwrap();
        std::fs::create_dir(&p).unwrap();
        vec![p.display().to_string(), "no longer".into()]
    });
}

/// One run of `early_output` with stdout and stderr appended to
/// `out` and `err`, as a job script's `>> log` does.
fn early_run(exe: &Path, data: &Path, ck: &Path, out: &Path, err: &Path, extra: &[(&str, &str)]) -> std::process::ExitStatus {
    let open = |p: &Path| std::fs::OpenOptions::new().create(true).append(true).open(p).unwrap();
    let mut c = Command::new(exe);
    c.arg(data).arg("30").env("DAO_DIR", ck).env("DAO_EVERY", "4").stdout(open(out)).stderr(open(err));
    for (k, v) in extra {
        c.env(k, v);
    }
    dao_env(&mut c);
    c.status().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// stderr without the runtime's own lines.
fn program_err(p: &Path) -> String {
    read(p).lines().filter(|l| !l.starts_with("dao: ")).map(|l| format!("{l}\n")).collect()
}

/// The reference: the clean build, uninterrupted; returns (stdout, stderr, log).
fn early_reference(dir: &Path, clean: &Path) -> (String, String, String) {
    let d = dir.join("ref");
    std::fs::create_dir_all(&d).unwrap();
    let st = early_run(clean, &d, &d.join("unused"), &d.join("out"), &d.join("err"), &[]);
    assert!(st.success());
    (read(&d.join("out")), read(&d.join("err")), read(&d.join("log.txt")))
}

/// A run stopped before its first checkpoint, started again, killed after
/// its second checkpoint and resumed: stdout, stderr and the log end as in
/// one uninterrupted run, and the second start says what it cut back.
fn stopped_before_first_checkpoint(lang: Lang, opt: Opt) {
    let dir = fresh_dir(&format!("files-early-stop-{}{}", if lang == Lang::C { "c" } else { "f" }, opt.name()));
    let (clean, inst) = builds(lang, "early_output", opt, false, &dir);
    let (r_out, r_err, r_log) = early_reference(&dir, &clean);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let (ck, out, err) = (dir.join("ckpt"), dir.join("out"), dir.join("err"));
    let st = early_run(&inst, &data, &ck, &out, &err, &[("EARLY_STOP", "1")]);
    assert!(!st.success(), "the first run must stop itself");
    assert!(read(&out).starts_with("header") && read(&data.join("log.txt")).contains("setup line 199"));
    let st = early_run(&inst, &data, &ck, &out, &err, &[("DAO_CRASH_AFTER", "2")]);
    assert!(!st.success(), "the second run must be killed after its 2nd checkpoint");
    let e = read(&err);
    assert!(e.contains("stopped before its first one") && e.contains("stdout cut back by") && e.contains("1 file it wrote cut back"), "{e}");
    let st = early_run(&inst, &data, &ck, &out, &err, &[]);
    assert!(st.success() && read(&err).contains("dao: resuming"), "{}", read(&err));
    assert_eq!(read(&out), r_out);
    assert_eq!(program_err(&err), r_err);
    assert_eq!(read(&data.join("log.txt")), r_log);
}

#[test]
fn stopped_before_first_checkpoint_starts_again_without_duplicates() {
    stopped_before_first_checkpoint(Lang::C, Opt::O2);
}

#[test]
fn f_stopped_before_first_checkpoint_starts_again_without_duplicates() {
    stopped_before_first_checkpoint(Lang::Fortran, Opt::O0);
}

/// What must not be cut: the output of a run that finished (a second run
/// appends after it), a stopped run's output when the next start asks for
/// a new run (DAO_RESTART=never), and a file the streams no longer write
/// to (the next start's stdout is another file).
#[test]
fn finished_runs_new_runs_and_other_files_are_not_cut() {
    let dir = fresh_dir("files-early-keep");
    let (clean, inst) = builds(Lang::C, "early_output", Opt::O2, false, &dir);
    let (r_out, _, r_log) = early_reference(&dir, &clean);
    let case = |tag: &str| {
        let d = dir.join(tag);
        std::fs::create_dir_all(&d).unwrap();
        (d.join("ckpt"), d.join("out"), d.join("err"), d)
    };
    // finished, then run again: two whole outputs, the log twice
    let (ck, out, err, d) = case("finished");
    assert!(early_run(&inst, &d, &ck, &out, &err, &[]).success());
    assert!(early_run(&inst, &d, &ck, &out, &err, &[]).success());
    assert_eq!(read(&out), format!("{r_out}{r_out}"));
    assert_eq!(read(&d.join("log.txt")), format!("{r_log}{r_log}"));
    // stopped, then DAO_RESTART=never: the stopped run's output stays
    let (ck, out, err, d) = case("never");
    assert!(!early_run(&inst, &d, &ck, &out, &err, &[("EARLY_STOP", "1")]).success());
    let partial = read(&out);
    assert!(early_run(&inst, &d, &ck, &out, &err, &[("DAO_RESTART", "never")]).success());
    assert_eq!(read(&out), format!("{partial}{r_out}"));
    // stopped, then started with stdout to another file: the first is kept
    let (ck, out, err, d) = case("other");
    assert!(!early_run(&inst, &d, &ck, &out, &err, &[("EARLY_STOP", "1")]).success());
    let partial = read(&out);
    let out2 = d.join("out2");
    assert!(early_run(&inst, &d, &ck, &out2, &err, &[]).success());
    assert_eq!(read(&out), partial);
    assert_eq!(read(&out2), r_out);
}
