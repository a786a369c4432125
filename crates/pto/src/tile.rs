//! Local tile registers: descriptors, payload, definedness, capacity.
//!
//! ASL: `asl/tile/model/state/types.asl` (`TileInfo`),
//! `asl/tile/model/state/allocation.asl` (`ConfigureTileForMask`,
//! `ReleaseTile`), `asl/tile/model/state/local-registers.asl`,
//! `asl/arch/features/tile-allocation.asl` (capacity constants).

use crate::aligned::AlignedBytes;
use crate::types::{DataType, TileLayout, TileLocation};

pub mod cube;
pub mod shared;

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
    /// Element values by payload index (`TileLogicalLinearIndex`).
    pub payload: Payload,
    /// Per-element definedness, same indexing as `payload`.
    pub defined: Defined,
    /// `defined_valid_elements`: defined elements inside the valid region.
    pub defined_valid: u64,
    /// `storage_kind == TileStorage_Predicate` (ConfigurePredicateTile).
    pub predicate: bool,
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
            payload: Payload::default(),
            defined: Defined::default(),
            defined_valid: 0,
            predicate: false,
        }
    }
}

/// Per-element definedness bits (`defined_elements` /
/// `packed_defined_elements` of the ASL's TileInfo). Clearing every bit, or
/// setting the whole range, is O(1): the bits are then one uniform value
/// and the word array is only written again when a partial update needs it.
#[derive(Clone, Debug, Default)]
pub struct Defined {
    len: usize,
    words: Vec<u64>,
    /// `Some(v)`: every bit is `v` and `words` is stale.
    uniform: Option<bool>,
}

impl PartialEq for Defined {
    fn eq(&self, other: &Defined) -> bool {
        self.len == other.len && (0..self.len.div_ceil(64)).all(|k| self.word(k) == other.word(k))
    }
}

impl Eq for Defined {}

impl Defined {
    /// `len` bits, all clear.
    pub fn new(len: usize) -> Defined {
        Defined {
            len,
            words: Vec::new(),
            uniform: Some(false),
        }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Word `k` of the bits (bits past `len` clear).
    fn word(&self, k: usize) -> u64 {
        let valid = if (k + 1) * 64 <= self.len {
            u64::MAX
        } else {
            (1u64 << (self.len % 64)) - 1
        };
        match self.uniform {
            Some(true) => valid,
            Some(false) => 0,
            None => self.words[k] & valid,
        }
    }

    /// Writes the uniform value into `words` so single bits can change.
    fn materialize(&mut self) {
        if let Some(v) = self.uniform.take() {
            let n = self.len.div_ceil(64);
            self.words.clear();
            self.words.resize(n, if v { u64::MAX } else { 0 });
        }
    }

    /// Bit `i` (false past the end).
    pub fn get(&self, i: usize) -> bool {
        i < self.len
            && match self.uniform {
                Some(v) => v,
                None => self.words[i / 64] >> (i % 64) & 1 == 1,
            }
    }

    /// Sets bit `i` to `v`.
    pub fn set(&mut self, i: usize, v: bool) {
        if i < self.len && self.uniform != Some(v) {
            self.materialize();
            if v {
                self.words[i / 64] |= 1 << (i % 64);
            } else {
                self.words[i / 64] &= !(1 << (i % 64));
            }
        }
    }

    /// Sets bits `start..start + n`.
    pub fn set_range(&mut self, start: usize, n: usize) {
        let end = start.saturating_add(n).min(self.len);
        if start >= end || self.uniform == Some(true) {
            return;
        }
        if start == 0 && end == self.len {
            self.uniform = Some(true);
            return;
        }
        self.materialize();
        let (w0, w1) = (start / 64, (end - 1) / 64);
        let head = u64::MAX << (start % 64);
        let tail = u64::MAX >> (63 - (end - 1) % 64);
        if w0 == w1 {
            self.words[w0] |= head & tail;
        } else {
            self.words[w0] |= head;
            self.words[w0 + 1..w1].fill(u64::MAX);
            self.words[w1] |= tail;
        }
    }

    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.uniform = Some(false);
    }
}

