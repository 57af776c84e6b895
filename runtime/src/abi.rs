//! Rust mirrors of the structures in `include/dao_abi.h`, field for field.
//!
//! The pass emits these as constant data and stack records; the runtime only
//! reads them (and writes `dao_frame::parent`). The layout assertions at the
//! bottom fail the build if a field moves.
use std::os::raw::c_char;

/// Must equal `DAO_ABI_VERSION` in dao_abi.h.
pub const DAO_ABI_VERSION: u32 = 3;

pub const DAO_SITE_CALL: u32 = 1;
pub const DAO_SITE_MARKER: u32 = 2;
pub const DAO_SITE_FORCED: u32 = 3;
pub const DAO_SITE_FORK: u32 = 4;
pub const DAO_SITE_SYNC: u32 = 5;
pub const DAO_SITE_EXIT: u32 = 6;
/// dao_var_desc.offset of a global only declared in its module.
pub const DAO_GLOBAL_DECLARED: u64 = 1;
pub const DAO_SITE_UNKNOWN_READS: u32 = 1 << 0;
/// The pass put shared-write guards in the module's code (non-blocking
/// rounds are possible; DAO_GUARDS=0 at compile time leaves them out).
pub const DAO_MODULE_GUARDED: u32 = 1 << 0;

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

#[cfg(target_pointer_width = "64")]
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<DaoVarDesc>() == 40);
    assert!(offset_of!(DaoVarDesc, size) == 16 && offset_of!(DaoVarDesc, addr) == 32);
    assert!(size_of::<DaoSiteDesc>() == 72);
    assert!(offset_of!(DaoSiteDesc, n_slots) == 24 && offset_of!(DaoSiteDesc, slots) == 32);
    assert!(offset_of!(DaoSiteDesc, n_allocas) == 40 && offset_of!(DaoSiteDesc, allocas) == 48);
    assert!(offset_of!(DaoSiteDesc, n_globals) == 56 && offset_of!(DaoSiteDesc, globals) == 64);
    assert!(size_of::<DaoFuncDesc>() == 72);
    assert!(offset_of!(DaoFuncDesc, sites) == 24 && offset_of!(DaoFuncDesc, slot_area_size) == 64);
    assert!(size_of::<DaoModuleDesc>() == 96);
    assert!(offset_of!(DaoModuleDesc, tls) == 80 && offset_of!(DaoModuleDesc, tls_addrs) == 88);
    assert!(offset_of!(DaoModuleDesc, globals) == 32 && offset_of!(DaoModuleDesc, funcs) == 64);
    assert!(size_of::<DaoFrame>() == 40);
    assert!(offset_of!(DaoFrame, site) == 16 && offset_of!(DaoFrame, slots) == 32);
};
