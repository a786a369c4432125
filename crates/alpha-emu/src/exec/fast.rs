//! The interpreter's hot path: micro-ops and the run loop.
//!
//! Each decoded [`Insn`] of a code page is translated once into a [`Uop`]:
//! the most frequent integer instructions get a specialised kind (register
//! and literal forms apart, branch targets precomputed), everything else is
//! [`K::Generic`] and goes through [`super::execute`], the reference
//! semantics. Every specialised kind computes with the same helper
//! functions as `execute`, and a test runs random programs both ways
//! (`Machine::set_fast_path(false)` makes every uop generic).
//!
//! The run loop walks a page by index; only taken branches, jumps, stores
//! into code and the page's end sentinel leave it. The instruction budget
//! is exact, so a scheduler can run a CPU one instruction at a time.
//!
//! It is also where the compiling tier ([`crate::jit`]) hooks in: at every
//! arrival (a taken branch in the page, entering a page, the instruction
//! after one `execute` ran) it counts the arrivals at that head, asks for a
//! compiled region when they reach the threshold, and enters the region
//! once it exists; the region returns the next pc and why it left. A
//! branch or jump out of a region is itself an arrival, so the next region
//! is entered straight away (chaining).

use super::bytes::*;
use super::{execute, ext, mem, Event};
use crate::cpu::Cpu;
use crate::icache::{ICache, COMPILED, INSNS_PER_PAGE, PENDING};
use crate::jit;
use crate::memory::{Memory, PAGE_SHIFT, PAGE_SIZE};
use alpha_isa::{Ext, Insn, Op};

/// Micro-op kinds. `R` forms take Rb, `L` forms the literal in `imm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum K {
    /// Anything without a specialised kind: `execute(insn)`.
    Generic,
    /// The sentinel after a page's last instruction: continue on the next page.
    EndOfPage,
    /// No architectural effect (an operate or LDA whose only result goes to
    /// R31, e.g. `nop` = `bis $31,$31,$31`).
    Nop,
    /// BR/BSR with Ra = R31: just go.
    Goto,
    /// JMP/RET/JSR with Ra = R31.
    JumpNoLink,
    Lda,
    Ldah,
    AddqR,
    AddqL,
    SubqR,
    SubqL,
    AddlR,
    AddlL,
    SublR,
    SublL,
    AndR,
    AndL,
    BicR,
    BicL,
    BisR,
    BisL,
    XorR,
    XorL,
    SllR,
    SllL,
    SrlR,
    SrlL,
    SraR,
    SraL,
    CmpeqR,
    CmpeqL,
    CmpultR,
    CmpultL,
    CmpltR,
    CmpltL,
    CmpleR,
    CmpleL,
    ZapnotR,
    ZapnotL,
    S4addlR,
    S4addlL,
    S8addlR,
    S8addlL,
    S4sublR,
    S4sublL,
    S8sublR,
    S8sublL,
    S4addqR,
    S4addqL,
    S8addqR,
    S8addqL,
    S4subqR,
    S4subqL,
    S8subqR,
    S8subqL,
    CmpuleR,
    CmpuleL,
    CmpbgeR,
    CmpbgeL,
    MullR,
    MullL,
    MulqR,
    MulqL,
    UmulhR,
    UmulhL,
    OrnotR,
    OrnotL,
    EqvR,
    EqvL,
    ZapR,
    ZapL,
    ExtwlR,
    ExtwlL,
    ExtllR,
    ExtllL,
    ExtwhR,
    ExtwhL,
    ExtlhR,
    ExtlhL,
    InswlR,
    InswlL,
    InsllR,
    InsllL,
    InswhR,
    InswhL,
    InslhR,
    InslhL,
    InsqhR,
    InsqhL,
    MskwlR,
    MskwlL,
    MskllR,
    MskllL,
    MskqlR,
    MskqlL,
    MskwhR,
    MskwhL,
    MsklhR,
    MsklhL,
    MskqhR,
    MskqhL,
    ExtblR,
    ExtblL,
    ExtqlR,
    ExtqlL,
    ExtqhR,
    ExtqhL,
    InsblR,
    InsblL,
    InsqlR,
    InsqlL,
    MskblR,
    MskblL,
    CmoveqR,
    CmoveqL,
    CmovneR,
    CmovneL,
    CmovltR,
    CmovltL,
    CmovgeR,
    CmovgeL,
    CmovleR,
    CmovleL,
    CmovgtR,
    CmovgtL,
    CmovlbsR,
    CmovlbsL,
    CmovlbcR,
    CmovlbcL,
    Ldq,
    Ldl,
    LdqU,
    Stq,
    Stl,
    StqU,
    Ldbu,
    Stb,
    Ldwu,
    Stw,
    SextbR,
    SextwR,
    Br,
    Beq,
    Bne,
    Blt,
    Bge,
    Ble,
    Bgt,
    Blbc,
    Blbs,
    Jump,
}

