//! The contract between the dao pass (which emits descriptors and calls) and
//! the dao runtime (which implements the calls and reads the descriptors),
//! defined once. Both sides depend on this crate:
//!
//! - the pass (`pass/plugin/src/emit.rs`) builds its LLVM struct types from
//!   the [`Layout`] tables and declares runtime entry points from
//!   [`entry`] and [`global`];
//! - the runtime reads the descriptors through its `#[repr(C)]` mirrors in
//!   `runtime/src/abi.rs`, whose field names, order and offsets are checked
//!   against the [`Layout`] tables by a test there (`check_layout!`).
//!
//! `runtime/include/dao_abi.h` documents the same contract for C readers (and
//! `runtime/tests/abi/manual.c` uses it). It is checked against this crate by
//! `abi/tests/header.rs`: the version, every enum value and flag, every
//! descriptor's fields (names, types, and their offsets as a C compiler lays
//! them out), every entry point and global. The runtime's own test
//! `runtime/tests/abi_symbols.rs` checks that `libdao_rt.a` defines every
//! entry point and global listed here. Changing the ABI is therefore one
//! edit here (plus the header's documentation, which the test forces), and
//! bumping [`DAO_ABI_VERSION`].
//!
//! Model ("address-preserving restart") and the meaning of each field: see
//! the header.

/// Bump on any change of this crate's tables.
pub const DAO_ABI_VERSION: u32 = 14;

/// What a labelled site is (`dao_site_desc.kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SiteKind {
    /// A call that may reach a marker.
    Call = 1,
    /// `dao_potential_checkpoint()`.
    Marker = 2,
    /// `dao_checkpoint_now()`.
    Forced = 3,
    /// `__kmpc_fork_call` of a region whose outlined function reaches a
    /// marker (callee = the outlined function): executed again on restart.
    Fork = 4,
    /// A barrier (or `__kmpc_end_reduce`) in parallel code on a marker
    /// path: a thread waiting there takes part in a checkpoint.
    Sync = 5,
    /// The end of an outlined function.
    Exit = 6,
}

impl SiteKind {
    pub const ALL: [SiteKind; 6] = [SiteKind::Call, SiteKind::Marker, SiteKind::Forced, SiteKind::Fork, SiteKind::Sync, SiteKind::Exit];
    /// The enumerator's name in the C header.
    pub fn c_name(self) -> &'static str {
        match self {
            SiteKind::Call => "DAO_SITE_CALL",
            SiteKind::Marker => "DAO_SITE_MARKER",
            SiteKind::Forced => "DAO_SITE_FORCED",
            SiteKind::Fork => "DAO_SITE_FORK",
            SiteKind::Sync => "DAO_SITE_SYNC",
            SiteKind::Exit => "DAO_SITE_EXIT",
        }
    }
    pub fn from_u32(k: u32) -> Option<SiteKind> {
        SiteKind::ALL.into_iter().find(|s| *s as u32 == k)
    }
}

pub const DAO_SITE_CALL: u32 = SiteKind::Call as u32;
pub const DAO_SITE_MARKER: u32 = SiteKind::Marker as u32;
pub const DAO_SITE_FORCED: u32 = SiteKind::Forced as u32;
pub const DAO_SITE_FORK: u32 = SiteKind::Fork as u32;
pub const DAO_SITE_SYNC: u32 = SiteKind::Sync as u32;
pub const DAO_SITE_EXIT: u32 = SiteKind::Exit as u32;

/// `dao_site_desc.flags`: the continuation may read memory the pass cannot
/// name; the runtime then saves what the *other* modules' code may read
/// (`escaped_globals`: address escaped, or read by a function another
/// module can enter; since ABI version 9). The site's own module's escaped
/// globals that such a read may reach are already in its `globals` list
/// (unless a must-write before the read kills them; since ABI version 8).
pub const DAO_SITE_UNKNOWN_READS: u32 = 1 << 0;
/// `dao_module_desc.flags`: the pass put shared-write guards in the
/// module's code (non-blocking rounds are possible; `DAO_GUARDS=0` at compile
/// time leaves them out).
pub const DAO_MODULE_GUARDED: u32 = 1 << 0;
/// `dao_var_desc.offset` of a global only declared in its module.
pub const DAO_GLOBAL_DECLARED: u64 = 1;
/// `dao_var_desc.offset` of a threadprivate variable of the module's `tp`
/// table (flang's, reached through `__kmpc_threadprivate_cached`): a
/// parallel region may read a worker's copy before writing it whole, so the
/// workers' copies carry values from region to region and are saved.
pub const DAO_TP_IN_REGION: u64 = 1;

