//! Carrying out a plan: the descriptors of dao_abi.h, the frame and label
//! code in every function on a marker path, the restart dispatch, the main
//! wrapper, and the routing of heap calls to the dao heap. The contract
//! with the runtime (descriptor layouts, entry points and their signatures,
//! globals, `SiteKind`, flags, version) is the `dao-abi` crate's: nothing
//! of it is spelled here.
//!
//! Per instrumented function F (see docs/design.md for the why):
//! ```text
//! entry:    static allocas (moved to the top), frame, alloca table, slot area
//!           frame.func/allocas/slots = ...; table[i] = &alloca_i
//!           frame.parent = dao_tls_top; dao_tls_top = &frame   ; inline push
//!           br dao_restart_pending, dao.restart, entry.cont    ; weighted unlikely
//! dao.restart: %site = dao_frame_restore(&frame); br (%site != 0), dao.dispatch, entry.cont
//! site k:   frame.site = k; spill live SSA values to the slot area
//!           call (a call site), or, when dao_tls_poll runs out,
//!           dao_candidate(&frame) (a marker)
//! dao.restore.k: replay environment calls; reload live SSA values from
//!           the slot area; br to the call (call site) or past the marker
//! ret:      dao_tls_top = frame.parent                        ; inline pop
//! ```
//! (The out-of-line dao_frame_enter/dao_frame_leave of the ABI are for
//! hand-written callers.) Outlined OpenMP functions and parallel code add
//! the dao_omp_* calls (see `instrument_function`).
//! Live SSA values are demoted to stack slots around the new edges and
//! promoted back with LLVM's PromoteMemToReg, which rebuilds SSA form
//! (phis) for the dispatch edges.
use crate::declare::{abi_global, declare, types, Fun, Types};
use crate::ir::{promote_allocas, set_unlikely_first, Block, Builder, Module, Opcode, Type, Value};
use crate::known::{self, names, Intr};
use crate::plan::{FuncPlan, ModulePlan};
use dao_abi::{entry, global, SiteKind, DAO_ABI_VERSION};
use llvm_sys::LLVMLinkage;
use dao_analysis::fxhash::HashMap;


struct Strings {
    m: Module,
    cache: HashMap<String, Value>,
}

impl Strings {
    fn get(&mut self, s: &str) -> Value {
        let m = self.m;
        let n = self.cache.len();
        *self.cache.entry(s.to_string()).or_insert_with(|| m.const_string(&format!("dao.str.{n}"), s))
    }
    fn opt(&mut self, s: &Option<String>) -> Value {
        match s {
            Some(s) => self.get(s),
            None => self.m.const_null(),
        }
    }
}

/// Slot layout of one function: every SSA value live at some site.
pub struct SlotLayout {
    pub vals: Vec<Value>,
    pub offset: Vec<u64>,
    pub size: Vec<u64>,
    pub ix: HashMap<Value, usize>,
    pub total: u64,
}

pub fn slot_layout(m: Module, fp: &FuncPlan) -> SlotLayout {
    let mut l = SlotLayout { vals: vec![], offset: vec![], size: vec![], ix: HashMap::default(), total: 0 };
    for s in &fp.sites {
        for v in &s.slots {
            if l.ix.contains_key(v) {
                continue;
            }
            let ty = v.ty();
            let align = m.abi_align(ty).clamp(1, 16);
            let size = m.alloc_size(ty);
            let off = l.total.div_ceil(align) * align;
            l.ix.insert(*v, l.vals.len());
            l.vals.push(*v);
            l.offset.push(off);
            l.size.push(size);
            l.total = off + size;
        }
    }
    l
}

fn value_name(v: Value, fallback: &str) -> String {
    let n = v.name();
    if n.is_empty() {
        fallback.to_string()
    } else {
        n
    }
}

/// A module's identity in checkpoints: its source and identifier names,
/// its functions, and the globals it defines (flang names every module
/// `FIRModule`, so two files of one program that only hold data, as
/// CloverLeaf's `data.f90` and `definitions.f90`, differ only by these).
pub fn module_hash(m: Module, plan: &ModulePlan) -> u64 {
    let mut key = format!("{}\n{}\n", m.source_name(), m.identifier());
    for f in &plan.facts.funcs {
        key.push_str(&f.name());
        key.push('\n');
    }
    let f = &plan.facts;
    for (g, _) in f.globals[..f.heap_from].iter().zip(&f.global_declared).filter(|(_, d)| !**d) {
        key.push_str("g ");
        key.push_str(&g.name());
        key.push('\n');
    }
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}

