//! `dao inspect` for one process: what a checkpoint file or a checkpoint directory holds.
//!
//! The checkpoint is read and validated by `dao-format` (the same code the
//! runtime uses), then summarised into a [`FileReport`]/[`DirReport`] that is
//! printed as text or JSON. Nothing here interprets bytes itself: a file the
//! format crate rejects is reported with the format crate's reason.
//!
//! Checkpoints of the storage engine (`store.NNNNNN.dst`, DAO_STORE=engine)
//! are read by `dao-store` the way a restart reads them: a file is rebuilt
//! from its base and deltas (every link verified) and its skeleton decoded
//! with the restored bytes, so the report is the same as for a single file,
//! plus the store's view (kind, chain, regions). A directory lists both
//! kinds; store files are verified (checksums, commit record, chain) but
//! not decoded.

use std::path::{Path, PathBuf};

use dao_format::{Checkpoint, CheckpointDir, FormatError, FLAG_HEAP_ALL, FLAG_SAVE_ALL, FORMAT_VERSION};
use dao_store::StoreDir;
use serde::Serialize;

use super::heap_objects::{self, HeapObjectReport};

#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error("{path}: no such file or directory; give a checkpoint file (ckpt.NNNNNN.dao) or a checkpoint directory (DAO_DIR)")]
    NotFound { path: PathBuf },
    /// The checkpoint file given is not a valid checkpoint (message names the file).
    #[error("{0}")]
    Invalid(FormatError),
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Dir(#[from] dao_format::DirError),
    /// A store file that cannot be rebuilt (the message names the file and link).
    #[error("{0}")]
    Store(#[from] dao_store::StoreError),
}

/// Did `--binary PROG` write the checkpoint?
#[derive(Debug, Serialize)]
pub struct BinaryCheck {
    pub path: String,
    pub hash: String,
    pub size: u64,
    pub matches: bool,
}

#[derive(Debug, Serialize)]
pub struct Var {
    pub name: String,
    pub loc: Option<String>,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addr: Option<String>,
}

/// A saved global (or one saved range of it) and why it is saved: the
/// pass's words from the innermost saved candidate that says ("read first
/// by the loop at bt.c:40"), or the runtime's (escaped address, unknown
/// code, DAO_SAVE=all); for globals of at least 64 KiB, null for others.
#[derive(Debug, Serialize)]
pub struct GlobalVar {
    #[serde(flatten)]
    pub var: Var,
    pub why: Option<String>,
}

/// A defined global the checkpoint does not hold whole: dead there (no
/// thread may read those bytes before rewriting them), so not saved, or
/// saved only in `saved` of its `size` bytes.
#[derive(Debug, Serialize)]
pub struct DeadReport {
    pub name: String,
    pub size: u64,
    pub saved: u64,
    pub dead: u64,
    /// What rewrites it first after the checkpoint, when the saved sites say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct FrameReport {
    pub function: String,
    pub site: u32,
    pub frame_addr: String,
    pub slots: Vec<Var>,
    pub stack_objects: Vec<Var>,
}

#[derive(Debug, Serialize, Default)]
pub struct Totals {
    pub slots: u64,
    pub stack: u64,
    pub globals: u64,
    pub heap: u64,
    /// The device copies saved (offload).
    pub device: u64,
    pub total: u64,
}

/// One mapped range of an offload device (format 7).
#[derive(Debug, Serialize)]
pub struct DeviceRange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub addr: String,
    pub size: u64,
    /// The map type that mapped it, as OpenMP writes it (`to`, `from`,
    /// `tofrom`, `alloc`, with `always`, `ompx_hold`...).
    pub map: String,
    pub dyn_refs: u64,
    pub hold_refs: u64,
    /// Whether the device copy's bytes are in the checkpoint (its own, or
    /// the host's: `from_host`).
    pub saved: bool,
    /// The device copy held the bytes the checkpoint saves of the host at
    /// its address (format 10): stored once, as the host's, and copied
    /// from the restored host memory at a restart.
    pub from_host: bool,
}

/// The device regions of one offload device.
#[derive(Debug, Serialize)]
pub struct DeviceReport {
    pub device: i32,
    pub mapped_bytes: u64,
    /// The live device bytes (dead ones are not saved), with those stored
    /// as the host's.
    pub saved_bytes: u64,
    /// Of `saved_bytes`, those stored as the host's bytes (format 10).
    pub as_host_bytes: u64,
    pub ranges: Vec<DeviceRange>,
}

