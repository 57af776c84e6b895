//! What dao_main does before user_main runs: read the configuration, open
//! the checkpoint directory, and either start a fresh run or resume the
//! newest valid checkpoint of an unfinished run of this executable by
//! restoring the heap, the globals, the counters and stdout/stderr, and
//! arming the lazy restoration of the frame chain (chain.rs).
use std::time::Instant;

use std::collections::HashMap;

use dao_format::{decode, Checkpoint, CheckpointDir};
use dao_store::{Restored, StoreDir};

use crate::config::Config;
use crate::desc;
use crate::diag::{self, fatal};
use crate::heap;
use crate::identity::{self, Identity};
use crate::policy;
use crate::session::{self, Session};
use crate::stats::{self, Bytes};
use crate::stdio;
use crate::storage::Storage;

/// Sets up the session; resumes a checkpoint when there is one to resume.
pub fn start(cfg: Config) {
    // all of it is the runtime's own code, before the program's main: what
    // it allocates through `malloc` (std's `System`: the threads of rayon's
    // global pool that a store restore starts, the engine's pool) must not
    // land in the dao heap, whose restore would overwrite it
    crate::libc_alloc::own(|| start_own(cfg))
}

fn start_own(cfg: Config) {
    // the signal dispositions the program came with (before dao's
    // MPI_Init, whose library may install its own)
    crate::batch::note_entry(&cfg);
    // flang's threadprivate variables start the workers' copies from their
    // values at program start: taken before a restart writes globals back
    crate::omp::tp::capture_initial();
    // the runtime's own state (atexit handlers) is a module's globals
    crate::process::register();
    policy::install(cfg.policy);
    choose_protocol(&cfg);
    let mut s = Session {
        dir: None,
        ident: Identity::default(),
        run_id: session::fresh_run_id(),
        next_seq: 1,
        checkpoints: 0,
        attempts: 0,
        commits: 0,
        storage: None,
        cfg,
    };
    let Some(path) = s.cfg.dir.clone() else {
        session::install(s);
        return;
    };
    let mut path = path;
    let mpi = s.cfg.mpi.clone().or_else(identity::mpi_library);
    if let Some(how) = &mpi {
        if crate::mpi::lookup("PMPI_Init_thread\0") == 0 {
            // started by a launcher, but not an MPI program: every process
            // would write the same files
            diag::warn(format_args!("DAO_DIR is set, but this process was {how} and is not linked with MPI: the processes would write the same checkpoint files; running without checkpoints"));
            s.cfg.dir = None;
            session::install(s);
            return;
        }
        path = start_mpi(&mut s, &path);
    } else if let Some(f) = &s.cfg.flush_dir {
        diag::warn(format_args!("DAO_FLUSH_DIR={} is ignored: the third level is for MPI jobs (this process is not one); checkpoints go to DAO_DIR only", f.display()));
    }
    let mpi = mpi.is_some();
    match identity::current() {
        Ok(i) => s.ident = i,
        Err(e) => fatal(format_args!("cannot read /proc/self/exe to identify the executable: {e}")),
    }
    let dir = match CheckpointDir::open(&path) {
        Ok(d) => d,
        Err(e) if mpi => fatal(format_args!("{}{e}: the ranks of an MPI job checkpoint together, so none can go on without", crate::mpi::prefix())),
        Err(e) => {
            diag::warn(format_args!("{e}; running without checkpoints"));
            session::install(s);
            return;
        }
    };
    // the files a run writes for the first time after a checkpoint
    // (files/): read by a restart, started afresh by a fresh run
    let journal = path.join("files.journal");
    crate::files::set_journal(journal.clone(), false);
    let restored = match (s.cfg.restart_auto, mpi) {
        (true, false) => resume(&mut s, &dir),
        (true, true) => {
            if let Some(ch) = crate::mpi::restart::choose(&dir) {
                resume_mpi(&mut s, ch);
            }
            None
        }
        (false, _) => None,
    };
    if !crate::process::restored() {
        if !mpi {
            fresh_start(&s, &dir);
        }
        crate::files::set_journal(journal, true);
    }
    // Single files (ckpt.NNNNNN.dao) and store files (store.NNNNNN.dst)
    // share one numbering: a fresh run numbers after the highest of either,
    // a resumed one after the checkpoint it resumed (and, writing single
    // files, after every store file, so the newest checkpoint always has
    // the highest number).
    let store_max = StoreDir::at(&path).max_seq();
    if s.next_seq == 1 {
        s.next_seq = dir.max_seq().max(store_max) + 1;
    }
    s.next_seq = s.next_seq.max(store_max + 1);
    if let Some(cfg) = s.cfg.store.clone() {
        dao_store::set_thread_start(crate::libc_alloc::own_thread);
        match Storage::open(&path, cfg, restored.as_ref(), s.next_seq) {
            Ok(st) => {
                s.next_seq = st.next_seq();
                s.storage = Some(Box::new(st));
            }
            Err(e) => diag::warn(format_args!("cannot start the storage engine (DAO_STORE=engine): {e}; checkpoints are written as single files")),
        }
    }
    drop(restored);
    if mpi {
        // one numbering and one run id for the job, above every version
        // the other levels hold (a job whose own directories were lost must
        // not reuse their numbers, which a finished marker there may cover)
        if let Some(job) = crate::mpi::job() {
            for d in crate::levels::other_levels(job) {
                let d = CheckpointDir::at(d);
                s.next_seq = s.next_seq.max(d.max_seq().max(d.finished_through().unwrap_or(0)) + 1);
            }
        }
        s.next_seq = crate::mpi::max_u64(s.next_seq);
        if s.checkpoints == 0 {
            s.run_id = crate::mpi::bcast_u64(s.run_id, 0);
        }
    }
    s.dir = Some(dir);
    // the batch system's signals and deadline (after a restart has put
    // the program's own handlers back: batch.rs decides whose)
    crate::batch::install(&s.cfg);
    // DAO_ASYNC=auto: the cores' idle time from here to the first checkpoint
    crate::background::started(&s);
    policy::activate();
    session::install(s);
}

