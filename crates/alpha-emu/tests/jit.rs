//! The compiling tier (`alpha_emu::jit`) against the interpreter: compiled
//! code must leave exactly the state the interpreter leaves — registers,
//! pc, instruction count, memory, the event that stopped the CPU — however
//! the instruction budget slices the run, and must see stores into code,
//! other agents' reservations and faults exactly as the interpreter does.
//! Every test also checks that code really was compiled, so none of them
//! can pass by interpreting.

mod common;
use alpha_emu::memory::{MemoryKind, Perm};
use alpha_emu::{Event, Machine};
use common::*;
use proptest::prelude::*;

/// (event, registers, pc, instruction count, first 4 KiB of data).
type Outcome = (Event, Vec<u64>, u64, u64, Vec<u8>);

/// How a machine executes: reference semantics only, the micro-op
/// interpreter only, or compiled after `n` arrivals — over portable
/// memory, or (`Host…`) over host-mapped memory, where compiled accesses
/// are host accesses and every refused one is a host fault.
#[derive(Clone, Copy, Debug)]
enum Tier {
    Reference,
    Interpreter,
    Jit(u32),
    HostInterpreter,
    HostJit(u32),
}

impl Tier {
    fn kind(self) -> MemoryKind {
        match self {
            Tier::HostInterpreter | Tier::HostJit(_) => MemoryKind::HostMapped,
            _ => MemoryKind::Portable,
        }
    }
    fn compiles(self) -> bool {
        matches!(self, Tier::Jit(_) | Tier::HostJit(_))
    }
    /// Set up `m` (built over [`Tier::kind`]) to execute this way.
    fn apply(self, m: &mut Machine) {
        match self {
            Tier::Reference => m.set_fast_path(false),
            Tier::Interpreter | Tier::HostInterpreter => m.set_jit(None),
            Tier::Jit(n) | Tier::HostJit(n) => {
                m.set_jit(Some(n));
                m.set_jit_background(false);
            }
        }
    }
}

/// Every tier that is not the reference, compiling after 1 and 2 arrivals.
const TIERS: [Tier; 6] = [
    Tier::Interpreter,
    Tier::Jit(1),
    Tier::Jit(2),
    Tier::HostInterpreter,
    Tier::HostJit(1),
    Tier::HostJit(2),
];

/// The interpreter and compiled code at once, over both memories.
const PAIRS: [Tier; 4] = [
    Tier::Interpreter,
    Tier::Jit(1),
    Tier::HostInterpreter,
    Tier::HostJit(1),
];

fn machine(model: &str, src: &str, regs: &[u64; 8], tier: Tier) -> Machine {
    let mut m = machine_with_kind(model, 1, src, tier.kind());
    tier.apply(&mut m);
    m.cpus[0].r[1..9].copy_from_slice(regs);
    m.cpus[0].r[9] = DATA;
    m
}

fn outcome(m: &Machine, ev: Event) -> Outcome {
    let c = &m.cpus[0];
    (ev, c.r.to_vec(), c.pc, c.icount, data(m, 0, 4096))
}

/// Run to the first event other than an exhausted budget, in slices of
/// `slice` instructions (at most `limit` in all).
fn run_sliced(m: &mut Machine, slice: u64, limit: u64) -> Event {
    loop {
        let ev = m.run(0, slice);
        if ev != Event::BudgetExhausted || m.cpus[0].icount >= limit {
            return ev;
        }
    }
}

