//! `Machine::stop_at_points` (the explorer's scheduling points): a CPU
//! runs its non-memory instructions uninterrupted and stops *before* each
//! data access after the first instruction of the run, so a scheduler can
//! interleave two CPUs' accesses one by one; the first instruction always
//! executes (resuming makes progress) and the budget still counts exactly.

mod common;
use alpha_emu::Event;
use common::*;

const SRC: &str = "
    addq  $31, 1, $1
    addq  $1, 1, $1
    ldq_u $2, 0($16)
    insbl $1, $16, $3
    mskbl $2, $16, $2
    bis   $2, $3, $2
    stq_u $2, 0($16)
    ldl_l $4, 0($17)
    addq  $4, 1, $4
    stl_c $4, 0($17)
    halt";

#[test]
fn order_stop_at_points_stops_before_each_data_access() {
    let mut m = machine_with("ev4", 1, SRC);
    m.cpus[0].r[16] = DATA + 3;
    m.cpus[0].r[17] = DATA + 8;
    m.stop_at_points = true;
    let mut stops = Vec::new();
    loop {
        let ev = m.run(0, 1000);
        match ev {
            Event::BudgetExhausted => stops.push((m.cpus[0].pc - CODE) / 4),
            Event::CallPal { func: 0 } => break,
            e => panic!("{e:?}"),
        }
    }
    // Before LDQ_U (insn 2), STQ_U (6), LDL_L (7), STL_C (9).
    assert_eq!(stops, [2, 6, 7, 9]);
    assert_eq!(m.cpus[0].icount, 11);
    // The byte store happened once, and the LL/SC increment succeeded.
    assert_eq!(data(&m, 3, 1), [2]);
    assert_eq!(m.cpus[0].r[4], 1);
}

#[test]
fn bound_stop_at_points_keeps_the_budget_exact() {
    let mut m = machine_with("ev4", 1, SRC);
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[17] = DATA + 8;
    m.stop_at_points = true;
    // Budget 1 from the start: one instruction, no matter what comes next.
    assert_eq!(m.run(0, 1), Event::BudgetExhausted);
    assert_eq!((m.cpus[0].pc - CODE, m.cpus[0].icount), (4, 1));
    // A stop before the point comes before the budget runs out.
    assert_eq!(m.run(0, 100), Event::BudgetExhausted);
    assert_eq!((m.cpus[0].pc - CODE, m.cpus[0].icount), (8, 2));
    // Off again: straight through to the halt.
    m.stop_at_points = false;
    assert_eq!(m.run(0, 100), Event::CallPal { func: 0 });
}
