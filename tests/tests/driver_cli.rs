//! Tests of the `dao` command itself (target/release/dao): compiler
//! wrapping, resource lookup errors, `dao run` restarts and exit statuses,
//! `dao inspect` on bad input. Every error must be one clear line on stderr
//! and a non-zero exit status.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dao_tests::build::dao_env;
use dao_tests::paths::{fresh_dir, tools};

fn dao(args: &[&str]) -> Command {
    let mut c = Command::new(&tools().dao);
    c.args(args);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DAO_") {
            c.env_remove(k);
        }
    }
    dao_env(&mut c);
    c
}

fn out(mut c: Command) -> Output {
    c.output().unwrap_or_else(|e| panic!("cannot run {c:?}: {e}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn version() {
    let o = out(dao(&["--version"]));
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("dao "), "{o:?}");
}

#[test]
fn cc_version_query_goes_to_clang() {
    let o = out(dao(&["cc", "--version"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("clang version 19"), "{o:?}");
}

#[test]
fn cc_passes_compiler_exit_status() {
    let d = fresh_dir("cli-cc-status");
    let src = write(&d, "broken.c", "int main(void) { return syntax error; }\n");
    let mut c = dao(&["cc", "-c"]);
    c.arg(&src).arg("-o").arg(d.join("broken.o"));
    let o = out(c);
    assert_eq!(o.status.code(), Some(1), "clang's own status: {}", stderr(&o));
    assert!(stderr(&o).contains("broken.c:1"), "{}", stderr(&o));
}

#[test]
fn cc_no_pass_defines_dao_disable_and_links_without_runtime() {
    let d = fresh_dir("cli-no-pass");
    let src = write(
        &d,
        "np.c",
        "#include \"dao.h\"\n#include <stdio.h>\n#ifndef DAO_DISABLE\n#error DAO_DISABLE not defined\n#endif\n\
         int main(void) { dao_potential_checkpoint(); puts(\"clean\"); return 0; }\n",
    );
    let exe = d.join("np");
    let mut c = dao(&["cc", "--dao-no-pass", "-O2"]);
    c.arg(&src).arg("-o").arg(&exe).env("DAO_VERBOSE", "1");
    let o = out(c);
    assert!(o.status.success(), "{}", stderr(&o));
    let cmdline = stderr(&o);
    assert!(!cmdline.contains("pass-plugin") && !cmdline.contains("libdao_rt"), "{cmdline}");
    let r = Command::new(&exe).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&r.stdout), "clean\n");
}

/// The compiler command line DAO_VERBOSE=1 prints (`dao: clang-19 ...`).
fn command_line(o: &Output) -> String {
    let e = stderr(o);
    e.lines()
        .find(|l| l.starts_with("dao: clang-19 ") || l.starts_with("dao: flang-new-19 "))
        .unwrap_or_else(|| panic!("no command line in DAO_VERBOSE output: {e}"))
        .to_string()
}

#[test]
fn cc_adds_plugin_runtime_and_line_tables() {
    let d = fresh_dir("cli-cmdline");
    let src = write(&d, "m.c", "#include \"dao.h\"\nint main(void) { dao_potential_checkpoint(); return 0; }\n");
    // Compile only: plugin, includes, line tables; no link arguments.
    let mut c = dao(&["cc", "-O2", "-c"]);
    c.arg(&src).arg("-o").arg(d.join("m.o")).env("DAO_VERBOSE", "1");
    let o = out(c);
    let e = command_line(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("-fpass-plugin=") && e.contains("libdao.so"), "{e}");
    assert!(e.contains("-gline-tables-only"), "{e}");
    assert!(!e.contains("-no-pie") && !e.contains("libdao_rt.a"), "compile-only must not link: {e}");
    // Link: -no-pie and the runtime.
    let mut c = dao(&["cc", "-g"]);
    c.arg(d.join("m.o")).arg("-o").arg(d.join("m")).env("DAO_VERBOSE", "1");
    let o = out(c);
    let e = command_line(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("-no-pie") && e.contains("libdao_rt.a") && e.contains("-lpthread"), "{e}");
    assert!(!e.contains("-gline-tables-only"), "user gave -g: {e}");
}

#[test]
fn cc_rdao_prints_remarks_only_when_asked() {
    let d = fresh_dir("cli-remarks");
    let src = tools().repo.join("test-programs/c/deep_chain.c");
    let mut c = dao(&["cc", "-O2", "-c", "-Rdao"]);
    c.arg(&src).arg("-o").arg(d.join("a.o"));
    let with = out(c);
    assert!(with.status.success(), "{}", stderr(&with));
    assert!(
        stderr(&with).contains("deep_chain.c:") && stderr(&with).contains("dao"),
        "-Rdao must make the pass print remarks naming deep_chain.c:LINE; got:\n{}",
        stderr(&with)
    );
    let mut c = dao(&["cc", "-O2", "-c"]);
    c.arg(&src).arg("-o").arg(d.join("b.o"));
    let without = out(c);
    assert!(without.status.success());
    assert!(stderr(&without).is_empty(), "no remarks without -Rdao; got:\n{}", stderr(&without));
}

#[test]
fn fc_builds_module_once_into_cache() {
    let d = fresh_dir("cli-fc");
    let cache = d.join("cache");
    let src = write(&d, "p.f90", "program p\n  use dao\n  call dao_potential_checkpoint()\n  print *, 'ok'\nend program p\n");
    for round in 0..2 {
        let mut c = dao(&["fc", "-O2"]);
        c.arg(&src).arg("-o").arg(d.join("p")).env("DAO_CACHE_DIR", &cache).current_dir(&d);
        let o = out(c);
        assert!(o.status.success(), "round {round}: {}", stderr(&o));
        let entries: Vec<_> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name()).collect();
        let fmods: Vec<_> = entries.iter().filter(|n| n.to_string_lossy().starts_with("fmod-")).collect();
        assert_eq!(fmods.len(), 1, "one cached module build: {entries:?}");
    }
    let r = Command::new(d.join("p")).output().unwrap();
    assert!(r.status.success());
    assert!(String::from_utf8_lossy(&r.stdout).contains("ok"));
}

