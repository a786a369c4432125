//! Alpha floating point as pure functions of the register files and FPCR.
//!
//! Entry point: [`execute`] runs one floating operate instruction (opcodes
//! 0x14 FIX/ITOF/SQRT, 0x15 VAX, 0x16 IEEE, 0x17 datatype-independent, and
//! FTOIS/FTOIT of 0x1C). Loads and stores convert with [`regfmt`], floating
//! branches test [`FCond`].
//!
//! IEEE S/T values come from `host` (host `f32`/`f64` with error-free
//! exactness checks) when it can prove the bit-exact result and flags, and
//! from `ieee` (`rustc_apfloat`, the reference) otherwise;
//! [`execute_reference`] uses the reference alone. Operand checks, traps
//! and software completion are shared, so the two paths differ only in how
//! a value and its exception flags are computed.
//!
//! **Invariant:** nothing here touches memory, the program counter or any
//! operating system; the outcome of an instruction is the new register
//! values, the new FPCR, and possibly an [`FpTrap`] that the caller (the
//! Linux personality) turns into a signal.
//!
//! ## Trap model (Linux user mode)
//!
//! The model is the hardware plus the Linux kernel's software completion
//! (`arch/alpha/kernel/traps.c: do_entArith`, `arch/alpha/math-emu/math.c`):
//!
//! - The hardware detects invalid operation, division by zero and
//!   overflow always, underflow only with `/U`, inexact only with `/I`,
//!   integer overflow only with `/V`; a detected exception is recorded in
//!   the FPCR status bits <57:52> (sticky, with SUM) and traps. (GCC's
//!   manual: the inexact flag is maintained only by `-mieee-with-inexact`
//!   code, which carries `/I`.) Without `/S`, an operand that
//!   is an infinity, NaN or denormal (comparisons: NaN or denormal) also
//!   traps as invalid operation, before any result is written.
//! - Underflow without `/U` gives a true zero (+0) instead of a denormal.
//! - Without `/S` a trap is a SIGFPE with `si_code` `FPE_FLTINV`, whatever
//!   the exception (the kernel does not look further).
//! - With `/S` the kernel completes the instruction to its IEEE result
//!   (denormals, infinities and NaNs included; `IEEE_MAP_DMZ`/FPCR DNZ map
//!   denormal operands to zero and `IEEE_MAP_UMZ` underflowed results to
//!   zero) and raises SIGFPE only for exceptions the process enabled in its
//!   IEEE control word (`ieee_ctl`, from `osf_setsysinfo(SSI_IEEE_FP_CONTROL)`),
//!   with the kernel's `si_code`.
//!
//! VAX F/G/D operates (opcode 0x15, SQRTF/SQRTG) are computed exactly in
//! integer arithmetic by [`vax`]; the kernel never completes them, so their
//! traps are plain SIGFPE.

pub mod fpcr;
mod host;
mod ieee;
pub mod qual;
pub mod regfmt;
mod vax;

pub use fpcr::Exc;
pub use qual::{Qual, RoundQual, Rounding};
pub use regfmt::{
    ldf_to_reg, ldg_to_reg, lds_to_reg, stf_from_reg, stg_from_reg, sts_from_reg, FCond,
};

use alpha_isa::{Insn, Op};
use ieee::{Arith, Cmp, Geometry};
use rustc_apfloat::ieee::{Double, Single};

/// Why a floating instruction did not complete normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpTrap {
    /// An arithmetic trap the Linux kernel delivers as SIGFPE. Registers
    /// and FPCR have already been updated as the kernel leaves them.
    Arith {
        /// The exceptions that caused the trap.
        exc: Exc,
        /// The instruction had `/S` and went through software completion.
        software_completion: bool,
        /// `si_code` of the SIGFPE (`FPE_FLT*`, see [`fpcr`]).
        si_code: i32,
    },
    /// `execute` was given an instruction that is not a floating operate
    /// (a bug in the caller's dispatch).
    NotFloatingPoint(Op),
}

