//! IEEE S (binary32) and T (binary64) arithmetic on raw format bits, with
//! exact rounding in all four modes and the IEEE exception flags.
//!
//! Add, subtract, multiply, divide and format conversions use
//! `rustc_apfloat` (the Rust port of LLVM's APFloat: exact IEEE arithmetic
//! with rounding modes and status flags). Square root, CVTTQ and
//! comparisons are done here in integer arithmetic, which is exact.
//!
//! NaN results follow the Alpha rules, not APFloat's (Handbook §4.7.10.3
//! and §4.7.10.4): a NaN Fb operand wins (quieted), then a NaN Fa operand
//! (quieted); an invalid operation on non-NaN operands gives the canonical
//! quiet NaN, which has its sign bit set.
//!
//! Values travel as `u128` holding the format's bits (32 for S, 64 for T),
//! the representation `rustc_apfloat::Float::{from_bits,to_bits}` uses.

use super::fpcr::Exc;
use super::qual::Rounding;
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status, StatusAnd};

pub(crate) fn round_of(r: Rounding) -> Round {
    match r {
        Rounding::Chopped => Round::TowardZero,
        Rounding::Minus => Round::TowardNegative,
        Rounding::Normal => Round::NearestTiesToEven,
        Rounding::Plus => Round::TowardPositive,
    }
}

fn exc_of(s: Status) -> Exc {
    let mut e = Exc::NONE;
    if s.contains(Status::INVALID_OP) {
        e |= Exc::INV;
    }
    if s.contains(Status::DIV_BY_ZERO) {
        e |= Exc::DZE;
    }
    if s.contains(Status::OVERFLOW) {
        e |= Exc::OVF;
    }
    if s.contains(Status::UNDERFLOW) {
        e |= Exc::UNF;
    }
    if s.contains(Status::INEXACT) {
        e |= Exc::INE;
    }
    e
}

/// Field geometry of an IEEE format.
pub(crate) trait Geometry: Float {
    fn frac_bits() -> u32 {
        Self::PRECISION as u32 - 1
    }
    fn exp_bits() -> u32 {
        Self::BITS as u32 - Self::PRECISION as u32
    }
    fn frac_mask() -> u128 {
        (1u128 << Self::frac_bits()) - 1
    }
    fn exp_mask() -> u128 {
        ((1u128 << Self::exp_bits()) - 1) << Self::frac_bits()
    }
    fn sign_bit() -> u128 {
        1u128 << (Self::BITS - 1)
    }
    fn quiet_bit() -> u128 {
        1u128 << (Self::frac_bits() - 1)
    }
    fn bias() -> i32 {
        (1 << (Self::exp_bits() - 1)) - 1
    }
    /// The canonical quiet NaN: sign set, exponent all ones, only the
    /// quiet bit of the fraction (Handbook §4.7.10.3).
    fn canonical_nan() -> u128 {
        Self::sign_bit() | Self::exp_mask() | Self::quiet_bit()
    }
    fn is_nan_bits(x: u128) -> bool {
        x & Self::exp_mask() == Self::exp_mask() && x & Self::frac_mask() != 0
    }
    fn is_snan_bits(x: u128) -> bool {
        Self::is_nan_bits(x) && x & Self::quiet_bit() == 0
    }
    /// Exponent all ones: infinity or NaN.
    fn is_nonfinite_bits(x: u128) -> bool {
        x & Self::exp_mask() == Self::exp_mask()
    }
    fn is_denormal_bits(x: u128) -> bool {
        x & Self::exp_mask() == 0 && x & Self::frac_mask() != 0
    }
}

impl Geometry for Single {}
impl Geometry for Double {}

/// Alpha NaN propagation (Handbook §4.7.10.4). `None` when no operand is a
/// NaN. Any signaling NaN operand raises invalid operation.
fn propagate<F: Geometry>(fa: Option<u128>, fb: u128) -> Option<(u128, Exc)> {
    let snan = F::is_snan_bits(fb) || fa.is_some_and(F::is_snan_bits);
    let inv = if snan { Exc::INV } else { Exc::NONE };
    if F::is_nan_bits(fb) {
        return Some((fb | F::quiet_bit(), inv));
    }
    match fa {
        Some(a) if F::is_nan_bits(a) => Some((a | F::quiet_bit(), inv)),
        _ => None,
    }
}

fn finish<F: Geometry>(r: StatusAnd<F>) -> (u128, Exc) {
    if r.value.is_nan() {
        (F::canonical_nan(), exc_of(r.status) | Exc::INV)
    } else {
        (r.value.to_bits(), exc_of(r.status))
    }
}

