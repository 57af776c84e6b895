//! Heap objects (issue #33, item 3): the blocks of allocation calls the
//! liveness can name, so that a block the next step rewrites before reading
//! is left out of a checkpoint instead of being saved because some saved
//! pointer reaches it.
//!
//! A *tracked site* is an allocation call (`malloc`, `calloc`,
//! `aligned_alloc`, `memalign`, C++ `new`/`new[]`; see
//! `dao_analysis::known::alloc_size_args`) in `main` or flang's `_QQmain`
//! (each runs once per run) in a block on no cycle of that function, so it
//! allocates at most one block per run, whose address never leaves the
//! module's code: every value that may hold it is reached from the call by
//! the walk below, through address arithmetic, merges, loads of the stack
//! slots and internal globals it is stored into (*roots*, every store there
//! a whole pointer), the parameters of the defined functions and outlined
//! regions it (or a root's address) is passed to, and the uses are loads
//! and stores *through* it, memory intrinsics, known library functions
//! that do not keep their pointer arguments, comparisons (also of its
//! integer value: the vectoriser's overlap checks) and `free`. Anything
//! else -- stored into other memory, returned, passed to code the module
//! does not see, turned into an integer that is used otherwise -- and the
//! site is not tracked (its block stays with the runtime's reachability
//! scan, as before).
//!
//! What this gives the liveness: every pointer the program may hold to
//! the block is one of the values the walk visited, so each of them points
//! into the heap object (`ModuleFacts::heap_may`, joined into their bases)
//! and no other pointer does: a read through an unknown pointer cannot
//! read the block, and another module's code never sees it. The object is
//! a variable after the module's globals (`ModuleFacts::heap_from`), whose
//! size is known only at run time: it is killed only by a loop whose
//! writes cover a prefix of it that reaches its end when a runtime-checked
//! condition holds (`loop_kills.rs`, `cond::Cond::cover`). Values the walk
//! proved to hold exactly the block's address (the call, loads of roots
//! whose every store stores it, parameters of functions called once with
//! it; `ModuleFacts::heap_exact`) are replaced by a stand-in global in the
//! shim's scratch clone, so loops writing through them get boxes of the
//! object.
//!
//! At run time the program writes the block's address and size into the
//! module's heap descriptor right after the call and clears the address
//! before each call that may free it (`emit.rs`); the runtime leaves the
//! block out when every walked frame of the module has the object dead
//! (dao-abi `HEAP_DESC`).
use crate::ir::{Module, Opcode, Value};
use crate::known::{self, Intr};
use dao_analysis::fxhash::HashSet;

/// One tracked allocation site.
pub struct HeapSite {
    /// The allocation call (in `main` or `_QQmain`).
    pub call: Value,
    /// The call's arguments whose product is the block's size in bytes.
    pub size_args: &'static [u32],
    /// The calls that may free the block (`free(p)` with `p` one of the
    /// values that may hold it): the record's address is cleared before.
    pub frees: Vec<Value>,
    /// Every value that may hold the block's address (or one inside it).
    pub may: Vec<Value>,
    /// The values that certainly hold its address (its first byte).
    pub exact: Vec<Value>,
    /// The source variable it went to (a root's name), for messages.
    pub name: String,
    pub loc: Option<String>,
    /// Its address is in an offload argument array handed to libomptarget
    /// (`#pragma omp target` maps it): libomptarget may copy the block to
    /// and from the device in any of its calls, so every such call (and,
    /// the object being escaped, every unknown call) may read it.
    pub offload: bool,
}

/// Why a site is not tracked (for `-Rdao` and `DAO_DEBUG_LOOPS`).
type Refused = String;

/// An allocation call of the module the liveness does not follow: its
/// blocks are saved whenever a saved pointer reaches them (`-Rdao` names
/// each, issue #33 item 2: users need the reason to act).
pub struct Untracked {
    /// The allocation function (`malloc`, `_Znwm`, ...).
    pub callee: String,
    /// The function the call is in.
    pub func: String,
    pub loc: Option<String>,
    pub why: String,
    /// How many calls this line stands for (copies of one call, or calls
    /// on one source line for the same reason).
    pub n: usize,
}