/// Apply the plan. The plan must have no errors.
/// Returns the blocks only a restart executes (the dispatch to a site and
/// what leads there): guard.rs leaves them out (see there).
pub fn emit(m: Module, plan: &ModulePlan) -> Vec<Block> {
    let mut restart_only = Vec::new();
    // A module with neither instrumented functions nor globals of its own
    // needs no descriptor. One without markers but with mutable globals,
    // or whose functions read globals defined elsewhere, still registers
    // them: code on a marker path elsewhere may read them, or call it.
    if plan.funcs.is_empty() && !plan.facts.has_defined_globals() && plan.tp.is_empty() && plan.exported.is_empty() {
        return restart_only;
    }
    let t = types(m);
    let mut strs = Strings { m, cache: HashMap::default() };
    let nfun = plan.funcs.len();
    let funcs_arr_ty = m.array(t.func.ty, nfun as u64);
    let funcs_g = if nfun == 0 { m.const_null() } else { m.add_global_decl(funcs_arr_ty, "dao.funcs") };
    let module_g = m.add_global_decl(t.module.ty, "dao.module");
    let rt = Runtime {
        restore: declare(m, &entry::FRAME_RESTORE),
        top: abi_global(m, &global::TLS_TOP, m.const_null()),
        pending: abi_global(m, &global::RESTART_PENDING, m.const_null()),
        poll: abi_global(m, &global::TLS_POLL, m.const_i64(i64::MAX as u64)),
        cand: declare(m, &entry::CANDIDATE),
        forced: declare(m, &entry::FORCED),
        request: abi_global(m, &global::OMP_REQUEST, m.const_null()),
        omp: [entry::OMP_BEGIN, entry::OMP_END, entry::OMP_FORK, entry::OMP_JOIN, entry::OMP_PARK, entry::OMP_UNPARK].map(|e| declare(m, &e)),
        hold: if plan.funcs.iter().any(|f| f.hold.is_some()) { Some([entry::OMP_HOLD_BEGIN, entry::OMP_HOLD_END].map(|e| declare(m, &e))) } else { None },
    };

    // the heap objects' records (ABI 14), written by the program: before
    // the functions are instrumented, so the stores are ordinary code
    let heaps_g = heap_records(m, &t, plan, &mut strs);
    let mut func_descs = Vec::new();
    for (fi, fp) in plan.funcs.iter().enumerate() {
        let layout = slot_layout(m, fp);
        let fdesc_ptr = m.const_gep(funcs_arr_ty, funcs_g, &[m.const_i32(0), m.const_i32(fi as u32)]);
        // descriptor data first: names must be read before values change
        let slot_descs: Vec<Value> = layout
            .vals
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = strs.get(&value_name(*v, &format!("tmp{i}")));
                let loc = strs.opt(&v.debug_loc());
                t.var.constant(m, &[("name", name), ("loc", loc), ("size", m.const_i64(layout.size[i])), ("offset", m.const_i64(layout.offset[i])), ("addr", m.const_null())])
            })
            .collect();
        let alloca_descs: Vec<Value> = fp
            .allocas
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let name = strs.get(&value_name(*a, &format!("local{i}")));
                let loc = strs.opt(&a.debug_loc());
                t.var.constant(m, &[("name", name), ("loc", loc), ("size", m.const_i64(fp.alloca_size[i])), ("offset", m.const_i64(i as u64)), ("addr", m.const_null())])
            })
            .collect();
        let site_descs: Vec<Value> = fp
            .sites
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let idx_arr = |name: &str, v: &[u32]| -> Value {
                    if v.is_empty() {
                        return m.const_null();
                    }
                    let vals: Vec<Value> = v.iter().map(|x| m.const_i32(*x)).collect();
                    m.add_const_global(m.array(m.i32(), v.len() as u64), name, m.const_array(m.i32(), &vals))
                };
                let slots: Vec<u32> = s.slots.iter().map(|v| layout.ix[v] as u32).collect();
                let allocas: Vec<u32> = s.allocas.iter().map(|a| *a as u32).collect();
                let globals: Vec<u32> = s.globals.iter().map(|g| *g as u32).collect();
                let cdead: Vec<u32> = s.cdead.iter().map(|g| *g as u32).collect();
                let cboxes: Vec<u32> = s.cboxes.iter().map(|k| *k as u32).collect();
                let ddead: Vec<u32> = s.ddead.iter().map(|g| *g as u32).collect();
                let base = format!("dao.site.{fi}.{k}");
                // (global, first byte, end byte) of the globals live in part
                let parts: Vec<Value> = s
                    .partial
                    .iter()
                    .flat_map(|(g, w)| {
                        w.0.iter()
                            .flat_map(move |&(lo, hi)| [*g as u64, lo as u64, hi as u64])
                    })
                    .map(|x| m.const_i64(x))
                    .collect();
                let n_parts = parts.len() as u32 / 3;
                // candidates: the defined globals dead after the site with
                // what rewrites each first (`dao inspect`)
                let whys: Vec<(u32, String)> = s.dead.iter().filter(|(_, _, w)| !w.is_empty()).map(|(g, _, w)| (*g as u32, w.join(" or "))).collect();
                let dead: Vec<u32> = whys.iter().map(|(g, _)| *g).collect();
                let dead_why = if whys.is_empty() {
                    m.const_null()
                } else {
                    let vals: Vec<Value> = whys.iter().map(|(_, w)| strs.get(w)).collect();
                    m.add_const_global(m.array(m.ptr(), vals.len() as u64), &format!("{base}.dead_why"), m.const_array(m.ptr(), &vals))
                };
                // candidates: why the big live globals are kept (ABI 10)
                let kept_whys: Vec<(u32, String)> = s.kept.iter().map(|(g, w)| {
                    let cond = if s.cdead.contains(g) { " (its runtime-checked conditions did not hold)" } else { "" };
                    (*g as u32, format!("{}{cond}", crate::sites::kept_text(w)))
                }).collect();
                let kept: Vec<u32> = kept_whys.iter().map(|(g, _)| *g).collect();
                let kept_why = if kept_whys.is_empty() {
                    m.const_null()
                } else {
                    let vals: Vec<Value> = kept_whys.iter().map(|(_, w)| strs.get(w)).collect();
                    m.add_const_global(m.array(m.ptr(), vals.len() as u64), &format!("{base}.kept_why"), m.const_array(m.ptr(), &vals))
                };
                let parts = if parts.is_empty() {
                    m.const_null()
                } else {
                    m.add_const_global(
                        m.array(m.i64(), parts.len() as u64),
                        &format!("{base}.parts"),
                        m.const_array(m.i64(), &parts),
                    )
                };
                let flags = if s.unknown_reads {
                    dao_abi::DAO_SITE_UNKNOWN_READS
                } else {
                    0
                };
                t.site.constant(
                    m,
                    &[
                        ("kind", m.const_i32(s.kind as u32)),
                        ("flags", m.const_i32(flags)),
                        ("loc", strs.opt(&s.loc)),
                        ("callee", strs.opt(&s.callee)),
                        ("n_slots", m.const_i32(slots.len() as u32)),
                        ("slots", idx_arr(&format!("{base}.slots"), &slots)),
                        ("n_allocas", m.const_i32(allocas.len() as u32)),
                        ("allocas", idx_arr(&format!("{base}.allocas"), &allocas)),
                        ("n_globals", m.const_i32(globals.len() as u32)),
                        ("globals", idx_arr(&format!("{base}.globals"), &globals)),
                        ("n_parts", m.const_i32(n_parts)),
                        ("parts", parts),
                        ("n_cdead", m.const_i32(cdead.len() as u32)),
                        ("cdead", idx_arr(&format!("{base}.cdead"), &cdead)),
                        ("n_dead", m.const_i32(dead.len() as u32)),
                        ("dead", idx_arr(&format!("{base}.dead"), &dead)),
                        ("dead_why", dead_why),
                        ("n_kept", m.const_i32(kept.len() as u32)),
                        ("kept", idx_arr(&format!("{base}.kept"), &kept)),
                        ("kept_why", kept_why),
                        ("n_cboxes", m.const_i32(cboxes.len() as u32)),
                        ("cboxes", idx_arr(&format!("{base}.cboxes"), &cboxes)),
                        ("n_ddead", m.const_i32(ddead.len() as u32)),
                        ("ddead", idx_arr(&format!("{base}.ddead"), &ddead)),
                    ],
                )
            })
            .collect();
        let arr = |name: &str, ty: Type, v: &[Value]| -> Value {
            if v.is_empty() {
                m.const_null()
            } else {
                m.add_const_global(m.array(ty, v.len() as u64), name, m.const_array(ty, v))
            }
        };
        let sites_g = arr(&format!("dao.sites.{fi}"), t.site.ty, &site_descs);
        let slots_g = arr(&format!("dao.slots.{fi}"), t.var.ty, &slot_descs);
        let allocas_g = arr(&format!("dao.allocas.{fi}"), t.var.ty, &alloca_descs);
        func_descs.push(t.func.constant(
            m,
            &[
                ("name", strs.get(&fp.name)),
                ("module", module_g),
                ("n_sites", m.const_i32(fp.sites.len() as u32)),
                ("sites", sites_g),
                ("n_slots", m.const_i32(layout.vals.len() as u32)),
                ("slots", slots_g),
                ("n_allocas", m.const_i32(fp.allocas.len() as u32)),
                ("allocas", allocas_g),
                ("slot_area_size", m.const_i64(layout.total)),
            ],
        ));
        let hold_loc = strs.opt(&fp.hold);
        instrument_function(m, &t, fp, &layout, fdesc_ptr, &rt, hold_loc, &mut restart_only);
    }
    if nfun > 0 {
        funcs_g.set_initializer(m.const_array(t.func.ty, &func_descs));
    }

    // module descriptor
    let gdescs: Vec<Value> = plan.facts.globals[..plan.facts.heap_from]
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let name = strs.get(&g.name());
            // DAO_GLOBAL_DECLARED marks a declaration: resolved by address at run time
            let offset = if plan.facts.global_declared[i] { dao_abi::DAO_GLOBAL_DECLARED } else { 0 };
            t.var.constant(m, &[("name", name), ("loc", m.const_null()), ("size", m.const_i64(plan.facts.global_size[i])), ("offset", m.const_i64(offset)), ("addr", *g)])
        })
        .collect();
    let gdesc_g = if gdescs.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.var.ty, gdescs.len() as u64), "dao.globals", m.const_array(t.var.ty, &gdescs)) };
    // what code outside this module's own sites may read (exported::exported_state)
    let escaped: Vec<Value> = plan.exported.iter().map(|&i| m.const_i32(i as u32)).collect();
    let esc_g = if escaped.is_empty() { m.const_null() } else { m.add_const_global(m.array(m.i32(), escaped.len() as u64), "dao.escaped", m.const_array(m.i32(), &escaped)) };
    // thread-local (threadprivate) variables defined here: descriptors and
    // an accessor that writes the calling thread's addresses of them
    let tls: Vec<Value> = m
        .globals()
        .into_iter()
        .filter(|g| g.is_thread_local() && !g.is_declaration() && !g.is_global_constant() && m.is_sized(g.global_value_type()))
        .filter(|g| !names::rt::is_module_global(&g.name()))
        .collect();
    let tls_descs: Vec<Value> = tls
        .iter()
        .map(|g| {
            let name = strs.get(&g.name());
            t.var.constant(m, &[("name", name), ("loc", m.const_null()), ("size", m.const_i64(m.alloc_size(g.global_value_type()))), ("offset", m.const_i64(0)), ("addr", m.const_null())])
        })
        .collect();
    let tls_g = if tls.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.var.ty, tls.len() as u64), "dao.tls", m.const_array(t.var.ty, &tls_descs)) };
    let tls_fn = if tls.is_empty() {
        m.const_null()
    } else {
        let f = m.add_function("dao.tls_addrs", m.fn_ty(m.void(), &[m.ptr()]));
        f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        let b = m.builder();
        b.at_end(m.append_block(f, "entry"));
        let out = f.params()[0];
        let tla = m.get_or_declare(names::THREADLOCAL_ADDRESS, m.fn_ty(m.ptr(), &[m.ptr()]));
        for (i, g) in tls.iter().enumerate() {
            let a = b.call(m.fn_ty(m.ptr(), &[m.ptr()]), tla, &[*g], "");
            b.store(a, b.byte_gep(out, 8 * i as u64, ""));
        }
        b.ret(None);
        f
    };
    // flang's threadprivate variables used here: the original's address,
    // size and DAO_TP_* flags (runtime/src/omp/tp.rs)
    let tp_descs: Vec<Value> = plan
        .tp
        .iter()
        .map(|v| {
            let name = strs.get(&v.data.name());
            let flags = if v.in_region { dao_abi::DAO_TP_IN_REGION } else { 0 };
            t.var.constant(m, &[("name", name), ("loc", m.const_null()), ("size", m.const_i64(v.size)), ("offset", m.const_i64(flags)), ("addr", v.data)])
        })
        .collect();
    let tp_g = if tp_descs.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.var.ty, tp_descs.len() as u64), "dao.tp", m.const_array(t.var.ty, &tp_descs)) };
    // the runtime-checked conditions of the conditional kills (cond.rs),
    // `object` the killed global's index (unused in a box's conditions)
    let cond_desc = |o: usize, c: &crate::cond::Cond| {
        t.cond.constant(
            m,
            &[
                ("object", m.const_i32(o as u32)),
                ("global", m.const_i32(c.global as u32)),
                ("offset", m.const_i64(c.off as u64)),
                ("bytes", m.const_i32(c.bytes)),
                ("is_signed", m.const_i32(c.signed as u32)),
                ("min", m.const_i64(c.min as u64)),
                ("max", m.const_i64(c.max as u64)),
                ("cover", m.const_i64(c.cover)),
                ("add", m.const_i64(c.add as u64)),
                ("global2", m.const_i32(c.second.map_or(u32::MAX, |x| x.0 as u32))),
                ("bytes2", m.const_i32(c.second.map_or(0, |x| x.2))),
                ("offset2", m.const_i64(c.second.map_or(0, |x| x.1) as u64)),
                ("is_signed2", m.const_i32(c.second.map_or(0, |x| x.3 as u32))),
                ("reserved", m.const_i32(0)),
                ("add2", m.const_i64(c.second.map_or(0, |x| x.4) as u64)),
            ],
        )
    };
    let cond_descs: Vec<Value> = plan.sections.conds.iter().flat_map(|(o, cs)| cs.iter().map(move |c| (*o, c))).map(|(o, c)| cond_desc(o, c)).collect();
    let conds_g = if cond_descs.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.cond.ty, cond_descs.len() as u64), "dao.conds", m.const_array(t.cond.ty, &cond_descs)) };
    // the boxes of parts of globals rewritten under conditions, then the
    // read boxes of the globals whose every read the pass saw (ABI 12)
    let mut all_boxes: Vec<(u32, crate::cond::WBox, Vec<crate::cond::Cond>)> = plan.sections.boxes.iter().map(|(_, _, b, cs)| (dao_abi::DAO_BOX_WRITE, b.clone(), cs.clone())).collect();
    if crate::config::partial() {
        for (b, cs) in crate::read_boxes::read_boxes(&plan.facts) {
            all_boxes.push((dao_abi::DAO_BOX_READ, b, cs));
        }
    }
    let box_descs: Vec<Value> = all_boxes
        .iter()
        .enumerate()
        .map(|(k, (kind, b, cs))| {
            let dims: Vec<Value> = b
                .dims
                .iter()
                .map(|(st, n, y)| {
                    let (g, bytes, off, add, sg) = match y {
                        Some(y) => (y.global as u32, y.bytes, y.off, y.add, y.signed as u32),
                        None => (u32::MAX, 0, 0, 0, 0),
                    };
                    t.bdim.constant(
                        m,
                        &[
                            ("stride", m.const_i64(*st as u64)),
                            ("count", m.const_i64(*n)),
                            ("global", m.const_i32(g)),
                            ("bytes", m.const_i32(bytes)),
                            ("offset", m.const_i64(off as u64)),
                            ("add", m.const_i64(add as u64)),
                            ("is_signed", m.const_i32(sg)),
                            ("reserved", m.const_i32(0)),
                        ],
                    )
                })
                .collect();
            let conds: Vec<Value> = cs.iter().map(|c| cond_desc(0, c)).collect();
            let dims_g = if dims.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.bdim.ty, dims.len() as u64), &format!("dao.box.{k}.dims"), m.const_array(t.bdim.ty, &dims)) };
            let conds_g = if conds.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.cond.ty, conds.len() as u64), &format!("dao.box.{k}.conds"), m.const_array(t.cond.ty, &conds)) };
            t.bx.constant(
                m,
                &[
                    ("object", m.const_i32(b.object as u32)),
                    ("kind", m.const_i32(*kind)),
                    ("n_dims", m.const_i32(dims.len() as u32)),
                    ("n_conds", m.const_i32(conds.len() as u32)),
                    ("start", m.const_i64(b.start as u64)),
                    ("size", m.const_i64(b.size)),
                    ("dims", dims_g),
                    ("conds", conds_g),
                ],
            )
        })
        .collect();
    let boxes_g = if box_descs.is_empty() { m.const_null() } else { m.add_const_global(m.array(t.bx.ty, box_descs.len() as u64), "dao.boxes", m.const_array(t.bx.ty, &box_descs)) };
    let src = strs.get(&m.source_name());
    // DAO_MODULE_GUARDED: guard.rs runs after emit on this module
    let flags = if crate::config::guards() { dao_abi::DAO_MODULE_GUARDED } else { 0 };
    module_g.set_initializer(t.module.constant(
        m,
        &[
            ("abi_version", m.const_i32(DAO_ABI_VERSION)),
            ("flags", m.const_i32(flags)),
            ("module_hash", m.const_i64(module_hash(m, plan))),
            ("source_name", src),
            ("n_globals", m.const_i32(gdescs.len() as u32)),
            ("globals", gdesc_g),
            ("n_escaped", m.const_i32(escaped.len() as u32)),
            ("escaped_globals", esc_g),
            ("n_funcs", m.const_i32(nfun as u32)),
            ("funcs", funcs_g),
            ("n_tls", m.const_i32(tls.len() as u32)),
            ("tls", tls_g),
            ("tls_addrs", tls_fn),
            ("n_tp", m.const_i32(tp_descs.len() as u32)),
            ("tp", tp_g),
            ("n_conds", m.const_i32(cond_descs.len() as u32)),
            ("conds", conds_g),
            ("n_boxes", m.const_i32(box_descs.len() as u32)),
            ("boxes", boxes_g),
            ("n_heaps", m.const_i32(plan.facts.heap.len() as u32)),
            ("heaps", heaps_g),
        ],
    ));
    // registration from a constructor
    let reg = declare(m, &entry::REGISTER_MODULE);
    let ctor = m.add_function("dao.module_ctor", m.fn_ty(m.void(), &[]));
    ctor.set_linkage(LLVMLinkage::LLVMInternalLinkage);
    let b = m.builder();
    b.at_end(m.append_block(ctor, "entry"));
    reg.call(&b, &[module_g], "");
    b.ret(None);
    m.add_global_ctor(ctor, 101);

    if let Some(main) = plan.main {
        wrap_main(m, main, rt.poll);
    }
    restart_only
}

