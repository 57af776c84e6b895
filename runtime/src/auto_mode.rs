//! `DAO_ASYNC=auto` (the default): whether a checkpoint is written by a
//! forked writer (background.rs) or by the program, chosen from what is
//! measured (issue #36; docs/design.md section 15, "auto").
//!
//! Two costs, in seconds of the program's run per checkpoint:
//! - **in place**: the pause (collection, write, fsync, commit). Measured
//!   when a checkpoint is written in place; predicted, after a background
//!   one, from the collection plus the writer's own write time.
//! - **background**: the pause (collection, fork), the wait for a writer
//!   still running at the next checkpoint, and the program's *slowdown*
//!   while the writer lived: a writer takes a core from a program whose
//!   threads use them all, and every page the program writes then faults
//!   once to be copied. The slowdown is measured from the candidates' rate.
//!   While a writer lives, the runtime looks about every millisecond
//!   (`measuring`, read by policy.rs's arming); the span from the fork's
//!   return to the first look after the writer finished holds `dn`
//!   candidates in `dt` seconds. Spans without a writer (from that look to
//!   the next checkpoint; from an in-place checkpoint's return to the next)
//!   give the program's undisturbed time per candidate `tpc` (a running
//!   mean). Slowdown = `dt - dn * tpc`, at least 0.
//!
//! Before the background cost is known (the first checkpoints; a run with
//! one checkpoint) the **prior** is the cores and the writer. The cores
//! the program may use (its affinity mask, a cgroup v2 CPU quota) less its
//! OpenMP threads, and the idle time of those cores since the previous
//! checkpoint or the start (/proc/stat: other processes count), give the
//! spare cores, the smaller of the two; background when at least half a
//! core is spare. Otherwise in place, and once in-place checkpoints have
//! given `tpc` and the in-place cost, one background checkpoint is tried
//! to measure its cost: after one in-place checkpoint when the writer is
//! *light* (it writes with O_DIRECT and no codec, storage::light_writer:
//! it mostly waits for the disk), after two otherwise; again every
//! [`RETRY`] checkpoints; from then on the cheaper wins. (From 2026-12-03
//! to 12-04 a light writer was the prior's choice on busy cores; once the
//! in-place write started its writeback early it was the cheaper there:
//! NPB MG.A with both cores busy, the fork 1.63 of the in-place cost;
//! docs/results.md.)
//!
//! The rule that came before stays as an override: a checkpoint that had
//! to wait for the previous writer (more than 1 ms), or that comes sooner
//! after the previous one than that one's write took, is written in place
//! (checkpoints faster than their writes: the next would wait anyway).
//!
//! Pure state and arithmetic here (unit-tested); background.rs feeds it
//! the clock, the candidates' count and the writer's outcome, and reads
//! the machine through [`Machine::read`].

/// A writer chosen by `auto` is alive and no look has seen it end yet:
/// policy.rs then arms its countdown to look about every millisecond and
/// calls [`look`] (which background.rs, a higher layer, registers).
static MEASURING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static LOOK: std::sync::OnceLock<fn(u64, u64)> = std::sync::OnceLock::new();

pub fn measuring() -> bool {
    MEASURING.load(std::sync::atomic::Ordering::Relaxed)
}

pub fn set_measuring(on: bool) {
    MEASURING.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Registers what a look does (background.rs: polls the writer).
pub fn set_look(f: fn(u64, u64)) {
    let _ = LOOK.set(f);
}

/// A look of the policy at time `now`, candidate count `n`.
pub fn look(now: u64, n: u64) {
    if let Some(f) = LOOK.get() {
        f(now, n);
    }
}

/// A background checkpoint is tried again (its cost measured again) when
/// the last measurement is this many checkpoints old.
pub const RETRY: u64 = 16;
/// Weight of a new measurement in the running means.
const ALPHA: f64 = 0.5;

/// The machine as the prior sees it.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Machine {
    /// Cores the program may use: affinity mask, capped by a CPU quota.
    pub usable: f64,
    /// Idle cores (of the mask) over the span since the last sample; None
    /// before a first sample.
    pub idle: Option<f64>,
    /// The program's OpenMP threads (omp_get_max_threads).
    pub threads: u32,
    /// Why the forked writer is light on the CPU, if it is (O_DIRECT, no
    /// codec: storage::light_writer): then it is worth a try without a
    /// spare core.
    pub light: Option<&'static str>,
}

