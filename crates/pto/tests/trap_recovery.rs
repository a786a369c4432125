//! A fault at any element of a TLOAD/TSTORE bundle (Local, or Shared with
//! per-PE owner bases, over any PE subset), at any lane of an
//! MGATHER/MSCATTER bundle, or at any element of any PE of a TPREFETCH,
//! changes nothing but `_LastFault` (with its
//! address) and the trap context; recovering the context after fixing the
//! cause then completes with effects identical to an unfaulted run
//! (asl/arch/memory-model/fault-precision.asl,
//! asl/arch/profile/trap-context-recovery.asl, asl/block/model/faults/rollback.asl).

use proptest::prelude::*;

use pto::asm::assemble;
use pto::{CommandExecution, DataType, Fault, Machine, TileConfig, TileLayout, TileLocation};

const GM: u64 = 1 << 14;

#[derive(Debug, Clone)]
struct Case {
    dt: DataType,
    cols: u64,
    vr: u64,
    vc: u64,
    stride: u64,
    /// Element (in row-major order over the valid region) that faults.
    k: u64,
    store: bool,
    seed: u64,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(DataType::ALL.to_vec()),
        1u32..5,
        1u64..6,
        0u64..24,
        any::<bool>(),
        any::<u64>(),
        any::<u64>(),
    )
        .prop_flat_map(|(dt, cexp, vr, extra, store, seed, kseed)| {
            let cols = 1u64 << cexp;
            (1..=cols).prop_map(move |vc| {
                let eb = dt.element_bytes() as u64;
                let row_bytes = if dt.is_four_bit() {
                    vc.div_ceil(2)
                } else {
                    vc * eb
                };
                let stride = (row_bytes + extra).div_ceil(eb) * eb;
                let mut k = kseed % (vr * vc);
                // A packed element shares its byte with its even neighbour:
                // fault at the first nibble of the byte.
                if dt.is_four_bit() && (k % vc) % 2 == 1 {
                    k -= 1;
                }
                Case {
                    dt,
                    cols,
                    vr,
                    vc,
                    stride,
                    k,
                    store,
                    seed,
                }
            })
        })
}

fn offset(c: &Case, r: u64, col: u64) -> u64 {
    pto::addressing::tile_memory_strided_byte_address(0, r, col, c.stride, c.dt)
}

fn value_for(c: &Case, r: u64, col: u64) -> u64 {
    let x =
        c.seed ^ r.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ col.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    let bits = c.dt.element_bits();
    if bits == 64 {
        x
    } else {
        x & ((1u64 << bits) - 1)
    }
}

fn gm(m: &Machine) -> Vec<u8> {
    let mut v = vec![0; GM as usize];
    m.read_memory(0, &mut v).unwrap();
    v
}

fn tile_values(m: &Machine, t: u32, c: &Case) -> Vec<Option<u64>> {
    let mut v = Vec::new();
    for r in 0..c.vr {
        for col in 0..c.vc {
            v.push(m.read_tile_element(t, r, col).unwrap());
        }
    }
    v
}

/// Assemble `text` and execute each command word; every one must execute.
fn execute_words(m: &mut Machine, text: &str) {
    for w in assemble(text).unwrap() {
        assert_eq!(
            m.execute_command_instruction(w),
            CommandExecution::Executed,
            "{text}"
        );
    }
}

/// Open the bundle `text` describes, then capture memory events from here.
fn open_bundle(m: &mut Machine, text: &str) {
    execute_words(m, text);
    m.start_memory_event_capture(0);
}