/// An OpenMP map type in words.
fn map_words(t: u64) -> String {
    let mut w = match t & 3 {
        1 => "to",
        2 => "from",
        3 => "tofrom",
        _ => "alloc",
    }
    .to_string();
    if t & 0x4 != 0 {
        w.push_str(",always");
    }
    if t & 0x2000 != 0 {
        w.push_str(",ompx_hold");
    }
    w
}

#[derive(Debug, Serialize)]
pub struct HeapReport {
    pub blocks_total: u64,
    pub blocks_saved: u64,
    pub bytes_allocated: u64,
    pub bytes_saved: u64,
    pub meta_bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub path: String,
    pub file_bytes: u64,
    pub format_version: u32,
    pub save_mode: &'static str,
    pub heap_mode: &'static str,
    pub binary_hash: String,
    pub binary_size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_check: Option<BinaryCheck>,
    pub image_base: String,
    pub run_id: String,
    pub seq: u64,
    pub timestamp: u64,
    pub time_utc: String,
    pub pid: u32,
    pub threads: u32,
    pub candidates: u64,
    pub checkpoints: u64,
    pub stdout_offset: i64,
    pub stderr_offset: i64,
    /// Outermost frame first.
    pub label_stack: Vec<FrameReport>,
    /// OpenMP: team size at the checkpoint (0: outside a region).
    pub team_size: u32,
    /// The other threads of the team (or idle threads with threadprivate data).
    pub workers: Vec<WorkerReport>,
    pub globals: Vec<GlobalVar>,
    /// The defined globals of the instrumented modules not saved whole
    /// (format 5; empty for format 4 files and under DAO_SAVE=all).
    pub dead_globals: Vec<DeadReport>,
    /// Their bytes not in the checkpoint.
    pub dead_bytes: u64,
    pub heap: HeapReport,
    /// The heap objects (format 9; empty before): saved or left out as dead.
    pub heap_objects: Vec<HeapObjectReport>,
    /// OpenMP offload devices' mapped ranges, per device (format 7).
    pub devices: Vec<DeviceReport>,
    pub totals: Totals,
    /// A checkpoint of the storage engine: how it is stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreReport>,
}

