//! Indexed TLSU (MGATHER, MSCATTER), GMOV and Local TMOV: the direct Tile operations.
//!
//! ASL: `asl/tile/model/memory/gather-scatter.asl` (`MGATHER`, `MSCATTER`,
//! `CommitScatterLanes`), `asl/tile/model/memory/addressing.asl`
//! (`TileIndexByteDisplacement`, `TileMemoryByteDisplacementAddress`),
//! `asl/tile/model/definedness/elements.asl`
//! (`IndexedTLSUTransferDataTypeLegal`, `IndexedTLSUIndexDataTypeLegal`),
//! `asl/tile/model/legality/memory-schema.asl` (`TileOperandsLegal_MGATHER`,
//! `TileOperandsLegal_MSCATTER`), `asl/tile/model/legality/indexed-layout.asl`
//! (`TileOperandsLegal_GMOV`), `asl/tile/model/legality/dtype-layout.asl`
//! (`TileCarrierOrPackedBaselineDataTypeSupported`),
//! `asl/tile/model/memory/shared-movement.asl` (`GMOV`).
//!
//! Indexed TLSU is on the byte side of ADR 0074's boundary from the start:
//! each element's GM address is the base plus the index tile's element,
//! read as a signed or unsigned **byte** displacement of the index type's
//! width. Nothing here uses a row stride. Four-bit transfer types are
//! illegal (the schema carries no nibble selector); four-bit index types
//! are legal (a U4X2/S4X2 index is one nibble).
//!
//! Shape of both operations, as the ASL: probe every valid element in
//! row-major order (the first failing one is the precise fault, with its
//! address), and only then commit. A faulting MGATHER leaves the
//! destination as it was; a faulting MSCATTER writes nothing and records no
//! event. MSCATTER's duplicate-address winner is implementation-defined
//! (`CommitScatterLanes` picks lanes `ARBITRARY`); this model commits the
//! lanes in natural (row-major) order, so the last duplicate lane wins.
//!
//! GMOV is a read-old, write-new copy of a Core4 Local source snapshot into
//! a Local destination of the same logical shape, type and layout; it
//! touches no GM and records no event.

use crate::machine::Machine;
use crate::memory::{decode_tile_memory_element_raw, tile_pad_value_for_data_type, PadValue};
use crate::types::{DataType, Fault, TileLayout, TileLocation};

/// TLSU Function of MGATHER.
pub const MGATHER_FUNCTION: u32 = 4;
/// TLSU Function of MSCATTER.
pub const MSCATTER_FUNCTION: u32 = 5;
/// TLSU Function of GMOV.
pub const GMOV_FUNCTION: u32 = 13;

/// `TileDataTypeIsInteger`: the signed and unsigned integer types, packed
/// four-bit ones included.
pub fn tile_data_type_is_integer(dt: DataType) -> bool {
    use DataType::*;
    matches!(
        dt,
        S64 | S32 | S16 | S8 | S4X2 | U64 | U32 | U16 | U8 | U4X2
    )
}

/// `IndexedTLSUTransferDataTypeLegal`: every type but the packed four-bit
/// ones (a byte displacement cannot select a nibble).
pub fn indexed_tlsu_transfer_data_type_legal(dt: DataType) -> bool {
    !dt.is_four_bit()
}

/// `IndexedTLSUIndexDataTypeLegal`: integer index tiles only.
pub fn indexed_tlsu_index_data_type_legal(dt: DataType) -> bool {
    tile_data_type_is_integer(dt)
}

/// `TileCarrierOrPackedBaselineDataTypeSupported`: non-packed types of at
/// most 4 bytes (the Stage-4 carrier set), or a packed four-bit type.
pub fn tile_carrier_or_packed_baseline_data_type_supported(dt: DataType) -> bool {
    dt.is_four_bit() || dt.element_bytes() <= 4
}

/// `TileIndexByteDisplacement`: the index element's low bits of its type's
/// width, sign-extended for S-types and zero-extended for U-types. `None`
/// for a non-integer index type (the ASL asserts it away).
pub fn tile_index_byte_displacement(index_value: u64, index_data_type: DataType) -> Option<u64> {
    use DataType::*;
    Some(match index_data_type {
        S4X2 => (((index_value & 0xf) as i64) << 60 >> 60) as u64,
        S8 => index_value as u8 as i8 as i64 as u64,
        S16 => index_value as u16 as i16 as i64 as u64,
        S32 => index_value as u32 as i32 as i64 as u64,
        S64 | U64 => index_value,
        U4X2 => index_value & 0xf,
        U8 => index_value & 0xff,
        U16 => index_value & 0xffff,
        U32 => index_value & 0xffff_ffff,
        _ => return None,
    })
}

