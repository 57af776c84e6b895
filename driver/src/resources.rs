//! Finding the files `dao` adds to a compilation: the pass plugin
//! (`libdao.so`), the runtime (`libdao_rt.a`) and the include directory
//! (`dao.h`, `dao.f90`).
//!
//! Three layouts, tried in this order:
//! 1. `DAO_HOME=<prefix>`: `<prefix>/lib/libdao.so`, `<prefix>/lib/libdao_rt.a`,
//!    `<prefix>/include/`. If DAO_HOME is set it must be complete; we never
//!    silently fall back to another copy.
//! 2. Install layout, `dao` at `<prefix>/bin/dao`: the same three under `<prefix>`.
//! 3. Cargo layout, `dao` at `<repo>/target/<profile>/dao` (or
//!    `<repo>/target/<triple>/<profile>/dao`): plugin and runtime next to the
//!    executable, includes in `<repo>/runtime/include`.

use std::path::{Path, PathBuf};

use crate::error::DriverError;

pub const PLUGIN_NAME: &str = "libdao.so";
pub const RUNTIME_NAME: &str = "libdao_rt.a";

/// The native libraries the Rust staticlib `libdao_rt.a` needs, as printed by
/// `cargo rustc -p dao-runtime -- --print native-static-libs`.
pub const RUNTIME_NATIVE_LIBS: &[&str] = &["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    DaoHome,
    Install,
    Cargo,
}

#[derive(Debug, Clone)]
pub struct Resources {
    pub layout: Layout,
    pub plugin: PathBuf,
    pub runtime: PathBuf,
    pub include_dir: PathBuf,
}

impl Resources {
    /// Locate the resources for the running `dao` executable.
    pub fn locate() -> Result<Resources, DriverError> {
        if let Some(home) = crate::env::dao_home() {
            return Self::from_prefix(&home);
        }
        let exe = std::env::current_exe().map_err(|source| DriverError::SelfExe { source })?;
        let exe = exe.canonicalize().unwrap_or(exe);
        Self::for_executable(&exe)
    }

    fn from_prefix(home: &Path) -> Result<Resources, DriverError> {
        let r = Resources {
            layout: Layout::DaoHome,
            plugin: home.join("lib").join(PLUGIN_NAME),
            runtime: home.join("lib").join(RUNTIME_NAME),
            include_dir: home.join("include"),
        };
        for p in [&r.plugin, &r.runtime, &r.include_dir.join("dao.h")] {
            if !p.exists() {
                return Err(DriverError::DaoHomeIncomplete { home: home.to_path_buf(), missing: p.clone() });
            }
        }
        Ok(r)
    }

    /// Locate the resources for a `dao` executable at `exe` (pure apart from
    /// file-existence checks; used by the tests with fake trees).
    pub fn for_executable(exe: &Path) -> Result<Resources, DriverError> {
        let bin_dir = exe.parent().unwrap_or(Path::new("."));
        let mut candidates = Vec::new();

        // Install layout: <prefix>/bin/dao.
        if bin_dir.file_name().is_some_and(|n| n == "bin") {
            if let Some(prefix) = bin_dir.parent() {
                candidates.push(Resources {
                    layout: Layout::Install,
                    plugin: prefix.join("lib").join(PLUGIN_NAME),
                    runtime: prefix.join("lib").join(RUNTIME_NAME),
                    include_dir: prefix.join("include"),
                });
            }
        }
        // Cargo layout: the repository is the nearest ancestor holding
        // runtime/include/dao.h (target/<profile>/ or target/<triple>/<profile>/).
        let repo = bin_dir
            .ancestors()
            .skip(1)
            .take(4)
            .find(|a| a.join("runtime/include/dao.h").is_file());
        candidates.push(Resources {
            layout: Layout::Cargo,
            plugin: bin_dir.join(PLUGIN_NAME),
            runtime: bin_dir.join(RUNTIME_NAME),
            include_dir: repo
                .map(|r| r.join("runtime/include"))
                .unwrap_or_else(|| bin_dir.join("../../runtime/include")),
        });

        if let Some(found) = candidates.iter().find(|c| c.is_complete()) {
            return Ok(found.clone());
        }
        // Report the first missing piece of the most likely candidate.
        let best = candidates
            .iter()
            .max_by_key(|c| c.present().len())
            .expect("at least the cargo candidate");
        let (what, looked): (Vec<_>, Vec<_>) = best.missing().into_iter().unzip();
        let mut looked_all: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
        for c in &candidates {
            if !std::ptr::eq(c, best) {
                looked_all.extend(c.missing().into_iter().map(|(_, p)| p.display().to_string()));
            }
        }
        Err(DriverError::ResourceMissing { what: what.join(", "), looked: looked_all.join(", ") })
    }

