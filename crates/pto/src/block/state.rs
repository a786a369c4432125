//! The bundle's architectural state: the open operation, its header
//! attributes (B.DATR, B.CATR, dimensions), its tile, Shared and scalar
//! bindings and the pending hint — `_Bundle*` of the ASL.
//!
//! ASL: `asl/block/model/state/*`.

use crate::types::PadValue;
use crate::types::TileLayout;

/// `PTO_BUNDLE_TILE_BINDING_COUNT`.
pub const PTO_BUNDLE_TILE_BINDING_COUNT: usize = 16;

/// One `_BundleTileBindings` entry (B.IOT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileBinding {
    pub valid: bool,
    pub destination_valid: bool,
    pub destination: u32,
    /// 0 T, 1 U, 2 M, 3 N.
    pub destination_hand: u32,
    pub allocated_by_bundle: bool,
    pub destination_size: u32,
    pub pe_mask: u8,
    pub source0_valid: bool,
    pub source1_valid: bool,
    pub source0: u32,
    pub source1: u32,
    pub last: bool,
}

/// One `_BundleSharedBindings` entry (B.IOS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedBinding {
    pub valid: bool,
    pub shared_id: u8,
    pub size_code: u32,
    pub pe_mask: u8,
    pub consumed: bool,
}

/// `_BundleScalarBindings[[0]]` (B.IOR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScalarBinding {
    pub valid: bool,
    pub destination: u32,
    pub source0: u32,
    pub source1: u32,
    pub source2: u32,
}

/// `_BundleDataAttributes` (B.DATR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataAttributes {
    pub present: bool,
    pub data_type: u32,
    pub layout: u32,
    pub pad_value: u32,
    pub comparison_mode: u32,
    pub rounding_mode: u32,
    pub saturating: bool,
    pub canonicalize: bool,
}

/// `_BundleOperation` of a tile-memory or element-wise BSTART.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operation {
    pub valid: bool,
    /// `operation_class == BundleOperation_TileElement`: a BSTART.TEPL
    /// block, whose `function` is the 7-bit TEPL selector.
    pub tepl: bool,
    /// TLSU selector: 0 TLOAD, 1 TSTORE, 3 TPREFETCH, 4 MGATHER,
    /// 5 MSCATTER, 9..12 Shared TMOV, 13 GMOV, 14 TSTORE.SPART; or the
    /// TEPL selector (Mode:Function) when `tepl`.
    pub function: u32,
    pub data_type: u32,
}

/// `_BundleControlAttributes` (the B.CATR state), set by
/// `SetBundleControlAttributeState` and cleared with the bundle header.
/// Only `acquire`/`release` are read: they give the memory order of the
/// events a transfer captures (`CurrentBundleMemoryOrder`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ControlAttributes {
    pub present: bool,
    pub trap_enabled: bool,
    pub atomic: bool,
    pub acquire: bool,
    pub release: bool,
    pub far: bool,
    pub dimension_reduction: bool,
}

impl ControlAttributes {
    /// `CurrentBundleMemoryOrder`.
    pub fn memory_order(&self) -> crate::memory_model::Order {
        use crate::memory_model::Order;
        match (self.acquire, self.release) {
            (true, true) => Order::AcquireRelease,
            (true, false) => Order::Acquire,
            (false, true) => Order::Release,
            (false, false) => Order::Relaxed,
        }
    }
}

/// `_BundleHint`: the pending B.HINT of the open block (non-functional).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HintState {
    pub present: bool,
    pub trace: bool,
    /// TRACE form: false begin, true end.
    pub trace_end: bool,
    pub branch_valid: bool,
    pub branch_likely: bool,
    /// `temp`: 0 none, 1 cool, 2 warm, 3 hot.
    pub temperature: u32,
    pub prefetch_size: u32,
}

/// Bundle control and header state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bundle {
    pub active: bool,
    /// `_BundleBodyActive`: set by `EnterBundleBody`; header commands are
    /// then rejected with `Fault_BundleControl`.
    pub body_active: bool,
    pub op: Operation,
    pub datr: DataAttributes,
    pub dims: [u64; 3],
    pub dim_present: [bool; 3],
    pub tile_bindings: [TileBinding; PTO_BUNDLE_TILE_BINDING_COUNT],
    pub shared_bindings: [SharedBinding; 4],
    pub scalar: ScalarBinding,
    pub zero_participation_seen: bool,
    pub hint: HintState,
    pub catr: ControlAttributes,
}

