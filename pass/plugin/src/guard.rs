//! Shared-write guards for the non-blocking checkpoint protocol
//! (runtime/src/protocol/README.md, "Non-blocking rounds").
//!
//! A worker that has *checked in* for a round (copied its private state at
//! a marker) goes on running, but must not write shared data, nor take a
//! lock, until the master has saved the shared state. So before every
//! instruction that may write memory another thread can see, and before
//! every lock acquisition, the pass puts a guard:
//!
//! ```text
//!   %g = load atomic i8, ptr @dao_omp_guard acquire    ; 0 unless a round is saving
//!   br (%g != 0), %dao.guard.slow, %cont               ; unlikely
//! dao.guard.slow:
//!   call void @dao_omp_guard_wait()                    ; waits only if this thread checked in
//! ```
//!
//! Where guards go is decided by `dao_analysis::guards` on an abstract
//! graph of the function (writes, check-in points): one guard covers every
//! write up to the next point where the thread may check in (a marker, a
//! barrier, a call that may reach one), and a loop with no such point gets
//! one guard on entry instead of one per iteration.
//!
//! What counts as a write (conservative: a missed write is a torn
//! checkpoint, an extra guard costs one load):
//! - `store`, `atomicrmw`, `cmpxchg`, `llvm.mem{cpy,move,set}`,
//!   `llvm.masked.store` whose address is not provably private: private are
//!   the function's own stack objects (every thread has its own frame),
//!   thread-local globals, constants;
//! - lock acquisitions (`__kmpc_critical`, `__kmpc_reduce*`, `omp_set_lock`,
//!   ...): a checked-in thread that waited at a guard while holding a lock
//!   could block a thread that still has to check in;
//! - calls of functions outside the module, except those the table
//!   (`known`, column `guard`) says are pure; unknown ones (and indirect calls, inline asm)
//!   may also reach a marker, so they end a guard's reach too.
//!
//! Calls of functions defined in the module are not writes: their own
//! guards cover their writes.
//!
//! Which functions: every function that may run in a team: the outlined
//! functions, whatever is address-taken or visible outside the module, and
//! their callees; not the program's main (it runs serially) nor dao's own.
use dao_analysis::fxhash::{HashMap, HashSet};

use dao_analysis::callgraph::CallGraph;
use dao_analysis::guards::{place_guards, Cfg, Ev, Place};
use dao_analysis::team::{may_run_in_team, TeamFacts};

use crate::provenance::points_to_private;
use crate::ir::{set_unlikely_first, Block, Module, Opcode, Value};
use crate::declare::{abi_global, declare, Fun};
use crate::known::{self, is_dao_own, Guard, Role};
use dao_abi::{entry, global};

/// What the pass did to one module (printed with DAO_REMARKS).
#[derive(Default, Debug)]
pub struct GuardStats {
    pub functions: usize,
    /// Instructions that may write shared memory (or take a lock).
    pub writes: usize,
    /// Stores to provably private memory: no guard needed.
    pub private: usize,
    /// Guards inserted, and how many of them sit on a loop's entry.
    pub guards: usize,
    pub hoisted: usize,
    /// Writes covered by a guard on a loop's entry.
    pub loop_covered: usize,
    /// Loops without a check-in point whose writes share one entry guard,
    /// and innermost loops with one, guarded on entry and after it.
    pub hoisted_loops: usize,
    pub eager_loops: usize,
}

/// Whether guards are inserted at all (`DAO_GUARDS=0` at compile time
/// leaves them out: the module is then marked unguarded and the runtime
/// uses the blocking protocol).
pub fn enabled() -> bool {
    crate::config::guards()
}

/// The guard event of a call of a function the table describes (column
/// `guard`).
fn event(g: Guard) -> Option<Ev> {
    match g {
        Guard::Pure => None,
        Guard::LibcWrite | Guard::OmpWrite | Guard::DaoWrite => Some(Ev::Write),
        Guard::CheckIn => Some(Ev::Kill),
        Guard::Unknown => Some(Ev::WriteKill),
        // (whether the operand is private is the caller's question)
        Guard::WritesOperand(_) => Some(Ev::Write),
    }
}

