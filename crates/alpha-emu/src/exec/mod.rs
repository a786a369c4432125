//! The interpreter: executes decoded instructions against a [`Cpu`] and
//! [`Memory`], and reports everything it does not handle itself as an
//! [`Event`] value. It knows no operating system: `CALL_PAL`, OPCDEC,
//! arithmetic traps, unaligned accesses and memory faults are handed back to
//! whoever runs the CPU (the Linux personality, a bare machine, a test).
//!
//! Semantic units are grouped by manual family: [`bytes`] (shifts and byte
//! manipulation, §4.6), [`ext`] (BWX/CIX/MVI, §4.12-§4.13), [`mem`] (loads,
//! stores, LDx_L/STx_C, §4.2), [`float`] (the floating-point hook, §4.7-4.10);
//! integer arithmetic, logical, multiply, branch and miscellaneous live in this
//! file's [`execute`] dispatch, one line each.
//!
//! **Speed.** Every code page is decoded once (see `Memory::code_slot`); the
//! run loop indexes the predecoded block by `pc`, and `execute` is a single
//! `match` on [`Op`] with no allocation and no dynamic dispatch.

pub mod bytes;
pub mod ext;
pub mod fast;
pub mod float;
pub mod mem;

use crate::cpu::Cpu;
use crate::icache::ICache;
use crate::memory::{MemFault, Memory};
use alpha_isa::{Ext, Insn, Op};
use bytes::*;
pub use fast::run;

/// What stopped the interpreter. The doc of each variant says where
/// `cpu.pc` points when it is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The instruction budget ran out; `pc` is the next instruction.
    BudgetExhausted,
    /// `CALL_PAL func`; `pc` is the instruction after it (as the hardware's
    /// exception address for CALL_PAL, Handbook §6.7).
    CallPal { func: u32 },
    /// Reserved or unimplemented opcode (OPCDEC); `pc` is the instruction.
    /// `missing` names the extension the model lacks, if that is the reason.
    Opcdec { insn: Insn, missing: Option<Ext> },
    /// A /V arithmetic instruction overflowed. The (wrapped) result has been
    /// written, as the Handbook specifies; `pc` is the next instruction.
    IntegerOverflow { insn: Insn },
    /// A naturally-aligned access was not aligned. Raised before any effect;
    /// `pc` is the instruction. [`mem::complete_unaligned`] finishes it.
    Unaligned {
        insn: Insn,
        addr: u64,
        size: u8,
        is_store: bool,
    },
    /// A memory access (or fetch) faulted; `pc` is the faulting instruction.
    MemFault { fault: MemFault },
    /// A floating-point arithmetic trap (SIGFPE under Linux, with this
    /// `si_code`). Registers and FPCR hold what the Linux kernel leaves
    /// there; `pc` is the next instruction (Handbook §4.7.7: arithmetic
    /// traps are reported after the instruction).
    FpArith { insn: Insn, si_code: i32 },
    /// A floating-point instruction the floating-point unit does not
    /// handle; `pc` is the instruction, nothing was changed.
    Fp { insn: Insn },
}

impl Event {
    /// Does `pc` point past the instruction that raised the event?
    pub fn pc_advanced(&self) -> bool {
        matches!(
            self,
            Event::CallPal { .. }
                | Event::IntegerOverflow { .. }
                | Event::FpArith { .. }
                | Event::BudgetExhausted
        )
    }
}

/// Execute exactly one instruction (decoding it fresh; for tests and
/// single-stepping tools). Same contract as [`run`] with a budget of one,
/// except that it returns `Ok(())` when the instruction completed.
pub fn step(cpu: &mut Cpu, mem: &mut Memory, ic: &mut ICache) -> Result<(), Event> {
    match run(cpu, mem, ic, 1) {
        Event::BudgetExhausted => Ok(()),
        ev => Err(ev),
    }
}

#[inline(always)]
fn sext32(x: u64) -> u64 {
    x as u32 as i32 as i64 as u64
}

macro_rules! need {
    ($evout:expr, $cpu:expr, $insn:expr, $ext:expr) => {
        if !$cpu.has($ext) {
            return raise(
                $evout,
                Event::Opcdec {
                    insn: $insn,
                    missing: Some($ext),
                },
            );
        }
    };
}

