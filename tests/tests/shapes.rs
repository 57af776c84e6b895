//! Array liveness on the shapes of third-party codes (issue #33): NPB's
//! padded global arrays with extents read at run time, extents passed as
//! parameters or captured by a region, line-local scratch, plane scratch
//! behind a barrier, boundary planes, unrolled and vectorised copies,
//! blocked rows. Each shape is a program of `test-programs/omp/c` with
//! negative twins (`-D...`: one read slips through, the object must be
//! kept); every run is also killed after its second checkpoint and
//! restarted with the dead bytes poisoned (`DAO_DEAD=poison`), and its
//! output must be the uninterrupted run's ([`dao_tests::sizes::run_program`]).
//! The sizes of our own section programs (`sections_dead`, `sections_cond`,
//! `sections_bt3`) are in sections.rs.
//!
//! Run: `cargo test --release -p dao-tests --test shapes`.

use dao_tests::paths::tools;
use dao_tests::sizes::{defs_run, defs_run_objs};
use dao_tests::Opt;

// ---- padded arrays, extents read with fscanf (padded_extents.c, issue
// #33): `work` and `flux` are rewritten over the extents by every step;
// their padding, written at start-up, is never read (nothing writes
// `grid_points` once the step loop runs), so both are dead at the top of
// the step loop; the twins read the padding of `work` (PAD_READ: `work`
// kept) or move the extent after the marker (LATE_WRITE: `flux`'s padding
// is read after that, everything kept). Every run
// is also killed after its second checkpoint and restarted with the dead
// bytes poisoned: the output must be the uninterrupted run's.

/// `u` and `work`: 25^3 doubles; `flux`: two per cell.
const PAD_ARRAY: u64 = 25 * 25 * 25 * 8;
/// Frames, `grid_points`, a few scalars.
const PAD_SMALL: u64 = 16384;

/// The bytes of an array of `fields` doubles per cell inside extents `e`:
/// what a checkpoint keeps at least of such an array when it is live.
/// Its padding beyond the extents, which no code reads while the extents
/// stay as they are, is left out (read boxes, ABI 12); the poisoned
/// restarts check that nothing read was.
fn inside(e: [u64; 3], fields: u64) -> u64 {
    e[0] * e[1] * e[2] * fields * 8
}

/// The extents of `extents_file()`.
const FILE_EXTENTS: [u64; 3] = [20, 22, 24];
/// The programs' default extents (arrays of 25, padded as in NPB).
const DEFAULT_EXTENTS: [u64; 3] = [24, 24, 24];
/// 40 steps: checkpoints 1 and 2 (candidates 7 and 14) come before
/// LATE_WRITE's move of the extent at step 21.
const PAD_STEPS: &str = "40";

/// An extents file smaller than the arrays (the fscanf path), shared by
/// the runs that pass it.
fn extents_file() -> String {
    let p = tools().out.join("sections-build").join("padded_extents.txt");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, "20 22 24\n").unwrap();
    p.display().to_string()
}

fn padded_check(opt: Opt) {
    let label = format!("padded_extents {}", opt.name());
    let file = extents_file();
    for (tag, args, e) in [("defaults", vec![PAD_STEPS], DEFAULT_EXTENTS), ("file", vec![PAD_STEPS, file.as_str()], FILE_EXTENTS)] {
        let sizes = defs_run("padded_extents", &[], opt, &args, tag);
        for &(seq, b) in &sizes {
            assert!(b >= inside(e, 1) && b <= PAD_ARRAY + PAD_SMALL, "[{label} {tag}] checkpoint {seq} saved {b} bytes: want u ({PAD_ARRAY}) and not work and flux ({})", 3 * PAD_ARRAY);
        }
    }
    // one loop reads `work` one past the extent: `work` kept, `flux` dead
    for &(seq, b) in &defs_run("padded_extents", &["-DPAD_READ"], opt, &[PAD_STEPS], "pad-read") {
        assert!(b >= 2 * inside(DEFAULT_EXTENTS, 1) && b <= 2 * PAD_ARRAY + PAD_SMALL, "[{label} PAD_READ] checkpoint {seq} saved {b} bytes: want u and work ({}), not flux", 2 * PAD_ARRAY);
    }
    // the extent moves after the marker: everything kept
    for &(seq, b) in &defs_run("padded_extents", &["-DLATE_WRITE"], opt, &[PAD_STEPS], "late-write") {
        assert!(b >= 4 * PAD_ARRAY, "[{label} LATE_WRITE] checkpoint {seq} saved {b} bytes: want u, work and flux ({})", 4 * PAD_ARRAY);
    }
    // the extents passed to a function that only reads them, which at
    // -O0 keeps its parameter in a stack slot: still eligible (issue #33,
    // NPB FT's `cffts1(.., dims[0], ..)` at -O0), `work` and `flux` dead;
    // the extent moved through such a parameter after the marker: kept
    for &(seq, b) in &defs_run("padded_extents", &["-DPARAM_READ"], opt, &[PAD_STEPS, file.as_str()], "param-read") {
        assert!(b >= inside(FILE_EXTENTS, 1) && b <= PAD_ARRAY + PAD_SMALL, "[{label} PARAM_READ] checkpoint {seq} saved {b} bytes: want u only, not work and flux");
    }
    for &(seq, b) in &defs_run("padded_extents", &["-DPARAM_WRITE"], opt, &[PAD_STEPS, file.as_str()], "param-write") {
        assert!(b >= 4 * PAD_ARRAY, "[{label} PARAM_WRITE] checkpoint {seq} saved {b} bytes: want u, work and flux ({})", 4 * PAD_ARRAY);
    }
}

