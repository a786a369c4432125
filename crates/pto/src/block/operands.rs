//! The operand half of TEPL (element-wise) bundles: the per-operation
//! schema of every TEPL operation (from `forms::TEPL_OPERATIONS`), B.IOR
//! operand packing (which GPR input slot feeds which operand), the value
//! legality checked before the operation runs, and
//! `BundleOperationBindingsComplete`. The element-wise, sorting and
//! quantization engines themselves are not modelled.
//!
//! ASL: `asl/block/model/dispatch/scalar-schema.asl`
//! (`BundleOperationGPRInputCount`, `BundleOperationGPRInputSlot`,
//! `BundleOperationGPRInputSelector`, `BundleOperationGPRBindingValuesLegal`,
//! `BundleOperationScalarBindingSchemaLegal`),
//! `asl/block/model/dispatch/descriptor-legality.asl`
//! (`BundleOperationBindingsComplete`),
//! `asl/block/model/operands/scalar-bindings.asl` (`SetBundleScalarBinding`),
//! `asl/block/operands/B.IOR.asl` (PTO-INST-BLOCK-B-IOR).
//!
//! The rule: the operands an operation has are packed in the architectural
//! order address, scalar0, scalar1, diagonal, flag0; the n-th present one
//! reads B.IOR RegSrc`n`. An operand an operation lacks takes no slot. With
//! B.IOR omitted every selector reads as 0 (GPR 0, the architectural zero),
//! so every operand is zero.

use crate::forms;
use crate::machine::Machine;
use crate::types::DataType;

/// `TileOperandField`, the GPR-fed fields in packing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileOperandField {
    Address,
    Scalar0,
    Scalar1,
    Diagonal,
    Flag0,
}

const PACKING_ORDER: [TileOperandField; 5] = [
    TileOperandField::Address,
    TileOperandField::Scalar0,
    TileOperandField::Scalar1,
    TileOperandField::Diagonal,
    TileOperandField::Flag0,
];

/// A TEPL operation of the catalog ([`forms::TEPL_OPERATIONS`]): its
/// operand schema is what the bundle checks read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeplOperation(&'static forms::TeplOperationRow);

impl TeplOperation {
    /// By the spec's operation name (`TCI`, `TADDS`, `TQUANT`, …).
    pub fn from_name(name: &str) -> Option<TeplOperation> {
        forms::tepl_operation_named(name).map(TeplOperation)
    }

    /// `DecodeTileOperation(TileDecode_TEPL, selector)`; `None` when reserved.
    pub fn from_selector(selector: u32) -> Option<TeplOperation> {
        forms::tepl_operation(selector).map(TeplOperation)
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn selector(self) -> u32 {
        self.0.selector
    }

    /// Local destinations the operation binds (destination0, destination1).
    pub fn destinations(self) -> usize {
        self.0.destinations as usize
    }

    /// Local sources the operation binds (source0..source4).
    pub fn sources(self) -> usize {
        self.0.sources as usize
    }

    /// `TileOperandPresent(operation, field)` for the GPR-fed fields (TCI
    /// takes scalar0 and flag0, TTRI the diagonal and flag0, TSORT and
    /// TMRGSORT flag0, TADDS scalar0, TQUANT scalar0 and scalar1, …).
    pub fn operand_present(self, field: TileOperandField) -> bool {
        let bit = match field {
            TileOperandField::Address => forms::G_ADDRESS,
            TileOperandField::Scalar0 => forms::G_SCALAR0,
            TileOperandField::Scalar1 => forms::G_SCALAR1,
            TileOperandField::Diagonal => forms::G_DIAGONAL,
            TileOperandField::Flag0 => forms::G_FLAG0,
        };
        self.0.gpr_fields & bit != 0
    }

    /// `BundleOperationGPRInputCount`.
    pub fn gpr_input_count(self) -> usize {
        PACKING_ORDER
            .iter()
            .filter(|&&f| self.operand_present(f))
            .count()
    }

    /// `BundleOperationGPRInputSlot`: the B.IOR source slot feeding `field`,
    /// or `None` when the operation has no such operand (the ASL returns
    /// the out-of-range slot 3).
    pub fn gpr_input_slot(self, field: TileOperandField) -> Option<usize> {
        PACKING_ORDER
            .iter()
            .filter(|&&f| self.operand_present(f))
            .position(|&f| f == field)
    }
}

/// The GPR-fed part of `BundleTileInstructionOperands`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TeplOperands {
    pub scalar0: u64,
    pub scalar1: u64,
    pub diagonal: i64,
    pub flag0: bool,
}

impl Machine {
    /// `SetBundleScalarBinding(0, destination, source0, source1, source2, _)`.
    pub fn set_bundle_scalar_binding(
        &mut self,
        destination: u32,
        source0: u32,
        source1: u32,
        source2: u32,
    ) {
        self.bundle.scalar = crate::block::state::ScalarBinding {
            valid: true,
            destination,
            source0,
            source1,
            source2,
        };
    }