/// Tile payload storage: `len` element slots of `slot` bytes, little-endian.
/// Elements are held at their own width (one byte per four-bit element), so
/// dense rows move as slice copies. Tiles outside the packed-carrier
/// representation (`TileUsesPackedCarrierRepresentation`) have the ASL's
/// word payload: sign-extending types use 8-byte slots from the start, and
/// any other such tile switches to 8-byte slots when a value wider than its
/// element is written, so every word reads back exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Payload {
    /// Bytes per slot; 0 = packed nibbles, two per byte, low nibble first.
    slot: usize,
    len: usize,
    /// Cache-line aligned, so rows copy to and from GM in whole lines.
    bytes: AlignedBytes,
}

impl Payload {
    /// `len` zeroed slots of `slot` (1, 2, 4 or 8) bytes, or with `slot` 0
    /// packed nibbles (the GM layout of a four-bit row).
    pub fn new(len: usize, slot: usize) -> Payload {
        let nbytes = if slot == 0 {
            len.div_ceil(2)
        } else {
            len * slot
        };
        Payload {
            slot,
            len,
            bytes: AlignedBytes::zeroed(nbytes),
        }
    }

    /// Number of element slots.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes per slot (0 for packed nibbles).
    pub fn slot(&self) -> usize {
        self.slot
    }

    /// Value of slot `i`, zero-extended.
    pub fn get(&self, i: usize) -> u64 {
        let s = self.slot;
        if s == 0 {
            return ((self.bytes[i / 2] >> (4 * (i & 1))) & 0xf) as u64;
        }
        let b = &self.bytes[i * s..i * s + s];
        match s {
            1 => b[0] as u64,
            2 => u16::from_le_bytes([b[0], b[1]]) as u64,
            4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
            _ => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        }
    }

    /// Sets slot `i` to the low `slot` bytes (or nibble) of `v`.
    pub fn set(&mut self, i: usize, v: u64) {
        match self.slot {
            0 => {
                let sh = 4 * (i & 1);
                let b = &mut self.bytes[i / 2];
                *b = (*b & !(0xf << sh)) | (((v & 0xf) as u8) << sh);
            }
            1 => self.bytes[i] = v as u8,
            2 => self.bytes[i * 2..i * 2 + 2].copy_from_slice(&(v as u16).to_le_bytes()),
            4 => self.bytes[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_le_bytes()),
            _ => self.bytes[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes()),
        }
    }

    /// Re-encodes every slot as an 8-byte word (zero-extending).
    pub fn widen_to_words(&mut self) {
        if self.slot == 8 {
            return;
        }
        let n = self.len();
        let mut w = Payload::new(n, 8);
        for i in 0..n {
            w.set(i, self.get(i));
        }
        *self = w;
    }

    /// Raw bytes of slots `start..start + n` (whole-byte slots), or of the
    /// nibble pairs `start..start + n` (`start` and `n` even) when packed.
    pub fn slots(&self, start: usize, n: usize) -> &[u8] {
        let (a, b) = self.byte_range(start, n);
        &self.bytes[a..b]
    }

    /// Mutable [`Payload::slots`].
    pub fn slots_mut(&mut self, start: usize, n: usize) -> &mut [u8] {
        let (a, b) = self.byte_range(start, n);
        &mut self.bytes[a..b]
    }

    fn byte_range(&self, start: usize, n: usize) -> (usize, usize) {
        if self.slot == 0 {
            debug_assert!(
                start.is_multiple_of(2) && n.is_multiple_of(2),
                "nibble slices are whole bytes"
            );
            (start / 2, (start + n) / 2)
        } else {
            (start * self.slot, (start + n) * self.slot)
        }
    }
}