#[test]
fn padded_c_o0() {
    padded_check(Opt::O0)
}

/// At -O2 and -O3 compute_work and update are inlined into the outlined
/// region and vectorised: `work` is dead as at -O0; `flux`, whose two
/// fields the vector loop and its remainder loop write in turn, is kept
/// (a loop with an epilogue kills nothing yet: docs/results.md, issue
/// #33). The twins as at -O0; every run restarted with poisoned dead
/// bytes.
#[test]
fn padded_c_o2_o3() {
    let file = extents_file();
    for opt in [Opt::O2, Opt::O3] {
        let label = format!("padded_extents {}", opt.name());
        // `flux`'s rows are a vectorised loop and its scalar remainder,
        // which together rewrite it (issue #33, `vectorCover`; at -O2 under
        // a guard per row, walked from the pair's anchor): dead like `work`
        let flux_live = false;
        let (lo, hi, want) = if flux_live { (3 * inside(FILE_EXTENTS, 1), 3 * PAD_ARRAY + PAD_SMALL, "u and flux") } else { (inside(FILE_EXTENTS, 1), PAD_ARRAY + PAD_SMALL, "u only") };
        for &(seq, b) in &defs_run("padded_extents", &[], opt, &[PAD_STEPS, file.as_str()], "file") {
            assert!(b >= lo && b <= hi, "[{label}] checkpoint {seq} saved {b} bytes: want {want} ({lo} to {hi}), not work");
        }
        let pad_lo = if flux_live { 4 * inside(FILE_EXTENTS, 1) } else { 2 * inside(FILE_EXTENTS, 1) };
        for &(seq, b) in &defs_run("padded_extents", &["-DPAD_READ"], opt, &[PAD_STEPS, file.as_str()], "pad-read") {
            assert!(b >= pad_lo, "[{label} PAD_READ] checkpoint {seq} saved {b} bytes: want u and work{} ({pad_lo})", if flux_live { " and flux" } else { "" });
        }
        for &(seq, b) in &defs_run("padded_extents", &["-DLATE_WRITE"], opt, &[PAD_STEPS, file.as_str()], "late-write") {
            assert!(b >= 4 * PAD_ARRAY, "[{label} LATE_WRITE] checkpoint {seq} saved {b} bytes: want u, work and flux ({})", 4 * PAD_ARRAY);
        }
        // the extents passed to a (not inlined) function that only reads
        // them: still eligible, `work` dead (issue #33: read-only
        // parameters; at -O0, where the parameter is kept in a stack slot,
        // in `padded_check`)
        for &(seq, b) in &defs_run("padded_extents", &["-DPARAM_READ"], opt, &[PAD_STEPS, file.as_str()], "param-read") {
            assert!(b >= lo && b <= hi, "[{label} PARAM_READ] checkpoint {seq} saved {b} bytes: want {want} ({lo} to {hi}), not work");
        }
        // the extent moved through such a parameter after the marker: kept
        for &(seq, b) in &defs_run("padded_extents", &["-DPARAM_WRITE"], opt, &[PAD_STEPS, file.as_str()], "param-write") {
            assert!(b >= 4 * PAD_ARRAY, "[{label} PARAM_WRITE] checkpoint {seq} saved {b} bytes: want u, work and flux ({})", 4 * PAD_ARRAY);
        }
    }
}

