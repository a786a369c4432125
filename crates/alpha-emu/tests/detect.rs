//! The detectors (`alpha_emu::detect`): first on hand-built traces, one
//! test per rule and per case that must stay silent; then on small Alpha
//! programs run on several CPUs of one `Machine`, interleaved by hand, with
//! memory tracing on and every record fed to `Detectors` in order.

mod common;
use alpha_emu::detect::{CodeView, Config, Detectors, EventKind, Finding, Kind, Site};
use alpha_emu::memory::{AccessKind, AccessRecord};
use alpha_emu::{Event, Machine};
use common::*;
use std::collections::HashMap;

// ------------------------------------------------------------ hand traces

/// Instruction words for hand-built traces (assembled at [`CODE`]).
struct Code(HashMap<u64, u32>);

impl Code {
    fn none() -> Code {
        Code(HashMap::new())
    }
    fn asm(src: &str) -> Code {
        let words = alpha_isa::assemble_words(src, CODE).unwrap();
        Code(
            words
                .iter()
                .enumerate()
                .map(|(i, w)| (CODE + 4 * i as u64, *w))
                .collect(),
        )
    }
}

impl CodeView for Code {
    fn word(&self, pc: u64) -> Option<u32> {
        self.0.get(&pc).copied()
    }
}

const Q: u64 = 0x2000; // a quadword-aligned data address

/// One record: thread `t` at `pc` (icount = the pc's instruction index).
fn r(
    t: usize,
    pc: u64,
    addr: u64,
    size: u8,
    kind: AccessKind,
    store: bool,
    value: u64,
) -> AccessRecord {
    AccessRecord {
        agent: t,
        pc,
        icount: (pc - CODE) / 4,
        addr,
        size,
        kind,
        is_store: store,
        value,
    }
}
fn ldq_u(t: usize, pc: u64, addr: u64, v: u64) -> AccessRecord {
    r(t, pc, addr & !7, 8, AccessKind::UnalignedQuad, false, v)
}
fn stq_u(t: usize, pc: u64, addr: u64, v: u64) -> AccessRecord {
    r(t, pc, addr & !7, 8, AccessKind::UnalignedQuad, true, v)
}
fn ld(t: usize, pc: u64, addr: u64, size: u8, v: u64) -> AccessRecord {
    r(t, pc, addr, size, AccessKind::Plain, false, v)
}
fn st(t: usize, pc: u64, addr: u64, size: u8, v: u64) -> AccessRecord {
    r(t, pc, addr, size, AccessKind::Plain, true, v)
}
fn ldq_l(t: usize, pc: u64, addr: u64, v: u64) -> AccessRecord {
    r(t, pc, addr, 8, AccessKind::LoadLocked, false, v)
}
fn stq_c(t: usize, pc: u64, addr: u64, v: u64, ok: bool) -> AccessRecord {
    let kind = if ok {
        AccessKind::StoreConditional
    } else {
        AccessKind::StoreConditionalFailed
    };
    r(t, pc, addr, 8, kind, ok, v)
}

fn feed_with(lock_range: u64, code: &Code, trace: &[AccessRecord]) -> Vec<Finding> {
    let mut d = Detectors::new(Config { lock_range });
    for rec in trace {
        d.access(rec.agent as u32, rec, code);
    }
    d.findings().to_vec()
}

fn feed(trace: &[AccessRecord]) -> Vec<Finding> {
    feed_with(128, &Code::none(), trace)
}

fn of(kind: Kind, f: &[Finding]) -> Vec<Finding> {
    f.iter().filter(|x| x.kind == kind).cloned().collect()
}

const A0: u64 = CODE; // thread 0's load
const A1: u64 = CODE + 16; // thread 0's write-back
const B0: u64 = CODE + 0x100; // thread 1's load
const B1: u64 = CODE + 0x110; // thread 1's store