/// Does [`execute`] handle `op`?
pub fn is_fp_operate(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Itofs
            | Sqrtf
            | Sqrts
            | Itoff
            | Itoft
            | Sqrtg
            | Sqrtt
            | Ftoit
            | Ftois
            | Addf
            | Subf
            | Mulf
            | Divf
            | Cvtdg
            | Addg
            | Subg
            | Mulg
            | Divg
            | Cmpgeq
            | Cmpglt
            | Cmpgle
            | Cvtgf
            | Cvtgd
            | Cvtgq
            | Cvtqf
            | Cvtqg
            | Adds
            | Subs
            | Muls
            | Divs
            | Addt
            | Subt
            | Mult
            | Divt
            | Cmptun
            | Cmpteq
            | Cmptlt
            | Cmptle
            | Cvtts
            | Cvttq
            | Cvtqs
            | Cvtqt
            | Cvtst
            | Cvtlq
            | Cpys
            | Cpysn
            | Cpyse
            | MtFpcr
            | MfFpcr
            | Fcmoveq
            | Fcmovne
            | Fcmovlt
            | Fcmovge
            | Fcmovle
            | Fcmovgt
            | Cvtql
    )
}

fn get(regs: &[u64; 32], n: u8) -> u64 {
    if n >= 31 {
        0
    } else {
        regs[n as usize]
    }
}

fn put(regs: &mut [u64; 32], n: u8, v: u64) {
    if n < 31 {
        regs[n as usize] = v;
    }
}

fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

/// Execute one floating operate instruction.
///
/// - `f`: floating registers (raw 64-bit images; `f[31]` reads as zero and
///   writes to it are dropped).
/// - `r`: integer registers (read by ITOFx, written by FTOIx; same rule for
///   `r[31]`).
/// - `fpcr`: the FPCR, updated in place (status bits, MT_FPCR).
/// - `ieee_ctl`: the process's Linux IEEE software control word (trap
///   enables `IEEE_TRAP_ENABLE_*`, `IEEE_MAP_DMZ`, `IEEE_MAP_UMZ`); only
///   read for `/S` instructions.
///
/// On `Err(FpTrap::Arith{..})` the destination holds the value the Linux
/// kernel leaves there (the completed result with `/S`; the hardware
/// result without, or unchanged when an operand trapped).
///
/// IEEE S/T operates first try the host fast path ([`host`]: host `f32`/
/// `f64` with error-free exactness checks) and fall back to the
/// `rustc_apfloat` reference path for every case it cannot prove; the
/// outcome is the same bit for bit as [`execute_reference`].
#[inline]
pub fn execute(
    insn: &Insn,
    f: &mut [u64; 32],
    r: &mut [u64; 32],
    fpcr: &mut u64,
    ieee_ctl: u64,
) -> Result<(), FpTrap> {
    execute_on(Path::Host, insn, f, r, fpcr, ieee_ctl)
}

/// [`execute`] with every IEEE value computed by the reference path
/// (`rustc_apfloat` and exact integer arithmetic) alone: the definition the
/// host fast path is tested against.
pub fn execute_reference(
    insn: &Insn,
    f: &mut [u64; 32],
    r: &mut [u64; 32],
    fpcr: &mut u64,
    ieee_ctl: u64,
) -> Result<(), FpTrap> {
    execute_on(Path::Reference, insn, f, r, fpcr, ieee_ctl)
}

/// Which implementation computes IEEE values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    /// The host fast path where it applies, else the reference.
    Host,
    /// The reference path only.
    Reference,
}

