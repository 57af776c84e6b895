//! The runtime contract in LLVM terms: the LLVM types of the `dao-abi`
//! crate's fields and signatures, its descriptor structures (built from
//! their field tables, filled by field name: [`fill`]), and the
//! declarations of the runtime's entry points ([`declare`], [`Fun`]) and
//! globals ([`abi_global`]). Used by `emit.rs`, `guard.rs`, `replica.rs`
//! and `route.rs`; nothing of the contract is spelled here.
use crate::ir::{Builder, Module, Type, Value};
use dao_abi::{Entry, Global, Layout, Ty};

/// The LLVM type of a field or parameter of the ABI.
pub fn llvm_ty(m: Module, t: Ty) -> Type {
    match t {
        Ty::I8 => m.i8(),
        Ty::I32 => m.i32(),
        Ty::I64 => m.i64(),
        Ty::Ptr => m.ptr(),
    }
}

/// A descriptor structure of the ABI: its LLVM type, built from the
/// layout's field table, and the layout to fill it by field name.
#[derive(Clone, Copy)]
pub struct Desc {
    pub ty: Type,
    pub layout: Layout,
}

impl Desc {
    pub fn new(m: Module, layout: Layout) -> Self {
        let fields: Vec<Type> = layout.fields.iter().map(|f| llvm_ty(m, f.ty)).collect();
        Desc { ty: m.struct_ty(&fields), layout }
    }
    /// The constant structure with the given value for each field, by name.
    pub fn constant(&self, m: Module, vals: &[(&str, Value)]) -> Value {
        m.const_struct(self.ty, &fill(&self.layout, vals))
    }
    /// Position of field `name` (for GEPs into the structure).
    pub fn field(&self, name: &str) -> u32 {
        self.layout.index(name) as u32
    }
}

/// The values of a structure's fields in the layout's order, from
/// (field name, value) pairs; panics on a missing, unknown or repeated
/// field name (a bug in the pass, caught by any test that emits it).
pub fn fill<T: Copy>(layout: &Layout, vals: &[(&str, T)]) -> Vec<T> {
    let mut out: Vec<Option<T>> = vec![None; layout.fields.len()];
    for (name, v) in vals {
        let i = layout.index(name);
        assert!(out[i].is_none(), "{}: field '{name}' given twice", layout.c_name);
        out[i] = Some(*v);
    }
    out.into_iter().enumerate().map(|(i, v)| v.unwrap_or_else(|| panic!("{}: no value for field '{}'", layout.c_name, layout.fields[i].name))).collect()
}

pub struct Types {
    pub var: Desc,
    pub site: Desc,
    pub func: Desc,
    pub module: Desc,
    pub frame: Desc,
    pub cond: Desc,
    pub bx: Desc,
    pub bdim: Desc,
    pub heap: Desc,
}

pub fn types(m: Module) -> Types {
    Types {
        var: Desc::new(m, dao_abi::VAR_DESC),
        site: Desc::new(m, dao_abi::SITE_DESC),
        func: Desc::new(m, dao_abi::FUNC_DESC),
        module: Desc::new(m, dao_abi::MODULE_DESC),
        frame: Desc::new(m, dao_abi::FRAME),
        cond: Desc::new(m, dao_abi::COND_DESC),
        bx: Desc::new(m, dao_abi::BOX_DESC),
        bdim: Desc::new(m, dao_abi::BOX_DIM),
        heap: Desc::new(m, dao_abi::HEAP_DESC),
    }
}

/// A declared runtime entry point and its function type.
#[derive(Clone, Copy)]
pub struct Fun {
    pub f: Value,
    pub ty: Type,
}

impl Fun {
    pub fn call(&self, b: &Builder, args: &[Value], name: &str) -> Value {
        b.call(self.ty, self.f, args, name)
    }
}

/// The function type of a runtime entry point, from its signature.
pub fn entry_type(m: Module, e: &Entry) -> Type {
    let params: Vec<Type> = e.params.iter().map(|t| llvm_ty(m, *t)).collect();
    m.fn_ty(e.ret.map_or(m.void(), |t| llvm_ty(m, t)), &params)
}

/// Declare the runtime entry point `e` (or find the module's declaration).
pub fn declare(m: Module, e: &Entry) -> Fun {
    let ty = entry_type(m, e);
    Fun { f: m.get_or_declare(e.name, ty), ty }
}

/// A global of the runtime (declared), or one every instrumented module
/// defines itself (a thread-local with initial value `init`).
pub fn abi_global(m: Module, g: &Global, init: Value) -> Value {
    if g.in_runtime {
        m.extern_global(llvm_ty(m, g.ty), g.name)
    } else {
        m.tls_var(g.name, llvm_ty(m, g.ty), init)
    }
}

#[cfg(test)]
mod tests {
    use super::fill;
    use dao_abi::FRAME;

    #[test]
    fn fill_orders_by_layout() {
        let v = fill(&FRAME, &[("slots", 6), ("parent", 1), ("site", 3), ("func", 2), ("allocas", 5), ("reserved", 4)]);
        assert_eq!(v, [1, 2, 3, 4, 5, 6]);
    }
    #[test]
    #[should_panic(expected = "no value for field 'reserved'")]
    fn fill_missing() {
        fill(&FRAME, &[("slots", 6), ("parent", 1), ("site", 3), ("func", 2), ("allocas", 5)]);
    }
    #[test]
    #[should_panic(expected = "has no field 'bogus'")]
    fn fill_extra() {
        fill(&FRAME, &[("slots", 6), ("parent", 1), ("site", 3), ("func", 2), ("allocas", 5), ("reserved", 4), ("bogus", 7)]);
    }
    #[test]
    #[should_panic(expected = "given twice")]
    fn fill_duplicate() {
        fill(&FRAME, &[("slots", 6), ("parent", 1), ("site", 3), ("func", 2), ("allocas", 5), ("reserved", 4), ("site", 3)]);
    }
}
