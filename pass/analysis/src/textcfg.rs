//! A tiny text format for hand-written bodies, with expected live sets
//! written inline (like rustc's `rustc_peek` tests). Used by the tests.
//!
//! ```text
//! bb0:
//!   i = n          # defines i, uses n
//!   -> bb1
//! bb1:
//!   live: i n s    # the live set at this point must be exactly {i, n, s}
//!   use i n        # uses only
//!   -> bb2 bb3
//! bb2:
//!   s = s i        # kill s, then use s and i (uses are read before defs)
//!   i = i
//!   -> bb1
//! bb3:
//!   use s
//! ```
//! Variables are declared by first mention. `def x` defines without use;
//! `pdef x 0..8 16..24` overwrites bytes [0, 8) and [16, 24) of x only (a
//! partial kill: the variable-level checks ignore it).
//! A block with no `->` line is an exit.
use crate::bitset::BitSet;
use crate::body::{Body, Stmt};
use crate::graph::BlockId;
use crate::fxhash::HashMap;

pub struct Parsed {
    pub body: Body,
    pub names: Vec<String>,
    /// (block, statement index, expected live variables by name, source line)
    pub checks: Vec<(BlockId, usize, Vec<String>, usize)>,
}

impl Parsed {
    pub fn var(&self, name: &str) -> usize {
        self.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no variable {name}"))
    }
    pub fn set_names(&self, s: &BitSet) -> Vec<String> {
        let mut v: Vec<String> = s.iter().map(|i| self.names[i].clone()).collect();
        v.sort();
        v
    }
}

pub fn parse(src: &str) -> Parsed {
    let mut names: Vec<String> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::default();
    let mut blocks: Vec<(String, Vec<Stmt>, Vec<String>)> = Vec::new();
    let mut checks_raw = Vec::new();
    let mut intern = |n: &str, names: &mut Vec<String>| -> usize {
        *ids.entry(n.to_string()).or_insert_with(|| {
            names.push(n.to_string());
            names.len() - 1
        })
    };
    for (lineno, raw) in src.lines().enumerate() {
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        // (`live:` alone is the check of an empty live set, not a label)
        if let Some(label) = line.strip_suffix(':').filter(|_| line != "live:") {
            blocks.push((label.to_string(), Vec::new(), Vec::new()));
            continue;
        }
        let (_, stmts, succs) = blocks.last_mut().unwrap_or_else(|| panic!("line {}: statement outside a block", lineno + 1));
        if let Some(rest) = line.strip_prefix("->") {
            succs.extend(rest.split_whitespace().map(str::to_string));
        } else if let Some(rest) = line.strip_prefix("live:") {
            let vars: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
            checks_raw.push((blocks.len() - 1, blocks.last().unwrap().1.len(), vars, lineno + 1));
        } else if let Some(rest) = line.strip_prefix("use ") {
            let uses = rest
                .split_whitespace()
                .map(|n| intern(n, &mut names))
                .collect();
            stmts.push(Stmt {
                uses,
                defs: vec![],
                ..Default::default()
            });
        } else if let Some(rest) = line.strip_prefix("pdef ") {
            // `pdef x 0..8 16..24`: bytes [0, 8) and [16, 24) of x overwritten
            let mut words = rest.split_whitespace();
            let v = intern(
                words
                    .next()
                    .unwrap_or_else(|| panic!("line {}: pdef without a variable", lineno + 1)),
                &mut names,
            );
            let ranges = words
                .map(|w| {
                    let (a, b) = w
                        .split_once("..")
                        .unwrap_or_else(|| panic!("line {}: `{w}` is not lo..hi", lineno + 1));
                    (a.parse().unwrap(), b.parse().unwrap())
                })
                .collect();
            stmts.push(Stmt {
                pdefs: vec![(v, crate::intervals::Intervals::from_unsorted(ranges))],
                ..Default::default()
            });
        } else if let Some(rest) = line.strip_prefix("def ") {
            let defs = rest
                .split_whitespace()
                .map(|n| intern(n, &mut names))
                .collect();
            stmts.push(Stmt {
                uses: vec![],
                defs,
                ..Default::default()
            });
        } else if let Some((lhs, rhs)) = line.split_once('=') {
            let defs = lhs
                .split_whitespace()
                .map(|n| intern(n, &mut names))
                .collect();
            let uses = rhs
                .split_whitespace()
                .map(|n| intern(n, &mut names))
                .collect();
            stmts.push(Stmt {
                uses,
                defs,
                ..Default::default()
            });
        } else {
            panic!("line {}: cannot parse `{line}`", lineno + 1);
        }
    }
    // checks may name variables never used in a statement
    for (_, _, vars, _) in &checks_raw {
        for v in vars {
            intern(v, &mut names);
        }
    }
    let label_ix: HashMap<String, usize> = blocks.iter().enumerate().map(|(i, b)| (b.0.clone(), i)).collect();
    let mut body = Body::new(names.len());
    for (_, stmts, succs) in &blocks {
        let b = body.add_block();
        body.blocks[b].stmts = stmts.clone();
        body.blocks[b].succs = succs.iter().map(|s| *label_ix.get(s).unwrap_or_else(|| panic!("unknown block {s}"))).collect();
    }
    Parsed { body, names, checks: checks_raw }
}
