//! Local and Shared TLOAD/TSTORE from a bundle: each PE's base and byte
//! row stride from its own GPRs (or the omitted-B.IOR dense default), the
//! resolved operands recorded, destinations allocated after every check and
//! rolled back on a fault.
//!
//! ASL: `asl/block/model/dispatch/shared-tlsu.asl`,
//! `asl/block/model/dispatch/destination-shape.asl`,
//! `asl/block/model/faults/rollback.asl` (`RollBackBundleTileDestinations`),
//! `asl/arch/memory-model/global-memory-access.asl` (PTO-ARCH-GM-ACCESS-001).

use super::*;

impl Machine {
    /// Base and row stride of PE `pe`: B.IOR RegSrc0/RegSrc1 read from that
    /// PE's private GPR file, or (B.IOR omitted) base 0 and the dense
    /// stride of `dense_columns`. An encoded zero selector reads GPR 0: a
    /// real zero, never the default.
    pub(super) fn pe_base_stride(
        &mut self,
        pe: usize,
        dense_columns: u64,
        dt: DataType,
    ) -> (u64, u64) {
        let s = self.bundle.scalar;
        self.pending_stride_source = Some(if s.valid {
            StrideSource::Encoded
        } else {
            StrideSource::Omitted
        });
        if s.valid {
            (
                self.read_pe_gpr(pe, s.source0),
                self.read_pe_gpr(pe, s.source1),
            )
        } else {
            (0, tile_dense_row_stride_bytes(dense_columns, dt))
        }
    }