/// A machine with background GM, tile 0 holding the source (for TSTORE),
/// a0 = `base`, a1 = stride and the bundle opened by real command words.
fn setup(c: &Case, base: u64) -> Machine {
    let mut m = Machine::new(GM);
    let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(37) ^ 0x5a).collect();
    m.write_memory(0, &bg).unwrap();
    let cap = pto::tile::minimum_tile_capacity_bytes_for_shape(c.cols, c.vr, c.vc, c.dt).max(128);
    let size = cap.trailing_zeros() - 6;
    m.write_pe_gpr(0, 2, base);
    m.write_pe_gpr(0, 3, c.stride);
    let text = if c.store {
        m.configure_tile(
            0,
            &TileConfig {
                capacity: cap,
                rows: c.vr,
                cols: c.cols,
                valid_rows: c.vr,
                valid_cols: c.vc,
                dtype: c.dt,
                layout: TileLayout::RowMajor,
                location: TileLocation::Any,
                mask: None,
            },
        )
        .unwrap();
        for r in 0..c.vr {
            for col in 0..c.vc {
                m.write_tile_element(0, r, col, value_for(c, r, col))
                    .unwrap();
            }
        }
        format!(
            "BSTART.TSTORE {}; B.IOR a0, a1; B.IOT T#1, mask=1000, last",
            c.dt
        )
    } else {
        format!(
            "BSTART.TLOAD {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOR a0, a1; B.IOT mask=1000, last, ->U<{size}>",
            c.dt, c.vc, c.vr, c.cols
        )
    };
    open_bundle(&mut m, &text);
    m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_fault_at_any_element_changes_only_the_fault_and_trap_context_and_recovery_equals_an_unfaulted_run(c in arb_case()) {
        let (kr, kc) = (c.k / c.vc, c.k % c.vc);
        // Element k is the first one at or past the end of GM.
        let bad_base = GM - offset(&c, kr, kc);
        let good_base = 0x40;
        prop_assume!(offset(&c, c.vr - 1, c.vc - 1) + 8 + good_base < GM);

        let mut m = setup(&c, bad_base);
        let gm0 = gm(&m);
        let bundle0 = m.bundle_state().clone();
        let cap0 = m.core_tile_capacity_in_use();
        let src0 = if c.store { tile_values(&m, 0, &c) } else { Vec::new() };

        prop_assert!(!m.execute_bundle_tile_operation());
        prop_assert_eq!(m.last_fault(), Fault::DataPage);
        prop_assert_eq!(m.last_fault_address(), Some(GM));
        prop_assert!(gm(&m) == gm0, "GM changed by a faulting transfer");
        prop_assert_eq!(m.memory_events().len(), 0);
        prop_assert_eq!(m.core_tile_capacity_in_use(), cap0);
        prop_assert_eq!(m.bundle_state(), &bundle0);
        if c.store {
            prop_assert_eq!(tile_values(&m, 0, &c), src0.clone());
        }
        let ctx = m.trap_context(0).unwrap().clone();
        prop_assert!(ctx.valid);
        prop_assert_eq!(&ctx.bundle, &bundle0);

        // The handler clobbers the live block, fixes the base, recovers.
        m.reset_bundle_control_state();
        m.write_pe_gpr(0, 2, good_base);
        prop_assert!(m.recover_trap_context(0));
        prop_assert!(!m.trap_context(0).unwrap().valid);
        prop_assert_eq!(m.bundle_state(), &bundle0);
        m.clear_fault();
        prop_assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());

        let mut u = setup(&c, good_base);
        prop_assert!(u.execute_bundle_tile_operation(), "{}", u.last_fault());
        prop_assert!(gm(&m) == gm(&u), "recovered GM differs from the unfaulted run");
        prop_assert_eq!(m.memory_events(), u.memory_events());
        prop_assert_eq!(m.core_tile_capacity_in_use(), u.core_tile_capacity_in_use());
        if !c.store {
            let (tm, tu) = (m.bundle_destination_tile(0), u.bundle_destination_tile(0));
            prop_assert!(tm.is_some() && tm == tu);
            prop_assert_eq!(tile_values(&m, tm.unwrap(), &c), tile_values(&u, tu.unwrap(), &c));
        }
    }
}

