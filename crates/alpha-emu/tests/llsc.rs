//! LDx_L/STx_C with two CPUs sharing memory (Handbook §4.2.4-§4.2.5): a
//! store by another processor anywhere in the locked range — the aligned
//! 2^N-byte block around the locked address — makes STx_C fail; a store
//! outside it does not.

mod common;
use alpha_emu::{Event, Machine};
use common::*;

/// CPU 0: LDQ_L, pause, increment, STQ_C, pause. CPU 1 (at +20): one STB.
const SRC: &str = "
    ldq_l $1, 0($16)
    halt
    addq  $1, 1, $1
    stq_c $1, 0($16)
    halt
    stb   $2, 0($17)
    halt";
const CPU1_ENTRY: u64 = CODE + 20;
const HALT: Event = Event::CallPal { func: 0 };

/// Returns (STQ_C's success flag, final value of the locked quadword).
fn contend(lock_range: u64, locked_off: u64, other_off: u64) -> (u64, u64) {
    let mut m: Machine = machine_with("ev67", 2, SRC);
    for c in &mut m.cpus {
        c.lock_range = lock_range;
    }
    m.mem.poke(DATA + locked_off, &41u64.to_le_bytes()).unwrap();
    m.cpus[0].r[16] = DATA + locked_off;
    m.cpus[1].pc = CPU1_ENTRY;
    m.cpus[1].r[17] = DATA + other_off;
    m.cpus[1].r[2] = 0xee;
    assert_eq!(m.run(0, 100), HALT);
    assert!(m.mem.reservation(0).lock_flag, "LDQ_L sets the lock flag");
    assert_eq!(m.run(1, 100), HALT);
    assert_eq!(m.run(0, 100), HALT);
    assert!(
        !m.mem.reservation(0).lock_flag,
        "STQ_C always clears the flag"
    );
    let mut q = [0u8; 8];
    m.mem.peek(DATA + locked_off, &mut q).unwrap();
    (m.cpus[0].r[1], u64::from_le_bytes(q))
}

#[test]
fn order_store_by_other_cpu_anywhere_in_lock_range_fails_stq_c() {
    // Locked quadword at 0x40 in a 64-byte range [0x40, 0x80): the other
    // CPU's byte store at 0x7f is in a different quadword but the same range.
    let (ok, v) = contend(64, 0x40, 0x7f);
    assert_eq!(ok, 0);
    assert_eq!(v, 41, "the failed STQ_C stored nothing");
}

#[test]
fn order_store_by_other_cpu_outside_lock_range_lets_stq_c_succeed() {
    let (ok, v) = contend(64, 0x40, 0x80);
    assert_eq!(ok, 1);
    assert_eq!(v, 42);
    let (ok, _) = contend(64, 0x40, 0x3f);
    assert_eq!(ok, 1);
}

#[test]
fn bound_lock_range_size_decides_which_stores_interfere() {
    // Same addresses (locked 0x100, other store at 0x108): an 8-byte range
    // leaves them apart, a 16-byte range (or larger, up to the page) joins them.
    assert_eq!(contend(8, 0x100, 0x108).0, 1);
    assert_eq!(contend(16, 0x100, 0x108).0, 0);
    assert_eq!(contend(8192, 0x100, 0x1ff8).0, 0);
    assert_eq!(contend(128, 0x100, 0x180).0, 1);
}

#[test]
fn order_store_to_the_locked_quadword_itself_fails_stq_c() {
    assert_eq!(contend(8, 0x40, 0x43).0, 0);
}

#[test]
fn state_stq_c_without_ldq_l_fails_and_stores_nothing() {
    let mut m = machine_with("ev67", 1, "stq_c $1, 0($16)\n halt");
    m.cpus[0].r[1] = 7;
    m.cpus[0].r[16] = DATA;
    run_to_halt(&mut m);
    assert_eq!(m.cpus[0].r[1], 0);
    assert_eq!(data(&m, 0, 8), vec![0; 8]);
}

#[test]
fn state_stl_c_succeeds_after_ldl_l_and_counts_as_a_longword_store() {
    let src = "ldl_l $1, 4($16)\n addl $1, 5, $1\n stl_c $1, 4($16)\n halt";
    let mut m = machine_with("ev4", 1, src);
    m.mem
        .poke(DATA, &[9, 9, 9, 9, 0xff, 0xff, 0xff, 0xff])
        .unwrap();
    m.cpus[0].r[16] = DATA;
    run_to_halt(&mut m);
    assert_eq!(m.cpus[0].r[1], 1);
    assert_eq!(data(&m, 0, 8), vec![9, 9, 9, 9, 4, 0, 0, 0]);
}

#[test]
fn fault_unaligned_ldq_l_is_reported_before_any_effect() {
    let mut m = machine_with("ev67", 1, "ldq_l $1, 4($16)\n halt");
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[1] = 0x1234;
    let ev = m.run(0, 10);
    assert!(
        matches!(ev, Event::Unaligned { addr, size: 8, is_store: false, .. } if addr == DATA + 4)
    );
    assert_eq!(m.cpus[0].r[1], 0x1234);
    assert_eq!(m.cpus[0].pc, CODE);
    assert!(!m.mem.reservation(0).lock_flag);
}
