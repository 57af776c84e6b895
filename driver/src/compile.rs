//! `dao cc` / `dao c++` / `dao fc`: turn the user's compiler command line
//! into the real clang-19 / clang++-19 / flang-new-19 command line.
//!
//! The planning step ([`plan`]) is a pure function of the arguments and the
//! resource paths so it can be unit-tested; [`crate::main`] executes the plan.
//!
//! What is added:
//! - `-fpass-plugin=<libdao.so>` (not with `--dao-no-pass`, which instead
//!   defines `DAO_DISABLE`: the clean baseline build);
//! - `-I<include dir>` (C: `dao.h`; Fortran: the cached directory holding `dao.mod`);
//! - `-gline-tables-only` unless a `-g...` level option is given (the pass
//!   reports diagnostics as file:line);
//! - when the invocation links: `-no-pie`, `libdao_rt.a` and its native libs.
//!
//! What is removed: `-Rdao` (sets `DAO_REMARKS=1` for the compiler, which
//! makes the pass print one remark per checkpoint candidate) and `--dao-no-pass`.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use crate::resources::RUNTIME_NATIVE_LIBS;

/// Which language wrapper was invoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    /// C++ (`dao c++`, `dao mpicxx`): clang++-19, which links libstdc++.
    Cxx,
    Fortran,
}

impl Lang {
    pub fn compiler(self) -> &'static str {
        match self {
            Lang::C => "clang-19",
            Lang::Cxx => "clang++-19",
            Lang::Fortran => "flang-new-19",
        }
    }
    pub fn tool(self) -> &'static str {
        match self {
            Lang::C => "cc",
            Lang::Cxx => "c++",
            Lang::Fortran => "fc",
        }
    }
}

/// The dao-specific options found in (and removed from) the argument list.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DaoOptions {
    pub remarks: bool,
    pub no_pass: bool,
    /// `--dao-whole-program` (`whole.rs`).
    pub whole_program: bool,
}

/// What kind of invocation the user's arguments describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `--version`, `-print-...`, `-###`, no arguments at all: run the
    /// compiler with exactly the user's arguments.
    Query,
    /// Stops before linking (`-c`, `-S`, `-E`, `-M`, `-MM`, `-fsyntax-only`).
    CompileOnly,
    /// Compiles and/or links an executable.
    Link,
    /// `-shared`: a shared library.
    Shared,
}

/// Split dao's own options from the compiler's.
pub fn extract_dao_options(args: &[OsString]) -> (DaoOptions, Vec<OsString>) {
    let mut opts = DaoOptions::default();
    let mut rest = Vec::with_capacity(args.len());
    for a in args {
        match a.to_str() {
            Some("-Rdao") => opts.remarks = true,
            Some("--dao-no-pass") => opts.no_pass = true,
            Some("--dao-whole-program") => opts.whole_program = true,
            _ => rest.push(a.clone()),
        }
    }
    (opts, rest)
}

/// Options that take their value as the next argument (so the value is not
/// mistaken for an option of its own, e.g. `-o -c` is legal if odd).
pub fn takes_separate_value(a: &str) -> bool {
    matches!(
        a,
        "-o" | "-I" | "-D" | "-U" | "-include" | "-isystem" | "-iquote" | "-idirafter" | "-x"
            | "-MF" | "-MT" | "-MQ" | "-Xlinker" | "-Xclang" | "-Xpreprocessor" | "-Xassembler"
            | "-L" | "-l" | "-J" | "-module-dir" | "-target" | "--target" | "-arch" | "-mllvm"
            | "-Xflang" | "-z" | "-T" | "-u" | "-e" | "-isysroot" | "--sysroot" | "-imacros"
    )
}

