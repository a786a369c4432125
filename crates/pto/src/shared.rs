//! The primitives on Shared tile registers S0..S255 that the AVS points
//! call (their state is `tile::shared`).
//!
//! ASL: `asl/tile/model/state/shared-registers.asl` (PTO-REQ-SHARED-TILE-001,
//! `SharedTileInfo`, `UndefinedSharedTileWord`, `ReadSharedTileWord`,
//! `SharedTileElementRegion`, `AtomicUpdateSharedTile`, `MaterializeSharedTile`,
//! `SharedTileDescriptorLegal`), the direct `TLOADShared` call
//! (`asl/tile/model/memory/shared-movement.asl`) and `ResetMemoryExecution`
//! (`asl/arch/memory-model/memory-events.asl`).

use crate::tile::shared::SnapshotEdits;
use crate::tile::TileInfo;

impl crate::Machine {
    /// `AtomicUpdateSharedTile(id, tile, mask)` (asl/tile/model/state/shared-registers.asl):
    /// `tile` is `_Tiles[[from_tile]]` with `edits` applied. True when the
    /// update committed (an empty mask is a no-op that succeeds); false,
    /// with every Shared record unchanged, when the descriptor is not
    /// compatible with the register's or the mask would widen its
    /// allocation. `None` for a tile index outside the register file.
    pub fn atomic_update_shared_tile_snapshot(
        &mut self,
        id: u8,
        from_tile: u32,
        mask: u8,
        edits: &SnapshotEdits,
    ) -> Option<bool> {
        let mut t = self.tiles.get(from_tile as usize)?.clone();
        if let Some(c) = edits.columns {
            t.columns = c;
        }
        if let Some(c) = edits.valid_columns {
            t.valid_columns = c;
        }
        if let Some(d) = edits.contents_defined {
            t.contents_defined = d;
        }
        if let Some(n) = edits.defined_valid_elements {
            t.defined_valid = n;
        }
        Some(self.atomic_update_shared_tile(id, t, mask & 0xf, true))
    }

    /// `SharedTileDescriptorLegal(id)`, the part this model's records can
    /// violate: a valid, allocated descriptor with a nonzero allocation mask
    /// that covers the initialized quarters.
    pub fn shared_tile_descriptor_legal(&self, id: u8) -> bool {
        let s = &self.shared[id as usize];
        s.descriptor_valid
            && s.tile.allocated
            && s.allocation_mask != 0
            && s.initialized_mask & !s.allocation_mask & 0xf == 0
    }

    /// `MaterializeSharedTile(id, mask)`: the register's descriptor with the
    /// elements of the selected quarters read through `ReadSharedTileWord`
    /// (so an uninitialized quarter reads `UndefinedSharedTileWord`), the
    /// others as the record holds them; `contents_defined` when the mask is
    /// inside the initialized quarters. `None` where the ASL asserts
    /// (`SharedTileDescriptorLegal` fails).
    pub fn materialize_shared_tile(&self, id: u8, mask: u8) -> Option<TileInfo> {
        if !self.shared_tile_descriptor_legal(id) {
            return None;
        }
        let s = &self.shared[id as usize];
        let mut t = s.tile.clone();
        t.contents_defined = mask & s.initialized_mask == mask;
        t.defined_valid = 0;
        for e in 0..t.rows * t.columns {
            let region = crate::tile::shared_tile_element_region(&t, e);
            if crate::forms::pe_selected(mask, region) {
                let w = self.shared_word(id, e).ok()?;
                t.set_element(e as usize, w, true);
            } else {
                t.defined.set(e as usize, false);
            }
        }
        if t.contents_defined {
            t.defined_valid = t.valid_rows * t.valid_columns;
        }
        t.location = crate::types::TileLocation::Any;
        Some(t)
    }

    /// `ResetMemoryExecution` (asl/arch/memory-model/memory-events.asl):
    /// `_MemoryEventCount = 0`.
    pub fn reset_memory_execution(&mut self) {
        self.events.reset();
    }

    /// The direct `TLOADShared(id, bases, strides, size_code, rows, columns,
    /// valid_rows, valid_columns, data_type, layout, mask)` with one base
    /// and stride for every PE: the ASL's `rows` check (`valid_rows <= rows
    /// <= DerivedTileRows`, else `Fault_TileLegality`) and then the model's
    /// Shared TLOAD (descriptor checks, then the compatibility check against
    /// the register, all before the first probe).
    #[allow(clippy::too_many_arguments)]
    pub fn tload_shared_direct(
        &mut self,
        id: u8,
        base: u64,
        stride: u64,
        size_code: u32,
        rows: u64,
        columns: u64,
        valid_rows: u64,
        valid_columns: u64,
        dt: crate::DataType,
        layout: crate::TileLayout,
        mask: u8,
    ) -> Result<(), crate::Fault> {
        let mask = mask & 0xf;
        if mask == 0 {
            return Ok(());
        }
        let capacity = crate::forms::tile_size_code_bytes(size_code).unwrap_or(0);
        if rows < valid_rows || rows > crate::tile::derived_tile_rows(capacity, columns, dt) {
            self.set_fault(crate::Fault::TileLegality, None);
            return Err(crate::Fault::TileLegality);
        }
        let pe = crate::addressing::PeAddressing {
            base: [base; crate::PTO_MODEL_MEMORY_AGENTS],
            stride: [stride; crate::PTO_MODEL_MEMORY_AGENTS],
        };
        self.tload_shared(
            id,
            &pe,
            size_code,
            columns,
            valid_rows,
            valid_columns,
            dt,
            layout,
            mask,
        )
    }
}
