/* dao_abi.h -- the contract between the dao pass (which emits these structures
 * and calls into IR) and the dao runtime (which implements the calls).
 *
 * Users never include this file. It documents the ABI for C readers. The
 * contract itself is defined once, in the Rust crate dao-abi (abi/src/lib.rs):
 * the pass (pass/plugin/src/emit.rs) builds its layouts and declarations from
 * it, the runtime (runtime/src/abi.rs) re-exports its #[repr(C)] mirrors.
 * abi/tests/header.rs checks this file against that crate (constants,
 * fields and their C offsets, entry-point signatures, globals), so a change
 * on one side only fails a test. Bump DAO_ABI_VERSION on any change.
 *
 * Model: "address-preserving restart".
 *   - Globals stay at the same address (the executable is linked non-PIE;
 *     the runtime checks the image base at restart).
 *   - Heap blocks allocated by instrumented code come from the runtime's
 *     fixed-address heap (the pass rewrites malloc/calloc/realloc/free/...
 *     to dao_malloc/...), so they are restored at their old addresses.
 *   - main runs on a fixed-address stack (dao_main), and a restart re-executes
 *     the recorded call chain, so every frame on the chain is rebuilt at its
 *     old address. (Variable-size stack allocation on the chain is rejected
 *     at compile time because it would break this.)
 *   Hence no pointer is ever relocated: memory is saved and restored as bytes.
 */
#ifndef DAO_ABI_H
#define DAO_ABI_H
#include <stdint.h>

#define DAO_ABI_VERSION 14

/* One saved thing: an SSA slot, a stack object or a global. */
typedef struct dao_var_desc {
    const char *name;   /* source-level name if known, else the IR name; never NULL */
    const char *loc;    /* "file.c:12" from debug info, or NULL */
    uint64_t size;      /* bytes */
    uint64_t offset;    /* slots: byte offset in the frame's slot area; allocas: index
                           in the frame's alloca table; globals: 0 if defined by this
                           module, DAO_GLOBAL_DECLARED if only declared here (the
                           runtime saves it only when a registered module defines
                           a global at that address: libc's stderr never is) */
    void *addr;         /* globals: the address; slots/allocas: NULL */
} dao_var_desc;

#define DAO_GLOBAL_DECLARED 1
/* dao_var_desc.offset of an entry of the module's tp table (flang's
 * threadprivate, __kmpc_threadprivate_cached): a parallel region may read a
 * worker's copy before writing it whole, so the workers' copies carry
 * values from region to region and are saved. */
#define DAO_TP_IN_REGION 1

enum dao_site_kind {
    DAO_SITE_CALL = 1,   /* a call that may reach a marker */
    DAO_SITE_MARKER = 2, /* dao_potential_checkpoint() */
    DAO_SITE_FORCED = 3, /* dao_checkpoint_now() */
    DAO_SITE_FORK = 4,   /* __kmpc_fork_call of a region that reaches a marker;
                            callee = the outlined function; executed again */
    DAO_SITE_SYNC = 5,   /* a barrier in parallel code (executed again) */
    DAO_SITE_EXIT = 6,   /* the end of an outlined function */
};

enum dao_site_flags {
    /* The continuation may read memory the pass cannot name (unknown
       callee, load through an unknown pointer): the runtime must then save
       what the other modules' code may read (module->escaped_globals). Those of the site's own module that such
       a read may reach are in the site's globals list already, unless a
       must-write before the read kills them (since version 8). */
    DAO_SITE_UNKNOWN_READS = 1u << 0,
};

enum dao_module_flags {
    /* the pass put shared-write guards in the module's code (non-blocking
       checkpoint rounds possible; DAO_GUARDS=0 at compile time omits them) */
    DAO_MODULE_GUARDED = 1u << 0,
};

