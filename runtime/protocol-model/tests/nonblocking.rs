//! Exhaustive interleavings of the non-blocking round (see
//! `dao_protocol_model::nonblocking`). Each positive model also checks
//! which outcomes occurred in complete executions (how each worker was
//! saved, where), so that the consistency assertions are known to have
//! been exercised for each case. The negative models each break the
//! protocol in one place and must fail.
use dao_protocol_model::nonblocking::{run, Config, Fault, How, MStep, Saved, Step};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

type Rounds = Vec<Vec<Saved>>;

/// What the complete executions of a model showed.
#[derive(Default)]
struct Seen {
    outcomes: BTreeSet<Rounds>,
    claimed_checked_in: bool,
}

fn builder(preemptions: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions);
    // the handshakes spin (with yields): allow long executions
    b.max_branches = 100_000;
    b
}

/// Explores every execution of `config` within the preemption bound.
fn explore(preemptions: usize, config: Config) -> Seen {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s = seen.clone();
    builder(preemptions).check(move || {
        let e = run(&config);
        if e.complete {
            let mut g = s.lock().unwrap();
            g.outcomes.insert(e.rounds);
            g.claimed_checked_in |= e.claimed_checked_in;
        }
    });
    Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap()
}

fn saved(how: How, pos: usize) -> Saved {
    Saved { how, pos }
}

/// The set of one-round outcomes, each a list of per-worker saves.
fn one_round(outcomes: &[&[Saved]]) -> BTreeSet<Rounds> {
    outcomes.iter().map(|o| vec![o.to_vec()]).collect()
}

const W1: Step = Step::Write { cell: 0, bit: 1 };
const W2: Step = Step::Write { cell: 0, bit: 2 };

fn config(workers: Vec<Vec<Step>>, master: Vec<MStep>, fault: Fault) -> Config {
    let cells = 1 + workers.iter().flatten().filter_map(|s| if let Step::Write { cell, .. } | Step::Store { cell, .. } = s { Some(*cell) } else { None }).max().unwrap_or(0);
    let locks = workers.iter().flatten().filter_map(|s| if let Step::Lock(l) = s { Some(*l + 1) } else { None }).max().unwrap_or(0);
    Config { workers, master, cells, locks, fault }
}

/// The paper's figure-8 pattern: a shared write before the marker (in the
/// cut, even when it happens after the round started), a guarded write
/// right after it (not in the cut), then a barrier with the master.
fn fig8(fault: Fault) -> Config {
    config(vec![vec![W1, Step::Marker, W2, Step::Barrier]], vec![MStep::Round, MStep::Barrier], fault)
}

/// Worker A checks in, then takes the lock and writes inside it; worker B
/// takes the lock and writes before its marker.
fn lock(fault: Fault) -> Config {
    config(
        vec![vec![Step::Marker, Step::Lock(0), W1, Step::Unlock(0)], vec![Step::Lock(0), W2, Step::Unlock(0), Step::Marker]],
        vec![MStep::Round],
        fault,
    )
}

/// The master's round comes after a barrier the worker may not have left
/// yet (PARKED, but the barrier completed): it must not be claimed there.
fn stale_barrier(fault: Fault) -> Config {
    config(vec![vec![W1, Step::Barrier, Step::Marker, W2]], vec![MStep::Barrier, MStep::Round], fault)
}

/// 1. One worker, figure 8: saved from its snapshot (x = 1), or claimed in
///    the barrier after a marker that did not see the request yet (x = 3).
#[test]
fn fig8_one_worker() {
    let seen = explore(3, fig8(Fault::None));
    assert_eq!(seen.outcomes, one_round(&[&[saved(How::Snapshot, 2)], &[saved(How::Claimed, 3)]]));
}

