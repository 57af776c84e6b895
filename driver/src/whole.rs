//! Whole-program mode (`--dao-whole-program`, or `DAO_WHOLE_PROGRAM=1` in
//! the environment of the build; issue #33): the pass sees the whole
//! program at link time instead of one file at a time.
//!
//! Why: the liveness of a candidate stops at calls into other files ("code
//! the pass cannot see"), and real codes keep their main loop in one file
//! and the work in others (every NPB 3.3 Fortran code: `call adi` in
//! `sp.f`, the loops in `rhs.f`, `x_solve.f`, ...). There the checkpoint
//! keeps every global another file may read, whatever the loops do.
//!
//! How (the shape of LTO, done by the driver since Debian's LLVM 19 has no
//! `ld.lld` to load the plugin into):
//! - compiling (`-c`): the compiler emits LLVM bitcode (`-flto=full`) into
//!   the `.o` the build asked for, without the pass;
//! - linking: the bitcode objects (found by their magic, whatever their
//!   name; sources on the link line are compiled to bitcode first) are
//!   linked into one module (`llvm-link-19`), every definition but `main`,
//!   `_QQmain` (flang's main program) and the symbols the link's native
//!   objects and archives (the runtime and the Fortran `dao` module
//!   included) refer to becomes internal (`opt-19 -passes=internalize`),
//!   and `clang-19 -c` compiles that module with the pass at the link's
//!   `-O` level (`-O2` when the link line has none). The link then takes
//!   that object instead of the bitcode ones.
//!
//! Internal linkage is what makes a global *eligible* for the analysis
//! (its every write is in the module: `pass/plugin/src/cond.rs`); it is
//! sound as long as no code outside the link's objects names it (a shared
//! library that looks a symbol up by name: not supported, documented).
//! Archives holding bitcode are not opened: one given by path stops the
//! link with an error naming it and its bitcode member
//! (`DriverError::WholeProgramArchive`); one found through `-l` fails in
//! the linker, as with `-flto` and no plugin-capable linker.
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::compile::{display_command, takes_separate_value, Lang, Mode, Plan};
use crate::error::DriverError;

/// Whether `p` holds LLVM bitcode (raw, or in the bitcode wrapper).
pub fn is_bitcode(p: &Path) -> bool {
    let mut b = [0u8; 4];
    std::fs::File::open(p).and_then(|mut f| f.read_exact(&mut b)).is_ok() && (b == [0x42, 0x43, 0xc0, 0xde] || b == [0xde, 0xc0, 0x17, 0x0b])
}

/// The first member of archive `p` that holds LLVM bitcode, if any (the
/// `ar` format: "!<arch>\n", then per member a 60-byte header whose bytes
/// 48..58 give the size in decimal, the data, padded to an even length).
pub fn bitcode_member(p: &Path) -> Option<String> {
    let b = std::fs::read(p).ok()?;
    if !b.starts_with(b"!<arch>\n") {
        return None;
    }
    let mut at = 8;
    while at + 60 <= b.len() {
        let h = &b[at..at + 60];
        let size: usize = std::str::from_utf8(&h[48..58]).ok()?.trim().parse().ok()?;
        let data = &b[at + 60..(at + 60 + size).min(b.len())];
        if data.starts_with(&[0x42, 0x43, 0xc0, 0xde]) || data.starts_with(&[0xde, 0xc0, 0x17, 0x0b]) {
            return Some(String::from_utf8_lossy(&h[..16]).trim().trim_end_matches('/').to_string());
        }
        at += 60 + size + (size & 1);
    }
    None
}

/// Source files a compiler driver compiles (by extension).
fn is_source(s: &str) -> bool {
    let ext = Path::new(s).extension().and_then(OsStr::to_str).unwrap_or("");
    matches!(
        ext,
        "c" | "i" | "cc" | "cpp" | "cxx" | "c++" | "C" | "ii" | "f" | "F" | "f77" | "F77" | "for" | "FOR" | "f90" | "F90" | "f95" | "F95" | "f03" | "F03" | "f08" | "F08"
    )
}

/// Options of a link line that a compile of its sources must not get:
/// `-o` (its own), libraries and their directories, linker flags.
fn is_link_option(s: &str) -> bool {
    matches!(s, "-o" | "-L" | "-l" | "-Xlinker" | "-z" | "-T" | "-u" | "-e" | "-no-pie" | "-static" | "-pie")
        || s.starts_with("-l")
        || s.starts_with("-L")
        || s.starts_with("-Wl,")
}