/// The field naming the register a micro-op writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// Nothing (stores, branches without link, no-ops) — or, for
    /// [`K::Generic`], whatever `execute` writes.
    Nothing,
    Ra,
    Rc,
}

impl K {
    /// Which register field this kind writes.
    pub fn writes(self) -> Writes {
        match self {
            K::Lda | K::Ldah | K::Ldq | K::Ldl | K::LdqU | K::Ldbu | K::Ldwu | K::Br | K::Jump => {
                Writes::Ra
            }
            K::Generic
            | K::EndOfPage
            | K::Nop
            | K::Goto
            | K::JumpNoLink
            | K::Stq
            | K::Stl
            | K::StqU
            | K::Stb
            | K::Stw
            | K::Beq
            | K::Bne
            | K::Blt
            | K::Bge
            | K::Ble
            | K::Bgt
            | K::Blbc
            | K::Blbs => Writes::Nothing,
            _ => Writes::Rc,
        }
    }
}

/// One translated instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uop {
    pub kind: K,
    pub ra: u8,
    pub rb: u8,
    pub rc: u8,
    /// Literal, displacement (scaled for LDAH), or absolute branch target.
    pub imm: u64,
    pub insn: Insn,
}

/// Translate `insn` at `pc` (the pc matters for branch targets).
pub fn translate(insn: Insn, pc: u64, fast: bool) -> Uop {
    let mut u = Uop {
        kind: K::Generic,
        ra: insn.ra & 31,
        rb: insn.rb & 31,
        rc: insn.rc & 31,
        imm: 0,
        insn,
    };
    if !fast {
        return u;
    }
    let disp = insn.disp as i64 as u64;
    let (lit, l) = match insn.lit {
        Some(v) => (true, v as u64),
        None => (false, 0),
    };
    macro_rules! rl {
        ($r:ident, $l:ident) => {{
            u.imm = l;
            if lit {
                K::$l
            } else {
                K::$r
            }
        }};
    }
    u.kind = match insn.op {
        Op::Lda => {
            u.imm = disp;
            K::Lda
        }
        Op::Ldah => {
            u.imm = disp << 16;
            K::Ldah
        }
        Op::Addq => rl!(AddqR, AddqL),
        Op::Subq => rl!(SubqR, SubqL),
        Op::Addl => rl!(AddlR, AddlL),
        Op::Subl => rl!(SublR, SublL),
        Op::S4addl => rl!(S4addlR, S4addlL),
        Op::S8addl => rl!(S8addlR, S8addlL),
        Op::S4subl => rl!(S4sublR, S4sublL),
        Op::S8subl => rl!(S8sublR, S8sublL),
        Op::S4addq => rl!(S4addqR, S4addqL),
        Op::S8addq => rl!(S8addqR, S8addqL),
        Op::S4subq => rl!(S4subqR, S4subqL),
        Op::S8subq => rl!(S8subqR, S8subqL),
        Op::And => rl!(AndR, AndL),
        Op::Bic => rl!(BicR, BicL),
        Op::Bis => rl!(BisR, BisL),
        Op::Ornot => rl!(OrnotR, OrnotL),
        Op::Xor => rl!(XorR, XorL),
        Op::Eqv => rl!(EqvR, EqvL),
        Op::Sll => rl!(SllR, SllL),
        Op::Srl => rl!(SrlR, SrlL),
        Op::Sra => rl!(SraR, SraL),
        Op::Cmpeq => rl!(CmpeqR, CmpeqL),
        Op::Cmpult => rl!(CmpultR, CmpultL),
        Op::Cmplt => rl!(CmpltR, CmpltL),
        Op::Cmple => rl!(CmpleR, CmpleL),
        Op::Cmpule => rl!(CmpuleR, CmpuleL),
        Op::Cmpbge => rl!(CmpbgeR, CmpbgeL),
        Op::Mull => rl!(MullR, MullL),
        Op::Mulq => rl!(MulqR, MulqL),
        Op::Umulh => rl!(UmulhR, UmulhL),
        Op::Zap => rl!(ZapR, ZapL),
        Op::Zapnot => rl!(ZapnotR, ZapnotL),
        Op::Extbl => rl!(ExtblR, ExtblL),
        Op::Extwl => rl!(ExtwlR, ExtwlL),
        Op::Extll => rl!(ExtllR, ExtllL),
        Op::Extql => rl!(ExtqlR, ExtqlL),
        Op::Extwh => rl!(ExtwhR, ExtwhL),
        Op::Extlh => rl!(ExtlhR, ExtlhL),
        Op::Extqh => rl!(ExtqhR, ExtqhL),
        Op::Insbl => rl!(InsblR, InsblL),
        Op::Inswl => rl!(InswlR, InswlL),
        Op::Insll => rl!(InsllR, InsllL),
        Op::Insql => rl!(InsqlR, InsqlL),
        Op::Inswh => rl!(InswhR, InswhL),
        Op::Inslh => rl!(InslhR, InslhL),
        Op::Insqh => rl!(InsqhR, InsqhL),
        Op::Mskbl => rl!(MskblR, MskblL),
        Op::Mskwl => rl!(MskwlR, MskwlL),
        Op::Mskll => rl!(MskllR, MskllL),
        Op::Mskql => rl!(MskqlR, MskqlL),
        Op::Mskwh => rl!(MskwhR, MskwhL),
        Op::Msklh => rl!(MsklhR, MsklhL),
        Op::Mskqh => rl!(MskqhR, MskqhL),
        Op::Cmoveq => rl!(CmoveqR, CmoveqL),
        Op::Cmovne => rl!(CmovneR, CmovneL),
        Op::Cmovlt => rl!(CmovltR, CmovltL),
        Op::Cmovge => rl!(CmovgeR, CmovgeL),
        Op::Cmovle => rl!(CmovleR, CmovleL),
        Op::Cmovgt => rl!(CmovgtR, CmovgtL),
        Op::Cmovlbs => rl!(CmovlbsR, CmovlbsL),
        Op::Cmovlbc => rl!(CmovlbcR, CmovlbcL),
        Op::Ldq => K::Ldq,
        Op::Ldl => K::Ldl,
        Op::LdqU => K::LdqU,
        Op::Stq => K::Stq,
        Op::Stl => K::Stl,
        Op::StqU => K::StqU,
        Op::Ldbu => K::Ldbu,
        Op::Stb => K::Stb,
        Op::Ldwu => K::Ldwu,
        Op::Stw => K::Stw,
        // (The literal forms are rare and stay generic.)
        Op::Sextb if !lit => K::SextbR,
        Op::Sextw if !lit => K::SextwR,
        Op::Br
        | Op::Bsr
        | Op::Beq
        | Op::Bne
        | Op::Blt
        | Op::Bge
        | Op::Ble
        | Op::Bgt
        | Op::Blbc
        | Op::Blbs => {
            u.imm = pc.wrapping_add(4).wrapping_add(disp << 2);
            match insn.op {
                Op::Br | Op::Bsr => K::Br,
                Op::Beq => K::Beq,
                Op::Bne => K::Bne,
                Op::Blt => K::Blt,
                Op::Bge => K::Bge,
                Op::Ble => K::Ble,
                Op::Bgt => K::Bgt,
                Op::Blbc => K::Blbc,
                _ => K::Blbs,
            }
        }
        Op::Jmp | Op::Jsr | Op::Ret | Op::JsrCoroutine => K::Jump,
        _ => K::Generic,
    };
    // No specialised kind writes R31, so the loop never has to re-zero it
    // (only the generic path does, after `execute`).
    let writes = u.kind.writes();
    if writes == Writes::Ra && u.ra == 31 {
        u.kind = match u.kind {
            K::Br => K::Goto,
            K::Jump => K::JumpNoLink,
            // LDQ_U R31 is UNOP (Handbook §4.2, Table of pseudo-ops).
            K::Lda | K::Ldah | K::LdqU => K::Nop,
            // Other loads into R31 keep the reference path.
            _ => K::Generic,
        };
    } else if writes == Writes::Rc && u.rc == 31 {
        // SEXTx into R31 still raises OPCDEC without BWX: keep it generic.
        u.kind = match u.kind {
            K::SextbR | K::SextwR => K::Generic,
            _ => K::Nop,
        };
    }
    u
}

