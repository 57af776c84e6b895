//! C++ state a checkpoint must not cut through: an exception being thrown
//! or handled.
//!
//! A candidate reached while an exception is in flight (in a destructor run
//! by the unwinder) or inside a `catch` handler would be restored without
//! libstdc++'s record of that exception (its `__cxa_eh_globals`: the
//! handled exceptions' stack and the count of uncaught ones, per thread,
//! in the C++ runtime's own memory, and the exception object in glibc's
//! heap): the end of the handler (`__cxa_end_catch`) or the rest of the
//! unwinding would then run on state the restart does not have. Such a
//! candidate is not taken (docs/design.md section 20). Found with dlsym,
//! so C and Fortran programs, which do not link libstdc++, pay nothing.

/// `__cxa_eh_globals` of the Itanium C++ ABI (libstdc++'s layout).
#[repr(C)]
struct EhGlobals {
    caught_exceptions: *mut libc::c_void,
    uncaught_exceptions: libc::c_uint,
}

type GetGlobals = unsafe extern "C" fn() -> *mut EhGlobals;

/// Why the calling thread cannot be checkpointed now, if an exception is
/// being thrown or handled on it.
pub fn exception_in_flight() -> Option<&'static str> {
    // SAFETY: dlsym with a NUL-terminated name; the symbol, when present, is
    // libstdc++'s `__cxa_eh_globals* __cxa_get_globals() noexcept`, whose
    // result is the calling thread's record (never null), read only.
    unsafe {
        let f = libc::dlsym(libc::RTLD_DEFAULT, c"__cxa_get_globals".as_ptr());
        if f.is_null() {
            return None;
        }
        let get: GetGlobals = std::mem::transmute(f);
        let g = get();
        if g.is_null() {
            return None;
        }
        if (*g).uncaught_exceptions != 0 {
            Some("a C++ exception is being thrown (a destructor run while unwinding reached the candidate)")
        } else if !(*g).caught_exceptions.is_null() {
            Some("a C++ exception is being handled (the candidate is inside a catch handler)")
        } else {
            None
        }
    }
}