/// A random loop body repeated `iters` times (counter in $11).
fn looped(body: &str, iters: u8) -> String {
    let body = body.trim_end().trim_end_matches("halt");
    format!(
        "    lda $11, {}($31)\n2:\n{body}    subq $11, 1, $11\n    bne $11, 2b\n    halt\n",
        2 + iters % 6
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Random loops of every compiled micro-op (and misaligned, wild and
    /// BWX accesses that stop with an event) end in the same state whether
    /// compiled at once, compiled after a few arrivals, interpreted, or run
    /// on the reference semantics, and whatever the budget slices.
    #[test]
    fn jit_random_loops_equal_the_interpreter(
        choices in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 1..30),
        regs in any::<[u64; 8]>(),
        iters in any::<u8>(),
        slice in 1u64..40,
        ev5 in any::<bool>(),
    ) {
        let model = if ev5 { "ev5" } else { "ev67" };
        let src = looped(&render(&choices), iters);
        let mut reference = machine(model, &src, &regs, Tier::Reference);
        let ev = run_sliced(&mut reference, 100_000, 100_000);
        let want = outcome(&reference, ev);
        for tier in TIERS {
            for s in [100_000, slice] {
                let mut m = machine(model, &src, &regs, tier);
                let ev = run_sliced(&mut m, s, 100_000);
                prop_assert_eq!(&outcome(&m, ev), &want, "{:?} slice {}\n{}", tier, s, src);
                // A loop that ran to its end went round at least twice: its
                // head must have been compiled, unless the loop needs the
                // interpreter on every pass (CTPOP has no compiled form;
                // on ev5 neither have the BWX instructions).
                let compilable = !ev5 && !src.contains("ctpop");
                if matches!(tier, Tier::Jit(1) | Tier::HostJit(1)) && compilable && s == 100_000
                    && ev == (Event::CallPal { func: 0 }) {
                    prop_assert!(m.jit_stats().regions > 0, "nothing was compiled\n{}", src);
                }
            }
        }
    }
}

/// A loop that calls a subroutine directly (BSR) and indirectly (JSR
/// through a register), the subroutine returning with RET; `pad` no-ops
/// between them put the loop anywhere, across a page boundary too.
fn with_calls(body1: &str, body2: &str, body3: &str, iters: u8, pad: usize) -> String {
    let strip = |b: &str| b.trim_end().trim_end_matches("halt").to_string();
    format!(
        "    lda $11, {}($31)\n    br $31, 2f\n7:  br $12, 6f\n6:\n{}    ret $31, ($26)\n{}2:\n{}    bsr $26, 7b\n{}    jsr $26, ($12)\n    subq $11, 1, $11\n    bne $11, 2b\n    halt\n",
        2 + iters % 6,
        strip(body2),
        "    nop\n".repeat(pad),
        strip(body1),
        strip(body3),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Random loops with direct and indirect calls and returns, whose code
    /// may straddle a page boundary, end in the same state compiled (at
    /// once or after a few arrivals) as interpreted or on the reference
    /// semantics, whatever the budget slices.
    #[test]
    fn jit_random_calls_and_page_crossings_equal_the_interpreter(
        c1 in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 0..12),
        c2 in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 0..12),
        c3 in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 0..12),
        regs in any::<[u64; 8]>(),
        iters in any::<u8>(),
        slice in 1u64..40,
        pad in prop_oneof![0usize..8, 2020usize..2048],
    ) {
        let src = with_calls(&render(&c1), &render(&c2), &render(&c3), iters, pad);
        let mut reference = machine("ev67", &src, &regs, Tier::Reference);
        let ev = run_sliced(&mut reference, 100_000, 100_000);
        let want = outcome(&reference, ev);
        for tier in TIERS {
            for s in [100_000, slice] {
                let mut m = machine("ev67", &src, &regs, tier);
                let ev = run_sliced(&mut m, s, 100_000);
                prop_assert_eq!(&outcome(&m, ev), &want, "{:?} slice {}\n{}", tier, s, src);
                if matches!(tier, Tier::Jit(1) | Tier::HostJit(1)) && s == 100_000
                    && ev == (Event::CallPal { func: 0 }) {
                    prop_assert!(m.jit_stats().regions > 0, "nothing was compiled\n{}", src);
                    prop_assert!(m.jit_stats().retired > 0, "nothing ran compiled\n{}", src);
                }
            }
        }
    }
}

/// Floating-point and CIX templates (`X`/`Y`/`Z` are $f1-$f8, `A` is
/// $1-$8, `D` a displacement into the data area): compiled code runs them
/// by calling the interpreter's own functions, and leaves before any that
/// would trap (division by zero, invalid operands, a bad address).
const FP_TEMPLATES: &[&str] = &[
    "itoft A, X",
    "ftoit X, A",
    "addt X, Y, Z",
    "subt X, Y, Z",
    "mult X, Y, Z",
    "divt X, Y, Z",
    "divt/su X, Y, Z",
    "adds/sui X, Y, Z",
    "cmptlt X, Y, Z",
    "cvtqt X, Z",
    "cvttq/c X, Z",
    "cpys X, Y, Z",
    "cpysn X, Y, Z",
    "fcmovne X, Y, Z",
    "sqrtt/su X, Z",
    "ldt X, D($9)",
    "stt X, D($9)",
    "lds X, D($9)",
    "sts X, D($9)",
    "ldt X, 4($9)",
    "fbeq X, 1f",
    "fblt X, 1f",
    "fbge X, 1f",
    "ctpop A, A",
    "ctlz A, A",
    "cttz A, A",
    "minub8 A, A, A",
    "mb",
    "trapb",
    "addq A, 1, A",
    "stq A, D($9)",
];

/// A template's operands filled in: X, Y, Z are $f1–$f8, A is $1–$8 (from
/// `x`), D a quadword-aligned displacement below 4 KiB.
fn fill_operands(t: &str, x: u8, y: u8, z: u8, d: u16) -> String {
    t.replace('X', &format!("$f{}", 1 + x % 8))
        .replace('Y', &format!("$f{}", 1 + y % 8))
        .replace('Z', &format!("$f{}", 1 + z % 8))
        .replace('A', &format!("${}", 1 + x % 8))
        .replace('D', &format!("{}", (d % 512) * 8))
}