/// 1b. The guards as the pass hoists them: one guard covers the stores up
///     to the next marker (x |= 2 and x |= 4 after the check-in).
#[test]
fn fig8_hoisted_guard() {
    let st = |bit| Step::Store { cell: 0, bit };
    let c = config(vec![vec![Step::Guard, st(1), Step::Marker, Step::Guard, st(2), st(4), Step::Barrier]], vec![MStep::Round, MStep::Barrier], Fault::None);
    let seen = explore(3, c);
    assert_eq!(seen.outcomes, one_round(&[&[saved(How::Snapshot, 3)], &[saved(How::Claimed, 6)]]));
}

/// 2. The worker waits in a barrier when the round starts (the master's
///    candidate is before that barrier): claimed in place with x = 1; its
///    write after the barrier is not in the save.
#[test]
fn claimed_in_barrier() {
    let c = config(vec![vec![W1, Step::Barrier, W2]], vec![MStep::WaitParked(0), MStep::Round, MStep::Barrier], Fault::None);
    let seen = explore(3, c);
    assert_eq!(seen.outcomes, one_round(&[&[saved(How::Claimed, 1)]]));
}

/// 2b. A worker that checked in and then parked in a barrier (no shared
///     write in between) may be claimed there instead of being saved from
///     its snapshot: both are the same cut (x = 1).
#[test]
fn checked_in_then_parked() {
    let seen = explore(3, config(vec![vec![W1, Step::Marker, Step::Barrier, W2]], vec![MStep::Round, MStep::Barrier], Fault::None));
    assert_eq!(seen.outcomes, one_round(&[&[saved(How::Snapshot, 2)], &[saved(How::Claimed, 2)]]));
    assert!(seen.claimed_checked_in, "no execution claimed a checked-in worker");
}

/// 2c. A barrier the master has passed is not claimed, even while the
///     worker is still PARKED in it: the worker is saved at its marker
///     after the barrier, or at its end.
#[test]
fn stale_barrier_not_claimed() {
    let seen = explore(3, stale_barrier(Fault::None));
    assert_eq!(seen.outcomes, one_round(&[&[saved(How::Snapshot, 3)], &[saved(How::Exited, 4)]]));
}

/// 3. Two workers and a lock: A checks in and then needs the lock, B
///    needs it before its marker. The guard before the acquisition keeps
///    A from holding the lock while it waits: no deadlock, and the save is
///    the cut (B's write in, A's not, when both checked in).
#[test]
fn lock_two_workers() {
    let seen = explore(3, lock(Fault::None));
    let (a_in, a_out) = (saved(How::Snapshot, 1), saved(How::Exited, 4));
    let (b_in, b_out) = (saved(How::Snapshot, 4), saved(How::Exited, 4));
    assert_eq!(seen.outcomes, one_round(&[&[a_in, b_in], &[a_in, b_out], &[a_out, b_in], &[a_out, b_out]]));
}

/// 4. A worker leaves the region while the master gathers: saved at its
///    end (x = 3), or from its snapshot (x = 1) when it saw the request.
#[test]
fn worker_exits_during_gather() {
    let seen = explore(3, config(vec![vec![W1, Step::Marker, W2]], vec![MStep::Round], Fault::None));
    assert_eq!(seen.outcomes, one_round(&[&[saved(How::Snapshot, 2)], &[saved(How::Exited, 3)]]));
}

/// 5. Master and two workers, each worker with the figure-8 pattern on a
///    cell of its own. Preemption bound 2 (~25 s; 3 takes many minutes).
#[test]
fn fig8_two_workers() {
    let w = |cell| vec![Step::Write { cell, bit: 1 }, Step::Marker, Step::Write { cell, bit: 2 }, Step::Barrier];
    let seen = explore(2, config(vec![w(0), w(1)], vec![MStep::Round, MStep::Barrier], Fault::None));
    let (s, c) = (saved(How::Snapshot, 2), saved(How::Claimed, 3));
    assert_eq!(seen.outcomes, one_round(&[&[s, s], &[s, c], &[c, s], &[c, c]]));
}