    fn items(&self) -> [(&'static str, PathBuf); 3] {
        [
            ("the dao pass plugin libdao.so", self.plugin.clone()),
            ("the dao runtime libdao_rt.a", self.runtime.clone()),
            ("the dao headers (dao.h)", self.include_dir.join("dao.h")),
        ]
    }

    fn present(&self) -> Vec<PathBuf> {
        self.items().into_iter().filter(|(_, p)| p.exists()).map(|(_, p)| p).collect()
    }

    fn missing(&self) -> Vec<(&'static str, PathBuf)> {
        self.items().into_iter().filter(|(_, p)| !p.exists()).collect()
    }

    fn is_complete(&self) -> bool {
        self.missing().is_empty()
    }

    /// Only the include directory, for `--dao-no-pass` builds, which need
    /// neither the plugin nor the runtime.
    pub fn locate_includes_only() -> Result<PathBuf, DriverError> {
        match Self::locate() {
            Ok(r) => Ok(r.include_dir),
            Err(e) => {
                if crate::env::dao_home_given() {
                    return Err(e);
                }
                let exe = std::env::current_exe().map_err(|source| DriverError::SelfExe { source })?;
                let exe = exe.canonicalize().unwrap_or(exe);
                let bin_dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
                let mut looked = Vec::new();
                for a in bin_dir.ancestors().take(5) {
                    for rel in ["include", "runtime/include"] {
                        let d = a.join(rel);
                        if d.join("dao.h").is_file() {
                            return Ok(d);
                        }
                        looked.push(d.display().to_string());
                    }
                }
                Err(DriverError::ResourceMissing { what: "the dao headers (dao.h)".into(), looked: looked.join(", ") })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch(p: &Path) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, b"").unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dao-res-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn cargo_layout() {
        let repo = scratch("cargo");
        touch(&repo.join("runtime/include/dao.h"));
        touch(&repo.join("target/release/libdao.so"));
        touch(&repo.join("target/release/libdao_rt.a"));
        let r = Resources::for_executable(&repo.join("target/release/dao")).unwrap();
        assert_eq!(r.layout, Layout::Cargo);
        assert_eq!(r.include_dir, repo.join("runtime/include"));
        assert_eq!(r.plugin, repo.join("target/release/libdao.so"));
    }

    #[test]
    fn install_layout() {
        let p = scratch("install");
        touch(&p.join("include/dao.h"));
        touch(&p.join("lib/libdao.so"));
        touch(&p.join("lib/libdao_rt.a"));
        let r = Resources::for_executable(&p.join("bin/dao")).unwrap();
        assert_eq!(r.layout, Layout::Install);
        assert_eq!(r.runtime, p.join("lib/libdao_rt.a"));
    }

    #[test]
    fn missing_plugin_says_build() {
        let repo = scratch("missing");
        touch(&repo.join("runtime/include/dao.h"));
        touch(&repo.join("target/release/libdao_rt.a"));
        let e = Resources::for_executable(&repo.join("target/release/dao")).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("libdao.so"), "{msg}");
        assert!(msg.contains("cargo build --release"), "{msg}");
    }
}