/* A label: a call site on a path to a marker, or a marker. */
typedef struct dao_site_desc {
    uint32_t kind;        /* enum dao_site_kind */
    uint32_t flags;       /* enum dao_site_flags */
    const char *loc;      /* "file.c:12" or NULL */
    const char *callee;   /* DAO_SITE_CALL with a direct callee: its symbol; else NULL */
    uint32_t n_slots;     /* live SSA values at this site ... */
    const uint32_t *slots;     /* ... as indices into func->slots */
    uint32_t n_allocas;   /* live stack objects ... */
    const uint32_t *allocas;   /* ... as indices into func->allocas */
    uint32_t n_globals;   /* globals live in this function's continuation ... */
    const uint32_t *globals;   /* ... as indices into func->module->globals */
    uint32_t n_parts;     /* byte ranges of the globals above live only in part ... */
    const uint64_t *parts;     /* ... n_parts triples (global index, first byte, end byte),
                                  by index then offset; a global with none is live whole */
    uint32_t n_cdead;     /* globals live here unless their runtime-checked conditions ... */
    const uint32_t *cdead;     /* ... (module->conds) all hold: indices into module->globals */
    uint32_t n_dead;      /* candidates: defined globals dead after the site that the
                             function rewrites first ... */
    const uint32_t *dead;      /* ... as indices into module->globals, */
    const char *const *dead_why; /* ... and what rewrites each first ("the loop at
                                    a.c:12"), for dao inspect */
    uint32_t n_kept;      /* candidates (ABI 10): globals of at least 64 KiB live after
                             the site ... */
    const uint32_t *kept;      /* ... as indices into module->globals, */
    const char *const *kept_why; /* ... and why each is kept ("read first by the
                                    loop at a.c:40"), for dao inspect */
    uint32_t n_cboxes;    /* ABI 12: parts of globals in `globals` dead here when their
                             runtime-checked conditions all hold ... */
    const uint32_t *cboxes;    /* ... as indices into module->boxes */
    uint32_t n_ddead;     /* ABI 13: globals whose device copies (OpenMP offload) are dead
                             here: a mapped range inside one is neither copied back nor
                             saved when every frame of the chain lists it ... */
    const uint32_t *ddead;     /* ... as indices into module->globals */
} dao_site_desc;

/* A runtime-checked condition of a conditional kill (a loop whose extent is
   read from a global rewrites `object` whole when that extent is large
   enough): `object` is dead at a site listing it in cdead when, for each of
   its conditions, the `bytes`-wide integer V at byte `offset` of global
   `global` (signed when is_signed) lies in [min, max]. ABI 14: with cover
   > 0 (heap objects only), V (0 when global is UINT32_MAX) lies in [0, max],
   so does W (global2, offset2, bytes2, is_signed2) when global2 is not
   UINT32_MAX, and cover * (V + add) * F + min is at least the heap object's
   size instead, F = W + add2 (1 when global2 is UINT32_MAX). */
typedef struct dao_cond_desc {
    uint32_t object;      /* index into module->globals; from n_globals on, heaps[object - n_globals] (ABI 14) */
    uint32_t global;      /* index into module->globals: where the value is */
    int64_t offset;
    uint32_t bytes;       /* 1, 2, 4 or 8 */
    uint32_t is_signed;
    int64_t min;
    int64_t max;
    int64_t cover;        /* 0: a range; > 0: a heap object's cover (ABI 14) */
    int64_t add;          /* a cover's first count: V + add */
    uint32_t global2;     /* a cover's second factor, or UINT32_MAX */
    uint32_t bytes2;
    int64_t offset2;
    uint32_t is_signed2;
    uint32_t reserved;
    int64_t add2;         /* the second factor: W + add2 */
} dao_cond_desc;

/* One step of a box: `stride` bytes, `count` times; or, when `global` is not
   UINT32_MAX, max(count, add + the `bytes`-wide integer at byte `offset` of
   global `global`, signed when is_signed) times (a write box's count is 0, a
   read box's may be a floor). */
typedef struct dao_box_dim {
    int64_t stride;
    int64_t count;
    uint32_t global;      /* index into module->globals, or UINT32_MAX */
    uint32_t bytes;       /* 1, 2, 4 or 8 */
    int64_t offset;
    int64_t add;
    uint32_t is_signed;
    uint32_t reserved;
} dao_box_dim;

/* ABI 12: a box of bytes of global `object`: `size` bytes at byte `start`
   plus every combination of the steps in `dims`, whose counts may be read
   from globals when the checkpoint is taken. DAO_BOX_WRITE: a part a loop
   rewrites before any read when its conditions hold (the interior of an
   array whose extents are read from a global), dead at a site listing it in
   cboxes when each condition holds (their `object` field is unused).
   DAO_BOX_READ: one of the boxes every read of `object` lies in (an internal
   global whose address reaches only the reads the pass saw), valid when its
   conditions hold: the bytes outside all of them are never read. */
