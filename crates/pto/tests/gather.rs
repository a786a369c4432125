//! MGATHER / MSCATTER (indexed TLSU, byte displacements) and GMOV: the
//! direct operations and their bundles (`asl/tile/model/memory/gather-scatter.asl`,
//! `asl/block/model/dispatch/tlsu-{mgather,mscatter,gmov}.asl`).

use proptest::prelude::*;

use pto::asm::assemble;
use pto::memory::decode_tile_memory_element_raw;
use pto::types::PadValue;
use pto::{CommandExecution, DataType, Fault, Machine, TileConfig, TileLayout, TileLocation};

const GM: u64 = 1 << 14;

fn cfg(cap: u64, cols: u64, vc: u64, dt: DataType, mask: Option<u8>) -> TileConfig {
    TileConfig {
        capacity: cap,
        rows: 1,
        cols,
        valid_rows: 1,
        valid_cols: vc,
        dtype: dt,
        layout: TileLayout::RowMajor,
        location: TileLocation::Any,
        mask,
    }
}

fn run(m: &mut Machine, text: &str) -> Vec<CommandExecution> {
    assemble(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .into_iter()
        .map(|w| m.execute_command_instruction(w))
        .collect()
}

fn transfer_dtype() -> impl Strategy<Value = DataType> {
    prop::sample::select(
        DataType::ALL
            .iter()
            .copied()
            .filter(|t| !t.is_four_bit())
            .collect::<Vec<_>>(),
    )
}

fn truncate(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1 << bits) - 1)
    }
}

/// A data tile (index 0), a U64 index tile (index 1) holding `disp`, and
/// a destination (index 2) of the same shape.
fn indexed_machine(dt: DataType, values: &[u64], disp: &[u64]) -> Machine {
    let n = values.len() as u64;
    let cols = n.next_power_of_two();
    let mut m = Machine::new(GM);
    m.configure_tile(0, &cfg(128 * cols, cols, n, dt, None))
        .unwrap();
    m.configure_tile(1, &cfg(128 * cols, cols, n, DataType::U64, None))
        .unwrap();
    m.configure_tile(2, &cfg(128 * cols, cols, n, dt, None))
        .unwrap();
    for (c, (&v, &d)) in values.iter().zip(disp).enumerate() {
        m.write_tile_element(0, 0, c as u64, v).unwrap();
        m.write_tile_element(1, 0, c as u64, d).unwrap();
    }
    m
}

/// Distinct aligned displacements: a shuffle of `n` element slots.
fn arb_lanes() -> impl Strategy<Value = (DataType, Vec<u64>, Vec<u64>, u64)> {
    (transfer_dtype(), 1usize..17, any::<u64>(), 0u64..64).prop_flat_map(|(dt, n, _, base)| {
        let eb = dt.element_bytes() as u64;
        (
            Just(dt),
            prop::collection::vec(any::<u64>(), n),
            Just((0..n as u64).map(|i| i * eb).collect::<Vec<_>>()).prop_shuffle(),
            Just(base * 8),
        )
    })
}

