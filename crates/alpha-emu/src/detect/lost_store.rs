//! lost-store: a thread's whole-unit write-back restores stale bytes over
//! another thread's store, which silently vanishes.
//!
//! Shadow state, one entry per quadword touched (a hash map keyed by the
//! aligned quadword address behind a small direct-mapped cache of recent
//! quadwords, so a schedule allocates nothing per byte or per access):
//! - per byte, its *last writer*: thread, pc, global sequence number and the
//!   value written, by the last store whose footprint includes the byte;
//! - per byte, the current value as far as the trace has shown it;
//! - per thread per byte, that thread's most recent load: sequence number,
//!   pc and the value it read.
//!
//! The rule. When thread T stores a unit (STB, STW, STL, STQ, STQ_U, a
//! successful STx_C, or an FP store), a byte b of it is **lost** when
//! 1. T loaded b earlier (its most recent load L of b), and
//! 2. b's last writer W is another thread and W came after L, and
//! 3. T now writes the value it read at L (the stale byte), and
//! 4. W wrote a different value, which T's store therefore erases.
//!
//! The granule condition keeps ordinary same-granule data races out:
//! the finding is reported only when W's footprint covers *part* of T's
//! write-back unit, not all of it. If W wrote every byte of T's unit (two
//! threads both storing one whole quadword, or one longword) the two stores
//! are a plain race on one object, not the sub-word hazard. The footprint of
//! a store is the bytes it writes — except STQ_U, the pre-BWX partial-store
//! idiom, whose footprint is the bytes it *changed*: its other bytes are
//! the write-back part of a read-modify-write. So the seed's pre-BWX byte
//! store (`ldq_u … insbl/mskbl … stq_u` on two neighbouring bytes) loses a
//! store, while BWX code (`stb` writes one byte; nothing is written back)
//! reports nothing. The rule is about bytes, not opcodes: an `ldq`/`stq`
//! block copy that rewrites a neighbour's freshly stored byte (the case
//! GCC's `-msafe-partial` addresses) is caught the same way.
//!
//! What cannot trigger it: data protected by a mutex (the other store is
//! never between T's load and T's write-back); different quadwords (no
//! shared bytes); GCC's LDQ_L/STQ_C byte atomics (a neighbour's store in
//! between makes the STQ_C fail, and a failed STx_C writes nothing);
//! padded atomics (different quadwords).

use super::{Finding, Kind, Site};
use crate::memory::{AccessKind, AccessRecord};
use rustc_hash::{FxHashMap, FxHashSet};

/// One thread's most recent loads of one quadword's bytes
/// (`seq[b] == 0`: never loaded).
#[derive(Clone, Copy, Default)]
struct Loads {
    thread: u32,
    seq: [u64; 8],
    pc: [u64; 8],
    /// Byte b of the value each load read, at byte b.
    val: u64,
}

/// The shadow state of one aligned quadword.
#[derive(Clone)]
struct Quad {
    /// The only thread that has written a byte of this quadword
    /// (`NOBODY`: none yet), unless `shared`.
    writer: u32,
    shared: bool,
    /// Per byte, its last writer (`w_seq[b] == 0`: none yet).
    w_seq: [u64; 8],
    w_thread: [u32; 8],
    w_pc: [u64; 8],
    /// Byte b: the value the last writer wrote.
    w_val: u64,
    /// Current byte values as far as the trace has shown them (byte b at
    /// byte b), and which are known (bit b).
    val: u64,
    known: u8,
    /// Each thread's loads; inline for the first two threads.
    loads: [Loads; 2],
    nloads: u8,
    more: Vec<Loads>,
}

impl Default for Quad {
    fn default() -> Self {
        Quad {
            writer: NOBODY,
            shared: false,
            w_seq: [0; 8],
            w_thread: [0; 8],
            w_pc: [0; 8],
            w_val: 0,
            val: 0,
            known: 0,
            loads: [Loads::default(); 2],
            nloads: 0,
            more: Vec::new(),
        }
    }
}

