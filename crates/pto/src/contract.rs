//! The instruction-contract DataType predicates of the tile families the
//! model does not execute, as pure functions of the DataType: each answers
//! whether a family's contract accepts a type, exactly as the snapshot's
//! closed sets do. Nothing here executes an instruction.
//!
//! ASL: `asl/tile/model/legality/dtype-layout.asl`
//! (`TileVecScalarIntegerDataTypeSupported`, `TileVecArithmeticDataTypeSupported`,
//! `TileFillPadDataTypeSupported`, `TileMove24DataTypeSupported`,
//! `TileCarrierOrMove24BaselineDataTypeSupported`, `TileImg2ColDataTypeSupported`,
//! `TileCarrierOnlyDataTypeSupported`, `TileCarrierOrPackedBaselineDataTypeSupported`),
//! `asl/tile/model/execution/comparison.asl` (`TileSelectDataTypeSupported`),
//! and each family's `InstructionContractDataTypeLegal_<OP>` in
//! `asl/tile/**/<OP>.asl`.

use crate::types::DataType;

/// `TileVecScalarIntegerDataTypeSupported`: the non-packed integer types.
pub fn tile_vec_scalar_integer_data_type_supported(dt: DataType) -> bool {
    use DataType::*;
    matches!(dt, S64 | S32 | S16 | S8 | U64 | U32 | U16 | U8)
}

/// `TileVecArithmeticDataTypeSupported`: FP64, FP32, TF32, HF32, FP16,
/// BF16, E4M3, E5M2 and the non-packed integer types.
pub fn tile_vec_arithmetic_data_type_supported(dt: DataType) -> bool {
    use DataType::*;
    matches!(dt, FP64 | FP32 | TF32 | HF32 | FP16 | BF16 | E4M3 | E5M2)
        || tile_vec_scalar_integer_data_type_supported(dt)
}

/// `TileSelectDataTypeSupported` = `TileVecArithmeticDataTypeSupported`.
pub fn tile_select_data_type_supported(dt: DataType) -> bool {
    tile_vec_arithmetic_data_type_supported(dt)
}

/// `TileFillPadDataTypeSupported` = `TileVecArithmeticDataTypeSupported`.
pub fn tile_fill_pad_data_type_supported(dt: DataType) -> bool {
    tile_vec_arithmetic_data_type_supported(dt)
}

/// `TileMove24DataTypeSupported` (and `TileCarrierOrMove24BaselineDataTypeSupported`):
/// every assigned type but HiF4X2.
pub fn tile_move24_data_type_supported(dt: DataType) -> bool {
    dt != DataType::HiF4X2
}

/// `TileImg2ColDataTypeSupported`: FP32, FP16, BF16, S32, S16, S8, U32, U16, U8.
pub fn tile_img2col_data_type_supported(dt: DataType) -> bool {
    use DataType::*;
    matches!(dt, FP32 | FP16 | BF16 | S32 | S16 | S8 | U32 | U16 | U8)
}

/// `TileCarrierOnlyDataTypeSupported`: non-packed types of at most 4 bytes.
pub fn tile_carrier_only_data_type_supported(dt: DataType) -> bool {
    !dt.is_four_bit() && dt.element_bytes() <= 4
}

/// `InstructionContractDataTypeLegal_<op>(data_type)` for the families whose
/// contract takes a `TileDataType`; `None` for a name this table does not
/// carry. (TPREFETCH, TLOAD and TSTORE take an encoding: see
/// [`instruction_contract_data_type_code_legal`].)
pub fn instruction_contract_data_type_legal(op: &str, dt: DataType) -> Option<bool> {
    Some(match op {
        "TAND" | "TOR" | "TXOR" | "TANDS" | "TORS" | "TXORS" => {
            tile_vec_scalar_integer_data_type_supported(dt)
        }
        "TSEL" | "TSELS" => tile_select_data_type_supported(dt),
        "TROWEXPAND" | "TCOLEXPAND" | "TEXPANDS" => tile_vec_arithmetic_data_type_supported(dt),
        "TFILLPAD" => tile_fill_pad_data_type_supported(dt),
        "TEXTRACT" | "TINSERT" | "TTRANS" => tile_move24_data_type_supported(dt),
        "TIMG2COL" => tile_img2col_data_type_supported(dt),
        "GMOV" => crate::gather::tile_carrier_or_packed_baseline_data_type_supported(dt),
        _ => return None,
    })
}

/// `InstructionContractDataTypeLegal_<op>(code)` for the families whose
/// contract takes a five-bit DataType encoding: TLOAD and TSTORE accept
/// every assigned encoding; TPREFETCH an assigned encoding whose type
/// `TileCarrierOrPackedBaselineDataTypeSupported` accepts. `None` for
/// another name.
pub fn instruction_contract_data_type_code_legal(op: &str, code: u32) -> Option<bool> {
    let dt = DataType::from_code(code);
    Some(match op {
        "TLOAD" | "TSTORE" => dt.is_some(),
        "TPREFETCH" => {
            dt.is_some_and(crate::gather::tile_carrier_or_packed_baseline_data_type_supported)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_sets_differ_where_the_spec_says() {
        use DataType::*;
        let legal = |op, dt| instruction_contract_data_type_legal(op, dt).unwrap();
        // Integer logical: no floats, no packed.
        assert!(legal("TAND", U64) && !legal("TAND", FP64) && !legal("TAND", U4X2));
        // Arithmetic includes FP64 but not HiF8 or the small FP8s.
        assert!(legal("TSEL", FP64) && !legal("TSEL", HiF8) && !legal("TROWEXPAND", E3M2));
        // Move24 takes every type but HiF4X2.
        assert!(legal("TINSERT", U4X2) && legal("TINSERT", E2M3) && !legal("TINSERT", HiF4X2));
        // IMG2COL: no FP64, no packed, no TF32.
        assert!(!legal("TIMG2COL", FP64) && !legal("TIMG2COL", TF32) && legal("TIMG2COL", U8));
        // GMOV: carriers of at most 4 bytes, plus packed.
        assert!(legal("GMOV", TF32) && !legal("GMOV", FP64) && legal("GMOV", U4X2));
        assert_eq!(instruction_contract_data_type_legal("TLOADX", U8), None);
        let code = |op, c| instruction_contract_data_type_code_legal(op, c).unwrap();
        assert!(code("TPREFETCH", 1) && !code("TPREFETCH", 0) && code("TLOAD", 0));
        assert!(!code("TSTORE", 30) && !code("TPREFETCH", 30));
    }
}
