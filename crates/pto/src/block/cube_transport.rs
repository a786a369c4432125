//! CUBE transport: ND2M32/ND2M16/ND2N8 TLOAD into a new CUBE tile,
//! M322ND/M162ND/N82ND TSTORE from one.
//!
//! ASL: `asl/block/model/dispatch/tlsu-layout-conversion.asl`.

use super::*;

impl Machine {
    /// `ExecuteBundleCubeTransportOperation`: ND2M32/ND2M16/ND2N8 TLOAD into
    /// a new CUBE tile, M322ND/M162ND/N82ND TSTORE from one.
    pub(super) fn run_cube_transport(&mut self) -> Result<(), Fault> {
        if self.bundle.selected_tile_mask_is_zero() {
            return Ok(());
        }
        let function = self.bundle.op.function;
        if forms::tlsu_operation_name(function).is_none() {
            return Err(Fault::IllegalInstruction);
        }
        let b = &self.bundle;
        let dims_legal = b.dim_present[0]
            && b.dim_present[1]
            && !b.dim_present[2]
            && (1..=65535).contains(&b.dims[0])
            && (1..=65535).contains(&b.dims[1]);
        let d = &b.datr;
        let attrs_legal = d.present
            && d.data_type == DTYPE_NONE
            && d.comparison_mode == 0
            && d.rounding_mode == 0
            && !d.saturating
            && !d.canonicalize
            && match function {
                0 => (21..=23).contains(&d.layout),
                1 => (24..=26).contains(&d.layout),
                _ => false,
            };
        let bindings: Vec<TileBinding> = b
            .tile_bindings
            .iter()
            .copied()
            .filter(|x| x.valid)
            .collect();
        let bindings_legal = b.shared_binding_count() == 0
            && bindings.len() == 1
            && self.scalar_schema_legal()
            && bindings[0].last
            && match function {
                0 => {
                    bindings[0].destination_valid
                        && (1..=10).contains(&bindings[0].destination_size)
                        && !bindings[0].source0_valid
                        && !bindings[0].source1_valid
                }
                _ => {
                    !bindings[0].destination_valid
                        && bindings[0].source0_valid
                        && !bindings[0].source1_valid
                }
            };
        if !dims_legal || !attrs_legal || !bindings_legal {
            return Err(Fault::TileLegality);
        }
        let layout = match d.layout {
            21 | 24 => TileLayout::CubeM32,
            22 | 25 => TileLayout::CubeM16,
            _ => TileLayout::CubeN8,
        };
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        if !cube::tile_cube_data_type_supported(dt) {
            return Err(Fault::TileLegality);
        }
        let (vc, vr) = (b.dims[0], b.dims[1]);
        let pad = b.pad_value();
        let pe = self.current_pe;
        let (base, stride) = self.pe_base_stride(pe, vc, dt);
        if function == 0 {
            let bd = bindings[0];
            let capacity = forms::tile_size_code_bytes(bd.destination_size).unwrap_or(0);
            if !cube::tile_cube_descriptor_shape_legal(capacity, vr, vc, dt, layout)
                || self.core_tile_capacity_in_use()
                    + tile::tile_core_allocation_bytes(bd.pe_mask, capacity)
                    > tile::PTO_TILE_CAPACITY_BYTES
            {
                return Err(Fault::TileAllocation);
            }
            let hand = bd.destination_hand as usize;
            let index = (hand * 16..hand * 16 + 16)
                .find(|&i| !self.tiles[i].allocated)
                .ok_or(Fault::TileAllocation)?;
            self.tiles[index] = TileInfo::allocated_from(
                &mut self.tiles[index],
                capacity,
                cube::tile_cube_storage_rows(layout, vr, dt),
                cube::tile_cube_storage_columns(layout, vc, dt),
                vr,
                vc,
                dt,
                layout,
                TileLocation::Matrix,
            );
            self.tile_masks[index] = bd.pe_mask;
            let tb = self
                .bundle
                .tile_bindings
                .iter_mut()
                .find(|x| x.valid)
                .expect("one binding checked above");
            tb.destination = index as u32;
            tb.allocated_by_bundle = true;
            if let Err(f) = self.tload_with_pad(index as u32, base, stride, pad) {
                self.roll_back_destinations();
                return Err(f);
            }
        } else {
            let bd = bindings[0];
            let src = bd.source0 as usize;
            let Some(t) = self.tiles.get(src) else {
                return Err(Fault::TileLegality);
            };
            let legal = t.cube_descriptor_legal()
                && t.contents_defined
                && t.data_type == dt
                && t.layout == layout
                && t.valid_rows == vr
                && t.valid_columns == vc
                && self.tile_masks[src] & bd.pe_mask == bd.pe_mask;
            if !legal {
                return Err(Fault::TileLegality);
            }
            self.tstore(base, stride, src as u32)?;
        }
        Ok(())
    }
}