enum dao_box_kind {
    DAO_BOX_WRITE = 0,
    DAO_BOX_READ = 1,
};

typedef struct dao_box_desc {
    uint32_t object;      /* index into module->globals */
    uint32_t kind;        /* enum dao_box_kind */
    uint32_t n_dims;
    uint32_t n_conds;
    int64_t start;
    int64_t size;
    const dao_box_dim *dims;
    const dao_cond_desc *conds;
} dao_box_desc;

/* ABI 14: a heap object: the block of one allocation call in main that runs
   at most once per run and whose address stays in the module's code. The
   program writes addr and size (the bytes asked for) right after the call
   and sets addr to NULL before the block is freed. In a site's globals,
   cdead, dead and kept lists, index module->n_globals + k is heaps[k]: the
   runtime leaves its block out of a checkpoint when every walked frame of
   the module has it dead (not in globals, or in cdead with its conditions
   holding). */
typedef struct dao_heap_desc {
    const char *name;     /* the variable the pointer went to, or "heap" */
    const char *loc;      /* "file.c:12" of the allocation, or NULL */
    void *addr;           /* the block, written by the program; NULL: none */
    uint64_t size;        /* bytes asked for */
} dao_heap_desc;

typedef struct dao_module_desc dao_module_desc;

typedef struct dao_func_desc {
    const char *name;                 /* symbol name */
    const dao_module_desc *module;
    uint32_t n_sites;                 /* sites; frame->site = index + 1 */
    const dao_site_desc *sites;
    uint32_t n_slots;
    const dao_var_desc *slots;        /* offset = byte offset in slot area */
    uint32_t n_allocas;
    const dao_var_desc *allocas;      /* offset = index in frame alloca table */
    uint64_t slot_area_size;          /* bytes */
} dao_func_desc;

struct dao_module_desc {
    uint32_t abi_version;             /* DAO_ABI_VERSION */
    uint32_t flags;                   /* DAO_MODULE_GUARDED: shared-write guards inserted */
    uint64_t module_hash;             /* stable hash of the module's identity */
    const char *source_name;          /* source file name */
    uint32_t n_globals;               /* every global defined in the module */
    const dao_var_desc *globals;
    uint32_t n_escaped;               /* globals code outside the module's own sites may read:
                                         address escaped, or read before written whole by a
                                         function another module can enter (since version 9;
                                         declared ones resolved by address) ... */
    const uint32_t *escaped_globals;  /* ... as indices into globals; saved always when n_funcs
                                         is 0, else when another module's site reads unknown */
    uint32_t n_funcs;
    const dao_func_desc *funcs;
    uint32_t n_tls;                   /* thread-local (threadprivate) variables ... */
    const dao_var_desc *tls;          /* ... defined here (addr NULL) */
    void (*tls_addrs)(void **out);    /* writes the calling thread's addresses of them */
    uint32_t n_tp;                    /* threadprivate variables reached through ... */
    const dao_var_desc *tp;           /* ... __kmpc_threadprivate_cached here (addr = the
                                         original variable, offset = DAO_TP_* flags) */
    uint32_t n_conds;                 /* runtime-checked conditions of the sites' cdead */
    const dao_cond_desc *conds;
    uint32_t n_boxes;                 /* ABI 12: parts of globals rewritten under */
    const dao_box_desc *boxes;        /* runtime-checked conditions (sites' cboxes) */
    uint32_t n_heaps;                 /* ABI 14: heap objects; object index n_globals + k */
    dao_heap_desc *heaps;             /* of the sites' lists is heaps[k] (writable) */
};

/* One per activation of an instrumented function; lives in that function's
 * stack frame (an alloca). The pass fills func, allocas and slots at entry;
 * the runtime links parent. */
typedef struct dao_frame {
    struct dao_frame *parent;         /* set by dao_frame_enter */
    const dao_func_desc *func;
    uint32_t site;                    /* 1-based index of the site the frame is at; 0: none */
    uint32_t reserved;
    void **allocas;                   /* table of func->n_allocas stack-object addresses */
    void *slots;                      /* slot area of func->slot_area_size bytes */
} dao_frame;

/* ---- calls emitted by the pass ---- */

/* From a global constructor of every instrumented module. */
void dao_register_module(const dao_module_desc *m);

