//! The compiling tier (`alpha_emu::jit`) against the interpreter: compiled
//! code must leave exactly the state the interpreter leaves — registers,
//! pc, instruction count, memory, the event that stopped the CPU — however
//! the instruction budget slices the run, and must see stores into code,
//! other agents' reservations and faults exactly as the interpreter does.
//! Every test also checks that code really was compiled, so none of them
//! can pass by interpreting.

mod common;
use alpha_emu::memory::Perm;
use alpha_emu::{Event, Machine};
use common::*;
use proptest::prelude::*;

/// (event, registers, pc, instruction count, first 4 KiB of data).
type Outcome = (Event, Vec<u64>, u64, u64, Vec<u8>);

/// How a machine executes: reference semantics only, the micro-op
/// interpreter only, or compiled after `n` arrivals.
#[derive(Clone, Copy, Debug)]
enum Tier {
    Reference,
    Interpreter,
    Jit(u32),
}

fn machine(model: &str, src: &str, regs: &[u64; 8], tier: Tier) -> Machine {
    let mut m = machine_with(model, 1, src);
    match tier {
        Tier::Reference => m.set_fast_path(false),
        Tier::Interpreter => m.set_jit(None),
        Tier::Jit(n) => {
            m.set_jit(Some(n));
            m.set_jit_background(false);
        }
    }
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
        for tier in [Tier::Interpreter, Tier::Jit(1), Tier::Jit(2)] {
            for s in [100_000, slice] {
                let mut m = machine(model, &src, &regs, tier);
                let ev = run_sliced(&mut m, s, 100_000);
                prop_assert_eq!(&outcome(&m, ev), &want, "{:?} slice {}\n{}", tier, s, src);
                // A loop that ran to its end went round at least twice: its
                // head must have been compiled, unless the loop needs the
                // interpreter on every pass (CTPOP has no compiled form;
                // on ev5 neither have the BWX instructions).
                let compilable = !ev5 && !src.contains("ctpop");
                if matches!(tier, Tier::Jit(1)) && compilable && s == 100_000
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
        for tier in [Tier::Interpreter, Tier::Jit(1), Tier::Jit(2)] {
            for s in [100_000, slice] {
                let mut m = machine("ev67", &src, &regs, tier);
                let ev = run_sliced(&mut m, s, 100_000);
                prop_assert_eq!(&outcome(&m, ev), &want, "{:?} slice {}\n{}", tier, s, src);
                if matches!(tier, Tier::Jit(1)) && s == 100_000
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

fn render_fp(choices: &[(usize, u8, u8, u8, u16)]) -> String {
    let mut s = String::new();
    for &(t, x, y, z, d) in choices {
        let t = FP_TEMPLATES[t % FP_TEMPLATES.len()];
        let line = t
            .replace('X', &format!("$f{}", 1 + x % 8))
            .replace('Y', &format!("$f{}", 1 + y % 8))
            .replace('Z', &format!("$f{}", 1 + z % 8))
            .replace('A', &format!("${}", 1 + x % 8))
            .replace('D', &format!("{}", (d % 512) * 8));
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
        for tier in [Tier::Interpreter, Tier::Jit(1), Tier::Jit(2)] {
            for s in [100_000, slice] {
                let got = run(tier, s);
                prop_assert_eq!(&got.0, &want.0, "{:?} slice {}\n{}", tier, s, src);
                prop_assert_eq!(&got.1, &want.1, "FP registers, {:?} slice {}\n{}", tier, s, src);
                prop_assert_eq!(got.2, want.2, "FPCR, {:?} slice {}\n{}", tier, s, src);
                if matches!(tier, Tier::Jit(1)) && s == 100_000
                    && want.0.0 == (Event::CallPal { func: 0 }) {
                    prop_assert!(got.3.retired > 0, "nothing ran compiled\n{}", src);
                }
            }
        }
    }
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
    for tier in [Tier::Interpreter, Tier::Jit(1)] {
        let mut m = machine("ev67", src, &[0; 8], tier);
        m.cpus[0].r[7] = 1;
        m.mem.protect(CODE, 0x2000, Perm::RWX).unwrap();
        run_to_halt(&mut m);
        // First pass adds 1, the next two add 100.
        assert_eq!(m.cpus[0].r[3], 201, "{tier:?}");
        if matches!(tier, Tier::Jit(_)) {
            assert!(m.jit_stats().regions > 0);
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
    for tier in [Tier::Interpreter, Tier::Jit(1)] {
        let mut m = machine_with("ev67", 2, src);
        match tier {
            Tier::Jit(n) => {
                m.set_jit(Some(n));
                m.set_jit_background(false);
            }
            _ => m.set_jit(None),
        }
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
        if matches!(tier, Tier::Jit(_)) {
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
    for tier in [Tier::Interpreter, Tier::Jit(1)] {
        let mut m = machine("ev67", src, &[0; 8], tier);
        let ev = m.run(0, 1_000_000);
        assert!(
            matches!(ev, Event::MemFault { .. }),
            "{tier:?} stopped with {ev:?}"
        );
        results.push(outcome(&m, ev));
        if matches!(tier, Tier::Jit(_)) {
            assert!(m.jit_stats().regions > 0);
        }
    }
    assert_eq!(results[0], results[1]);
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
        let mut m = machine_with("ev67", 2, src);
        match tier {
            Tier::Jit(n) => {
                m.set_jit(Some(n));
                m.set_jit_background(false);
            }
            _ => m.set_jit(None),
        }
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
        let got = run(Tier::Jit(1), slices);
        assert_eq!(got.0, want.0, "registers, slices {slices:?}");
        assert_eq!(got.1, want.1, "memory, slices {slices:?}");
        assert_eq!(got.2, want.2, "lock breaks, slices {slices:?}");
        // Both CPUs did all 300 increments, and some STQ_C failed.
        assert_eq!(u64::from_le_bytes(got.1[..8].try_into().unwrap()), 600);
        assert!(
            got.0[0].0[6] + got.0[1].0[6] > 0,
            "no contention, slices {slices:?}"
        );
        assert!(got.3.retired > 0, "nothing ran compiled, slices {slices:?}");
    }
}
