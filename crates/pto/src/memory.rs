//! Tile memory movement: TLOAD/TSTORE of Local tiles and of Shared tiles.
//!
//! ASL: `asl/tile/model/memory/load-store.asl` (PTO-TILE-MODEL-MEMORY-LOAD-STORE:
//! `TLOAD`, `TSTORE`, `LoadTileMemoryElement`, `StoreTileMemoryElement`,
//! `ProbeTileMemoryAccess`), `asl/tile/model/memory/shared-movement.asl`
//! (PTO-REQ-TLSU-001: `TLOADShared`, `TSTOREShared`),
//! `asl/scalar/model/agu/memory.asl` (`ProbeDataAccess`: alignment before
//! bounded memory), `asl/tile/model/state/shared-registers.asl`
//! (`AtomicUpdateSharedTileWithPublication`, `SharedTileUpdateCompatible`).
//!
//! Every operation has the spec's shape: validate, preflight every selected
//! element access (the first failing one, in row-major element order, is the
//! precise fault), then commit. Nothing is written before the preflight has
//! passed, so a fault leaves memory, tiles, Shared registers and capacity
//! exactly as they were.
//!
//! Fast path: RowMajor Local transfers with the ADR 0074 formula whose
//! slots copy as bytes (element-width slots, or packed nibbles with even
//! widths) check the rectangle in O(1) (row-start alignment, last row in
//! bounds) and move it as one block when the rows are dense, else row by
//! row with one GM page lookup per page the rows touch
//! (`GlobalMemory::read_rows`/`write_rows`); definedness is set by ranges.
//! Other RowMajor shapes take the row runs of `rows.rs`. When a check
//! fails, the per-element preflight finds the precise fault.
//! `Machine::set_element_path` forces the per-element path everywhere;
//! `tests/fast_path.rs` proves both observably identical.

use crate::addressing;
use crate::addressing::PeAddressing;
use crate::forms::{self, pe_selected};
use crate::machine::{
    GmAccess, Machine, Nibble, StrideSource, TransferInfo, PTO_MODEL_MEMORY_AGENTS,
};
use crate::rows;
use crate::tile::shared::SharedTileInfo;
use crate::tile::{self, TileInfo};
use crate::types::{DataType, Fault, PadValue, TileLayout, TileLocation};

/// `TilePadValueForDataType`.
pub fn tile_pad_value_for_data_type(pad: PadValue, dt: DataType) -> u64 {
    use DataType::*;
    match pad {
        PadValue::Zero | PadValue::Null => 0,
        PadValue::Max => match dt {
            FP64 => 0x7fef_ffff_ffff_ffff,
            FP32 => 0x7f7f_ffff,
            TF32 => 0x7f7f_e000,
            HF32 => 0x7f7f_f000,
            FP16 => 0x7bff,
            BF16 => 0x7f7f,
            E4M3 => 0x7e,
            E5M2 => 0x7b,
            U8 => 0xff,
            U16 => 0xffff,
            U32 => 0xffff_ffff,
            U64 => u64::MAX,
            S8 => 0x7f,
            S16 => 0x7fff,
            S32 => 0x7fff_ffff,
            S64 => 0x7fff_ffff_ffff_ffff,
            _ => u64::MAX,
        },
        PadValue::Min => match dt {
            FP64 => 0xffef_ffff_ffff_ffff,
            FP32 => 0xff7f_ffff,
            TF32 => 0xff7f_e000,
            HF32 => 0xff7f_f000,
            FP16 => 0xfbff,
            BF16 => 0xff7f,
            E4M3 => 0xfe,
            E5M2 => 0xfb,
            U8 | U16 | U32 | U64 | U4X2 => 0,
            S8 => 0x80,
            S16 => 0x8000,
            S32 => 0x8000_0000,
            _ => 0x8000_0000_0000_0000,
        },
    }
}

/// `DecodeTileMemoryElementRaw`: a nibble zero-extends (S4X2 included);
/// S8/S16/S32 sign-extend (`NormalizeLoadedValue`); others zero-extend.
pub fn decode_tile_memory_element_raw(raw: u64, dt: DataType, high_nibble: bool) -> u64 {
    if dt.is_four_bit() {
        if high_nibble {
            (raw >> 4) & 0xf
        } else {
            raw & 0xf
        }
    } else if dt.sign_extends_on_load() {
        match dt.element_bytes() {
            1 => raw as u8 as i8 as i64 as u64,
            2 => raw as u16 as i16 as i64 as u64,
            _ => raw as u32 as i32 as i64 as u64,
        }
    } else {
        raw
    }
}

