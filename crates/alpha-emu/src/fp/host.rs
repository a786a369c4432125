//! The host fast path for IEEE S/T operates: host `f32`/`f64` arithmetic
//! that gives the bit-identical result and exact exception flags of
//! [`super::ieee`] whenever it can prove them, and `None` otherwise (the
//! caller then runs the `rustc_apfloat` reference path, which stays the one
//! truth for every case this module declines).
//!
//! What is proved, and how:
//!
//! - The host computes in round to nearest, ties to even (the MXCSR default;
//!   nothing here changes it). A result is taken in another rounding mode
//!   only when it is exact, since an exact result is the same in every mode.
//! - Inexact is found with error-free transformations, never by reading host
//!   flags: TwoSum for add and subtract (the rounding error of a finite sum
//!   is itself a float); for T multiply the 106-bit integer product of the
//!   significands; for S multiply, divide and square root the exact binary64
//!   product of two 24-bit significands; for T divide and square root the
//!   fused multiply-add remainder `q*b - a` (`r*r - b`), exact because the
//!   operands are bounded away from the underflow range.
//! - Declined: NaN, infinite or denormal operands (the reference path owns
//!   NaN propagation and the denormal rules), results that overflow or are
//!   not normal (zero results only where their sign is the same in every
//!   rounding mode), zero divisors and negative square roots.
//! - Comparisons are already computed with host `f64` compares in
//!   [`super::ieee::cmp_t`], so they need no second path.
//!
//! Values travel as the format's bits, like [`super::ieee`]: `u32` for S,
//! `u64` for T and quadwords.

use super::fpcr::Exc;
use super::ieee::Arith;
use super::qual::Rounding;

/// Exceptions of a result that is exact (`err == false`) or not.
fn inexact(err: bool) -> Exc {
    if err {
        Exc::INE
    } else {
        Exc::NONE
    }
}

/// Accept an inexact result only in round to nearest even.
fn rounded(exact: bool, rounding: Rounding) -> Option<Exc> {
    if exact {
        Some(Exc::NONE)
    } else if rounding == Rounding::Normal {
        Some(Exc::INE)
    } else {
        None
    }
}

/// Is `x` (T bits) zero or normal: finite and not denormal?
fn t_plain(x: u64) -> bool {
    let e = (x >> 52) & 0x7ff;
    e != 0x7ff && (e != 0 || x << 1 == 0)
}

/// Is `x` (S bits) zero or normal?
fn s_plain(x: u32) -> bool {
    let e = (x >> 23) & 0xff;
    e != 0xff && (e != 0 || x << 1 == 0)
}

/// Is `x` a normal (not zero, denormal, infinite or NaN) T value?
fn t_normal(x: f64) -> bool {
    x.is_normal()
}

/// TwoSum (Knuth): the rounding error of `s = a + b`, exact when `s` is
/// finite.
fn two_sum_err64(a: f64, b: f64, s: f64) -> f64 {
    let bb = s - a;
    let aa = s - bb;
    (a - aa) + (b - bb)
}

fn two_sum_err32(a: f32, b: f32, s: f32) -> f32 {
    let bb = s - a;
    let aa = s - bb;
    (a - aa) + (b - bb)
}

/// `a OP b` on T bits.
pub(crate) fn arith_t(op: Arith, a: u64, b: u64, rounding: Rounding) -> Option<(u64, Exc)> {
    if !t_plain(a) || !t_plain(b) {
        return None;
    }
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    match op {
        Arith::Add | Arith::Sub => {
            let y = if op == Arith::Sub { -y } else { y };
            let s = x + y;
            if s == 0.0 {
                // An exact zero: its sign depends on the rounding mode when
                // the operands differ in sign (−0 toward minus infinity).
                if rounding != Rounding::Normal && x.to_bits() >> 63 != y.to_bits() >> 63 {
                    return None;
                }
                return Some((s.to_bits(), Exc::NONE));
            }
            if !t_normal(s) {
                return None;
            }
            let err = two_sum_err64(x, y, s);
            if !err.is_finite() {
                return None; // an intermediate overflowed
            }
            let exc = rounded(err == 0.0, rounding)?;
            Some((s.to_bits(), exc))
        }
        Arith::Mul => {
            if x == 0.0 || y == 0.0 {
                // ±0 with the sign of the product, exact in every mode.
                return Some(((x * y).to_bits(), Exc::NONE));
            }
            let p = x * y;
            if !t_normal(p) || p.abs() == f64::MIN_POSITIVE {
                return None;
            }
            // The exact product of the significands has at most 106 bits;
            // the result is exact when it fits in 53.
            let m = |v: u64| u128::from((v & 0x000f_ffff_ffff_ffff) | 1 << 52);
            let full = m(a) * m(b);
            let width = 128 - full.leading_zeros() - full.trailing_zeros();
            let exc = rounded(width <= 53, rounding)?;
            Some((p.to_bits(), exc))
        }
        Arith::Div => {
            if y == 0.0 {
                return None;
            }
            if x == 0.0 {
                return Some(((x / y).to_bits(), Exc::NONE));
            }
            let q = x / y;
            // The remainder a - q*b is a float when a is well above the
            // underflow range and q is normal (Boldo–Daumas); bounding both
            // leaves room for every quotient of normal operands.
            if !t_normal(q) || q.abs() < MIN_T_FMA || x.abs() < MIN_T_FMA {
                return None;
            }
            let exc = rounded(q.mul_add(y, -x) == 0.0, rounding)?;
            Some((q.to_bits(), exc))
        }
    }
}

