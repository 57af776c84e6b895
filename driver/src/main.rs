//! `dao`: the command-line driver. This file parses the command line,
//! dispatches, and is the one place where errors become messages and exit
//! codes:
//! - `dao cc`/`dao fc`: the compiler's exit status;
//! - `dao run`: the program's final exit status;
//! - `dao bench`: 0; 1 if a benchmark run did not verify;
//! - `dao inspect`: 0 if it could read what was asked; 1 if a checkpoint
//!   file given directly is invalid, or `--binary` did not write it;
//! - any other error of dao itself (missing files, bad arguments): 2.
//!
//! Every error is one line on stderr: `dao: error: ...`.

#![recursion_limit = "256"]

mod bench;
mod svg;
mod cache;
mod cli;
mod compile;
mod env;
mod error;
mod inspect;
mod place;
mod resources;
mod run;
mod sys;
mod whole;

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

use clap::Parser;

use cli::{Cli, Cmd};
use compile::{Lang, Mode, PlanInputs};
use error::DriverError;
use resources::Resources;

/// Exit code for errors of dao itself (same as clap's usage errors).
const EXIT_DAO_ERROR: u8 = 2;
/// Exit code when the checkpoint inspected is invalid.
const EXIT_INVALID_CHECKPOINT: u8 = 1;
/// Exit code of `dao bench` when a benchmark run did not verify.
const EXIT_UNVERIFIED: u8 = 1;

