//! Architectural enumerations of the PTO spec, spelled as the spec spells them.
//!
//! ASL: `asl/arch/data-types/tile-data-types.asl` (PTO-ARCH-DATA-TYPES-TILE-DATA-TYPES,
//! field domain PTO-FIELD-BLOCK-DATATYPE) and `asl/arch/data-types/fault.asl`
//! (PTO-ARCH-DATA-TYPES-FAULT).

use std::fmt;
use std::str::FromStr;

/// `TileDataType`: every concrete Tile element type with its 5-bit encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    FP64,
    FP32,
    TF32,
    HF32,
    FP16,
    BF16,
    HiF8,
    E4M3,
    E5M2,
    E3M2,
    E2M3,
    E2M1X2,
    E1M2X2,
    E8M0,
    HiF4X2,
    S64,
    S32,
    S16,
    S8,
    S4X2,
    U64,
    U32,
    U16,
    U8,
    U4X2,
}

/// Encoded DataType 31: the B.DATR field sentinel, not a `TileDataType`.
pub const DTYPE_NONE: u32 = 31;

impl DataType {
    /// All 25 concrete types in encoding order.
    pub const ALL: [DataType; 25] = [
        DataType::FP64,
        DataType::FP32,
        DataType::TF32,
        DataType::HF32,
        DataType::FP16,
        DataType::BF16,
        DataType::HiF8,
        DataType::E4M3,
        DataType::E5M2,
        DataType::E3M2,
        DataType::E2M3,
        DataType::E2M1X2,
        DataType::E1M2X2,
        DataType::E8M0,
        DataType::HiF4X2,
        DataType::S64,
        DataType::S32,
        DataType::S16,
        DataType::S8,
        DataType::S4X2,
        DataType::U64,
        DataType::U32,
        DataType::U16,
        DataType::U8,
        DataType::U4X2,
    ];

    /// `TileDataTypeToEncoding`.
    pub fn code(self) -> u32 {
        use DataType::*;
        match self {
            FP64 => 0,
            FP32 => 1,
            TF32 => 2,
            HF32 => 3,
            FP16 => 4,
            BF16 => 5,
            HiF8 => 6,
            E4M3 => 7,
            E5M2 => 8,
            E3M2 => 9,
            E2M3 => 10,
            E2M1X2 => 11,
            E1M2X2 => 12,
            E8M0 => 13,
            HiF4X2 => 14,
            S64 => 16,
            S32 => 17,
            S16 => 18,
            S8 => 19,
            S4X2 => 20,
            U64 => 24,
            U32 => 25,
            U16 => 26,
            U8 => 27,
            U4X2 => 28,
        }
    }

    /// `TileDataTypeEncodingValid` + `TileDataTypeFromEncoding`: `None` for the
    /// reserved codes 15, 21..23, 29..31 (31 is DTYPE_NONE, not a type).
    pub fn from_code(code: u32) -> Option<DataType> {
        DataType::ALL.iter().copied().find(|t| t.code() == code)
    }

    /// Element width in bits (`TileElementBits`); packed four-bit types are 4.
    pub fn element_bits(self) -> u32 {
        use DataType::*;
        match self {
            FP64 | S64 | U64 => 64,
            FP32 | TF32 | HF32 | S32 | U32 => 32,
            FP16 | BF16 | S16 | U16 => 16,
            HiF8 | E4M3 | E5M2 | E3M2 | E2M3 | E8M0 | S8 | U8 => 8,
            E2M1X2 | E1M2X2 | HiF4X2 | S4X2 | U4X2 => 4,
        }
    }

    /// `TileDataTypeIsFourBit`.
    pub fn is_four_bit(self) -> bool {
        self.element_bits() == 4
    }

    /// `TileElementBytes` for byte-or-wider types; 1 (the containing byte,
    /// `TileMemoryElementBytes`) for packed four-bit types.
    pub fn element_bytes(self) -> u32 {
        (self.element_bits() / 8).max(1)
    }

    /// Signed integer types whose load sign-extends (S8, S16, S32). S4X2
    /// nibbles zero-extend (ASL `TileReadMemoryElement`).
    pub fn sign_extends_on_load(self) -> bool {
        matches!(self, DataType::S8 | DataType::S16 | DataType::S32)
    }

    /// Spec spelling (`FP64`, `HiF4X2`, ...).
    pub fn name(self) -> &'static str {
        use DataType::*;
        match self {
            FP64 => "FP64",
            FP32 => "FP32",
            TF32 => "TF32",
            HF32 => "HF32",
            FP16 => "FP16",
            BF16 => "BF16",
            HiF8 => "HiF8",
            E4M3 => "E4M3",
            E5M2 => "E5M2",
            E3M2 => "E3M2",
            E2M3 => "E2M3",
            E2M1X2 => "E2M1X2",
            E1M2X2 => "E1M2X2",
            E8M0 => "E8M0",
            HiF4X2 => "HiF4X2",
            S64 => "S64",
            S32 => "S32",
            S16 => "S16",
            S8 => "S8",
            S4X2 => "S4X2",
            U64 => "U64",
            U32 => "U32",
            U16 => "U16",
            U8 => "U8",
            U4X2 => "U4X2",
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of the `FromStr` impls of this module: the unknown spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.kind, self.name)
    }
}

impl std::error::Error for UnknownName {}

impl FromStr for DataType {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s2 = s.strip_prefix("TileDataType_").unwrap_or(s);
        DataType::ALL
            .iter()
            .copied()
            .find(|t| t.name() == s2)
            .ok_or_else(|| UnknownName {
                kind: "data type",
                name: s.to_string(),
            })
    }
}

