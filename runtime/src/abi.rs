//! Rust mirrors of the descriptors the pass emits (`dao_abi.h`), field for
//! field. The contract itself (version, site kinds and flags, the layouts'
//! field tables, the entry points) is defined once in the `dao-abi` crate
//! (`abi/src/lib.rs`) and re-exported here; the test at the bottom checks
//! these mirrors against its layouts, and `runtime/tests/abi_symbols.rs`
//! checks that this library defines every entry point and global it lists.
//!
//! The pass emits these as constant data and stack records; the runtime only
//! reads them (and writes `dao_frame::parent`), except the heap records
//! (`dao_heap_desc`, ABI 14), which the program writes and a restart writes
//! back.
use std::os::raw::c_char;

pub use dao_abi::{
    SiteKind, DAO_ABI_VERSION, DAO_BOX_READ, DAO_BOX_WRITE, DAO_GLOBAL_DECLARED, DAO_MODULE_GUARDED, DAO_TP_IN_REGION, DAO_SITE_CALL, DAO_SITE_EXIT, DAO_SITE_FORCED, DAO_SITE_FORK, DAO_SITE_MARKER,
    DAO_SITE_SYNC, DAO_SITE_UNKNOWN_READS,
};

#[repr(C)]
#[derive(Debug)]
pub struct DaoVarDesc {
    pub name: *const c_char,
    pub loc: *const c_char,
    pub size: u64,
    pub offset: u64,
    pub addr: *mut u8,
}

#[repr(C)]
#[derive(Debug)]
pub struct DaoSiteDesc {
    pub kind: u32,
    pub flags: u32,
    pub loc: *const c_char,
    pub callee: *const c_char,
    pub n_slots: u32,
    pub slots: *const u32,
    pub n_allocas: u32,
    pub allocas: *const u32,
    pub n_globals: u32,
    pub globals: *const u32,
    pub n_parts: u32,
    pub parts: *const u64,
    /// Globals (module indices) live here unless every condition of them
    /// in the module's `conds` holds when the checkpoint is taken.
    pub n_cdead: u32,
    pub cdead: *const u32,
    /// Candidates: defined globals (module indices) dead after the site
    /// that the function rewrites first, and what rewrites each first
    /// (parallel arrays; for `dao inspect`).
    pub n_dead: u32,
    pub dead: *const u32,
    pub dead_why: *const *const c_char,
    /// Candidates (ABI 10): globals (module indices) of at least 64 KiB
    /// live after the site, and why each is kept (parallel arrays; for
    /// `dao inspect`).
    pub n_kept: u32,
    pub kept: *const u32,
    pub kept_why: *const *const c_char,
    /// ABI 12: boxes (module indices) of globals in `globals` whose bytes
    /// are dead here when their conditions hold.
    pub n_cboxes: u32,
    pub cboxes: *const u32,
    /// ABI 13: defined globals (module indices) whose device copies are
    /// dead here (OpenMP offload): a mapped range inside one is neither
    /// copied back nor saved when every frame of the chain lists it.
    pub n_ddead: u32,
    pub ddead: *const u32,
}

/// A part of a global rewritten under runtime-checked conditions
/// (`dao_box_desc`, ABI 12).
#[repr(C)]
#[derive(Debug)]
pub struct DaoBoxDesc {
    pub object: u32,
    /// DAO_BOX_WRITE or DAO_BOX_READ.
    pub kind: u32,
    pub n_dims: u32,
    pub n_conds: u32,
    pub start: i64,
    pub size: i64,
    pub dims: *const DaoBoxDim,
    pub conds: *const DaoCondDesc,
}

/// One step of a box (`dao_box_dim`).
#[repr(C)]
#[derive(Debug)]
pub struct DaoBoxDim {
    pub stride: i64,
    pub count: i64,
    pub global: u32,
    pub bytes: u32,
    pub offset: i64,
    pub add: i64,
    pub is_signed: u32,
    pub reserved: u32,
}

/// A runtime-checked condition (`dao_cond_desc`): object `object` (a
/// global, or with an index from `n_globals` on a heap object) is dead at a
/// site listing it in `cdead` when, for every condition of the object, the
/// `bytes`-wide integer V at `offset` of global `global` lies in
/// `[min, max]`; with `cover` > 0 (ABI 14, heap objects only) when V (0 when
/// `global` is `u32::MAX`) lies in `[0, max]` and `cover * V + min` is at
/// least the heap object's `size`.
#[repr(C)]
#[derive(Debug)]
pub struct DaoCondDesc {
    pub object: u32,
    pub global: u32,
    pub offset: i64,
    pub bytes: u32,
    pub is_signed: u32,
    pub min: i64,
    pub max: i64,
    pub cover: i64,
    pub add: i64,
    pub global2: u32,
    pub bytes2: u32,
    pub offset2: i64,
    pub is_signed2: u32,
    pub reserved: u32,
    pub add2: i64,
}