/// `TileMemoryByteDisplacementAddress`: `base + displacement` (XLEN
/// wrapping, as the ASL's `Word` sum).
pub fn tile_memory_byte_displacement_address(
    base_address: u64,
    index_value: u64,
    index_data_type: DataType,
) -> Option<u64> {
    tile_index_byte_displacement(index_value, index_data_type).map(|d| base_address.wrapping_add(d))
}

impl Machine {
    /// `TileDescriptorLegal` for a generic-indexing (non-CUBE) tile.
    fn generic_descriptor_legal(&self, index: u32) -> bool {
        self.tiles.get(index as usize).is_some_and(|t| {
            t.allocated && !t.layout.is_cube() && t.layout != TileLayout::ImplementationDefined
        })
    }

    /// `TileSourceContentsDefined`.
    pub(crate) fn tile_source_contents_defined(&self, index: u32) -> bool {
        self.tiles
            .get(index as usize)
            .is_some_and(|t| t.allocated && t.contents_defined)
    }

    /// `TileOperandsLegal_MGATHER(destination, base, indices, pad)`.
    pub fn tile_operands_legal_mgather(&self, destination: u32, indices: u32) -> bool {
        if !self.generic_descriptor_legal(destination) || !self.generic_descriptor_legal(indices) {
            return false;
        }
        let (d, i) = (
            &self.tiles[destination as usize],
            &self.tiles[indices as usize],
        );
        d.valid_rows == i.valid_rows
            && d.valid_columns == i.valid_columns
            && indexed_tlsu_index_data_type_legal(i.data_type)
            && indexed_tlsu_transfer_data_type_legal(d.data_type)
    }

    /// `TileOperandsLegal_MSCATTER(base, source, indices)`.
    pub fn tile_operands_legal_mscatter(&self, source: u32, indices: u32) -> bool {
        if !self.tile_source_contents_defined(source) || !self.tile_source_contents_defined(indices)
        {
            return false;
        }
        let (s, i) = (&self.tiles[source as usize], &self.tiles[indices as usize]);
        indexed_tlsu_index_data_type_legal(i.data_type)
            && indexed_tlsu_transfer_data_type_legal(s.data_type)
            && s.valid_rows == i.valid_rows
            && s.valid_columns == i.valid_columns
            && s.layout == i.layout
    }

    /// `TileOperandsLegal_GMOV(destination, source, peer_tid)`.
    pub fn tile_operands_legal_gmov(&self, destination: u32, source: u32, peer_tid: u64) -> bool {
        if peer_tid >= 4
            || !self.generic_descriptor_legal(destination)
            || !self.generic_descriptor_legal(source)
            || !self.tile_source_contents_defined(source)
        {
            return false;
        }
        let (d, s) = (
            &self.tiles[destination as usize],
            &self.tiles[source as usize],
        );
        let not_memory_or_matrix =
            |l: TileLocation| l != TileLocation::Memory && l != TileLocation::Matrix;
        // TileLogicalShapeMatch.
        d.rows == s.rows
            && d.columns == s.columns
            && d.valid_rows == s.valid_rows
            && d.valid_columns == s.valid_columns
            && d.layout == s.layout
            && tile_carrier_or_packed_baseline_data_type_supported(s.data_type)
            && d.data_type == s.data_type
            && not_memory_or_matrix(d.location)
            && not_memory_or_matrix(s.location)
    }

    /// GM address of every valid element of an indexed access, row-major,
    /// with its (row, column) and payload index in the data tile, after
    /// probing each one. The first failing probe is raised (`_LastFault`
    /// and its address) and returned.
    fn indexed_preflight(
        &mut self,
        data: u32,
        indices: u32,
        base: u64,
    ) -> Result<Vec<(u64, u64, u64, usize)>, Fault> {
        let d = &self.tiles[data as usize];
        let it = &self.tiles[indices as usize];
        let dt = d.data_type;
        let bytes = dt.element_bytes() as u64;
        let mut lanes = Vec::with_capacity((d.valid_rows * d.valid_columns) as usize);
        for r in 0..d.valid_rows {
            for c in 0..d.valid_columns {
                let (Some(di), Some(ii)) = (d.element_index(r, c), it.element_index(r, c)) else {
                    return Err(Fault::TileLegality);
                };
                let a =
                    tile_memory_byte_displacement_address(base, it.payload.get(ii), it.data_type)
                        .ok_or(Fault::TileLegality)?;
                if let Err(f) = self.probe(a, bytes) {
                    self.set_fault(f, Some(a));
                    return Err(f);
                }
                lanes.push((a, r, c, di));
            }
        }
        Ok(lanes)
    }