#[test]
fn lost_store_pre_bwx_write_back_erases_a_neighbour_byte() {
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        ldq_u(1, B0, Q + 1, 0),
        stq_u(1, B1, Q + 1, 0xbb00),
        stq_u(0, A1, Q, 0xaa), // byte 1 written back stale (0) over 0xbb
    ]);
    assert_eq!(
        f,
        vec![Finding {
            kind: Kind::LostStore,
            address: Q + 1,
            bytes: vec![Q + 1],
            by: Site { thread: 0, pc: A1 },
            by_load_pc: Some(A0),
            other: Some(Site { thread: 1, pc: B1 }),
            other_address: None,
            lock_range: None,
            rule: None,
            offending_pc: None,
        }]
    );
    assert_eq!(f[0].kind.as_str(), "lost-store");
    assert_eq!(f[0].site_key(), (Kind::LostStore, A1, Some(B1)));
}

#[test]
fn lost_store_silent_when_the_two_read_modify_writes_do_not_overlap() {
    // Serialised (what a mutex guarantees): B's load sees A's store.
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        stq_u(0, A1, Q, 0xaa),
        ldq_u(1, B0, Q + 1, 0xaa),
        stq_u(1, B1, Q + 1, 0xbbaa),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn lost_store_silent_for_bwx_byte_stores_to_neighbouring_bytes() {
    let f = feed(&[
        ld(0, A0, Q, 1, 0),
        ld(1, B0, Q + 1, 1, 0),
        st(1, B1, Q + 1, 1, 0xbb),
        st(0, A1, Q, 1, 0xaa),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn lost_store_silent_for_an_ordinary_race_on_one_whole_quadword() {
    // B's STQ covers all of A's write-back unit: a same-granule race.
    let f = feed(&[
        ld(0, A0, Q, 8, 0),
        st(1, B1, Q, 8, 0x1111_1111_1111_1111),
        st(0, A1, Q, 8, 0),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn lost_store_block_copy_stq_clobbers_a_neighbour_stb() {
    // BWX era: A copies 8 bytes with ldq/stq; B's STB to byte 7 vanishes.
    let f = feed(&[
        ld(0, A0, Q, 8, 0),
        st(1, B1, Q + 7, 1, 0x99),
        st(0, A1, Q, 8, 0x42),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].address, f[0].bytes.clone()), (Q + 7, vec![Q + 7]));
    assert_eq!(f[0].other, Some(Site { thread: 1, pc: B1 }));
}

#[test]
fn lost_store_silent_for_different_quadwords() {
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        ldq_u(1, B0, Q + 8, 0),
        stq_u(1, B1, Q + 8, 0xbb),
        stq_u(0, A1, Q, 0xaa),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn lost_store_silent_when_the_writer_reloaded_after_the_other_store() {
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        ldq_u(1, B0, Q + 1, 0),
        stq_u(1, B1, Q + 1, 0xbb00),
        ldq_u(0, A0 + 4, Q, 0xbb00),
        stq_u(0, A1, Q, 0xbbaa),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn lost_store_silent_when_the_write_back_is_not_the_stale_value() {
    // A writes its own new value into the byte B wrote (same-byte race
    // through a whole-quadword store of fresh data, not a stale restore).
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        ldq_u(1, B0, Q + 1, 0),
        stq_u(1, B1, Q + 1, 0xbb00),
        stq_u(0, A1, Q, 0xcc00),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn lost_store_silent_for_llsc_byte_atomics_whose_stc_fails() {
    // GCC's byte atomic: B's neighbour store makes A's STQ_C fail, and a
    // failed STx_C writes nothing back.
    let f = feed(&[
        ldq_l(0, A0, Q, 0),
        ldq_u(1, B0, Q + 1, 0),
        stq_u(1, B1, Q + 1, 0xbb00),
        stq_c(0, A0 + 12, Q, 0xaa, false),
    ]);
    assert!(of(Kind::LostStore, &f).is_empty(), "{f:?}");
}

#[test]
fn lost_store_three_threads_each_erasure_is_its_own_finding() {
    let c1 = CODE + 0x200;
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        ldq_u(1, B0, Q + 1, 0),
        ldq_u(2, c1, Q + 2, 0),
        stq_u(1, B1, Q + 1, 0x00bb00),
        stq_u(2, c1 + 16, Q + 2, 0xcc0000), // erases B's byte 1
        stq_u(0, A1, Q, 0xaa),              // erases C's byte 2
    ]);
    let sites: Vec<(u64, Site, Site)> = f
        .iter()
        .map(|x| (x.address, x.by, x.other.unwrap()))
        .collect();
    assert_eq!(
        sites,
        vec![
            (
                Q + 1,
                Site {
                    thread: 2,
                    pc: c1 + 16
                },
                Site { thread: 1, pc: B1 }
            ),
            (
                Q + 2,
                Site { thread: 0, pc: A1 },
                Site {
                    thread: 2,
                    pc: c1 + 16
                }
            ),
        ]
    );
}

#[test]
fn lost_store_unaligned_longword_write_back_spanning_two_quadwords() {
    // A's STL at Q+6 (completed by the unaligned fix-up: one record over
    // bytes 6..9 of two quadwords) writes back byte 8 stale after B's STB.
    let f = feed(&[
        ldq_u(0, A0, Q, 0),
        ldq_u(0, A0 + 4, Q + 8, 0),
        st(1, B1, Q + 8, 1, 0x22),
        st(0, A1, Q + 6, 4, 0x0000_5544),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].bytes.clone(), f[0].by_load_pc),
        (vec![Q + 8], Some(A0 + 4))
    );
}

#[test]
fn lost_store_each_site_reported_once() {
    let mut t = Vec::new();
    for _ in 0..3 {
        t.extend([
            ldq_u(0, A0, Q, 0),
            ldq_u(1, B0, Q + 1, 0),
            stq_u(1, B1, Q + 1, 0xbb00),
            stq_u(0, A1, Q, 0),
        ]);
    }
    assert_eq!(feed(&t).len(), 1);
}

#[test]
fn contention_failed_stc_after_a_store_elsewhere_in_the_lock_range() {
    let f = feed_with(
        128,
        &Code::none(),
        &[
            ldq_l(0, A0, Q, 0),
            st(1, B1, Q + 64, 8, 5),
            stq_c(0, A1, Q, 1, false),
        ],
    );
    assert_eq!(
        f,
        vec![Finding {
            kind: Kind::LockRangeContention,
            address: Q,
            bytes: vec![],
            by: Site { thread: 0, pc: A1 },
            by_load_pc: Some(A0),
            other: Some(Site { thread: 1, pc: B1 }),
            other_address: Some(Q + 64),
            lock_range: Some(128),
            rule: None,
            offending_pc: None,
        }]
    );
    assert_eq!(f[0].kind.as_str(), "lock-range-contention");
}

#[test]
fn contention_silent_for_a_store_to_the_locked_quadword_itself() {
    let f = feed(&[
        ldq_l(0, A0, Q, 0),
        st(1, B1, Q + 3, 1, 5), // genuine contention on the locked unit
        st(1, B1 + 4, Q + 64, 8, 5),
        stq_c(0, A1, Q, 1, false),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn contention_silent_outside_the_lock_range_and_for_successful_stc() {
    let f = feed_with(
        64,
        &Code::none(),
        &[
            ldq_l(0, A0, Q, 0),
            st(1, B1, Q + 64, 8, 5), // next 64-byte block
            stq_c(0, A1, Q, 1, false),
            ldq_l(0, A0, Q, 0),
            st(1, B1, Q + 8, 8, 5),
            stq_c(0, A1, Q, 1, true), // (the model says it failed; it did not)
        ],
    );
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn contention_silent_for_the_threads_own_store_in_its_range() {
    let f = feed(&[
        ldq_l(0, A0, Q, 0),
        st(0, A0 + 4, Q + 64, 8, 5),
        stq_c(0, A0 + 8, Q, 1, false),
    ]);
    assert!(of(Kind::LockRangeContention, &f).is_empty(), "{f:?}");
}

// forward-progress on hand traces: the words come from `Code::asm`.

fn ll_sc(src: &str, between: &[AccessRecord], sc_index: u64) -> Vec<Finding> {
    let code = Code::asm(src);
    let mut t = vec![ldq_l(0, CODE, Q, 0)];
    t.extend_from_slice(between);
    let mut sc = stq_c(0, CODE + 4 * sc_index, Q, 1, true);
    sc.icount = sc_index;
    t.push(sc);
    of(Kind::ForwardProgress, &feed_with(128, &code, &t))
}

#[test]
fn progress_gccs_straight_sequence_is_no_violation() {
    let src = "ldq_l $6,0($3)\n extbl $6,$16,$1\n cmpeq $1,$5,$4\n beq $4,1f\n mskbl $6,$16,$4\n bis $4,$2,$4\n stq_c $4,0($3)\n1: halt";
    assert!(ll_sc(src, &[], 6).is_empty());
}

#[test]
fn progress_memory_access_between_ldl_l_and_stc() {
    let src = "ldq_l $1,0($16)\n ldq $2,8($16)\n addq $1,$2,$1\n stq_c $1,0($16)";
    let f = ll_sc(src, &[ld(0, CODE + 4, Q + 8, 8, 0)], 3);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].rule, f[0].offending_pc, f[0].by, f[0].address),
        (
            Some("memory-access"),
            Some(CODE + 4),
            Site {
                thread: 0,
                pc: CODE
            },
            Q
        )
    );
    assert_eq!(f[0].kind.as_str(), "forward-progress");
}

#[test]
fn progress_taken_branch_inside_the_sequence() {
    // ldq_l; br 1f; (skipped); 1: stq_c — pc distance 12, icount distance 2.
    let src = "ldq_l $1,0($16)\n br $31,1f\n addq $1,1,$1\n1: stq_c $1,0($16)";
    let code = Code::asm(src);
    let mut sc = stq_c(0, CODE + 12, Q, 1, true);
    sc.icount = 2;
    let f = feed_with(128, &code, &[ldq_l(0, CODE, Q, 0), sc]);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].rule, f[0].offending_pc),
        (Some("taken-branch"), Some(CODE + 4))
    );
}

#[test]
fn progress_floating_point_is_a_subsetted_instruction() {
    let src = "ldq_l $1,0($16)\n addt $f1,$f2,$f3\n stq_c $1,0($16)";
    let f = ll_sc(src, &[], 2);
    assert_eq!(
        (f[0].rule, f[0].offending_pc),
        (Some("subsetted-instruction"), Some(CODE + 4))
    );
}

#[test]
fn progress_call_pal_and_overflow_trapping_ops_are_trapping_instructions() {
    let f = ll_sc("ldq_l $1,0($16)\n call_pal 0x83\n stq_c $1,0($16)", &[], 2);
    assert_eq!(f[0].rule, Some("trapping-instruction"));
    let f = ll_sc("ldq_l $1,0($16)\n addq/v $1,1,$1\n stq_c $1,0($16)", &[], 2);
    assert_eq!(f[0].rule, Some("trapping-instruction"));
}

#[test]
fn progress_forty_instructions_between_is_the_limit() {
    let body = |n: usize| {
        format!(
            "ldq_l $1,0($16)\n{}stq_c $1,0($16)",
            "addq $1,1,$1\n".repeat(n)
        )
    };
    assert!(
        ll_sc(&body(40), &[], 41).is_empty(),
        "40 in between is allowed"
    );
    let f = ll_sc(&body(41), &[], 42);
    assert_eq!(
        (f[0].rule, f[0].offending_pc),
        (Some("too-many-instructions"), Some(CODE + 4 * 41))
    );
}

#[test]
fn progress_exception_counts_but_a_delivered_signal_does_not() {
    let code = Code::asm("ldq_l $1,0($16)\n addq $1,1,$1\n stq_c $1,0($16)");
    let mut sc = stq_c(0, CODE + 8, Q, 1, false);
    sc.icount = 2;
    for (what, expect) in [
        (EventKind::Signal, None),
        (EventKind::Exception, Some("exception")),
    ] {
        let mut d = Detectors::new(Config { lock_range: 128 });
        d.access(0, &ldq_l(0, CODE, Q, 0), &code);
        d.event(0, CODE + 4, what);
        d.access(0, &sc, &code);
        assert_eq!(
            d.findings().first().and_then(|f| f.rule),
            expect,
            "{what:?}"
        );
    }
}

#[test]
fn progress_compare_fail_exit_without_stc_is_no_violation() {
    // LDQ_L, the compare fails, the thread leaves (branch), does ordinary
    // accesses, and later opens a new, clean sequence.
    let src = "ldq_l $1,0($16)\n cmpeq $1,$5,$4\n beq $4,1f\n stq_c $1,0($16)\n1: ldq $2,8($16)\n stq $2,16($16)\n ldq_l $1,0($16)\n stq_c $1,0($16)";
    let code = Code::asm(src);
    // Executed: ldq_l(0) cmpeq(1) beq-taken(2) ldq(3) stq(4) ldq_l(5) stq_c(6).
    let at = |mut rec: AccessRecord, icount| {
        rec.icount = icount;
        rec
    };
    let t = [
        at(ldq_l(0, CODE, Q, 0), 0),
        at(ld(0, CODE + 16, Q + 8, 8, 0), 3),
        at(st(0, CODE + 20, Q + 16, 8, 0), 4),
        at(ldq_l(0, CODE + 24, Q, 0), 5),
        at(stq_c(0, CODE + 28, Q, 1, true), 6),
    ];
    assert!(feed_with(128, &code, &t).is_empty());
}

#[test]
fn progress_each_ldx_l_site_reported_once() {
    let src = "ldq_l $1,0($16)\n ldq $2,8($16)\n stq_c $1,0($16)";
    let code = Code::asm(src);
    let mut t = Vec::new();
    for _ in 0..3 {
        t.push(ldq_l(0, CODE, Q, 0));
        t.push(ld(0, CODE + 4, Q + 8, 8, 0));
        t.push(stq_c(0, CODE + 8, Q, 1, true));
    }
    assert_eq!(feed_with(128, &code, &t).len(), 1);
}

// ------------------------------------------------- programs on a Machine

const HALT: Event = Event::CallPal { func: 0 };

/// Run CPU `c` to its next `halt`.
fn to_halt(m: &mut Machine, c: usize) {
    assert_eq!(m.run(c, 10_000), HALT, "cpu {c} did not reach halt");
}

/// Feed everything traced so far to `d` (thread id = CPU index).
fn drain(m: &mut Machine, d: &mut Detectors) {
    for rec in m.mem.take_trace() {
        d.access(rec.agent as u32, &rec, &m.mem);
    }
}

fn detectors(m: &Machine) -> Detectors {
    Detectors::new(Config {
        lock_range: m.cpus[0].lock_range,
    })
}

/// The seed's pre-BWX byte store (Handbook form): LDQ_U, INSBL, MSKBL, OR, STQ_U.
const PRE_BWX_STB: &str = "
    ldq_u $1, 0($16)
    insbl $17, $16, $3
    mskbl $1, $16, $1
    bis   $1, $3, $1
    stq_u $1, 0($16)
    halt";

/// The same C store built for BWX: load, modify, STB.
const BWX_STB: &str = "
    ldbu  $1, 0($16)
    bis   $31, $17, $1
    stb   $1, 0($16)
    halt";

/// CPU 0 stores 0xaa at `DATA + a`, CPU 1 0xbb at `DATA + b`; CPU 1 runs
/// entirely between CPU 0's first instruction (its load) and the rest.
fn two_byte_stores(model: &str, src: &str, a: u64, b: u64) -> (Machine, Vec<Finding>) {
    let mut m = machine_with(model, 2, src);
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA + a;
    m.cpus[0].r[17] = 0xaa;
    m.cpus[1].r[16] = DATA + b;
    m.cpus[1].r[17] = 0xbb;
    let mut d = detectors(&m);
    assert_eq!(m.run(0, 1), Event::BudgetExhausted);
    to_halt(&mut m, 1);
    to_halt(&mut m, 0);
    drain(&mut m, &mut d);
    (m, d.findings().to_vec())
}

#[test]
fn machine_pre_bwx_byte_store_loses_the_neighbours_byte() {
    let (m, f) = two_byte_stores("ev4", PRE_BWX_STB, 0, 1);
    assert_eq!(
        data(&m, 0, 2),
        vec![0xaa, 0x00],
        "CPU 1's byte really vanished"
    );
    assert_eq!(f.len(), 1, "{f:?}");
    let f = &f[0];
    assert_eq!(
        (f.kind, f.address, f.bytes.clone()),
        (Kind::LostStore, DATA + 1, vec![DATA + 1])
    );
    assert_eq!(
        f.by,
        Site {
            thread: 0,
            pc: CODE + 16
        }
    );
    assert_eq!(f.by_load_pc, Some(CODE));
    assert_eq!(
        f.other,
        Some(Site {
            thread: 1,
            pc: CODE + 16
        })
    );
}

#[test]
fn machine_bwx_build_of_the_same_store_reports_nothing() {
    let (m, f) = two_byte_stores("ev56", BWX_STB, 0, 1);
    assert_eq!(data(&m, 0, 2), vec![0xaa, 0xbb]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn machine_pre_bwx_stores_to_different_quadwords_report_nothing() {
    let (m, f) = two_byte_stores("ev4", PRE_BWX_STB, 0, 8);
    assert_eq!((data(&m, 0, 1), data(&m, 8, 1)), (vec![0xaa], vec![0xbb]));
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn machine_ldq_stq_block_copy_clobbers_a_neighbours_stb() {
    // CPU 0 copies 7 bytes from $17 into the quadword at $16, keeping its
    // byte 7 by a read-modify-write; CPU 1's STB to that byte 7 vanishes.
    let src = "
        ldq    $1, 0($16)
        ldq    $2, 0($17)
        zapnot $2, 0x7f, $2
        zap    $1, 0x7f, $1
        bis    $1, $2, $1
        stq    $1, 0($16)
        halt
        stb    $18, 7($16)
        halt";
    let mut m = machine_with("ev56", 2, src);
    m.mem.set_trace(true);
    m.mem
        .poke(DATA + 64, &0x0706_0504_0302_0100u64.to_le_bytes())
        .unwrap();
    m.cpus[0].r[16] = DATA;
    m.cpus[0].r[17] = DATA + 64;
    m.cpus[1].pc = CODE + 28;
    m.cpus[1].r[16] = DATA;
    m.cpus[1].r[18] = 0x99;
    let mut d = detectors(&m);
    assert_eq!(m.run(0, 1), Event::BudgetExhausted);
    to_halt(&mut m, 1);
    to_halt(&mut m, 0);
    drain(&mut m, &mut d);
    assert_eq!(data(&m, 7, 1), vec![0], "CPU 1's byte vanished");
    let f = d.findings();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].kind, f[0].bytes.clone()),
        (Kind::LostStore, vec![DATA + 7])
    );
    assert_eq!((f[0].by.pc, f[0].by_load_pc), (CODE + 20, Some(CODE)));
    assert_eq!(
        f[0].other,
        Some(Site {
            thread: 1,
            pc: CODE + 28
        })
    );
}

/// CPU 0: LDQ_L, add, STQ_C at `DATA`; CPU 1 stores a quadword at `DATA +
/// other` between CPU 0's LDQ_L and its STQ_C. Returns CPU 0's success flag.
fn stq_c_against(lock_range: u64, other: u64) -> (u64, Vec<Finding>) {
    let src = "
        ldq_l $1, 0($16)
        addq  $1, 1, $1
        stq_c $1, 0($16)
        halt
        stq   $2, 0($17)
        halt";
    let mut m = machine_with("ev67", 2, src);
    for c in &mut m.cpus {
        c.lock_range = lock_range;
    }
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA;
    m.cpus[1].pc = CODE + 16;
    m.cpus[1].r[17] = DATA + other;
    m.cpus[1].r[2] = 7;
    let mut d = detectors(&m);
    assert_eq!(m.run(0, 1), Event::BudgetExhausted);
    to_halt(&mut m, 1);
    to_halt(&mut m, 0);
    drain(&mut m, &mut d);
    (m.cpus[0].r[1], d.findings().to_vec())
}

#[test]
fn machine_stq_c_failing_from_a_store_elsewhere_in_the_lock_range() {
    for other in [8, 64, 120] {
        let (ok, f) = stq_c_against(128, other);
        assert_eq!(ok, 0, "the model fails the STQ_C (distance {other})");
        assert_eq!(f.len(), 1, "{f:?}");
        let f = &f[0];
        assert_eq!(f.kind, Kind::LockRangeContention);
        assert_eq!((f.address, f.other_address), (DATA, Some(DATA + other)));
        assert_eq!(f.lock_range, Some(128));
        assert_eq!(
            f.by,
            Site {
                thread: 0,
                pc: CODE + 8
            }
        );
        assert_eq!(
            f.other,
            Some(Site {
                thread: 1,
                pc: CODE + 16
            })
        );
    }
}

#[test]
fn machine_stq_c_failing_from_a_store_to_the_locked_quadword_is_genuine() {
    let (ok, f) = stq_c_against(128, 0);
    assert_eq!(ok, 0);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn machine_store_beyond_the_lock_range_neither_fails_nor_reports() {
    let (ok, f) = stq_c_against(128, 128);
    assert_eq!(ok, 1);
    assert!(f.is_empty(), "{f:?}");
}

/// Run a one-CPU LL/SC snippet to its halt; the test acts as the
/// personality and reports CALL_PAL callsys as a system call event.
fn progress_of(src: &str) -> Vec<Finding> {
    let mut m = machine_with("ev67", 1, src);
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA;
    let mut d = detectors(&m);
    loop {
        match m.run(0, 10_000) {
            HALT => break,
            Event::CallPal { func: 0x83 } => {
                drain(&mut m, &mut d);
                d.event(0, m.cpus[0].pc - 4, EventKind::Syscall);
            }
            e => panic!("unexpected {e:?}"),
        }
    }
    drain(&mut m, &mut d);
    d.findings().to_vec()
}

fn rule_at(f: &[Finding]) -> (Option<&'static str>, Option<u64>) {
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].kind, f[0].by.pc, f[0].address),
        (Kind::ForwardProgress, CODE, DATA)
    );
    (f[0].rule, f[0].offending_pc)
}

#[test]
fn machine_llsc_with_a_load_inside_breaks_memory_access_rule() {
    let f = progress_of("ldq_l $1,0($16)\n ldq $2,8($16)\n addq $1,$2,$1\n stq_c $1,0($16)\n halt");
    assert_eq!(rule_at(&f), (Some("memory-access"), Some(CODE + 4)));
}

#[test]
fn machine_llsc_with_a_taken_branch_inside_breaks_branch_rule() {
    let f = progress_of("ldq_l $1,0($16)\n br $31,1f\n addq $1,1,$1\n1: stq_c $1,0($16)\n halt");
    assert_eq!(rule_at(&f), (Some("taken-branch"), Some(CODE + 4)));
}

#[test]
fn machine_llsc_with_floating_point_inside_breaks_subsetted_rule() {
    let f = progress_of("ldq_l $1,0($16)\n addt $f31,$f31,$f2\n stq_c $1,0($16)\n halt");
    assert_eq!(rule_at(&f), (Some("subsetted-instruction"), Some(CODE + 4)));
}

#[test]
fn machine_llsc_with_41_instructions_inside_breaks_the_40_limit() {
    let src = format!(
        "ldq_l $1,0($16)\n{}stq_c $1,0($16)\n halt",
        "addq $1,1,$1\n".repeat(41)
    );
    assert_eq!(
        rule_at(&progress_of(&src)),
        (Some("too-many-instructions"), Some(CODE + 4 * 41))
    );
}

#[test]
fn machine_llsc_with_a_system_call_inside_breaks_exception_rule() {
    let f = progress_of("ldq_l $1,0($16)\n call_pal 0x83\n stq_c $1,0($16)\n halt");
    assert_eq!(rule_at(&f), (Some("exception"), Some(CODE + 4)));
}

#[test]
fn machine_llsc_with_unop_padding_and_an_untaken_branch_is_no_violation() {
    // `unop` (LDQ_U $31) accesses nothing; a branch not taken stays straight.
    let f = progress_of(
        "ldq_l $1,0($16)\n unop\n addq $1,1,$2\n bne $31,1f\n unop\n stq_c $2,0($16)\n1: halt",
    );
    assert!(f.is_empty(), "{f:?}");
}

/// GCC's `__sync_fetch_and_add((unsigned char *)p, 1)` at -mcpu=ev4, from
/// the seed (004), with its `ret` replaced by `halt`.
const GCC_SYNC_FETCH_AND_ADD: &str = "
afa:
	bic $16,7,$3
	ldq_u $1,0($16)
	extbl $1,$16,$1
$L8:
	mb
	addl $1,1,$2
	and $1,0xff,$5
	insbl $2,$16,$2
$L11:
	ldq_l $6,0($3)
	extbl $6,$16,$1
	cmpeq $1,$5,$4
	beq $4,$L12
	mskbl $6,$16,$4
	bis $4,$2,$4
	stq_c $4,0($3)
	beq $4,$L11
	mb
$L12:
	beq $4,$L8
	mov $5,$0
	halt";

#[test]
fn machine_gccs_byte_fetch_and_add_on_neighbouring_bytes_reports_nothing() {
    // Two CPUs increment bytes 5 and 6 of one quadword (address bit 2 set).
    // CPU 1 runs its whole atomic between CPU 0's LDQ_L and STQ_C, so CPU 0's
    // STQ_C fails and its retry succeeds.
    let mut m = machine_with("ev4", 2, GCC_SYNC_FETCH_AND_ADD);
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA + 5;
    m.cpus[1].r[16] = DATA + 6;
    let mut d = detectors(&m);
    assert_eq!(m.run(0, 8), Event::BudgetExhausted); // through CPU 0's LDQ_L
    assert!(m.mem.reservation(0).lock_flag);
    to_halt(&mut m, 1);
    to_halt(&mut m, 0);
    drain(&mut m, &mut d);
    assert_eq!(data(&m, 5, 2), vec![1, 1], "both increments landed");
    assert!(
        m.mem.lock_breaks >= 1,
        "CPU 1's STQ_C broke CPU 0's reservation"
    );
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn state_reset_forgets_the_schedule_and_clone_snapshots_it() {
    let race = [
        ldq_u(0, A0, Q, 0),
        ldq_u(1, B0, Q + 1, 0),
        stq_u(1, B1, Q + 1, 0xbb00),
        stq_u(0, A1, Q, 0xaa),
    ];
    let code = Code::none();
    let mut d = Detectors::new(Config { lock_range: 128 });
    for rec in &race[..3] {
        d.access(rec.agent as u32, rec, &code);
    }
    let snapshot = d.clone();
    d.access(0, &race[3], &code);
    assert_eq!(d.findings().len(), 1);
    d.reset();
    assert!(d.findings().is_empty());
    // Only the write-back, without the loads before it: nothing is lost.
    d.access(0, &race[3], &code);
    assert!(d.findings().is_empty(), "reset forgot the loads and stores");
    // The snapshot resumes where it was taken.
    let mut s = snapshot;
    s.access(0, &race[3], &code);
    assert_eq!(s.findings().len(), 1);
}

#[test]
fn machine_pre_bwx_unaligned_word_store_loses_neighbours_in_both_quadwords() {
    // The Handbook's unaligned word store (two read-modify-writes, high
    // quadword first) of 0x1234 at DATA+7; CPU 1 (at CODE+44) stores
    // bytes 6 and 9 with STB.
    let src = format!(
        "
        ldq_u $2, 1($16)
        ldq_u $1, 0($16)
        inswh $17, $16, $4
        inswl $17, $16, $3
        mskwh $2, $16, $2
        mskwl $1, $16, $1
        bis   $2, $4, $2
        bis   $1, $3, $1
        stq_u $2, 1($16)
        stq_u $1, 0($16)
        halt
        ldah  $1, {}($31)
        stb   $18, 6($1)
        stb   $18, 9($1)
        halt",
        DATA >> 16
    );
    let mut m = machine_with("ev56", 2, &src);
    m.mem.set_trace(true);
    m.cpus[0].r[16] = DATA + 7;
    m.cpus[0].r[17] = 0x1234;
    m.cpus[1].pc = CODE + 44;
    m.cpus[1].r[18] = 0x77;
    let mut d = detectors(&m);
    assert_eq!(m.run(0, 2), Event::BudgetExhausted); // both LDQ_U
    to_halt(&mut m, 1);
    to_halt(&mut m, 0);
    drain(&mut m, &mut d);
    assert_eq!(
        data(&m, 6, 4),
        vec![0, 0x34, 0x12, 0],
        "both neighbours vanished"
    );
    let got: Vec<(u64, u64, u64)> = d
        .findings()
        .iter()
        .map(|f| (f.address, f.by.pc, f.other.unwrap().pc))
        .collect();
    assert_eq!(
        got,
        vec![
            (DATA + 9, CODE + 32, CODE + 52), // high STQ_U erases CPU 1's byte 9
            (DATA + 6, CODE + 36, CODE + 48), // low STQ_U erases CPU 1's byte 6
        ]
    );
}