#[test]
fn recovery_without_a_saved_context_is_refused_and_changes_nothing() {
    let mut m = Machine::new(4096);
    assert!(!m.trap_context(0).unwrap().valid);
    let before = m.bundle_state().clone();
    assert!(!m.recover_trap_context(0));
    assert!(!m.recover_trap_context(15));
    assert!(!m.recover_trap_context(16), "no ring 16");
    assert_eq!(m.bundle_state(), &before);
}

#[test]
fn any_fault_saves_the_bundle_state_of_the_moment_into_ring_zero() {
    let mut m = Machine::new(4096);
    execute_words(&mut m, "BSTART.TLOAD U8; B.DIM LB0, 4");
    let live = m.bundle_state().clone();
    m.set_fault(Fault::TileLegality, None);
    let ctx = m.trap_context(0).unwrap();
    assert!(ctx.valid);
    assert_eq!(ctx.bundle, live);
    assert!(ctx.bundle.active && ctx.bundle.dim_present[0] && ctx.bundle.dims[0] == 4);
    // ClearFault does not touch the saved context.
    m.clear_fault();
    assert!(m.trap_context(0).unwrap().valid);
}

/// An MGATHER or MSCATTER bundle: `n` lanes of `dt`, U32 byte
/// displacements `disp` (a shuffle of dense element slots, so the lane
/// holding the largest one is the first to leave GM as the base rises).
#[derive(Debug, Clone)]
struct Indexed {
    dt: DataType,
    values: Vec<u64>,
    disp: Vec<u64>,
    scatter: bool,
}

fn arb_indexed() -> impl Strategy<Value = Indexed> {
    (
        prop::sample::select(
            DataType::ALL
                .iter()
                .copied()
                .filter(|t| !t.is_four_bit())
                .collect::<Vec<_>>(),
        ),
        1usize..17,
        any::<bool>(),
    )
        .prop_flat_map(|(dt, n, scatter)| {
            let eb = dt.element_bytes() as u64;
            (
                prop::collection::vec(any::<u64>(), n),
                Just((0..n as u64).map(|i| i * eb).collect::<Vec<_>>()).prop_shuffle(),
            )
                .prop_map(move |(values, disp)| Indexed {
                    dt,
                    values,
                    disp,
                    scatter,
                })
        })
}

/// Background GM, the index tile (and for MSCATTER the data tile), a0 =
/// `base`, and the indexed bundle opened by real command words.
fn indexed_setup(c: &Indexed, base: u64) -> Machine {
    let mut m = Machine::new(GM);
    let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(29) ^ 0xa5).collect();
    m.write_memory(0, &bg).unwrap();
    let n = c.values.len() as u64;
    let cols = n.next_power_of_two();
    let tile = |dtype| TileConfig {
        capacity: 128,
        rows: 1,
        cols,
        valid_rows: 1,
        valid_cols: n,
        dtype,
        layout: TileLayout::RowMajor,
        location: TileLocation::Any,
        mask: None,
    };
    let index_reg = if c.scatter { 1 } else { 0 };
    m.configure_tile(index_reg, &tile(DataType::U32)).unwrap();
    for (k, d) in c.disp.iter().enumerate() {
        m.write_tile_element(index_reg, 0, k as u64, *d).unwrap();
    }
    if c.scatter {
        m.configure_tile(0, &tile(c.dt)).unwrap();
        for (k, v) in c.values.iter().enumerate() {
            m.write_tile_element(0, 0, k as u64, *v).unwrap();
        }
    }
    m.write_pe_gpr(0, 2, base);
    let text = if c.scatter {
        format!(
            "BSTART.MSCATTER {}; B.DIM LB0, {n}; B.DIM LB2, {cols}; B.IOT T#1, T#2, mask=1000, last; B.IOR a0",
            c.dt
        )
    } else {
        format!(
            "BSTART.MGATHER {}; B.DIM LB0, {n}; B.DIM LB2, {cols}; B.IOT T#1, mask=1000, last, ->U<1>; B.IOR a0",
            c.dt
        )
    };
    open_bundle(&mut m, &text);
    m
}