/// NPB BT's `lhsx` shape (issue #33): a scratch array rebuilt line by line
/// in each iteration of a worksharing loop and read back in the same
/// iteration (`line_local.c`). Its reads see only that iteration's writes,
/// so it is dead at the marker although no loop rewrites all of it; with
/// `-DNEIGHBOUR_READ` one read reaches the previous line (another
/// iteration's, or start-up values): kept. Each run is killed after
/// checkpoint 2 and restarted with the dead bytes poisoned. At -O0 the
/// loops are in the orphaned function, at -O2/-O3 inlined into the region;
/// with the default extents, and at -O2 also a smaller extents file (the
/// fscanf path).
#[test]
fn line_local_scratch_is_dead() {
    const JAC: u64 = 25 * 25 * 25 * 5 * 8;
    let file = extents_file();
    // the extents file (the fscanf path) at -O2 only: the suite's time
    for (opt, args, tag) in [(Opt::O0, &["30"][..], "defaults"), (Opt::O2, &["30"][..], "defaults"), (Opt::O2, &["30", file.as_str()][..], "file"), (Opt::O3, &["30"][..], "defaults")] {
        {
            let label = format!("line_local {} {tag}", opt.name());
            let e = if tag == "file" { FILE_EXTENTS } else { DEFAULT_EXTENTS };
            for &(seq, b) in &defs_run("line_local", &[], opt, args, tag) {
                assert!(b >= inside(e, 1) && b <= PAD_ARRAY + PAD_SMALL, "[{label}] checkpoint {seq} saved {b} bytes: want u ({PAD_ARRAY}), not jac");
            }
            // (jac's fields 0 to 3 of the interior cells, which the second
            // loop of each line reads)
            let _ = JAC;
            for &(seq, b) in &defs_run("line_local", &["-DNEIGHBOUR_READ"], opt, args, tag) {
                assert!(b >= inside(e, 1) + inside([e[0] - 2, e[1] - 2, e[2] - 2], 4), "[{label} NEIGHBOUR_READ] checkpoint {seq} saved {b} bytes: want u and jac ({})", PAD_ARRAY + JAC);
            }
        }
    }
}

/// NPB SP's loop shapes (issue #33, `unsigned_bounds.c`): worksharing
/// loops `i <= grid_points[0]-1` (an unsigned iteration variable, counted
/// only through the guard `n > 0`), the bound reloaded after a `sqrt` in
/// the body, an orphaned `omp for` over the innermost dimension inside
/// serial loops (vectorised at -O2/-O3: a sign-extended 32-bit index), the
/// same bounds read signed elsewhere. `rho` and `spd`, recomputed over
/// the extents at the start of every step, are dead at the marker when the
/// extents make those loops run; with `-DSTALE_READ` one read reaches the
/// padding of `spd` (its start-up values): `spd` kept. Each run is killed
/// after checkpoint 2 and restarted with the dead bytes poisoned; the
/// extents file (the fscanf path) at -O2 only.
#[test]
fn unsigned_bounds_derived_fields_are_dead() {
    let file = extents_file();
    for (opt, args, tag) in [(Opt::O0, &["30"][..], "defaults"), (Opt::O2, &["30"][..], "defaults"), (Opt::O2, &["30", file.as_str()][..], "file"), (Opt::O3, &["30"][..], "defaults")] {
        let label = format!("unsigned_bounds {} {tag}", opt.name());
        for &(seq, b) in &defs_run("unsigned_bounds", &[], opt, args, tag) {
            assert!(b >= PAD_ARRAY && b <= PAD_ARRAY + PAD_SMALL, "[{label}] checkpoint {seq} saved {b} bytes: want u ({PAD_ARRAY}), not rho and spd");
        }
        for &(seq, b) in &defs_run("unsigned_bounds", &["-DSTALE_READ"], opt, args, tag) {
            assert!(b >= 2 * PAD_ARRAY && b <= 2 * PAD_ARRAY + PAD_SMALL, "[{label} STALE_READ] checkpoint {seq} saved {b} bytes: want u and spd ({}), not rho", 2 * PAD_ARRAY);
        }
    }
}

