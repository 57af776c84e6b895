//! The plain data of one checkpoint, as written and as read back.
//!
//! Byte payloads and names are `Cow`s so that the runtime can describe program
//! memory without copying it (`Cow::Borrowed`), while a decoded file either
//! borrows from the file bytes or owns its data (`into_owned`).
use std::borrow::Cow;

/// Header flag: the checkpoint was taken with DAO_SAVE=all (save everything).
pub const FLAG_SAVE_ALL: u32 = 1 << 0;
/// Header flag: every allocated heap block was saved (DAO_HEAP=all or DAO_SAVE=all).
pub const FLAG_HEAP_ALL: u32 = 1 << 1;
/// Header flag: a *skeleton*, the metadata of a checkpoint stored by the
/// storage engine (dao-store): every byte payload of program memory is
/// replaced by a reference (its length and a key, see `wire.rs`); the bytes
/// are regions of the store, keyed the same way.
pub const FLAG_SKELETON: u32 = 1 << 2;
/// Key of the heap allocator's metadata in a skeleton and in the store (no
/// program object lies at this address).
pub const META_KEY: u64 = u64::MAX;

/// Identity of the run and of the executable that wrote the checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `FLAG_*` bits.
    pub flags: u32,
    /// xxh3-64 of the executable file.
    pub binary_hash: u64,
    /// Size in bytes of the executable file.
    pub binary_size: u64,
    /// Address the executable image was loaded at (restart requires the same).
    pub image_base: u64,
    /// Random per fresh run; a restarted run keeps the id of the run it resumed.
    pub run_id: u64,
    /// Sequence number of this checkpoint within the run (1, 2, ...).
    pub seq: u64,
    /// Number of threads whose state the checkpoint holds.
    pub threads: u32,
    /// Process id of the writer.
    pub pid: u32,
    /// Unix time (seconds) the checkpoint was written.
    pub timestamp: u64,
}

/// Counters of the runtime carried across a restart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuntimeState {
    /// Candidates (dao_potential_checkpoint) reached so far, this one included.
    pub candidates: u64,
    /// Checkpoints written so far by the run, this one included.
    pub checkpoints: u64,
    /// Offset of fd 1 when it is a regular file, else -1.
    pub stdout_offset: i64,
    /// Offset of fd 2 when it is a regular file, else -1.
    pub stderr_offset: i64,
}

/// A saved SSA slot of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot<'a> {
    /// Index into the function's slot table.
    pub index: u32,
    pub name: Cow<'a, str>,
    pub loc: Option<Cow<'a, str>>,
    pub bytes: Cow<'a, [u8]>,
}

/// A saved stack object (alloca) of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackObject<'a> {
    /// Index into the function's alloca table.
    pub index: u32,
    pub name: Cow<'a, str>,
    pub loc: Option<Cow<'a, str>>,
    pub addr: u64,
    pub bytes: Cow<'a, [u8]>,
}

/// One activation on the label stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// Symbol name of the function.
    pub function: Cow<'a, str>,
    pub module_hash: u64,
    /// 1-based site index the frame is at.
    pub site: u32,
    /// Address of the frame's `dao_frame` record.
    pub frame_addr: u64,
    pub slots: Vec<Slot<'a>>,
    pub stack_objects: Vec<StackObject<'a>>,
}

impl Frame<'_> {
    /// Copies every borrowed field.
    pub fn into_owned(self) -> Frame<'static> {
        Frame {
            function: own(self.function),
            module_hash: self.module_hash,
            site: self.site,
            frame_addr: self.frame_addr,
            slots: self.slots.into_iter().map(|s| Slot { index: s.index, name: own(s.name), loc: s.loc.map(own), bytes: own(s.bytes) }).collect(),
            stack_objects: self
                .stack_objects
                .into_iter()
                .map(|o| StackObject { index: o.index, name: own(o.name), loc: o.loc.map(own), addr: o.addr, bytes: own(o.bytes) })
                .collect(),
        }
    }
}

