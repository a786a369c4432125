//! VAX F_floating, G_floating (and D_floating for CVTDG/CVTGD) arithmetic
//! of opcode 0x15 and SQRTF/SQRTG, done exactly in integer arithmetic.
//!
//! Register images (Handbook §2.2.5, §4.8 LDF/LDG): F and G share one value
//! formula, `(-1)^s × 0.1f × 2^(e - 1024)` = `(-1)^s × 1.f × 2^(e - 1025)`
//! with the 11-bit exponent `e` in <62:52> (F's 8-bit exponent widened by
//! LDF) and the fraction in <51:0> (F uses only <51:29>). D keeps its 8-bit
//! exponent in <62:55> and a 55-bit fraction in <54:0>.
//!
//! Exponent 0 with sign 0 and fraction 0 is the true zero; exponent 0
//! otherwise is a reserved operand (sign 1) or a dirty zero (sign 0): both
//! are non-finite and trap as invalid operation (Handbook §4.7.5 glossary:
//! "for VAX floating-point, finites do not include reserved operands or
//! dirty zeros"). There are no infinities, NaNs or denormals.
//!
//! Rounding (fn11 bit 7): set is VAX rounding — to nearest, ties away from
//! zero ("biased"); clear is `/C`, chopped. Overflow and division by zero
//! always trap; underflow gives a true zero and traps only with `/U`.
//! The Linux kernel does not complete VAX instructions, so a trap is always
//! a plain SIGFPE.

use super::fpcr::Exc;

/// Target formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VFmt {
    F,
    G,
    D,
}

impl VFmt {
    /// Significand bits including the hidden one.
    fn precision(self) -> u32 {
        match self {
            VFmt::F => 24,
            VFmt::G => 53,
            VFmt::D => 56,
        }
    }
    /// Bias such that value = 1.f × 2^(e - bias) for the register exponent.
    fn bias(self) -> i32 {
        match self {
            VFmt::F | VFmt::G => 1025,
            VFmt::D => 129,
        }
    }
    /// Range of the register exponent field.
    fn exp_range(self) -> (i32, i32) {
        match self {
            VFmt::F => (1 + 896, 255 + 896),
            VFmt::G => (1, 2047),
            VFmt::D => (1, 255),
        }
    }
}

/// An exact finite value: `(-1)^neg × mag × 2^exp`, plus a sticky bit for
/// nonzero bits below `mag`'s last one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exact {
    neg: bool,
    mag: u128,
    exp: i32,
    sticky: bool,
}

/// Why an operand or result is not a plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VaxErr {
    /// Trap with these exceptions, destination unchanged.
    Trap(Exc),
}

/// Decode a register image in format `fmt`: `Ok(None)` is true zero.
pub(crate) fn unpack(bits: u64, fmt: VFmt) -> Result<Option<Exact>, VaxErr> {
    let neg = bits >> 63 == 1;
    let (e, frac, fbits) = match fmt {
        VFmt::F | VFmt::G => (((bits >> 52) & 0x7ff) as i32, bits & ((1 << 52) - 1), 52),
        VFmt::D => (((bits >> 55) & 0xff) as i32, bits & ((1 << 55) - 1), 55),
    };
    if e == 0 {
        return if !neg && frac == 0 {
            Ok(None)
        } else {
            Err(VaxErr::Trap(Exc::INV))
        };
    }
    let mag = u128::from(frac | (1 << fbits));
    Ok(Some(Exact {
        neg,
        mag,
        exp: e - fmt.bias() - fbits,
        sticky: false,
    }))
}

