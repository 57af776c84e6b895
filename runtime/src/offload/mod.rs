//! OpenMP offload (issue #35): the device data environment in checkpoints.
//!
//! The pass routes libomptarget's data mapping entry points, its kernel
//! launch, the OpenMP device memory routines and `target ... nowait` task
//! allocation to the runtime's `dao_*` functions (`entry.rs`; `dao cc`
//! also wraps them at link time, `--wrap`, for objects built without the
//! pass); they record what the call does and forward to libomptarget,
//! found with dlsym (`tgt.rs`). The parts:
//!
//! - `table.rs` (pure): the mapped host ranges of each device with their
//!   reference counts, replayed from the map entries with libomptarget's
//!   rules, and the first construct dao does not model (a *problem*);
//! - `tgt.rs`: libomptarget's functions and the compiler's map arrays;
//! - this file: the state (one table behind a mutex, kernel time, target
//!   tasks in flight) and what a checkpoint, a restart and a profile ask:
//!   [`before_checkpoint`] copies every mapped range's device copy back
//!   (device regions of the checkpoint), [`restore`] maps the ranges again
//!   (same host addresses, counts and devices) and copies the bytes to the
//!   device before the program goes on, [`profile_fields`] measures a
//!   kernel boundary for `DAO_PROFILE`.
//!
//! Kernels are synchronous for the host thread that launches them, so a
//! marker on the host is always between kernels; `target ... nowait`
//! kernels run as tasks: a checkpoint outside a parallel region waits for
//! them (`taskwait`), one inside a region where one was created is deferred.
//!
//! Liveness: a mapped range inside a global whose device copy the pass
//! found dead at every frame's site of the chain is recorded without its
//! bytes ([`dead_ranges`]; docs/design.md section 21, "Device liveness");
//! every other mapped byte is copied back and saved, once: a device copy
//! equal to the host bytes the checkpoint saves at its address is stored
//! as the host's ([`share_with_host`], format 10).
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::*};
use std::sync::Mutex;
use std::time::Instant;

use dao_format::DeviceRegion;

pub mod entry;
pub mod table;
pub mod tgt;

use table::{Entry, Mapping, Table};

static TABLE: Mutex<Table> = Mutex::new(Table { maps: std::collections::BTreeMap::new(), problem: None, held: std::collections::BTreeMap::new() });
/// The program called into libomptarget.
static USED: AtomicBool = AtomicBool::new(false);
/// Time in kernels (ns) and kernels launched.
static KERNEL_NS: AtomicU64 = AtomicU64::new(0);
static KERNELS: AtomicU64 = AtomicU64::new(0);
static LAST_KERNEL: Mutex<String> = Mutex::new(String::new());
/// `target ... nowait` tasks created since the last checkpoint waited for
/// them.
static TARGET_TASKS: AtomicI64 = AtomicI64::new(0);

fn table() -> std::sync::MutexGuard<'static, Table> {
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

fn what(kind: &str, at: Option<String>) -> String {
    match at {
        Some(a) => format!("{kind} at {a}"),
        None => kind.to_string(),
    }
}

/// A mapper call of the program: `begin` true for begin, false for end,
/// None for update.
pub fn mapped(begin: Option<bool>, device: i64, entries: &[Entry], at: Option<String>) {
    USED.store(true, Relaxed);
    let dev = tgt::resolve_device(device);
    let mut t = table();
    match begin {
        Some(true) => t.begin(dev, entries, &what("the map (`target data` / `target enter data`)", at)),
        Some(false) => t.end(dev, entries, &what("the map (end of `target data` / `target exit data`)", at)),
        None => t.check(entries, &what("`target update`", at)),
    }
}

/// A kernel launch: its map entries (checked), then its time.
pub fn kernel_start(entries: &[Entry], at: Option<String>) -> Instant {
    USED.store(true, Relaxed);
    let name = what("the kernel", at);
    table().check(entries, &name);
    *LAST_KERNEL.lock().unwrap_or_else(|e| e.into_inner()) = name;
    Instant::now()
}

pub fn kernel_end(t0: Instant) {
    KERNEL_NS.fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
    KERNELS.fetch_add(1, Relaxed);
}

/// Device memory the program holds the address of (`omp_target_alloc`,
/// an associated pointer), live until [`released`].
pub fn held(device: i32, ptr: u64, what: String) {
    USED.store(true, Relaxed);
    if ptr != 0 {
        table().held.insert((device, ptr), what);
    }
}

pub fn released(device: i32, ptr: u64) {
    table().held.remove(&(device, ptr));
}