/// " at FILE:LINE" of instruction `v`, or nothing.
fn at_loc(v: Value) -> String {
    v.debug_loc().map(|l| format!(" at {l}")).unwrap_or_default()
}

/// The tracked allocation sites of module `m`, in the order of the calls,
/// and every other allocation call of its defined functions with the
/// reason it is not tracked.
pub fn sites(m: Module) -> (Vec<HeapSite>, Vec<Untracked>) {
    let mut out = Vec::new();
    let mut refused = Vec::new();
    let mut looked = HashSet::default();
    for name in [known::names::MAIN, known::names::FORTRAN_MAIN] {
        let Some(f) = m.function(name).filter(|f| !f.is_declaration()) else { continue };
        looked.insert(f);
        // called once: never by the program itself
        let called = (!f.users().is_empty() && name == known::names::MAIN) || (name == known::names::FORTRAN_MAIN && f.users().len() > 1);
        let cyclic = cyclic_blocks(f);
        for b in f.blocks() {
            for i in b.instructions() {
                if !i.is_call() {
                    continue;
                }
                let Some(callee) = i.called_function() else { continue };
                if let Some(u) = fortran_allocate(f, i, callee) {
                    refused.push(u);
                    continue;
                }
                let Some(size_args) = known::alloc_size_args(callee) else { continue };
                let why = if called {
                    Err(format!("'{}' is called by the program, so the call may run more than once", crate::diag::demangle(name)))
                } else if cyclic.contains(&b) {
                    Err("the call is in a loop: one call site for many blocks, which the analysis cannot tell apart".to_string())
                } else {
                    track(m, i, size_args)
                };
                match why {
                    Ok(s) => out.push(s),
                    Err(why) => {
                        if crate::config::debug_loops() {
                            eprintln!("dao-debug: heap block of '{}' at {:?} not tracked: {why}", callee.name(), i.debug_loc());
                        }
                        refused.push(Untracked { callee: callee.name(), func: f.name(), loc: i.debug_loc(), why, n: 1 });
                    }
                }
            }
        }
    }
    // allocations elsewhere: a function may run more than once
    for f in m.functions().into_iter().filter(|f| !f.is_declaration() && !looked.contains(f)) {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if !i.is_call() {
                continue;
            }
            let Some(callee) = i.called_function() else { continue };
            if let Some(u) = fortran_allocate(f, i, callee) {
                refused.push(u);
                continue;
            }
            if known::alloc_size_args(callee).is_none() {
                continue;
            }
            let why = format!("allocated in '{}', not in the main program: only main's allocations outside its loops are followed, which run at most once", crate::diag::demangle(&f.name()));
            refused.push(Untracked { callee: callee.name(), func: f.name(), loc: i.debug_loc(), why, n: 1 });
        }
    }
    // (copies of one call by unswitching or unrolling: one line)
    let mut merged: Vec<Untracked> = Vec::new();
    for u in refused {
        match merged.iter_mut().find(|m| (&m.callee, &m.func, &m.loc, &m.why) == (&u.callee, &u.func, &u.loc, &u.why)) {
            Some(m) => m.n += 1,
            None => merged.push(u),
        }
    }
    (out, merged)
}

/// The placeholder size of a heap object's stand-in when its block's size
/// is known only at run time (1 TiB): larger than any block, so no
/// constant box ever covers it and no read is clipped.
pub const HEAP_SIZE: u64 = 1 << 40;

/// The size of a site's block when its size arguments are constants (at
/// least 1 byte, below the placeholder's 2^40): the block is then exactly
/// that long, and reads or writes beyond it are undefined.
pub fn constant_size(site: &HeapSite) -> Option<u64> {
    let mut n: u64 = 1;
    for &a in site.size_args {
        let c = u64::try_from(site.call.operand(a).const_int_sext()?).ok()?;
        n = n.checked_mul(c)?;
    }
    (1..HEAP_SIZE).contains(&n).then_some(n)
}

