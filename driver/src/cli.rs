//! The command line of `dao` (clap derive). The help texts are the user's
//! first documentation: they say what each command does and show an example.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "dao",
    version,
    about = "dao: compiler-assisted checkpoint/restart for C, C++ and Fortran programs",
    long_about = "dao: compiler-assisted checkpoint/restart for C, C++ and Fortran programs.\n\n\
Mark places where a checkpoint may be taken with dao_potential_checkpoint() \
(C, C++: #include \"dao.h\"; Fortran: use dao), build with `dao cc` / `dao c++` / `dao fc`, and run \
with DAO_DIR set. If the program is killed, running it again with the same DAO_DIR \
resumes from the last checkpoint.",
    after_help = "Example:\n  \
dao cc -O2 solver.c -o solver\n  \
DAO_DIR=ckpt DAO_INTERVAL=60 ./solver      # checkpoints at most every 60 s\n  \
# ... killed ...\n  \
DAO_DIR=ckpt ./solver                      # resumes from the last checkpoint\n  \
dao inspect ckpt                           # what is in the checkpoints\n\n\
Environment: DAO_HOME=<prefix> selects the dao installation (lib/libdao.so, \
lib/libdao_rt.a, include/).\n\n\
The program's runtime reads DAO_* variables (all listed in runtime/README.md): DAO_DIR, \
DAO_EVERY / DAO_INTERVAL / DAO_MTBF / DAO_PLACEMENT (when), DAO_RESTART, DAO_KEEP, DAO_STATS, \
DAO_VERBOSE, ... Storage: DAO_STORE=file (default: one checkpoint file each) or engine (the \
storage engine: only changed blocks, compressed, optionally flushed in the background), tuned by \
DAO_INCREMENTAL=full|incremental|differential|adaptive, DAO_ASYNC=off|wait|skip, DAO_COMPRESS, \
DAO_FILTER, DAO_BLOCK, DAO_HASH, DAO_CHAIN_MAX, DAO_DELTA_MAX, DAO_BUFFER, DAO_QUEUE, \
DAO_WORKERS, DAO_COMPRESS_SKIP, DAO_KEEP_CHAINS."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

