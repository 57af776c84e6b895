//! The creation log: the program's communicators, datatypes and reduction
//! operations, in the order it created (and freed) them, saved with each
//! checkpoint in its sidecar (`ckpt.NNNNNN.mpi`). A restart creates them
//! again in the same order (handles.rs-style translation: C handles are
//! pointers into Open MPI's memory, so the old pointer values found in the
//! restored data are replaced by the new ones, `HandleMap`; Fortran handles
//! are table indexes, which the same creation order reproduces, checked
//! one by one).
use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::Mutex;

use super::sym::{lookup, pmpi, H, SUCCESS};
use super::world::{rank, size};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Fortran (integer handles, replayed through Open MPI's Fortran
    /// bindings) or C (pointer handles).
    pub fortran: bool,
    pub op: String,
    /// Integer arguments (counts, colours, dims, displacements, a function's address).
    pub ints: Vec<i64>,
    /// Handle arguments, as the program passed them.
    pub ins: Vec<u64>,
    /// The handle created (0 for frees and commits).
    pub out: u64,
}

/// The log, changed with glibc's allocator (`libc_alloc::own`): the
/// wrappers run on the program's calls, whose `malloc` is the dao heap's.
static LOG: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn with<R>(f: impl FnOnce(&mut Vec<Entry>) -> R) -> R {
    crate::libc_alloc::own(|| f(&mut LOG.lock().unwrap_or_else(|e| e.into_inner())))
}

/// Records a creation in the log (in program order).
pub fn created(e: Entry) {
    with(|t| t.push(e));
}

/// Predefined C objects whose addresses a program may hold: their old and
/// new addresses are compared at restart (Open MPI is a shared library,
/// loaded at another address in the restarted process unless the
/// executable holds copies of them).
const PREDEFINED: &[&str] = &[
    "ompi_mpi_comm_world", "ompi_mpi_comm_self", "ompi_mpi_comm_null", "ompi_request_null", "ompi_mpi_group_empty", "ompi_mpi_group_null",
    "ompi_mpi_datatype_null", "ompi_mpi_op_null", "ompi_mpi_info_null", "ompi_mpi_errors_are_fatal", "ompi_mpi_errors_return",
    "ompi_mpi_char", "ompi_mpi_signed_char", "ompi_mpi_unsigned_char", "ompi_mpi_byte", "ompi_mpi_short", "ompi_mpi_unsigned_short",
    "ompi_mpi_int", "ompi_mpi_unsigned", "ompi_mpi_long", "ompi_mpi_unsigned_long", "ompi_mpi_long_long_int", "ompi_mpi_unsigned_long_long",
    "ompi_mpi_float", "ompi_mpi_double", "ompi_mpi_long_double", "ompi_mpi_wchar", "ompi_mpi_packed", "ompi_mpi_c_bool",
    "ompi_mpi_int8_t", "ompi_mpi_uint8_t", "ompi_mpi_int16_t", "ompi_mpi_uint16_t", "ompi_mpi_int32_t", "ompi_mpi_uint32_t",
    "ompi_mpi_int64_t", "ompi_mpi_uint64_t", "ompi_mpi_float_int", "ompi_mpi_double_int", "ompi_mpi_long_int", "ompi_mpi_2int",
    "ompi_mpi_c_complex", "ompi_mpi_c_double_complex", "ompi_mpi_aint", "ompi_mpi_offset", "ompi_mpi_count",
    "ompi_mpi_double_precision", "ompi_mpi_integer", "ompi_mpi_real",
    "ompi_mpi_op_max", "ompi_mpi_op_min", "ompi_mpi_op_sum", "ompi_mpi_op_prod", "ompi_mpi_op_land", "ompi_mpi_op_band", "ompi_mpi_op_lor",
    "ompi_mpi_op_bor", "ompi_mpi_op_lxor", "ompi_mpi_op_bxor", "ompi_mpi_op_maxloc", "ompi_mpi_op_minloc", "ompi_mpi_op_replace",
    "ompi_mpi_op_no_op",
];

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
    }
}

