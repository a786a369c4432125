//! TPREFETCH (asl/tile/model/memory/gather-scatter.asl `TPREFETCHCore`,
//! asl/block/model/dispatch/tlsu-prefetch.asl): all four PEs, each with its
//! own base and **element** row stride; it never changes GM or any tile, and
//! either records one load per element of every PE or faults with none.

use proptest::prelude::*;

use pto::asm::assemble;
use pto::{CommandExecution, DataType, Fault, Machine, TileConfig, TileLayout, TileLocation};

const GM: u64 = 1 << 13;

#[derive(Debug, Clone)]
struct Case {
    dt: DataType,
    vc: u64,
    vr: u64,
    cols: u64,
    bases: [u64; 4],
    strides: [u64; 4],
    encoded: bool,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(DataType::ALL.to_vec()),
        0u32..5,
        1u64..5,
        prop::array::uniform4(prop_oneof![0u64..GM, GM - 64..GM + 64, any::<u64>()]),
        prop::array::uniform4(prop_oneof![0u64..64, any::<u64>()]),
        any::<bool>(),
    )
        .prop_flat_map(|(dt, cexp, vr, bases, strides, encoded)| {
            let cols = 1u64 << cexp;
            (1..=cols).prop_map(move |vc| Case {
                dt,
                vc,
                vr,
                cols,
                bases,
                strides,
                encoded,
            })
        })
}

/// The element address written out from the ASL, independently of the model.
fn addr(base: u64, stride: u64, r: u64, c: u64, dt: DataType) -> u64 {
    let idx = r.wrapping_mul(stride).wrapping_add(c);
    if dt.is_four_bit() {
        base.wrapping_add(idx >> 1)
    } else {
        base.wrapping_add(idx.wrapping_mul(dt.element_bytes() as u64))
    }
}

fn gm(m: &Machine) -> Vec<u8> {
    let mut v = vec![0; GM as usize];
    m.read_memory(0, &mut v).unwrap();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn tprefetch_never_changes_memory_or_tiles_and_loads_each_element_of_each_pe_once(c in arb_case()) {
        let mut m = Machine::new(GM);
        let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(29) ^ 0x6b).collect();
        m.write_memory(0, &bg).unwrap();
        // A resident tile that must stay as it is.
        m.configure_tile(5, &TileConfig {
            capacity: 128, rows: 2, cols: 4, valid_rows: 2, valid_cols: 4,
            dtype: DataType::U8, layout: TileLayout::RowMajor, location: TileLocation::Any, mask: None,
        }).unwrap();
        m.write_tile_element(5, 1, 2, 0x77).unwrap();
        for pe in 0..4 {
            m.write_pe_gpr(pe, 2, c.bases[pe]);
            m.write_pe_gpr(pe, 3, c.strides[pe]);
        }
        let ior = if c.encoded { "; B.IOR a0, a1" } else { "" };
        let text = format!(
            "BSTART.TPREFETCH {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}{ior}",
            c.dt, c.vc, c.vr, c.cols
        );
        for w in assemble(&text).unwrap() {
            prop_assert_eq!(m.execute_command_instruction(w), CommandExecution::Executed, "{}", text);
        }
        let tiles_before: Vec<_> = (0..64).map(|i| m.tile_record(i).cloned()).collect();
        let cap_before = m.core_tile_capacity_in_use();
        m.start_memory_event_capture(0);
        let completed = m.execute_bundle_tile_operation();

        prop_assert!(gm(&m) == bg, "TPREFETCH changed GM");
        let tiles_after: Vec<_> = (0..64).map(|i| m.tile_record(i).cloned()).collect();
        prop_assert!(tiles_after == tiles_before, "TPREFETCH changed a tile");
        prop_assert_eq!(m.core_tile_capacity_in_use(), cap_before);
        prop_assert_eq!(m.read_tile_element(5, 1, 2), Ok(Some(0x77)));

        let (bases, strides) = if c.encoded { (c.bases, c.strides) } else { ([0; 4], [c.cols; 4]) };
        let eb = c.dt.element_bytes() as u64;
        let mut want = Vec::new();
        let mut first_bad = None;
        for pe in 0..4 {
            for r in 0..c.vr {
                for col in 0..c.vc {
                    let a = addr(bases[pe], strides[pe], r, col, c.dt);
                    if first_bad.is_none() && (!a.is_multiple_of(eb) || a as u128 + eb as u128 > GM as u128) {
                        first_bad = Some(a);
                    }
                    want.push(a);
                }
            }
        }
        match first_bad {
            Some(a) => {
                prop_assert!(!completed);
                prop_assert!(matches!(m.last_fault(), Fault::DataPage | Fault::DataAlignment), "{}", m.last_fault());
                prop_assert_eq!(m.last_fault_address(), Some(a));
                prop_assert_eq!(m.memory_events().len(), 0, "a faulting TPREFETCH records no event");
            }
            None => {
                prop_assert!(completed, "{}", m.last_fault());
                let got: Vec<u64> = m.memory_events().iter().map(|e| e.address).collect();
                prop_assert_eq!(got, want);
                for e in m.memory_events() {
                    prop_assert_eq!(e.read_value, m.load_unsigned(e.address, eb as u32).unwrap());
                }
            }
        }
    }
}

#[test]
fn tprefetch_with_a_tile_binding_is_a_tile_legality_fault() {
    let mut m = Machine::new(4096);
    for w in assemble("BSTART.TPREFETCH U8; B.DIM LB0, 4; B.IOT mask=1000, last, ->T<1>").unwrap() {
        assert_eq!(m.execute_command_instruction(w), CommandExecution::Executed);
    }
    assert!(!m.execute_bundle_tile_operation());
    assert_eq!(m.last_fault(), Fault::TileLegality);
}

#[test]
fn tprefetch_stride_counts_elements_not_bytes() {
    // FP32, 2 rows, element stride 3: row 1 starts 12 bytes after the base.
    let mut m = Machine::new(4096);
    m.write_pe_gpr(0, 2, 0x100);
    m.write_pe_gpr(0, 3, 3);
    for w in assemble("BSTART.TPREFETCH FP32; B.DIM LB0, 1; B.DIM LB1, 2; B.IOR a0, a1").unwrap() {
        assert_eq!(m.execute_command_instruction(w), CommandExecution::Executed);
    }
    m.start_memory_event_capture(0);
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    let pe0: Vec<u64> = m
        .memory_events()
        .iter()
        .filter(|e| e.agent == 0)
        .map(|e| e.address)
        .collect();
    assert_eq!(pe0, vec![0x100, 0x10c]);
}