#[inline(always)]
fn execute_on(
    path: Path,
    insn: &Insn,
    f: &mut [u64; 32],
    r: &mut [u64; 32],
    fpcr: &mut u64,
    ieee_ctl: u64,
) -> Result<(), FpTrap> {
    use Op::*;
    let fa = get(f, insn.ra);
    let fb = get(f, insn.rb);
    match insn.op {
        // Datatype-independent operations (opcode 0x17, Handbook §4.10.x):
        // no exceptions, no operand checks.
        Cpys => put(f, insn.rc, (fa & SIGN) | (fb & !SIGN)),
        Cpysn => put(f, insn.rc, (!fa & SIGN) | (fb & !SIGN)),
        Cpyse => put(f, insn.rc, (fa & EXP_SIGN) | (fb & !EXP_SIGN)),
        MtFpcr => *fpcr = fpcr::mt_fpcr(fa),
        MfFpcr => put(f, insn.ra, *fpcr),
        Fcmoveq | Fcmovne | Fcmovlt | Fcmovge | Fcmovle | Fcmovgt => {
            let cond = FCond::of(insn.op).ok_or(FpTrap::NotFloatingPoint(insn.op))?;
            if cond.holds(fa) {
                put(f, insn.rc, fb);
            }
        }
        Cvtlq => {
            let l = ((fb >> 32) & 0xc000_0000) | ((fb >> 29) & 0x3fff_ffff);
            put(f, insn.rc, sext32(l as u32));
        }
        Cvtql => return cvtql(insn, fb, f, fpcr, ieee_ctl),
        // Integer ↔ floating register moves (FIX, Handbook §4.10.x): raw bits.
        Itofs => put(f, insn.rc, lds_to_reg(get(r, insn.ra) as u32)),
        Itoff => put(f, insn.rc, ldf_to_reg(get(r, insn.ra) as u32)),
        Itoft => put(f, insn.rc, get(r, insn.ra)),
        Ftoit => put(r, insn.rc, fa),
        Ftois => put(r, insn.rc, sext32(sts_from_reg(fa))),
        Adds | Subs | Muls | Divs | Addt | Subt | Mult | Divt | Cmptun | Cmpteq | Cmptlt
        | Cmptle | Cvtts | Cvttq | Cvtqs | Cvtqt | Cvtst | Sqrts | Sqrtt => {
            return ieee_operate(path, insn, fa, fb, f, fpcr, ieee_ctl)
        }
        Sqrtf | Sqrtg | Addf | Subf | Mulf | Divf | Cvtdg | Addg | Subg | Mulg | Divg | Cmpgeq
        | Cmpglt | Cmpgle | Cvtgf | Cvtgd | Cvtgq | Cvtqf | Cvtqg => {
            return vax_operate(insn, fa, fb, f, fpcr)
        }
        other => return Err(FpTrap::NotFloatingPoint(other)),
    }
    Ok(())
}

const SIGN: u64 = 1 << 63;
const EXP_SIGN: u64 = 0xfff0_0000_0000_0000;

/// CVTQL: a quadword to the longword-in-register layout (Handbook §4.10,
/// CVTQL): bits <31:30> go to <63:62>, <29:0> to <58:29>. Integer overflow
/// (the value does not fit 32 bits) is raised, trapping with `/V`.
fn cvtql(
    insn: &Insn,
    fb: u64,
    f: &mut [u64; 32],
    fpcr: &mut u64,
    ieee_ctl: u64,
) -> Result<(), FpTrap> {
    let q = Qual::of(insn.op, insn.func);
    let value = ((fb & 0xc000_0000) << 32) | ((fb & 0x3fff_ffff) << 29);
    let exc = if fb as i64 != i64::from(fb as i32) {
        Exc::IOV | Exc::INE
    } else {
        Exc::NONE
    };
    complete(q, exc, value, value, f, insn.rc, fpcr, ieee_ctl)
}

/// Operand format of an IEEE operate.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    S,
    T,
    Q,
}

