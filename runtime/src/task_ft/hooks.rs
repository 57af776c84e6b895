//! The hooks a replica calls for its loads, stores, memcpy/memmove and
//! memset of memory that is not its own stack (entry.rs `dao_ft_load` &
//! co.): outside an execution they are the plain access; inside one, a
//! write goes to the execution's buffer (dual) or to memory after its old
//! bytes are logged (serial), and a read sees the execution's buffered
//! writes. Faults are injected here.
use super::exec::current;
use crate::config::FaultKind;

/// # Safety
/// As the load it replaces: `addr` readable for `size` bytes (a fault there
/// is caught when it happens in a replica), `dst` writable.
pub unsafe fn load(addr: *const u8, dst: *mut u8, size: usize, kind: i32) {
    // SAFETY: the replica's load (see above); a fault jumps out.
    unsafe {
        match size {
            8 => (dst as *mut u64).write_unaligned((addr as *const u64).read_unaligned()),
            4 => (dst as *mut u32).write_unaligned((addr as *const u32).read_unaligned()),
            _ => std::ptr::copy_nonoverlapping(addr, dst, size),
        }
    }
    let p = current();
    if p.is_null() {
        return;
    }
    // SAFETY: the current execution, on this thread's stack, alive while it
    // runs.
    let e = unsafe { &mut *p };
    e.tick();
    if kind == 1 {
        e.ptr_loads += 1;
    }
    // SAFETY: dst is the replica's scratch of `size` bytes.
    let d = unsafe { std::slice::from_raw_parts_mut(dst, size) };
    if !e.is_private(addr as usize) {
        e.buf.overlay(addr as usize, d);
    }
    if let Some(i) = &mut e.inject {
        if !i.landed && i.kind == FaultKind::Pointer && kind == 1 && e.ptr_loads - 1 == i.at && size == 8 {
            i.landed = true;
            d[7] ^= 1 << 6; // bit 62: a non-canonical address
        }
    }
}

/// # Safety
/// As the store it replaces.
pub unsafe fn store(addr: *mut u8, src: *const u8, size: usize) {
    let p = current();
    // SAFETY: src is the replica's scratch of `size` bytes.
    let s = unsafe { std::slice::from_raw_parts(src, size) };
    if p.is_null() {
        // SAFETY: the store the replica makes, outside an execution.
        unsafe { std::ptr::copy_nonoverlapping(src, addr, size) };
        return;
    }
    // SAFETY: as in `load`.
    let e = unsafe { &mut *p };
    e.tick();
    e.stores += 1;
    if let Some(i) = &mut e.inject {
        if !i.landed && i.kind == FaultKind::Value && e.stores - 1 == i.at {
            // a fault in the value computed: one bit of what is stored
            i.landed = true;
            let mut v = s.to_vec();
            let bit = (i.r >> 8) % (size as u64 * 8);
            v[(bit / 8) as usize] ^= 1 << (bit % 8);
            let private = e.is_private(addr as usize);
            if private {
                // SAFETY: the replica's own stack or descriptor.
                unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), addr, size) };
            } else if let Some(u) = &mut e.undo {
                // SAFETY: in place: the old bytes, then the write.
                unsafe {
                    guard();
                    u.record(addr as usize, size);
                    std::ptr::copy_nonoverlapping(v.as_ptr(), addr, size);
                }
            } else {
                e.buf.put(addr as usize, &v);
            }
            return;
        }
    }
    let private = e.is_private(addr as usize);
    if let Some(u) = &mut e.undo {
        if !private {
            guard();
            // SAFETY: in place: the old bytes (a fault is caught), then the
            // store the replica makes.
            unsafe { u.record(addr as usize, size) };
        }
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(src, addr, size) };
        return;
    }
    if e.is_private(addr as usize) {
        // SAFETY: the replica's own stack or descriptor.
        unsafe { std::ptr::copy_nonoverlapping(src, addr, size) };
    } else {
        e.buf.put(addr as usize, s);
    }
}

/// memcpy / memmove.
///
/// # Safety
/// As the call it replaces.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    let overlap = (dst as usize) < src as usize + n && (src as usize) < dst as usize + n;
    if overlap || n <= 4096 {
        let mut all = vec![0u8; n];
        // SAFETY: the replaced call's ranges, through one buffer (memmove).
        unsafe {
            load(src, all.as_mut_ptr(), n, 0);
            store(dst, all.as_ptr(), n);
        }
        return;
    }
    let mut tmp = vec![0u8; 4096];
    let mut off = 0;
    while off < n {
        let k = (n - off).min(4096);
        // SAFETY: chunks of the replaced call's (disjoint) ranges.
        unsafe {
            load(src.add(off), tmp.as_mut_ptr(), k, 0);
            store(dst.add(off), tmp.as_ptr(), k);
        }
        off += k;
    }
}

/// memset.
///
/// # Safety
/// As the call it replaces.
pub unsafe fn set(dst: *mut u8, byte: i32, n: usize) {
    let tmp = vec![byte as u8; n.min(4096)];
    let mut off = 0;
    while off < n {
        let k = (n - off).min(4096);
        // SAFETY: chunks of the replaced call's range.
        unsafe { store(dst.add(off), tmp.as_ptr(), k) };
        off += k;
    }
}

/// In place, a replica writes shared memory itself: the guards' rule (a
/// checked-in worker of a non-blocking round waits until the master has
/// saved the shared state) applies to it as to the program's writes.
#[inline]
fn guard() {
    if crate::protocol::dao_omp_guard.load(std::sync::atomic::Ordering::Acquire) != 0 {
        crate::protocol::guard_wait();
    }
}