impl Quad {
    #[inline(always)]
    fn loads_of(&self, thread: u32) -> Option<&Loads> {
        let n = self.nloads as usize;
        if n > 0 && self.loads[0].thread == thread {
            return Some(&self.loads[0]);
        }
        if n > 1 && self.loads[1].thread == thread {
            return Some(&self.loads[1]);
        }
        self.more.iter().find(|l| l.thread == thread)
    }

    #[inline(always)]
    fn loads_of_mut(&mut self, thread: u32) -> &mut Loads {
        let n = self.nloads as usize;
        if n > 0 && self.loads[0].thread == thread {
            return &mut self.loads[0];
        }
        if n > 1 && self.loads[1].thread == thread {
            return &mut self.loads[1];
        }
        self.loads_of_mut_slow(thread)
    }

    #[inline(never)]
    fn loads_of_mut_slow(&mut self, thread: u32) -> &mut Loads {
        let n = self.nloads as usize;
        if n < 2 {
            self.nloads += 1;
            self.loads[n] = Loads {
                thread,
                ..Loads::default()
            };
            return &mut self.loads[n];
        }
        let i = match self.more.iter().position(|l| l.thread == thread) {
            Some(i) => i,
            None => {
                self.more.push(Loads {
                    thread,
                    ..Loads::default()
                });
                self.more.len() - 1
            }
        };
        &mut self.more[i]
    }
}

/// The aligned quadword pieces of `[addr, addr + size)` (at most two):
/// (quad, first byte index in the quad, byte count, offset in the access).
#[inline(always)]
fn pieces(addr: u64, size: u8) -> ([(u64, usize, usize, usize); 2], usize) {
    let lo = (addr & 7) as usize;
    let size = size as usize;
    let q = addr & !7;
    if lo + size <= 8 {
        ([(q, lo, size, 0), (0, 0, 0, 0)], 1)
    } else {
        let n0 = 8 - lo;
        ([(q, lo, n0, 0), (q.wrapping_add(8), 0, size - n0, n0)], 2)
    }
}

/// Bits of bytes `lo..lo+n` of a quadword.
#[inline(always)]
fn byte_mask(lo: usize, n: usize) -> u8 {
    (((1u16 << n) - 1) << lo) as u8
}

/// The access's value placed at its bytes' positions in quadword piece
/// (`lo`, `off`).
#[inline(always)]
fn placed(v: u64, lo: usize, off: usize) -> u64 {
    let v = if off >= 8 { 0 } else { v >> (8 * off) };
    if lo >= 8 {
        0
    } else {
        v << (8 * lo)
    }
}

/// Byte b of entry m is 0xff where bit b of m is set.
const BYTES_OF: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut b = 0;
        while b < 8 {
            if m & (1 << b) != 0 {
                t[m] |= 0xff << (8 * b);
            }
            b += 1;
        }
        m += 1;
    }
    t
};

/// Widen bit b of `m` to byte b of a u64 (0xff or 0).
#[inline(always)]
fn bytes_of(m: u8) -> u64 {
    BYTES_OF[m as usize]
}