/// 6. Two rounds in a row with one worker (two markers): the snapshot of
///    round 1 is read before round 2 overwrites it, `checked` left from
///    round 1 does not hold the worker in round 2.
#[test]
fn two_rounds() {
    let c = config(
        vec![vec![W1, Step::Marker, W2, Step::Marker, Step::Write { cell: 0, bit: 4 }, Step::Barrier]],
        vec![MStep::Round, MStep::Round, MStep::Barrier],
        Fault::None,
    );
    let seen = explore(3, c);
    let first: BTreeSet<_> = seen.outcomes.iter().map(|r| r[0][0]).collect();
    assert_eq!(first, [saved(How::Snapshot, 2), saved(How::Snapshot, 4), saved(How::Claimed, 5)].into());
    for r in &seen.outcomes {
        assert!(r[1][0].pos >= r[0][0].pos, "round 2 saved the worker behind round 1: {r:?}");
    }
}

// Negative models: each broken variant must make the model fail with the
// given message (a model that stops failing means the check lost its teeth).

macro_rules! negative {
    ($($(#[doc = $doc:literal])* $name:ident: $expected:literal => $model:expr;)+) => {$(
        $(#[doc = $doc])*
        #[test]
        #[should_panic(expected = $expected)]
        fn $name() {
            explore(3, $model);
        }
    )+};
}

negative! {
    /// The guard flag set after the request: a worker that checked in can
    /// miss it and write during the save (data race on x).
    fault_guard_after_request: "Causality violation" => fig8(Fault::GuardAfterRequest);
    /// No guard flag at all: the post-cut write is not held.
    fault_no_guard: "Causality violation" => fig8(Fault::NoGuard);
    /// A guard placed before the marker does not cover a store after it
    /// (a placement error of the pass, not of the runtime).
    fault_guard_before_marker: "Causality violation" => config(vec![vec![Step::Guard, Step::Store { cell: 0, bit: 1 }, Step::Marker, Step::Store { cell: 0, bit: 2 }, Step::Barrier]], vec![MStep::Round, MStep::Barrier], Fault::None);
    /// Lock acquisition not guarded: A holds the lock while it waits at the
    /// guard of its write, B waits for the lock before its marker, the master
    /// waits for B.
    fault_unguarded_lock: "deadlock" => lock(Fault::UnguardedLock);
    /// `checked` published before the snapshot is written: race on snap.
    fault_snap_after_check_in: "Causality violation" => fig8(Fault::SnapAfterCheckIn);
    /// Claiming without `syncs > master_syncs`: the worker is saved inside a
    /// barrier that has completed (the master is past it).
    fault_claim_stale: "which has completed" => stale_barrier(Fault::ClaimStale);
    /// `done` published relaxed: the held write is not ordered after the
    /// master's read of x.
    fault_relaxed_done: "Causality violation" => fig8(Fault::RelaxedDone);
    /// `checked` published relaxed: the snapshot (and the pre-cut write) are
    /// not ordered before the master's reads.
    fault_relaxed_check_in: "Causality violation" => fig8(Fault::RelaxedCheckIn);
    /// PARKED stored relaxed: a claimed worker's frame and writes are not
    /// ordered before the master's reads.
    fault_relaxed_park: "Causality violation" => config(vec![vec![W1, Step::Barrier, W2]], vec![MStep::WaitParked(0), MStep::Round, MStep::Barrier], Fault::RelaxedPark);
    /// The guard flag loaded relaxed: a checked-in worker that reads the 0
    /// stored after the save is not ordered after the save's reads.
    fault_relaxed_guard_load: "Causality violation" => fig8(Fault::RelaxedGuardLoad);
    /// No guard flag, two workers and a lock: A's post-cut write reaches the
    /// save without a data race (B takes the lock after A released it, then
    /// checks in, and the master reads x after B's check-in), so only the
    /// consistency check sees it: x = 3 saved with A at its marker.
    fault_no_guard_torn_through_lock: "is not the cut" => lock(Fault::NoGuard);
}