/// Every named constant of the header with its value (enumerators, flags,
/// defines), for the header check.
pub const C_CONSTANTS: &[(&str, u64)] = &[
    ("DAO_ABI_VERSION", DAO_ABI_VERSION as u64),
    ("DAO_SITE_CALL", DAO_SITE_CALL as u64),
    ("DAO_SITE_MARKER", DAO_SITE_MARKER as u64),
    ("DAO_SITE_FORCED", DAO_SITE_FORCED as u64),
    ("DAO_SITE_FORK", DAO_SITE_FORK as u64),
    ("DAO_SITE_SYNC", DAO_SITE_SYNC as u64),
    ("DAO_SITE_EXIT", DAO_SITE_EXIT as u64),
    ("DAO_SITE_UNKNOWN_READS", DAO_SITE_UNKNOWN_READS as u64),
    ("DAO_MODULE_GUARDED", DAO_MODULE_GUARDED as u64),
    ("DAO_GLOBAL_DECLARED", DAO_GLOBAL_DECLARED),
    ("DAO_TP_IN_REGION", DAO_TP_IN_REGION),
    ("DAO_BOX_WRITE", DAO_BOX_WRITE as u64),
    ("DAO_BOX_READ", DAO_BOX_READ as u64),
    ("DAO_FT_WORDS_BITS", FT_WORDS_BITS as u64),
];

/// Fault-tolerant tasks: `dao_ft_words`, the runtime's array of
/// `1 << FT_WORDS_BITS` counters (u32) of buffered words by hash
/// (`(address >> 3) & mask`): a replica loads a word whose counter is 0
/// directly, without asking the runtime.
pub const FT_WORDS: &str = "dao_ft_words";
pub const FT_WORDS_BITS: u32 = 16;

/// A field or parameter type as both sides see it: LLVM `i32`/`i64`/`ptr`
/// (the pass), `uint32_t`/`uint64_t`/pointer in C (the header; a parameter
/// declared `int`/`long long` is `I32`/`I64` too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I8,
    I32,
    I64,
    Ptr,
}

impl Ty {
    /// Size and alignment on the 64-bit targets dao supports.
    pub const fn size(self) -> u64 {
        match self {
            Ty::I8 => 1,
            Ty::I32 => 4,
            Ty::I64 | Ty::Ptr => 8,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
}

const fn f(name: &'static str, ty: Ty) -> Field {
    Field { name, ty }
}

/// One descriptor structure: its C name and its fields in order.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub c_name: &'static str,
    pub fields: &'static [Field],
}

impl Layout {
    /// Byte offset of each field (C layout rules: each field at its
    /// alignment, which equals its size here).
    pub fn offsets(&self) -> Vec<u64> {
        let mut off = 0u64;
        self.fields
            .iter()
            .map(|f| {
                off = off.next_multiple_of(f.ty.size());
                let o = off;
                off += f.ty.size();
                o
            })
            .collect()
    }
    /// Total size (padded to the largest alignment).
    pub fn size(&self) -> u64 {
        let align = self.fields.iter().map(|f| f.ty.size()).max().unwrap_or(1);
        let end = self.offsets().last().copied().unwrap_or(0) + self.fields.last().map_or(0, |f| f.ty.size());
        end.next_multiple_of(align)
    }
    /// Position of the field `name`; panics on a name not in the layout
    /// (a bug in the caller, caught by any test that emits the structure).
    pub fn index(&self, name: &str) -> usize {
        self.fields.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("{} has no field '{name}'", self.c_name))
    }
}

use Ty::{I32, I64, Ptr};

/// One saved thing: an SSA slot, a stack object or a global.
pub const VAR_DESC: Layout =
    Layout { c_name: "dao_var_desc", fields: &[f("name", Ptr), f("loc", Ptr), f("size", I64), f("offset", I64), f("addr", Ptr)] };
