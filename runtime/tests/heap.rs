//! The fixed-address allocator: determinism, alignment, realloc, reuse,
//! metadata save/restore equality, and foreign-pointer forwarding.
//! Each test uses its own heap at its own address (tests run in parallel).
use dao_rt::heap::Heap;

const GIB: usize = 1 << 30;

fn heap(slot: usize) -> Heap {
    Heap::new(0x2000_0000_0000 + slot * 4 * GIB, 2 * GIB).expect("reserve test heap")
}

/// A fixed, mixed sequence of calls; returns every pointer handed out.
fn workload(h: &mut Heap) -> Vec<usize> {
    let mut live: Vec<*mut u8> = Vec::new();
    let mut seen = Vec::new();
    let mut x: u64 = 12345;
    for i in 0..3000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (x >> 33) as usize;
        match r % 7 {
            0..=2 => {
                let p = h.malloc(if i % 50 == 0 { 5000 + r % 70000 } else { 1 + r % 900 });
                live.push(p);
            }
            3 if !live.is_empty() => {
                let p = live.swap_remove(r % live.len());
                assert!(h.free(p));
            }
            4 if !live.is_empty() => {
                let k = r % live.len();
                live[k] = h.realloc(live[k], 1 + r % 3000).unwrap();
            }
            5 => live.push(h.aligned_alloc(1 << (4 + r % 9), 1 + r % 500)),
            _ => live.push(h.malloc(2000 + r % 20000)),
        }
        seen.push(*live.last().unwrap_or(&std::ptr::null_mut()) as usize);
    }
    seen
}

#[test]
fn same_calls_same_addresses() {
    let (mut a, mut b) = (heap(0), heap(1));
    let (sa, sb) = (workload(&mut a), workload(&mut b));
    let off = 4 * GIB;
    assert!(sa.iter().zip(&sb).all(|(x, y)| *x == 0 && *y == 0 || x + off == *y), "addresses differ");
    assert_eq!(a.walk().len(), b.walk().len());
}

#[test]
fn alignment() {
    let mut h = heap(2);
    for n in [0usize, 1, 15, 16, 17, 1000, 1100, 100_000] {
        assert_eq!(h.malloc(n) as usize % 16, 0);
    }
    for shift in 4..=20 {
        let a = 1usize << shift;
        let p = h.aligned_alloc(a, 24);
        assert_eq!(p as usize % a, 0, "align {a}");
        // The block is usable and its neighbours are intact.
        unsafe { std::ptr::write_bytes(p, 0xab, 24) };
        assert!(h.usable_size(p).unwrap() >= 24);
    }
    // The heap still tiles exactly.
    let w = h.walk();
    for pair in w.windows(2) {
        assert_eq!(pair[0].addr + pair[0].size + 16, pair[1].addr);
    }
}

#[test]
fn realloc_keeps_contents() {
    let mut h = heap(3);
    let mut p = h.malloc(10);
    unsafe { std::ptr::copy_nonoverlapping(b"0123456789".as_ptr(), p, 10) };
    let blocker = h.malloc(64); // forces moves later
    for n in [20usize, 2000, 50_000, 30, 5] {
        p = h.realloc(p, n).unwrap();
        let k = n.min(5);
        assert_eq!(unsafe { std::slice::from_raw_parts(p, k) }, &b"0123456789"[..k], "size {n}");
    }
    assert!(h.free(blocker));
    assert!(h.realloc(0x1234 as *mut u8, 8).is_none(), "not a block of this heap");
}

#[test]
fn free_then_reuse() {
    let mut h = heap(4);
    let a = h.malloc(100);
    let _b = h.malloc(100);
    assert!(h.free(a));
    assert!(!h.free(a), "double free detected");
    assert_eq!(h.malloc(100), a, "small block reused");
    let big = h.malloc(100_000);
    let _c = h.malloc(16);
    assert!(h.free(big));
    let part = h.malloc(40_000);
    assert_eq!(part, big, "large free block split and reused");
    let rest = h.malloc(50_000);
    assert_eq!(rest as usize, big as usize + 40_000 + 16, "remainder reused");
}

