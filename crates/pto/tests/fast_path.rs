//! The TLOAD/TSTORE fast paths (whole-block copies, one page lookup per
//! run of rows, row runs, packed-nibble byte copies, definedness set by
//! ranges) against the per-element path, the ASL's own element loop
//! (`Machine::set_element_path`): on random shapes, element types, PE
//! masks, bases and byte strides (zero, overlapping, page-hopping,
//! negative through wrapping), over
//! dense, page-table and hash-map GM with pages present or never written
//! and a memory end inside a page, both give the same fault and fault
//! address, the same GM, the same tiles and Shared records (payload and
//! definedness of every element, descriptor, masks), the same access log
//! and transfer records; and the memory events the per-element path
//! captures are exactly the accesses the fast path logged, in order.

use proptest::prelude::*;
use proptest::strategy::ValueTree;

use pto::asm::assemble;
use pto::machine::{MemoryEventKind, TransferInfo};
use pto::tile::TileInfo;
use pto::{
    CommandExecution, DataType, Fault, GmAccess, Machine, TileConfig, TileLayout, TileLocation,
};

const PAGE: u64 = 1 << 16;
/// A page boundary the paged cases straddle.
const EDGE: u64 = 3 * PAGE;
/// A paged memory whose end lies inside a page (not a page multiple).
const PAGED_SIZE: u64 = (64 << 20) + PAGE + 0x8000 + 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gm {
    /// 8 KiB: one dense allocation.
    Dense,
    /// Above the dense limit: a flat page table.
    Table,
    /// 1 TiB: pages in a hash map.
    Sparse,
}

impl Gm {
    fn size(self) -> u64 {
        match self {
            Gm::Dense => 8192,
            Gm::Table => PAGED_SIZE,
            Gm::Sparse => 1 << 40,
        }
    }