/// NPB FT's `evolve` shape (issue #33, `captured_extents.c`): the extents
/// `dims[0]` reach a `parallel for` as a parameter `int d[3]` of a static
/// function that -O2 inlines into `main`, so the region reads them through
/// the pointer in its by-reference capture slot. The slot is only read
/// through: `dims` keeps its runtime-checked conditions, and `u1`, rebuilt
/// from `u0` by every step, is dead at the marker when the extents cover
/// it (the defaults); with smaller extents from a file the conditions fail
/// at the checkpoint and `u1` is saved; with `-DEARLY_READ` (a read of
/// `u1` before the rebuild) it is kept. Each run is killed after
/// checkpoint 2 and restarted with the dead bytes poisoned.
#[test]
fn captured_extents_rebuilt_array_is_dead() {
    const U: u64 = 24 * 24 * 24 * 8;
    let file = extents_file();
    for opt in [Opt::O2, Opt::O3] {
        let label = format!("captured_extents {}", opt.name());
        for &(seq, b) in &defs_run("captured_extents", &[], opt, &["30"], "defaults") {
            assert!(b >= U && b <= U + PAD_SMALL, "[{label}] checkpoint {seq} saved {b} bytes: want u0 ({U}), not u1");
        }
        for &(seq, b) in &defs_run("captured_extents", &["-DEARLY_READ"], opt, &["30"], "defaults") {
            assert!(b >= 2 * U, "[{label} EARLY_READ] checkpoint {seq} saved {b} bytes: want u0 and u1 ({})", 2 * U);
        }
    }
    for &(seq, b) in &defs_run("captured_extents", &[], Opt::O2, &["30", file.as_str()], "file") {
        assert!(b >= 2 * U, "[captured_extents O2 file] checkpoint {seq} saved {b} bytes: want u0 and u1 ({}): the extents do not cover u1", 2 * U);
    }
}

/// NPB BT's `lhsy`/`lhsz` shape (issue #33): each direction's `omp for`
/// fills a scratch array over its whole iteration space and the next `omp
/// for`, after the barrier, reads it at the neighbours (`plane_scratch.c`;
/// the two sweeps fill and read different parts). Every read sees only
/// what the first loop of its function wrote, so at -O2/-O3 the array is
/// dead when the extents make those loops run (runtime-checked
/// conditions); with `-DSTALE_READ` one read reaches a plane only the
/// other sweep writes (the previous step's values): kept. (That twin
/// found two reads of one block recorded under the first one's
/// conditions only.) At -O0 the bounds are reloaded through stack slots
/// the analysis does not follow: only the restarts are checked. Each run
/// is killed after checkpoint 2 and restarted with the dead bytes
/// poisoned; the default extents, and at -O2 also a smaller extents file.
#[test]
fn plane_scratch_is_dead_after_the_barrier() {
    const S: u64 = 25 * 25 * 25 * 5 * 8;
    let file = extents_file();
    // the extents file (the fscanf path) at -O2 only: the suite's time
    for (opt, args, tag) in [(Opt::O0, &["30"][..], "defaults"), (Opt::O2, &["30"][..], "defaults"), (Opt::O2, &["30", file.as_str()][..], "file"), (Opt::O3, &["30"][..], "defaults")] {
        {
            let label = format!("plane_scratch {} {tag}", opt.name());
            let e = if tag == "file" { FILE_EXTENTS } else { DEFAULT_EXTENTS };
            let sizes = defs_run("plane_scratch", &[], opt, args, tag);
            if opt != Opt::O0 {
                for &(seq, b) in &sizes {
                    assert!(b >= inside(e, 1) && b <= PAD_ARRAY + PAD_SMALL, "[{label}] checkpoint {seq} saved {b} bytes: want u ({PAD_ARRAY}), not s");
                }
            }
            // (s's interior, which both sweeps read)
            let _ = S;
            for &(seq, b) in &defs_run("plane_scratch", &["-DSTALE_READ"], opt, args, tag) {
                assert!(b >= inside(e, 1) + inside([e[0] - 2, e[1] - 2, e[2] - 2], 5), "[{label} STALE_READ] checkpoint {seq} saved {b} bytes: want u and s ({})", PAD_ARRAY + S);
            }
        }
    }
}

