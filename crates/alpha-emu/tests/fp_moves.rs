//! exec tests of the floating operations that move bits rather than
//! compute: register layouts of LDS/STS/LDF/STF/LDG/STG, CPYS*, FCMOVxx,
//! CVTLQ/CVTQL, ITOFx/FTOIx, MT_FPCR/MF_FPCR, and the Linux control-word
//! conversions.

use alpha_emu::fp::{self, fpcr, Exc, FCond, FpTrap};
use alpha_isa::{Insn, Op};

fn insn(op: Op, ra: u8, rb: u8, rc: u8, func: u32) -> Insn {
    Insn {
        op,
        ra,
        rb,
        rc,
        lit: None,
        disp: 0,
        func,
    }
}

/// Run `op` with f1 = a, f2 = b, destination f3 (preset to a marker).
fn fop(op: Op, func: u32, a: u64, b: u64) -> (u64, u64, Result<(), FpTrap>) {
    let mut f = [0u64; 32];
    let mut r = [0u64; 32];
    f[1] = a;
    f[2] = b;
    f[3] = 0x1234;
    let mut c = fpcr::FPCR_DYN_NORMAL;
    let res = fp::execute(&insn(op, 1, 2, 3, func), &mut f, &mut r, &mut c, 0);
    (f[3], c, res)
}

#[test]
fn lds_widens_the_exponent_and_sts_inverts_it() {
    // 1.0f = 0x3F800000 → T 1.0 = 0x3FF0000000000000.
    assert_eq!(fp::lds_to_reg(0x3F80_0000), 0x3FF0_0000_0000_0000);
    // -2.5f = 0xC0200000 → T -2.5.
    assert_eq!(fp::lds_to_reg(0xC020_0000), (-2.5f64).to_bits());
    // Infinity and NaN get the all-ones 11-bit exponent.
    assert_eq!(fp::lds_to_reg(0x7F80_0000), f64::INFINITY.to_bits());
    assert_eq!(fp::lds_to_reg(0xFFC0_0001), 0xFFF8_0000_2000_0000);
    // Zero and denormals keep exponent 0 (not a T denormal of equal value).
    assert_eq!(fp::lds_to_reg(0x8000_0000), 1 << 63);
    assert_eq!(fp::lds_to_reg(0x0000_0001), 1 << 29);
    // Every normal single equals its T conversion in register form.
    for bits in [0x0080_0000u32, 0x3EAA_AAAB, 0x7F7F_FFFF, 0x8123_4567] {
        assert_eq!(
            fp::lds_to_reg(bits),
            f64::from(f32::from_bits(bits)).to_bits(),
            "{bits:#x}"
        );
    }
    for bits in [
        0u32,
        1,
        0x3F80_0000,
        0x7F80_0000,
        0x7FC0_0000,
        0x8000_0001,
        0xFFFF_FFFF,
        0x1234_5678,
    ] {
        assert_eq!(fp::sts_from_reg(fp::lds_to_reg(bits)), bits, "{bits:#x}");
    }
}

#[test]
fn vax_f_and_g_loads_reorder_words() {
    // VAX F 1.0: sign 0, exponent 129, fraction 0 → memory word 0 = 0x4080.
    // Register image: exponent 129 + 896 = 0x401.
    assert_eq!(fp::ldf_to_reg(0x0000_4080), 0x4010_0000_0000_0000);
    // The low fraction word (memory <31:16>) lands in register <44:29>.
    assert_eq!(
        fp::ldf_to_reg(0xABCD_4080),
        0x4010_0000_0000_0000 | (0xABCD << 29)
    );
    for m in [0u32, 0x0000_4080, 0xABCD_C0FF, 0x1234_7F80, 0xFFFF_FFFF] {
        assert_eq!(fp::stf_from_reg(fp::ldf_to_reg(m)), m, "{m:#x}");
    }
    // G: the four 16-bit words are reversed.
    assert_eq!(fp::ldg_to_reg(0x4444_3333_2222_1111), 0x1111_2222_3333_4444);
    assert_eq!(
        fp::stg_from_reg(0x1111_2222_3333_4444),
        0x4444_3333_2222_1111
    );
}