/// libomptarget's data-mapping entry points, which take offload argument
/// arrays (host addresses, sizes, map types) and copy between the host and
/// the device during the call (or, `nowait`, in a task the runtime waits
/// for before a checkpoint).
fn offload_mapper(name: &str) -> bool {
    matches!(
        name,
        "__tgt_target_data_begin_mapper" | "__tgt_target_data_end_mapper" | "__tgt_target_data_update_mapper" | "__tgt_target_data_begin_nowait_mapper" | "__tgt_target_data_end_nowait_mapper" | "__tgt_target_data_update_nowait_mapper"
    )
}

/// Whether `dest` is a field of a kernel launch's argument struct: an
/// alloca whose uses are stores into it (through constant offsets),
/// memsets, lifetime markers and `__tgt_target_kernel` calls, so that what
/// is stored there reaches nothing but libomptarget.
fn kernel_args_only(dest: Value) -> bool {
    let Some((base, _)) = dest.strip_offset() else { return false };
    if !(base.is_instruction() && base.is_alloca()) {
        return false;
    }
    fn uses_ok(v: Value, depth: u32) -> bool {
        depth < 4
            && v.users().into_iter().all(|u| {
                u.is_instruction()
                    && match u.opcode() {
                        Opcode::LLVMGetElementPtr => u.operand(0) == v && u.strip_offset().is_some() && uses_ok(u, depth + 1),
                        Opcode::LLVMStore => u.operand(1) == v && u.operand(0) != v,
                        Opcode::LLVMCall => {
                            matches!(known::call_intrinsic(u), Some(Intr::Set { dest, .. }) if u.operand(dest) == v)
                                || known::call_intrinsic(u) == Some(Intr::Lifetime)
                                || u.called_function().is_some_and(|c| c.name() == "__tgt_target_kernel" || c.name() == "__tgt_target_kernel_nowait")
                        }
                        _ => false,
                    }
            })
    }
    uses_ok(base, 0)
}

/// Why an ALLOCATE statement's array is not followed.
const ALLOCATE_WHY: &str = "an ALLOCATE statement (flang's runtime allocates the array and keeps its address in the array's descriptor): allocatable and pointer arrays are not followed yet";

/// Call `i` of function `f` to `callee` as an ALLOCATE statement (flang's
/// runtime entry points), which is never followed: its line for `-Rdao`.
fn fortran_allocate(f: Value, i: Value, callee: Value) -> Option<Untracked> {
    let name = callee.name();
    (name.starts_with("_FortranAAllocatableAllocate") || name.starts_with("_FortranAPointerAllocate")).then(|| Untracked { callee: name, func: f.name(), loc: i.debug_loc(), why: ALLOCATE_WHY.to_string(), n: 1 })
}

/// The blocks of `f` on a cycle of its control flow.
fn cyclic_blocks(f: Value) -> HashSet<crate::ir::Block> {
    let mut out = HashSet::default();
    for b in f.blocks() {
        let mut seen = HashSet::default();
        let mut work = b.successors();
        while let Some(x) = work.pop() {
            if x == b {
                out.insert(b);
                break;
            }
            if seen.insert(x) {
                work.extend(x.successors());
            }
        }
    }
    out
}

/// The walk from one allocation call.
struct Walk {
    /// Values that may hold the block's address.
    may: Vec<Value>,
    seen: HashSet<Value>,
    /// (root, byte offset): stack slots and internal globals the address
    /// is stored into, each checked once.
    roots: HashSet<(Value, i64)>,
    /// (pointer to a root, its pointer's offset, the root): parameters of
    /// regions and functions a root's address is passed to, and -O0's
    /// reloads of their local copies, each checked once.
    captures: HashSet<(Value, i64)>,
    /// Loads of a root's pointer: (root, load, the function of the capture
    /// it went through, if any).
    root_loads: Vec<((Value, i64), Value, Option<Value>)>,
    /// Values stored at a root's pointer: (root, value).
    root_stores: Vec<((Value, i64), Value)>,
    /// Parameters the address may arrive in, with the argument passed.
    param_args: Vec<(Value, Value)>,
    frees: Vec<Value>,
    /// The address reached libomptarget (an offload argument array).
    offload: bool,
    /// A root's name, for messages.
    name: Option<String>,
}