/// The compile step: bitcode, no pass. `-S`, `-E` and the like stay as
/// they are (they produce no object).
pub fn compile_plan(mut plan: Plan) -> Plan {
    if !plan.args.iter().any(|a| a == "-c") {
        return plan;
    }
    plan.args.retain(|a| !a.to_string_lossy().starts_with("-fpass-plugin="));
    plan.args.push("-flto=full".into());
    plan
}

/// Temporary files of one whole-program link, removed when dropped.
pub struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if !crate::env::keep_whole_program_files() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn run(step: &'static str, c: &mut Command) -> Result<(), DriverError> {
    let line = display_command(&c.get_program().to_string_lossy(), &c.get_args().map(OsStr::to_os_string).collect::<Vec<_>>());
    if crate::env::verbose() {
        eprintln!("dao: {line}");
    }
    let st = c.status().map_err(|source| DriverError::Spawn { program: c.get_program().to_string_lossy().into_owned(), source })?;
    if st.success() {
        Ok(())
    } else {
        Err(DriverError::WholeProgram { step, command: line, status: st.to_string() })
    }
}

/// A link line's inputs (their positions; not option values) and the
/// options a compile of its sources gets: everything but the inputs,
/// `-o`, linker options and the pass plugin.
fn split_link_line(args: &[OsString]) -> (Vec<usize>, Vec<OsString>) {
    let mut inputs: Vec<usize> = Vec::new();
    let mut copts: Vec<OsString> = Vec::new();
    let mut k = 0;
    while k < args.len() {
        let a = &args[k];
        let s = a.to_string_lossy();
        if takes_separate_value(&s) {
            // the option and its value, together
            if !is_link_option(&s) {
                copts.extend(args[k..(k + 2).min(args.len())].iter().cloned());
            }
            k += 2;
            continue;
        }
        if !s.starts_with('-') {
            inputs.push(k);
        } else if !is_link_option(&s) && !s.starts_with("-fpass-plugin=") {
            copts.push(a.clone());
        }
        k += 1;
    }
    (inputs, copts)
}

