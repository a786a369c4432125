//! Properties of TLOAD/TSTORE (random legal shapes, data types, strides,
//! bases) and named tests for the rules the ASL states beyond ADR 0074.

use proptest::prelude::*;

use pto::asm::assemble;
use pto::{CommandExecution, DataType, Fault, Machine, TileConfig, TileLayout, TileLocation};

const GM: u64 = 1 << 16;

fn run(m: &mut Machine, text: &str) {
    for w in assemble(text).unwrap_or_else(|e| panic!("{text}: {e}")) {
        assert_eq!(
            m.execute_command_instruction(w),
            CommandExecution::Executed,
            "{w:#010x} in `{text}`: {}",
            m.last_fault()
        );
    }
}

fn cfg(cap: u64, cols: u64, vr: u64, vc: u64, dt: DataType) -> TileConfig {
    TileConfig {
        capacity: cap,
        rows: vr.max(1),
        cols,
        valid_rows: vr,
        valid_cols: vc,
        dtype: dt,
        layout: TileLayout::RowMajor,
        location: TileLocation::Any,
        mask: None,
    }
}

fn arb_dtype() -> impl Strategy<Value = DataType> {
    prop::sample::select(DataType::ALL.to_vec())
}

/// A legal Local transfer: shape, type, stride (multiple of the element
/// size so every access is aligned, possibly smaller than the row so rows
/// may overlap only when the test allows it), base.
#[derive(Debug, Clone)]
struct Case {
    dt: DataType,
    cols: u64,
    vr: u64,
    vc: u64,
    stride: u64,
    base: u64,
    seed: u64,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (
        arb_dtype(),
        0u32..5,
        1u64..9,
        0u64..40,
        0u64..2000,
        any::<u64>(),
    )
        .prop_flat_map(|(dt, cexp, vr, extra, basek, seed)| {
            let cols = 1u64 << cexp; // power-of-two physical columns
            (1..=cols).prop_map(move |vc| {
                let eb = dt.element_bytes() as u64;
                let row_bytes = if dt.is_four_bit() {
                    vc.div_ceil(2)
                } else {
                    vc * eb
                };
                // Non-overlapping rows: stride >= row bytes, aligned.
                let stride = (row_bytes + extra).div_ceil(eb) * eb;
                let base = (basek * 8) / eb * eb;
                Case {
                    dt,
                    cols,
                    vr,
                    vc,
                    stride,
                    base,
                    seed,
                }
            })
        })
}