#[derive(Debug, Serialize)]
pub struct StoreReport {
    /// "full", "incremental" or "differential".
    pub kind: &'static str,
    /// The files the state is rebuilt from, base first.
    pub chain: Vec<String>,
    /// The file's bytes plus those of the rest of its chain.
    pub chain_bytes: u64,
    pub regions: u64,
    pub region_bytes: u64,
    /// The skeleton (the dao-format metadata without memory contents).
    pub skeleton_bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct DirEntry {
    pub file: String,
    pub valid: bool,
    /// Store files: "full", "incremental" or "differential"
    /// (valid: every checksum and the commit record of this file and of
    /// every file of its chain check out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_kind: Option<&'static str>,
    /// Store deltas: the checkpoint it is a delta against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_utc: Option<String>,
    pub file_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_matches: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct DirReport {
    pub dir: String,
    pub checkpoints: Vec<DirEntry>,
    /// Leftovers of interrupted writes (`.ckpt.NNNNNN.dao.tmp`).
    pub temp_files: Vec<String>,
    /// Run id recorded in `finished`: that run ended normally.
    pub finished_run: Option<String>,
    /// The file a restart would resume from; None: it would start over.
    pub restart_from: Option<String>,
}

fn hex(x: u64) -> String {
    format!("{x:016x}")
}

fn addr(x: u64) -> String {
    format!("{x:#x}")
}

/// `YYYY-MM-DD HH:MM:SS UTC` from unix seconds (proleptic Gregorian).
pub fn utc(ts: u64) -> String {
    let days = (ts / 86_400) as i64;
    let secs = ts % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", secs / 3600, secs / 60 % 60, secs % 60)
}

fn binary_check(prog: &Path, c: &Checkpoint) -> Result<BinaryCheck, InspectError> {
    let bytes = std::fs::read(prog).map_err(|source| InspectError::Io { path: prog.to_path_buf(), source })?;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    Ok(BinaryCheck {
        path: prog.display().to_string(),
        hash: hex(hash),
        size: bytes.len() as u64,
        matches: hash == c.header.binary_hash && bytes.len() as u64 == c.header.binary_size,
    })
}

#[derive(Debug, Serialize)]
pub struct WorkerReport {
    pub thread: u32,
    /// "candidate", "barrier", "exited" or "idle".
    pub state: &'static str,
    pub label_stack: Vec<FrameReport>,
    pub threadprivate: Vec<Var>,
    /// Its copies of flang's threadprivate variables (in the threadprivate
    /// arena; size 0: not live at the checkpoint, only the address kept).
    pub threadprivate_copies: Vec<Var>,
}

pub fn file_report(path: &Path, c: &Checkpoint, file_bytes: u64, binary: Option<&Path>) -> Result<FileReport, InspectError> {
    let mut totals = Totals::default();
    let var = |name: &str, loc: &Option<std::borrow::Cow<str>>, size: usize, a: Option<u64>| Var {
        name: name.to_string(),
        loc: loc.as_ref().map(|l| l.to_string()),
        size: size as u64,
        addr: a.map(addr),
    };
    let frame_report = |f: &dao_format::Frame, totals: &mut Totals| {
        let slots: Vec<Var> = f.slots.iter().map(|s| var(&s.name, &s.loc, s.bytes.len(), None)).collect();
        let objs: Vec<Var> = f.stack_objects.iter().map(|o| var(&o.name, &o.loc, o.bytes.len(), Some(o.addr))).collect();
        totals.slots += slots.iter().map(|v| v.size).sum::<u64>();
        totals.stack += objs.iter().map(|v| v.size).sum::<u64>();
        FrameReport { function: f.function.to_string(), site: f.site, frame_addr: addr(f.frame_addr), slots, stack_objects: objs }
    };
    let workers: Vec<WorkerReport> = c
        .workers
        .iter()
        .map(|w| WorkerReport {
            thread: w.thread,
            state: match w.state {
                dao_format::WORKER_AT_CANDIDATE => "candidate",
                dao_format::WORKER_AT_BARRIER => "barrier",
                dao_format::WORKER_EXITED => "exited",
                _ => "idle",
            },
            label_stack: w.chain.iter().map(|f| frame_report(f, &mut totals)).collect(),
            threadprivate: w.tls.iter().map(|t| var(&t.name, &None, t.bytes.len(), None)).collect(),
            threadprivate_copies: w.tp.iter().map(|t| var(&t.name, &None, t.bytes.as_ref().map_or(0, |b| b.len()), Some(t.addr))).collect(),
        })
        .collect();
    totals.globals += workers.iter().flat_map(|w| w.threadprivate.iter().chain(&w.threadprivate_copies)).map(|v| v.size).sum::<u64>();
    let label_stack = c
        .chain
        .iter()
        .map(|f| {
            let slots: Vec<Var> = f.slots.iter().map(|s| var(&s.name, &s.loc, s.bytes.len(), None)).collect();
            let objs: Vec<Var> =
                f.stack_objects.iter().map(|o| var(&o.name, &o.loc, o.bytes.len(), Some(o.addr))).collect();
            totals.slots += slots.iter().map(|v| v.size).sum::<u64>();
            totals.stack += objs.iter().map(|v| v.size).sum::<u64>();
            FrameReport {
                function: f.function.to_string(),
                site: f.site,
                frame_addr: addr(f.frame_addr),
                slots,
                stack_objects: objs,
            }
        })
        .collect();
    let globals: Vec<GlobalVar> = c.globals.iter().map(|g| GlobalVar { var: var(&g.name, &g.loc, g.bytes.len(), Some(g.addr)), why: g.why.as_ref().map(|w| w.to_string()) }).collect();
    let dead_globals: Vec<DeadReport> = c
        .dead
        .iter()
        .map(|d| DeadReport { name: d.name.to_string(), size: d.size, saved: d.saved, dead: d.size - d.saved.min(d.size), why: d.why.as_ref().map(|w| w.to_string()) })
        .collect();
    totals.globals += globals.iter().map(|v| v.var.size).sum::<u64>();
    let saved: Vec<_> = c.heap.blocks.iter().filter_map(|b| b.bytes.as_ref()).collect();
    let heap = HeapReport {
        blocks_total: c.heap.blocks.len() as u64,
        blocks_saved: saved.len() as u64,
        bytes_allocated: c.heap.blocks.iter().map(|b| b.size).sum(),
        bytes_saved: saved.iter().map(|b| b.len() as u64).sum(),
        meta_bytes: c.heap.meta.len() as u64,
    };
    totals.heap = heap.bytes_saved;
    let mut devices: Vec<DeviceReport> = Vec::new();
    for d in &c.devices {
        let range = DeviceRange {
            name: d.name.as_ref().map(|n| n.to_string()),
            addr: addr(d.addr),
            size: d.size,
            map: map_words(d.map_type),
            dyn_refs: d.dyn_refs,
            hold_refs: d.hold_refs,
            saved: d.bytes.is_some() || d.from_host,
            from_host: d.from_host,
        };
        let saved = if d.from_host { d.size } else { d.bytes.as_ref().map_or(0, |b| b.len() as u64) };
        let host = if d.from_host { d.size } else { 0 };
        match devices.iter_mut().find(|r| r.device == d.device) {
            Some(r) => {
                r.mapped_bytes += d.size;
                r.saved_bytes += saved;
                r.as_host_bytes += host;
                r.ranges.push(range);
            }
            None => devices.push(DeviceReport { device: d.device, mapped_bytes: d.size, saved_bytes: saved, as_host_bytes: host, ranges: vec![range] }),
        }
    }
    devices.sort_by_key(|d| d.device);
    // the bytes the checkpoint holds for the devices: the host's are
    // counted with the globals and the heap
    totals.device = devices.iter().map(|d| d.saved_bytes - d.as_host_bytes).sum();
    totals.total = totals.slots + totals.stack + totals.globals + totals.heap + totals.device;
    let h = &c.header;
    Ok(FileReport {
        path: path.display().to_string(),
        file_bytes,
        format_version: FORMAT_VERSION,
        save_mode: if h.flags & FLAG_SAVE_ALL != 0 { "all" } else { "live" },
        heap_mode: if h.flags & FLAG_HEAP_ALL != 0 { "all" } else { "reachable" },
        binary_hash: hex(h.binary_hash),
        binary_size: h.binary_size,
        binary_check: binary.map(|b| binary_check(b, c)).transpose()?,
        image_base: addr(h.image_base),
        run_id: hex(h.run_id),
        seq: h.seq,
        timestamp: h.timestamp,
        time_utc: utc(h.timestamp),
        pid: h.pid,
        threads: h.threads,
        candidates: c.runtime.candidates,
        checkpoints: c.runtime.checkpoints,
        stdout_offset: c.runtime.stdout_offset,
        stderr_offset: c.runtime.stderr_offset,
        label_stack,
        team_size: c.omp.team_size,
        workers,
        globals,
        dead_bytes: dead_globals.iter().map(|d| d.dead).sum(),
        dead_globals,
        heap,
        heap_objects: heap_objects::reports(c),
        devices,
        totals,
        store: None,
    })
}

pub(super) fn read_checkpoint(path: &Path) -> Result<(Vec<u8>, u64), InspectError> {
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => InspectError::NotFound { path: path.to_path_buf() },
        _ => InspectError::Io { path: path.to_path_buf(), source },
    })?;
    let n = bytes.len() as u64;
    Ok((bytes, n))
}

