//! The driver's build cache: artifacts `dao fc` needs that are built from
//! sources on first use, keyed by a hash of their inputs.
//!
//! - `fmod-<hash>/dao.mod` (+ `dao.o`): the Fortran module `dao`, compiled
//!   from `<include>/dao.f90` with flang-new-19.
//! - `stub-<hash>/dao_stub.o`: no-op marker functions for `--dao-no-pass`
//!   Fortran links.
//!
//! Several `dao fc` processes may race (make -j): each builds into its own
//! temporary directory and renames it into place; the loser of the rename
//! discards its copy.
//!
//! Location: `DAO_CACHE_DIR`, else `$XDG_CACHE_HOME/dao`, else
//! `$HOME/.cache/dao`, else `<tmp>/dao-cache-<uid>`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::compile::display_command;
use crate::error::DriverError;

const STUB_SOURCE: &str = include_str!("dao_stub.c");

pub fn cache_root() -> PathBuf {
    if let Some(d) = crate::env::cache_dir() {
        return d;
    }
    // The uid only makes the name unique per user.
    std::env::temp_dir().join(format!("dao-cache-{}", crate::sys::uid()))
}

fn hash_key(parts: &[&[u8]]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    format!("{:016x}", h.digest())
}

/// Build `dir` with `build` (which fills a fresh temporary directory) unless
/// it already exists.
fn build_once(dir: &Path, build: impl FnOnce(&Path) -> Result<(), DriverError>) -> Result<(), DriverError> {
    if dir.is_dir() {
        return Ok(());
    }
    let parent = dir.parent().expect("cache entries have a parent");
    std::fs::create_dir_all(parent).map_err(|e| DriverError::io(parent, e))?;
    let tmp = parent.join(format!(
        ".tmp-{}-{}",
        dir.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| DriverError::io(&tmp, e))?;
    let result = build(&tmp);
    if result.is_ok() {
        if let Err(e) = std::fs::rename(&tmp, dir) {
            // Another process won the race: theirs is as good as ours.
            if !dir.is_dir() {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(DriverError::io(dir, e));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn run_tool(what: &'static str, cmd: &mut Command, source_file: &Path) -> Result<(), DriverError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let status = cmd
        .status()
        .map_err(|source| DriverError::Spawn { program: program.clone(), source })?;
    if !status.success() {
        return Err(DriverError::CacheBuild {
            what,
            source_file: source_file.to_path_buf(),
            command: display_command(&program, &args),
            status: status.to_string(),
        });
    }
    Ok(())
}

/// The compiled Fortran module `dao`: the directory to pass with `-I` and
/// the object file to link.
pub struct FortranModule {
    pub module_dir: PathBuf,
    pub object: PathBuf,
}

/// Make sure `dao.mod` built from `<include_dir>/dao.f90` is in the cache.
pub fn fortran_module(include_dir: &Path, compiler: &str) -> Result<FortranModule, DriverError> {
    let src = include_dir.join("dao.f90");
    let text = std::fs::read(&src).map_err(|e| DriverError::io(&src, e))?;
    let dir = cache_root().join(format!("fmod-{}", hash_key(&[&text, compiler.as_bytes()])));
    build_once(&dir, |tmp| {
        run_tool(
            "the Fortran module dao.mod",
            Command::new(compiler)
                .arg("-c")
                .arg(&src)
                .arg("-module-dir")
                .arg(tmp)
                .arg("-o")
                .arg(tmp.join("dao.o")),
            &src,
        )
    })?;
    Ok(FortranModule { object: dir.join("dao.o"), module_dir: dir })
}

/// Fortran's `mpi` module for `dao mpifort`, compiled by flang-new-19 from
/// Open MPI's `mpif.h` (Open MPI's own `mpi.mod` is gfortran's, which
/// flang cannot read): `module mpi; include 'mpif.h'; end module`. Keyed
/// by the compiler, Open MPI's compile flags and the text of every
/// `mpif*.h` in their include directories (an upgraded Open MPI gets a
/// new module). The directory goes before Open MPI's on the command line.
pub fn mpi_module(compiler: &str, mpi_compile: &[std::ffi::OsString]) -> Result<FortranModule, DriverError> {
    const SOURCE: &str = "! dao mpifort: Fortran's `mpi` module for flang, from Open MPI's mpif.h\nmodule mpi\n  implicit none\n  include 'mpif.h'\nend module mpi\n";
    let mut parts: Vec<Vec<u8>> = vec![SOURCE.as_bytes().to_vec(), compiler.as_bytes().to_vec()];
    for f in mpi_compile {
        parts.push(f.as_encoded_bytes().to_vec());
        if let Some(dir) = f.to_str().and_then(|x| x.strip_prefix("-I")) {
            let mut headers: Vec<PathBuf> = std::fs::read_dir(dir)
                .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("mpif"))).collect())
                .unwrap_or_default();
            headers.sort();
            for h in headers {
                parts.push(std::fs::read(&h).unwrap_or_default());
            }
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
    let dir = cache_root().join(format!("fmpi-{}", hash_key(&refs)));
    build_once(&dir, |tmp| {
        let src = tmp.join("mpi_module.f90");
        std::fs::write(&src, SOURCE).map_err(|e| DriverError::io(&src, e))?;
        run_tool(
            "the Fortran module mpi.mod (from Open MPI's mpif.h)",
            Command::new(compiler).arg("-c").arg(&src).args(mpi_compile).arg("-module-dir").arg(tmp).arg("-o").arg(tmp.join("mpi_module.o")),
            &src,
        )
    })?;
    Ok(FortranModule { object: dir.join("mpi_module.o"), module_dir: dir })
}

/// The no-op marker stubs for `dao fc --dao-no-pass` links.
pub fn marker_stub() -> Result<PathBuf, DriverError> {
    let dir = cache_root().join(format!("stub-{}", hash_key(&[STUB_SOURCE.as_bytes()])));
    build_once(&dir, |tmp| {
        let c = tmp.join("dao_stub.c");
        std::fs::write(&c, STUB_SOURCE).map_err(|e| DriverError::io(&c, e))?;
        run_tool(
            "the no-op marker stubs",
            Command::new("clang-19").arg("-O2").arg("-c").arg(&c).arg("-o").arg(tmp.join("dao_stub.o")),
            &c,
        )
    })?;
    Ok(dir.join("dao_stub.o"))
}