fn value_for(seed: u64, r: u64, c: u64, dt: DataType) -> u64 {
    let x =
        seed ^ (r.wrapping_mul(0x9e37_79b9_7f4a_7c15)) ^ (c.wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
    let x = x ^ (x >> 29);
    let bits = dt.element_bits();
    if bits == 64 {
        x
    } else {
        x & ((1u64 << bits) - 1)
    }
}

/// Bytes the footprint of `c` touches, as (addr, bit mask within the byte).
fn footprint(c: &Case) -> std::collections::HashMap<u64, u8> {
    let mut f = std::collections::HashMap::new();
    for r in 0..c.vr {
        for col in 0..c.vc {
            let a =
                pto::addressing::tile_memory_strided_byte_address(c.base, r, col, c.stride, c.dt);
            if c.dt.is_four_bit() {
                *f.entry(a).or_insert(0) |= if col % 2 == 1 { 0xf0 } else { 0x0f };
            } else {
                for k in 0..c.dt.element_bytes() as u64 {
                    f.insert(a + k, 0xff);
                }
            }
        }
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// TSTORE then TLOAD round-trips the valid region, and bytes outside the
    /// footprint (row gaps, sibling nibbles) never change.
    #[test]
    fn tstore_then_tload_round_trips_and_spares_outside_bytes(c in arb_case()) {
        let mut m = Machine::new(GM);
        // Smallest capacity that holds the shape.
        let cap = pto::tile::minimum_tile_capacity_bytes_for_shape(c.cols, c.vr, c.vc, c.dt);
        prop_assume!(cap != 0 && cap <= 65536);
        m.configure_tile(0, &cfg(cap, c.cols, c.vr, c.vc, c.dt)).unwrap();
        for r in 0..c.vr {
            for col in 0..c.vc {
                m.write_tile_element(0, r, col, value_for(c.seed, r, col, c.dt)).unwrap();
            }
        }
        // Background pattern everywhere.
        let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(37) ^ 0xa5).collect();
        m.write_memory(0, &bg).unwrap();
        let last = pto::addressing::tile_memory_strided_byte_address(c.base, c.vr - 1, c.vc - 1, c.stride, c.dt);
        prop_assume!(last + 8 < GM);
        m.tstore(c.base, c.stride, 0).unwrap();
        let fp = footprint(&c);
        let mut after = vec![0u8; GM as usize];
        m.read_memory(0, &mut after).unwrap();
        for (i, (&b, &a)) in bg.iter().zip(after.iter()).enumerate() {
            let keep = !fp.get(&(i as u64)).copied().unwrap_or(0);
            prop_assert_eq!(a & keep, b & keep, "byte {:#x} outside the footprint changed", i);
        }
        m.configure_tile(1, &cfg(cap, c.cols, c.vr, c.vc, c.dt)).unwrap();
        m.tload(1, c.base, c.stride).unwrap();
        for r in 0..c.vr {
            for col in 0..c.vc {
                let want = value_for(c.seed, r, col, c.dt);
                let got = m.read_tile_element(1, r, col).unwrap().unwrap();
                // Signed 8/16/32-bit loads sign-extend the payload word.
                let got = if c.dt.sign_extends_on_load() {
                    got & ((1u64 << c.dt.element_bits()) - 1)
                } else {
                    got
                };
                prop_assert_eq!(got, want, "({}, {}) of {}", r, col, c.dt);
            }
        }
    }

    /// The bundle path and the direct operation agree: the same transfer via
    /// encoded BSTART.TLOAD/B.DIM/B.IOR/B.IOT words loads the same values.
    #[test]
    fn bundle_tload_equals_direct_tload(c in arb_case()) {
        let cap = pto::tile::minimum_tile_capacity_bytes_for_shape(c.cols, c.vr, c.vc, c.dt);
        prop_assume!(cap != 0 && cap <= 65536);
        let size = (cap.trailing_zeros() - 6) as u64;
        let mut m = Machine::new(GM);
        let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(91) ^ 0x3c).collect();
        m.write_memory(0, &bg).unwrap();
        m.write_pe_gpr(0, 4, c.base);
        m.write_pe_gpr(0, 5, c.stride);
        run(&mut m, &format!(
            "BSTART.TLOAD {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOR a2, a3; B.IOT mask=1111, last, ->U<{size}>",
            c.dt, c.vc, c.vr, c.cols));
        prop_assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
        let t = m.bundle_destination_tile(0).unwrap();
        prop_assert!((16..32).contains(&t), "U hand");
        m.configure_tile(0, &cfg(cap, c.cols, c.vr, c.vc, c.dt)).unwrap();
        m.tload(0, c.base, c.stride).unwrap();
        for r in 0..c.vr {
            for col in 0..c.vc {
                prop_assert_eq!(m.read_tile_element(t, r, col), m.read_tile_element(0, r, col));
            }
        }
    }
}

/// One Shared or Local transfer with per-PE bases and strides that may be
/// misaligned, out of bounds or overlapping.
#[derive(Debug, Clone)]
struct Wild {
    dt: DataType,
    cols: u64,
    vr: u64,
    vc: u64,
    size_code: u32,
    bases: [u64; 4],
    strides: [u64; 4],
    mode: u32,
    store: bool,
    shared: bool,
}

