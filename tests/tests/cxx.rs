//! C++ programs (issue #34): every program of test-programs/cxx/, built
//! with `dao c++`, through the crash scenarios of `dao_tests::scenario`
//! (crash after k checkpoints, crash while writing one, random SIGKILLs,
//! two crashes in a row) at -O0 and -O2; the OpenMP ones (`hydro`: markers
//! between regions whose loop bodies are lambdas; `npb_kernel`: the marker
//! inside the parallel region, on a path of invokes) also at 1-4 threads
//! and with both team protocols, as tests/tests/omp.rs runs the C ones.
//!
//! Invariant: the output appended across crashes and restarts equals the
//! clean (`--dao-no-pass`) run's: exceptions thrown after a restart
//! through rebuilt frames reach their handlers, every destructor runs
//! exactly once, `new`/`std::vector`/`std::unique_ptr` blocks come back at
//! their addresses, and iostream output is neither lost nor repeated.
//!
//! `candidates` is how often thread 0 reaches a marker at `args` (at any
//! team size: the markers are in serial code or at the top of a loop every
//! thread runs whole); DAO_EVERY is chosen for about a dozen checkpoints,
//! except where a row says why it is another number.
//! Run one program: `cargo test --release -p dao-tests --test cxx exceptions`.

use dao_tests::build::{build_cxx, build_once};
use dao_tests::paths::fresh_dir;
use dao_tests::{check_plan, Opt, Plan, Variant};

struct CxxCase {
    name: &'static str,
    args: &'static [&'static str],
    /// Candidates thread 0 reaches at `args`.
    candidates: u64,
    /// DAO_EVERY (0: candidates / 12).
    every: u64,
    /// Built with -fopenmp and run at several thread counts.
    omp: bool,
}

const CASES: &[CxxCase] = &[
    CxxCase { name: "hydro", args: &["300"], candidates: 300, every: 0, omp: true },
    CxxCase { name: "npb_kernel", args: &["120"], candidates: 120, every: 0, omp: true },
    // two markers per step (step's, then guarded's); 161 = 7 x 23 is odd:
    // checkpoint 1 is at step i = 80 (80 % 7 == 3: step throws after the
    // restart, through its rebuilt frame), checkpoint 4 at guarded's
    // marker for i = 321 (321 % 5 == 1: guarded throws and catches)
    CxxCase { name: "exceptions", args: &["1000"], candidates: 2000, every: 161, omp: false },
    CxxCase { name: "templates_uptr", args: &["6000"], candidates: 6000, every: 0, omp: false },
];

#[derive(Clone, Copy)]
enum Protocol {
    Nonblocking,
    Blocking,
}

fn case(name: &str) -> &'static CxxCase {
    CASES.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no row {name}"))
}