/// Classify the invocation.
pub fn mode(args: &[OsString]) -> Mode {
    if args.is_empty() {
        return Mode::Query;
    }
    let mut stops = false;
    let mut shared = false;
    let mut only_v = true;
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        let Some(s) = a.to_str() else { only_v = false; continue };
        if takes_separate_value(s) {
            skip = true;
            only_v = false;
            continue;
        }
        match s {
            "--version" | "-dumpversion" | "-dumpmachine" | "-###" | "--help" | "-help" => return Mode::Query,
            _ if s.starts_with("-print-") || s.starts_with("--print-") => return Mode::Query,
            "-c" | "-S" | "-E" | "-M" | "-MM" | "-fsyntax-only" => stops = true,
            "-shared" => shared = true,
            _ => {}
        }
        if s != "-v" {
            only_v = false;
        }
    }
    if only_v {
        Mode::Query
    } else if stops {
        Mode::CompileOnly
    } else if shared {
        Mode::Shared
    } else {
        Mode::Link
    }
}

/// Does the user choose the debug-info level themselves (`-g`, `-g0`..`-g3`,
/// `-ggdb`, `-gdwarf-4`, `-gline-tables-only`, ...)? Modifiers such as
/// `-gsplit-dwarf` or `-gz` do not count.
pub fn has_debug_level(args: &[OsString]) -> bool {
    args.iter().filter_map(|a| a.to_str()).any(|s| {
        s == "-g"
            || (s.len() == 3 && s.starts_with("-g") && s.as_bytes()[2].is_ascii_digit())
            || s.starts_with("-ggdb")
            || s.starts_with("-gdwarf")
            || s == "-gline-tables-only"
            || s == "-gline-directives-only"
            || s == "-gfull"
    })
}

/// Inputs to [`plan`] that come from the file system.
#[derive(Debug, Clone)]
pub struct PlanInputs {
    /// `libdao.so`; `None` with `--dao-no-pass`.
    pub plugin: Option<PathBuf>,
    /// `libdao_rt.a`; `None` with `--dao-no-pass`.
    pub runtime: Option<PathBuf>,
    /// Directories to add with `-I`.
    pub include_dirs: Vec<PathBuf>,
    /// Extra objects to add when linking (Fortran: the `dao` module's object,
    /// or with `--dao-no-pass` the no-op stubs of the marker calls).
    pub link_objects: Vec<PathBuf>,
    /// `dao mpicc` / `dao mpifort`: Open MPI's compile flags (before the
    /// user's arguments) and link flags (last, after the runtime: a future
    /// PMPI layer in the runtime must come before the MPI library).
    pub mpi: Option<MpiFlags>,
}

/// What Open MPI's wrapper compiler adds (`--showme:compile`, `--showme:link`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MpiFlags {
    pub compile: Vec<OsString>,
    pub link: Vec<OsString>,
}

impl MpiFlags {
    /// Flags from the wrappers' output: whitespace-separated words (Open
    /// MPI prints no quoting).
    pub fn parse(compile: &str, link: &str) -> MpiFlags {
        let words = |s: &str| s.split_whitespace().map(OsString::from).collect();
        MpiFlags { compile: words(compile), link: words(link) }
    }
}

/// A fully decided compiler invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub program: String,
    pub args: Vec<OsString>,
    pub env: Vec<(String, String)>,
}