fn arb_wild() -> impl Strategy<Value = Wild> {
    (
        arb_dtype(),
        0u32..6,
        1u64..12,
        1u32..5,
        prop::array::uniform4(prop_oneof![0u64..5000, 7000u64..8200]),
        prop::array::uniform4(prop_oneof![0u64..64, Just(0), 0u64..600]),
        1u32..8,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(
            |(dt, cexp, vr, size_code, bases, strides, mode, store, shared)| {
                let cols = 1u64 << cexp;
                (1..=cols).prop_map(move |vc| Wild {
                    dt,
                    cols,
                    vr,
                    vc,
                    size_code,
                    bases,
                    strides,
                    mode,
                    store,
                    shared,
                })
            },
        )
}

/// Outcome of a transfer: fault, fault address, all GM, Shared word view
/// or destination tile elements.
type Outcome = (Fault, Option<u64>, Vec<u8>, Vec<Option<u64>>);

fn wild_run(w: &Wild, slow: bool) -> Option<Outcome> {
    let mut m = Machine::new(8192);
    let bg: Vec<u8> = (0..8192u64)
        .map(|i| (i as u8).wrapping_mul(29) ^ 0x5a)
        .collect();
    m.write_memory(0, &bg).unwrap();
    if slow {
        // Memory-event capture takes the per-element path.
        m.start_memory_event_capture(0);
    }
    let cap = 64u64 << w.size_code;
    let mask = pto::forms::pe_mask_of_pe_mode(w.mode);
    for pe in 0..4 {
        m.write_pe_gpr(pe, 2, w.bases[pe]);
        m.write_pe_gpr(pe, 3, w.strides[pe]);
    }
    m.set_current_pe(1);
    let mut c = cfg(cap, w.cols, w.vr, w.vc, w.dt);
    c.mask = Some(0b1111);
    if m.configure_tile(0, &c).is_err() {
        return None;
    }
    for r in 0..w.vr {
        for col in 0..w.vc {
            m.write_tile_element(0, r, col, value_for(7, r, col, w.dt))
                .unwrap();
        }
    }
    let masks = pto::forms::mask_string(mask);
    let text = match (w.shared, w.store) {
        (true, true) => {
            m.install_shared_tile(4, 0, 0b1111).ok()?;
            format!("BSTART.TSTORE {} [TSTORE.SPART form]; B.IOS S4, mask={masks}; B.IOR a0, a1", w.dt)
        }
        (true, false) => format!(
            "BSTART.TLOAD {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOS mask={masks}, ->S4<{}>; B.IOR a0, a1",
            w.dt, w.vc, w.vr, w.cols, w.size_code
        ),
        (false, true) => format!("BSTART.TSTORE {}; B.IOR a0, a1; B.IOT T#1, mask={masks}, last", w.dt),
        (false, false) => format!(
            "BSTART.TLOAD {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOR a0, a1; B.IOT mask={masks}, last, ->U<{}>",
            w.dt, w.vc, w.vr, w.cols, w.size_code
        ),
    };
    run(&mut m, &text);
    m.execute_bundle_tile_operation();
    let mut gm = vec![0; 8192];
    m.read_memory(0, &mut gm).unwrap();
    let view: Vec<Option<u64>> = if w.shared {
        (0..w.vr * w.cols)
            .map(|e| m.read_shared_tile_word(4, e).unwrap())
            .collect()
    } else {
        match m.bundle_destination_tile(0) {
            Some(t) => (0..w.vr)
                .flat_map(|r| (0..w.vc).map(move |col| (r, col)))
                .map(|(r, col)| m.read_tile_element(t, r, col).unwrap())
                .collect(),
            None => Vec::new(),
        }
    };
    Some((m.last_fault(), m.last_fault_address(), gm, view))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// The row-run fast path and the per-element path agree on everything
    /// observable: fault, fault address, GM, destination — for Local and
    /// Shared, loads and stores, any PE subset, wild bases and strides.
    #[test]
    fn row_runs_and_per_element_paths_agree(w in arb_wild()) {
        let fast = wild_run(&w, false);
        let slow = wild_run(&w, true);
        prop_assert_eq!(fast, slow);
    }
}

/// ASL ProbeDataAccess: natural alignment is checked before the bounded
/// memory, so a byte stride that is not a multiple of a wide element's size
/// faults `Fault_DataAlignment` even where the access is also out of bounds.
#[test]
fn misaligned_row_faults_alignment_before_bounded_memory() {
    let mut m = Machine::new(4096);
    m.configure_tile(0, &cfg(128, 2, 2, 2, DataType::FP32))
        .unwrap();
    // Aligned but past GM: the bounded-memory fault.
    assert_eq!(m.tload(0, 4096, 8), Err(Fault::DataPage));
    m.clear_fault();
    // Row 1 starts at 0xff0 + 0x16 = 0x1006: misaligned *and* past GM →
    // alignment is checked first.
    assert_eq!(m.tload(0, 0xff0, 0x16), Err(Fault::DataAlignment));
    assert_eq!(
        m.last_fault_address(),
        Some(0xff0 + 0x16),
        "row 1 element 0 is the first misaligned access"
    );
    // Byte elements never misalign.
    let mut m = Machine::new(4096);
    m.configure_tile(0, &cfg(128, 2, 2, 2, DataType::U8))
        .unwrap();
    assert_eq!(m.tload(0, 3, 7), Ok(()));
}

/// shared-movement.asl: a Shared tile's element belongs to the PE whose
/// capacity quarter holds it and is addressed with that PE's base and
/// stride but with the tile's global row.
#[test]
fn shared_element_uses_owner_pe_base_stride_and_global_row() {
    let mut m = Machine::new(4096);
    // 256-byte U8 Shared tile, 8 columns: 32 rows; quarter = 64 bytes = rows 8 per PE.
    for pe in 0..4 {
        m.write_pe_gpr(pe, 2, 0x100 * (pe as u64 + 1));
        m.write_pe_gpr(pe, 3, 16);
    }
    for r in 0..32u64 {
        let pe = r / 8;
        // Element (r, 0) must come from PE pe's base + r * 16 (global row r).
        m.write_memory_byte(0x100 * (pe + 1) + r * 16, r as u8 + 1)
            .unwrap();
    }
    run(&mut m, "BSTART.TLOAD U8; B.DIM LB0, 8; B.DIM LB1, 32; B.DIM LB2, 8; B.IOR a0, a1; B.IOS mask=1111, ->S3<2>");
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    for r in 0..32u64 {
        assert_eq!(
            m.read_shared_tile_word(3, r * 8),
            Ok(Some(r + 1)),
            "row {r}"
        );
    }
}

/// PTO-ARCH-GM-ACCESS-001: unselected PEs are never address-checked: an
/// SPART store selecting PE0/PE1 completes although PE2/PE3 hold bases far
/// outside GM.
#[test]
fn unselected_pes_are_never_address_checked() {
    let mut m = Machine::new(4096);
    let mut c = cfg(256, 8, 32, 8, DataType::U8);
    c.mask = Some(0b1111);
    m.configure_tile(0, &c).unwrap();
    for r in 0..32 {
        for col in 0..8 {
            m.write_tile_element(0, r, col, r * 8 + col).unwrap();
        }
    }
    m.install_shared_tile(5, 0, 0b1111).unwrap();
    m.write_pe_gpr(0, 2, 0x000);
    m.write_pe_gpr(1, 2, 0x400);
    m.write_pe_gpr(2, 2, u64::MAX - 7);
    m.write_pe_gpr(3, 2, 1 << 40);
    for pe in 0..4 {
        m.write_pe_gpr(pe, 3, 8);
    }
    run(
        &mut m,
        "BSTART.TSTORE U8 [TSTORE.SPART form]; B.IOS S5, mask=1100; B.IOR a0, a1",
    );
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    assert_eq!(m.read_memory_byte(0), Ok(0), "PE0 row 0");
    assert_eq!(
        m.read_memory_byte(0x400 + 8 * 8),
        Ok(64),
        "PE1 row 8 at its base + 8 * 8"
    );
    // Function 1 with a partial mask is illegal (SharedStorePEMaskLegal).
    m.reset_bundle_control_state();
    run(
        &mut m,
        "BSTART.TSTORE U8; B.IOS S5, mask=1100; B.IOR a0, a1",
    );
    assert!(!m.execute_bundle_tile_operation());
    assert_eq!(m.last_fault(), Fault::TileLegality);
}

/// tile-schema.asl: a Local TSTORE with B.IOR omitted takes its dense pitch
/// from LB2 when present (else the source's physical columns).
#[test]
fn local_tstore_without_bior_takes_dense_pitch_from_lb2() {
    let mut m = Machine::new(4096);
    m.configure_tile(0, &cfg(128, 4, 2, 2, DataType::U16))
        .unwrap();
    for (r, c, v) in [(0, 0, 1), (0, 1, 2), (1, 0, 3), (1, 1, 4)] {
        m.write_tile_element(0, r, c, v).unwrap();
    }
    run(
        &mut m,
        "BSTART.TSTORE U16; B.DIM LB2, 16; B.IOT T#1, mask=1111, last",
    );
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    assert_eq!(m.load_unsigned(32, 2), Ok(3), "row 1 at LB2 16 × 2 bytes");
    let mut m = Machine::new(4096);
    m.configure_tile(0, &cfg(128, 4, 2, 2, DataType::U16))
        .unwrap();
    for (r, c, v) in [(0, 0, 1), (0, 1, 2), (1, 0, 3), (1, 1, 4)] {
        m.write_tile_element(0, r, c, v).unwrap();
    }
    run(&mut m, "BSTART.TSTORE U16; B.IOT T#1, mask=1111, last");
    assert!(m.execute_bundle_tile_operation());
    assert_eq!(
        m.load_unsigned(8, 2),
        Ok(3),
        "row 1 at the source's 4 columns × 2 bytes"
    );
}

/// shared-tlsu.asl: Shared TLOAD takes LB0/LB1/LB2 exactly; a missing LB2
/// is not defaulted from LB0 as a Local TLOAD would.
#[test]
fn shared_tload_takes_lb_dims_without_local_defaults() {
    let mut m = Machine::new(4096);
    run(
        &mut m,
        "BSTART.TLOAD U8; B.DIM LB0, 8; B.DIM LB1, 2; B.IOS mask=1111, ->S1<1>",
    );
    let cap = m.core_tile_capacity_in_use();
    assert!(!m.execute_bundle_tile_operation());
    assert_eq!(m.last_fault(), Fault::TileLegality);
    assert!(!m.shared_tile_record(1).descriptor_valid);
    assert_eq!(m.core_tile_capacity_in_use(), cap);
    // The same shape as a Local TLOAD defaults LB2 to LB0 and completes.
    let mut m = Machine::new(4096);
    run(
        &mut m,
        "BSTART.TLOAD U8; B.DIM LB0, 8; B.DIM LB1, 2; B.IOT mask=1111, last, ->T<1>",
    );
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
}

/// load-store.asl DecodeTileMemoryElementRaw: S8/S16/S32 sign-extend on
/// load, S4X2 nibbles zero-extend, unsigned types zero-extend.
#[test]
fn signed_8_16_32_sign_extend_on_load_s4x2_zero_extends() {
    let mut m = Machine::new(4096);
    m.write_memory(0, &[0x80, 0x00, 0x00, 0x80, 0xf7]).unwrap();
    for (dt, addr, want) in [
        (DataType::S8, 0u64, 0xffff_ffff_ffff_ff80u64),
        (DataType::S16, 2, 0xffff_ffff_ffff_8000),
        (DataType::S32, 0, 0xffff_ffff_8000_0080),
        (DataType::U8, 0, 0x80),
        (DataType::U16, 2, 0x8000),
    ] {
        m.configure_tile(0, &cfg(128, 1, 1, 1, dt)).unwrap();
        m.tload(0, addr, 0).unwrap();
        assert_eq!(m.read_tile_element(0, 0, 0), Ok(Some(want)), "{dt}");
    }
    m.configure_tile(0, &cfg(128, 2, 1, 2, DataType::S4X2))
        .unwrap();
    m.tload(0, 4, 0).unwrap();
    assert_eq!(m.read_tile_element(0, 0, 0), Ok(Some(0x7)));
    assert_eq!(
        m.read_tile_element(0, 0, 1),
        Ok(Some(0xf)),
        "S4X2 -1 stays 0xf (zero-extended)"
    );
}

/// load-store.asl TSTORE: rows are stored in order, so when a zero stride
/// aliases every row onto one GM row the last row written wins.
#[test]
fn zero_stride_tstore_last_row_wins() {
    for dt in [DataType::U32, DataType::U4X2] {
        let mut m = Machine::new(4096);
        m.configure_tile(0, &cfg(128, 2, 3, 2, dt)).unwrap();
        for r in 0..3 {
            for c in 0..2 {
                m.write_tile_element(0, r, c, r * 2 + c + 1).unwrap();
            }
        }
        m.tstore(0x40, 0, 0).unwrap();
        m.configure_tile(1, &cfg(128, 2, 1, 2, dt)).unwrap();
        m.tload(1, 0x40, 0).unwrap();
        assert_eq!(
            m.read_tile_element(1, 0, 0),
            Ok(Some(5)),
            "{dt}: row 2 wins"
        );
        assert_eq!(m.read_tile_element(1, 0, 1), Ok(Some(6)), "{dt}");
    }
}

/// PTO-ARCH-GM-ACCESS-001: PE_MASK 0000 is a strict no-op before any GPR
/// read, allocation, memory access or fault — even with an illegal shape.
#[test]
fn pe_mask_0000_is_a_strict_no_op() {
    let mut m = Machine::new(4096);
    m.write_pe_gpr(0, 2, u64::MAX);
    let mem_before = {
        let mut v = vec![0; 4096];
        m.read_memory(0, &mut v).unwrap();
        v
    };
    // B.IOT with PEMode 000 (mask 0000) and an absurd shape.
    run(&mut m, "BSTART.TLOAD U64; B.DIM LB0, 60000; B.IOR a0, a0");
    let w = pto::forms::FORMS
        .iter()
        .find(|f| f.form_id == "b_iot_32_efa0fe3fe49a")
        .unwrap();
    let word = w.field("SizeCode").unwrap().insert(w.matches, 10);
    assert_eq!(
        m.execute_command_instruction(word),
        CommandExecution::Executed
    );
    assert!(m.execute_bundle_tile_operation());
    assert_eq!(m.last_fault(), Fault::None);
    assert_eq!(m.core_tile_capacity_in_use(), 0, "nothing allocated");
    assert!(
        m.take_accesses().is_empty() && m.take_transfers().is_empty(),
        "no GM access"
    );
    let mut after = vec![0; 4096];
    m.read_memory(0, &mut after).unwrap();
    assert_eq!(after, mem_before);
}

/// The `--element-stride` what-if reads the stride in the superseded
/// pre-ADR-0074 element units; the default is bytes.
#[test]
fn element_stride_what_if_is_opt_in() {
    let mut m = Machine::new(4096);
    m.store(0x100 + 8 * 4, 4, 0xb).unwrap();
    m.store(0x100 + 8, 4, 0xa).unwrap();
    m.configure_tile(0, &cfg(128, 2, 2, 1, DataType::U32))
        .unwrap();
    m.tload(0, 0x100, 8).unwrap();
    assert_eq!(
        m.read_tile_element(0, 1, 0),
        Ok(Some(0xa)),
        "default: 8 bytes"
    );
    m.set_element_stride_mode(true);
    m.tload(0, 0x100, 8).unwrap();
    assert_eq!(
        m.read_tile_element(0, 1, 0),
        Ok(Some(0xb)),
        "what-if: 8 elements = 32 bytes"
    );
}

/// packed-boundary.asl: a tile outside the packed-carrier representation
/// keeps whole words (WriteTileElement of a wider value reads back whole);
/// a packed-carrier tile keeps the element width.
#[test]
fn word_payload_keeps_wide_values_carrier_payload_truncates() {
    let mut m = Machine::new(4096);
    m.configure_tile(0, &cfg(128, 4, 2, 4, DataType::FP32))
        .unwrap();
    m.write_tile_element(0, 0, 1, 0x1_2345_6789).unwrap();
    assert_eq!(m.read_tile_element(0, 0, 1), Ok(Some(0x1_2345_6789)));
    // TSTORE still writes only the element's four bytes.
    for c in [0, 2, 3] {
        m.write_tile_element(0, 0, c, 0).unwrap();
    }
    for c in 0..4 {
        m.write_tile_element(0, 1, c, 0).unwrap();
    }
    m.tstore(0x100, 16, 0).unwrap();
    assert_eq!(m.load_unsigned(0x104, 4), Ok(0x2345_6789));
    assert_eq!(m.load_unsigned(0x108, 4), Ok(0));
    // 64 KiB of U8 (65536 elements) is a packed carrier: element width.
    m.configure_tile(1, &cfg(65536, 256, 256, 256, DataType::U8))
        .unwrap();
    m.write_tile_element(1, 3, 3, 0x1ff).unwrap();
    assert_eq!(m.read_tile_element(1, 3, 3), Ok(Some(0xff)));
}

proptest! {
    /// Bad input never panics: any configure/write/read/transfer arguments
    /// give a value or a fault.
    #[test]
    fn arbitrary_primitive_arguments_never_panic(
        cap in any::<u64>(), rows in any::<u64>(), cols in prop_oneof![any::<u64>(), 0u64..70],
        vr in prop_oneof![any::<u64>(), 0u64..70], vc in prop_oneof![any::<u64>(), 0u64..70],
        dt in arb_dtype(), layout in prop::sample::select(TileLayout::ALL.to_vec()),
        base in any::<u64>(), stride in any::<u64>(), row in any::<u64>(), col in any::<u64>(),
        words in prop::collection::vec(any::<u32>(), 0..12),
    ) {
        let mut m = Machine::new(4096);
        let c = TileConfig { capacity: cap, rows, cols, valid_rows: vr, valid_cols: vc, dtype: dt,
            layout, location: TileLocation::Matrix, mask: None };
        let _ = m.configure_tile(3, &c);
        let _ = m.write_tile_element(3, row % 80, col % 80, base);
        let _ = m.read_tile_element(3, row, col);
        let _ = m.tload(3, base, stride);
        let _ = m.tstore(base, stride, 3);
        let _ = m.install_shared_tile(7, 3, (row & 0xf) as u8);
        let _ = m.read_shared_tile_word(7, col);
        m.set_bundle_dimension((row % 4) as u32, col);
        for w in words {
            let _ = m.execute_command_instruction(w);
            let _ = pto::asm::disassemble(w);
        }
        let _ = m.execute_bundle_tile_operation();
    }
}

proptest! {
    /// The assembler answers any text with words or a one-line error.
    #[test]
    fn assembler_never_panics_on_any_text(
        s in prop_oneof![
            ".{0,80}",
            "(BSTART\\.T(LOAD|STORE) [A-Z0-9]{1,6}|B\\.(DIM|IOR|IOT|IOS|DATR) [a-zA-Z0-9#<>=,{}\\- ]{0,30}|BSTOP)(; ?[A-Z.]{0,8} ?[a-zA-Z0-9#<>=, ]{0,20}){0,3}",
        ]
    ) {
        match pto::asm::assemble(&s) {
            Ok(words) => for w in words {
                prop_assert!(pto::asm::disassemble(w).is_ok(), "{} assembled to an undecodable {:#x}", s, w);
            },
            Err(e) => prop_assert!(!e.to_string().contains('\n')),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// Dense full-width rows (one contiguous block) agree with the
    /// per-element path too.
    #[test]
    fn contiguous_blocks_and_per_element_paths_agree(mut w in arb_wild(), far in any::<bool>()) {
        w.vc = w.cols;
        let dense = pto::addressing::tile_dense_row_stride_bytes(w.cols, w.dt);
        w.strides = [dense; 4];
        if far {
            // The last row runs one byte past GM (Local uses PE1, Shared all).
            w.bases = [8193u64.saturating_sub(dense * w.vr); 4];
        }
        let fast = wild_run(&w, false);
        let slow = wild_run(&w, true);
        prop_assert_eq!(fast, slow);
    }
}

/// The paged GM (sizes above the dense limit) takes the one-lookup row copy
/// when a strided footprint lies in one present page, and the per-row path
/// when it crosses a page or the page was never written; all three agree
/// with the byte-stride formula, element by element.
#[test]
fn paged_gm_strided_rows_match_the_formula_inside_across_and_outside_pages() {
    for (base, prewrite) in [(0x1_0000u64, true), (0x1_ff00, true), (0x5_0000, false)] {
        for dt in [DataType::U8, DataType::FP32, DataType::U4X2] {
            let mut m = Machine::new(1 << 30);
            let (cols, vr, stride) = (16u64, 8u64, 40u64);
            if prewrite {
                let bytes: Vec<u8> = (0..vr * stride).map(|i| (i * 7 + 3) as u8).collect();
                m.write_memory(base, &bytes).unwrap();
            }
            m.configure_tile(0, &cfg(512, cols, vr, cols, dt)).unwrap();
            m.tload(0, base, stride).unwrap();
            for r in 0..vr {
                for c in 0..cols {
                    let a =
                        pto::addressing::tile_memory_strided_byte_address(base, r, c, stride, dt);
                    let raw = m.load_unsigned(a, dt.element_bytes()).unwrap();
                    let want = if dt.is_four_bit() {
                        if c % 2 == 1 {
                            (raw >> 4) & 0xf
                        } else {
                            raw & 0xf
                        }
                    } else {
                        raw
                    };
                    assert_eq!(
                        m.read_tile_element(0, r, c),
                        Ok(Some(want)),
                        "{dt} base {base:#x} ({r}, {c})"
                    );
                }
            }
            // Store the tile 1 MiB further on (a page never written), then
            // back onto the written footprint: both land exactly.
            for dst in [base + (1 << 20), base] {
                m.tstore(dst, stride, 0).unwrap();
                for r in 0..vr {
                    for c in 0..cols {
                        let a = pto::addressing::tile_memory_strided_byte_address(
                            dst, r, c, stride, dt,
                        );
                        let raw = m.load_unsigned(a, dt.element_bytes()).unwrap();
                        let got = if dt.is_four_bit() {
                            if c % 2 == 1 {
                                (raw >> 4) & 0xf
                            } else {
                                raw & 0xf
                            }
                        } else {
                            raw
                        };
                        assert_eq!(
                            Some(got),
                            m.read_tile_element(0, r, c).unwrap(),
                            "{dt} store {dst:#x} ({r}, {c})"
                        );
                    }
                }
            }
        }
    }
}
