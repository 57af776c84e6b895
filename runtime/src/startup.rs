//! What dao_main does before user_main runs: read the configuration, open
//! the checkpoint directory, and either start a fresh run or resume the
//! newest valid checkpoint of an unfinished run of this executable by
//! restoring the heap, the globals, the counters and stdout/stderr, and
//! arming the lazy restoration of the frame chain (chain.rs).
use std::time::Instant;

use dao_format::{decode, CheckpointDir};

use crate::config::Config;
use crate::desc;
use crate::diag::{self, fatal};
use crate::heap;
use crate::identity::{self, Identity};
use crate::policy;
use crate::session::{self, Session};
use crate::stats::{self, Bytes};
use crate::stdio;

/// Sets up the session; resumes a checkpoint when there is one to resume.
pub fn start(cfg: Config) {
    policy::install(cfg.policy);
    let mut s = Session {
        dir: None,
        ident: Identity::default(),
        run_id: session::fresh_run_id(),
        next_seq: 1,
        checkpoints: 0,
        attempts: 0,
        commits: 0,
        cfg,
    };
    let Some(path) = s.cfg.dir.clone() else {
        session::install(s);
        return;
    };
    match identity::current() {
        Ok(i) => s.ident = i,
        Err(e) => fatal(format_args!("cannot read /proc/self/exe to identify the executable: {e}")),
    }
    let dir = match CheckpointDir::open(&path) {
        Ok(d) => d,
        Err(e) => {
            diag::warn(format_args!("{e}; running without checkpoints"));
            session::install(s);
            return;
        }
    };
    if s.cfg.restart_auto {
        resume(&mut s, &dir);
    }
    if s.next_seq == 1 {
        s.next_seq = dir.max_seq() + 1;
    }
    s.dir = Some(dir);
    policy::activate();
    session::install(s);
}

fn resume(s: &mut Session, dir: &CheckpointDir) {
    let t0 = Instant::now();
    let latest = match dir.latest_valid() {
        Ok(l) => l,
        Err(e) => fatal(format_args!("{e}; fix the directory or set DAO_RESTART=never")),
    };
    let Some((path, bytes)) = latest.found else {
        if !latest.skipped.is_empty() {
            let reasons: Vec<String> = latest.skipped.iter().map(|k| k.error.to_string()).collect();
            fatal(format_args!(
                "no valid checkpoint in {}: {}; remove the directory or set DAO_RESTART=never to start from scratch",
                dir.path().display(),
                reasons.join("; ")
            ));
        }
        return;
    };
    let file = path.display().to_string();
    if !latest.skipped.is_empty() {
        for k in &latest.skipped {
            diag::warn(format_args!("{} is {}, falling back to {}", k.path.display(), k.error.reason(), file));
        }
    }
    let c = decode(&bytes).unwrap_or_else(|e| fatal(e.with_file(&file)));
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
    let mut bytes_restored = Bytes::default();
    for b in &c.heap.blocks {
        if let Some(d) = &b.bytes {
            desc::write_memory(b.addr as usize, d);
            bytes_restored.heap += d.len() as u64;
        }
    }
    // Globals, in place.
    for g in &c.globals {
        let Some(m) = crate::modules::by_hash(g.module_hash) else {
            fatal(format_args!("{file}: global {} belongs to module {:016x}, which is not in this executable", g.name, g.module_hash))
        };
        let d = m.globals().get(g.index as usize);
        if !d.is_some_and(|d| d.addr as u64 == g.addr && d.size == g.bytes.len() as u64) {
            fatal(format_args!("{file}: global {} does not match this executable's global {} of module {}", g.name, g.index, desc::name(m.source_name)));
        }
        desc::write_memory(g.addr as usize, &g.bytes);
        bytes_restored.globals += g.bytes.len() as u64;
    }
    for f in c.chain.iter().chain(c.workers.iter().flat_map(|w| w.chain.iter())) {
        bytes_restored.slots += f.slots.iter().map(|x| x.bytes.len() as u64).sum::<u64>();
        bytes_restored.stack += f.stack_objects.iter().map(|x| x.bytes.len() as u64).sum::<u64>();
    }
    let out = stdio::rewind_to(1, c.runtime.stdout_offset);
    let err = stdio::rewind_to(2, c.runtime.stderr_offset);

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
        bytes.len(),
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
            "{{\"event\":\"restart\",\"seq\":{},\"file\":{},\"bytes\":{},\"frames\":{},\"file_bytes\":{},\"skipped\":{},\"restore_s\":{:.6}}}",
            h.seq,
            stats::quote(&file),
            bytes_restored.json(),
            c.chain.len(),
            bytes.len(),
            latest.skipped.len(),
            t0.elapsed().as_secs_f64()
        ),
    );
    // OpenMP: the master's ICVs as they were (for a checkpoint inside a
    // region: at its fork), so the replayed fork builds the same team.
    // ICVs and the main thread's threadprivate values are per thread: put
    // back by dao_thread_start on the thread that runs main; each worker's
    // when it enters its first instrumented region
    crate::omp::set_pending_master(c.omp.clone(), c.master_tls.iter().cloned().map(dao_format::TlsValue::into_owned).collect());
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
    let workers: Vec<(u32, Vec<dao_format::Frame<'static>>)> =
        c.workers.into_iter().map(|w| (w.thread, w.chain.into_iter().map(dao_format::Frame::into_owned).collect())).collect();
    let owned: Vec<dao_format::Frame<'static>> = c.chain.into_iter().map(dao_format::Frame::into_owned).collect();
    crate::chain::begin_restart(owned, workers, team_size, file);
}

/// The exit hook: on normal termination mark the run finished.
pub fn at_exit() {
    if diag::FATAL.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    if let Some(p) = crate::chain::restart_pending() {
        diag::warn(format_args!("the program ended before reaching the checkpointed position of {p}"));
    }
    session::with(|s| {
        if let Some(dir) = &s.dir {
            if let Err(e) = dir.mark_finished(s.run_id) {
                diag::warn_once("finished", format_args!("cannot mark the run finished: {e}"));
            } else if s.cfg.verbose {
                diag::info(format_args!("run {:016x} finished; its checkpoints will not be resumed", s.run_id));
            }
        }
    });
}
