//! B.IOR operand packing for the TEPL operations the B.IOR AVS points name
//! (TCI, TTRI, TSORT, TMRGSORT): which GPR input slot feeds which operand,
//! and the value legality checked before the operation runs. The element-
//! wise and sorting engines themselves are not modelled.
//!
//! ASL: `asl/block/model/dispatch/scalar-schema.asl`
//! (`BundleOperationGPRInputCount`, `BundleOperationGPRInputSlot`,
//! `BundleOperationGPRInputSelector`, `BundleOperationGPRBindingValuesLegal`),
//! `asl/block/model/operands/scalar-bindings.asl` (`SetBundleScalarBinding`),
//! `asl/block/operands/B.IOR.asl` (PTO-INST-BLOCK-B-IOR).
//!
//! The rule: the operands an operation has are packed in the architectural
//! order address, scalar0, scalar1, diagonal, flag0; the n-th present one
//! reads B.IOR RegSrc`n`. An operand an operation lacks takes no slot. With
//! B.IOR omitted every selector reads as 0 (GPR 0, the architectural zero),
//! so every operand is zero.

use crate::machine::Machine;

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

/// The TEPL operations whose B.IOR packing the model knows (TEPL decode
/// codes 0x066, 0x067, 0x06c, 0x06d).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeplOperation {
    Tci,
    Ttri,
    Tsort,
    Tmrgsort,
}

impl TeplOperation {
    /// By the spec's operation name (`TCI`, `TTRI`, `TSORT`, `TMRGSORT`).
    pub fn from_name(name: &str) -> Option<TeplOperation> {
        Some(match name {
            "TCI" => TeplOperation::Tci,
            "TTRI" => TeplOperation::Ttri,
            "TSORT" => TeplOperation::Tsort,
            "TMRGSORT" => TeplOperation::Tmrgsort,
            _ => return None,
        })
    }

    /// `TileOperandPresent(operation, field)` for the GPR-fed fields: TCI
    /// takes scalar0 (the start value) and flag0, TTRI the diagonal and
    /// flag0, TSORT and TMRGSORT flag0 only.
    pub fn operand_present(self, field: TileOperandField) -> bool {
        use TileOperandField::*;
        match self {
            TeplOperation::Tci => matches!(field, Scalar0 | Flag0),
            TeplOperation::Ttri => matches!(field, Diagonal | Flag0),
            TeplOperation::Tsort | TeplOperation::Tmrgsort => field == Flag0,
        }
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
        self.bundle.scalar = crate::bundle::ScalarBinding {
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
        flag_ok && diag_ok
    }

    /// The B.IOR half of `BundleOperationBindingsComplete` for these
    /// operations: no scalar destination (RegDst encodes zero) and every
    /// source slot past the operation's input count encodes zero.
    pub fn bundle_operation_scalar_bindings_complete(&self, op: TeplOperation) -> bool {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_pack_in_architectural_order_skipping_absent_ones() {
        use TileOperandField::*;
        assert_eq!(TeplOperation::Tci.gpr_input_slot(Scalar0), Some(0));
        assert_eq!(TeplOperation::Tci.gpr_input_slot(Flag0), Some(1));
        assert_eq!(TeplOperation::Ttri.gpr_input_slot(Diagonal), Some(0));
        assert_eq!(TeplOperation::Ttri.gpr_input_slot(Flag0), Some(1));
        assert_eq!(TeplOperation::Tsort.gpr_input_slot(Flag0), Some(0));
        assert_eq!(TeplOperation::Tsort.gpr_input_slot(Scalar0), None);
        assert_eq!(TeplOperation::Tmrgsort.gpr_input_count(), 1);
    }
}