/// A saved global variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global<'a> {
    pub module_hash: u64,
    /// Index into the module's global table.
    pub index: u32,
    pub name: Cow<'a, str>,
    pub loc: Option<Cow<'a, str>>,
    pub addr: u64,
    pub bytes: Cow<'a, [u8]>,
    /// Why it is saved (format 6; the pass's or the runtime's words: "read
    /// first by the loop at bt.c:40"), for the globals of at least 64 KiB
    /// whose saving a walked site or the runtime explains.
    pub why: Option<Cow<'a, str>>,
}

/// A defined global of an instrumented module that the checkpoint does not
/// hold whole (format 5): dead at the checkpoint (no thread's continuation
/// may read those bytes before rewriting them), so it is not saved, or saved
/// only in the `saved` bytes of its records in `globals`. After a restart it
/// exists at its address with unspecified contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadGlobal<'a> {
    pub module_hash: u64,
    /// Index into the module's global table.
    pub index: u32,
    pub name: Cow<'a, str>,
    pub size: u64,
    /// Bytes of it the checkpoint holds (its live ranges); 0: none.
    pub saved: u64,
    /// What rewrites it first on the paths from the checkpoint (the pass's
    /// words: "the loop at bt.c:420"), when a saved frame's site says so.
    pub why: Option<Cow<'a, str>>,
}

impl DeadGlobal<'_> {
    /// Copies every borrowed field.
    pub fn into_owned(self) -> DeadGlobal<'static> {
        DeadGlobal { module_hash: self.module_hash, index: self.index, name: own(self.name), size: self.size, saved: self.saved, why: self.why.map(own) }
    }
}

/// An allocated heap block: its payload address and size, and the payload
/// bytes when they were saved (None: allocated but unreachable at the
/// checkpoint, so its contents are not needed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapBlock<'a> {
    pub addr: u64,
    pub size: u64,
    pub bytes: Option<Cow<'a, [u8]>>,
}

/// The heap: the allocator's metadata (opaque to this crate), every
/// allocated block in address order, and the heap objects the pass named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Heap<'a> {
    pub meta: Cow<'a, [u8]>,
    pub blocks: Vec<HeapBlock<'a>>,
    /// The heap objects (format 9; empty when read from older files): one
    /// per valid heap record of a registered module at the checkpoint.
    pub objects: Vec<HeapObject<'a>>,
}

/// A heap object (format 9): the block of one allocation call in `main`
/// that the pass follows (ABI 14, `dao_heap_desc`), as its module's record
/// named it at the checkpoint. `saved` is false for a block left out
/// because it was dead in every walked frame of its module (no thread reads
/// it before rewriting it: after a restart it exists at `addr` with
/// unspecified contents). A restart writes `addr` and `size` back into the
/// module's record, since the allocation call is not executed again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapObject<'a> {
    pub module_hash: u64,
    /// `k`: the index into the module's heap records (object index
    /// `n_globals + k` of its sites' lists).
    pub index: u32,
    pub name: Cow<'a, str>,
    pub loc: Option<Cow<'a, str>>,
    /// The block's payload address.
    pub addr: u64,
    /// The bytes the program asked for.
    pub size: u64,
    /// Whether the checkpoint holds the block's bytes.
    pub saved: bool,
    /// Left out: what rewrites it first after the checkpoint (the pass's
    /// `dead_why`); saved and at least 64 KiB: why it is kept (`kept_why`);
    /// when a walked site of its module says.
    pub why: Option<Cow<'a, str>>,
}

impl HeapObject<'_> {
    /// Copies every borrowed field.
    pub fn into_owned(self) -> HeapObject<'static> {
        HeapObject { module_hash: self.module_hash, index: self.index, name: own(self.name), loc: self.loc.map(own), addr: self.addr, size: self.size, saved: self.saved, why: self.why.map(own) }
    }
}