/// NPB BT's and SP's `rhs = forcing` copy (issue #33, `unrolled_copy.c`):
/// a 40-byte copy per k from an array with a padded last dimension, in a
/// k loop that -O2 and -O3 unroll at run time by 2 (a main loop of two
/// copies per iteration, the last cell in a remainder block after it).
/// The shim takes the main loop, its remainder and its guard as one loop
/// of `grid_points[2]` iterations, so `rhs`, rewritten by every step, is
/// dead at the marker (runtime-checked). The reads of `rhs` (and of `qs`,
/// a field of it, rewritten by every step too) are in loops -O2/-O3
/// unroll at run time or vectorise, and one is at the far boundary plane
/// `grid_points[0]-3`: each is taken as a box inside the extents, so the
/// kill holds at extents smaller than the arrays (24: the padding is
/// never read), as NPB BT's arrays padded to 25 for a grid of 24. The
/// default extent, 25, is odd: the remainder block runs, and a claim
/// wider than its writes would show in the poisoned restart. Twins:
/// `-DSHORT_COPY` (one cell short in k: kept), `-DREAD_FIRST` (a read of
/// `rhs` before the copy: kept), `-DREAD_PAD` (with extents 24, `add`
/// reads the padding cell k = 24, never written after the start: kept)
/// and `-DREAD_PAD_VEC` (the same slip in the vectorised loop only: kept).
/// `solve` reads `rhs` as NPB BT's x_solve: through a pointer passed to a
/// function that is not inlined (the callee's reads through its parameter,
/// composed with the pointer's box), at a loop's exit value (a phi of two
/// values at -O3, `max(2, U) - 1` at -O2) and in a loop down from a plane
/// the extents give; its twins `-DREAD_PAD_CALL` (the callee reads one
/// double past the cell, at the last k the padding cell: kept) and
/// `-DREAD_PAD_BACK` (the loop down starts at the padding plane: kept).
/// The step begins with a `nowait` loop over the same extent, whose
/// zero-trip test jump threading sends past the copy's: without the kill
/// on that edge (its conditions rule it out) `rhs` is kept at -O2/-O3.
/// Each run is killed after checkpoint 2 and restarted with the dead bytes
/// poisoned.
#[test]
fn unrolled_copy_rhs_is_dead() {
    const U: u64 = 25 * 25 * 25 * 5 * 8; // u, rhs
    const F: u64 = 25 * 25 * 25 * 6 * 8; // forcing
    for (opt, args, tag) in [(Opt::O2, &["30"][..], "defaults"), (Opt::O3, &["30"][..], "defaults"), (Opt::O2, &["30", "24"][..], "even"), (Opt::O3, &["30", "24"][..], "even")] {
        let label = format!("unrolled_copy {} {tag}", opt.name());
        // (forcing's sixth field is padding, never read)
        let e = if tag == "even" { DEFAULT_EXTENTS } else { [25; 3] };
        for &(seq, b) in &defs_run("unrolled_copy", &[], opt, args, tag) {
            assert!(b >= 2 * inside(e, 5) && b <= U + F + PAD_SMALL, "[{label}] checkpoint {seq} saved {b} bytes: want u and forcing ({}), not rhs or qs", U + F);
        }
    }
    // the extents set in a function main calls after an OpenMP setting:
    // still frozen, and main's frame keeps only `note` (8 KiB), which it
    // reads after the call
    const NOTE: u64 = 1024 * 8;
    for (opt, args, tag) in [(Opt::O2, &["30", "24"][..], "even"), (Opt::O3, &["30"][..], "defaults")] {
        let e = if tag == "even" { DEFAULT_EXTENTS } else { [25; 3] };
        for &(seq, b) in &defs_run("unrolled_copy", &["-DSETUP_IN_RUN"], opt, args, tag) {
            assert!(b >= 2 * inside(e, 5) + NOTE && b <= U + F + NOTE + PAD_SMALL, "[unrolled_copy -DSETUP_IN_RUN {} {tag}] checkpoint {seq} saved {b} bytes: want u, forcing and note ({}), not rhs, qs or rho_i", opt.name(), U + F + NOTE);
        }
    }
    // what of `rhs` each twin must keep at least: the plane k = 24 the
    // short copy leaves (i, j < 25), all of it (read first), the padding
    // plane k = 24 within the extents (`add`: five fields; the vector
    // loop: one), the first field of the padding cell past each row the
    // call reads (j, k 1..22), the padding plane i = 24 the back
    // substitution reads (j, k 1..22)
    const PLANE_K: u64 = 25 * 25 * 5 * 8;
    const PLANE_24: u64 = 24 * 24 * 5 * 8;
    const INNER: u64 = 22 * 22 * 8;
    for (opt, def, args, tag, need) in [(Opt::O2, "-DSHORT_COPY", &["30"][..], "defaults", PLANE_K), (Opt::O3, "-DREAD_FIRST", &["30"][..], "defaults", U), (Opt::O2, "-DREAD_PAD", &["30", "24"][..], "even", PLANE_24), (Opt::O2, "-DREAD_PAD_VEC", &["30", "24"][..], "even", PLANE_24 / 5), (Opt::O3, "-DREAD_PAD_CALL", &["30", "24"][..], "even", INNER), (Opt::O2, "-DREAD_PAD_BACK", &["30", "24"][..], "even", 5 * INNER)] {
        let (sizes, objs) = defs_run_objs("unrolled_copy", &[def], opt, args, tag);
        let rhs = objs.get("rhs").copied().unwrap_or(0);
        assert!(rhs >= need, "[unrolled_copy {} {def} {tag}] the first checkpoint holds {rhs} bytes of rhs: want at least {need} ({objs:?}, sizes {sizes:?})", opt.name());
    }
}