#[test]
fn cpys_cpysn_cpyse_copy_sign_and_exponent() {
    let a = (-1.5f64).to_bits();
    let b = 3.25f64.to_bits();
    assert_eq!(fop(Op::Cpys, 0x20, a, b).0, (-3.25f64).to_bits());
    assert_eq!(fop(Op::Cpysn, 0x21, a, b).0, 3.25f64.to_bits());
    // CPYSE: sign and exponent of Fa (-1.x * 2^0), fraction of Fb (1.625).
    assert_eq!(fop(Op::Cpyse, 0x22, a, b).0, (-1.625f64).to_bits());
    // No exceptions, even on signaling NaNs (copying is not an operation).
    let (v, c, res) = fop(Op::Cpys, 0x20, 0, 0x7FF0_0000_0000_0001);
    assert_eq!(
        (v, Exc::from_fpcr(c), res),
        (0x7FF0_0000_0000_0001, Exc::NONE, Ok(()))
    );
    // f31 reads as zero: CPYS f31,f31,f3 clears.
    let mut f = [u64::MAX; 32];
    let mut r = [0; 32];
    let mut c = 0;
    fp::execute(&insn(Op::Cpys, 31, 31, 3, 0x20), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(f[3], 0);
}

#[test]
fn fcmov_and_fbranch_conditions_treat_both_zeros_as_zero() {
    let neg0 = 1u64 << 63;
    let cases = [
        (FCond::Eq, [true, true, false, false]),
        (FCond::Ne, [false, false, true, true]),
        (FCond::Lt, [false, false, true, false]),
        (FCond::Ge, [true, true, false, true]),
        (FCond::Le, [true, true, true, false]),
        (FCond::Gt, [false, false, false, true]),
    ];
    let values = [0, neg0, (-1.0f64).to_bits(), 1.0f64.to_bits()];
    for (cond, expect) in cases {
        for (v, e) in values.iter().zip(expect) {
            assert_eq!(cond.holds(*v), e, "{cond:?} {v:#x}");
        }
    }
    // FCMOVLT moves only when Fa < 0.
    assert_eq!(fop(Op::Fcmovlt, 0x2c, (-1.0f64).to_bits(), 7).0, 7);
    assert_eq!(fop(Op::Fcmovlt, 0x2c, neg0, 7).0, 0x1234);
    assert_eq!(FCond::of(Op::Fbge), Some(FCond::Ge));
    assert_eq!(FCond::of(Op::Addt), None);
}

#[test]
fn cvtql_and_cvtlq_use_the_longword_register_layout() {
    // CVTQL: <31:30> → <63:62>, <29:0> → <58:29>.
    let (v, _, res) = fop(Op::Cvtql, 0x030, 0, 0xFFFF_FFFF_8000_0001);
    assert_eq!(res, Ok(()));
    assert_eq!(v, 0x8000_0000_2000_0000);
    let (back, _, _) = fop(Op::Cvtlq, 0x010, 0, v);
    assert_eq!(back as i64, -0x7FFF_FFFF);
    for x in [0i64, 1, -1, 0x7FFF_FFFF, -0x8000_0000, 0x1234_5678] {
        let (l, _, _) = fop(Op::Cvtql, 0x030, 0, x as u64);
        assert_eq!(fop(Op::Cvtlq, 0x010, 0, l).0 as i64, x, "{x}");
    }
    // Out of range: integer overflow, detected and trapping only with /V.
    let (_, c, res) = fop(Op::Cvtql, 0x030, 0, 1 << 40);
    assert!(Exc::from_fpcr(c).is_empty());
    assert_eq!(res, Ok(()));
    let (_, _, res) = fop(Op::Cvtql, 0x130, 0, 1 << 40);
    assert!(
        matches!(res, Err(FpTrap::Arith { exc, software_completion: false, .. }) if exc.contains(Exc::IOV))
    );
    // /SV with no trap enabled: completed, no signal, recorded (the kernel
    // reports it as invalid operation).
    let (_, c, res) = fop(Op::Cvtql, 0x530, 0, 1 << 40);
    assert_eq!(res, Ok(()));
    assert!(Exc::from_fpcr(c).contains(Exc::IOV | Exc::INV));
}

#[test]
fn integer_floating_moves_are_raw() {
    let mut f = [0u64; 32];
    let mut r = [0u64; 32];
    let mut c = 0;
    r[4] = 0x3F80_0000; // 1.0f
    fp::execute(&insn(Op::Itofs, 4, 31, 5, 0x004), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(f[5], 1.0f64.to_bits());
    r[6] = 0x1122_3344_5566_7788;
    fp::execute(&insn(Op::Itoft, 6, 31, 7, 0x024), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(f[7], 0x1122_3344_5566_7788);
    fp::execute(&insn(Op::Ftoit, 7, 31, 8, 0x70), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(r[8], 0x1122_3344_5566_7788);
    f[9] = fp::lds_to_reg(0xBF80_0000); // -1.0f
    fp::execute(&insn(Op::Ftois, 9, 31, 10, 0x78), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(
        r[10], 0xFFFF_FFFF_BF80_0000,
        "FTOIS sign-extends the longword"
    );
}

#[test]
fn mt_fpcr_keeps_implemented_bits_and_sets_summary() {
    let mut f = [0u64; 32];
    let mut r = [0u64; 32];
    let mut c = 0;
    f[1] = fpcr::FPCR_INE | 0x7fff | fpcr::FPCR_DYN_NORMAL;
    fp::execute(&insn(Op::MtFpcr, 1, 1, 1, 0x024), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(c, fpcr::FPCR_INE | fpcr::FPCR_DYN_NORMAL | fpcr::FPCR_SUM);
    fp::execute(&insn(Op::MfFpcr, 2, 2, 2, 0x025), &mut f, &mut r, &mut c, 0).unwrap();
    assert_eq!(f[2], c);
}

#[test]
fn linux_control_word_maps_to_fpcr_like_the_kernel() {
    // A new process: round to nearest, all traps disabled in hardware.
    assert_eq!(
        fpcr::linux_initial_fpcr(),
        (2 << 58) | (1 << 49) | (1 << 50) | (1 << 51) | (1 << 61) | (1 << 62) | (1 << 47)
    );
    // Enabling INV clears INVD; status INV sets FPCR INV and SUM.
    let fp_ = fpcr::fpcr_from_swcr(fpcr::IEEE_TRAP_ENABLE_INV | fpcr::IEEE_STATUS_INV);
    assert_eq!(fp_ & fpcr::FPCR_INVD, 0);
    assert_ne!(fp_ & fpcr::FPCR_INV, 0);
    assert_ne!(fp_ & fpcr::FPCR_SUM, 0);
    assert_eq!(fpcr::swcr_status_from_fpcr(fp_), fpcr::IEEE_STATUS_INV);
    assert_eq!(Exc::INV.si_code(), fpcr::FPE_FLTINV);
    assert_eq!((Exc::INE | Exc::OVF).si_code(), fpcr::FPE_FLTOVF);
}

#[test]
fn non_floating_ops_are_refused() {
    assert_eq!(
        fop(Op::Addq, 0, 0, 0).2,
        Err(FpTrap::NotFloatingPoint(Op::Addq))
    );
    assert!(
        fp::is_fp_operate(Op::Cvttq) && fp::is_fp_operate(Op::Addf) && !fp::is_fp_operate(Op::Ldt)
    );
}
