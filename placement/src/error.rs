//! Typed errors of the solvers and of reading profiles.

/// Two consecutive points (candidate instances, or the program's start and
/// end) are farther apart than the allowed interval: no placement can meet
/// the constraint. `before`/`after` are indices into the problem's
/// instances (None: the program's start, resp. end).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("infeasible: {gap:.6} s between {} (t = {from:.6} s) and {} (t = {to:.6} s) exceeds the interval {max_gap:.6} s", point(.before, "the program's start"), point(.after, "the program's end"))]
pub struct Infeasible {
    pub before: Option<usize>,
    pub after: Option<usize>,
    pub from: f64,
    pub to: f64,
    pub gap: f64,
    pub max_gap: f64,
}

fn point(i: &Option<usize>, none: &str) -> String {
    match i {
        Some(i) => format!("instance index {i}"),
        None => none.to_string(),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    #[error("{0}")]
    Infeasible(#[from] Infeasible),
    #[error("not a dao profile: {0}")]
    Profile(String),
    #[error("invalid input: {0}")]
    Input(String),
}