impl TileInfo {
    /// `TileLogicalLinearIndex`: payload index of (row, col), if inside the
    /// physical shape. RowMajor, ColumnMajor, ZN and NZ follow
    /// `TilePackedLinearIndex` (asl/tile/model/definedness/packed-boundary.asl);
    /// CUBE tiles use `TileCubePayloadIndex` (128-byte cells).
    pub fn element_index(&self, row: u64, col: u64) -> Option<usize> {
        if row >= self.rows || col >= self.columns {
            return None;
        }
        let idx = match self.layout {
            TileLayout::CubeM16 | TileLayout::CubeM32 | TileLayout::CubeN8 => {
                cube::tile_cube_payload_index(
                    self.layout,
                    self.data_type,
                    self.valid_rows,
                    self.valid_columns,
                    row,
                    col,
                )
            }
            TileLayout::ColumnMajor => col * self.rows + row,
            TileLayout::ZN | TileLayout::NZ => {
                let inner = 256 / self.data_type.element_bits() as u64;
                let block_rows = self.rows / 16;
                let block_columns = self.columns / inner;
                let (br, bc) = (row / 16, col / inner);
                let (ir, ic) = (row % 16, col % inner);
                let block_elements = 16 * inner;
                if self.layout == TileLayout::ZN {
                    (br * block_columns + bc) * block_elements + ic * 16 + ir
                } else {
                    (bc * block_rows + br) * block_elements + ir * inner + ic
                }
            }
            _ => row * self.columns + col,
        };
        if idx < self.rows * self.columns {
            Some(idx as usize)
        } else {
            None
        }
    }

    /// `TileCubeDescriptorLegal` (asl/tile/model/legality/descriptor-shape.asl):
    /// a Matrix-located CUBE descriptor whose storage shape is the derived one.
    pub fn cube_descriptor_legal(&self) -> bool {
        self.allocated
            && self.location == TileLocation::Matrix
            && cube::tile_cube_descriptor_shape_legal(
                self.capacity_bytes,
                self.valid_rows,
                self.valid_columns,
                self.data_type,
                self.layout,
            )
            && self.rows
                == cube::tile_cube_storage_rows(self.layout, self.valid_rows, self.data_type)
            && self.columns
                == cube::tile_cube_storage_columns(self.layout, self.valid_columns, self.data_type)
    }

    /// `TileUsesPackedCarrierRepresentation`: packed four-bit or larger than
    /// the model's word payload; such elements are held at their width
    /// (zero-extended on read), others as full words.
    pub fn uses_packed_carrier(&self) -> bool {
        !self.layout.is_cube()
            && (self.data_type.is_four_bit() || self.rows * self.columns > PTO_MODEL_TILE_ELEMENTS)
    }

    /// `TileInfoWithLogicalElementAndDefined` on payload index `idx`.
    pub fn set_element(&mut self, idx: usize, value: u64, defined: bool) {
        let v = if self.uses_packed_carrier() {
            truncate(value, self.data_type.element_bits())
        } else {
            // Word payload: a value wider than the element keeps all its
            // bits (the narrow slot is only a representation).
            if self.payload.slot() < 8 && truncate(value, 8 * self.payload.slot() as u32) != value {
                self.payload.widen_to_words();
            }
            value
        };
        self.payload.set(idx, v);
        self.defined.set(idx, defined);
    }

    /// `defined_valid_elements`: defined elements inside the valid region.
    pub fn defined_valid_elements(&self) -> u64 {
        self.defined_valid
    }

    /// `TileWithValidRegionDefined`.
    pub fn mark_valid_region_defined(&mut self) {
        for r in 0..self.valid_rows {
            for c in 0..self.valid_columns {
                if let Some(i) = self.element_index(r, c) {
                    let v = self.payload.get(i);
                    self.set_element(i, v, true);
                }
            }
        }
        self.contents_defined = true;
        self.defined_valid = self.valid_rows * self.valid_columns;
    }

