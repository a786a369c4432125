//! exec tests of IEEE floating point (`alpha_emu::fp`): exact results under
//! every rounding mode, exception flags, traps and the Linux software
//! completion. Expectations come from the host's IEEE arithmetic (round to
//! nearest) or are computed by hand in the comments.

use alpha_emu::fp::{self, fpcr, Exc, FpTrap};
use alpha_isa::{Insn, Op};
use proptest::prelude::*;

// Function-field pieces (see fp::qual): rounding <7:6>, /U|/V <8>, /I <9>, /S <10>.
const C: u32 = 0 << 6;
const M: u32 = 1 << 6;
const N: u32 = 2 << 6;
const D: u32 = 3 << 6;
const U: u32 = 0x100;
const V: u32 = 0x100;
const I: u32 = 0x200;
const S: u32 = 0x400;

/// Base function codes (opcode 0x16 / 0x14, chopped form).
fn base(op: Op) -> u32 {
    match op {
        Op::Adds => 0x00,
        Op::Subs => 0x01,
        Op::Muls => 0x02,
        Op::Divs => 0x03,
        Op::Addt => 0x20,
        Op::Subt => 0x21,
        Op::Mult => 0x22,
        Op::Divt => 0x23,
        Op::Cmptun => 0x24,
        Op::Cmpteq => 0x25,
        Op::Cmptlt => 0x26,
        Op::Cmptle => 0x27,
        Op::Cvtts => 0x2c,
        Op::Cvttq => 0x2f,
        Op::Cvtqs => 0x3c,
        Op::Cvtqt => 0x3e,
        Op::Cvtst => 0x2ac,
        Op::Sqrts => 0x0b,
        Op::Sqrtt => 0x2b,
        _ => 0,
    }
}

struct Run {
    result: u64,
    fpcr: u64,
    trap: Result<(), FpTrap>,
}

/// Execute `op` with qualifier bits `q` on Fa = f1 = `a`, Fb = f2 = `b`,
/// destination f3 preset to a marker.
fn run_with(op: Op, q: u32, a: u64, b: u64, fpcr_in: u64, ieee_ctl: u64) -> Run {
    let insn = Insn {
        op,
        ra: 1,
        rb: 2,
        rc: 3,
        lit: None,
        disp: 0,
        func: base(op) | q,
    };
    let mut f = [0u64; 32];
    let mut r = [0u64; 32];
    f[1] = a;
    f[2] = b;
    f[3] = 0xdead_beef_dead_beef;
    let mut fpcr = fpcr_in;
    let trap = fp::execute(&insn, &mut f, &mut r, &mut fpcr, ieee_ctl);
    Run {
        result: f[3],
        fpcr,
        trap,
    }
}

fn run(op: Op, q: u32, a: u64, b: u64) -> Run {
    run_with(op, q, a, b, fpcr::FPCR_DYN_NORMAL, 0)
}

fn t(x: f64) -> u64 {
    x.to_bits()
}
fn s(x: f32) -> u64 {
    fp::lds_to_reg(x.to_bits())
}
fn status(fpcr: u64) -> Exc {
    Exc::from_fpcr(fpcr)
}

const THIRD_DOWN: u64 = 0x3FD5_5555_5555_5555; // 1/3 rounded toward zero
const THIRD_UP: u64 = 0x3FD5_5555_5555_5556; // 1/3 rounded up

