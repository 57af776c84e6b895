//! The conservative reachability scan of the heap: which allocated blocks a
//! checkpoint saves, found from the saved bytes (every 8-byte-aligned word
//! whose value lies in [payload start, payload end] of an allocated block
//! marks it; transitively), in the order that lets it stop soonest. The
//! collection (collect.rs) runs it in the program, or a forked writer on
//! its snapshot (docs/design.md section 15).
use crate::desc::memory;
use crate::heap::Block;

/// Conservative reachability from `roots` over the allocated `blocks`
/// (sorted by address), less the `excluded` blocks (indices into `blocks`:
/// the heap objects left out), which count as found but are neither saved
/// nor scanned.
pub fn reachable(blocks: &[Block], roots: &[(usize, &[u8])], excluded: &[usize]) -> Vec<bool> {
    reachable_counting(blocks, roots, excluded).0
}

/// The roots are read in pieces of this size, so that the scan can stop
/// inside a big one (FT's 128 MiB grids, after the one heap block is found).
const ROOT_PIECE: usize = 1 << 20;

/// Whether the first or the last aligned word of `b` is an address in
/// [lo, hi]: a guess that it holds pointers (two reads per block found).
fn ends_point_into(b: &Block, lo: u64, hi: u64) -> bool {
    let skip = (8 - b.addr % 8) % 8;
    if b.size < skip + 8 {
        return false;
    }
    let words = (b.size - skip) / 8;
    let at = |k: usize| u64::from_le_bytes(memory(b.addr + skip + 8 * k, 8).try_into().unwrap());
    let inside = |v: u64| (lo..=hi).contains(&v);
    inside(at(0)) || inside(at(words - 1))
}

/// A found block's place in the scan: (big, numeric-looking, depth for
/// small blocks, size, index, depth).
type ScanKey = (bool, bool, u32, usize, usize, u32);

/// Blocks from this size on are scanned after every smaller one.
const BIG: usize = 64 << 10;

/// [`reachable`], how many blocks it scanned, and how many root bytes it read.
///
/// The roots are read smallest first, in pieces of [`ROOT_PIECE`], and the
/// reading stops as soon as every block has been found: a program whose few
/// heap blocks a small global points to (NPB FT: one block, 170 MB of saved
/// grids) reads only that global, not every saved byte (36 ms of FT.A's
/// 0.25 s pause before).
///
/// Every block found is scanned once; the scan stops as soon as every
/// block has been found, so what matters is to scan the blocks that hold
/// pointers first. Order: blocks under [`BIG`] before bigger ones (large
/// blocks are numeric arrays, FT's grids: smallest first among them);
/// among the small ones, those whose first or last word points into the
/// heap before the others, and then the ones found closer to the roots
/// first, then the smaller. Size alone (the order before) cannot tell a
/// pointer table from the rows it points to, which are often exactly its
/// size: an MG grid (`double ***`: a table of planes, planes of row
/// pointers, rows of n doubles) has tables and rows of n x 8 bytes at every
/// level, which by size interleave, so the scan read nearly all 459 MB of
/// MG.A's rows (60-70 ms of its pause) before the last table; now it stops
/// after the tables. Depth alone would read every row shallower than the
/// deepest node of a linked list. The order only decides when the scan can
/// stop: every block found is still scanned unless all are found.
fn reachable_counting(blocks: &[Block], roots: &[(usize, &[u8])], excluded: &[usize]) -> (Vec<bool>, usize, usize) {
    // an excluded block is marked from the start: a word pointing into it
    // then neither saves nor scans it, and it counts as found
    let mut marked = vec![false; blocks.len()];
    let mut out = vec![true; blocks.len()];
    for &i in excluded {
        marked[i] = true;
        out[i] = false;
    }
    let pre = marked.iter().filter(|&&m| m).count();
    let mut work = Vec::new();
    let mut order: Vec<usize> = (0..roots.len()).collect();
    order.sort_by_key(|&r| roots[r].1.len());
    let mut root_bytes = 0;
    'roots: for r in order {
        let (addr, b) = roots[r];
        // pieces after the first start 8-aligned in memory
        let skip = (8 - addr % 8) % 8;
        let mut off = 0;
        while off < b.len() {
            if pre + work.len() == blocks.len() {
                break 'roots;
            }
            let end = if off == 0 { skip + ROOT_PIECE } else { off + ROOT_PIECE }.min(b.len());
            scan(addr + off, &b[off..end], blocks, &mut marked, &mut work);
            root_bytes += end - off;
            off = end;
        }
    }
    let (lo, hi) = match (blocks.first(), blocks.last()) {
        (Some(f), Some(l)) => (f.addr as u64, (l.addr + l.size) as u64),
        _ => (0, 0),
    };
    let item = |j: usize, depth: u32| {
        let b = &blocks[j];
        let big = b.size >= BIG;
        let numeric = !big && !ends_point_into(b, lo, hi);
        std::cmp::Reverse((big, numeric, if big { 0 } else { depth }, b.size, j, depth))
    };
    let mut found = pre + work.len();
    let mut queue: std::collections::BinaryHeap<std::cmp::Reverse<ScanKey>> = work.drain(..).map(|j| item(j, 0)).collect();
    let mut scanned = 0;
    while let Some(std::cmp::Reverse((_, _, _, _, i, depth))) = queue.pop() {
        if found == blocks.len() {
            break;
        }
        let b = &blocks[i];
        scan(b.addr, memory(b.addr, b.size), blocks, &mut marked, &mut work);
        scanned += 1;
        found += work.len();
        queue.extend(work.drain(..).map(|j| item(j, depth + 1)));
    }
    for (o, m) in out.iter_mut().zip(&marked) {
        *o &= *m;
    }
    (out, scanned, root_bytes)
}