/// The sentinel uop placed after the last instruction of every page.
pub fn end_of_page() -> Uop {
    Uop {
        kind: K::EndOfPage,
        ra: 31,
        rb: 31,
        rc: 31,
        imm: 0,
        insn: alpha_isa::decode(0),
    }
}

/// Run `cpu` for at most `budget` instructions; return the first event.
/// On return `cpu.pc` and `cpu.icount` are up to date.
pub fn run(cpu: &mut Cpu, mem: &mut Memory, ic: &mut ICache, budget: u64) -> Event {
    if mem.tracing() {
        run_loop::<true, false>(cpu, mem, ic, budget)
    } else {
        run_loop::<false, false>(cpu, mem, ic, budget)
    }
}

/// Like [`run`], but also stop (with [`Event::BudgetExhausted`], `cpu.pc`
/// at the instruction, not executed) *before* the next scheduling point
/// after the first instruction: a data load or store of any width
/// (LDx, STx, LDQ_U/STQ_U, LDx_L/STx_C, floating-point loads and stores).
/// The first instruction always executes, so a caller resuming a CPU that
/// stopped at a point makes progress. Memory tracing stays as it is; the
/// compiling tier is not entered (it would run past points).
///
/// A scheduler that would let this CPU run on at the next few points says
/// so with [`Memory::set_point_passes`]: the loop runs through that many
/// points (marking each in the trace, [`Memory::point_marks`]) and stops
/// before the one after, without leaving the loop in between.
pub fn run_to_point(cpu: &mut Cpu, mem: &mut Memory, ic: &mut ICache, budget: u64) -> Event {
    if mem.tracing() {
        run_loop::<true, true>(cpu, mem, ic, budget)
    } else {
        run_loop::<false, true>(cpu, mem, ic, budget)
    }
}

