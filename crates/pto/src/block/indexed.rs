//! The indexed TLSU bundles (MGATHER, MSCATTER) and GMOV: their schemas,
//! then the transfers of [`crate::gather`].
//!
//! ASL: `asl/block/model/dispatch/tlsu-mgather.asl`,
//! `asl/block/model/dispatch/tlsu-mscatter.asl`,
//! `asl/block/model/dispatch/tlsu-gmov.asl`.

use super::*;

impl Machine {
    /// `ExecuteBundleMGATHEROperation` (asl/block/model/dispatch/tlsu-mgather.asl):
    /// PE_MASK 0000 is a no-op; one Local B.IOT with IndexTile and a
    /// destination; the base from the current PE's B.IOR RegSrc0; the
    /// destination is allocated after every schema check and rolled back on
    /// a fault.
    pub(super) fn run_mgather(&mut self) -> Result<(), Fault> {
        if self.bundle.selected_tile_mask_is_zero() {
            return Ok(());
        }
        let dims = self.indexed_dimensions();
        let b = &self.bundle;
        if b.shared_binding_count() != 0
            || b.tile_binding_count() != 1
            || !self.single_gpr_schema_legal(true)
            || dims.is_none()
        {
            return Err(Fault::TileLegality);
        }
        if !self.datr_legal_for_indexed(true) {
            return Err(Fault::TileLegality);
        }
        let (vc, vr, columns) = dims.unwrap_or((1, 1, 1));
        let slot = b.tile_bindings.iter().position(|t| t.valid).unwrap_or(0);
        let binding = b.tile_bindings[slot];
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        if !binding.destination_valid
            || !binding.source0_valid
            || binding.source1_valid
            || !binding.last
            || !self.tile_source_contents_defined(binding.source0)
            || !crate::gather::indexed_tlsu_index_data_type_legal(
                self.tiles[binding.source0 as usize].data_type,
            )
            || !crate::gather::indexed_tlsu_transfer_data_type_legal(dt)
        {
            return Err(Fault::TileLegality);
        }
        let it = &self.tiles[binding.source0 as usize];
        if it.valid_rows != vr || it.valid_columns != vc {
            return Err(Fault::TileLegality);
        }
        let layout = self.bundle.tile_layout();
        let dest = if binding.allocated_by_bundle {
            binding.destination
        } else {
            self.resolve_destination(slot, vr, vc, columns, dt, layout)?
        };
        if !self.tile_operands_legal_mgather(dest, binding.source0) {
            self.roll_back_destinations();
            return Err(Fault::TileLegality);
        }
        let base = self.read_pe_gpr(self.current_pe, self.bundle.scalar.source0);
        let pad = self.bundle.pad_value();
        if let Err(f) = self.mgather(dest, base, binding.source0, pad) {
            self.roll_back_destinations();
            return Err(f);
        }
        Ok(())
    }