    /// `allocated`, reusing `old`'s payload and definedness buffers when they
    /// have the right size (the ASL's payload array of a register persists
    /// across release and allocation; only definedness is reset).
    #[allow(clippy::too_many_arguments)]
    pub fn allocated_from(
        old: &mut TileInfo,
        capacity_bytes: u64,
        rows: u64,
        columns: u64,
        valid_rows: u64,
        valid_columns: u64,
        data_type: DataType,
        layout: TileLayout,
        location: TileLocation,
    ) -> TileInfo {
        let mut payload = std::mem::take(&mut old.payload);
        let mut defined = std::mem::take(&mut old.defined);
        let n = (rows * columns) as usize;
        let slot = Self::slot_for(rows, columns, data_type, layout);
        if payload.len() != n || payload.slot() != slot {
            payload = Payload::new(n, slot);
        }
        if defined.len() == n {
            defined.clear_all();
        } else {
            defined = Defined::new(n);
        }
        TileInfo {
            allocated: true,
            contents_defined: false,
            capacity_bytes,
            rows,
            columns,
            valid_rows,
            valid_columns,
            data_type,
            layout,
            location,
            payload,
            defined,
            defined_valid: 0,
            predicate: false,
        }
    }

    /// Payload slot bytes: the element width, except for word-payload tiles
    /// of sign-extending types (a loaded S8/S16/S32 is a full word). A word
    /// payload widens itself to 8-byte slots when a wider value is written.
    fn slot_for(rows: u64, columns: u64, data_type: DataType, layout: TileLayout) -> usize {
        let carrier = !layout.is_cube()
            && (data_type.is_four_bit() || rows * columns > PTO_MODEL_TILE_ELEMENTS);
        if data_type.is_four_bit() {
            0
        } else if carrier || !data_type.sign_extends_on_load() {
            data_type.element_bytes() as usize
        } else {
            8
        }
    }

    /// A fresh allocated descriptor with an undefined payload.
    #[allow(clippy::too_many_arguments)]
    pub fn allocated(
        capacity_bytes: u64,
        rows: u64,
        columns: u64,
        valid_rows: u64,
        valid_columns: u64,
        data_type: DataType,
        layout: TileLayout,
        location: TileLocation,
    ) -> TileInfo {
        // A released descriptor has no buffers to reuse.
        Self::allocated_from(
            &mut TileInfo::default(),
            capacity_bytes,
            rows,
            columns,
            valid_rows,
            valid_columns,
            data_type,
            layout,
            location,
        )
    }
}

/// Keeps the low `bits` bits of `value`.
pub fn truncate(value: u64, bits: u32) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// `PTO_TILE_CELL_BYTES`.
pub const PTO_TILE_CELL_BYTES: u64 = 128;
/// `PTO_SHARED_TILE_MAX_ALLOCATION_BYTES`.
pub const PTO_SHARED_TILE_MAX_ALLOCATION_BYTES: u64 = 262_144;

/// `TileCapacityIsLegal` (asl/tile/model/state/descriptors.asl): a multiple
/// of the 128-byte cell up to 64 KiB and the capacity limit.
pub fn tile_capacity_is_legal(capacity_bytes: u64) -> bool {
    capacity_bytes >= PTO_TILE_CELL_BYTES
        && capacity_bytes.is_multiple_of(PTO_TILE_CELL_BYTES)
        && capacity_bytes <= PTO_TILE_MAX_ALLOCATION_BYTES
        && capacity_bytes <= PTO_TILE_CAPACITY_BYTES
}

/// `SharedTileCapacityIsLegal`: as Local, up to 256 KiB.
pub fn shared_tile_capacity_is_legal(capacity_bytes: u64) -> bool {
    capacity_bytes >= PTO_TILE_CELL_BYTES
        && capacity_bytes.is_multiple_of(PTO_TILE_CELL_BYTES)
        && capacity_bytes <= PTO_SHARED_TILE_MAX_ALLOCATION_BYTES
        && capacity_bytes <= PTO_TILE_CAPACITY_BYTES
}

/// `TileLogicalElementCapacity`: elements that fit in `capacity_bytes`.
pub fn tile_logical_element_capacity(capacity_bytes: u64, data_type: DataType) -> u64 {
    capacity_bytes * 8 / data_type.element_bits() as u64
}

/// `DerivedTileRows` (asl/tile/model/shape/rows-columns.asl): physical rows
/// of a `columns`-wide tile filling `capacity_bytes`; 0 when no legal 16-bit
/// row count exists (columns not a power of two, rows not exact).
pub fn derived_tile_rows(capacity_bytes: u64, columns: u64, data_type: DataType) -> u64 {
    if capacity_bytes == 0 || columns == 0 || columns > 65535 || !columns.is_power_of_two() {
        return 0;
    }
    let capacity_bits = capacity_bytes * 8;
    let row_bits = columns * data_type.element_bits() as u64;
    if !capacity_bits.is_multiple_of(row_bits) {
        return 0;
    }
    let rows = capacity_bits / row_bits;
    if rows == 0 || rows > 65535 {
        0
    } else {
        rows
    }
}

