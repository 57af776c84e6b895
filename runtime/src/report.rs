//! The report a background writer sends its parent on the pipe
//! (background.rs): the outcome of its write, its times, its memory, and
//! the checkpoint's DAO_STATS fields as it completed them.
use std::path::PathBuf;

/// What the child did, sent to the parent on the pipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The committed file and its size, or the error: (key, message); the
    /// key is what a synchronous write's failure warns once per
    /// (`writer.rs`), so one failure warns once in either mode.
    pub result: Result<(PathBuf, u64), (String, String)>,
    pub write_s: f64,
    pub encode_s: f64,
    /// A warning about pruning old checkpoints (the commit stands).
    pub prune_warning: Option<String>,
    /// Anonymous memory the child held alone when it finished (pages the
    /// program rewrote while the snapshot lived, plus the child's own
    /// buffers): the snapshot's extra resident memory.
    pub extra_bytes: u64,
    /// Bytes of program memory the child gave back as soon as they were
    /// in its pipeline (DAO_WRITER_RELEASE, `release::Releaser`).
    pub released_bytes: u64,
    /// Bytes of program memory the checkpoint does not hold that the child
    /// gave back before writing (DAO_WRITER_RELEASE,
    /// `release::give_back_unsaved`).
    pub released_unsaved_bytes: u64,
    /// DAO_STORE=engine: what the engine committed (`storage::Done::encode`).
    pub store: Option<String>,
    /// The time the writer took to collect the heap's part of the
    /// checkpoint on its snapshot (DAO_HEAP_SCAN=writer), before writing.
    pub heap_collect_s: f64,
    /// The checkpoint's DAO_STATS fields as the writer completed them (the
    /// heap's numbers are known only there).
    pub fields: Option<String>,
}

impl Default for Report {
    fn default() -> Self {
        Report { result: Err((String::new(), String::new())), write_s: 0.0, encode_s: 0.0, prune_warning: None, extra_bytes: 0, released_bytes: 0, released_unsaved_bytes: 0, store: None, heap_collect_s: 0.0, fields: None }
    }
}

impl Report {
    /// Line-oriented text: `key\tvalue` lines, `end` last (a report without
    /// it was cut short: the child died while sending it).
    pub fn encode(&self) -> Vec<u8> {
        let clean = |s: &str| s.replace(['\n', '\t'], " ");
        let mut t = String::new();
        match &self.result {
            Ok((p, n)) => t.push_str(&format!("ok\t{n}\t{}\n", clean(&p.display().to_string()))),
            Err((k, e)) => t.push_str(&format!("err\t{}\t{}\n", clean(k), clean(e))),
        }
        t.push_str(&format!(
            "write_s\t{}\nencode_s\t{}\nextra\t{}\nreleased\t{}\nunsaved\t{}\nheap_collect_s\t{}\n",
            self.write_s, self.encode_s, self.extra_bytes, self.released_bytes, self.released_unsaved_bytes, self.heap_collect_s
        ));
        if let Some(w) = &self.fields {
            t.push_str(&format!("fields\t{}\n", clean(w)));
        }
        if let Some(w) = &self.prune_warning {
            t.push_str(&format!("prune\t{}\n", clean(w)));
        }
        if let Some(w) = &self.store {
            t.push_str(&format!("store\t{}\n", clean(w)));
        }
        t.push_str("end\n");
        t.into_bytes()
    }

    /// The report, if `b` holds a complete one.
    pub fn decode(b: &[u8]) -> Option<Report> {
        let t = std::str::from_utf8(b).ok()?;
        let mut r = Report::default();
        let mut result = None;
        for line in t.lines() {
            let mut f = line.splitn(3, '\t');
            match f.next()? {
                "ok" => {
                    let n = f.next()?.parse().ok()?;
                    result = Some(Ok((PathBuf::from(f.next()?), n)));
                }
                "err" => result = Some(Err((f.next()?.to_string(), f.next().unwrap_or("").to_string()))),
                "write_s" => r.write_s = f.next()?.parse().ok()?,
                "encode_s" => r.encode_s = f.next()?.parse().ok()?,
                "extra" => r.extra_bytes = f.next()?.parse().ok()?,
                "released" => r.released_bytes = f.next()?.parse().ok()?,
                "unsaved" => r.released_unsaved_bytes = f.next()?.parse().ok()?,
                "prune" => r.prune_warning = Some(f.next().unwrap_or("").to_string()),
                "store" => r.store = Some(line["store\t".len()..].to_string()),
                "heap_collect_s" => r.heap_collect_s = f.next()?.parse().ok()?,
                "fields" => r.fields = Some(line["fields\t".len()..].to_string()),
                "end" => {
                    r.result = result?;
                    return Some(r);
                }
                _ => return None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_round_trip() {
        let r = Report {
            result: Ok((PathBuf::from("/tmp/d\tir/ckpt.000001.dao"), 1234)),
            write_s: 0.5,
            encode_s: 0.25,
            prune_warning: Some("cannot prune\nx".into()),
            extra_bytes: 4096,
            released_bytes: 1 << 20,
            released_unsaved_bytes: 3 << 20,
            store: Some("incremental 3 100 200 50 60 0.5 0.75 0.25 1 4 2 7 300 0.125".into()),
            heap_collect_s: 0.0625,
            fields: Some("\"bytes\":{\"heap\":5},\"at\":\"main#1 (a\\tb.c:3)\"".into()),
        };
        let d = Report::decode(&r.encode()).unwrap();
        assert_eq!(d.store, r.store);
        let done = crate::storage::Done::decode(d.store.as_deref().unwrap(), PathBuf::from("x")).unwrap();
        assert_eq!((done.kind, done.parent, done.seq, done.collected, done.write_s, done.kept_from), ("incremental", Some(3), 4, 1, 0.75, Some(2)));
        assert_eq!((done.regions, done.skeleton_bytes, done.encode_s), (7, 300, 0.125));
        assert_eq!(crate::storage::Done::decode(&done.encode(), PathBuf::from("x")), Some(done));
        assert_eq!(d.result, Ok((PathBuf::from("/tmp/d ir/ckpt.000001.dao"), 1234)));
        assert_eq!((d.write_s, d.encode_s, d.extra_bytes, d.released_bytes, d.released_unsaved_bytes), (0.5, 0.25, 4096, 1 << 20, 3 << 20));
        assert_eq!(d.prune_warning.as_deref(), Some("cannot prune x"));
        assert_eq!((d.heap_collect_s, d.fields.as_deref()), (0.0625, r.fields.as_deref()));
        assert_eq!(Report::decode(&Report::default().encode()).map(|d| d.fields), Some(None), "no fields: none decoded");
        let e = Report { result: Err(("write StorageFull".into(), "no space left".into())), ..Report::default() };
        assert_eq!(Report::decode(&e.encode()).unwrap().result, Err(("write StorageFull".into(), "no space left".into())));
        // cut short: no report
        let b = r.encode();
        assert!(Report::decode(&b[..b.len() - 2]).is_none());
        assert!(Report::decode(b"").is_none());
    }

}
