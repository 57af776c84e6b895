//! The one table of external functions the dao pass understands (in the
//! spirit of LLVM's `OMPKinds.def`). Every question the pass asks about a
//! function it does not define (what it reads, what OpenMP construct it
//! opens, whether it needs a shared-write guard, which operand is the
//! outlined function or memcpy's destination, ...) is answered by one
//! [`Row`] of [`TABLE`]; no consumer tests external names itself. That
//! includes the LLVM intrinsics (`llvm.*` family rows: effect
//! [`Effect::Intrinsic`], role [`Role::Intrinsic`] with an [`Intr`] that
//! names their operands) and the dao runtime's entry points, whose names
//! ([`names::rt`]) are those of the `dao-abi` crate, where the pass/runtime
//! contract is defined once.
//!
//! # Columns
//! - `name` ([`Pat`]): an exact name, a libm name (also matches its `f` and
//!   `l` variants: `sqrt`, `sqrtf`, `sqrtl`), or a family prefix
//!   (`__kmpc_dispatch_next_`), optionally with a substring the rest must
//!   contain. Exact and libm rows win over prefix rows; prefix rows are tried
//!   in table order, so a narrower family goes before the catch-all of its
//!   namespace (`__kmpc_atomic` before `__kmpc_`).
//! - `shapes` ([`Shape`]): the LLVM function types a declaration may have
//!   (as `LLVMPrintTypeToString` writes them, `T` standing for the float
//!   type of a libm variant), each with the front end that emits it
//!   ([`Lang`]: clang, flang or both). A declaration of another type is
//!   *not recognised*: the pass treats it as unknown (never guesses) and
//!   says so with `DAO_REMARKS=1`. An empty list accepts any type; it is used
//!   only where "unknown" would not be the conservative answer (the setjmp
//!   family must be rejected whatever its declared type), for the
//!   namespace catch-alls, and for dao entry points whose type is copied
//!   from the call they replace.
//! - `effect` ([`Effect`]): what the function reads of the program's memory,
//!   for liveness (`None`: unknown to liveness, it may read anything that
//!   escaped and reach a marker in another translation unit). A function
//!   that keeps a pointer it was given and reads through it in a later call
//!   (`strtok`) is not [`Effect::ReadsArgs`]: leave it unknown. Allocation
//!   functions say whether they also read their arguments (`strdup`).
//! - `role` ([`Role`]): what it means for checkpointing OpenMP programs
//!   (fork, barrier, begin/end of a construct, ...) or that it is an entry
//!   point of the dao runtime, or what an LLVM intrinsic does; named operand
//!   positions live here (`Fork { microtask }`, `TaskAlloc { entry }`,
//!   `Intrinsic(Intr::Copy { dest, src, len })`).
//! - `guard` ([`Guard`]): what it means for the shared-write guards of the
//!   non-blocking protocol (pure, writes shared memory, writes through
//!   operand k unless it is private, takes a lock, is a check-in point, ...).
//!
//! The liveness and guard columns are deliberately independent: `rand` reads
//! no program memory (liveness: [`Effect::NoMem`]) but writes libc's shared
//! seed (guard: [`Guard::LibcWrite`]).
//!
//! # Adding a row
//! Add one `Row` to [`TABLE`] (next to its namespace), fill every column,
//! give the declared types clang and flang emit (compile a test program with
//! `-S -emit-llvm` and copy the `declare` line's type), and if a consumer
//! needs the name itself (to declare or route it), add a constant in
//! [`names`] and use it in the row (a dao runtime entry point is first
//! added to `dao_abi::entry`, and its `names::rt` constant refers to it). New OpenMP or MPI meanings are new
//! [`Role`] variants, asked for by the consumer that needs them. Then run
//! `cargo test -p dao-analysis known` (the table is checked for duplicates
//! and unparsable shapes).

/// What a known external function does to the program's memory (liveness).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Reads no program memory (math, clocks).
    NoMem,
    /// Reads (and may write) only memory reachable from its pointer
    /// arguments, without keeping the pointers (printf, memcpy, Fortran I/O).
    ReadsArgs,
    /// A heap allocation function: its result points into the heap, which
    /// the runtime finds by reachability. `to: Some(entry)`: a libc function
    /// routed to the dao heap entry `entry`; `None`: a dao heap entry itself.
    /// `reads_args`: it also reads memory reachable from its pointer
    /// arguments, like [`Effect::ReadsArgs`] (strdup reads its source
    /// string); otherwise it reads no program memory (malloc; realloc and
    /// free only touch the heap block they are given).
    Alloc { to: Option<&'static str>, reads_args: bool },
    /// A checkpoint marker.
    Marker(MarkerKind),
    /// `__kmpc_fork_call`: runs the outlined function given as operand
    /// [`Role::Fork`]`{ microtask }` on every thread.
    ForkCall,
    /// Sets hidden runtime state that a restart must rebuild by calling it
    /// again on the jump path (Fortran runtime start, OpenMP settings).
    Env,
    /// May return twice (setjmp family): rejected on marker paths.
    ReturnsTwice,
    /// An LLVM intrinsic: what it reads and writes is its role's [`Intr`].
    Intrinsic,
    /// OpenMP offload (libomptarget's `__tgt_*`, the `omp_target_*`
    /// routines, and the dao entries they are routed to): copies between
    /// the device and host memory reachable through the map arrays, whose
    /// host addresses libomptarget keeps between calls, so to liveness it
    /// reads (and may write) everything that escaped, like unknown code; but
    /// it never reaches a marker (a kernel runs device code, where a marker
    /// is refused; a target region's host fallback is a call of its own).
    Offload,
}

/// What an LLVM intrinsic (`llvm.*`, role [`Role::Intrinsic`]) does, for
/// liveness and the instrumentation, with its operand positions. Intrinsic
/// names carry type suffixes (`llvm.memcpy.p0.p0.i64`): the rows are
/// families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intr {
    /// memcpy, memmove: reads through operand `src`; writes operand `len`
    /// bytes at operand `dest` (a constant length covering a whole object
    /// overwrites it).
    Copy { dest: u32, src: u32, len: u32 },
    /// memset: writes operand `len` bytes at operand `dest`, reads nothing.
    Set { dest: u32, len: u32 },
    /// lifetime.start/end: no memory access; the instrumentation removes
    /// them (the restart dispatch keeps stack objects alive across them).
    Lifetime,
    /// threadlocal.address: the calling thread's address of the
    /// thread-local global in operand `global`.
    ThreadlocalAddress { global: u32 },
    /// No program memory read (dbg, assume, stack save/restore, noalias
    /// scopes).
    NoMem,
    /// Any other intrinsic: reads through its pointer arguments.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    Potential,
    Forced,
}

/// What a function means for checkpointing (OpenMP constructs, dao runtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Starts a parallel region running operand `microtask` on every thread.
    Fork { microtask: u32 },
    /// `__kmpc_push_num_threads` / `__kmpc_push_proc_bind` right before a
    /// fork: replayed with the fork on the jump path.
    ForkPush,
    /// `__kmpc_fork_teams`: a host `teams` region running operand
    /// `microtask` once per team (each team's master then forks its own
    /// parallel regions). Not a parallel region dao can resume: a marker
    /// reachable inside is refused; to the liveness the call reads what the
    /// microtask may read and kills nothing (translate.rs `call_uses`).
    Teams { microtask: u32 },
    /// A point where a thread may wait for the others: a candidate cannot
    /// be there, but a thread waiting there takes part in a checkpoint
    /// (a *sync site*: the call is executed again on restart).
    Barrier,
    /// `__kmpc_end_reduce`: waits like a barrier after the thread has
    /// combined its contribution; on restart only the barrier is redone.
    EndReduce,
    /// Begin of a block that only some threads run, or that one thread at a
    /// time runs: markers inside are diagnosed (`allowed`: they may be moved
    /// after the end). Every begin with the same `end` opens the same kind
    /// of block (`critical` and `critical_with_hint`).
    Exclusive { end: &'static str, what: &'static str, allowed: bool },
    /// The end of an [`Role::Exclusive`] block.
    ExclusiveEnd,
    /// `__kmpc_for_static_init_*`: static worksharing (a `sections`
    /// construct when its ident's flags say so; operand 0 is the ident).
    StaticInit,
    /// `__kmpc_for_static_fini`.
    StaticFini,
    /// `__kmpc_dispatch_init_*`: dynamic/guided/runtime/ordered worksharing.
    DispatchInit,
    /// `__kmpc_dispatch_next_*`: a marker in such a loop body is diagnosed.
    DispatchNext,
    /// Explicit task creation; operand `entry` is the task entry, which may
    /// not reach a marker; `size` and `shareds_size` the sizes of the task
    /// descriptor (kmp_task_t with the privates) and of its shareds block.
    TaskAlloc { entry: u32, size: u32, shareds_size: u32 },
    /// `__kmpc_taskloop` / `_5`: runs copies of the pattern task in operand
    /// `task`; `nogroup`: non-zero when they may outlive the call.
    TaskLoop { task: u32, nogroup: u32 },
    /// Queues (or, `begin_if0`, starts undeferred) the task in operand
    /// `task` (`__kmpc_omp_task`, `_with_deps`, `__kmpc_omp_task_begin_if0`).
    TaskQueue { task: u32 },
    /// A task scheduling point where the thread waits for or runs other
    /// tasks (`__kmpc_omp_taskwait`, `_deps_51`, `__kmpc_omp_taskyield`,
    /// `__kmpc_taskgroup`, `__kmpc_end_taskgroup`, `complete_if0`).
    TaskSync,
    /// `__kmpc_threadprivate_cached(ident, gtid, data, size, cache)` (flang's
    /// threadprivate) and the runtime's `dao_threadprivate_cached` it is
    /// routed to: returns the calling thread's copy of the variable `data`
    /// (the original itself on the thread that runs main); `cache` is the
    /// compiler's per-variable cache global (runtime state, never saved).
    ThreadprivateCached { data: u32, size: u32, cache: u32 },
    /// `__kmpc_serialized_parallel`: opens clang's serialized region of a
    /// `parallel if(...)` whose condition is false.
    SerializedParallel,
    /// An entry point (or generated helper) of the dao runtime.
    DaoRuntime,
    /// An LLVM intrinsic (effect [`Effect::Intrinsic`]).
    Intrinsic(Intr),
}

