//! A small but complete checkpoint used by the format tests.
use std::borrow::Cow;

use dao_format::*;

pub fn sample(run_id: u64, seq: u64) -> Checkpoint<'static> {
    Checkpoint {
        header: Header {
            flags: FLAG_HEAP_ALL,
            binary_hash: 0x1122334455667788,
            binary_size: 4096,
            image_base: 0x400000,
            run_id,
            seq,
            threads: 1,
            pid: 42,
            timestamp: 1_700_000_000,
        },
        runtime: RuntimeState { candidates: 7, checkpoints: seq, stdout_offset: 123, stderr_offset: -1 },
        chain: vec![
            Frame {
                function: "main".into(),
                module_hash: 0xabc,
                site: 1,
                frame_addr: 0x7000,
                slots: vec![Slot { index: 0, name: "i".into(), loc: Some("a.c:3".into()), bytes: Cow::Owned(vec![1, 2, 3, 4]) }],
                stack_objects: vec![StackObject {
                    index: 0,
                    name: "buf".into(),
                    loc: None,
                    addr: 0x7100,
                    bytes: Cow::Owned(vec![9; 5]),
                }],
            },
            Frame {
                function: "step".into(),
                module_hash: 0xabc,
                site: 2,
                frame_addr: 0x6f00,
                slots: vec![],
                stack_objects: vec![],
            },
        ],
        globals: vec![Global {
            module_hash: 0xabc,
            index: 3,
            name: "table".into(),
            loc: Some("a.c:1".into()),
            addr: 0x601000,
            bytes: Cow::Owned(vec![7; 6]),
            why: Some("read first by the loop at a.c:40".into()),
        }],
        // format 7: an offload device's mapped ranges, one saved, one not
        devices: vec![
            DeviceRegion { device: 0, addr: 0x7ed110, size: 8, map_type: 3, dyn_refs: 2, hold_refs: 0, name: Some("a".into()), bytes: Some(Cow::Owned(vec![3; 8])), from_host: false },
            DeviceRegion { device: 1, addr: 0x7f5110, size: 16, map_type: 0x2000, dyn_refs: 0, hold_refs: 1, name: None, bytes: None, from_host: false },
        ],
        dead: vec![
            DeadGlobal { module_hash: 0xabc, index: 4, name: "work".into(), size: 4096, saved: 0, why: Some("the loop at a.c:20".into()) },
            DeadGlobal { module_hash: 0xabc, index: 5, name: "grid".into(), size: 800, saved: 96, why: None },
        ],
        omp: OmpState { team_size: 2, nthreads: 2, dynamic: 0, max_active_levels: 1, sched_kind: 1, sched_chunk: 0, singles_won: 3, master_singles: 2 },
        master_tls: vec![TlsValue { module_hash: 7, index: 0, name: Cow::Borrowed("tp"), bytes: Cow::Borrowed(&[1, 2, 3, 4]) }],
        workers: vec![Worker {
            thread: 1,
            state: WORKER_AT_BARRIER,
            singles: 3,
            chain: vec![Frame {
                function: Cow::Borrowed("main.omp_outlined"),
                module_hash: 7,
                site: 2,
                frame_addr: 0xc0100000f00,
                slots: vec![Slot { index: 0, name: Cow::Borrowed("i"), loc: None, bytes: Cow::Borrowed(&[9, 0, 0, 0]) }],
                stack_objects: vec![],
            }],
            tls: vec![TlsValue { module_hash: 7, index: 0, name: Cow::Borrowed("tp"), bytes: Cow::Borrowed(&[5, 6, 7, 8]) }],
            tp: vec![
                TpCopy { name: Cow::Borrowed("cbtp_"), var: 0x602000, addr: 0x0a00_0000_0040, size: 4, bytes: Some(Cow::Borrowed(&[1, 3, 5, 7])) },
                TpCopy { name: Cow::Borrowed("_QMmEscratch"), var: 0x602100, addr: 0x0a00_0000_0080, size: 8, bytes: None },
            ],
        }],
        heap: Heap {
            meta: Cow::Owned(vec![0xee; 3]),
            blocks: vec![
                HeapBlock { addr: 0x1000_0000_0010, size: 16, bytes: Some(Cow::Owned((0..16).collect())) },
                HeapBlock { addr: 0x1000_0000_0030, size: 32, bytes: None },
            ],
            // format 9: a saved heap object and one left out (dead)
            objects: vec![
                HeapObject { module_hash: 0xabc, index: 0, name: "u".into(), loc: Some("a.c:8".into()), addr: 0x1000_0000_0010, size: 12, saved: true, why: Some("read first by the loop at a.c:12".into()) },
                HeapObject { module_hash: 0xabc, index: 1, name: "w".into(), loc: None, addr: 0x1000_0000_0030, size: 32, saved: false, why: Some("the parallel region 'main.omp_outlined' at a.c:14".into()) },
            ],
        },
    }
}