#[test]
fn divt_one_third_rounds_per_qualifier() {
    // 1/3 = 0x1.5555…p-2: the bit after the 53rd is 0, so nearest and
    // chopped and minus all truncate; only plus infinity (FPCR dynamic 11)
    // rounds up.
    assert_eq!(run(Op::Divt, N, t(1.0), t(3.0)).result, THIRD_DOWN);
    assert_eq!(run(Op::Divt, C, t(1.0), t(3.0)).result, THIRD_DOWN);
    assert_eq!(run(Op::Divt, M, t(1.0), t(3.0)).result, THIRD_DOWN);
    let plus = 3 << 58;
    assert_eq!(
        run_with(Op::Divt, D, t(1.0), t(3.0), plus, 0).result,
        THIRD_UP
    );
    // -1/3: minus infinity rounds the magnitude up, plus and chopped do not.
    let neg = |x: u64| x | 1 << 63;
    assert_eq!(run(Op::Divt, M, t(-1.0), t(3.0)).result, neg(THIRD_UP));
    assert_eq!(run(Op::Divt, C, t(-1.0), t(3.0)).result, neg(THIRD_DOWN));
    assert_eq!(
        run_with(Op::Divt, D, t(-1.0), t(3.0), plus, 0).result,
        neg(THIRD_DOWN)
    );
    // Dynamic with FPCR<59:58> = 01 is minus.
    assert_eq!(
        run_with(Op::Divt, D, t(-1.0), t(3.0), 1 << 58, 0).result,
        neg(THIRD_UP)
    );
    // Every one of them is inexact, but only /I detects (and records) it.
    assert!(status(run(Op::Divt, C, t(1.0), t(3.0)).fpcr).is_empty());
    let r = run(Op::Divt, S | I | C, t(1.0), t(3.0));
    assert_eq!(r.trap, Ok(()), "inexact is not enabled in the control word");
    assert!(status(r.fpcr).contains(Exc::INE));
    assert_eq!(r.result, THIRD_DOWN);
}

#[test]
fn nearest_rounding_breaks_ties_to_even() {
    // 1 + 2^-53 is halfway between 1 and 1 + 2^-52: ties to even gives 1.
    let half_ulp = t(f64::powi(2.0, -53));
    assert_eq!(run(Op::Addt, N, t(1.0), half_ulp).result, t(1.0));
    // (1 + 2^-52) + 2^-53 is halfway again, to even 1 + 2^-51.
    let odd = t(1.0 + f64::EPSILON);
    assert_eq!(
        run(Op::Addt, N, odd, half_ulp).result,
        t(1.0 + 2.0 * f64::EPSILON)
    );
    // Chopped keeps the odd one.
    assert_eq!(run(Op::Addt, C, odd, half_ulp).result, odd);
}

#[test]
fn adds_rounds_in_single_precision_and_keeps_register_layout() {
    let r = run(Op::Adds, N, s(0.1), s(0.2));
    assert_eq!(r.result, s(0.1f32 + 0.2f32));
    // The low 29 bits of an S register image are always zero.
    assert_eq!(r.result & ((1 << 29) - 1), 0);
    assert_eq!(run(Op::Divs, N, s(1.0), s(3.0)).result, s(1.0f32 / 3.0));
    // 1/3 in single: 0x3EAAAAAB nearest (next bits 1010…), 0x3EAAAAAA chopped.
    assert_eq!(
        fp::sts_from_reg(run(Op::Divs, N, s(1.0), s(3.0)).result),
        0x3EAA_AAAB
    );
    assert_eq!(
        fp::sts_from_reg(run(Op::Divs, C, s(1.0), s(3.0)).result),
        0x3EAA_AAAA
    );
}

#[test]
fn overflow_traps_without_s_and_completes_to_infinity_with_s() {
    let big = t(1e308);
    let ten = t(10.0);
    // No /S: the hardware traps, SIGFPE with FPE_FLTINV.
    let r = run(Op::Mult, N, big, ten);
    // Only OVF traps: inexact is not enabled without /I.
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::OVF,
            software_completion: false,
            si_code: 7
        })
    );
    // /SU with every trap disabled: the kernel delivers +inf, no signal.
    let r = run(Op::Mult, S | U | N, big, ten);
    assert_eq!(r.trap, Ok(()));
    assert_eq!(r.result, t(f64::INFINITY));
    assert!(status(r.fpcr).contains(Exc::OVF | Exc::INE));
    assert_ne!(r.fpcr & fpcr::FPCR_SUM, 0);
    // Chopped overflow gives the largest finite number.
    let r = run(Op::Mult, S | U | C, big, ten);
    assert_eq!(r.result, t(f64::MAX));
    // Minus infinity: positive overflow is MAX, negative is -inf.
    assert_eq!(run(Op::Mult, S | U | M, big, ten).result, t(f64::MAX));
    assert_eq!(
        run(Op::Mult, S | U | M, t(-1e308), ten).result,
        t(f64::NEG_INFINITY)
    );
    // Overflow trap enabled in the IEEE control word: SIGFPE FPE_FLTOVF,
    // destination still completed.
    let r = run_with(
        Op::Mult,
        S | U | N,
        big,
        ten,
        fpcr::FPCR_DYN_NORMAL,
        fpcr::IEEE_TRAP_ENABLE_OVF,
    );
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::OVF,
            software_completion: true,
            si_code: 4
        })
    );
    assert_eq!(r.result, t(f64::INFINITY));
}