/// Below this magnitude the `mul_add` remainders of T divide and square
/// root could fall into the denormal range and lose bits (2^-900).
const MIN_T_FMA: f64 = 1.0e-271;

/// `a OP b` on S bits.
pub(crate) fn arith_s(op: Arith, a: u32, b: u32, rounding: Rounding) -> Option<(u32, Exc)> {
    if !s_plain(a) || !s_plain(b) {
        return None;
    }
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    let r = match op {
        Arith::Add | Arith::Sub => {
            let y = if op == Arith::Sub { -y } else { y };
            let s = x + y;
            if s == 0.0 {
                if rounding != Rounding::Normal && x.to_bits() >> 31 != y.to_bits() >> 31 {
                    return None;
                }
                return Some((s.to_bits(), Exc::NONE));
            }
            if !s.is_normal() {
                return None;
            }
            let err = two_sum_err32(x, y, s);
            if !err.is_finite() {
                return None; // an intermediate overflowed
            }
            let exc = rounded(err == 0.0, rounding)?;
            return Some((s.to_bits(), exc));
        }
        Arith::Mul => {
            if x == 0.0 || y == 0.0 {
                return Some(((x * y).to_bits(), Exc::NONE));
            }
            // The binary64 product of two 24-bit significands is exact, so
            // one rounding to binary32 is the correctly rounded product, and
            // it is exact exactly when it equals the binary64 one.
            let wide = f64::from(x) * f64::from(y);
            let p = wide as f32;
            if !s_normal(p) {
                return None;
            }
            (p, f64::from(p) == wide)
        }
        Arith::Div => {
            if y == 0.0 {
                return None;
            }
            if x == 0.0 {
                return Some(((x / y).to_bits(), Exc::NONE));
            }
            // Host division is correctly rounded; q*b is exact in binary64,
            // so q*b == a tells an exact quotient.
            let q = x / y;
            if !s_normal(q) {
                return None;
            }
            (q, f64::from(q) * f64::from(y) == f64::from(x))
        }
    };
    let exc = rounded(r.1, rounding)?;
    Some((r.0.to_bits(), exc))
}

/// Is `x` normal and above the smallest normal (which an inexact result
/// could reach by rounding up from the underflow range)?
fn s_normal(x: f32) -> bool {
    x.is_normal() && x.abs() != f32::MIN_POSITIVE
}

/// Square root of T bits.
pub(crate) fn sqrt_t(b: u64, rounding: Rounding) -> Option<(u64, Exc)> {
    if !t_plain(b) || b >> 63 == 1 {
        // Negative (−0 included) and special operands: reference path.
        return None;
    }
    let x = f64::from_bits(b);
    if x == 0.0 {
        return Some((b, Exc::NONE));
    }
    if x < MIN_T_FMA {
        return None;
    }
    let r = x.sqrt();
    let exc = rounded(r.mul_add(r, -x) == 0.0, rounding)?;
    Some((r.to_bits(), exc))
}

/// Square root of S bits.
pub(crate) fn sqrt_s(b: u32, rounding: Rounding) -> Option<(u32, Exc)> {
    if !s_plain(b) || b >> 31 == 1 {
        return None;
    }
    let x = f32::from_bits(b);
    if x == 0.0 {
        return Some((b, Exc::NONE));
    }
    let r = x.sqrt();
    // r*r is exact in binary64.
    let rr = f64::from(r) * f64::from(r);
    let exc = rounded(rr == f64::from(x), rounding)?;
    Some((r.to_bits(), exc))
}

/// CVTTS: T bits to S bits.
pub(crate) fn cvt_ts(a: u64, rounding: Rounding) -> Option<(u32, Exc)> {
    if !t_plain(a) {
        return None;
    }
    let x = f64::from_bits(a);
    let r = x as f32;
    if x == 0.0 {
        return Some((r.to_bits(), Exc::NONE));
    }
    if !r.is_normal() || r.abs() == f32::MIN_POSITIVE {
        return None;
    }
    let exc = rounded(f64::from(r) == x, rounding)?;
    Some((r.to_bits(), exc))
}