#[test]
fn shared_library_is_refused() {
    let o = out(dao(&["cc", "-shared", "x.o", "-o", "libx.so"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-shared"), "{}", stderr(&o));
}

#[test]
fn dao_home_incomplete_is_an_error() {
    let d = fresh_dir("cli-daohome");
    let mut c = dao(&["cc", "-c", "x.c"]);
    c.env("DAO_HOME", &d);
    let o = out(c);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("DAO_HOME") && e.contains(&d.display().to_string()), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
}

#[test]
fn missing_plugin_says_cargo_build() {
    // A copy of dao in a directory without libdao.so next to it.
    let d = fresh_dir("cli-noplugin/target/release");
    let exe = d.join("dao");
    std::fs::copy(&tools().dao, &exe).unwrap();
    let mut c = Command::new(&exe);
    c.args(["cc", "-c", "x.c"]).env_remove("DAO_HOME");
    let o = out(c);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("libdao.so") && e.contains("cargo build --release"), "{e}");
}

#[test]
fn run_restarts_after_sigkill_and_passes_final_status() {
    let d = fresh_dir("cli-run");
    // Killed by SIGKILL on its first two runs, then exits with status 3.
    let script = write(
        &d,
        "flaky.sh",
        "n=$(cat \"$1\" 2>/dev/null || echo 0); echo $((n+1)) > \"$1\"; \
         [ \"$DAO_DIR\" = \"$2\" ] || exit 9; [ $n -lt 2 ] && kill -9 $$; exit 3\n",
    );
    let counter = d.join("count");
    let ck = d.join("ckpt");
    let mut c = dao(&["run", "--retries", "5", "--dir"]);
    c.arg(&ck).arg("--").arg("sh").arg(&script).arg(&counter).arg(&ck);
    let o = out(c);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().filter(|l| l.contains("restarting")).count(), 2, "{e}");
    assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "3");
}