fn lane_values(m: &Machine, t: u32, n: usize) -> Vec<Option<u64>> {
    (0..n as u64)
        .map(|k| m.read_tile_element(t, 0, k).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_fault_at_any_lane_of_an_indexed_transfer_changes_only_the_fault_and_trap_context_and_recovery_equals_an_unfaulted_run(
        c in arb_indexed()
    ) {
        let n = c.values.len();
        let eb = c.dt.element_bytes() as u64;
        let lane = (0..n).max_by_key(|&k| c.disp[k]).unwrap();
        // Lane `lane` (anywhere in the tile) starts exactly at the end of GM.
        let bad_base = GM - c.disp[lane];
        let good_base = 0x80;

        let mut m = indexed_setup(&c, bad_base);
        let gm0 = gm(&m);
        let bundle0 = m.bundle_state().clone();
        let cap0 = m.core_tile_capacity_in_use();
        let data0 = if c.scatter { lane_values(&m, 0, n) } else { Vec::new() };

        prop_assert!(!m.execute_bundle_tile_operation());
        prop_assert_eq!(m.last_fault(), Fault::DataPage);
        prop_assert_eq!(m.last_fault_address(), Some(GM));
        prop_assert!(gm(&m) == gm0, "GM changed by a faulting transfer");
        prop_assert_eq!(m.memory_events().len(), 0);
        prop_assert_eq!(m.core_tile_capacity_in_use(), cap0, "destination not rolled back");
        prop_assert_eq!(m.bundle_state(), &bundle0);
        if c.scatter {
            prop_assert_eq!(lane_values(&m, 0, n), data0);
        }
        let ctx = m.trap_context(0).unwrap().clone();
        prop_assert!(ctx.valid);
        prop_assert_eq!(&ctx.bundle, &bundle0);

        m.reset_bundle_control_state();
        m.write_pe_gpr(0, 2, good_base);
        prop_assert!(m.recover_trap_context(0));
        prop_assert_eq!(m.bundle_state(), &bundle0);
        m.clear_fault();
        prop_assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());

        let mut u = indexed_setup(&c, good_base);
        prop_assert!(u.execute_bundle_tile_operation(), "{}", u.last_fault());
        prop_assert!(gm(&m) == gm(&u), "recovered GM differs from the unfaulted run");
        prop_assert_eq!(m.memory_events(), u.memory_events());
        prop_assert_eq!(m.memory_events().len(), n, "one event per lane");
        prop_assert_eq!(m.core_tile_capacity_in_use(), u.core_tile_capacity_in_use());
        if c.scatter {
            // Only the lanes' own bytes changed.
            let g = gm(&m);
            for (a, (x, y)) in g.iter().zip(&gm0).enumerate() {
                let a = a as u64;
                let in_lane = c.disp.iter().any(|d| (good_base + d..good_base + d + eb).contains(&a));
                prop_assert!(in_lane || x == y, "byte {:#x} outside every lane changed", a);
            }
        } else {
            let (tm, tu) = (m.bundle_destination_tile(0), u.bundle_destination_tile(0));
            prop_assert!(tm.is_some() && tm == tu);
            prop_assert_eq!(lane_values(&m, tm.unwrap(), n), lane_values(&u, tu.unwrap(), n));
        }
    }
}

/// A TPREFETCH over all four PEs, each with its own base; element `k` of
/// PE `pe` is the one that faults. The row stride counts elements (ADR 0074
/// left TPREFETCH in elements) and is at least the valid width, so element
/// addresses rise in row-major order.
#[derive(Debug, Clone)]
struct FourPe {
    c: Case,
    pe: usize,
}

fn arb_four_pe() -> impl Strategy<Value = FourPe> {
    (arb_case(), 0usize..4).prop_map(|(c, pe)| FourPe { c, pe })
}

fn element_stride(c: &Case) -> u64 {
    c.vc + c.stride % 5
}

