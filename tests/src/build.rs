//! Compiling a test program with `dao cc` / `dao fc`, clean or instrumented.

use std::path::{Path, PathBuf};
use std::process::Command;

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
}

impl Opt {
    pub fn flag(self) -> &'static str {
        match self {
            Opt::O0 => "-O0",
            Opt::O2 => "-O2",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Opt::O0 => "O0",
            Opt::O2 => "O2",
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
    let vdir = dir.join(match variant {
        Variant::Clean => "clean",
        Variant::Instrumented => "inst",
    });
    std::fs::create_dir_all(&vdir).map_err(|e| format!("{}: {e}", vdir.display()))?;
    let exe = vdir.join("prog");
    let mut cmd = Command::new(&tools().dao);
    cmd.arg(lang.subcommand()).arg(opt.flag());
    if variant == Variant::Clean {
        cmd.arg("--dao-no-pass");
    }
    cmd.arg(src).arg("-o").arg(&exe);
    if lang == Lang::C {
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