pub fn dir_report(dir: &Path, binary: Option<&Path>) -> Result<DirReport, InspectError> {
    let cd = CheckpointDir::at(dir);
    let mut checkpoints = Vec::new();
    for (_, p) in cd.list()? {
        let file = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let bytes = std::fs::read(&p);
        let entry = match bytes {
            Err(e) => DirEntry {
                file,
                valid: false,
                store_kind: None,
                parent: None,
                reason: Some(format!("unreadable ({e})")),
                run_id: None,
                seq: None,
                time_utc: None,
                file_bytes: 0,
                binary_matches: None,
            },
            Ok(b) => match dao_format::decode(&b) {
                Ok(c) => DirEntry {
                    file,
                    valid: true,
                    store_kind: None,
                    parent: None,
                    reason: None,
                    run_id: Some(hex(c.header.run_id)),
                    seq: Some(c.header.seq),
                    time_utc: Some(utc(c.header.timestamp)),
                    file_bytes: b.len() as u64,
                    binary_matches: binary.map(|p| binary_check(p, &c).map(|x| x.matches)).transpose()?,
                },
                Err(e) => DirEntry {
                    file,
                    valid: false,
                    store_kind: None,
                    parent: None,
                    reason: Some(e.reason()),
                    run_id: None,
                    seq: None,
                    time_utc: None,
                    file_bytes: b.len() as u64,
                    binary_matches: None,
                },
            },
        };
        checkpoints.push(entry);
    }
    // The storage engine's files (verified, not decoded).
    let sd = StoreDir::at(dir);
    let store_files = sd.list()?;
    let mut restorable = std::collections::BTreeSet::new();
    for (seq, p) in &store_files {
        let file = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let file_bytes = std::fs::metadata(p).map_or(0, |m| m.len());
        let checked = sd.check(*seq).and_then(|(h, _)| sd.verified_chain(*seq).map(|_| h));
        checkpoints.push(match checked {
            Ok(h) => {
                restorable.insert(*seq);
                DirEntry {
                    file,
                    valid: true,
                    store_kind: Some(store_kind(h.kind)),
                    parent: (h.kind != dao_store::Kind::Full).then_some(h.parent_seq),
                    reason: None,
                    run_id: None,
                    seq: Some(*seq),
                    time_utc: None,
                    file_bytes,
                    binary_matches: None,
                }
            }
            Err(e) => DirEntry {
                file,
                valid: false,
                store_kind: None,
                parent: None,
                reason: Some(e.to_string()),
                run_id: None,
                seq: Some(*seq),
                time_utc: None,
                file_bytes,
                binary_matches: None,
            },
        });
    }
    let mut temp_files: Vec<String> = std::fs::read_dir(dir)
        .map_err(|source| InspectError::Io { path: dir.to_path_buf(), source })?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
        .collect();
    temp_files.sort();
    let latest = cd.latest_valid()?;
    let mut restart_from = latest.found.map(|(p, _)| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    // as the runtime chooses: the newest restorable store checkpoint beyond
    // the single file found and the finished marker's coverage
    let file_seq = restart_from.as_deref().and_then(|n| n.split('.').nth(1)).and_then(|x| x.parse::<u64>().ok());
    let floor = cd.finished_through().map_or(0, |t| t + 1).max(file_seq.map_or(0, |q| q + 1));
    if let Some(&q) = restorable.iter().next_back().filter(|&&q| q >= floor) {
        restart_from = Some(StoreDir::file_name(q));
    }
    Ok(DirReport { dir: dir.display().to_string(), checkpoints, temp_files, finished_run: cd.finished_run().map(hex), restart_from })
}

fn store_kind(k: dao_store::Kind) -> &'static str {
    match k {
        dao_store::Kind::Full => "full",
        dao_store::Kind::Incremental => "incremental",
        dao_store::Kind::Differential => "differential",
    }
}