/// CVTST: S bits to T bits (always exact for zero and normal operands).
pub(crate) fn cvt_st(a: u32) -> Option<(u64, Exc)> {
    if !s_plain(a) {
        return None;
    }
    Some((f64::from(f32::from_bits(a)).to_bits(), Exc::NONE))
}

/// CVTQT: a quadword to T bits. Rust's integer-to-float `as` rounds to
/// nearest, ties to even; the round trip through `i128` tells exactness.
pub(crate) fn cvt_qt(q: u64, rounding: Rounding) -> Option<(u64, Exc)> {
    let v = q as i64;
    let r = v as f64;
    let exc = rounded(r as i128 == i128::from(v), rounding)?;
    Some((r.to_bits(), exc))
}

/// CVTQS: a quadword to S bits.
pub(crate) fn cvt_qs(q: u64, rounding: Rounding) -> Option<(u32, Exc)> {
    let v = q as i64;
    let r = v as f32;
    let exc = rounded(r as i128 == i128::from(v), rounding)?;
    Some((r.to_bits(), exc))
}

/// CVTTQ: T bits to a quadword, in any rounding mode (host `trunc`,
/// `floor`, `ceil` and `round_ties_even` are exact). Declines NaNs,
/// infinities and magnitudes of 2^63 and more (integer overflow).
pub(crate) fn cvt_tq(a: u64, rounding: Rounding) -> Option<(u64, Exc)> {
    let x = f64::from_bits(a);
    if x.is_nan() || x.abs() >= 9_223_372_036_854_775_808.0 {
        return None;
    }
    let r = match rounding {
        Rounding::Chopped => x.trunc(),
        Rounding::Minus => x.floor(),
        Rounding::Normal => x.round_ties_even(),
        Rounding::Plus => x.ceil(),
    };
    // |x| < 2^63 is at most 2^63 - 1024, already an integer: r stays in range.
    Some(((r as i64) as u64, inexact(r != x)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Rounding; 4] = [
        Rounding::Chopped,
        Rounding::Minus,
        Rounding::Normal,
        Rounding::Plus,
    ];

    #[test]
    fn host_path_takes_ordinary_operands_in_nearest() {
        let t = |x: f64| x.to_bits();
        let n = Rounding::Normal;
        for op in [Arith::Add, Arith::Sub, Arith::Mul, Arith::Div] {
            assert!(arith_t(op, t(1.0), t(3.0), n).is_some(), "{op:?}");
            assert!(
                arith_s(op, 1.0f32.to_bits(), 3.0f32.to_bits(), n).is_some(),
                "{op:?}"
            );
        }
        assert!(sqrt_t(t(2.0), n).is_some());
        assert!(sqrt_s(2.0f32.to_bits(), n).is_some());
        assert!(cvt_ts(t(0.1), n).is_some());
        assert!(cvt_st(0.1f32.to_bits()).is_some());
        assert!(cvt_qt(u64::MAX, n).is_some());
        assert!(cvt_qs(12345, n).is_some());
        assert!(cvt_tq(t(-2.5), n).is_some());
    }

    #[test]
    fn host_path_takes_exact_results_in_every_mode_and_inexact_only_in_nearest() {
        let t = |x: f64| x.to_bits();
        for r in ALL {
            assert_eq!(
                arith_t(Arith::Add, t(1.0), t(0.5), r),
                Some((t(1.5), Exc::NONE))
            );
            assert_eq!(
                arith_t(Arith::Div, t(1.0), t(4.0), r),
                Some((t(0.25), Exc::NONE))
            );
            assert_eq!(sqrt_t(t(9.0), r), Some((t(3.0), Exc::NONE)));
            let inexact = arith_t(Arith::Div, t(1.0), t(3.0), r);
            if r == Rounding::Normal {
                assert_eq!(inexact, Some((t(1.0 / 3.0), Exc::INE)));
            } else {
                assert_eq!(inexact, None);
            }
        }
    }

    #[test]
    fn host_path_declines_specials_denormals_and_range_limits() {
        let t = |x: f64| x.to_bits();
        let n = Rounding::Normal;
        let den = 1u64; // smallest T denormal
        assert_eq!(arith_t(Arith::Add, den, t(1.0), n), None);
        assert_eq!(arith_t(Arith::Add, t(f64::NAN), t(1.0), n), None);
        assert_eq!(arith_t(Arith::Mul, t(f64::MAX), t(2.0), n), None);
        assert_eq!(arith_t(Arith::Mul, t(f64::MIN_POSITIVE), t(0.5), n), None);
        assert_eq!(arith_t(Arith::Div, t(1.0), t(0.0), n), None);
        assert_eq!(sqrt_t(t(-1.0), n), None);
        assert_eq!(cvt_ts(t(1e300), n), None);
        assert_eq!(cvt_tq(t(9.3e18), n), None);
        // x - x toward minus infinity is -0: declined rather than guessed.
        assert_eq!(arith_t(Arith::Sub, t(1.0), t(1.0), Rounding::Minus), None);
    }
}