/// NPB BT's `lhs` (issue #33, `boundary_planes.c`): written whole before
/// the step loop, its interior (i, j, k from 1 to n-2, n read from
/// `grid_points`) rewritten by the first worksharing loop of every step
/// in a loop after a sibling loop over the Jacobians, its faces read and
/// carried from step to step. The interior is a box whose bytes the
/// runtime computes at the checkpoint from the extents (a write box under
/// runtime-checked conditions, ABI 12): left out. Twins: `-DREAD_INTERIOR`
/// (a read of one interior cell before the rewrite: the whole interior
/// kept) and `-DSHORT_ROWS` (the rewrite stops one plane short: exactly
/// that plane kept). Extents 24 (padding beyond them, never read) and 25;
/// every run killed after checkpoint 2 and restarted with the dead bytes
/// poisoned.
#[test]
fn boundary_planes_interior_is_dead() {
    const U: u64 = 25 * 25 * 25 * 5 * 8; // u, jac
    const LHS: u64 = 25 * 25 * 25 * 15 * 8;
    for (opt, n, tag) in [(Opt::O0, 24u64, "even"), (Opt::O2, 24, "even"), (Opt::O3, 25, "full")] {
        let args: &[&str] = if n == 24 { &["30", "24"] } else { &["30", "25"] };
        let interior = (n - 2).pow(3) * 15 * 8;
        let plane = (n - 2).pow(2) * 15 * 8;
        let label = format!("boundary_planes {} {tag}", opt.name());
        let base = defs_run("boundary_planes", &[], opt, args, tag);
        let twin = defs_run("boundary_planes", &["-DREAD_INTERIOR"], opt, args, tag);
        for (&(seq, b), &(_, t)) in base.iter().zip(&twin) {
            assert!(b <= 2 * U + LHS - interior + PAD_SMALL, "[{label}] checkpoint {seq} saved {b} bytes: want at most u, jac and lhs less its interior ({})", 2 * U + LHS - interior);
            assert!(t >= b + interior, "[{label} -DREAD_INTERIOR] checkpoint {seq} saved {t} bytes: want the interior of lhs ({interior}) more than without the read ({b})");
        }
        if opt == Opt::O2 {
            for (&(seq, b), &(_, s)) in base.iter().zip(&defs_run("boundary_planes", &["-DSHORT_ROWS"], opt, args, tag)) {
                assert!(s >= b + plane && s <= b + plane + PAD_SMALL, "[{label} -DSHORT_ROWS] checkpoint {seq} saved {s} bytes: want one plane of lhs ({plane}) more than the full rewrite ({b})");
            }
        }
    }
}

/// NPB BT's `x_solve_cell` (issue #33, `far_face.c`): after a sequential
/// loop `for (i = 1; i < isize; i++)` the solve reads the far face at plane
/// `isize` (a bound's value less one) and at plane `i` (the loop's exit
/// value, a phi of 1 and isize). Each read is described as the planes 1 to
/// the bound's (plane 0 is the near face), so face 0's AA blocks, which no
/// code reads, are dead at the top of the step loop: `lhs` keeps face 0's
/// BB and CC and the far face's AA and BB that are read (five values
/// each), exactly. Twin `-DREAD_FACE0` reads face 0's AA: kept. Every run
/// is killed after checkpoint 2 and restarted with the dead bytes
/// poisoned; at -O0 (locals in memory: no box) only the restart is
/// checked.
#[test]
fn row_copy_runtime_lengths_and_prologues() {
    // NPB 3.0 SP's compute_rhs and x_solve (issue #33): per row, one
    // memcpy (memset) of 8 * grid_points[2] bytes rewrites `rhs` (`lhs`)
    // at the top of the step; the back substitution's vectorised k loop
    // has a scalar copy unrolled in the prologue form. At -O3 both are
    // dead at the top of the step loop, and `forcing` and `u` save only
    // what the extents reach (no read without a box). At -O0 and -O2 the
    // restart is checked (-O2 guards each row's memcpy with the extent's
    // test inside the unrolled j loop: not taken).
    let n = 30u64;
    let inside = 5 * n * n * n * 8;
    defs_run("row_copy", &[], Opt::O0, &["30", "30"], "o0");
    defs_run("row_copy", &[], Opt::O2, &["30", "30"], "o2");
    let (_, base) = defs_run_objs("row_copy", &[], Opt::O3, &["30", "30"], "base");
    let get = |m: &std::collections::HashMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    assert_eq!(get(&base, "rhs"), 0, "[row_copy O3] rhs is rewritten row by row (memcpy of a run-time length) before any read: {base:?}");
    assert_eq!(get(&base, "lhs"), 0, "[row_copy O3] lhs is zeroed row by row (memset of a run-time length) before any read: {base:?}");
    // (the runtime saves a plane's rows as one range, the 56-byte gaps
    // between them included: from the first element of row 0 to the last
    // of row n-1, per component and plane)
    let rows = 5 * n * ((n - 1) * 296 + n * 8);
    for a in ["forcing", "u"] {
        let b = get(&base, a);
        assert!(b >= inside && b <= rows, "[row_copy O3] {a}: {b} bytes saved, want the extents' {inside} up to {rows} with the gaps between rows: its padding beyond the extents is never read ({base:?})");
    }
    // one element short per row: the last element of every row of rhs stays live
    let (_, short) = defs_run_objs("row_copy", &["-DSHORT_COPY"], Opt::O3, &["30", "30"], "short");
    assert_eq!(get(&short, "rhs"), 5 * n * n * 8, "[row_copy -DSHORT_COPY O3] rhs: want exactly the last element of each row ({short:?})");
    // a read before the copy: all of rhs is live
    let (_, first) = defs_run_objs("row_copy", &["-DREAD_FIRST"], Opt::O3, &["30", "30"], "first");
    assert!(get(&first, "rhs") >= inside, "[row_copy -DREAD_FIRST O3] rhs: want at least the extents' {inside} bytes ({first:?})");
}

