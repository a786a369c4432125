//! exec tests of the IEEE host fast path: `fp::execute` (host `f32`/`f64`
//! where it can prove the outcome) against `fp::execute_reference`
//! (`rustc_apfloat` only), bit for bit in the destination, the FPCR (status
//! bits and SUM) and the trap decision with its `si_code`, for every IEEE
//! operate × every qualifier combination × every rounding mode (qualifier
//! or FPCR dynamic), on operands biased to the edges of the formats.

use alpha_emu::fp::{self, fpcr, FpTrap};
use alpha_isa::{Insn, Op};
use proptest::prelude::*;

/// Base function codes (opcode 0x16 / 0x14, chopped form).
const OPS: [(Op, u32); 19] = [
    (Op::Adds, 0x00),
    (Op::Subs, 0x01),
    (Op::Muls, 0x02),
    (Op::Divs, 0x03),
    (Op::Addt, 0x20),
    (Op::Subt, 0x21),
    (Op::Mult, 0x22),
    (Op::Divt, 0x23),
    (Op::Cmptun, 0x24),
    (Op::Cmpteq, 0x25),
    (Op::Cmptlt, 0x26),
    (Op::Cmptle, 0x27),
    (Op::Cvtts, 0x2c),
    (Op::Cvttq, 0x2f),
    (Op::Cvtqs, 0x3c),
    (Op::Cvtqt, 0x3e),
    (Op::Cvtst, 0x2ac),
    (Op::Sqrts, 0x0b),
    (Op::Sqrtt, 0x2b),
];

/// Qualifier bits <10:6> of fn11: rounding <7:6>, /U or /V <8>, /I <9>,
/// /S <10>. CVTST's bit 8 is part of its opcode, so it keeps it.
fn func(base: u32, qual: u32) -> u32 {
    base | (qual & 0x1f) << 6
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    f: [u64; 32],
    fpcr: u64,
    trap: Result<(), FpTrap>,
}

type Exec = fn(&Insn, &mut [u64; 32], &mut [u64; 32], &mut u64, u64) -> Result<(), FpTrap>;

fn run(exec: Exec, insn: &Insn, a: u64, b: u64, fpcr_in: u64, ieee_ctl: u64) -> Outcome {
    let mut f = [0u64; 32];
    let mut r = [0u64; 32];
    f[1] = a;
    f[2] = b;
    f[3] = 0xdead_beef_dead_beef;
    let mut fpcr = fpcr_in;
    let trap = exec(insn, &mut f, &mut r, &mut fpcr, ieee_ctl);
    Outcome { f, fpcr, trap }
}

/// Both paths on one case; the panic message names it.
fn check(op_index: usize, qual: u32, a: u64, b: u64, fpcr_in: u64, ieee_ctl: u64) {
    let (op, base) = OPS[op_index];
    let insn = Insn {
        op,
        ra: 1,
        rb: 2,
        rc: 3,
        lit: None,
        disp: 0,
        func: func(base, qual),
    };
    let host = run(fp::execute, &insn, a, b, fpcr_in, ieee_ctl);
    let reference = run(fp::execute_reference, &insn, a, b, fpcr_in, ieee_ctl);
    assert_eq!(
        host, reference,
        "{op:?} fn11 {:#x} a {a:#018x} b {b:#018x} fpcr {fpcr_in:#018x} ieee_ctl {ieee_ctl:#x}",
        insn.func
    );
}

const T_SPECIALS: &[u64] = &[
    0,
    1 << 63,
    0x7ff0_0000_0000_0000,           // +inf
    0xfff0_0000_0000_0000,           // -inf
    0x7ff8_0000_0000_0000,           // quiet NaN
    0xfff8_0000_0000_0001,           // quiet NaN, sign set, payload
    0x7ff0_0000_0000_0001,           // signalling NaN
    0x7ff4_0000_0000_0000,           // signalling NaN
    1,                               // smallest denormal
    0x000f_ffff_ffff_ffff,           // largest denormal
    0x0010_0000_0000_0000,           // smallest normal
    0x0010_0000_0000_0001,           // just above it
    0x7fef_ffff_ffff_ffff,           // largest normal
    0x7fe0_0000_0000_0000,           // 2^1023
    0x3ff0_0000_0000_0000,           // 1.0
    0x3ff0_0000_0000_0001,           // 1 + ulp
    0x3fef_ffff_ffff_ffff,           // 1 - ulp/2
    0x3ca0_0000_0000_0000,           // 2^-53: 1 + this is a tie
    0x3cb0_0000_0000_0000,           // 2^-52
    0x43e0_0000_0000_0000,           // 2^63
    0x43df_ffff_ffff_ffff,           // 2^63 - 1024
    0xc3e0_0000_0000_0000,           // -2^63
    0x4340_0000_0000_0000,           // 2^53
    0x3fe0_0000_0000_0000,           // 0.5
    0x3ff8_0000_0000_0000,           // 1.5
    0x4004_0000_0000_0000,           // 2.5
    0x47ef_ffff_e000_0000,           // largest S value
    0x47ef_ffff_f000_0000,           // halfway to S overflow
    0x3810_0000_0000_0000,           // smallest normal S value
    0x380f_ffff_f000_0000,           // just below it (S underflow on CVTTS)
    0x36a0_0000_0000_0000,           // smallest S denormal
    0x0000_0000_0000_0001 | 1 << 63, // negative denormal
    0x3fb9_9999_9999_999a,           // 0.1
];

