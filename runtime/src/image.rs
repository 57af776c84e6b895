//! The collected image of one checkpoint, as checkpoint.rs hands it to a
//! writer (writer.rs, levels.rs): the header, the runtime's counters, the
//! OpenMP state and the collected bytes, with what every DAO_STATS event of
//! it says (`fields`), and the encoding of the single dao-format file
//! (`encode`) with its crash-injection hooks (DAO_CRASH_IN half-way through
//! the bytes, `CrashWriter`).
use std::io::{self, Seek, SeekFrom, Write};
use std::time::Instant;

use dao_format::{CheckpointDir, Header, OmpState, Parts, RuntimeState, Writer};

use crate::collect::Collected;
use crate::stats;

/// One checkpoint, collected: everything a writer needs.
pub struct Image {
    /// DAO_DIR (this rank's directory in an MPI job).
    pub dir: CheckpointDir,
    pub header: Header,
    pub rt: RuntimeState,
    pub omp: OmpState,
    pub c: Collected,
    /// The offload devices' mapped ranges, copied back (offload/).
    pub devices: Vec<dao_format::DeviceRegion<'static>>,
    /// The DAO_STATS fields of the checkpoint event common to every writer.
    pub fields: String,
    /// When the checkpoint began (before stdio was flushed), and the time
    /// its collection took.
    pub t0: Instant,
    pub collect_s: f64,
    /// DAO_CRASH_IN is due at this attempt.
    pub crash_now: bool,
    /// What `fields` is made of (`refresh_fields`).
    pub stats_in: StatsIn,
    /// The time the heap's part of the collection took, and whether the
    /// forked writer collected it (`finish_heap`).
    pub heap_collect_s: f64,
    pub heap_by_writer: bool,
}

/// The inputs of the DAO_STATS fields besides the collection.
pub struct StatsIn {
    pub save_all: bool,
    pub heap_all: bool,
    pub rss: u64,
    pub at: String,
    pub round: Option<(String, f64)>,
    /// Appended as is: DAO_ASYNC=auto's choice.
    pub tail: String,
    /// The time the device copies took to copy back (offload/).
    pub device_copy_s: f64,
}

impl Image {
    /// Makes `fields` again from the collection as it is now.
    pub fn refresh_fields(&mut self) {
        let si = &self.stats_in;
        let round = si.round.as_ref().map(|(p, g)| (p.as_str(), *g));
        let mut f = stats_fields(&self.header, si.save_all, si.heap_all, &self.c, self.collect_s, si.rss, &si.at, round);
        f += &format!(",\"heap_collect_s\":{:.6},\"heap_scan\":\"{}\"", self.heap_collect_s, if self.heap_by_writer { "writer" } else { "program" });
        f += &si.tail;
        if !self.devices.is_empty() {
            // the device copies: mapped, live (saved, of them stored as the
            // host's bytes), and the time to copy them back (B2)
            let d = &self.devices;
            let bytes: u64 = d.iter().map(|d| d.size).sum();
            let saved: u64 = d.iter().filter(|d| d.bytes.is_some() || d.from_host).map(|d| d.size).sum();
            let host: u64 = d.iter().filter(|d| d.from_host).map(|d| d.size).sum();
            f += &format!(",\"device\":{{\"ranges\":{},\"bytes\":{bytes},\"saved_bytes\":{saved},\"as_host_bytes\":{host},\"copy_s\":{:.6}}}", d.len(), si.device_copy_s);
        }
        self.fields = f;
    }

    /// Collects the heap's part of the collection if it is still pending
    /// (`Collected::finish_heap`): in the program, its time is part of the
    /// collection's (`collect_s`); in a forked writer, on its snapshot, it
    /// is the writer's (`heap_collect_s`, `"heap_scan":"writer"`).
    /// Then the device copies equal to saved host bytes are stored as the
    /// host's ([`Image::share_devices`]).
    pub fn finish_heap(&mut self) {
        if self.c.heap_pending.is_some() {
            let t = Instant::now();
            self.c.finish_heap();
            self.heap_collect_s = t.elapsed().as_secs_f64();
            // in a forked writer (background.rs sets WRITER_OF there)
            self.heap_by_writer = crate::diag::WRITER_OF.load(std::sync::atomic::Ordering::Relaxed) != 0;
            if !self.heap_by_writer {
                self.collect_s += self.heap_collect_s;
            }
        }
        self.share_devices();
        self.refresh_fields();
    }

    /// Once the heap's part is collected: every device copy whose bytes
    /// equal those this checkpoint saves of the host at its address (a
    /// global's records, a heap block) is stored as the host's
    /// (`offload::share_with_host`, format 10). In a forked writer the
    /// comparison runs on its snapshot, off the program's time.
    fn share_devices(&mut self) {
        if self.c.heap_pending.is_some() || !self.devices.iter().any(|d| d.bytes.is_some()) {
            return;
        }
        let mut host: Vec<(u64, &[u8])> = self.c.globals.iter().map(|g| (g.addr, &g.bytes[..])).collect();
        host.extend(self.c.heap.blocks.iter().filter_map(|b| b.bytes.as_ref().map(|x| (b.addr, &x[..]))));
        host.sort_by_key(|&(a, _)| a);
        crate::offload::share_with_host(&mut self.devices, &host);
    }

    /// The image as the format's parts (skeletons, layouts).
    pub fn parts(&self) -> Parts<'_> {
        let mut p = self.c.parts(&self.header, &self.rt, &self.omp);
        p.devices = &self.devices;
        p
    }

    /// Writes the single dao-format file into `w`.
    pub fn encode<W: Write + Seek>(&self, w: W) -> io::Result<W> {
        encode(w, &self.header, &self.rt, &self.omp, &self.c, &self.devices)
    }

    /// With `crash`: where DAO_CRASH_IN stops the file, half its bytes.
    pub fn kill_at(&self, crash: bool) -> Option<u64> {
        crash.then(|| {
            let total = self.encode(CountingSink::default()).map_or(0, |k| k.len);
            total / 2
        })
    }
}

