//! Whole-program checkpoint/restart tests: every program of test-programs/
//! at -O0 and -O2, through the scenarios of `dao_tests::scenario` (clean vs
//! instrumented, crash after k, crash while writing k, random SIGKILL, two
//! crashes in a row).
//!
//! Invariant: every live variable of every frame on the chain, every global
//! and every heap block is restored byte for byte, so the output appended
//! across crashes and restarts equals the clean (uninstrumented) run's.
//!
//! The table: `args` scale each program to ~0.05-0.15 s at -O2; `every`
//! (DAO_EVERY) gives about a dozen checkpoints per run (the candidate counts
//! at these arguments are noted per row); crash points lie inside that range
//! (the test checks that the uninterrupted run writes enough checkpoints).
//! Run one program: `cargo test --release -p dao-tests --test whole_program grid3d`.
//! Replay a random kill: `DAO_TEST_SEED=<seed printed by the test>`.

use dao_tests::{check, Case, Lang, Opt};

macro_rules! cases {
    ($($id:ident => $case:expr;)*) => {
        /// The table, for the coverage test below.
        const CASES: &[Case] = &[$($case),*];
        $(
            mod $id {
                use super::*;
                #[test]
                fn o0() { check(&$case, Opt::O0) }
                #[test]
                fn o2() { check(&$case, Opt::O2) }
            }
        )*
    };
}

// three crash points: early, middle, late (the random kills add others)
const A: &[u64] = &[1, 5, 10];
const B: &[u64] = &[2, 7];

cases! {
    // candidates reached at these arguments in a comment per row
    // 8 MiB rewritten on every page each step: background writes under copy-on-write
    c_big_state        => Case { name: "big_state",        lang: Lang::C, args: &["8", "48"],  every: 4,      crash_after: A, crash_in: B }; // 48
    c_call_result      => Case { name: "call_result",      lang: Lang::C, args: &["1000000"],  every: 5000,   crash_after: A, crash_in: B }; // 56900
    c_checkpoint_now   => Case { name: "checkpoint_now",   lang: Lang::C, args: &["2"],        every: 60,     crash_after: &[1, 6, 12], crash_in: &[2, 9] }; // 600 + 4 forced
    c_deep_chain       => Case { name: "deep_chain",       lang: Lang::C, args: &["1000"],     every: 700,    crash_after: A, crash_in: B }; // 9000
    c_early_exit       => Case { name: "early_exit",       lang: Lang::C, args: &["200000"],   every: 200000, crash_after: A, crash_in: B }; // 2268548
    c_fp_accum         => Case { name: "fp_accum",         lang: Lang::C, args: &["2000000"],  every: 400,    crash_after: A, crash_in: B }; // 5000
    c_globals_statics  => Case { name: "globals_statics",  lang: Lang::C, args: &["100000"],   every: 8000,   crash_after: A, crash_in: B }; // 100000
    c_grid3d           => Case { name: "grid3d",           lang: Lang::C, args: &["80"],       every: 60,     crash_after: A, crash_in: B }; // 720
    c_hash_table       => Case { name: "hash_table",       lang: Lang::C, args: &["150000"],   every: 30,     crash_after: A, crash_in: B }; // 369
    c_linked_list      => Case { name: "linked_list",      lang: Lang::C, args: &["6000"],     every: 12,     crash_after: A, crash_in: B }; // 150
    c_nbody            => Case { name: "nbody",            lang: Lang::C, args: &["500"],      every: 80,     crash_after: A, crash_in: B }; // 1000
    // statics read only by qsort's comparator and by functions called through a pointer table
    c_qsort_callback   => Case { name: "qsort_callback",   lang: Lang::C, args: &["10000"],    every: 800,    crash_after: A, crash_in: B }; // 10000
    c_realloc_buffer   => Case { name: "realloc_buffer",   lang: Lang::C, args: &["300000"],   every: 3,      crash_after: A, crash_in: B }; // 33
    c_recursion        => Case { name: "recursion",        lang: Lang::C, args: &["8"],        every: 80,     crash_after: A, crash_in: B }; // 1008
    c_ssa_accumulators => Case { name: "ssa_accumulators", lang: Lang::C, args: &["20000000"], every: 200,    crash_after: A, crash_in: B }; // 2638
    c_stack_arrays     => Case { name: "stack_arrays",     lang: Lang::C, args: &["4000"],     every: 1300,   crash_after: A, crash_in: B }; // 16008
    // buffers read only by strdup/strndup after the marker loop
    c_strdup_source    => Case { name: "strdup_source",    lang: Lang::C, args: &["2000000"],  every: 150,    crash_after: A, crash_in: B }; // 2000
    c_struct_chain     => Case { name: "struct_chain",     lang: Lang::C, args: &["10000"],    every: 3000,   crash_after: A, crash_in: B }; // 35000
    // crash points in the first loop (1, 3) and in the second (9)
    // VLAs at function scope and in a loop's body, an alloca buffer: moved to the heap
    c_vla_stack        => Case { name: "vla_stack",        lang: Lang::C, args: &["20000", "100"], every: 350, crash_after: A, crash_in: B }; // 4100
    c_two_loops        => Case { name: "two_loops",        lang: Lang::C, args: &["30000"],    every: 5000,   crash_after: &[1, 3, 9], crash_in: &[4, 8] }; // 60000
    f_main_loop        => Case { name: "main_loop",        lang: Lang::Fortran, args: &["4000000"], every: 350,   crash_after: A, crash_in: B }; // 4256
    f_deep_args        => Case { name: "deep_args",        lang: Lang::Fortran, args: &["1000"],    every: 4000,  crash_after: A, crash_in: B }; // 51000
    f_allocatable      => Case { name: "allocatable",      lang: Lang::Fortran, args: &["400"],     every: 130,   crash_after: A, crash_in: B }; // 1599
    f_module_vars      => Case { name: "module_vars",      lang: Lang::Fortran, args: &["600000"],  every: 3000,  crash_after: A, crash_in: B }; // 37500
    // automatic arrays and concatenation temporaries: moved to the heap
    f_automatic_arrays => Case { name: "automatic_arrays", lang: Lang::Fortran, args: &["1000000", "60"], every: 5, crash_after: A, crash_in: B }; // 66
    f_recursive        => Case { name: "recursive",        lang: Lang::Fortran, args: &["100"],     every: 17000, crash_after: A, crash_in: B }; // ~210000
}

/// Every program in test-programs/ has a row (a new program without one
/// would silently go untested).
#[test]
fn table_covers_every_program() {
    let missing = dao_tests::build::programs_without_row("", |stem, lang| CASES.iter().any(|c| c.name == stem && c.lang == lang));
    assert!(missing.is_empty(), "programs without a row in the table: {missing:?}");
    assert!(CASES.iter().filter(|c| c.lang == Lang::C).count() >= 14);
    assert!(CASES.iter().filter(|c| c.lang == Lang::Fortran).count() >= 4);
}