    /// `BundleOperationGPRInputSelector(slot)`: 0 when B.IOR is absent.
    fn gpr_input_selector(&self, slot: usize) -> u32 {
        let s = &self.bundle.scalar;
        if !s.valid {
            return 0;
        }
        match slot {
            0 => s.source0,
            1 => s.source1,
            _ => s.source2,
        }
    }

    /// The raw GPR value feeding `field` of `op` (`ReadScalarRegisterOperand`
    /// of the current PE), if the operation has that operand.
    fn gpr_operand(&self, op: TeplOperation, field: TileOperandField) -> Option<u64> {
        op.gpr_input_slot(field)
            .map(|slot| self.read_pe_gpr(self.current_pe, self.gpr_input_selector(slot)))
    }

    /// `BundleTileInstructionOperands` (its GPR-fed fields): scalar0 as
    /// read, diagonal signed, flag0 true for a nonzero flag GPR.
    pub fn bundle_tile_instruction_operands(&self, op: TeplOperation) -> TeplOperands {
        use TileOperandField::*;
        TeplOperands {
            scalar0: self.gpr_operand(op, Scalar0).unwrap_or(0),
            scalar1: self.gpr_operand(op, Scalar1).unwrap_or(0),
            diagonal: self.gpr_operand(op, Diagonal).unwrap_or(0) as i64,
            flag0: self.gpr_operand(op, Flag0).unwrap_or(0) != 0,
        }
    }

    /// `BundleOperationGPRBindingValuesLegal`: true without B.IOR; a flag
    /// must read 0 or 1, a diagonal −65535..=65535 (signed).
    pub fn bundle_operation_gpr_binding_values_legal(&self, op: TeplOperation) -> bool {
        use TileOperandField::*;
        if !self.bundle.scalar.valid {
            return true;
        }
        let flag_ok = self.gpr_operand(op, Flag0).is_none_or(|v| v <= 1);
        let diag_ok = self
            .gpr_operand(op, Diagonal)
            .is_none_or(|v| (-65535..=65535).contains(&(v as i64)));
        flag_ok && diag_ok && self.quantization_operands_legal(op)
    }

    /// The TQUANT/TDEQUANT half of `BundleOperationGPRBindingValuesLegal`:
    /// RegSrc0 a legal scale (`TileQuantizationScaleLegal`) and RegSrc1 a
    /// zero point of the integer side's type (`TileQuantizationZeroPointLegal`:
    /// TQUANT's B.DATR DataType, TDEQUANT's BSTART DataType; S8 or U8 only).
    fn quantization_operands_legal(&self, op: TeplOperation) -> bool {
        let tquant = match op.name() {
            "TQUANT" => true,
            "TDEQUANT" => false,
            _ => return true,
        };
        let pe = self.current_pe;
        let scale = self.read_pe_gpr(pe, self.gpr_input_selector(0));
        let zero_point = self.read_pe_gpr(pe, self.gpr_input_selector(1));
        let b = &self.bundle;
        let code = if tquant {
            b.datr.present.then_some(b.datr.data_type)
        } else {
            b.op.valid.then_some(b.op.data_type)
        };
        tile_quantization_scale_legal(scale)
            && tile_quantization_zero_point_legal(zero_point, code.and_then(DataType::from_code))
    }

    /// `BundleOperationScalarBindingSchemaLegal`: no scalar destination
    /// (RegDst encodes zero) and every source slot past the operation's
    /// input count encodes zero; true without B.IOR.
    pub fn bundle_operation_scalar_binding_schema_legal(&self, op: TeplOperation) -> bool {
        let s = &self.bundle.scalar;
        if !s.valid {
            return true;
        }
        let sources = [s.source0, s.source1, s.source2];
        s.destination == 0
            && sources[op.gpr_input_count().min(3)..]
                .iter()
                .all(|&r| r == 0)
    }

    /// `BundleOperationBindingsComplete` for a TEPL operation: the valid
    /// B.IOT bindings carry exactly the operation's Local destinations and
    /// sources, a non-empty binding stream ends with its `last` binding,
    /// and the B.IOR fits the operation's GPR schema. (The B.FPATR terms
    /// belong to matrix operations; a TEPL bundle has no B.FPATR.)
    pub fn bundle_operation_bindings_complete(&self, op: TeplOperation) -> bool {
        let bindings = self.bundle.tile_bindings.iter().filter(|b| b.valid);
        let (mut count, mut destinations, mut sources) = (0, 0, 0);
        for b in bindings.clone() {
            count += 1;
            destinations += b.destination_valid as usize;
            sources += b.source0_valid as usize + b.source1_valid as usize;
        }
        // BundleTileBindingStreamTerminated: one `last`, on the final binding.
        let terminated = {
            let mut seen_last = false;
            let mut ok = true;
            for b in bindings {
                if seen_last {
                    ok = false;
                }
                seen_last |= b.last;
            }
            ok && seen_last
        };
        destinations == op.destinations()
            && sources == op.sources()
            && (count == 0 || terminated)
            && self.bundle_operation_scalar_binding_schema_legal(op)
    }
}