    /// GM windows that can be touched: compared byte for byte.
    fn windows(self) -> Vec<(u64, u64)> {
        match self {
            Gm::Dense => vec![(0, 8192)],
            _ => vec![
                (EDGE - 2 * PAGE, 4 * PAGE),
                (self.size() - 2 * PAGE, 2 * PAGE),
            ],
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    gm: Gm,
    /// Bit k: page k of the windows holds data before the transfer (else it
    /// was never written and reads as zero).
    present: u8,
    dt: DataType,
    cols: u64,
    vr: u64,
    vc: u64,
    size_code: u32,
    /// Per PE: where (0 wide around the page edge, 1 tight around it, 2
    /// near the end of GM), an offset, and whether to align it to the
    /// element size (so that most transfers do not fault).
    bases: [(u8, u64, bool); 4],
    /// Per PE: a byte stride, and whether to round it to the element size.
    strides: [(u64, bool); 4],
    mode: u32,
    store: bool,
    shared: bool,
}

fn arb_case() -> impl Strategy<Value = Case> {
    let gm = prop_oneof![Just(Gm::Dense), Just(Gm::Table), Just(Gm::Sparse)];
    let at = prop_oneof![1 => Just(0u8), 3 => Just(1), 1 => Just(2)];
    let base = (at, 0u64..6000, any::<bool>());
    let stride = prop_oneof![
        Just(0u64),
        0u64..64,
        0u64..700,
        (PAGE - 8)..(PAGE + 8),
        prop::sample::select(vec![1u64, 2, 4, 8, 16, 32, 64, 128, 256]),
        // Negative strides: the address arithmetic wraps, rows descend.
        (u64::MAX - 700)..=u64::MAX,
    ];
    (
        (gm, prop_oneof![Just(0xffu8), any::<u8>()]),
        prop::sample::select(pto::DataType::ALL.to_vec()),
        0u32..7,
        1u64..24,
        1u32..9,
        prop::array::uniform4(base),
        prop::array::uniform4((stride, any::<bool>())),
        1u32..8,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(
            |((gm, present), dt, cexp, vr, size_code, bases, strides, mode, store, shared)| {
                let cols = 1u64 << cexp;
                (1..=cols).prop_map(move |vc| Case {
                    gm,
                    present,
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

impl Case {
    fn base(&self, pe: usize) -> u64 {
        let (at, off, aligned) = self.bases[pe];
        let a = match (self.gm, at) {
            (Gm::Dense, 2) => 8192 - 3000 + off % 3100,
            (Gm::Dense, _) => off,
            (_, 0) => EDGE - 3000 + off,
            (_, 1) => EDGE - 300 + off % 300,
            (gm, _) => gm.size() - 5000 + off,
        };
        self.align(a, aligned)
    }

    fn stride(&self, pe: usize) -> u64 {
        let (s, aligned) = self.strides[pe];
        self.align(s, aligned)
    }

    fn align(&self, v: u64, on: bool) -> u64 {
        let eb = self.dt.element_bytes() as u64;
        if on {
            v / eb * eb
        } else {
            v
        }
    }
}

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

fn value_for(r: u64, c: u64, dt: DataType) -> u64 {
    let x = (r.wrapping_mul(0x9e37_79b9_7f4a_7c15)) ^ (c.wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
    let x = x ^ (x >> 29);
    match dt.element_bits() {
        64 => x,
        b => x & ((1u64 << b) - 1),
    }
}

/// Everything a tile shows: descriptor, and (value, defined) per payload slot.
type TileView = (bool, bool, [u64; 6], DataType, TileLayout, Vec<(u64, bool)>);

fn tile_view(t: &TileInfo) -> TileView {
    (
        t.allocated,
        t.contents_defined,
        [
            t.capacity_bytes,
            t.rows,
            t.columns,
            t.valid_rows,
            t.valid_columns,
            t.defined_valid,
        ],
        t.data_type,
        t.layout,
        (0..t.payload.len())
            .map(|i| (t.payload.get(i), t.defined.get(i)))
            .collect(),
    )
}

#[derive(Debug, PartialEq)]
struct State {
    fault: Fault,
    fault_address: Option<u64>,
    gm: Vec<Vec<u8>>,
    tiles: Vec<Option<TileView>>,
    shared: (bool, u8, u8, bool, TileView),
}

/// A run's state, access log, transfer records and captured memory events
/// as (store, agent, address, size).
type Observed = (
    State,
    Vec<GmAccess>,
    Vec<TransferInfo>,
    Vec<(bool, usize, u64, u32)>,
);

/// Runs the case (`None`: the source tile cannot be set up).
fn run_case(c: &Case, element_path: bool, capture: bool) -> Option<Observed> {
    let mut m = Machine::new(c.gm.size());
    m.set_element_path(element_path);
    let mut k = 0;
    for (start, len) in c.gm.windows() {
        let mut a = start;
        while a < start + len {
            let n = (PAGE - a % PAGE).min(start + len - a);
            if c.present >> (k % 8) & 1 == 1 {
                let bytes: Vec<u8> = (a..a + n)
                    .map(|i| (i as u8).wrapping_mul(29) ^ 0x5a)
                    .collect();
                m.write_memory(a, &bytes).unwrap();
            }
            a += n;
            k += 1;
        }
    }
    let cap = 64u64 << c.size_code;
    let mask = pto::forms::pe_mask_of_pe_mode(c.mode);
    for pe in 0..4 {
        m.write_pe_gpr(pe, 2, c.base(pe));
        m.write_pe_gpr(pe, 3, c.stride(pe));
    }
    m.set_current_pe(1);
    let cfg = TileConfig {
        capacity: cap,
        rows: c.vr,
        cols: c.cols,
        valid_rows: c.vr,
        valid_cols: c.vc,
        dtype: c.dt,
        layout: TileLayout::RowMajor,
        location: TileLocation::Any,
        mask: Some(0b1111),
    };
    m.configure_tile(0, &cfg).ok()?;
    for r in 0..c.vr {
        for col in 0..c.vc {
            m.write_tile_element(0, r, col, value_for(r, col, c.dt))
                .unwrap();
        }
    }
    if c.shared {
        m.install_shared_tile(4, 0, 0b1111).ok()?;
    }
    let masks = pto::forms::mask_string(mask);
    let text = match (c.shared, c.store) {
        (true, true) => format!(
            "BSTART.TSTORE {} [TSTORE.SPART form]; B.IOS S4, mask={masks}; B.IOR a0, a1",
            c.dt
        ),
        (true, false) => format!(
            "BSTART.TLOAD {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOS mask={masks}, ->S5<{}>; B.IOR a0, a1",
            c.dt, c.vc, c.vr, c.cols, c.size_code
        ),
        (false, true) => format!(
            "BSTART.TSTORE {}; B.IOR a0, a1; B.IOT T#1, mask={masks}, last",
            c.dt
        ),
        (false, false) => format!(
            "BSTART.TLOAD {}; B.DIM LB0, {}; B.DIM LB1, {}; B.DIM LB2, {}; B.IOR a0, a1; B.IOT mask={masks}, last, ->U<{}>",
            c.dt, c.vc, c.vr, c.cols, c.size_code
        ),
    };
    m.take_accesses();
    m.take_transfers();
    if capture {
        m.start_memory_event_capture(1);
    }
    run(&mut m, &text);
    m.execute_bundle_tile_operation();
    let gm =
        c.gm.windows()
            .into_iter()
            .map(|(a, n)| {
                let mut v = vec![0; n as usize];
                m.read_memory(a, &mut v).unwrap();
                v
            })
            .collect();
    let tiles = (0..32u32)
        .map(|i| m.tile_record(i).filter(|t| t.allocated).map(tile_view))
        .collect();
    let s = |id: u8| {
        let r = m.shared_tile_record(id);
        (
            r.descriptor_valid,
            r.allocation_mask,
            r.initialized_mask,
            r.published,
            tile_view(&r.tile),
        )
    };
    let shared = s(if c.store { 4 } else { 5 });
    let events = m
        .memory_events()
        .iter()
        .map(|e| {
            (
                e.kind == MemoryEventKind::Store,
                e.agent,
                e.address,
                e.size_bytes,
            )
        })
        .collect();
    let state = State {
        fault: m.last_fault(),
        fault_address: m.last_fault_address(),
        gm,
        tiles,
        shared,
    };
    Some((state, m.take_accesses(), m.take_transfers(), events))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, .. ProptestConfig::default() })]

    #[test]
    fn fast_paths_and_the_per_element_path_agree_on_everything_observable(c in arb_case()) {
        let fast = run_case(&c, false, false);
        let slow = run_case(&c, true, false);
        let captured = run_case(&c, true, true);
        let (Some(fast), Some(slow), Some(captured)) = (fast, slow, captured) else {
            prop_assert!(run_case(&c, false, false).is_none());
            return Ok(());
        };
        prop_assert_eq!(&fast.0, &slow.0, "state");
        prop_assert_eq!(&fast.1, &slow.1, "access log");
        prop_assert_eq!(&fast.2, &slow.2, "transfer records");
        prop_assert_eq!(&captured.0, &slow.0, "capturing changes nothing else");
        let logged: Vec<_> = fast.1.iter().map(|a| (a.write, a.pe, a.addr, a.size)).collect();
        prop_assert_eq!(&captured.3, &logged, "captured events = logged accesses");
    }
}

/// The generator reaches the cases the fast paths split on: a fault, a
/// row crossing a page boundary of a paged GM, rows descending through a
/// negative (wrapping) stride, and a clean full transfer (so the property
/// above is not vacuous).
#[test]
fn the_generator_reaches_faults_page_crossings_and_clean_transfers() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = arb_case();
    let (mut faults, mut clean, mut crossing, mut negative) = (0, 0, 0, 0);
    for _ in 0..400 {
        let c = strategy.new_tree(&mut runner).unwrap().current();
        let Some((state, log, _, _)) = run_case(&c, false, false) else {
            continue;
        };
        if state.fault != Fault::None {
            faults += 1;
        } else if !log.is_empty() {
            clean += 1;
            if c.gm != Gm::Dense && log.iter().any(|a| a.addr / PAGE != log[0].addr / PAGE) {
                crossing += 1;
            }
            if log.iter().any(|a| a.row > 0 && a.addr < log[0].addr) {
                negative += 1;
            }
        }
    }
    assert!(faults >= 20, "{faults} faulting cases");
    assert!(clean >= 20, "{clean} clean cases");
    assert!(crossing >= 5, "{crossing} page-crossing cases");
    assert!(negative >= 5, "{negative} clean cases with descending rows");
}