/* ---- the hot path, emitted inline by the pass ----
 *
 * Function entry (push) and every return (pop) touch only the calling
 * thread's chain top and one flag:
 *
 *     frame.parent = dao_tls_top; dao_tls_top = &frame;
 *     if (atomic_load_relaxed(&dao_restart_pending))
 *         if ((site = dao_frame_restore(&frame)) != 0) goto restore[site];
 *     ...
 *     dao_tls_top = frame.parent; return;
 *
 * `dao_tls_top` is defined by every instrumented module (linkonce_odr,
 * hidden, initial-exec TLS; the linker keeps one); the runtime never needs
 * it: dao_candidate and dao_frame_restore get the frame explicitly.
 *
 * A marker (dao_potential_checkpoint) becomes a countdown:
 *
 *     if (--dao_poll <= 0) { frame.site = k; spill live values; dao_candidate(&frame); }
 *
 * The runtime arms dao_poll with the number of candidates until it wants
 * to look again (INT64_MAX when checkpointing is off); see
 * runtime/src/policy.rs. Forced markers (dao_checkpoint_now) always call
 * dao_forced. */
extern _Atomic unsigned char dao_restart_pending;
/* The calling thread's chain top (see above; defined by the modules). */
extern _Thread_local dao_frame *dao_tls_top;
/* Thread-local countdown, defined by every instrumented module (linkonce_odr,
 * hidden, initial-exec TLS, initial value INT64_MAX); the runtime arms only
 * the main thread's, whose address the main adapter passes to dao_thread_start. */
extern _Thread_local long long dao_tls_poll;
/* Markers in code that may run inside a parallel region also check this
 * flag: `if (--dao_tls_poll <= 0 || dao_omp_request) dao_candidate(&frame)`. */
extern _Atomic unsigned char dao_omp_request;

/* During a restart: if `frame` (already pushed) is the next frame of the
 * recorded chain, copy its saved slots and stack objects in and return the
 * 1-based site to resume at: for a call site, the call is executed again;
 * for a marker or forced site, execution continues right after the runtime
 * call. Returns 0 when not restarting. A frame that does not match the
 * recorded chain is a fatal error ("restart diverged"). "Frame address"
 * everywhere means the address of the dao_frame record. */
uint32_t dao_frame_restore(dao_frame *frame);

/* Out-of-line equivalent of the inline push + restore above (used by
 * hand-written callers such as runtime/tests/abi/manual.c; the pass emits
 * the inline form). At entry of an instrumented function, after
 * frame->func/allocas/slots are set. Pushes the frame on the calling
 * thread's chain (the runtime's own thread-local top). Returns 0 normally;
 * during a restart, when this frame is the next one on the recorded chain,
 * the runtime has copied the saved slot area and stack-object contents into
 * the frame and returns the 1-based site to resume at. A frame that does not
 * match the recorded chain during a restart is a fatal error. */
uint32_t dao_frame_enter(dao_frame *frame);

/* Out-of-line pop, pairing with dao_frame_enter. */
void dao_frame_leave(dao_frame *frame);

/* At a marker: frame->site is set and the live slots are spilled. May write a
 * checkpoint. DAO_SITE_FORCED sites call dao_forced instead. */
void dao_candidate(dao_frame *frame);
void dao_forced(dao_frame *frame);

/* The pass renames the program's main to a private function and emits a new
 * main that calls this. Runs user_main on the fixed-address stack, restoring
 * globals and heap first when resuming. */
int dao_main(int argc, char **argv, char **envp,
             int (*user_main)(int, char **, char **));

/* Called first by the emitted main adapter, on the thread that runs the
 * program's main (dao_main starts it on the fixed stack): hands over that
 * thread's dao_tls_poll; on restart, puts back its ICVs and threadprivate
 * values. */
void dao_thread_start(long long *poll);

/* ---- OpenMP (runtime/src/omp/ and runtime/src/protocol/, whose README.md is the protocol) ----
 * dao_omp_fork / dao_omp_join: around a DAO_SITE_FORK fork call (after its
 *   push_num_threads), in the forking function.
 * dao_omp_begin: in an outlined function right after its frame is pushed
 *   (before the restart check); dao_omp_end: at each of its returns (after
 *   frame.site = its DAO_SITE_EXIT site).
 * dao_omp_park / dao_omp_unpark: around a DAO_SITE_SYNC barrier. */