/// `TileQuantizationScaleLegal`: the word's FP32 value is positive, finite
/// and nonzero (subnormals are legal).
pub fn tile_quantization_scale_legal(scale: u64) -> bool {
    let bits = scale as u32;
    let exponent = (bits >> 23) & 0xff;
    bits >> 31 == 0 && exponent != 0xff && bits != 0
}

/// `TileQuantizationZeroPointLegal`: the type is S8 or U8 (`None`, a
/// non-concrete code, is the ASL's FP64 stand-in and illegal) and the word
/// is already that type's normalized integer.
pub fn tile_quantization_zero_point_legal(zero_point: u64, data_type: Option<DataType>) -> bool {
    match data_type {
        Some(DataType::S8) => zero_point as u8 as i8 as i64 as u64 == zero_point,
        Some(DataType::U8) => zero_point <= 0xff,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(name: &str) -> TeplOperation {
        TeplOperation::from_name(name).unwrap()
    }

    #[test]
    fn operands_pack_in_architectural_order_skipping_absent_ones() {
        use TileOperandField::*;
        assert_eq!(op("TCI").gpr_input_slot(Scalar0), Some(0));
        assert_eq!(op("TCI").gpr_input_slot(Flag0), Some(1));
        assert_eq!(op("TTRI").gpr_input_slot(Diagonal), Some(0));
        assert_eq!(op("TTRI").gpr_input_slot(Flag0), Some(1));
        assert_eq!(op("TSORT").gpr_input_slot(Flag0), Some(0));
        assert_eq!(op("TSORT").gpr_input_slot(Scalar0), None);
        assert_eq!(op("TMRGSORT").gpr_input_count(), 1);
        assert_eq!(op("TQUANT").gpr_input_slot(Scalar1), Some(1));
        assert_eq!(op("TADDS").gpr_input_count(), 1);
        assert_eq!(op("TADD").gpr_input_count(), 0);
    }

    #[test]
    fn quantization_scale_is_a_positive_finite_nonzero_fp32() {
        assert!(tile_quantization_scale_legal(0x3f80_0000)); // 1.0
        assert!(tile_quantization_scale_legal(1)); // smallest subnormal
        assert!(!tile_quantization_scale_legal(0));
        assert!(!tile_quantization_scale_legal(0xbf80_0000)); // -1.0
        assert!(!tile_quantization_scale_legal(0x7f80_0000)); // +inf
        assert!(!tile_quantization_scale_legal(0x7fc0_0000)); // NaN
    }

    #[test]
    fn quantization_zero_point_is_a_normalized_s8_or_u8() {
        use DataType::*;
        assert!(tile_quantization_zero_point_legal(0xff, Some(U8)));
        assert!(!tile_quantization_zero_point_legal(0x100, Some(U8)));
        assert!(tile_quantization_zero_point_legal(u64::MAX, Some(S8))); // -1
        assert!(!tile_quantization_zero_point_legal(0xff, Some(S8)));
        assert!(tile_quantization_zero_point_legal(0x7f, Some(S8)));
        assert!(!tile_quantization_zero_point_legal(0, Some(S16)));
        assert!(!tile_quantization_zero_point_legal(0, None));
    }

    #[test]
    fn tquant_values_are_checked_only_for_tquant() {
        let mut m = Machine::new(4096);
        m.write_pe_gpr(0, 5, 0x3f80_0000);
        m.set_bundle_scalar_binding(0, 5, 6, 0);
        // No B.DATR: TQUANT's zero-point type is missing, so illegal.
        assert!(!m.bundle_operation_gpr_binding_values_legal(op("TQUANT")));
        assert!(m.bundle_operation_gpr_binding_values_legal(op("TADDS")));
        // TDEQUANT takes BSTART's DataType: U8 with zero point 0 and scale 1.0.
        m.bundle.op.valid = true;
        m.bundle.op.data_type = DataType::U8.code();
        assert!(m.bundle_operation_gpr_binding_values_legal(op("TDEQUANT")));
        m.write_pe_gpr(0, 5, 0);
        assert!(
            !m.bundle_operation_gpr_binding_values_legal(op("TDEQUANT")),
            "zero scale"
        );
    }

    #[test]
    fn selectors_name_the_catalog_operations() {
        assert_eq!(
            TeplOperation::from_selector(0x020).map(|o| o.name()),
            Some("TADDS")
        );
        assert_eq!(
            TeplOperation::from_selector(0x06a).map(|o| o.name()),
            Some("TQUANT")
        );
        assert_eq!(TeplOperation::from_selector(0x005), None);
        assert_eq!(TeplOperation::from_selector(0x07f), None);
    }
}