/// The module's heap records (`dao.heaps`, writable), and the code that
/// fills them: right after each tracked allocation call its address and
/// the size asked for, and before each call that may free the block a null
/// address (`heap.rs`). Null when the module tracks none.
fn heap_records(m: Module, t: &Types, plan: &ModulePlan, strs: &mut Strings) -> Value {
    let heap = &plan.facts.heap;
    if heap.is_empty() {
        return m.const_null();
    }
    let descs: Vec<Value> = heap
        .iter()
        .map(|h| {
            let name = strs.get(&h.name);
            let loc = strs.opt(&h.loc);
            t.heap.constant(m, &[("name", name), ("loc", loc), ("addr", m.const_null()), ("size", m.const_i64(0))])
        })
        .collect();
    let arr = m.array(t.heap.ty, descs.len() as u64);
    let g = m.add_internal_global(arr, "dao.heaps", m.const_array(t.heap.ty, &descs));
    let b = m.builder();
    let field = |k: usize, f: &str| m.const_gep(arr, g, &[m.const_i32(0), m.const_i32(k as u32), m.const_i32(t.heap.field(f))]);
    for (k, h) in heap.iter().enumerate() {
        let Some(next) = h.call.next_instruction() else { continue };
        b.before(next);
        b.store(h.call, field(k, "addr"));
        let mut size: Option<Value> = None;
        for &a in h.size_args {
            let v = h.call.operand(a);
            let v = match v.ty().int_width() {
                Some(64) => v,
                Some(_) => b.zext(v, m.i64(), ""),
                None => continue,
            };
            size = Some(match size {
                None => v,
                Some(s) => b.mul(s, v, ""),
            });
        }
        b.store(size.unwrap_or_else(|| m.const_i64(0)), field(k, "size"));
        for fr in &h.frees {
            b.before(*fr);
            b.store(m.const_null(), field(k, "addr"));
        }
    }
    g
}

