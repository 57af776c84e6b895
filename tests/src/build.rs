//! Compiling a test program with `dao cc` / `dao fc` / `dao c++`, clean or
//! instrumented: one source file ([`build`]) or several with extra compiler
//! flags ([`build_sources`]; C++ with [`build_cxx`]), and a per-process cache so that a binary several
//! tests share is built once ([`build_once`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use crate::paths::tools;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Fortran,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    O0,
    O2,
    O3,
}

impl Opt {
    pub fn flag(self) -> &'static str {
        match self {
            Opt::O0 => "-O0",
            Opt::O2 => "-O2",
            Opt::O3 => "-O3",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Opt::O0 => "O0",
            Opt::O2 => "O2",
            Opt::O3 => "O3",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `--dao-no-pass`: the reference.
    Clean,
    /// With the pass and the runtime.
    Instrumented,
}

impl Lang {
    pub fn subcommand(self) -> &'static str {
        match self {
            Lang::C => "cc",
            Lang::Fortran => "fc",
        }
    }
    pub fn source(self, name: &str) -> PathBuf {
        let t = tools();
        match self {
            Lang::C => t.repo.join("test-programs/c").join(format!("{name}.c")),
            Lang::Fortran => t.repo.join("test-programs/fortran").join(format!("{name}.f90")),
        }
    }
}

/// The environment every dao invocation of the tests gets: a test-local
/// cache directory for the Fortran module.
pub fn dao_env(cmd: &mut Command) {
    cmd.env("DAO_CACHE_DIR", tools().out.join("cache"));
}

/// Compile `src` into `dir/<variant>/prog`. Returns the executable, or the
/// compiler's diagnostics. The working directory is the variant's own
/// directory (Fortran writes `.mod` files there).
pub fn build(lang: Lang, src: &Path, opt: Opt, variant: Variant, dir: &Path) -> Result<PathBuf, String> {
    build_sources(lang, &[src.to_path_buf()], &[], opt, variant, dir)
}

/// Compile and link `sources` (in this order: Fortran modules before their
/// users) with the extra compiler `flags` (e.g. `-fopenmp`, `-DCLASS_S`,
/// `-I...`) into `dir/<variant>/prog`; C programs are linked with `-lm`.
/// The working directory is the variant's own directory (Fortran writes its
/// `.mod` files there, so variants never share module files).
pub fn build_sources(lang: Lang, sources: &[PathBuf], flags: &[String], opt: Opt, variant: Variant, dir: &Path) -> Result<PathBuf, String> {
    build_with(lang.subcommand(), lang == Lang::C, sources, flags, opt, variant, dir)
}

/// As [`build_sources`], for C++ with `dao c++` (linked with `-lm`).
pub fn build_cxx(sources: &[PathBuf], flags: &[String], opt: Opt, variant: Variant, dir: &Path) -> Result<PathBuf, String> {
    build_with("c++", true, sources, flags, opt, variant, dir)
}

fn build_with(subcommand: &str, libm: bool, sources: &[PathBuf], flags: &[String], opt: Opt, variant: Variant, dir: &Path) -> Result<PathBuf, String> {
    let vdir = dir.join(match variant {
        Variant::Clean => "clean",
        Variant::Instrumented => "inst",
    });
    std::fs::create_dir_all(&vdir).map_err(|e| format!("{}: {e}", vdir.display()))?;
    let exe = vdir.join("prog");
    let _ = std::fs::remove_file(&exe);
    let mut cmd = Command::new(&tools().dao);
    cmd.arg(subcommand).arg(opt.flag());
    if variant == Variant::Clean {
        cmd.arg("--dao-no-pass");
    }
    cmd.args(flags).args(sources).arg("-o").arg(&exe);
    if libm {
        cmd.arg("-lm");
    }
    cmd.current_dir(&vdir);
    dao_env(&mut cmd);
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", tools().dao.display()))?;
    if !out.status.success() {
        return Err(format!(
            "`{:?}` failed ({}):\n{}{}",
            cmd,
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

/// Build at most once per test process for each `key`: the first caller
/// runs `f`, concurrent callers with the same key wait for it, later ones get
/// its result (the executable, or the same build error). Lets several tests
/// (e.g. one per thread count) share a binary that is slow to build.
pub fn build_once(key: &str, f: impl FnOnce() -> Result<PathBuf, String>) -> Result<PathBuf, String> {
    type Cell = Arc<OnceLock<Result<PathBuf, String>>>;
    static CACHE: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let cell: Cell = {
        // A panic while holding the lock cannot leave the map inconsistent.
        let mut map = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        map.entry(key.to_string()).or_default().clone()
    };
    cell.get_or_init(f).clone()
}

/// The programs of `test-programs/<dir>/{c,fortran}` (`dir` "" for the
/// sequential ones) for which `has_row(stem, lang)` is false: a program
/// without a row in a test table would silently go untested.
pub fn programs_without_row(dir: &str, has_row: impl Fn(&str, Lang) -> bool) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("test-programs").join(dir);
    let mut missing = vec![];
    for (sub, ext, lang) in [("c", "c", Lang::C), ("fortran", "f90", Lang::Fortran)] {
        for e in std::fs::read_dir(root.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == ext) && !has_row(&p.file_stem().unwrap().to_string_lossy(), lang) {
                missing.push(p.display().to_string());
            }
        }
    }
    missing
}