/// Bit b set where byte b of `x` is zero.
#[inline(always)]
fn zero_bytes(x: u64) -> u8 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // Bit 7 of each byte: set iff the byte is zero (no carries across bytes).
    let y = !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
    // Gather the eight bit-7s into one byte (bit b from byte b).
    ((y >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// One lost byte: its address, the vanished store (seq, thread, pc), and
/// the pc of T's stale load.
#[derive(Clone)]
struct Lost {
    addr: u64,
    seq: u64,
    thread: u32,
    pc: u64,
    load_pc: u64,
}

/// Entries of the direct-mapped cache of recent quadwords in front of the
/// shadow map (accesses alternate between a few quadwords: data, a flag,
/// the stack).
const RECENT: usize = 16;

pub(super) struct LostStore {
    /// Aligned quadword address -> index into `quads`.
    index: FxHashMap<u64, u32>,
    quads: Vec<Quad>,
    /// Recently looked-up quadwords and their indices, by `(q >> 3) % RECENT`.
    recent: [(u64, u32); RECENT],
    lost: Vec<Lost>,
    /// Scratch for the stores already reported in one check.
    done: Vec<u64>,
}

impl Default for LostStore {
    fn default() -> Self {
        LostStore {
            index: FxHashMap::default(),
            quads: Vec::new(),
            recent: [(u64::MAX, 0); RECENT],
            lost: Vec::new(),
            done: Vec::new(),
        }
    }
}

impl Clone for LostStore {
    fn clone(&self) -> Self {
        LostStore {
            index: self.index.clone(),
            quads: self.quads.clone(),
            recent: self.recent,
            lost: self.lost.clone(),
            done: self.done.clone(),
        }
    }

    /// Into the tables this one grew (the explorer restores every schedule
    /// from one prefix): no regrowing them per schedule.
    fn clone_from(&mut self, src: &Self) {
        self.index.clone_from(&src.index);
        self.quads.clone_from(&src.quads);
        self.recent = src.recent;
        self.lost.clone_from(&src.lost);
        self.done.clone_from(&src.done);
    }
}

/// `Quad::writer` before any store.
const NOBODY: u32 = u32::MAX;

/// Bits of `m`, lowest first.
#[inline(always)]
fn bits(mut m: u8) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let b = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(b)
    })
}

impl LostStore {
    /// Forget everything, keeping the allocations.
    pub(super) fn reset(&mut self) {
        self.index.clear();
        self.quads.clear();
        self.recent = [(u64::MAX, 0); RECENT];
        self.lost.clear();
    }

    /// The shadow entry of quadword `q`, created empty if new.
    #[inline(always)]
    fn slot(&mut self, q: u64) -> usize {
        let r = self.recent[(q >> 3) as usize % RECENT];
        if r.0 == q {
            return r.1 as usize;
        }
        self.slot_slow(q)
    }

    #[inline(never)]
    fn slot_slow(&mut self, q: u64) -> usize {
        let quads = &mut self.quads;
        let i = *self.index.entry(q).or_insert_with(|| {
            quads.push(Quad::default());
            (quads.len() - 1) as u32
        });
        self.recent[(q >> 3) as usize % RECENT] = (q, i);
        i as usize
    }

    #[inline]
    pub(super) fn access(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        seq: u64,
        seen: &FxHashSet<(Kind, u64, Option<u64>)>,
        out: &mut Vec<Finding>,
    ) {
        if rec.kind == AccessKind::StoreConditionalFailed {
            return;
        }
        if rec.size == 8 && rec.addr & 7 == 0 {
            // One whole aligned quadword (LDQ_U/STQ_U, LDQ/STQ, the stack):
            // the same steps as below with the piece's constants known.
            let q = rec.addr;
            if rec.is_store {
                self.store_piece(thread, rec, seq, (q, 0, 8, 0), seen, out);
            } else {
                self.load_piece(thread, rec, seq, (q, 0, 8, 0));
            }
            return;
        }
        let (ps, np) = pieces(rec.addr, rec.size);
        if !rec.is_store {
            for &piece in &ps[..np] {
                self.load_piece(thread, rec, seq, piece);
            }
            return;
        }
        if np == 1 {
            self.store_piece(thread, rec, seq, ps[0], seen, out);
            return;
        }
        let partial_idiom = rec.kind == AccessKind::UnalignedQuad;
        // Check every piece before recording any (a report reads them all).
        self.check(thread, rec, &ps[..np], seen, out);
        for &(q, lo, n, off) in &ps[..np] {
            let i = self.slot(q);
            self.record_store(i, thread, rec, seq, (lo, n, off), partial_idiom);
        }
    }