/// An MPI program with DAO_DIR: dao initialises MPI now (before main: a
/// restart needs it before the program's code runs), checks that DAO_DIR
/// belongs to a job of as many ranks, picks the partners, and returns this
/// rank's directory (`DAO_DIR/rank.NNNN`). Checkpoints are single files
/// written by the program (the two-phase commit needs the write and the
/// rename apart; docs/design.md, section 16).
fn start_mpi(s: &mut Session, root: &std::path::Path) -> std::path::PathBuf {
    let w = crate::mpi::start(s.cfg.mpi_timeout);
    if let Some(r) = s.cfg.crash_rank {
        if r != w.rank {
            (s.cfg.crash_after, s.cfg.crash_in, s.cfg.crash_writer) = (None, None, None);
        }
    }
    s.cfg.store = None;
    s.cfg.keep = s.cfg.keep.max(2);
    // an interval policy looks every 50 ms, not 1 ms: each look is a collective
    crate::policy::set_check_period(50);
    let job = root.join("job");
    let recorded = std::fs::read_to_string(&job).ok().and_then(|t| t.lines().find_map(|l| l.strip_prefix("ranks ")).and_then(|n| n.trim().parse::<i32>().ok()));
    if let Some(n) = recorded {
        if n != w.size && s.cfg.restart_auto {
            fatal(format_args!(
                "{}{} holds the checkpoints of a job of {n} ranks; this job has {}: restart with {n} ranks (mpirun -np {n}), or use another DAO_DIR, or set DAO_RESTART=never to start from scratch",
                crate::mpi::prefix(),
                root.display(),
                w.size
            ));
        }
    }
    if w.rank == 0 && recorded != Some(w.size) {
        let tmp = root.join(".job.tmp");
        let r = std::fs::create_dir_all(root).and_then(|()| std::fs::write(&tmp, format!("ranks {}\n", w.size))).and_then(|()| std::fs::rename(&tmp, &job));
        if let Err(e) = r {
            fatal(format_args!("cannot write {}: {e}", job.display()));
        }
    }
    let shift = crate::mpi::partner_shift();
    let n = w.size.max(1);
    crate::mpi::set_job(crate::mpi::Job {
        root: root.to_path_buf(),
        partner_root: s.cfg.partner_dir.clone().unwrap_or_else(|| root.join("partner")),
        partner: s.cfg.partner,
        partner_sync: s.cfg.partner_sync,
        holder: (w.rank + shift) % n,
        owner: (w.rank - shift).rem_euclid(n),
        flush_root: s.cfg.flush_dir.clone(),
        flush_every: s.cfg.flush_every,
    });
    root.join(crate::mpi::rank_dir_name(w.rank))
}