#[test]
fn underflow_gives_true_zero_without_u_and_a_denormal_with_su() {
    // (1 + 2^-52) * 2^-1000 * 2^-60 = (1 + 2^-52) * 2^-1060: tiny, and
    // inexact as a denormal (whose last bit is 2^-1074).
    let a = t((1.0 + f64::EPSILON) * f64::powi(2.0, -1000));
    let b = t(f64::powi(2.0, -60));
    let ieee = f64::from_bits(a) * f64::from_bits(b);
    assert!(ieee != 0.0 && !ieee.is_normal());
    // No /U: true zero (Handbook §4.7.7.x, underflow disabled), no trap.
    let r = run(Op::Mult, N, a, b);
    assert_eq!(r.trap, Ok(()));
    assert_eq!(r.result, 0);
    assert!(
        status(r.fpcr).is_empty(),
        "underflow is detected only with /U"
    );
    // A negative underflow also gives +0 (a true zero has a clear sign).
    assert_eq!(run(Op::Mult, N, a | 1 << 63, b).result, 0);
    // /U without /S: trap.
    let r = run(Op::Mult, U | N, a, b);
    assert!(
        matches!(r.trap, Err(FpTrap::Arith { exc, software_completion: false, .. }) if exc.contains(Exc::UNF))
    );
    // /SU: the kernel completes to the IEEE denormal.
    let r = run(Op::Mult, S | U | N, a, b);
    assert_eq!(r.trap, Ok(()));
    assert_eq!(r.result, t(ieee));
    // /SU with IEEE_MAP_UMZ: zero.
    let r = run_with(
        Op::Mult,
        S | U | N,
        a,
        b,
        fpcr::FPCR_DYN_NORMAL,
        fpcr::IEEE_MAP_UMZ,
    );
    assert_eq!(r.result, 0);
    // /SU with the underflow trap enabled: SIGFPE FPE_FLTUND.
    let r = run_with(
        Op::Mult,
        S | U | N,
        a,
        b,
        fpcr::FPCR_DYN_NORMAL,
        fpcr::IEEE_TRAP_ENABLE_UNF,
    );
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::UNF,
            software_completion: true,
            si_code: 5
        })
    );
}

#[test]
fn invalid_operations_give_the_canonical_quiet_nan() {
    const CANONICAL: u64 = 0xFFF8_0000_0000_0000; // sign set (Handbook §4.7.10.3)
    for (op, a, b) in [
        (Op::Divt, t(0.0), t(0.0)),
        (Op::Subt, t(f64::INFINITY), t(f64::INFINITY)),
        (Op::Mult, t(0.0), t(f64::INFINITY)),
        (Op::Sqrtt, 0, t(-1.0)),
    ] {
        let r = run(op, S | U | N, a, b);
        assert_eq!(r.result, CANONICAL, "{op:?}");
        assert!(status(r.fpcr).contains(Exc::INV), "{op:?}");
        assert_eq!(r.trap, Ok(()), "{op:?}");
    }
    // Single precision: canonical NaN 0xFFC00000 in register layout.
    let r = run(Op::Divs, S | U | N, s(0.0), s(0.0));
    assert_eq!(fp::sts_from_reg(r.result), 0xFFC0_0000);
    // Enabled: SIGFPE FPE_FLTINV through software completion.
    let r = run_with(
        Op::Divt,
        S | U | N,
        t(0.0),
        t(0.0),
        fpcr::FPCR_DYN_NORMAL,
        fpcr::IEEE_TRAP_ENABLE_INV,
    );
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::INV,
            software_completion: true,
            si_code: 7
        })
    );
}

