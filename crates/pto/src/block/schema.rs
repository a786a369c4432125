//! The bundle's schema and legality checks that several operations share:
//! the effective data type, the B.DATR fields each form allows, the B.IOR
//! scalar-binding schemas, the indexed dimensions, the CUBE transport
//! attributes and PE selection.
//!
//! ASL: `asl/block/model/schema/dimensions.asl`,
//! `asl/block/model/dispatch/scalar-schema.asl`,
//! `asl/block/model/dispatch/destination-shape.asl`.

use super::*;

impl Machine {
    /// `BundleMGATHERDimensionsLegal` (MSCATTER uses it too): LB0 present,
    /// every present dimension 1..=65535, ValidCol <= Col, Col a power of
    /// two, ValidRow * ValidCol within the model's tile elements. Returns
    /// (valid columns, valid rows, columns) with LB1 = 1 and LB2 = LB0 when
    /// omitted.
    pub(super) fn indexed_dimensions(&self) -> Option<(u64, u64, u64)> {
        let b = &self.bundle;
        if !b.dim_present[0]
            || (0..3).any(|i| b.dim_present[i] && !(1..=65535).contains(&b.dims[i]))
        {
            return None;
        }
        let vc = b.dims[0];
        let vr = if b.dim_present[1] { b.dims[1] } else { 1 };
        let columns = if b.dim_present[2] { b.dims[2] } else { vc };
        (vc <= columns
            && columns.is_power_of_two()
            && vr * vc <= crate::tile::PTO_MODEL_TILE_ELEMENTS)
            .then_some((vc, vr, columns))
    }

    /// `SelectedBundleTileDataAttributesLegal` of the indexed and GMOV
    /// schemas: B.DATR may carry Layout (and, for MGATHER only, PadValue);
    /// comparison, rounding, saturation and canonicalization must be zero.
    pub(super) fn datr_legal_for_indexed(&self, pad_allowed: bool) -> bool {
        let d = &self.bundle.datr;
        !d.present
            || (d.comparison_mode == 0
                && d.rounding_mode == 0
                && !d.saturating
                && !d.canonicalize
                && (pad_allowed || d.pad_value == 0)
                && !is_cube_conversion(d.layout))
    }

    /// `BundleOperationGPRBindingValuesLegal` for `B.IOR BaseGPR, zero,
    /// zero, ->zero` (MGATHER, MSCATTER; the B.IOR is required) and `B.IOR
    /// peer_tid` (GMOV; optional).
    pub(super) fn single_gpr_schema_legal(&self, required: bool) -> bool {
        let s = &self.bundle.scalar;
        if !s.valid {
            return !required;
        }
        s.source1 == 0 && s.source2 == 0 && s.destination == 0
    }

    /// `ResolveBundleEffectiveDataType`: a concrete B.DATR type wins over
    /// the BSTART type.
    pub(super) fn effective_data_type(&self) -> Option<DataType> {
        let b = &self.bundle;
        if b.datr.present && b.datr.data_type != DTYPE_NONE {
            if let Some(t) = DataType::from_code(b.datr.data_type) {
                return Some(t);
            }
        }
        DataType::from_code(b.op.data_type)
    }

    /// `TileOperationDATRFieldsLegal` for ordinary (non-CUBE) TLOAD/TSTORE:
    /// only Layout may be nonzero; PadValue belongs to the CUBE conversion
    /// form (handled before this check) and must be zero here.
    pub(super) fn datr_legal_for_tlsu(&self) -> bool {
        let d = &self.bundle.datr;
        !d.present
            || (d.comparison_mode == 0
                && d.rounding_mode == 0
                && !d.saturating
                && !d.canonicalize
                && d.pad_value == 0)
    }

    /// `BundleOperationScalarBindingSchemaLegal` for TLOAD/TSTORE: two GPR
    /// inputs (base, row stride); RegSrc2 and RegDst must encode zero.
    pub(super) fn scalar_schema_legal(&self) -> bool {
        let s = &self.bundle.scalar;
        !s.valid || (s.source2 == 0 && s.destination == 0)
    }

    /// `BundleCubeTransportDataAttributesLegal` on the open bundle: B.DATR
    /// present with DTYPE_NONE, a CUBE conversion layout matching the
    /// direction (ND2* for TLOAD, *2ND for TSTORE) and zero CMode, RMode,
    /// Sat, Canonicalize.
    pub fn bundle_cube_transport_data_attributes_legal(&self) -> bool {
        let b = &self.bundle;
        let d = &b.datr;
        d.present
            && d.data_type == DTYPE_NONE
            && is_cube_conversion(d.layout)
            && d.comparison_mode == 0
            && d.rounding_mode == 0
            && !d.saturating
            && !d.canonicalize
            && b.op.valid
            && !b.op.tepl
            && match b.op.function {
                0 => (21..=23).contains(&d.layout),
                1 => (24..=26).contains(&d.layout),
                _ => false,
            }
    }

    /// Whether PE `pe` takes part in the open bundle's Shared binding.
    pub fn bundle_pe_selected(&self, pe: usize) -> bool {
        let b = &self.bundle;
        b.shared_bindings
            .iter()
            .any(|s| s.valid && pe_selected(s.pe_mask, pe))
            || b.tile_bindings
                .iter()
                .any(|t| t.valid && pe_selected(t.pe_mask, pe))
    }
}
