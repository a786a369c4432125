//! GM byte address of a tile element (ADR 0074, PTO-ARCH-GM-ACCESS-001).
//!
//! ASL: `asl/tile/model/memory/stride.asl` (PTO-TILE-MODEL-MEMORY-STRIDE).
//!
//! Boundary: this byte-row formula is the TLOAD/TSTORE contract only.
//! TPREFETCH keeps its logical-element row stride (`TileMemoryStridedIndex`,
//! asl/block/model/dispatch/tlsu-prefetch.asl), modelled in
//! [`crate::prefetch`], and indexed TLSU (MGATHER/MSCATTER) keeps its byte
//! displacements (`TileMemoryByteDisplacementAddress`,
//! asl/tile/model/memory/addressing.asl), modelled in [`crate::gather`].
//! Neither may call these functions.

use crate::types::DataType;

/// `TileDenseRowStrideBytes`: `ceil(columns * element_bits / 8)`, the
/// default row stride when the complete B.IOR is omitted.
pub fn tile_dense_row_stride_bytes(columns: u64, data_type: DataType) -> u64 {
    if data_type.is_four_bit() {
        columns.div_ceil(2)
    } else {
        columns.wrapping_mul(data_type.element_bytes() as u64)
    }
}

/// `TileMemoryStridedByteAddress`: `base + row * row_stride_bytes +
/// column * element_bytes`, or `+ floor(column / 2)` for packed four-bit
/// types. XLEN (64-bit) wrapping arithmetic, as the ASL's `Word` sums.
pub fn tile_memory_strided_byte_address(
    base_address: u64,
    row: u64,
    column: u64,
    row_stride_bytes: u64,
    data_type: DataType,
) -> u64 {
    let row_base = base_address.wrapping_add(row.wrapping_mul(row_stride_bytes));
    if data_type.is_four_bit() {
        row_base.wrapping_add(column / 2)
    } else {
        row_base.wrapping_add(column.wrapping_mul(data_type.element_bytes() as u64))
    }
}

/// `TileMemoryStridedByteHighNibble`: odd columns of packed four-bit types
/// live in the high nibble.
pub fn tile_memory_strided_byte_high_nibble(column: u64, data_type: DataType) -> bool {
    data_type.is_four_bit() && column % 2 == 1
}

/// The superseded pre-ADR-0074 reading (ADR 0055/0056): the encoded stride
/// counted elements, so the byte pitch was `stride * element_bytes` (half a
/// byte per element for packed types, rounded down). Used only by the
/// `--element-stride` what-if; never the default.
pub fn element_stride_byte_address(
    base_address: u64,
    row: u64,
    column: u64,
    row_stride_elements: u64,
    data_type: DataType,
) -> u64 {
    if data_type.is_four_bit() {
        let idx = row.wrapping_mul(row_stride_elements).wrapping_add(column);
        base_address.wrapping_add(idx / 2)
    } else {
        let idx = row.wrapping_mul(row_stride_elements).wrapping_add(column);
        base_address.wrapping_add(idx.wrapping_mul(data_type.element_bytes() as u64))
    }
}

/// Per-PE base and stride of a transfer, indexed by PE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeAddressing {
    pub base: [u64; crate::machine::PTO_MODEL_MEMORY_AGENTS],
    pub stride: [u64; crate::machine::PTO_MODEL_MEMORY_AGENTS],
}
