//! OpenMP offload (issue #35) on the host offload device
//! (`-fopenmp-targets=x86_64-pc-linux-gnu`: device memory separate from the
//! host's, so a device copy not put back shows as a wrong result).
//!
//! Invariant: the output appended across crashes and restarts equals the
//! clean (`--dao-no-pass`) run's: at a restart every range mapped at the
//! checkpoint is mapped again at its host address on its device with its
//! reference counts, and its device copy holds the bytes it held at the
//! checkpoint (the programs' device copies differ from the host's between
//! `target update`s, so the host's bytes alone would print other numbers).
//!
//! - `test-programs/offload/{maps,unstructured,nowait}.c` through every
//!   crash scenario of `dao_tests::scenario` (crash after k checkpoints,
//!   crash while writing one, random SIGKILLs, two crashes in a row; every
//!   run with DAO_DEAD=poison) at -O0 and -O2;
//! - Jia, Yang and Ma's six programs (`test-programs/offload/jia/`: swim,
//!   mgrid, fft2d, backprop, bfs, gaussian) through the same scenarios at
//!   -O2, swim and bfs at -O0 too (`jia_*`);
//! - `refused/`: pointer attachment and `omp_target_alloc` memory live at a
//!   checkpoint stop the first checkpoint with an error naming them, and
//!   leave no checkpoint;
//! - `dao inspect` lists the device regions (text and `--json`), and
//!   device liveness leaves dead device copies unsaved (`dead_device.c`,
//!   `callees.c`: kernels launched by called functions, `parallel_for.c`:
//!   `target parallel for` kernels, and their twins),
//!   and keeps what a kernel reads through a parameter (`param_read.c`);
//! - the placement path: DAO_PROFILE records the kernel boundaries (device
//!   bytes, kernel time, measured device-to-host time), `dao place
//!   --mtbf-gpu --gpu-mode ... -o` writes the placement, and DAO_PLACEMENT
//!   takes exactly the chosen checkpoints, after which a crash restarts to
//!   the same output.
//!
//! The compile-time refusals (unified shared memory, `declare target`
//! variables, a marker in a target region) are in
//! `test-programs/omp/bad/offload_*.c` (tests/tests/bad_programs.rs).
//! Run one: `cargo test --release -p dao-tests --test offload maps`.

use std::path::PathBuf;
use std::process::Command;

use dao_tests::build::{build_once, build_sources, dao_env, Lang};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::{check_plan, Opt, Plan, Variant};

const FLAGS: [&str; 2] = ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"];

fn src(rel: &str) -> PathBuf {
    tools().repo.join("test-programs/offload").join(rel)
}

fn flags() -> Vec<String> {
    FLAGS.iter().map(|s| s.to_string()).collect()
}

fn built(rel: &str, opt: Opt, variant: Variant) -> PathBuf {
    let name = rel.replace('/', "-").trim_end_matches(".cpp").trim_end_matches(".c").to_string();
    let v = if variant == Variant::Clean { "clean" } else { "inst" };
    let bdir = tools().out.join("offload-build").join(format!("{name}-{}", opt.name()));
    build_once(&format!("offload-{name}-{}-{v}", opt.name()), || {
        if rel.ends_with(".cpp") {
            dao_tests::build::build_cxx(&[src(rel)], &flags(), opt, variant, &bdir)
        } else {
            build_sources(Lang::C, &[src(rel)], &flags(), opt, variant, &bdir)
        }
    })
    .unwrap_or_else(|e| panic!("{v} build of {rel}: {e}"))
}

/// The crash scenarios for one program. `every`: DAO_EVERY for about a
/// dozen checkpoints (one candidate per step).
fn crash(name: &str, opt: Opt, args: &'static [&'static str], every: u64) {
    let rel = format!("{name}.c");
    let (clean, inst) = (built(&rel, opt, Variant::Clean), built(&rel, opt, Variant::Instrumented));
    crash_plan(format!("offload {name} {}", opt.name()), &format!("offload-{}-{}", name.replace('/', "-"), opt.name()), clean, inst, args, every);
}

