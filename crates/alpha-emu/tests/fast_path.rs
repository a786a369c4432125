//! The specialised micro-ops of the hot path against the reference
//! semantics (`exec::execute`): random straight-line programs with forward
//! branches, run both ways from the same random registers, must leave the
//! same registers, pc, instruction count and memory.

mod common;
use alpha_emu::Event;
use common::*;
use proptest::prelude::*;

/// (event, registers, pc, instruction count, first 4 KiB of data).
type Outcome = (Event, Vec<u64>, u64, u64, Vec<u8>);

fn run_both(src: &str, regs: &[u64; 8]) -> Vec<Outcome> {
    run_both_on("ev67", src, regs)
}

fn run_both_on(model: &str, src: &str, regs: &[u64; 8]) -> Vec<Outcome> {
    [true, false]
        .iter()
        .map(|&fast| {
            let mut m = machine_with(model, 1, src);
            m.set_fast_path(fast);
            m.cpus[0].r[1..9].copy_from_slice(regs);
            m.cpus[0].r[9] = DATA;
            let ev = m.run(0, 100_000);
            let c = &m.cpus[0];
            (ev, c.r.to_vec(), c.pc, c.icount, data(&m, 0, 4096))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]
    #[test]
    fn exec_fast_path_equals_reference_semantics(
        choices in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 1..40),
        regs in any::<[u64; 8]>(),
    ) {
        let src = render(&choices);
        let both = run_both(&src, &regs);
        prop_assert_eq!(&both[0], &both[1], "{}", src);
    }

    /// On ev5 (no BWX) the BWX kinds (LDBU/STB/LDWU/STW/SEXTx) must stop with
    /// the same OPCDEC event, pc and count as the reference path.
    #[test]
    fn exec_fast_path_equals_reference_semantics_without_bwx(
        choices in proptest::collection::vec(any::<(usize, u8, u8, u8, u8, u16)>(), 1..40),
        regs in any::<[u64; 8]>(),
    ) {
        let src = render(&choices);
        let both = run_both_on("ev5", &src, &regs);
        prop_assert_eq!(&both[0], &both[1], "{}", src);
    }
}

#[test]
fn exec_fast_path_budget_is_exact_one_instruction_at_a_time() {
    let src = "1: addq $1, 1, $1\n subq $2, 1, $2\n bne $2, 1b\n halt";
    let mut m = machine_with("ev67", 1, src);
    m.cpus[0].r[2] = 5;
    let mut steps = 0;
    loop {
        match m.run(0, 1) {
            Event::BudgetExhausted => steps += 1,
            Event::CallPal { func: 0 } => break,
            other => panic!("{other:?}"),
        }
        assert_eq!(m.cpus[0].icount, steps);
    }
    assert_eq!(steps, 15);
    assert_eq!(m.cpus[0].r[1], 5);
}

#[test]
fn exec_store_into_code_is_seen_by_the_next_fetch() {
    // Overwrite the instruction after the store with `addq $31, 7, $3`
    // (taken from the word at label `new`) and execute it.
    let src = "
        br $4, 1f
    1:  ldl $5, 16($4)
        stl $5, 8($4)
        addq $31, 1, $3
        halt
        addq $31, 7, $3";
    let mut m = machine_with("ev67", 1, src);
    m.mem
        .protect(CODE, 0x2000, alpha_emu::memory::Perm::RWX)
        .unwrap();
    run_to_halt(&mut m);
    assert_eq!(m.cpus[0].r[3], 7);
}