    /// Load `rec`'s bytes `lo..lo + n` of quadword `q` (from byte `off` of
    /// the access) as thread `thread`'s most recent load of them.
    #[inline(always)]
    fn load_piece(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        seq: u64,
        (q, lo, n, off): (u64, usize, usize, usize),
    ) {
        let i = self.slot(q);
        let quad = &mut self.quads[i];
        let m = byte_mask(lo, n);
        let bm = bytes_of(m);
        let v = placed(rec.value, lo, off) & bm;
        quad.val = (quad.val & !bm) | v;
        quad.known |= m;
        let l = quad.loads_of_mut(thread);
        l.val = (l.val & !bm) | v;
        if n == 8 {
            // A whole quadword (LDQ_U, LDQ): whole-array stores.
            l.seq = [seq; 8];
            l.pc = [rec.pc; 8];
        } else {
            l.seq[lo..lo + n].fill(seq);
            l.pc[lo..lo + n].fill(rec.pc);
        }
    }

    /// A store within one quadword (nearly every store): look its entry
    /// up once, and run the full check only where a byte could be lost.
    #[inline(always)]
    fn store_piece(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        seq: u64,
        piece: (u64, usize, usize, usize),
        seen: &FxHashSet<(Kind, u64, Option<u64>)>,
        out: &mut Vec<Finding>,
    ) {
        let (q, lo, n, off) = piece;
        let i = self.slot(q);
        if self.may_lose(i, thread, rec.value, lo, n, off) {
            self.check(thread, rec, &[piece], seen, out);
        }
        let partial_idiom = rec.kind == AccessKind::UnalignedQuad;
        self.record_store(i, thread, rec, seq, (lo, n, off), partial_idiom);
    }

    /// Record store `rec` as the last writer of its footprint in quadword
    /// entry `i` (bytes `lo..lo + n`, from byte `off` of the access).
    #[inline(always)]
    fn record_store(
        &mut self,
        i: usize,
        thread: u32,
        rec: &AccessRecord,
        seq: u64,
        (lo, n, off): (usize, usize, usize),
        partial_idiom: bool,
    ) {
        let quad = &mut self.quads[i];
        let m = byte_mask(lo, n);
        let bm = bytes_of(m);
        let v = placed(rec.value, lo, off) & bm;
        let foot = if partial_idiom {
            // STQ_U: only the bytes it changed (unknown bytes count).
            m & !(quad.known & zero_bytes((quad.val ^ v) | !bm))
        } else {
            m
        };
        if foot != 0 {
            if quad.writer == NOBODY {
                quad.writer = thread;
            } else if quad.writer != thread {
                quad.shared = true;
            }
            let fm = bytes_of(foot);
            quad.w_val = (quad.w_val & !fm) | (v & fm);
            if foot == 0xff {
                quad.w_seq = [seq; 8];
                quad.w_thread = [thread; 8];
                quad.w_pc = [rec.pc; 8];
            } else if foot == m {
                quad.w_seq[lo..lo + n].fill(seq);
                quad.w_thread[lo..lo + n].fill(thread);
                quad.w_pc[lo..lo + n].fill(rec.pc);
            } else {
                for b in bits(foot) {
                    quad.w_seq[b] = seq;
                    quad.w_thread[b] = thread;
                    quad.w_pc[b] = rec.pc;
                }
            }
        }
        quad.val = (quad.val & !bm) | v;
        quad.known |= m;
    }

    /// Could T's store of `value` (bytes `lo..lo + n` of quadword entry
    /// `i`, from byte `off` of the access) erase another thread's store?
    /// `false` guarantees [`LostStore::check`] would find nothing there:
    /// these are its tests before it looks at single bytes.
    #[inline(always)]
    fn may_lose(&self, i: usize, thread: u32, value: u64, lo: usize, n: usize, off: usize) -> bool {
        let quad = &self.quads[i];
        if !quad.shared && (quad.writer == NOBODY || quad.writer == thread) {
            return false;
        }
        let Some(l) = quad.loads_of(thread) else {
            return false;
        };
        let v = placed(value, lo, off);
        let stale = zero_bytes(v ^ l.val) & !zero_bytes(quad.w_val ^ l.val);
        byte_mask(lo, n) & stale != 0
    }