/// The IEEE operates of opcodes 0x16 and 0x14 (SQRTS/SQRTT).
fn ieee_operate(
    path: Path,
    insn: &Insn,
    fa: u64,
    fb: u64,
    f: &mut [u64; 32],
    fpcr: &mut u64,
    ieee_ctl: u64,
) -> Result<(), FpTrap> {
    use Op::*;
    let q = Qual::of(insn.op, insn.func);
    let (src, uses_fa, compare) = match insn.op {
        Adds | Subs | Muls | Divs => (Src::S, true, false),
        Addt | Subt | Mult | Divt => (Src::T, true, false),
        Cmptun | Cmpteq | Cmptlt | Cmptle => (Src::T, true, true),
        Sqrts | Cvtst => (Src::S, false, false),
        Sqrtt | Cvtts | Cvttq => (Src::T, false, false),
        _ => (Src::Q, false, false),
    };
    // Operands in their format's bits.
    let bits = |reg: u64| -> u128 {
        match src {
            Src::S => u128::from(sts_from_reg(reg)),
            _ => u128::from(reg),
        }
    };
    let mut a = bits(fa);
    let mut b = bits(fb);
    if src != Src::Q {
        type Class = fn(u128) -> bool;
        let (nonfinite, denormal, is_nan): (Class, Class, Class) = match src {
            Src::S => (
                Single::is_nonfinite_bits,
                Single::is_denormal_bits,
                Single::is_nan_bits,
            ),
            _ => (
                Double::is_nonfinite_bits,
                Double::is_denormal_bits,
                Double::is_nan_bits,
            ),
        };
        let operands: &mut [&mut u128] = if uses_fa {
            &mut [&mut a, &mut b]
        } else {
            &mut [&mut b]
        };
        if !q.software {
            // Without /S the hardware traps on non-finite operands
            // (comparisons accept infinities): invalid operation, before
            // anything is written (Handbook §4.7.7, Appendix B.1).
            let bad = operands
                .iter()
                .any(|x| denormal(**x) || if compare { is_nan(**x) } else { nonfinite(**x) });
            if bad {
                *fpcr = fpcr::record(*fpcr, Exc::INV);
                return Err(FpTrap::Arith {
                    exc: Exc::INV,
                    software_completion: false,
                    si_code: fpcr::FPE_FLTINV,
                });
            }
        } else if *fpcr & fpcr::FPCR_DNZ != 0 || ieee_ctl & fpcr::IEEE_MAP_DMZ != 0 {
            // Denormal operands to (signed) zero.
            for x in operands.iter_mut() {
                if denormal(**x) {
                    let sign = match src {
                        Src::S => Single::sign_bit(),
                        _ => Double::sign_bit(),
                    };
                    **x &= sign;
                }
            }
        }
    }
    let rounding = q.rounding(*fpcr);
    let fast = match path {
        Path::Host => host_value(insn.op, a as u64, b as u64, rounding),
        Path::Reference => None,
    };
    let (value, exc) = match fast {
        Some(v) => v,
        None => reference_value(insn.op, a, b, rounding)?,
    };
    // Underflow: the hardware without /U delivers a true zero; the kernel's
    // completion delivers the IEEE denormal unless IEEE_MAP_UMZ.
    let (hw_value, kernel_value) = if exc.intersects(Exc::UNF) {
        let kernel = if ieee_ctl & fpcr::IEEE_MAP_UMZ != 0 {
            0
        } else {
            value
        };
        (if q.u_or_v { value } else { 0 }, kernel)
    } else {
        (value, value)
    };
    complete(q, exc, hw_value, kernel_value, f, insn.rc, fpcr, ieee_ctl)
}

/// An IEEE operate's value and exceptions by the reference path, from its
/// operands in their format's bits (S bits for S sources).
fn reference_value(op: Op, a: u128, b: u128, rounding: Rounding) -> Result<(u64, Exc), FpTrap> {
    use Op::*;
    let src_s = matches!(op, Adds | Subs | Muls | Divs);
    let rnd = ieee::round_of(rounding);
    let arith = |op: Arith| -> (u64, Exc) {
        if src_s {
            let (v, e) = ieee::arith::<Single>(op, a, b, rnd);
            (lds_to_reg(v as u32), e)
        } else {
            let (v, e) = ieee::arith::<Double>(op, a, b, rnd);
            (v as u64, e)
        }
    };
    Ok(match op {
        Adds | Addt => arith(Arith::Add),
        Subs | Subt => arith(Arith::Sub),
        Muls | Mult => arith(Arith::Mul),
        Divs | Divt => arith(Arith::Div),
        Cmptun => ieee::cmp_t(Cmp::Un, a as u64, b as u64),
        Cmpteq => ieee::cmp_t(Cmp::Eq, a as u64, b as u64),
        Cmptlt => ieee::cmp_t(Cmp::Lt, a as u64, b as u64),
        Cmptle => ieee::cmp_t(Cmp::Le, a as u64, b as u64),
        Sqrts => {
            let (v, e) = ieee::sqrt::<Single>(b, rnd);
            (lds_to_reg(v as u32), e)
        }
        Sqrtt => {
            let (v, e) = ieee::sqrt::<Double>(b, rnd);
            (v as u64, e)
        }
        Cvtts => {
            let (v, e) = ieee::cvt_ts(b as u64, rnd);
            (lds_to_reg(v), e)
        }
        Cvtst => ieee::cvt_st(b as u32),
        Cvttq => ieee::cvt_tq(b as u64, rounding),
        Cvtqs => {
            let (v, e) = ieee::cvt_q::<Single>(b as u64, rnd);
            (lds_to_reg(v as u32), e)
        }
        Cvtqt => {
            let (v, e) = ieee::cvt_q::<Double>(b as u64, rnd);
            (v as u64, e)
        }
        other => return Err(FpTrap::NotFloatingPoint(other)),
    })
}