fn scan(addr: usize, b: &[u8], blocks: &[Block], marked: &mut [bool], work: &mut Vec<usize>) {
    let (Some(first), Some(last)) = (blocks.first(), blocks.last()) else { return };
    let (lo, hi) = (first.addr as u64, (last.addr + last.size) as u64);
    let skip = (8 - addr % 8) % 8;
    if b.len() < skip {
        return;
    }
    for w in b[skip..].chunks_exact(8) {
        let v = u64::from_le_bytes(w.try_into().unwrap());
        if v < lo || v > hi {
            continue;
        }
        // The last block starting at or below v.
        let i = blocks.partition_point(|x| x.addr as u64 <= v);
        if i == 0 {
            continue;
        }
        let i = i - 1;
        if v <= (blocks[i].addr + blocks[i].size) as u64 && !marked[i] {
            marked[i] = true;
            work.push(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An MG-like grid: a top table of 8 plane tables of 16 row pointers,
    /// rows of 16 doubles (tables and rows both 128 bytes), plus a leaked
    /// row. Reachability is exact (the leak unmarked), and with every block
    /// reachable the scan stops after the tables (1 + 8 of 137 blocks).
    #[test]
    fn tables_are_scanned_before_rows_of_their_size() {
        let mut rows: Vec<Box<[f64; 16]>> = (0..8 * 16 + 1).map(|i| Box::new([1.5 + i as f64; 16])).collect();
        let mut planes: Vec<Box<[u64; 16]>> = (0..8).map(|p| Box::new(std::array::from_fn(|r| rows[p * 16 + r].as_ptr() as u64))).collect();
        let top: Box<[u64; 16]> = Box::new(std::array::from_fn(|p| planes.get(p).map_or(0, |t| t.as_ptr() as u64)));
        let mut blocks: Vec<Block> = rows
            .iter_mut()
            .map(|r| r.as_mut_ptr() as usize)
            .chain(planes.iter_mut().map(|t| t.as_mut_ptr() as usize))
            .chain([top.as_ptr() as usize])
            .map(|addr| Block { addr, size: 128, in_use: true })
            .collect();
        blocks.sort_by_key(|b| b.addr);
        let root = (top.as_ptr() as u64).to_le_bytes();
        let leaked = rows[8 * 16].as_ptr() as usize;

        let (marked, _, _) = reachable_counting(&blocks, &[(0, &root)], &[]);
        for (b, m) in blocks.iter().zip(&marked) {
            assert_eq!(*m, b.addr != leaked, "block at {:#x}", b.addr);
        }
        // without the leaked row every block is found once the tables are read
        let all: Vec<Block> = blocks.iter().filter(|b| b.addr != leaked).map(|b| Block { ..*b }).collect();
        let (marked, scanned, _) = reachable_counting(&all, &[(0, &root)], &[]);
        assert!(marked.iter().all(|&m| m));
        assert_eq!(scanned, 9, "the top table and the 8 plane tables, no row");
    }

    /// Two grid levels of different sizes (tables and rows 64 and 128
    /// bytes) under one root table: the scan stops after the tables of both
    /// (every row found), not after the whole smaller level. And a big
    /// numeric array found first next to a linked list five nodes deep is
    /// never read.
    #[test]
    fn small_blocks_by_depth_and_big_ones_last() {
        let mut rows_a: Vec<Box<[f64; 16]>> = (0..4 * 16).map(|i| Box::new([0.25 * i as f64; 16])).collect();
        let mut rows_b: Vec<Box<[f64; 8]>> = (0..4 * 8).map(|i| Box::new([0.5 * i as f64; 8])).collect();
        let mut planes_a: Vec<Box<[u64; 16]>> = (0..4).map(|p| Box::new(std::array::from_fn(|r| rows_a[p * 16 + r].as_ptr() as u64))).collect();
        let mut planes_b: Vec<Box<[u64; 8]>> = (0..4).map(|p| Box::new(std::array::from_fn(|r| rows_b[p * 8 + r].as_ptr() as u64))).collect();
        let top: Box<[u64; 8]> = Box::new(std::array::from_fn(|i| if i < 4 { planes_a[i].as_ptr() as u64 } else { planes_b[i - 4].as_ptr() as u64 }));
        let mut big = vec![3.25f64; BIG / 8];
        let mut list: Vec<Box<[u64; 2]>> = (0..5).map(|_| Box::new([0u64; 2])).collect();
        for i in 0..4 {
            let next = list[i + 1].as_ptr() as u64;
            list[i][0] = next;
        }
        let mut blocks: Vec<Block> = rows_a.iter_mut().map(|r| (r.as_mut_ptr() as usize, 128)).chain(rows_b.iter_mut().map(|r| (r.as_mut_ptr() as usize, 64)))
            .chain(planes_a.iter_mut().map(|t| (t.as_mut_ptr() as usize, 128)))
            .chain(planes_b.iter_mut().map(|t| (t.as_mut_ptr() as usize, 64)))
            .chain([(top.as_ptr() as usize, 64), (big.as_mut_ptr() as usize, BIG)])
            .chain(list.iter_mut().map(|n| (n.as_mut_ptr() as usize, 16)))
            .map(|(addr, size)| Block { addr, size, in_use: true })
            .collect();
        blocks.sort_by_key(|b| b.addr);
        let root: Vec<u8> = [top.as_ptr() as u64, big.as_ptr() as u64, list[0].as_ptr() as u64].iter().flat_map(|a| a.to_le_bytes()).collect();
        let (marked, scanned, _) = reachable_counting(&blocks, &[(0, &root)], &[]);
        assert!(marked.iter().all(|&m| m));
        assert_eq!(scanned, 1 + 8 + 4, "the top table, the 8 plane tables and the first 4 list nodes (the 5th is found by the 4th)");
    }

    /// Roots are read smallest first and only until every block is found:
    /// a big numeric root (4 MiB of doubles) is not read when a small one
    /// points to the only block, and is read, in pieces, up to the piece
    /// that points to it when it alone does; a block nothing points to
    /// makes the scan read everything.
    #[test]
    fn roots_read_until_every_block_is_found() {
        let block = Box::new([7u64; 4]);
        let p = block.as_ptr() as u64;
        let blocks = [Block { addr: p as usize, size: 32, in_use: true }];
        let mut big = vec![2.5f64; (4 << 20) / 8];
        let small = p.to_le_bytes();
        let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let b = bytes(&big);
        let (saved, _, read) = reachable_counting(&blocks, &[(0x1000, &b), (0x9000, &small)], &[]);
        assert!(saved[0] && read == 8, "read {read}");
        // the big root alone points to it, in its second piece
        big[ROOT_PIECE / 8 + 3] = f64::from_bits(p);
        let b = bytes(&big);
        let (saved, _, read) = reachable_counting(&blocks, &[(0x1000, &b)], &[]);
        assert!(saved[0] && read == 2 * ROOT_PIECE, "read {read}");
        // a root not 8-aligned: the pointer at an aligned address still counts
        let mut odd = vec![0u8; 3];
        odd.extend_from_slice(&b[..2 * ROOT_PIECE]);
        let (saved, _, _) = reachable_counting(&blocks, &[(0x1000 - 3, &odd)], &[]);
        assert!(saved[0]);
        // nothing points to it: every byte read, the block not saved
        let zeros = vec![0u8; 3 * ROOT_PIECE + 5];
        let (saved, _, read) = reachable_counting(&blocks, &[(0x1000, &zeros), (0x9000, &[0u8; 8])], &[]);
        assert!(!saved[0] && read == 3 * ROOT_PIECE + 5 + 8, "read {read}");
    }

    /// A block left out (a dead heap object) is neither saved nor scanned:
    /// what only it points to is not found, what a root or a saved block
    /// points to is, and once all are found the scan stops.
    #[test]
    fn excluded_blocks_are_found_but_neither_saved_nor_scanned() {
        // root -> a (excluded) -> b; root -> c -> d -> a
        let mut v: Vec<Box<[u64; 4]>> = (0..4).map(|_| Box::new([0u64; 4])).collect();
        let p: Vec<u64> = v.iter().map(|x| x.as_ptr() as u64).collect();
        (v[0][0], v[2][0], v[3][0]) = (p[1], p[3], p[0]);
        let mut blocks: Vec<Block> = p.iter().map(|&addr| Block { addr: addr as usize, size: 32, in_use: true }).collect();
        blocks.sort_by_key(|x| x.addr);
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| blocks.iter().position(|x| x.addr as u64 == p[k]).unwrap());
        let root: Vec<u8> = [p[0], p[2]].iter().flat_map(|x| x.to_le_bytes()).collect();
        let (saved, _, _) = reachable_counting(&blocks, &[(0, &root)], &[a]);
        assert!(!saved[a] && !saved[b] && saved[c] && saved[d]);
        assert!(reachable(&blocks, &[(0, &root)], &[]).iter().all(|&x| x));
        // b also from c: every block found after scanning c alone
        v[2][1] = p[1];
        let (saved, scanned, _) = reachable_counting(&blocks, &[(0, &root)], &[a]);
        assert!(!saved[a] && saved[b] && saved[c] && saved[d] && scanned == 1);
        let (saved, scanned, _) = reachable_counting(&blocks, &[(0, &root)], &[0, 1, 2, 3]);
        assert!(saved.iter().all(|&x| !x) && scanned == 0);
    }
}
