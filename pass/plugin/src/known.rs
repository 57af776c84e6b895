//! The table of external functions the pass understands (in the spirit of
//! LLVM's `OMPKinds.def`): for each, what it may read of the program's
//! memory and whether it may reach a checkpoint marker.
//!
//! A declaration not in this table is *unknown*: it may read any memory
//! whose address escaped, and in a module with markers it may reach a marker
//! in another translation unit, so calls to it are labelled call sites.
//! Keeping this table honest matters: an entry that claims "reads nothing"
//! for a function that reads user memory would drop live data.

/// What a known external function does to the program's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Reads no program memory (math, clocks).
    NoMem,
    /// Reads (and may write) only memory reachable from its pointer
    /// arguments, without keeping the pointers (printf, memcpy, Fortran I/O).
    ReadsArgs,
    /// A heap allocation function, routed to the dao heap.
    Alloc(&'static str),
    /// A checkpoint marker.
    Marker(MarkerKind),
    /// `__kmpc_fork_call`: runs the outlined function given as operand
    /// [`FORK_MICROTASK_OPERAND`] on every thread.
    ForkCall,
    /// Sets hidden runtime state that a restart must rebuild by calling it
    /// again on the jump path (Fortran runtime start, OpenMP settings).
    Env,
    /// Never returns normally and may jump (setjmp family): rejected on
    /// marker paths.
    ReturnsTwice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    Potential,
    Forced,
}

/// Operand positions of `__kmpc_fork_call(ident, argc, microtask, args...)`.
pub const FORK_MICROTASK_OPERAND: u32 = 2;
/// Operand position of the task entry in `__kmpc_omp_task_alloc(ident, gtid,
/// flags, sizeof_task, sizeof_shareds, task_entry)`.
pub const TASK_ENTRY_OPERAND: u32 = 5;

/// What an OpenMP runtime entry point means for checkpointing (the
/// construct-level table; `classify` gives the memory effects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OmpRole {
    /// `__kmpc_fork_call`: starts a parallel region.
    Fork,
    /// `__kmpc_push_num_threads(ident, gtid, n)` right before a fork: replayed
    /// with the fork on the jump path.
    PushNumThreads,
    /// A point where a thread may wait for the others: a candidate cannot
    /// be there, but a thread waiting there takes part in a checkpoint
    /// (a *sync site*: the call is executed again on restart).
    Barrier,
    /// `__kmpc_end_reduce`: waits like a barrier after the thread has
    /// combined its contribution; on restart only the barrier is redone.
    EndReduce,
    /// Begin/end of a block that only some threads run, or that one thread
    /// at a time runs: markers inside are diagnosed (begin name, end name).
    Exclusive { end: &'static str, what: &'static str, allowed: bool },
    /// Dynamic/guided/ordered worksharing (`__kmpc_dispatch_next_*`): a
    /// marker in such a loop body is diagnosed.
    DispatchNext,
    /// Explicit task creation: the task entry may not reach a marker.
    TaskAlloc,
}

/// The OpenMP construct table, by exact name. Entry points not listed here
/// have no construct-level meaning for the pass (static worksharing init/fini,
/// thread-number queries, ...).
pub fn omp_role(name: &str) -> Option<OmpRole> {
    Some(match name {
        "__kmpc_fork_call" | "__kmpc_fork_call_if" => OmpRole::Fork,
        "__kmpc_push_num_threads" => OmpRole::PushNumThreads,
        // copyprivate waits for the whole team (two barriers inside libomp)
        // after the single's winner published its values: a thread may wait
        // there while others are at candidates, and redoing the call on
        // restart redoes the broadcast (each thread's arguments are live
        // at the site and saved).
        "__kmpc_barrier" | "__kmpc_copyprivate" => OmpRole::Barrier,
        "__kmpc_end_reduce" => OmpRole::EndReduce,
        "__kmpc_single" => OmpRole::Exclusive { end: "__kmpc_end_single", what: "an OpenMP 'single' block (only one thread runs it)", allowed: false },
        "__kmpc_master" => OmpRole::Exclusive { end: "__kmpc_end_master", what: "an OpenMP 'master' block (only the master thread runs it)", allowed: false },
        "__kmpc_masked" => OmpRole::Exclusive { end: "__kmpc_end_masked", what: "an OpenMP 'masked' block (only some threads run it)", allowed: false },
        "__kmpc_critical" | "__kmpc_critical_with_hint" => {
            OmpRole::Exclusive { end: "__kmpc_end_critical", what: "an OpenMP 'critical' section", allowed: true }
        }
        "__kmpc_ordered" => OmpRole::Exclusive { end: "__kmpc_end_ordered", what: "an OpenMP 'ordered' block", allowed: false },
        "omp_set_lock" | "omp_set_nest_lock" => OmpRole::Exclusive {
            end: if name == "omp_set_lock" { "omp_unset_lock" } else { "omp_unset_nest_lock" },
            what: "a section protected by an OpenMP lock",
            allowed: true,
        },
        n if n.starts_with("__kmpc_dispatch_next_") => OmpRole::DispatchNext,
        "__kmpc_omp_task_alloc" | "__kmpc_omp_target_task_alloc" => OmpRole::TaskAlloc,
        _ => return None,
    })
}

