//! TPREFETCH: the other side of ADR 0074's boundary. Its row stride counts
//! logical **elements**, not bytes, and it changes neither GM nor any tile.
//!
//! ASL: `asl/tile/model/memory/stride.asl` (`TileMemoryStridedIndex`),
//! `asl/tile/model/memory/addressing.asl` (`TileMemoryIndexedAddress`),
//! `asl/tile/model/memory/gather-scatter.asl` (`TPREFETCHCore`,
//! `TPREFETCHAllPEs`), `asl/block/model/dispatch/tlsu-prefetch.asl`
//! (`ExecuteBundleTPREFETCHOperation`, `BundleTPREFETCHDimensionsLegal`).
//!
//! TPREFETCH has no tile binding and no PE mask: all four PEs take part,
//! each with the base and row stride its own GPR file holds (B.IOR RegSrc0 /
//! RegSrc1; omitted B.IOR: base 0, stride = the physical column count in
//! elements). Every element of every PE is probed before the first load is
//! recorded, so a fault leaves no event; the loads then read GM and record
//! one load event per element and nothing else.

use crate::machine::{Machine, StrideSource, TransferInfo, PTO_MODEL_MEMORY_AGENTS};
use crate::tile::PTO_MODEL_TILE_ELEMENTS;
use crate::types::{DataType, Fault};

/// TLSU Function of TPREFETCH.
pub const TPREFETCH_FUNCTION: u32 = 3;

/// `TileMemoryStridedIndex`: `row * row_stride_elements + column`, in
/// logical elements (XLEN wrapping, as `MultiplyWord`).
pub fn tile_memory_strided_index(row: u64, column: u64, row_stride_elements: u64) -> u64 {
    row.wrapping_mul(row_stride_elements).wrapping_add(column)
}

/// `TileMemoryIndexedAddress`: `base + index * element_bytes`, or
/// `base + index / 2` for the packed four-bit types.
pub fn tile_memory_indexed_address(base: u64, index: u64, data_type: DataType) -> u64 {
    if data_type.is_four_bit() {
        base.wrapping_add(index >> 1)
    } else {
        base.wrapping_add(index.wrapping_mul(data_type.element_bytes() as u64))
    }
}

/// The shape of one TPREFETCH: valid columns and rows, physical columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefetchShape {
    pub valid_columns: u64,
    pub valid_rows: u64,
    pub columns: u64,
}

impl Machine {
    /// `TPREFETCHCore`: probes every element of every PE (alignment, then
    /// bounded memory; `Fault_DataAlignment` / `Fault_DataPage` with the
    /// faulting address), then loads each one and records its load event.
    /// GM and tiles never change.
    pub fn tprefetch_core(
        &mut self,
        bases: [u64; PTO_MODEL_MEMORY_AGENTS],
        row_strides_elements: [u64; PTO_MODEL_MEMORY_AGENTS],
        shape: PrefetchShape,
        data_type: DataType,
    ) -> Result<(), Fault> {
        let PrefetchShape {
            valid_columns: vc,
            valid_rows: vr,
            columns,
        } = shape;
        if vc == 0
            || vr == 0
            || vc > columns
            || !columns.is_power_of_two()
            || vr * vc > PTO_MODEL_TILE_ELEMENTS
        {
            return Err(Fault::TileLegality);
        }
        let bytes = data_type.element_bytes() as u64;
        let addr = |pe: usize, r: u64, c: u64| {
            tile_memory_indexed_address(
                bases[pe],
                tile_memory_strided_index(r, c, row_strides_elements[pe]),
                data_type,
            )
        };
        for pe in 0..PTO_MODEL_MEMORY_AGENTS {
            for r in 0..vr {
                for c in 0..vc {
                    let a = addr(pe, r, c);
                    if let Err(f) = self.probe(a, bytes) {
                        self.set_fault(f, Some(a));
                        return Err(f);
                    }
                }
            }
        }
        for pe in 0..PTO_MODEL_MEMORY_AGENTS {
            for r in 0..vr {
                for c in 0..vc {
                    let a = addr(pe, r, c);
                    let v = self.load_unsigned(a, bytes as u32)?;
                    self.log(pe, a, data_type, r, c, false, v);
                }
            }
        }
        Ok(())
    }

    /// `TPREFETCHAllPEs`: one base and element stride for all four PEs.
    pub fn tprefetch_all_pes(
        &mut self,
        base: u64,
        row_stride_elements: u64,
        shape: PrefetchShape,
        data_type: DataType,
    ) -> Result<(), Fault> {
        self.tprefetch_core(
            [base; PTO_MODEL_MEMORY_AGENTS],
            [row_stride_elements; PTO_MODEL_MEMORY_AGENTS],
            shape,
            data_type,
        )
    }

    /// Records the resolved operands of PE `pe` for the reports (the
    /// stride-unit warning reads `row_stride_elements`).
    pub(crate) fn record_prefetch_operands(
        &mut self,
        pe: usize,
        data_type: DataType,
        shape: PrefetchShape,
        base: u64,
        stride_elements: u64,
        source: StrideSource,
    ) {
        if self.access_logging {
            self.transfers.push(TransferInfo {
                pe,
                store: false,
                prefetch: true,
                data_type,
                physical_columns: shape.columns,
                valid_rows: shape.valid_rows,
                valid_columns: shape.valid_columns,
                base,
                row_stride_bytes: 0,
                row_stride_elements: stride_elements,
                stride_source: source,
                shared: None,
            });
        }
    }
}
