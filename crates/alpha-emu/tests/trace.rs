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

#[test]
fn state_trace_records_a_failed_stx_c_that_wrote_nothing() {
    // No LDQ_L before it: the lock flag is clear, so the STQ_C fails.
    let mut m = machine_with("ev67", 1, "stq_c $17, 8($16)\n halt");
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[17] = 0x55;
    run_to_halt(&mut m);
    assert_eq!(m.cpus[0].r[17], 0, "STQ_C reports failure");
    assert_eq!(data(&m, 8, 1), vec![0], "and stored nothing");
    assert_eq!(
        m.mem.take_trace(),
        vec![AccessRecord {
            agent: 0,
            pc: CODE,
            icount: 0,
            addr: DATA + 8,
            size: 8,
            kind: AccessKind::StoreConditionalFailed,
            is_store: false,
            value: 0x55,
        }]
    );
}

/// A loop mixing specialised micro-ops (LDQ, STQ, STQ_U) with accesses the
/// reference semantics make (LDQ_L/STQ_C, STT, LDS).
const MIXED_LOOP: &str = "
    lda   $3, 5($31)
1:  ldq   $1, 0($16)
    addq  $1, 1, $1
    stq   $1, 0($16)
    ldq_l $2, 8($16)
    addq  $2, 2, $2
    stq_c $2, 8($16)
    stt   $f31, 16($16)
    lds   $f1, 16($16)
    stq_u $1, 27($16)
    subq  $3, 1, $3
    bne   $3, 1b
    halt";

#[test]
fn state_trace_pc_and_icount_agree_between_fast_path_and_reference_path() {
    let trace = |fast: bool| {
        let mut m = machine_with("ev67", 1, MIXED_LOOP);
        m.set_fast_path(fast);
        m.mem.set_trace(true);
        m.cpus[0].r[16] = DATA;
        run_to_halt(&mut m);
        m.mem.take_trace()
    };
    let fast = trace(true);
    assert_eq!(fast, trace(false));
    assert_eq!(fast.len(), 5 * 7);
    // First pass: the LDQ at CODE+4 is the 2nd instruction (icount 1) ...
    assert_eq!((fast[0].pc, fast[0].icount), (CODE + 4, 1));
    assert_eq!(
        (fast[2].pc, fast[2].kind),
        (CODE + 16, AccessKind::LoadLocked)
    );
    // ... and the second pass's LDQ comes 11 instructions later.
    assert_eq!((fast[7].pc, fast[7].icount), (CODE + 4, 12));
    for r in &fast[..7] {
        assert_eq!(
            r.pc - CODE,
            4 * r.icount,
            "straight line: pc and icount agree"
        );
    }
}

/// A hot integer loop the compiling tier compiles.
const HOT_LOOP: &str = "
    lda   $3, 3000($31)
1:  ldq   $1, 0($16)
    addq  $1, 1, $1
    stq   $1, 0($16)
    subq  $3, 1, $3
    bne   $3, 1b
    halt";

#[test]
fn state_jit_never_runs_while_tracing_so_no_access_goes_unrecorded() {
    let run = |tracing: bool| {
        let mut m = machine_with("ev67", 1, HOT_LOOP);
        m.set_jit(Some(1));
        m.set_jit_background(false);
        m.mem.set_trace(tracing);
        m.cpus[0].r[16] = DATA;
        run_to_halt(&mut m);
        (m.jit_stats().regions, m.mem.take_trace().len())
    };
    let (compiled, _) = run(false);
    assert!(compiled > 0, "without tracing the loop is compiled");
    assert_eq!(
        run(true),
        (0, 3000 * 2),
        "with tracing: interpreted, every access recorded"
    );
}