/// A label: a call site on a path to a marker, or a marker.
pub const SITE_DESC: Layout = Layout {
    c_name: "dao_site_desc",
    fields: &[
        f("kind", I32),
        f("flags", I32),
        f("loc", Ptr),
        f("callee", Ptr),
        f("n_slots", I32),
        f("slots", Ptr),
        f("n_allocas", I32),
        f("allocas", Ptr),
        f("n_globals", I32),
        f("globals", Ptr),
        f("n_parts", I32),
        f("parts", Ptr),
        f("n_cdead", I32),
        f("cdead", Ptr),
        f("n_dead", I32),
        f("dead", Ptr),
        f("dead_why", Ptr),
        f("n_kept", I32),
        f("kept", Ptr),
        f("kept_why", Ptr),
        f("n_cboxes", I32),
        f("cboxes", Ptr),
        f("n_ddead", I32),
        f("ddead", Ptr),
    ],
};
pub const FUNC_DESC: Layout = Layout {
    c_name: "dao_func_desc",
    fields: &[
        f("name", Ptr),
        f("module", Ptr),
        f("n_sites", I32),
        f("sites", Ptr),
        f("n_slots", I32),
        f("slots", Ptr),
        f("n_allocas", I32),
        f("allocas", Ptr),
        f("slot_area_size", I64),
    ],
};
pub const MODULE_DESC: Layout = Layout {
    c_name: "dao_module_desc",
    fields: &[
        f("abi_version", I32),
        f("flags", I32),
        f("module_hash", I64),
        f("source_name", Ptr),
        f("n_globals", I32),
        f("globals", Ptr),
        f("n_escaped", I32),
        f("escaped_globals", Ptr),
        f("n_funcs", I32),
        f("funcs", Ptr),
        f("n_tls", I32),
        f("tls", Ptr),
        f("tls_addrs", Ptr),
        f("n_tp", I32),
        f("tp", Ptr),
        f("n_conds", I32),
        f("conds", Ptr),
        f("n_boxes", I32),
        f("boxes", Ptr),
        f("n_heaps", I32),
        f("heaps", Ptr),
    ],
};
/// A heap object of the module (ABI 14): the block of one allocation call
/// in `main` that runs at most once per run and whose address stays in the
/// module's code (`pass/plugin/src/heap.rs`). The program writes `addr`
/// and `size` (the bytes it asked for) right after the call, and sets
/// `addr` to null before the block is freed; the descriptor array is
/// writable. In a site's `globals`, `cdead`, `dead` and `kept` lists, index
/// `n_globals + k` of the module's object numbering is heap object `k`: the
/// runtime leaves its block out of the checkpoint when every walked frame
/// of the module has it dead (not in `globals`, or in `cdead` with its
/// conditions holding).
pub const HEAP_DESC: Layout = Layout { c_name: "dao_heap_desc", fields: &[f("name", Ptr), f("loc", Ptr), f("addr", Ptr), f("size", I64)] };
/// A runtime-checked condition of a conditional kill: object `object` is
/// dead at a site listing it in `cdead` when, for every condition of it,
/// the `bytes`-wide integer V at `offset` of global `global` (read signed
/// when `is_signed`) lies in `[min, max]`. With `cover` > 0 (ABI 14, heap
/// objects only) the condition is instead that a loop's writes reach the
/// end of the block: V (0 when `global` is `u32::MAX`) lies in `[0, max]`,
/// W, the integer (`global2`, `offset2`, `bytes2`, `is_signed2`), does too
/// when `global2` is not `u32::MAX`, and `cover * (V + add) * F + min` is
/// at least the block's `size` (`dao_heap_desc`), F = W + `add2` (1 when
/// `global2` is `u32::MAX`): the cells of a nest flattened into one run,
/// `a[i * n + j]`, are the inner count times the outer one.
pub const COND_DESC: Layout = Layout {
    c_name: "dao_cond_desc",
    fields: &[
        f("object", I32),
        f("global", I32),
        f("offset", I64),
        f("bytes", I32),
        f("is_signed", I32),
        f("min", I64),
        f("max", I64),
        f("cover", I64),
        f("add", I64),
        f("global2", I32),
        f("bytes2", I32),
        f("offset2", I64),
        f("is_signed2", I32),
        f("reserved", I32),
        f("add2", I64),
    ],
};
/// A box of bytes of global `object` (ABI 12): `size` bytes at `start`
/// plus any combination of the `n_dims` steps (`dims`), whose counts may
/// be read from globals when the checkpoint is taken. Kind
/// [`DAO_BOX_WRITE`]: a part a loop rewrites before any read when its
/// `n_conds` conditions hold (their `object` field is unused), dead at a
/// site listing it in `cboxes`. Kind [`DAO_BOX_READ`]: one of the boxes
/// every read of `object` lies in (the module's reads of an internal
/// global whose address reaches nothing else), valid when its conditions
/// hold: the bytes of `object` outside all of them are never read.
pub const BOX_DESC: Layout = Layout {
    c_name: "dao_box_desc",
    fields: &[f("object", I32), f("kind", I32), f("n_dims", I32), f("n_conds", I32), f("start", I64), f("size", I64), f("dims", Ptr), f("conds", Ptr)],
};
/// `dao_box_desc.kind`: a part rewritten under conditions.
pub const DAO_BOX_WRITE: u32 = 0;
/// `dao_box_desc.kind`: a box of a global's reads.
pub const DAO_BOX_READ: u32 = 1;
/// One step of a box: `stride` bytes, `count` times, or, when `global` is
/// not `u32::MAX`, max(`count`, `add` + the `bytes`-wide integer at
/// `offset` of global `global`, signed when `is_signed`) times (a write
/// box's `count` is 0; a read box's may be a floor).
pub const BOX_DIM: Layout = Layout {
    c_name: "dao_box_dim",
    fields: &[f("stride", I64), f("count", I64), f("global", I32), f("bytes", I32), f("offset", I64), f("add", I64), f("is_signed", I32), f("reserved", I32)],
};
/// One per activation of an instrumented function, in its stack frame.
pub const FRAME: Layout =
    Layout { c_name: "dao_frame", fields: &[f("parent", Ptr), f("func", Ptr), f("site", I32), f("reserved", I32), f("allocas", Ptr), f("slots", Ptr)] };

