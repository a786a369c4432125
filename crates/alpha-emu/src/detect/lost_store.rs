//! lost-store: a thread's whole-unit write-back restores stale bytes over
//! another thread's store, which silently vanishes.
//!
//! Shadow state, one entry per quadword touched (a hash map keyed by the
//! aligned quadword address, so a schedule allocates nothing per byte):
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
use rustc_hash::FxHashMap;

/// A store's mark on one byte (`seq == 0`: none yet).
#[derive(Clone, Copy, Default)]
struct Write {
    seq: u64,
    thread: u32,
    pc: u64,
    value: u8,
}

/// A thread's most recent load of one byte (`seq == 0`: none yet).
#[derive(Clone, Copy, Default)]
struct Read {
    seq: u64,
    pc: u64,
    value: u8,
}

#[derive(Default)]
struct Quad {
    writer: [Write; 8],
    val: [u8; 8],
    /// Bit i: `val[i]` is known.
    known: u8,
    /// Each thread's most recent loads of this quadword's bytes.
    loads: Vec<(u32, [Read; 8])>,
}

impl Quad {
    fn loads_of(&self, thread: u32) -> Option<&[Read; 8]> {
        self.loads
            .iter()
            .find(|(t, _)| *t == thread)
            .map(|(_, r)| r)
    }

    fn loads_of_mut(&mut self, thread: u32) -> &mut [Read; 8] {
        let i = match self.loads.iter().position(|(t, _)| *t == thread) {
            Some(i) => i,
            None => {
                self.loads.push((thread, [Read::default(); 8]));
                self.loads.len() - 1
            }
        };
        &mut self.loads[i].1
    }
}

/// The aligned quadword pieces of `[addr, addr + size)`: (quad, first byte
/// index in the quad, byte count, offset of the piece in the access).
fn pieces(addr: u64, size: u8) -> impl Iterator<Item = (u64, usize, usize, usize)> {
    let size = size as u64;
    let mut off = 0u64;
    std::iter::from_fn(move || {
        if off >= size {
            return None;
        }
        let a = addr.wrapping_add(off);
        let lo = (a & 7) as usize;
        let n = (8 - lo as u64).min(size - off) as usize;
        let item = (a & !7, lo, n, off as usize);
        off += n as u64;
        Some(item)
    })
}

#[inline(always)]
fn byte_of(v: u64, k: usize) -> u8 {
    (v >> (8 * k)) as u8
}

/// One lost byte: its address, the vanished store, T's stale load.
struct Lost {
    addr: u64,
    w: Write,
    load_pc: u64,
}

#[derive(Default)]
pub(super) struct LostStore {
    quads: FxHashMap<u64, Quad>,
    lost: Vec<Lost>,
}

impl LostStore {
    pub(super) fn access(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        seq: u64,
        out: &mut Vec<Finding>,
    ) {
        if rec.kind == AccessKind::StoreConditionalFailed {
            return;
        }
        if !rec.is_store {
            for (q, lo, n, off) in pieces(rec.addr, rec.size) {
                let quad = self.quads.entry(q).or_default();
                let mut vals = [0u8; 8];
                for i in 0..n {
                    vals[lo + i] = byte_of(rec.value, off + i);
                    quad.val[lo + i] = vals[lo + i];
                    quad.known |= 1 << (lo + i);
                }
                let loads = quad.loads_of_mut(thread);
                for i in lo..lo + n {
                    loads[i] = Read {
                        seq,
                        pc: rec.pc,
                        value: vals[i],
                    };
                }
            }
            return;
        }
        self.check(thread, rec, out);
        // Record this store as the last writer of its footprint.
        let partial_idiom = rec.kind == AccessKind::UnalignedQuad;
        for (q, lo, n, off) in pieces(rec.addr, rec.size) {
            let quad = self.quads.entry(q).or_default();
            for i in 0..n {
                let b = lo + i;
                let v = byte_of(rec.value, off + i);
                let unchanged = quad.known & (1 << b) != 0 && quad.val[b] == v;
                if !(partial_idiom && unchanged) {
                    quad.writer[b] = Write {
                        seq,
                        thread,
                        pc: rec.pc,
                        value: v,
                    };
                }
                quad.val[b] = v;
                quad.known |= 1 << b;
            }
        }
    }

    /// Does T's store `rec` erase another thread's store? (Before the store
    /// is recorded.)
    fn check(&mut self, thread: u32, rec: &AccessRecord, out: &mut Vec<Finding>) {
        self.lost.clear();
        for (q, lo, n, off) in pieces(rec.addr, rec.size) {
            let Some(quad) = self.quads.get(&q) else {
                continue;
            };
            let Some(loads) = quad.loads_of(thread) else {
                continue;
            };
            for i in 0..n {
                let b = lo + i;
                let (l, w) = (loads[b], quad.writer[b]);
                let v = byte_of(rec.value, off + i);
                if l.seq != 0
                    && w.seq > l.seq
                    && w.thread != thread
                    && v == l.value
                    && w.value != l.value
                {
                    self.lost.push(Lost {
                        addr: q + b as u64,
                        w,
                        load_pc: l.pc,
                    });
                }
            }
        }
        if self.lost.is_empty() {
            return;
        }
        // One finding per vanished store, unless it covered the whole unit.
        let mut done: Vec<u64> = Vec::new();
        for k in 0..self.lost.len() {
            let w = self.lost[k].w;
            if done.contains(&w.seq) {
                continue;
            }
            done.push(w.seq);
            if self.covers_unit(w.seq, rec) {
                continue;
            }
            let bytes: Vec<u64> = self
                .lost
                .iter()
                .filter(|l| l.w.seq == w.seq)
                .map(|l| l.addr)
                .collect();
            out.push(Finding {
                kind: Kind::LostStore,
                address: bytes[0],
                bytes,
                by: Site { thread, pc: rec.pc },
                by_load_pc: Some(self.lost[k].load_pc),
                other: Some(Site {
                    thread: w.thread,
                    pc: w.pc,
                }),
                other_address: None,
                lock_range: None,
                rule: None,
                offending_pc: None,
            });
        }
    }

    /// Is store `seq` the last writer of every byte of `rec`'s unit?
    fn covers_unit(&self, seq: u64, rec: &AccessRecord) -> bool {
        pieces(rec.addr, rec.size).all(|(q, lo, n, _)| {
            self.quads
                .get(&q)
                .is_some_and(|quad| quad.writer[lo..lo + n].iter().all(|w| w.seq == seq))
        })
    }
}