/// OpenMP state of the checkpoint: the team around the candidate (if any)
/// and the master's internal control variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OmpState {
    /// Threads in the team running the region that holds the candidate;
    /// 0 when the checkpoint was taken outside any parallel region.
    pub team_size: u32,
    /// omp_get_max_threads() of the master (0: OpenMP not loaded).
    pub nthreads: u32,
    pub dynamic: u32,
    pub max_active_levels: u32,
    pub sched_kind: u32,
    pub sched_chunk: i32,
    /// `single` constructs of the region: the highest instance (counted per
    /// thread from the region's start) that some thread had already won,
    /// and how many the master had encountered. A restart skips instances
    /// already won (runtime/src/omp/singles.rs).
    pub singles_won: u64,
    pub master_singles: u64,
}

/// Where a worker thread stood when the checkpoint was taken.
pub const WORKER_AT_CANDIDATE: u32 = 1;
pub const WORKER_AT_BARRIER: u32 = 2;
pub const WORKER_EXITED: u32 = 3;
/// Outside a region: an idle worker, saved for its thread-local values.
pub const WORKER_IDLE: u32 = 4;

/// A thread-local (threadprivate) value of one thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsValue<'a> {
    pub module_hash: u64,
    pub index: u32,
    pub name: Cow<'a, str>,
    pub bytes: Cow<'a, [u8]>,
}

/// A worker's copy of a threadprivate variable of flang's kind
/// (`__kmpc_threadprivate_cached`): it lives in the runtime's fixed-address
/// threadprivate arena, so it is put back at `addr` after a restart and the
/// worker's pointers into it stay valid. `bytes` is None when the copy is
/// not live at the checkpoint (its address is still kept for the worker).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpCopy<'a> {
    pub name: Cow<'a, str>,
    /// Address of the original variable (the master's copy).
    pub var: u64,
    /// Address of this worker's copy.
    pub addr: u64,
    pub size: u64,
    pub bytes: Option<Cow<'a, [u8]>>,
}

impl TpCopy<'_> {
    /// Copies every borrowed field.
    pub fn into_owned(self) -> TpCopy<'static> {
        TpCopy { name: own(self.name), var: self.var, addr: self.addr, size: self.size, bytes: self.bytes.map(own) }
    }
}

/// A worker thread of the team: its own label stack (outermost first: the
/// outlined function of the region) and its thread-local values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker<'a> {
    /// omp_get_thread_num() in the team.
    pub thread: u32,
    /// WORKER_* above.
    pub state: u32,
    /// `single` instances this thread had encountered in the region.
    pub singles: u64,
    pub chain: Vec<Frame<'a>>,
    pub tls: Vec<TlsValue<'a>>,
    /// Its copies of flang's threadprivate variables (format 4).
    pub tp: Vec<TpCopy<'a>>,
}

/// A mapped range of an OpenMP offload device (format 7): `size` bytes of
/// the host at `addr` have a device copy on device `device`, present with
/// these reference counts (libomptarget's dynamic and `ompx_hold` counts).
/// A restart maps the range again (same host address, same counts, same
/// device) and copies `bytes` to the device copy; `bytes` is None when the
/// device copy is dead at the checkpoint (it is then left as allocated, or
/// poisoned under DAO_DEAD=poison), and when `from_host` is true.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRegion<'a> {
    /// The device number (`omp_get_num_devices()` numbering).
    pub device: i32,
    pub addr: u64,
    pub size: u64,
    /// The map type of the mapping that created it (`OMP_TGT_MAPTYPE_*`).
    pub map_type: u64,
    pub dyn_refs: u64,
    pub hold_refs: u64,
    /// The variable, as the compiler named it in the map clause.
    pub name: Option<Cow<'a, str>>,
    pub bytes: Option<Cow<'a, [u8]>>,
    /// The device copy held exactly the bytes this checkpoint saves of the
    /// host at `addr` (format 10; `bytes` is then None): they are stored
    /// once, as the host's (a global's or a heap block's), and a restart
    /// copies them from the restored host memory to the device copy.
    pub from_host: bool,
}