fn render_fp(choices: &[(usize, u8, u8, u8, u16)]) -> String {
    let mut s = String::new();
    for &(t, x, y, z, d) in choices {
        let line = fill_operands(FP_TEMPLATES[t % FP_TEMPLATES.len()], x, y, z, d);
        s += &format!("    {line}\n    addq $10, 1, $10\n1:\n");
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// Random loops of floating-point, CIX and MVI instructions (with
    /// traps, unaligned and FPCR-changing ones) end in the same state —
    /// registers, FP registers, FPCR, memory, pc, count, event — compiled
    /// as interpreted, whatever the budget slices.
    #[test]
    fn jit_random_fp_loops_equal_the_interpreter(
        choices in proptest::collection::vec(any::<(usize, u8, u8, u8, u16)>(), 1..24),
        regs in any::<[u64; 8]>(),
        iters in any::<u8>(),
        slice in 1u64..40,
    ) {
        let src = looped(&render_fp(&choices), iters);
        let run = |tier: Tier, s: u64| {
            let mut m = machine("ev67", &src, &regs, tier);
            let ev = run_sliced(&mut m, s, 100_000);
            let c = &m.cpus[0];
            (outcome(&m, ev), c.f.to_vec(), c.fpcr, m.jit_stats())
        };
        let want = run(Tier::Reference, 100_000);
        for tier in TIERS {
            for s in [100_000, slice] {
                let got = run(tier, s);
                prop_assert_eq!(&got.0, &want.0, "{:?} slice {}\n{}", tier, s, src);
                prop_assert_eq!(&got.1, &want.1, "FP registers, {:?} slice {}\n{}", tier, s, src);
                prop_assert_eq!(got.2, want.2, "FPCR, {:?} slice {}\n{}", tier, s, src);
                if matches!(tier, Tier::Jit(1) | Tier::HostJit(1)) && s == 100_000
                    && want.0.0 == (Event::CallPal { func: 0 }) {
                    prop_assert!(got.3.retired > 0, "nothing ran compiled\n{}", src);
                }
            }
        }
    }
}

/// IEEE and FP-move templates for the in-line floating point: `Q` is a
/// qualifier of the instruction's class (`X`/`Y`/`Z` are $f1-$f8, `A` is
/// $1-$8, `D` a displacement into the data area).
const IEEE_TEMPLATES: &[(&str, &[&str])] = &[
    ("addtQ X, Y, Z", ARITH_QUALS),
    ("subtQ X, Y, Z", ARITH_QUALS),
    ("multQ X, Y, Z", ARITH_QUALS),
    ("divtQ X, Y, Z", ARITH_QUALS),
    ("addsQ X, Y, Z", ARITH_QUALS),
    ("subsQ X, Y, Z", ARITH_QUALS),
    ("mulsQ X, Y, Z", ARITH_QUALS),
    ("divsQ X, Y, Z", ARITH_QUALS),
    ("sqrttQ X, Z", ARITH_QUALS),
    ("cvttsQ X, Z", ARITH_QUALS),
    ("cvtstQ X, Z", &["", "/s"]),
    ("cmpteqQ X, Y, Z", &["", "/su"]),
    ("cmptltQ X, Y, Z", &["", "/su"]),
    ("cmptleQ X, Y, Z", &["", "/su"]),
    ("cmptunQ X, Y, Z", &["", "/su"]),
    ("cvtqtQ X, Z", &["", "/c", "/m", "/d", "/sui", "/suid"]),
    (
        "cvttqQ X, Z",
        &[
            "/c", "", "/m", "/d", "/v", "/vc", "/vd", "/svc", "/sv", "/svd", "/svic", "/svi",
        ],
    ),
    ("ldt X, D($9)", &[""]),
    ("stt X, D($9)", &[""]),
    ("lds X, D($9)", &[""]),
    ("sts X, D($9)", &[""]),
    ("ldt X, 4($9)", &[""]),
    ("sts X, 2($9)", &[""]),
    ("cpys X, Y, Z", &[""]),
    ("cpysn X, Y, Z", &[""]),
    ("cpyse X, Y, Z", &[""]),
    ("fcmovQ X, Y, Z", &["eq", "ne", "lt", "ge", "le", "gt"]),
    ("fbQ X, 1f", &["eq", "ne", "lt", "ge", "le", "gt"]),
    ("itoft A, X", &[""]),
    ("itofs A, X", &[""]),
    ("ftoit X, A", &[""]),
    ("ftois X, A", &[""]),
    ("mt_fpcr X", &[""]),
    ("mf_fpcr X", &[""]),
    ("addq A, 1, A", &[""]),
];

const ARITH_QUALS: &[&str] = &[
    "", "", "", "/c", "/m", "/d", "/d", "/u", "/ud", "/su", "/sud", "/sui", "/suid", "/suc",
];

/// FP register values that reach every path: zeros of both signs,
/// denormals, the smallest normal, huge and tiny values, infinities,
/// quiet and signalling NaNs, 2^63, exact and inexact fractions, small
/// integers (denormals as T, operands of CVTQT).
const FP_SPECIALS: &[u64] = &[
    0,
    1 << 63,
    1,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0001,
    0x3ff0_0000_0000_0000, // 1.0
    0xc004_0000_0000_0000, // -2.5
    0x4008_0000_0000_0000, // 3.0
    0x3fd5_5555_5555_5555, // 1/3
    0x3fb9_9999_9999_999a, // 0.1
    0x7fef_ffff_ffff_ffff, // largest finite
    0x7e37_e43c_8800_759c, // 1e300
    0x01a5_6e1f_c2f8_f359, // 1e-300
    0x43e0_0000_0000_0000, // 2^63
    0xc3df_ffff_ffff_ffff, // just above -2^63
    0x4330_0000_0000_0001, // 2^52 + 1
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0000,
    0xfff8_0000_0000_0001,
    0x2000_0000,           // an S denormal's register image
    0x3810_0000_0000_0000, // the smallest normal S
    0x47ef_ffff_e000_0000, // the largest S
    0x3ff0_0000_2000_0000, // 1 + 2^-23 (S) with low T bits clear
    5,
    (-7i64) as u64,
    i64::MAX as u64,
];

/// The Linux IEEE control words a process may run with (`/S` reads it).
const IEEE_CTLS: &[u64] = &[
    0,
    0,
    0x3e,    // every trap enabled
    1 << 5,  // inexact enabled
    1 << 12, // map denormal operands to zero
    1 << 13, // map underflowed results to zero
    0x3e | 3 << 12,
];

fn render_ieee(choices: &[(usize, u8, u8, u8, u8, u16)]) -> String {
    let mut s = String::new();
    for &(t, x, y, z, q, d) in choices {
        let (t, quals) = IEEE_TEMPLATES[t % IEEE_TEMPLATES.len()];
        let line = fill_operands(&t.replace('Q', quals[q as usize % quals.len()]), x, y, z, d);
        s += &format!("    {line}\n    addq $10, 1, $10\n1:\n");
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Random loops of IEEE S and T arithmetic, square roots, compares and
    /// conversions in every qualifier, FP loads, stores, moves, FCMOVs and
    /// branches, on
    /// operands that include zeros of both signs, denormals, infinities,
    /// NaNs, huge and tiny values, under every FPCR rounding mode (also
    /// changed by MT_FPCR in the loop) and Linux IEEE control word, end in
    /// the same state — integer and FP registers, FPCR, memory, pc, count,
    /// event — compiled (in line, or by the interpreter's function where
    /// the in-line path declines) as interpreted, whatever the budget
    /// slices, on CPUs with and without FIX.
    #[test]
    fn jit_random_ieee_loops_equal_the_interpreter(
        choices in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 1..24),
        regs in any::<[u64; 8]>(),
        fsel in any::<[u8; 8]>(),
        fpcr_bits in any::<u8>(),
        ctl in any::<u8>(),
        iters in any::<u8>(),
        slice in 1u64..40,
        ev5 in any::<bool>(),
    ) {
        // EV5 has no FIX: ITOFx/FTOIx raise OPCDEC there.
        let model = if ev5 { "ev5" } else { "ev67" };
        let src = looped(&render_ieee(&choices), iters);
        // DYN from the low two bits; sometimes sticky status already set.
        let dynamic = u64::from(fpcr_bits & 3) << 58;
        let status = if fpcr_bits & 0x80 != 0 {
            u64::from((fpcr_bits >> 2) & 0x1f) << 52
        } else {
            0
        };
        let fpcr = alpha_emu::fp::fpcr::with_summary(dynamic | status);
        let ieee_ctl = IEEE_CTLS[ctl as usize % IEEE_CTLS.len()];
        let run = |tier: Tier, s: u64| {
            let mut m = machine(model, &src, &regs, tier);
            for (k, &v) in fsel.iter().enumerate() {
                m.cpus[0].f[1 + k] = FP_SPECIALS[v as usize % FP_SPECIALS.len()];
            }
            m.cpus[0].fpcr = fpcr;
            m.cpus[0].ieee_ctl = ieee_ctl;
            let ev = run_sliced(&mut m, s, 100_000);
            let c = &m.cpus[0];
            (outcome(&m, ev), c.f.to_vec(), c.fpcr, m.jit_stats())
        };
        let want = run(Tier::Reference, 100_000);
        for tier in TIERS {
            for s in [100_000, slice] {
                let got = run(tier, s);
                prop_assert_eq!(&got.0, &want.0, "{:?} slice {}\n{}", tier, s, src);
                prop_assert_eq!(&got.1, &want.1, "FP registers, {:?} slice {}\n{}", tier, s, src);
                prop_assert_eq!(got.2, want.2, "FPCR, {:?} slice {}\n{}", tier, s, src);
                if matches!(tier, Tier::Jit(1) | Tier::HostJit(1)) && s == 100_000
                    && want.0.0 == (Event::CallPal { func: 0 }) {
                    prop_assert!(got.3.retired > 0, "nothing ran compiled\n{}", src);
                }
            }
        }
    }
}

/// A loop of plain T arithmetic, compares, conversions and FP moves (the
/// shape GCC emits for `fp_kernel`) equals the interpreter's run, and
/// retires almost all of it compiled in line: without leaving for the
/// interpreter or calling its functions.
#[test]
fn jit_plain_t_arithmetic_loop_stays_compiled_and_equals_the_interpreter() {
    let src = "
        lda $11, 500($31)
        ldt $f1, 0($9)
        ldt $f2, 8($9)
        cpys $f31, $f31, $f3
    2:  mult $f1, $f2, $f4
        addt $f3, $f4, $f3
        divt $f3, $f2, $f5
        subt $f5, $f1, $f6
        cmptlt $f6, $f3, $f7
        fcmovne $f7, $f6, $f3
        cvttq/c $f5, $f8
        cvtqt $f8, $f9
        stt $f3, 16($9)
        subq $11, 1, $11
        bne $11, 2b
        halt";
    let setup = |m: &mut Machine| {
        m.mem.poke(DATA, &1.25f64.to_bits().to_le_bytes()).unwrap();
        m.mem
            .poke(DATA + 8, &3.5f64.to_bits().to_le_bytes())
            .unwrap();
    };
    let mut plain = machine("ev67", src, &[0; 8], Tier::Interpreter);
    setup(&mut plain);
    run_to_halt(&mut plain);
    let mut m = machine("ev67", src, &[0; 8], Tier::Jit(1));
    setup(&mut m);
    run_to_halt(&mut m);
    assert_eq!(
        outcome(&m, Event::BudgetExhausted),
        outcome(&plain, Event::BudgetExhausted)
    );
    assert_eq!(m.cpus[0].f, plain.cpus[0].f);
    assert_eq!(m.cpus[0].fpcr, plain.cpus[0].fpcr);
    let s = m.jit_stats();
    assert!(s.retired >= 500 * 11 - 30, "{s:?}");
    assert_eq!(
        s.exits[alpha_emu::jit::Exit::Interpret as usize],
        0,
        "{s:?}"
    );
    assert_eq!(s.helper_calls, 0, "{s:?}");
}

/// The cases the in-line path declines are the interpreter function's: a
/// `/SUI` add (inexact reported) and an add of a denormal run it, and
/// record inexact in the FPCR as the interpreter does.
#[test]
fn jit_fp_the_in_line_path_declines_calls_the_interpreter_function() {
    let src = "
        lda $11, 300($31)
    2:  addt/sui $f1, $f2, $f3
        addt/su $f1, $f4, $f5
        addt $f1, $f2, $f6
        subq $11, 1, $11
        bne $11, 2b
        halt";
    let run = |tier: Tier| {
        let mut m = machine("ev67", src, &[0; 8], tier);
        m.cpus[0].f[1] = 1.0f64.to_bits();
        m.cpus[0].f[2] = 0.1f64.to_bits();
        m.cpus[0].f[4] = 1; // a denormal
        run_to_halt(&mut m);
        m
    };
    let plain = run(Tier::Interpreter);
    let m = run(Tier::Jit(1));
    assert_eq!(m.cpus[0].f, plain.cpus[0].f);
    assert_eq!(m.cpus[0].fpcr, plain.cpus[0].fpcr);
    assert_ne!(m.cpus[0].fpcr & alpha_emu::fp::fpcr::FPCR_INE, 0);
    let s = m.jit_stats();
    assert!(s.retired >= 290 * 5, "{s:?}");
    // Two of the three adds of each compiled pass call the function.
    assert!(s.helper_calls >= 2 * 290, "{s:?}");
    assert!(s.helper_calls <= 2 * 300, "{s:?}");
}

/// Straight-line code and a subroutine called from a loop are compiled,
/// not only loops, and the run leaves compiled code for the subroutine and
/// back without waiting for the interpreter in between (chained exits).
#[test]
fn jit_compiles_straight_line_code_and_calls() {
    let src = "
        lda $11, 200($31)
    2:  bsr $26, 7f
        addq $1, $2, $3
        subq $11, 1, $11
        bne $11, 2b
        halt
    7:  addq $1, 1, $1
        addq $2, 2, $2
        ret $31, ($26)";
    let mut plain = machine("ev67", src, &[0; 8], Tier::Interpreter);
    run_to_halt(&mut plain);
    let mut m = machine("ev67", src, &[0; 8], Tier::Jit(1));
    run_to_halt(&mut m);
    assert_eq!(
        outcome(&m, Event::BudgetExhausted),
        outcome(&plain, Event::BudgetExhausted)
    );
    assert_eq!(m.cpus[0].r[3], 600);
    let s = m.jit_stats();
    // The loop head (with the subroutine in line) and the return point.
    assert!(s.regions >= 2, "{s:?}");
    // Almost everything ran compiled: 1 + 200 * 7 + 1 instructions.
    assert!(s.retired >= 200 * 7 - 20, "{s:?}");
    // Each return goes straight on to the region at the return point
    // through the link table: the run loop sees almost none of them.
    assert!(s.links >= 190, "{s:?}");
    assert!(s.entries <= 10, "{s:?}");
}

/// A counting loop; the budget is honoured to the instruction when it runs
/// compiled, one instruction or a few at a time.
#[test]
fn jit_budget_is_exact_in_compiled_loops() {
    let src = "
        lda $2, 300($31)
    1:  addq $1, 3, $1
        stq $1, 0($9)
        ldq $3, 0($9)
        subq $2, 1, $2
        bne $2, 1b
        halt";
    let mut whole = machine("ev67", src, &[0; 8], Tier::Interpreter);
    run_to_halt(&mut whole);
    for slice in [1u64, 2, 3, 7, 1000] {
        let mut m = machine("ev67", src, &[0; 8], Tier::Jit(1));
        // Go round the loop a few times first, so that it is compiled
        // before the small slices start.
        assert_eq!(m.run(0, 20), Event::BudgetExhausted);
        assert!(m.jit_stats().regions > 0);
        let mut expect = 20;
        loop {
            let ev = m.run(0, slice);
            if ev != Event::BudgetExhausted {
                assert_eq!(ev, Event::CallPal { func: 0 });
                break;
            }
            expect += slice;
            assert_eq!(m.cpus[0].icount, expect, "slice {slice}");
        }
        // lda, 300 passes of 5, and the halt.
        assert_eq!(m.cpus[0].icount, 1 + 300 * 5 + 1, "slice {slice}");
        assert_eq!(
            outcome(&m, Event::BudgetExhausted),
            outcome(&whole, Event::BudgetExhausted)
        );
        assert_eq!(m.cpus[0].r[1], 900);
        assert!(m.jit_stats().regions > 0);
    }
}

/// A compiled loop that stores a new instruction into its own page: the
/// next execution of that address runs the new instruction (Handbook §6.6
/// needs an IMB; we are stricter, like the interpreter).
#[test]
fn jit_store_into_its_own_code_takes_effect() {
    let src = "
        lda $6, 3($31)
        br $4, 1f
    1:  addq $3, $7, $3
        ldl $5, 24($4)
        stl $5, 0($4)
        subq $6, 1, $6
        bne $6, 1b
        halt
        addq $3, 100, $3";
    for tier in PAIRS {
        let mut m = machine("ev67", src, &[0; 8], tier);
        m.cpus[0].r[7] = 1;
        m.mem.protect(CODE, 0x2000, Perm::RWX).unwrap();
        run_to_halt(&mut m);
        // First pass adds 1, the next two add 100.
        assert_eq!(m.cpus[0].r[3], 201, "{tier:?}");
        if tier.compiles() {
            assert!(m.jit_stats().regions > 0);
        }
        if matches!(tier, Tier::HostJit(_)) {
            // The host write-protected the code page: the compiled store
            // faulted, and memory dropped the code before storing.
            let s = m.jit_stats();
            assert!(s.faults_page > 0 && s.code_faults > 0, "{s:?}");
        }
    }
}

/// Stores from compiled code clear another CPU's LDx_L reservation even
/// when the page was already in the compiled code's write table before the
/// reservation was armed.
#[test]
fn jit_stores_break_other_cpus_reservations() {
    let src = "
        ldq_l $1, 0($9)
        addq $1, 1, $1
        stq_c $1, 0($9)
        halt
    cpu1:
        lda $2, 100($31)
    2:  stq $2, 8($9)
        subq $2, 1, $2
        bne $2, 2b
        halt";
    for tier in PAIRS {
        let mut m = machine_with_kind("ev67", 2, src, tier.kind());
        tier.apply(&mut m);
        for c in &mut m.cpus {
            c.r[9] = DATA;
        }
        m.cpus[1].pc = CODE + 16;
        // CPU 1 stores for a while (its store page becomes cached) ...
        assert_eq!(m.run(1, 40), Event::BudgetExhausted);
        // ... CPU 0 arms its reservation ...
        assert_eq!(m.run(0, 1), Event::BudgetExhausted);
        assert!(m.mem.reservation(0).lock_flag);
        // ... CPU 1's next store into the locked range must clear it.
        assert_eq!(m.run(1, 1_000), Event::CallPal { func: 0 });
        assert!(!m.mem.reservation(0).lock_flag, "{tier:?}");
        assert_eq!(m.run(0, 100), Event::CallPal { func: 0 });
        assert_eq!(m.cpus[0].r[1], 0, "stq_c must fail ({tier:?})");
        assert_eq!(m.mem.lock_breaks, 1);
        if tier.compiles() {
            assert!(m.jit_stats().regions > 0);
        }
    }
}

/// A compiled loop walking off the end of the data area stops with the
/// interpreter's fault, at the same pc and instruction count.
#[test]
fn jit_faults_match_the_interpreter() {
    let src = "
    1:  ldq $2, 0($9)
        stq $2, 8($9)
        lda $9, 4096($9)
        br 1b";
    let mut results = Vec::new();
    for tier in PAIRS {
        let mut m = machine("ev67", src, &[0; 8], tier);
        let ev = m.run(0, 1_000_000);
        assert!(
            matches!(ev, Event::MemFault { .. }),
            "{tier:?} stopped with {ev:?}"
        );
        results.push(outcome(&m, ev));
        if tier.compiles() {
            assert!(m.jit_stats().regions > 0);
        }
        if matches!(tier, Tier::HostJit(_)) {
            // The unmapped page was a host fault in compiled code.
            assert_eq!(m.jit_stats().faults_page, 1, "{:?}", m.jit_stats());
        }
    }
    assert!(results.iter().all(|r| *r == results[0]), "{results:?}");
}

/// A copy of a machine (what a schedule explorer makes) starts without
/// compiled code and still computes the same thing.
#[test]
fn jit_machine_clone_runs_independently() {
    let src = "
        lda $2, 1000($31)
    1:  addq $1, $2, $1
        stq $1, 0($9)
        subq $2, 1, $2
        bne $2, 1b
        halt";
    let mut m = machine("ev67", src, &[0; 8], Tier::Jit(1));
    assert_eq!(m.run(0, 2000), Event::BudgetExhausted);
    let mut copy = m.clone();
    assert_eq!(copy.jit_stats().regions, 0);
    run_to_halt(&mut m);
    run_to_halt(&mut copy);
    assert_eq!(m.cpus[0].r[1], 500_500);
    assert_eq!(copy.cpus[0].r[1], 500_500);
    assert_eq!(data(&m, 0, 8), data(&copy, 0, 8));
    // The copy wrote its own memory, not the original's pages.
    copy.mem.poke(DATA, &[0; 8]).unwrap();
    assert_eq!(data(&m, 0, 8), 500_500u64.to_le_bytes());
}

/// The default: regions are compiled in a background thread and installed
/// when ready. Whenever they arrive, the results are the interpreter's.
#[test]
fn jit_background_compiling_changes_nothing_but_speed() {
    let src = "
        lda $2, 20000($31)
    1:  addq $1, $2, $1
        stq $1, 0($9)
        ldq $3, 0($9)
        xor $3, $2, $4
        subq $2, 1, $2
        bne $2, 1b
        halt";
    let mut reference = machine("ev67", src, &[0; 8], Tier::Interpreter);
    run_to_halt(&mut reference);
    let want = outcome(&reference, Event::BudgetExhausted);
    let mut m = machine_with("ev67", 1, src);
    m.set_jit(Some(10));
    m.cpus[0].r[9] = DATA;
    // Run a little, let the compiler finish, run the rest in slices.
    assert_eq!(m.run(0, 500), Event::BudgetExhausted);
    m.jit_wait();
    assert!(m.jit_stats().regions > 0, "the loop was not compiled");
    assert_eq!(
        run_sliced(&mut m, 777, 1_000_000),
        Event::CallPal { func: 0 }
    );
    assert_eq!(outcome(&m, Event::BudgetExhausted), want);
}

/// Two CPUs increment one counter with LDQ_L/STQ_C retry loops (and store
/// beside it), scheduled in small alternating slices: with compiled code
/// around the LL/SC pair every reservation is kept and broken exactly as
/// the interpreter does, so the counter, the failed STQ_C count, memory,
/// registers and instruction counts all agree.
#[test]
fn jit_llsc_under_contention_equals_the_interpreter() {
    let src = "
        lda $2, 300($31)
    1:  ldq_l $1, 0($9)
        addq $1, 1, $1
        addq $5, $1, $5
        stq_c $1, 0($9)
        beq $1, 3f
        stq $2, 8($9)
        subq $2, 1, $2
        bne $2, 1b
        halt
    3:  addq $6, 1, $6
        br 1b";
    let run = |tier: Tier, slices: &[u64]| {
        let mut m = machine_with_kind("ev67", 2, src, tier.kind());
        tier.apply(&mut m);
        for c in &mut m.cpus {
            c.r[9] = DATA;
        }
        let mut done = [false; 2];
        let mut k = 0;
        while !(done[0] && done[1]) {
            for cpu in [0usize, 1] {
                if done[cpu] {
                    continue;
                }
                let ev = m.run(cpu, slices[k % slices.len()]);
                k += 1;
                match ev {
                    Event::BudgetExhausted => {}
                    Event::CallPal { func: 0 } => done[cpu] = true,
                    other => panic!("cpu {cpu}: {other:?}"),
                }
            }
        }
        let regs: Vec<_> = m
            .cpus
            .iter()
            .map(|c| (c.r.to_vec(), c.pc, c.icount))
            .collect();
        (regs, data(&m, 0, 16), m.mem.lock_breaks, m.jit_stats())
    };
    for slices in [&[3u64, 5, 7][..], &[1, 2], &[11, 4, 9, 1]] {
        let want = run(Tier::Interpreter, slices);
        for tier in [Tier::Jit(1), Tier::HostInterpreter, Tier::HostJit(1)] {
            let got = run(tier, slices);
            assert_eq!(got.0, want.0, "registers, slices {slices:?} {tier:?}");
            assert_eq!(got.1, want.1, "memory, slices {slices:?} {tier:?}");
            assert_eq!(got.2, want.2, "lock breaks, slices {slices:?} {tier:?}");
            if !tier.compiles() {
                continue;
            }
            // Both CPUs did all 300 increments, and some STQ_C failed.
            assert_eq!(u64::from_le_bytes(got.1[..8].try_into().unwrap()), 600);
            assert!(
                got.0[0].0[6] + got.0[1].0[6] > 0,
                "no contention, slices {slices:?}"
            );
            assert!(got.3.retired > 0, "nothing ran compiled, slices {slices:?}");
            if matches!(tier, Tier::HostJit(_)) {
                // Stores beside the other CPU's armed range hit its
                // write-protected page.
                assert!(got.3.lock_faults > 0, "{:?}", got.3);
            }
        }
    }
}

/// An interpreter-style dispatch loop: a random body, then a jump through
/// a computed address into one of four random cases of 16 instructions
/// (a jump table), each ending with a branch back to the body.
fn dispatch(body: &str, cases: &[String], iters: u8) -> String {
    let strip = |b: &str| b.trim_end().trim_end_matches("halt").to_string();
    let mut s = format!("    lda $11, {}($31)\n    br $13, 3f\n", 3 + iters % 8);
    for case in cases {
        let case = strip(case);
        let n = case
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim().ends_with(':'))
            .count();
        assert!(n <= 15, "case too long");
        s += &case;
        s += "\n    br $31, 3f\n";
        s += &"    nop\n".repeat(15 - n);
    }
    s += &format!(
        "3:\n{}\n    subq $11, 1, $11\n    beq $11, 9f\n    addq $1, $11, $14\n    and $14, 3, $14\n    sll $14, 6, $14\n    addq $13, $14, $14\n    jmp $31, ($14)\n9:  halt\n",
        strip(body)
    );
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Random dispatch loops (indirect jumps through a computed target into
    /// a table of cases, each case its own compiled region linked to the
    /// others) end in the same state compiled as interpreted, whatever the
    /// budget slices.
    #[test]
    fn jit_random_jump_tables_equal_the_interpreter(
        body in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 0..10),
        cases in proptest::collection::vec(
            proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 0..7), 4),
        regs in any::<[u64; 8]>(),
        iters in any::<u8>(),
        slice in 1u64..40,
    ) {
        let cases: Vec<String> = cases.iter().map(|c| render(c)).collect();
        let src = dispatch(&render(&body), &cases, iters);
        let mut reference = machine("ev67", &src, &regs, Tier::Reference);
        let ev = run_sliced(&mut reference, 100_000, 100_000);
        let want = outcome(&reference, ev);
        for tier in TIERS {
            for s in [100_000, slice] {
                let mut m = machine("ev67", &src, &regs, tier);
                let ev = run_sliced(&mut m, s, 100_000);
                prop_assert_eq!(&outcome(&m, ev), &want, "{:?} slice {}\n{}", tier, s, src);
            }
        }
    }
}

