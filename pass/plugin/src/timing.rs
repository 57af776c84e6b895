//! `DAO_PASS_TIME=1`: the pass's own time per phase, printed to stderr at
//! the end of each module (like clang's `-ftime-report`, for the pass's
//! developers: issue #33 asks the pass to add under 10% to a compile).
//! Phases nest; each line gives the calls, the total, and the phase's own
//! time (less the phases nested in it) with its share of the whole pass.
//! A phase nested in itself (a translation inside a translation) has its
//! inner calls' time counted in the outer total as well. The shim's phases
//! within its loop facts follow. `DAO_PASS_TIME=2` also prints one line
//! per run of the shim (function, bindings, time). Off, a phase costs one
//! cached environment lookup.
use std::cell::RefCell;
use std::time::{Duration, Instant};

thread_local! {
    static PHASES: RefCell<Vec<(&'static str, u32, Duration, Duration)>> = const { RefCell::new(Vec::new()) };
    // the time of the phases nested in each running phase, innermost last
    static NESTED: RefCell<Vec<Duration>> = const { RefCell::new(Vec::new()) };
    static ON: std::cell::OnceCell<u8> = const { std::cell::OnceCell::new() };
}

/// Whether `DAO_PASS_TIME` is `1` or `2` (read once per compiler process).
pub fn on() -> bool {
    level() >= 1
}

/// `DAO_PASS_TIME=2`: also one line per run of the shim's loop facts.
pub fn each_run() -> bool {
    level() >= 2
}

fn level() -> u8 {
    ON.with(|o| *o.get_or_init(|| match std::env::var_os("DAO_PASS_TIME").as_ref().and_then(|v| v.to_str()) {
        Some("1") => 1,
        Some("2") => 2,
        _ => 0,
    }))
}

/// Run `f` as phase `name`, adding its time to the phase's total.
pub fn phase<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    if !on() {
        return f();
    }
    NESTED.with(|n| n.borrow_mut().push(Duration::ZERO));
    let t = Instant::now();
    let r = f();
    let d = t.elapsed();
    let inner = NESTED.with(|n| {
        let mut n = n.borrow_mut();
        let inner = n.pop().unwrap_or_default();
        if let Some(outer) = n.last_mut() {
            *outer += d;
        }
        inner
    });
    // (a phase nested in itself, like a translation inside a translation,
    // counts once: its own time is in the outer one's)
    let own = d.saturating_sub(inner);
    PHASES.with(|p| {
        let mut p = p.borrow_mut();
        match p.iter_mut().find(|e| e.0 == name) {
            Some(e) => {
                e.1 += 1;
                e.2 += d;
                e.3 += own;
            }
            None => p.push((name, 1, d, own)),
        }
    });
    r
}

/// Print and clear the phases' totals (`whole` names the outermost one).
pub fn report(source: &str, whole: &str) {
    if !on() {
        return;
    }
    let phases = PHASES.with(|p| std::mem::take(&mut *p.borrow_mut()));
    let total = phases.iter().find(|e| e.0 == whole).map_or(Duration::ZERO, |e| e.2).as_secs_f64().max(1e-9);
    eprintln!("dao: pass time for {source}:");
    eprintln!("dao:   {:<28} {:>6}       {:>9} {:>12}", "phase", "calls", "total ms", "own ms, %");
    for (name, n, d, own) in &phases {
        eprintln!("dao:   {name:<28} {n:>6} {:>15.1} {:>8.1} {:>5.1}%", d.as_secs_f64() * 1e3, own.as_secs_f64() * 1e3, 100.0 * own.as_secs_f64() / total);
    }
    // within "shim loop facts"
    for (name, ms) in crate::ir::shim_phases() {
        eprintln!("dao:     {name:<30} {:>12.1} {:>17.1}%", ms, 100.0 * ms / 1e3 / total);
    }
}