pub const MARKER_POTENTIAL: &str = "dao_potential_checkpoint";
pub const MARKER_FORCED: &str = "dao_checkpoint_now";

/// Allocation functions and the dao heap entry that replaces each. The
/// types must match exactly (checked by the caller) or the call is left as
/// it is and reported.
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

const NOMEM: &[&str] = &[
    // libm (double, float and long double variants are matched by suffix below)
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
    "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt", "hypot", "fabs", "floor", "ceil",
    "round", "trunc", "rint", "nearbyint", "lround", "llround", "lrint", "fmod", "remainder", "fmin", "fmax",
    "fma", "copysign", "erf", "erfc", "tgamma", "lgamma", "ldexp", "scalbn", "abs", "labs", "llabs",
    // clocks and process facts
    "clock", "getpid", "sysconf", "omp_get_wtime", "omp_get_wtick", "omp_get_thread_num", "omp_get_num_threads",
    "omp_get_max_threads", "omp_get_num_procs", "omp_in_parallel", "omp_get_dynamic", "omp_get_level",
    "rand", "srand", "random", "srandom", "drand48", "srand48", "sleep", "usleep", "getchar",
];

const READS_ARGS: &[&str] = &[
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

const ENV: &[&str] = &[
    "_FortranAProgramStart",
    "omp_set_num_threads",
    "omp_set_dynamic",
    "omp_set_schedule",
    "omp_set_max_active_levels",
    "omp_set_nested",
];

const RETURNS_TWICE: &[&str] = &["setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "vfork", "getcontext"];

/// Globals that hold libomp's own state (the lock words of `critical`
/// sections and reductions: libomp stores a pointer to a lock it allocated
/// there). They are never saved: restoring one would plant a pointer into
/// the previous process's libomp memory.
pub fn is_omp_runtime_state(global: &str) -> bool {
    global.starts_with(".gomp_critical_user_") || global.starts_with("_gomp_critical_user_")
}

/// Classify an external function by name. `None`: unknown.
pub fn classify(name: &str) -> Option<Effect> {
    if name == MARKER_POTENTIAL {
        return Some(Effect::Marker(MarkerKind::Potential));
    }
    if name == MARKER_FORCED {
        return Some(Effect::Marker(MarkerKind::Forced));
    }
    if let Some((_, to)) = ALLOC_ROUTES.iter().find(|(from, _)| *from == name) {
        return Some(Effect::Alloc(to));
    }
    if name.starts_with("dao_") {
        return Some(Effect::NoMem);
    }
    // fork_call_if(ident, argc, microtask, cond, args...): flang's
    // `parallel if(...)`; libomp serialises the region when cond is 0
    if name == "__kmpc_fork_call" || name == "__kmpc_fork_call_if" {
        return Some(Effect::ForkCall);
    }
    if RETURNS_TWICE.contains(&name) {
        return Some(Effect::ReturnsTwice);
    }
    if ENV.contains(&name) {
        return Some(Effect::Env);
    }
    if NOMEM.contains(&name) || strip_float_suffix(name).is_some_and(|b| NOMEM.contains(&b)) {
        return Some(Effect::NoMem);
    }
    if READS_ARGS.contains(&name) {
        return Some(Effect::ReadsArgs);
    }
    // The Fortran runtime and libomp read through their arguments only
    // (I/O descriptors, reduction buffers, ...). Explicit tasks and the other
    // constructs are the OpenMP issue's; here they only need to not reach
    // markers, which holds for every entry point except fork_call.
    if name.starts_with("_FortranA") || name.starts_with("__kmpc_") || name.starts_with("omp_") {
        return Some(Effect::ReadsArgs);
    }
    None
}

fn strip_float_suffix(name: &str) -> Option<&str> {
    name.strip_suffix('f').or_else(|| name.strip_suffix('l'))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn classification() {
        assert_eq!(classify("sqrt"), Some(Effect::NoMem));
        assert_eq!(classify("sqrtf"), Some(Effect::NoMem));
        assert_eq!(classify("printf"), Some(Effect::ReadsArgs));
        assert_eq!(classify("malloc"), Some(Effect::Alloc("dao_malloc")));
        assert_eq!(classify("dao_potential_checkpoint"), Some(Effect::Marker(MarkerKind::Potential)));
        assert_eq!(classify("_setjmp"), Some(Effect::ReturnsTwice));
        assert_eq!(classify("__kmpc_fork_call"), Some(Effect::ForkCall));
        assert_eq!(classify("_FortranAProgramStart"), Some(Effect::Env));
        assert_eq!(classify("solve_step"), None);
        // a name that merely ends in f is not libm
        assert_eq!(classify("myf"), None);
    }
}