/// MPI: restores the version the job agreed on (mpi/restart.rs), after
/// re-creating the MPI objects its log names.
fn resume_mpi(s: &mut Session, ch: crate::mpi::restart::Chosen) {
    let t0 = Instant::now();
    let file = ch.path.display().to_string();
    let c = decode(&ch.blob).unwrap_or_else(|e| fatal(e.with_file(&file)));
    let map = crate::mpi::replay(&ch.log).unwrap_or_else(|e| {
        fatal(format_args!("{}{file}: cannot re-create the MPI objects the checkpoint refers to: {e}", crate::mpi::prefix()))
    });
    let info = format!(
        "\"mpi\":{{\"rank\":{},\"ranks\":{},\"objects\":{},\"translated\":{}}}",
        crate::mpi::rank(),
        crate::mpi::size(),
        ch.log.entries.len(),
        map.map.len()
    );
    restore(s, c, &file, ch.blob.len() as u64, &[], Some(info), t0, Some(&map));
}

/// A fresh start (no checkpoint resumed) of a process that is not an MPI
/// rank. When the last fresh run of this directory neither finished nor
/// left a checkpoint (it was stopped before its first one, and this run
/// starts it again from the beginning), what it wrote is cut back: stdout
/// and stderr to their offsets at its start when they are still the same
/// regular files (the `started` record), and the files it opened for
/// writing to their sizes at its first open of them (the journal, before
/// it is emptied). So output appended across such a stop and the new start
/// is that of one uninterrupted run, as across a restart from a
/// checkpoint. Then this run's own start is recorded. `DAO_RESTART=never`
/// asks for a new run: nothing is cut.
fn fresh_start(s: &Session, dir: &CheckpointDir) {
    if s.cfg.restart_auto {
        if let Some(prev) = dir.started().filter(|p| dir.finished_run() != Some(p.run_id)) {
            let streams = stdio::cut_back_to_start(&prev);
            let files = crate::files::cut_back_unfinished();
            if !streams.is_empty() || files > 0 {
                let mut what: Vec<String> = streams.iter().map(|(fd, n)| format!("{} cut back by {n} bytes", if *fd == 1 { "stdout" } else { "stderr" })).collect();
                if files > 0 {
                    what.push(format!("{files} file{} it wrote cut back", if files == 1 { "" } else { "s" }));
                }
                diag::info(format_args!(
                    "no checkpoint in {} to resume: run {:016x} stopped before its first one; starting it again from the beginning ({})",
                    dir.path().display(),
                    prev.run_id,
                    what.join(", ")
                ));
            }
        }
    }
    let rec = dao_format::Started { run_id: s.run_id, streams: stdio::streams_now() };
    if let Err(e) = dir.record_started(&rec) {
        diag::warn(format_args!("{e}: a stop before the first checkpoint will leave this run's output in place"));
    }
}

/// The checkpoint a restart resumes: a single file, or a state rebuilt by
/// the storage engine (its skeleton in `state.meta`).
enum Found {
    File { path: std::path::PathBuf, blob: dao_format::Blob },
    Store(Restored),
}

/// Sequence number in a `ckpt.NNNNNN.dao` / `store.NNNNNN.dst` name.
fn seq_in_name(p: &std::path::Path) -> u64 {
    let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    n.split('.').nth(1).and_then(|x| x.parse().ok()).unwrap_or(0)
}

