//! The floating-point hook (Handbook §4.7-§4.10).
//!
//! Executed here: the pure data movements that need no arithmetic — LDT/STT,
//! LDS/STS (the S-format memory/register mapping of §2.2.6), the FIX moves
//! ITOFT/ITOFS/FTOIT/FTOIS, and the floating conditional branches. Every
//! other floating instruction (arithmetic, conversions, compares, FPCR moves,
//! VAX F/G) is handed back as [`Event::Fp`] with no effect, so an IEEE
//! implementation (`crate::fp`, issue 3) plugs in at [`execute`] without
//! touching the interpreter's integer core.

use super::Event;
use crate::cpu::Cpu;
use crate::memory::{MemFault, Memory};
use alpha_isa::{Ext, Insn, Op};

/// S_floating memory longword to its T-format register image (LDS, ITOFS).
pub fn s_to_reg(m: u32) -> u64 {
    let m = m as u64;
    let sign = (m >> 31) & 1;
    let exp = (m >> 23) & 0xff;
    let frac = m & 0x7f_ffff;
    let exp11 = match exp {
        0xff => 0x7ff,
        0 => 0,
        e => {
            let hi = (e >> 7) & 1;
            // exp<7> || NOT exp<7> (three times) || exp<6:0>
            (hi << 10) | (if hi == 1 { 0 } else { 0b111 << 7 }) | (e & 0x7f)
        }
    };
    (sign << 63) | (exp11 << 52) | (frac << 29)
}

/// T-format register image to the S_floating memory longword (STS, FTOIS).
pub fn reg_to_s(r: u64) -> u32 {
    ((((r >> 62) & 3) << 30) | ((r >> 29) & 0x3fff_ffff)) as u32
}

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
    let rc = (insn.rc & 31) as usize;
    let va = cpu.r[rb].wrapping_add(insn.disp as i64 as u64);
    let fa = cpu.f[ra];
    let mag_zero = fa << 1 == 0;
    let neg = fa >> 63 == 1;
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
    macro_rules! branch {
        ($cond:expr) => {
            Ok(if $cond {
                next.wrapping_add((insn.disp as i64 as u64) << 2)
            } else {
                next
            })
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
            cpu.f[ra] = s_to_reg(mem.load::<4>(va).map_err(mf)? as u32);
            Ok(next)
        }
        Op::Sts => {
            unaligned!(4u64, true);
            mem.store::<4>(cpu.id, va, reg_to_s(fa) as u64)
                .map_err(mf)?;
            Ok(next)
        }
        Op::Fbeq => branch!(mag_zero),
        Op::Fbne => branch!(!mag_zero),
        Op::Fblt => branch!(neg && !mag_zero),
        Op::Fble => branch!(neg || mag_zero),
        Op::Fbge => branch!(!neg || mag_zero),
        Op::Fbgt => branch!(!neg && !mag_zero),
        Op::Itoft | Op::Itofs | Op::Ftoit | Op::Ftois => {
            if !cpu.has(Ext::Fix) {
                return Err(Event::Opcdec {
                    insn,
                    missing: Some(Ext::Fix),
                });
            }
            match insn.op {
                Op::Itoft => cpu.f[rc] = cpu.r[ra],
                Op::Itofs => cpu.f[rc] = s_to_reg(cpu.r[ra] as u32),
                Op::Ftoit => cpu.r[rc] = fa,
                _ => cpu.r[rc] = reg_to_s(fa) as i32 as i64 as u64,
            }
            Ok(next)
        }
        Op::Sqrts | Op::Sqrtt | Op::Sqrtf | Op::Sqrtg if !cpu.has(Ext::Fix) => Err(Event::Opcdec {
            insn,
            missing: Some(Ext::Fix),
        }),
        _ => Err(Event::Fp { insn }),
    };
    cpu.f[31] = 0;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s_format_mapping_matches_f32_to_f64_for_normals() {
        for x in [1.0f32, -2.5, 3.0e-38, 1.7e38, 0.1] {
            assert_eq!(s_to_reg(x.to_bits()), (x as f64).to_bits(), "{x}");
            assert_eq!(reg_to_s((x as f64).to_bits()), x.to_bits());
        }
        assert_eq!(s_to_reg(f32::INFINITY.to_bits()), f64::INFINITY.to_bits());
        assert_eq!(s_to_reg(0x8000_0000), 0x8000_0000_0000_0000);
    }
}