/// The DAO_STATS fields of a checkpoint event common to every writer.
#[allow(clippy::too_many_arguments)]
pub fn stats_fields(h: &Header, save_all: bool, heap_all: bool, c: &Collected, collect_s: f64, rss: u64, at: &str, round: Option<(&str, f64)>) -> String {
    let round = round.map_or(String::new(), |(p, g)| format!("\"protocol\":\"{p}\",\"gather_s\":{g:.6},"));
    // what made it due: the policy's kind, a signal, the deadline, forced
    let trigger = crate::policy::trigger_name(crate::policy::trigger());
    format!(
        "{round}\"trigger\":\"{trigger}\",\"threads\":{},\"mode\":\"{}\",\"heap_mode\":\"{}\",\"bytes\":{},\"roles\":{},\"heap_blocks\":{{\"total\":{},\"saved\":{}}},\"heap_objects\":{{\"total\":{},\"left_out\":{}}},\"frames\":{},\"globals\":{},\"collect_s\":{:.6},\"rss_bytes\":{},\"at\":{}",
        h.threads,
        if save_all { "all" } else { "live" },
        if heap_all { "all" } else { "reachable" },
        c.bytes.json(),
        roles_json(c),
        c.heap_blocks_total,
        c.heap_blocks_saved,
        c.heap_objects_total,
        c.heap_objects_left_out,
        c.chain.len(),
        c.globals.len(),
        collect_s,
        rss,
        stats::quote(at)
    )
}

/// Bytes per role: the master's private state (its frames and thread-local
/// values), the workers' (theirs), and the shared state (globals and heap,
/// saved once, by the master).
fn roles_json(c: &Collected) -> String {
    let frames = |ch: &[dao_format::Frame<'_>]| -> u64 {
        ch.iter()
            .map(|f| f.slots.iter().map(|v| v.bytes.len() as u64).sum::<u64>() + f.stack_objects.iter().map(|o| o.bytes.len() as u64).sum::<u64>())
            .sum()
    };
    let tls = |t: &[dao_format::TlsValue<'_>]| -> u64 { t.iter().map(|v| v.bytes.len() as u64).sum() };
    let wf: u64 = c.workers.iter().map(|w| frames(&w.chain)).sum();
    let wt: u64 = c.workers.iter().map(|w| tls(&w.tls)).sum();
    // flang's threadprivate: the workers' copies, and the master's (its
    // copies are the original variables, saved among the globals)
    let wtp: u64 = c.workers.iter().flat_map(|w| w.tp.iter()).filter_map(|x| x.bytes.as_ref()).map(|b| b.len() as u64).sum();
    let mtp: u64 = c.globals.iter().filter(|g| crate::omp::tp::is_var(g.addr as usize)).map(|g| g.bytes.len() as u64).sum();
    format!(
        "{{\"master_frames\":{},\"master_tls\":{},\"master_tp\":{mtp},\"workers\":{},\"workers_frames\":{wf},\"workers_tls\":{wt},\"workers_tp\":{wtp},\"shared\":{}}}",
        frames(&c.chain),
        tls(&c.master_tls),
        c.workers.len(),
        c.bytes.globals.saturating_sub(tls(&c.master_tls) + wt + wtp + mtp) + c.bytes.heap
    )
}

fn encode<W: Write + Seek>(w: W, h: &Header, rt: &RuntimeState, omp: &OmpState, c: &Collected, devices: &[dao_format::DeviceRegion<'_>]) -> io::Result<W> {
    let mut wr = Writer::new(w, h)?;
    wr.runtime(rt)?;
    wr.chain(&c.chain)?;
    wr.threads(omp, &c.master_tls, &c.workers)?;
    wr.globals(&c.globals, &c.dead, devices)?;
    wr.heap(&c.heap)?;
    wr.finish()
}

/// Measures the encoded size (DAO_CRASH_IN needs it to stop half-way).
#[derive(Default)]
struct CountingSink {
    pos: u64,
    len: u64,
}

impl Write for CountingSink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.pos += b.len() as u64;
        self.len = self.len.max(self.pos);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for CountingSink {
    fn seek(&mut self, p: SeekFrom) -> io::Result<u64> {
        self.pos = match p {
            SeekFrom::Start(n) => n,
            SeekFrom::End(d) => self.len.saturating_add_signed(d),
            SeekFrom::Current(d) => self.pos.saturating_add_signed(d),
        };
        Ok(self.pos)
    }
}

/// Passes writes through; with `kill_at`, flushes what was written up to that
/// many bytes and SIGKILLs the process (DAO_CRASH_IN; in a background
/// writer, the program with it), or only the background writer
/// (`writer_only`, DAO_CRASH_WRITER).
pub struct CrashWriter<W: Write + Seek> {
    pub inner: W,
    pub written: u64,
    pub kill_at: Option<u64>,
    pub writer_only: bool,
}

impl<W: Write + Seek> Write for CrashWriter<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if let Some(k) = self.kill_at {
            if self.written + b.len() as u64 >= k {
                let part = (k - self.written.min(k)) as usize;
                self.inner.write_all(&b[..part])?;
                self.inner.flush()?;
                if self.writer_only {
                    crate::diag::kill_this_process();
                }
                crate::diag::kill_self();
            }
        }
        let n = self.inner.write(b)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write + Seek> Seek for CrashWriter<W> {
    fn seek(&mut self, p: SeekFrom) -> io::Result<u64> {
        self.inner.seek(p)
    }
}