/// `DIR/store.NNNNNN.dst`: rebuilds the checkpoint as a restart would and
/// reports it.
pub(super) fn store_file_report(path: &Path, binary: Option<&Path>) -> Result<FileReport, InspectError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let seq = name.strip_prefix("store.").and_then(|n| n.strip_suffix(".dst")).and_then(|n| n.parse::<u64>().ok());
    let Some(seq) = seq else { return Err(InspectError::NotFound { path: path.to_path_buf() }) };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let sd = StoreDir::at(dir);
    let r = sd.restore(seq)?;
    let by_key: std::collections::HashMap<u64, &[u8]> = r.state.regions.iter().map(|x| (x.addr, &x.bytes[..])).collect();
    let mut fill = |key: u64, len: u64| by_key.get(&key).and_then(|b| b.get(..len as usize));
    let c = dao_format::decode_skeleton(&r.state.meta, &mut fill).map_err(|e| InspectError::Invalid(e.with_file(&path.display().to_string())))?;
    let file_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut rep = file_report(path, &c, file_bytes, binary)?;
    rep.format_version = dao_format::wire::le_u32(&r.state.meta, 8);
    rep.store = Some(StoreReport {
        kind: store_kind(r.kind),
        chain: r.chain.iter().map(|&q| StoreDir::file_name(q)).collect(),
        chain_bytes: r.chain.iter().filter_map(|&q| std::fs::metadata(sd.file_path(q)).ok()).map(|m| m.len()).sum(),
        regions: r.state.regions.len() as u64,
        region_bytes: r.state.regions.iter().map(|x| x.bytes.len() as u64).sum(),
        skeleton_bytes: r.state.meta.len() as u64,
    });
    Ok(rep)
}