/// Round `x` to `fmt` and pack it; underflow gives true zero with UNF.
pub(crate) fn pack(x: Option<Exact>, fmt: VFmt, chopped: bool) -> Result<(u64, Exc), VaxErr> {
    let Some(x) = x else {
        return Ok((0, Exc::NONE));
    };
    if x.mag == 0 {
        return Ok((
            0,
            if x.sticky {
                Exc::UNF | Exc::INE
            } else {
                Exc::NONE
            },
        ));
    }
    let p = fmt.precision();
    let n = 128 - x.mag.leading_zeros();
    let (mut mant, mut e2, inexact) = if n > p {
        let shift = n - p;
        let keep = x.mag >> shift;
        let rem = x.mag & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = !chopped && rem >= half;
        (
            keep + u128::from(up),
            x.exp + shift as i32,
            rem != 0 || x.sticky,
        )
    } else {
        (x.mag << (p - n), x.exp - (p - n) as i32, x.sticky)
    };
    if mant >> p != 0 {
        mant >>= 1;
        e2 += 1;
    }
    // value = mant × 2^e2 = 1.f × 2^(e2 + p - 1)
    let e = e2 + p as i32 - 1 + fmt.bias();
    let (lo, hi) = fmt.exp_range();
    let ine = if inexact { Exc::INE } else { Exc::NONE };
    if e > hi {
        return Err(VaxErr::Trap(Exc::OVF | ine));
    }
    if e < lo {
        return Ok((0, Exc::UNF | Exc::INE));
    }
    let sign = u64::from(x.neg) << 63;
    let frac = (mant & ((1u128 << (p - 1)) - 1)) as u64;
    let bits = match fmt {
        VFmt::F => sign | ((e as u64) << 52) | (frac << 29),
        VFmt::G => sign | ((e as u64) << 52) | frac,
        VFmt::D => sign | ((e as u64) << 55) | frac,
    };
    Ok((bits, ine))
}

/// The four basic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Exact `a OP b` (with sticky for division); `Ok(None)` is zero.
pub(crate) fn arith(op: VOp, a: Option<Exact>, b: Option<Exact>) -> Result<Option<Exact>, VaxErr> {
    match op {
        VOp::Add | VOp::Sub => {
            let b = b.map(|b| Exact {
                neg: b.neg ^ (op == VOp::Sub),
                ..b
            });
            Ok(add(a, b))
        }
        VOp::Mul => Ok(match (a, b) {
            (Some(a), Some(b)) => Some(Exact {
                neg: a.neg ^ b.neg,
                mag: a.mag * b.mag,
                exp: a.exp + b.exp,
                sticky: false,
            }),
            _ => None,
        }),
        VOp::Div => match (a, b) {
            (_, None) => Err(VaxErr::Trap(Exc::DZE)),
            (None, Some(_)) => Ok(None),
            (Some(a), Some(b)) => {
                const S: u32 = 70;
                let num = a.mag << S;
                let quotient = num / b.mag;
                Ok(Some(Exact {
                    neg: a.neg ^ b.neg,
                    mag: quotient,
                    exp: a.exp - b.exp - S as i32,
                    sticky: quotient * b.mag != num,
                }))
            }
        },
    }
}

fn add(a: Option<Exact>, b: Option<Exact>) -> Option<Exact> {
    let (a, b) = match (a, b) {
        (None, x) | (x, None) => return x,
        (Some(a), Some(b)) => (a, b),
    };
    // Put both on a common exponent: the operand with the larger exponent
    // is shifted left by up to 62 bits; the other is aligned to it, with
    // bits shifted out folded into a sticky bit. 62 guard bits are plenty
    // for 56-bit significands.
    let (hi, lo) = if a.exp >= b.exp { (a, b) } else { (b, a) };
    const G: i32 = 62;
    let base = hi.exp - G;
    let hmag = hi.mag << G;
    let d = lo.exp - base; // may be negative: shift lo right
    let (lmag, sticky) = if d >= 0 {
        (lo.mag << d, false)
    } else if -d >= 127 {
        (0, lo.mag != 0)
    } else {
        let s = (-d) as u32;
        (lo.mag >> s, lo.mag & ((1u128 << s) - 1) != 0)
    };
    if hi.neg == lo.neg {
        return Some(Exact {
            neg: hi.neg,
            mag: hmag + lmag,
            exp: base,
            sticky,
        });
    }
    // Subtraction of magnitudes. With a sticky low part the true low value
    // is slightly more than lmag: take one more unit away and keep sticky.
    let lmag_eff = lmag + u128::from(sticky);
    let (neg, mag) = if hmag >= lmag_eff {
        (hi.neg, hmag - lmag_eff)
    } else {
        (lo.neg, lmag_eff - hmag)
    };
    if mag == 0 && !sticky {
        return None;
    }
    Some(Exact {
        neg,
        mag,
        exp: base,
        sticky,
    })
}