impl Machine {
    /// GM byte address of (row, col): ADR 0074's byte-row formula, or the
    /// superseded element-unit reading under the `--element-stride` what-if.
    pub(crate) fn element_address(
        &self,
        base: u64,
        row: u64,
        col: u64,
        stride: u64,
        dt: DataType,
    ) -> u64 {
        if self.element_stride_mode {
            addressing::element_stride_byte_address(base, row, col, stride, dt)
        } else {
            addressing::tile_memory_strided_byte_address(base, row, col, stride, dt)
        }
    }

    /// `ProbeTileMemoryAccess` → `ProbeDataAccess`: natural alignment first
    /// (`Fault_DataAlignment`), then the bounded memory (`Fault_DataPage`).
    pub(crate) fn probe(&self, addr: u64, bytes: u64) -> Result<(), Fault> {
        if !addr.is_multiple_of(bytes) {
            return Err(Fault::DataAlignment);
        }
        if addr as u128 + bytes as u128 > self.gm.size() as u128 {
            return Err(Fault::DataPage);
        }
        Ok(())
    }

    fn raise(&mut self, fault: Fault, addr: u64) -> Fault {
        self.set_fault(fault, Some(addr));
        fault
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn log(
        &mut self,
        pe: usize,
        addr: u64,
        dt: DataType,
        row: u64,
        col: u64,
        write: bool,
        value: u64,
    ) {
        if self.capture.is_some() {
            let order = self.bundle.catr.memory_order();
            let size = dt.element_bytes();
            if write {
                self.events.record_store(pe, addr, size, value, order);
            } else {
                self.events.record_load(pe, addr, size, value, order);
            }
        }
        if self.access_logging {
            self.accesses.push(GmAccess {
                pe,
                addr,
                size: dt.element_bytes(),
                nibble: dt.is_four_bit().then_some({
                    if col % 2 == 1 {
                        Nibble::High
                    } else {
                        Nibble::Low
                    }
                }),
                row,
                col,
                write,
            });
        }
    }

    /// A Local rectangle that is one contiguous block in GM and in the
    /// payload: full-width rows exactly one dense row apart, element-width
    /// (or packed-nibble, even-width) payload. Returns (GM address, bytes).
    fn contiguous_block(&self, t: &TileInfo, base: u64, stride: u64) -> Option<(u64, u64)> {
        let dt = t.data_type;
        let row = addressing::tile_dense_row_stride_bytes(t.columns, dt);
        let slots_ok = if dt.is_four_bit() {
            t.payload.slot() == 0 && t.columns.is_multiple_of(2)
        } else {
            t.payload.slot() == dt.element_bytes() as usize
        };
        (self.runs_apply(t)
            && slots_ok
            && t.valid_columns == t.columns
            && stride == row
            && t.valid_rows > 0)
            .then_some((base, t.valid_rows * row))
    }

    /// A Local rectangle of equally spaced rows whose elements copy as
    /// bytes (element-width slots, or packed nibbles with even widths):
    /// the per-row path. Returns the row byte span.
    fn uniform_rows(&self, t: &TileInfo) -> Option<u64> {
        let dt = t.data_type;
        let ok = self.runs_apply(t)
            && t.valid_rows > 0
            && if dt.is_four_bit() {
                t.payload.slot() == 0
                    && t.columns.is_multiple_of(2)
                    && t.valid_columns.is_multiple_of(2)
            } else {
                t.payload.slot() == dt.element_bytes() as usize
            };
        ok.then(|| addressing::tile_dense_row_stride_bytes(t.valid_columns, dt))
    }

    /// O(1) preflight of equally spaced rows: every row start aligned and
    /// the highest row inside GM (rows ascend, so the others are too).
    fn uniform_rows_ok(&self, t: &TileInfo, base: u64, stride: u64, span: u64) -> bool {
        let eb = t.data_type.element_bytes() as u64;
        let last = base as u128 + (t.valid_rows.saturating_sub(1)) as u128 * stride as u128;
        base.is_multiple_of(eb)
            && stride.is_multiple_of(eb)
            && last + span as u128 <= self.gm.size() as u128
    }

    /// Access-log entries of a whole Local rectangle (when logging is on).
    fn log_rectangle(&mut self, pe: usize, t: &TileInfo, base: u64, stride: u64, write: bool) {
        if !self.access_logging {
            return;
        }
        for r in 0..t.valid_rows {
            for c in 0..t.valid_columns {
                let a =
                    addressing::tile_memory_strided_byte_address(base, r, c, stride, t.data_type);
                self.log(pe, a, t.data_type, r, c, write, 0);
            }
        }
    }

    /// Access-log entry of the run path (capture is off there).
    pub(crate) fn log_access(
        &mut self,
        pe: usize,
        addr: u64,
        dt: DataType,
        row: u64,
        col: u64,
        write: bool,
    ) {
        self.log(pe, addr, dt, row, col, write, 0);
    }

    /// Preflight of a single-PE rectangle: `Err((fault, addr))` for the
    /// first failing element in row-major order.
    fn preflight_local(&self, t: &TileInfo, base: u64, stride: u64) -> Result<(), (Fault, u64)> {
        if let Some((a0, bytes)) = self.contiguous_block(t, base, stride) {
            let eb = t.data_type.element_bytes() as u64;
            if a0.is_multiple_of(eb) && a0 as u128 + bytes as u128 <= self.gm.size() as u128 {
                return Ok(());
            }
        }
        if let Some(span) = self.uniform_rows(t) {
            if self.uniform_rows_ok(t, base, stride, span) {
                return Ok(());
            }
        }
        if self.runs_apply(t) {
            let runs = Self::runs(t, None, 0);
            if self.runs_preflight_ok(t, &runs, &rows::uniform(base, stride)) {
                return Ok(());
            }
        }
        let dt = t.data_type;
        let eb = dt.element_bytes() as u64;
        for r in 0..t.valid_rows {
            for c in 0..t.valid_columns {
                let a = self.element_address(base, r, c, stride, dt);
                self.probe(a, eb).map_err(|f| (f, a))?;
            }
        }
        Ok(())
    }

    /// `TLOAD(destination, base_address, row_stride_bytes)`, the direct Tile
    /// operation (current PE's fragment). `TileLegality` when the
    /// destination descriptor is not allocated (`TileOperandsLegal_TLOAD`).
    pub fn tload(
        &mut self,
        destination: u32,
        base: u64,
        row_stride_bytes: u64,
    ) -> Result<(), Fault> {
        let pad = self.bundle.pad_value();
        self.tload_with_pad(destination, base, row_stride_bytes, pad)
    }

    pub(crate) fn tload_with_pad(
        &mut self,
        destination: u32,
        base: u64,
        stride: u64,
        pad: PadValue,
    ) -> Result<(), Fault> {
        let d = destination as usize;
        let legal = self.tiles.get(d).is_some_and(|t| {
            t.allocated
                && t.layout != TileLayout::ImplementationDefined
                && (!t.layout.is_cube() || t.cube_descriptor_legal())
        });
        if !legal {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let mut t = std::mem::take(&mut self.tiles[d]);
        let src = self
            .pending_stride_source
            .take()
            .unwrap_or(StrideSource::Encoded);
        self.record_transfer(self.local_agent(), false, &t, base, stride, src, None);
        if let Err((f, a)) = self.preflight_local(&t, base, stride) {
            self.tiles[d] = t;
            return Err(self.raise(f, a));
        }
        let pe = self.local_agent();
        if self.load_rectangle(&mut t, pe, base, stride) {
            // The row path already marked the valid region defined.
            t.contents_defined = true;
            t.defined_valid = t.valid_rows * t.valid_columns;
        } else {
            t.mark_valid_region_defined();
        }
        if t.layout.is_cube() {
            apply_padding(&mut t, pad);
        }
        self.tiles[d] = t;
        Ok(())
    }

    /// Commit half of a Local TLOAD (preflight already passed). True when
    /// the run path ran (it marks the valid region defined itself).
    fn load_rectangle(&mut self, t: &mut TileInfo, pe: usize, base: u64, stride: u64) -> bool {
        let dt = t.data_type;
        if let Some((a0, _)) = self.contiguous_block(t, base, stride) {
            let n = (t.valid_rows * t.columns) as usize;
            self.gm.read_slice(a0, t.payload.slots_mut(0, n));
            t.defined.set_range(0, n);
            self.log_rectangle(pe, t, base, stride, false);
            return true;
        }
        if let Some(span) = self.uniform_rows(t) {
            if self.uniform_rows_ok(t, base, stride, span) {
                let vc = t.valid_columns as usize;
                let (rows, pitch) = (t.valid_rows as usize, row_pitch(t));
                let n = (rows - 1) * t.columns as usize + vc;
                let dst = t.payload.slots_mut(0, n);
                self.gm
                    .read_rows(base, stride, span as usize, rows, dst, pitch);
                if t.columns as usize == vc {
                    t.defined.set_range(0, vc * t.valid_rows as usize);
                } else {
                    for r in 0..t.valid_rows as usize {
                        t.defined.set_range(r * t.columns as usize, vc);
                    }
                }
                self.log_rectangle(pe, t, base, stride, false);
                return true;
            }
        }
        if self.runs_apply(t) {
            let runs = Self::runs(t, None, pe);
            self.runs_load(t, &runs, &rows::uniform(base, stride));
            return true;
        }
        for r in 0..t.valid_rows {
            for c in 0..t.valid_columns {
                let a = self.element_address(base, r, c, stride, dt);
                let (raw, v) = self.load_element(a, dt, c);
                if let Some(i) = t.element_index(r, c) {
                    t.set_element(i, v, true);
                }
                self.log(pe, a, dt, r, c, false, raw);
            }
        }
        false
    }

    /// `LoadTileMemoryElement` at a probed address: (raw bytes, element).
    fn load_element(&self, a: u64, dt: DataType, col: u64) -> (u64, u64) {
        let eb = dt.element_bytes() as usize;
        let mut b = [0u8; 8];
        self.gm.read_slice(a, &mut b[..eb]);
        let raw = u64::from_le_bytes(b);
        (
            raw,
            decode_tile_memory_element_raw(
                raw,
                dt,
                addressing::tile_memory_strided_byte_high_nibble(col, dt),
            ),
        )
    }

    /// `_CurrentMemoryAgent` of Local transfers: the capture agent while
    /// capturing, else the current PE.
    fn local_agent(&self) -> usize {
        self.capture.unwrap_or(self.current_pe)
    }

    /// Records one transfer per PE selected by `mask` for a Shared TLOAD
    /// (`store == false`) or TSTORE of Shared register `id`, each with that
    /// PE's own base and stride.
    fn record_shared_transfers(
        &mut self,
        store: bool,
        t: &TileInfo,
        pe: &PeAddressing,
        mask: u8,
        id: u8,
    ) {
        let src = self
            .pending_stride_source
            .take()
            .unwrap_or(StrideSource::Encoded);
        for agent in (0..PTO_MODEL_MEMORY_AGENTS).filter(|&p| pe_selected(mask, p)) {
            self.record_transfer(
                agent,
                store,
                t,
                pe.base[agent],
                pe.stride[agent],
                src,
                Some(id),
            );
        }
    }

    /// Records one PE's part of an attempted transfer.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_transfer(
        &mut self,
        pe: usize,
        store: bool,
        t: &TileInfo,
        base: u64,
        stride: u64,
        source: StrideSource,
        shared: Option<u8>,
    ) {
        if self.transfer_recorded && shared.is_none() {
            return;
        }
        if self.access_logging {
            self.transfers.push(TransferInfo {
                pe,
                store,
                data_type: t.data_type,
                physical_columns: t.columns,
                valid_rows: t.valid_rows,
                valid_columns: t.valid_columns,
                base,
                row_stride_bytes: stride,
                prefetch: false,
                row_stride_elements: 0,
                stride_source: source,
                shared,
            });
        }
    }

    /// `StoreTileMemoryElement` at a probed address: a nibble store keeps
    /// the sibling nibble; wider stores write the low element bytes.
    /// Returns the stored value (the whole byte for a nibble).
    fn store_element(&mut self, a: u64, dt: DataType, col: u64, value: u64) -> u64 {
        if dt.is_four_bit() {
            let old = self.gm.byte(a);
            let new = if addressing::tile_memory_strided_byte_high_nibble(col, dt) {
                (old & 0x0f) | (((value & 0xf) as u8) << 4)
            } else {
                (old & 0xf0) | ((value & 0xf) as u8)
            };
            self.gm.set_byte(a, new);
            new as u64
        } else {
            let eb = dt.element_bytes() as usize;
            self.gm.write_slice(a, &value.to_le_bytes()[..eb]);
            tile::truncate(value, dt.element_bits())
        }
    }

    /// `TSTORE(base_address, row_stride_bytes, source)`, the direct Tile
    /// operation (current PE's fragment). `TileLegality` when the source is
    /// not allocated or its valid region is not completely defined. Rows
    /// are written in order, so when a zero stride aliases rows the last
    /// row written wins.
    pub fn tstore(&mut self, base: u64, row_stride_bytes: u64, source: u32) -> Result<(), Fault> {
        let s = source as usize;
        let legal = self.tiles.get(s).is_some_and(|t| {
            t.allocated
                && t.contents_defined
                && t.layout != TileLayout::ImplementationDefined
                && (!t.layout.is_cube() || t.cube_descriptor_legal())
        });
        if !legal {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let t = std::mem::take(&mut self.tiles[s]);
        let r = self.tstore_tile(&t, base, row_stride_bytes);
        self.tiles[s] = t;
        r
    }

    fn tstore_tile(&mut self, t: &TileInfo, base: u64, stride: u64) -> Result<(), Fault> {
        let src = self
            .pending_stride_source
            .take()
            .unwrap_or(StrideSource::Encoded);
        self.record_transfer(self.local_agent(), true, t, base, stride, src, None);
        if let Err((f, a)) = self.preflight_local(t, base, stride) {
            return Err(self.raise(f, a));
        }
        let pe = self.local_agent();
        let dt = t.data_type;
        if let Some((a0, _)) = self.contiguous_block(t, base, stride) {
            let n = (t.valid_rows * t.columns) as usize;
            self.gm.write_slice(a0, t.payload.slots(0, n));
            self.log_rectangle(pe, t, base, stride, true);
            return Ok(());
        }
        if let Some(span) = self.uniform_rows(t) {
            if self.uniform_rows_ok(t, base, stride, span) {
                // Rows in order: with a small or zero stride the last row
                // written wins, as in the ASL's row loop.
                let vc = t.valid_columns as usize;
                let (rows, pitch) = (t.valid_rows as usize, row_pitch(t));
                let n = (rows - 1) * t.columns as usize + vc;
                let src = t.payload.slots(0, n);
                self.gm
                    .write_rows(base, stride, span as usize, rows, src, pitch);
                self.log_rectangle(pe, t, base, stride, true);
                return Ok(());
            }
        }
        if self.runs_apply(t) {
            let runs = Self::runs(t, None, pe);
            self.runs_store(t, &runs, &rows::uniform(base, stride), None);
            return Ok(());
        }
        for r in 0..t.valid_rows {
            for c in 0..t.valid_columns {
                let a = self.element_address(base, r, c, stride, dt);
                let v = t.element_index(r, c).map_or(0, |i| t.payload.get(i));
                let stored = self.store_element(a, dt, c, v);
                self.log(pe, a, dt, r, c, true, stored);
            }
        }
        Ok(())
    }

    /// `SharedTileUpdateCompatible`.
    pub(crate) fn shared_tile_update_compatible(&self, id: u8, t: &TileInfo, mask: u8) -> bool {
        if mask == 0 {
            return true;
        }
        if t.layout.is_cube()
            || !tile::shared_tile_capacity_is_legal(t.capacity_bytes)
            || tile::derived_tile_rows(t.capacity_bytes, t.columns, t.data_type) != t.rows
            || t.rows == 0
            || t.valid_rows > t.rows
            || t.valid_columns > t.columns
            || t.rows * t.columns
                > tile::tile_logical_element_capacity(t.capacity_bytes, t.data_type)
        {
            return false;
        }
        let old = &self.shared[id as usize];
        if old.descriptor_valid {
            return mask & !old.allocation_mask & 0xf == 0 && descriptors_compatible(&old.tile, t);
        }
        self.core_tile_capacity_in_use() + tile::tile_core_allocation_bytes(mask, t.capacity_bytes)
            <= tile::PTO_TILE_CAPACITY_BYTES
    }

    /// `AtomicUpdateSharedTileWithPublication`: one record assignment is the
    /// commit point; a fresh record takes the whole tile, an existing one
    /// takes the defined elements of the selected quarters.
    pub(crate) fn atomic_update_shared_tile(
        &mut self,
        id: u8,
        mut t: TileInfo,
        mask: u8,
        publish: bool,
    ) -> bool {
        if mask == 0 {
            return true;
        }
        if !self.shared_tile_update_compatible(id, &t, mask) {
            return false;
        }
        // Nothing can fail past the compatibility check, so the record is
        // updated in place: the single assignment of the ASL.
        let rec = &mut self.shared[id as usize];
        if !rec.descriptor_valid {
            self.shared_charge += tile::tile_core_allocation_bytes(mask, t.capacity_bytes);
            t.contents_defined = true;
            t.defined_valid = t.valid_rows * t.valid_columns;
            *rec = SharedTileInfo {
                descriptor_valid: true,
                allocation_mask: mask,
                initialized_mask: mask,
                published: publish,
                tile: t,
            };
        } else {
            for e in 0..(t.rows * t.columns) {
                let region = tile::shared_tile_element_region(&t, e);
                if pe_selected(mask, region) && t.defined.get(e as usize) {
                    rec.tile
                        .set_element(e as usize, t.payload.get(e as usize), true);
                }
            }
            rec.initialized_mask |= mask;
            rec.tile.contents_defined = rec.initialized_mask == rec.allocation_mask;
            if rec.tile.contents_defined {
                rec.tile.defined_valid = rec.tile.valid_rows * rec.tile.valid_columns;
            }
            rec.published = rec.published || (publish && rec.tile.contents_defined);
        }
        true
    }

    /// `TLOADShared`: each selected PE loads the elements of its capacity
    /// quarter with its own base and stride and the tile's global row;
    /// unselected PEs' quarters are never address-checked.
    #[allow(clippy::too_many_arguments)]
    pub fn tload_shared(
        &mut self,
        id: u8,
        pe: &PeAddressing,
        size_code: u32,
        columns: u64,
        valid_rows: u64,
        valid_columns: u64,
        dt: DataType,
        layout: TileLayout,
        mask: u8,
    ) -> Result<(), Fault> {
        if mask == 0 {
            return Ok(());
        }
        let capacity = forms::tile_size_code_bytes(size_code).unwrap_or(0);
        let derived = tile::derived_tile_rows(capacity, columns, dt);
        if capacity == 0
            || valid_rows > derived
            || !tile::tile_descriptor_shape_legal(capacity, columns, valid_rows, valid_columns, dt)
            || derived * columns > tile::tile_logical_element_capacity(capacity, dt)
        {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let mut t = TileInfo::allocated(
            capacity,
            derived,
            columns,
            valid_rows,
            valid_columns,
            dt,
            layout,
            TileLocation::Any,
        );
        if !self.shared_tile_update_compatible(id, &t, mask) {
            self.set_fault(Fault::TileLegality, None);
            return Err(Fault::TileLegality);
        }
        let eb = dt.element_bytes() as u64;
        self.record_shared_transfers(false, &t, pe, mask, id);
        if self.runs_apply(&t) {
            let runs = Self::runs(&t, Some(mask), 0);
            if self.runs_preflight_ok(&t, &runs, pe) {
                self.runs_load(&mut t, &runs, pe);
                if mask == 0b1111 {
                    t.contents_defined = true;
                    t.defined_valid = t.valid_rows * t.valid_columns;
                }
                let ok = self.atomic_update_shared_tile(id, t, mask, false);
                debug_assert!(ok, "compatibility was checked before the preflight");
                return Ok(());
            }
        }
        for r in 0..valid_rows {
            for c in 0..valid_columns {
                let Some(e) = t.element_index(r, c) else {
                    continue;
                };
                let agent = tile::shared_tile_element_region(&t, e as u64);
                if pe_selected(mask, agent) {
                    let a = self.element_address(pe.base[agent], r, c, pe.stride[agent], dt);
                    if let Err(f) = self.probe(a, eb) {
                        return Err(self.raise(f, a));
                    }
                }
            }
        }
        for r in 0..valid_rows {
            for c in 0..valid_columns {
                let Some(e) = t.element_index(r, c) else {
                    continue;
                };
                let agent = tile::shared_tile_element_region(&t, e as u64);
                if pe_selected(mask, agent) {
                    let a = self.element_address(pe.base[agent], r, c, pe.stride[agent], dt);
                    let (raw, v) = self.load_element(a, dt, c);
                    t.set_element(e, v, true);
                    self.log(agent, a, dt, r, c, false, raw);
                }
            }
        }
        if mask == 0b1111 {
            t.contents_defined = true;
            t.defined_valid = t.valid_rows * t.valid_columns;
        }
        let ok = self.atomic_update_shared_tile(id, t, mask, false);
        debug_assert!(ok, "compatibility was checked before the preflight");
        Ok(())
    }

    /// `TSTOREShared`: each selected PE stores the elements of its capacity
    /// quarter of `tile` (the read-schema view of Shared register `id`)
    /// with its own base and stride. Element values are `ReadSharedTileWord`.
    pub fn tstore_shared(
        &mut self,
        pe: &PeAddressing,
        id: u8,
        t: &TileInfo,
        mask: u8,
    ) -> Result<(), Fault> {
        if mask == 0 {
            return Ok(());
        }
        let dt = t.data_type;
        let eb = dt.element_bytes() as u64;
        self.record_shared_transfers(true, t, pe, mask, id);
        if self.runs_apply(t) {
            let runs = Self::runs(t, Some(mask), 0);
            if self.runs_preflight_ok(t, &runs, pe) {
                let read = move |m: &Machine, p: usize| m.shared_word(id, p as u64).unwrap_or(0);
                self.runs_store(t, &runs, pe, Some(&read));
                return Ok(());
            }
        }
        for r in 0..t.valid_rows {
            for c in 0..t.valid_columns {
                let Some(e) = t.element_index(r, c) else {
                    continue;
                };
                let agent = tile::shared_tile_element_region(t, e as u64);
                if pe_selected(mask, agent) {
                    let a = self.element_address(pe.base[agent], r, c, pe.stride[agent], dt);
                    if let Err(f) = self.probe(a, eb) {
                        return Err(self.raise(f, a));
                    }
                }
            }
        }
        for r in 0..t.valid_rows {
            for c in 0..t.valid_columns {
                let Some(e) = t.element_index(r, c) else {
                    continue;
                };
                let agent = tile::shared_tile_element_region(t, e as u64);
                if pe_selected(mask, agent) {
                    let a = self.element_address(pe.base[agent], r, c, pe.stride[agent], dt);
                    let v = self.shared_word(id, e as u64).unwrap_or(0);
                    let stored = self.store_element(a, dt, c, v);
                    self.log(agent, a, dt, r, c, true, stored);
                }
            }
        }
        Ok(())
    }
}

/// Payload bytes from one row's start to the next's, for a tile whose
/// slots are element-width (or packed nibbles with an even column count).
fn row_pitch(t: &TileInfo) -> usize {
    addressing::tile_dense_row_stride_bytes(t.columns, t.data_type) as usize
}

/// `SharedTileDescriptorsCompatible` (non-CUBE descriptors).
pub(crate) fn descriptors_compatible(l: &TileInfo, r: &TileInfo) -> bool {
    l.allocated
        && r.allocated
        && !l.layout.is_cube()
        && !r.layout.is_cube()
        && l.capacity_bytes == r.capacity_bytes
        && l.rows == r.rows
        && l.columns == r.columns
        && l.valid_rows == r.valid_rows
        && l.valid_columns == r.valid_columns
        && l.data_type == r.data_type
        && l.layout == r.layout
        && l.location == r.location
}

/// `TileWithPadding`: elements outside the valid region take the pad value;
/// they are defined unless the pad is Null.
pub(crate) fn apply_padding(t: &mut TileInfo, pad: PadValue) {
    let v = tile_pad_value_for_data_type(pad, t.data_type);
    let defined = pad != PadValue::Null;
    for r in 0..t.rows {
        for c in 0..t.columns {
            if r >= t.valid_rows || c >= t.valid_columns {
                if let Some(i) = t.element_index(r, c) {
                    t.set_element(i, v, defined);
                }
            }
        }
    }
}
