//! Local tile registers: descriptors, payload, definedness, capacity.
//!
//! ASL: `asl/tile/model/state/types.asl` (`TileInfo`),
//! `asl/tile/model/state/allocation.asl` (`ConfigureTileForMask`,
//! `ReleaseTile`), `asl/tile/model/state/local-registers.asl`,
//! `asl/arch/features/tile-allocation.asl` (capacity constants).

use crate::types::{DataType, TileLayout, TileLocation};

/// `PTO_TILE_CAPACITY_BYTES`: tile storage of one PE.
pub const PTO_TILE_CAPACITY_BYTES: u64 = 262_144;
/// `PTO_TILE_MAX_ALLOCATION_BYTES`: largest Local tile.
pub const PTO_TILE_MAX_ALLOCATION_BYTES: u64 = 65_536;
/// `PTO_MODEL_TILE_ELEMENTS`: payload words of one model tile.
pub const PTO_MODEL_TILE_ELEMENTS: u64 = 32_768;
/// `PTO_RESERVATION_GRANULE_BYTES`.
pub const PTO_RESERVATION_GRANULE_BYTES: u64 = 64;

/// `TileInfo`: one tile's descriptor and payload. Payload words hold the
/// element's bits zero-extended (packed four-bit elements one per word).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileInfo {
    pub allocated: bool,
    pub contents_defined: bool,
    pub capacity_bytes: u64,
    pub rows: u64,
    pub columns: u64,
    pub valid_rows: u64,
    pub valid_columns: u64,
    pub data_type: DataType,
    pub layout: TileLayout,
    pub location: TileLocation,
    /// Element words in row-major order, `rows * columns` of them.
    pub payload: Vec<u64>,
    /// Per-element definedness, same indexing as `payload`.
    pub defined: Vec<bool>,
}

impl Default for TileInfo {
    fn default() -> Self {
        TileInfo {
            allocated: false,
            contents_defined: false,
            capacity_bytes: 0,
            rows: 0,
            columns: 0,
            valid_rows: 0,
            valid_columns: 0,
            data_type: DataType::U8,
            layout: TileLayout::RowMajor,
            location: TileLocation::Any,
            payload: Vec::new(),
            defined: Vec::new(),
        }
    }
}

impl TileInfo {
    /// Row-major element index of (row, col), if inside the physical shape.
    pub fn element_index(&self, row: u64, col: u64) -> Option<usize> {
        if row < self.rows && col < self.columns {
            Some((row * self.columns + col) as usize)
        } else {
            None
        }
    }
}

/// `TileCapacityIsLegal`: a power-of-two multiple of the reservation granule
/// up to the largest allocation.
pub fn tile_capacity_is_legal(capacity_bytes: u64) -> bool {
    capacity_bytes >= PTO_RESERVATION_GRANULE_BYTES
        && capacity_bytes <= PTO_TILE_MAX_ALLOCATION_BYTES
        && capacity_bytes.is_power_of_two()
}

/// `TileLogicalElementCapacity`: elements that fit in `capacity_bytes`.
pub fn tile_logical_element_capacity(capacity_bytes: u64, data_type: DataType) -> u64 {
    capacity_bytes * 8 / data_type.element_bits() as u64
}

/// `DerivedTileRows`: rows of a tile of `columns` columns filling its capacity.
pub fn derived_tile_rows(capacity_bytes: u64, columns: u64, data_type: DataType) -> u64 {
    if columns == 0 {
        0
    } else {
        tile_logical_element_capacity(capacity_bytes, data_type) / columns
    }
}

/// `TileCoreAllocationBytes`: a tile allocated for `mask` PEs charges its
/// capacity once per selected PE.
pub fn tile_core_allocation_bytes(mask: u8, capacity_bytes: u64) -> u64 {
    (mask & 0xf).count_ones() as u64 * capacity_bytes
}