/// `TileLayout`: the layout recorded in a tile descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TileLayout {
    #[default]
    RowMajor,
    ColumnMajor,
    ZN,
    NZ,
    CubeM16,
    CubeM32,
    CubeN8,
    /// Non-architectural fixture value: generic execution rejects it.
    ImplementationDefined,
}

impl TileLayout {
    /// `TileLayoutIsCube`.
    pub fn is_cube(self) -> bool {
        matches!(
            self,
            TileLayout::CubeM16 | TileLayout::CubeM32 | TileLayout::CubeN8
        )
    }

    pub const ALL: [TileLayout; 8] = [
        TileLayout::RowMajor,
        TileLayout::ColumnMajor,
        TileLayout::ZN,
        TileLayout::NZ,
        TileLayout::CubeM16,
        TileLayout::CubeM32,
        TileLayout::CubeN8,
        TileLayout::ImplementationDefined,
    ];
    /// Spec spelling without the `TileLayout_` prefix.
    pub fn name(self) -> &'static str {
        match self {
            TileLayout::RowMajor => "RowMajor",
            TileLayout::ColumnMajor => "ColumnMajor",
            TileLayout::ZN => "ZN",
            TileLayout::NZ => "NZ",
            TileLayout::CubeM16 => "CUBE_M16",
            TileLayout::CubeM32 => "CUBE_M32",
            TileLayout::CubeN8 => "CUBE_N8",
            TileLayout::ImplementationDefined => "ImplementationDefined",
        }
    }
}

impl fmt::Display for TileLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TileLayout {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s2 = s.strip_prefix("TileLayout_").unwrap_or(s);
        TileLayout::ALL
            .iter()
            .copied()
            .find(|t| t.name() == s2)
            .ok_or_else(|| UnknownName {
                kind: "tile layout",
                name: s.to_string(),
            })
    }
}

/// `TileLocation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TileLocation {
    Vector,
    Matrix,
    Memory,
    #[default]
    Any,
}

impl TileLocation {
    pub const ALL: [TileLocation; 4] = [
        TileLocation::Vector,
        TileLocation::Matrix,
        TileLocation::Memory,
        TileLocation::Any,
    ];
    pub fn name(self) -> &'static str {
        match self {
            TileLocation::Vector => "Vector",
            TileLocation::Matrix => "Matrix",
            TileLocation::Memory => "Memory",
            TileLocation::Any => "Any",
        }
    }
}

impl fmt::Display for TileLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TileLocation {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s2 = s.strip_prefix("TileLocation_").unwrap_or(s);
        TileLocation::ALL
            .iter()
            .copied()
            .find(|t| t.name() == s2)
            .ok_or_else(|| UnknownName {
                kind: "tile location",
                name: s.to_string(),
            })
    }
}

/// `FaultCode` (asl/arch/data-types/fault.asl). Displayed as the spec
/// spells it, `Fault_DataPage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Fault {
    #[default]
    None,
    ExecutionStateCheck,
    IllegalInstruction,
    InstructionPC,
    InstructionPage,
    DataAlignment,
    DataPage,
    SoftwareBreakpoint,
    HardwareBreakpoint,
    HardwareWatchpoint,
    Assert,
    TileLegality,
    TileAllocation,
    BundleControl,
    BundlePostCommit,
    ServiceRequest,
}

impl Fault {
    pub const ALL: [Fault; 16] = [
        Fault::None,
        Fault::ExecutionStateCheck,
        Fault::IllegalInstruction,
        Fault::InstructionPC,
        Fault::InstructionPage,
        Fault::DataAlignment,
        Fault::DataPage,
        Fault::SoftwareBreakpoint,
        Fault::HardwareBreakpoint,
        Fault::HardwareWatchpoint,
        Fault::Assert,
        Fault::TileLegality,
        Fault::TileAllocation,
        Fault::BundleControl,
        Fault::BundlePostCommit,
        Fault::ServiceRequest,
    ];
    /// Spec spelling, e.g. `Fault_DataPage`.
    pub fn name(self) -> &'static str {
        match self {
            Fault::None => "Fault_None",
            Fault::ExecutionStateCheck => "Fault_ExecutionStateCheck",
            Fault::IllegalInstruction => "Fault_IllegalInstruction",
            Fault::InstructionPC => "Fault_InstructionPC",
            Fault::InstructionPage => "Fault_InstructionPage",
            Fault::DataAlignment => "Fault_DataAlignment",
            Fault::DataPage => "Fault_DataPage",
            Fault::SoftwareBreakpoint => "Fault_SoftwareBreakpoint",
            Fault::HardwareBreakpoint => "Fault_HardwareBreakpoint",
            Fault::HardwareWatchpoint => "Fault_HardwareWatchpoint",
            Fault::Assert => "Fault_Assert",
            Fault::TileLegality => "Fault_TileLegality",
            Fault::TileAllocation => "Fault_TileAllocation",
            Fault::BundleControl => "Fault_BundleControl",
            Fault::BundlePostCommit => "Fault_BundlePostCommit",
            Fault::ServiceRequest => "Fault_ServiceRequest",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::error::Error for Fault {}

impl FromStr for Fault {
    type Err = UnknownName;
    /// Accepts `Fault_DataPage` or `DataPage`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s || &f.name()[6..] == s)
            .ok_or_else(|| UnknownName {
                kind: "fault",
                name: s.to_string(),
            })
    }
}

/// `TilePadValue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PadValue {
    Zero,
    Max,
    Min,
    #[default]
    Null,
}

impl PadValue {
    /// B.DATR PadValueOrByteId code.
    pub fn from_code(code: u32) -> PadValue {
        match code & 3 {
            0 => PadValue::Zero,
            1 => PadValue::Max,
            2 => PadValue::Min,
            _ => PadValue::Null,
        }
    }
}