/// `TileMemoryStridedIndex` then the element's byte address, from base 0.
fn prefetch_offset(c: &Case, r: u64, col: u64) -> u64 {
    let idx = r * element_stride(c) + col;
    if c.dt.is_four_bit() {
        idx >> 1
    } else {
        idx * c.dt.element_bytes() as u64
    }
}

/// The span one PE's prefetch covers, rounded to 64 bytes: PE `p` works
/// at `0x40 + p * span`.
fn span(c: &Case) -> u64 {
    (prefetch_offset(c, c.vr - 1, c.vc - 1) + 8).div_ceil(64) * 64
}

fn four_pe_setup(f: &FourPe, bad: bool) -> Machine {
    let c = &f.c;
    let mut m = Machine::new(GM);
    let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(53) ^ 0x17).collect();
    m.write_memory(0, &bg).unwrap();
    // A resident tile the prefetch must leave alone.
    m.configure_tile(
        5,
        &TileConfig {
            capacity: 128,
            rows: 2,
            cols: 4,
            valid_rows: 2,
            valid_cols: 4,
            dtype: DataType::U8,
            layout: TileLayout::RowMajor,
            location: TileLocation::Any,
            mask: None,
        },
    )
    .unwrap();
    m.write_tile_element(5, 1, 2, 0x77).unwrap();
    let (kr, kc) = (c.k / c.vc, c.k % c.vc);
    for pe in 0..4 {
        let base = if bad && pe == f.pe {
            GM - prefetch_offset(c, kr, kc)
        } else {
            0x40 + pe as u64 * span(c)
        };
        m.write_pe_gpr(pe, 2, base);
        m.write_pe_gpr(pe, 3, element_stride(c));
    }
    let text = format!(
        "BSTART.TPREFETCH {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOR a0, a1",
        c.dt, c.vc, c.vr, c.cols
    );
    open_bundle(&mut m, &text);
    m
}