/// The sidecar of a checkpoint (`ckpt.NNNNNN.mpi`): rank, size, the
/// predefined objects' addresses and the creation log, one line each,
/// ending with a hash of everything before it.
pub fn log_text(seq: u64) -> String {
    let mut s = format!("{}\nseq {seq}\nrank {} size {}\n", dao_format::MPI_LOG_MAGIC, rank(), size());
    for name in PREDEFINED {
        let a = lookup(&format!("{name}\0"));
        if a != 0 {
            s.push_str(&format!("pre {name} {a:x}\n"));
        }
    }
    with(|t| {
        for e in t.iter() {
            let ins: Vec<String> = e.ins.iter().map(|x| format!("{x:x}")).collect();
            s.push_str(&format!("{} {} {} {} {:x}\n", if e.fortran { "f" } else { "c" }, e.op, list(&e.ints), if ins.is_empty() { "-".into() } else { ins.join(",") }, e.out));
        }
    });
    let h = xxhash_rust::xxh3::xxh3_64(s.as_bytes());
    s.push_str(&format!("end {h:016x}\n"));
    s
}

/// A sidecar read back: the predefined objects' addresses and the log.
#[derive(Debug, Default)]
pub struct Log {
    pub seq: u64,
    pub rank: i32,
    pub size: i32,
    pub predefined: Vec<(String, u64)>,
    pub entries: Vec<Entry>,
}

/// Parses and checks a sidecar.
pub fn parse_log(text: &str) -> Result<Log, String> {
    let lines = dao_format::mpi_log_body(text)?.lines();
    let mut log = Log::default();
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| format!("bad number {s}"));
    for l in lines {
        let w: Vec<&str> = l.split(' ').collect();
        match w.as_slice() {
            ["seq", n] => log.seq = n.parse().map_err(|_| "bad seq")?,
            ["rank", r, "size", n] => {
                log.rank = r.parse().map_err(|_| "bad rank")?;
                log.size = n.parse().map_err(|_| "bad size")?;
            }
            ["pre", name, a] => log.predefined.push((name.to_string(), hex(a)?)),
            [lang @ ("c" | "f"), op, ints, ins, out] => {
                let ints = if *ints == "-" { vec![] } else { ints.split(',').map(|x| x.parse::<i64>().map_err(|_| format!("bad number {x}"))).collect::<Result<_, _>>()? };
                let ins = if *ins == "-" { vec![] } else { ins.split(',').map(hex).collect::<Result<_, _>>()? };
                log.entries.push(Entry { fortran: *lang == "f", op: op.to_string(), ints, ins, out: hex(out)? });
            }
            _ => return Err(format!("unexpected line '{l}'")),
        }
    }
    Ok(log)
}

/// Old C handle values and the new objects' (after a replay).
#[derive(Debug, Default)]
pub struct HandleMap {
    pub map: HashMap<u64, u64>,
    lo: u64,
    hi: u64,
}

impl HandleMap {
    fn finish(&mut self) {
        self.map.retain(|k, v| k != v && *k != 0);
        self.lo = self.map.keys().copied().min().unwrap_or(u64::MAX);
        self.hi = self.map.keys().copied().max().unwrap_or(0);
    }

    /// Replaces every 8-byte-aligned word of `bytes` (which lies at
    /// address `addr`) that holds an old handle by the new one; returns
    /// how many were replaced.
    pub fn patch(&self, addr: u64, bytes: &mut [u8]) -> usize {
        if self.map.is_empty() {
            return 0;
        }
        let mut n = 0;
        let start = ((8 - (addr % 8)) % 8) as usize;
        let mut i = start;
        while i + 8 <= bytes.len() {
            let w = u64::from_ne_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
            if w >= self.lo && w <= self.hi {
                if let Some(new) = self.map.get(&w) {
                    bytes[i..i + 8].copy_from_slice(&new.to_ne_bytes());
                    n += 1;
                }
            }
            i += 8;
        }
        n
    }

