//! Indexed TLSU (MGATHER, MSCATTER, their masked forms, MGATHER_CAS), GMOV and
//! Local TMOV: the direct Tile operations.
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
//! The masked forms (MGATHER_MASK, MSCATTER_MASK) probe and move only the
//! lanes whose predicate-tile bit is set (`ConfigurePredicateTile`,
//! `ReadTilePredicateBit`: bit `l MOD 8` of byte `l DIV 8`, `l` the
//! row-major logical index); MGATHER_CAS (`asl/tile/model/memory/atomics.asl`)
//! probes every lane, then per lane reads the old element into the
//! destination and stores the replacement where it equals the expected
//! one, recording one atomic event each.
//!
//! GMOV is a read-old, write-new copy of a Core4 Local source snapshot into
//! a Local destination of the same logical shape, type and layout; it
//! touches no GM and records no event.

use crate::machine::Machine;
use crate::memory::{decode_tile_memory_element_raw, tile_pad_value_for_data_type};
use crate::types::PadValue;
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
    /// probing each one. With a predicate tile `mask`, only the lanes whose
    /// bit is set (the others are not probed). The first failing probe is
    /// raised (`_LastFault` and its address) and returned.
    fn indexed_preflight(
        &mut self,
        data: u32,
        indices: u32,
        base: u64,
        mask: Option<u32>,
    ) -> Result<Vec<(u64, u64, u64, usize)>, Fault> {
        let d = &self.tiles[data as usize];
        let it = &self.tiles[indices as usize];
        let dt = d.data_type;
        let bytes = dt.element_bytes() as u64;
        let mut lanes = Vec::with_capacity((d.valid_rows * d.valid_columns) as usize);
        for r in 0..d.valid_rows {
            for c in 0..d.valid_columns {
                if mask.is_some_and(|m| !self.read_tile_predicate_bit(m, r, c)) {
                    continue;
                }
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
        let lanes = self.indexed_preflight(destination, indices, base, None)?;
        self.gather_commit(destination, &lanes, pad);
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
        let lanes = self.indexed_preflight(source, indices, base, None)?;
        self.scatter_commit(source, &lanes);
        Ok(())
    }

    /// Stores each probed lane of `source` in row-major order and logs it.
    fn scatter_commit(&mut self, source: u32, lanes: &[(u64, u64, u64, usize)]) {
        let pe = self.capture.unwrap_or(self.current_pe);
        let t = std::mem::take(&mut self.tiles[source as usize]);
        let dt = t.data_type;
        for &(a, r, c, di) in lanes {
            let v = crate::tile::truncate(t.payload.get(di), dt.element_bits());
            let _ = self.store(a, dt.element_bytes(), v);
            self.log(pe, a, dt, r, c, true, v);
        }
        self.tiles[source as usize] = t;
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

    /// `ConfigurePredicateTileForMask(index, capacity, rows, columns,
    /// valid_rows, valid_columns, mask)` (asl/tile/model/state/allocation.asl):
    /// a RowMajor U8-carrier tile of exactly `rows` × `columns` whose
    /// elements are bits (`TileStorage_Predicate`), nothing defined. The
    /// ASL's asserts become `Fault_TileLegality` (`Fault_TileAllocation` for
    /// the capacity limit).
    #[allow(clippy::too_many_arguments)]
    pub fn configure_predicate_tile(
        &mut self,
        index: u32,
        capacity: u64,
        rows: u64,
        columns: u64,
        valid_rows: u64,
        valid_columns: u64,
        mask: u8,
    ) -> Result<(), Fault> {
        let i = index as usize;
        let mask = mask & 0xf;
        if i >= crate::PTO_TILE_REGISTER_COUNT
            || !crate::tile::tile_capacity_is_legal(capacity)
            || mask == 0
            || rows == 0
            || columns == 0
            || rows > 65535
            || columns > 65535
            || valid_rows > rows
            || valid_columns > columns
            || rows * columns > crate::tile::PTO_MODEL_TILE_ELEMENTS
            // PredicateTileStorageBytes: one bit per element.
            || (rows * columns).div_ceil(8) > capacity
        {
            return Err(Fault::TileLegality);
        }
        if self.tile_capacity_in_use_except(Some(i))
            + self.shared_tile_capacity_in_use()
            + crate::tile::tile_core_allocation_bytes(mask, capacity)
            > crate::tile::PTO_TILE_CAPACITY_BYTES
        {
            return Err(Fault::TileAllocation);
        }
        let mut t = crate::tile::TileInfo::allocated_from(
            &mut self.tiles[i],
            capacity,
            rows,
            columns,
            valid_rows,
            valid_columns,
            DataType::U8,
            TileLayout::RowMajor,
            TileLocation::Any,
        );
        t.predicate = true;
        self.tiles[i] = t;
        self.tile_masks[i] = mask;
        Ok(())
    }

    /// `TilePredicateValuesLegal`: a fully defined predicate tile.
    pub fn tile_predicate_values_legal(&self, index: u32) -> bool {
        self.tile_source_contents_defined(index) && self.tiles[index as usize].predicate
    }

    /// `ReadTilePredicateBit(index, row, column)`: bit `logical MOD 8` of
    /// payload byte `logical DIV 8`, `logical = row * columns + column`
    /// (`TilePredicateLogicalIndex`). False outside the physical shape.
    pub fn read_tile_predicate_bit(&self, index: u32, row: u64, column: u64) -> bool {
        let t = &self.tiles[index as usize];
        if row >= t.rows || column >= t.columns {
            return false;
        }
        let logical = row * t.columns + column;
        (t.payload.get((logical / 8) as usize) >> (logical % 8)) & 1 == 1
    }

    /// The `mask` operand's shape checks shared by `TileOperandsLegal_MGATHER_MASK`
    /// and `_MSCATTER_MASK`: a legal predicate tile with the data tile's valid
    /// shape and layout.
    fn mask_matches(&self, data: u32, mask: u32) -> bool {
        if !self.tile_predicate_values_legal(mask) {
            return false;
        }
        let (d, m) = (&self.tiles[data as usize], &self.tiles[mask as usize]);
        d.valid_rows == m.valid_rows && d.valid_columns == m.valid_columns && d.layout == m.layout
    }

    /// `TileOperandsLegal_MGATHER_MASK(destination, base, indices, mask, pad)`
    /// (asl/tile/model/legality/memory-schema.asl).
    pub fn tile_operands_legal_mgather_mask(
        &self,
        destination: u32,
        indices: u32,
        mask: u32,
    ) -> bool {
        self.generic_descriptor_legal(destination)
            && self.tile_source_contents_defined(indices)
            && self.tile_operands_legal_mgather(destination, indices)
            && self.tiles[destination as usize].layout == self.tiles[indices as usize].layout
            && self.mask_matches(destination, mask)
    }

    /// `TileOperandsLegal_MSCATTER_MASK(base, source, indices, mask)`.
    pub fn tile_operands_legal_mscatter_mask(&self, source: u32, indices: u32, mask: u32) -> bool {
        self.tile_operands_legal_mscatter(source, indices) && self.mask_matches(source, mask)
    }

    /// `TileOperandsLegal_MGATHER_CAS(destination, base, indices, expected,
    /// replacement, pad)`: MGATHER's checks plus defined expected and
    /// replacement tiles of the destination's valid shape and data type.
    pub fn tile_operands_legal_mgather_cas(
        &self,
        destination: u32,
        indices: u32,
        expected: u32,
        replacement: u32,
    ) -> bool {
        if !self.tile_operands_legal_mgather(destination, indices)
            || !self.tile_source_contents_defined(indices)
            || !self.tile_source_contents_defined(expected)
            || !self.tile_source_contents_defined(replacement)
        {
            return false;
        }
        let d = &self.tiles[destination as usize];
        [expected, replacement].iter().all(|&x| {
            let x = &self.tiles[x as usize];
            x.valid_rows == d.valid_rows
                && x.valid_columns == d.valid_columns
                && x.data_type == d.data_type
        })
    }

    /// `MGATHER_MASK(destination, base_address, indices, mask, pad_value)`
    /// (asl/tile/model/memory/gather-scatter.asl): MGATHER over the lanes
    /// whose predicate bit is set; every other physical element (masked-off
    /// valid lanes included) takes the pad value, and the whole physical
    /// region becomes defined. Only active lanes are probed and loaded.
    pub fn mgather_mask(
        &mut self,
        destination: u32,
        base: u64,
        indices: u32,
        mask: u32,
        pad: PadValue,
    ) -> Result<(), Fault> {
        if !self.tile_operands_legal_mgather_mask(destination, indices, mask) {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let lanes = self.indexed_preflight(destination, indices, base, Some(mask))?;
        self.gather_commit(destination, &lanes, pad);
        Ok(())
    }

    /// Pads the whole physical region of `destination`, loads each lane, and
    /// marks the physical region defined (`MarkTilePhysicalRegionDefined`).
    fn gather_commit(&mut self, destination: u32, lanes: &[(u64, u64, u64, usize)], pad: PadValue) {
        let pe = self.capture.unwrap_or(self.current_pe);
        let mut t = std::mem::take(&mut self.tiles[destination as usize]);
        let dt = t.data_type;
        let padv = tile_pad_value_for_data_type(pad, dt);
        for i in 0..(t.rows * t.columns) as usize {
            t.set_element(i, padv, true);
        }
        for &(a, r, c, di) in lanes {
            let v = self.load_unsigned(a, dt.element_bytes()).unwrap_or(0);
            self.log(pe, a, dt, r, c, false, v);
            t.set_element(di, decode_tile_memory_element_raw(v, dt, false), true);
        }
        t.contents_defined = true;
        t.defined_valid = t.valid_rows * t.valid_columns;
        self.tiles[destination as usize] = t;
    }

    /// `MSCATTER_MASK(base_address, source, indices, mask)`: MSCATTER over
    /// the lanes whose predicate bit is set (probed first, then committed
    /// in row-major order, as [`Self::mscatter`]).
    pub fn mscatter_mask(
        &mut self,
        base: u64,
        source: u32,
        indices: u32,
        mask: u32,
    ) -> Result<(), Fault> {
        if !self.tile_operands_legal_mscatter_mask(source, indices, mask) {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let lanes = self.indexed_preflight(source, indices, base, Some(mask))?;
        self.scatter_commit(source, &lanes);
        Ok(())
    }

    /// `MGATHER_CAS(destination, base_address, indices, expected,
    /// replacement, pad_value)` (asl/tile/model/memory/atomics.asl): every
    /// valid lane is probed (read and write; the model's translation is the
    /// identity, so one probe answers both) before the first atomic; then,
    /// lane by lane in row-major order (the model's choice of the
    /// implementation-defined serialization of duplicate addresses), the old
    /// element is read into the destination, and the replacement stored
    /// when the old value equals the expected one (compared at the element's
    /// byte width, `NormalizeMemoryAccessValue`). One atomic event per lane;
    /// the rest of the physical destination takes the pad value.
    pub fn mgather_cas(
        &mut self,
        destination: u32,
        base: u64,
        indices: u32,
        expected: u32,
        replacement: u32,
        pad: PadValue,
    ) -> Result<(), Fault> {
        if !self.tile_operands_legal_mgather_cas(destination, indices, expected, replacement) {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let lanes = self.indexed_preflight(destination, indices, base, None)?;
        let pe = self.capture.unwrap_or(self.current_pe);
        let mut t = std::mem::take(&mut self.tiles[destination as usize]);
        let dt = t.data_type;
        let bits = dt.element_bytes() * 8;
        let padv = tile_pad_value_for_data_type(pad, dt);
        for i in 0..(t.rows * t.columns) as usize {
            t.set_element(i, padv, true);
        }
        for &(a, r, c, di) in &lanes {
            let lane_value = |m: &Machine, x: u32| {
                let x = &m.tiles[x as usize];
                x.element_index(r, c).map_or(0, |k| x.payload.get(k))
            };
            let (want, repl) = (lane_value(self, expected), lane_value(self, replacement));
            let old_raw = self.load_unsigned(a, dt.element_bytes()).unwrap_or(0);
            let old = decode_tile_memory_element_raw(old_raw, dt, false);
            t.set_element(di, old, true);
            let write = crate::tile::truncate(repl, bits);
            let succeeds = crate::tile::truncate(old, bits) == crate::tile::truncate(want, bits);
            if succeeds {
                let _ = self.store(a, dt.element_bytes(), write);
            }
            self.log_atomic(pe, a, dt, old_raw, write, succeeds);
        }
        t.contents_defined = true;
        t.defined_valid = t.valid_rows * t.valid_columns;
        self.tiles[destination as usize] = t;
        Ok(())
    }

    /// `RecordAtomicEvent` under capture (`write_performed` when the
    /// compare succeeded).
    #[allow(clippy::too_many_arguments)]
    fn log_atomic(
        &mut self,
        pe: usize,
        addr: u64,
        dt: DataType,
        read: u64,
        write: u64,
        performed: bool,
    ) {
        if self.capture.is_some() {
            let order = self.bundle.catr.memory_order();
            let size = dt.element_bytes();
            self.events
                .record_atomic(pe, addr, size, read, write, order, performed);
        }
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

    fn byte_tile(m: &mut Machine, index: u32, cols: u64, dtype: DataType) {
        let cfg = crate::machine::TileConfig {
            capacity: 1024,
            rows: 1,
            cols: 16,
            valid_rows: 1,
            valid_cols: cols,
            dtype,
            layout: TileLayout::RowMajor,
            location: TileLocation::Any,
            mask: None,
        };
        m.configure_tile(index, &cfg).unwrap();
    }

    /// Four lanes at displacements 0..3 of 0x100, predicate bits 1010
    /// (lanes 1 and 3 active).
    fn four_lanes() -> Machine {
        let mut m = Machine::new(0x1000);
        for (i, b) in [0x11u64, 0x22, 0x33, 0x44].iter().enumerate() {
            m.store(0x100 + i as u64, 1, *b).unwrap();
        }
        byte_tile(&mut m, 1, 4, DataType::U8); // destination / source
        byte_tile(&mut m, 2, 4, DataType::U64); // indices
        m.configure_predicate_tile(3, 128, 1, 16, 1, 4, 1).unwrap();
        for c in 0..4 {
            m.write_tile_element(1, 0, c, 0xa0 + c).unwrap();
            m.write_tile_element(2, 0, c, c).unwrap();
        }
        // WriteTileElement writes the byte carrier: element 0's byte holds
        // predicate bits 0..7; the other writes only define elements 1..3.
        m.write_tile_element(3, 0, 0, 0b1010).unwrap();
        for c in 1..4 {
            m.write_tile_element(3, 0, c, 0).unwrap();
        }
        m
    }

    #[test]
    fn masked_gather_loads_only_active_lanes_and_pads_the_rest() {
        let mut m = four_lanes();
        m.start_memory_event_capture(0);
        m.mgather_mask(1, 0x100, 2, 3, PadValue::Zero).unwrap();
        let got: Vec<_> = (0..4)
            .map(|c| m.read_tile_element(1, 0, c).unwrap().unwrap())
            .collect();
        assert_eq!(got, vec![0, 0x22, 0, 0x44]);
        assert_eq!(m.memory_events().len(), 2, "only active lanes load");
    }

    #[test]
    fn captured_lanes_take_the_bundle_memory_order_until_the_header_clears() {
        use crate::memory_model::Order;
        let mut m = four_lanes();
        m.start_memory_event_capture(0);
        m.set_bundle_control_attribute_state(crate::block::state::ControlAttributes {
            acquire: true,
            release: true,
            ..Default::default()
        });
        m.mscatter_mask(0x100, 1, 2, 3).unwrap();
        m.reset_bundle_control_state();
        m.mgather_mask(1, 0x100, 2, 3, PadValue::Zero).unwrap();
        let orders: Vec<_> = m.memory_events().iter().map(|e| e.order).collect();
        assert_eq!(
            orders,
            [
                Order::AcquireRelease,
                Order::AcquireRelease,
                Order::Relaxed,
                Order::Relaxed
            ]
        );
        let reads: Vec<_> = m.memory_events()[2..].iter().map(|e| e.read_from).collect();
        assert_eq!(reads, [0, 1], "each gathered lane reads the scattered lane");
    }

    #[test]
    fn masked_scatter_stores_only_active_lanes() {
        let mut m = four_lanes();
        m.mscatter_mask(0x100, 1, 2, 3).unwrap();
        let got: Vec<_> = (0..4)
            .map(|i| m.load_unsigned(0x100 + i, 1).unwrap())
            .collect();
        assert_eq!(got, vec![0x11, 0xa1, 0x33, 0xa3]);
    }

    #[test]
    fn masked_forms_need_a_defined_predicate_tile() {
        let mut m = four_lanes();
        // A data tile is not a predicate tile.
        assert_eq!(
            m.mgather_mask(1, 0x100, 2, 2, PadValue::Zero),
            Err(Fault::TileLegality)
        );
        assert_eq!(m.mscatter_mask(0x100, 1, 2, 63), Err(Fault::TileLegality));
        assert_eq!(m.load_unsigned(0x101, 1), Ok(0x22));
    }

    #[test]
    fn cas_stores_the_replacement_only_where_the_old_value_matches() {
        let mut m = four_lanes();
        byte_tile(&mut m, 4, 4, DataType::U8); // expected
        byte_tile(&mut m, 5, 4, DataType::U8); // replacement
        for (c, want) in [0x11u64, 0x00, 0x33, 0x00].iter().enumerate() {
            m.write_tile_element(4, 0, c as u64, *want).unwrap();
            m.write_tile_element(5, 0, c as u64, 0xe0 + c as u64)
                .unwrap();
        }
        m.start_memory_event_capture(0);
        m.mgather_cas(1, 0x100, 2, 4, 5, PadValue::Null).unwrap();
        let mem: Vec<_> = (0..4)
            .map(|i| m.load_unsigned(0x100 + i, 1).unwrap())
            .collect();
        assert_eq!(mem, vec![0xe0, 0x22, 0xe2, 0x44]);
        let old: Vec<_> = (0..4)
            .map(|c| m.read_tile_element(1, 0, c).unwrap().unwrap())
            .collect();
        assert_eq!(
            old,
            vec![0x11, 0x22, 0x33, 0x44],
            "the destination holds the old values"
        );
        let ev = m.memory_events();
        assert_eq!(ev.len(), 4);
        assert!(ev
            .iter()
            .all(|e| e.kind == crate::machine::MemoryEventKind::Atomic));
        assert_eq!((ev[1].read_value, ev[1].write_value), (0x22, 0xe1));
    }

    #[test]
    fn cas_faults_before_any_atomic() {
        let mut m = four_lanes();
        byte_tile(&mut m, 4, 4, DataType::U8);
        byte_tile(&mut m, 5, 4, DataType::U8);
        for c in 0..4 {
            m.write_tile_element(4, 0, c, 0x11).unwrap();
            m.write_tile_element(5, 0, c, 0xee).unwrap();
        }
        m.write_tile_element(2, 0, 3, 0x10_0000).unwrap(); // lane 3 outside GM
        assert_eq!(
            m.mgather_cas(1, 0x100, 2, 4, 5, PadValue::Null),
            Err(Fault::DataPage)
        );
        assert_eq!(m.load_unsigned(0x100, 1), Ok(0x11), "lane 0 not swapped");
        assert_eq!(m.read_tile_element(1, 0, 0).unwrap(), Some(0xa0));
    }
}