#[test]
fn blocked_rows_dead_under_the_block_size() {
    // NPB 3.0 FT's `fft(-1, u1, u2)` (issue #33): `u2` rewritten in blocks
    // of `blk` rows, `blk` an `int` of external linkage every store sets
    // to 16, the extents through `&dims[k][0]`, an `exit` in the block
    // loop, and `u2` rewritten only on the `dir != 1` path of `transform`.
    // At -O3 `u1` and `u2` are dead at the top of the step loop (under
    // `blk == 16` and the extents checked at run time); at -O0 `u1` is (the
    // extents through a parameter kept in a stack slot).
    let arr = 8 * 64 * 64 * 16u64;
    let get = |m: &std::collections::HashMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    // -O0: `transform` keeps `d` in a stack slot of its own and passes the
    // slot to its region (the by-reference capture of a pointer), which
    // keeps it in a slot again: `dims` is still only read through, so it
    // bounds the loops and `u1` is dead under the extents' conditions
    let (_, o0) = defs_run_objs("blocked_rows", &[], Opt::O0, &["30"], "o0");
    assert_eq!(get(&o0, "u1"), 0, "[blocked_rows O0] u1 is rewritten whole before any read: {o0:?}");
    assert_eq!(get(&o0, "u0"), arr, "[blocked_rows O0] u0 is read: {o0:?}");
    let (_, base) = defs_run_objs("blocked_rows", &[], Opt::O3, &["30"], "base");
    assert_eq!(get(&base, "u2"), 0, "[blocked_rows O3] u2 is rewritten in blocks of blk = 16 rows before any read: {base:?}");
    assert_eq!(get(&base, "u1"), 0, "[blocked_rows O3] u1 is rewritten whole before any read: {base:?}");
    assert_eq!(get(&base, "u0"), arr, "[blocked_rows O3] u0 is read: {base:?}");
    // blocks of 24 rows leave the last 16 rows of each plane as they were,
    // and the checksum reads them: u2 is saved (a wrong kill would change
    // the output after the poisoned restart)
    let (_, short) = defs_run_objs("blocked_rows", &["-DSHORT_BLOCKS"], Opt::O3, &["30"], "short");
    assert_eq!(get(&short, "u2"), arr, "[blocked_rows -DSHORT_BLOCKS O3] u2: want all of it ({short:?})");
    // the message before `exit` reads the output: the path to `exit` is a
    // read, u2 is saved
    let (_, check) = defs_run_objs("blocked_rows", &["-DREAD_IN_CHECK"], Opt::O3, &["30"], "check");
    assert_eq!(get(&check, "u2"), arr, "[blocked_rows -DREAD_IN_CHECK O3] u2: want all of it ({check:?})");
    // NPB FT at -O2: the check is a call the block loop makes that may not
    // return (`cfftz`), after which `d` is reloaded (phis of the bound
    // global) and ScalarEvolution trusts the block step's `nsw` only under
    // a predicate: u1 and u2 dead at -O2 as at -O3
    for opt in [Opt::O2, Opt::O3] {
        let (_, call) = defs_run_objs("blocked_rows", &["-DCHECK_CALL"], opt, &["30"], "call");
        assert_eq!((get(&call, "u1"), get(&call, "u2")), (0, 0), "[blocked_rows -DCHECK_CALL {}] u1 and u2 rewritten before any read: {call:?}", opt.name());
        assert_eq!(get(&call, "u0"), arr, "[blocked_rows -DCHECK_CALL {}] u0 is read: {call:?}", opt.name());
    }
    let (_, short_call) = defs_run_objs("blocked_rows", &["-DCHECK_CALL", "-DSHORT_BLOCKS"], Opt::O2, &["30"], "short-call");
    assert_eq!(get(&short_call, "u2"), arr, "[blocked_rows -DCHECK_CALL -DSHORT_BLOCKS O2] u2: want all of it ({short_call:?})");
    // the check inlined at -O2: `switch is [1, -1 -> on]`, default -> the
    // `exit` (a dead end the writes-only run cuts), and the block loop's
    // count `(-16 + sext n) /u 16`
    let (_, o2) = defs_run_objs("blocked_rows", &[], Opt::O2, &["30"], "o2-sizes");
    assert_eq!((get(&o2, "u1"), get(&o2, "u2")), (0, 0), "[blocked_rows O2] u1 and u2 rewritten before any read: {o2:?}");
    let (_, short_o2) = defs_run_objs("blocked_rows", &["-DSHORT_BLOCKS"], Opt::O2, &["30"], "short-o2");
    assert_eq!(get(&short_o2, "u2"), arr, "[blocked_rows -DSHORT_BLOCKS O2] u2: want all of it ({short_o2:?})");
    let (_, check_o2) = defs_run_objs("blocked_rows", &["-DREAD_IN_CHECK"], Opt::O2, &["30"], "check-o2");
    assert_eq!(get(&check_o2, "u2"), arr, "[blocked_rows -DREAD_IN_CHECK O2] u2: want all of it ({check_o2:?})");
}

