//! Intervals from failure rates.
//!
//! Failures are exponential with rate lambda = 1/MTBF, so the probability of
//! running t seconds without one is R(t) = exp(-t/MTBF). Asking R(T_itvl) =
//! R gives the paper's interval T_itvl = -ln(R) * MTBF (R = 0.99: about 1%
//! of the MTBF).

/// The paper's interval: the longest stretch that is failure-free with
/// probability `reliability`.
pub fn t_itvl(mtbf: f64, reliability: f64) -> f64 {
    -reliability.ln() * mtbf
}

/// MTBF of a series system (all parts must work): the failure rates add.
/// The CPU-GPU paper's MTBF_CG = 1 / (1/MTBF_CPU + 1/MTBF_GPU).
pub fn series_mtbf(parts: &[f64]) -> f64 {
    1.0 / parts.iter().map(|m| 1.0 / m).sum::<f64>()
}

/// Lower bound on the number of checkpoints that the paper states:
/// M >= T / T_itvl. (The gap constraint itself, with the start and the end
/// as virtual points, implies M >= ceil(T / T_itvl) - 1.)
pub fn paper_min_count(total: f64, t_itvl: f64) -> f64 {
    total / t_itvl
}

/// Young's first-order optimal checkpoint interval sqrt(2 C MTBF) for a
/// checkpoint cost C (seconds).
pub fn young(cost: f64, mtbf: f64) -> f64 {
    (2.0 * cost * mtbf).sqrt()
}

/// Daly's higher-order interval (Daly 2006, eq. 37): for C < 2 MTBF,
/// sqrt(2 C M) (1 + sqrt(C / 2M) / 3 + (C / 2M) / 9) - C; otherwise M.
pub fn daly(cost: f64, mtbf: f64) -> f64 {
    if cost >= 2.0 * mtbf {
        return mtbf;
    }
    let x = cost / (2.0 * mtbf);
    (2.0 * cost * mtbf).sqrt() * (1.0 + x.sqrt() / 3.0 + x / 9.0) - cost
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn formulas() {
        assert!((t_itvl(100.0, 0.99) - 1.00503).abs() < 1e-4);
        assert!((series_mtbf(&[400.0, 240.0]) - 150.0).abs() < 1e-9);
        assert!((young(2.0, 100.0) - 20.0).abs() < 1e-12);
        // Daly is Young plus small corrections, minus C.
        let d = daly(2.0, 100.0);
        assert!(d > 20.0 - 2.0 && d < 20.0 + 1.0, "{d}");
        assert_eq!(daly(300.0, 100.0), 100.0);
        assert_eq!(paper_min_count(10.0, 4.0), 2.5);
    }
}