#[test]
fn division_by_zero_gives_signed_infinity_and_fltdiv() {
    let r = run(Op::Divt, S | U | N, t(-1.0), t(0.0));
    assert_eq!(r.result, t(f64::NEG_INFINITY));
    assert!(status(r.fpcr).contains(Exc::DZE));
    let r = run_with(
        Op::Divt,
        S | U | N,
        t(1.0),
        t(0.0),
        fpcr::FPCR_DYN_NORMAL,
        fpcr::IEEE_TRAP_ENABLE_DZE,
    );
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::DZE,
            software_completion: true,
            si_code: 3
        })
    );
    // Without /S the same division traps as FPE_FLTINV (do_entArith).
    let r = run(Op::Divt, N, t(1.0), t(0.0));
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::DZE,
            software_completion: false,
            si_code: 7
        })
    );
}

#[test]
fn nonfinite_and_denormal_operands_trap_without_s_before_writing() {
    for x in [f64::INFINITY, f64::NAN, f64::from_bits(1)] {
        let r = run(Op::Addt, N, t(1.0), t(x));
        assert!(
            matches!(
                r.trap,
                Err(FpTrap::Arith {
                    exc: Exc::INV,
                    software_completion: false,
                    ..
                })
            ),
            "{x}"
        );
        assert_eq!(
            r.result, 0xdead_beef_dead_beef,
            "destination must be untouched"
        );
    }
    // With /S they are ordinary IEEE operands.
    assert_eq!(
        run(Op::Addt, S | U | N, t(1.0), t(f64::INFINITY)).result,
        t(f64::INFINITY)
    );
    let tiny = f64::from_bits(1);
    assert_eq!(
        run(Op::Addt, S | U | N, t(tiny), t(tiny)).result,
        t(2.0 * tiny)
    );
    // FPCR DNZ: denormal operands are zero.
    let r = run_with(
        Op::Addt,
        S | U | N,
        t(tiny),
        t(tiny),
        fpcr::FPCR_DYN_NORMAL | fpcr::FPCR_DNZ,
        0,
    );
    assert_eq!(r.result, 0);
    // S denormal operand (register image with exponent 0) traps without /S.
    let r = run(Op::Adds, N, s(1.0), s(f32::from_bits(1)));
    assert!(r.trap.is_err());
    let r = run(
        Op::Adds,
        S | U | N,
        s(f32::from_bits(1)),
        s(f32::from_bits(2)),
    );
    assert_eq!(r.result, s(f32::from_bits(3)));
}

#[test]
fn nan_operands_propagate_fb_first_and_quieted() {
    let qa = 0x7FF8_0000_0000_00AA; // quiet NaN, payload 0xAA
    let qb = 0x7FF8_0000_0000_00BB;
    let sb = 0x7FF0_0000_0000_00BB; // signaling NaN, payload 0xBB
                                    // Rule 1: a quiet Fb wins.
    assert_eq!(run(Op::Addt, S | U | N, qa, qb).result, qb);
    // Rule 2: a signaling Fb is quieted, and invalid is raised.
    let r = run(Op::Mult, S | U | N, qa, sb);
    assert_eq!(r.result, sb | 1 << 51);
    assert!(status(r.fpcr).contains(Exc::INV));
    // Rule 3: Fa when Fb is not a NaN; quiet NaN raises nothing.
    let r = run(Op::Subt, S | U | N, qa, t(1.0));
    assert_eq!(r.result, qa);
    assert!(!status(r.fpcr).contains(Exc::INV));
    // Negative NaN keeps its sign.
    assert_eq!(
        run(Op::Divt, S | U | N, t(1.0), qb | 1 << 63).result,
        qb | 1 << 63
    );
}

