//! State in files without markers (issue #31): programs of
//! `test-programs/multifile/<prog>/` whose marker is in one file and whose
//! state (statics, function-local statics, a Fortran module's private and
//! `save` variables, a common block, a timer's time base, atexit handlers)
//! lives in others. Each is built three ways at -O0 and -O2, as makefiles
//! and users do: file by file (`dao cc -c` each, then `dao cc *.o`), in one
//! command, and (C) with the state files in a static library
//! (`ar rcs libstate.a`, linked with `-L. -lstate`), and goes through every
//! crash scenario of `dao_tests::scenario` with `DAO_DEAD=poison`.
//!
//! Invariant: every global and static of every module that code after the
//! checkpoint may read is restored byte for byte, and handlers registered
//! with `atexit` before the checkpoint run at the end of the restarted run,
//! so the output equals the uninterrupted (clean) run's.

use std::path::{Path, PathBuf};
use std::process::Command;

use dao_tests::build::{dao_env, Lang, Opt};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::scenario::{check_plan, Plan};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum How {
    /// `dao cc -c` per file, then one link of the objects.
    Separate,
    /// One `dao cc` with every source.
    Together,
    /// The files but the first in a static library.
    Archive,
}

/// (program directory, language, sources in compile order: the marker's
/// file first for C, Fortran modules before their users).
const PROGRAMS: &[(&str, Lang, &[&str])] = &[
    ("state_c", Lang::C, &["main.c", "state.c", "timer.c"]),
    ("state_f", Lang::Fortran, &["state_mod.f90", "main.f90"]),
];

fn run(cmd: &mut Command) -> Result<(), String> {
    dao_env(cmd);
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("`{cmd:?}` failed ({}):\n{}{}", out.status, String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// Builds `srcs` of `lang` into `dir/<tag>/prog`.
fn build(lang: Lang, srcs: &[PathBuf], opt: Opt, clean: bool, how: How, dir: &Path) -> Result<PathBuf, String> {
    let vdir = dir.join(if clean { "clean" } else { "inst" });
    std::fs::create_dir_all(&vdir).map_err(|e| e.to_string())?;
    let exe = vdir.join("prog");
    let dao = || {
        let mut c = Command::new(&tools().dao);
        c.arg(lang.subcommand()).current_dir(&vdir);
        if clean {
            c.arg("--dao-no-pass");
        }
        c
    };
    let libm: &[&str] = if lang == Lang::C { &["-lm"] } else { &[] };
    if how == How::Together {
        run(dao().arg(opt.flag()).args(srcs).arg("-o").arg(&exe).args(libm))?;
        return Ok(exe);
    }
    let mut objs = Vec::new();
    for s in srcs {
        let o = vdir.join(format!("{}.o", s.file_stem().unwrap().to_string_lossy()));
        run(dao().arg(opt.flag()).arg("-c").arg(s).arg("-o").arg(&o))?;
        objs.push(o);
    }
    let mut link = dao();
    if how == How::Archive {
        // the marker's file (C: first) linked as an object, the rest from the library
        let lib = vdir.join("libstate.a");
        let _ = std::fs::remove_file(&lib);
        run(Command::new("ar").arg("rcs").arg(&lib).args(&objs[1..]))?;
        link.arg(&objs[0]).arg("-L").arg(&vdir).arg("-lstate");
    } else {
        link.args(&objs);
    }
    run(link.arg("-o").arg(&exe).args(libm))?;
    Ok(exe)
}

fn check(prog: &str, how: How, opt: Opt) {
    let (_, lang, files) = PROGRAMS.iter().find(|p| p.0 == prog).expect("program in the table");
    let root = tools().repo.join("test-programs/multifile").join(prog);
    let srcs: Vec<PathBuf> = files.iter().map(|f| root.join(f)).collect();
    let dir = fresh_dir(&format!("multifile-{prog}-{how:?}-{}", opt.name()));
    let clean = build(*lang, &srcs, opt, true, How::Together, &dir).unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build(*lang, &srcs, opt, false, how, &dir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
    check_plan(&Plan {
        label: format!("{prog} {how:?} {}", opt.name()),
        dir,
        clean,
        inst,
        args: &["30"],
        env: vec![],
        every: 3,
        crash_after: &[1, 4, 7],
        crash_in: &[2, 6],
        drop_lines: &[],
        reference_lines: vec!["timer ok".into()].into_iter().filter(|_| *lang == Lang::C).collect(),
        exact_count: true,
    });
}

macro_rules! cases {
    ($($id:ident: $prog:literal, $how:ident;)*) => {$(
        mod $id {
            use super::*;
            #[test]
            fn o0() { check($prog, How::$how, Opt::O0) }
            #[test]
            fn o2() { check($prog, How::$how, Opt::O2) }
        }
    )*};
}

cases! {
    c_separate: "state_c", Separate;
    c_together: "state_c", Together;
    c_archive: "state_c", Archive;
    f_separate: "state_f", Separate;
    f_together: "state_f", Together;
}

/// A common block named in two files is one global at one address of both
/// modules: a checkpoint holds it once (each module's descriptor lists it;
/// before, every module's copy was collected and written, 14 times over
/// for NPB 3.3 SP), and the restart still reproduces the clean run.
#[test]
fn common_block_saved_once() {
    let root = tools().repo.join("test-programs/multifile/state_f");
    let srcs: Vec<PathBuf> = ["state_mod.f90", "main.f90"].iter().map(|f| root.join(f)).collect();
    let dir = fresh_dir("multifile-common-once");
    let inst = build(Lang::Fortran, &srcs, Opt::O0, false, How::Separate, &dir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
    let ck = dir.join("ck");
    let mut c = Command::new(&inst);
    c.arg("12").env("DAO_DIR", &ck).env("DAO_EVERY", "3").env_remove("DAO_SAVE");
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut n_files = 0;
    for e in std::fs::read_dir(&ck).unwrap() {
        let p = e.unwrap().path();
        if !p.file_name().unwrap().to_string_lossy().ends_with(".dst") {
            continue;
        }
        n_files += 1;
        let out = Command::new(&tools().dao).arg("inspect").arg("--json").arg(&p).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let globals = v["globals"].as_array().expect("globals");
        let stcom: Vec<_> = globals.iter().filter(|g| g["name"] == "stcom_").collect();
        assert_eq!(stcom.len(), 1, "{}: /stcom/ held {} times: {globals:?}", p.display(), stcom.len());
        let mut addrs: Vec<&str> = globals.iter().map(|g| g["addr"].as_str().unwrap()).collect();
        let n = addrs.len();
        addrs.sort_unstable();
        addrs.dedup();
        assert_eq!(addrs.len(), n, "{}: a global address held twice: {globals:?}", p.display());
    }
    assert!(n_files > 0, "no checkpoint written in {}", ck.display());
}

/// Every program directory has a row.
#[test]
fn table_covers_every_program() {
    let root = tools().repo.join("test-programs/multifile");
    for e in std::fs::read_dir(&root).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if root.join(&name).is_dir() {
            assert!(PROGRAMS.iter().any(|p| p.0 == name), "test-programs/multifile/{name} has no row");
        }
    }
}