    /// `MGATHER(destination, base_address, indices, pad_value)`: every
    /// valid element loads from `base + displacement(indices[r][c])`; the
    /// rest of the physical region takes the pad value, and the whole
    /// physical region becomes defined (`MarkTilePhysicalRegionDefined`).
    /// `Fault_TileLegality` when `TileOperandsLegal_MGATHER` fails or the
    /// index tile is not defined; a probe fault leaves the destination and
    /// the event log unchanged.
    pub fn mgather(
        &mut self,
        destination: u32,
        base: u64,
        indices: u32,
        pad: PadValue,
    ) -> Result<(), Fault> {
        if !self.tile_operands_legal_mgather(destination, indices)
            || !self.tile_source_contents_defined(indices)
        {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let lanes = self.indexed_preflight(destination, indices, base)?;
        let pe = self.capture.unwrap_or(self.current_pe);
        let mut t = std::mem::take(&mut self.tiles[destination as usize]);
        let dt = t.data_type;
        let padv = tile_pad_value_for_data_type(pad, dt);
        for i in 0..(t.rows * t.columns) as usize {
            t.set_element(i, padv, true);
        }
        for &(a, r, c, di) in &lanes {
            let v = self.load_unsigned(a, dt.element_bytes()).unwrap_or(0);
            self.log(pe, a, dt, r, c, false, v);
            t.set_element(di, decode_tile_memory_element_raw(v, dt, false), true);
        }
        t.contents_defined = true;
        t.defined_valid = t.valid_rows * t.valid_columns;
        self.tiles[destination as usize] = t;
        Ok(())
    }

    /// `MSCATTER(base_address, source, indices)`: every valid element of
    /// `source` stores to `base + displacement(indices[r][c])`, after all of
    /// them have been probed. Lanes commit in row-major order (the model's
    /// choice of the implementation-defined duplicate winner: the last).
    pub fn mscatter(&mut self, base: u64, source: u32, indices: u32) -> Result<(), Fault> {
        if !self.tile_operands_legal_mscatter(source, indices) {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let lanes = self.indexed_preflight(source, indices, base)?;
        let pe = self.capture.unwrap_or(self.current_pe);
        let t = std::mem::take(&mut self.tiles[source as usize]);
        let dt = t.data_type;
        for &(a, r, c, di) in &lanes {
            let v = crate::tile::truncate(t.payload.get(di), dt.element_bits());
            let _ = self.store(a, dt.element_bytes(), v);
            self.log(pe, a, dt, r, c, true, v);
        }
        self.tiles[source as usize] = t;
        Ok(())
    }

    /// Local `TMOV(destination, source)` (asl/tile/model/memory/shared-movement.asl):
    /// the same payload and definedness copy as GMOV, checked by
    /// `TileOperandsLegal_TMOV` (`TileShapeAndTypeMatch`: both descriptors
    /// legal, same physical and valid shape, layout and data type).
    pub fn tmov(&mut self, destination: u32, source: u32) -> Result<(), Fault> {
        let legal = self.generic_descriptor_legal(destination)
            && self.generic_descriptor_legal(source)
            && {
                let (d, s) = (
                    &self.tiles[destination as usize],
                    &self.tiles[source as usize],
                );
                d.rows == s.rows
                    && d.columns == s.columns
                    && d.valid_rows == s.valid_rows
                    && d.valid_columns == s.valid_columns
                    && d.layout == s.layout
                    && d.data_type == s.data_type
            };
        if !legal {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        self.copy_tile_contents(destination, source);
        Ok(())
    }

    fn copy_tile_contents(&mut self, destination: u32, source: u32) {
        if destination != source {
            let s = &self.tiles[source as usize];
            let (payload, defined) = (s.payload.clone(), s.defined.clone());
            let (cd, dv) = (s.contents_defined, s.defined_valid);
            let d = &mut self.tiles[destination as usize];
            d.payload = payload;
            d.defined = defined;
            d.contents_defined = cd;
            d.defined_valid = dv;
        }
    }

    /// `GMOV(destination, source, peer_tid)`: copies the source's payload
    /// and definedness into the destination (`TileOperandsLegal_GMOV`
    /// checked first; `Fault_TileLegality` and no change otherwise).
    pub fn gmov(&mut self, destination: u32, source: u32, peer_tid: u64) -> Result<(), Fault> {
        if !self.tile_operands_legal_gmov(destination, source, peer_tid) {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        self.copy_tile_contents(destination, source);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_index_types_sign_extend_their_own_width() {
        assert_eq!(
            tile_index_byte_displacement(0xff, DataType::S8),
            Some(u64::MAX)
        );
        assert_eq!(
            tile_index_byte_displacement(0x1ff, DataType::U8),
            Some(0xff)
        );
        assert_eq!(
            tile_index_byte_displacement(0xf, DataType::S4X2),
            Some(u64::MAX)
        );
        assert_eq!(tile_index_byte_displacement(0x17, DataType::U4X2), Some(7));
        assert_eq!(
            tile_index_byte_displacement(0x8000, DataType::S16),
            Some(0xffff_ffff_ffff_8000)
        );
        assert_eq!(tile_index_byte_displacement(1, DataType::FP32), None);
        assert_eq!(
            tile_memory_byte_displacement_address(0x100, 0xfe, DataType::S8),
            Some(0xfe)
        );
    }
}
