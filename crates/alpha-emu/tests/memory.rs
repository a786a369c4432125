//! Guest memory: permissions, faults as values, lazily zero pages, accesses
//! that cross a page, the mapping API, and the reservation bookkeeping.

use alpha_emu::memory::{Access, FaultKind, MapError, Memory, Perm, PAGE_SIZE};

const A: u64 = 0x4_0000;

/// One memory of each implementation: every test holds for both.
fn memories() -> [Memory; 2] {
    [
        Memory::new(),
        Memory::host_mapped().expect("host-mapped memory on this host"),
    ]
}

#[test]
fn state_fresh_pages_read_as_zero_and_hold_what_is_stored() {
    for mut m in memories() {
        m.map_zero(A, 2 * PAGE_SIZE, Perm::RW).unwrap();
        assert_eq!(m.load::<8>(A + PAGE_SIZE + 8), Ok(0));
        m.store::<4>(0, A + 4, 0xdead_beef_1234_5678).unwrap();
        assert_eq!(
            m.load::<4>(A + 4),
            Ok(0x1234_5678),
            "only the low 4 bytes stored"
        );
        assert_eq!(m.load::<8>(A), Ok(0x1234_5678_0000_0000), "little-endian");
        let mut b = [0u8; 4];
        m.peek(A + 4, &mut b).unwrap();
        assert_eq!(b, [0x78, 0x56, 0x34, 0x12]);
        assert_eq!(m.mapped_bytes(), 2 * PAGE_SIZE);
    }
}

#[test]
fn fault_unmapped_and_protected_accesses_are_values() {
    for mut m in memories() {
        m.map_zero(A, PAGE_SIZE, Perm::R).unwrap();
        let e = m.store::<8>(0, A, 1).unwrap_err();
        assert_eq!(
            (e.addr, e.kind, e.access),
            (A, FaultKind::Protection, Access::Write)
        );
        let e = m.load::<8>(A + PAGE_SIZE).unwrap_err();
        assert_eq!((e.kind, e.access), (FaultKind::Unmapped, Access::Read));
        m.protect(A, PAGE_SIZE, Perm::NONE).unwrap();
        assert_eq!(m.load::<1>(A).unwrap_err().kind, FaultKind::Protection);
        assert!(
            m.peek(A, &mut [0u8; 1]).is_ok(),
            "privileged access ignores permissions"
        );
        assert!(
            m.read_user(A, &mut [0u8; 1]).is_err(),
            "user access does not"
        );
    }
}

#[test]
fn bound_access_across_a_page_boundary_is_split_and_preflighted() {
    for mut m in memories() {
        m.map_zero(A, 2 * PAGE_SIZE, Perm::RW).unwrap();
        let edge = A + PAGE_SIZE - 3;
        m.store::<8>(0, edge, 0x0807_0605_0403_0201).unwrap();
        assert_eq!(m.load::<8>(edge), Ok(0x0807_0605_0403_0201));
        // The second page read-only: the store must fail without touching the first.
        m.protect(A + PAGE_SIZE, PAGE_SIZE, Perm::R).unwrap();
        assert!(m.store::<8>(0, edge, u64::MAX).is_err());
        assert_eq!(m.load::<8>(edge), Ok(0x0807_0605_0403_0201));
    }
}

#[test]
fn state_map_zero_replaces_and_unmap_removes() {
    for mut m in memories() {
        m.map_zero(A, PAGE_SIZE, Perm::RW).unwrap();
        m.store::<8>(0, A, 7).unwrap();
        m.map_zero(A, PAGE_SIZE, Perm::RW).unwrap();
        assert_eq!(
            m.load::<8>(A),
            Ok(0),
            "MAP_FIXED semantics: fresh zero page"
        );
        m.unmap(A, PAGE_SIZE).unwrap();
        assert_eq!(m.perm(A), None);
        assert!(matches!(
            m.map_zero(A + 1, PAGE_SIZE, Perm::RW),
            Err(MapError::BadRange { .. })
        ));
        assert!(matches!(
            m.protect(A, PAGE_SIZE, Perm::R),
            Err(MapError::NotMapped { .. })
        ));
    }
}

#[test]
fn bound_memory_cap_is_enforced() {
    for mut m in memories() {
        m.set_limit(4 * PAGE_SIZE);
        m.map_zero(A, 4 * PAGE_SIZE, Perm::RW).unwrap();
        assert!(matches!(
            m.map_zero(A + 8 * PAGE_SIZE, PAGE_SIZE, Perm::RW),
            Err(MapError::TooMuchMemory { .. })
        ));
    }
}

#[test]
fn state_find_free_skips_mapped_pages() {
    for mut m in memories() {
        m.map_zero(A, PAGE_SIZE, Perm::RW).unwrap();
        m.map_zero(A + 2 * PAGE_SIZE, PAGE_SIZE, Perm::RW).unwrap();
        assert_eq!(m.find_free(A, PAGE_SIZE), Some(A + PAGE_SIZE));
        assert_eq!(m.find_free(A, 2 * PAGE_SIZE), Some(A + 3 * PAGE_SIZE));
    }
}

#[test]
fn order_reservation_is_cleared_by_other_agents_only_within_range() {
    for mut m in memories() {
        m.map_zero(A, PAGE_SIZE, Perm::RW).unwrap();
        m.arm_reservation(0, A + 0x48, 64);
        m.store::<8>(0, A + 0x40, 1).unwrap();
        assert!(m.reservation(0).lock_flag, "own store keeps the flag");
        m.store::<1>(1, A + 0x80, 1).unwrap();
        assert!(m.reservation(0).lock_flag, "outside [0x40, 0x80)");
        m.store::<1>(1, A + 0x7f, 1).unwrap();
        assert!(!m.reservation(0).lock_flag, "inside the range");
        assert_eq!(m.lock_breaks, 1);
        m.arm_reservation(0, A, 8);
        m.poke(A + 4, &[1]).unwrap();
        assert!(
            !m.reservation(0).lock_flag,
            "a device/kernel write clears it too"
        );
    }
}

#[test]
fn fault_ranges_that_wrap_the_address_space_fail_cleanly() {
    for mut m in memories() {
        m.map_zero(0, PAGE_SIZE, Perm::RW).unwrap();
        // Bytes at u64::MAX-3 ..= u64::MAX, then 0..4: the top page is unmapped.
        assert!(m.poke(u64::MAX - 3, &[1; 8]).is_err());
        assert!(m.write_user(u64::MAX - 3, &[1; 8]).is_err());
        assert!(m.read_user(u64::MAX - 3, &mut [0; 8]).is_err());
        assert_eq!(m.load::<8>(0), Ok(0), "nothing was written at 0");
        assert!(m.load::<8>(u64::MAX - 3).is_err());
        assert!(m.store::<8>(0, u64::MAX - 3, 5).is_err());
        assert!(m
            .map_zero(u64::MAX - PAGE_SIZE + 1, PAGE_SIZE, Perm::RW)
            .is_err());
        m.arm_reservation(0, u64::MAX - 7, 8192);
        assert!(m.reservation(0).covers(u64::MAX, 1));
        assert!(!m.reservation(0).covers(0, 8));
    }
}
