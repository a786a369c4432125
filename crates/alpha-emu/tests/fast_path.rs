//! The specialised micro-ops of the hot path against the reference
//! semantics (`exec::execute`): random straight-line programs with forward
//! branches, run both ways from the same random registers, must leave the
//! same registers, pc, instruction count and memory.

mod common;
use alpha_emu::Event;
use common::*;
use proptest::prelude::*;

/// Instruction templates: `A`/`B`/`C` are registers $1-$8, `L` a literal,
/// `D` a quadword-aligned displacement into the data area (base $9).
const TEMPLATES: &[&str] = &[
    "lda A, L(B)",
    "ldah A, L(B)",
    "addq A, B, C",
    "addq A, L, C",
    "subq A, B, C",
    "subq A, L, C",
    "addl A, B, C",
    "addl A, L, C",
    "subl A, B, C",
    "subl A, L, C",
    "and A, B, C",
    "and A, L, C",
    "bic A, B, C",
    "bic A, L, C",
    "bis A, B, C",
    "bis A, L, C",
    "xor A, B, C",
    "xor A, L, C",
    "sll A, B, C",
    "sll A, L, C",
    "srl A, B, C",
    "srl A, L, C",
    "sra A, B, C",
    "sra A, L, C",
    "cmpeq A, B, C",
    "cmpeq A, L, C",
    "cmpult A, B, C",
    "cmpult A, L, C",
    "cmplt A, B, C",
    "cmplt A, L, C",
    "cmple A, B, C",
    "cmple A, L, C",
    "zapnot A, B, C",
    "zapnot A, L, C",
    "ldq A, D($9)",
    "ldl A, D($9)",
    "ldq_u A, D($9)",
    "stq A, D($9)",
    "stl A, D($9)",
    "stq_u A, D($9)",
    "ldbu A, D($9)",
    "stb A, D($9)",
    "ldwu A, D($9)",
    "stw A, D($9)",
    "sextw B, C",
    "beq A, 1f",
    "bne A, 1f",
    "blt A, 1f",
    "bge A, 1f",
    "ble A, 1f",
    "bgt A, 1f",
    "blbc A, 1f",
    "blbs A, 1f",
    "br 1f",
    "bsr A, 1f",
    "s4addl A, B, C",
    "s4addl A, L, C",
    "s8addl A, B, C",
    "s8addl A, L, C",
    "s4subl A, B, C",
    "s4subl A, L, C",
    "s8subl A, B, C",
    "s8subl A, L, C",
    "s4addq A, B, C",
    "s4addq A, L, C",
    "s8addq A, B, C",
    "s8addq A, L, C",
    "s4subq A, B, C",
    "s4subq A, L, C",
    "s8subq A, B, C",
    "s8subq A, L, C",
    "ornot A, B, C",
    "ornot A, L, C",
    "eqv A, B, C",
    "eqv A, L, C",
    "cmpule A, B, C",
    "cmpule A, L, C",
    "cmpbge A, B, C",
    "cmpbge A, L, C",
    "mull A, B, C",
    "mull A, L, C",
    "mulq A, B, C",
    "mulq A, L, C",
    "umulh A, B, C",
    "umulh A, L, C",
    "zap A, B, C",
    "zap A, L, C",
    "extbl A, B, C",
    "extbl A, L, C",
    "extwl A, B, C",
    "extwl A, L, C",
    "extll A, B, C",
    "extll A, L, C",
    "extql A, B, C",
    "extql A, L, C",
    "extwh A, B, C",
    "extwh A, L, C",
    "extlh A, B, C",
    "extlh A, L, C",
    "extqh A, B, C",
    "extqh A, L, C",
    "insbl A, B, C",
    "insbl A, L, C",
    "inswl A, B, C",
    "inswl A, L, C",
    "insll A, B, C",
    "insll A, L, C",
    "insql A, B, C",
    "insql A, L, C",
    "inswh A, B, C",
    "inswh A, L, C",
    "inslh A, B, C",
    "inslh A, L, C",
    "insqh A, B, C",
    "insqh A, L, C",
    "mskbl A, B, C",
    "mskbl A, L, C",
    "mskwl A, B, C",
    "mskwl A, L, C",
    "mskll A, B, C",
    "mskll A, L, C",
    "mskql A, B, C",
    "mskql A, L, C",
    "mskwh A, B, C",
    "mskwh A, L, C",
    "msklh A, B, C",
    "msklh A, L, C",
    "mskqh A, B, C",
    "mskqh A, L, C",
    "cmoveq A, B, C",
    "cmoveq A, L, C",
    "cmovne A, B, C",
    "cmovne A, L, C",
    "cmovlt A, B, C",
    "cmovlt A, L, C",
    "cmovge A, B, C",
    "cmovge A, L, C",
    "cmovle A, B, C",
    "cmovle A, L, C",
    "cmovgt A, B, C",
    "cmovgt A, L, C",
    "cmovlbs A, B, C",
    "cmovlbs A, L, C",
    "cmovlbc A, B, C",
    "cmovlbc A, L, C",
    // R31 as source and as destination (the latter must be a no-op).
    "addq $31, L, C",
    "mulq A, B, $31",
    "cmovne A, L, $31",
    "s8addl $31, B, C",
    "mskqh A, $31, C",
    "ctpop A, C",
    "sextb A, C",
];

fn render(choices: &[(usize, u8, u8, u8, u8, u16)]) -> String {
    let mut s = String::new();
    for &(t, a, b, c, l, d) in choices {
        let t = TEMPLATES[t % TEMPLATES.len()];
        let line = t
            .replace('A', &format!("${}", 1 + a % 8))
            .replace('B', &format!("${}", 1 + b % 8))
            .replace('C', &format!("${}", 1 + c % 8))
            .replace('L', &format!("{}", l))
            .replace('D', &format!("{}", (d % 512) * 8));
        s += &format!("    {line}\n    addq $10, 1, $10\n1:\n");
    }
    s += "    halt\n";
    s
}

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