void dao_omp_fork(dao_frame *frame);
void dao_omp_join(dao_frame *frame);
void dao_omp_begin(dao_frame *frame);
void dao_omp_end(dao_frame *frame);
void dao_omp_park(dao_frame *frame);
void dao_omp_unpark(dao_frame *frame);

/* In the outlined function of a region that runs a dynamic, guided, runtime
 * or ordered worksharing loop and reaches checkpoint markers only through
 * code of other files: dao_omp_hold_begin right after dao_omp_begin (where:
 * the loop's "file:line"), dao_omp_hold_end at each return, before
 * dao_omp_end. No checkpoint is taken while the master is between them; a
 * due one is taken at the next candidate after the region. */
void dao_omp_hold_begin(const char *where);
void dao_omp_hold_end(void);

/* Replaces every call of __kmpc_single (same signature): on restart, skips
 * the single blocks the thread's team already ran before the checkpoint. */
int dao_omp_single(void *ident, int gtid);

/* Replaces the __kmpc_single of a `single` block that reaches a checkpoint
 * marker (same signature): returns 1 on the team's thread 0 only, without
 * entering libomp, so the master runs the block (a conforming choice:
 * OpenMP leaves the thread unspecified) and a restart inside it puts the
 * same thread back. */
int dao_omp_single_master(void *ident, int gtid);

/* Replaces every call of __kmpc_threadprivate_cached (same signature): the
 * calling thread's copy of a threadprivate variable (flang's threadprivate
 * common blocks and module variables). The thread that runs main uses the
 * original variable; every other thread gets a copy in the runtime's
 * fixed-address threadprivate arena, initialised from the variable's value
 * at program start, so a restart gives each worker its copy back at the
 * same address. *cache is the runtime's per-variable table indexed by gtid. */
void *dao_threadprivate_cached(void *ident, int gtid, void *data, uint64_t size, void ***cache);

/* Shared-write guards of the non-blocking protocol (the pass emits them
 * before writes that may touch shared data and before lock acquisitions):
 *     if (atomic_load_acquire(&dao_omp_guard)) dao_omp_guard_wait();
 * dao_omp_guard is non-zero while a round saves shared state; the slow path
 * waits only if the calling thread has checked in for that round. */
extern _Atomic unsigned char dao_omp_guard;
void dao_omp_guard_wait(void);

/* Explicit tasks in flight (runtime/src/omp/tasks.rs): a checkpoint inside a
 * region waits until none is queued or running. dao_omp_task_new replaces
 * __kmpc_omp_task_alloc (same signature), dao_omp_taskloop(_5) replace
 * __kmpc_taskloop(_5) and dao_omp_(end_)taskgroup __kmpc_(end_)taskgroup
 * (same signatures: a nogroup taskloop's tasks end with the taskgroup
 * around it), and every task entry of an
 * instrumented module ends by calling dao_omp_task_done (through the pass's
 * trampoline), except the entries of taskloops. */
void *dao_omp_task_new(void *ident, int gtid, int flags, uint64_t sizeof_task, uint64_t sizeof_shareds, void *entry);
void dao_omp_task_done(void);
void dao_omp_taskloop(void *ident, int gtid, void *task, int if_val, void *lb, void *ub, int64_t st, int nogroup, int sched, uint64_t grainsize, void *task_dup);
void dao_omp_taskgroup(void *ident, int gtid);
void dao_omp_end_taskgroup(void *ident, int gtid);
void dao_omp_taskloop_5(void *ident, int gtid, void *task, int if_val, void *lb, void *ub, int64_t st, int nogroup, int sched, uint64_t grainsize, int modifier, void *task_dup);

/* OpenMP offload (ABI 11; runtime/src/offload/): libomptarget's data
 * mapping entry points and the OpenMP device memory routines are routed to
 * these (same signatures), which record the device data environment (the
 * mapped host ranges, their map types and reference counts, per device) and
 * forward to libomptarget, found with dlsym. A checkpoint copies every
 * mapped range's device copy back and saves it as a device region; a
 * restart maps the ranges again and copies the bytes to the device. */