/// How one instruction takes part: `None` (neither a write nor a check-in
/// point), or the event of `dao_analysis::guards`. `private` counts stores
/// to private memory.
fn classify(i: Value, may_checkin: &HashSet<Value>, private_stores: &mut usize) -> Option<Ev> {
    let addr = match i.opcode() {
        Opcode::LLVMStore => Some(i.operand(1)),
        Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => Some(i.operand(0)),
        Opcode::LLVMCall | Opcode::LLVMInvoke | Opcode::LLVMCallBr => None,
        _ => return None,
    };
    if let Some(a) = addr {
        if points_to_private(a) {
            *private_stores += 1;
            return None;
        }
        return Some(Ev::Write);
    }
    let Some(callee) = i.called_function() else {
        return Some(Ev::WriteKill); // indirect call, inline asm
    };
    let row = known::lookup(callee);
    // intrinsics: a write through an operand (memcpy's destination) unless
    // it is private, a write (scatters), or nothing
    if let Some(r) = row.filter(|r| matches!(r.role, Some(Role::Intrinsic(_)))) {
        return match r.guard {
            Guard::WritesOperand(k) if !points_to_private(i.operand(k)) => Some(Ev::Write),
            Guard::WritesOperand(_) => {
                *private_stores += 1;
                None
            }
            g => event(g),
        };
    }
    // dao's own entry points answer for themselves even where the module
    // defines a function of that name
    if let Some(r) = row.filter(|r| r.role == Some(Role::DaoRuntime)) {
        return event(r.guard);
    }
    if !callee.is_declaration() {
        return may_checkin.contains(&callee).then_some(Ev::Kill);
    }
    event(row.map_or(Guard::Unknown, |r| r.guard))
}