/// Indices into `Runtime::omp`.
const OMP_BEGIN: usize = 0;
const OMP_END: usize = 1;
const OMP_FORK: usize = 2;
const OMP_JOIN: usize = 3;
const OMP_PARK: usize = 4;
const OMP_UNPARK: usize = 5;

/// What the instrumentation refers to in the runtime.
struct Runtime {
    /// `dao_frame_restore(frame) -> site`, called only during a restart.
    restore: Fun,
    /// The calling thread's innermost frame (`dao_tls_top`).
    top: Value,
    /// Non-zero while a restart rebuilds the chain.
    pending: Value,
    /// The calling thread's candidate countdown (`dao_tls_poll`; the runtime
    /// arms the main thread's, runtime/src/policy.rs).
    poll: Value,
    cand: Fun,
    forced: Fun,
    /// Non-zero while the runtime gathers the threads of a team for a
    /// checkpoint (runtime/src/protocol/); markers in parallel code check it.
    request: Value,
    /// dao_omp_begin/end/fork/join/park/unpark (see OMP_* below).
    omp: [Fun; 6],
    /// dao_omp_hold_begin/end, in a module with a held region.
    hold: Option<[Fun; 2]>,
}

/// `hold_loc`: the position string of `fp.hold` (null without one).
#[allow(clippy::too_many_arguments)]
fn instrument_function(m: Module, t: &Types, fp: &FuncPlan, layout: &SlotLayout, fdesc: Value, rt: &Runtime, hold_loc: Value, restart_only: &mut Vec<Block>) {
    let f = fp.f;
    let b = m.builder();
    let entry = f.entry_block();

    // 0. the frame address escapes to the runtime: no call may stay a tail
    //    call; lifetime markers would let codegen overlap stack objects that
    //    the dispatch edges keep alive, so they go.
    for blk in f.blocks() {
        for i in blk.instructions() {
            if i.is_call() {
                if known::call_intrinsic(i) == Some(Intr::Lifetime) {
                    i.erase();
                    continue;
                }
                i.set_tail_call(false);
            }
        }
    }
    // 1. static allocas to the top of the entry block
    let first = entry.first_instruction().expect("entry block is empty");
    for a in &fp.allocas {
        if *a != first {
            a.move_before(first, &b);
        }
    }
    let top = entry.first_instruction().unwrap();
    b.before(top);
    let frame = b.alloca(t.frame.ty, "dao.frame", 8);
    let atab = if fp.allocas.is_empty() { None } else { Some(b.alloca(m.array(m.ptr(), fp.allocas.len() as u64), "dao.allocas", 8)) };
    let slots = b.alloca(m.array(m.i8(), layout.total.max(8)), "dao.slots", 16);
    let demoted: Vec<Value> = layout.vals.iter().map(|v| b.alloca(v.ty(), "dao.demote", m.abi_align(v.ty()) as u32)).collect();

    // 2. frame setup and dao_frame_enter after the allocas
    let setup_at = entry.instructions().into_iter().find(|i| !i.is_alloca()).unwrap();
    b.before(setup_at);
    b.store(fdesc, b.struct_gep(t.frame.ty, frame, t.frame.field("func"), ""));
    b.store(m.const_i32(0), b.struct_gep(t.frame.ty, frame, t.frame.field("site"), ""));
    b.store(atab.unwrap_or(m.const_null()), b.struct_gep(t.frame.ty, frame, t.frame.field("allocas"), ""));
    b.store(slots, b.struct_gep(t.frame.ty, frame, t.frame.field("slots"), ""));
    if let Some(atab) = atab {
        for (i, a) in fp.allocas.iter().enumerate() {
            b.store(*a, b.byte_gep(atab, 8 * i as u64, ""));
        }
    }
    // push: frame.parent = top; top = &frame (inline, thread-local)
    let parent = b.load_aligned(m.ptr(), rt.top, "dao.parent", 8);
    b.store(parent, b.struct_gep(t.frame.ty, frame, t.frame.field("parent"), ""));
    b.store_aligned(frame, rt.top, 8);
    if fp.microtask {
        // this thread joins the team's bookkeeping (before any restart dispatch)
        rt.omp[OMP_BEGIN].call(&b, &[frame], "");
        if let (Some(_), Some(h)) = (&fp.hold, &rt.hold) {
            // no checkpoint inside this region (a dynamic loop, markers
            // only in other files)
            h[0].call(&b, &[hold_loc], "");
        }
    }
    let pending = b.load_relaxed(m.i8(), rt.pending, "dao.pending", 1);
    let cont = Block::split_before(setup_at, "entry.cont");
    entry.terminator().unwrap().erase();
    let restart = m.append_block(f, "dao.restart");
    let dispatch = m.append_block(f, "dao.dispatch");
    restart_only.extend([restart, dispatch]);
    b.at_end(entry);
    let is_restart = b.icmp_ne(pending, m.const_int(m.i8(), 0), "dao.restarting");
    let br = b.cond_br(is_restart, restart, cont);
    set_unlikely_first(m, br);
    b.at_end(restart);
    let site_v = rt.restore.call(&b, &[frame], "dao.site");
    let resumes = b.icmp_ne(site_v, m.const_i32(0), "dao.resumes");
    b.cond_br(resumes, dispatch, cont);

    // 3. sites: label store, spills, the call or the runtime entry
    let site_ptr = |b: &Builder| b.struct_gep(t.frame.ty, frame, t.frame.field("site"), "");
    let mut targets = Vec::new();
    // microtasks: the block every return goes through (the Exit site's target)
    let exit_block = if fp.microtask {
        let e = m.append_block(f, "dao.exit");
        b.at_end(e);
        b.ret(None);
        Some(e)
    } else {
        None
    };
    let mut exit_site = 0u32;
    for (k, s) in fp.sites.iter().enumerate() {
        let spill = |b: &Builder| {
            b.store(m.const_i32(k as u32 + 1), site_ptr(b));
            for v in &s.slots {
                let ix = layout.ix[v];
                let align = m.abi_align(v.ty()).clamp(1, 16) as u32;
                b.store_aligned(*v, b.byte_gep(slots, layout.offset[ix], ""), align);
            }
        };
        let target = match s.kind {
            SiteKind::Call => {
                // the anchor is the call, or the __kmpc_serialized_parallel
                // before a direct call of an outlined function (anchors.rs)
                b.before(s.anchor);
                spill(&b);
                Block::split_before(s.anchor, &format!("dao.site.{}", k + 1))
            }
            SiteKind::Fork => {
                // label + spills, then (re-executed on restart from here)
                // [push_num_threads] dao_omp_fork; fork; dao_omp_join
                b.before(s.anchor);
                spill(&b);
                let target = Block::split_before(s.anchor, &format!("dao.fork.{}", k + 1));
                b.before(s.inst);
                rt.omp[OMP_FORK].call(&b, &[frame], "");
                b.before(s.inst.next_instruction().expect("fork call is not a terminator"));
                rt.omp[OMP_JOIN].call(&b, &[frame], "");
                target
            }
            SiteKind::Sync => {
                // label + spills; dao_omp_park; barrier; dao_omp_unpark
                b.before(s.inst);
                spill(&b);
                let park = rt.omp[OMP_PARK].call(&b, &[frame], "");
                let next = s.inst.next_instruction().expect("barrier call is not a terminator");
                b.before(next);
                rt.omp[OMP_UNPARK].call(&b, &[frame], "");
                if s.end_reduce {
                    // restart: the contribution was combined before the
                    // checkpoint; only the barrier of __kmpc_end_reduce is redone
                    let cont = Block::split_before(next, &format!("dao.sync.cont.{}", k + 1));
                    let rb = m.append_block(f, &format!("dao.sync.{}", k + 1));
                    restart_only.push(rb);
                    b.at_end(rb);
                    rt.omp[OMP_PARK].call(&b, &[frame], "");
                    let bar = m.get_or_declare(names::KMPC_BARRIER, m.fn_ty(m.void(), &[m.ptr(), m.i32()]));
                    b.call(m.fn_ty(m.void(), &[m.ptr(), m.i32()]), bar, &[s.inst.operand(0), s.inst.operand(1)], "");
                    rt.omp[OMP_UNPARK].call(&b, &[frame], "");
                    b.br(cont);
                    rb
                } else {
                    Block::split_before(park, &format!("dao.sync.{}", k + 1))
                }
            }
            SiteKind::Exit => {
                exit_site = k as u32 + 1;
                exit_block.expect("exit site outside a microtask")
            }
            SiteKind::Forced => {
                b.before(s.inst);
                spill(&b);
                rt.forced.call(&b, &[frame], "");
                let next = s.inst.next_instruction().expect("marker call is not a terminator");
                s.inst.erase();
                Block::split_before(next, &format!("dao.resume.{}", k + 1))
            }
            SiteKind::Marker => {
                // if (--dao_poll <= 0) { label, spills, dao_candidate }
                b.before(s.inst);
                let p = b.load_relaxed(m.i64(), rt.poll, "dao.poll", 8);
                let p1 = b.sub(p, m.const_i64(1), "dao.poll.next");
                b.store_relaxed(p1, rt.poll, 8);
                let mut due = b.icmp_sle(p1, m.const_i64(0), "dao.due");
                if fp.parallel {
                    // or: the runtime is gathering this thread's team
                    let r = b.load_relaxed(m.i8(), rt.request, "dao.request", 1);
                    let asked = b.icmp_ne(r, m.const_int(m.i8(), 0), "dao.asked");
                    due = b.or(due, asked, "dao.due.any");
                }
                let pre = s.inst.parent_block();
                let next = s.inst.next_instruction().expect("marker call is not a terminator");
                s.inst.erase();
                let resume = Block::split_before(next, &format!("dao.resume.{}", k + 1));
                pre.terminator().unwrap().erase();
                let slow = m.append_block(f, &format!("dao.candidate.{}", k + 1));
                b.at_end(pre);
                let br = b.cond_br(due, slow, resume);
                set_unlikely_first(m, br);
                b.at_end(slow);
                spill(&b);
                rt.cand.call(&b, &[frame], "");
                b.br(resume);
                resume
            }
        };
        targets.push(target);
    }

    // 4. the dispatch switch and one restore block per site
    let bad = m.append_block(f, "dao.badsite");
    restart_only.push(bad);
    b.at_end(bad);
    b.unreachable();
    let mut cases = Vec::new();
    for (k, s) in fp.sites.iter().enumerate() {
        let rb = m.append_block(f, &format!("dao.restore.{}", k + 1));
        restart_only.push(rb);
        b.at_end(rb);
        for (pos, call) in &fp.env_calls {
            if s.entry_pos.map_or(true, |p| p > *pos) {
                b.call(call.call_fn_type(), call.called_value(), &call.args(), "");
            }
        }
        for v in &s.slots {
            let ix = layout.ix[v];
            let align = m.abi_align(v.ty()).clamp(1, 16) as u32;
            let x = b.load_aligned(v.ty(), b.byte_gep(slots, layout.offset[ix], ""), "dao.reload", align);
            b.store(x, demoted[ix]);
        }
        b.br(targets[k]);
        cases.push((m.const_i32(k as u32 + 1), rb));
    }
    b.at_end(dispatch);
    b.switch(site_v, bad, &cases);

    // 5. demote live SSA values around the new edges
    for (ix, v) in layout.vals.iter().enumerate() {
        demote(m, &b, *v, demoted[ix]);
    }
    // 6. C++ exceptions: a landing pad of this function runs with this
    //    frame innermost (the frames the exception unwound, instrumented
    //    ones included, are gone, and did not pop themselves): top = &frame.
    for blk in f.blocks() {
        if let Some(at) = blk.landing_pad().and_then(|lp| lp.next_instruction()) {
            b.before(at);
            b.store_aligned(frame, rt.top, 8);
        }
    }
    // 7. pop the frame on every return, and where an exception leaves the
    //    function (`resume`): top = frame.parent
    for blk in f.blocks() {
        if let Some(term) = blk.terminator() {
            if term.opcode() == Opcode::LLVMResume {
                b.before(term);
                let parent = b.load_aligned(m.ptr(), b.struct_gep(t.frame.ty, frame, t.frame.field("parent"), ""), "dao.parent", 8);
                b.store_aligned(parent, rt.top, 8);
            }
            if term.opcode() == Opcode::LLVMRet {
                b.before(term);
                if fp.microtask {
                    // this thread has finished its part of the region
                    b.store(m.const_i32(exit_site), site_ptr(&b));
                    if let (Some(_), Some(h)) = (&fp.hold, &rt.hold) {
                        h[1].call(&b, &[], "");
                    }
                    rt.omp[OMP_END].call(&b, &[frame], "");
                }
                let parent = b.load_aligned(m.ptr(), b.struct_gep(t.frame.ty, frame, t.frame.field("parent"), ""), "dao.parent", 8);
                b.store_aligned(parent, rt.top, 8);
            }
        }
    }
    promote_allocas(f, &demoted);
}

