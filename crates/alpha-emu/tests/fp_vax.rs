//! exec tests of VAX F/G/D floating point (`alpha_emu::fp`, opcode 0x15):
//! VAX rounding (to nearest, ties away from zero) and chopped, the VAX
//! exponent range, reserved operands and dirty zeros, conversions.
//!
//! A VAX G value `v` with 11-bit exponent `e` is `1.f × 2^(e-1025)`, so for
//! normal doubles in the common range its register image is the IEEE bits
//! with 2 added to the exponent field: `g(x) = x.to_bits() + (2 << 52)`.
//! The same holds for F in register form (`f(x)` below, from `f32`).

use alpha_emu::fp::{self, fpcr, Exc, FpTrap};
use alpha_isa::{Insn, Op};
use proptest::prelude::*;
use rustc_apfloat::ieee::Double;
use rustc_apfloat::{Float, Round};

const VAXR: u32 = 0x080; // bit 7: VAX rounding (clear: /C chopped)
const U: u32 = 0x100;
const V: u32 = 0x100;

fn base(op: Op) -> u32 {
    match op {
        Op::Addf => 0x000,
        Op::Subf => 0x001,
        Op::Mulf => 0x002,
        Op::Divf => 0x003,
        Op::Cvtdg => 0x01e,
        Op::Addg => 0x020,
        Op::Subg => 0x021,
        Op::Mulg => 0x022,
        Op::Divg => 0x023,
        Op::Cmpgeq => 0x025,
        Op::Cmpglt => 0x026,
        Op::Cmpgle => 0x027,
        Op::Cvtgf => 0x02c,
        Op::Cvtgd => 0x02d,
        Op::Cvtgq => 0x02f,
        Op::Cvtqf => 0x03c,
        Op::Cvtqg => 0x03e,
        Op::Sqrtf => 0x00a,
        Op::Sqrtg => 0x02a,
        _ => 0,
    }
}

const MARK: u64 = 0xdead_beef_dead_beef;

fn run(op: Op, q: u32, a: u64, b: u64) -> (u64, Result<(), FpTrap>, u64) {
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
    f[3] = MARK;
    let mut c = fpcr::FPCR_DYN_NORMAL;
    let res = fp::execute(&insn, &mut f, &mut r, &mut c, 0);
    (f[3], res, c)
}

fn g(x: f64) -> u64 {
    assert!(x.is_normal());
    x.to_bits() + (2 << 52)
}
fn f(x: f32) -> u64 {
    g(f64::from(x))
}
fn trapped(res: Result<(), FpTrap>, want: Exc) -> bool {
    matches!(res, Err(FpTrap::Arith { exc, software_completion: false, si_code: 7 }) if exc.contains(want))
}

#[test]
fn g_and_f_one_have_the_documented_images() {
    // Handbook: G 1.0 = 0.1 × 2^1, exponent 1025 → 0x4010…; F 1.0 loads to
    // the same register image.
    assert_eq!(g(1.0), 0x4010_0000_0000_0000);
    assert_eq!(fp::ldf_to_reg(0x0000_4080), f(1.0));
}

#[test]
fn addg_rounds_ties_away_from_zero_and_chops_with_c() {
    assert_eq!(run(Op::Addg, VAXR, g(1.0), g(2.0)).0, g(3.0));
    let half_ulp = g(f64::powi(2.0, -53));
    // 1 + 2^-53 is a tie: VAX rounding goes away from zero (IEEE would give 1).
    assert_eq!(
        run(Op::Addg, VAXR, g(1.0), half_ulp).0,
        g(1.0 + f64::EPSILON)
    );
    assert_eq!(run(Op::Addg, 0, g(1.0), half_ulp).0, g(1.0));
    assert_eq!(
        run(Op::Subg, VAXR, g(-1.0), half_ulp).0,
        g(-1.0 - f64::EPSILON)
    );
    // Exact cancellation is the true zero.
    assert_eq!(run(Op::Subg, VAXR, g(5.5), g(5.5)).0, 0);
    // F precision: 1 + 2^-24 is a tie in F.
    assert_eq!(
        run(Op::Addf, VAXR, f(1.0), f(f32::powi(2.0, -24))).0,
        f(1.0 + f32::EPSILON)
    );
    assert_eq!(run(Op::Addf, 0, f(1.0), f(f32::powi(2.0, -24))).0, f(1.0));
    // F results keep the low 29 register bits clear.
    assert_eq!(run(Op::Divf, VAXR, f(1.0), f(3.0)).0 & ((1 << 29) - 1), 0);
    assert_eq!(run(Op::Divf, VAXR, f(1.0), f(3.0)).0, f(1.0 / 3.0));
}