/// What a call means for the shared-write guards (guard.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Writes no memory another thread could see, never reaches a marker:
    /// no guard.
    Pure,
    /// A library function that may write shared memory but never calls back
    /// into the program: guarded, and a guard before it covers what follows.
    LibcWrite,
    /// An OpenMP entry point that takes a lock or writes shared data in
    /// libomp (critical, reductions, atomics, locks): guarded like a write.
    OmpWrite,
    /// A check-in point of the runtime (a marker's call, a barrier's park):
    /// ends a guard's reach.
    CheckIn,
    /// A dao runtime entry that changes team-wide state (the dao heap,
    /// `dao_omp_single`'s instances): guarded like a write.
    DaoWrite,
    /// Unknown: may write shared memory and may reach a check-in point.
    Unknown,
    /// Writes through its operand `k` (memcpy's destination, masked.store's
    /// pointer): guarded like a write unless that operand provably points
    /// to private memory.
    WritesOperand(u32),
}

/// Which front end emits a declaration of this shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Fortran,
    Both,
}

/// One accepted LLVM function type of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub lang: Lang,
    /// `LLVMPrintTypeToString` of the function type, e.g. `void (ptr, i32, ptr, ...)`;
    /// in a libm row `T` is the variant's float type.
    pub sig: &'static str,
}