/// A small program with calls, returns and a jump table: stopped after
/// every possible number of instructions, compiled code (linking from
/// region to region) leaves exactly the interpreter's state — the budget is
/// exact across links.
#[test]
fn jit_budget_is_exact_at_every_count_across_links() {
    let cases = [
        "    addq $1, 3, $1\n".to_string(),
        "    bsr $26, 7f\n    addq $2, $1, $2\n".to_string(),
        "    stq $1, 8($9)\n    ldq $3, 8($9)\n    addq $3, $2, $2\n".to_string(),
        "    subq $2, 1, $2\n".to_string(),
    ];
    let src = format!(
        "{}7:  addq $5, 1, $5\n    ret $31, ($26)\n",
        dispatch("    addq $4, $2, $4\n", &cases, 7)
    );
    let mut whole = machine("ev67", &src, &[1, 2, 3, 4, 5, 6, 7, 8], Tier::Interpreter);
    run_to_halt(&mut whole);
    let total = whole.cpus[0].icount;
    assert!(total > 100, "{total}");
    let mut linked = 0;
    for k in 1..=total {
        let mut want = machine("ev67", &src, &[1, 2, 3, 4, 5, 6, 7, 8], Tier::Interpreter);
        let ev = want.run(0, k);
        let want = outcome(&want, ev);
        let mut m = machine("ev67", &src, &[1, 2, 3, 4, 5, 6, 7, 8], Tier::Jit(1));
        let ev = m.run(0, k);
        assert_eq!(outcome(&m, ev), want, "budget {k}");
        linked = linked.max(m.jit_stats().links);
    }
    assert!(linked >= 5, "regions were hardly linked: {linked}");
}