/// CPU counters of the cores in the affinity mask (/proc/stat, in ticks),
/// and the cgroup's usage (cpu.stat usage_usec) and quota.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuSample {
    /// Sum over the mask's cores of idle + iowait ticks, and of all ticks.
    pub idle: u64,
    pub total: u64,
    pub cores: u32,
    /// cgroup v2: quota in cores (cpu.max), usage in µs, when limited.
    pub quota: Option<f64>,
    pub usage_us: u64,
    pub at_ns: u64,
}

impl CpuSample {
    /// Reads the counters now (None where /proc is not readable).
    pub fn read(now_ns: u64) -> Option<CpuSample> {
        let mask = affinity();
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let (mut idle, mut total, mut cores) = (0u64, 0u64, 0u32);
        for line in stat.lines() {
            let Some(rest) = line.strip_prefix("cpu") else { continue };
            let mut f = rest.split_whitespace();
            let Some(Ok(n)) = f.next().map(str::parse::<usize>) else { continue };
            if !mask.as_ref().is_none_or(|m| m.contains(&n)) {
                continue;
            }
            let v: Vec<u64> = f.filter_map(|x| x.parse().ok()).collect();
            if v.len() < 5 {
                continue;
            }
            // user nice system idle iowait irq softirq steal (guest is in user)
            idle += v[3] + v[4];
            total += v.iter().take(8).sum::<u64>();
            cores += 1;
        }
        let (quota, usage_us) = cgroup_cpu();
        Some(CpuSample { idle, total, cores, quota, usage_us, at_ns: now_ns })
    }

    /// The machine over the span from `prev` to `self`.
    pub fn machine_since(&self, prev: Option<&CpuSample>, threads: u32) -> Machine {
        let usable = self.quota.map_or(self.cores as f64, |q| q.min(self.cores as f64)).max(1.0);
        let idle = prev.and_then(|p| {
            let dt = self.total.checked_sub(p.total)?;
            if dt == 0 || self.cores == 0 {
                return None;
            }
            let di = self.idle.saturating_sub(p.idle);
            // idle share of the mask's ticks, in cores
            let mut free = di as f64 / dt as f64 * self.cores as f64;
            if let Some(q) = self.quota {
                let wall_us = self.at_ns.saturating_sub(p.at_ns) as f64 / 1e3;
                if wall_us > 0.0 {
                    let used = self.usage_us.saturating_sub(p.usage_us) as f64 / wall_us;
                    free = free.min((q - used).max(0.0));
                }
            }
            Some(free)
        });
        Machine { usable, idle, threads, light: None }
    }
}

/// The CPUs of this thread's affinity mask (None: unknown, all count).
fn affinity() -> Option<Vec<usize>> {
    // SAFETY: sched_getaffinity writes the set we pass, of its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        Some((0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect())
    }
}

/// This process's cgroup v2 directory (/proc/self/cgroup's `0::` line),
/// whose files say its CPU quota here and its memory headroom
/// (background.rs).
pub fn cgroup_dir() -> Option<std::path::PathBuf> {
    let rel = std::fs::read_to_string("/proc/self/cgroup").ok()?.lines().find_map(|l| l.strip_prefix("0::").map(|r| r.trim().to_string()))?;
    Some(std::path::PathBuf::from("/sys/fs/cgroup").join(rel.trim_start_matches('/')))
}

/// cgroup v2: (quota in cores if cpu.max limits it, usage_usec).
fn cgroup_cpu() -> (Option<f64>, u64) {
    let Some(dir) = cgroup_dir() else { return (None, 0) };
    let quota = std::fs::read_to_string(dir.join("cpu.max")).ok().and_then(|t| {
        let mut f = t.split_whitespace();
        let q = f.next()?.parse::<f64>().ok()?; // "max": no quota
        let p = f.next()?.parse::<f64>().ok()?;
        (p > 0.0).then_some(q / p)
    });
    let usage = std::fs::read_to_string(dir.join("cpu.stat"))
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("usage_usec ").and_then(|v| v.trim().parse().ok())))
        .unwrap_or(0);
    (quota, usage)
}

/// How the previous checkpoint was written, for its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Last {
    InPlace { pause_s: f64 },
    Background { pause_s: f64, collect_s: f64 },
}

/// The decision and its reason (DAO_STATS `"async"`).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub background: bool,
    pub why: String,
}

