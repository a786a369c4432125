//! The floating-point unit's side of the interpreter (Handbook §4.7-§4.10).
//!
//! Memory moves (LDS/LDT/LDF/LDG and stores, with the register-format
//! mappings of §2.2.6 from [`crate::fp::regfmt`]) and floating branches are
//! done here; every floating operate goes to [`crate::fp::execute`], the pure
//! soft-float implementation (IEEE S/T with all qualifiers, VAX F/G/D). The
//! FIX extension gate is applied here, before the FP unit sees the
//! instruction. An arithmetic trap becomes [`Event::FpArith`].

use super::Event;
use crate::cpu::Cpu;
use crate::fp::{self, FCond, FpTrap};
use crate::memory::{MemFault, Memory};
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
        Op::Ldt => {
            unaligned!(8u64, false);
            cpu.f[ra] = mem.load::<8>(va).map_err(mf)?;
            Ok(next)
        }
        Op::Stt => {
            unaligned!(8u64, true);
            mem.store::<8>(cpu.id, va, fa).map_err(mf)?;
            Ok(next)
        }
        Op::Lds => {
            unaligned!(4u64, false);
            cpu.f[ra] = fp::lds_to_reg(mem.load::<4>(va).map_err(mf)? as u32);
            Ok(next)
        }
        Op::Sts => {
            unaligned!(4u64, true);
            mem.store::<4>(cpu.id, va, fp::sts_from_reg(fa) as u64)
                .map_err(mf)?;
            Ok(next)
        }
        Op::Ldg => {
            unaligned!(8u64, false);
            cpu.f[ra] = fp::ldg_to_reg(mem.load::<8>(va).map_err(mf)?);
            Ok(next)
        }
        Op::Stg => {
            unaligned!(8u64, true);
            mem.store::<8>(cpu.id, va, fp::stg_from_reg(fa))
                .map_err(mf)?;
            Ok(next)
        }
        Op::Ldf => {
            unaligned!(4u64, false);
            cpu.f[ra] = fp::ldf_to_reg(mem.load::<4>(va).map_err(mf)? as u32);
            Ok(next)
        }
        Op::Stf => {
            unaligned!(4u64, true);
            mem.store::<4>(cpu.id, va, fp::stf_from_reg(fa) as u64)
                .map_err(mf)?;
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
