//! Region formation: which instructions of a decoded page one compiled
//! region holds (see the module documentation of [`crate::jit`]).

use crate::exec::fast::{Uop, Writes, K};
use crate::memory::PAGE_SIZE;

/// Most instructions in one region.
pub const MAX_REGION: usize = 512;
/// Most instructions looked at when forming a region.
const MAX_SCAN: usize = 2048;

/// How a micro-op is compiled.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Computes; falls through.
    Straight,
    /// Conditional branch to `imm`.
    Cond,
    /// BR/BSR (with or without link) to `imm`.
    Direct,
    /// JMP/JSR/RET: leaves the region.
    Indirect,
    /// Not compiled: the region exits to the interpreter before it.
    Interpret,
}

pub(crate) fn shape(u: &Uop, bwx: bool) -> Shape {
    match u.kind {
        K::Generic | K::EndOfPage => Shape::Interpret,
        K::Ldbu | K::Ldwu | K::Stb | K::Stw | K::SextbR | K::SextwR if !bwx => Shape::Interpret,
        K::Beq | K::Bne | K::Blt | K::Bge | K::Ble | K::Bgt | K::Blbc | K::Blbs => Shape::Cond,
        K::Br | K::Goto => Shape::Direct,
        K::Jump | K::JumpNoLink => Shape::Indirect,
        _ => Shape::Straight,
    }
}

/// The register a compiled micro-op writes, if any.
pub(crate) fn dest(u: &Uop) -> Option<usize> {
    let r = match u.kind.writes() {
        Writes::Ra => u.ra,
        Writes::Rc => u.rc,
        Writes::Nothing => return None,
    };
    (r != 31).then_some(r as usize)
}

/// The instructions of one region: which are reached, where basic blocks
/// start, and the registers used.
pub(crate) struct Region {
    pub(crate) entry: usize,
    pub(crate) reached: Vec<bool>,
    pub(crate) leader: Vec<bool>,
    pub(crate) count: usize,
    pub(crate) used: [bool; 32],
    pub(crate) written: [bool; 32],
    pub(crate) bwx: bool,
}

impl Region {
    pub(crate) fn scan(uops: &[Uop], base: u64, entry: usize, bwx: bool) -> Option<Region> {
        let n = uops.len() - 1; // the last is the end-of-page sentinel
        if entry >= n || shape(&uops[entry], bwx) == Shape::Interpret {
            return None;
        }
        let inside = |t: Option<usize>| t.filter(|&t| t < n);
        // Successors in the page: real ones, and the "virtual" one after a
        // call (BSR, JSR): the region exits there, but the callee returns
        // to the next instruction, so for finding loops it counts. (Not so
        // after an instruction only the interpreter executes: a loop that
        // needs the interpreter on every pass, say for floating point,
        // runs faster interpreted than bouncing in and out.)
        let edges = |i: usize| -> ([Option<usize>; 2], Option<usize>) {
            let u = &uops[i];
            let t = inside(in_page_index(base, u.imm));
            let next = inside(Some(i + 1));
            match shape(u, bwx) {
                Shape::Straight => ([next, None], None),
                Shape::Cond => ([t, next], None),
                Shape::Direct if u.kind == K::Br => ([t, None], next),
                Shape::Direct => ([t, None], None),
                Shape::Indirect if u.kind == K::Jump => ([None, None], next),
                Shape::Indirect => ([None, None], None),
                Shape::Interpret => ([None, None], None),
            }
        };
        // 1. What the entry reaches by real edges, and by any edge.
        let reach = |with_virtual: bool| {
            let mut seen = vec![false; n];
            let mut work = vec![entry];
            let mut count = 0;
            seen[entry] = true;
            while let Some(i) = work.pop() {
                count += 1;
                if count > MAX_SCAN {
                    break;
                }
                let (real, virt) = edges(i);
                let virt = if with_virtual { virt } else { None };
                for s in real.into_iter().chain([virt]).flatten() {
                    if !seen[s] {
                        seen[s] = true;
                        work.push(s);
                    }
                }
            }
            seen
        };
        let real = reach(false);
        let any = reach(true);
        // 2. What lies on a cycle through the entry: compiled code is for
        // loops; code run once per arrival stays with the interpreter,
        // which is cheaper than compiling it.
        let mut back = vec![false; n];
        loop {
            let mut changed = false;
            for i in (0..n).rev().filter(|&i| any[i]) {
                if back[i] {
                    continue;
                }
                let (real, virt) = edges(i);
                if real
                    .into_iter()
                    .chain([virt])
                    .flatten()
                    .any(|s| s == entry || back[s])
                {
                    back[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if !back[entry] {
            return None;
        }
        // 3. Compile what the entry reaches on those cycles.
        let mut r = Region {
            entry,
            reached: vec![false; n + 1],
            leader: vec![false; n + 1],
            count: 0,
            used: [false; 32],
            written: [false; 32],
            bwx,
        };
        for i in 0..n {
            let u = &uops[i];
            if !(real[i] && back[i]) || shape(u, bwx) == Shape::Interpret {
                continue;
            }
            r.reached[i] = true;
            r.count += 1;
            for reg in [u.ra, u.rb, u.rc] {
                r.used[reg as usize] = true;
            }
            if let Some(d) = dest(u) {
                r.written[d] = true;
            }
        }
        if r.count > MAX_REGION {
            return None;
        }
        r.leader[entry] = true;
        for i in (0..n).filter(|&i| r.reached[i]) {
            let s = shape(&uops[i], bwx);
            if matches!(s, Shape::Cond | Shape::Direct) {
                if let Some(t) = inside(in_page_index(base, uops[i].imm)) {
                    r.leader[t] = true;
                }
            }
            if s == Shape::Cond {
                r.leader[i + 1] = true;
            }
        }
        r.used[31] = false;
        Some(r)
    }

    /// Is `i` the start of a basic block of this region?
    pub(crate) fn block_at(&self, i: usize) -> bool {
        self.reached[i] && self.leader[i]
    }

    /// Instructions of the basic block starting at `start` that the block
    /// entry pays for: up to and including its branch, or up to (not
    /// including) the next block, an unreached instruction or one left to
    /// the interpreter.
    pub(crate) fn block_len(&self, uops: &[Uop], start: usize) -> usize {
        let mut i = start;
        loop {
            let s = shape(&uops[i], self.bwx);
            if !self.reached[i] || s == Shape::Interpret {
                return i - start;
            }
            if matches!(s, Shape::Cond | Shape::Direct | Shape::Indirect) {
                return i - start + 1;
            }
            i += 1;
            if self.leader[i] {
                return i - start;
            }
        }
    }
}

/// The index in the page at `base` of branch target `target`, if it is there.
pub(crate) fn in_page_index(base: u64, target: u64) -> Option<usize> {
    let off = target.wrapping_sub(base);
    (off < PAGE_SIZE && target & 3 == 0).then_some((off >> 2) as usize)
}