impl Bundle {
    /// Resets every member to its `Default` in place (the same state as
    /// `Bundle::default()`, without building a whole temporary and copying
    /// it over the bundle).
    pub(crate) fn clear(&mut self) {
        let Bundle {
            active,
            body_active,
            op,
            datr,
            dims,
            dim_present,
            tile_bindings,
            shared_bindings,
            scalar,
            zero_participation_seen,
            hint,
            catr,
        } = self;
        *active = false;
        *body_active = false;
        *op = Operation::default();
        *datr = DataAttributes::default();
        *dims = [0; 3];
        *dim_present = [false; 3];
        tile_bindings.fill(TileBinding::default());
        shared_bindings.fill(SharedBinding::default());
        *scalar = ScalarBinding::default();
        *zero_participation_seen = false;
        *hint = HintState::default();
        *catr = ControlAttributes::default();
    }

    /// An active bundle still in its header (`_BundleActive && !_BundleBodyActive`),
    /// where the header commands are legal.
    pub fn header_open(&self) -> bool {
        self.active && !self.body_active
    }

    /// `CurrentBundlePadValue`: Null unless B.DATR is present.
    pub fn pad_value(&self) -> PadValue {
        if self.datr.present {
            PadValue::from_code(self.datr.pad_value)
        } else {
            PadValue::Null
        }
    }

    pub(super) fn tile_binding_count(&self) -> usize {
        self.tile_bindings.iter().filter(|b| b.valid).count()
    }

    pub(super) fn shared_binding_count(&self) -> usize {
        self.shared_bindings.iter().filter(|b| b.valid).count()
    }

    pub(super) fn sequence_closed(&self) -> bool {
        self.tile_bindings.iter().any(|b| b.valid && b.last)
    }

    /// `BundleTileMaskCanAppend`.
    pub(super) fn tile_mask_can_append(&self, mask: u8) -> bool {
        mask != 0
            && self
                .tile_bindings
                .iter()
                .all(|b| !b.valid || b.pe_mask == mask)
    }

    /// `SelectedBundleTileMaskIsZero`.
    pub(super) fn selected_tile_mask_is_zero(&self) -> bool {
        let mut seen = false;
        for b in self.tile_bindings.iter().filter(|b| b.valid) {
            seen = true;
            if b.pe_mask != 0 {
                return false;
            }
        }
        seen || (self.zero_participation_seen
            && self.tile_binding_count() == 0
            && self.shared_binding_count() == 0)
    }

    /// `TileDataLayoutDestinationLayout(CurrentBundleDataLayout())`.
    pub(super) fn tile_layout(&self) -> TileLayout {
        match self.datr.layout {
            1 | 18 | 28 => TileLayout::ColumnMajor,
            3 | 8 | 30 => TileLayout::ZN,
            4 | 9 | 20 => TileLayout::NZ,
            _ => TileLayout::RowMajor,
        }
    }

    /// Dimension `i` when it holds 1..=65535 (`BundleDestination*` helpers).
    pub(super) fn dim_in_range(&self, i: usize) -> Option<u64> {
        (1..=65535).contains(&self.dims[i]).then_some(self.dims[i])
    }
}

/// Layout codes of the CUBE conversions, `TileDataLayoutIsCubeConversion`.
pub(super) fn is_cube_conversion(code: u32) -> bool {
    (21..=26).contains(&code)
}

/// `SharedStorePEMaskLegal` (PTO-ARCH-GM-ACCESS-001): Function 1 needs all
/// four PEs, Function 14 (TSTORE.SPART) any subset; mask 0000 is always a
/// legal no-op.
pub fn shared_store_pe_mask_legal(function: u32, pe_mask: u8) -> bool {
    if pe_mask & 0xf == 0 {
        true
    } else if function == 1 {
        pe_mask & 0xf == 0b1111
    } else {
        function == 14
    }
}