/// A store into a subroutine that compiled code already links to (its
/// caller's region holds it in line, and the return point is a region of
/// its own) takes effect at once: the stale regions and links are dropped.
#[test]
fn jit_store_into_linked_code_takes_effect() {
    let src = "
        lda $6, 6($31)
        br $4, 1f
    1:  bsr $26, 7f
        subq $6, 1, $6
        cmpeq $6, 3, $8
        beq $8, 2f
        ldl $5, 40($4)
        stl $5, 32($4)
    2:  bne $6, 1b
        halt
    7:  addq $3, 1, $3
        ret $31, ($26)
        addq $3, 100, $3";
    let mut want = None;
    for tier in PAIRS {
        let mut m = machine("ev67", src, &[0; 8], tier);
        m.mem.protect(CODE, 0x2000, Perm::RWX).unwrap();
        run_to_halt(&mut m);
        // Three calls add 1, the three after the store add 100.
        assert_eq!(m.cpus[0].r[3], 303, "{tier:?}");
        let got = outcome(&m, Event::BudgetExhausted);
        if let Tier::Jit(_) = tier {
            let s = m.jit_stats();
            assert!(s.links > 0, "{s:?}");
            assert!(s.exits[alpha_emu::jit::Exit::Code as usize] > 0, "{s:?}");
            assert_eq!(Some(got), want);
        } else {
            want = Some(got);
        }
    }
}

