//! The device data environment as dao records it: the mapped host ranges
//! of each device, with libomptarget's two reference counts, kept by
//! replaying the map entries the program passes to
//! `__tgt_target_data_begin_mapper` / `_end_mapper` with libomptarget's
//! rules (LLVM 19, `omptarget.cpp` `targetDataBegin` / `targetDataEnd`):
//!
//! - begin: an entry inside a mapped range adds one to its count (the
//!   `ompx_hold` count with the hold bit, else the dynamic one); an entry
//!   over no mapped byte maps a new range with a count of 1; a zero-length
//!   entry outside every range maps nothing;
//! - end: an entry inside a mapped range takes one from its count (`delete`
//!   sets the dynamic count to 0); the range is unmapped when both counts
//!   are 0;
//! - `update` and kernels leave the environment as it was (a kernel's own
//!   maps are released when it returns).
//!
//! What dao does not model is recorded as a *problem*, and the first
//! checkpoint after it stops the run with it (never a wrong restart): map
//! entries that attach pointers (`PTR_AND_OBJ`: a pointer member or a
//! global pointer mapped with its pointee; the device copy of the pointer
//! holds a device address, which a restart cannot give back), struct members
//! (`MEMBER_OF`), user-defined mappers, non-contiguous sections, an entry
//! that extends a mapped range (libomptarget rejects it too), device memory
//! whose address the program holds (`omp_target_alloc`,
//! `omp_target_associate_ptr`) while it is live.
//!
//! Pure: no FFI here; `tgt.rs` feeds it and reads libomptarget.
use std::collections::BTreeMap;

/// `OMP_TGT_MAPTYPE_*` (llvm/Frontend/OpenMP/OMPConstants.h).
pub mod maptype {
    pub const TO: u64 = 0x1;
    pub const FROM: u64 = 0x2;
    pub const ALWAYS: u64 = 0x4;
    pub const DELETE: u64 = 0x8;
    pub const PTR_AND_OBJ: u64 = 0x10;
    pub const TARGET_PARAM: u64 = 0x20;
    pub const LITERAL: u64 = 0x100;
    pub const IMPLICIT: u64 = 0x200;
    pub const OMPX_HOLD: u64 = 0x2000;
    pub const NON_CONTIG: u64 = 0x1000_0000_0000;
    pub const MEMBER_OF: u64 = 0xffff_0000_0000_0000;
}

/// One map entry of a call: the section's first byte, its length, its map
/// type, whether a user-defined mapper goes with it, and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub begin: u64,
    pub size: u64,
    pub map_type: u64,
    pub mapper: bool,
    pub name: Option<String>,
}

/// One mapped range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub size: u64,
    /// The map type of the entry that mapped it.
    pub map_type: u64,
    pub dyn_refs: u64,
    pub hold_refs: u64,
    pub name: Option<String>,
}

/// The mapped ranges of every device, by (device, host address).
#[derive(Default, Debug)]
pub struct Table {
    pub maps: BTreeMap<(i32, u64), Mapping>,
    /// The first construct dao does not model (module comment).
    pub problem: Option<String>,
    /// Live device memory the program holds the address of (omp_target_alloc,
    /// associated pointers): (device, device address) -> what.
    pub held: BTreeMap<(i32, u64), String>,
}

fn describe(e: &Entry) -> String {
    match &e.name {
        Some(n) => format!("`{n}`"),
        None => format!("the {} bytes at {:#x}", e.size, e.begin),
    }
}

impl Table {
    /// The mapped range of `device` holding `[addr, addr + size)`
    /// (`size` 0: holding `addr`), and whether another range overlaps it.
    fn containing(&self, device: i32, addr: u64, size: u64) -> Result<Option<u64>, ()> {
        let end = addr.saturating_add(size.max(1));
        // ranges starting before `end`, the last one first
        for (&(_, start), m) in self.maps.range((device, 0)..(device, end)).rev() {
            let m_end = start + m.size;
            if m_end <= addr {
                break;
            }
            return if start <= addr && end <= m_end { Ok(Some(start)) } else { Err(()) };
        }
        Ok(None)
    }

    fn unsupported(e: &Entry, what: &str) -> Option<String> {
        let t = e.map_type;
        let why = if t & maptype::PTR_AND_OBJ != 0 {
            "attaches a pointer to its pointee on the device (a pointer mapped with the data it points to: a struct's pointer member, or a global pointer): the device copy of the pointer holds a device address, which a restart cannot give back"
        } else if t & maptype::MEMBER_OF != 0 {
            "maps a member of a struct"
        } else if t & maptype::NON_CONTIG != 0 {
            "maps a non-contiguous array section"
        } else if e.mapper {
            "uses a user-defined mapper (`declare mapper`)"
        } else {
            return None;
        };
        Some(format!("{what} of {} {why}", describe(e)))
    }

    fn note(&mut self, p: String) {
        if self.problem.is_none() {
            self.problem = Some(p);
        }
    }

