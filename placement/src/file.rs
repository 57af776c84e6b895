//! The placement file `dao place` writes and the runtime follows
//! (`DAO_PLACEMENT=path`): the executable it was computed for and the
//! candidate numbers that checkpoint. The runtime reads only `format`,
//! `version`, `executable` and `instances`; `parameters` and `summary`
//! record how it was made, for people.

use serde::{Deserialize, Serialize};

use crate::error::PlacementError;
use crate::profile::Executable;

pub const PLACEMENT_FORMAT: &str = "dao-placement";
pub const PLACEMENT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementFile {
    pub format: String,
    pub version: u32,
    pub executable: Executable,
    /// "bytes" (the paper's) or "expected-time".
    pub objective: String,
    /// Candidate numbers (profile `n`) that checkpoint, increasing.
    pub instances: Vec<u64>,
    #[serde(default)]
    pub parameters: serde_json::Value,
    #[serde(default)]
    pub summary: serde_json::Value,
}

impl PlacementFile {
    pub fn parse(text: &str) -> Result<PlacementFile, PlacementError> {
        let p: PlacementFile = serde_json::from_str(text).map_err(|e| PlacementError::Input(format!("not a placement file: {e}")))?;
        if p.format != PLACEMENT_FORMAT || p.version != PLACEMENT_VERSION {
            return Err(PlacementError::Input(format!("format {:?} version {} is not {PLACEMENT_FORMAT:?} version {PLACEMENT_VERSION}", p.format, p.version)));
        }
        if p.instances.windows(2).any(|w| w[0] >= w[1]) {
            return Err(PlacementError::Input("instances must be increasing".into()));
        }
        Ok(p)
    }
}
