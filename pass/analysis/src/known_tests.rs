//! The table against the lists it replaced (pass/plugin/src/known.rs and
//! guard.rs before issue #13): for every name of the old lists, the
//! liveness effect and the guard effect are the old answers.
use super::*;

/// The old liveness classification (known.rs `classify`), copied as the
/// reference. Returns the effect and whether a call's result points into
/// the heap (func_facts.rs `compute_bases`: `Alloc`, or a `dao_*alloc*` name).
mod old {
    pub const ALLOC_ROUTES: &[(&str, &str)] = &[
        ("malloc", "dao_malloc"),
        ("calloc", "dao_calloc"),
        ("realloc", "dao_realloc"),
        ("free", "dao_free"),
        ("aligned_alloc", "dao_aligned_alloc"),
        ("memalign", "dao_aligned_alloc"),
        ("posix_memalign", "dao_posix_memalign"),
        ("strdup", "dao_strdup"),
        ("strndup", "dao_strndup"),
    ];
    pub const NOMEM: &[&str] = &[
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
        "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt", "hypot", "fabs", "floor", "ceil",
        "round", "trunc", "rint", "nearbyint", "lround", "llround", "lrint", "fmod", "remainder", "fmin", "fmax",
        "fma", "copysign", "erf", "erfc", "tgamma", "lgamma", "ldexp", "scalbn", "abs", "labs", "llabs",
        "clock", "getpid", "sysconf", "omp_get_wtime", "omp_get_wtick", "omp_get_thread_num", "omp_get_num_threads",
        "omp_get_max_threads", "omp_get_num_procs", "omp_in_parallel", "omp_get_dynamic", "omp_get_level",
        "rand", "srand", "random", "srandom", "drand48", "srand48", "sleep", "usleep", "getchar",
    ];
    pub const READS_ARGS: &[&str] = &[
        "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf", "puts", "fputs",
        "putchar", "fputc", "putc", "fwrite", "fread", "fflush", "fopen", "fdopen", "fclose", "fscanf", "scanf",
        "sscanf", "fgets", "fgetc", "getc", "feof", "ferror", "rewind", "fseek", "ftell", "setvbuf", "setbuf",
        "remove", "rename", "perror", "strlen", "strnlen", "strcmp", "strncmp", "strcpy", "strncpy", "strcat",
        "strncat", "strchr", "strrchr", "strstr", "strtok", "strerror", "memcmp", "memcpy", "memmove", "memset",
        "memchr", "atoi", "atol", "atoll", "atof", "strtol", "strtoul", "strtoll", "strtoull", "strtod", "strtof",
        "time", "gettimeofday", "clock_gettime", "getenv", "exit", "_exit", "abort", "__assert_fail", "open",
        "close", "read", "write", "lseek", "fsync", "unlink", "stat", "fstat", "getrusage", "times", "localtime",
        "gmtime", "strftime", "ctime", "asctime", "isatty", "__errno_location", "__isoc99_scanf", "__isoc99_fscanf",
        "__isoc99_sscanf", "__isoc23_strtol", "__isoc23_strtoul", "__isoc23_sscanf", "__isoc23_fscanf",
        "__isoc23_scanf", "__ctype_b_loc", "toupper", "tolower", "malloc_usable_size",
        "__stack_chk_fail", "omp_set_lock", "omp_unset_lock", "omp_init_lock", "omp_destroy_lock", "omp_test_lock",
    ];
    pub const ENV: &[&str] = &[
        "_FortranAProgramStart", "omp_set_num_threads", "omp_set_dynamic", "omp_set_schedule", "omp_set_max_active_levels", "omp_set_nested",
    ];
    pub const RETURNS_TWICE: &[&str] = &["setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "vfork", "getcontext"];

    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum E {
        NoMem,
        ReadsArgs,
        Alloc(&'static str),
        MarkerP,
        MarkerF,
        ForkCall,
        Env,
        ReturnsTwice,
    }

    fn strip_float_suffix(name: &str) -> Option<&str> {
        name.strip_suffix('f').or_else(|| name.strip_suffix('l'))
    }

    pub fn classify(name: &str) -> Option<E> {
        if name == "dao_potential_checkpoint" {
            return Some(E::MarkerP);
        }
        if name == "dao_checkpoint_now" {
            return Some(E::MarkerF);
        }
        if let Some((_, to)) = ALLOC_ROUTES.iter().find(|(from, _)| *from == name) {
            return Some(E::Alloc(to));
        }
        if name.starts_with("dao_") {
            return Some(E::NoMem);
        }
        if name == "__kmpc_fork_call" || name == "__kmpc_fork_call_if" {
            return Some(E::ForkCall);
        }
        if RETURNS_TWICE.contains(&name) {
            return Some(E::ReturnsTwice);
        }
        if ENV.contains(&name) {
            return Some(E::Env);
        }
        if NOMEM.contains(&name) || strip_float_suffix(name).is_some_and(|b| NOMEM.contains(&b)) {
            return Some(E::NoMem);
        }
        if READS_ARGS.contains(&name) {
            return Some(E::ReadsArgs);
        }
        if name.starts_with("_FortranA") || name.starts_with("__kmpc_") || name.starts_with("omp_") {
            return Some(E::ReadsArgs);
        }
        None
    }

    pub fn heap(name: &str) -> bool {
        matches!(classify(name), Some(E::Alloc(_))) || (name.starts_with("dao_") && name.contains("alloc"))
    }

    // guard.rs
    pub const CHECKIN: &[&str] = &["dao_candidate", "dao_forced", "dao_omp_park"];
    pub const DAO_ALLOC: &[&str] = &["dao_malloc", "dao_calloc", "dao_realloc", "dao_free", "dao_aligned_alloc", "dao_posix_memalign", "dao_strdup", "dao_strndup"];
    pub const OMP_WRITES: &[&str] = &[
        "__kmpc_critical", "__kmpc_critical_with_hint", "__kmpc_reduce", "__kmpc_reduce_nowait", "__kmpc_ordered", "__kmpc_set_lock",
        "__kmpc_set_nest_lock", "__kmpc_test_lock", "__kmpc_test_nest_lock", "__kmpc_copyprivate",
    ];
    pub const PURE: &[&str] = &[
        "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
        "tanh", "asinh", "acosh", "atanh", "fabs", "floor", "ceil", "trunc", "round", "lround", "llround", "rint", "lrint", "nearbyint", "fmod", "remainder",
        "fmin", "fmax", "fdim", "fma", "hypot", "erf", "erfc", "tgamma", "copysign", "ldexp", "scalbn", "ilogb", "logb", "abs", "labs", "llabs", "atoi", "atol",
        "atoll", "atof", "strlen", "strnlen", "strcmp", "strncmp", "memcmp", "strchr", "strrchr", "strstr", "isdigit", "isalpha", "isspace", "toupper", "tolower",
    ];
    pub const LIBC: &[&str] = &[
        "printf", "fprintf", "sprintf", "snprintf", "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "fflush", "fopen", "fclose", "fread", "fgets", "fscanf",
        "scanf", "sscanf", "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memcpy", "memmove", "memset", "strcpy", "strncpy", "strcat",
        "strncat", "strdup", "strndup", "rand", "srand", "rand_r", "drand48", "srand48", "time", "clock", "gettimeofday", "clock_gettime", "exit", "abort",
        "perror", "frexp", "modf", "strtol", "strtoll", "strtoul", "strtoull", "strtod", "strtof", "getenv", "write", "read",
    ];

    /// The guard event of a call of a *declared* function (guard.rs
    /// `classify`): 0 none, 1 write, 2 kill (check-in), 3 write+kill.
    pub fn guard(name: &str) -> u8 {
        if CHECKIN.contains(&name) {
            return 2;
        }
        if DAO_ALLOC.contains(&name) || name == "dao_omp_single" {
            return 1;
        }
        if name.starts_with("dao_") || name.starts_with("__dao") {
            return 0;
        }
        if OMP_WRITES.contains(&name) || name.starts_with("__kmpc_atomic") {
            return 1;
        }
        if name.starts_with("__kmpc_") || name.starts_with("omp_") {
            return if name.contains("lock") { 1 } else { 0 };
        }
        let base = |n: &str| PURE.contains(&n);
        if base(name) || name.strip_suffix('f').is_some_and(base) || name.strip_suffix('l').is_some_and(base) {
            return 0;
        }
        if name.starts_with("_Fortran") || LIBC.contains(&name) || name.starts_with("__isoc99_") {
            return 1;
        }
        3
    }
    /// Whether a guard-time classification is made before the "defined in
    /// the module" test (dao's own names).
    pub fn guard_before_defined(name: &str) -> bool {
        CHECKIN.contains(&name) || DAO_ALLOC.contains(&name) || name == "dao_omp_single" || name.starts_with("dao_") || name.starts_with("__dao")
    }
}

fn new_liveness(name: &str) -> (Option<old::E>, bool) {
    let e = lookup_name(name).and_then(|m| m.row.effect);
    let heap = matches!(e, Some(Alloc { .. }));
    let e = e.map(|e| match e {
        NoMem | Alloc { to: None, .. } => old::E::NoMem,
        ReadsArgs => old::E::ReadsArgs,
        Alloc { to: Some(to), .. } => old::E::Alloc(to),
        Marker(MarkerKind::Potential) => old::E::MarkerP,
        Marker(MarkerKind::Forced) => old::E::MarkerF,
        ForkCall => old::E::ForkCall,
        Env => old::E::Env,
        ReturnsTwice => old::E::ReturnsTwice,
        Intrinsic => panic!("{name}: an intrinsic row"),
        Offload => panic!("{name}: an offload row (issue #35, newer than the old classification)"),
    });
    (e, heap)
}

fn new_guard(name: &str) -> u8 {
    match lookup_name(name).map_or(Unknown, |m| m.row.guard) {
        Pure => 0,
        LibcWrite | OmpWrite | DaoWrite | WritesOperand(_) => 1,
        CheckIn => 2,
        Unknown => 3,
    }
}

fn every_old_name() -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    names.extend(old::ALLOC_ROUTES.iter().flat_map(|(a, b)| [*a, *b]));
    for l in [old::NOMEM, old::READS_ARGS, old::ENV, old::RETURNS_TWICE, old::CHECKIN, old::DAO_ALLOC, old::OMP_WRITES, old::PURE, old::LIBC] {
        names.extend(l);
    }
    names.extend([
        "dao_potential_checkpoint", "dao_checkpoint_now", "dao_omp_single", "dao_frame_restore", "dao_omp_guard_wait", "dao_something_alloc",
        "__dao_user_main", "__kmpc_fork_call", "__kmpc_fork_call_if", "__kmpc_barrier", "__kmpc_atomic_fixed4_add", "__kmpc_init_lock",
        "__kmpc_dispatch_next_4", "__kmpc_dispatch_init_8u", "__kmpc_for_static_init_4", "__kmpc_global_thread_num", "omp_set_nest_lock",
        "omp_get_team_num", "_FortranAioOutputAscii", "_FortranProgramX", "__isoc99_vscanf", "solve_step", "myf", "",
    ]);
    let mut out: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    // the libm variants of the math functions (the old lists also matched
    // the variants of non-math names, e.g. "randf"; those names do not
    // exist and are unknown now, see below)
    for n in old::NOMEM.iter().chain(old::PURE) {
        if lookup_name(n).is_some_and(|m| matches!(m.row.name, Libm(_))) {
            out.push(format!("{n}f"));
            out.push(format!("{n}l"));
        }
    }
    out
}

/// Names whose rows were deliberately corrected after the old lists (see
/// the tests below): left out of the comparison.
const CORRECTED: &[&str] = &["strdup", "strndup", "dao_strdup", "dao_strndup", "strtok"];

/// Guard answers made consistent after the old lists: libc writers like
/// their neighbours (`__isoc99_*`, the other allocators) instead of unknown
/// (a write that may also reach a check-in point, which they never do).
const GUARD_CORRECTED: &[&str] = &["memalign", "__isoc23_scanf", "__isoc23_fscanf", "__isoc23_sscanf", "__isoc23_strtol", "__isoc23_strtoul"];

#[test]
fn same_answers_as_the_old_lists() {
    for n in every_old_name().into_iter().filter(|n| !CORRECTED.contains(&n.as_str())) {
        let (e, heap) = new_liveness(&n);
        assert_eq!(e, old::classify(&n), "liveness effect of {n:?}");
        assert_eq!(heap, old::heap(&n), "heap result of {n:?}");
        if !GUARD_CORRECTED.contains(&n.as_str()) {
            assert_eq!(new_guard(&n), old::guard(&n), "guard effect of {n:?}");
        }
        let dao = lookup_name(&n).is_some_and(|m| m.row.role == Some(Role::DaoRuntime));
        assert_eq!(dao, old::guard_before_defined(&n), "dao's own name {n:?}");
    }
}

/// Where the new table deliberately differs: the `f`/`l` variants of names
/// that are not math functions (they do not exist) are unknown now, which
/// is the conservative answer for both columns.
#[test]
fn non_math_variants_are_unknown() {
    for n in ["randf", "clockl", "strlenf", "atoil", "isdigitf", "getpidl"] {
        assert_eq!(new_liveness(n).0, None, "{n}");
        assert_eq!(new_guard(n), 3, "{n}");
    }
    // an omp_ query variant falls to the omp_ family: reads its arguments
    assert_eq!(new_liveness("omp_get_wtimef").0, Some(old::E::ReadsArgs));
}

#[test]
fn table_is_well_formed() {
    let mut seen = crate::fxhash::HashSet::default();
    for r in TABLE {
        let key = match r.name {
            Exact(n) | Libm(n) | Prefix(n) => n.to_string(),
            PrefixWith(p, s) => format!("{p}*{s}"),
        };
        assert!(seen.insert(key.clone()), "duplicate row {key}");
        for s in r.shapes {
            assert!(s.sig.contains(" (") && s.sig.ends_with(')'), "shape of {key}: {}", s.sig);
            assert_eq!(matches!(r.name, Libm(_)), s.sig.contains('T'), "T only in libm rows: {key}");
        }
        if let Some(Role::Exclusive { end, .. }) = r.role {
            assert!(exact_row(end).is_some_and(|e| e.role == Some(Role::ExclusiveEnd)), "end of {key}");
        }
    }
}

#[test]
fn shapes_and_variants() {
    let m = lookup_name("sqrtf").unwrap();
    assert!(m.accepts("float (float)"));
    assert!(!m.accepts("double (double)"));
    assert!(lookup_name("sqrtl").unwrap().accepts("x86_fp80 (x86_fp80)"));
    assert!(lookup_name("sqrt").unwrap().accepts("double (double)"));
    let fork = lookup_name("__kmpc_fork_call").unwrap();
    assert!(fork.accepts("void (ptr, i32, ptr, ...)"));
    assert!(!fork.accepts("void (ptr, i32, ptr)"));
    assert!(lookup_name("__kmpc_dispatch_next_8u").unwrap().accepts("i32 (ptr, i32, ptr, ptr, ptr, ptr)"));
    // any type for the setjmp family
    assert!(lookup_name("_setjmp").unwrap().accepts("i32 (ptr)"));
    assert!(lookup_name("_setjmp").unwrap().accepts("i64 ()"));
    assert_eq!(lookup_name("myf").map(|m| m.row.name), None);
    assert_eq!(alloc_routes().count(), 9);
}

/// strdup and strndup (and the dao entries they are routed to) allocate and
/// read their source string: the old lists said "reads nothing", which let
/// a buffer read only by a later strdup be judged dead at a marker.
#[test]
fn strdup_reads_its_source() {
    for (n, to) in [("strdup", Some(rt::STRDUP)), ("strndup", Some(rt::STRNDUP)), (rt::STRDUP, None), (rt::STRNDUP, None)] {
        let r = lookup_name(n).unwrap().row;
        assert_eq!(r.effect, Some(Alloc { to, reads_args: true }), "{n}");
    }
    assert!(alloc_routes().any(|r| r == ("strdup", rt::STRDUP)));
    assert!(alloc_routes().any(|r| r == ("strndup", rt::STRNDUP)));
    assert_eq!(lookup_name("malloc").unwrap().row.effect, Some(Alloc { to: Some(rt::MALLOC), reads_args: false }));
    // the guard answers are the old ones
    for n in ["strdup", "strndup", rt::STRDUP, rt::STRNDUP] {
        assert_eq!(new_guard(n), old::guard(n), "{n}");
    }
}

/// strtok keeps its buffer between calls (`strtok(NULL, ...)` reads it):
/// unknown, not "reads its arguments only" as the old lists said.
#[test]
fn strtok_is_unknown() {
    assert_eq!(lookup_name("strtok").unwrap().row.effect, None);
    assert_eq!(new_guard("strtok"), 3);
}

/// The intrinsic rows answer what front.rs, guard.rs and emit.rs matched by
/// name before they asked the table.
#[test]
fn intrinsics() {
    let intr = |n: &str| match lookup_name(n).map(|m| (m.row.effect, m.row.role, m.row.guard)) {
        Some((Some(Intrinsic), Some(Role::Intrinsic(i)), g)) => (i, g),
        other => panic!("{n}: {other:?}"),
    };
    let copy = Intr::Copy { dest: 0, src: 1, len: 2 };
    assert_eq!(intr("llvm.memcpy.p0.p0.i64"), (copy, WritesOperand(0)));
    assert_eq!(intr("llvm.memcpy.inline.p0.p0.i64"), (copy, WritesOperand(0)));
    assert_eq!(intr("llvm.memmove.p0.p0.i64"), (copy, WritesOperand(0)));
    assert_eq!(intr("llvm.memset.p0.i64"), (Intr::Set { dest: 0, len: 2 }, WritesOperand(0)));
    assert_eq!(intr("llvm.masked.store.v4f64.p0"), (Intr::Other, WritesOperand(1)));
    assert_eq!(intr("llvm.masked.scatter.v4f64.v4p0"), (Intr::Other, LibcWrite));
    assert_eq!(intr("llvm.vp.store.v4f64.p0"), (Intr::Other, LibcWrite));
    assert_eq!(intr("llvm.lifetime.start.p0"), (Intr::Lifetime, Pure));
    assert_eq!(intr("llvm.lifetime.end.p0"), (Intr::Lifetime, Pure));
    for n in ["llvm.dbg.declare", "llvm.dbg.value", "llvm.assume", "llvm.stacksave.p0", "llvm.stackrestore.p0", "llvm.experimental.noalias.scope.decl"] {
        assert_eq!(intr(n), (Intr::NoMem, Pure), "{n}");
    }
    for n in [
        "llvm.fmuladd.f64",
        "llvm.masked.load.v4f64.p0",
        "llvm.prefetch.p0",
    ] {
        assert_eq!(intr(n), (Intr::Other, Pure), "{n}");
    }
    assert_eq!(
        intr("llvm.threadlocal.address"),
        (Intr::ThreadlocalAddress { global: 0 }, Pure)
    );
    assert_eq!(
        intr(names::THREADLOCAL_ADDRESS),
        (Intr::ThreadlocalAddress { global: 0 }, Pure)
    );
    // not intrinsics
    assert!(lookup_name("llvm_foo").map_or(true, |m| !matches!(m.row.role, Some(Role::Intrinsic(_)))));
}

#[test]
fn consistent_libc_writers() {
    for n in GUARD_CORRECTED {
        assert_eq!(new_guard(n), 1, "{n}");
    }
    assert_eq!(new_guard("__isoc23_vscanf"), new_guard("__isoc99_vscanf"));
    assert_eq!(new_guard("memalign"), new_guard("aligned_alloc"));
}

/// The declared types the table accepts for dao entry points are their
/// `dao_abi` signatures (the pass declares them from there).
#[test]
fn dao_rows_match_the_abi() {
    let ty = |t: dao_abi::Ty| match t {
        dao_abi::Ty::I8 => "i8",
        dao_abi::Ty::I32 => "i32",
        dao_abi::Ty::I64 => "i64",
        dao_abi::Ty::Ptr => "ptr",
    };
    let mut checked = 0;
    for e in dao_abi::entry::ALL {
        let m = lookup_name(e.name).unwrap_or_else(|| panic!("{}: no row", e.name));
        // a routed libomp entry point keeps the role of what it replaces
        let role = if e.name == dao_abi::entry::THREADPRIVATE_CACHED.name {
            assert_eq!(m.row.role, lookup_name(names::KMPC_THREADPRIVATE_CACHED).unwrap().row.role);
            Some(Role::ThreadprivateCached { data: 2, size: 3, cache: 4 })
        } else {
            Some(Role::DaoRuntime)
        };
        assert_eq!(m.row.role, role, "{}", e.name);
        let params: Vec<&str> = e.params.iter().map(|p| ty(*p)).collect();
        let sig = format!("{} ({})", e.ret.map_or("void", ty), params.join(", "));
        if let Some(acc) = m.accepted() {
            assert_eq!(acc, [sig.clone()], "{}", e.name);
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

/// flang's I/O statement cookies are handles of what the statement's
/// `Begin` call was given, never unknown memory; nothing else is.
#[test]
fn io_cookies_are_handles_of_their_arguments() {
    for n in ["_FortranAioBeginInternalListInput", "_FortranAioBeginExternalListOutput", "_FortranAioBeginExternalFormattedOutput"] {
        assert!(returns_handle_of_args(n), "{n}");
    }
    for n in ["_FortranAioOutputInteger32", "_FortranAioEndIoStatement", "malloc", "fopen", "_FortranAProgramStart"] {
        assert!(!returns_handle_of_args(n), "{n}");
    }
}