    /// `__tgt_target_data_begin_mapper` (and `target enter data`).
    pub fn begin(&mut self, device: i32, entries: &[Entry], what: &str) {
        for e in entries {
            if let Some(p) = Self::unsupported(e, what) {
                self.note(p);
                continue;
            }
            let hold = e.map_type & maptype::OMPX_HOLD != 0;
            match self.containing(device, e.begin, e.size) {
                Ok(Some(start)) => {
                    let m = self.maps.get_mut(&(device, start)).expect("found above");
                    if hold {
                        m.hold_refs += 1;
                    } else {
                        m.dyn_refs += 1;
                    }
                }
                Ok(None) if e.size == 0 => {}
                Ok(None) => {
                    let m = Mapping { size: e.size, map_type: e.map_type, dyn_refs: u64::from(!hold), hold_refs: u64::from(hold), name: e.name.clone() };
                    self.maps.insert((device, e.begin), m);
                }
                Err(()) => self.note(format!("{what} of {} extends a range already mapped on device {device}", describe(e))),
            }
        }
    }

    /// `__tgt_target_data_end_mapper` (and `target exit data`).
    pub fn end(&mut self, device: i32, entries: &[Entry], what: &str) {
        for e in entries {
            if let Some(p) = Self::unsupported(e, what) {
                self.note(p);
                continue;
            }
            let Ok(Some(start)) = self.containing(device, e.begin, e.size) else { continue };
            let m = self.maps.get_mut(&(device, start)).expect("found above");
            if e.map_type & maptype::DELETE != 0 {
                m.dyn_refs = 0;
            } else if e.map_type & maptype::OMPX_HOLD != 0 {
                m.hold_refs = m.hold_refs.saturating_sub(1);
            } else {
                m.dyn_refs = m.dyn_refs.saturating_sub(1);
            }
            if m.dyn_refs == 0 && m.hold_refs == 0 {
                self.maps.remove(&(device, start));
            }
        }
    }

    /// A kernel's or an update's entries: they change nothing, but some
    /// leave device state dao cannot give back (pointer attachment).
    pub fn check(&mut self, entries: &[Entry], what: &str) {
        for e in entries {
            if let Some(p) = Self::unsupported(e, what) {
                self.note(p);
            }
        }
    }

    /// Every mapped byte, per device.
    pub fn mapped_bytes(&self) -> u64 {
        self.maps.values().map(|m| m.size).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::maptype::*;
    use super::*;

    fn e(begin: u64, size: u64, t: u64) -> Entry {
        Entry { begin, size, map_type: t, mapper: false, name: None }
    }

    fn refs(t: &Table, dev: i32, a: u64) -> Option<(u64, u64)> {
        t.maps.get(&(dev, a)).map(|m| (m.dyn_refs, m.hold_refs))
    }

    #[test]
    fn structured_inside_unstructured() {
        let mut t = Table::default();
        // enter data map(to: a[0:100]); target data map(tofrom: a[10:20])
        t.begin(0, &[e(1000, 800, TO)], "enter");
        t.begin(0, &[e(1080, 160, TO | FROM)], "data");
        assert_eq!(refs(&t, 0, 1000), Some((2, 0)));
        assert_eq!(t.maps.len(), 1);
        t.end(0, &[e(1080, 160, TO | FROM)], "data");
        assert_eq!(refs(&t, 0, 1000), Some((1, 0)));
        // exit data map(release: a)
        t.end(0, &[e(1000, 800, 0)], "exit");
        assert!(t.maps.is_empty());
        assert!(t.problem.is_none());
    }

    #[test]
    fn delete_hold_zero_length_and_devices() {
        let mut t = Table::default();
        t.begin(0, &[e(1000, 8, TO), e(2000, 8, OMPX_HOLD)], "data");
        t.begin(1, &[e(1000, 8, TO)], "data");
        t.begin(0, &[e(1000, 8, TO), e(1004, 0, 0), e(5000, 0, 0)], "data");
        assert_eq!(refs(&t, 0, 1000), Some((3, 0)));
        assert_eq!(refs(&t, 0, 2000), Some((0, 1)));
        assert_eq!(refs(&t, 1, 1000), Some((1, 0)));
        assert!(!t.maps.contains_key(&(0, 5000)));
        t.end(0, &[e(1000, 8, DELETE)], "exit");
        assert_eq!(refs(&t, 0, 1000), None);
        t.end(0, &[e(2000, 8, 0)], "exit");
        assert_eq!(refs(&t, 0, 2000), Some((0, 1)), "a dynamic release leaves a held range");
        t.end(0, &[e(2000, 8, OMPX_HOLD)], "exit");
        assert!(!t.maps.contains_key(&(0, 2000)));
        assert_eq!(t.mapped_bytes(), 8);
    }

    #[test]
    fn what_is_not_modelled_is_a_problem() {
        let mut t = Table::default();
        t.begin(0, &[e(1000, 8, TO | PTR_AND_OBJ)], "`target enter data`");
        assert!(t.problem.as_deref().unwrap().contains("attaches a pointer"));
        let mut t = Table::default();
        t.begin(0, &[e(1000, 80, TO)], "data");
        t.begin(0, &[e(1040, 80, TO)], "data");
        assert!(t.problem.as_deref().unwrap().contains("extends"));
        let mut t = Table::default();
        t.check(&[Entry { begin: 1, size: 8, map_type: TO, mapper: true, name: Some("s".into()) }], "a kernel");
        assert!(t.problem.as_deref().unwrap().contains("`s`"));
    }
}