impl DeviceRegion<'_> {
    /// Copies every borrowed field.
    pub fn into_owned(self) -> DeviceRegion<'static> {
        DeviceRegion {
            device: self.device,
            addr: self.addr,
            size: self.size,
            map_type: self.map_type,
            dyn_refs: self.dyn_refs,
            hold_refs: self.hold_refs,
            name: self.name.map(own),
            bytes: self.bytes.map(own),
            from_host: self.from_host,
        }
    }
}

/// A whole checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoint<'a> {
    pub header: Header,
    pub runtime: RuntimeState,
    /// The label stack, outermost frame first.
    pub chain: Vec<Frame<'a>>,
    pub omp: OmpState,
    /// The master's thread-local values.
    pub master_tls: Vec<TlsValue<'a>>,
    pub workers: Vec<Worker<'a>>,
    pub globals: Vec<Global<'a>>,
    /// The defined globals not saved whole, and why (format 5; empty when
    /// read from format 4, or under DAO_SAVE=all).
    pub dead: Vec<DeadGlobal<'a>>,
    pub heap: Heap<'a>,
    /// The mapped ranges of offload devices (format 7; empty before).
    pub devices: Vec<DeviceRegion<'a>>,
}

fn own<T: ?Sized + ToOwned>(c: Cow<'_, T>) -> Cow<'static, T> {
    Cow::Owned(c.into_owned())
}

impl TlsValue<'_> {
    /// Copies every borrowed field.
    pub fn into_owned(self) -> TlsValue<'static> {
        TlsValue { module_hash: self.module_hash, index: self.index, name: own(self.name), bytes: own(self.bytes) }
    }
}

fn own_tls(v: Vec<TlsValue<'_>>) -> Vec<TlsValue<'static>> {
    v.into_iter().map(TlsValue::into_owned).collect()
}

impl Checkpoint<'_> {
    /// Copies every borrowed field so the checkpoint outlives its source bytes.
    pub fn into_owned(self) -> Checkpoint<'static> {
        Checkpoint {
            header: self.header,
            runtime: self.runtime,
            omp: self.omp,
            master_tls: own_tls(self.master_tls),
            workers: self
                .workers
                .into_iter()
                .map(|w| Worker {
                    thread: w.thread,
                    state: w.state,
                    singles: w.singles,
                    chain: w.chain.into_iter().map(Frame::into_owned).collect(),
                    tls: own_tls(w.tls),
                    tp: w.tp.into_iter().map(TpCopy::into_owned).collect(),
                })
                .collect(),
            chain: self
                .chain
                .into_iter()
                .map(|f| Frame {
                    function: own(f.function),
                    module_hash: f.module_hash,
                    site: f.site,
                    frame_addr: f.frame_addr,
                    slots: f
                        .slots
                        .into_iter()
                        .map(|s| Slot {
                            index: s.index,
                            name: own(s.name),
                            loc: s.loc.map(own),
                            bytes: own(s.bytes),
                        })
                        .collect(),
                    stack_objects: f
                        .stack_objects
                        .into_iter()
                        .map(|o| StackObject {
                            index: o.index,
                            name: own(o.name),
                            loc: o.loc.map(own),
                            addr: o.addr,
                            bytes: own(o.bytes),
                        })
                        .collect(),
                })
                .collect(),
            globals: self
                .globals
                .into_iter()
                .map(|g| Global {
                    module_hash: g.module_hash,
                    index: g.index,
                    name: own(g.name),
                    loc: g.loc.map(own),
                    addr: g.addr,
                    bytes: own(g.bytes),
                    why: g.why.map(own),
                })
                .collect(),
            dead: self.dead.into_iter().map(DeadGlobal::into_owned).collect(),
            devices: self.devices.into_iter().map(DeviceRegion::into_owned).collect(),
            heap: Heap {
                meta: own(self.heap.meta),
                blocks: self
                    .heap
                    .blocks
                    .into_iter()
                    .map(|b| HeapBlock { addr: b.addr, size: b.size, bytes: b.bytes.map(own) })
                    .collect(),
                objects: self.heap.objects.into_iter().map(HeapObject::into_owned).collect(),
            },
        }
    }
}
