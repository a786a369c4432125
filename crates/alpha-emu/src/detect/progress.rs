//! forward-progress: an LDx_L…STx_C sequence that breaks the Handbook's
//! rules for a sequence that is guaranteed to succeed eventually.
//!
//! Alpha Architecture Handbook §4.2.5 (STx_C): an implementation need not
//! ever let the STx_C succeed — the sequence may fail every time, a
//! livelock — when, between the LDx_L and the STx_C on that processor,
//! - another memory access is executed (LDx, LDQ_U, STx, STQ_U, ECB,
//!   WH64…): rule `memory-access`;
//! - a branch is taken: rule `taken-branch`;
//! - a subsetted instruction is executed (floating point, or an
//!   instruction of an extension a CPU may emulate in software):
//!   rule `subsetted-instruction`;
//! - an instruction that traps by design is executed (CALL_PAL, a reserved
//!   opcode, an integer /V operate): rule `trapping-instruction`;
//! - more than 40 instructions are executed: rule `too-many-instructions`;
//! - an exception is taken (a system call, an unaligned-access fix-up, a
//!   fault): rule `exception`. A signal *delivered* into the window is the
//!   scheduler's doing, like an interrupt on hardware; it makes this one
//!   STx_C fail but says nothing about the code, so it is not a finding.
//!
//! How it is seen from the trace. Per thread, the sequence opened by its
//! last LDx_L (pc, icount) and the first non-STx_C access and the first
//! exception since. Everything is decided at the STx_C that closes it:
//! - a memory access in between: its pc is the offending instruction;
//! - the STx_C's pc distance from the LDx_L is not 4 × the icount distance:
//!   a branch was taken (the offending pc is the first branch instruction
//!   after the LDx_L, the one whose fall-through was left);
//! - otherwise the path was straight, so the words in between are exactly
//!   what ran: decode them (through [`super::CodeView`]) for subsetted and
//!   trapping instructions, and count them.
//!
//! What is **not** a violation: a branch that *leaves* the sequence without
//! reaching a STx_C — GCC's compare-and-swap exit (`cmpeq; beq $4,$L12` in
//! the seed's `__sync_fetch_and_add` listing). Nothing is reported for an
//! LDx_L whose sequence no STx_C closes; the next LDx_L simply opens a new
//! one. A conditional branch that is *not* taken inside the sequence (that
//! same `beq` on the success path) is allowed. `ldq_u $31` (UNOP) makes no
//! access and is not traced. Each LDx_L site is reported once, naming the
//! first rule broken in the order above.

use super::{CodeView, EventKind, Finding, Kind, Site};
use crate::memory::{AccessKind, AccessRecord};
use alpha_isa::{Format, Op};

/// The Handbook's limit on instructions between LDx_L and STx_C.
pub const MAX_INSNS: u64 = 40;

#[derive(Clone)]
struct Open {
    thread: u32,
    ll_pc: u64,
    ll_icount: u64,
    ll_addr: u64,
    access_pc: Option<u64>,
    exception_pc: Option<u64>,
}

#[derive(Clone, Default)]
pub(super) struct Progress {
    open: Vec<Open>,
}

/// Why an instruction inside a straight sequence breaks a rule, if it does.
fn classify(op: Op) -> Option<&'static str> {
    use Op::*;
    match op {
        Ecb | Wh64 | Wh64en | Fetch | FetchM => Some("memory-access"),
        CallPal | Illegal | Pal19 | Pal1b | Pal1d | Pal1e | Pal1f => Some("trapping-instruction"),
        AddlV | SublV | AddqV | SubqV | MullV | MulqV => Some("trapping-instruction"),
        Fbeq | Fblt | Fble | Fbne | Fbge | Fbgt => Some("subsetted-instruction"),
        _ if op.format() == Some(Format::FpOperate) => Some("subsetted-instruction"),
        _ if op.ext() != alpha_isa::Ext::Base => Some("subsetted-instruction"),
        _ => None,
    }
}

fn is_branch(op: Op) -> bool {
    matches!(op.format(), Some(Format::Branch) | Some(Format::Jump))
}

impl Progress {
    pub(super) fn reset(&mut self) {
        self.open.clear();
    }

    /// Is a sequence open (so that any access may matter)?
    #[inline(always)]
    pub(super) fn watching(&self) -> bool {
        !self.open.is_empty()
    }

    pub(super) fn access(
        &mut self,
        thread: u32,
        rec: &AccessRecord,
        code: &dyn CodeView,
        out: &mut Vec<Finding>,
    ) {
        match rec.kind {
            AccessKind::LoadLocked => {
                self.open.retain(|o| o.thread != thread);
                self.open.push(Open {
                    thread,
                    ll_pc: rec.pc,
                    ll_icount: rec.icount,
                    ll_addr: rec.addr,
                    access_pc: None,
                    exception_pc: None,
                });
            }
            AccessKind::StoreConditional | AccessKind::StoreConditionalFailed => {
                if let Some(i) = self.open.iter().position(|o| o.thread == thread) {
                    let o = self.open.swap_remove(i);
                    if let Some((rule, pc)) = judge(&o, rec, code) {
                        out.push(Finding {
                            kind: Kind::ForwardProgress,
                            address: o.ll_addr,
                            bytes: Vec::new(),
                            by: Site {
                                thread,
                                pc: o.ll_pc,
                            },
                            by_load_pc: None,
                            other: None,
                            other_address: None,
                            lock_range: None,
                            rule: Some(rule),
                            offending_pc: Some(pc),
                        });
                    }
                }
            }
            _ => {
                if let Some(o) = self.open.iter_mut().find(|o| o.thread == thread) {
                    o.access_pc.get_or_insert(rec.pc);
                }
            }
        }
    }

    pub(super) fn event(&mut self, thread: u32, pc: u64, what: EventKind) {
        if what == EventKind::Signal {
            return;
        }
        if let Some(o) = self.open.iter_mut().find(|o| o.thread == thread) {
            o.exception_pc.get_or_insert(pc);
        }
    }
}

/// The first rule the sequence from `o` to the STx_C `sc` breaks, and the
/// offending instruction.
fn judge(o: &Open, sc: &AccessRecord, code: &dyn CodeView) -> Option<(&'static str, u64)> {
    if let Some(pc) = o.access_pc {
        return Some(("memory-access", pc));
    }
    if let Some(pc) = o.exception_pc {
        return Some(("exception", pc));
    }
    let n = sc.icount.wrapping_sub(o.ll_icount);
    let decode = |pc: u64| code.word(pc).map(alpha_isa::decode);
    let straight = sc.pc.wrapping_sub(o.ll_pc) == n.wrapping_mul(4);
    if !straight {
        // The first branch after the LDx_L is the one taken (an untaken one
        // falls through, and the path would have stayed straight up to it).
        let first_branch = (1..=n.min(MAX_INSNS + 1))
            .map(|k| o.ll_pc.wrapping_add(4 * k))
            .find(|&pc| decode(pc).is_some_and(|i| is_branch(i.op)));
        return Some(("taken-branch", first_branch.unwrap_or(sc.pc)));
    }
    for k in 1..n.min(MAX_INSNS + 1) {
        let pc = o.ll_pc.wrapping_add(4 * k);
        if let Some(rule) = decode(pc).and_then(|i| classify(i.op)) {
            return Some((rule, pc));
        }
    }
    if n > MAX_INSNS + 1 {
        return Some((
            "too-many-instructions",
            o.ll_pc.wrapping_add(4 * (MAX_INSNS + 1)),
        ));
    }
    None
}