/// A `target ... nowait` task was created.
pub fn target_task() {
    USED.store(true, Relaxed);
    TARGET_TASKS.fetch_add(1, SeqCst);
}

/// Why no checkpoint is taken now.
pub enum Refusal {
    /// At a later candidate (target tasks in flight inside a region).
    Defer(String),
    /// Never: a construct dao does not model.
    Fatal(String),
}

/// The host ranges whose device copies are dead at a checkpoint taken at
/// frame `top` (device liveness, ABI 13): the defined globals and heap
/// objects every frame of the chain lists as dead on the device at its
/// site (`dao_site_desc.ddead`). None inside a parallel region (the workers'
/// chains are not asked).
pub fn dead_ranges(top: *mut crate::abi::DaoFrame) -> Vec<(u64, u64)> {
    if !USED.load(Relaxed) || crate::omp::in_region() {
        return Vec::new();
    }
    let mut acc: Option<Vec<(u64, u64)>> = None;
    let mut f = top;
    while let Some(fv) = crate::desc::FrameView::read(f) {
        let (Some(site), Some(m)) = (fv.func.sites().get((fv.site as usize).wrapping_sub(1)), fv.func.module()) else { return Vec::new() };
        let mine: Vec<(u64, u64)> = site
            .ddead()
            .iter()
            .filter_map(|&g| match m.heap_index(g) {
                // a heap object (issue #35): its block as the program's
                // record names it, trusted only when the record is the
                // payload start of an allocated block at least that long
                Some(k) => heap_range(m, k),
                None => m.globals().get(g as usize).filter(|d| d.offset != crate::abi::DAO_GLOBAL_DECLARED).map(|d| (d.addr as u64, d.size)),
            })
            .collect();
        let a = match acc {
            None => mine,
            Some(a) => a.into_iter().filter(|x| mine.contains(x)).collect(),
        };
        if a.is_empty() {
            return a;
        }
        acc = Some(a);
        f = fv.parent;
    }
    acc.unwrap_or_default()
}

/// Heap object `k` of `m` as (address, bytes asked for), when its record
/// names an allocated block of the dao heap at least that long; None
/// otherwise (no record, a stale or foreign one: nothing dead).
fn heap_range(m: &crate::abi::DaoModuleDesc, k: u32) -> Option<(u64, u64)> {
    let (addr, size) = m.heap_record(k)?;
    let usable = crate::heap::with(|h| h.usable_size(addr as *mut u8))?;
    (usable as u64 >= size && size > 0).then_some((addr as u64, size))
}

/// What a checkpoint saves of the devices: every mapped range's device
/// copy but those inside a range of `dead` ([`dead_ranges`]), which are
/// recorded without bytes. Outside a parallel region `target ... nowait`
/// tasks are waited for first; inside one they defer the checkpoint.
pub fn before_checkpoint(dead: &[(u64, u64)]) -> Result<Vec<DeviceRegion<'static>>, Refusal> {
    if !USED.load(Relaxed) {
        return Ok(Vec::new());
    }
    if TARGET_TASKS.load(SeqCst) > 0 {
        if crate::omp::in_region() {
            return Err(Refusal::Defer("`target ... nowait` tasks created in this parallel region may still run on the device".into()));
        }
        tgt::taskwait();
        TARGET_TASKS.store(0, SeqCst);
    }
    let t = table();
    if let Some(p) = &t.problem {
        return Err(Refusal::Fatal(format!("OpenMP offload: {p}. dao cannot save this device state; build without -fopenmp-targets (the target regions then run on the host), or change the map")));
    }
    if let Some(((dev, ptr), w)) = t.held.iter().next() {
        return Err(Refusal::Fatal(format!(
            "OpenMP offload: device memory at {ptr:#x} on device {dev} ({w}) is live at a checkpoint: a restart cannot give it back at the same device address, which the program holds. Map host data instead (`target enter data map(alloc: ...)`), or free it before the marker"
        )));
    }
    let mut out = Vec::with_capacity(t.maps.len());
    for (&(dev, addr), m) in &t.maps {
        out.push(DeviceRegion {
            device: dev,
            addr,
            size: m.size,
            map_type: m.map_type,
            dyn_refs: m.dyn_refs,
            hold_refs: m.hold_refs,
            name: m.name.clone().map(Into::into),
            bytes: if dead.iter().any(|&(a, s)| a <= addr && addr + m.size <= a + s) { None } else { Some(copy_back(dev, addr, m)?.into()) },
            from_host: false,
        });
    }
    Ok(out)
}