/// [`check_plan`] for two built programs, at 2 threads: crash after the
/// first and the fifth checkpoint, while writing the third, and the rest of
/// `dao_tests::scenario`.
fn crash_plan(label: String, dir: &str, clean: PathBuf, inst: PathBuf, args: &'static [&'static str], every: u64) {
    check_plan(&Plan {
        label,
        dir: fresh_dir(dir),
        clean,
        inst,
        args,
        env: vec![("OMP_NUM_THREADS", "2".into())],
        every,
        crash_after: &[1, 5],
        crash_in: &[3],
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
}

#[test]
fn maps_o0() {
    crash("maps", Opt::O0, &["200"], 16);
}

#[test]
fn maps_o2() {
    crash("maps", Opt::O2, &["200"], 16);
}

#[test]
fn unstructured_o0() {
    crash("unstructured", Opt::O0, &["150"], 12);
}

#[test]
fn unstructured_o2() {
    crash("unstructured", Opt::O2, &["150"], 12);
}

/// Several devices (the host plugin offers four): a slice of the state, a
/// scratch array and a coefficient on each, kernels per device, a marker
/// between them. Every crash scenario restarts to the clean output, and
/// the checkpoint holds each device's ranges on that device.
#[test]
fn devices_o0() {
    crash("devices", Opt::O0, &["120"], 10);
}

#[test]
fn devices_o2() {
    crash("devices", Opt::O2, &["120"], 10);
    let exe = built("devices.c", Opt::O2, Variant::Instrumented);
    let dir = fresh_dir("offload-devices-inspect");
    let ck = dir.join("ckpt");
    let out = run(&exe, &[("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "30".into()), ("DAO_CRASH_AFTER", "2".into())], &["120"]);
    assert!(!out.status.success(), "DAO_CRASH_AFTER=2 kills the run");
    let json = dao(&["inspect", "--json", &ck.join("store.000002.dst").display().to_string()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("inspect --json");
    let devs = v["devices"].as_array().expect("devices");
    assert_eq!(devs.len(), 4, "the host plugin's four devices: {devs:?}");
    let slices: Vec<u64> = devs
        .iter()
        .map(|d| {
            let r = d["ranges"].as_array().expect("ranges");
            assert_eq!(r.len(), 3, "ud, sd and coef on each device: {d}");
            assert!(r.iter().all(|x| x["saved"] == true), "{d}");
            let ud = r.iter().find(|x| x["name"].as_str().is_some_and(|n| n.starts_with("ud"))).expect("ud");
            u64::from_str_radix(ud["addr"].as_str().expect("addr").trim_start_matches("0x"), 16).expect("hex addr")
        })
        .collect();
    // each device holds its own slice of u (consecutive 16 KiB slices)
    assert!(slices.windows(2).all(|w| w[1] == w[0] + 16384), "{slices:?}");
}

#[test]
fn nowait_o2() {
    crash("nowait", Opt::O2, &["120"], 10);
}

// Jia, Yang and Ma's (2013) six programs, written for dao
// (`test-programs/offload/jia/`): every DAO_EVERY gives about a dozen
// checkpoints; each has device copies that differ from the host's between
// its `target update`s (scratch arrays mapped `alloc`, state updated on the
// device only), so a restart without them prints other checksums.

#[test]
fn jia_swim_o0() {
    crash("jia/swim", Opt::O0, &["60"], 10);
}

#[test]
fn jia_swim_o2() {
    crash("jia/swim", Opt::O2, &["60"], 10);
}

#[test]
fn jia_mgrid_o2() {
    crash("jia/mgrid", Opt::O2, &["16"], 9);
}

#[test]
fn jia_fft2d_o2() {
    crash("jia/fft2d", Opt::O2, &["24"], 4);
}

#[test]
fn jia_backprop_o2() {
    crash("jia/backprop", Opt::O2, &["64"], 10);
}

#[test]
fn jia_bfs_o0() {
    crash("jia/bfs", Opt::O0, &["12"], 12);
}

#[test]
fn jia_bfs_o2() {
    crash("jia/bfs", Opt::O2, &["12"], 12);
}

#[test]
fn jia_gaussian_o2() {
    crash("jia/gaussian", Opt::O2, &["4"], 3);
}

fn run(exe: &PathBuf, env: &[(&str, String)], args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(exe);
    cmd.args(args).env("OMP_NUM_THREADS", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run the program")
}

/// A run with stdout appended to `out` (a file: a restart rewinds it).
fn run_to(exe: &PathBuf, env: &[(&str, String)], args: &[&str], out: &std::path::Path) -> std::process::Output {
    let f = std::fs::OpenOptions::new().create(true).append(true).open(out).expect("open the output file");
    let mut cmd = Command::new(exe);
    cmd.args(args).env("OMP_NUM_THREADS", "2").stdout(f);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run the program")
}

fn dao(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(&tools().dao);
    cmd.args(args);
    dao_env(&mut cmd);
    cmd.output().expect("run dao")
}

/// Device liveness (`pass/plugin/src/device.rs`): at the marker of
/// `dead_device.c` the device copies of the scratch `w` and the output `o`
/// are dead at -O2 (the next kernels rewrite them whole before any device
/// operation reads them) and are neither copied back nor saved; the state
/// `u` is saved. The twins keep `w`: `-DREAD_SCRATCH` (kernel 1 reads it)
/// and `-DSHORT_WRITE` (kernel 1 leaves `w[0]`, which kernel 2 reads). At
/// -O0 every copy is saved. Every variant goes through the crash scenarios
/// (`DAO_DEAD=poison` fills unsaved device copies with 0xff).
#[test]
fn dead_device_copies() {
    crash("dead_device", Opt::O2, &["120"], 10);
    crash("dead_device", Opt::O0, &["120"], 10);
    let want = |w: bool| named(&[("o", false), ("u", true), ("w", w)]);
    assert_eq!(device_saved(&built("dead_device.c", Opt::O2, Variant::Instrumented), "dead_device-o2", &["120"], 10), want(false), "-O2: w and o dead");
    let all = named(&[("o", true), ("u", true), ("w", true)]);
    assert_eq!(device_saved(&built("dead_device.c", Opt::O0, Variant::Instrumented), "dead_device-o0", &["120"], 10), all, "-O0: every device copy saved");
    for twin in ["READ_SCRATCH", "SHORT_WRITE"] {
        let (clean, inst) = twin_o2("dead_device", twin);
        assert_eq!(device_saved(&inst, &format!("dead_device-{twin}"), &["120"], 10), want(true), "{twin}: w kept");
        crash_twin("dead_device", twin, clean, inst, &["120"], 10);
    }
}

/// Device liveness of heap arrays (`heap_device.c`: `dead_device.c` with
/// its arrays from `malloc` in `main`, mapped as array sections): at -O2
/// the device copies of the scratch `w` and the output `o` are not saved,
/// `u`'s is; the twins keep `w`; -O0 saves every copy. Every variant goes
/// through the crash scenarios with `DAO_DEAD=poison`.
#[test]
fn dead_device_copies_of_heap_arrays() {
    crash("heap_device", Opt::O2, &["120"], 10);
    crash("heap_device", Opt::O0, &["120"], 10);
    let want = |w: bool| named(&[("o[0:8192]", false), ("u[0:8192]", true), ("w[0:8192]", w)]);
    assert_eq!(device_saved(&built("heap_device.c", Opt::O2, Variant::Instrumented), "heap_device-o2", &["120"], 10), want(false), "-O2: w and o dead");
    let all = named(&[("o[0:8192]", true), ("u[0:8192]", true), ("w[0:8192]", true)]);
    assert_eq!(device_saved(&built("heap_device.c", Opt::O0, Variant::Instrumented), "heap_device-o0", &["120"], 10), all, "-O0: every device copy saved");
    for twin in ["READ_SCRATCH", "SHORT_WRITE"] {
        let (clean, inst) = twin_o2("heap_device", twin);
        assert_eq!(device_saved(&inst, &format!("heap_device-{twin}"), &["120"], 10), want(true), "{twin}: w kept");
        crash_twin("heap_device", twin, clean, inst, &["120"], 10);
    }
}

/// C++ (`teams_cxx.cpp`): a `target teams` region that calls OpenMP
/// routines through invokes whose unwind edges call `__clang_call_terminate`
/// (HeCBench's stencil3d-omp) builds -- the pass refused it, taking the
/// terminate pad for unknown code that may reach a marker inside the
/// teams region -- and restarts through the crash scenarios at -O0 and -O2.
#[test]
fn cxx_teams_region_with_terminate_pads() {
    for opt in [Opt::O0, Opt::O2] {
        let (clean, inst) = (built("teams_cxx.cpp", opt, Variant::Clean), built("teams_cxx.cpp", opt, Variant::Instrumented));
        crash_plan(format!("offload teams_cxx {}", opt.name()), &format!("offload-teams_cxx-{}", opt.name()), clean, inst, &["60"], 5);
    }
}

/// Device copies equal to the host's bytes are stored once, as the host's
/// (format 10; `inputs.c`): the input tables `w` (a global) and `k` (a heap
/// block), mapped `to` and never written on the device, are saved as the
/// host's, the state `u` with its own bytes. The twins keep their own
/// bytes where the two copies differ: `-DHOST_WRITES` (the host changes
/// `w` without an update, so the device's is the old table) and
/// `-DDEVICE_WRITES` (a kernel rewrites `k`). Every variant through the
/// crash scenarios with the dead bytes poisoned, at -O0 too.
#[test]
fn device_copies_stored_as_the_hosts_bytes() {
    let stored = |exe: &PathBuf, tag: &str| {
        let dir = fresh_dir(&format!("offload-as-host-{tag}"));
        let ck = dir.join("ckpt");
        // the third checkpoint: step 60, after the host's first change of `w`
        let out = run(exe, &[("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "20".into()), ("DAO_CRASH_AFTER", "3".into())], &["120"]);
        assert!(!out.status.success(), "{tag}: DAO_CRASH_AFTER=3 kills the run");
        let json = dao(&["inspect", "--json", &ck.join("store.000003.dst").display().to_string()]);
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("inspect --json");
        let d = &v["devices"][0];
        let mut r: Vec<(String, bool, bool)> = d["ranges"].as_array().expect("ranges").iter().map(|x| (x["name"].as_str().unwrap_or("?").to_string(), x["saved"] == true, x["from_host"] == true)).collect();
        r.sort();
        let host: u64 = r.iter().filter(|x| x.2).map(|x| if x.0 == "w" { 131072 } else { 65536 }).sum();
        assert_eq!(d["as_host_bytes"].as_u64(), Some(host), "{tag}: {d}");
        assert_eq!(v["totals"]["device"].as_u64(), Some(d["mapped_bytes"].as_u64().unwrap() - host), "{tag}: the device total counts the host's bytes once");
        r.into_iter().map(|(n, _, h)| (n, h)).collect::<Vec<_>>()
    };
    let want = |w: bool, k: bool| named(&[("k[0:8192]", k), ("u", false), ("w", w)]);
    for opt in [Opt::O0, Opt::O2] {
        let exe = built("inputs.c", opt, Variant::Instrumented);
        assert_eq!(stored(&exe, opt.name()), want(true, true), "{}: w and k as the host's", opt.name());
        crash("inputs", opt, &["120"], 10);
    }
    for (twin, w, k) in [("HOST_WRITES", false, true), ("DEVICE_WRITES", true, false)] {
        let (clean, inst) = twin_o2("inputs", twin);
        assert_eq!(stored(&inst, twin), want(w, k), "{twin}");
        crash_twin("inputs", twin, clean, inst, &["120"], 10);
    }
}

/// Which mapped ranges of device 0 a checkpoint saved, by name: the run
/// checkpoints every `every` candidates and dies after its second.
fn device_saved(exe: &PathBuf, tag: &str, args: &[&str], every: u64) -> Vec<(String, bool)> {
    let dir = fresh_dir(&format!("offload-saved-{tag}"));
    let ck = dir.join("ckpt");
    let out = run(exe, &[("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", every.to_string()), ("DAO_CRASH_AFTER", "2".into())], args);
    assert!(!out.status.success(), "{tag}: DAO_CRASH_AFTER=2 kills the run");
    let json = dao(&["inspect", "--json", &ck.join("store.000002.dst").display().to_string()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("inspect --json");
    let mut r: Vec<(String, bool)> = v["devices"][0]["ranges"].as_array().expect("ranges").iter().map(|x| (x["name"].as_str().unwrap_or("?").to_string(), x["saved"] == true)).collect();
    r.sort();
    r
}

/// A twin of `name.c` built with `-D{twin}` at -O2: (clean, instrumented).
fn twin_o2(name: &str, twin: &str) -> (PathBuf, PathBuf) {
    let bdir = tools().out.join("offload-build").join(format!("{name}-{twin}"));
    let mut fl = flags();
    fl.push(format!("-D{twin}"));
    let file = src(&format!("{name}.c"));
    let clean = build_once(&format!("offload-{name}-{twin}-clean"), || build_sources(Lang::C, &[file.clone()], &fl, Opt::O2, Variant::Clean, &bdir)).unwrap_or_else(|e| panic!("{twin}: {e}"));
    let inst = build_once(&format!("offload-{name}-{twin}-inst"), || build_sources(Lang::C, &[file.clone()], &fl, Opt::O2, Variant::Instrumented, &bdir)).unwrap_or_else(|e| panic!("{twin}: {e}"));
    (clean, inst)
}

/// A twin through the crash scenarios (as [`crash`]).
fn crash_twin(name: &str, twin: &str, clean: PathBuf, inst: PathBuf, args: &'static [&'static str], every: u64) {
    crash_plan(format!("offload {name} -D{twin} O2"), &format!("offload-{name}-{twin}"), clean, inst, args, every);
}

fn named(v: &[(&str, bool)]) -> Vec<(String, bool)> {
    v.iter().map(|&(n, b)| (n.to_string(), b)).collect()
}

/// A kernel's reads through a parameter of the function that launches it
/// (`param_read.c`: `step(w)` reads `p[i]`) keep the device copy live in
/// that frame, although the next kernel naming `w` in each frame rewrites
/// it whole; the twin `-DBY_NAME`, whose kernel reads no parameter, leaves
/// `w` unsaved. Both restart to the clean output with DAO_DEAD=poison
/// (before the fix the default program restarted with `nan`s).
#[test]
fn reads_through_a_parameter() {
    crash("param_read", Opt::O2, &["60"], 10);
    let exe = built("param_read.c", Opt::O2, Variant::Instrumented);
    assert_eq!(device_saved(&exe, "param_read", &["60"], 10), named(&[("u", true), ("w", true)]), "w read through the parameter, saved");
    let (clean, inst) = twin_o2("param_read", "BY_NAME");
    assert_eq!(device_saved(&inst, "param_read-BY_NAME", &["60"], 10), named(&[("u", true), ("w", false)]), "BY_NAME: w dead in both frames");
    crash_twin("param_read", "BY_NAME", clean, inst, &["60"], 10);
}

/// Device summaries of the functions that launch kernels (`callees.c`: the
/// marker in `main`, every kernel in a function it calls): `w` (rewritten
/// by `smooth`) and `o` (by `advance`) are dead at the marker; the twin
/// `-DREAD_SCRATCH` (`smooth` reads `w` too) keeps `w`, and
/// `-DREPORT_FIRST` (a `target update from(o)` before them) keeps `o`
/// only: a `target update` reads the device copies of its `from` entries.
/// Every variant through the crash scenarios with DAO_DEAD=poison.
#[test]
fn summaries_of_kernel_launching_functions() {
    crash("callees", Opt::O2, &["120"], 10);
    let exe = built("callees.c", Opt::O2, Variant::Instrumented);
    assert_eq!(device_saved(&exe, "callees", &["120"], 10), named(&[("o", false), ("u", true), ("w", false)]), "-O2: w and o dead at the marker in main");
    for (twin, want) in [("READ_SCRATCH", [("o", false), ("u", true), ("w", true)]), ("REPORT_FIRST", [("o", true), ("u", true), ("w", false)])] {
        let (clean, inst) = twin_o2("callees", twin);
        assert_eq!(device_saved(&inst, &format!("callees-{twin}"), &["120"], 10), named(&want), "{twin}");
        crash_twin("callees", twin, clean, inst, &["120"], 10);
    }
}

/// `target parallel for` kernels (`parallel_for.c`: the fallback forks the
/// parallel region directly): `w` and `o` dead at the marker, as with
/// `teams distribute`; the twin `-DSERIAL_READ`, a `target` region whose
/// serial code reads `w` around its `parallel for`, keeps every copy.
/// Both through the crash scenarios with DAO_DEAD=poison.
#[test]
fn target_parallel_for_kernels() {
    crash("parallel_for", Opt::O2, &["120"], 10);
    let exe = built("parallel_for.c", Opt::O2, Variant::Instrumented);
    assert_eq!(device_saved(&exe, "parallel_for", &["120"], 10), named(&[("o", false), ("u", true), ("w", false)]), "w and o dead");
    let (clean, inst) = twin_o2("parallel_for", "SERIAL_READ");
    assert_eq!(device_saved(&inst, "parallel_for-SERIAL_READ", &["120"], 10), named(&[("o", true), ("u", true), ("w", true)]), "SERIAL_READ: all kept");
    crash_twin("parallel_for", "SERIAL_READ", clean, inst, &["120"], 10);
}

/// What dao cannot give back stops the first checkpoint with an error
/// naming it; no checkpoint is left to resume wrongly.
#[test]
fn refused_at_the_first_checkpoint() {
    for (rel, want) in [("refused/ptr_attach.c", "maps a member of a struct"), ("refused/target_alloc.c", "from omp_target_alloc) is live at a checkpoint")] {
        let exe = built(rel, Opt::O2, Variant::Instrumented);
        let dir = fresh_dir(&format!("offload-{}", rel.replace('/', "-")));
        let ck = dir.join("ckpt");
        let out = run(&exe, &[("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "3".into())], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{rel}: the run should stop at its first checkpoint; stderr:\n{stderr}");
        assert!(stderr.contains("dao: error: OpenMP offload") && stderr.contains(want), "{rel}: the error should say `{want}`; stderr:\n{stderr}");
        let left = std::fs::read_dir(&ck).map(|d| d.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().ends_with(".dst") || e.file_name().to_string_lossy().ends_with(".dao")).count()).unwrap_or(0);
        assert_eq!(left, 0, "{rel}: no checkpoint may be written");
        // without DAO_DIR the program runs as it is
        let plain = run(&exe, &[], &[]);
        assert!(plain.status.success(), "{rel} without DAO_DIR: {}", String::from_utf8_lossy(&plain.stderr));
    }
}

/// `dao inspect` names every mapped range per device, with its map type and
/// reference count, and whether its device copy was saved; `--json` has
/// the same. At maps.c's marker (-O2) the device copy of `a` is dead: the
/// next kernel rewrites all of it and reads none of it (device liveness,
/// `pass/plugin/src/device.rs`).
#[test]
fn inspect_lists_device_regions() {
    let exe = built("maps.c", Opt::O2, Variant::Instrumented);
    let dir = fresh_dir("offload-inspect");
    let ck = dir.join("ckpt");
    let out = run(&exe, &[("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "20".into()), ("DAO_CRASH_AFTER", "2".into())], &["200"]);
    assert!(!out.status.success(), "DAO_CRASH_AFTER=2 kills the run");
    let text = dao(&["inspect", &ck.join("store.000002.dst").display().to_string()]);
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(text.status.success(), "dao inspect: {}", String::from_utf8_lossy(&text.stderr));
    assert!(t.contains("device 0: 4 mapped ranges (96.0 KiB), device copies saved 64.0 KiB"), "{t}");
    for line in ["map    a ", "tofrom (refs 1): dead, not saved", "map    b ", "alloc (refs 1): saved", "c[0:4096]", "map    coef"] {
        assert!(t.contains(line), "`{line}` missing:\n{t}");
    }
    let json = dao(&["inspect", "--json", &ck.join("store.000002.dst").display().to_string()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("inspect --json");
    let ranges = v["devices"][0]["ranges"].as_array().expect("devices[0].ranges");
    assert_eq!(ranges.len(), 4);
    assert!(ranges.iter().any(|r| r["name"] == "b" && r["map"] == "alloc" && r["dyn_refs"] == 1 && r["saved"] == true), "{ranges:?}");
    assert!(ranges.iter().any(|r| r["name"] == "a" && r["map"] == "tofrom" && r["saved"] == false), "{ranges:?}");
    // `coef` (32 bytes, mapped `to`, the host's bytes): stored as the host's
    assert!(ranges.iter().any(|r| r["name"] == "coef" && r["saved"] == true && r["from_host"] == true), "{ranges:?}");
    assert_eq!(v["totals"]["device"], 98336 - 32768 - 32);
}

/// The placement path end to end: profile, `dao place --mtbf-gpu
/// --gpu-mode`, DAO_PLACEMENT takes exactly the chosen instances, and a
/// crash after one of them restarts to the clean output.
#[test]
fn placement_end_to_end() {
    const STEPS: &str = "3000";
    let clean = built("maps.c", Opt::O2, Variant::Clean);
    let exe = built("maps.c", Opt::O2, Variant::Instrumented);
    let dir = fresh_dir("offload-placement");
    let prof = dir.join("prof.json");
    let p = run(&exe, &[("DAO_PROFILE", prof.display().to_string())], &[STEPS]);
    assert!(p.status.success(), "profile run: {}", String::from_utf8_lossy(&p.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&prof).unwrap()).expect("profile JSON");
    let inst = v["instances"].as_array().unwrap();
    assert_eq!(inst.len().to_string(), STEPS, "one instance per step");
    let d = &inst[10]["device"];
    // live device bytes: the mapped ones less `a`, whose device copy is
    // dead at the marker (device liveness)
    assert_eq!(d["mapped_bytes"], 98336, "{d}");
    assert_eq!(d["bytes"], 98336 - 32768, "{d}");
    assert!(d["kernel_s"].as_f64().unwrap() > 0.0 && d["d2h_s"].as_f64().unwrap() > 0.0, "{d}");
    let total = v["total_time_s"].as_f64().unwrap();
    // an interval of a third of the time loop, at least 1.2 times the
    // start-up before the first candidate (libomptarget's, most of a short
    // run): R = 0.5, MTBF_CPU = MTBF_GPU = 2 T_itvl / ln 2 (their series
    // system's interval: T_itvl)
    // (and at least 1.2 times the longest stretch between two candidates, so
    // that a step slowed down by a loaded machine keeps it feasible)
    let times: Vec<f64> = std::iter::once(0.0).chain(inst.iter().map(|i| i["time_s"].as_f64().unwrap())).chain(std::iter::once(total)).collect();
    let gap = times.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    let gap0 = times[1];
    let itvl = ((total - gap0) / 3.0).max(1.2 * gap);
    let mtbf = format!("{}", 2.0 * itvl / std::f64::consts::LN_2);
    for mode in ["sync", "async"] {
        let place = dir.join(format!("place-{mode}.json"));
        let r = dao(&["place", "--profile", &prof.display().to_string(), "--mtbf", &mtbf, "--mtbf-gpu", &mtbf, "--reliability", "0.5", "--gpu-mode", mode, "-o", &place.display().to_string()]);
        assert!(r.status.success(), "dao place --gpu-mode {mode}: {}{}", String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
        let pl: serde_json::Value = serde_json::from_slice(&std::fs::read(&place).unwrap()).expect("placement JSON");
        let chosen: Vec<u64> = pl["instances"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        assert!(!chosen.is_empty(), "{mode}: no checkpoint chosen: {pl}");
        assert_eq!(pl["parameters"]["gpu_mode"], mode, "{pl}");
        let ck = dir.join(format!("ckpt-{mode}"));
        let stats = dir.join(format!("stats-{mode}"));
        let _ = std::fs::remove_dir_all(&ck);
        let env = [("DAO_DIR", ck.display().to_string()), ("DAO_PLACEMENT", place.display().to_string()), ("DAO_STATS", stats.display().to_string())];
        let r = run(&exe, &env, &[STEPS]);
        assert!(r.status.success(), "{mode}: {}", String::from_utf8_lossy(&r.stderr));
        let n = std::fs::read_to_string(&stats).unwrap().lines().filter(|l| l.contains("\"event\":\"checkpoint\"")).count();
        assert_eq!(n, chosen.len(), "{mode}: checkpoints taken vs chosen {chosen:?}");
        // a crash after the first chosen checkpoint, then the restart
        let _ = std::fs::remove_dir_all(&ck);
        let out = dir.join(format!("out-{mode}"));
        let _ = std::fs::remove_file(&out);
        run_to(&exe, &[env[0].clone(), env[1].clone(), ("DAO_CRASH_AFTER", "1".into())], &[STEPS], &out);
        let r = run_to(&exe, &env[..2], &[STEPS], &out);
        assert!(r.status.success(), "{mode} restart: {}", String::from_utf8_lossy(&r.stderr));
        assert!(String::from_utf8_lossy(&r.stderr).contains("dao: resuming"), "{mode}: the restart did not resume");
        let reference = run(&clean, &[], &[STEPS]).stdout;
        assert_eq!(std::fs::read_to_string(&out).unwrap(), String::from_utf8_lossy(&reference), "{mode}: output after the crash and restart");
    }
}