    /// `ExecuteBundleMSCATTEROperation` (asl/block/model/dispatch/tlsu-mscatter.asl):
    /// PE_MASK 0000 is a no-op; one Local B.IOT `DataTile, IndexTile` with
    /// no destination; source and index tiles must match the LB shape, the
    /// BSTART type and the bundle layout.
    pub(super) fn run_mscatter(&mut self) -> Result<(), Fault> {
        if self.bundle.selected_tile_mask_is_zero() {
            return Ok(());
        }
        let dims = self.indexed_dimensions();
        let b = &self.bundle;
        let slot = b.tile_bindings.iter().position(|t| t.valid).unwrap_or(0);
        let binding = b.tile_bindings[slot];
        let bindings_legal = b.tile_binding_count() == 1
            && !binding.destination_valid
            && binding.destination_size == 0
            && binding.source0_valid
            && binding.source1_valid
            && binding.last;
        if b.shared_binding_count() != 0
            || !self.single_gpr_schema_legal(true)
            || dims.is_none()
            || !bindings_legal
        {
            return Err(Fault::TileLegality);
        }
        if !self.datr_legal_for_indexed(false) {
            return Err(Fault::TileLegality);
        }
        let (vc, vr, columns) = dims.unwrap_or((1, 1, 1));
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let layout = self.bundle.tile_layout();
        let (src, idx) = (binding.source0, binding.source1);
        if !self.tile_source_contents_defined(src) || !self.tile_source_contents_defined(idx) {
            return Err(Fault::TileLegality);
        }
        let (s, i) = (&self.tiles[src as usize], &self.tiles[idx as usize]);
        if s.data_type != dt
            || !crate::gather::indexed_tlsu_index_data_type_legal(i.data_type)
            || !crate::gather::indexed_tlsu_transfer_data_type_legal(dt)
            || s.valid_rows != vr
            || s.valid_columns != vc
            || s.columns != columns
            || i.valid_rows != vr
            || i.valid_columns != vc
            || s.layout != layout
            || i.layout != layout
        {
            return Err(Fault::TileLegality);
        }
        let base = self.read_pe_gpr(self.current_pe, self.bundle.scalar.source0);
        self.mscatter(base, src, idx)
    }

    /// `ExecuteBundleGMOVOperation` (asl/block/model/dispatch/tlsu-gmov.asl):
    /// one Local B.IOT with a source and a destination of the source's
    /// capacity; no B.DIM; the source fully allocated in all four PEs
    /// (`BundleGMOVCore4SourceReady`) and defined; every PE's `peer_tid`
    /// (B.IOR RegSrc0, or zero when B.IOR is omitted) below 4, checked for
    /// all four PEs before the destination is allocated.
    pub(super) fn run_gmov(&mut self) -> Result<(), Fault> {
        let b = &self.bundle;
        if b.shared_binding_count() != 0
            || !self.single_gpr_schema_legal(false)
            || b.tile_binding_count() != 1
        {
            return Err(Fault::TileLegality);
        }
        if !self.datr_legal_for_indexed(false) {
            return Err(Fault::TileLegality);
        }
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let layout = b.tile_layout();
        let slot = b.tile_bindings.iter().position(|t| t.valid).unwrap_or(0);
        let binding = b.tile_bindings[slot];
        let src = binding.source0;
        let ready = self.tile_source_contents_defined(src)
            && self.tile_masks.get(src as usize) == Some(&0b1111);
        let size = forms::tile_size_code_bytes(binding.destination_size);
        let src_ok = ready && {
            let s = &self.tiles[src as usize];
            size == Some(s.capacity_bytes) && s.data_type == dt && s.layout == layout
        };
        if !binding.destination_valid
            || !binding.source0_valid
            || binding.source1_valid
            || !binding.last
            || !src_ok
            || !crate::gather::tile_carrier_or_packed_baseline_data_type_supported(dt)
        {
            return Err(Fault::TileLegality);
        }
        if self.bundle.dim_present.iter().any(|&p| p) {
            return Err(Fault::TileLegality);
        }
        let s = self.bundle.scalar;
        let mut peer = [0u64; PTO_MODEL_MEMORY_AGENTS];
        for (pe, p) in peer.iter_mut().enumerate() {
            *p = if s.valid {
                self.read_pe_gpr(pe, s.source0)
            } else {
                0
            };
            if *p >= PTO_MODEL_MEMORY_AGENTS as u64 {
                return Err(Fault::TileLegality);
            }
        }
        let (vr, vc, columns) = {
            let t = &self.tiles[src as usize];
            (t.valid_rows, t.valid_columns, t.columns)
        };
        let dest = if binding.allocated_by_bundle {
            binding.destination
        } else {
            self.resolve_destination(slot, vr, vc, columns, dt, layout)?
        };
        if !self.tile_operands_legal_gmov(dest, src, 0) {
            self.roll_back_destinations();
            return Err(Fault::TileLegality);
        }
        self.gmov(dest, src, 0)
    }
}
