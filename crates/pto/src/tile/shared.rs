//! Shared tile registers S0..S255: their state.
//!
//! ASL: `asl/tile/model/state/shared-registers.asl` (PTO-REQ-SHARED-TILE-001,
//! `SharedTileInfo`, `UndefinedSharedTileWord`).

use super::TileInfo;

/// `SharedTileInfo`: persistent descriptor-plus-payload state of one Shared
/// register. `initialized_mask` marks the quarters whose payload was written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedTileInfo {
    pub descriptor_valid: bool,
    pub allocation_mask: u8,
    pub initialized_mask: u8,
    pub published: bool,
    pub tile: TileInfo,
}

/// `UndefinedSharedTileWord`: the deterministic pto-v0 stand-in for an
/// undefined-register value: `ZeroExtend(shared_id) XOR element`.
pub fn undefined_shared_tile_word(shared_id: u8, element: u64) -> u64 {
    (shared_id as u64) ^ element
}

/// Fields of a hand-built `TileInfo` snapshot that differ from the Local
/// tile it was copied from (the AVS points edit `columns`, `valid_columns`,
/// `contents_defined` and `defined_valid_elements` of a copy of `_Tiles[[i]]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapshotEdits {
    pub columns: Option<u64>,
    pub valid_columns: Option<u64>,
    pub contents_defined: Option<bool>,
    pub defined_valid_elements: Option<u64>,
}