    /// [`HandleMap::patch`] on memory already restored.
    pub fn patch_memory(&self, addr: u64, len: usize) -> usize {
        if self.map.is_empty() || len < 8 {
            return 0;
        }
        let mut copy = crate::desc::memory(addr as usize, len).to_vec();
        let n = self.patch(addr, &mut copy);
        if n > 0 {
            crate::desc::write_memory(addr as usize, &copy);
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Creates the logged objects again, in order, and returns the C handles'
/// translation; Fortran handles must come out equal to the logged ones.
/// The log is then this process's (its values translated).
pub fn replay(log: &Log) -> Result<HandleMap, String> {
    let mut m = HandleMap::default();
    for (name, old) in &log.predefined {
        let new = lookup(&format!("{name}\0")) as u64;
        if new != 0 {
            m.map.insert(*old, new);
        }
    }
    let mut entries = Vec::with_capacity(log.entries.len());
    for e in &log.entries {
        let tr = |h: u64| -> u64 { if e.fortran { h } else { m.map.get(&h).copied().unwrap_or(h) } };
        let ins: Vec<u64> = e.ins.iter().map(|&h| tr(h)).collect();
        let out = if e.fortran { replay_fortran(e, &ins)? } else { replay_c(e, &ins)? };
        if e.fortran {
            if out != e.out {
                return Err(format!(
                    "re-creating the Fortran MPI object of {} (handle {}) gave handle {}: the Fortran handles stored in the program would not match",
                    e.op, e.out as i64, out as i64
                ));
            }
        } else if e.out != 0 {
            m.map.insert(e.out, out);
        }
        // frees: the old value means nothing from here on
        if e.op.ends_with("free") && !e.fortran {
            if let Some(old) = e.ins.first() {
                m.map.remove(old);
            }
        }
        entries.push(Entry { ins, out, ..e.clone() });
    }
    with(|t| *t = entries);
    m.finish();
    Ok(m)
}

fn ck(rc: c_int, what: &str) -> Result<(), String> {
    if rc == SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed (error {rc})"))
    }
}

fn replay_c(e: &Entry, ins: &[u64]) -> Result<u64, String> {
    let h = |i: usize| -> Result<H, String> { ins.get(i).map(|&x| x as H).ok_or_else(|| format!("log entry {} lacks a handle", e.op)) };
    let n = |i: usize| -> Result<i64, String> { e.ints.get(i).copied().ok_or_else(|| format!("log entry {} lacks a number", e.op)) };
    let mut out: H = std::ptr::null_mut();
    // SAFETY: each call is the MPI function the program called, with the
    // arguments it passed (handles translated), on objects alive now.
    unsafe {
        match e.op.as_str() {
            "comm_dup" => ck(pmpi!("PMPI_Comm_dup", unsafe extern "C" fn(H, *mut H) -> c_int)(h(0)?, &mut out), "MPI_Comm_dup")?,
            "comm_split" => ck(pmpi!("PMPI_Comm_split", unsafe extern "C" fn(H, c_int, c_int, *mut H) -> c_int)(h(0)?, n(0)? as c_int, n(1)? as c_int, &mut out), "MPI_Comm_split")?,
            "cart_create" => {
                let nd = n(0)? as usize;
                let dims: Vec<c_int> = e.ints.get(1..1 + nd).ok_or("short cart_create")?.iter().map(|&x| x as c_int).collect();
                let per: Vec<c_int> = e.ints.get(1 + nd..1 + 2 * nd).ok_or("short cart_create")?.iter().map(|&x| x as c_int).collect();
                let f = pmpi!("PMPI_Cart_create", unsafe extern "C" fn(H, c_int, *const c_int, *const c_int, c_int, *mut H) -> c_int);
                ck(f(h(0)?, nd as c_int, dims.as_ptr(), per.as_ptr(), n(1 + 2 * nd)? as c_int, &mut out), "MPI_Cart_create")?
            }
            "cart_sub" => {
                let rem: Vec<c_int> = e.ints.iter().map(|&x| x as c_int).collect();
                ck(pmpi!("PMPI_Cart_sub", unsafe extern "C" fn(H, *const c_int, *mut H) -> c_int)(h(0)?, rem.as_ptr(), &mut out), "MPI_Cart_sub")?
            }
            "comm_free" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Comm_free", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Comm_free")?
            }
            "type_contiguous" => ck(pmpi!("PMPI_Type_contiguous", unsafe extern "C" fn(c_int, H, *mut H) -> c_int)(n(0)? as c_int, h(0)?, &mut out), "MPI_Type_contiguous")?,
            "type_vector" => ck(
                pmpi!("PMPI_Type_vector", unsafe extern "C" fn(c_int, c_int, c_int, H, *mut H) -> c_int)(n(0)? as c_int, n(1)? as c_int, n(2)? as c_int, h(0)?, &mut out),
                "MPI_Type_vector",
            )?,
            "type_hvector" => ck(
                pmpi!("PMPI_Type_create_hvector", unsafe extern "C" fn(c_int, c_int, isize, H, *mut H) -> c_int)(n(0)? as c_int, n(1)? as c_int, n(2)? as isize, h(0)?, &mut out),
                "MPI_Type_create_hvector",
            )?,
            "type_indexed" => {
                let c = n(0)? as usize;
                let bl: Vec<c_int> = e.ints.get(1..1 + c).ok_or("short type_indexed")?.iter().map(|&x| x as c_int).collect();
                let dp: Vec<c_int> = e.ints.get(1 + c..1 + 2 * c).ok_or("short type_indexed")?.iter().map(|&x| x as c_int).collect();
                let f = pmpi!("PMPI_Type_indexed", unsafe extern "C" fn(c_int, *const c_int, *const c_int, H, *mut H) -> c_int);
                ck(f(c as c_int, bl.as_ptr(), dp.as_ptr(), h(0)?, &mut out), "MPI_Type_indexed")?
            }
            "type_struct" => {
                let c = n(0)? as usize;
                let bl: Vec<c_int> = e.ints.get(1..1 + c).ok_or("short type_struct")?.iter().map(|&x| x as c_int).collect();
                let dp: Vec<isize> = e.ints.get(1 + c..1 + 2 * c).ok_or("short type_struct")?.iter().map(|&x| x as isize).collect();
                let ty: Vec<H> = ins.iter().map(|&x| x as H).collect();
                let f = pmpi!("PMPI_Type_create_struct", unsafe extern "C" fn(c_int, *const c_int, *const isize, *const H, *mut H) -> c_int);
                ck(f(c as c_int, bl.as_ptr(), dp.as_ptr(), ty.as_ptr(), &mut out), "MPI_Type_create_struct")?
            }
            "type_resized" => ck(
                pmpi!("PMPI_Type_create_resized", unsafe extern "C" fn(H, isize, isize, *mut H) -> c_int)(h(0)?, n(0)? as isize, n(1)? as isize, &mut out),
                "MPI_Type_create_resized",
            )?,
            "type_dup" => ck(pmpi!("PMPI_Type_dup", unsafe extern "C" fn(H, *mut H) -> c_int)(h(0)?, &mut out), "MPI_Type_dup")?,
            "type_commit" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Type_commit", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Type_commit")?
            }
            "type_free" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Type_free", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Type_free")?
            }
            "op_create" => {
                let f = pmpi!("PMPI_Op_create", unsafe extern "C" fn(usize, c_int, *mut H) -> c_int);
                ck(f(n(0)? as usize, n(1)? as c_int, &mut out), "MPI_Op_create")?
            }
            "op_free" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Op_free", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Op_free")?
            }
            other => return Err(format!("unknown log entry {other}")),
        }
    }
    Ok(out as u64)
}

