//! The MPI sidecar of a checkpoint (`ckpt.NNNNNN.mpi`), written by the
//! runtime (runtime/src/mpi/log.rs, `log_text`) and read by it at a restart
//! and by `dao inspect`: text lines, the first the magic, the last `end
//! <xxh3 of everything before it>`. Its lines in between are the runtime's
//! (seq, rank and size, the predefined objects, the creation log).

/// The first line of a sidecar.
pub const MPI_LOG_MAGIC: &str = "dao-mpi-log 1";

/// Checks a sidecar's end line and magic; returns the lines between them.
pub fn mpi_log_body(text: &str) -> Result<&str, String> {
    let at = text.rfind("end ").ok_or("no end line (truncated)")?;
    let (body, end) = text.split_at(at);
    let want = u64::from_str_radix(end.trim().trim_start_matches("end ").trim(), 16).map_err(|_| "a malformed end line")?;
    if xxhash_rust::xxh3::xxh3_64(body.as_bytes()) != want {
        return Err("its checksum does not match (damaged)".into());
    }
    body.strip_prefix(MPI_LOG_MAGIC)
        .and_then(|r| r.strip_prefix('\n'))
        .ok_or_else(|| format!("not a dao MPI log (want '{MPI_LOG_MAGIC}')"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(body: &str) -> String {
        format!("{body}end {:016x}\n", xxhash_rust::xxh3::xxh3_64(body.as_bytes()))
    }

    #[test]
    fn body_of_a_sealed_log() {
        let t = sealed(&format!("{MPI_LOG_MAGIC}\nseq 3\nrank 1 size 4\n"));
        assert_eq!(mpi_log_body(&t), Ok("seq 3\nrank 1 size 4\n"));
    }

    #[test]
    fn damaged_truncated_and_foreign_logs_are_refused() {
        let t = sealed(&format!("{MPI_LOG_MAGIC}\nseq 3\n"));
        assert!(mpi_log_body(&t.replace("seq 3", "seq 4")).unwrap_err().contains("checksum"));
        assert!(mpi_log_body(&t[..t.len() / 2]).is_err());
        assert!(mpi_log_body(&sealed("something else\n")).unwrap_err().contains("not a dao MPI log"));
    }
}