/// Exact square root with sticky; negative operands trap.
pub(crate) fn sqrt(b: Option<Exact>) -> Result<Option<Exact>, VaxErr> {
    let Some(b) = b else { return Ok(None) };
    if b.neg {
        return Err(VaxErr::Trap(Exc::INV));
    }
    let (mut m, mut q) = (b.mag, b.exp);
    if q % 2 != 0 {
        m <<= 1;
        q -= 1;
    }
    let have = 128 - m.leading_zeros();
    let mut k = 120u32.saturating_sub(have);
    if k % 2 != 0 {
        k -= 1;
    }
    let big = m << k;
    let root = super::ieee::isqrt(big);
    Ok(Some(Exact {
        neg: false,
        mag: root,
        exp: (q - k as i32) / 2,
        sticky: root * root != big,
    }))
}

/// A signed quadword as an exact value.
pub(crate) fn from_q(q: u64) -> Option<Exact> {
    let v = q as i64;
    if v == 0 {
        return None;
    }
    Some(Exact {
        neg: v < 0,
        mag: u128::from(v.unsigned_abs()),
        exp: 0,
        sticky: false,
    })
}

/// CVTGQ: to a quadword, chopped or VAX-rounded; out of range gives the
/// low 64 bits and integer overflow.
pub(crate) fn to_q(x: Option<Exact>, chopped: bool) -> (u64, Exc) {
    let Some(x) = x else { return (0, Exc::NONE) };
    let (int, inexact, huge) = if x.exp >= 0 {
        let s = x.exp as u32;
        let huge = s + (128 - x.mag.leading_zeros()) > 64;
        (if s >= 128 { 0 } else { x.mag << s }, false, huge)
    } else {
        let s = (-x.exp) as u32;
        if s >= 127 {
            (0, true, false)
        } else {
            let keep = x.mag >> s;
            let rem = x.mag & ((1u128 << s) - 1);
            let up = !chopped && rem >= 1u128 << (s - 1);
            (keep + u128::from(up), rem != 0, false)
        }
    };
    let limit = 1u128 << 63;
    let overflow = huge || int > limit || (int == limit && !x.neg);
    let mut exc = if inexact { Exc::INE } else { Exc::NONE };
    if overflow {
        exc |= Exc::IOV | Exc::INE;
    }
    let low = int as u64;
    (if x.neg { low.wrapping_neg() } else { low }, exc)
}

/// CMPGxx ordering of two register images (already checked finite).
pub(crate) fn compare(a: Option<Exact>, b: Option<Exact>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let key = |x: Option<Exact>| -> (i8, i32, u128) {
        match x {
            None => (0, 0, 0),
            Some(x) => {
                let n = 128 - x.mag.leading_zeros();
                let top = x.exp + n as i32;
                let norm = x.mag << (128 - n);
                if x.neg {
                    (-1, -top, !norm)
                } else {
                    (1, top, norm)
                }
            }
        }
    };
    let (ka, kb) = (key(a), key(b));
    match ka.0.cmp(&kb.0) {
        Ordering::Equal => (ka.1, ka.2).cmp(&(kb.1, kb.2)),
        o => o,
    }
}