    /// Does T's store `rec` erase another thread's store? (Before the store
    /// is recorded.) Sites in `seen` were reported already: not built again.
    fn check(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        ps: &[(u64, usize, usize, usize)],
        seen: &FxHashSet<(Kind, u64, Option<u64>)>,
        out: &mut Vec<Finding>,
    ) {
        let mut any = false;
        for &(q, lo, n, off) in ps {
            let i = self.slot(q);
            let quad = &self.quads[i];
            if !quad.shared && (quad.writer == NOBODY || quad.writer == thread) {
                continue; // no other thread ever wrote here
            }
            let Some(l) = quad.loads_of(thread) else {
                continue;
            };
            let v = placed(rec.value, lo, off);
            // Bytes where T writes what it loaded, over a different value.
            let stale = zero_bytes(v ^ l.val) & !zero_bytes(quad.w_val ^ l.val);
            let m = byte_mask(lo, n) & stale;
            if m == 0 {
                continue;
            }
            for b in bits(m) {
                if l.seq[b] != 0 && quad.w_seq[b] > l.seq[b] && quad.w_thread[b] != thread {
                    if !any {
                        any = true;
                        self.lost.clear();
                    }
                    self.lost.push(Lost {
                        addr: q + b as u64,
                        seq: quad.w_seq[b],
                        thread: quad.w_thread[b],
                        pc: quad.w_pc[b],
                        load_pc: l.pc[b],
                    });
                }
            }
        }
        if any {
            self.report(thread, rec, ps, seen, out);
        }
    }

    /// One finding per vanished store in `self.lost`, unless it covered the
    /// whole unit or its site was reported already.
    #[cold]
    fn report(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        ps: &[(u64, usize, usize, usize)],
        seen: &FxHashSet<(Kind, u64, Option<u64>)>,
        out: &mut Vec<Finding>,
    ) {
        self.done.clear();
        for k in 0..self.lost.len() {
            let (wseq, wthread, wpc) = (self.lost[k].seq, self.lost[k].thread, self.lost[k].pc);
            if self.done.contains(&wseq) {
                continue;
            }
            self.done.push(wseq);
            if seen.contains(&(Kind::LostStore, rec.pc, Some(wpc))) || self.covers_unit(wseq, ps) {
                continue;
            }
            let bytes: Vec<u64> = self
                .lost
                .iter()
                .filter(|l| l.seq == wseq)
                .map(|l| l.addr)
                .collect();
            out.push(Finding {
                kind: Kind::LostStore,
                address: bytes[0],
                bytes,
                by: Site { thread, pc: rec.pc },
                by_load_pc: Some(self.lost[k].load_pc),
                other: Some(Site {
                    thread: wthread,
                    pc: wpc,
                }),
                other_address: None,
                lock_range: None,
                rule: None,
                offending_pc: None,
            });
        }
    }

    /// Is store `seq` the last writer of every byte of the unit `ps`?
    fn covers_unit(&self, seq: u64, ps: &[(u64, usize, usize, usize)]) -> bool {
        ps.iter().all(|&(q, lo, n, _)| {
            self.index.get(&q).is_some_and(|&i| {
                self.quads[i as usize].w_seq[lo..lo + n]
                    .iter()
                    .all(|&w| w == seq)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_bytes_and_bytes_of_agree_with_a_byte_loop() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Zero some bytes so that every pattern occurs.
            let v = x & bytes_of((x >> 56) as u8);
            let want = (0..8).fold(0u8, |m, b| m | (((v >> (8 * b)) as u8 == 0) as u8) << b);
            assert_eq!(zero_bytes(v), want, "{v:#x}");
        }
        assert_eq!(bytes_of(0b1000_0001), 0xff00_0000_0000_00ff);
    }
}