/// An IEEE operate's value and exceptions by the host fast path, or `None`
/// where it cannot prove them (the reference path then decides).
#[inline(always)]
fn host_value(op: Op, a: u64, b: u64, rounding: Rounding) -> Option<(u64, Exc)> {
    use ieee::Arith::*;
    use Op::*;
    let s = |r: Option<(u32, Exc)>| r.map(|(v, e)| (lds_to_reg(v), e));
    match op {
        Addt => host::arith_t(Add, a, b, rounding),
        Subt => host::arith_t(Sub, a, b, rounding),
        Mult => host::arith_t(Mul, a, b, rounding),
        Divt => host::arith_t(Div, a, b, rounding),
        Adds => s(host::arith_s(Add, a as u32, b as u32, rounding)),
        Subs => s(host::arith_s(Sub, a as u32, b as u32, rounding)),
        Muls => s(host::arith_s(Mul, a as u32, b as u32, rounding)),
        Divs => s(host::arith_s(Div, a as u32, b as u32, rounding)),
        Sqrtt => host::sqrt_t(b, rounding),
        Sqrts => s(host::sqrt_s(b as u32, rounding)),
        Cvtts => s(host::cvt_ts(b, rounding)),
        Cvtst => host::cvt_st(b as u32),
        Cvtqt => host::cvt_qt(b, rounding),
        Cvtqs => s(host::cvt_qs(b, rounding)),
        Cvttq => host::cvt_tq(b, rounding),
        _ => None,
    }
}

/// Record `exc`, decide whether the hardware traps and what the Linux
/// kernel then does, and write the destination.
#[allow(clippy::too_many_arguments)]
fn complete(
    q: Qual,
    exc: Exc,
    hw_value: u64,
    kernel_value: u64,
    f: &mut [u64; 32],
    rc: u8,
    fpcr: &mut u64,
    ieee_ctl: u64,
) -> Result<(), FpTrap> {
    let mut enabled = Exc::INV | Exc::DZE | Exc::OVF;
    if q.u_or_v {
        enabled |= Exc::UNF | Exc::IOV;
    }
    if q.inexact {
        enabled |= Exc::INE;
    }
    let hw = exc & enabled;
    // The hardware detects (and records in the FPCR) only the exceptions
    // its qualifiers enable: GCC documents that inexact is maintained only
    // with /I (-mieee-with-inexact), and underflow only with /U.
    *fpcr = fpcr::record(*fpcr, hw);
    if hw.is_empty() {
        put(f, rc, hw_value);
        return Ok(());
    }
    if !q.software {
        put(f, rc, hw_value);
        return Err(FpTrap::Arith {
            exc: hw,
            software_completion: false,
            si_code: fpcr::FPE_FLTINV,
        });
    }
    // Software completion (alpha_fp_emul): IEEE result, status recorded
    // as soft-fp reports it (all of them, inexact included), signal only
    // for exceptions enabled in the IEEE control word.
    put(f, rc, kernel_value);
    // soft-fp reports an out-of-range conversion (CVTTQ, CVTQL) as invalid
    // operation alone, without inexact (FP_TO_INT_ROUND / math.c CVTQL).
    let kexc = if exc.intersects(Exc::IOV) {
        Exc::INV
    } else {
        exc.as_kernel()
    };
    *fpcr = fpcr::record(*fpcr, kexc);
    let signal =
        Exc(((kexc.swcr_enable_bits() & ieee_ctl & fpcr::IEEE_TRAP_ENABLE_MASK) >> 1) as u8);
    if signal.is_empty() {
        Ok(())
    } else {
        Err(FpTrap::Arith {
            exc: signal,
            software_completion: true,
            si_code: signal.si_code(),
        })
    }
}