fn size(n: u64) -> String {
    const K: f64 = 1024.0;
    let x = n as f64;
    if x < K {
        format!("{n} B")
    } else if x < K * K {
        format!("{:.1} KiB", x / K)
    } else if x < K * K * K {
        format!("{:.1} MiB", x / K / K)
    } else {
        format!("{:.2} GiB", x / K / K / K)
    }
}

pub fn render_file(r: &FileReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "checkpoint {} ({})", r.path, size(r.file_bytes));
    let _ = writeln!(s, "  format       version {}, saved: {} variables, {} heap blocks", r.format_version, r.save_mode, r.heap_mode);
    let _ = write!(s, "  binary       xxh3 {}, {} bytes", r.binary_hash, r.binary_size);
    match &r.binary_check {
        Some(b) if b.matches => {
            let _ = write!(s, " (matches {})", b.path);
        }
        Some(b) => {
            let _ = write!(s, " (DOES NOT MATCH {}: xxh3 {}, {} bytes; a restart with it is refused)", b.path, b.hash, b.size);
        }
        None => {}
    }
    let _ = writeln!(s, "\n  image base   {}", r.image_base);
    if let Some(st) = &r.store {
        let _ = writeln!(
            s,
            "  store        {} checkpoint of the storage engine, rebuilt from {} ({}); {} regions, {}; skeleton {}",
            st.kind,
            st.chain.join(" + "),
            size(st.chain_bytes),
            st.regions,
            size(st.region_bytes),
            size(st.skeleton_bytes)
        );
    }
    let _ = writeln!(s, "  run          {}, checkpoint seq {}, written {} by pid {}", r.run_id, r.seq, r.time_utc, r.pid);
    let _ = writeln!(s, "  threads      {}", r.threads);
    let off = |o: i64| if o < 0 { "not a file".to_string() } else { o.to_string() };
    let _ = writeln!(
        s,
        "  runtime      {} candidates reached, {} checkpoints written; stdout offset {}, stderr offset {}",
        r.candidates,
        r.checkpoints,
        off(r.stdout_offset),
        off(r.stderr_offset)
    );
    let _ = writeln!(s, "label stack ({} frames, outermost first):", r.label_stack.len());
    let var_line = |s: &mut String, kind: &str, v: &Var| {
        let _ = writeln!(
            s,
            "      {kind:<6} {:<24} {:<28} {:>10}{}",
            v.name,
            v.loc.as_deref().unwrap_or("-"),
            size(v.size),
            v.addr.as_ref().map(|a| format!("  at {a}")).unwrap_or_default()
        );
    };
    for (i, f) in r.label_stack.iter().enumerate() {
        let _ = writeln!(s, "  #{i:<3} {}  site {}  frame at {}", f.function, f.site, f.frame_addr);
        for v in &f.slots {
            var_line(&mut s, "slot", v);
        }
        for v in &f.stack_objects {
            var_line(&mut s, "stack", v);
        }
    }
    if r.team_size > 0 {
        let _ = writeln!(s, "taken inside a parallel region: team of {} threads (the stack above is thread 0's)", r.team_size);
    }
    for w in &r.workers {
        let _ = writeln!(s, "thread {} ({}): {} frames", w.thread, w.state, w.label_stack.len());
        for (i, f) in w.label_stack.iter().enumerate() {
            let _ = writeln!(s, "  #{i:<3} {}  site {}  frame at {}", f.function, f.site, f.frame_addr);
            for v in &f.slots {
                var_line(&mut s, "slot", v);
            }
            for v in &f.stack_objects {
                var_line(&mut s, "stack", v);
            }
        }
        for v in &w.threadprivate {
            var_line(&mut s, "tls", v);
        }
        for v in &w.threadprivate_copies {
            var_line(&mut s, "tp", v);
        }
    }
    let _ = writeln!(s, "globals ({}, {}):", r.globals.len(), size(r.totals.globals));
    for g in &r.globals {
        var_line(&mut s, "global", &g.var);
        if let Some(w) = &g.why {
            let _ = writeln!(s, "             kept: {w}");
        }
    }
    if !r.dead_globals.is_empty() {
        let _ = writeln!(s, "dead globals, not saved ({}, {}):", r.dead_globals.len(), size(r.dead_bytes));
        for d in &r.dead_globals {
            let part = if d.saved > 0 { format!(" of {} (saved: {})", size(d.size), size(d.saved)) } else { String::new() };
            let why = d.why.as_deref().map(|w| format!(": rewritten first by {w}")).unwrap_or_else(|| ": no thread reads it before rewriting it".to_string());
            let _ = writeln!(s, "      dead   {:<24} {:>10}{part}{why}", d.name, size(d.dead));
        }
    }
    let h = &r.heap;
    let _ = writeln!(
        s,
        "heap: {} blocks allocated ({}), {} saved ({}); allocator metadata {}",
        h.blocks_total,
        size(h.bytes_allocated),
        h.blocks_saved,
        size(h.bytes_saved),
        size(h.meta_bytes)
    );
    heap_objects::render(&mut s, &r.heap_objects, size);
    for d in &r.devices {
        let host = if d.as_host_bytes > 0 { format!(" ({} of them as the host's bytes)", size(d.as_host_bytes)) } else { String::new() };
        let _ = writeln!(s, "device {}: {} mapped ranges ({}), device copies saved {}{host}", d.device, d.ranges.len(), size(d.mapped_bytes), size(d.saved_bytes));
        for x in &d.ranges {
            let refs = if x.hold_refs > 0 { format!("refs {} + hold {}", x.dyn_refs, x.hold_refs) } else { format!("refs {}", x.dyn_refs) };
            let saved = if x.from_host {
                "saved as the host's bytes (the same)"
            } else if x.saved {
                "saved"
            } else {
                "dead, not saved"
            };
            let _ = writeln!(s, "      map    {:<24} {:>10} at {} {} ({refs}): {saved}", x.name.as_deref().unwrap_or("?"), size(x.size), x.addr, x.map);
        }
    }
    let t = &r.totals;
    let dev = if r.devices.is_empty() { String::new() } else { format!(", device copies {}", size(t.device)) };
    let _ = writeln!(
        s,
        "totals: slots {}, stack objects {}, globals {}, heap {}{dev}; all {}",
        size(t.slots),
        size(t.stack),
        size(t.globals),
        size(t.heap),
        size(t.total)
    );
    s
}