#[test]
fn far_face_near_blocks_are_dead() {
    let n = 24u64;
    let face = (n - 2) * (n - 2);
    let want = face * 400 + face * 2 * 40;
    defs_run("far_face", &[], Opt::O0, &["30", "24"], "o0");
    for opt in [Opt::O2, Opt::O3] {
        let (_, base) = defs_run_objs("far_face", &[], opt, &["30", "24"], "base");
        let (_, twin) = defs_run_objs("far_face", &["-DREAD_FACE0"], opt, &["30", "24"], "twin");
        let (b, t) = (base.get("lhs").copied().unwrap_or(0), twin.get("lhs").copied().unwrap_or(0));
        assert!(b > 0 && b <= want, "[far_face {}] lhs: {b} bytes saved, want at most face 0's BB and CC and the far face's reads ({want}): face 0's AA is never read ({base:?})", opt.name());
        assert!(t >= b + face * 200, "[far_face -DREAD_FACE0 {}] lhs: {t} bytes saved, want face 0's AA ({}) more than without the read ({b})", opt.name(), face * 200);
    }
}

#[test]
fn vector_rows_remainder_loops_kill() {
    // NPB 3.0 SP's `lhs` and `padded_extents`' `flux` shape (issue #33): a
    // scratch array of two fields per cell rewritten row by row by a
    // vectorised loop (the fields interleaved in one vector store) and its
    // scalar remainder, the extent known only at run time. At -O2 (each
    // row's loops under a guard `n > 0`, walked from the pair's anchor) and
    // -O3 `w` is dead at the top of the step loop (`vectorCover`; the
    // extent, 96, at least the array's); one element short per row
    // (`-DSKIP_LAST`), the last column stays live and is saved. At -O0 the
    // restart is checked. Every run restarts exactly with the dead bytes
    // poisoned.
    let arr = 96 * 96 * 8u64;
    defs_run("vector_rows", &[], Opt::O0, &["30"], "o0");
    let get = |m: &std::collections::HashMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    for opt in [Opt::O2, Opt::O3] {
        let (_, base) = defs_run_objs("vector_rows", &[], opt, &["30"], "base");
        assert_eq!(get(&base, "w"), 0, "[vector_rows {}] w is rewritten by the vector loop and its remainder before any read: {base:?}", opt.name());
        assert_eq!(get(&base, "a"), arr, "[vector_rows {}] a is read: {base:?}", opt.name());
    }
    let (_, short) = defs_run_objs("vector_rows", &["-DSKIP_LAST"], Opt::O3, &["30"], "short");
    assert!(get(&short, "w") >= 96 * 16, "[vector_rows -DSKIP_LAST O3] w: want at least its last column ({short:?})");
}
