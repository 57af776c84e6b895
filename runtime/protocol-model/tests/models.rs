//! Exhaustive interleavings of the handshakes (see the crate docs).
use dao_protocol_model::{gather, share};
use loom::thread;

fn builder(preemptions: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions);
    // the handshakes spin (with yields): allow long executions
    b.max_branches = 100_000;
    b
}

#[test]
fn share_work_one_helper() {
    builder(3).check(|| {
        let t = share::Team::new(3);
        let t2 = t.clone();
        let h = thread::spawn(move || {
            while !t2.help() && !t2.returned.load(loom::sync::atomic::Ordering::SeqCst) {
                thread::yield_now();
            }
        });
        t.share_work();
        assert_eq!(t.digests_after(), vec![100, 101, 102]);
        h.join().unwrap();
    });
}

#[test]
fn share_work_two_helpers() {
    builder(2).check(|| {
        let t = share::Team::new(2);
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let t2 = t.clone();
                thread::spawn(move || {
                    t2.help();
                })
            })
            .collect();
        t.share_work();
        assert_eq!(t.digests_after(), vec![100, 101]);
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
fn gather_one_worker() {
    builder(3).check(|| {
        let t = gather::Team::new(1);
        let t2 = t.clone();
        let h = thread::spawn(move || t2.worker(0));
        t.master();
        h.join().unwrap();
        assert_eq!(t.saved.load(loom::sync::atomic::Ordering::SeqCst), 1);
    });
}