/// An in-line `rduniq` as the last instruction of a page, reached again
/// and again by a branch from the next page: the run loop counts arrivals
/// in the page but not at its end (it once indexed past the page's
/// arrival counters there), at every compile threshold.
#[test]
fn inline_rduniq_at_the_end_of_a_page_runs_on_into_the_next() {
    let mut src = String::from("lda $6, 40($31)\n");
    for _ in 1..2047 {
        src.push_str("nop\n");
    }
    src.push_str("1: rduniq\naddq $4, $0, $4\nsubq $6, 1, $6\nbne $6, 1b\nhalt\n");
    let mut want = None;
    for tier in [
        Tier::Interpreter,
        Tier::Jit(1),
        Tier::Jit(5),
        Tier::Jit(1000),
    ] {
        let mut m = machine("ev67", &src, &[0; 8], tier);
        m.set_inline_rduniq(true);
        m.cpus[0].uniq = 7;
        let ev = run_sliced(&mut m, 1_000_000, 1_000_000);
        assert_eq!(ev, Event::CallPal { func: 0 }, "{tier:?}");
        assert_eq!(m.cpus[0].r[4], 40 * 7, "{tier:?}");
        let got = outcome(&m, ev);
        match &want {
            None => want = Some(got),
            Some(w) => assert_eq!(&got, w, "{tier:?}"),
        }
    }
}