#[test]
fn comparisons_return_two_point_zero_for_true() {
    const TRUE: u64 = 0x4000_0000_0000_0000;
    assert_eq!(run(Op::Cmpteq, N, t(1.5), t(1.5)).result, TRUE);
    assert_eq!(run(Op::Cmpteq, N, t(1.5), t(2.5)).result, 0);
    assert_eq!(run(Op::Cmpteq, N, t(0.0), t(-0.0)).result, TRUE);
    assert_eq!(run(Op::Cmptlt, N, t(-2.0), t(1.0)).result, TRUE);
    assert_eq!(run(Op::Cmptlt, N, t(1.0), t(1.0)).result, 0);
    assert_eq!(run(Op::Cmptle, N, t(1.0), t(1.0)).result, TRUE);
    assert_eq!(run(Op::Cmptun, N, t(1.0), t(1.0)).result, 0);
    // Infinities are fine without /S for compares.
    assert_eq!(run(Op::Cmptlt, N, t(1.0), t(f64::INFINITY)).result, TRUE);
    // NaN without /S traps.
    assert!(run(Op::Cmpteq, N, t(f64::NAN), t(1.0)).trap.is_err());
    // With /SU: unordered; EQ/UN quiet on a quiet NaN, LT/LE signal invalid.
    let nan = t(f64::NAN);
    let r = run(Op::Cmptun, S | U | N, nan, t(1.0));
    assert_eq!(r.result, TRUE);
    assert!(!status(r.fpcr).contains(Exc::INV));
    let r = run(Op::Cmpteq, S | U | N, nan, nan);
    assert_eq!(r.result, 0);
    assert!(!status(r.fpcr).contains(Exc::INV));
    let r = run(Op::Cmptlt, S | U | N, nan, t(1.0));
    assert_eq!(r.result, 0);
    assert!(status(r.fpcr).contains(Exc::INV));
}

#[test]
fn cvttq_rounds_per_mode_and_wraps_on_overflow() {
    let plus = 3 << 58;
    let q = |x: f64, qual: u32| run(Op::Cvttq, qual, 0, t(x)).result as i64;
    let qd = |x: f64| run_with(Op::Cvttq, D, 0, t(x), plus, 0).result as i64;
    assert_eq!([q(2.5, N), q(2.5, C), q(2.5, M), qd(2.5)], [2, 2, 2, 3]);
    assert_eq!(
        [q(3.5, N), q(-2.5, N), q(-2.5, C), q(-2.5, M), qd(-2.5)],
        [4, -2, -2, -3, -2]
    );
    assert_eq!(
        [q(-0.25, M), q(0.25, M), qd(0.25), q(0.75, N)],
        [-1, 0, 1, 1]
    );
    assert_eq!(q(-9.007199254740993e15, C), -9007199254740992);
    // Exact: no flags.
    let r = run(Op::Cvttq, C, 0, t(-12345.0));
    assert_eq!(r.result as i64, -12345);
    assert!(status(r.fpcr).is_empty());
    // -2^63 fits; 2^63 overflows (IOV and INE) and gives the low 64 bits.
    let r = run(Op::Cvttq, V | C, 0, t(-(2f64.powi(63))));
    assert_eq!((r.result as i64, r.trap), (i64::MIN, Ok(())));
    let r = run(Op::Cvttq, C, 0, t(2f64.powi(63)));
    assert_eq!(r.result, 1 << 63);
    assert!(status(r.fpcr).is_empty());
    assert_eq!(r.trap, Ok(()), "without /V integer overflow does not trap");
    let r = run(Op::Cvttq, S | V | C, 0, t(2f64.powi(63)));
    assert_eq!((r.result, r.trap), (1 << 63, Ok(())));
    assert!(
        status(r.fpcr).contains(Exc::IOV | Exc::INV),
        "kernel reports INV: {:?}",
        status(r.fpcr)
    );
    assert!(
        !status(r.fpcr).contains(Exc::INE),
        "soft-fp reports the overflow as INV only"
    );
    // 1e19 (what (unsigned long)1e19 compiles to) and 1e30: low-order bits.
    let r = run(Op::Cvttq, S | V | C, 0, t(1e19));
    assert_eq!(r.result, 10_000_000_000_000_000_000u64);
    assert_eq!(r.trap, Ok(()));
    assert_eq!(
        run(Op::Cvttq, S | V | C, 0, t(1e30)).result,
        (1e30f64 as u128) as u64
    );
    assert_eq!(
        run(Op::Cvttq, S | V | C, 0, t(-1e30)).result,
        ((1e30f64 as u128) as u64).wrapping_neg()
    );
    // /V without /S traps on integer overflow.
    let r = run(Op::Cvttq, V | C, 0, t(1e19));
    assert!(matches!(r.trap, Err(FpTrap::Arith { exc, .. }) if exc.contains(Exc::IOV)));
    // /SV: the kernel reports an integer overflow as invalid operation.
    let r = run_with(
        Op::Cvttq,
        S | V | C,
        0,
        t(1e19),
        fpcr::FPCR_DYN_NORMAL,
        fpcr::IEEE_TRAP_ENABLE_INV,
    );
    assert_eq!(
        r.trap,
        Err(FpTrap::Arith {
            exc: Exc::INV,
            software_completion: true,
            si_code: 7
        })
    );
    // Infinity and NaN give 0; a quiet NaN raises nothing (Table B-2).
    let r = run(Op::Cvttq, S | V | C, 0, t(f64::INFINITY));
    assert_eq!(r.result, 0);
    assert!(status(r.fpcr).contains(Exc::INV));
    let r = run(Op::Cvttq, S | V | C, 0, t(f64::NAN));
    assert_eq!(r.result, 0);
    assert!(status(r.fpcr).is_empty());
}