/// The link step: compile the sources on the line to bitcode, merge the
/// bitcode objects, internalize, compile with the pass; returns the link
/// plan with that object in place of the bitcode ones, and the scratch
/// directory to remove after the link. `plugin`: `libdao.so`;
/// `extra_native`: objects and archives the plan adds (runtime, modules).
pub fn link_plan(lang: Lang, plan: Plan, plugin: &Path, extra_native: &[PathBuf], remarks: bool) -> Result<(Plan, Scratch), DriverError> {
    let dir = std::env::temp_dir().join(format!("dao-whole-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| DriverError::io(&dir, e))?;
    let scratch = Scratch(dir.clone());
    let (inputs, copts) = split_link_line(&plan.args);
    let mut args = plan.args.clone();
    let mut bitcode: Vec<PathBuf> = Vec::new();
    let mut native: Vec<PathBuf> = extra_native.to_vec();
    let mut drop_at: Vec<usize> = Vec::new();
    for (n, &k) in inputs.iter().enumerate() {
        let s = plan.args[k].to_string_lossy().into_owned();
        let p = PathBuf::from(&s);
        if is_source(&s) {
            let o = dir.join(format!("src{n}.o"));
            let mut c = Command::new(lang.compiler());
            c.args(&copts).arg("-flto=full").arg("-c").arg(&p).arg("-o").arg(&o);
            run("compiling a source of the link line to bitcode", &mut c)?;
            bitcode.push(o);
            drop_at.push(k);
        } else if p.is_file() && is_bitcode(&p) {
            bitcode.push(p);
            drop_at.push(k);
        } else if p.is_file() {
            if let Some(m) = bitcode_member(&p) {
                return Err(DriverError::WholeProgramArchive { archive: p, member: m });
            }
            native.push(p);
        }
    }
    if bitcode.is_empty() {
        return Ok((plan, scratch));
    }
    // what the native side refers to stays public
    let mut keep: Vec<String> = vec!["main".into(), "_QQmain".into()];
    if !native.is_empty() {
        let o = Command::new("llvm-nm-19").args(["--undefined-only", "--format=just-symbols", "--no-sort"]).args(&native).output().map_err(|source| DriverError::Spawn { program: "llvm-nm-19".into(), source })?;
        keep.extend(String::from_utf8_lossy(&o.stdout).lines().map(str::trim).filter(|l| !l.is_empty() && !l.ends_with(':')).map(String::from));
    }
    keep.sort();
    keep.dedup();
    let api = dir.join("public.txt");
    std::fs::write(&api, keep.join("\n") + "\n").map_err(|e| DriverError::io(&api, e))?;
    let merged = dir.join("merged.bc");
    run("merging the bitcode objects", Command::new("llvm-link-19").args(&bitcode).arg("-o").arg(&merged))?;
    let internal = dir.join("internal.bc");
    let mut api_opt = OsString::from("-internalize-public-api-file=");
    api_opt.push(&api);
    run("internalizing", Command::new("opt-19").arg("-passes=internalize").arg(api_opt).arg(&merged).arg("-o").arg(&internal))?;
    let obj = dir.join("whole.o");
    let level = plan.args.iter().rev().map(|a| a.to_string_lossy().into_owned()).find(|s| s.starts_with("-O")).unwrap_or_else(|| "-O2".into());
    let mut plug = OsString::from("-fpass-plugin=");
    plug.push(plugin);
    let mut c = Command::new("clang-19");
    c.arg("-c").arg(&level).arg(plug).arg(&internal).arg("-o").arg(&obj);
    if plan.args.iter().any(|a| a.to_string_lossy().starts_with("-fopenmp")) {
        c.arg("-fopenmp");
    }
    if remarks {
        c.env("DAO_REMARKS", "1");
    }
    c.env("DAO_EXIT_ON_ERROR", "1");
    run("compiling the whole program with the dao pass", &mut c)?;
    // the object in place of the first bitcode input, the others dropped
    let first = drop_at[0];
    for &k in drop_at.iter().rev() {
        if k == first {
            args[k] = obj.clone().into_os_string();
        } else {
            args.remove(k);
        }
    }
    Ok((Plan { program: plan.program, args, env: plan.env }, scratch))
}

/// Whether whole-program mode applies to this invocation.
pub fn applies(mode: Mode, whole: bool, no_pass: bool) -> bool {
    whole && !no_pass && matches!(mode, Mode::CompileOnly | Mode::Link)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(s: &str) -> Plan {
        Plan { program: "clang-19".into(), args: s.split(' ').map(OsString::from).collect(), env: vec![] }
    }

    #[test]
    fn compile_step_emits_bitcode_without_the_pass() {
        let p = compile_plan(plan("-fpass-plugin=/x/libdao.so -I/x -O3 -c a.c -o a.o"));
        let s: Vec<String> = p.args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert!(!s.iter().any(|a| a.starts_with("-fpass-plugin")), "{s:?}");
        assert!(s.contains(&"-flto=full".to_string()), "{s:?}");
        // -S: unchanged
        let q = compile_plan(plan("-fpass-plugin=/x/libdao.so -S a.c"));
        assert!(q.args.iter().any(|a| a.to_string_lossy().starts_with("-fpass-plugin")));
    }

    #[test]
    fn link_line_split() {
        let args: Vec<OsString> = "-fpass-plugin=/x/libdao.so -I /inc -O3 -fopenmp a.f90 b.o -o prog -L /lib -lm -Wl,--wrap=malloc -no-pie -J mods".split(' ').map(OsString::from).collect();
        let (inputs, copts) = split_link_line(&args);
        let at = |k: usize| args[k].to_string_lossy().into_owned();
        assert_eq!(inputs.iter().map(|&k| at(k)).collect::<Vec<_>>(), ["a.f90", "b.o"]);
        let c: Vec<String> = copts.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(c, ["-I", "/inc", "-O3", "-fopenmp", "-J", "mods"]);
    }

    #[test]
    fn archives_with_bitcode_are_found() {
        let d = std::env::temp_dir().join(format!("dao-whole-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let member = |name: &str, data: &[u8]| {
            let mut h = format!("{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", format!("{name}/"), 0, 0, 0, 644, data.len()).into_bytes();
            h.extend_from_slice(data);
            if data.len() % 2 == 1 {
                h.push(b'\n');
            }
            h
        };
        let mut a = b"!<arch>\n".to_vec();
        a.extend(member("native.o", b"\x7fELF...")); // odd length: padded
        a.extend(member("bits.o", b"BC\xc0\xde rest"));
        std::fs::write(d.join("lib.a"), &a).unwrap();
        assert_eq!(bitcode_member(&d.join("lib.a")).as_deref(), Some("bits.o"));
        let mut n = b"!<arch>\n".to_vec();
        n.extend(member("native.o", b"\x7fELF..."));
        std::fs::write(d.join("native.a"), &n).unwrap();
        assert_eq!(bitcode_member(&d.join("native.a")), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn sources_by_extension() {
        assert!(is_source("a.c") && is_source("dir/b.f90") && is_source("x.F") && is_source("lulesh.cc") && is_source("ft.cpp"));
        assert!(!is_source("a.o") && !is_source("libx.a") && !is_source("a.h"));
    }
}