/// What auto knows. Times in ns of CLOCK_MONOTONIC, counts in candidates.
#[derive(Debug, Default)]
pub struct Auto {
    /// Checkpoints decided so far.
    decided: u64,
    last: Option<Last>,
    /// When and at which count the program went on after the last checkpoint.
    ret: Option<(u64, u64)>,
    /// The first look after the last writer finished.
    writer_end: Option<(u64, u64)>,
    /// Undisturbed seconds per candidate (running mean).
    tpc: Option<f64>,
    /// Running means of the two costs, and the checkpoint (decided count)
    /// at which each was last measured.
    cost_bg: Option<(f64, u64)>,
    cost_in: Option<(f64, u64)>,
    /// The previous writer's report: its write time; the wait for it.
    writer_write_s: Option<f64>,
    wait_s: f64,
    /// In-place checkpoints since the last background one.
    in_place_run: u64,
}

fn mean(old: Option<(f64, u64)>, v: f64, at: u64) -> Option<(f64, u64)> {
    Some((old.map_or(v, |(m, _)| m + ALPHA * (v - m)), at))
}

impl Auto {
    /// A span without a writer: `dn` candidates in `dt_ns`.
    fn quiet(&mut self, dt_ns: u64, dn: u64) {
        if dn == 0 {
            return;
        }
        let t = dt_ns as f64 * 1e-9 / dn as f64;
        self.tpc = Some(self.tpc.map_or(t, |m| m + ALPHA * (t - m)));
    }

    /// At a look (policy.rs) while a writer lives: `done` says whether it
    /// has finished. Returns whether looks are still wanted.
    pub fn look(&mut self, now: u64, n: u64, done: bool) -> bool {
        if done && self.writer_end.is_none() && matches!(self.last, Some(Last::Background { .. })) {
            self.writer_end = Some((now, n));
            return false;
        }
        !done
    }

    /// The writer's report was read (at this checkpoint or at exit):
    /// its own write time and how long the program waited for it.
    pub fn settled(&mut self, write_s: f64, wait_s: f64) {
        self.writer_write_s = Some(write_s);
        self.wait_s = wait_s;
    }

    /// Books the previous checkpoint's cost, now that the span after it
    /// has ended (at `now`, count `n`).
    fn book(&mut self, now: u64, n: u64) {
        let (Some(last), Some((rt, rn))) = (self.last.take(), self.ret) else { return };
        let at = self.decided;
        match last {
            Last::InPlace { pause_s } => {
                self.quiet(now.saturating_sub(rt), n.saturating_sub(rn));
                self.cost_in = mean(self.cost_in, pause_s, at);
            }
            Last::Background { pause_s, collect_s } => {
                // the writer's span: to the look that saw it done, or to now
                // (it ran until this checkpoint, or no look saw it end)
                let (et, en) = self.writer_end.unwrap_or((now, n));
                if self.writer_end.is_some() {
                    self.quiet(now.saturating_sub(et), n.saturating_sub(en));
                }
                if let Some(tpc) = self.tpc {
                    let dt = et.saturating_sub(rt) as f64 * 1e-9;
                    let slow = (dt - en.saturating_sub(rn) as f64 * tpc).max(0.0);
                    self.cost_bg = mean(self.cost_bg, pause_s + self.wait_s + slow, at);
                }
                if let Some(w) = self.writer_write_s {
                    // what the same write would have cost in place
                    let pred = collect_s + w;
                    if self.cost_in.is_none_or(|(_, a)| a + RETRY <= at) {
                        self.cost_in = Some((pred, at));
                    }
                }
            }
        }
        self.writer_end = None;
        self.writer_write_s = None;
        self.wait_s = 0.0;
    }

    /// The decision for the checkpoint now being taken (`now`, count `n`).
    /// `faster_than_written`: it waited for the previous writer, or comes
    /// sooner after it than that write took (background.rs).
    pub fn decide(&mut self, now: u64, n: u64, m: &Machine, faster_than_written: bool) -> Choice {
        self.book(now, n);
        self.decided += 1;
        let at = self.decided;
        let c = |background: bool, why: String| Choice { background, why };
        if faster_than_written {
            return c(false, "checkpoints come faster than they are written".into());
        }
        let prior = || {
            let by_threads = m.usable - m.threads as f64;
            let spare = m.idle.map_or(by_threads, |i| i.min(by_threads));
            let idle = m.idle.map_or("unknown".to_string(), |i| format!("{i:.2}"));
            let what = format!("{spare:.2} spare cores ({:.2} usable, {} threads, {idle} idle)", m.usable, m.threads);
            c(spare >= 0.5, what)
        };
        // a light writer (O_DIRECT, no codec) is tried after one checkpoint
        // in place, another after two
        let trial_after = if m.light.is_some() { 1 } else { 2 };
        match (self.cost_bg, self.cost_in) {
            (Some((b, ab)), Some((i, _))) => {
                if b > i && ab + RETRY <= at && self.tpc.is_some() {
                    return c(true, format!("measuring again: {b:.3} s in the background, {i:.3} s in place"));
                }
                c(b <= i, format!("measured {b:.3} s in the background, {i:.3} s in place"))
            }
            (None, Some((i, _))) if self.tpc.is_some() && self.in_place_run >= trial_after => {
                let p = prior();
                if p.background {
                    return p;
                }
                let light = m.light.map_or(String::new(), |l| format!("; {l}"));
                c(true, format!("measuring: {i:.3} s in place, the background not yet measured{light}"))
            }
            _ => prior(),
        }
    }