pub fn render_dir(r: &DirReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "checkpoint directory {}", r.dir);
    if r.checkpoints.is_empty() {
        let _ = writeln!(s, "  no checkpoint files");
    }
    for e in &r.checkpoints {
        if let (true, Some(k)) = (e.valid, e.store_kind) {
            let of = e.parent.map(|p| format!(" of {p}")).unwrap_or_default();
            let _ = writeln!(s, "  {:<18} valid    store, {k}{of}, seq {:<5} {:>10}", e.file, e.seq.unwrap_or(0), size(e.file_bytes));
        } else if e.valid {
            let m = match e.binary_matches {
                Some(true) => ", binary matches",
                Some(false) => ", binary DOES NOT MATCH",
                None => "",
            };
            let _ = writeln!(
                s,
                "  {:<18} valid    run {} seq {:<5} {:>10}  {}{m}",
                e.file,
                e.run_id.as_deref().unwrap_or("?"),
                e.seq.unwrap_or(0),
                size(e.file_bytes),
                e.time_utc.as_deref().unwrap_or("")
            );
        } else {
            let _ = writeln!(s, "  {:<18} invalid  {}", e.file, e.reason.as_deref().unwrap_or("?"));
        }
    }
    for t in &r.temp_files {
        let _ = writeln!(s, "  {t:<18} temporary file of an interrupted write (ignored)");
    }
    match &r.finished_run {
        Some(id) => {
            let _ = writeln!(s, "finished: run {id} ended normally (its checkpoints are not resumed)");
        }
        None => {
            let _ = writeln!(s, "finished: no (no run has ended normally in this directory)");
        }
    }
    match &r.restart_from {
        Some(f) => {
            let _ = writeln!(s, "a restart would resume from {f}");
        }
        None => {
            let _ = writeln!(s, "a restart would start from the beginning (no valid checkpoint of an unfinished run)");
        }
    }
    s
}