pub const LAYOUTS: [Layout; 9] = [VAR_DESC, SITE_DESC, FUNC_DESC, MODULE_DESC, FRAME, COND_DESC, BOX_DESC, BOX_DIM, HEAP_DESC];

/// A runtime function the pass calls: name and signature (`ret` None: void).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub name: &'static str,
    pub ret: Option<Ty>,
    pub params: &'static [Ty],
}

const fn e(name: &'static str, ret: Option<Ty>, params: &'static [Ty]) -> Entry {
    Entry { name, ret, params }
}

/// The runtime entry points the pass emits calls to.
pub mod entry {
    use super::{e, Entry, I32, I64, Ptr};
    pub const REGISTER_MODULE: Entry = e("dao_register_module", None, &[Ptr]);
    pub const FRAME_RESTORE: Entry = e("dao_frame_restore", Some(I32), &[Ptr]);
    pub const CANDIDATE: Entry = e("dao_candidate", None, &[Ptr]);
    pub const FORCED: Entry = e("dao_forced", None, &[Ptr]);
    pub const MAIN: Entry = e("dao_main", Some(I32), &[I32, Ptr, Ptr, Ptr]);
    pub const THREAD_START: Entry = e("dao_thread_start", None, &[Ptr]);
    pub const OMP_FORK: Entry = e("dao_omp_fork", None, &[Ptr]);
    pub const OMP_JOIN: Entry = e("dao_omp_join", None, &[Ptr]);
    pub const OMP_BEGIN: Entry = e("dao_omp_begin", None, &[Ptr]);
    pub const OMP_END: Entry = e("dao_omp_end", None, &[Ptr]);
    pub const OMP_PARK: Entry = e("dao_omp_park", None, &[Ptr]);
    pub const OMP_UNPARK: Entry = e("dao_omp_unpark", None, &[Ptr]);
    /// In an outlined region that runs a dynamic, guided, runtime or
    /// ordered loop and reaches markers only through other files' code:
    /// `dao_omp_hold_begin(where)` after dao_omp_begin, `dao_omp_hold_end()`
    /// at each return (before dao_omp_end). No checkpoint is taken while the
    /// calling thread is between them; `where` is the loop's file:line.
    pub const OMP_HOLD_BEGIN: Entry = e("dao_omp_hold_begin", None, &[Ptr]);
    pub const OMP_HOLD_END: Entry = e("dao_omp_hold_end", None, &[]);
    /// Replaces `__kmpc_single(ident, gtid)` (same signature).
    pub const OMP_SINGLE: Entry = e("dao_omp_single", Some(I32), &[Ptr, I32]);
    /// Replaces the `__kmpc_single` of a `single` block that reaches a
    /// marker (same signature): 1 on the team's thread 0, which runs it.
    pub const OMP_SINGLE_MASTER: Entry = e("dao_omp_single_master", Some(I32), &[Ptr, I32]);
    /// Replaces `__kmpc_threadprivate_cached(ident, gtid, data, size,
    /// cache)` (same signature): the calling thread's copy of a
    /// threadprivate variable, workers' copies at fixed addresses.
    pub const THREADPRIVATE_CACHED: Entry = e("dao_threadprivate_cached", Some(Ptr), &[Ptr, I32, Ptr, I64, Ptr]);
    /// The slow path of a shared-write guard.
    pub const OMP_GUARD_WAIT: Entry = e("dao_omp_guard_wait", None, &[]);
    pub const MALLOC: Entry = e("dao_malloc", Some(Ptr), &[I64]);
    pub const CALLOC: Entry = e("dao_calloc", Some(Ptr), &[I64, I64]);
    pub const REALLOC: Entry = e("dao_realloc", Some(Ptr), &[Ptr, I64]);
    pub const FREE: Entry = e("dao_free", None, &[Ptr]);
    pub const ALIGNED_ALLOC: Entry = e("dao_aligned_alloc", Some(Ptr), &[I64, I64]);
    pub const POSIX_MEMALIGN: Entry = e("dao_posix_memalign", Some(I32), &[Ptr, I64, I64]);
    pub const STRDUP: Entry = e("dao_strdup", Some(Ptr), &[Ptr]);
    pub const STRNDUP: Entry = e("dao_strndup", Some(Ptr), &[Ptr, I64]);
    /// The out-of-line frame push/pop (hand-written callers; the pass emits
    /// the inline form).
    pub const FRAME_ENTER: Entry = e("dao_frame_enter", Some(I32), &[Ptr]);
    pub const FRAME_LEAVE: Entry = e("dao_frame_leave", None, &[Ptr]);
    /// Replaces `__kmpc_omp_task_alloc` (same signature): counts the task
    /// as in flight (runtime/src/omp/tasks.rs).
    pub const OMP_TASK_NEW: Entry = e("dao_omp_task_new", Some(Ptr), &[Ptr, I32, I32, I64, I64, Ptr]);
    /// Called by the pass's trampoline when a task entry returns.
    pub const OMP_TASK_DONE: Entry = e("dao_omp_task_done", None, &[]);
    /// Replaces `__kmpc_taskloop` (same signature).
    pub const OMP_TASKLOOP: Entry = e("dao_omp_taskloop", None, &[Ptr, I32, Ptr, I32, Ptr, Ptr, I64, I32, I32, I64, Ptr]);
    /// Replaces `__kmpc_taskloop_5` (same signature).
    pub const OMP_TASKLOOP_5: Entry = e("dao_omp_taskloop_5", None, &[Ptr, I32, Ptr, I32, Ptr, Ptr, I64, I32, I32, I64, I32, Ptr]);
    /// Replace `__kmpc_taskgroup` / `__kmpc_end_taskgroup` (same signature).
    pub const OMP_TASKGROUP: Entry = e("dao_omp_taskgroup", None, &[Ptr, I32]);
    pub const OMP_END_TASKGROUP: Entry = e("dao_omp_end_taskgroup", None, &[Ptr, I32]);
    /// Fault-tolerant tasks (runtime/src/task_ft/): the body of the
    /// trampoline the pass puts in place of a replicable task entry:
    /// `(gtid, task, entry, buffered replica, in-place replica,
    /// sizeof_task, sizeof_shareds)`.
    pub const FT_TASK: Entry = e("dao_ft_task", None, &[I32, Ptr, Ptr, Ptr, Ptr, I64, I64]);
    /// A load in a replica: `(addr, dst, size, kind)`, kind 1 for a pointer.
    pub const FT_LOAD: Entry = e("dao_ft_load", None, &[Ptr, Ptr, I64, I32]);
    /// A store in a replica: `(addr, src, size)`.
    pub const FT_STORE: Entry = e("dao_ft_store", None, &[Ptr, Ptr, I64]);
    /// memcpy/memmove in a replica: `(dst, src, n)`.
    pub const FT_COPY: Entry = e("dao_ft_copy", None, &[Ptr, Ptr, I64]);
    /// memset in a replica: `(dst, byte, n)`.
    pub const FT_SET: Entry = e("dao_ft_set", None, &[Ptr, I32, I64]);
    /// OpenMP offload (runtime/src/offload/): libomptarget's data mapping
    /// entry points (`__tgt_target_data_begin_mapper`, `_end_`, `_update_`)
    /// are routed to these (same signature), which record the device data
    /// environment and forward: `(ident, device, count, base pointers,
    /// pointers, sizes, map types, names, mappers)`.
    pub const TGT_DATA_BEGIN: Entry = e("dao_tgt_data_begin_mapper", None, &[Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr]);
    pub const TGT_DATA_END: Entry = e("dao_tgt_data_end_mapper", None, &[Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr]);
    pub const TGT_DATA_UPDATE: Entry = e("dao_tgt_data_update_mapper", None, &[Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr]);
    /// The `_nowait_mapper` forms (inside a `target ... nowait` task): the
    /// same and `(dep count, deps, noalias count, noalias deps)`.
    pub const TGT_DATA_BEGIN_NOWAIT: Entry = e("dao_tgt_data_begin_nowait_mapper", None, &[Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, I32, Ptr, I32, Ptr]);
    pub const TGT_DATA_END_NOWAIT: Entry = e("dao_tgt_data_end_nowait_mapper", None, &[Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, I32, Ptr, I32, Ptr]);
    pub const TGT_DATA_UPDATE_NOWAIT: Entry = e("dao_tgt_data_update_nowait_mapper", None, &[Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, I32, Ptr, I32, Ptr]);
    /// Replaces `__tgt_target_kernel(ident, device, teams, threads, host
    /// region id, kernel args)` (same signature): the kernel's time.
    pub const TGT_KERNEL: Entry = e("dao_tgt_target_kernel", Some(I32), &[Ptr, I64, I32, I32, Ptr, Ptr]);
    /// Replace the OpenMP device memory routines (same signatures): device
    /// memory whose address the program holds cannot be put back at the
    /// same device address, so a checkpoint is refused while it is live.
    pub const OMP_TARGET_ALLOC: Entry = e("dao_omp_target_alloc", Some(Ptr), &[I64, I32]);
    pub const OMP_TARGET_FREE: Entry = e("dao_omp_target_free", None, &[Ptr, I32]);
    pub const OMP_TARGET_ASSOCIATE_PTR: Entry = e("dao_omp_target_associate_ptr", Some(I32), &[Ptr, Ptr, I64, I64, I32]);
    pub const OMP_TARGET_DISASSOCIATE_PTR: Entry = e("dao_omp_target_disassociate_ptr", Some(I32), &[Ptr, I32]);
    pub const LLVM_TARGET_ALLOC_HOST: Entry = e("dao_llvm_omp_target_alloc_host", Some(Ptr), &[I64, I32]);
    pub const LLVM_TARGET_ALLOC_SHARED: Entry = e("dao_llvm_omp_target_alloc_shared", Some(Ptr), &[I64, I32]);
    pub const LLVM_TARGET_ALLOC_DEVICE: Entry = e("dao_llvm_omp_target_alloc_device", Some(Ptr), &[I64, I32]);
    /// Replaces `__kmpc_omp_target_task_alloc` (same signature): a `target
    /// ... nowait` task, in flight until a checkpoint waits for it.
    pub const OMP_TARGET_TASK_NEW: Entry = e("dao_omp_target_task_new", Some(Ptr), &[Ptr, I32, I32, I64, I64, Ptr, I64]);