#[test]
fn metadata_restore_gives_identical_state() {
    let mut a = heap(5);
    workload(&mut a);
    let meta = a.meta();
    let allocated: Vec<(usize, usize)> = a.walk().iter().filter(|b| b.in_use).map(|b| (b.addr, b.size)).collect();

    // Restore into a heap at the same address in a "new process": the old
    // one must be gone first.
    let walk_a = a.walk();
    let next_a: Vec<usize> = (0..200).map(|i| a.malloc(1 + i * 37) as usize).collect();
    drop(a);
    let mut b = heap(5);
    b.restore(&meta, &allocated).unwrap();
    assert_eq!(b.meta(), meta);
    assert_eq!(b.walk(), walk_a);
    let next_b: Vec<usize> = (0..200).map(|i| b.malloc(1 + i * 37) as usize).collect();
    assert_eq!(next_a, next_b, "after restore, the allocator continues exactly as before");

    // Inconsistent input is rejected.
    let mut c = heap(6);
    assert!(c.restore(&meta, &allocated).is_err(), "metadata of another heap");
    drop(b);
    let mut d = heap(5);
    assert!(d.restore(&meta, &allocated[1..]).is_err(), "a missing block");
}

/// `bound` (what a forked writer's hand-over is sized from) is the walk's
/// count of blocks in use, and the payloads fit in its bytes: after every
/// call of a mixed workload, after a double free refused, and after a
/// restore.
#[test]
fn bound_matches_the_walk() {
    let mut h = heap(7);
    let check = |h: &Heap| {
        let w = h.walk();
        let used: Vec<_> = w.iter().filter(|b| b.in_use).collect();
        let (n, bytes) = h.bound();
        assert_eq!(n, used.len(), "in-use count");
        assert!(used.iter().map(|b| b.size as u64).sum::<u64>() <= bytes, "payload bytes");
    };
    check(&h);
    let mut live: Vec<*mut u8> = Vec::new();
    let mut x: u64 = 99;
    for i in 0..4000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (x >> 33) as usize;
        match r % 6 {
            0 | 1 => live.push(h.malloc(if i % 40 == 0 { 3000 + r % 90000 } else { 1 + r % 700 })),
            2 if !live.is_empty() => {
                let p = live.swap_remove(r % live.len());
                assert!(h.free(p));
                assert!(!h.free(p), "a double free is refused");
            }
            3 if !live.is_empty() => {
                let k = r % live.len();
                live[k] = h.realloc(live[k], 1 + r % 6000).unwrap();
            }
            4 => live.push(h.aligned_alloc(1 << (4 + r % 10), 1 + r % 900)),
            _ => {}
        }
        check(&h);
    }
    let meta = h.meta();
    let allocated: Vec<(usize, usize)> = h.walk().iter().filter(|b| b.in_use).map(|b| (b.addr, b.size)).collect();
    drop(h);
    let mut b = heap(7);
    b.restore(&meta, &allocated).unwrap();
    check(&b);
}

#[test]
fn foreign_pointers_are_forwarded_to_libc() {
    use dao_rt::entry::{dao_free, dao_malloc, dao_realloc};
    unsafe {
        let f = libc::malloc(32) as *mut u8;
        std::ptr::copy_nonoverlapping(b"foreign!".as_ptr(), f, 8);
        // realloc moves the libc block into the dao heap...
        let q = dao_realloc(f as _, 4096) as *mut u8;
        assert!(dao_rt::heap::in_region(q));
        assert_eq!(std::slice::from_raw_parts(q, 8), b"foreign!");
        dao_free(q as _);
        // ...and free of a libc block goes to libc (no crash, no error).
        dao_free(libc::malloc(10));
        let p = dao_malloc(10) as *mut u8;
        assert!(dao_rt::heap::in_region(p));
        dao_free(p as _);
    }
}