/// Link-time routing of heap calls to the dao heap (runtime/src/wrap.rs),
/// of task allocations by uninstrumented code to the runtime, which cannot
/// count those tasks (runtime/src/omp/tasks.rs), of `atexit` (recorded for
/// a restart: runtime/src/process.rs), of the calls that open and close
/// files (tracked and reopened at a restart: runtime/src/files/), and of
/// libc state a restart puts back or refuses (environment, signal handlers,
/// strtok, getline's buffers; pipes, sockets, mappings, children:
/// runtime/src/libc_state.rs, runtime/src/files/).
pub const LINK_WRAP: &str = "-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=memalign,--wrap=posix_memalign,--wrap=__kmpc_omp_task_alloc,--wrap=atexit,--wrap=fopen,--wrap=fopen64,--wrap=fdopen,--wrap=freopen,--wrap=freopen64,--wrap=fclose,--wrap=open,--wrap=open64,--wrap=__open_2,--wrap=__open64_2,--wrap=openat,--wrap=openat64,--wrap=creat,--wrap=creat64,--wrap=close,--wrap=dup,--wrap=dup2,--wrap=setenv,--wrap=unsetenv,--wrap=putenv,--wrap=clearenv,--wrap=signal,--wrap=sigaction,--wrap=strtok,--wrap=getline,--wrap=getdelim,--wrap=__getdelim,--wrap=popen,--wrap=pclose,--wrap=pipe,--wrap=pipe2,--wrap=socket,--wrap=socketpair,--wrap=accept,--wrap=mmap,--wrap=munmap,--wrap=fork,--wrap=tmpfile,--wrap=tmpfile64,--wrap=fmemopen,--wrap=open_memstream,--wrap=__tgt_target_data_begin_mapper,--wrap=__tgt_target_data_end_mapper,--wrap=__tgt_target_data_update_mapper,--wrap=__tgt_target_data_begin_nowait_mapper,--wrap=__tgt_target_data_end_nowait_mapper,--wrap=__tgt_target_data_update_nowait_mapper,--wrap=__tgt_target_kernel,--wrap=omp_target_alloc,--wrap=omp_target_free,--wrap=omp_target_associate_ptr,--wrap=omp_target_disassociate_ptr,--wrap=llvm_omp_target_alloc_host,--wrap=llvm_omp_target_alloc_shared,--wrap=llvm_omp_target_alloc_device,--wrap=__kmpc_omp_target_task_alloc";

/// LLVM 19's lib folder (Debian): libomptarget.so and its plugins.
pub const OFFLOAD_LIB_DIR: &str = "/usr/lib/llvm-19/lib";

/// Whether the command builds for an OpenMP offload device.
pub fn is_offload(args: &[OsString]) -> bool {
    args.iter().any(|a| {
        let a = a.to_string_lossy();
        a.starts_with("-fopenmp-targets=") || a.starts_with("--offload-arch=") || a == "-fopenmp-targets"
    })
}

/// Build the compiler command line. `user_args` has the dao options removed.
pub fn plan(lang: Lang, opts: &DaoOptions, user_args: &[OsString], mode: Mode, inputs: &PlanInputs) -> Plan {
    let program = lang.compiler().to_string();
    let mut env = Vec::new();
    if opts.remarks {
        env.push(("DAO_REMARKS".to_string(), "1".to_string()));
    }
    if mode == Mode::Query {
        return Plan { program, args: user_args.to_vec(), env };
    }
    let mut args: Vec<OsString> = Vec::new();
    if let Some(plugin) = &inputs.plugin {
        let mut a = OsString::from("-fpass-plugin=");
        a.push(plugin);
        args.push(a);
    }
    if opts.no_pass {
        args.push("-DDAO_DISABLE".into());
    }
    for d in &inputs.include_dirs {
        let mut a = OsString::from("-I");
        a.push(d);
        args.push(a);
    }
    if let Some(m) = &inputs.mpi {
        args.extend(m.compile.iter().cloned());
    }
    if !has_debug_level(user_args) {
        args.push("-gline-tables-only".into());
    }
    if lang != Lang::Fortran && !opts.no_pass {
        // keep source names on IR values (clang drops them in release
        // builds): remarks and `dao inspect` then name variables
        args.push("-fno-discard-value-names".into());
    }
    args.extend(user_args.iter().cloned());
    if mode == Mode::Link {
        if !opts.no_pass {
            args.push("-no-pie".into());
            // Heap calls from statically linked code the pass never sees
            // (libFortranRuntime.a, uninstrumented objects) go to the dao
            // heap too; see docs/design.md section 4.
            args.push(LINK_WRAP.into());
        }
        // OpenMP offload: libomptarget (and its plugins) live in LLVM's lib
        // folder, which the loader does not search: the program finds them
        // there without LD_LIBRARY_PATH
        if is_offload(user_args) {
            args.push(format!("-Wl,-rpath,{OFFLOAD_LIB_DIR}").into());
        }
        args.extend(inputs.link_objects.iter().map(|p| p.as_os_str().to_owned()));
        if let Some(rt) = &inputs.runtime {
            // libm first: the Rust staticlib carries compiler_builtins'
            // weak software copies of trunc, floor, fmod, sqrt, ...; a
            // reference still open when the linker reaches the archive
            // would take them (19 instructions for trunc instead of 2;
            // flang's links have no -lm before ours)
            args.push("-lm".into());
            args.push(rt.as_os_str().to_owned());
            args.extend(RUNTIME_NATIVE_LIBS.iter().map(OsString::from));
        }
        if let Some(m) = &inputs.mpi {
            args.extend(m.link.iter().cloned());
        }
    }
    Plan { program, args, env }
}