pub(super) fn to_json<T: Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("reports serialize");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
    }

    #[test]
    fn report_of_an_encoded_checkpoint() {
        use dao_format::{Frame, Global, Heap, HeapBlock, HeapObject, Slot, StackObject};
        use std::borrow::Cow;
        let c = Checkpoint {
            header: dao_format::Header { run_id: 0xabc, seq: 3, threads: 1, ..Default::default() },
            chain: vec![Frame {
                function: "main".into(),
                module_hash: 1,
                site: 2,
                frame_addr: 0x1000,
                slots: vec![Slot { index: 0, name: "i".into(), loc: Some("a.c:3".into()), bytes: Cow::Owned(vec![0; 8]) }],
                stack_objects: vec![StackObject { index: 0, name: "buf".into(), loc: None, addr: 0x2000, bytes: Cow::Owned(vec![0; 64]) }],
            }],
            globals: vec![Global { module_hash: 1, index: 0, name: "g".into(), loc: None, addr: 0x3000, bytes: Cow::Owned(vec![0; 4]), why: Some("read first by the loop at a.c:9".into()) }],
            dead: vec![
                dao_format::DeadGlobal { module_hash: 1, index: 1, name: "work".into(), size: 4096, saved: 0, why: Some("the loop at a.c:9".into()) },
                dao_format::DeadGlobal { module_hash: 1, index: 2, name: "grid".into(), size: 1000, saved: 96, why: None },
            ],
            heap: Heap {
                meta: Cow::Owned(vec![0; 16]),
                blocks: vec![
                    HeapBlock { addr: 0x4000, size: 32, bytes: Some(Cow::Owned(vec![1; 32])) },
                    HeapBlock { addr: 0x5000, size: 100, bytes: None },
                ],
                objects: vec![
                    HeapObject { module_hash: 1, index: 0, name: "u".into(), loc: Some("hs.c:8".into()), addr: 0x4000, size: 32, saved: true, why: None },
                    HeapObject { module_hash: 1, index: 1, name: "w".into(), loc: Some("hs.c:9".into()), addr: 0x5000, size: 96, saved: false, why: Some("the parallel region 'main.omp_outlined' at hs.c:14".into()) },
                ],
            },
            ..Default::default()
        };
        let bytes = c.encode();
        let d = dao_format::decode(&bytes).unwrap();
        let r = file_report(Path::new("x.dao"), &d, bytes.len() as u64, None).unwrap();
        assert_eq!(r.totals.slots, 8);
        assert_eq!(r.totals.stack, 64);
        assert_eq!(r.totals.globals, 4);
        assert_eq!(r.heap.blocks_total, 2);
        assert_eq!(r.heap.blocks_saved, 1);
        assert_eq!(r.totals.total, 8 + 64 + 4 + 32);
        assert_eq!(r.dead_bytes, 4096 + 904);
        let text = render_file(&r);
        assert!(text.contains("main") && text.contains("a.c:3") && text.contains("buf"), "{text}");
        assert!(text.contains("dead globals, not saved (2, "), "{text}");
        assert!(text.contains("work") && text.contains("rewritten first by the loop at a.c:9"), "{text}");
        assert!(text.contains("grid") && text.contains("(saved: 96 B)"), "{text}");
        assert!(text.contains("heap objects, saved (1, 32 B):\n      heap   u") && text.contains("at 0x4000 (hs.c:8): saved\n"), "{text}");
        assert!(text.contains("heap objects left out (dead) (1, 96 B):\n      dead   w"), "{text}");
        assert!(text.contains("96 B at 0x5000 (hs.c:9): rewritten first by the parallel region 'main.omp_outlined' at hs.c:14"), "{text}");
        let j: serde_json::Value = serde_json::from_str(&to_json(&r)).unwrap();
        let w = &j["heap_objects"][1];
        assert_eq!((w["module_hash"].as_str(), w["index"].as_u64(), w["name"].as_str(), w["loc"].as_str()), (Some("0000000000000001"), Some(1), Some("w"), Some("hs.c:9")));
        assert_eq!((w["addr"].as_str(), w["size"].as_u64(), w["saved"].as_bool()), (Some("0x5000"), Some(96), Some(false)));
        assert!(w["why"].as_str().is_some_and(|x| x.starts_with("the parallel region")) && j["heap_objects"][0]["why"].is_null());
        // an older file: no heap objects, no lines
        let mut old = r;
        old.heap_objects.clear();
        assert!(!render_file(&old).contains("heap objects"));
    }
}