fn direct_callees(f: Value) -> Vec<Value> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if i.is_call() {
                if let Some(c) = i.called_function() {
                    if !c.is_declaration() {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

/// Whether `f` is an outlined parallel region (passed to a fork call).
fn is_outlined(f: Value) -> bool {
    f.users().iter().any(|u| matches!(known::call_role(*u), Some(Role::Fork { .. })))
}

/// Inserts the guards into every function of `m` that may run in a team
/// whose region can be checkpointed: `microtasks` are the outlined
/// functions the plan instruments (other regions never see a round).
///
/// `restart_only`: the blocks only a restart runs (the dispatch from a
/// function's entry to a site, emit.rs). They are left out of the graph:
/// a thread on that path is rebuilding its chain and has not checked in
/// since it entered the function (check-ins are at markers and barriers,
/// and the path has none), and no round can involve it before it is back
/// at its position, where the ordinary paths' guards take over. Left in,
/// their edges into the middle of loops would make every loop with a site
/// irreducible and cost a guard per write.
pub fn insert(m: Module, microtasks: &[Value], restart_only: &[Block]) -> GuardStats {
    let funcs: Vec<Value> = m.functions().into_iter().filter(|f| !f.is_declaration()).collect();
    let ix: HashMap<Value, usize> = funcs.iter().enumerate().map(|(k, f)| (*f, k)).collect();
    let mut cg = CallGraph::new(funcs.len());
    for (k, f) in funcs.iter().enumerate() {
        for c in direct_callees(*f) {
            cg.add_call(k, ix[&c]);
        }
    }

    // functions that may reach a check-in point: those that call an
    // unknown or check-in function directly, and their callers
    let mut scratch = 0usize;
    let none = HashSet::default();
    let direct: Vec<bool> = funcs
        .iter()
        .map(|f| {
            f.blocks().iter().flat_map(|b| b.instructions()).any(|i| {
                i.is_call()
                    && match i.called_function() {
                        None => true,
                        Some(c) if c.is_declaration() => matches!(classify(i, &none, &mut scratch), Some(Ev::Kill | Ev::WriteKill)),
                        Some(_) => false,
                    }
            })
        })
        .collect();
    let reach = cg.may_reach(&direct);
    let may_checkin: HashSet<Value> = funcs.iter().zip(&reach).filter(|(_, r)| **r).map(|(f, _)| *f).collect();

    // functions that may run in a team (dao_analysis::team: why this is not
    // the plan's `parallel`)
    let facts: Vec<TeamFacts> = funcs
        .iter()
        .map(|f| {
            let n = f.name();
            TeamFacts {
                is_main: n == known::names::MAIN,
                dao_own: is_dao_own(&n),
                instrumented_microtask: microtasks.contains(f),
                outlined: is_outlined(*f),
                visible: !f.is_local_linkage() || f.users().iter().any(|u| !(u.is_call() && u.called_value() == *f)),
            }
        })
        .collect();
    let guarded: Vec<Value> = may_run_in_team(&cg, &facts).into_iter().zip(&funcs).filter(|(g, _)| *g).map(|(_, f)| *f).collect();

    let mut st = GuardStats::default();
    let mut order: Vec<Value> = guarded;
    order.sort_by_key(|f| f.name());
    let mut rt = None;
    for f in order {
        st.functions += 1;
        guard_function(m, f, &may_checkin, restart_only, &mut rt, &mut st);
    }
    st
}

/// The runtime's guard flag and wait function, declared at the first guard
/// (a module that needs none stays as it was).
type GuardRt = Option<(Value, Fun)>;

fn guard_function(m: Module, f: Value, may_checkin: &HashSet<Value>, restart_only: &[Block], rt: &mut GuardRt, st: &mut GuardStats) {
    let blocks: Vec<Block> = f.blocks().into_iter().filter(|b| !restart_only.contains(b)).collect();
    let index: HashMap<Block, usize> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let mut cfg = Cfg { succs: Vec::with_capacity(blocks.len()), events: Vec::with_capacity(blocks.len()) };
    let mut at: Vec<Vec<Value>> = Vec::with_capacity(blocks.len());
    for b in &blocks {
        cfg.succs.push(b.successors().iter().filter_map(|s| index.get(s).copied()).collect());
        let mut evs = Vec::new();
        let mut insts = Vec::new();
        for i in b.instructions() {
            if let Some(e) = classify(i, may_checkin, &mut st.private) {
                evs.push(e);
                insts.push(i);
            }
        }
        cfg.events.push(evs);
        at.push(insts);
    }
    let plan = place_guards(&cfg);
    st.writes += plan.writes;
    st.loop_covered += plan.loop_covered;
    // positions first (splitting blocks below does not invalidate them)
    st.eager_loops += plan.eager_loops;
    st.hoisted_loops += plan.hoisted_loops;
    let points: Vec<(Value, bool)> = plan
        .guards
        .iter()
        .filter_map(|p| match *p {
            Place::Before { block, event } => Some((at[block][event], false)),
            // after an invoke (C++): the start of its normal destination
            // (a guard there on another path too only waits more often)
            Place::After { block, event } => match at[block][event] {
                i if i.is_invoke() => i.invoke_normal_dest().first_insertion_point().map(|i| (i, false)),
                i => i.next_instruction().map(|i| (i, false)),
            },
            Place::EndOf(b) => blocks[b].terminator().map(|t| (t, true)),
        })
        .collect();
    if points.is_empty() {
        return;
    }
    let (flag, wait) = *rt.get_or_insert_with(|| (abi_global(m, &global::OMP_GUARD, m.const_null()), declare(m, &entry::OMP_GUARD_WAIT)));
    let b = m.builder();
    for (k, (inst, hoisted)) in points.into_iter().enumerate() {
        st.guards += 1;
        st.hoisted += hoisted as usize;
        let pre = inst.parent_block();
        b.before(inst);
        let g = b.load_acquire(m.i8(), flag, "dao.guard", 1);
        let on = b.icmp_ne(g, m.const_int(m.i8(), 0), "dao.guard.on");
        let cont = Block::split_before(inst, &format!("dao.guarded.{k}"));
        pre.terminator().expect("split block has a branch").erase();
        let slow = m.append_block(f, &format!("dao.guard.slow.{k}"));
        b.at_end(pre);
        let br = b.cond_br(on, slow, cont);
        set_unlikely_first(m, br);
        b.at_end(slow);
        wait.call(&b, &[], "");
        b.br(cont);
    }
}