const WRAPPER_HELP: &str = "\
All arguments are passed to the compiler, with these additions:\n  \
-fpass-plugin=libdao.so        the dao pass, which instruments the program\n  \
-I<dao include dir>            for dao.h (C) or the dao module (Fortran)\n  \
-gline-tables-only             unless you give a -g option (for file:line diagnostics)\n  \
-no-pie libdao_rt.a -l...      when linking: the runtime and its system libraries\n\n\
dao's own options (may appear anywhere, are not passed on):\n  \
-Rdao           print a remark for every checkpoint candidate: what is live, how many bytes\n  \
--dao-no-pass   build the clean program: no pass, no runtime, DAO_DISABLE defined\n  \
--dao-whole-program  on every compile and link (or DAO_WHOLE_PROGRAM=1): bitcode objects,\n                     the pass on the whole program at the link (liveness across files)\n\n\
The compiler's exit status is passed through. `--version` and similar queries go to the compiler.";

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Compile and link C with clang-19 and the dao pass (use as CC="dao cc").
    #[command(
        long_about = "Compile and link C with clang-19 and the dao pass. Use it like a compiler: \
CC=\"dao cc\" make, or `dao cc -O2 prog.c -o prog`.",
        after_help = WRAPPER_HELP,
        disable_version_flag = true
    )]
    Cc {
        /// Arguments for clang-19 (plus -Rdao / --dao-no-pass).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Compile and link C++ with clang++-19 and the dao pass (use as CXX="dao c++").
    #[command(
        name = "c++",
        long_about = "Compile and link C++ with clang++-19 and the dao pass (libstdc++). Use it like \
a compiler: CXX=\"dao c++\" make, CXX=\"dao c++\" cmake, or `dao c++ -O2 -fopenmp prog.cc -o prog`. \
Functions with try/catch, destructors (invoke instructions) may be on the path to a marker; \
operator new and delete allocate in the dao heap.",
        after_help = WRAPPER_HELP,
        disable_version_flag = true
    )]
    Cxx {
        /// Arguments for clang++-19 (plus -Rdao / --dao-no-pass).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Compile and link MPI C++ programs: clang++-19, the dao pass and Open MPI's flags (use as CXX="dao mpicxx").
    #[command(
        long_about = "Compile and link an MPI C++ program like Open MPI's mpicxx, with clang++-19 \
and the dao pass: Open MPI's compile and link flags (asked from `mpicxx --showme:compile` and \
`--showme:link`) are added to what `dao c++` adds. Use it as CXX=\"dao mpicxx\" make.",
        after_help = WRAPPER_HELP,
        disable_version_flag = true
    )]
    Mpicxx {
        /// Arguments for clang++-19 (plus -Rdao / --dao-no-pass).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Compile and link Fortran with flang-new-19 and the dao pass (use as FC="dao fc").
    #[command(
        long_about = "Compile and link Fortran with flang-new-19 and the dao pass. Use it like a \
compiler: FC=\"dao fc\" make, or `dao fc -O2 prog.f90 -o prog`. `use dao` finds the dao module, \
which is compiled once from dao.f90 into dao's cache directory (DAO_CACHE_DIR, else ~/.cache/dao).",
        after_help = WRAPPER_HELP,
        disable_version_flag = true
    )]
    Fc {
        /// Arguments for flang-new-19 (plus -Rdao / --dao-no-pass).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Compile and link MPI C programs: clang-19, the dao pass and Open MPI's flags (use as MPICC="dao mpicc").
    #[command(
        long_about = "Compile and link an MPI C program like Open MPI's mpicc, with clang-19 and the \
dao pass: Open MPI's compile and link flags (asked from `mpicc --showme:compile` and \
`--showme:link`) are added to what `dao cc` adds. Use it as MPICC=\"dao mpicc\" make. \
Checkpoints of MPI programs are not taken yet (issue #17): with DAO_DIR set, a run under an MPI \
launcher warns once and runs without checkpoints.",
        after_help = WRAPPER_HELP,
        disable_version_flag = true
    )]
    Mpicc {
        /// Arguments for clang-19 (plus -Rdao / --dao-no-pass).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Compile and link MPI Fortran programs: flang-new-19, the dao pass and Open MPI's flags (use as MPIF77="dao mpifort").
    #[command(
        long_about = "Compile and link an MPI Fortran program like Open MPI's mpifort, with \
flang-new-19 and the dao pass: Open MPI's compile and link flags (asked from `mpifort \
--showme:compile` and `--showme:link`) are added to what `dao fc` adds. `include 'mpif.h'` works; \
`use mpi` does not (Debian's mpi module is compiled by gfortran, whose module files flang cannot \
read). Use it as MPIF77=\"dao mpifort\" or MPIFC=\"dao mpifort\" make. Checkpoints of MPI \
programs are not taken yet (issue #17).",
        after_help = WRAPPER_HELP,
        disable_version_flag = true
    )]
    Mpifort {
        /// Arguments for flang-new-19 (plus -Rdao / --dao-no-pass).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Run a program, restarting it from its last checkpoint when it is killed.
    #[command(
        long_about = "Run a program and, when it dies abnormally (killed by a signal, or exit \
status 137), start it again so that it resumes from its last checkpoint. Prints one line per \
restart on stderr. The exit status is the program's final one (128+N if killed by signal N). \
If dao itself gets Ctrl-C or SIGTERM, the program is not restarted.",
        after_help = "Example:\n  dao run --dir ckpt --retries 5 -- ./solver input.dat"
    )]
    Run {
        /// How many times to restart the program at most.
        #[arg(long, default_value_t = 3, value_name = "N")]
        retries: u32,
        /// Checkpoint directory, given to the program as DAO_DIR (default: the DAO_DIR already set).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The program to run.
        #[arg(required = true, value_name = "PROG")]
        program: OsString,
        /// The program's arguments (put `--` before PROG if they start with `-`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Show what a checkpoint file or checkpoint directory contains.
    #[command(
        long_about = "Show what a checkpoint file or a checkpoint directory (DAO_DIR) contains. \
For a file: format version, binary hash, run id, sequence number, time, threads, the chain of \
frames with their saved variables (name, source location, size), globals, heap, and totals. \
For a directory: every checkpoint file, valid or not (and why), which one a restart would use, \
and whether the run has finished. For the directory of an MPI job (a `job` file and one \
rank.NNNN directory per rank): each rank's directory, the versions its own files, the partner \
copies and the flushed copies can restore, and the version a restart of the job would resume.",
        after_help = "Examples:\n  dao inspect ckpt\n  dao inspect ckpt/<file> --binary ./solver\n  dao inspect ckpt --json | jq .\n  dao inspect ckpt --flush-dir /scratch/job42   # an MPI job with DAO_FLUSH_DIR"
    )]
    Inspect {
        /// A checkpoint file, or a checkpoint directory.
        #[arg(value_name = "PATH")]
        path: PathBuf,
        /// Check that the checkpoint was written by this executable.
        #[arg(long, value_name = "PROG")]
        binary: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// MPI job: where the partner copies are (default: DAO_PARTNER_DIR, else PATH/partner).
        #[arg(long, value_name = "DIR")]
        partner_dir: Option<PathBuf>,
        /// MPI job: the flushed level (default: DAO_FLUSH_DIR, if set).
        #[arg(long, value_name = "DIR")]
        flush_dir: Option<PathBuf>,
    },
    /// Choose where to checkpoint from a profile (DAO_PROFILE): the exact optimum of the DAO paper's model.
    #[command(
        long_about = "Choose the candidate instances that checkpoint, from a profile written by a run with DAO_PROFILE=FILE (every candidate reached: time, live shared and private bytes). With T_itvl = -ln(R) * MTBF, the paper's objective is the least total saved bytes such that consecutive checkpoints (and the program's start and end) are at most T_itvl apart; it is solved exactly in O(n) by dynamic programming. Every placement is also reported with its expected run time under exponential failures (checkpoint cost = latency + bytes / bandwidth), beside Young's and Daly's periodic placements. -o writes the placement file that the runtime follows (DAO_PLACEMENT=FILE). With --mtbf-gpu, the CPU-GPU models (synchronous and asynchronous, devices given by the profile's `device` fields) are solved and reported instead. Infeasible inputs (a stretch without candidates longer than T_itvl) are an error naming the stretch and the instances around it.",
        after_help = "Example:\n  \
DAO_PROFILE=cg.prof.json ./cg                               # profiling run (no DAO_DIR)\n  \
dao place --profile cg.prof.json --mtbf 3600 -o cg.place.json\n  \
DAO_DIR=ckpt DAO_PLACEMENT=cg.place.json ./cg               # checkpoints exactly there\n  \
dao place --profile cg.prof.json --mtbf 3600 --objective expected-time --bandwidth 5e8\n  \
dao place --paper-experiment 8,5 --profile cg.json --profile mg.json --svg place.svg"
    )]
    Place {
        /// The profile (DAO_PROFILE output); repeat for --paper-experiment.
        #[arg(long = "profile", required = true, value_name = "FILE")]
        profiles: Vec<PathBuf>,
        /// Mean time between failures, seconds (with --mtbf-gpu: of the CPU).
        #[arg(long, value_name = "SECONDS")]
        mtbf: Option<f64>,
        /// R in T_itvl = -ln(R) * MTBF: the chance that T_itvl passes without a failure.
        #[arg(long, default_value_t = 0.99, value_name = "R")]
        reliability: f64,
        /// Total run time T (default: the profiled run's).
        #[arg(long, value_name = "SECONDS")]
        total_time: Option<f64>,
        /// Size an instance as shared + K * private (the paper's formula) instead of shared + sum of the recorded threads' private bytes.
        #[arg(long, value_name = "K")]
        threads: Option<u32>,
        /// What to minimise.
        #[arg(long, value_enum, default_value = "bytes")]
        objective: crate::place::Objective,
        /// Storage bandwidth, bytes/s (checkpoint cost = latency + bytes / bandwidth).
        #[arg(long, default_value_t = 1e9, value_name = "BYTES_PER_S")]
        bandwidth: f64,
        /// Read bandwidth at restart, bytes/s (default: --bandwidth).
        #[arg(long, value_name = "BYTES_PER_S")]
        read_bandwidth: Option<f64>,
        /// Fixed cost of one checkpoint, seconds.
        #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
        latency: f64,
        /// Fixed cost of one restart (relaunch), seconds.
        #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
        restart_cost: f64,
        /// CPU-GPU mode: MTBF of the GPU, seconds (--mtbf is the CPU's).
        #[arg(long, value_name = "SECONDS")]
        mtbf_gpu: Option<f64>,
        /// CPU-GPU mode: host-device bandwidth B2, bytes/s.
        #[arg(long, default_value_t = 4e9, value_name = "BYTES_PER_S")]
        host_device_bandwidth: f64,
        /// CPU-GPU mode: also the paper's offset heuristic with this window dt, seconds.
        #[arg(long, value_name = "SECONDS")]
        offset_window: Option<f64>,
        /// CPU-GPU mode: whose placement -o writes: `sync` (one checkpoint of
        /// both at the chosen kernel boundaries), `async` (the CPU's and the
        /// GPU's chosen instances together), `offset` (the synchronous model
        /// with the paper's offset window; needs --offset-window).
        #[arg(long, default_value = "sync", value_parser = ["sync", "async", "offset"], value_name = "MODE")]
        gpu_mode: String,
        /// Write the placement file (or, with --paper-experiment, the results as JSON).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// The paper's experiment: K candidates per profile, T_itvl such that the optimum picks M; optimum vs random M of K.
        #[arg(long, value_name = "K,M", value_parser = parse_pair)]
        paper_experiment: Option<(usize, usize)>,
        /// With --paper-experiment: draw the result (SVG).
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// Run the NPB ports clean, instrumented, with one checkpoint and with a restart; compare with the DAO paper.
    #[command(
        long_about = "Benchmark the NPB ports (npb-ports/) for each benchmark x class x thread count: \
the clean build and the instrumented build without checkpoints (failure-free overhead), one checkpoint \
in the middle of the run (ALC(0): save time, file size), that checkpoint killed and restarted (ALC(1): \
recovery overhead, restore time), and the save-everything size (DAO_SAVE=all) and RSS at the same \
candidate. Writes JSON (all raw numbers) and markdown tables in the shape of the DAO paper's tables \
2-4, with the paper's ALC and C3 figures beside ours. Exit status 0; 1 if a run did not verify \
(the results are written anyway); 2 for any other error.",
        after_help = "Example:\n  dao bench --bench cg,mg --class S,W --threads 1,2 --reps 3 --out bench-out\n  \
dao bench --bench cg --class S --threads 1 --reps 1 --json cg.json --markdown cg.md"
    )]
    Bench {
        /// Benchmarks, comma-separated.
        #[arg(long = "bench", value_delimiter = ',', default_value = "cg,mg,ft,bt",
              value_parser = ["cg", "mg", "ft", "bt"], value_name = "LIST")]
        benches: Vec<String>,
        /// NPB classes (fixed at compile time), comma-separated.
        #[arg(long = "class", value_delimiter = ',', default_value = "S,W,A",
              value_parser = ["S", "W", "A", "B", "C"], value_name = "LIST")]
        classes: Vec<String>,
        /// OpenMP thread counts, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1,2",
              value_parser = clap::value_parser!(u32).range(1..), value_name = "LIST")]
        threads: Vec<u32>,
        /// Runs per measurement (medians are reported).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..), value_name = "N")]
        reps: u32,
        /// Working directory: builds, run outputs, and the default JSON/markdown files.
        #[arg(long, default_value = "dao-bench", value_name = "DIR")]
        out: PathBuf,
        /// JSON output file (default: DIR/bench.json).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Markdown output file (default: DIR/bench.md).
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// The npb-ports directory (default: ./npb-ports, else the repository holding this dao).
        #[arg(long, value_name = "DIR")]
        npb_dir: Option<PathBuf>,
    },
}

/// `K,M` for --paper-experiment.
fn parse_pair(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s.split_once(',').ok_or("expected K,M (e.g. 8,5)")?;
    Ok((a.trim().parse().map_err(|_| "K is not a number")?, b.trim().parse().map_err(|_| "M is not a number")?))
}
