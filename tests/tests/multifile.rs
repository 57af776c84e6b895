//! State in files without markers (issue #31): programs of
//! `test-programs/multifile/<prog>/` whose marker is in one file and whose
//! state (statics, function-local statics, a Fortran module's private and
//! `save` variables, a common block, a timer's time base, atexit handlers)
//! lives in others. Each is built three ways at -O0 and -O2, as makefiles
//! and users do: file by file (`dao cc -c` each, then `dao cc *.o`), in one
//! command, (C) with the state files in a static library
//! (`ar rcs libstate.a`, linked with `-L. -lstate`), and file by file in
//! whole-program mode (`--dao-whole-program`), and goes through every
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
    /// As `Separate`, in whole-program mode (`--dao-whole-program` on
    /// every command: bitcode objects, the pass on the whole program at
    /// the link).
    Whole,
}

/// (program directory, language, sources in compile order: the marker's
/// file first for C, Fortran modules before their users, flags).
const PROGRAMS: &[(&str, Lang, &[&str], &[&str])] = &[
    ("state_c", Lang::C, &["main.c", "state.c", "timer.c"], &[]),
    ("state_f", Lang::Fortran, &["state_mod.f90", "main.f90"], &[]),
    ("whole_c", Lang::C, &["main.c", "work.c"], &[]),
    ("whole_f", Lang::Fortran, &["work.f90", "main.F90"], &[]),
    ("common_f", Lang::Fortran, &["work.F90", "main.f90"], &[]),
    ("dynamic_c", Lang::C, &["main.c", "work.c"], &["-fopenmp"]),
    ("dynamic_f", Lang::Fortran, &["work.F90", "main.f90"], &["-fopenmp"]),
    ("data_f", Lang::Fortran, &["grid_data.f90", "field_data.f90", "main.f90"], &[]),
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

/// Builds `srcs` of `lang` with `flags` into `dir/<tag>/prog`.
fn build(lang: Lang, srcs: &[PathBuf], opt: Opt, clean: bool, how: How, dir: &Path, flags: &[&str]) -> Result<PathBuf, String> {
    let vdir = dir.join(if clean { "clean" } else { "inst" });
    std::fs::create_dir_all(&vdir).map_err(|e| e.to_string())?;
    let exe = vdir.join("prog");
    let dao = || {
        let mut c = Command::new(&tools().dao);
        c.arg(lang.subcommand()).current_dir(&vdir);
        if clean {
            c.arg("--dao-no-pass");
        }
        if how == How::Whole {
            c.arg("--dao-whole-program");
        }
        c.args(flags);
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
    let (_, lang, files, flags) = PROGRAMS.iter().find(|p| p.0 == prog).expect("program in the table");
    let root = tools().repo.join("test-programs/multifile").join(prog);
    let srcs: Vec<PathBuf> = files.iter().map(|f| root.join(f)).collect();
    let dir = fresh_dir(&format!("multifile-{prog}-{how:?}-{}", opt.name()));
    let clean = build(*lang, &srcs, opt, true, How::Together, &dir, flags).unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build(*lang, &srcs, opt, false, how, &dir, flags).unwrap_or_else(|e| panic!("instrumented build: {e}"));
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
        reference_lines: vec!["timer ok".into()].into_iter().filter(|_| prog == "state_c").collect(),
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
    c_whole: "state_c", Whole;
    f_whole: "state_f", Whole;
    wc_separate: "whole_c", Separate;
    wc_whole: "whole_c", Whole;
    wf_separate: "whole_f", Separate;
    wf_whole: "whole_f", Whole;
    cf_whole: "common_f", Whole;
    dc_separate: "dynamic_c", Separate;
    df_separate: "dynamic_f", Separate;
    da_separate: "data_f", Separate;
    da_together: "data_f", Together;
}

/// `exe arg` run uninterrupted (DAO_DIR `dir/ck-clean`), killed after its
/// second checkpoint (`dir/ck`, every third candidate) and restarted with
/// the dead bytes poisoned: the restarted run's output must be the
/// uninterrupted one's.
fn killed_and_restarted(label: &str, exe: &Path, dir: &Path, arg: &str, env: &[(&str, &str)]) {
    let go = |ck: &str, more: &[(&str, &str)]| {
        let mut c = Command::new(exe);
        c.arg(arg).env("DAO_DIR", dir.join(ck)).env("DAO_EVERY", "3").env_remove("DAO_SAVE").env_remove("DAO_WHOLE_PROGRAM");
        for (k, v) in env.iter().chain(more) {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let clean = go("ck-clean", &[]);
    assert!(clean.status.success(), "{label}: {}", String::from_utf8_lossy(&clean.stderr));
    let killed = go("ck", &[("DAO_CRASH_AFTER", "2")]);
    assert!(!killed.status.success(), "{label}: the run was not killed after its second checkpoint");
    let again = go("ck", &[("DAO_DEAD", "poison")]);
    assert!(again.status.success(), "{label}: restart failed: {}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(String::from_utf8_lossy(&again.stdout), String::from_utf8_lossy(&clean.stdout), "{label}: the restarted run's output differs");
}

/// Whole-program mode (issue #33) sees across files: `whole_c`'s and
/// `whole_f`'s `scratch` (and `whole_f`'s common-block part `tmp`), which
/// the other file rewrites whole before reading it, are left out of the
/// checkpoint at -O2 in whole-program mode and saved when the files are
/// compiled one by one; with `-DSCRATCH_READ` (a read before the rewrite)
/// saved in both. Each build is also killed after its second checkpoint
/// and restarted with `DAO_DEAD=poison`: the output equals its
/// uninterrupted run's.
#[test]
fn whole_program_sees_across_files() {
    for (prog, lang, scratch, common) in [("whole_c", Lang::C, "scratch", None), ("whole_f", Lang::Fortran, "_QMwork_modEscratch", Some(("wk_", 524288u64, 262144u64)))] {
        let (_, _, files, _) = PROGRAMS.iter().find(|p| p.0 == prog).unwrap();
        let root = tools().repo.join("test-programs/multifile").join(prog);
        for (whole, read_first) in [(false, false), (true, false), (true, true)] {
            let dir = fresh_dir(&format!("multifile-{prog}-sizes-{whole}-{read_first}"));
            let mut objs = Vec::new();
            for f in files.iter() {
                let o = dir.join(format!("{f}.o"));
                let mut c = Command::new(&tools().dao);
                c.arg(lang.subcommand()).arg("-O2").current_dir(&dir);
                if whole {
                    c.arg("--dao-whole-program");
                }
                if read_first && f.starts_with("main") {
                    c.arg("-DSCRATCH_READ");
                }
                run(c.arg("-c").arg(root.join(f)).arg("-o").arg(&o)).unwrap();
                objs.push(o);
            }
            let exe = dir.join("prog");
            let mut c = Command::new(&tools().dao);
            c.arg(lang.subcommand()).arg("-O2").current_dir(&dir);
            if whole {
                c.arg("--dao-whole-program");
            }
            run(c.args(&objs).arg("-o").arg(&exe)).unwrap();
            let label = format!("{prog} whole={whole} read_first={read_first}");
            killed_and_restarted(&label, &exe, &dir, "8", &[]);
            // what the second checkpoint holds
            let file = dir.join("ck").join("store.000002.dst");
            let out = Command::new(&tools().dao).arg("inspect").arg("--json").arg(&file).output().unwrap();
            assert!(out.status.success(), "{label}: {}", String::from_utf8_lossy(&out.stderr));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let globals = v["globals"].as_array().unwrap();
            let bytes_of = |n: &str| globals.iter().filter(|g| g["name"] == n).map(|g| g["size"].as_u64().unwrap()).sum::<u64>();
            let dead = whole && !read_first;
            assert_eq!(bytes_of(scratch) == 0, dead, "{label}: {scratch} {} expected; globals {globals:?}", if dead { "dead" } else { "saved" });
            if let Some((name, size, part)) = common {
                let want = if dead { size - part } else { size };
                assert_eq!(bytes_of(name), want, "{label}: {name}'s saved bytes; globals {globals:?}");
            }
        }
    }
}

/// Members of one common block, one read and others rewritten by the same
/// loop (issue #33, NPB 3.3 BT's `/fields/`: `compute_rhs` rewrites
/// `rho_i`, `us`, ..., `square` from `u` over the extents of `/global/`,
/// then copies `forcing` into `rhs`): `common_f` with OpenMP, 2 threads,
/// extents 25 25 24 (the declared ones: the members whole). In
/// whole-program mode at -O2 and -O3 the rewritten members are left out
/// (`fields_` saves u and forc, 1200000 of its 2040000 bytes), under
/// bounds on the extents that keep the reads of u (and forc) apart from
/// them; the first loop's reads of u do not keep rhs live. With
/// `-DREAD_RHO` (the loop reads the old rho) rho is kept (1320000), with
/// `-DREAD_RHS` (it reads rhs, before the copy) rhs is (1800000). With
/// `-DCOPY_EXTENTS` the copy runs over other members of `/grid/` (NPB 3.3
/// SP's `nz2 + 1`), so the box's own counts do not bound the first loop's
/// reads of u: the bounds that keep those reads apart are added to the
/// box's conditions (rhs dead again, 1200000), and with `-DREAD_RHS` too
/// rhs is kept (1800000); file by
/// file and at -O0 (bounds loaded in every iteration) all of it. Every
/// build is killed after its second checkpoint and restarted with the dead
/// bytes poisoned: the output equals its uninterrupted run's.
#[test]
fn common_members_rewritten_beside_a_read_are_dead() {
    let root = tools().repo.join("test-programs/multifile/common_f");
    let copy: &[&str] = &["-DCOPY_EXTENTS"];
    let copy_read: &[&str] = &["-DCOPY_EXTENTS", "-DREAD_RHS"];
    for (opt, whole, def, want) in [
        (Opt::O2, true, &[][..], 1200000u64),
        (Opt::O3, true, &[], 1200000),
        (Opt::O2, true, &["-DREAD_RHO"], 1320000),
        (Opt::O2, true, &["-DREAD_RHS"], 1800000),
        (Opt::O3, true, copy, 1200000),
        (Opt::O2, true, copy_read, 1800000),
        (Opt::O2, false, &[], 2040000),
        (Opt::O0, true, &[], 2040000),
    ] {
        let label = format!("common_f {} whole={whole} {def:?}", opt.name());
        let tag: Vec<String> = def.iter().map(|d| d.trim_start_matches("-D").to_lowercase()).collect();
        let dir = fresh_dir(&format!("multifile-common_f-{}-{whole}-{}", opt.name(), if tag.is_empty() { "-".to_string() } else { tag.join("-") }));
        let dao = || {
            let mut c = Command::new(&tools().dao);
            c.arg("fc").arg(opt.flag()).arg("-fopenmp").current_dir(&dir);
            if whole {
                c.arg("--dao-whole-program");
            }
            c
        };
        let mut objs = Vec::new();
        for f in ["work.F90", "main.f90"] {
            let o = dir.join(format!("{f}.o"));
            run(dao().args(def).arg("-c").arg(root.join(f)).arg("-o").arg(&o)).unwrap_or_else(|e| panic!("{label}: {e}"));
            objs.push(o);
        }
        let exe = dir.join("prog");
        run(dao().args(&objs).arg("-o").arg(&exe)).unwrap_or_else(|e| panic!("{label}: {e}"));
        killed_and_restarted(&label, &exe, &dir, "12", &[("OMP_NUM_THREADS", "2")]);
        // the last checkpoint of the uninterrupted run
        let out = Command::new(&tools().dao).arg("inspect").arg("--json").arg(dir.join("ck-clean").join("store.000004.dst")).output().unwrap();
        assert!(out.status.success(), "{label}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let globals = v["globals"].as_array().unwrap();
        let fields: u64 = globals.iter().filter(|g| g["name"] == "fields_").map(|g| g["size"].as_u64().unwrap()).sum();
        assert_eq!(fields, want, "{label}: bytes of fields_ saved; globals {globals:?}");
    }
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
    let inst = build(Lang::Fortran, &srcs, Opt::O0, false, How::Separate, &dir, &[]).unwrap_or_else(|e| panic!("instrumented build: {e}"));
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

/// A worksharing loop with a dynamic (or guided) schedule in a parallel
/// region that calls code of another file (RSBench's lookups calling
/// functions of other files): the pass cannot see whether that code
/// reaches a marker, so the region is held at run time instead of refused.
/// `dynamic_c` and `dynamic_f` built with `-DMARKER_IN_LOOP`: the other
/// file's marker is reached inside the dynamic loop (by whichever thread
/// runs the iteration) and in the region's `master` block. No checkpoint
/// is ever taken there (every one is at main's marker, the owed ones
/// too), the run says why once, DAO_STATS counts the held candidates, and
/// every crash scenario restarts to the uninterrupted output, at -O0 and
/// -O2 with 1 and 3 threads. (Taking the checkpoint in the loop instead, as
/// before the hold, resumes a loop whose chunks libomp no longer knows.)
#[test]
fn dynamic_loop_calling_other_files_is_held() {
    for prog in ["dynamic_c", "dynamic_f"] {
        let (_, lang, files, _) = PROGRAMS.iter().find(|p| p.0 == prog).unwrap();
        let root = tools().repo.join("test-programs/multifile").join(prog);
        let srcs: Vec<PathBuf> = files.iter().map(|f| root.join(f)).collect();
        for opt in [Opt::O0, Opt::O2] {
            let dir = fresh_dir(&format!("multifile-{prog}-held-{}", opt.name()));
            let flags = ["-fopenmp", "-DMARKER_IN_LOOP"];
            let clean = build(*lang, &srcs, opt, true, How::Together, &dir, &flags).unwrap_or_else(|e| panic!("clean build: {e}"));
            let inst = build(*lang, &srcs, opt, false, How::Separate, &dir, &flags).unwrap_or_else(|e| panic!("instrumented build: {e}"));
            for threads in [1, 3] {
                let label = format!("{prog} held {} t={threads}", opt.name());
                // where the checkpoints are, and what the run says
                let stats = dir.join("held.stats");
                let _ = std::fs::remove_file(&stats);
                let mut c = Command::new(&inst);
                c.arg("12").env("OMP_NUM_THREADS", threads.to_string()).env("DAO_DIR", dir.join("ck-held")).env("DAO_EVERY", "2").env("DAO_STATS", &stats);
                dao_env(&mut c);
                let out = c.output().unwrap();
                assert!(out.status.success(), "{label}: {}", String::from_utf8_lossy(&out.stderr));
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(err.matches("has a dynamic, guided, runtime or ordered schedule").count(), 1, "{label}: one warning expected: {err}");
                let text = std::fs::read_to_string(&stats).unwrap();
                let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                let at: Vec<&str> = events.iter().filter(|e| e["event"] == "checkpoint").map(|e| e["at"].as_str().unwrap()).collect();
                assert!(at.len() >= 5, "{label}: checkpoints at {at:?}");
                assert!(at.iter().all(|a| a.starts_with("main#") || a.starts_with("_QQmain#")), "{label}: a checkpoint inside the held region: {at:?}");
                let held = events.iter().find(|e| e["event"] == "held_regions").unwrap_or_else(|| panic!("{label}: no held_regions event: {text}"));
                assert!(held["candidates"].as_u64().unwrap() >= 12, "{label}: {held}");
                check_plan(&Plan {
                    label,
                    dir: dir.clone(),
                    clean: clean.clone(),
                    inst: inst.clone(),
                    args: &["30"],
                    env: vec![("OMP_NUM_THREADS", threads.to_string())],
                    every: 3,
                    crash_after: &[1, 4, 7],
                    crash_in: &[2, 6],
                    drop_lines: &[],
                    reference_lines: vec![],
                    // the master's candidates in the loop depend on the chunks it takes
                    exact_count: false,
                });
            }
        }
    }
}
