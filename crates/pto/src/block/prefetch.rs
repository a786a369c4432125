//! The TPREFETCH bundle: no tile or Shared binding; every PE takes part
//! with its own B.IOR base and *element* row stride ([`crate::prefetch`]).
//!
//! ASL: `asl/block/model/dispatch/tlsu-prefetch.asl`.

use super::*;

impl Machine {
    /// `ExecuteBundleTPREFETCHOperation`: no tile or Shared binding, every
    /// PE takes part with its own B.IOR base and element row stride.
    pub(super) fn run_tprefetch(&mut self) -> Result<(), Fault> {
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let b = &self.bundle;
        let dims_legal = (0..3).all(|i| !b.dim_present[i] || (1..=65535).contains(&b.dims[i]));
        if b.tile_binding_count() != 0
            || b.shared_binding_count() != 0
            || !self.scalar_schema_legal()
            || !dims_legal
            || !self.datr_legal_for_tlsu()
        {
            return Err(Fault::TileLegality);
        }
        // The destination-free TLOAD defaults: LB0 = 1, LB1 = 1, LB2 = LB0.
        let vc = b.dim_in_range(0).unwrap_or(1);
        let vr = b.dim_in_range(1).unwrap_or(1);
        let columns = b.dim_in_range(2).unwrap_or(vc);
        let shape = crate::prefetch::PrefetchShape {
            valid_columns: vc,
            valid_rows: vr,
            columns,
        };
        let s = b.scalar;
        let mut bases = [0u64; PTO_MODEL_MEMORY_AGENTS];
        let mut strides = [columns; PTO_MODEL_MEMORY_AGENTS];
        let source = if s.valid {
            StrideSource::Encoded
        } else {
            StrideSource::Omitted
        };
        for pe in 0..PTO_MODEL_MEMORY_AGENTS {
            if s.valid {
                bases[pe] = self.read_pe_gpr(pe, s.source0);
                strides[pe] = self.read_pe_gpr(pe, s.source1);
            }
            self.record_prefetch_operands(pe, dt, shape, bases[pe], strides[pe], source);
        }
        self.tprefetch_core(bases, strides, shape, dt)
    }
}