/// Device copies stored once (format 10): a range whose copied-back bytes
/// equal, byte for byte, what this checkpoint saves of the host at its
/// address (`host`: the saved globals' records and heap blocks, sorted by
/// address) is stored as the host's (`from_host`, its own bytes dropped).
/// A restart restores the host's bytes before the device copies, and then
/// copies them from host memory. The comparison is against the bytes the
/// checkpoint holds, not the program's memory: what the restart puts on
/// the device is then exactly what was there. The common case is an input
/// mapped `to` that no kernel writes (a stencil's coefficients, a graph, a
/// matrix): without this it is saved twice. Stack ranges are not offered
/// (`host`): they are restored later, as the frames are rebuilt. Returns
/// the bytes stored as the host's.
pub fn share_with_host(devices: &mut [DeviceRegion<'static>], host: &[(u64, &[u8])]) -> u64 {
    let mut shared = 0;
    for d in devices.iter_mut() {
        if d.bytes.as_ref().is_some_and(|b| !b.is_empty() && same_as_host(host, d.addr, b)) {
            d.bytes = None;
            d.from_host = true;
            shared += d.size;
        }
    }
    shared
}

/// Whether every byte of `want` (at `addr`) lies in a piece of `host`
/// (sorted by start) holding the same value. Of overlapping pieces only
/// the last to start at or before a byte is asked (then: not the same).
fn same_as_host(host: &[(u64, &[u8])], addr: u64, want: &[u8]) -> bool {
    let end = addr + want.len() as u64;
    let mut p = addr;
    while p < end {
        let i = host.partition_point(|&(a, _)| a <= p);
        let Some(&(a, b)) = i.checked_sub(1).map(|i| &host[i]) else { return false };
        let e = a + b.len() as u64;
        if e <= p {
            return false;
        }
        let n = (e.min(end) - p) as usize;
        let (h, w) = ((p - a) as usize, (p - addr) as usize);
        if b[h..h + n] != want[w..w + n] {
            return false;
        }
        p += n as u64;
    }
    true
}

fn copy_back(dev: i32, addr: u64, m: &Mapping) -> Result<Vec<u8>, Refusal> {
    let p = tgt::device_ptr(addr, dev);
    let name = m.name.as_deref().map(|n| format!("`{n}` ")).unwrap_or_default();
    if p.is_null() {
        return Err(Refusal::Fatal(format!(
            "OpenMP offload: the device copy of {name}({} bytes at {addr:#x}, device {dev}) is not mapped, though dao recorded it: code not compiled with dao changed the device data environment",
            m.size
        )));
    }
    let mut buf = vec![0u8; m.size as usize];
    if !tgt::copy_from_device(&mut buf, p, dev) {
        return Err(Refusal::Fatal(format!("OpenMP offload: omp_target_memcpy of the device copy of {name}({} bytes, device {dev}) failed", m.size)));
    }
    Ok(buf)
}

/// A restart: maps every saved range again on its device with its
/// reference counts, copies the saved bytes to the device copy (a range
/// saved without bytes is filled with 0xff under DAO_DEAD=poison), and
/// records the table as it was. Returns the bytes copied to devices.
pub fn restore(regions: &[DeviceRegion<'_>], poison: bool, file: &str) -> u64 {
    if regions.is_empty() {
        return 0;
    }
    crate::libc_alloc::own(|| restore_own(regions, poison, file))
}

fn restore_own(regions: &[DeviceRegion<'_>], poison: bool, file: &str) -> u64 {
    USED.store(true, Relaxed);
    let mut copied = 0;
    let mut t = table();
    for r in regions {
        for _ in 0..r.dyn_refs {
            tgt::map_again(r.addr, r.size, r.device, false);
        }
        for _ in 0..r.hold_refs {
            tgt::map_again(r.addr, r.size, r.device, true);
        }
        let p = tgt::device_ptr(r.addr, r.device);
        if p.is_null() {
            crate::diag::fatal(format_args!("{file}: the device range {:#x} ({} bytes) could not be mapped again on device {}", r.addr, r.size, r.device));
        }
        let poisoned;
        let bytes: &[u8] = match &r.bytes {
            Some(b) => b,
            // the host's bytes, restored before the devices (startup.rs)
            None if r.from_host => crate::desc::memory(r.addr as usize, r.size as usize),
            None if poison => {
                poisoned = vec![0xffu8; r.size as usize];
                &poisoned
            }
            None => &[],
        };
        if !bytes.is_empty() {
            if !tgt::copy_to_device(p, bytes, r.device) {
                crate::diag::fatal(format_args!("{file}: copying {} bytes to the device copy at {:#x} on device {} failed", r.size, r.addr, r.device));
            }
            copied += bytes.len() as u64;
        }
        let m = Mapping { size: r.size, map_type: r.map_type, dyn_refs: r.dyn_refs, hold_refs: r.hold_refs, name: r.name.as_deref().map(str::to_string) };
        t.maps.insert((r.device, r.addr), m);
    }
    copied
}

/// DAO_PROFILE at a kernel boundary of an offload program: the live
/// device bytes (those a checkpoint here would copy back: the mapped ones
/// less the ranges in `dead`, [`dead_ranges`]) and the mapped bytes, the
/// time spent in kernels since the previous instance, the last kernel, and
/// the measured time to copy the live device copies to the host (B2).
/// None without offload.
pub fn profile_fields(dead: &[(u64, u64)]) -> Option<String> {
    if !USED.load(Relaxed) {
        return None;
    }
    crate::libc_alloc::own(|| profile_own(dead))
}

fn profile_own(dead: &[(u64, u64)]) -> Option<String> {
    static LAST_NS: AtomicU64 = AtomicU64::new(0);
    let total = KERNEL_NS.load(Relaxed);
    let since = total.saturating_sub(LAST_NS.swap(total, Relaxed));
    let t = table();
    let mapped = t.mapped_bytes();
    let live = |addr: u64, m: &Mapping| !dead.iter().any(|&(a, s)| a <= addr && addr + m.size <= a + s);
    let bytes: u64 = t.maps.iter().filter(|(&(_, addr), m)| live(addr, m)).map(|(_, m)| m.size).sum();
    let t0 = Instant::now();
    for (&(dev, addr), m) in t.maps.iter().filter(|(&(_, addr), m)| live(addr, m)) {
        let p = tgt::device_ptr(addr, dev);
        if !p.is_null() {
            let mut buf = vec![0u8; m.size as usize];
            tgt::copy_from_device(&mut buf, p, dev);
        }
    }
    let d2h = t0.elapsed().as_secs_f64();
    let kernel = LAST_KERNEL.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Some(format!(
        "\"device\":{{\"kind\":\"offload\",\"bytes\":{bytes},\"mapped_bytes\":{mapped},\"ranges\":{},\"kernel\":{},\"kernel_s\":{:.9},\"kernels\":{},\"d2h_s\":{d2h:.9}}}",
        t.maps.len(),
        crate::stats::quote(&kernel),
        since as f64 * 1e-9,
        KERNELS.load(Relaxed)
    ))
}

/// Bytes mapped on every device now (DAO_STATS).
pub fn mapped_bytes() -> u64 {
    if !USED.load(Relaxed) {
        return 0;
    }
    table().mapped_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(addr: u64, bytes: &[u8]) -> DeviceRegion<'static> {
        DeviceRegion { device: 0, addr, size: bytes.len() as u64, map_type: 1, dyn_refs: 1, hold_refs: 0, name: None, bytes: Some(bytes.to_vec().into()), from_host: false }
    }

    #[test]
    fn device_copies_equal_to_the_saved_host_bytes_are_shared() {
        let g = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let h = [9u8; 16];
        // a global at 100 saved in two ranges (100..104, 104..108), a heap block at 200
        let host: Vec<(u64, &[u8])> = vec![(100, &g[..4]), (104, &g[4..]), (200, &h[..])];
        let mut d = vec![
            region(101, &[2, 3, 4, 5, 6]), // across the two ranges: shared
            region(100, &[1, 2, 3, 4, 5, 6, 7, 8, 0]), // one byte past the global: kept
            region(202, &[9, 9, 9, 8]), // a byte differs: kept
            region(204, &[9; 12]), // to the block's end: shared
            region(150, &[0; 4]), // no host bytes saved there: kept
        ];
        let dead = DeviceRegion { bytes: None, ..region(300, &[0]) };
        d.push(dead.clone());
        assert_eq!(share_with_host(&mut d, &host), 5 + 12);
        let shared: Vec<bool> = d.iter().map(|r| r.from_host).collect();
        assert_eq!(shared, [true, false, false, true, false, false]);
        assert!(d[0].bytes.is_none() && d[1].bytes.is_some() && d[5] == dead);
        assert!(!same_as_host(&host, 96, &[0, 0, 0, 0, 1]), "a byte before every piece");
        assert!(!same_as_host(&[], 100, &[1]));
    }
}