    pub const ALL: &[Entry] = &[
        REGISTER_MODULE,
        FRAME_RESTORE,
        CANDIDATE,
        FORCED,
        MAIN,
        THREAD_START,
        OMP_FORK,
        OMP_JOIN,
        OMP_BEGIN,
        OMP_END,
        OMP_PARK,
        OMP_UNPARK,
        OMP_HOLD_BEGIN,
        OMP_HOLD_END,
        OMP_SINGLE,
        OMP_SINGLE_MASTER,
        THREADPRIVATE_CACHED,
        OMP_GUARD_WAIT,
        MALLOC,
        CALLOC,
        REALLOC,
        FREE,
        ALIGNED_ALLOC,
        POSIX_MEMALIGN,
        STRDUP,
        STRNDUP,
        FRAME_ENTER,
        FRAME_LEAVE,
        OMP_TASK_NEW,
        OMP_TASK_DONE,
        OMP_TASKLOOP,
        OMP_TASKLOOP_5,
        OMP_TASKGROUP,
        OMP_END_TASKGROUP,
        FT_TASK,
        FT_LOAD,
        FT_STORE,
        FT_COPY,
        FT_SET,
        TGT_DATA_BEGIN,
        TGT_DATA_END,
        TGT_DATA_UPDATE,
        TGT_DATA_BEGIN_NOWAIT,
        TGT_DATA_END_NOWAIT,
        TGT_DATA_UPDATE_NOWAIT,
        TGT_KERNEL,
        OMP_TARGET_ALLOC,
        OMP_TARGET_FREE,
        OMP_TARGET_ASSOCIATE_PTR,
        OMP_TARGET_DISASSOCIATE_PTR,
        LLVM_TARGET_ALLOC_HOST,
        LLVM_TARGET_ALLOC_SHARED,
        LLVM_TARGET_ALLOC_DEVICE,
        OMP_TARGET_TASK_NEW,
    ];
}