fn exit_code(e: &DriverError) -> u8 {
    match e {
        DriverError::Inspect(inspect::InspectError::Invalid(_)) => EXIT_INVALID_CHECKPOINT,
        DriverError::Bench(bench::BenchError::Unverified(_)) => EXIT_UNVERIFIED,
        _ => EXIT_DAO_ERROR,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Cc { args } => wrap_compiler(Lang::C, &args, None),
        Cmd::Fc { args } => wrap_compiler(Lang::Fortran, &args, None),
        Cmd::Mpicc { args } => wrap_compiler(Lang::C, &args, Some("mpicc")),
        Cmd::Mpifort { args } => wrap_compiler(Lang::Fortran, &args, Some("mpifort")),
        Cmd::Cxx { args } => wrap_compiler(Lang::Cxx, &args, None),
        Cmd::Mpicxx { args } => wrap_compiler(Lang::Cxx, &args, Some("mpicxx")),
        Cmd::Run { retries, dir, program, args } => {
            run::run(&run::RunRequest { retries, dir, program, args })
        }
        Cmd::Bench { benches, classes, threads, reps, out, json, markdown, npb_dir } => bench::bench(&bench::BenchRequest {
            benches,
            classes: classes.iter().filter_map(|c| c.chars().next()).collect(),
            threads,
            reps,
            out,
            json,
            markdown,
            npb_dir,
        })
        .map_err(Into::into),
        Cmd::Inspect { path, binary, json, partner_dir, flush_dir } => {
            // as the runtime: the options, else the job's variables
            let partner_dir = partner_dir.or_else(|| crate::env::partner_dir());
            let flush_dir = flush_dir.or_else(|| crate::env::flush_dir());
            inspect::inspect(&path, binary.as_deref(), json, partner_dir.as_deref(), flush_dir.as_deref()).map_err(Into::into)
        }
        Cmd::Place {
            profiles, mtbf, reliability, total_time, threads, objective, bandwidth, read_bandwidth, latency,
            restart_cost, mtbf_gpu, host_device_bandwidth, offset_window, gpu_mode, output, json, paper_experiment, svg,
        } => place::place(&place::PlaceRequest {
            profiles, mtbf, reliability, total_time, threads, objective, bandwidth, read_bandwidth, latency,
            restart_cost, mtbf_gpu, host_device_bandwidth, offset_window, gpu_mode, output, json, paper_experiment, svg,
        })
        .map_err(Into::into),
    };
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("dao: error: {e}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// DAO_VERBOSE=1 (also read by the runtime) makes the wrappers print the
/// resources they use and the compiler command line.
fn verbose() -> bool {
    crate::env::verbose()
}

/// `dao cc` / `dao fc`: plan the compiler command and exec it (so its exit
/// status and signals are the compiler's own). Returns only on error.
/// What Open MPI's wrapper compiler `wrapper` adds, asked from it.
fn mpi_flags(tool: &'static str, wrapper: &'static str) -> Result<compile::MpiFlags, DriverError> {
    let ask = |query: &'static str| -> Result<String, DriverError> {
        let err = |why: String| DriverError::MpiWrapper { tool, wrapper, query, why };
        let o = Command::new(wrapper).arg(query).output().map_err(|e| err(e.to_string()))?;
        if !o.status.success() {
            return Err(err(format!("{}: {}", o.status, String::from_utf8_lossy(&o.stderr).trim())));
        }
        String::from_utf8(o.stdout).map_err(|_| err("its output is not UTF-8".into()))
    };
    Ok(compile::MpiFlags::parse(&ask("--showme:compile")?, &ask("--showme:link")?))
}

/// `dao cc` / `dao fc`, and with `mpi` (Open MPI's wrapper to ask for its
/// flags) `dao mpicc` / `dao mpifort`.
fn wrap_compiler(lang: Lang, raw_args: &[OsString], mpi: Option<&'static str>) -> Result<i32, DriverError> {
    let (opts, user_args) = compile::extract_dao_options(raw_args);
    let mode = compile::mode(&user_args);
    // `dao mpicc` is named after the wrapper it asks
    let tool = mpi.unwrap_or(lang.tool());
    let mpi = match mpi {
        Some(w) if mode != Mode::Query => Some(mpi_flags(tool, w)?),
        _ => None,
    };
    if mode == Mode::Shared && !opts.no_pass {
        return Err(DriverError::SharedUnsupported { tool });
    }
    let inputs = if mode == Mode::Query {
        PlanInputs { plugin: None, runtime: None, include_dirs: vec![], link_objects: vec![], mpi: None }
    } else {
        let (plugin, runtime, include_dir) = if opts.no_pass {
            (None, None, Resources::locate_includes_only()?)
        } else {
            let r = Resources::locate()?;
            if verbose() {
                eprintln!("dao: {:?} layout: {}, {}", r.layout, r.plugin.display(), r.runtime.display());
            }
            (Some(r.plugin), Some(r.runtime), r.include_dir)
        };
        let mut include_dirs = vec![include_dir.clone()];
        let mut link_objects = vec![];
        if lang == Lang::Fortran {
            let m = cache::fortran_module(&include_dir, lang.compiler())?;
            include_dirs = vec![m.module_dir.clone()];
            if mode == Mode::Link {
                if opts.no_pass {
                    link_objects.push(cache::marker_stub()?);
                } else {
                    link_objects.push(m.object);
                }
            }
            // `use mpi` with flang: dao's own mpi.mod, before Open MPI's
            // (gfortran's) on the include path
            if let Some(flags) = &mpi {
                let mm = cache::mpi_module(lang.compiler(), &flags.compile)?;
                include_dirs.push(mm.module_dir.clone());
                if mode == Mode::Link {
                    link_objects.push(mm.object);
                }
            }
        }
        PlanInputs { plugin, runtime, include_dirs, link_objects, mpi }
    };
    let plan = compile::plan(lang, &opts, &user_args, mode, &inputs);
    // whole-program mode: bitcode objects, the pass at the link
    let whole = whole::applies(mode, opts.whole_program || crate::env::whole_program(), opts.no_pass);
    let (plan, scratch) = match (whole, mode, &inputs.plugin) {
        (true, Mode::CompileOnly, _) => (whole::compile_plan(plan), None),
        (true, Mode::Link, Some(plugin)) => {
            let mut native = inputs.link_objects.clone();
            native.extend(inputs.runtime.iter().cloned());
            let (p, s) = whole::link_plan(lang, plan, plugin, &native, opts.remarks)?;
            (p, Some(s))
        }
        _ => (plan, None),
    };
    if verbose() {
        eprintln!("dao: {}", compile::display_command(&plan.program, &plan.args));
    }
    let mut cmd = Command::new(&plan.program);
    cmd.args(&plan.args);
    for (k, v) in &plan.env {
        cmd.env(k, v);
    }
    if lang == compile::Lang::Fortran {
        // flang-new-19 drops diagnostics raised through the LLVMContext:
        // the pass prints its errors itself and fails the compilation
        cmd.env("DAO_EXIT_ON_ERROR", "1");
    }
    if scratch.is_some() {
        // the scratch directory goes after the link: wait for it
        let st = cmd.status().map_err(|source| DriverError::Spawn { program: plan.program.clone(), source })?;
        drop(scratch);
        return Ok(st.code().unwrap_or(1));
    }
    let source = cmd.exec();
    Err(DriverError::Spawn { program: plan.program, source })
}
