//! The plugin's module layers (src/lib.rs, "# Layers"): a module names
//! (`crate::m`) only modules listed before it, so the modules form no
//! cycle. The checker is dao-analysis's `tests/layers.rs`, compiled here as
//! a module: it reads the sources of the crate under test
//! (`CARGO_MANIFEST_DIR`, this crate), and needs no libdao.so.
#[path = "../../analysis/tests/layers.rs"]
mod layers;