/// Execute one decoded instruction at `pc`. Returns the next pc, or an event
/// (with no architectural effect unless the event's doc says otherwise).
#[inline(never)]
pub fn execute(
    cpu: &mut Cpu,
    mem: &mut Memory,
    insn: &Insn,
    pc: u64,
    count: u64,
    evout: &mut Event,
) -> Option<u64> {
    let insn = *insn;
    let next = pc.wrapping_add(4);
    let ra = (insn.ra & 31) as usize;
    let rb = (insn.rb & 31) as usize;
    let rc = (insn.rc & 31) as usize;
    let av = cpu.r[ra];
    // Operate format: Rbv is the literal when there is one.
    let rbv = cpu.r[rb];
    let bv = insn.lit.map_or(rbv, |l| l as u64);
    macro_rules! op {
        ($e:expr) => {{
            cpu.r[rc] = $e;
            Some(next)
        }};
    }
    macro_rules! cmov {
        ($cond:expr) => {{
            if $cond {
                cpu.r[rc] = bv;
            }
            Some(next)
        }};
    }
    macro_rules! ovf {
        ($val:expr, $ovf:expr) => {{
            cpu.r[rc] = $val;
            if $ovf {
                return raise(evout, Event::IntegerOverflow { insn });
            }
            Some(next)
        }};
    }
    macro_rules! branch {
        ($cond:expr) => {{
            if $cond {
                Some(next.wrapping_add((insn.disp as i64 as u64) << 2))
            } else {
                Some(next)
            }
        }};
    }
    match insn.op {
        // ---- integer arithmetic (opcode 0x10, §4.4)
        Op::Addl => op!(sext32(av.wrapping_add(bv))),
        Op::S4addl => op!(sext32((av << 2).wrapping_add(bv))),
        Op::S8addl => op!(sext32((av << 3).wrapping_add(bv))),
        Op::Subl => op!(sext32(av.wrapping_sub(bv))),
        Op::S4subl => op!(sext32((av << 2).wrapping_sub(bv))),
        Op::S8subl => op!(sext32((av << 3).wrapping_sub(bv))),
        Op::Addq => op!(av.wrapping_add(bv)),
        Op::S4addq => op!((av << 2).wrapping_add(bv)),
        Op::S8addq => op!((av << 3).wrapping_add(bv)),
        Op::Subq => op!(av.wrapping_sub(bv)),
        Op::S4subq => op!((av << 2).wrapping_sub(bv)),
        Op::S8subq => op!((av << 3).wrapping_sub(bv)),
        Op::Cmpeq => op!((av == bv) as u64),
        Op::Cmplt => op!(((av as i64) < (bv as i64)) as u64),
        Op::Cmple => op!(((av as i64) <= (bv as i64)) as u64),
        Op::Cmpult => op!((av < bv) as u64),
        Op::Cmpule => op!((av <= bv) as u64),
        Op::Cmpbge => op!(cmpbge(av, bv)),
        Op::AddlV => {
            let (v, o) = (av as i32).overflowing_add(bv as i32);
            ovf!(v as i64 as u64, o)
        }
        Op::SublV => {
            let (v, o) = (av as i32).overflowing_sub(bv as i32);
            ovf!(v as i64 as u64, o)
        }
        Op::AddqV => {
            let (v, o) = (av as i64).overflowing_add(bv as i64);
            ovf!(v as u64, o)
        }
        Op::SubqV => {
            let (v, o) = (av as i64).overflowing_sub(bv as i64);
            ovf!(v as u64, o)
        }
        // ---- multiply (opcode 0x13, §4.4.11-§4.4.13)
        Op::Mull => op!(sext32(av.wrapping_mul(bv))),
        Op::Mulq => op!(av.wrapping_mul(bv)),
        Op::Umulh => op!(((av as u128 * bv as u128) >> 64) as u64),
        Op::MullV => {
            let (v, o) = (av as i32).overflowing_mul(bv as i32);
            ovf!(v as i64 as u64, o)
        }
        Op::MulqV => {
            let (v, o) = (av as i64).overflowing_mul(bv as i64);
            ovf!(v as u64, o)
        }
        // ---- logical and conditional move (opcode 0x11, §4.5)
        Op::And => op!(av & bv),
        Op::Bic => op!(av & !bv),
        Op::Bis => op!(av | bv),
        Op::Ornot => op!(av | !bv),
        Op::Xor => op!(av ^ bv),
        Op::Eqv => op!(av ^ !bv),
        Op::Cmoveq => cmov!(av == 0),
        Op::Cmovne => cmov!(av != 0),
        Op::Cmovlt => cmov!((av as i64) < 0),
        Op::Cmovge => cmov!((av as i64) >= 0),
        Op::Cmovle => cmov!((av as i64) <= 0),
        Op::Cmovgt => cmov!((av as i64) > 0),
        Op::Cmovlbs => cmov!(av & 1 != 0),
        Op::Cmovlbc => cmov!(av & 1 == 0),
        // AMASK clears the bits of the features the model has (§4.11.1).
        Op::Amask => op!(bv & !cpu.model.amask),
        Op::Implver => op!(cpu.model.implver),
        // ---- shifts and byte manipulation (opcode 0x12, §4.6)
        Op::Sll => op!(sll(av, bv)),
        Op::Srl => op!(srl(av, bv)),
        Op::Sra => op!(sra(av, bv)),
        Op::Zap => op!(zap(av, bv)),
        Op::Zapnot => op!(zapnot(av, bv)),
        Op::Extbl => op!(ext_low(av, bv, MASK_B)),
        Op::Extwl => op!(ext_low(av, bv, MASK_W)),
        Op::Extll => op!(ext_low(av, bv, MASK_L)),
        Op::Extql => op!(ext_low(av, bv, MASK_Q)),
        Op::Extwh => op!(ext_high(av, bv, MASK_W)),
        Op::Extlh => op!(ext_high(av, bv, MASK_L)),
        Op::Extqh => op!(ext_high(av, bv, MASK_Q)),
        Op::Insbl => op!(ins_low(av, bv, MASK_B)),
        Op::Inswl => op!(ins_low(av, bv, MASK_W)),
        Op::Insll => op!(ins_low(av, bv, MASK_L)),
        Op::Insql => op!(ins_low(av, bv, MASK_Q)),
        Op::Inswh => op!(ins_high(av, bv, MASK_W)),
        Op::Inslh => op!(ins_high(av, bv, MASK_L)),
        Op::Insqh => op!(ins_high(av, bv, MASK_Q)),
        Op::Mskbl => op!(msk_low(av, bv, MASK_B)),
        Op::Mskwl => op!(msk_low(av, bv, MASK_W)),
        Op::Mskll => op!(msk_low(av, bv, MASK_L)),
        Op::Mskql => op!(msk_low(av, bv, MASK_Q)),
        Op::Mskwh => op!(msk_high(av, bv, MASK_W)),
        Op::Msklh => op!(msk_high(av, bv, MASK_L)),
        Op::Mskqh => op!(msk_high(av, bv, MASK_Q)),
        // ---- BWX, CIX, MVI on integer registers (opcode 0x1C)
        Op::Sextb => {
            need!(evout, cpu, insn, Ext::Bwx);
            op!(ext::sextb(bv))
        }
        Op::Sextw => {
            need!(evout, cpu, insn, Ext::Bwx);
            op!(ext::sextw(bv))
        }
        Op::Ctpop => {
            need!(evout, cpu, insn, Ext::Cix);
            op!(ext::ctpop(bv))
        }
        Op::Ctlz => {
            need!(evout, cpu, insn, Ext::Cix);
            op!(ext::ctlz(bv))
        }
        Op::Cttz => {
            need!(evout, cpu, insn, Ext::Cix);
            op!(ext::cttz(bv))
        }
        Op::Minub8
        | Op::Minsb8
        | Op::Minuw4
        | Op::Minsw4
        | Op::Maxub8
        | Op::Maxsb8
        | Op::Maxuw4
        | Op::Maxsw4
        | Op::Perr
        | Op::Pklb
        | Op::Pkwb
        | Op::Unpkbl
        | Op::Unpkbw => {
            need!(evout, cpu, insn, Ext::Mvi);
            op!(match insn.op {
                Op::Minub8 => ext::minub8(av, bv),
                Op::Minsb8 => ext::minsb8(av, bv),
                Op::Minuw4 => ext::minuw4(av, bv),
                Op::Minsw4 => ext::minsw4(av, bv),
                Op::Maxub8 => ext::maxub8(av, bv),
                Op::Maxsb8 => ext::maxsb8(av, bv),
                Op::Maxuw4 => ext::maxuw4(av, bv),
                Op::Maxsw4 => ext::maxsw4(av, bv),
                Op::Perr => ext::perr(av, bv),
                Op::Pklb => ext::pklb(bv),
                Op::Pkwb => ext::pkwb(bv),
                Op::Unpkbl => ext::unpkbl(bv),
                _ => ext::unpkbw(bv),
            })
        }
        // ---- address computation and integer memory (§4.2)
        Op::Lda => {
            cpu.r[ra] = cpu.r[rb].wrapping_add(insn.disp as i64 as u64);
            Some(next)
        }
        Op::Ldah => {
            cpu.r[ra] = cpu.r[rb].wrapping_add((insn.disp as i64 as u64) << 16);
            Some(next)
        }
        Op::Ldbu => {
            need!(evout, cpu, insn, Ext::Bwx);
            done(mem::ldbu::<true>(cpu, mem, &insn), next, evout)
        }
        Op::Ldwu => {
            need!(evout, cpu, insn, Ext::Bwx);
            done(mem::ldwu::<true>(cpu, mem, &insn), next, evout)
        }
        Op::Stb => {
            need!(evout, cpu, insn, Ext::Bwx);
            done(mem::stb::<true>(cpu, mem, &insn), next, evout)
        }
        Op::Stw => {
            need!(evout, cpu, insn, Ext::Bwx);
            done(mem::stw::<true>(cpu, mem, &insn), next, evout)
        }
        Op::Ldl => done(mem::ldl::<true>(cpu, mem, &insn), next, evout),
        Op::Ldq => done(mem::ldq::<true>(cpu, mem, &insn), next, evout),
        // LDQ_U R31 is UNOP: no access, no fault.
        Op::LdqU if ra == 31 => Some(next),
        Op::LdqU => done(mem::ldq_u::<true>(cpu, mem, &insn), next, evout),
        Op::Stl => done(mem::stl::<true>(cpu, mem, &insn), next, evout),
        Op::Stq => done(mem::stq::<true>(cpu, mem, &insn), next, evout),
        Op::StqU => done(mem::stq_u::<true>(cpu, mem, &insn), next, evout),
        Op::LdlL | Op::LdqL => done(mem::load_locked(cpu, mem, &insn), next, evout),
        Op::StlC | Op::StqC => done(mem::store_cond(cpu, mem, &insn), next, evout),
        // ---- memory-function format (opcode 0x18, §4.11): barriers and hints
        Op::Trapb
        | Op::Excb
        | Op::Mb
        | Op::Wmb
        | Op::Fetch
        | Op::FetchM
        | Op::Ecb
        | Op::Wh64
        | Op::Wh64en => Some(next),
        // RPCC: PCC<31:0> counts (here: instructions), PCC<63:32> is OS-defined (0).
        Op::Rpcc => {
            cpu.r[ra] = count & 0xffff_ffff;
            Some(next)
        }
        Op::Rc | Op::Rs => {
            cpu.r[ra] = cpu.intr_flag as u64;
            cpu.intr_flag = insn.op == Op::Rs;
            Some(next)
        }
        // ---- jumps (opcode 0x1A, §4.3): hints are ignored; Rb is read first.
        Op::Jmp | Op::Jsr | Op::Ret | Op::JsrCoroutine => {
            let target = cpu.r[rb] & !3;
            cpu.r[ra] = next;
            Some(target)
        }
        // ---- branches (§4.3)
        Op::Br | Op::Bsr => {
            cpu.r[ra] = next;
            branch!(true)
        }
        Op::Beq => branch!(av == 0),
        Op::Bne => branch!(av != 0),
        Op::Blt => branch!((av as i64) < 0),
        Op::Bge => branch!((av as i64) >= 0),
        Op::Ble => branch!((av as i64) <= 0),
        Op::Bgt => branch!((av as i64) > 0),
        Op::Blbc => branch!(av & 1 == 0),
        Op::Blbs => branch!(av & 1 != 0),
        // ---- PALcode
        Op::CallPal => raise(evout, Event::CallPal { func: insn.func }),
        // ---- reserved and privileged opcodes: OPCDEC in user mode
        Op::Illegal | Op::Pal19 | Op::Pal1b | Op::Pal1d | Op::Pal1e | Op::Pal1f => raise(
            evout,
            Event::Opcdec {
                insn,
                missing: None,
            },
        ),
        // ---- floating point: loads/stores, branches, operates (§4.7-§4.10)
        _ => match float::execute(cpu, mem, insn, pc) {
            Ok(n) => Some(n),
            Err(e) => raise(evout, e),
        },
    }
}

/// Record an event and stop (the cold path of [`execute`]).
#[cold]
#[inline(never)]
fn raise(slot: &mut Event, e: Event) -> Option<u64> {
    *slot = e;
    None
}

#[inline(always)]
fn done(r: Result<(), Event>, next: u64, evout: &mut Event) -> Option<u64> {
    match r {
        Ok(()) => Some(next),
        Err(e) => raise(evout, e),
    }
}
