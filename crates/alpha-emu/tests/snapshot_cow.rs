//! State: `Memory::snapshot` shares page bytes copy-on-write. A snapshot
//! shares every page with its original until one side writes it, and a write
//! on either side is never seen by the other, nor by another snapshot of the
//! same original (what a broken copy-on-write gets wrong). Compiled code's
//! page table (`JitTlb`) must never keep a write entry for a page that became
//! shared, nor a read entry for a page that was copied away.

use alpha_emu::memory::{Memory, Perm, JIT_TLB_SIZE, PAGE_SIZE};
use alpha_emu::Machine;

const BASE: u64 = 0x10000;
const PAGES: u64 = 4;

fn page(i: u64) -> u64 {
    BASE + i * PAGE_SIZE
}

fn read(m: &mut Memory, addr: u64) -> u64 {
    m.load::<8>(addr).expect("mapped")
}

/// Memory with four pages: 0 and 1 written, 2 and 3 never touched.
fn template() -> Memory {
    let mut m = Memory::new();
    m.map_zero(BASE, PAGES * PAGE_SIZE, Perm::RW).unwrap();
    m.store::<8>(0, page(0), 0x1111).unwrap();
    m.store::<8>(0, page(1) + 8, 0x2222).unwrap();
    m
}

#[test]
fn state_snapshot_shares_every_page_until_it_is_written() {
    let mut t = template();
    let mut a = t.snapshot();
    for i in 0..PAGES {
        assert_eq!(a.shares_page_with(&t, page(i)), Some(true), "page {i}");
    }
    // Reading never copies.
    assert_eq!(read(&mut a, page(0)), 0x1111);
    assert_eq!(read(&mut a, page(3)), 0);
    assert_eq!(a.shares_page_with(&t, page(0)), Some(true));
    assert_eq!(a.shares_page_with(&t, page(3)), Some(true));
    // The first write copies that page only.
    a.store::<1>(0, page(0) + 1, 0xaa).unwrap();
    assert_eq!(a.shares_page_with(&t, page(0)), Some(false));
    for i in 1..PAGES {
        assert_eq!(a.shares_page_with(&t, page(i)), Some(true), "page {i}");
    }
}

#[test]
fn state_writes_in_one_snapshot_never_appear_in_another_or_the_template() {
    let mut t = template();
    let mut a = t.snapshot();
    let mut b = t.snapshot();
    // Warm the write cache of `a` first: the cached page must stay `a`'s.
    a.store::<8>(0, page(0), 0xa0).unwrap();
    a.store::<8>(0, page(0), 0xa1).unwrap();
    a.store::<8>(0, page(2), 0xa2).unwrap(); // a page that was never written
    b.store::<8>(0, page(0), 0xb0).unwrap();
    b.poke(page(1) + 8, &[0xbb]).unwrap();
    assert_eq!(read(&mut t, page(0)), 0x1111);
    assert_eq!(read(&mut t, page(1) + 8), 0x2222);
    assert_eq!(read(&mut t, page(2)), 0);
    assert_eq!(read(&mut a, page(0)), 0xa1);
    assert_eq!(read(&mut a, page(1) + 8), 0x2222);
    assert_eq!(read(&mut a, page(2)), 0xa2);
    assert_eq!(read(&mut b, page(0)), 0xb0);
    assert_eq!(read(&mut b, page(1) + 8), 0x22bb);
    assert_eq!(read(&mut b, page(2)), 0);
    // And the template's own writes reach no snapshot.
    t.store::<8>(0, page(3), 0x7777).unwrap();
    assert_eq!(read(&mut a, page(3)), 0);
    assert_eq!(read(&mut b, page(3)), 0);
    // A snapshot of a snapshot is just as independent.
    let mut c = a.snapshot();
    c.store::<8>(0, page(0), 0xc0).unwrap();
    assert_eq!(read(&mut a, page(0)), 0xa1);
    a.store::<8>(0, page(2), 0xa3).unwrap();
    assert_eq!(read(&mut c, page(2)), 0xa2);
}

#[test]
fn state_a_write_cached_page_is_not_written_in_place_once_shared() {
    // The source's write cache held page 0 before the snapshot: its next
    // store must copy, not write through the stale cache entry.
    let mut t = template();
    t.store::<8>(0, page(0), 0x5555).unwrap();
    let mut a = t.snapshot();
    t.store::<8>(0, page(0), 0x6666).unwrap();
    assert_eq!(read(&mut a, page(0)), 0x5555);
    assert_eq!(read(&mut t, page(0)), 0x6666);
}

#[test]
fn state_jit_tlb_loses_write_entries_at_snapshot_and_read_entries_at_copy() {
    let mut t = template();
    t.store::<8>(0, page(0), 0x1234).unwrap();
    t.jit_fill_write(page(0));
    t.jit_fill_read(page(1));
    let slot = |a: u64| ((a / PAGE_SIZE) as usize) & (JIT_TLB_SIZE - 1);
    let tlb = t.jit_tlb();
    // SAFETY: the table lives as long as `t`; nothing else touches it here.
    let wtag = |tlb: *mut alpha_emu::memory::JitTlb, a: u64| unsafe { (*tlb).wtag[slot(a)] };
    let rtag = |tlb: *mut alpha_emu::memory::JitTlb, a: u64| unsafe { (*tlb).rtag[slot(a)] };
    assert_eq!(wtag(tlb, page(0)), page(0) / PAGE_SIZE);
    assert_eq!(rtag(tlb, page(1)), page(1) / PAGE_SIZE);
    let mut a = t.snapshot();
    assert_eq!(
        wtag(tlb, page(0)),
        u64::MAX,
        "write entry of a now shared page"
    );
    // Page 1 is shared and unchanged: its read entry may stay.
    assert_eq!(rtag(tlb, page(1)), page(1) / PAGE_SIZE);
    // Writing page 1 copies it: the read entry pointed at the shared bytes.
    t.store::<8>(0, page(1), 1).unwrap();
    assert_eq!(rtag(tlb, page(1)), u64::MAX, "read entry of a copied page");
    assert_eq!(read(&mut a, page(1)), 0);
    let atlb = a.jit_tlb();
    assert_eq!(wtag(atlb, page(0)), u64::MAX);
}

#[test]
fn state_machine_snapshot_is_independent_of_its_original() {
    let mut m = Machine::new(alpha_isa::model_by_name("ev4").unwrap(), 1, None);
    m.mem.map_zero(BASE, PAGE_SIZE, Perm::RW).unwrap();
    m.mem.store::<8>(0, BASE, 42).unwrap();
    m.cpus[0].r[1] = 7;
    let mut s = m.snapshot();
    assert_eq!(s.mem.shares_page_with(&m.mem, BASE), Some(true));
    s.mem.store::<8>(0, BASE, 43).unwrap();
    s.cpus[0].r[1] = 8;
    assert_eq!(m.mem.load::<8>(BASE).unwrap(), 42);
    assert_eq!(m.cpus[0].r[1], 7);
    // `Clone` copies written pages outright.
    let c = m.clone();
    assert_eq!(c.mem.shares_page_with(&m.mem, BASE), Some(false));
}
