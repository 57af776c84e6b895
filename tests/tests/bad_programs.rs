//! Programs the pass must REJECT at compile time, at -O0 and -O2: `dao cc -c`
//! (`dao fc -c` for .f90, `dao c++ -c` for .cc) must fail, and its diagnostic must name the file
//! and one of the lines marked `/* dao-expect-error */` (`! dao-expect-error`
//! in Fortran), and mention dao. Every .c/.f90/.cc file of `test-programs/bad`
//! (misplaced markers, sequential), `test-programs/omp/bad` (markers
//! where not every thread reaches them, OpenMP offload) and
//! `test-programs/cxx/bad` (markers behind virtual dispatch or a
//! std::function) is checked (adding
//! one adds a test case); the omp ones with -fopenmp, and each with the
//! flags its `dao-flags: ...` line names (an offload target).

use std::path::{Path, PathBuf};
use std::process::Command;

use dao_tests::build::dao_env;
use dao_tests::paths::{fresh_dir, tools};

/// The directories scanned, relative to the repository.
const BAD_DIRS: [&str; 3] = ["test-programs/bad", "test-programs/omp/bad", "test-programs/cxx/bad"];

fn bad_sources() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for sub in BAD_DIRS {
        let dir = tools().repo.join(sub);
        v.extend(
            std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "f90" || x == "cc")),
        );
    }
    v.sort();
    v
}

fn expected_lines(src: &Path) -> Vec<usize> {
    std::fs::read_to_string(src)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("/* dao-expect-error */") || l.contains("! dao-expect-error"))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The flags a `dao-flags: ...` line of the source asks for (e.g. an
/// offload target).
fn extra_flags(src: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(src).unwrap();
    text.lines().find_map(|l| l.split_once("dao-flags:").map(|(_, f)| f.split_whitespace().map(String::from).collect())).unwrap_or_default()
}

fn check_rejected(opt: &str) {
    let out = fresh_dir(&format!("bad-{opt}"));
    let sources = bad_sources();
    assert!(sources.len() >= 3, "expected at least 3 programs in test-programs/bad");
    let mut failures = vec![];
    for src in &sources {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let lines = expected_lines(src);
        assert!(!lines.is_empty(), "{name}: no line is marked /* dao-expect-error */");
        let tool = match src.extension().and_then(|x| x.to_str()) {
            Some("f90") => "fc",
            Some("cc") => "c++",
            _ => "cc",
        };
        let mut cmd = Command::new(&tools().dao);
        cmd.args([tool, opt, "-c"]);
        if src.to_string_lossy().contains("/omp/") {
            cmd.arg("-fopenmp");
        }
        cmd.args(extra_flags(src));
        cmd.arg(src).arg("-o").arg(out.join(format!("{name}.o"))).current_dir(&out);
        dao_env(&mut cmd);
        let r = cmd.output().expect("run dao cc");
        let stderr = String::from_utf8_lossy(&r.stderr);
        if r.status.success() {
            failures.push(format!("{name} {opt}: compiled successfully but must be rejected; stderr:\n{stderr}"));
            continue;
        }
        let names_line = lines.iter().any(|l| stderr.contains(&format!("{name}:{l}")));
        if !names_line || !stderr.contains("dao") {
            failures.push(format!(
                "{name} {opt}: rejected, but the diagnostic should name {name}:LINE for LINE in {lines:?} and mention dao; stderr:\n{stderr}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn rejected_at_o0() {
    check_rejected("-O0");
}

#[test]
fn rejected_at_o2() {
    check_rejected("-O2");
}

/// Every scanned directory holds at least one program (a renamed or emptied
/// directory must not silently drop its cases).
#[test]
fn every_directory_has_programs() {
    for sub in BAD_DIRS {
        let n = bad_sources().iter().filter(|p| p.starts_with(tools().repo.join(sub))).count();
        assert!(n > 0, "{sub}: no .c/.f90 program found");
    }
}