#[test]
fn vax_range_overflows_where_ieee_does_not_and_underflows_to_true_zero() {
    // Largest G: exponent 2047, all fraction bits: just under 2^1023.
    let max = 0x7fff_ffff_ffff_ffff;
    let (v, res, c) = run(Op::Addg, VAXR, max, max);
    assert!(trapped(res, Exc::OVF));
    assert_eq!(v, MARK, "destination unchanged on overflow");
    assert!(Exc::from_fpcr(c).contains(Exc::OVF));
    // Smallest G: 2^-1024 (exponent 1). Halving it underflows.
    let min = 1 << 52;
    let (v, res, _) = run(Op::Mulg, VAXR, min, g(0.5));
    assert_eq!((v, res), (0, Ok(())));
    let (v, res, _) = run(Op::Mulg, VAXR | U, min, g(0.5));
    assert_eq!(v, 0);
    assert!(trapped(res, Exc::UNF));
    // 2^-1024 is a valid G value although it is below IEEE's normal range.
    assert_eq!(run(Op::Mulg, VAXR, min, g(4.0)).0, 3 << 52);
}

#[test]
fn reserved_operands_and_dirty_zeros_trap_and_true_zero_works() {
    for bad in [1u64 << 63, 1, (1 << 63) | 5] {
        let (v, res, c) = run(Op::Addg, VAXR, g(1.0), bad);
        assert!(trapped(res, Exc::INV), "{bad:#x}");
        assert_eq!(v, MARK);
        assert!(Exc::from_fpcr(c).contains(Exc::INV));
    }
    assert_eq!(run(Op::Addg, VAXR, 0, g(1.0)).0, g(1.0));
    assert_eq!(run(Op::Mulg, VAXR, 0, g(7.0)).0, 0);
    let (v, res, _) = run(Op::Divg, VAXR, g(1.0), 0);
    assert!(trapped(res, Exc::DZE));
    assert_eq!(v, MARK);
    assert!(trapped(run(Op::Sqrtg, VAXR, 0, g(-4.0)).1, Exc::INV));
}

#[test]
fn cmpg_returns_half_for_true() {
    const TRUE: u64 = 0x4000_0000_0000_0000; // 0.5 in G
    assert_eq!(run(Op::Cmpgeq, 0, g(1.5), g(1.5)).0, TRUE);
    assert_eq!(run(Op::Cmpgeq, 0, g(1.5), g(-1.5)).0, 0);
    assert_eq!(run(Op::Cmpglt, 0, g(-2.0), g(-1.0)).0, TRUE);
    assert_eq!(run(Op::Cmpglt, 0, g(-1.0), g(-2.0)).0, 0);
    assert_eq!(run(Op::Cmpgle, 0, 0, g(1e-300)).0, TRUE);
    assert_eq!(run(Op::Cmpglt, 0, g(-1e-300), 0).0, TRUE);
    assert!(trapped(run(Op::Cmpgeq, 0, 1 << 63, 0).1, Exc::INV));
}