/// How a row names its functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pat {
    Exact(&'static str),
    /// A libm function: the name and its `f` (float) and `l` (long double)
    /// variants.
    Libm(&'static str),
    /// A family: every name with this prefix.
    Prefix(&'static str),
    /// A family: every name with this prefix that also contains the second
    /// string.
    PrefixWith(&'static str, &'static str),
}

#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub name: Pat,
    pub shapes: &'static [Shape],
    pub effect: Option<Effect>,
    pub role: Option<Role>,
    pub guard: Guard,
}

/// Names a consumer needs to spell (to declare, route or look for them).
pub mod names {
    /// The program's entry point (instrumented always, wrapped by dao_main).
    pub const MAIN: &str = "main";
    /// flang's main program (called by the `main` flang emits).
    pub const FORTRAN_MAIN: &str = "_QQmain";
    /// What the pass renames the program's main to, and the adapter it
    /// calls it through (matched by the `__dao` family row).
    pub const USER_MAIN: &str = "__dao_user_main";
    pub const MAIN_ADAPTER: &str = "__dao_main_adapter";
    pub const MARKER_POTENTIAL: &str = "dao_potential_checkpoint";
    pub const MARKER_FORCED: &str = "dao_checkpoint_now";
    pub const KMPC_FORK_CALL: &str = "__kmpc_fork_call";
    /// An explicit task's allocation (its entry is replicated for
    /// DAO_TASK_FT; `__kmpc_omp_target_task_alloc` is not).
    pub const KMPC_OMP_TASK_ALLOC: &str = "__kmpc_omp_task_alloc";
    /// The taskloop entry points (their pattern task, operand 2, is never
    /// run as itself: libomp runs copies of it).
    pub const KMPC_TASKLOOP: &str = "__kmpc_taskloop";
    pub const KMPC_TASKLOOP_5: &str = "__kmpc_taskloop_5";
    pub const KMPC_TASKGROUP: &str = "__kmpc_taskgroup";
    pub const KMPC_END_TASKGROUP: &str = "__kmpc_end_taskgroup";
    pub const KMPC_FORK_CALL_IF: &str = "__kmpc_fork_call_if";
    /// OpenMP offload: libomptarget's entry points and the OpenMP device
    /// memory routines the pass routes to the runtime (route.rs), each with
    /// the `dao_abi::entry` it goes to. They have no row: to liveness they
    /// stay unknown calls (they copy between host memory reachable through
    /// their map arrays and the device, and libomptarget keeps the host
    /// addresses between calls).
    pub const OFFLOAD_ROUTES: &[(&str, &str)] = &[
        ("__tgt_target_data_begin_mapper", dao_abi::entry::TGT_DATA_BEGIN.name),
        ("__tgt_target_data_end_mapper", dao_abi::entry::TGT_DATA_END.name),
        ("__tgt_target_data_update_mapper", dao_abi::entry::TGT_DATA_UPDATE.name),
        ("__tgt_target_data_begin_nowait_mapper", dao_abi::entry::TGT_DATA_BEGIN_NOWAIT.name),
        ("__tgt_target_data_end_nowait_mapper", dao_abi::entry::TGT_DATA_END_NOWAIT.name),
        ("__tgt_target_data_update_nowait_mapper", dao_abi::entry::TGT_DATA_UPDATE_NOWAIT.name),
        ("__tgt_target_kernel", dao_abi::entry::TGT_KERNEL.name),
        ("omp_target_alloc", dao_abi::entry::OMP_TARGET_ALLOC.name),
        ("omp_target_free", dao_abi::entry::OMP_TARGET_FREE.name),
        ("omp_target_associate_ptr", dao_abi::entry::OMP_TARGET_ASSOCIATE_PTR.name),
        ("omp_target_disassociate_ptr", dao_abi::entry::OMP_TARGET_DISASSOCIATE_PTR.name),
        ("llvm_omp_target_alloc_host", dao_abi::entry::LLVM_TARGET_ALLOC_HOST.name),
        ("llvm_omp_target_alloc_shared", dao_abi::entry::LLVM_TARGET_ALLOC_SHARED.name),
        ("llvm_omp_target_alloc_device", dao_abi::entry::LLVM_TARGET_ALLOC_DEVICE.name),
        ("__kmpc_omp_target_task_alloc", dao_abi::entry::OMP_TARGET_TASK_NEW.name),
    ];
    pub const KMPC_BARRIER: &str = "__kmpc_barrier";
    pub const KMPC_SINGLE: &str = "__kmpc_single";
    pub const KMPC_THREADPRIVATE_CACHED: &str = "__kmpc_threadprivate_cached";
    pub const KMPC_END_SINGLE: &str = "__kmpc_end_single";
    pub const KMPC_MASTER: &str = "__kmpc_master";
    pub const KMPC_END_MASTER: &str = "__kmpc_end_master";
    pub const KMPC_MASKED: &str = "__kmpc_masked";
    pub const KMPC_END_MASKED: &str = "__kmpc_end_masked";
    pub const KMPC_CRITICAL: &str = "__kmpc_critical";
    pub const KMPC_CRITICAL_WITH_HINT: &str = "__kmpc_critical_with_hint";
    pub const KMPC_END_CRITICAL: &str = "__kmpc_end_critical";
    pub const KMPC_ORDERED: &str = "__kmpc_ordered";
    pub const KMPC_END_ORDERED: &str = "__kmpc_end_ordered";
    pub const OMP_SET_LOCK: &str = "omp_set_lock";
    pub const OMP_UNSET_LOCK: &str = "omp_unset_lock";
    pub const OMP_SET_NEST_LOCK: &str = "omp_set_nest_lock";
    pub const OMP_UNSET_NEST_LOCK: &str = "omp_unset_nest_lock";
    /// The intrinsic the module's TLS accessor calls (emit.rs).
    pub const THREADLOCAL_ADDRESS: &str = "llvm.threadlocal.address.p0";

    /// The dao runtime's entry points and globals the pass declares or
    /// routes to: the names of `dao_abi::entry` and `dao_abi::global` (the
    /// contract is defined there, once; `runtime/include/dao_abi.h`).
    pub mod rt {
        use dao_abi::{entry, global};
        pub const CANDIDATE: &str = entry::CANDIDATE.name;
        pub const FORCED: &str = entry::FORCED.name;
        pub const FRAME_RESTORE: &str = entry::FRAME_RESTORE.name;
        pub const REGISTER_MODULE: &str = entry::REGISTER_MODULE.name;
        pub const THREAD_START: &str = entry::THREAD_START.name;
        pub const MAIN: &str = entry::MAIN.name;
        pub const OMP_BEGIN: &str = entry::OMP_BEGIN.name;
        pub const OMP_END: &str = entry::OMP_END.name;
        pub const OMP_FORK: &str = entry::OMP_FORK.name;
        pub const OMP_JOIN: &str = entry::OMP_JOIN.name;
        pub const OMP_PARK: &str = entry::OMP_PARK.name;
        pub const OMP_UNPARK: &str = entry::OMP_UNPARK.name;
        pub const OMP_HOLD_BEGIN: &str = entry::OMP_HOLD_BEGIN.name;
        pub const OMP_HOLD_END: &str = entry::OMP_HOLD_END.name;
        pub const OMP_SINGLE: &str = entry::OMP_SINGLE.name;
        pub const THREADPRIVATE_CACHED: &str = entry::THREADPRIVATE_CACHED.name;
        pub const OMP_GUARD_WAIT: &str = entry::OMP_GUARD_WAIT.name;
        pub const MALLOC: &str = entry::MALLOC.name;
        pub const CALLOC: &str = entry::CALLOC.name;
        pub const REALLOC: &str = entry::REALLOC.name;
        pub const FREE: &str = entry::FREE.name;
        pub const ALIGNED_ALLOC: &str = entry::ALIGNED_ALLOC.name;
        pub const POSIX_MEMALIGN: &str = entry::POSIX_MEMALIGN.name;
        pub const STRDUP: &str = entry::STRDUP.name;
        pub const STRNDUP: &str = entry::STRNDUP.name;
        /// Globals (not functions).
        pub const GUARD_FLAG: &str = global::OMP_GUARD.name;
        pub const RESTART_PENDING: &str = global::RESTART_PENDING.name;
        pub const OMP_REQUEST: &str = global::OMP_REQUEST.name;
        pub const TLS_TOP: &str = global::TLS_TOP.name;
        pub const TLS_POLL: &str = global::TLS_POLL.name;
        /// Whether `name` is one of the contract's globals every
        /// instrumented module defines itself (the thread-locals
        /// `dao_tls_top`, `dao_tls_poll`: not saved with the program's).
        pub fn is_module_global(name: &str) -> bool {
            global::ALL.iter().any(|g| !g.in_runtime && g.name == name)
        }
    }
}

/// Operand position of the outlined function in `__kmpc_fork_call(ident,
/// argc, microtask, args...)` and `__kmpc_fork_call_if(ident, argc,
/// microtask, cond, args)`.
pub const FORK_MICROTASK_OPERAND: u32 = 2;
/// Operand position of the task entry in `__kmpc_omp_task_alloc(ident, gtid,
/// flags, sizeof_task, sizeof_shareds, task_entry)`.
pub const TASK_ENTRY_OPERAND: u32 = 5;

/// Whether `name` is one of dao's own functions (runtime entry points and
/// what the pass generates: `__dao_user_main`, `dao.module_ctor`).
pub fn is_dao_own(name: &str) -> bool {
    name.starts_with("__dao") || name.starts_with(dao_abi::PREFIX) || name.starts_with("dao.")
}

/// Globals that hold libomp's own state (the lock words of `critical`
/// sections and reductions: libomp stores a pointer to a lock it allocated
/// there). They are never saved: restoring one would plant a pointer into
/// the previous process's libomp memory.
pub fn is_omp_runtime_state(global: &str) -> bool {
    global.starts_with(".gomp_critical_user_") || global.starts_with("_gomp_critical_user_")
}

/// libc's standard stream globals (declared, defined by libc): their
/// value points to libc's own `FILE` objects, never to program memory, so
/// a function reading through that pointer (`fflush(stdout)`, `fprintf`'s
/// stream argument) reads nothing a checkpoint saves.
pub fn is_libc_stream(global: &str) -> bool {
    matches!(global, "stdin" | "stdout" | "stderr")
}

/// Functions that return a handle to the runtime's own state which refers,
/// of the program's memory, at most to what their pointer arguments point
/// to: flang's I/O statement cookies (`_FortranAioBeginInternalListInput`
/// keeps the internal unit's buffer, `_FortranAioBeginExternalListOutput`
/// nothing of the program). A read through such a handle (the statement's
/// `_FortranAioOutput*`, `_FortranAioEndIoStatement`) reads those objects,
/// not unknown memory.
pub fn returns_handle_of_args(function: &str) -> bool {
    function.starts_with("_FortranAioBegin")
}

use names::rt;
use names::*;
use Effect::*;
use Guard::*;
use Lang::{Both, Fortran, C};
use Pat::*;

const fn c(sig: &'static str) -> Shape {
    Shape { lang: C, sig }
}
const fn both(sig: &'static str) -> Shape {
    Shape { lang: Both, sig }
}
const fn fortran(sig: &'static str) -> Shape {
    Shape { lang: Fortran, sig }
}
const fn row(name: Pat, shapes: &'static [Shape], effect: Option<Effect>, role: Option<Role>, guard: Guard) -> Row {
    Row { name, shapes, effect, role, guard }
}
/// A libc function (clang's declaration).
const fn libc(name: &'static str, sig: &'static [Shape], effect: Option<Effect>, guard: Guard) -> Row {
    row(Exact(name), sig, effect, None, guard)
}
/// A libm function with its float and long double variants.
const fn libm(name: &'static str, sig: &'static [Shape], effect: Option<Effect>, guard: Guard) -> Row {
    row(Libm(name), sig, effect, None, guard)
}
/// A libomp entry point with a role.
const fn kmpc(name: &'static str, sig: &'static [Shape], role: Option<Role>, guard: Guard) -> Row {
    row(Exact(name), sig, Some(ReadsArgs), role, guard)
}
/// An allocation function that reads no program memory.
const fn alloc(to: Option<&'static str>) -> Effect {
    Alloc { to, reads_args: false }
}
/// An allocation function that reads memory through its pointer arguments.
const fn alloc_reading(to: Option<&'static str>) -> Effect {
    Alloc { to, reads_args: true }
}
/// An LLVM intrinsic family.
const fn llvm(prefix: &'static str, intr: Intr, guard: Guard) -> Row {
    row(Prefix(prefix), ANY, Some(Intrinsic), Some(Role::Intrinsic(intr)), guard)
}
/// A dao runtime entry point.
const fn dao(name: &'static str, sig: &'static [Shape], effect: Option<Effect>, guard: Guard) -> Row {
    row(Exact(name), sig, effect, Some(Role::DaoRuntime), guard)
}

const T_T: &[Shape] = &[both("T (T)")];
const T_TT: &[Shape] = &[both("T (T, T)")];
const I64_T: &[Shape] = &[both("i64 (T)")];
const T_TI: &[Shape] = &[both("T (T, i32)")];
const V_PTR: &[Shape] = &[both("void (ptr)")];
const TP_CACHED: &[Shape] = &[both("ptr (ptr, i32, ptr, i64, ptr)")];
const TP_ROLE: Role = Role::ThreadprivateCached { data: 2, size: 3, cache: 4 };
const V_PTR_C: &[Shape] = &[c("void (ptr)")];
const V: &[Shape] = &[both("void ()")];
const I32: &[Shape] = &[both("i32 ()")];
const I32_C: &[Shape] = &[c("i32 ()")];
const F64: &[Shape] = &[both("double ()")];
const V_I32: &[Shape] = &[both("void (i32)")];
const I32_I32: &[Shape] = &[c("i32 (i32)")];
const I32_PTR: &[Shape] = &[c("i32 (ptr)")];
const I64_PTR: &[Shape] = &[c("i64 (ptr)")];
const PTR_PTR: &[Shape] = &[c("ptr (ptr)")];
const PTR_PTR_PTR: &[Shape] = &[c("ptr (ptr, ptr)")];
const PTR_PTR_PTR_I64: &[Shape] = &[c("ptr (ptr, ptr, i64)")];
const PTR_PTR_I32: &[Shape] = &[c("ptr (ptr, i32)")];
const I32_PTR_PTR: &[Shape] = &[c("i32 (ptr, ptr)")];
const I32_PTR_VA: &[Shape] = &[c("i32 (ptr, ...)")];
const I32_PTR_PTR_VA: &[Shape] = &[c("i32 (ptr, ptr, ...)")];
const I64_PTR_PTR_I32: &[Shape] = &[c("i64 (ptr, ptr, i32)")];
const IO_RW: &[Shape] = &[c("i64 (ptr, i64, i64, ptr)")];
const FD_RW: &[Shape] = &[c("i64 (i32, ptr, i64)")];
const GTID: &[Shape] = &[both("void (ptr, i32)")];
const GTID_I32: &[Shape] = &[both("i32 (ptr, i32)")];
const GTID_LOCK: &[Shape] = &[both("void (ptr, i32, ptr)")];
const GTID_LOCK_I32: &[Shape] = &[both("i32 (ptr, i32, ptr)")];
const REDUCE: &[Shape] = &[both("i32 (ptr, i32, i32, i64, ptr, ptr, ptr)")];
const PUSH: &[Shape] = &[both("void (ptr, i32, i32)")];
const ANY: &[Shape] = &[];

/// Exclusive-block descriptions (diagnostics).
const SINGLE: Role = Role::Exclusive { end: KMPC_END_SINGLE, what: "an OpenMP 'single' block (only one thread runs it)", allowed: false };
const MASTER: Role = Role::Exclusive { end: KMPC_END_MASTER, what: "an OpenMP 'master' block (only the master thread runs it)", allowed: false };
const MASKED: Role = Role::Exclusive { end: KMPC_END_MASKED, what: "an OpenMP 'masked' block (only some threads run it)", allowed: false };
const CRITICAL: Role = Role::Exclusive { end: KMPC_END_CRITICAL, what: "an OpenMP 'critical' section", allowed: true };
const ORDERED: Role = Role::Exclusive { end: KMPC_END_ORDERED, what: "an OpenMP 'ordered' block", allowed: false };
const LOCK: Role = Role::Exclusive { end: OMP_UNSET_LOCK, what: "a section protected by an OpenMP lock", allowed: true };
const NEST_LOCK: Role = Role::Exclusive { end: OMP_UNSET_NEST_LOCK, what: "a section protected by an OpenMP lock", allowed: true };

/// The table. See the module comment for the columns and how to add a row.
pub static TABLE: &[Row] = &[
    // ---- dao: markers and runtime entry points --------------------------
    // Markers: `void f(void)` from dao.h and dao.f90; an unprototyped C
    // declaration is `void (...)`.
    dao(MARKER_POTENTIAL, &[both("void ()"), c("void (...)")], Some(Marker(MarkerKind::Potential)), Pure),
    dao(MARKER_FORCED, &[both("void ()"), c("void (...)")], Some(Marker(MarkerKind::Forced)), Pure),
    dao(rt::CANDIDATE, V_PTR, Some(NoMem), CheckIn),
    dao(rt::FORCED, V_PTR, Some(NoMem), CheckIn),
    dao(rt::OMP_PARK, V_PTR, Some(NoMem), CheckIn),
    // the routed heap entries take the type of the call they replace: any
    dao(rt::MALLOC, ANY, Some(alloc(None)), DaoWrite),
    dao(rt::CALLOC, ANY, Some(alloc(None)), DaoWrite),
    dao(rt::REALLOC, ANY, Some(alloc(None)), DaoWrite),
    dao(rt::FREE, ANY, Some(NoMem), DaoWrite),
    dao(rt::ALIGNED_ALLOC, ANY, Some(alloc(None)), DaoWrite),
    dao(rt::POSIX_MEMALIGN, ANY, Some(NoMem), DaoWrite),
    // they read their source string (like strdup, routed to them)
    dao(rt::STRDUP, ANY, Some(alloc_reading(None)), DaoWrite),
    dao(rt::STRNDUP, ANY, Some(alloc_reading(None)), DaoWrite),
    // a `single` claims a team-wide instance (a worker that has checked in
    // must not win one the checkpoint then records as won before its
    // position); routed from __kmpc_single with its type
    dao(rt::OMP_SINGLE, ANY, Some(NoMem), DaoWrite),
    // __kmpc_threadprivate_cached routed (same type and role)
    row(Exact(rt::THREADPRIVATE_CACHED), TP_CACHED, Some(NoMem), Some(TP_ROLE), Pure),
    dao(rt::FRAME_RESTORE, &[both("i32 (ptr)")], Some(NoMem), Pure),
    dao(rt::REGISTER_MODULE, V_PTR, Some(NoMem), Pure),
    dao(rt::THREAD_START, V_PTR, Some(NoMem), Pure),
    dao(rt::MAIN, &[both("i32 (i32, ptr, ptr, ptr)")], Some(NoMem), Pure),
    dao(rt::OMP_BEGIN, V_PTR, Some(NoMem), Pure),
    dao(rt::OMP_END, V_PTR, Some(NoMem), Pure),
    dao(rt::OMP_FORK, V_PTR, Some(NoMem), Pure),
    dao(rt::OMP_JOIN, V_PTR, Some(NoMem), Pure),
    dao(rt::OMP_UNPARK, V_PTR, Some(NoMem), Pure),
    dao(rt::OMP_HOLD_BEGIN, V_PTR, Some(NoMem), Pure),
    dao(rt::OMP_HOLD_END, V, Some(NoMem), Pure),
    dao(rt::OMP_GUARD_WAIT, V, Some(NoMem), Pure),
    // ---- heap allocation, routed to the dao heap (order: the routing order)
    libc("malloc", &[both("ptr (i64)")], Some(alloc(Some(rt::MALLOC))), LibcWrite),
    libc("calloc", &[both("ptr (i64, i64)")], Some(alloc(Some(rt::CALLOC))), LibcWrite),
    libc("realloc", &[both("ptr (ptr, i64)")], Some(alloc(Some(rt::REALLOC))), LibcWrite),
    libc("free", &[both("void (ptr)")], Some(alloc(Some(rt::FREE))), LibcWrite),
    libc("aligned_alloc", &[c("ptr (i64, i64)")], Some(alloc(Some(rt::ALIGNED_ALLOC))), LibcWrite),
    libc("memalign", &[c("ptr (i64, i64)")], Some(alloc(Some(rt::ALIGNED_ALLOC))), LibcWrite),
    libc("posix_memalign", &[c("i32 (ptr, i64, i64)")], Some(alloc(Some(rt::POSIX_MEMALIGN))), LibcWrite),
    // strdup and strndup read their source string: a buffer read only by
    // them after a marker is live there
    libc("strdup", PTR_PTR, Some(alloc_reading(Some(rt::STRDUP))), LibcWrite),
    libc("strndup", &[c("ptr (ptr, i64)")], Some(alloc_reading(Some(rt::STRNDUP))), LibcWrite),
    // C++'s operator new and delete (Itanium names). Not routed: the
    // runtime defines them on the dao heap (runtime/src/cxx.rs), so every
    // caller -- instrumented code, uninstrumented objects, libstdc++.so --
    // gets dao heap blocks. They read no program memory and never reach a
    // marker; like the dao heap's entries they change team-wide state.
    libc("_Znwm", &[c("ptr (i64)")], Some(alloc(None)), DaoWrite),
    libc("_Znam", &[c("ptr (i64)")], Some(alloc(None)), DaoWrite),
    libc("_ZnwmRKSt9nothrow_t", &[c("ptr (i64, ptr)")], Some(alloc(None)), DaoWrite),
    libc("_ZnamRKSt9nothrow_t", &[c("ptr (i64, ptr)")], Some(alloc(None)), DaoWrite),
    libc("_ZnwmSt11align_val_t", &[c("ptr (i64, i64)")], Some(alloc(None)), DaoWrite),
    libc("_ZnamSt11align_val_t", &[c("ptr (i64, i64)")], Some(alloc(None)), DaoWrite),
    libc("_ZdlPv", &[c("void (ptr)")], Some(NoMem), DaoWrite),
    libc("_ZdaPv", &[c("void (ptr)")], Some(NoMem), DaoWrite),
    libc("_ZdlPvm", &[c("void (ptr, i64)")], Some(NoMem), DaoWrite),
    libc("_ZdaPvm", &[c("void (ptr, i64)")], Some(NoMem), DaoWrite),
    libc("_ZdlPvSt11align_val_t", &[c("void (ptr, i64)")], Some(NoMem), DaoWrite),
    libc("_ZdaPvSt11align_val_t", &[c("void (ptr, i64)")], Some(NoMem), DaoWrite),
    // What the landing pad of an OpenMP structured block's terminate scope
    // calls (`__clang_call_terminate`: in C++ an exception may not leave a
    // region, a `teams` construct or a task). `std::terminate` never
    // returns; `__cxa_begin_catch` touches only the exception runtime's
    // state. Neither reads program memory or runs the program's code on
    // the way to a marker (a handler installed with `std::set_terminate`
    // runs as the program ends). As unknown code they put every `teams`
    // region that calls an OpenMP routine on a marker path.
    libc("__cxa_begin_catch", &[c("ptr (ptr)")], Some(NoMem), Pure),
    libc("_ZSt9terminatev", &[c("void ()")], Some(NoMem), Pure),
    libc("_ZdlPvmSt11align_val_t", &[c("void (ptr, i64, i64)")], Some(NoMem), DaoWrite),
    libc("_ZdaPvmSt11align_val_t", &[c("void (ptr, i64, i64)")], Some(NoMem), DaoWrite),
    // ---- OpenMP (libomp) --------------------------------------------------
    // fork_call_if(ident, argc, microtask, cond, args): flang's
    // `parallel if(...)`; libomp serialises the region when cond is 0
    row(Exact(KMPC_FORK_CALL), &[both("void (ptr, i32, ptr, ...)")], Some(ForkCall), Some(Role::Fork { microtask: FORK_MICROTASK_OPERAND }), Pure),
    row(Exact(KMPC_FORK_CALL_IF), &[fortran("void (ptr, i32, ptr, i32, ptr)")], Some(ForkCall), Some(Role::Fork { microtask: FORK_MICROTASK_OPERAND }), Pure),
    kmpc("__kmpc_push_num_threads", PUSH, Some(Role::ForkPush), Pure),
    // a host `teams` region (OpenMP 5.0); also a target region's host
    // fallback: the kernel's body on the host when it cannot be offloaded
    kmpc("__kmpc_fork_teams", &[both("void (ptr, i32, ptr, ...)")], Some(Role::Teams { microtask: FORK_MICROTASK_OPERAND }), Pure),
    kmpc("__kmpc_push_proc_bind", PUSH, Some(Role::ForkPush), Pure),
    kmpc(KMPC_BARRIER, GTID, Some(Role::Barrier), Pure),
    // copyprivate waits for the whole team (two barriers inside libomp)
    // after the single's winner published its values: a thread may wait
    // there while others are at candidates, and redoing the call on
    // restart redoes the broadcast (each thread's arguments are live at
    // the site and saved). It also writes every thread's copies: guarded.
    kmpc("__kmpc_copyprivate", &[both("void (ptr, i32, i64, ptr, ptr, i32)")], Some(Role::Barrier), OmpWrite),
    kmpc("__kmpc_reduce", REDUCE, None, OmpWrite),
    kmpc("__kmpc_reduce_nowait", REDUCE, None, OmpWrite),
    kmpc("__kmpc_end_reduce", GTID_LOCK, Some(Role::EndReduce), Pure),
    kmpc(KMPC_SINGLE, GTID_I32, Some(SINGLE), Pure),
    kmpc(KMPC_END_SINGLE, GTID, Some(Role::ExclusiveEnd), Pure),
    kmpc(KMPC_MASTER, GTID_I32, Some(MASTER), Pure),
    kmpc(KMPC_END_MASTER, GTID, Some(Role::ExclusiveEnd), Pure),
    kmpc(KMPC_MASKED, &[both("i32 (ptr, i32, i32)")], Some(MASKED), Pure),
    kmpc(KMPC_END_MASKED, GTID, Some(Role::ExclusiveEnd), Pure),
    kmpc(KMPC_CRITICAL, GTID_LOCK, Some(CRITICAL), OmpWrite),
    kmpc(KMPC_CRITICAL_WITH_HINT, &[both("void (ptr, i32, ptr, i32)")], Some(CRITICAL), OmpWrite),
    kmpc(KMPC_END_CRITICAL, GTID_LOCK, Some(Role::ExclusiveEnd), Pure),
    kmpc(KMPC_ORDERED, GTID, Some(ORDERED), OmpWrite),
    kmpc(KMPC_END_ORDERED, GTID, Some(Role::ExclusiveEnd), Pure),
    kmpc("__kmpc_set_lock", GTID_LOCK, None, OmpWrite),
    kmpc("__kmpc_set_nest_lock", GTID_LOCK, None, OmpWrite),
    kmpc("__kmpc_test_lock", GTID_LOCK_I32, None, OmpWrite),
    kmpc("__kmpc_test_nest_lock", GTID_LOCK_I32, None, OmpWrite),
    kmpc("__kmpc_for_static_fini", GTID, Some(Role::StaticFini), Pure),
    kmpc(names::KMPC_OMP_TASK_ALLOC, &[both("ptr (ptr, i32, i32, i64, i64, ptr)")], Some(Role::TaskAlloc { entry: TASK_ENTRY_OPERAND, size: 3, shareds_size: 4 }), Pure),
    kmpc("__kmpc_omp_task", &[both("i32 (ptr, i32, ptr)")], Some(Role::TaskQueue { task: 2 }), Pure),
    kmpc("__kmpc_omp_task_with_deps", &[both("i32 (ptr, i32, ptr, i32, ptr, i32, ptr)")], Some(Role::TaskQueue { task: 2 }), Pure),
    kmpc("__kmpc_omp_task_begin_if0", &[both("void (ptr, i32, ptr)")], Some(Role::TaskQueue { task: 2 }), Pure),
    kmpc("__kmpc_omp_task_complete_if0", &[both("void (ptr, i32, ptr)")], Some(Role::TaskSync), Pure),
    kmpc("__kmpc_omp_taskwait", &[both("i32 (ptr, i32)")], Some(Role::TaskSync), Pure),
    kmpc("__kmpc_omp_taskwait_deps_51", &[both("void (ptr, i32, i32, ptr, i32, ptr, i32)")], Some(Role::TaskSync), Pure),
    kmpc("__kmpc_omp_taskyield", &[both("i32 (ptr, i32, i32)")], Some(Role::TaskSync), Pure),
    kmpc(names::KMPC_TASKGROUP, &[both("void (ptr, i32)")], Some(Role::TaskSync), Pure),
    kmpc(names::KMPC_END_TASKGROUP, &[both("void (ptr, i32)")], Some(Role::TaskSync), Pure),
    kmpc(names::KMPC_TASKLOOP, &[both("void (ptr, i32, ptr, i32, ptr, ptr, i64, i32, i32, i64, ptr)")], Some(Role::TaskLoop { task: 2, nogroup: 7 }), Pure),
    kmpc(names::KMPC_TASKLOOP_5, &[both("void (ptr, i32, ptr, i32, ptr, ptr, i64, i32, i32, i64, i32, ptr)")], Some(Role::TaskLoop { task: 2, nogroup: 7 }), Pure),
    kmpc("__kmpc_omp_target_task_alloc", &[both("ptr (ptr, i32, i32, i64, i64, ptr, i64)")], Some(Role::TaskAlloc { entry: TASK_ENTRY_OPERAND, size: 3, shareds_size: 4 }), Pure),
    // the address of the calling thread's copy (derived from `data`,
    // func_facts.rs); reads no program memory (the runtime's copies start from
    // the value at program start, not from the original now); routed to
    // dao_threadprivate_cached in every module (route.rs)
    row(Exact(KMPC_THREADPRIVATE_CACHED), TP_CACHED, Some(NoMem), Some(TP_ROLE), Pure),
    kmpc("__kmpc_serialized_parallel", GTID, Some(Role::SerializedParallel), Pure),
    // the OpenMP API (omp_lib for flang: bind(C), same types)
    row(Exact(OMP_SET_LOCK), V_PTR, Some(ReadsArgs), Some(LOCK), OmpWrite),
    row(Exact(OMP_UNSET_LOCK), V_PTR, Some(ReadsArgs), Some(Role::ExclusiveEnd), OmpWrite),
    row(Exact(OMP_SET_NEST_LOCK), V_PTR, Some(ReadsArgs), Some(NEST_LOCK), OmpWrite),
    row(Exact(OMP_UNSET_NEST_LOCK), V_PTR, Some(ReadsArgs), Some(Role::ExclusiveEnd), OmpWrite),
    row(Exact("omp_init_lock"), V_PTR, Some(ReadsArgs), None, OmpWrite),
    row(Exact("omp_destroy_lock"), V_PTR, Some(ReadsArgs), None, OmpWrite),
    row(Exact("omp_test_lock"), &[both("i32 (ptr)")], Some(ReadsArgs), None, OmpWrite),
    row(Exact("omp_get_wtime"), F64, Some(NoMem), None, Pure),
    row(Exact("omp_get_wtick"), F64, Some(NoMem), None, Pure),
    row(Exact("omp_get_thread_num"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_get_num_threads"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_get_max_threads"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_get_num_procs"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_in_parallel"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_get_dynamic"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_get_level"), I32, Some(NoMem), None, Pure),
    row(Exact("omp_set_num_threads"), V_I32, Some(Env), None, Pure),
    row(Exact("omp_set_dynamic"), V_I32, Some(Env), None, Pure),
    row(Exact("omp_set_schedule"), &[both("void (i32, i32)")], Some(Env), None, Pure),
    row(Exact("omp_set_max_active_levels"), V_I32, Some(Env), None, Pure),
    row(Exact("omp_set_nested"), V_I32, Some(Env), None, Pure),
    // ---- Fortran runtime -------------------------------------------------
    row(Exact("_FortranAProgramStart"), &[fortran("void (i32, ptr, ptr, ptr)")], Some(Env), None, LibcWrite),
    // ---- setjmp family: rejected on marker paths whatever their type ----
    libc("setjmp", ANY, Some(ReturnsTwice), Unknown),
    libc("_setjmp", ANY, Some(ReturnsTwice), Unknown),
    libc("sigsetjmp", ANY, Some(ReturnsTwice), Unknown),
    libc("__sigsetjmp", ANY, Some(ReturnsTwice), Unknown),
    libc("savectx", ANY, Some(ReturnsTwice), Unknown),
    libc("vfork", ANY, Some(ReturnsTwice), Unknown),
    libc("getcontext", ANY, Some(ReturnsTwice), Unknown),
    // ---- libm (with f and l variants) ----------------------------------
    libm("sin", T_T, Some(NoMem), Pure),
    libm("cos", T_T, Some(NoMem), Pure),
    libm("tan", T_T, Some(NoMem), Pure),
    libm("asin", T_T, Some(NoMem), Pure),
    libm("acos", T_T, Some(NoMem), Pure),
    libm("atan", T_T, Some(NoMem), Pure),
    libm("atan2", T_TT, Some(NoMem), Pure),
    libm("sinh", T_T, Some(NoMem), Pure),
    libm("cosh", T_T, Some(NoMem), Pure),
    libm("tanh", T_T, Some(NoMem), Pure),
    libm("asinh", T_T, Some(NoMem), Pure),
    libm("acosh", T_T, Some(NoMem), Pure),
    libm("atanh", T_T, Some(NoMem), Pure),
    libm("exp", T_T, Some(NoMem), Pure),
    libm("exp2", T_T, Some(NoMem), Pure),
    libm("expm1", T_T, Some(NoMem), Pure),
    libm("log", T_T, Some(NoMem), Pure),
    libm("log2", T_T, Some(NoMem), Pure),
    libm("log10", T_T, Some(NoMem), Pure),
    libm("log1p", T_T, Some(NoMem), Pure),
    libm("pow", T_TT, Some(NoMem), Pure),
    libm("sqrt", T_T, Some(NoMem), Pure),
    libm("cbrt", T_T, Some(NoMem), Pure),
    libm("hypot", T_TT, Some(NoMem), Pure),
    libm("fabs", T_T, Some(NoMem), Pure),
    libm("floor", T_T, Some(NoMem), Pure),
    libm("ceil", T_T, Some(NoMem), Pure),
    libm("round", T_T, Some(NoMem), Pure),
    libm("trunc", T_T, Some(NoMem), Pure),
    libm("rint", T_T, Some(NoMem), Pure),
    libm("nearbyint", T_T, Some(NoMem), Pure),
    libm("lround", I64_T, Some(NoMem), Pure),
    libm("llround", I64_T, Some(NoMem), Pure),
    libm("lrint", I64_T, Some(NoMem), Pure),
    libm("fmod", T_TT, Some(NoMem), Pure),
    libm("remainder", T_TT, Some(NoMem), Pure),
    libm("fmin", T_TT, Some(NoMem), Pure),
    libm("fmax", T_TT, Some(NoMem), Pure),
    libm("fma", &[both("T (T, T, T)")], Some(NoMem), Pure),
    libm("copysign", T_TT, Some(NoMem), Pure),
    libm("erf", T_T, Some(NoMem), Pure),
    libm("erfc", T_T, Some(NoMem), Pure),
    libm("tgamma", T_T, Some(NoMem), Pure),
    // writes the global signgam: not pure for the guards
    libm("lgamma", T_T, Some(NoMem), Unknown),
    libm("ldexp", T_TI, Some(NoMem), Pure),
    libm("scalbn", T_TI, Some(NoMem), Pure),
    libm("fdim", T_TT, None, Pure),
    libm("ilogb", &[both("i32 (T)")], None, Pure),
    libm("logb", T_T, None, Pure),
    libc("frexp", &[both("double (double, ptr)")], None, LibcWrite),
    libc("modf", &[both("double (double, ptr)")], None, LibcWrite),
    libc("abs", I32_I32, Some(NoMem), Pure),
    libc("labs", &[c("i64 (i64)")], Some(NoMem), Pure),
    libc("llabs", &[c("i64 (i64)")], Some(NoMem), Pure),
    // ---- clocks, process facts, random numbers ----------------------------
    libc("clock", &[c("i64 ()")], Some(NoMem), LibcWrite),
    libc("getpid", I32_C, Some(NoMem), Unknown),
    libc("sysconf", &[c("i64 (i32)")], Some(NoMem), Unknown),
    libc("rand", I32_C, Some(NoMem), LibcWrite),
    libc("srand", &[c("void (i32)")], Some(NoMem), LibcWrite),
    libc("rand_r", I32_PTR, None, LibcWrite),
    libc("random", &[c("i64 ()")], Some(NoMem), Unknown),
    libc("srandom", &[c("void (i32)")], Some(NoMem), Unknown),
    libc("drand48", &[c("double ()")], Some(NoMem), LibcWrite),
    libc("srand48", &[c("void (i64)")], Some(NoMem), LibcWrite),
    libc("sleep", I32_I32, Some(NoMem), Unknown),
    libc("usleep", I32_I32, Some(NoMem), Unknown),
    libc("getchar", I32_C, Some(NoMem), Unknown),
    // ---- stdio ----------------------------------------------------------
    libc("printf", I32_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("fprintf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("sprintf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("snprintf", &[c("i32 (ptr, i64, ptr, ...)")], Some(ReadsArgs), LibcWrite),
    libc("vprintf", I32_PTR_PTR, Some(ReadsArgs), Unknown),
    libc("vfprintf", &[c("i32 (ptr, ptr, ptr)")], Some(ReadsArgs), Unknown),
    libc("vsprintf", &[c("i32 (ptr, ptr, ptr)")], Some(ReadsArgs), Unknown),
    libc("vsnprintf", &[c("i32 (ptr, i64, ptr, ptr)")], Some(ReadsArgs), Unknown),
    libc("puts", I32_PTR, Some(ReadsArgs), LibcWrite),
    libc("fputs", I32_PTR_PTR, Some(ReadsArgs), LibcWrite),
    libc("putchar", I32_I32, Some(ReadsArgs), LibcWrite),
    libc("fputc", &[c("i32 (i32, ptr)")], Some(ReadsArgs), LibcWrite),
    libc("putc", &[c("i32 (i32, ptr)")], Some(ReadsArgs), LibcWrite),
    libc("fwrite", IO_RW, Some(ReadsArgs), LibcWrite),
    libc("fread", IO_RW, Some(ReadsArgs), LibcWrite),
    libc("fflush", I32_PTR, Some(ReadsArgs), LibcWrite),
    libc("fopen", PTR_PTR_PTR, Some(ReadsArgs), LibcWrite),
    libc("fdopen", &[c("ptr (i32, ptr)")], Some(ReadsArgs), Unknown),
    libc("fclose", I32_PTR, Some(ReadsArgs), LibcWrite),
    libc("fscanf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("scanf", I32_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("sscanf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("fgets", &[c("ptr (ptr, i32, ptr)")], Some(ReadsArgs), LibcWrite),
    libc("fgetc", I32_PTR, Some(ReadsArgs), Unknown),
    libc("getc", I32_PTR, Some(ReadsArgs), Unknown),
    libc("feof", I32_PTR, Some(ReadsArgs), Unknown),
    libc("ferror", I32_PTR, Some(ReadsArgs), Unknown),
    libc("rewind", V_PTR_C, Some(ReadsArgs), Unknown),
    libc("fseek", &[c("i32 (ptr, i64, i32)")], Some(ReadsArgs), Unknown),
    libc("ftell", I64_PTR, Some(ReadsArgs), Unknown),
    libc("setvbuf", &[c("i32 (ptr, ptr, i32, i64)")], Some(ReadsArgs), Unknown),
    libc("setbuf", &[c("void (ptr, ptr)")], Some(ReadsArgs), Unknown),
    libc("remove", I32_PTR, Some(ReadsArgs), Unknown),
    libc("rename", I32_PTR_PTR, Some(ReadsArgs), Unknown),
    libc("perror", V_PTR_C, Some(ReadsArgs), LibcWrite),
    libc("__isoc99_scanf", I32_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("__isoc99_fscanf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("__isoc99_sscanf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    // glibc >= 2.38's C23 names of the same functions (-std=c2x)
    libc("__isoc23_scanf", I32_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("__isoc23_fscanf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    libc("__isoc23_sscanf", I32_PTR_PTR_VA, Some(ReadsArgs), LibcWrite),
    // ---- strings and memory ---------------------------------------------
    libc("strlen", I64_PTR, Some(ReadsArgs), Pure),
    libc("strnlen", &[c("i64 (ptr, i64)")], Some(ReadsArgs), Pure),
    libc("strcmp", I32_PTR_PTR, Some(ReadsArgs), Pure),
    libc("strncmp", &[c("i32 (ptr, ptr, i64)")], Some(ReadsArgs), Pure),
    libc("strcpy", PTR_PTR_PTR, Some(ReadsArgs), LibcWrite),
    libc("strncpy", PTR_PTR_PTR_I64, Some(ReadsArgs), LibcWrite),
    libc("strcat", PTR_PTR_PTR, Some(ReadsArgs), LibcWrite),
    libc("strncat", PTR_PTR_PTR_I64, Some(ReadsArgs), LibcWrite),
    libc("strchr", PTR_PTR_I32, Some(ReadsArgs), Pure),
    libc("strrchr", PTR_PTR_I32, Some(ReadsArgs), Pure),
    libc("strstr", PTR_PTR_PTR, Some(ReadsArgs), Pure),
    // strtok keeps the string it was given in libc between calls
    // (`strtok(NULL, sep)` reads and writes the buffer passed earlier): it
    // does not read through its arguments only, so it is unknown (it may
    // read any escaped memory; the buffer escapes to it)
    libc("strtok", PTR_PTR_PTR, None, Unknown),
    libc("strerror", &[c("ptr (i32)")], Some(ReadsArgs), Unknown),
    libc("memcmp", &[c("i32 (ptr, ptr, i64)")], Some(ReadsArgs), Pure),
    libc("memcpy", PTR_PTR_PTR_I64, Some(ReadsArgs), LibcWrite),
    libc("memmove", PTR_PTR_PTR_I64, Some(ReadsArgs), LibcWrite),
    libc("memset", &[c("ptr (ptr, i32, i64)")], Some(ReadsArgs), LibcWrite),
    libc("memchr", &[c("ptr (ptr, i32, i64)")], Some(ReadsArgs), Unknown),
    libc("atoi", I32_PTR, Some(ReadsArgs), Pure),
    libc("atol", I64_PTR, Some(ReadsArgs), Pure),
    libc("atoll", I64_PTR, Some(ReadsArgs), Pure),
    libc("atof", &[c("double (ptr)")], Some(ReadsArgs), Pure),
    libc("strtol", I64_PTR_PTR_I32, Some(ReadsArgs), LibcWrite),
    libc("strtoul", I64_PTR_PTR_I32, Some(ReadsArgs), LibcWrite),
    libc("strtoll", I64_PTR_PTR_I32, Some(ReadsArgs), LibcWrite),
    libc("strtoull", I64_PTR_PTR_I32, Some(ReadsArgs), LibcWrite),
    libc("__isoc23_strtol", I64_PTR_PTR_I32, Some(ReadsArgs), LibcWrite),
    libc("__isoc23_strtoul", I64_PTR_PTR_I32, Some(ReadsArgs), LibcWrite),
    libc("strtod", &[c("double (ptr, ptr)")], Some(ReadsArgs), LibcWrite),
    libc("strtof", &[c("float (ptr, ptr)")], Some(ReadsArgs), LibcWrite),
    libc("isdigit", I32_I32, None, Pure),
    libc("isalpha", I32_I32, None, Pure),
    libc("isspace", I32_I32, None, Pure),
    libc("toupper", I32_I32, Some(ReadsArgs), Pure),
    libc("tolower", I32_I32, Some(ReadsArgs), Pure),
    libc("__ctype_b_loc", &[c("ptr ()")], Some(ReadsArgs), Unknown),
    // ---- time, environment, process, files ------------------------------
    libc("time", I64_PTR, Some(ReadsArgs), LibcWrite),
    libc("gettimeofday", I32_PTR_PTR, Some(ReadsArgs), LibcWrite),
    libc("clock_gettime", &[c("i32 (i32, ptr)")], Some(ReadsArgs), LibcWrite),
    libc("getrusage", &[c("i32 (i32, ptr)")], Some(ReadsArgs), Unknown),
    libc("times", I64_PTR, Some(ReadsArgs), Unknown),
    libc("localtime", PTR_PTR, Some(ReadsArgs), Unknown),
    libc("gmtime", PTR_PTR, Some(ReadsArgs), Unknown),
    libc("strftime", &[c("i64 (ptr, i64, ptr, ptr)")], Some(ReadsArgs), Unknown),
    libc("ctime", PTR_PTR, Some(ReadsArgs), Unknown),
    libc("asctime", PTR_PTR, Some(ReadsArgs), Unknown),
    libc("getenv", PTR_PTR, Some(ReadsArgs), LibcWrite),
    libc("exit", &[c("void (i32)")], Some(ReadsArgs), LibcWrite),
    libc("_exit", &[c("void (i32)")], Some(ReadsArgs), Unknown),
    libc("abort", &[c("void ()")], Some(ReadsArgs), LibcWrite),
    libc("__assert_fail", &[c("void (ptr, ptr, i32, ptr)")], Some(ReadsArgs), Unknown),
    libc("__stack_chk_fail", &[c("void ()")], Some(ReadsArgs), Unknown),
    libc("__errno_location", &[c("ptr ()")], Some(ReadsArgs), Unknown),
    libc("malloc_usable_size", I64_PTR, Some(ReadsArgs), Unknown),
    libc("open", &[c("i32 (ptr, i32, ...)")], Some(ReadsArgs), Unknown),
    libc("close", I32_I32, Some(ReadsArgs), Unknown),
    libc("read", FD_RW, Some(ReadsArgs), LibcWrite),
    libc("write", FD_RW, Some(ReadsArgs), LibcWrite),
    libc("lseek", &[c("i64 (i32, i64, i32)")], Some(ReadsArgs), Unknown),
    libc("fsync", I32_I32, Some(ReadsArgs), Unknown),
    libc("unlink", I32_PTR, Some(ReadsArgs), Unknown),
    libc("stat", I32_PTR_PTR, Some(ReadsArgs), Unknown),
    libc("fstat", &[c("i32 (i32, ptr)")], Some(ReadsArgs), Unknown),
    libc("isatty", I32_I32, Some(ReadsArgs), Unknown),
    // ---- families (tried in this order after the exact names) -------------
    // LLVM intrinsics (any type: they are overloaded), before the `llvm.`
    // catch-all. memcpy & co. also match their `.inline` and
    // `.element.unordered.atomic` forms (same operand positions).
    llvm("llvm.memcpy", Intr::Copy { dest: 0, src: 1, len: 2 }, WritesOperand(0)),
    llvm("llvm.memmove", Intr::Copy { dest: 0, src: 1, len: 2 }, WritesOperand(0)),
    llvm("llvm.memset", Intr::Set { dest: 0, len: 2 }, WritesOperand(0)),
    // masked.store(value, ptr, align, mask)
    llvm("llvm.masked.store", Intr::Other, WritesOperand(1)),
    // stores to addresses computed inside: a write for the guards
    llvm("llvm.masked.scatter", Intr::Other, LibcWrite),
    llvm("llvm.vp.store", Intr::Other, LibcWrite),
    llvm("llvm.vp.scatter", Intr::Other, LibcWrite),
    llvm("llvm.lifetime", Intr::Lifetime, Pure),
    llvm("llvm.dbg", Intr::NoMem, Pure),
    llvm("llvm.assume", Intr::NoMem, Pure),
    llvm("llvm.stack", Intr::NoMem, Pure),
    llvm("llvm.experimental.noalias", Intr::NoMem, Pure),
    // clang's access to a thread-local global (threadprivate): LLVM 19
    // spells the intrinsic with its pointer type (names::THREADLOCAL_ADDRESS);
    // the result is the calling thread's copy of operand 0 (saved whole by
    // the runtime with the thread's TLS, private to the thread: a store
    // through it needs no shared-write guard). Until issue #15 only the
    // bare name matched, and `.p0` calls were unknown pointers, which made
    // every function reading a threadprivate array read unknown memory.
    row(Exact("llvm.threadlocal.address"), ANY, Some(Intrinsic), Some(Role::Intrinsic(Intr::ThreadlocalAddress { global: 0 })), Pure),
    row(Exact(THREADLOCAL_ADDRESS), ANY, Some(Intrinsic), Some(Role::Intrinsic(Intr::ThreadlocalAddress { global: 0 })), Pure),
    llvm("llvm.", Intr::Other, Pure),
    row(Prefix("__kmpc_dispatch_next_"), &[both("i32 (ptr, i32, ptr, ptr, ptr, ptr)")], Some(ReadsArgs), Some(Role::DispatchNext), Pure),
    row(
        Prefix("__kmpc_dispatch_init_"),
        &[both("void (ptr, i32, i32, i32, i32, i32, i32)"), both("void (ptr, i32, i32, i64, i64, i64, i64)")],
        Some(ReadsArgs),
        Some(Role::DispatchInit),
        Pure,
    ),
    row(
        Prefix("__kmpc_for_static_init_"),
        &[both("void (ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)"), both("void (ptr, i32, i32, ptr, ptr, ptr, ptr, i64, i64)")],
        Some(ReadsArgs),
        Some(Role::StaticInit),
        Pure,
    ),
    row(Prefix("__kmpc_atomic"), ANY, Some(ReadsArgs), None, OmpWrite),
    // every other lock entry point of libomp and the OpenMP API
    row(PrefixWith("__kmpc_", "lock"), ANY, Some(ReadsArgs), None, OmpWrite),
    row(PrefixWith("omp_", "lock"), ANY, Some(ReadsArgs), None, OmpWrite),
    // The Fortran runtime and libomp read through their arguments only
    // (I/O descriptors, reduction buffers, ...). Explicit tasks and the
    // other constructs are the OpenMP issue's; here they only need to not
    // reach markers, which holds for every entry point except fork_call.
    row(Prefix("__kmpc_"), ANY, Some(ReadsArgs), None, Pure),
    // OpenMP offload (docs/design.md section 21): libomptarget, the device
    // memory routines, and the runtime's entries they are routed to
    // (route.rs); libomptarget calls back into the program only through
    // user-defined mappers, which the runtime refuses
    row(Prefix("__tgt_"), ANY, Some(Offload), None, LibcWrite),
    row(Prefix("omp_target_"), ANY, Some(Offload), None, LibcWrite),
    row(Prefix("llvm_omp_target_"), ANY, Some(Offload), None, LibcWrite),
    row(Exact("omp_get_mapped_ptr"), ANY, Some(Offload), None, LibcWrite),
    row(Prefix("dao_tgt_"), ANY, Some(Offload), Some(Role::DaoRuntime), LibcWrite),
    row(Prefix("dao_omp_target_"), ANY, Some(Offload), Some(Role::DaoRuntime), LibcWrite),
    row(Prefix("dao_llvm_omp_target_"), ANY, Some(Offload), Some(Role::DaoRuntime), LibcWrite),
    row(Prefix("omp_"), ANY, Some(ReadsArgs), None, Pure),
    row(Prefix("_FortranA"), ANY, Some(ReadsArgs), None, LibcWrite),
    row(Prefix("_Fortran"), ANY, None, None, LibcWrite),
    row(Prefix("__isoc99_"), ANY, None, None, LibcWrite),
    row(Prefix("__isoc23_"), ANY, None, None, LibcWrite),
    row(PrefixWith(dao_abi::PREFIX, "alloc"), ANY, Some(alloc(None)), Some(Role::DaoRuntime), Pure),
    row(Prefix(dao_abi::PREFIX), ANY, Some(NoMem), Some(Role::DaoRuntime), Pure),
    row(Prefix("__dao"), ANY, None, Some(Role::DaoRuntime), Pure),
];

/// The libm variant a name was matched as: its suffix and float types.
fn variant_types(suffix: &str) -> &'static [&'static str] {
    match suffix {
        "f" => &["float"],
        // long double: x86-64, AArch64/others
        "l" => &["x86_fp80", "fp128"],
        _ => &["double"],
    }
}

/// A row matched by name, before the type check.
#[derive(Clone, Copy, Debug)]
pub struct Match {
    pub row: &'static Row,
    /// `""`, `"f"` or `"l"` for a libm row.
    pub suffix: &'static str,
}

impl Match {
    /// The declared types this match accepts (`None`: any).
    pub fn accepted(&self) -> Option<Vec<String>> {
        if self.row.shapes.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        for s in self.row.shapes {
            if matches!(self.row.name, Libm(_)) {
                for t in variant_types(self.suffix) {
                    out.push(s.sig.replace('T', t));
                }
            } else {
                out.push(s.sig.to_string());
            }
        }
        Some(out)
    }
    /// Whether a declaration of LLVM function type `ty` (as printed) is
    /// this row's function.
    pub fn accepts(&self, ty: &str) -> bool {
        self.accepted().map_or(true, |a| a.iter().any(|s| s == ty))
    }
}

struct Index {
    exact: crate::fxhash::HashMap<&'static str, usize>,
    families: Vec<usize>,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut exact = crate::fxhash::HashMap::default();
        let mut families = Vec::new();
        for (k, r) in TABLE.iter().enumerate() {
            match r.name {
                Exact(n) | Libm(n) => {
                    exact.entry(n).or_insert(k);
                }
                Prefix(_) | PrefixWith(..) => families.push(k),
            }
        }
        Index { exact, families }
    })
}

/// The row for `name`, by name only (the caller checks the type with
/// [`Match::accepts`]).
pub fn lookup_name(name: &str) -> Option<Match> {
    let ix = index();
    if let Some(&k) = ix.exact.get(name) {
        return Some(Match { row: &TABLE[k], suffix: "" });
    }
    // a libm variant: sqrtf, sqrtl (one suffix, as C spells them)
    let variant = if let Some(stem) = name.strip_suffix('f') {
        Some((stem, "f"))
    } else {
        name.strip_suffix('l').map(|stem| (stem, "l"))
    };
    if let Some((stem, suffix)) = variant {
        if let Some(&k) = ix.exact.get(stem) {
            if matches!(TABLE[k].name, Libm(_)) {
                return Some(Match { row: &TABLE[k], suffix });
            }
        }
    }
    ix.families.iter().map(|&k| &TABLE[k]).find(|r| match r.name {
        Prefix(p) => name.starts_with(p),
        PrefixWith(p, s) => name.starts_with(p) && name[p.len()..].contains(s),
        _ => false,
    })
    .map(|row| Match { row, suffix: "" })
}

/// The routing of libc heap functions to the dao heap: (from, to), in the
/// table's order.
pub fn alloc_routes() -> impl Iterator<Item = (&'static str, &'static str)> {
    TABLE.iter().filter_map(|r| match (r.name, r.effect) {
        (Exact(from), Some(Alloc { to: Some(to), .. })) => Some((from, to)),
        _ => None,
    })
}

/// Of the table's allocation functions, those whose result is one new
/// block, with the arguments whose product is its size in bytes (the heap
/// objects of issue #33, `pass/plugin/src/heap.rs`): `malloc(n)`,
/// `calloc(n, m)`, `aligned_alloc(a, n)`, `memalign(a, n)`, C++ `new`,
/// `new[]` and their `nothrow` and aligned forms. Not `realloc` (it moves
/// a block), `posix_memalign` (the result goes through memory) or
/// `strdup` (its size is a string's).
pub fn alloc_size_args(name: &str) -> Option<&'static [u32]> {
    match name {
        "malloc" | "_Znwm" | "_Znam" | "_ZnwmRKSt9nothrow_t" | "_ZnamRKSt9nothrow_t" | "_ZnwmSt11align_val_t" | "_ZnamSt11align_val_t" => Some(&[0]),
        "calloc" => Some(&[0, 1]),
        "aligned_alloc" | "memalign" => Some(&[1]),
        _ => None,
    }
}

/// Whether the table's function `name` frees the block its first argument
/// points to (`free`, C++ `delete` and `delete[]`).
pub fn frees_block(name: &str) -> bool {
    matches!(name, "free" | "_ZdlPv" | "_ZdaPv" | "_ZdlPvm" | "_ZdaPvm")
}

/// The name of a row with exactly this name (for consumers that declare a
/// function: they must spell it as the table does).
pub fn exact_row(name: &str) -> Option<&'static Row> {
    index().exact.get(name).map(|&k| &TABLE[k])
}

#[cfg(test)]
#[path = "known_tests.rs"]
mod tests;