/// Fortran entries go through Open MPI's own Fortran bindings (`pmpi_*_`),
/// with the integer arguments the program passed.
fn replay_fortran(e: &Entry, ins: &[u64]) -> Result<u64, String> {
    type F = c_int;
    let hd = |i: usize| -> Result<F, String> { ins.get(i).map(|&x| x as i64 as F).ok_or_else(|| format!("log entry {} lacks a handle", e.op)) };
    let n = |i: usize| -> Result<F, String> { e.ints.get(i).map(|&x| x as F).ok_or_else(|| format!("log entry {} lacks a number", e.op)) };
    let mut out: F = 0;
    let mut err: F = 0;
    // SAFETY: Open MPI's Fortran bindings take every argument by reference.
    unsafe {
        match e.op.as_str() {
            "comm_dup" => pmpi!("pmpi_comm_dup_", unsafe extern "C" fn(*const F, *mut F, *mut F))(&hd(0)?, &mut out, &mut err),
            "comm_split" => pmpi!("pmpi_comm_split_", unsafe extern "C" fn(*const F, *const F, *const F, *mut F, *mut F))(&hd(0)?, &n(0)?, &n(1)?, &mut out, &mut err),
            "cart_create" => {
                let nd = n(0)? as usize;
                let v: Vec<F> = e.ints.iter().map(|&x| x as F).collect();
                let dims = v.get(1..1 + nd).ok_or("short cart_create")?;
                let per = v.get(1 + nd..1 + 2 * nd).ok_or("short cart_create")?;
                let f = pmpi!("pmpi_cart_create_", unsafe extern "C" fn(*const F, *const F, *const F, *const F, *const F, *mut F, *mut F));
                f(&hd(0)?, &(nd as F), dims.as_ptr(), per.as_ptr(), &n(1 + 2 * nd)?, &mut out, &mut err)
            }
            "cart_sub" => {
                let v: Vec<F> = e.ints.iter().map(|&x| x as F).collect();
                pmpi!("pmpi_cart_sub_", unsafe extern "C" fn(*const F, *const F, *mut F, *mut F))(&hd(0)?, v.as_ptr(), &mut out, &mut err)
            }
            "comm_free" => {
                let mut x = hd(0)?;
                pmpi!("pmpi_comm_free_", unsafe extern "C" fn(*mut F, *mut F))(&mut x, &mut err)
            }
            "type_contiguous" => pmpi!("pmpi_type_contiguous_", unsafe extern "C" fn(*const F, *const F, *mut F, *mut F))(&n(0)?, &hd(0)?, &mut out, &mut err),
            "type_vector" => pmpi!("pmpi_type_vector_", unsafe extern "C" fn(*const F, *const F, *const F, *const F, *mut F, *mut F))(&n(0)?, &n(1)?, &n(2)?, &hd(0)?, &mut out, &mut err),
            "type_commit" => {
                let mut x = hd(0)?;
                pmpi!("pmpi_type_commit_", unsafe extern "C" fn(*mut F, *mut F))(&mut x, &mut err)
            }
            "type_free" => {
                let mut x = hd(0)?;
                pmpi!("pmpi_type_free_", unsafe extern "C" fn(*mut F, *mut F))(&mut x, &mut err)
            }
            "op_create" => {
                let f = pmpi!("pmpi_op_create_", unsafe extern "C" fn(usize, *const F, *mut F, *mut F));
                f(e.ints.first().copied().ok_or("short op_create")? as usize, &n(1)?, &mut out, &mut err)
            }
            other => return Err(format!("unknown Fortran log entry {other}")),
        }
    }
    if err != 0 {
        return Err(format!("the Fortran MPI call of {} failed (error {err})", e.op));
    }
    Ok(out as i64 as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_round_trip_and_damage() {
        created(Entry { fortran: false, op: "type_vector".into(), ints: vec![4, 1, 8], ins: vec![0x1234], out: 0xabc0 });
        created(Entry { fortran: true, op: "comm_dup".into(), ints: vec![], ins: vec![0], out: 3 });
        let t = log_text(7);
        let l = parse_log(&t).unwrap();
        assert_eq!(l.seq, 7);
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.entries[0].ints, vec![4, 1, 8]);
        assert_eq!(l.entries[0].out, 0xabc0);
        assert!(l.entries[1].fortran);
        let bad = t.replace("type_vector 4", "type_vector 5");
        assert!(parse_log(&bad).unwrap_err().contains("checksum"));
        assert!(parse_log(&t[..t.len() - 10]).is_err(), "truncated");
    }

    #[test]
    fn patch_replaces_aligned_words_only() {
        let mut m = HandleMap::default();
        m.map.insert(0x5555_0000_1000, 0x7777_0000_2000);
        m.map.insert(0x10, 0x10);
        m.finish();
        let mut b = vec![0u8; 32];
        b[8..16].copy_from_slice(&0x5555_0000_1000u64.to_ne_bytes());
        b[17..25].copy_from_slice(&0x5555_0000_1000u64.to_ne_bytes());
        assert_eq!(m.patch(0x1000, &mut b), 1);
        assert_eq!(u64::from_ne_bytes(b[8..16].try_into().unwrap()), 0x7777_0000_2000);
        // a slice starting at an odd address: alignment is the address's
        let mut c = vec![0u8; 24];
        c[7..15].copy_from_slice(&0x5555_0000_1000u64.to_ne_bytes());
        assert_eq!(m.patch(0x1001, &mut c), 1);
    }
}