const Q_SPECIALS: &[u64] = &[
    0,
    1,
    u64::MAX,        // -1
    i64::MAX as u64, // 2^63 - 1
    i64::MIN as u64, // -2^63
    (1 << 53) + 1,   // first odd integer T cannot hold
    (1 << 53) + 3,   // ties the other way
    (1 << 24) + 1,   // first odd integer S cannot hold
    (1 << 24) + 3,
    ((1 << 53) + 1u64).wrapping_neg(),
    (1 << 54) + 2,
    0x7fff_ff80_0000_0000,
];

/// A T value with an edge-biased exponent and fraction.
fn t_value() -> impl Strategy<Value = u64> {
    let exp = prop_oneof![
        0u64..4,
        0x7fbu64..0x800,
        0x3f0u64..0x410,
        0x360u64..0x3a0, // around the S normal range's bottom
        0x470u64..0x490, // around its top
        0x3a0u64..0x3c0,
        0x3c0u64..0x440, // integers around 2^63
        0u64..0x800,
    ];
    let frac = prop_oneof![
        Just(0u64),
        Just(0x000f_ffff_ffff_ffff),
        Just(1u64),
        Just(1u64 << 51),
        (0u64..64).prop_map(|k| 1u64 << (k % 52)),
        // few low bits: exact results, halfway cases after rounding to S
        (0u64..0x800_0000).prop_map(|x| x << 29),
        (0u64..(1 << 52)),
        (0u64..(1 << 52)).prop_map(|x| x & 0x000f_ffff_e000_0000 | 0x1000_0000),
    ];
    let shaped = (any::<bool>(), exp, frac).prop_map(|(s, e, f)| (s as u64) << 63 | e << 52 | f);
    prop_oneof![
        3 => shaped,
        1 => proptest::sample::select(T_SPECIALS),
        1 => any::<u64>(),
        1 => any::<u32>().prop_map(fp::lds_to_reg),
        1 => any::<i32>().prop_map(|x| f64::from(x).to_bits()),
    ]
}

/// A partner for `a`: independent, near it (cancellation, ties), its
/// exponent mirrored (products and quotients near overflow and underflow),
/// or a quadword for the integer conversions.
fn pair() -> impl Strategy<Value = (u64, u64)> {
    let near = (t_value(), -4i64..5).prop_map(|(a, d)| (a, (a as i64).wrapping_add(d) as u64));
    let negated = (t_value(), -4i64..5).prop_map(|(a, d)| {
        let b = (a as i64).wrapping_add(d) as u64 ^ 1 << 63;
        (a, b)
    });
    let mirrored = (t_value(), any::<u64>(), -3i64..4, any::<bool>()).prop_map(|(a, f, d, div)| {
        let ea = ((a >> 52) & 0x7ff) as i64;
        // products: ea + eb - 1023 near 2046 or 1; quotients: ea - eb + 1023 near them
        let target = if f & 1 == 0 { 2046 } else { 1 };
        let eb = if div {
            ea + 1023 - target + d
        } else {
            target + 1023 - ea + d
        }
        .clamp(0, 0x7ff) as u64;
        (a, (f & (1 << 63 | 0x000f_ffff_ffff_ffff)) | eb << 52)
    });
    let quad = (proptest::sample::select(Q_SPECIALS), any::<u64>(), -3i64..4)
        .prop_map(|(q, x, d)| (x, (q as i64).wrapping_add(d) as u64));
    prop_oneof![
        3 => (t_value(), t_value()),
        1 => near,
        1 => negated,
        2 => mirrored,
        1 => quad,
        1 => (any::<u64>(), any::<i64>().prop_map(|x| (x >> (x as u64 % 64)) as u64)),
    ]
}