/// A heap object (`dao_heap_desc`, ABI 14): the block of one allocation call
/// in `main` that runs at most once per run and whose address stays in the
/// module's code. Written by the program (`addr`, `size`: the bytes asked
/// for, right after the call; `addr` null before the block is freed) and by
/// a restart (startup.rs); read with volatile reads (desc.rs).
#[repr(C)]
#[derive(Debug)]
pub struct DaoHeapDesc {
    pub name: *const c_char,
    pub loc: *const c_char,
    pub addr: *mut u8,
    pub size: u64,
}

#[repr(C)]
#[derive(Debug)]
pub struct DaoFuncDesc {
    pub name: *const c_char,
    pub module: *const DaoModuleDesc,
    pub n_sites: u32,
    pub sites: *const DaoSiteDesc,
    pub n_slots: u32,
    pub slots: *const DaoVarDesc,
    pub n_allocas: u32,
    pub allocas: *const DaoVarDesc,
    pub slot_area_size: u64,
}

#[repr(C)]
#[derive(Debug)]
pub struct DaoModuleDesc {
    pub abi_version: u32,
    /// DAO_MODULE_* bits.
    pub flags: u32,
    pub module_hash: u64,
    pub source_name: *const c_char,
    pub n_globals: u32,
    pub globals: *const DaoVarDesc,
    pub n_escaped: u32,
    pub escaped_globals: *const u32,
    pub n_funcs: u32,
    pub funcs: *const DaoFuncDesc,
    /// Thread-local (threadprivate) variables defined by the module; their
    /// `addr` is NULL: `tls_addrs` writes the calling thread's addresses.
    pub n_tls: u32,
    pub tls: *const DaoVarDesc,
    pub tls_addrs: Option<unsafe extern "C" fn(*mut *mut u8)>,
    /// flang's threadprivate variables used here (`addr`: the original
    /// variable; `offset`: DAO_TP_* flags).
    pub n_tp: u32,
    pub tp: *const DaoVarDesc,
    /// Runtime-checked conditions of the conditional kills.
    pub n_conds: u32,
    pub conds: *const DaoCondDesc,
    /// Parts of globals rewritten under runtime-checked conditions.
    pub n_boxes: u32,
    pub boxes: *const DaoBoxDesc,
    /// Heap objects (ABI 14): object index `n_globals + k` of the sites'
    /// `globals`, `cdead`, `dead` and `kept` lists is `heaps[k]`. Writable.
    pub n_heaps: u32,
    pub heaps: *mut DaoHeapDesc,
}

#[repr(C)]
#[derive(Debug)]
pub struct DaoFrame {
    pub parent: *mut DaoFrame,
    pub func: *const DaoFuncDesc,
    pub site: u32,
    pub reserved: u32,
    pub allocas: *mut *mut u8,
    pub slots: *mut u8,
}

#[cfg(test)]
mod tests {
    use super::*;
    use dao_abi::{check_layout, BOX_DESC, BOX_DIM, COND_DESC, FRAME, FUNC_DESC, HEAP_DESC, MODULE_DESC, SITE_DESC, VAR_DESC};

    #[test]
    fn mirrors_match_the_contract() {
        check_layout!(DaoVarDesc, VAR_DESC, name, loc, size, offset, addr);
        check_layout!(
            DaoSiteDesc,
            SITE_DESC,
            kind,
            flags,
            loc,
            callee,
            n_slots,
            slots,
            n_allocas,
            allocas,
            n_globals,
            globals,
            n_parts,
            parts,
            n_cdead,
            cdead,
            n_dead,
            dead,
            dead_why,
            n_kept,
            kept,
            kept_why,
            n_cboxes,
            cboxes,
            n_ddead,
            ddead
        );
        check_layout!(DaoBoxDesc, BOX_DESC, object, kind, n_dims, n_conds, start, size, dims, conds);
        check_layout!(DaoBoxDim, BOX_DIM, stride, count, global, bytes, offset, add, is_signed, reserved);
        check_layout!(DaoCondDesc, COND_DESC, object, global, offset, bytes, is_signed, min, max, cover, add, global2, bytes2, offset2, is_signed2, reserved, add2);
        check_layout!(DaoHeapDesc, HEAP_DESC, name, loc, addr, size);
        check_layout!(
            DaoFuncDesc,
            FUNC_DESC,
            name,
            module,
            n_sites,
            sites,
            n_slots,
            slots,
            n_allocas,
            allocas,
            slot_area_size
        );
        check_layout!(
            DaoModuleDesc,
            MODULE_DESC,
            abi_version,
            flags,
            module_hash,
            source_name,
            n_globals,
            globals,
            n_escaped,
            escaped_globals,
            n_funcs,
            funcs,
            n_tls,
            tls,
            tls_addrs,
            n_tp,
            tp,
            n_conds,
            conds,
            n_boxes,
            boxes,
            n_heaps,
            heaps
        );
        check_layout!(DaoFrame, FRAME, parent, func, site, reserved, allocas, slots);
    }
}