/// Every tile register as the architecture sees it: allocation mask,
/// descriptor, definedness count and (when allocated) each valid
/// element's value. The payload buffer behind an unallocated register is
/// not state.
fn all_tiles(m: &Machine) -> Vec<String> {
    (0..64)
        .map(|i| {
            let t = m.tile_record(i).unwrap();
            let values: Vec<_> = if t.allocated {
                (0..t.valid_rows)
                    .flat_map(|r| (0..t.valid_columns).map(move |c| (r, c)))
                    .map(|(r, c)| m.read_tile_element(i, r, c).ok().flatten())
                    .collect()
            } else {
                Vec::new()
            };
            format!(
                "T{i} mask {:04b} allocated {} defined {} cap {} {}x{} valid {}x{} {:?} {:?} {:?} defined_valid {} predicate {} {values:x?}",
                m.tile_allocation_mask(i),
                t.allocated,
                t.contents_defined,
                t.capacity_bytes,
                t.rows,
                t.columns,
                t.valid_rows,
                t.valid_columns,
                t.data_type,
                t.layout,
                t.location,
                t.defined_valid,
                t.predicate,
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_fault_at_any_element_of_any_pe_of_a_tprefetch_changes_only_the_fault_and_trap_context_and_recovery_equals_an_unfaulted_run(
        f in arb_four_pe()
    ) {
        let c = &f.c;
        prop_assume!(0x40 + 4 * span(c) + 64 < GM - span(c));
        let mut m = four_pe_setup(&f, true);
        let gm0 = gm(&m);
        let tiles0 = all_tiles(&m);
        let cap0 = m.core_tile_capacity_in_use();
        let bundle0 = m.bundle_state().clone();

        prop_assert!(!m.execute_bundle_tile_operation());
        prop_assert_eq!(m.last_fault(), Fault::DataPage);
        prop_assert_eq!(m.last_fault_address(), Some(GM));
        prop_assert!(gm(&m) == gm0, "GM changed");
        prop_assert!(all_tiles(&m) == tiles0, "a tile changed");
        prop_assert_eq!(m.core_tile_capacity_in_use(), cap0);
        prop_assert_eq!(m.memory_events().len(), 0);
        prop_assert_eq!(m.bundle_state(), &bundle0);
        prop_assert!(m.trap_context(0).unwrap().valid);
        prop_assert_eq!(&m.trap_context(0).unwrap().bundle, &bundle0);

        m.reset_bundle_control_state();
        m.write_pe_gpr(f.pe, 2, 0x40 + f.pe as u64 * span(c));
        prop_assert!(m.recover_trap_context(0));
        m.clear_fault();
        prop_assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());

        let mut u = four_pe_setup(&f, false);
        prop_assert!(u.execute_bundle_tile_operation(), "{}", u.last_fault());
        prop_assert!(gm(&m) == gm0 && gm(&u) == gm0, "a prefetch changed GM");
        prop_assert!(all_tiles(&m) == tiles0 && all_tiles(&u) == tiles0, "a prefetch changed a tile");
        prop_assert_eq!(m.memory_events(), u.memory_events());
        prop_assert_eq!(m.memory_events().len() as u64, 4 * c.vr * c.vc, "one load per element of each PE");
    }
}

/// Any transfer: Local TLOAD/TSTORE (run by the faulting PE), Shared TLOAD
/// or TSTORE.SPART over a PE subset (each element from its owner PE's base),
/// or TPREFETCH over all four PEs; one selected PE's base is moved so that
/// some element of it, somewhere in the tile, leaves GM.
#[derive(Debug, Clone)]
struct AnyTransfer {
    c: Case,
    kind: u8,
    mode: u32,
    bad_pe: prop::sample::Index,
    back: prop::sample::Index,
}

fn arb_any_transfer() -> impl Strategy<Value = AnyTransfer> {
    (
        arb_case(),
        0u8..5,
        1u32..8,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(c, kind, mode, bad_pe, back)| AnyTransfer {
            c,
            kind,
            mode,
            bad_pe,
            back,
        })
}

impl AnyTransfer {
    fn mask(&self) -> u8 {
        if self.kind == 4 {
            0b1111
        } else {
            pto::forms::pe_mask_of_pe_mode(self.mode)
        }
    }
    fn bad_pe(&self) -> usize {
        let pes: Vec<usize> = (0..4)
            .filter(|&p| pto::forms::pe_selected(self.mask(), p))
            .collect();
        pes[self.bad_pe.index(pes.len())]
    }
    /// The largest offset from its base any element of a PE can have.
    fn reach(&self) -> u64 {
        let c = &self.c;
        if self.kind == 4 {
            let idx = (c.vr - 1) * c.stride + c.vc - 1;
            if c.dt.is_four_bit() {
                idx >> 1
            } else {
                idx * c.dt.element_bytes() as u64
            }
        } else {
            offset(c, c.vr - 1, c.cols - 1)
        }
    }
    fn span(&self) -> u64 {
        (self.reach() + 8).div_ceil(64) * 64
    }
}

fn any_setup(t: &AnyTransfer, bad: bool) -> Machine {
    let c = &t.c;
    let mut m = Machine::new(GM);
    let bg: Vec<u8> = (0..GM).map(|i| (i as u8).wrapping_mul(61) ^ 0x2d).collect();
    m.write_memory(0, &bg).unwrap();
    let cap = pto::tile::minimum_tile_capacity_bytes_for_shape(c.cols, c.vr, c.vc, c.dt).max(128);
    let size = cap.trailing_zeros() - 6;
    let bad_pe = t.bad_pe();
    for pe in 0..4 {
        let base = if bad && pe == bad_pe {
            GM - t.back.index(t.reach() as usize + 1) as u64
        } else {
            0x40 + pe as u64 * t.span()
        };
        m.write_pe_gpr(pe, 2, base);
        m.write_pe_gpr(pe, 3, c.stride);
    }
    m.set_current_pe(bad_pe);
    m.configure_tile(
        0,
        &TileConfig {
            capacity: cap,
            rows: c.vr,
            cols: c.cols,
            valid_rows: c.vr,
            valid_cols: c.vc,
            dtype: c.dt,
            layout: TileLayout::RowMajor,
            location: TileLocation::Any,
            mask: Some(0b1111),
        },
    )
    .unwrap();
    for r in 0..c.vr {
        for col in 0..c.vc {
            m.write_tile_element(0, r, col, value_for(c, r, col))
                .unwrap();
        }
    }
    let masks = pto::forms::mask_string(t.mask());
    let dims = format!(
        "B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}",
        c.vc, c.vr, c.cols
    );
    let text = match t.kind {
        0 => format!(
            "BSTART.TLOAD {}; {dims}; B.IOR a0, a1; B.IOT mask={masks}, last, ->U<{size}>",
            c.dt
        ),
        1 => format!(
            "BSTART.TSTORE {}; B.IOR a0, a1; B.IOT T#1, mask={masks}, last",
            c.dt
        ),
        2 => format!(
            "BSTART.TLOAD {}; {dims}; B.IOS mask={masks}, ->S4<{size}>; B.IOR a0, a1",
            c.dt
        ),
        3 => {
            m.install_shared_tile(4, 0, 0b1111).unwrap();
            format!(
                "BSTART.TSTORE {} [TSTORE.SPART form]; B.IOS S4, mask={masks}; B.IOR a0, a1",
                c.dt
            )
        }
        _ => format!("BSTART.TPREFETCH {}; {dims}; B.IOR a0, a1", c.dt),
    };
    open_bundle(&mut m, &text);
    m
}

/// GM, every tile register, Shared tile S4's words and the capacity in use.
fn any_state(m: &Machine, c: &Case) -> (Vec<u8>, Vec<String>, Vec<Option<u64>>, u64) {
    let words = (0..c.vr * c.cols)
        .map(|e| m.read_shared_tile_word(4, e).ok().flatten())
        .collect();
    (gm(m), all_tiles(m), words, m.core_tile_capacity_in_use())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, max_global_rejects: 4096, ..ProptestConfig::default() })]

    #[test]
    fn a_fault_anywhere_in_any_transfer_changes_only_the_fault_and_trap_context_and_recovery_equals_an_unfaulted_run(
        t in arb_any_transfer()
    ) {
        let c = &t.c;
        prop_assume!(0x40 + 4 * t.span() + 64 < GM - t.span());
        let mut u = any_setup(&t, false);
        let completed = u.execute_bundle_tile_operation();
        // Shapes the transfer itself refuses are not this property's concern.
        prop_assume!(completed);

        let mut m = any_setup(&t, true);
        let before = any_state(&m, c);
        let bundle0 = m.bundle_state().clone();
        let faulted = !m.execute_bundle_tile_operation();
        // The moved base may leave every element of that PE inside GM.
        prop_assume!(faulted);
        // An unaligned moved base faults alignment first, else the
        // element past the end of GM faults its page.
        match m.last_fault() {
            Fault::DataPage => prop_assert!(m.last_fault_address().unwrap() >= GM),
            Fault::DataAlignment => {}
            f => prop_assert!(false, "unexpected {}", f),
        }
        prop_assert!(any_state(&m, c) == before, "a faulting transfer changed GM, a tile, S4 or capacity");
        prop_assert_eq!(m.memory_events().len(), 0);
        prop_assert_eq!(m.bundle_state(), &bundle0);
        prop_assert!(m.trap_context(0).unwrap().valid);
        prop_assert_eq!(&m.trap_context(0).unwrap().bundle, &bundle0);

        m.reset_bundle_control_state();
        m.write_pe_gpr(t.bad_pe(), 2, 0x40 + t.bad_pe() as u64 * t.span());
        prop_assert!(m.recover_trap_context(0));
        m.clear_fault();
        prop_assert!(m.execute_bundle_tile_operation(), "{}", m.last_fault());
        prop_assert!(any_state(&m, c) == any_state(&u, c), "recovered state differs from the unfaulted run");
        prop_assert_eq!(m.memory_events(), u.memory_events());
    }
}