void dao_tgt_data_begin_mapper(void *ident, int64_t device, int n, void **bases, void **ptrs, int64_t *sizes, int64_t *types, void **names, void **mappers);
void dao_tgt_data_end_mapper(void *ident, int64_t device, int n, void **bases, void **ptrs, int64_t *sizes, int64_t *types, void **names, void **mappers);
void dao_tgt_data_update_mapper(void *ident, int64_t device, int n, void **bases, void **ptrs, int64_t *sizes, int64_t *types, void **names, void **mappers);
void dao_tgt_data_begin_nowait_mapper(void *ident, int64_t device, int n, void **bases, void **ptrs, int64_t *sizes, int64_t *types, void **names, void **mappers, int ndeps, void *deps, int nnoalias, void *noalias);
void dao_tgt_data_end_nowait_mapper(void *ident, int64_t device, int n, void **bases, void **ptrs, int64_t *sizes, int64_t *types, void **names, void **mappers, int ndeps, void *deps, int nnoalias, void *noalias);
void dao_tgt_data_update_nowait_mapper(void *ident, int64_t device, int n, void **bases, void **ptrs, int64_t *sizes, int64_t *types, void **names, void **mappers, int ndeps, void *deps, int nnoalias, void *noalias);
int dao_tgt_target_kernel(void *ident, int64_t device, int teams, int threads, void *host_ptr, void *args);
void *dao_omp_target_alloc(uint64_t size, int device);
void dao_omp_target_free(void *p, int device);
int dao_omp_target_associate_ptr(void *host, void *dev, uint64_t size, uint64_t offset, int device);
int dao_omp_target_disassociate_ptr(void *host, int device);
void *dao_llvm_omp_target_alloc_host(uint64_t size, int device);
void *dao_llvm_omp_target_alloc_shared(uint64_t size, int device);
void *dao_llvm_omp_target_alloc_device(uint64_t size, int device);
/* A `target ... nowait` task (replaces __kmpc_omp_target_task_alloc, same
 * signature): a checkpoint outside a parallel region waits for such tasks
 * (taskwait); inside one it is deferred while any may be in flight. */
void *dao_omp_target_task_new(void *ident, int gtid, int flags, uint64_t sizeof_task, uint64_t sizeof_shareds, void *entry, int64_t device);

/* Fault-tolerant tasks (DAO_TASK_FT=dual, runtime/src/task_ft.rs). For every
 * task entry whose body (with its callees) can run against a write buffer,
 * the pass makes two replicas (buffered: stores, loads and mem* of
 * non-stack memory go through dao_ft_store/load/copy/set, loads only when
 * dao_ft_words says a running execution buffers the word; in place, for
 * DAO_TASK_FT=serial: stores, mem* and pointer loads); its trampoline (the
 * one every task entry gets, which ends with dao_omp_task_done) takes the
 * entry's place in __kmpc_omp_task_alloc and calls dao_ft_task: with
 * DAO_TASK_FT=dual the task runs twice (the second copy as a libomp task),
 * the buffers are compared, and the one two executions agree on is written
 * to memory; with serial, twice in place with an undo log; otherwise the
 * entry runs once as before.
 * kind of dao_ft_load: 0 a value, 1 a pointer. */
#define DAO_FT_WORDS_BITS 16
/* How many running executions buffer a word whose (address >> 3) & mask is
 * the index: a replica loads a word whose counter is 0 directly. */
extern _Atomic unsigned int dao_ft_words[1 << DAO_FT_WORDS_BITS];
void dao_ft_task(int gtid, void *task, void *entry, void *replica, void *in_place, uint64_t sizeof_task, uint64_t sizeof_shareds);
void dao_ft_load(void *addr, void *dst, uint64_t size, int kind);
void dao_ft_store(void *addr, void *src, uint64_t size);
void dao_ft_copy(void *dst, void *src, uint64_t n);
void dao_ft_set(void *dst, int byte, uint64_t n);

/* The fixed-address heap (the pass rewrites the libc names to these). A
 * pointer not from this heap passed to free/realloc is forwarded to libc. */
void *dao_malloc(uint64_t size);
void *dao_calloc(uint64_t n, uint64_t size);
void *dao_realloc(void *p, uint64_t size);
void dao_free(void *p);
void *dao_aligned_alloc(uint64_t align, uint64_t size);
int dao_posix_memalign(void **out, uint64_t align, uint64_t size);
char *dao_strdup(const char *s);
char *dao_strndup(const char *s, uint64_t n);

#endif /* DAO_ABI_H */