/// A global variable of the contract.
#[derive(Clone, Copy, Debug)]
pub struct Global {
    pub name: &'static str,
    pub ty: Ty,
    /// Defined by the runtime (`true`), or by every instrumented module as a
    /// `linkonce_odr` hidden initial-exec thread-local (`false`).
    pub in_runtime: bool,
}

/// The globals of the contract.
pub mod global {
    use super::{Global, Ty};
    /// Set while a restart is rebuilding the chains; read at every
    /// instrumented function's entry.
    pub const RESTART_PENDING: Global = Global { name: "dao_restart_pending", ty: Ty::I8, in_runtime: true };
    /// Raised by the master to start a checkpoint round in a region.
    pub const OMP_REQUEST: Global = Global { name: "dao_omp_request", ty: Ty::I8, in_runtime: true };
    /// Non-zero while a non-blocking round is saving shared state.
    pub const OMP_GUARD: Global = Global { name: "dao_omp_guard", ty: Ty::I8, in_runtime: true };
    /// The calling thread's chain top (thread-local, per module).
    pub const TLS_TOP: Global = Global { name: "dao_tls_top", ty: Ty::Ptr, in_runtime: false };
    /// The calling thread's marker countdown (thread-local, per module,
    /// initial value `i64::MAX`).
    pub const TLS_POLL: Global = Global { name: "dao_tls_poll", ty: Ty::I64, in_runtime: false };
    pub const ALL: &[Global] = &[RESTART_PENDING, OMP_REQUEST, OMP_GUARD, TLS_TOP, TLS_POLL];
}

