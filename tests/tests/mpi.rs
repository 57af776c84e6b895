//! MPI programs (issue #17, first part): `dao mpicc` and `dao mpifort`
//! build hybrid MPI + OpenMP programs like Open MPI's wrappers, with the
//! dao pass; they run under `mpirun` (2 and 4 ranks, 2 OpenMP threads
//! each) with the output of the clean build (`--dao-no-pass`). dao does
//! not checkpoint MPI programs yet: with DAO_DIR set, every rank warns
//! once, runs without checkpoints, and writes nothing into DAO_DIR.
//!
//! Needs Open MPI (`openmpi-bin`, `libopenmpi-dev`: scripts/setup.sh
//! installs them). mpirun runs as root here only with
//! OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), which `mpirun` below sets.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dao_tests::build::build_once;
use dao_tests::paths::{fresh_dir, tools};

fn build(tool: &str, src: &str, clean: bool) -> PathBuf {
    let key = format!("mpi-{tool}-{src}-{clean}");
    build_once(&key, || {
        let dir = tools().out.join("mpi-build").join(format!("{}-{}", src.replace('/', "_"), if clean { "clean" } else { "inst" }));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let exe = dir.join("prog");
        let mut c = Command::new(&tools().dao);
        c.arg(tool).args(["-O2", "-fopenmp"]);
        if clean {
            c.arg("--dao-no-pass");
        }
        c.arg(tools().repo.join("test-programs/mpi").join(src)).arg("-o").arg(&exe).current_dir(&dir);
        let o = c.output().map_err(|e| format!("cannot run dao {tool}: {e}"))?;
        if !o.status.success() {
            return Err(format!("`{c:?}` failed ({}):\n{}{}", o.status, String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)));
        }
        Ok(exe)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// `mpirun -np N` on this machine: oversubscribed, not bound to cores
/// (each rank runs 2 OpenMP threads), shared memory and self transports
/// only; `env` added to every rank.
fn mpirun(np: usize, exe: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "--mca", "pml", "ob1", "-np", &np.to_string()]);
    for (k, v) in env {
        c.args(["-x", &format!("{k}={v}")]);
    }
    c.arg(exe).env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1").env("OMP_NUM_THREADS", "2");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DAO_") {
            c.env_remove(k);
        }
    }
    c.output().expect("run mpirun (install openmpi-bin: scripts/setup.sh)")
}

fn check(tool: &str, src: &str) {
    let clean = build(tool, src, true);
    let inst = build(tool, src, false);
    for np in [2, 4] {
        let want = mpirun(np, &clean, &[]);
        assert!(want.status.success(), "{src} clean, {np} ranks: {:?}\n{}", want.status, String::from_utf8_lossy(&want.stderr));
        let want = String::from_utf8_lossy(&want.stdout).into_owned();
        assert!(want.contains(&format!("ranks {np} checksum")), "{want}");
        let got = mpirun(np, &inst, &[]);
        assert!(got.status.success(), "{src} dao {tool}, {np} ranks: {:?}\n{}", got.status, String::from_utf8_lossy(&got.stderr));
        assert_eq!(String::from_utf8_lossy(&got.stdout), want, "{src}, {np} ranks: the instrumented build's output");

        // DAO_DIR set: one warning per rank, no checkpoint, same output
        let dir = fresh_dir(&format!("mpi/{}-{np}", src.replace('/', "_")));
        let ck = dir.join("ck");
        let got = mpirun(np, &inst, &[("DAO_DIR", ck.to_str().unwrap()), ("DAO_EVERY", "5")]);
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(got.status.success(), "{src} with DAO_DIR, {np} ranks: {:?}\n{err}", got.status);
        assert_eq!(String::from_utf8_lossy(&got.stdout), want, "{src}, {np} ranks, DAO_DIR set");
        let warnings = err.lines().filter(|l| l.contains("dao does not checkpoint MPI programs yet")).count();
        assert_eq!(warnings, np, "one warning per rank: {err}");
        assert!(err.contains("OMPI_COMM_WORLD_SIZE="), "names how it saw MPI: {err}");
        let files: Vec<_> = std::fs::read_dir(&ck).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
        assert!(files.is_empty(), "no checkpoint written: {files:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn c_halo_exchange_runs_under_mpirun() {
    check("mpicc", "c/halo_omp.c");
}

#[test]
fn fortran_mpif_h_halo_exchange_runs_under_mpirun() {
    check("mpifort", "fortran/halo_omp.f90");
}

/// A clear error naming Open MPI's wrapper when it cannot be asked.
#[test]
fn missing_open_mpi_wrapper_is_a_clear_error() {
    let o = Command::new(&tools().dao).args(["mpicc", "-c", "x.c"]).env("PATH", "/nonexistent").output().unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("mpicc --showme:compile") && e.contains("openmpi-bin"), "{e}");
}