#[test]
fn cvtqt_and_cvtqs_round_per_mode() {
    let big = (1u64 << 53) + 1; // not representable in T
    let r = run(Op::Cvtqt, S | I | N, 0, big);
    assert_eq!(r.result, t(9007199254740992.0));
    assert!(status(r.fpcr).contains(Exc::INE));
    assert_eq!(
        run_with(Op::Cvtqt, D, 0, big, 3 << 58, 0).result,
        t(9007199254740994.0)
    );
    assert_eq!(run(Op::Cvtqt, N, 0, (-7i64) as u64).result, t(-7.0));
    // Inexact traps only with /I.
    assert!(run(Op::Cvtqt, I | N, 0, big).trap.is_err());
    assert_eq!(run(Op::Cvtqs, N, 0, 16_777_217).result, s(16_777_216.0));
    assert_eq!(
        run(Op::Cvtqs, M, 0, (-16_777_217i64) as u64).result,
        s(-16_777_218.0)
    );
}

#[test]
fn cvtts_rounds_and_cvtst_is_exact() {
    let third = 1.0f64 / 3.0;
    assert_eq!(run(Op::Cvtts, N, 0, t(third)).result, s(third as f32));
    assert_eq!(
        fp::sts_from_reg(run(Op::Cvtts, C, 0, t(third)).result),
        0x3EAA_AAAA
    );
    let r = run(Op::Cvtts, S | U | N, 0, t(1e300));
    assert_eq!(r.result, s(f32::INFINITY));
    assert!(status(r.fpcr).contains(Exc::OVF));
    // CVTST: the S denormal 2^-149 becomes the T normal 2^-149.
    let r = run(Op::Cvtst, S, 0, s(f32::from_bits(1)));
    assert_eq!(r.result, t(f64::powi(2.0, -149)));
    assert_eq!(run(Op::Cvtst, 0, 0, s(-1.25)).result, t(-1.25));
    // CVTST's bit 8 is part of its encoding, not /U.
    assert!(!fp::Qual::of(Op::Cvtst, 0x2ac).u_or_v);
}