/// Random displacements with gaps: `n` distinct element slots out of
/// `4n`, in random lane order, so untouched bytes lie between the lanes.
fn arb_sparse_lanes() -> impl Strategy<Value = (DataType, Vec<u64>, Vec<u64>, u64)> {
    (transfer_dtype(), 1usize..17, 0u64..64).prop_flat_map(|(dt, n, base)| {
        let eb = dt.element_bytes() as u64;
        (
            Just(dt),
            prop::collection::vec(any::<u64>(), n),
            prop::sample::subsequence((0..4 * n as u64).collect::<Vec<_>>(), n)
                .prop_map(move |slots| slots.into_iter().map(|s| s * eb).collect::<Vec<_>>())
                .prop_shuffle(),
            Just(base * 8),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mscatter_then_mgather_with_the_same_displacements_returns_the_data(
        (dt, values, disp, base) in arb_lanes()
    ) {
        let mut m = indexed_machine(dt, &values, &disp);
        m.mscatter(base, 0, 1).unwrap();
        // Each lane landed at base + its displacement.
        let eb = dt.element_bytes();
        for (v, d) in values.iter().zip(&disp) {
            prop_assert_eq!(m.load_unsigned(base + d, eb).unwrap(), truncate(*v, dt.element_bits()));
        }
        m.mgather(2, base, 1, PadValue::Null).unwrap();
        for (c, v) in values.iter().enumerate() {
            let want = decode_tile_memory_element_raw(truncate(*v, dt.element_bits()), dt, false);
            prop_assert_eq!(m.read_tile_element(2, 0, c as u64).unwrap(), Some(want), "lane {}", c);
        }
        prop_assert_eq!(m.last_fault(), Fault::None);
    }

    #[test]
    fn mscatter_with_random_gapped_displacements_writes_only_its_lanes_and_mgather_reads_them_back(
        (dt, values, disp, base) in arb_sparse_lanes()
    ) {
        let mut m = indexed_machine(dt, &values, &disp);
        let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(41) ^ 0x3c).collect();
        m.write_memory(0, &bg).unwrap();
        m.mscatter(base, 0, 1).unwrap();
        let eb = dt.element_bytes() as u64;
        let mut after = vec![0u8; GM as usize];
        m.read_memory(0, &mut after).unwrap();
        for (a, (x, y)) in after.iter().zip(&bg).enumerate() {
            let a = a as u64;
            if !disp.iter().any(|d| (base + d..base + d + eb).contains(&a)) {
                prop_assert_eq!(x, y, "byte {:#x} between or beside the lanes changed", a);
            }
        }
        for (v, d) in values.iter().zip(&disp) {
            prop_assert_eq!(m.load_unsigned(base + d, eb as u32).unwrap(), truncate(*v, dt.element_bits()));
        }
        m.mgather(2, base, 1, PadValue::Null).unwrap();
        for (c, v) in values.iter().enumerate() {
            let want = decode_tile_memory_element_raw(truncate(*v, dt.element_bits()), dt, false);
            prop_assert_eq!(m.read_tile_element(2, 0, c as u64).unwrap(), Some(want), "lane {}", c);
        }
    }

    #[test]
    fn a_faulting_indexed_access_changes_nothing_but_last_fault(
        (dt, values, mut disp, base) in arb_lanes(),
        bad in any::<prop::sample::Index>(),
        gather in any::<bool>(),
    ) {
        let lane = bad.index(disp.len());
        disp[lane] = GM; // past the bounded memory: Fault_DataPage
        let mut m = indexed_machine(dt, &values, &disp);
        m.write_tile_element(2, 0, 0, 0x5a).unwrap();
        let mut gm_before = vec![0u8; GM as usize];
        m.read_memory(0, &mut gm_before).unwrap();
        let tile_before: Vec<_> = (0..values.len() as u64).map(|c| m.read_tile_element(2, 0, c).unwrap()).collect();
        let capacity_before = m.core_tile_capacity_in_use();
        m.start_memory_event_capture(0);
        let r = if gather { m.mgather(2, base, 1, PadValue::Zero) } else { m.mscatter(base, 0, 1) };
        prop_assert_eq!(r, Err(Fault::DataPage));
        prop_assert_eq!(m.last_fault(), Fault::DataPage);
        prop_assert_eq!(m.last_fault_address(), Some(base + GM));
        prop_assert!(m.memory_events().is_empty());
        let mut gm_after = vec![0u8; GM as usize];
        m.read_memory(0, &mut gm_after).unwrap();
        prop_assert!(gm_before == gm_after, "GM changed");
        let tile_after: Vec<_> = (0..values.len() as u64).map(|c| m.read_tile_element(2, 0, c).unwrap()).collect();
        prop_assert_eq!(tile_before, tile_after);
        prop_assert_eq!(m.core_tile_capacity_in_use(), capacity_before);
    }

    #[test]
    fn gmov_round_trip_returns_the_source_payload_and_definedness(
        dt in prop::sample::select(DataType::ALL.iter().copied()
            .filter(|t| t.is_four_bit() || t.element_bytes() <= 4).collect::<Vec<_>>()),
        values in prop::collection::vec(any::<u64>(), 1..17),
        undefined_lane in any::<prop::sample::Index>(),
    ) {
        let n = values.len() as u64;
        let cols = n.next_power_of_two().max(2);
        let cap = 128;
        let mut m = Machine::new(GM);
        for i in [0, 1, 2] {
            m.configure_tile(i, &cfg(cap, cols, n, dt, Some(0b1111))).unwrap();
        }
        let skip = undefined_lane.index(values.len());
        for (c, v) in values.iter().enumerate() {
            if c != skip || values.len() == 1 {
                m.write_tile_element(0, 0, c as u64, *v).unwrap();
            }
        }
        // An incompletely defined source is not a legal GMOV source.
        if values.len() > 1 {
            prop_assert_eq!(m.gmov(1, 0, 0), Err(Fault::TileLegality));
            m.write_tile_element(0, 0, skip as u64, values[skip]).unwrap();
        }
        m.gmov(1, 0, 3).unwrap();
        m.gmov(2, 1, 1).unwrap();
        for c in 0..n {
            prop_assert_eq!(m.read_tile_element(2, 0, c).unwrap(), m.read_tile_element(0, 0, c).unwrap());
        }
        prop_assert_eq!(m.tile_record(2).unwrap().defined_valid_elements(), n);
        prop_assert_eq!(m.gmov(2, 0, 4), Err(Fault::TileLegality), "peer_tid 4 is out of range");
    }
}

#[test]
fn mgather_pads_the_physical_region_and_defines_it() {
    let mut m = indexed_machine(DataType::U16, &[0, 0, 0], &[4, 0, 2]);
    m.store(0x100, 8, 0x4444_3333_2222_1111).unwrap();
    m.mgather(2, 0x100, 1, PadValue::Max).unwrap();
    let got: Vec<_> = (0..4)
        .map(|c| m.read_tile_element(2, 0, c).unwrap())
        .collect();
    // Lane 3 is outside the valid region: the Max pad of U16, defined.
    assert_eq!(
        got,
        vec![Some(0x3333), Some(0x1111), Some(0x2222), Some(0xffff)]
    );
}

#[test]
fn signed_index_tiles_displace_backwards() {
    let mut m = Machine::new(GM);
    m.configure_tile(0, &cfg(128, 2, 2, DataType::U8, None))
        .unwrap();
    m.configure_tile(1, &cfg(128, 2, 2, DataType::S8, None))
        .unwrap();
    m.write_tile_element(1, 0, 0, 0xff).unwrap(); // -1
    m.write_tile_element(1, 0, 1, 0x01).unwrap(); // +1
    m.store(0x1ff, 1, 0xab).unwrap();
    m.store(0x201, 1, 0xcd).unwrap();
    m.mgather(0, 0x200, 1, PadValue::Null).unwrap();
    assert_eq!(m.read_tile_element(0, 0, 0).unwrap(), Some(0xab));
    assert_eq!(m.read_tile_element(0, 0, 1).unwrap(), Some(0xcd));
}

#[test]
fn four_bit_transfer_types_are_illegal_for_indexed_tlsu() {
    let mut m = Machine::new(GM);
    m.configure_tile(0, &cfg(128, 2, 2, DataType::U4X2, None))
        .unwrap();
    m.configure_tile(1, &cfg(128, 2, 2, DataType::U8, None))
        .unwrap();
    m.write_tile_element(0, 0, 0, 1).unwrap();
    m.write_tile_element(0, 0, 1, 2).unwrap();
    m.write_tile_element(1, 0, 0, 0).unwrap();
    m.write_tile_element(1, 0, 1, 1).unwrap();
    assert_eq!(m.mscatter(0x100, 0, 1), Err(Fault::TileLegality));
    assert_eq!(
        m.mgather(0, 0x100, 1, PadValue::Null),
        Err(Fault::TileLegality)
    );
    // A four-bit *index* tile is legal: U4X2 nibbles are byte displacements.
    m.configure_tile(2, &cfg(128, 2, 2, DataType::U4X2, None))
        .unwrap();
    m.write_tile_element(2, 0, 0, 0xf).unwrap();
    m.write_tile_element(2, 0, 1, 0x3).unwrap();
    m.configure_tile(3, &cfg(128, 2, 2, DataType::U8, None))
        .unwrap();
    m.store(0x10f, 1, 0x77).unwrap();
    m.store(0x103, 1, 0x66).unwrap();
    m.mgather(3, 0x100, 2, PadValue::Null).unwrap();
    assert_eq!(m.read_tile_element(3, 0, 0).unwrap(), Some(0x77));
    assert_eq!(m.read_tile_element(3, 0, 1).unwrap(), Some(0x66));
}

#[test]
fn bundle_mgather_allocates_the_destination_and_a_fault_rolls_it_back() {
    let mut m = Machine::new(GM);
    // Index tile T#1 (register 0): U32 byte displacements 8, 0.
    m.configure_tile(0, &cfg(128, 2, 2, DataType::U32, None))
        .unwrap();
    m.write_tile_element(0, 0, 0, 8).unwrap();
    m.write_tile_element(0, 0, 1, 0).unwrap();
    m.store(0x300, 4, 0x1111_1111).unwrap();
    m.store(0x308, 4, 0x2222_2222).unwrap();
    m.write_pe_gpr(0, 2, 0x300);
    let before = m.core_tile_capacity_in_use();
    let r = run(
        &mut m,
        "BSTART.MGATHER U32; B.DIM LB0, 2; B.IOT T#1, mask=1000, last, ->U<1>; B.IOR a0; BSTOP",
    );
    assert!(
        r.iter().all(|&e| e == CommandExecution::Executed),
        "{}",
        m.last_fault()
    );
    assert!(m.core_tile_capacity_in_use() > before);
    // The destination is the first free U register (16).
    assert_eq!(m.read_tile_element(16, 0, 0).unwrap(), Some(0x2222_2222));
    assert_eq!(m.read_tile_element(16, 0, 1).unwrap(), Some(0x1111_1111));
    // The same bundle with a base whose lane 0 leaves GM: the destination
    // is rolled back, capacity returns, and the block stays open.
    let after_first = m.core_tile_capacity_in_use();
    m.write_pe_gpr(0, 2, GM - 4);
    let r = run(
        &mut m,
        "BSTART.MGATHER U32; B.DIM LB0, 2; B.IOT T#1, mask=1000, last, ->U<1>; B.IOR a0; BSTOP",
    );
    assert_eq!(r.last(), Some(&CommandExecution::Rejected));
    assert_eq!(m.last_fault(), Fault::DataPage);
    assert_eq!(m.last_fault_address(), Some(GM + 4));
    assert_eq!(m.core_tile_capacity_in_use(), after_first);
    assert!(!m.tile_record(17).unwrap().allocated);
}

#[test]
fn bundle_mscatter_stores_and_requires_explicit_b_ior() {
    let mut m = Machine::new(GM);
    m.configure_tile(0, &cfg(128, 2, 2, DataType::U16, None))
        .unwrap(); // data T#1
    m.configure_tile(1, &cfg(128, 2, 2, DataType::S16, None))
        .unwrap(); // index T#2
    m.write_tile_element(0, 0, 0, 0xbeef).unwrap();
    m.write_tile_element(0, 0, 1, 0xcafe).unwrap();
    m.write_tile_element(1, 0, 0, 0xfffe).unwrap(); // -2
    m.write_tile_element(1, 0, 1, 0x0002).unwrap();
    // Without B.IOR the schema is incomplete: Fault_TileLegality, no store.
    let r = run(
        &mut m,
        "BSTART.MSCATTER U16; B.DIM LB0, 2; B.IOT T#1, T#2, mask=1000, last; BSTOP",
    );
    assert_eq!(r.last(), Some(&CommandExecution::Rejected));
    assert_eq!(m.last_fault(), Fault::TileLegality);
    m.reset_bundle_control_state();
    m.write_pe_gpr(0, 2, 0x400);
    let r = run(
        &mut m,
        "BSTART.MSCATTER U16; B.DIM LB0, 2; B.IOT T#1, T#2, mask=1000, last; B.IOR a0; BSTOP",
    );
    assert!(
        r.iter().all(|&e| e == CommandExecution::Executed),
        "{}",
        m.last_fault()
    );
    assert_eq!(m.load_unsigned(0x3fe, 2).unwrap(), 0xbeef);
    assert_eq!(m.load_unsigned(0x402, 2).unwrap(), 0xcafe);
}

#[test]
fn bundle_gmov_needs_a_core4_source_and_checks_every_pe_peer_tid() {
    let mut m = Machine::new(GM);
    m.configure_tile(0, &cfg(128, 4, 4, DataType::FP16, Some(0b1111)))
        .unwrap();
    for c in 0..4 {
        m.write_tile_element(0, 0, c, 0x3c00 + c).unwrap();
    }
    // PE 2's peer_tid is 4: rejected before any allocation.
    m.write_pe_gpr(2, 2, 4);
    let before = m.core_tile_capacity_in_use();
    let r = run(
        &mut m,
        "BSTART.GMOV FP16; B.IOT T#1, mask=1111, last, ->U<1>; B.IOR a0; BSTOP",
    );
    assert_eq!(r.last(), Some(&CommandExecution::Rejected));
    assert_eq!(m.last_fault(), Fault::TileLegality);
    assert_eq!(m.core_tile_capacity_in_use(), before);
    m.reset_bundle_control_state();
    m.write_pe_gpr(2, 2, 3);
    let r = run(
        &mut m,
        "BSTART.GMOV FP16; B.IOT T#1, mask=1111, last, ->U<1>; B.IOR a0; BSTOP",
    );
    assert!(
        r.iter().all(|&e| e == CommandExecution::Executed),
        "{}",
        m.last_fault()
    );
    for c in 0..4 {
        assert_eq!(m.read_tile_element(16, 0, c).unwrap(), Some(0x3c00 + c));
    }
    // A source allocated in one PE only is not Core4-ready.
    m.configure_tile(1, &cfg(128, 4, 4, DataType::FP16, None))
        .unwrap();
    for c in 0..4 {
        m.write_tile_element(1, 0, c, 1).unwrap();
    }
    let r = run(
        &mut m,
        "BSTART.GMOV FP16; B.IOT T#2, mask=1111, last, ->U<1>; BSTOP",
    );
    assert_eq!(r.last(), Some(&CommandExecution::Rejected));
    assert_eq!(m.last_fault(), Fault::TileLegality);
}

#[test]
fn malformed_indexed_and_gmov_steps_name_the_file_step_and_field() {
    let cases = [
        (
            "op = \"mgather\"\nindex = 1\nbase = 0\nindices = 2\npad = \"Huge\"",
            "unknown pad `Huge`",
        ),
        (
            "op = \"mscatter\"\nindex = 1\nbase = 0",
            "missing field `indices`",
        ),
        (
            "op = \"gmov\"\nindex = 1\nsource = 2\npeer = 1",
            "unknown field `peer`",
        ),
        ("op = \"tmov\"\nindex = -1\nsource = 2", "`index`"),
    ];
    for (body, want) in cases {
        let text = format!("[[step]]\nop = \"reset\"\n[[step]]\n{body}\n");
        let e = pto_scenario::parse("bad.toml", &text)
            .expect_err(body)
            .to_string();
        assert!(e.starts_with("bad.toml: step 2"), "{e}");
        assert!(e.contains(want), "{e} lacks {want}");
    }
}