/// `TileDescriptorShapeLegal` (asl/tile/model/shape/valid-region.asl).
pub fn tile_descriptor_shape_legal(
    capacity_bytes: u64,
    columns: u64,
    valid_rows: u64,
    valid_columns: u64,
    data_type: DataType,
) -> bool {
    let rows = derived_tile_rows(capacity_bytes, columns, data_type);
    rows != 0
        && valid_rows <= rows
        && valid_columns <= columns
        && valid_rows * valid_columns <= tile_logical_element_capacity(capacity_bytes, data_type)
}

/// `MinimumTileCapacityBytesForShape`: smallest size code's bytes that can
/// represent the shape; 0 when none can.
pub fn minimum_tile_capacity_bytes_for_shape(
    columns: u64,
    valid_rows: u64,
    valid_columns: u64,
    data_type: DataType,
) -> u64 {
    (1..=12u32)
        .map(|c| 64u64 << c)
        .find(|&cap| {
            tile_descriptor_shape_legal(cap, columns, valid_rows, valid_columns, data_type)
        })
        .unwrap_or(0)
}

/// `SharedTileElementRegion`: the PE whose capacity quarter holds `element`.
pub fn shared_tile_element_region(tile: &TileInfo, element: u64) -> usize {
    let byte_offset = element * tile.data_type.element_bits() as u64 / 8;
    if tile.capacity_bytes == 0 {
        return 0;
    }
    ((byte_offset * 4 / tile.capacity_bytes) as usize).min(3)
}

/// `TileCoreAllocationBytes`: a tile allocated for `mask` PEs charges its
/// capacity once per selected PE.
pub fn tile_core_allocation_bytes(mask: u8, capacity_bytes: u64) -> u64 {
    (mask & 0xf).count_ones() as u64 * capacity_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_set_range_sets_exactly_the_range() {
        for (start, n) in [
            (0, 0),
            (0, 1),
            (3, 61),
            (5, 64),
            (63, 2),
            (64, 64),
            (10, 200),
            (127, 1),
        ] {
            let mut d = Defined::new(300);
            d.set_range(start, n);
            for i in 0..300 {
                assert_eq!(
                    d.get(i),
                    i >= start && i < start + n,
                    "start {start} n {n} bit {i}"
                );
            }
        }
        let mut d = Defined::new(70);
        d.set_range(60, 100);
        assert!(d.get(69) && !d.get(70) && !d.get(59));
    }

    /// The O(1) uniform states (all clear, all set) read, compare and
    /// change exactly like the bit array they stand for, including after
    /// a buffer is reused at another length.
    #[test]
    fn defined_uniform_states_behave_as_bits() {
        for len in [1usize, 63, 64, 65, 300] {
            let mut d = Defined::new(len);
            let mut bits = Defined::new(len);
            bits.materialize();
            assert_eq!(d, bits, "fresh, len {len}");
            d.set_range(0, len);
            assert!((0..len).all(|i| d.get(i)) && !d.get(len));
            assert_ne!(d, bits);
            for i in 0..len {
                bits.set(i, true);
            }
            assert_eq!(d, bits, "all set, len {len}");
            d.set(len / 2, false);
            assert!(!d.get(len / 2) && (len < 2 || d.get(len - 1)));
            d.set_range(len / 2, 1);
            assert_eq!(d, bits, "cleared then set again, len {len}");
            d.clear_all();
            assert!((0..len).all(|i| !d.get(i)));
            d.set(len - 1, true);
            assert!(d.get(len - 1) && (len < 2 || !d.get(0)));
            d.clear_all();
            d.set_range(1, len);
            assert!(!d.get(0));
            assert!((1..len).all(|i| d.get(i)));
        }
    }
}