/// FPCR: dynamic rounding, DNZ and some sticky status bits.
fn fpcr_value() -> impl Strategy<Value = u64> {
    (0u64..4, any::<bool>(), 0u64..0x40, any::<bool>()).prop_map(|(dyn_, dnz, st, sum)| {
        let mut v = dyn_ << 58 | (st << 52);
        if dnz {
            v |= fpcr::FPCR_DNZ;
        }
        if sum || st != 0 {
            v |= fpcr::FPCR_SUM;
        }
        v
    })
}

/// Linux IEEE control word: trap enables, DMZ, UMZ.
fn ieee_ctl_value() -> impl Strategy<Value = u64> {
    (0u64..0x40, any::<bool>(), any::<bool>()).prop_map(|(en, dmz, umz)| {
        let mut v = en << 1;
        if dmz {
            v |= fpcr::IEEE_MAP_DMZ;
        }
        if umz {
            v |= fpcr::IEEE_MAP_UMZ;
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn host_path_equals_reference_on_edge_biased_operands(
        op in 0usize..OPS.len(),
        qual in 0u32..32,
        (a, b) in pair(),
        fpcr_in in fpcr_value(),
        ieee_ctl in ieee_ctl_value(),
    ) {
        check(op, qual, a, b, fpcr_in, ieee_ctl);
    }

    #[test]
    fn host_path_equals_reference_on_s_operands_in_register_format(
        op in 0usize..OPS.len(),
        qual in 0u32..32,
        a in any::<u32>(),
        b in any::<u32>(),
        fpcr_in in fpcr_value(),
    ) {
        check(op, qual, fp::lds_to_reg(a), fp::lds_to_reg(b), fpcr_in, 0);
    }
}

/// Values with an edge exponent and a fraction of few significant bits, so
/// that sums, products, quotients and roots of them are exact, ties, or
/// just inexact.
fn sweep_values() -> Vec<u64> {
    let exps = [
        0u64, 1, 2, 0x368, 0x369, 0x380, 0x381, 0x3fe, 0x3ff, 0x400, 0x433, 0x43e, 0x47e, 0x47f,
        0x7fd, 0x7fe, 0x7ff,
    ];
    let fracs = [
        0u64,
        1,
        1 << 51,
        3 << 50,
        1 << 29,
        (1 << 29) | 1,
        0x000f_ffff_ffff_ffff,
        0x000f_ffff_e000_0000,
    ];
    let mut v = Vec::new();
    for e in exps {
        for f in fracs {
            for s in [0, 1u64 << 63] {
                v.push(s | e << 52 | f);
            }
        }
    }
    v
}

#[test]
fn host_path_equals_reference_on_small_exponent_sweep() {
    let values = sweep_values();
    // Every rounding mode through FPCR dynamic (/D), plus the fixed
    // qualifiers, with and without /SUI.
    let quals = [
        0b00000, 0b00001, 0b00010, 0b00011, 0b11110, 0b11111, 0b11010,
    ];
    for op in 0..OPS.len() {
        for &a in &values {
            for &b in &values {
                for qual in quals {
                    let dynamic = qual & 3 == 3;
                    let modes: &[u64] = if dynamic { &[0, 1, 2, 3] } else { &[2] };
                    for &m in modes {
                        check(op, qual, a, b, m << 58, 0);
                    }
                }
            }
        }
    }
}

#[test]
fn host_path_equals_reference_on_quadword_sweep() {
    let mut values: Vec<u64> = Vec::new();
    for k in 0..64u32 {
        for d in [-2i64, -1, 0, 1, 2] {
            let p = 1i64.wrapping_shl(k);
            values.push(p.wrapping_add(d) as u64);
            values.push(p.wrapping_add(d).wrapping_neg() as u64);
        }
    }
    values.extend_from_slice(Q_SPECIALS);
    let cvt = [14usize, 15]; // CVTQS, CVTQT
    for op in cvt {
        assert!(matches!(OPS[op].0, Op::Cvtqs | Op::Cvtqt));
        for &b in &values {
            for qual in 0..32 {
                for m in 0..4u64 {
                    check(op, qual, 0, b, m << 58, 0);
                }
            }
        }
    }
}
