//! Region formation: which instructions of a decoded page one compiled
//! region holds (see the module documentation of [`crate::jit`]).

use crate::exec::fast::{Uop, Writes, K};
use crate::fp;
use crate::memory::PAGE_SIZE;
use alpha_isa::Op;

/// Most instructions in one region.
pub const MAX_REGION: usize = 512;

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
    /// An instruction the interpreter's own function executes, called from
    /// compiled code (floating point, CIX, MVI): it reports "would trap or
    /// fault" without committing anything, and the region exits there.
    Helper,
    /// A floating-point conditional branch (the condition by a helper).
    FCond,
    /// Not compiled: the region exits to the interpreter before it.
    Interpret,
}

/// What the code is compiled for: the CPU has BWX; it has FIX (the
/// ITOFx/FTOIx moves are compiled in line); CALL_PAL `rduniq` reads the
/// unique value in line (see [`crate::icache::ICache::set_inline_rduniq`]);
/// how guest memory is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cfg {
    pub bwx: bool,
    pub fix: bool,
    pub uniq: bool,
    /// Guest memory is host-mapped: accesses go straight to `base + va`
    /// ([`crate::memory::JitAccess::Direct`]).
    pub direct: bool,
}

/// Is `u` CALL_PAL `rduniq`?
pub(crate) fn is_rduniq(u: &Uop) -> bool {
    u.kind == K::Generic && u.insn.op == Op::CallPal && u.insn.func == alpha_isa::pal::RDUNIQ
}

pub(crate) fn shape(u: &Uop, cfg: Cfg) -> Shape {
    let bwx = cfg.bwx;
    match u.kind {
        K::Generic if cfg.uniq && is_rduniq(u) => Shape::Helper,
        K::Generic if is_fbranch(u.insn.op) => Shape::FCond,
        K::Generic if is_hint(u.insn.op) => Shape::Straight,
        K::Generic if helper_writes(u.insn.op).is_some() => Shape::Helper,
        K::Generic | K::EndOfPage => Shape::Interpret,
        K::Ldbu | K::Ldwu | K::Stb | K::Stw | K::SextbR | K::SextwR if !bwx => Shape::Interpret,
        K::Beq | K::Bne | K::Blt | K::Bge | K::Ble | K::Bgt | K::Blbc | K::Blbs => Shape::Cond,
        K::Br | K::Goto => Shape::Direct,
        K::Jump | K::JumpNoLink => Shape::Indirect,
        _ => Shape::Straight,
    }
}

/// Barriers and cache hints: no effect on one CPU's view, nothing to emit
/// (`exec::execute` does nothing for them either).
pub(crate) fn is_hint(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Trapb | Excb | Mb | Wmb | Fetch | FetchM | Ecb | Wh64 | Wh64en
    )
}

/// Is `op` a floating-point conditional branch?
pub(crate) fn is_fbranch(op: Op) -> bool {
    matches!(
        op,
        Op::Fbeq | Op::Fbne | Op::Fblt | Op::Fble | Op::Fbge | Op::Fbgt
    )
}

/// For an instruction compiled as a helper call: `Some(true)` when it
/// writes integer register Rc, `Some(false)` when it writes no integer
/// register; `None` for instructions that are no helper call.
pub(crate) fn helper_writes(op: Op) -> Option<bool> {
    use Op::*;
    match op {
        Ftoit | Ftois => Some(true),
        // FP loads and stores (through `Memory`, like the interpreter).
        Ldt | Lds | Ldg | Ldf | Stt | Sts | Stg | Stf => Some(false),
        op if fp::is_fp_operate(op) => Some(false),
        op if is_cix_mvi(op) => Some(true),
        _ => None,
    }
}

/// The CIX and MVI operates (integer registers only).
pub(crate) fn is_cix_mvi(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Ctpop
            | Ctlz
            | Cttz
            | Minub8
            | Minsb8
            | Minuw4
            | Minsw4
            | Maxub8
            | Maxsb8
            | Maxuw4
            | Maxsw4
            | Perr
            | Pklb
            | Pkwb
            | Unpkbl
            | Unpkbw
    )
}

/// The target of the conditional or direct branch `u` at index `i` of the
/// page at `base`.
pub(crate) fn branch_target(u: &Uop, base: u64, i: usize) -> u64 {
    if u.kind == K::Generic {
        let next = base + 4 * i as u64 + 4;
        next.wrapping_add((u.insn.disp as i64 as u64) << 2)
    } else {
        u.imm
    }
}

/// The register a compiled micro-op writes, if any.
pub(crate) fn dest(u: &Uop) -> Option<usize> {
    if is_rduniq(u) {
        return Some(0);
    }
    if u.kind == K::Generic {
        let rc = u.insn.rc & 31;
        return (helper_writes(u.insn.op) == Some(true) && rc != 31).then_some(rc as usize);
    }
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
    pub(crate) cfg: Cfg,
}

impl Region {
    /// The region entered at `entry`: what the entry reaches in the page
    /// by fall-through and direct branches (BSR included: a callee in the
    /// same page is compiled in line), breadth first, so the nearest code
    /// comes first when [`MAX_REGION`] cuts it off; instructions without a
    /// compiled form, indirect jumps and the page end stop it.
    pub(crate) fn scan(uops: &[Uop], base: u64, entry: usize, cfg: Cfg) -> Option<Region> {
        let n = uops.len() - 1; // the last is the end-of-page sentinel
        if entry >= n || shape(&uops[entry], cfg) == Shape::Interpret {
            return None;
        }
        let inside = |t: Option<usize>| t.filter(|&t| t < n);
        let mut r = Region {
            entry,
            reached: vec![false; n + 1],
            leader: vec![false; n + 1],
            count: 1,
            used: [false; 32],
            written: [false; 32],
            cfg,
        };
        r.reached[entry] = true;
        let mut work = std::collections::VecDeque::from([entry]);
        while let Some(i) = work.pop_front() {
            let u = &uops[i];
            let t = inside(in_page_index(base, branch_target(u, base, i)));
            let next = inside(Some(i + 1));
            let succ = match shape(u, cfg) {
                Shape::Straight | Shape::Helper => [next, None],
                Shape::Cond | Shape::FCond => [t, next],
                Shape::Direct => [t, None],
                Shape::Indirect | Shape::Interpret => [None, None],
            };
            for s in succ.into_iter().flatten() {
                if r.count < MAX_REGION && !r.reached[s] && shape(&uops[s], cfg) != Shape::Interpret
                {
                    r.reached[s] = true;
                    r.count += 1;
                    work.push_back(s);
                }
            }
        }
        for (i, u) in uops.iter().enumerate().take(n) {
            if !r.reached[i] {
                continue;
            }
            for reg in [u.ra, u.rb, u.rc] {
                r.used[reg as usize] = true;
            }
            if let Some(d) = dest(u) {
                r.written[d] = true;
            }
        }
        r.leader[entry] = true;
        for i in (0..n).filter(|&i| r.reached[i]) {
            let s = shape(&uops[i], cfg);
            if matches!(s, Shape::Cond | Shape::FCond | Shape::Direct) {
                if let Some(t) = inside(in_page_index(base, branch_target(&uops[i], base, i))) {
                    r.leader[t] = true;
                }
            }
            if matches!(s, Shape::Cond | Shape::FCond) {
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
            let s = shape(&uops[i], self.cfg);
            if !self.reached[i] || s == Shape::Interpret {
                return i - start;
            }
            if matches!(
                s,
                Shape::Cond | Shape::FCond | Shape::Direct | Shape::Indirect
            ) {
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