/// Replace every use of `v` by a load from `slot`, and store `v` to `slot`
/// right after its definition (the classic reg2mem step, done by hand so
/// that it is exactly the uses that exist now).
fn demote(_m: Module, b: &Builder, v: Value, slot: Value) {
    let users = v.users();
    let def_block = v.parent_block();
    let at = if v.is_phi() {
        def_block.first_insertion_point().unwrap()
    } else if v.is_invoke() {
        // the result exists on the normal edge only: the store goes on a
        // block of its own there (phis of the old destination now name it)
        Block::split_invoke_normal(v, "dao.invoke.ok").first_instruction().unwrap()
    } else {
        v.next_instruction().unwrap()
    };
    b.before(at);
    let def_store = b.store(v, slot);
    let ty = v.ty();
    for u in users {
        if u == def_store || !u.is_instruction() {
            continue;
        }
        if u.is_phi() {
            let mut per_block: HashMap<Block, Value> = HashMap::default();
            for k in 0..u.incoming_count() {
                if u.operand(k) != v {
                    continue;
                }
                let pred = u.incoming_block(k);
                let l = *per_block.entry(pred).or_insert_with(|| {
                    b.before(pred.terminator().unwrap());
                    b.load(ty, slot, "dao.use")
                });
                u.set_operand(k, l);
            }
        } else {
            b.before(u);
            let l = b.load(ty, slot, "dao.use");
            for k in 0..u.num_operands() {
                if u.operand(k) == v {
                    u.set_operand(k, l);
                }
            }
        }
    }
}