#[test]
fn sqrt_is_correctly_rounded_in_every_mode() {
    assert_eq!(run(Op::Sqrtt, N, 0, t(2.0)).result, t(2f64.sqrt()));
    assert_eq!(run(Op::Sqrtt, N, 0, t(-0.0)).result, t(-0.0));
    assert_eq!(
        run(Op::Sqrtt, S | U | N, 0, t(f64::INFINITY)).result,
        t(f64::INFINITY)
    );
    let r = run(Op::Sqrtt, N, 0, t(16.0));
    assert_eq!(r.result, t(4.0));
    assert!(status(r.fpcr).is_empty());
    // sqrt(2) = 1.0110101000001001111001…: chopped and plus differ by one ulp.
    let c = f64::from_bits(run(Op::Sqrtt, C, 0, t(2.0)).result);
    let p = f64::from_bits(run_with(Op::Sqrtt, D, 0, t(2.0), 3 << 58, 0).result);
    assert_eq!(p.to_bits(), c.to_bits() + 1);
    assert!(c.mul_add(c, -2.0) < 0.0 && p.mul_add(p, -2.0) > 0.0);
    assert_eq!(run(Op::Sqrts, N, 0, s(2.0)).result, s(2f32.sqrt()));
    // Denormal operand (with /S).
    let tiny = f64::from_bits(3);
    assert_eq!(run(Op::Sqrtt, S | U | N, 0, t(tiny)).result, t(tiny.sqrt()));
}

proptest! {
    #[test]
    fn t_arithmetic_under_nearest_equals_host_f64(a in any::<u64>(), b in any::<u64>(), which in 0..5u8) {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let (op, host) = match which {
            0 => (Op::Addt, x + y),
            1 => (Op::Subt, x - y),
            2 => (Op::Mult, x * y),
            3 => (Op::Divt, x / y),
            _ => (Op::Sqrtt, y.sqrt()),
        };
        prop_assume!(!x.is_nan() && !y.is_nan() && !host.is_nan());
        let r = run(op, S | U | N, a, b);
        prop_assert_eq!(r.trap, Ok(()));
        prop_assert_eq!(r.result, host.to_bits());
    }

    #[test]
    fn s_arithmetic_under_nearest_equals_host_f32(a in any::<u32>(), b in any::<u32>(), which in 0..5u8) {
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let (op, host) = match which {
            0 => (Op::Adds, x + y),
            1 => (Op::Subs, x - y),
            2 => (Op::Muls, x * y),
            3 => (Op::Divs, x / y),
            _ => (Op::Sqrts, y.sqrt()),
        };
        prop_assume!(!x.is_nan() && !y.is_nan() && !host.is_nan());
        let r = run(op, S | U | N, s(x), s(y));
        prop_assert_eq!(r.trap, Ok(()));
        prop_assert_eq!(r.result, s(host));
    }

    #[test]
    fn sqrt_chopped_and_plus_bracket_the_root(a in 1u64..0x7FF0_0000_0000_0000) {
        let x = f64::from_bits(a);
        let c = f64::from_bits(run(Op::Sqrtt, S | U | C, 0, a).result);
        let p = f64::from_bits(run_with(Op::Sqrtt, S | U | D, 0, a, 3 << 58, 0).result);
        // c*c <= x <= p*p exactly (the fused multiply-add's sign is exact),
        // and they are equal or adjacent.
        prop_assert!(c.mul_add(c, -x) <= 0.0);
        prop_assert!(p.mul_add(p, -x) >= 0.0);
        prop_assert!(p.to_bits() == c.to_bits() || p.to_bits() == c.to_bits() + 1);
    }

    #[test]
    fn cvttq_chopped_equals_host_truncation_in_range(x in -9.2e18f64..9.2e18) {
        let r = run(Op::Cvttq, S | V | I | C, 0, t(x));
        prop_assert_eq!(r.result as i64, x as i64);
        prop_assert_eq!(status(r.fpcr).contains(Exc::INE), x.trunc() != x);
    }
}
