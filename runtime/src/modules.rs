//! Registry of instrumented modules (filled by dao_register_module from
//! global constructors, before main).
use std::sync::Mutex;

use crate::abi::{DaoModuleDesc, DAO_ABI_VERSION};
use crate::desc;
use crate::diag::fatal;

struct Registry(Vec<&'static DaoModuleDesc>);
// SAFETY: module descriptors are immutable constant data.
unsafe impl Send for Registry {}

static MODULES: Mutex<Registry> = Mutex::new(Registry(Vec::new()));
/// Set by the first registration (the program's constructors, priority
/// 101: after every shared library's constructors).
static ANY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether an instrumented module has registered: the program's own code
/// has started (wrap.rs: operator new before it is a shared library's).
pub fn any() -> bool {
    ANY.load(std::sync::atomic::Ordering::Relaxed)
}

/// Adds a module; a module built for another ABI version is a fatal error.
pub fn register(m: *const DaoModuleDesc) {
    let Some(m) = desc::deref(m) else { fatal("dao_register_module called with NULL") };
    if m.abi_version != DAO_ABI_VERSION {
        fatal(format_args!(
            "module {} was compiled for dao ABI version {}, but this runtime implements version {}; rebuild it with the matching dao pass",
            desc::name(m.source_name),
            m.abi_version,
            DAO_ABI_VERSION
        ));
    }
    ANY.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut g = MODULES.lock().unwrap_or_else(|e| e.into_inner());
    if !g.0.iter().any(|x| std::ptr::eq(*x, m)) {
        if let Some(x) = g.0.iter().find(|x| x.module_hash == m.module_hash) {
            // checkpoints name a module by its hash: a restart would put
            // this one's globals in the other's place, or refuse
            crate::diag::warn(format_args!(
                "modules {} and {} have the same identity ({:016x}): a restart of this program may stop with an error; compile them with this dao",
                desc::name(x.source_name),
                desc::name(m.source_name),
                m.module_hash
            ));
        }
        g.0.push(m);
    }
}

/// Every registered module, in registration order.
pub fn all() -> Vec<&'static DaoModuleDesc> {
    MODULES.lock().unwrap_or_else(|e| e.into_inner()).0.clone()
}

/// The registered module with this hash.
pub fn by_hash(h: u64) -> Option<&'static DaoModuleDesc> {
    all().into_iter().find(|m| m.module_hash == h)
}

/// The registered module that defines the global at `addr`, and its index.
/// Globals only declared in a module (offset DAO_GLOBAL_DECLARED) are
/// resolved through this; one no registered module defines (libc's stdout,
/// uninstrumented code) is never saved.
pub fn defining(addr: usize) -> Option<(&'static DaoModuleDesc, u32)> {
    for m in all() {
        for (i, d) in m.globals().iter().enumerate() {
            if d.offset != crate::abi::DAO_GLOBAL_DECLARED && d.addr as usize == addr {
                return Some((m, i as u32));
            }
        }
    }
    None
}
