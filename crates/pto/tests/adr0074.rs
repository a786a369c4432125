//! ADR 0074 (TLOAD/TSTORE GM byte row stride): its six verification
//! points, each a named test driven by real command encodings.

use pto::asm::assemble;
use pto::{CommandExecution, DataType, Fault, Machine, TileConfig, TileLayout, TileLocation};

fn run(m: &mut Machine, text: &str) {
    for w in assemble(text).unwrap_or_else(|e| panic!("{text}: {e}")) {
        assert_eq!(
            m.execute_command_instruction(w),
            CommandExecution::Executed,
            "{w:#010x} in `{text}` was rejected: {}",
            m.last_fault()
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn tile(
    m: &mut Machine,
    index: u32,
    cap: u64,
    cols: u64,
    vr: u64,
    vc: u64,
    dt: DataType,
    mask: Option<u8>,
) {
    m.configure_tile(
        index,
        &TileConfig {
            capacity: cap,
            rows: vr.max(1),
            cols,
            valid_rows: vr,
            valid_cols: vc,
            dtype: dt,
            layout: TileLayout::RowMajor,
            location: TileLocation::Any,
            mask,
        },
    )
    .expect("configure tile");
}

fn gm(m: &Machine, addr: u64, n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    m.read_memory(addr, &mut v).expect("in bounds");
    v
}

/// Verification 1: FP16 and FP32 two-dimensional load/store add the encoded
/// byte pitch exactly once (not pitch × element size).
#[test]
fn fp16_fp32_2d_load_store_add_byte_pitch_once() {
    for (dt, eb, pitch) in [(DataType::FP32, 4u64, 64u64), (DataType::FP16, 2, 32)] {
        let mut m = Machine::new(4096);
        for (i, v) in [0x11u64, 0x22, 0x33, 0x44].iter().enumerate() {
            let (r, c) = (i as u64 / 2, i as u64 % 2);
            m.store(0x100 + r * pitch + c * eb, eb as u32, *v).unwrap();
        }
        m.write_pe_gpr(0, 2, 0x100);
        m.write_pe_gpr(0, 3, pitch);
        run(
            &mut m,
            &format!("BSTART.TLOAD {dt}; B.DIM LB0, 2; B.DIM LB1, 2; B.DIM LB2, 2; B.IOR a0, a1; B.IOT mask=1111, last, ->T<1>"),
        );
        assert!(
            m.execute_bundle_tile_operation(),
            "{dt} load: {}",
            m.last_fault()
        );
        let t = m.bundle_destination_tile(0).expect("destination");
        for (i, v) in [0x11u64, 0x22, 0x33, 0x44].iter().enumerate() {
            assert_eq!(
                m.read_tile_element(t, i as u64 / 2, i as u64 % 2),
                Ok(Some(*v)),
                "{dt}"
            );
        }
        // Store it back at 0x400 with the same byte pitch.
        m.write_pe_gpr(0, 2, 0x400);
        m.reset_bundle_control_state();
        run(
            &mut m,
            &format!(
                "BSTART.TSTORE {dt}; B.IOR a0, a1; B.IOT T#{}, mask=1111, last",
                t + 1
            ),
        );
        assert!(
            m.execute_bundle_tile_operation(),
            "{dt} store: {}",
            m.last_fault()
        );
        assert_eq!(
            m.load_unsigned(0x400 + pitch, eb as u32),
            Ok(0x33),
            "{dt}: row 1 at base + pitch"
        );
        assert_eq!(m.load_unsigned(0x400 + pitch + eb, eb as u32), Ok(0x44));
        // Scaling the pitch by the element size again would have put row 1 here:
        assert_eq!(
            m.load_unsigned(0x400 + pitch * eb, eb as u32),
            Ok(0),
            "{dt}: no double scaling"
        );
    }
}

/// Verification 2: packed four-bit rows restart nibble selection at each
/// byte-strided row base (the PTO-SCENARIO.md example, PTO-AVS-BLOCK-TSTORE-PACKED-001).
#[test]
fn packed_rows_restart_nibble_at_each_byte_strided_row_base() {
    let mut m = Machine::new(4096);
    tile(&mut m, 0, 128, 2, 2, 2, DataType::U4X2, None);
    for (r, c, v) in [(0, 0, 1), (0, 1, 2), (1, 0, 3), (1, 1, 4)] {
        m.write_tile_element(0, r, c, v).unwrap();
    }
    m.write_memory(0x320, &[0xff; 8]).unwrap();
    m.write_pe_gpr(0, 2, 0x320);
    m.write_pe_gpr(0, 3, 4);
    for w in [0xe011_1181u32, 0x0008_5e13, 0x0031_0013] {
        assert_eq!(m.execute_command_instruction(w), CommandExecution::Executed);
    }
    assert!(m.execute_bundle_tile_operation());
    assert_eq!(
        gm(&m, 0x320, 8),
        [0x21, 0xff, 0xff, 0xff, 0x43, 0xff, 0xff, 0xff]
    );

    // Odd physical width: three U4X2 columns, stride 2. Row 1 starts at its
    // own byte; the high nibble of row 0's last byte is outside row 1.
    let mut m = Machine::new(4096);
    m.write_memory(0x40, &[0x21, 0xe3, 0x54, 0xf6]).unwrap();
    m.write_pe_gpr(0, 2, 0x40);
    m.write_pe_gpr(0, 3, 2);
    run(&mut m, "BSTART.TLOAD U4X2; B.DIM LB0, 3; B.DIM LB1, 2; B.DIM LB2, 4; B.IOR a0, a1; B.IOT mask=1111, last, ->T<1>");
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    let t = m.bundle_destination_tile(0).unwrap();
    let got: Vec<_> = (0..2)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| m.read_tile_element(t, r, c).unwrap().unwrap())
        .collect();
    assert_eq!(
        got,
        [1, 2, 3, 4, 5, 6],
        "0xe and 0xf are the unused high nibbles"
    );
}

/// Verification 3: omitted B.IOR derives base 0 and the dense byte width
/// from LB2; an encoded zero selector is GPR 0, a real zero stride.
#[test]
fn omitted_bior_derives_dense_byte_width_encoded_zero_stays_zero() {
    // Omitted: U16, LB2 = 4 columns → dense stride 8 bytes.
    let mut m = Machine::new(4096);
    for i in 0..8u64 {
        m.store(i * 2, 2, 0x100 + i).unwrap();
    }
    run(
        &mut m,
        "BSTART.TLOAD U16; B.DIM LB0, 2; B.DIM LB1, 2; B.DIM LB2, 4; B.IOT mask=1111, last, ->T<1>",
    );
    assert!(m.execute_bundle_tile_operation());
    let t = m.bundle_destination_tile(0).unwrap();
    assert_eq!(
        m.read_tile_element(t, 1, 0),
        Ok(Some(0x104)),
        "row 1 at 4 columns × 2 bytes"
    );
    // Encoded zero selectors: base GPR0 = 0 and stride GPR0 = 0.
    let mut m = Machine::new(4096);
    for i in 0..8u64 {
        m.store(i * 2, 2, 0x100 + i).unwrap();
    }
    run(&mut m, "BSTART.TLOAD U16; B.DIM LB0, 2; B.DIM LB1, 2; B.DIM LB2, 4; B.IOR zero, zero; B.IOT mask=1111, last, ->T<1>");
    assert!(m.execute_bundle_tile_operation());
    let t = m.bundle_destination_tile(0).unwrap();
    assert_eq!(
        m.read_tile_element(t, 1, 0),
        Ok(Some(0x100)),
        "zero stride: row 1 re-reads row 0"
    );
    // A selected GPR holding zero is a real zero too.
    let mut m = Machine::new(4096);
    m.store(0x10, 2, 7).unwrap();
    m.write_pe_gpr(0, 2, 0x10);
    m.write_pe_gpr(0, 3, 0);
    run(&mut m, "BSTART.TLOAD U16; B.DIM LB0, 1; B.DIM LB1, 2; B.DIM LB2, 4; B.IOR a0, a1; B.IOT mask=1111, last, ->T<1>");
    assert!(m.execute_bundle_tile_operation());
    let t = m.bundle_destination_tile(0).unwrap();
    assert_eq!(m.read_tile_element(t, 1, 0), Ok(Some(7)));
}

/// Verification 4: four selected PEs resolve distinct private base and
/// byte-stride GPRs (after AVS block-exec-per-pe-gm-001).
#[test]
fn four_pes_resolve_distinct_private_base_and_stride() {
    let mut m = Machine::new(4096);
    let bases = [0u64, 0x200, 0x400, 0x600];
    let strides = [256u64, 320, 384, 448];
    for pe in 0..4 {
        m.write_pe_gpr(pe, 2, bases[pe]);
        m.write_pe_gpr(pe, 3, strides[pe]);
    }
    m.write_memory_byte(0, 0x11).unwrap();
    m.write_memory_byte(0x280, 0x22).unwrap();
    m.write_memory_byte(0x580, 0x33).unwrap();
    m.write_memory_byte(0x840, 0x44).unwrap();
    run(&mut m, "BSTART.TLOAD U64; B.DIM LB0, 32; B.DIM LB1, 2; B.DIM LB2, 32; B.IOS mask=1111, ->S31<3>; B.IOR a0, a1");
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    for (e, v) in [(0u64, 0x11u64), (16, 0x22), (32, 0x33), (48, 0x44)] {
        assert_eq!(m.read_shared_tile_word(31, e), Ok(Some(v)), "element {e}");
    }
    // And a Shared TSTORE writes each quarter with its own PE's base/stride.
    for pe in 0..4 {
        m.write_pe_gpr(pe, 2, 0x100 * pe as u64 + 0x80);
        m.write_pe_gpr(pe, 3, 0x40);
    }
    m.reset_bundle_control_state();
    run(
        &mut m,
        "BSTART.TSTORE U64; B.IOS S31, mask=1111; B.IOR a0, a1",
    );
    assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
    assert_eq!(m.load_unsigned(0x80, 8), Ok(0x11), "PE0 element (0,0)");
    assert_eq!(
        m.load_unsigned(0x180 + 16 * 8, 8),
        Ok(0x22),
        "PE1 element (0,16)"
    );
    assert_eq!(
        m.load_unsigned(0x280 + 0x40, 8),
        Ok(0x33),
        "PE2 element (1,0)"
    );
    assert_eq!(
        m.load_unsigned(0x380 + 0x40 + 16 * 8, 8),
        Ok(0x44),
        "PE3 element (1,16)"
    );
}

fn snapshot(
    m: &Machine,
) -> (
    Vec<u8>,
    u64,
    Vec<Option<pto::tile::TileInfo>>,
    Vec<pto::shared::SharedTileInfo>,
) {
    (
        gm(m, 0, 4096),
        m.core_tile_capacity_in_use(),
        // Unallocated registers are compared as absent: their stale payload
        // array is not architecturally visible.
        (0..64)
            .map(|i| m.tile_record(i).filter(|t| t.allocated).cloned())
            .collect(),
        (0..=255u8)
            .map(|i| m.shared_tile_record(i).clone())
            .collect(),
    )
}

/// Verification 5: Local, Shared full and Shared partial keep complete
/// preflight: the last element faults, nothing at all changed, restart works.
#[test]
fn local_shared_full_shared_partial_preflight_no_partial_effect() {
    // Local TLOAD: row 1 runs past GM.
    let mut m = Machine::new(4096);
    m.write_pe_gpr(0, 2, 4096 - 16);
    m.write_pe_gpr(0, 3, 12);
    run(&mut m, "BSTART.TLOAD U32; B.DIM LB0, 2; B.DIM LB1, 2; B.DIM LB2, 2; B.IOR a0, a1; B.IOT mask=1111, last, ->T<1>");
    let before = snapshot(&m);
    assert!(!m.execute_bundle_tile_operation());
    assert_eq!(m.last_fault(), Fault::DataPage);
    assert_eq!(m.last_fault_address(), Some(4096 - 16 + 12 + 4));
    assert_eq!(
        snapshot(&m),
        before,
        "no destination published, capacity unchanged"
    );
    m.write_pe_gpr(0, 3, 8);
    m.clear_fault();
    assert!(m.execute_bundle_tile_operation(), "restart succeeds");

    // Local TSTORE: last element out of bounds, earlier ones must not land.
    let mut m = Machine::new(4096);
    tile(&mut m, 0, 128, 2, 2, 2, DataType::U64, None);
    for (r, c) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        m.write_tile_element(0, r, c, 0xaa).unwrap();
    }
    m.write_pe_gpr(0, 2, 4096 - 24);
    m.write_pe_gpr(0, 3, 16);
    run(
        &mut m,
        "BSTART.TSTORE U64; B.IOR a0, a1; B.IOT T#1, mask=1111, last",
    );
    let before = snapshot(&m);
    assert!(!m.execute_bundle_tile_operation());
    assert_eq!(m.last_fault(), Fault::DataPage);
    assert_eq!(snapshot(&m), before);

    // Shared full (Function 1) and Shared partial (Function 14): PE1's quarter
    // faults; the other selected PEs' in-bounds quarters must not be written.
    for (start, mask) in [
        ("BSTART.TSTORE U64", "1111"),
        ("BSTART.TSTORE U64 [TSTORE.SPART form]", "1100"),
    ] {
        let mut m = Machine::new(4096);
        tile(&mut m, 1, 512, 32, 2, 32, DataType::U64, Some(0b1111));
        for r in 0..2 {
            for c in 0..32 {
                m.write_tile_element(1, r, c, 0x55).unwrap();
            }
        }
        m.install_shared_tile(9, 1, 0b1111).unwrap();
        for pe in 0..4 {
            m.write_pe_gpr(pe, 2, 0x100 * pe as u64);
            m.write_pe_gpr(pe, 3, 0x100);
        }
        m.write_pe_gpr(1, 2, 4096 - 248); // PE1 holds (0,16..31): (0,31) is past GM
        run(
            &mut m,
            &format!("{start}; B.IOS S9, mask={mask}; B.IOR a0, a1"),
        );
        let before = snapshot(&m);
        assert!(!m.execute_bundle_tile_operation(), "{start}");
        assert_eq!(m.last_fault(), Fault::DataPage, "{start}");
        assert_eq!(
            m.last_fault_address(),
            Some(4096),
            "{start}: the last element faults"
        );
        assert_eq!(snapshot(&m), before, "{start}: no partial effect");
    }
}

/// Verification 6: no user-visible text of subword describes the TLOAD/TSTORE
/// stride in elements, except where it documents the `--element-stride`
/// what-if (the superseded pre-ADR-0074 reading).
#[test]
fn no_user_visible_text_describes_stride_in_elements() {
    let root = testkit::workspace_root();
    let mut files = vec![
        root.join("crates/subword/src/main.rs"),
        root.join("crates/pto/src/asm.rs"),
    ];
    for dir in [root.clone(), root.join("docs")] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                if e.path().extension().is_some_and(|x| x == "md") {
                    files.push(e.path());
                }
            }
        }
    }
    // Every disassembly text the tool prints for the path's forms.
    let mut disasm = String::new();
    for w in [
        0x0001_1181u32,
        0x0011_1181,
        0x00e1_1181,
        0x0031_0013,
        0x0008_5e13,
        0x0000_1013,
    ] {
        disasm.push_str(&pto::asm::disassemble(w).unwrap_or_default());
        disasm.push('\n');
    }
    let stale = [
        "stride in elements",
        "element stride",
        "elements between rows",
        "row stride in elements",
        "stride_elements",
        "element-unit stride",
    ];
    let mut offenders = Vec::new();
    let mut texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(p).ok()?)))
        .collect();
    texts.push(("disassembly".into(), disasm));
    for (name, text) in &texts {
        for (i, line) in text.lines().enumerate() {
            let l = line.to_ascii_lowercase();
            // The what-if switch is documented as the superseded reading.
            // TPREFETCH keeps its logical-element row stride (ADR 0074,
            // "Scope and preserved behavior"), so its lines may say so.
            if l.contains("element-stride")
                || l.contains("pre-adr-0074")
                || l.contains("superseded")
                || l.contains("tprefetch")
            {
                continue;
            }
            for p in stale {
                if l.contains(p) {
                    offenders.push(format!("{name}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "stale element-stride text:\n{}",
        offenders.join("\n")
    );
    assert!(texts.len() > 2, "found the texts to check");
}
