//! The floating-point unit's side of the interpreter (Handbook §4.7-§4.10).
//!
//! Memory moves (LDS/LDT/LDF/LDG and stores, with the register-format
//! mappings of §2.2.6 from [`crate::fp::regfmt`]) and floating branches are
//! done here; every floating operate goes to [`crate::fp::execute`], the pure
//! implementation (IEEE S/T with all qualifiers on the host's `f32`/`f64`
//! where that is provably exact, else soft float; VAX F/G/D). The
//! FIX extension gate is applied here, before the FP unit sees the
//! instruction. An arithmetic trap becomes [`Event::FpArith`].

use super::Event;
use crate::cpu::Cpu;
use crate::fp::{self, FCond, FpTrap};
use crate::memory::{AccessKind, MemFault, Memory};
use alpha_isa::{Ext, Insn, Op};

#[inline(always)]
fn mf(e: MemFault) -> Event {
    Event::MemFault { fault: e }
}

/// Execute a floating-point instruction, or return [`Event::Fp`] for the
/// ones this build leaves to the floating-point unit.
pub fn execute(cpu: &mut Cpu, mem: &mut Memory, insn: Insn, pc: u64) -> Result<u64, Event> {
    let next = pc.wrapping_add(4);
    let ra = (insn.ra & 31) as usize;
    let rb = (insn.rb & 31) as usize;
    let va = cpu.r[rb].wrapping_add(insn.disp as i64 as u64);
    let fa = cpu.f[ra];
    macro_rules! unaligned {
        ($n:expr, $store:expr) => {
            if va & ($n - 1) != 0 {
                return Err(Event::Unaligned {
                    insn,
                    addr: va,
                    size: $n as u8,
                    is_store: $store,
                });
            }
        };
    }
    let r = match insn.op {
        Op::Ldt | Op::Lds | Op::Ldg | Op::Ldf => {
            let n: u64 = if matches!(insn.op, Op::Ldt | Op::Ldg) {
                8
            } else {
                4
            };
            unaligned!(n, false);
            let raw = if n == 8 {
                mem.load::<8>(va)
            } else {
                mem.load::<4>(va)
            }
            .map_err(mf)?;
            cpu.f[ra] = match insn.op {
                Op::Ldt => raw,
                Op::Ldg => fp::ldg_to_reg(raw),
                Op::Lds => fp::lds_to_reg(raw as u32),
                _ => fp::ldf_to_reg(raw as u32),
            };
            super::mem::trace(mem, cpu.id, va, n as u8, AccessKind::Plain, false, raw);
            Ok(next)
        }
        Op::Stt | Op::Sts | Op::Stg | Op::Stf => {
            let n: u64 = if matches!(insn.op, Op::Stt | Op::Stg) {
                8
            } else {
                4
            };
            unaligned!(n, true);
            let raw = match insn.op {
                Op::Stt => fa,
                Op::Stg => fp::stg_from_reg(fa),
                Op::Sts => fp::sts_from_reg(fa) as u64,
                _ => fp::stf_from_reg(fa) as u64,
            };
            if n == 8 {
                mem.store::<8>(cpu.id, va, raw)
            } else {
                mem.store::<4>(cpu.id, va, raw)
            }
            .map_err(mf)?;
            super::mem::trace(mem, cpu.id, va, n as u8, AccessKind::Plain, true, raw);
            Ok(next)
        }
        Op::Fbeq | Op::Fbne | Op::Fblt | Op::Fble | Op::Fbge | Op::Fbgt => {
            let taken = FCond::of(insn.op).is_some_and(|c| c.holds(fa));
            Ok(if taken {
                next.wrapping_add((insn.disp as i64 as u64) << 2)
            } else {
                next
            })
        }
        op if fp::is_fp_operate(op) => {
            let fix = matches!(
                op,
                Op::Itofs
                    | Op::Itoft
                    | Op::Itoff
                    | Op::Ftoit
                    | Op::Ftois
                    | Op::Sqrts
                    | Op::Sqrtt
                    | Op::Sqrtf
                    | Op::Sqrtg
            );
            if fix && !cpu.has(Ext::Fix) {
                return Err(Event::Opcdec {
                    insn,
                    missing: Some(Ext::Fix),
                });
            }
            match fp::execute(&insn, &mut cpu.f, &mut cpu.r, &mut cpu.fpcr, cpu.ieee_ctl) {
                Ok(()) => Ok(next),
                Err(FpTrap::Arith { si_code, .. }) => Err(Event::FpArith { insn, si_code }),
                Err(FpTrap::NotFloatingPoint(_)) => Err(Event::Fp { insn }),
            }
        }
        _ => Err(Event::Fp { insn }),
    };
    cpu.f[31] = 0;
    r
}