fn track(m: Module, call: Value, size_args: &'static [u32]) -> Result<HeapSite, Refused> {
    let mut w = Walk { may: Vec::new(), seen: HashSet::default(), roots: HashSet::default(), captures: HashSet::default(), root_loads: Vec::new(), root_stores: Vec::new(), param_args: Vec::new(), frees: Vec::new(), offload: false, name: None };
    w.value(m, call)?;
    let exact = w.exact(call);
    let name = w.name.clone().unwrap_or_else(|| "heap".to_string());
    Ok(HeapSite { call, size_args, frees: w.frees, may: w.may, exact, name, loc: call.debug_loc(), offload: w.offload })
}

/// Where an access through a pointer to a root goes: the root, and the
/// function of the capture the pointer arrived through (None: the root's
/// own function, or a global).
#[derive(Clone, Copy)]
struct Via {
    root: (Value, i64),
    capture_fn: Option<Value>,
}

impl Walk {
    /// Every use of `v`, a value that may hold the block's address.
    fn value(&mut self, m: Module, v: Value) -> Result<(), Refused> {
        if !self.seen.insert(v) {
            return Ok(());
        }
        self.may.push(v);
        for u in v.users() {
            if !u.is_instruction() {
                return Err("its address is used by a constant initializer".into());
            }
            match u.opcode() {
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                    if u.operand(0) != v {
                        return Err(format!("its address is used as an index{}", at_loc(u)));
                    }
                    self.value(m, u)?;
                }
                Opcode::LLVMSelect if u.operand(0) == v => return Err(format!("its address is a condition{}", at_loc(u))),
                Opcode::LLVMSelect | Opcode::LLVMPHI => self.value(m, u)?,
                Opcode::LLVMLoad => {}
                Opcode::LLVMStore => {
                    if u.operand(0) == v {
                        self.root_store(m, u)?;
                    }
                }
                Opcode::LLVMICmp => {}
                Opcode::LLVMPtrToInt => {
                    if !only_compared(u, 0) {
                        return Err(format!("its address is used as an integer{}", at_loc(u)));
                    }
                }
                Opcode::LLVMCall => self.call_use(m, v, u)?,
                _ => return Err(format!("its address is used by an instruction the walk does not follow ({:?}){}", u.opcode(), at_loc(u))),
            }
        }
        Ok(())
    }

    /// A call that `v` is an operand of.
    fn call_use(&mut self, m: Module, v: Value, u: Value) -> Result<(), Refused> {
        if u.called_value() == v {
            return Err(format!("its address is called{}", at_loc(u)));
        }
        if let Some(intr) = known::call_intrinsic(u) {
            let ok = match intr {
                Intr::Copy { dest, src, .. } => u.args().iter().enumerate().all(|(k, a)| *a != v || k as u32 == dest || k as u32 == src),
                Intr::Set { dest, .. } => u.args().iter().enumerate().all(|(k, a)| *a != v || k as u32 == dest),
                Intr::Lifetime | Intr::NoMem => true,
                _ => false,
            };
            return if ok { Ok(()) } else { Err(format!("its address is an operand of '{}'{}", u.called_function().map(|f| f.name()).unwrap_or_default(), at_loc(u))) };
        }
        let Some(callee) = u.called_function() else { return Err(format!("its address is passed to an indirect call{}", at_loc(u))) };
        if known::frees_block(callee) {
            self.frees.push(u);
            return Ok(());
        }
        let (f, first, param0) = match known::call_role(u) {
            // a region's by-value capture (a firstprivate pointer)
            // (a `teams` region: the host fallback of a kernel at -O2)
            Some(crate::known::Role::Fork { microtask } | crate::known::Role::Teams { microtask }) => (u.operand(microtask), microtask + 1, 2u32),
            Some(_) => return Err(format!("its address is passed to the OpenMP runtime's '{}'{}", callee.name(), at_loc(u))),
            None if !callee.is_declaration() => (callee, 0, 0),
            None => {
                // library functions that read and write only through
                // their pointer arguments and do not keep them
                return if matches!(known::effect(callee), Some(known::Effect::ReadsArgs | known::Effect::NoMem)) { Ok(()) } else { Err(format!("its address is passed to '{}', which this module does not define{}", crate::diag::demangle(&callee.name()), at_loc(u))) };
            }
        };
        if !f.is_function() || f.is_declaration() {
            return Err(format!("its address is passed to a parallel region not defined here{}", at_loc(u)));
        }
        let params = f.params();
        let args = u.args();
        if args.len() - first as usize + param0 as usize != params.len() {
            return Err(format!("its address is passed to '{}' through variable arguments{}", crate::diag::demangle(&f.name()), at_loc(u)));
        }
        for (k, a) in args.iter().enumerate().skip(first as usize) {
            if *a == v {
                let p = params[param0 as usize + k - first as usize];
                self.param_args.push((p, v));
                self.value(m, p)?;
            }
        }
        Ok(())
    }

    /// `st` stores the address: its destination must be a root.
    fn root_store(&mut self, m: Module, st: Value) -> Result<(), Refused> {
        let dest = st.operand(1);
        let Some((base, off)) = dest.strip_offset() else { return Err(format!("its address is stored through a computed address{}", at_loc(st))) };
        let root = (base.is_instruction() && base.is_alloca()) || (base.is_global_var() && base.is_local_linkage() && !base.is_thread_local() && !base.is_global_constant());
        if !root {
            return Err(format!("its address is stored into memory other than a local variable or a global of this file{}", at_loc(st)));
        }
        if !self.roots.insert((base, off)) {
            return Ok(());
        }
        if self.name.is_none() {
            let n = base.name();
            let n = n.trim_end_matches(".addr");
            // (not clang's own arrays: `.offload_ptrs`, `.offload_baseptrs`)
            if !n.is_empty() && !n.starts_with('.') && !n.chars().all(|c| c.is_ascii_digit()) {
                self.name = Some(n.to_string());
            }
        }
        // a global's address may not be passed on (it is not followed);
        // an alloca's may go to forks and defined functions
        let pass = base.is_instruction();
        self.slot_uses(m, base, 0, off, Via { root: (base, off), capture_fn: None }, pass)
    }

    /// The uses of `p`, an address `at` bytes into a root (or a pointer to
    /// one, `via`) whose pointer lies at byte `off` of it: whole loads and
    /// stores of that pointer, other bytes freely, constant offsets,
    /// comparisons, lifetime markers and (with `pass`) forks and calls of
    /// defined functions, whose parameter then points to it too.
    fn slot_uses(&mut self, m: Module, p: Value, at: i64, off: i64, via: Via, pass: bool) -> Result<(), Refused> {
        let overlaps = |k: i64, n: u64| k < off + 8 && off < k + n as i64;
        for u in p.users() {
            if u.is_const_expr() {
                match (u.const_opcode(), u.strip_offset(), p.strip_offset()) {
                    (Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast, Some((b, o)), Some((pb, po))) if b == pb => {
                        self.slot_uses(m, u, at + (o - po), off, via, pass)?;
                        continue;
                    }
                    _ => return Err("the variable holding its address is used by a constant initializer".into()),
                }
            }
            if !u.is_instruction() {
                return Err("the variable holding its address is used outside code".into());
            }
            match u.opcode() {
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast if u.operand(0) == p => {
                    let (Some((b, o)), Some((pb, po))) = (u.strip_offset(), p.strip_offset()) else { return Err(format!("the variable holding its address is accessed through a computed address{}", at_loc(u))) };
                    if b != pb {
                        return Err(format!("the variable holding its address is accessed through another object{}", at_loc(u)));
                    }
                    self.slot_uses(m, u, at + (o - po), off, via, pass)?;
                }
                Opcode::LLVMLoad => {
                    let n = m.store_size(u.ty());
                    if !overlaps(at, n) {
                        continue;
                    }
                    if at != off || !u.ty().is_pointer() || n != 8 || u.is_volatile_or_atomic() {
                        return Err(format!("a part of the variable holding its address is read as other data{}", at_loc(u)));
                    }
                    self.root_loads.push((via.root, u, via.capture_fn));
                    self.value(m, u)?;
                }
                Opcode::LLVMStore if u.operand(1) == p && u.operand(0) != p => {
                    let n = m.store_size(u.operand(0).ty());
                    if !overlaps(at, n) {
                        continue;
                    }
                    if at != off || !u.operand(0).ty().is_pointer() || n != 8 || u.is_volatile_or_atomic() {
                        return Err(format!("a part of the variable holding its address is overwritten by other data{}", at_loc(u)));
                    }
                    self.root_stores.push((via.root, u.operand(0)));
                }
                Opcode::LLVMStore if u.operand(1) != p && at == 0 && via.capture_fn.is_some() && p.is_argument() => {
                    // -O0 keeps a parameter in a local slot of its own
                    // (`store %p, %p.addr`): its reloads are the parameter
                    self.local_copy(m, u, off, via)?;
                }
                // an offload argument array's address in the arguments of
                // a kernel launch (`__tgt_target_kernel`)
                Opcode::LLVMStore if u.operand(0) == p && at == 0 && kernel_args_only(u.operand(1)) => self.offload = true,
                Opcode::LLVMStore => return Err(format!("the address of the variable holding it is stored into memory{}", at_loc(u))),
                Opcode::LLVMICmp => {}
                Opcode::LLVMCall if known::call_intrinsic(u) == Some(Intr::Lifetime) => {}
                Opcode::LLVMCall if pass && u.called_value() != p => self.pass_root(m, p, u, off - at, via)?,
                _ => return Err(format!("the variable holding its address is used by an instruction the walk does not follow ({:?}){}", u.opcode(), at_loc(u))),
            }
        }
        Ok(())
    }

    /// `st` (-O0) stores parameter `p`, a pointer to a root, into a local
    /// slot: the slot must only be reloaded (and hold nothing else); each
    /// reload points to the root like `p`.
    fn local_copy(&mut self, m: Module, st: Value, off: i64, via: Via) -> Result<(), Refused> {
        let p = st.operand(0);
        let local = st.operand(1);
        if !(local.is_instruction() && local.is_alloca()) {
            return Err(format!("the address of the variable holding it is stored into memory{}", at_loc(st)));
        }
        for w in local.users() {
            if !w.is_instruction() {
                return Err("a local copy of the variable holding its address is used outside code".into());
            }
            match w.opcode() {
                Opcode::LLVMLoad if w.ty().is_pointer() => {
                    if self.captures.insert((w, off)) {
                        self.slot_uses(m, w, 0, off, via, true)?;
                    }
                }
                Opcode::LLVMStore if w.operand(1) == local && w.operand(0) == p => {}
                Opcode::LLVMCall if known::call_intrinsic(w) == Some(Intr::Lifetime) => {}
                _ => return Err(format!("a local copy of the variable holding its address is used otherwise{}", at_loc(w))),
            }
        }
        Ok(())
    }

    /// A fork or a call of a defined function that passes `p`, an address
    /// whose root pointer lies `off` bytes on: the parameter it arrives in
    /// points to the root.
    fn pass_root(&mut self, m: Module, p: Value, u: Value, off: i64, via: Via) -> Result<(), Refused> {
        let (f, first, param0) = match known::call_role(u) {
            Some(crate::known::Role::Fork { microtask } | crate::known::Role::Teams { microtask }) => (u.operand(microtask), microtask + 1, 2u32),
            // an offload argument array (`.offload_baseptrs`, `.offload_ptrs`)
            // handed to a data-mapping entry point
            None if u.called_function().is_some_and(|c| offload_mapper(&c.name())) => {
                self.offload = true;
                return Ok(());
            }
            None => (u.called_function().ok_or_else(|| format!("the address of the variable holding it is passed to an indirect call{}", at_loc(u)))?, 0, 0),
            Some(_) => return Err(format!("the address of the variable holding it is passed to the OpenMP runtime{}", at_loc(u))),
        };
        if !f.is_function() || f.is_declaration() {
            return Err(format!("the address of the variable holding it is passed to '{}', which this module does not define{}", crate::diag::demangle(&f.name()), at_loc(u)));
        }
        let params = f.params();
        for (k, a) in u.args().iter().enumerate().skip(first as usize) {
            if *a != p {
                continue;
            }
            let Some(&fp) = params.get(param0 as usize + (k - first as usize)) else { return Err(format!("the address of the variable holding it is passed through variable arguments{}", at_loc(u))) };
            if self.captures.insert((fp, off)) {
                // an access through the parameter is one of the root,
                // certain only where the function has no other call
                self.slot_uses(m, fp, 0, off, Via { root: via.root, capture_fn: Some(f) }, true)?;
            }
        }
        Ok(())
    }

    /// The values that certainly hold the block's address: the call, and,
    /// to a fixpoint, loads of a root every store of which stores such a
    /// value (or null; through a capture only in a function called once),
    /// the parameters of functions called once, with such a value, and
    /// casts of them.
    fn exact(&self, call: Value) -> Vec<Value> {
        let mut exact: HashSet<Value> = HashSet::default();
        exact.insert(call);
        let once = |f: Value| f.users().len() == 1;
        loop {
            let before = exact.len();
            for v in &self.may {
                if exact.contains(v) {
                    continue;
                }
                let yes = if v.is_argument() {
                    let args: Vec<Value> = self.param_args.iter().filter(|(p, _)| p == v).map(|(_, a)| *a).collect();
                    v.param_parent().is_some_and(once) && args.len() == 1 && exact.contains(&args[0])
                } else if v.is_instruction() && matches!(v.opcode(), Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) {
                    exact.contains(&v.operand(0))
                } else if v.is_instruction() && v.opcode() == Opcode::LLVMLoad {
                    let loads: Vec<_> = self.root_loads.iter().filter(|(_, l, _)| l == v).collect();
                    !loads.is_empty()
                        && loads.iter().all(|(root, _, cf)| {
                            cf.is_none_or(once) && self.root_stores.iter().filter(|(r, _)| r == root).all(|(_, s)| exact.contains(s) || s.is_null_constant())
                        })
                } else {
                    false
                };
                if yes {
                    exact.insert(*v);
                }
            }
            if exact.len() == before {
                break;
            }
        }
        self.may.iter().copied().filter(|v| exact.contains(v)).collect()
    }
}

/// Whether integer `v` (a pointer's value) only reaches comparisons,
/// through integer arithmetic (the vectoriser's overlap checks: `sub`,
/// then `icmp ult`), in at most a few steps.
fn only_compared(v: Value, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    v.users().into_iter().all(|u| {
        u.is_instruction()
            && match u.opcode() {
                Opcode::LLVMICmp => true,
                Opcode::LLVMSub | Opcode::LLVMAdd | Opcode::LLVMAnd | Opcode::LLVMOr | Opcode::LLVMXor | Opcode::LLVMLShr | Opcode::LLVMAShr | Opcode::LLVMShl | Opcode::LLVMTrunc | Opcode::LLVMZExt | Opcode::LLVMSExt => only_compared(u, depth + 1),
                Opcode::LLVMSelect => u.operand(0) != v && only_compared(u, depth + 1),
                _ => false,
            }
    })
}