#[test]
fn run_gives_up_after_retries() {
    let d = fresh_dir("cli-run-giveup");
    let mut c = dao(&["run", "--retries", "1", "--dir"]);
    c.arg(d.join("ck")).args(["--", "sh", "-c", "kill -9 $$"]);
    let o = out(c);
    assert_eq!(o.status.code(), Some(137), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().filter(|l| l.contains("restarting")).count(), 1, "{e}");
    assert!(e.contains("giving up"), "{e}");
}

#[test]
fn run_does_not_restart_an_ordinary_failure() {
    let d = fresh_dir("cli-run-fail");
    let mut c = dao(&["run", "--dir"]);
    c.arg(d.join("ck")).args(["--", "sh", "-c", "exit 5"]);
    let o = out(c);
    assert_eq!(o.status.code(), Some(5));
    assert!(!stderr(&o).contains("restarting"), "{}", stderr(&o));
}

#[test]
fn run_missing_program_is_a_clear_error() {
    let o = out(dao(&["run", "--", "/nonexistent/prog"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/prog"), "{}", stderr(&o));
}

#[test]
fn inspect_garbage_file_is_a_clear_error() {
    let d = fresh_dir("cli-inspect-garbage");
    let f = write(&d, "ckpt.000001.dao", "this is not a checkpoint, just some text that is long enough\n");
    let o = out(dao(&["inspect", f.to_str().unwrap()]));
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("ckpt.000001.dao"), "the message names the file: {e}");
    assert!(!e.contains("not implemented") && !e.contains("panicked"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
}

#[test]
fn inspect_missing_path_is_a_clear_error() {
    let o = out(dao(&["inspect", "/nonexistent/ckpt"]));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("/nonexistent/ckpt"), "{e}");
}

#[test]
fn inspect_directory_with_a_torn_file_reports_it() {
    let d = fresh_dir("cli-inspect-dir");
    write(&d, "ckpt.000007.dao", "garbage");
    let o = out(dao(&["inspect", d.to_str().unwrap()]));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "a directory listing succeeds even with bad files: {}", stderr(&o));
    assert!(s.contains("ckpt.000007.dao") && s.contains("invalid"), "{s}");
}

/// `dao run` end to end: an instrumented program that the runtime kills
/// after every 3rd checkpoint of each process (DAO_CRASH_AFTER=3) is
/// restarted by `dao run` until it completes; the appended output equals the
/// clean run's and there is one "restarting" line per kill.
#[test]
fn run_resumes_an_instrumented_program_until_done() {
    use dao_tests::build::{build, Lang, Opt, Variant};
    let d = fresh_dir("cli-run-e2e");
    let src = tools().repo.join("test-programs/c/grid3d.c");
    let clean = build(Lang::C, &src, Opt::O2, Variant::Clean, &d).unwrap_or_else(|e| panic!("{e}"));
    let inst = build(Lang::C, &src, Opt::O2, Variant::Instrumented, &d).unwrap_or_else(|e| panic!("{e}"));
    let expected = Command::new(&clean).arg("80").output().unwrap();
    assert!(expected.status.success());
    // 720 candidates / DAO_EVERY=60: 12 checkpoints, a kill after every 3rd.
    let outfile = d.join("out.txt");
    let f = std::fs::OpenOptions::new().create(true).append(true).open(&outfile).unwrap();
    let mut c = dao(&["run", "--retries", "10", "--dir"]);
    c.arg(d.join("ckpt")).arg("--").arg(&inst).arg("80");
    c.env("DAO_EVERY", "60").env("DAO_CRASH_AFTER", "3").stdout(f);
    let o = out(c);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    let restarts = e.lines().filter(|l| l.starts_with("dao run:") && l.contains("restarting")).count();
    let resumes = e.lines().filter(|l| l.starts_with("dao: resuming")).count();
    assert_eq!(restarts, 4, "12 checkpoints, killed after checkpoints 3, 6, 9, 12: {e}");
    assert_eq!(resumes, 4, "{e}");
    assert_eq!(std::fs::read(&outfile).unwrap(), expected.stdout, "output after 4 kills differs from the clean run");
}

/// A program killed while exiting, after the runtime marked its run
/// finished (its work done, its output complete), is not started over by
/// `dao run` (which would write the whole output again): a destructor,
/// which runs after the runtime's exit handler, kills the process with
/// SIGKILL.
#[test]
fn run_does_not_restart_a_run_killed_after_it_finished() {
    let d = fresh_dir("cli-run-killed-after-finish");
    // the destructor in a file without markers (in the marker's file, its
    // unknown call would count as reaching a marker)
    let main = write(
        &d,
        "late_kill.c",
        "#include <stdio.h>\n#include \"dao.h\"\n\
         int main(void) { long s = 0; for (int i = 0; i < 100; i++) { dao_potential_checkpoint(); s += i; }\n\
         printf(\"sum %ld\\n\", s); fflush(stdout); return 0; }\n",
    );
    let late = write(&d, "late.c", "#include <signal.h>\n#include <unistd.h>\n__attribute__((destructor)) static void late(void) { kill(getpid(), SIGKILL); }\n");
    let exe = d.join("late_kill");
    let o = out({
        let mut c = dao(&["cc", "-O2"]);
        c.arg(&main).arg(&late).arg("-o").arg(&exe);
        c
    });
    assert!(o.status.success(), "{}", stderr(&o));
    let mut c = dao(&["run", "--retries", "3", "--dir"]);
    c.arg(d.join("ckpt")).arg("--").arg(&exe);
    c.env("DAO_EVERY", "10");
    let o = out(c);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("after it had finished its work") && !e.contains("; restarting ("), "{e}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "sum 4950\n", "{e}");
}

/// libm's functions are not replaced by the runtime archive's weak
/// software copies (Rust's compiler_builtins): flang's link line has no
/// -lm before the runtime, so `dao fc` puts one there. `trunc` must come
/// from glibc (undefined in the executable), not be defined in it.
#[test]
fn fc_links_libm_math_not_the_runtime_copies() {
    let dir = fresh_dir("driver-fc-libm");
    let src = write(
        &dir,
        "t.f90",
        "program t\n  real(8) :: x, y\n  integer :: i\n  x = 0\n  y = 1.7d0 + command_argument_count()\n  do i = 1, 10\n    x = x + aint(dble(i) * y) + floor(dble(i) / y)\n  end do\n  print *, x\nend program t\n",
    );
    let exe = dir.join("t");
    let o = out(dao(&["fc", "-O2", src.to_str().unwrap(), "-o", exe.to_str().unwrap()]));
    assert!(o.status.success(), "dao fc: {}", stderr(&o));
    let nm = out({
        let mut c = Command::new("nm");
        c.arg(&exe);
        c
    });
    let syms = String::from_utf8_lossy(&nm.stdout);
    let referenced = |f: &str| syms.lines().any(|l| l.split_whitespace().last().is_some_and(|n| n == f || n.starts_with(&format!("{f}@"))));
    assert!(referenced("trunc"), "the test program must call trunc (flang inlined it?):\n{syms}");
    for f in ["trunc", "floor"] {
        let defined = syms.lines().any(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() == 3 && w[2] == f && matches!(w[1], "W" | "T" | "t" | "w")
        });
        assert!(!defined, "{f} is defined in the executable (the runtime's software copy), not taken from libm:\n{}", syms.lines().filter(|l| l.contains(f)).collect::<Vec<_>>().join("\n"));
    }
}

/// `-Rdao` says why each big object is kept at a candidate (issue #33):
/// the first read after it, with file:line; `padded_extents.c` keeps `u`
/// (read by the step's parallel region) and `work` only unless its
/// runtime-checked conditions hold; its PAD_READ twin says so too.
#[test]
fn cc_rdao_says_why_objects_are_kept() {
    let d = fresh_dir("cli-kept");
    let src = tools().repo.join("test-programs/omp/c/padded_extents.c");
    let mut c = dao(&["cc", "-O0", "-fopenmp", "-c", "-Rdao"]);
    c.arg(&src).arg("-o").arg(d.join("a.o"));
    let o = out(c);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    let kept: Vec<&str> = e.lines().filter(|l| l.contains(": keeps ")).collect();
    assert!(
        kept.iter().any(|l| l.contains("candidate 1 in 'main': keeps u (125000 B): read first by the parallel region") && l.contains("padded_extents.c:")),
        "want the reason u is kept, with the region's file:line; got:\n{e}"
    );
    assert!(kept.iter().any(|l| l.contains("keeps work (125000 B) unless its conditions hold")), "want work kept only under its conditions; got:\n{e}");
    assert!(!kept.iter().any(|l| l.contains("keeps grid_points")), "objects under 64 KiB get no reason; got:\n{e}");
}

/// `dao inspect` says why each big saved global is saved, in the words of
/// `-Rdao` (issue #33): text "kept: read first by ..." under the global,
/// JSON a `why` field on every global (null under 64 KiB). padded_extents'
/// `u` is read first by the step's parallel region; `grid_points` (12 B)
/// has no reason.
#[test]
fn inspect_says_why_globals_are_kept() {
    let d = fresh_dir("cli-inspect-why");
    let src = tools().repo.join("test-programs/omp/c/padded_extents.c");
    let exe = d.join("prog");
    let mut c = dao(&["cc", "-O0", "-fopenmp", "-Rdao"]);
    c.arg(&src).arg("-o").arg(&exe);
    let o = out(c);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    let remark = e
        .lines()
        .find(|l| l.contains("candidate 1 in 'main': keeps u (125000 B): "))
        .unwrap_or_else(|| panic!("no remark for u:\n{e}"));
    let said = remark.split("keeps u (125000 B): ").nth(1).unwrap().to_string();
    let ck = d.join("ck");
    let run = Command::new(&exe).arg("6").env("DAO_DIR", &ck).env("DAO_EVERY", "2").env("OMP_NUM_THREADS", "2").env_remove("DAO_SAVE").output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let file = std::fs::read_dir(&ck).unwrap().map(|e| e.unwrap().path()).find(|p| p.to_string_lossy().ends_with(".dst")).expect("a checkpoint");
    let j = out({
        let mut c = dao(&["inspect", "--json"]);
        c.arg(&file);
        c
    });
    assert!(j.status.success(), "{}", stderr(&j));
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let globals = v["globals"].as_array().unwrap();
    let u = globals.iter().find(|g| g["name"] == "u").unwrap_or_else(|| panic!("u not saved: {globals:?}"));
    assert_eq!(u["why"].as_str(), Some(said.as_str()), "inspect and -Rdao disagree on u");
    let gp = globals.iter().find(|g| g["name"] == "grid_points").unwrap_or_else(|| panic!("grid_points not saved: {globals:?}"));
    assert!(gp.get("why").is_some_and(|w| w.is_null()), "a small global has a null why: {gp}");
    let t = out({
        let mut c = dao(&["inspect"]);
        c.arg(&file);
        c
    });
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(text.contains(&format!("kept: {said}")), "text report lacks the reason:\n{text}");
}

/// `dao c++` through a plain makefile (`CXX = dao c++`): two files, the
/// marker in one, the other compiled without markers allocating with
/// `new` (its blocks in the dao heap: the runtime's operator new), a
/// static std::string built before main, iostream output. Killed after its
/// second checkpoint and restarted, the output appended equals an
/// uninterrupted run's.
#[test]
fn cxx_through_a_makefile_restarts() {
    let d = fresh_dir("cli-cxx-make");
    write(
        &d,
        "grid.cc",
        "#include <vector>\nstd::vector<long> *make_grid(int n) { auto *g = new std::vector<long>(n); for (int i = 0; i < n; i++) (*g)[i] = i; return g; }\n",
    );
    write(
        &d,
        "main.cc",
        "#include <iostream>\n#include <string>\n#include <vector>\n#include \"dao.h\"\n\
         std::vector<long> *make_grid(int n);\nstatic std::string g_name = std::string(\"grid-\") + std::to_string(42);\n\
         struct Sim { std::vector<long> *g; long t = 0; void step() { for (auto &x : *g) x = (x * 31 + t) % 1000003; t++; } };\n\
         int main() { Sim s{make_grid(5000)}; for (int i = 0; i < 300; i++) { dao_potential_checkpoint(); s.step();\n\
         if (i % 50 == 0) std::cout << g_name << \" \" << i << \" \" << (*s.g)[17] << std::endl; }\n\
         std::cout << \"final \" << (*s.g)[4999] << std::endl; delete s.g; return 0; }\n",
    );
    write(&d, "Makefile", &format!("CXX = {} c++\nCXXFLAGS = -O2\nprog: main.o grid.o\n\t$(CXX) $(CXXFLAGS) main.o grid.o -o prog\n", tools().dao.display()));
    let mut m = Command::new("make");
    m.current_dir(&d);
    dao_env(&mut m);
    let o = out(m);
    assert!(o.status.success(), "make: {}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    let run = |ck: &str, env: &[(&str, &str)]| {
        let mut c = Command::new(d.join("prog"));
        c.current_dir(&d).env("DAO_DIR", d.join(ck));
        for (k, v) in env {
            c.env(k, v);
        }
        out(c)
    };
    // uninterrupted (DAO_INTERVAL's default 60 s: no checkpoint)
    let clean = run("ck0", &[]);
    assert!(clean.status.success(), "{}", stderr(&clean));
    let first = run("ck", &[("DAO_EVERY", "70"), ("DAO_CRASH_AFTER", "2")]);
    assert_eq!(first.status.code(), None, "killed by SIGKILL after checkpoint 2: {}", stderr(&first));
    let second = run("ck", &[]);
    assert!(second.status.success() && stderr(&second).contains("dao: resuming"), "{}", stderr(&second));
    let mut both = first.stdout.clone();
    both.extend_from_slice(&second.stdout);
    assert_eq!(String::from_utf8_lossy(&both), String::from_utf8_lossy(&clean.stdout));
    assert!(String::from_utf8_lossy(&clean.stdout).contains("grid-42 250 "), "{}", String::from_utf8_lossy(&clean.stdout));
}

/// `dao mpicxx` compiles with clang++-19 and Open MPI's C++ flags.
#[test]
fn mpicxx_adds_open_mpi_flags() {
    let d = fresh_dir("cli-mpicxx");
    let src = write(&d, "m.cc", "#include <mpi.h>\n#include <vector>\nint main(int c, char **v) { MPI_Init(&c, &v); std::vector<int> x(3); MPI_Finalize(); return x[0]; }\n");
    let mut c = dao(&["mpicxx", "-O2", "-c"]);
    c.arg(&src).arg("-o").arg(d.join("m.o")).env("DAO_VERBOSE", "1");
    let o = out(c);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("clang++-19 ") && e.contains("openmpi/include"), "{e}");
}

/// Whole-program mode (issue #33) does not open archives of bitcode
/// objects: a link given one by path stops with an error naming the
/// archive and the member, and what to do.
#[test]
fn whole_program_archive_of_bitcode_is_a_clear_error() {
    let d = fresh_dir("cli-whole-archive");
    let src = tools().repo.join("test-programs/multifile/whole_c");
    for f in ["main.c", "work.c"] {
        let mut c = dao(&["cc", "-O2", "--dao-whole-program", "-c"]);
        c.arg(src.join(f)).arg("-o").arg(d.join(f.replace(".c", ".o")));
        let o = out(c);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let ar = Command::new("ar").arg("rcs").arg(d.join("libwork.a")).arg(d.join("work.o")).output().unwrap();
    assert!(ar.status.success());
    let mut c = dao(&["cc", "-O2", "--dao-whole-program"]);
    c.arg(d.join("main.o")).arg(d.join("libwork.a")).arg("-o").arg(d.join("prog"));
    let o = out(c);
    let e = stderr(&o);
    assert!(!o.status.success(), "the link should stop");
    assert!(e.contains("libwork.a holds LLVM bitcode (work.o") && e.contains("link those objects themselves"), "{e}");
}