/// For messages: the plan as a shell-like line.
pub fn display_command(program: &str, args: &[OsString]) -> String {
    let mut s = program.to_string();
    for a in args {
        s.push(' ');
        s.push_str(&OsStr::to_string_lossy(a));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    fn inputs() -> PlanInputs {
        PlanInputs {
            plugin: Some("/x/libdao.so".into()),
            runtime: Some("/x/libdao_rt.a".into()),
            mpi: None,
            include_dirs: vec!["/x/include".into()],
            link_objects: vec![],
        }
    }

    #[test]
    fn modes() {
        assert_eq!(mode(&v("-O2 -c a.c -o a.o")), Mode::CompileOnly);
        assert_eq!(mode(&v("-O2 a.c -o a")), Mode::Link);
        assert_eq!(mode(&v("a.o b.o -o prog")), Mode::Link);
        assert_eq!(mode(&v("-MMD -MF a.d a.c -o a")), Mode::Link, "-MMD does not stop linking");
        assert_eq!(mode(&v("-MM a.c")), Mode::CompileOnly);
        assert_eq!(mode(&v("-E a.c")), Mode::CompileOnly);
        assert_eq!(mode(&v("--version")), Mode::Query);
        assert_eq!(mode(&v("-v")), Mode::Query);
        assert_eq!(mode(&v("-print-prog-name=ld")), Mode::Query);
        assert_eq!(mode(&[]), Mode::Query);
        assert_eq!(mode(&v("-shared a.o -o liba.so")), Mode::Shared);
        assert_eq!(mode(&v("-shared -fPIC -c a.c")), Mode::CompileOnly, "order does not matter");
        assert_eq!(mode(&v("-o -c a.c")), Mode::Link, "`-c` here is the output file name");
    }

    #[test]
    fn dao_options_removed_anywhere() {
        let (o, rest) = extract_dao_options(&v("-O2 -Rdao a.c --dao-no-pass -o a"));
        assert!(o.remarks && o.no_pass);
        assert_eq!(rest, v("-O2 a.c -o a"));
    }

    #[test]
    fn mpi_plan() {
        let m = MpiFlags::parse("-I/usr/lib/x86_64-linux-gnu/openmpi/include -pthread\n", " -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi\n");
        assert_eq!(m.compile, v("-I/usr/lib/x86_64-linux-gnu/openmpi/include -pthread"));
        let inp = PlanInputs { mpi: Some(m), ..inputs() };
        let p = plan(Lang::C, &DaoOptions::default(), &v("-O2 ring.c -o ring"), Mode::Link, &inp);
        let s = display_command(&p.program, &p.args);
        assert!(s.contains("-I/usr/lib/x86_64-linux-gnu/openmpi/include -pthread -gline-tables-only"), "{s}");
        assert!(s.ends_with(" -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi") && s.find("libdao_rt.a") < s.find("-lmpi"), "the MPI libraries last, after the runtime: {s}");
        let p = plan(Lang::C, &DaoOptions::default(), &v("-c ring.c"), Mode::CompileOnly, &inp);
        let s = display_command(&p.program, &p.args);
        assert!(s.contains("openmpi/include") && !s.contains("-lmpi"), "{s}");
    }

    #[test]
    fn link_plan() {
        let p = plan(Lang::C, &DaoOptions::default(), &v("-O2 a.c -o a"), Mode::Link, &inputs());
        assert_eq!(p.program, "clang-19");
        let s = display_command(&p.program, &p.args);
        assert!(s.starts_with("clang-19 -fpass-plugin=/x/libdao.so -I/x/include -gline-tables-only -fno-discard-value-names -O2 a.c -o a -no-pie -Wl,--wrap=malloc"), "{s}");
        assert!(s.contains(" -lm /x/libdao_rt.a"), "libm before the runtime: {s}");
        assert!(s.contains("-lpthread") && s.contains("-ldl"), "{s}");
        assert!(p.env.is_empty());
    }

    #[test]
    fn cxx_plan() {
        let p = plan(Lang::Cxx, &DaoOptions::default(), &v("-O2 -fopenmp a.cc -o a"), Mode::Link, &inputs());
        assert_eq!(p.program, "clang++-19");
        let s = display_command(&p.program, &p.args);
        assert!(s.starts_with("clang++-19 -fpass-plugin=/x/libdao.so -I/x/include -gline-tables-only -fno-discard-value-names -O2"), "{s}");
        assert!(s.contains("-no-pie -Wl,--wrap=malloc") && s.contains(" -lm /x/libdao_rt.a"), "{s}");
        assert!(!s.contains("--wrap=_Znwm"), "operator new is defined by the runtime, not wrapped: {s}");
    }

    #[test]
    fn compile_only_plan_has_no_link_args() {
        let p = plan(Lang::C, &DaoOptions::default(), &v("-g -c a.c"), Mode::CompileOnly, &inputs());
        let s = display_command(&p.program, &p.args);
        assert!(!s.contains("-no-pie") && !s.contains("libdao_rt.a"), "{s}");
        assert!(!s.contains("-gline-tables-only"), "user gave -g: {s}");
    }

    #[test]
    fn no_pass_plan() {
        let opts = DaoOptions { remarks: false, no_pass: true, whole_program: false };
        let inp = PlanInputs { plugin: None, runtime: None, ..inputs() };
        let p = plan(Lang::C, &opts, &v("-O2 a.c -o a"), Mode::Link, &inp);
        let s = display_command(&p.program, &p.args);
        assert!(!s.contains("pass-plugin") && !s.contains("libdao_rt") && !s.contains("-no-pie"), "{s}");
        assert!(s.contains("-DDAO_DISABLE"), "{s}");
    }

    #[test]
    fn remarks_env() {
        let opts = DaoOptions { remarks: true, no_pass: false, whole_program: false };
        let p = plan(Lang::Fortran, &opts, &v("-c a.f90"), Mode::CompileOnly, &inputs());
        assert_eq!(p.program, "flang-new-19");
        assert_eq!(p.env, vec![("DAO_REMARKS".to_string(), "1".to_string())]);
    }

    #[test]
    fn query_is_verbatim() {
        let p = plan(Lang::C, &DaoOptions::default(), &v("--version"), Mode::Query, &inputs());
        assert_eq!(p.args, v("--version"));
    }

    #[test]
    fn debug_levels() {
        assert!(has_debug_level(&v("-g")));
        assert!(has_debug_level(&v("-g2")));
        assert!(has_debug_level(&v("-gdwarf-4")));
        assert!(!has_debug_level(&v("-gsplit-dwarf")));
        assert!(!has_debug_level(&v("-O2")));
    }
}