/// Chooses the newest checkpoint a restart can use among the single files
/// and the store's chains (newer invalid ones are reported), restores it
/// into memory, and returns the store's state when it came from the store
/// (the engine continues its chain).
fn resume(s: &mut Session, dir: &CheckpointDir) -> Option<Restored> {
    let t0 = Instant::now();
    let latest = match dir.latest_valid() {
        Ok(l) => l,
        Err(e) => fatal(format_args!("{e}; fix the directory or set DAO_RESTART=never")),
    };
    let file_seq = latest.found.as_ref().map(|(p, _)| seq_in_name(p));
    // Store checkpoints: those newer than the single file found and than
    // the finished marker's coverage.
    let store = StoreDir::at(dir.path());
    let floor = dir.finished_through().map_or(0, |t| t + 1).max(file_seq.map_or(0, |q| q + 1)).max(1);
    let mut store_failed: Option<dao_store::StoreError> = None;
    let mut found: Option<Found> = None;
    if store.max_seq() >= floor {
        match store.restore_latest_from(floor) {
            Ok(r) => {
                // a checkpoint of the finished run is never resumed
                let run = dao_format::read_header(&r.state.meta).ok().map(|h| h.run_id);
                if run.is_none() || run != dir.finished_run() {
                    found = Some(Found::Store(r));
                }
            }
            Err(dao_store::StoreError::NothingToRestore { .. }) => {}
            Err(e) => store_failed = Some(e),
        }
    }
    let mut skipped: Vec<(String, String)> =
        latest.skipped.iter().map(|k| (k.path.display().to_string(), k.error.reason())).collect();
    if let Some(Found::Store(r)) = &found {
        skipped.extend(r.fell_back.iter().map(|f| {
            let why = if f.broken_seq == f.seq {
                f.error.to_string()
            } else {
                format!("its chain is broken at {}: {}", StoreDir::file_name(f.broken_seq), f.error)
            };
            (store.file_path(f.seq).display().to_string(), format!("not restorable ({why})"))
        }));
    } else if let Some(e) = &store_failed {
        skipped.push((format!("the store checkpoints of {} from number {floor} on", dir.path().display()), format!("not restorable ({e})")));
    }
    if found.is_none() {
        found = latest.found.map(|(path, blob)| Found::File { path, blob });
    }
    let Some(found) = found else {
        if !skipped.is_empty() {
            let reasons: Vec<String> = skipped.iter().map(|(f, why)| format!("{f}: {why}")).collect();
            fatal(format_args!(
                "no valid checkpoint in {}: {}; remove the directory or set DAO_RESTART=never to start from scratch",
                dir.path().display(),
                reasons.join("; ")
            ));
        }
        return None;
    };
    let (file, file_bytes, store_info) = match &found {
        Found::File { path, blob } => (path.display().to_string(), blob.len() as u64, None),
        Found::Store(r) => {
            let bytes: u64 = r.chain.iter().filter_map(|&q| std::fs::metadata(store.file_path(q)).ok()).map(|m| m.len()).sum();
            let chain: Vec<String> = r.chain.iter().map(|q| q.to_string()).collect();
            let info = format!(
                "\"storage\":\"engine\",\"store\":{{\"kind\":\"{}\",\"chain\":[{}],\"regions\":{},\"state_bytes\":{}}}",
                crate::storage::kind_name(r.kind),
                chain.join(","),
                r.state.regions.len(),
                r.state.regions.iter().map(|x| x.bytes.len() as u64).sum::<u64>()
            );
            (store.file_path(r.seq).display().to_string(), bytes, Some(info))
        }
    };
    let c = match &found {
        Found::File { blob, .. } => decode(blob).unwrap_or_else(|e| fatal(e.with_file(&file))),
        Found::Store(r) => {
            let by_key: HashMap<u64, &[u8]> = r.state.regions.iter().map(|x| (x.addr, &x.bytes[..])).collect();
            let mut fill = |key: u64, len: u64| by_key.get(&key).and_then(|b| b.get(..len as usize));
            dao_format::decode_skeleton(&r.state.meta, &mut fill)
                .unwrap_or_else(|e| fatal(format_args!("{}; the store holds an inconsistent checkpoint: remove the directory or set DAO_RESTART=never", e.with_file(&file))))
        }
    };
    if s.cfg.verbose {
        if let Found::Store(r) = &found {
            let chain: Vec<String> = r.chain.iter().map(|&q| StoreDir::file_name(q)).collect();
            diag::info(format_args!("store checkpoint {} ({}): {}", r.seq, crate::storage::kind_name(r.kind), chain.join(" + ")));
        }
    }
    restore(s, c, &file, file_bytes, &skipped, store_info, t0, None);
    match found {
        Found::Store(r) => Some(r),
        Found::File { .. } => None,
    }
}