#[test]
fn conversions_between_vax_formats_and_quadwords() {
    // CVTGQ: VAX rounding is ties away; /C chops.
    let q = |x: f64, qual: u32| run(Op::Cvtgq, qual, 0, g(x)).0 as i64;
    assert_eq!(
        [
            q(2.5, VAXR),
            q(2.5, 0),
            q(-2.5, VAXR),
            q(-2.4, VAXR),
            q(0.5, VAXR)
        ],
        [3, 2, -3, -2, 1]
    );
    let (v, res, _) = run(Op::Cvtgq, VAXR | V, 0, g(1e19));
    assert!(trapped(res, Exc::IOV));
    assert_eq!(v, 10_000_000_000_000_000_000u64, "low-order bits");
    assert_eq!(run(Op::Cvtgq, VAXR, 0, g(1e19)).1, Ok(()));
    // CVTQG: 2^53 + 1 is a tie between 2^53 and 2^53 + 2: away from zero.
    assert_eq!(
        run(Op::Cvtqg, VAXR, 0, (1 << 53) + 1).0,
        g(9007199254740994.0)
    );
    assert_eq!(run(Op::Cvtqg, 0, 0, (1 << 53) + 1).0, g(9007199254740992.0));
    assert_eq!(run(Op::Cvtqf, VAXR, 0, 16_777_217).0, f(16_777_218.0));
    assert_eq!(run(Op::Cvtqf, VAXR, 0, (-3i64) as u64).0, f(-3.0));
    assert_eq!(run(Op::Cvtqg, VAXR, 0, 0).0, 0);
    // CVTGF rounds to F precision.
    let third = 1.0f64 / 3.0;
    assert_eq!(run(Op::Cvtgf, VAXR, 0, g(third)).0, f(third as f32));
    // D_floating: 1.0 = 0.1 × 2^1, 8-bit exponent 129 in <62:55>.
    let d_one = 129u64 << 55;
    assert_eq!(run(Op::Cvtdg, VAXR, 0, d_one).0, g(1.0));
    assert_eq!(run(Op::Cvtgd, VAXR, 0, g(1.0)).0, d_one);
    let x = g(-1234.5678e-20);
    assert_eq!(run(Op::Cvtdg, VAXR, 0, run(Op::Cvtgd, VAXR, 0, x).0).0, x);
    // G values beyond D's 8-bit exponent overflow.
    assert!(trapped(run(Op::Cvtgd, VAXR, 0, g(1e100)).1, Exc::OVF));
}

#[test]
fn sqrtg_and_sqrtf_are_correctly_rounded() {
    assert_eq!(run(Op::Sqrtg, VAXR, 0, g(4.0)).0, g(2.0));
    // A square root is never a tie, so VAX rounding equals IEEE nearest.
    assert_eq!(run(Op::Sqrtg, VAXR, 0, g(2.0)).0, g(2f64.sqrt()));
    assert_eq!(run(Op::Sqrtf, VAXR, 0, f(2.0)).0, f(2f32.sqrt()));
    assert_eq!(run(Op::Sqrtg, VAXR, 0, 0).0, 0);
}

fn moderate() -> impl Strategy<Value = f64> {
    (any::<bool>(), 523u64..1523, any::<u64>())
        .prop_map(|(s, e, m)| f64::from_bits(u64::from(s) << 63 | e << 52 | (m & ((1 << 52) - 1))))
}

proptest! {
    /// In the range both formats share, VAX arithmetic equals IEEE
    /// arithmetic with the matching rounding (rustc_apfloat's
    /// ties-away-from-zero and toward-zero), computed independently.
    #[test]
    fn g_arithmetic_matches_apfloat_with_the_same_rounding(x in moderate(), y in moderate(), which in 0..4u8, chop in any::<bool>()) {
        let (op, q) = ([Op::Addg, Op::Subg, Op::Mulg, Op::Divg][which as usize], if chop { 0 } else { VAXR });
        let rnd = if chop { Round::TowardZero } else { Round::NearestTiesToAway };
        let (a, b) = (Double::from_bits(x.to_bits().into()), Double::from_bits(y.to_bits().into()));
        let want = match which {
            0 => a.add_r(b, rnd),
            1 => a.sub_r(b, rnd),
            2 => a.mul_r(b, rnd),
            _ => a.div_r(b, rnd),
        }.value;
        let want = f64::from_bits(want.to_bits() as u64);
        prop_assume!(want.is_normal() && want.abs() < 1e300);
        let (v, res, _) = run(op, q, g(x), g(y));
        prop_assert_eq!(res, Ok(()));
        prop_assert_eq!(v, g(want));
    }
}
