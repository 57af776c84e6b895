//! The seeded RNG of the random-kill scenario, so a failing seed can be
//! replayed with `DAO_TEST_SEED=<seed>`: the workspace's one splitmix64,
//! `dao_placement::synth::Rng` (`new`, `next_u64`, `below`, `unit`).

pub use dao_placement::synth::Rng;

/// The seed: `DAO_TEST_SEED` if set, else derived from the clock and `salt`.
pub fn seed(salt: &str) -> u64 {
    if let Some(s) = std::env::var("DAO_TEST_SEED").ok().and_then(|s| s.parse().ok()) {
        return s;
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ t;
    for b in salt.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h % 1_000_000_007
}
