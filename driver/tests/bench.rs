//! `dao bench` end to end on the smallest case (CG class S, 1 thread, 1 rep):
//! exit 0, every column of the JSON row present and non-null, verification
//! SUCCESSFUL everywhere, markdown tables with the paper's CG figures.
//! Needs the plugin and runtime in target/release (`cargo build --release`);
//! takes a few seconds.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[test]
fn bench_cg_s() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = std::env::temp_dir().join(format!("dao-bench-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let json = out.join("r.json");
    let md = out.join("r.md");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dao"));
    cmd.args(["bench", "--bench", "cg", "--class", "S", "--threads", "1", "--reps", "1", "--out"])
        .arg(&out)
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .arg("--npb-dir")
        .arg(repo.join("npb-ports"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DAO_") && k != "DAO_HOME" {
            cmd.env_remove(k);
        }
    }
    let o = cmd.output().expect("run dao bench");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "dao bench failed: {:?}\n{stderr}", o.status);
    assert!(stderr.contains("[1/1] cg.S t=1"), "no progress line:\n{stderr}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let row = rows[0].as_object().unwrap();
    let columns = [
        "bench", "class", "threads", "reps", "clean_s", "clean_wall_s", "clean_runs_s", "clean_verified",
        "inst_s", "inst_wall_s", "inst_runs_s", "inst_verified", "inst_overhead_pct", "candidate_k",
        "candidates_min", "candidates_max", "candidate_at", "alc0_s", "alc0_wall_s", "alc0_minus_clean_s",
        "alc0_minus_clean_pct", "alc0_verified", "collect_s", "write_s", "save_s", "save_pct", "save_runs_s",
        "file_bytes", "bytes", "rss_bytes", "killed_wall_s", "restart_wall_s", "restart_bench_s", "restore_s",
        "recovery_s", "recovery_pct", "recovery_runs_s", "restart_verified", "save_all_file_bytes",
        "save_all_bytes", "save_all_rss_bytes", "live_vs_save_all_pct",
    ];
    for c in columns {
        let v = row.get(c).unwrap_or_else(|| panic!("column {c} missing in {row:?}"));
        let empty = match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        };
        assert!(!empty, "column {c} is null or empty: {v}");
    }
    for c in ["clean_verified", "inst_verified", "alc0_verified", "restart_verified"] {
        assert_eq!(row[c], true, "{c}");
    }
    assert_eq!(row["bench"], "cg");
    assert_eq!(row["class"], "S");
    assert!(row["file_bytes"].as_f64().unwrap() > 0.0);
    assert!(row["save_all_file_bytes"].as_f64().unwrap() >= row["file_bytes"].as_f64().unwrap());
    assert!(row["candidate_k"].as_u64().unwrap() >= 1);

    let md = std::fs::read_to_string(&md).unwrap();
    for h in [
        "## Checkpoint save overhead (paper table 2)",
        "## Restart overhead (paper table 3)",
        "## Checkpoint image size (paper table 4)",
        "| bench | class | threads | k / N | at | save s | save % |",
        "| bench | class | threads | recovery s | recovery % | restore s |",
        "| bench | class | threads | dao | save-all |",
        // the paper's CG class S figures: save ALC / C3, restart ALC / C3, C3 size
        "0.007 s 4.61%",
        "0.012 s 24.00%",
        "0.013 s 8.73%",
        "0.012 s 22.96%",
        "3.1 MB",
        "37.3 MB",
    ] {
        assert!(md.contains(h), "markdown lacks {h:?}:\n{md}");
    }
    // the two figures: one bar per value, the row's label, the paper's bars
    let sizes = std::fs::read_to_string(out.join("bench_sizes.svg")).expect("bench_sizes.svg");
    assert!(sizes.starts_with("<svg") && sizes.contains("cg.S t=1"), "{sizes}");
    assert_eq!(sizes.matches("<rect").count(), 1 + 3 + 3, "background, 3 legend keys, 3 bars:\n{sizes}");
    let over = std::fs::read_to_string(out.join("bench_overhead.svg")).expect("bench_overhead.svg");
    assert!(over.contains("4.6%") && over.contains("24.0%"), "paper's CG.S save figures missing:\n{over}");
    let _ = std::fs::remove_dir_all(&out);
}
