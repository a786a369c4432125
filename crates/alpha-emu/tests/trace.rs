//! Memory tracing (the observer interface for lost-store detection and
//! schedule exploration): every data access is recorded with its agent,
//! kind and value, and a machine snapshot (`Clone`) is independent.

mod common;
use alpha_emu::memory::{AccessKind, AccessRecord};
use alpha_emu::Event;
use common::*;

const PRE_BWX_STORE: &str = "
    ldq_u $1, 0($16)
    insbl $17, $16, $3
    mskbl $1, $16, $1
    bis   $1, $3, $1
    stq_u $1, 0($16)
    halt";

#[test]
fn order_trace_shows_the_interleaving_that_loses_a_byte_store() {
    let mut m = machine_with("ev4", 2, PRE_BWX_STORE);
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[17] = 0xaa;
    m.cpus[1].r[16] = DATA + 1;
    m.cpus[1].r[17] = 0xbb;
    assert_eq!(m.run(0, 1), Event::BudgetExhausted); // CPU 0: LDQ_U
    assert_eq!(m.run(1, 100), Event::CallPal { func: 0 }); // CPU 1: all of it
    assert_eq!(m.run(0, 100), Event::CallPal { func: 0 }); // CPU 0: the rest
    let t = m.mem.take_trace();
    let rec = |agent, pc, icount, is_store, value| AccessRecord {
        agent,
        pc,
        icount,
        addr: DATA,
        size: 8,
        kind: AccessKind::UnalignedQuad,
        is_store,
        value,
    };
    assert_eq!(
        t,
        vec![
            rec(0, CODE, 0, false, 0),
            rec(1, CODE, 0, false, 0),
            rec(1, CODE + 16, 4, true, 0xbb00),
            rec(0, CODE + 16, 4, true, 0xaa), // writes back the stale byte 1: 0xbb is lost
        ]
    );
    assert_eq!(data(&m, 0, 2), vec![0xaa, 0x00]);
    assert!(m.mem.take_trace().is_empty(), "take_trace drains");
}

#[test]
fn state_trace_records_bwx_and_locked_accesses_with_sizes() {
    let src = "stb $17, 3($16)\n ldl_l $2, 0($16)\n stl_c $2, 0($16)\n halt";
    let mut m = machine_with("ev56", 1, src);
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[17] = 0x1ff;
    run_to_halt(&mut m);
    let kinds: Vec<(AccessKind, u8, bool, u64)> = m
        .mem
        .take_trace()
        .iter()
        .map(|r| (r.kind, r.size, r.is_store, r.value))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (AccessKind::Plain, 1, true, 0xff),
            (AccessKind::LoadLocked, 4, false, 0xff00_0000),
            (AccessKind::StoreConditional, 4, true, 0xff00_0000),
        ]
    );
}

#[test]
fn state_machine_clone_is_an_independent_snapshot() {
    let mut m = machine_with("ev67", 1, "stq $17, 0($16)\n halt");
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[17] = 5;
    let snapshot = m.clone();
    run_to_halt(&mut m);
    assert_eq!(data(&m, 0, 1), vec![5]);
    assert_eq!(data(&snapshot, 0, 1), vec![0]);
    assert_eq!(snapshot.cpus[0].pc, CODE);
    let mut again = snapshot.clone();
    again.cpus[0].r[17] = 9;
    run_to_halt(&mut again);
    assert_eq!(data(&again, 0, 1), vec![9]);
}

#[test]
fn state_trace_records_floating_loads_and_stores_in_memory_format() {
    // 1.0f as S_floating in memory is 0x3f800000; STT stores the T image.
    let src = "lds $f1, 0($16)\n stt $f1, 8($16)\n sts $f1, 16($16)\n halt";
    let mut m = machine_with("ev67", 1, src);
    m.mem.poke(DATA, &0x3f80_0000u32.to_le_bytes()).unwrap();
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA;
    run_to_halt(&mut m);
    let t: Vec<(u64, u8, bool, u64)> = m
        .mem
        .take_trace()
        .iter()
        .map(|r| (r.addr - DATA, r.size, r.is_store, r.value))
        .collect();
    assert_eq!(
        t,
        vec![
            (0, 4, false, 0x3f80_0000),
            (8, 8, true, 1.0f64.to_bits()),
            (16, 4, true, 0x3f80_0000),
        ]
    );
}