/// DAO_DEAD=poison: fills every global defined in an instrumented module
/// that the checkpoint does not hold with 0xff bytes (before the saved
/// globals are written back, which overwrite any of it that they share:
/// a common block saved under another file's index). Those globals are
/// dead at every position the checkpoint saved (no thread reads them
/// before writing them), so a correct liveness analysis makes this
/// invisible; a global wrongly found dead no longer keeps the start-up
/// value that may hide the error (NaN for doubles, -1 for integers, an
/// invalid pointer). A global saved only in part (byte ranges live at
/// every saved position) is poisoned whole, and its saved ranges written
/// back over it like the other saved globals. Returns the bytes poisoned
/// that stay poisoned.
fn poison_unsaved_globals(saved: &[dao_format::Global<'_>]) -> u64 {
    // bytes held per global, by its address (a common block is a global of
    // every module that names it, saved under one of them)
    let mut held: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    for g in saved {
        let base = crate::modules::by_hash(g.module_hash).and_then(|m| m.globals().get(g.index as usize)).map_or(g.addr, |d| d.addr as u64);
        *held.entry(base).or_default() += g.bytes.len() as u64;
    }
    let mut seen = std::collections::HashSet::new();
    let mut n = 0;
    for m in crate::modules::all() {
        for d in m.globals() {
            if d.offset == crate::abi::DAO_GLOBAL_DECLARED || d.size == 0 {
                continue;
            }
            let have = held.get(&(d.addr as u64)).copied().unwrap_or(0);
            if have >= d.size {
                continue;
            }
            desc::fill_memory(d.addr as usize, d.size as usize, 0xff);
            if seen.insert(d.addr as u64) {
                n += d.size - have;
            }
        }
    }
    n
}

/// Writes every heap object's address and size the checkpoint recorded
/// back into its module's heap record (the program wrote them after the
/// allocation call, which a restart does not execute again). A module the
/// executable does not have, or a record index past the module's heap
/// objects, is a fatal error (the executable hash check normally stops a
/// checkpoint of another build first).
fn restore_heap_records(objects: &[dao_format::HeapObject<'_>], file: &str) {
    for o in objects {
        let Some(m) = crate::modules::by_hash(o.module_hash) else {
            fatal(format_args!("{file}: the checkpoint names heap object {} ({}) of module {:016x}, which is not in this executable (another build?)", o.index, o.name, o.module_hash))
        };
        if !m.set_heap_record(o.index, o.addr as usize, o.size) {
            fatal(format_args!(
                "{file}: the checkpoint names heap object {} ({}) of module {}, which has only {} (another build?)",
                o.index,
                o.name,
                desc::name(m.source_name),
                m.n_heaps
            ));
        }
    }
}

/// DAO_DEAD=poison: fills with 0xff every allocated heap block whose bytes
/// the checkpoint does not hold: the blocks of heap objects left out (dead
/// in every saved frame of their module) and those the reachability scan
/// did not find (no saved byte points into them, so no saved position can
/// reach them). Called after the allocator's state is restored and before
/// the saved blocks are written back. Returns (blocks, bytes, the heap
/// objects left out among them).
fn poison_unsaved_blocks(heap: &dao_format::Heap<'_>) -> (u64, u64, u64) {
    let (mut n, mut bytes) = (0, 0);
    for b in heap.blocks.iter().filter(|b| b.bytes.is_none()) {
        desc::fill_memory(b.addr as usize, b.size as usize, 0xff);
        n += 1;
        bytes += b.size;
    }
    (n, bytes, heap.objects.iter().filter(|o| !o.saved).count() as u64)
}

/// The bytes of the blocks of the heap objects the checkpoint left out.
fn heap_objects_left_out_bytes(heap: &dao_format::Heap<'_>) -> u64 {
    let mut addrs: Vec<u64> = heap.objects.iter().filter(|o| !o.saved).map(|o| o.addr).collect();
    addrs.sort_unstable();
    addrs.dedup();
    addrs.iter().filter_map(|&a| heap.blocks.binary_search_by_key(&a, |b| b.addr).ok()).map(|i| heap.blocks[i].size).sum()
}

/// Puts the chosen checkpoint back: checks it is this executable's, then
/// heap, globals, stdout/stderr, counters, and arms the lazy restore of
/// the frame chains.
/// `mpi`: the translation of the MPI handles the checkpoint holds
/// (mpi/restart.rs), applied to everything restored.
#[allow(clippy::too_many_arguments)]
pub fn restore(s: &mut Session, c: Checkpoint<'_>, file: &str, file_bytes: u64, skipped: &[(String, String)], store_info: Option<String>, t0: Instant, mpi: Option<&crate::mpi::HandleMap>) {
    let file = file.to_string();
    let h = &c.header;
    if h.binary_hash != s.ident.hash || h.binary_size != s.ident.size {
        fatal(format_args!(
            "{file} was written by a different executable (hash {:016x}, {} bytes; this one is {:016x}, {} bytes); remove the directory or set DAO_RESTART=never",
            h.binary_hash, h.binary_size, s.ident.hash, s.ident.size
        ));
    }
    if h.image_base != s.ident.image_base {
        fatal(format_args!(
            "{file}: the executable is loaded at {:#x}, but was at {:#x} when the checkpoint was written; link with -no-pie (`dao cc` does) so that globals keep their addresses",
            s.ident.image_base, h.image_base
        ));
    }

    // Heap: allocator state, then the saved block contents.
    let allocated: Vec<(usize, usize)> = c.heap.blocks.iter().map(|b| (b.addr as usize, b.size as usize)).collect();
    if let Err(e) = heap::with(|hp| hp.restore(&c.heap.meta, &allocated)) {
        fatal(format_args!("{file}: {e}"));
    }
    // the heap objects' records (ABI 14): their allocation calls are not
    // executed again, and a later checkpoint needs them to leave the blocks
    // out again
    restore_heap_records(&c.heap.objects, &file);
    // DAO_DEAD=poison: the blocks the checkpoint does not hold, before the
    // saved ones are written (which are then never poisoned)
    let heap_poisoned = if s.cfg.poison_dead { Some(poison_unsaved_blocks(&c.heap)) } else { None };
    let mut bytes_restored = Bytes::default();
    for b in &c.heap.blocks {
        if let Some(d) = &b.bytes {
            desc::write_memory(b.addr as usize, d);
            bytes_restored.heap += d.len() as u64;
        }
    }
    bytes_restored.heap_dead = heap_objects_left_out_bytes(&c.heap);
    // DAO_DEAD=poison first, then the saved globals over it: a Fortran
    // common block is a global of every file that names it, at one address
    // (saved under one module's index, unsaved under the others').
    let poisoned = if s.cfg.poison_dead { Some(poison_unsaved_globals(&c.globals)) } else { None };
    // Globals, in place.
    for g in &c.globals {
        let Some(m) = crate::modules::by_hash(g.module_hash) else {
            fatal(format_args!("{file}: global {} belongs to module {:016x}, which is not in this executable", g.name, g.module_hash))
        };
        // the whole global, or one live range of it (saved in part)
        let d = m.globals().get(g.index as usize);
        if !d.is_some_and(|d| {
            d.addr as u64 <= g.addr && g.addr + g.bytes.len() as u64 <= d.addr as u64 + d.size
        }) {
            fatal(format_args!(
                "{file}: global {} does not match this executable's global {} of module {}",
                g.name,
                g.index,
                desc::name(m.source_name)
            ));
        }
        desc::write_memory(g.addr as usize, &g.bytes);
        bytes_restored.globals += g.bytes.len() as u64;
    }
    // MPI handles (C pointers into Open MPI) in the restored data: the
    // objects re-created at this restart
    let mut patched = 0;
    if let Some(m) = mpi.filter(|m| !m.is_empty()) {
        for b in &c.heap.blocks {
            if let Some(d) = &b.bytes {
                patched += m.patch_memory(b.addr, d.len());
            }
        }
        for g in &c.globals {
            patched += m.patch_memory(g.addr, g.bytes.len());
        }
    }
    // The workers' copies of flang's threadprivate variables, at their
    // addresses in the threadprivate arena (omp/tp.rs).
    bytes_restored.globals += crate::omp::tp::restore(&c.workers, &file);
    // the offload devices: their ranges mapped again, their bytes copied to
    // the device copies (offload/), before the program goes on
    let device_bytes = crate::offload::restore(&c.devices, s.cfg.poison_dead, &file);
    if device_bytes > 0 && s.cfg.verbose {
        diag::info(format_args!("{} device ranges mapped again, {device_bytes} bytes copied to the devices", c.devices.len()));
    }
    for f in c.chain.iter().chain(c.workers.iter().flat_map(|w| w.chain.iter())) {
        bytes_restored.slots += f.slots.iter().map(|x| x.bytes.len() as u64).sum::<u64>();
        bytes_restored.stack += f.stack_objects.iter().map(|x| x.bytes.len() as u64).sum::<u64>();
    }
    // exit handlers the checkpointed run registered, its open files
    // (process.rs, files/)
    crate::process::after_restore(&file);
    let out = stdio::rewind_to(1, c.runtime.stdout_offset);
    let err = stdio::rewind_to(2, c.runtime.stderr_offset);
    // after the rewind of stderr, so that they stay in a stderr file
    if let (Some(n), true) = (poisoned, s.cfg.verbose) {
        diag::info(format_args!("DAO_DEAD=poison: {n} bytes of globals the checkpoint does not hold filled with 0xff (before the saved globals were written back)"));
    }
    if let (Some((blocks, bytes, objects)), true) = (heap_poisoned, s.cfg.verbose) {
        diag::info(format_args!(
            "DAO_DEAD=poison, heap: {blocks} allocated blocks ({bytes} bytes, {objects} of them heap objects left out) the checkpoint does not hold filled with 0xff (before the saved blocks were written back)"
        ));
    }
    for (f, why) in skipped {
        diag::warn(format_args!("{f} is {why}, falling back to {file}"));
    }

    policy::set_candidates(c.runtime.candidates);
    s.checkpoints = c.runtime.checkpoints;
    s.run_id = h.run_id;
    s.next_seq = h.seq + 1;
    let age = session::unix_time().saturating_sub(h.timestamp);
    diag::info(format_args!(
        "resuming from {file} (checkpoint {} of run {:016x}, {} frames, {} bytes, written {}s ago by pid {})",
        h.seq,
        h.run_id,
        c.chain.len(),
        file_bytes,
        age,
        h.pid
    ));
    if s.cfg.verbose {
        diag::info(format_args!(
            "restored {} heap blocks ({} with contents), {} globals; stdout {}, stderr {}",
            c.heap.blocks.len(),
            c.heap.blocks.iter().filter(|b| b.bytes.is_some()).count(),
            c.globals.len(),
            if out { "rewound" } else { "left alone" },
            if err { "rewound" } else { "left alone" }
        ));
    }
    stats::append(
        s.cfg.stats.as_deref(),
        &format!(
            "{{\"event\":\"restart\",\"seq\":{},\"file\":{},\"bytes\":{},\"frames\":{},\"file_bytes\":{},\"skipped\":{},\"restore_s\":{:.6}{}}}",
            h.seq,
            stats::quote(&file),
            bytes_restored.json(),
            c.chain.len(),
            file_bytes,
            skipped.len(),
            t0.elapsed().as_secs_f64(),
            store_info.map(|i| format!(",{i}")).unwrap_or_default()
        ),
    );
    // OpenMP: the master's ICVs as they were (for a checkpoint inside a
    // region: at its fork), so the replayed fork builds the same team.
    // ICVs and the main thread's threadprivate values are per thread: put
    // back by dao_thread_start on the thread that runs main; each worker's
    // when it enters its first instrumented region
    let mut icvs = c.omp.clone();
    let threads_wanted = restart_thread_count(&c, &file);
    if let Some(n) = threads_wanted {
        icvs.nthreads = n;
    }
    crate::omp::set_pending_master(icvs, c.master_tls.iter().cloned().map(dao_format::TlsValue::into_owned).collect());
    crate::omp::set_pending_tls(
        c.workers
            .iter()
            .map(|w| (w.thread, w.tls.iter().cloned().map(dao_format::TlsValue::into_owned).collect()))
            .collect(),
    );
    let team_size = c.omp.team_size;
    crate::omp::set_pending_singles(
        c.omp.singles_won,
        std::iter::once((0, c.omp.master_singles)).chain(c.workers.iter().map(|w| (w.thread, w.singles))).collect(),
    );
    let mut workers: Vec<(u32, Vec<dao_format::Frame<'static>>)> =
        c.workers.into_iter().map(|w| (w.thread, w.chain.into_iter().map(dao_format::Frame::into_owned).collect())).collect();
    let mut owned: Vec<dao_format::Frame<'static>> = c.chain.into_iter().map(dao_format::Frame::into_owned).collect();
    if let Some(m) = mpi.filter(|m| !m.is_empty()) {
        for f in owned.iter_mut().chain(workers.iter_mut().flat_map(|w| w.1.iter_mut())) {
            for x in &mut f.slots {
                patched += m.patch(0, x.bytes.to_mut());
            }
            for o in &mut f.stack_objects {
                patched += m.patch(o.addr, o.bytes.to_mut());
            }
        }
        if s.cfg.verbose {
            diag::info(format_args!("{}{patched} MPI handle(s) in the restored data now name the re-created objects", crate::mpi::prefix()));
        }
    }
    crate::chain::begin_restart(owned, workers, team_size, file);
}

/// Non-blocking rounds need the guards in every instrumented module (a
/// worker running unguarded code could write shared data while the master
/// saves it): without them, rounds are blocking.
/// The thread count of the restarted run. A restart keeps the checkpoint's
/// (its ICVs are put back), unless the checkpoint lies between parallel
/// regions and OMP_NUM_THREADS asks for another: the new count is used when
/// no worker holds live threadprivate data. OpenMP keeps a worker's
/// threadprivate values only while the thread count stays the same, and a
/// program that relies on them (per-thread state set up in a first region,
/// the NPB pattern) would compute wrongly with a team of another size, so
/// the restart then stops, naming the variable.
fn restart_thread_count(c: &Checkpoint<'_>, file: &str) -> Option<u32> {
    let n = crate::config::omp_num_threads()?;
    if n == c.omp.nthreads || c.omp.nthreads == 0 {
        return None;
    }
    // the same OMP_NUM_THREADS as the checkpointed run: the team size in
    // the checkpoint is the program's own (omp_set_num_threads), kept
    if crate::process::checkpointed_omp_env() == Some(n) {
        return None;
    }
    if c.omp.team_size != 0 {
        diag::warn(format_args!(
            "{file} was taken inside a parallel region of {} threads: the restart keeps {} threads (OMP_NUM_THREADS={n} applies to a restart from a checkpoint between regions)",
            c.omp.team_size, c.omp.nthreads
        ));
        return None;
    }
    for w in &c.workers {
        let live = w.tls.first().map(|v| v.name.to_string()).or_else(|| w.tp.iter().find(|x| x.bytes.is_some()).map(|x| x.name.to_string()));
        if let Some(v) = live {
            fatal(format_args!(
                "{file}: thread {} holds the threadprivate variable {v}, live at this checkpoint; a team of OMP_NUM_THREADS={n} instead of {} threads would not carry it over (OpenMP keeps threadprivate values only while the thread count stays the same): restart with OMP_NUM_THREADS={}",
                w.thread, c.omp.nthreads, c.omp.nthreads
            ));
        }
    }
    diag::info(format_args!("restarting with OMP_NUM_THREADS={n} threads ({} when the checkpoint was taken, between parallel regions, with no live threadprivate data)", c.omp.nthreads));
    Some(n)
}

fn choose_protocol(cfg: &Config) {
    let modules = crate::modules::all();
    let guarded = modules.iter().all(|m| m.flags & crate::abi::DAO_MODULE_GUARDED != 0);
    let nb = match cfg.nonblocking {
        Some(false) => false,
        want => {
            if want == Some(true) && !guarded {
                let unguarded: Vec<String> =
                    modules.iter().filter(|m| m.flags & crate::abi::DAO_MODULE_GUARDED == 0).map(|m| desc::name(m.source_name).into_owned()).collect();
                diag::warn(format_args!(
                    "DAO_PROTOCOL=nonblocking needs shared-write guards, but {} was compiled without them (DAO_GUARDS=0): checkpoints inside parallel regions use the blocking protocol",
                    unguarded.join(", ")
                ));
            }
            guarded
        }
    };
    crate::protocol::configure(nb, cfg.save_all);
}

/// The exit hook: on normal termination mark the run finished.
pub fn at_exit() {
    if diag::FATAL.load(std::sync::atomic::Ordering::SeqCst) || crate::background::in_writer() {
        return;
    }
    if let Some(p) = crate::chain::restart_pending() {
        diag::warn(format_args!("the program ended before reaching the checkpointed position of {p}"));
    }
    session::with(|s| {
        crate::task_ft::summary(s.cfg.stats.as_deref());
        let deferred = crate::omp::tasks::deferred_rounds();
        if deferred > 0 {
            stats::append(s.cfg.stats.as_deref(), &format!("{{\"event\":\"tasks_in_flight\",\"deferred_rounds\":{deferred}}}"));
        }
        let (held, held_due) = crate::omp::region::held_counts();
        if held > 0 {
            stats::append(s.cfg.stats.as_deref(), &format!("{{\"event\":\"held_regions\",\"candidates\":{held},\"due\":{held_due}}}"));
        }
        let rounds = crate::protocol::rounds();
        if rounds > 0 {
            let stops: Vec<String> = crate::protocol::stop_seconds().iter().map(|x| format!("{x:.6}")).collect();
            stats::append(
                s.cfg.stats.as_deref(),
                &format!(
                    "{{\"event\":\"omp_stops\",\"protocol\":\"{}\",\"rounds\":{rounds},\"stop_s\":[{}]}}",
                    if crate::protocol::nonblocking() { "nonblocking" } else { "blocking" },
                    stops.join(",")
                ),
            );
        }
        // the storage engine's flush in flight commits (or fails) first,
        // and so does a background writer
        crate::storage::finish(s);
        crate::background::finish(s);
        // MPI: the partner copies held and the flushed versions (after
        // MPI_Finalize too: no MPI call when nothing is in flight)
        crate::levels::finished(s.run_id);
        if let Some(dir) = &s.dir {
            if let Err(e) = dir.mark_finished_after(s.run_id, StoreDir::at(dir.path()).max_seq()) {
                diag::warn_once("finished", format_args!("cannot mark the run finished: {e}"));
            } else if s.cfg.verbose {
                diag::info(format_args!("run {:016x} finished; its checkpoints will not be resumed", s.run_id));
            }
        }
    });
}