/// The VAX operates (opcode 0x15 and SQRTF/SQRTG of 0x14).
///
/// Qualifiers: fn11 bit 7 clear is `/C` (chopped), set is VAX rounding;
/// bit 8 is `/U` (`/V` for CVTGQ); `/S` changes nothing because Linux does
/// not complete VAX instructions. Overflow, division by zero and invalid
/// operands trap with the destination unchanged; underflow writes a true
/// zero and traps with `/U`; CVTGQ overflow writes the low bits and traps
/// with `/V`.
fn vax_operate(
    insn: &Insn,
    fa: u64,
    fb: u64,
    f: &mut [u64; 32],
    fpcr: &mut u64,
) -> Result<(), FpTrap> {
    let chopped = insn.func & 0x80 == 0;
    let u_or_v = insn.func & 0x100 != 0;
    let trap = |fpcr: &mut u64, exc: Exc| -> FpTrap {
        *fpcr = fpcr::record(*fpcr, exc);
        FpTrap::Arith {
            exc,
            software_completion: false,
            si_code: fpcr::FPE_FLTINV,
        }
    };
    match vax_value(insn.op, fa, fb, chopped) {
        Err(vax::VaxErr::Trap(exc)) => Err(trap(fpcr, exc & (Exc::INV | Exc::DZE | Exc::OVF))),
        Ok((value, exc)) => {
            let enabled = if u_or_v {
                Exc::UNF | Exc::IOV
            } else {
                Exc::NONE
            };
            let hw = exc & enabled;
            put(f, insn.rc, value);
            if hw.is_empty() {
                Ok(())
            } else {
                Err(trap(fpcr, hw))
            }
        }
    }
}

fn vax_value(op: Op, fa: u64, fb: u64, chopped: bool) -> Result<(u64, Exc), vax::VaxErr> {
    use vax::{VFmt, VOp};
    use Op::*;
    let g = |x: u64| vax::unpack(x, VFmt::G);
    Ok(match op {
        Addf | Subf | Mulf | Divf | Addg | Subg | Mulg | Divg => {
            let vop = match op {
                Addf | Addg => VOp::Add,
                Subf | Subg => VOp::Sub,
                Mulf | Mulg => VOp::Mul,
                _ => VOp::Div,
            };
            let fmt = if matches!(op, Addf | Subf | Mulf | Divf) {
                VFmt::F
            } else {
                VFmt::G
            };
            let (a, b) = (g(fa)?, g(fb)?);
            vax::pack(vax::arith(vop, a, b)?, fmt, chopped)?
        }
        Sqrtf => vax::pack(vax::sqrt(g(fb)?)?, VFmt::F, chopped)?,
        Sqrtg => vax::pack(vax::sqrt(g(fb)?)?, VFmt::G, chopped)?,
        Cmpgeq | Cmpglt | Cmpgle => {
            use std::cmp::Ordering::*;
            let ord = vax::compare(g(fa)?, g(fb)?);
            let t = match op {
                Cmpgeq => ord == Equal,
                Cmpglt => ord == Less,
                _ => ord != Greater,
            };
            // True is 0.5 in G_floating: the same bits as IEEE 2.0.
            (if t { 0x4000_0000_0000_0000 } else { 0 }, Exc::NONE)
        }
        Cvtdg => vax::pack(vax::unpack(fb, VFmt::D)?, VFmt::G, chopped)?,
        Cvtgf => vax::pack(g(fb)?, VFmt::F, chopped)?,
        Cvtgd => vax::pack(g(fb)?, VFmt::D, chopped)?,
        Cvtgq => vax::to_q(g(fb)?, chopped),
        Cvtqf => vax::pack(vax::from_q(fb), VFmt::F, chopped)?,
        _ => vax::pack(vax::from_q(fb), VFmt::G, chopped)?, // CVTQG
    })
}