fn check_cxx(name: &str, opt: Opt, threads: u32, protocol: Protocol) {
    let c = case(name);
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join(format!("test-programs/cxx/{}.cc", c.name));
    let bdir = dao_tests::paths::tools().out.join("cxx-build").join(format!("{}-{}", c.name, opt.name()));
    let flags: Vec<String> = if c.omp { vec!["-fopenmp".into()] } else { vec![] };
    let clean = build_once(&format!("cxx-{}-{}-clean", c.name, opt.name()), || build_cxx(&[src.clone()], &flags, opt, Variant::Clean, &bdir))
        .unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build_once(&format!("cxx-{}-{}-inst", c.name, opt.name()), || build_cxx(&[src.clone()], &flags, opt, Variant::Instrumented, &bdir))
        .unwrap_or_else(|e| panic!("instrumented build: {e}"));
    let every = if c.every > 0 { c.every } else { (c.candidates / 12).max(1) };
    let proto = match protocol {
        Protocol::Nonblocking => "nonblocking",
        Protocol::Blocking => "blocking",
    };
    let label = format!("{} {} t={threads} {proto}", c.name, opt.name());
    let dir = fresh_dir(&format!("cxx-{}-{}-t{threads}-{proto}", c.name, opt.name()));
    check_plan(&Plan {
        label,
        dir: dir.clone(),
        clean,
        inst,
        args: c.args,
        env: vec![("OMP_NUM_THREADS", threads.to_string()), ("DAO_OMP_TIMEOUT", "20".into()), ("DAO_PROTOCOL", proto.into())],
        every,
        crash_after: &[1, 4, 8],
        crash_in: &[3],
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The OpenMP programs' cases: between them every -O level and thread
/// count under the nonblocking protocol and both blocking cases, as the
/// `a`/`b` rows of tests/tests/omp.rs split them (`hydro` the set a,
/// `npb_kernel` the set b; the full matrix on both took about 15 minutes
/// of a suite that must stay under 50). Each program meets -O0 and -O2,
/// 1-4 threads and both protocols once.
macro_rules! omp_cases {
    ($id:ident, a, $blocking:ident) => {
        mod $id {
            use super::*;
            #[test] fn o0_t1() { check_cxx(stringify!($id), Opt::O0, 1, Protocol::Nonblocking) }
            #[test] fn o0_t3() { check_cxx(stringify!($id), Opt::O0, 3, Protocol::Nonblocking) }
            #[test] fn o2_t2() { check_cxx(stringify!($id), Opt::O2, 2, Protocol::Nonblocking) }
            #[test] fn o2_t4() { check_cxx(stringify!($id), Opt::O2, 4, Protocol::Nonblocking) }
            omp_cases!(@blocking $id, $blocking);
        }
    };
    ($id:ident, b, $blocking:ident) => {
        mod $id {
            use super::*;
            #[test] fn o0_t2() { check_cxx(stringify!($id), Opt::O0, 2, Protocol::Nonblocking) }
            #[test] fn o0_t4() { check_cxx(stringify!($id), Opt::O0, 4, Protocol::Nonblocking) }
            #[test] fn o2_t1() { check_cxx(stringify!($id), Opt::O2, 1, Protocol::Nonblocking) }
            #[test] fn o2_t3() { check_cxx(stringify!($id), Opt::O2, 3, Protocol::Nonblocking) }
            omp_cases!(@blocking $id, $blocking);
        }
    };
    (@blocking $id:ident, blocking_o0_t3) => {
        #[test] fn blocking_o0_t3() { check_cxx(stringify!($id), Opt::O0, 3, Protocol::Blocking) }
    };
    (@blocking $id:ident, blocking_o2_t4) => {
        #[test] fn blocking_o2_t4() { check_cxx(stringify!($id), Opt::O2, 4, Protocol::Blocking) }
    };
}

macro_rules! serial_cases {
    ($($id:ident),*) => {$(
        mod $id {
            use super::*;
            #[test] fn o0() { check_cxx(stringify!($id), Opt::O0, 1, Protocol::Nonblocking) }
            #[test] fn o2() { check_cxx(stringify!($id), Opt::O2, 1, Protocol::Nonblocking) }
        }
    )*};
}

omp_cases!(hydro, a, blocking_o0_t3);
omp_cases!(npb_kernel, b, blocking_o2_t4);
serial_cases!(exceptions, templates_uptr);

/// Every program in test-programs/cxx has a row.
#[test]
fn table_covers_every_program() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("test-programs/cxx");
    let mut missing = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "cc") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            if !CASES.iter().any(|c| c.name == stem) {
                missing.push(stem);
            }
        }
    }
    assert!(missing.is_empty(), "programs without a row in tests/tests/cxx.rs: {missing:?}");
}

/// A candidate inside a `catch` handler is not taken (libstdc++'s record
/// of the exception being handled would not survive a restart): of 100
/// candidates, the 50 reached in a handler are refused with one warning,
/// the 50 in ordinary code are taken.
#[test]
fn candidate_in_catch_handler_is_not_taken() {
    let d = fresh_dir("cxx-catch-refusal");
    let src = d.join("catch.cc");
    std::fs::write(
        &src,
        "#include <cstdio>\n#include <stdexcept>\n#include \"dao.h\"\nstatic long n;\n\
         __attribute__((noinline)) static void handle(int i) { dao_potential_checkpoint(); n += i; }\n\
         int main() { for (int i = 0; i < 100; i++) { try { if (i % 2) throw std::runtime_error(\"x\"); dao_potential_checkpoint(); }\n\
         catch (const std::exception &) { handle(i); } } std::printf(\"%ld\\n\", n); return 0; }\n",
    )
    .unwrap();
    let exe = build_cxx(&[src], &[], Opt::O2, Variant::Instrumented, &d).unwrap_or_else(|e| panic!("{e}"));
    let stats = d.join("stats.jsonl");
    let o = std::process::Command::new(&exe).env("DAO_DIR", d.join("ck")).env("DAO_EVERY", "1").env("DAO_STATS", &stats).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "2500\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("a C++ exception is being handled").count(), 1, "one warning: {err}");
    let taken = std::fs::read_to_string(&stats).unwrap().lines().filter(|l| l.contains("\"event\":\"checkpoint\"")).count();
    assert_eq!(taken, 50, "the candidates outside handlers are taken");
}