/// The prefix of every name the runtime and the pass's own emitted symbols
/// use; functions with it are never instrumented.
pub const PREFIX: &str = "dao_";

/// Check a `#[repr(C)]` mirror against a layout: exactly the layout's fields,
/// in order, at the layout's offsets, and the layout's size (used by the
/// runtime's tests).
#[macro_export]
macro_rules! check_layout {
    ($ty:ty, $layout:expr, $($field:ident),+) => {{
        let l: $crate::Layout = $layout;
        let names = [$(stringify!($field)),+];
        assert_eq!(names.len(), l.fields.len(), "{}: field count", l.c_name);
        let offs = l.offsets();
        let real = [$(std::mem::offset_of!($ty, $field) as u64),+];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(*n, l.fields[i].name, "{}: field {i}", l.c_name);
            assert_eq!(real[i], offs[i], "{}.{n}: offset", l.c_name);
        }
        assert_eq!(std::mem::size_of::<$ty>() as u64, l.size(), "{}: size", l.c_name);
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sizes() {
        // the numbers the runtime asserted before this crate existed
        assert_eq!(
            [
                VAR_DESC.size(),
                SITE_DESC.size(),
                FUNC_DESC.size(),
                MODULE_DESC.size(),
                FRAME.size(),
                COND_DESC.size(),
                BOX_DESC.size(),
                BOX_DIM.size(),
                HEAP_DESC.size()
            ],
            [40, 184, 72, 160, 40, 88, 48, 48, 32]
        );
        assert_eq!(SITE_DESC.offsets()[SITE_DESC.index("globals")], 64);
    }

    #[test]
    fn names_are_unique_and_prefixed() {
        let mut names: Vec<&str> = entry::ALL.iter().map(|e| e.name).chain(global::ALL.iter().map(|g| g.name)).collect();
        assert!(names.iter().all(|n| n.starts_with(PREFIX)));
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
        for k in SiteKind::ALL {
            assert_eq!(SiteKind::from_u32(k as u32), Some(k));
        }
        assert_eq!(SiteKind::from_u32(0), None);
    }
}