/// Rename the program's main and make a new one that runs it through
/// dao_main (fixed-address stack, restore of globals and heap).
fn wrap_main(m: Module, main: Value, poll: Value) {
    let fty = main.function_type();
    main.set_name(names::USER_MAIN);
    main.set_linkage(LLVMLinkage::LLVMInternalLinkage);
    let (i32, p) = (m.i32(), m.ptr());
    let adapter_ty = m.fn_ty(i32, &[i32, p, p]);
    let adapter = m.add_function(names::MAIN_ADAPTER, adapter_ty);
    adapter.set_linkage(LLVMLinkage::LLVMInternalLinkage);
    let b = m.builder();
    b.at_end(m.append_block(adapter, "entry"));
    declare(m, &entry::THREAD_START).call(&b, &[poll], "");
    let params = adapter.params();
    let n = fty.fn_param_count() as usize;
    let want = fty.fn_params();
    let args: Vec<Value> = (0..n.min(3)).map(|i| params[i]).collect();
    let ok_types = args.iter().zip(&want).all(|(a, w)| a.ty() == *w);
    let r = if ok_types { b.call(fty, main, &args, "") } else { b.call(fty, main, &[], "") };
    if fty.fn_return().int_width() == Some(32) {
        b.ret(Some(r));
    } else {
        b.ret(Some(m.const_i32(0)));
    }
    let new_main = m.add_function(names::MAIN, adapter_ty);
    let dao_main = declare(m, &entry::MAIN);
    b.at_end(m.append_block(new_main, "entry"));
    let np = new_main.params();
    let r = dao_main.call(&b, &[np[0], np[1], np[2], adapter], "");
    b.ret(Some(r));
}
