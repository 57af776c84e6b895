//! `runtime/include/dao_abi.h` says exactly what this crate says: every
//! constant, every descriptor field (name, type, and the offset a C compiler
//! gives it), every entry point's signature, every global. A change on one
//! side only fails here.
use dao_abi::{entry, global, Layout, Ty, C_CONSTANTS, LAYOUTS};
use std::path::{Path, PathBuf};

fn header_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include/dao_abi.h")
}

/// The header without comments.
fn header() -> String {
    let src = std::fs::read_to_string(header_path()).expect("read dao_abi.h");
    let mut out = String::new();
    let mut rest = src.as_str();
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        let j = rest[i..].find("*/").expect("unterminated comment") + i + 2;
        out.push(' ');
        rest = &rest[j..];
    }
    out.push_str(rest);
    out.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

fn parse_value(v: &str) -> u64 {
    let v = v.trim().trim_end_matches(',');
    if let Some((a, b)) = v.split_once("<<") {
        return parse_value(a) << parse_value(b);
    }
    v.trim().trim_end_matches(['u', 'U', 'l', 'L']).parse().unwrap_or_else(|_| panic!("value '{v}'"))
}

/// The C type of a declaration (everything before its name) as a `Ty`;
/// `None` for `void`.
fn c_ty(decl: &str) -> Option<Ty> {
    let d = decl.trim();
    if d.contains('*') {
        return Some(Ty::Ptr);
    }
    let words: Vec<&str> = d.split_whitespace().filter(|w| !matches!(*w, "const" | "extern" | "_Atomic" | "_Thread_local" | "unsigned" | "signed")).collect();
    match words.join(" ").as_str() {
        "void" => None,
        "char" => Some(Ty::I8),
        "uint32_t" | "int" => Some(Ty::I32),
        "uint64_t" | "long long" | "int64_t" => Some(Ty::I64),
        other => panic!("unexpected C type '{other}' in '{decl}'"),
    }
}

/// Split a declaration `type name` (or `ret (*name)(args)`) into its type
/// and name.
fn split_decl(d: &str) -> (Option<Ty>, String) {
    let d = d.trim();
    if let Some(i) = d.find("(*") {
        let name = d[i + 2..].split(')').next().unwrap().trim().to_string();
        return (Some(Ty::Ptr), name);
    }
    let cut = d.rfind(|c: char| c.is_whitespace() || c == '*').expect("declaration without a type");
    (c_ty(&d[..=cut]), d[cut + 1..].trim().to_string())
}

/// Statements of the header (split at `;` outside parentheses).
fn statements(h: &str) -> Vec<String> {
    h.split(';').map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

#[test]
fn constants() {
    let h = header();
    let mut seen = std::collections::HashMap::new();
    for line in h.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("#define ") {
            let mut it = rest.splitn(2, char::is_whitespace);
            let (n, v) = (it.next().unwrap(), it.next().unwrap_or(""));
            if n.starts_with("DAO_") && !v.trim().is_empty() {
                seen.insert(n.to_string(), parse_value(v));
            }
        } else if let Some((n, v)) = l.split_once('=') {
            let n = n.trim();
            if n.starts_with("DAO_") && !n.contains(' ') {
                seen.insert(n.to_string(), parse_value(v));
            }
        }
    }
    for (name, value) in C_CONSTANTS {
        assert_eq!(seen.remove(*name), Some(*value), "{name} in dao_abi.h");
    }
    assert!(seen.is_empty(), "dao_abi.h defines constants dao-abi does not know: {seen:?}");
}

fn c_fields(h: &str, l: &Layout) -> Vec<(Option<Ty>, String)> {
    let open = [format!("typedef struct {} {{", l.c_name), format!("struct {} {{", l.c_name)];
    let start = open.iter().find_map(|o| h.find(o.as_str()).map(|i| i + o.len())).unwrap_or_else(|| panic!("struct {} not in dao_abi.h", l.c_name));
    let body = &h[start..start + h[start..].find('}').unwrap()];
    body.split(';').map(str::trim).filter(|s| !s.is_empty()).map(split_decl).collect()
}

#[test]
fn descriptor_fields() {
    let h = header();
    for l in LAYOUTS {
        let got = c_fields(&h, &l);
        let want: Vec<(Option<Ty>, String)> = l.fields.iter().map(|f| (Some(f.ty), f.name.to_string())).collect();
        assert_eq!(got, want, "fields of {} in dao_abi.h", l.c_name);
    }
}

/// A C compiler lays the header's structures out at the offsets the pass
/// emits (checked by compiling static assertions).
#[test]
fn descriptor_offsets_in_c() {
    let dir = std::env::temp_dir().join(format!("dao-abi-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut c = String::from("#include <stddef.h>\n#include \"dao_abi.h\"\n");
    for l in LAYOUTS {
        for (f, off) in l.fields.iter().zip(l.offsets()) {
            c += &format!("_Static_assert(offsetof({}, {}) == {off}, \"{}.{} at {off}\");\n", l.c_name, f.name, l.c_name, f.name);
        }
        c += &format!("_Static_assert(sizeof({}) == {}, \"sizeof {}\");\n", l.c_name, l.size(), l.c_name);
    }
    let file = dir.join("check.c");
    std::fs::write(&file, c).unwrap();
    let inc = header_path().parent().unwrap().to_path_buf();
    let out = std::process::Command::new("cc")
        .args(["-std=c11", "-fsyntax-only", "-I"])
        .arg(&inc)
        .arg(&file)
        .output()
        .expect("run cc (the C compiler; scripts/setup.sh installs build-essential)");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "dao_abi.h layouts differ from dao-abi:\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn entry_points() {
    let h = header();
    let stmts = statements(&h);
    for e in entry::ALL {
        let pat = format!("{}(", e.name);
        let s = stmts
            .iter()
            .find(|s| s.contains(&pat) && !s.contains('='))
            .unwrap_or_else(|| panic!("{} is not declared in dao_abi.h", e.name));
        let i = s.find(&pat).unwrap();
        let ret = c_ty(&s[..i]);
        let args = &s[i + pat.len()..s.rfind(')').unwrap()];
        let mut params = Vec::new();
        let (mut depth, mut cur) = (0, String::new());
        for ch in args.chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    params.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        params.push(cur);
        let params: Vec<Ty> = params
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty() && *p != "void")
            .map(|p| split_decl(p).0.unwrap_or_else(|| panic!("void parameter in {}", e.name)))
            .collect();
        assert_eq!(ret, e.ret, "return type of {}", e.name);
        assert_eq!(params, e.params, "parameters of {}", e.name);
    }
}

#[test]
fn globals() {
    let h = header();
    let stmts = statements(&h);
    for g in global::ALL {
        let s = stmts
            .iter()
            .find(|s| s.starts_with("extern") && s.ends_with(&format!(" {}", g.name)) || s.ends_with(&format!("*{}", g.name)))
            .unwrap_or_else(|| panic!("global {} is not declared extern in dao_abi.h", g.name));
        assert_eq!(split_decl(s).0, Some(g.ty), "type of {}", g.name);
        assert_eq!(s.contains("_Thread_local"), !g.in_runtime, "{}: thread-local iff defined by the modules", g.name);
    }
}