/// CALL_PAL `rduniq` run in line: the interpreter and compiled code both
/// put the unique value in $0 and clear the lock flag (a following STQ_C
/// fails), raising no event; with it off the event is raised as before.
#[test]
fn jit_inline_rduniq_equals_the_interpreter_and_clears_the_lock_flag() {
    let src = "
        lda $6, 50($31)
    1:  ldq_l $1, 0($9)
        rduniq
        addq $0, $6, $2
        addq $4, $2, $4
        stq_c $1, 0($9)
        addq $5, $1, $5
        subq $6, 1, $6
        bne $6, 1b
        halt";
    let mut want = None;
    for tier in PAIRS {
        for slice in [1_000_000u64, 3] {
            let mut m = machine("ev67", src, &[0; 8], tier);
            m.set_inline_rduniq(true);
            m.cpus[0].uniq = 0x1234_5678_9abc;
            let ev = run_sliced(&mut m, slice, 100_000);
            assert_eq!(ev, Event::CallPal { func: 0 }, "{tier:?}");
            // Every STQ_C failed: the lock flag was cleared by rduniq.
            assert_eq!(m.cpus[0].r[5], 0, "{tier:?}");
            assert_eq!(m.cpus[0].r[4], 50 * 0x1234_5678_9abc + 50 * 51 / 2);
            let got = outcome(&m, ev);
            if let Tier::Jit(_) = tier {
                // rduniq and the two adds after it, on every pass but the
                // first (LDx_L/STx_C are interpreted).
                let least = if slice > 3 { 49 * 3 } else { 1 };
                assert!(m.jit_stats().retired >= least, "{:?}", m.jit_stats());
                assert_eq!(Some(&got), want.as_ref(), "slice {slice}");
            } else {
                want = Some(got);
            }
        }
    }
    let mut m = machine("ev67", src, &[0; 8], Tier::Jit(1));
    assert_eq!(run(&mut m, 0), Event::CallPal { func: 0x9e });
}
