//! The profile the runtime writes under `DAO_PROFILE=path` (schema in
//! docs/design.md, "Checkpoint placement"), and its reduction to the
//! solvers' inputs.
//!
//! Saved bytes of an instance: shared + sum over threads of private, where
//! shared = globals + heap (what the master saves for everybody) and a
//! thread's private = its slots + stack objects (its frames). With
//! `threads = Some(k)` the paper's formula shared + k * private is used
//! instead, private being the largest per-thread figure recorded (one
//! profiled thread stands for k).

use serde::{Deserialize, Serialize};

use crate::error::PlacementError;
use crate::gpu::Point;
use crate::window::Problem;

pub const PROFILE_FORMAT: &str = "dao-profile";
pub const PROFILE_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Executable {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// xxh3-64 of the executable, 16 hex digits.
    pub hash: String,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub format: String,
    pub version: u32,
    pub executable: Executable,
    /// Most threads recorded at one instance.
    #[serde(default = "one")]
    pub threads: u32,
    /// Run time from dao_main to exit, measurement time excluded.
    pub total_time_s: f64,
    /// Time spent measuring (excluded from every time in the profile).
    #[serde(default)]
    pub overhead_s: f64,
    /// Measured wall time (total_time_s + overhead_s).
    #[serde(default)]
    pub wall_time_s: f64,
    pub instances: Vec<Instance>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Candidate number (1-based count of markers reached): what a
    /// placement names.
    pub n: u64,
    /// Seconds since dao_main, measurement time excluded.
    pub time_s: f64,
    /// `function#site (file:line)`.
    #[serde(default)]
    pub site: String,
    pub shared: Shared,
    pub threads: Vec<ThreadBytes>,
    /// Time this measurement took (not part of time_s).
    #[serde(default)]
    pub measure_s: f64,
    /// A kernel boundary of an offloaded program: live device bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    pub globals: u64,
    pub heap: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadBytes {
    /// "master" or "worker".
    pub role: String,
    pub id: u32,
    pub slots: u64,
    pub stack: u64,
    /// Thread-local (threadprivate) values, saved whole.
    #[serde(default)]
    pub tls: u64,
    /// Workers: where the thread stood (candidate, barrier, exited, idle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// "gpu".
    pub kind: String,
    pub bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

impl Instance {
    pub fn shared_bytes(&self) -> u64 {
        self.shared.globals + self.shared.heap
    }
    pub fn private_bytes(&self) -> impl Iterator<Item = u64> + '_ {
        self.threads.iter().map(|t| t.slots + t.stack + t.tls)
    }
    /// Saved bytes (module comment).
    pub fn bytes(&self, threads: Option<u32>) -> u64 {
        match threads {
            None => self.shared_bytes() + self.private_bytes().sum::<u64>(),
            Some(k) => self.shared_bytes() + k as u64 * self.private_bytes().max().unwrap_or(0),
        }
    }
}

impl Profile {
    /// Parses and checks a profile (format, version, increasing candidate
    /// numbers, non-decreasing times within the run).
    pub fn parse(text: &str) -> Result<Profile, PlacementError> {
        let p: Profile = serde_json::from_str(text).map_err(|e| PlacementError::Profile(e.to_string()))?;
        if p.format != PROFILE_FORMAT {
            return Err(PlacementError::Profile(format!("format is {:?}, expected {PROFILE_FORMAT:?}", p.format)));
        }
        if p.version != PROFILE_VERSION {
            return Err(PlacementError::Profile(format!("version {} is not supported (expected {PROFILE_VERSION})", p.version)));
        }
        if !(p.total_time_s.is_finite() && p.total_time_s >= 0.0) {
            return Err(PlacementError::Profile(format!("total_time_s {} is not a time", p.total_time_s)));
        }
        let (mut n, mut t) = (0u64, 0.0f64);
        for i in &p.instances {
            if i.n <= n {
                return Err(PlacementError::Profile(format!("candidate numbers must increase: {} after {n}", i.n)));
            }
            if !(i.time_s.is_finite() && i.time_s >= t) {
                return Err(PlacementError::Profile(format!("instance {}: time {} s is before the previous one ({t} s)", i.n, i.time_s)));
            }
            n = i.n;
            t = i.time_s;
        }
        if t > p.total_time_s {
            return Err(PlacementError::Profile(format!("instance {n} at {t} s is after the end of the run ({} s)", p.total_time_s)));
        }
        Ok(p)
    }

    /// The paper's problem: weights are saved bytes.
    pub fn problem(&self, threads: Option<u32>, total_time: Option<f64>, t_itvl: f64) -> Result<Problem, PlacementError> {
        let end = total_time.unwrap_or(self.total_time_s);
        if let Some(last) = self.instances.last() {
            if last.time_s > end {
                return Err(PlacementError::Input(format!(
                    "the total time {end} s is before candidate instance {} (at {} s)",
                    last.n, last.time_s
                )));
            }
        }
        let p = Problem {
            times: self.instances.iter().map(|i| i.time_s).collect(),
            weights: self.instances.iter().map(|i| i.bytes(threads) as f64).collect(),
            end,
            max_gap: t_itvl,
        };
        p.validate().map_err(PlacementError::Input)?;
        Ok(p)
    }

    /// The CPU-GPU view: CPU bytes of every instance, device bytes where it
    /// is a kernel boundary.
    pub fn points(&self, threads: Option<u32>) -> Vec<Point> {
        self.instances
            .iter()
            .map(|i| Point { time: i.time_s, cpu_bytes: i.bytes(threads) as f64, gpu_bytes: i.device.as_ref().map(|d| d.bytes as f64) })
            .collect()
    }

    /// `n (site, t = ... s)` for messages.
    pub fn describe(&self, index: usize) -> String {
        let i = &self.instances[index];
        let site = if i.site.is_empty() { String::new() } else { format!(" at {}", i.site) };
        format!("candidate instance {}{site} (t = {:.6} s)", i.n, i.time_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = r#"{"format":"dao-profile","version":1,"executable":{"hash":"00ff","size":10},
      "threads":1,"total_time_s":2.0,"overhead_s":0.5,"wall_time_s":2.5,
      "instances":[
        {"n":1,"time_s":0.5,"site":"main#1 (a.c:3)","shared":{"globals":100,"heap":1000},
         "threads":[{"role":"master","id":0,"slots":8,"stack":16}],"measure_s":0.1},
        {"n":3,"time_s":1.5,"shared":{"globals":100,"heap":0},
         "threads":[{"role":"master","id":0,"slots":8,"stack":0},{"role":"worker","id":1,"slots":4,"stack":4}],
         "device":{"kind":"gpu","bytes":5000,"kernel":"k1"}}]}"#;

    #[test]
    fn parses_and_sizes() {
        let p = Profile::parse(P).unwrap();
        assert_eq!(p.instances[0].bytes(None), 1124);
        assert_eq!(p.instances[1].bytes(None), 116);
        assert_eq!(p.instances[1].bytes(Some(4)), 100 + 4 * 8);
        let q = p.problem(None, None, 1.0).unwrap();
        assert_eq!(q.times, vec![0.5, 1.5]);
        assert_eq!(q.end, 2.0);
        let pts = p.points(None);
        assert_eq!(pts[1].gpu_bytes, Some(5000.0));
        assert_eq!(pts[0].gpu_bytes, None);
        assert!(p.describe(0).contains("candidate instance 1 at main#1 (a.c:3)"));
        // round trip
        let s = serde_json::to_string(&p).unwrap();
        assert_eq!(Profile::parse(&s).unwrap(), p);
    }

    #[test]
    fn rejects_bad_profiles() {
        assert!(Profile::parse("{}").is_err());
        assert!(Profile::parse(&P.replace("dao-profile", "x")).is_err());
        assert!(Profile::parse(&P.replace("\"version\":1", "\"version\":9")).is_err());
        assert!(Profile::parse(&P.replace("\"n\":3", "\"n\":1")).is_err());
        assert!(Profile::parse(&P.replace("\"time_s\":1.5", "\"time_s\":0.1")).is_err());
        assert!(Profile::parse(&P.replace("\"total_time_s\":2.0", "\"total_time_s\":1.0")).is_err());
        let p = Profile::parse(P).unwrap();
        assert!(p.problem(None, Some(1.0), 1.0).is_err());
    }
}
