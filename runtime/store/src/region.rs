//! The unit of state the engine stores: a memory region keyed by its address.
//!
//! The runtime restores every object at the address it had when saved, so a
//! region seen at address `a` in one checkpoint is the same object when it
//! is seen at `a` in the next one (if its length changed, it is treated as a
//! new region). Objects without an address (the heap allocator's metadata)
//! use a key outside the address space the runtime uses.

/// A borrowed region: `addr` is its unique key (normally its address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region<'a> {
    pub addr: u64,
    pub bytes: &'a [u8],
}

/// A region rebuilt by a restore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedRegion {
    pub addr: u64,
    pub bytes: Vec<u8>,
}

impl OwnedRegion {
    pub fn as_region(&self) -> Region<'_> {
        Region { addr: self.addr, bytes: &self.bytes }
    }
}

/// Checks that every key appears once.
pub fn check_unique(regions: &[Region<'_>]) -> Result<(), crate::StoreError> {
    let mut keys: Vec<u64> = regions.iter().map(|r| r.addr).collect();
    keys.sort_unstable();
    if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(crate::StoreError::InvalidInput(format!("two regions have the key {:#x}", w[0])));
    }
    Ok(())
}