    /// The checkpoint decided last was started: in place (the program went on
    /// after `pause_s`) or in the background (after its collection and fork).
    pub fn returned(&mut self, now: u64, n: u64, background: bool, pause_s: f64, collect_s: f64) {
        self.ret = Some((now, n));
        self.writer_end = None;
        if background {
            self.last = Some(Last::Background { pause_s, collect_s });
            self.in_place_run = 0;
        } else {
            self.last = Some(Last::InPlace { pause_s });
            self.in_place_run += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn busy() -> Machine {
        Machine { usable: 2.0, idle: Some(0.05), threads: 2, light: None }
    }

    #[test]
    fn prior_needs_a_spare_core() {
        let mut a = Auto::default();
        assert!(!a.decide(0, 0, &busy(), false).background);
        let mut a = Auto::default();
        let free = Machine { usable: 2.0, idle: Some(0.95), threads: 1, light: None };
        let ch = a.decide(0, 0, &free, false);
        assert!(ch.background, "{ch:?}");
        assert!(ch.why.contains("0.95 spare"), "{}", ch.why);
        // a core free by the threads, but another process uses it
        let mut a = Auto::default();
        assert!(!a.decide(0, 0, &Machine { usable: 2.0, idle: Some(0.1), threads: 1, light: None }, false).background);
        // no idle sample yet: the threads decide
        let mut a = Auto::default();
        assert!(a.decide(0, 0, &Machine { usable: 4.0, idle: None, threads: 2, light: None }, false).background);
        // the old rule overrides
        let mut a = Auto::default();
        let free = Machine { usable: 2.0, idle: Some(0.95), threads: 1, light: None };
        assert!(!a.decide(0, 0, &free, true).background);
        // a light writer (O_DIRECT, no codec) is not the prior's choice
        // on busy cores: in place first
        let light = Machine { light: Some("the writer writes with O_DIRECT and no codec"), ..busy() };
        let ch = Auto::default().decide(0, 0, &light, false);
        assert!(!ch.background && ch.why.contains("0.00 spare cores"), "{ch:?}");
        assert!(!Auto::default().decide(0, 0, &light, true).background);
    }

    /// A light writer on busy cores: in place first (the candidates' rate
    /// and the in-place cost), the background tried at the second
    /// checkpoint (not the third); the span after it measures its cost, and
    /// a background that slowed the program more than writing in place did
    /// is left for in place.
    #[test]
    fn light_writer_tried_after_one_in_place() {
        let mut a = Auto::default();
        let m = Machine { light: Some("light"), ..busy() };
        let (mut t, mut n) = (S, 100u64);
        assert!(!a.decide(t, n, &m, false).background);
        t += 3 * S / 10;
        a.returned(t, n, false, 0.3, 0.01);
        t += S;
        n += 100;
        let ch = a.decide(t, n, &m, false);
        assert!(ch.background && ch.why.starts_with("measuring: 0.300 s in place") && ch.why.ends_with("; light"), "{ch:?}");
        // fork 0.05 s; the writer lives 1 s, the program at half speed
        // (50 candidates), then 1 s undisturbed (100 candidates)
        t += S / 20;
        a.returned(t, n, true, 0.05, 0.01);
        assert!(!a.look(t + S, n + 50, true));
        a.settled(0.3, 0.0);
        t += 2 * S;
        n += 150;
        let ch = a.decide(t, n, &m, false);
        // background 0.05 + 0.5 s slowdown against 0.3 s in place
        assert!(!ch.background && ch.why.starts_with("measured 0.550 s in the background, 0.300 s in place"), "{ch:?}");
        // without a light writer the trial waits for a second in-place checkpoint
        let mut a = Auto::default();
        let m = busy();
        assert!(!a.decide(S, 100, &m, false).background);
        a.returned(S + 3 * S / 10, 100, false, 0.3, 0.01);
        assert!(!a.decide(2 * S + 3 * S / 10, 200, &m, false).background);
    }

    /// A busy program: in place twice (which measures the candidates'
    /// rate), then one background checkpoint to measure it; it slowed the
    /// program more than writing in place, so in place from then on, until
    /// the background cost is RETRY checkpoints old.
    #[test]
    fn measures_the_background_once_then_keeps_the_cheaper() {
        let mut a = Auto::default();
        let m = busy();
        let mut t = 0u64;
        let mut n = 0u64;
        // 100 candidates per second; in-place pause 0.4 s
        for _ in 0..2 {
            t += S;
            n += 100;
            let ch = a.decide(t, n, &m, false);
            assert!(!ch.background, "{ch:?}");
            t += 4 * S / 10;
            a.returned(t, n, false, 0.4, 0.01);
        }
        t += S;
        n += 100;
        let ch = a.decide(t, n, &m, false);
        assert!(ch.background && ch.why.starts_with("measuring"), "{ch:?}");
        // the fork pauses 0.05 s; the writer lives 1 s, during which the
        // program does 50 candidates (half speed): slowdown 0.5 s
        t += S / 20;
        a.returned(t, n, true, 0.05, 0.01);
        assert!(a.look(t + S / 2, n + 25, false));
        assert!(!a.look(t + S, n + 50, true));
        a.settled(0.9, 0.0);
        t += 2 * S;
        n += 150;
        let ch = a.decide(t, n, &m, false);
        assert!(!ch.background, "{ch:?}");
        let (b, _) = a.cost_bg.unwrap();
        assert!((b - 0.55).abs() < 0.01, "background cost {b}");
        assert!(ch.why.contains("0.550 s in the background"), "{}", ch.why);
        // in place until the background measurement is RETRY old
        let mut tries = 0;
        for _ in 0..RETRY + 1 {
            t += 4 * S / 10;
            a.returned(t, n, false, 0.4, 0.01);
            t += S;
            n += 100;
            let ch = a.decide(t, n, &m, false);
            if ch.background {
                tries += 1;
                t += S / 20;
                a.returned(t, n, true, 0.05, 0.01);
                a.look(t + S, n + 50, true);
                a.settled(0.9, 0.0);
                t += S;
                n += 50;
                let _ = a.decide(t, n, &m, false);
            }
        }
        assert_eq!(tries, 1);
    }

    /// A free core: the writer costs the program little; background stays.
    #[test]
    fn cheap_background_stays() {
        let mut a = Auto::default();
        let m = Machine { usable: 2.0, idle: Some(0.9), threads: 1, light: None };
        let (mut t, mut n) = (0u64, 0u64);
        for i in 0..20 {
            t += S;
            n += 100;
            let ch = a.decide(t, n, &m, false);
            assert!(ch.background, "checkpoint {i}: {ch:?}");
            t += S / 50;
            a.returned(t, n, true, 0.02, 0.01);
            // the writer lives 0.5 s; the program loses 2%
            a.look(t + S / 2, n + 49, true);
            a.settled(0.5, 0.0);
        }
        let (b, _) = a.cost_bg.unwrap();
        let (i, _) = a.cost_in.unwrap();
        assert!(b < 0.05 && (i - 0.51).abs() < 0.01, "{b} {i}");
    }

    /// Spans without candidates measure nothing (no division by zero, no cost).
    #[test]
    fn no_candidates_no_measurement() {
        let mut a = Auto::default();
        let m = busy();
        let _ = a.decide(S, 0, &m, false);
        a.returned(2 * S, 0, false, 0.4, 0.01);
        let _ = a.decide(3 * S, 0, &m, false);
        assert!(a.tpc.is_none());
        assert!(a.cost_in.is_some());
    }

    #[test]
    fn cpu_sample_reads_this_machine() {
        let a = CpuSample::read(0).expect("/proc/stat");
        assert!(a.cores >= 1 && a.total > 0);
        let mut b = a;
        b.idle += 150;
        b.total += 200;
        b.at_ns = S;
        let m = b.machine_since(Some(&a), 1);
        let idle = m.idle.unwrap();
        assert!((0.0..=a.cores as f64).contains(&idle), "{idle}");
        assert!(m.usable >= 1.0);
    }
}