/// Is this micro-op a data access (a scheduling point of [`run_to_point`])?
#[inline(always)]
pub fn is_point(u: &Uop) -> bool {
    match u.kind {
        K::Ldq
        | K::Ldl
        | K::LdqU
        | K::Stq
        | K::Stl
        | K::StqU
        | K::Ldbu
        | K::Stb
        | K::Ldwu
        | K::Stw => true,
        K::Generic => is_access(u.insn.op),
        _ => false,
    }
}

/// Does `op` read or write data memory?
pub fn is_access(op: Op) -> bool {
    mem::shape(op).is_some()
        || matches!(
            op,
            Op::Ldf | Op::Ldg | Op::Lds | Op::Ldt | Op::Stf | Op::Stg | Op::Sts | Op::Stt
        )
}

/// The loop, compiled once with memory tracing (`TR`) and once without,
/// and once more stopping before scheduling points (`SP`, see [`run_to_point`]).
fn run_loop<const TR: bool, const SP: bool>(
    cpu: &mut Cpu,
    mem: &mut Memory,
    ic: &mut ICache,
    budget: u64,
) -> Event {
    let start = cpu.icount;
    let mut pc = cpu.pc;
    let mut left = budget;
    let mut evslot = Event::BudgetExhausted;
    cpu.r[31] = 0;
    // Arrivals before a region is compiled; 0: interpret only (always
    // while tracing, which compiled code does not report).
    let thr = if TR || SP { 0 } else { ic.jit_threshold() };
    let uniq = ic.inline_rduniq();
    // With `SP`, a scheduling point stops the loop before it executes,
    // unless it is the first instruction looked at (`left == budget`
    // there, and below `budget` from then on: the only slot that gives
    // its budget back, the end-of-page one, is never the first).
    // Skip the arrival check once: when the last pass of the outer loop
    // came back from compiled code stopped at `pc` (an instruction to
    // interpret before entering compiled code again; not after a branch
    // out of a region, whose target is an arrival), and on entry, because resuming
    // where a budget ran out is no control-flow arrival (counting it would
    // compile regions at every pc where a scheduler quantum happens to end).
    let mut from_jit = true;
    let mut polls = 0u32;
    // (event, pc of the instruction that raised it or the next pc, raised by an instruction?)
    let (ev, executed) = 'outer: loop {
        if left == 0 {
            break (Event::BudgetExhausted, false);
        }
        ic.sync(mem);
        let pn = pc >> PAGE_SHIFT;
        let base = pn << PAGE_SHIFT;
        let bi = match ic.block_index(mem, pn) {
            Ok(b) => b,
            Err(fault) => break (Event::MemFault { fault }, false),
        };
        let mut idx = ((pc & (PAGE_SIZE - 1)) >> 2) as usize;
        // Look for finished regions on the first pass and every 32nd: with compiled
        // code chaining through here, a poll per pass would cost more than
        // the regions it installs a little earlier.
        if thr != 0 && ic.jit_pending() {
            polls = polls.wrapping_add(1);
            if polls % 32 == 1 {
                ic.jit_poll();
            }
        }
        if thr != 0 && !std::mem::take(&mut from_jit) {
            let head = &ic.heads(bi)[idx];
            let h = head.get();
            let region = if h >= COMPILED {
                Some(ic.region(h))
            } else if h >= PENDING {
                None
            } else if h + 1 >= thr {
                let direct = matches!(mem.jit_access(), crate::memory::JitAccess::Direct { .. });
                ic.compile(bi, idx, base, cpu.has(Ext::Bwx), cpu.has(Ext::Fix), direct)
            } else {
                head.set(h + 1);
                None
            };
            if let Some(f) = region {
                // SAFETY: `f` was compiled from the block just synced, and
                // `cpu.r[31]` is zero.
                let before = left;
                ic.link(pc, f);
                let code = ic.jit_code();
                let e = unsafe { jit::enter(f, ic.links(), code, cpu, mem, &mut left) };
                ic.jit_note(before - left, &e);
                pc = e.pc;
                // After a branch out of the region its target is an
                // arrival like any other (and may be compiled: enter it
                // at once); any other exit stops at an instruction to
                // interpret.
                from_jit = !e.why.chains();
                continue 'outer;
            }
        }
        let block = ic.block(bi);
        let heads = ic.heads(bi);
        let gen = mem.code_generation();
        macro_rules! at {
            ($i:expr) => {
                base + (($i as u64) << 2)
            };
        }
        // Count an arrival at `idx`; when its region is compiled or due,
        // leave for the outer loop, which enters it.
        macro_rules! arrive {
            () => {{
                if thr != 0 {
                    let head = &heads[idx];
                    let h = head.get();
                    if h >= COMPILED {
                        pc = at!(idx);
                        continue 'outer;
                    } else if h < PENDING {
                        if h + 1 >= thr {
                            pc = at!(idx);
                            continue 'outer;
                        }
                        head.set(h + 1);
                    } else if h == PENDING {
                        // The outer loop polls the background compiler.
                        pc = at!(idx);
                        continue 'outer;
                    }
                }
            }};
        }
        // Leave the page loop to continue at `$target`.
        macro_rules! goto {
            ($target:expr) => {{
                let t: u64 = $target;
                if t >> PAGE_SHIFT == pn {
                    idx = ((t & (PAGE_SIZE - 1)) >> 2) as usize;
                    arrive!();
                } else {
                    pc = t;
                    continue 'outer;
                }
            }};
        }
        loop {
            if left == 0 {
                pc = at!(idx);
                break 'outer (Event::BudgetExhausted, false);
            }
            let u = &block[idx];
            left -= 1;
            let r = &mut cpu.r;
            let (ra, rb, rc) = (
                (u.ra & 31) as usize,
                (u.rb & 31) as usize,
                (u.rc & 31) as usize,
            );
            macro_rules! op {
                ($v:expr) => {{
                    r[rc] = $v;
                    idx += 1;
                }};
            }
            macro_rules! br {
                ($cond:expr) => {{
                    if $cond {
                        goto!(u.imm)
                    } else {
                        idx += 1;
                    }
                }};
            }
            // A data access (`is_point`): with `SP`, stop before it, or
            // run through it while passes are left.
            macro_rules! point {
                () => {
                    if SP && left + 1 != budget {
                        if mem.point_passes() == 0 {
                            left += 1;
                            pc = at!(idx);
                            break 'outer (Event::BudgetExhausted, false);
                        }
                        mem.pass_point();
                    }
                };
            }
            macro_rules! memop {
                ($f:expr, $store:expr) => {{
                    if TR {
                        mem.set_trace_site(at!(idx), start + (budget - left) - 1);
                    }
                    match $f(cpu, mem, &u.insn) {
                        Ok(()) => {
                            idx += 1;
                            if $store && mem.code_generation() != gen {
                                pc = at!(idx);
                                continue 'outer;
                            }
                        }
                        Err(e) => {
                            pc = at!(idx);
                            break 'outer (e, true);
                        }
                    }
                }};
            }
            macro_rules! bwx {
                () => {
                    if !cpu.has(Ext::Bwx) {
                        pc = at!(idx);
                        break 'outer (
                            Event::Opcdec {
                                insn: u.insn,
                                missing: Some(Ext::Bwx),
                            },
                            true,
                        );
                    }
                };
            }
            match u.kind {
                K::Lda | K::Ldah => {
                    r[ra] = r[rb].wrapping_add(u.imm);
                    idx += 1;
                }
                K::AddqR => op!(r[ra].wrapping_add(r[rb])),
                K::AddqL => op!(r[ra].wrapping_add(u.imm)),
                K::SubqR => op!(r[ra].wrapping_sub(r[rb])),
                K::SubqL => op!(r[ra].wrapping_sub(u.imm)),
                K::AddlR => op!(sext32(r[ra].wrapping_add(r[rb]))),
                K::AddlL => op!(sext32(r[ra].wrapping_add(u.imm))),
                K::SublR => op!(sext32(r[ra].wrapping_sub(r[rb]))),
                K::SublL => op!(sext32(r[ra].wrapping_sub(u.imm))),
                K::S4addlR => op!(sext32((r[ra] << 2).wrapping_add(r[rb]))),
                K::S4addlL => op!(sext32((r[ra] << 2).wrapping_add(u.imm))),
                K::S8addlR => op!(sext32((r[ra] << 3).wrapping_add(r[rb]))),
                K::S8addlL => op!(sext32((r[ra] << 3).wrapping_add(u.imm))),
                K::S4sublR => op!(sext32((r[ra] << 2).wrapping_sub(r[rb]))),
                K::S4sublL => op!(sext32((r[ra] << 2).wrapping_sub(u.imm))),
                K::S8sublR => op!(sext32((r[ra] << 3).wrapping_sub(r[rb]))),
                K::S8sublL => op!(sext32((r[ra] << 3).wrapping_sub(u.imm))),
                K::S4addqR => op!((r[ra] << 2).wrapping_add(r[rb])),
                K::S4addqL => op!((r[ra] << 2).wrapping_add(u.imm)),
                K::S8addqR => op!((r[ra] << 3).wrapping_add(r[rb])),
                K::S8addqL => op!((r[ra] << 3).wrapping_add(u.imm)),
                K::S4subqR => op!((r[ra] << 2).wrapping_sub(r[rb])),
                K::S4subqL => op!((r[ra] << 2).wrapping_sub(u.imm)),
                K::S8subqR => op!((r[ra] << 3).wrapping_sub(r[rb])),
                K::S8subqL => op!((r[ra] << 3).wrapping_sub(u.imm)),
                K::AndR => op!(r[ra] & r[rb]),
                K::AndL => op!(r[ra] & u.imm),
                K::BicR => op!(r[ra] & !r[rb]),
                K::BicL => op!(r[ra] & !u.imm),
                K::BisR => op!(r[ra] | r[rb]),
                K::BisL => op!(r[ra] | u.imm),
                K::OrnotR => op!(r[ra] | !r[rb]),
                K::OrnotL => op!(r[ra] | !u.imm),
                K::XorR => op!(r[ra] ^ r[rb]),
                K::XorL => op!(r[ra] ^ u.imm),
                K::EqvR => op!(r[ra] ^ !r[rb]),
                K::EqvL => op!(r[ra] ^ !u.imm),
                K::SllR => op!(sll(r[ra], r[rb])),
                K::SllL => op!(sll(r[ra], u.imm)),
                K::SrlR => op!(srl(r[ra], r[rb])),
                K::SrlL => op!(srl(r[ra], u.imm)),
                K::SraR => op!(sra(r[ra], r[rb])),
                K::SraL => op!(sra(r[ra], u.imm)),
                K::CmpeqR => op!((r[ra] == r[rb]) as u64),
                K::CmpeqL => op!((r[ra] == u.imm) as u64),
                K::CmpultR => op!((r[ra] < r[rb]) as u64),
                K::CmpultL => op!((r[ra] < u.imm) as u64),
                K::CmpltR => op!(((r[ra] as i64) < (r[rb] as i64)) as u64),
                K::CmpltL => op!(((r[ra] as i64) < (u.imm as i64)) as u64),
                K::CmpleR => op!(((r[ra] as i64) <= (r[rb] as i64)) as u64),
                K::CmpleL => op!(((r[ra] as i64) <= (u.imm as i64)) as u64),
                K::CmpuleR => op!((r[ra] <= r[rb]) as u64),
                K::CmpuleL => op!((r[ra] <= u.imm) as u64),
                K::CmpbgeR => op!(cmpbge(r[ra], r[rb])),
                K::CmpbgeL => op!(cmpbge(r[ra], u.imm)),
                K::MullR => op!(sext32(r[ra].wrapping_mul(r[rb]))),
                K::MullL => op!(sext32(r[ra].wrapping_mul(u.imm))),
                K::MulqR => op!(r[ra].wrapping_mul(r[rb])),
                K::MulqL => op!(r[ra].wrapping_mul(u.imm)),
                K::UmulhR => op!(((r[ra] as u128 * r[rb] as u128) >> 64) as u64),
                K::UmulhL => op!(((r[ra] as u128 * u.imm as u128) >> 64) as u64),
                K::ZapR => op!(zap(r[ra], r[rb])),
                K::ZapL => op!(zap(r[ra], u.imm)),
                K::ZapnotR => op!(zapnot(r[ra], r[rb])),
                K::ZapnotL => op!(zapnot(r[ra], u.imm)),
                K::ExtblR => op!(ext_low(r[ra], r[rb], MASK_B)),
                K::ExtblL => op!(ext_low(r[ra], u.imm, MASK_B)),
                K::InsblR => op!(ins_low(r[ra], r[rb], MASK_B)),
                K::InsblL => op!(ins_low(r[ra], u.imm, MASK_B)),
                K::MskblR => op!(msk_low(r[ra], r[rb], MASK_B)),
                K::MskblL => op!(msk_low(r[ra], u.imm, MASK_B)),
                K::ExtwlR => op!(ext_low(r[ra], r[rb], MASK_W)),
                K::ExtwlL => op!(ext_low(r[ra], u.imm, MASK_W)),
                K::InswlR => op!(ins_low(r[ra], r[rb], MASK_W)),
                K::InswlL => op!(ins_low(r[ra], u.imm, MASK_W)),
                K::MskwlR => op!(msk_low(r[ra], r[rb], MASK_W)),
                K::MskwlL => op!(msk_low(r[ra], u.imm, MASK_W)),
                K::ExtwhR => op!(ext_high(r[ra], r[rb], MASK_W)),
                K::ExtwhL => op!(ext_high(r[ra], u.imm, MASK_W)),
                K::InswhR => op!(ins_high(r[ra], r[rb], MASK_W)),
                K::InswhL => op!(ins_high(r[ra], u.imm, MASK_W)),
                K::MskwhR => op!(msk_high(r[ra], r[rb], MASK_W)),
                K::MskwhL => op!(msk_high(r[ra], u.imm, MASK_W)),
                K::ExtllR => op!(ext_low(r[ra], r[rb], MASK_L)),
                K::ExtllL => op!(ext_low(r[ra], u.imm, MASK_L)),
                K::InsllR => op!(ins_low(r[ra], r[rb], MASK_L)),
                K::InsllL => op!(ins_low(r[ra], u.imm, MASK_L)),
                K::MskllR => op!(msk_low(r[ra], r[rb], MASK_L)),
                K::MskllL => op!(msk_low(r[ra], u.imm, MASK_L)),
                K::ExtlhR => op!(ext_high(r[ra], r[rb], MASK_L)),
                K::ExtlhL => op!(ext_high(r[ra], u.imm, MASK_L)),
                K::InslhR => op!(ins_high(r[ra], r[rb], MASK_L)),
                K::InslhL => op!(ins_high(r[ra], u.imm, MASK_L)),
                K::MsklhR => op!(msk_high(r[ra], r[rb], MASK_L)),
                K::MsklhL => op!(msk_high(r[ra], u.imm, MASK_L)),
                K::ExtqlR => op!(ext_low(r[ra], r[rb], MASK_Q)),
                K::ExtqlL => op!(ext_low(r[ra], u.imm, MASK_Q)),
                K::InsqlR => op!(ins_low(r[ra], r[rb], MASK_Q)),
                K::InsqlL => op!(ins_low(r[ra], u.imm, MASK_Q)),
                K::MskqlR => op!(msk_low(r[ra], r[rb], MASK_Q)),
                K::MskqlL => op!(msk_low(r[ra], u.imm, MASK_Q)),
                K::ExtqhR => op!(ext_high(r[ra], r[rb], MASK_Q)),
                K::ExtqhL => op!(ext_high(r[ra], u.imm, MASK_Q)),
                K::InsqhR => op!(ins_high(r[ra], r[rb], MASK_Q)),
                K::InsqhL => op!(ins_high(r[ra], u.imm, MASK_Q)),
                K::MskqhR => op!(msk_high(r[ra], r[rb], MASK_Q)),
                K::MskqhL => op!(msk_high(r[ra], u.imm, MASK_Q)),
                K::CmoveqR => {
                    if r[ra] == 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmoveqL => {
                    if r[ra] == 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovneR => {
                    if r[ra] != 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovneL => {
                    if r[ra] != 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovltR => {
                    if (r[ra] as i64) < 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovltL => {
                    if (r[ra] as i64) < 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovgeR => {
                    if (r[ra] as i64) >= 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovgeL => {
                    if (r[ra] as i64) >= 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovleR => {
                    if (r[ra] as i64) <= 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovleL => {
                    if (r[ra] as i64) <= 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovgtR => {
                    if (r[ra] as i64) > 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovgtL => {
                    if (r[ra] as i64) > 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovlbsR => {
                    if r[ra] & 1 != 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovlbsL => {
                    if r[ra] & 1 != 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::CmovlbcR => {
                    if r[ra] & 1 == 0 {
                        r[rc] = r[rb];
                    }
                    idx += 1;
                }
                K::CmovlbcL => {
                    if r[ra] & 1 == 0 {
                        r[rc] = u.imm;
                    }
                    idx += 1;
                }
                K::Ldq => {
                    point!();
                    memop!(mem::ldq::<TR>, false)
                }
                K::Ldl => {
                    point!();
                    memop!(mem::ldl::<TR>, false)
                }
                K::LdqU => {
                    point!();
                    memop!(mem::ldq_u::<TR>, false)
                }
                K::Stq => {
                    point!();
                    memop!(mem::stq::<TR>, true)
                }
                K::Stl => {
                    point!();
                    memop!(mem::stl::<TR>, true)
                }
                K::StqU => {
                    point!();
                    memop!(mem::stq_u::<TR>, true)
                }
                // BWX (Handbook §4.2, §4.7.x): OPCDEC on models without it.
                K::Ldbu => {
                    point!();
                    bwx!();
                    memop!(mem::ldbu::<TR>, false)
                }
                K::Stb => {
                    point!();
                    bwx!();
                    memop!(mem::stb::<TR>, true)
                }
                K::Ldwu => {
                    point!();
                    bwx!();
                    memop!(mem::ldwu::<TR>, false)
                }
                K::Stw => {
                    point!();
                    bwx!();
                    memop!(mem::stw::<TR>, true)
                }
                K::SextbR => {
                    bwx!();
                    cpu.r[rc] = ext::sextb(cpu.r[rb]);
                    idx += 1;
                }
                K::SextwR => {
                    bwx!();
                    cpu.r[rc] = ext::sextw(cpu.r[rb]);
                    idx += 1;
                }
                K::Nop => idx += 1,
                K::Br => {
                    r[ra] = at!(idx + 1);
                    goto!(u.imm)
                }
                K::Goto => goto!(u.imm),
                K::JumpNoLink => goto!(r[rb] & !3),
                K::Beq => br!(r[ra] == 0),
                K::Bne => br!(r[ra] != 0),
                K::Blt => br!((r[ra] as i64) < 0),
                K::Bge => br!((r[ra] as i64) >= 0),
                K::Ble => br!((r[ra] as i64) <= 0),
                K::Bgt => br!((r[ra] as i64) > 0),
                K::Blbc => br!(r[ra] & 1 == 0),
                K::Blbs => br!(r[ra] & 1 != 0),
                K::Jump => {
                    // Rb is read before Ra is written (JSR $26, ($26)).
                    let target = r[rb] & !3;
                    r[ra] = at!(idx + 1);
                    goto!(target)
                }
                K::EndOfPage => {
                    // Not an instruction: give the budget back and move on.
                    left += 1;
                    pc = base.wrapping_add(PAGE_SIZE);
                    continue 'outer;
                }
                K::Generic if uniq && crate::jit::region::is_rduniq(u) => {
                    crate::jit::emit::rduniq(cpu, mem);
                    idx += 1;
                    // The page's last instruction: the end-of-page slot
                    // that follows is not an arrival.
                    if idx < INSNS_PER_PAGE {
                        arrive!();
                    }
                }
                K::Generic => {
                    if SP && is_access(u.insn.op) {
                        point!();
                    }
                    let here = at!(idx);
                    let count = start + (budget - left);
                    if TR {
                        mem.set_trace_site(here, count - 1);
                    }
                    let res = execute(cpu, mem, &u.insn, here, count, &mut evslot);
                    cpu.r[31] = 0;
                    match res {
                        Some(next) => {
                            if next == here + 4 && mem.code_generation() == gen {
                                idx += 1;
                                if idx < INSNS_PER_PAGE {
                                    arrive!();
                                }
                            } else {
                                pc = next;
                                continue 'outer;
                            }
                        }
                        None => {
                            pc = here;
                            break 'outer (evslot, true);
                        }
                    }
                }
            }
            // Falling off the last instruction lands on the sentinel.
            debug_assert!(idx <= INSNS_PER_PAGE);
        }
    };
    let mut count = start + (budget - left);
    if executed {
        if ev.pc_advanced() {
            pc = pc.wrapping_add(4);
        } else {
            count -= 1;
        }
    }
    cpu.icount = count;
    cpu.pc = pc;
    cpu.r[31] = 0;
    cpu.f[31] = 0;
    ev
}

#[inline(always)]
fn sext32(x: u64) -> u64 {
    x as u32 as i32 as i64 as u64
}