    /// Records the resolved TLOAD/TSTORE operands (`BundleTileInstructionOperands`)
    /// of the current PE as a `TransferInfo`, before destination allocation;
    /// the direct operation then does not record them again.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_operands(
        &mut self,
        pe: usize,
        store: bool,
        dt: DataType,
        columns: u64,
        vr: u64,
        vc: u64,
        base: u64,
        stride: u64,
    ) {
        let source = self
            .pending_stride_source
            .take()
            .unwrap_or(StrideSource::Encoded);
        if self.access_logging {
            self.transfers.push(crate::machine::TransferInfo {
                pe: self.capture.unwrap_or(pe),
                store,
                data_type: dt,
                physical_columns: columns,
                valid_rows: vr,
                valid_columns: vc,
                base,
                row_stride_bytes: stride,
                row_stride_elements: 0,
                prefetch: false,
                stride_source: source,
                shared: None,
            });
        }
        self.transfer_recorded = true;
    }

    /// Ordinary Local TLOAD/TSTORE (`ExecuteBundleTileOperationLocally…`):
    /// the current PE's fragment, its base and stride from its GPRs.
    pub(super) fn run_local_tlsu(&mut self) -> Result<(), Fault> {
        let tstore = self.bundle.op.function == 1;
        let count = self.bundle.tile_binding_count();
        let first = self
            .bundle
            .tile_bindings
            .iter()
            .copied()
            .find(|b| b.valid)
            .unwrap_or_default();
        // BundleOperationBindingsComplete: TLOAD one destination, TSTORE one source.
        let complete = count == 1
            && if tstore {
                first.source0_valid && !first.source1_valid && !first.destination_valid
            } else {
                first.destination_valid && !first.source0_valid && !first.source1_valid
            };
        if !complete || !self.scalar_schema_legal() {
            return Err(Fault::BundleControl);
        }
        if !self.datr_legal_for_tlsu() {
            return Err(Fault::TileLegality);
        }
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let layout = self.bundle.tile_layout();
        let pe = self.current_pe;
        if tstore {
            let src = first.source0;
            let Some(t) = self.tiles.get(src as usize) else {
                return Err(Fault::TileLegality);
            };
            if !t.allocated
                || !t.contents_defined
                || t.data_type != dt
                || t.layout.is_cube()
                || t.layout == TileLayout::ImplementationDefined
            {
                return Err(Fault::TileLegality);
            }
            // Omitted B.IOR: the dense pitch of LB2 when present, else the
            // source's physical columns (BundleDestinationPhysicalColumns).
            let columns = self.bundle.dim_in_range(2).unwrap_or(t.columns);
            let (vr, vc) = (t.valid_rows, t.valid_columns);
            let (base, stride) = self.pe_base_stride(pe, columns, dt);
            self.record_operands(pe, true, dt, columns, vr, vc, base, stride);
            return self.tstore(base, stride, src);
        }
        // TLOAD: shape from LB0/LB1/LB2 (defaults 1, 1, ValidCol).
        let valid_columns = self.bundle.dim_in_range(0).unwrap_or(1);
        let valid_rows = self.bundle.dim_in_range(1).unwrap_or(1);
        let columns = self.bundle.dim_in_range(2).unwrap_or(valid_columns);
        let (base, stride) = self.pe_base_stride(pe, columns, dt);
        // The operands are resolved (and reported) before any allocation.
        self.record_operands(
            pe,
            false,
            dt,
            columns,
            valid_rows,
            valid_columns,
            base,
            stride,
        );
        // A binding whose destination is already allocated (a re-executed
        // bundle) reloads it; ResolveBundleTileDestinations skips it.
        let slot = self
            .bundle
            .tile_bindings
            .iter()
            .position(|b| b.valid)
            .unwrap_or(0);
        let dest = if self.bundle.tile_bindings[slot].allocated_by_bundle {
            self.bundle.tile_bindings[slot].destination
        } else {
            self.resolve_destination(slot, valid_rows, valid_columns, columns, dt, layout)?
        };
        let pad = self.bundle.pad_value();
        if let Err(f) = self.tload_with_pad(dest, base, stride, pad) {
            self.roll_back_destinations();
            return Err(f);
        }
        Ok(())
    }

    /// `ResolveBundleTileDestinationsWithShapeAndType` for the single
    /// destination of binding `binding`: first free register of its hand,
    /// capacity check, descriptor check, then allocation.
    pub(super) fn resolve_destination(
        &mut self,
        binding: usize,
        valid_rows: u64,
        valid_columns: u64,
        columns: u64,
        dt: DataType,
        layout: TileLayout,
    ) -> Result<u32, Fault> {
        let b = self.bundle.tile_bindings[binding];
        let capacity =
            forms::tile_size_code_bytes(b.destination_size).ok_or(Fault::TileLegality)?;
        let hand = b.destination_hand as usize;
        let index = (hand * 16..hand * 16 + 16)
            .find(|&i| i < PTO_TILE_REGISTER_COUNT && !self.tiles[i].allocated)
            .ok_or(Fault::TileAllocation)?;
        if self.core_tile_capacity_in_use() + tile::tile_core_allocation_bytes(b.pe_mask, capacity)
            > tile::PTO_TILE_CAPACITY_BYTES
        {
            return Err(Fault::TileAllocation);
        }
        let rows = tile::derived_tile_rows(capacity, columns, dt);
        if !tile::tile_descriptor_shape_legal(capacity, columns, valid_rows, valid_columns, dt)
            || rows * columns > tile::tile_logical_element_capacity(capacity, dt)
        {
            return Err(Fault::TileAllocation);
        }
        self.tiles[index] = TileInfo::allocated_from(
            &mut self.tiles[index],
            capacity,
            rows,
            columns,
            valid_rows,
            valid_columns,
            dt,
            layout,
            TileLocation::Any,
        );
        self.tile_masks[index] = b.pe_mask;
        let tb = &mut self.bundle.tile_bindings[binding];
        tb.destination = index as u32;
        tb.allocated_by_bundle = true;
        Ok(index as u32)
    }

    /// `RollBackBundleTileDestinations`.
    pub(super) fn roll_back_destinations(&mut self) {
        for i in 0..PTO_BUNDLE_TILE_BINDING_COUNT {
            let b = self.bundle.tile_bindings[i];
            if b.valid && b.allocated_by_bundle {
                self.release_tile(b.destination);
                let tb = &mut self.bundle.tile_bindings[i];
                tb.destination = tb.destination_hand;
                tb.allocated_by_bundle = false;
            }
        }
        self.trap_context_follow_rollback();
    }

    /// Per-PE base/stride of every PE (only selected ones are used).
    pub(super) fn all_pe_addressing(&mut self, dense_columns: u64, dt: DataType) -> PeAddressing {
        let mut a = PeAddressing::default();
        for pe in 0..PTO_MODEL_MEMORY_AGENTS {
            let (b, s) = self.pe_base_stride(pe, dense_columns, dt);
            a.base[pe] = b;
            a.stride[pe] = s;
        }
        a
    }

    /// `ExecuteBundleSharedTLSUOperation`: Shared TLOAD (function 0),
    /// TSTORE Function 1 (all four PEs) and Function 14 (TSTORE.SPART, any
    /// nonzero subset).
    pub(super) fn run_shared_tlsu(&mut self) -> Result<(), Fault> {
        let function = self.bundle.op.function;
        if self.bundle.shared_binding_count() != 1 {
            return Err(Fault::TileLegality);
        }
        let sb = self.bundle.shared_bindings[0];
        if sb.pe_mask == 0 {
            return Ok(());
        }
        if forms::tlsu_operation_name(function).is_none() {
            return Err(Fault::IllegalInstruction);
        }
        let dt = DataType::from_code(self.bundle.op.data_type).ok_or(Fault::TileLegality)?;
        if !self.scalar_schema_legal() {
            return Err(Fault::BundleControl);
        }
        if !self.datr_legal_for_tlsu() {
            return Err(Fault::TileLegality);
        }
        let layout = self.bundle.tile_layout();
        let id = sb.shared_id;
        let tile_bindings = self.bundle.tile_binding_count();
        if function == 0 {
            if sb.size_code == 0
                || forms::tile_size_code_bytes(sb.size_code).is_none()
                || tile_bindings != 0
            {
                return Err(Fault::TileLegality);
            }
            // Shared TLOAD takes LB0/LB1/LB2 as they are: no Local defaults.
            let (vc, vr, cols) = (
                self.bundle.dims[0],
                self.bundle.dims[1],
                self.bundle.dims[2],
            );
            if !(1..=65535).contains(&vc)
                || !(1..=65535).contains(&vr)
                || !(1..=65535).contains(&cols)
                || vc > cols
            {
                return Err(Fault::TileLegality);
            }
            let a = self.all_pe_addressing(cols, dt);
            self.tload_shared(id, &a, sb.size_code, cols, vr, vc, dt, layout, sb.pe_mask)?;
        } else {
            let mask_legal = match function {
                1 => sb.pe_mask == 0b1111,
                _ => function == 14,
            };
            if !mask_legal || sb.size_code != 0 || tile_bindings != 0 {
                return Err(Fault::TileLegality);
            }
            let rec = self.shared[id as usize].clone();
            let vc = if self.bundle.dim_present[0] {
                self.bundle.dims[0].min(65536) % 65536
            } else if rec.descriptor_valid {
                rec.tile.valid_columns
            } else {
                1
            };
            let vr = if self.bundle.dim_present[1] {
                self.bundle.dims[1].min(65536) % 65536
            } else if rec.descriptor_valid {
                rec.tile.valid_rows
            } else {
                1
            };
            let cols = if self.bundle.dim_present[2] {
                self.bundle.dims[2].min(65536) % 65536
            } else if rec.descriptor_valid {
                rec.tile.columns
            } else {
                vc
            };
            if vc < 1 || vr < 1 || cols < 1 || vc > cols {
                return Err(Fault::TileLegality);
            }
            let t = self
                .materialize_shared_for_read(id, vr, vc, cols, dt, layout)
                .ok_or(Fault::TileLegality)?;
            let a = self.all_pe_addressing(cols, dt);
            self.tstore_shared(&a, id, &t, sb.pe_mask)?;
        }
        self.bundle.shared_bindings[0].consumed = true;
        Ok(())
    }

    /// `SharedTileReadSchemaLegal` + `MaterializeSharedTileForReadSchema`:
    /// the read-only view of Shared register `id` in the bundle's schema
    /// (an unallocated register gets the smallest capacity that holds it).
    pub(super) fn materialize_shared_for_read(
        &self,
        id: u8,
        vr: u64,
        vc: u64,
        cols: u64,
        dt: DataType,
        layout: TileLayout,
    ) -> Option<TileInfo> {
        if layout.is_cube() {
            return None;
        }
        let rec = &self.shared[id as usize];
        let capacity = if rec.descriptor_valid {
            rec.tile.capacity_bytes
        } else {
            tile::minimum_tile_capacity_bytes_for_shape(cols, vr, vc, dt)
        };
        if capacity == 0 {
            return None;
        }
        let legal = if rec.descriptor_valid {
            rec.allocation_mask != 0
                && rec.tile.columns == cols
                && vr <= rec.tile.valid_rows
                && vc <= rec.tile.valid_columns
                && rec.tile.data_type == dt
                && rec.tile.layout == layout
        } else {
            tile::shared_tile_capacity_is_legal(capacity)
                && tile::tile_descriptor_shape_legal(capacity, cols, vr, vc, dt)
                && tile::derived_tile_rows(capacity, cols, dt) * cols
                    <= tile::tile_logical_element_capacity(capacity, dt)
        };
        if !legal {
            return None;
        }
        let rows = tile::derived_tile_rows(capacity, cols, dt);
        // The payload comes from ReadSharedTileWord; only the geometry counts.
        Some(TileInfo {
            allocated: true,
            contents_defined: false,
            capacity_bytes: capacity,
            rows,
            columns: cols,
            valid_rows: vr,
            valid_columns: vc,
            data_type: dt,
            layout,
            location: TileLocation::Any,
            payload: Default::default(),
            defined: Default::default(),
            defined_valid: 0,
            predicate: false,
        })
    }
}