/// The four basic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// `a OP b` in format `F`, rounded by `rnd`.
pub(crate) fn arith<F: Geometry>(op: Arith, a: u128, b: u128, rnd: Round) -> (u128, Exc) {
    if let Some(r) = propagate::<F>(Some(a), b) {
        return r;
    }
    let (x, y) = (F::from_bits(a), F::from_bits(b));
    finish(match op {
        Arith::Add => x.add_r(y, rnd),
        Arith::Sub => x.sub_r(y, rnd),
        Arith::Mul => x.mul_r(y, rnd),
        Arith::Div => x.div_r(y, rnd),
    })
}

/// Integer square root of `n` (floor) by the bit-by-bit method.
pub(crate) fn isqrt(n: u128) -> u128 {
    let mut rem = n;
    let mut root: u128 = 0;
    let mut bit: u128 = 1 << 126;
    while bit > rem {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root
}

/// Correctly rounded square root of `b` in format `F`.
///
/// For a positive finite `b = m * 2^q` (integer significand `m`), the root
/// is computed as an integer square root of `m` scaled to at least
/// `2 * PRECISION + 4` bits, so the integer root has at least
/// `PRECISION + 2` bits; a sticky bit records a nonzero remainder. One
/// rounding of that integer (with sticky) to `PRECISION` bits is the
/// correctly rounded result; the final power-of-two scaling is exact because
/// square roots of finite nonzero values are always normal.
pub(crate) fn sqrt<F: Geometry>(b: u128, rnd: Round) -> (u128, Exc) {
    if let Some(r) = propagate::<F>(None, b) {
        return r;
    }
    let negative = b & F::sign_bit() != 0;
    let mag = b & !F::sign_bit();
    if mag == 0 {
        return (b, Exc::NONE); // sqrt(±0) = ±0
    }
    if negative {
        return (F::canonical_nan(), Exc::INV);
    }
    if F::is_nonfinite_bits(b) {
        return (b, Exc::NONE); // +infinity
    }
    let e = ((b & F::exp_mask()) >> F::frac_bits()) as i32;
    let f = b & F::frac_mask();
    let (mut m, mut q) = if e == 0 {
        (f, 1 - F::bias() - F::frac_bits() as i32)
    } else {
        (
            f | (1u128 << F::frac_bits()),
            e - F::bias() - F::frac_bits() as i32,
        )
    };
    if q % 2 != 0 {
        m <<= 1;
        q -= 1;
    }
    let want = 2 * F::PRECISION as u32 + 4;
    let have = 128 - m.leading_zeros();
    let mut k = want.saturating_sub(have);
    if k % 2 != 0 {
        k += 1;
    }
    let big = m << k;
    let root = isqrt(big);
    let sticky = u128::from(root * root != big);
    let scaled = F::from_u128_r((root << 1) | sticky, rnd);
    let exp = (q - k as i32) / 2 - 1;
    let value = scaled.value.scalbn_r(exp as rustc_apfloat::ExpInt, rnd);
    (value.to_bits(), exc_of(scaled.status))
}

/// CVTTS: T bits to S bits, rounded by `rnd`.
pub(crate) fn cvt_ts(a: u64, rnd: Round) -> (u32, Exc) {
    let a128 = u128::from(a);
    if Double::is_nan_bits(a128) {
        let inv = if Double::is_snan_bits(a128) {
            Exc::INV
        } else {
            Exc::NONE
        };
        let sign = ((a >> 63) as u32) << 31;
        let frac = ((a >> 29) as u32) & 0x7f_ffff;
        return (sign | 0x7f80_0000 | 0x40_0000 | frac, inv);
    }
    let mut loses = false;
    let r: StatusAnd<Single> = Double::from_bits(a128).convert_r(rnd, &mut loses);
    (r.value.to_bits() as u32, exc_of(r.status))
}

/// CVTST: S bits to T bits (exact; a signaling NaN is quieted).
pub(crate) fn cvt_st(a: u32) -> (u64, Exc) {
    let a128 = u128::from(a);
    if Single::is_nan_bits(a128) {
        let inv = if Single::is_snan_bits(a128) {
            Exc::INV
        } else {
            Exc::NONE
        };
        let sign = u64::from(a >> 31) << 63;
        let frac = u64::from(a & 0x7f_ffff) << 29;
        return (sign | 0x7ff0_0000_0000_0000 | (1 << 51) | frac, inv);
    }
    let mut loses = false;
    let r: StatusAnd<Double> =
        Single::from_bits(a128).convert_r(Round::NearestTiesToEven, &mut loses);
    (r.value.to_bits() as u64, exc_of(r.status))
}

/// CVTQS / CVTQT: a signed quadword to format `F`, rounded by `rnd`.
pub(crate) fn cvt_q<F: Geometry>(q: u64, rnd: Round) -> (u128, Exc) {
    finish(F::from_i128_r(i128::from(q as i64), rnd))
}

/// CVTTQ: T bits to a quadword, rounded by `rnd`.
///
/// Out-of-range values give the low 64 bits of the rounded integer with
/// integer overflow and inexact raised (Handbook Table B-3, "Cvt to
/// int(ovfl): low-order bits"; the compiler relies on this for unsigned
/// conversions). Infinities and NaNs give 0; invalid operation is raised
/// except for a quiet NaN (Table B-2, as the Linux kernel's completion does).
pub(crate) fn cvt_tq(a: u64, rnd: Rounding) -> (u64, Exc) {
    let a128 = u128::from(a);
    if Double::is_nonfinite_bits(a128) {
        let quiet = Double::is_nan_bits(a128) && !Double::is_snan_bits(a128);
        return (0, if quiet { Exc::NONE } else { Exc::INV });
    }
    let sign = a >> 63 == 1;
    let e = ((a >> 52) & 0x7ff) as i32;
    let f = u128::from(a & 0x000f_ffff_ffff_ffff);
    let (m, q) = if e == 0 {
        (f, -1074)
    } else {
        (f | (1 << 52), e - 1075)
    };
    if m == 0 {
        return (0, Exc::NONE);
    }
    // The magnitude as an integer, kept modulo 2^64 above, plus whether it
    // exceeded 2^64 (for the overflow test).
    let (mut int, mut huge, rem_state) = if q >= 0 {
        let q = q as u32;
        if q >= 128 {
            (0u128, true, Rem::Zero)
        } else {
            let shifted = m << q;
            let huge = q + (128 - m.leading_zeros()) > 127;
            (shifted, huge, Rem::Zero)
        }
    } else {
        let sh = (-q) as u32;
        if sh > 120 {
            (0, false, Rem::BelowHalf)
        } else {
            let int = m >> sh;
            let rem = m & ((1u128 << sh) - 1);
            let half = 1u128 << (sh - 1);
            let st = if rem == 0 {
                Rem::Zero
            } else if rem < half {
                Rem::BelowHalf
            } else if rem == half {
                Rem::Half
            } else {
                Rem::AboveHalf
            };
            (int, false, st)
        }
    };
    let up = match (rnd, rem_state) {
        (_, Rem::Zero) => false,
        (Rounding::Chopped, _) => false,
        (Rounding::Normal, Rem::AboveHalf) => true,
        (Rounding::Normal, Rem::Half) => int & 1 == 1,
        (Rounding::Normal, Rem::BelowHalf) => false,
        (Rounding::Minus, _) => sign,
        (Rounding::Plus, _) => !sign,
    };
    if up {
        int += 1;
    }
    let mut exc = if rem_state == Rem::Zero {
        Exc::NONE
    } else {
        Exc::INE
    };
    let limit = 1u128 << 63;
    if int > limit || (int == limit && !sign) {
        huge = true;
    }
    if huge {
        exc |= Exc::IOV | Exc::INE;
    }
    let low = int as u64;
    (if sign { low.wrapping_neg() } else { low }, exc)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rem {
    Zero,
    BelowHalf,
    Half,
    AboveHalf,
}

/// The four IEEE compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Un,
    Eq,
    Lt,
    Le,
}

/// CMPTxx on T bits: true is 2.0 (0x4000000000000000), false is +0.
/// Unordered compares are false (except CMPTUN); CMPTLT and CMPTLE raise
/// invalid operation for any NaN, CMPTEQ and CMPTUN only for a signaling
/// one (IEEE 754 predicates; the Linux kernel's completion does the same).
pub(crate) fn cmp_t(op: Cmp, a: u64, b: u64) -> (u64, Exc) {
    const TRUE: u64 = 0x4000_0000_0000_0000;
    let (a128, b128) = (u128::from(a), u128::from(b));
    let unordered = Double::is_nan_bits(a128) || Double::is_nan_bits(b128);
    let snan = Double::is_snan_bits(a128) || Double::is_snan_bits(b128);
    let exc = if snan || (unordered && matches!(op, Cmp::Lt | Cmp::Le)) {
        Exc::INV
    } else {
        Exc::NONE
    };
    // Host f64 comparisons are exact (no rounding involved).
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let t = match op {
        Cmp::Un => unordered,
        Cmp::Eq => x == y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
    };
    (if t { TRUE } else { 0 }, exc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_is_floor_of_the_root() {
        for n in [
            0u128,
            1,
            2,
            3,
            4,
            15,
            16,
            17,
            1 << 100,
            (1 << 100) + 12345,
            u128::MAX >> 2,
        ] {
            let r = isqrt(n);
            assert!(r * r <= n, "{n}");
            assert!((r + 1) * (r + 1) > n, "{n}");
        }
    }
}
