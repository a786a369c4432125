//! The one description of the 32-bit command forms on the TLOAD/TSTORE path:
//! fixed bits (mask/match), fields (bit pieces), constraints (accepted
//! values). The decoder ([`decode`]), the disassembler and the assembler
//! ([`crate::asm`]) all read [`FORMS`]; nothing else in the crate knows an
//! encoding.
//!
//! Source: `spec/catalog/command-forms.json` of PTO-ISA/pto-spec (form ids
//! kept verbatim), checked against the catalog by `tests/decode_catalog.rs`.
//! ASL: `asl/block/model/dispatch/decode.asl` (`DecodeCommandForm`,
//! `CommandFormOperandsLegal`), `asl/block/model/schema/profile-encoding.asl`
//! (`PTOv0PEMaskOfPEMode`).

/// One bit piece of a field: `width` bits at `instruction_lsb` hold bits
/// `value_lsb..` of the field value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub instruction_lsb: u32,
    pub value_lsb: u32,
    pub width: u32,
}

/// A named field of a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub width: u32,
    pub pieces: &'static [Piece],
}

impl Field {
    /// Extracts the field value from `word`.
    pub fn extract(&self, word: u32) -> u32 {
        let mut v = 0u32;
        for p in self.pieces {
            let bits = (word >> p.instruction_lsb) & ((1u32 << p.width) - 1);
            v |= bits << p.value_lsb;
        }
        v
    }

    /// Inserts `value` into `word` (value must fit `width`).
    pub fn insert(&self, word: u32, value: u32) -> u32 {
        let mut w = word;
        for p in self.pieces {
            let m = ((1u32 << p.width) - 1) << p.instruction_lsb;
            let bits = ((value >> p.value_lsb) & ((1u32 << p.width) - 1)) << p.instruction_lsb;
            w = (w & !m) | bits;
        }
        w
    }

    /// Largest value the field can hold.
    pub fn max(&self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        }
    }
}

/// A "one-of" constraint of the catalog: the field accepts only `values`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub field: &'static str,
    pub values: &'static [u32],
}

/// What a form does in the model (semantic handler of the catalog).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormKind {
    /// BSTART of a tile-memory block: `function` is the TLSU selector
    /// (0 TLOAD, 1 TSTORE, 3 TPREFETCH, 4 MGATHER, 5 MSCATTER, 9..12 Shared
    /// TMOV, 13 GMOV, 14 TSTORE.SPART).
    BundleStart { function: u32 },
    /// BSTART.TEPL: an element-wise (VEC/SFU) block; its Mode and Function
    /// fields give the TEPL selector ([`tepl_selector`]).
    TeplStart,
    /// B.DIM …, ->LB`n`.
    BundleDimension { lb: u32 },
    /// B.IOR.
    ScalarIo,
    /// B.IOT: which operand fields are present.
    TileIo { src0: bool, src1: bool, dst: bool },
    /// B.IOS.
    SharedIo,
    /// B.DATR.
    DataAttributes,
    /// BSTOP.
    Stop,
    /// B.HINT: the ordinary branch/temperature/prefetch form, or TRACE.
    Hint { trace: bool },
}

/// One catalog form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// The catalog's `form_id`.
    pub form_id: &'static str,
    pub mnemonic: &'static str,
    /// Variant name of the catalog (`TSTORE.SPART`), if this row is one.
    pub variant: Option<&'static str>,
    /// The catalog's assembly template.
    pub asm: &'static str,
    pub mask: u32,
    pub matches: u32,
    pub fields: &'static [Field],
    pub constraints: &'static [Constraint],
    pub kind: FormKind,
}

impl Form {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

const fn p(instruction_lsb: u32, value_lsb: u32, width: u32) -> Piece {
    Piece {
        instruction_lsb,
        value_lsb,
        width,
    }
}

const DATA_TYPE_27: Field = Field {
    name: "DataType",
    width: 5,
    pieces: &[p(27, 0, 5)],
};
/// Concrete TileDataType codes (PTO-FIELD-BLOCK-DATATYPE).
pub const CONCRETE_DATA_TYPES: &[u32] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28,
];
/// Concrete codes plus DTYPE_NONE (31), as B.DATR accepts.
pub const DATR_DATA_TYPES: &[u32] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28, 31,
];
/// Absolute GPR selectors (PTO-FIELD-BLOCK-GPR-SELECTOR); 24..31 reserved.
pub const GPR_SELECTORS: &[u32] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
];
const PE_MODES: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7];
const LOCAL_SIZE_CODES: &[u32] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const SHARED_SIZE_CODES: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const DST_TILES: &[u32] = &[0, 1, 2, 3];
/// Assigned B.DATR Layout codes.
pub const LAYOUT_CODES: &[u32] = &[
    0, 1, 3, 4, 6, 8, 9, 17, 18, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30,
];
const CMODES: &[u32] = &[0, 1, 2, 3, 4, 5];

const DIM_FIELDS: &[Field] = &[
    Field {
        name: "RegSrc",
        width: 5,
        pieces: &[p(15, 0, 5)],
    },
    Field {
        name: "uimm17",
        width: 17,
        pieces: &[p(20, 0, 12), p(7, 12, 5)],
    },
];
const DIM_CONSTRAINTS: &[Constraint] = &[Constraint {
    field: "RegSrc",
    values: GPR_SELECTORS,
}];

const F_SRC0: Field = Field {
    name: "SrcTile0",
    width: 6,
    pieces: &[p(20, 0, 6)],
};
const F_SRC1: Field = Field {
    name: "SrcTile1",
    width: 6,
    pieces: &[p(26, 0, 6)],
};
const F_L: Field = Field {
    name: "L",
    width: 1,
    pieces: &[p(19, 0, 1)],
};
const F_SIZE: Field = Field {
    name: "SizeCode",
    width: 4,
    pieces: &[p(15, 0, 4)],
};
const F_PEMODE: Field = Field {
    name: "PEMode",
    width: 3,
    pieces: &[p(9, 0, 3)],
};
const F_DST: Field = Field {
    name: "DstTile",
    width: 2,
    pieces: &[p(7, 0, 2)],
};
const IOT_DST_CONSTRAINTS: &[Constraint] = &[
    Constraint {
        field: "SizeCode",
        values: LOCAL_SIZE_CODES,
    },
    Constraint {
        field: "PEMode",
        values: PE_MODES,
    },
    Constraint {
        field: "DstTile",
        values: DST_TILES,
    },
];
const IOT_SRC_CONSTRAINTS: &[Constraint] = &[Constraint {
    field: "PEMode",
    values: PE_MODES,
}];

/// Every form on the TLOAD/TSTORE path. Narrow forms come before the broad
/// forms they overlap (the catalog's `reviewed_encoding_overlaps`), so the
/// first match wins.
pub static FORMS: &[Form] = &[
    Form {
        form_id: "bstart_tload_32_d0c18bb0ab15",
        mnemonic: "BSTART.TLOAD",
        variant: None,
        asm: "BSTART.TLOAD DataType",
        mask: 0x07ff_ffff,
        matches: 0x0001_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 0 },
    },
    Form {
        form_id: "bstart_tstore_32_4048b6e8b0f4",
        mnemonic: "BSTART.TSTORE",
        variant: None,
        asm: "BSTART.TSTORE DataType",
        mask: 0x07ff_ffff,
        matches: 0x0011_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 1 },
    },
    Form {
        form_id: "bstart_tstore_32_4048b6e8b0f4",
        mnemonic: "BSTART.TSTORE",
        variant: Some("TSTORE.SPART"),
        asm: "BSTART.TSTORE DataType",
        mask: 0x07ff_ffff,
        matches: 0x00e1_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 14 },
    },
    Form {
        form_id: "bstart_tprefetch_32_d5f83e5aadf6",
        mnemonic: "BSTART.TPREFETCH",
        variant: None,
        asm: "BSTART.TPREFETCH DataType",
        mask: 0x07ff_ffff,
        matches: 0x0031_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 3 },
    },
    // Indexed TLSU (Functions 4, 5) and GMOV (Function 13): `crate::gather`.
    Form {
        form_id: "bstart_mgather_32_c9defbf18276",
        mnemonic: "BSTART.MGATHER",
        variant: None,
        asm: "BSTART.MGATHER DataType",
        mask: 0x07ff_ffff,
        matches: 0x0041_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 4 },
    },
    Form {
        form_id: "bstart_mscatter_32_0f0ba08bd798",
        mnemonic: "BSTART.MSCATTER",
        variant: None,
        asm: "BSTART.MSCATTER DataType",
        mask: 0x07ff_ffff,
        matches: 0x0051_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 5 },
    },
    Form {
        form_id: "bstart_gmov_32_6c21e223eaa7",
        mnemonic: "BSTART.GMOV",
        variant: None,
        asm: "BSTART.GMOV DataType",
        mask: 0x07ff_ffff,
        matches: 0x00d1_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 13 },
    },
    // Shared TMOV (TLSU Function 9): decoded as the snapshot decodes it;
    // execution without its B.IOS binder is Fault_TileLegality, and the
    // movement itself is not modelled (withdrawn upstream, ADR-0107).
    Form {
        form_id: "bstart_tmov_32_211446509efb",
        mnemonic: "BSTART.TMOV",
        variant: Some("TMOV.L2S.INSERT"),
        asm: "BSTART.TMOV DataType",
        mask: 0x07ff_ffff,
        matches: 0x0091_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: DATR_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 9 },
    },
    // Shared TMOV (TLSU Function 10): decoded as the snapshot decodes it;
    // execution without its B.IOS binder is Fault_TileLegality, and the
    // movement itself is not modelled (withdrawn upstream, ADR-0107).
    Form {
        form_id: "bstart_tmov_32_211446509efb",
        mnemonic: "BSTART.TMOV",
        variant: Some("TMOV.L2S.PUBLISH"),
        asm: "BSTART.TMOV DataType",
        mask: 0x07ff_ffff,
        matches: 0x00a1_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: DATR_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 10 },
    },
    // Shared TMOV (TLSU Function 11): decoded as the snapshot decodes it;
    // execution without its B.IOS binder is Fault_TileLegality, and the
    // movement itself is not modelled (withdrawn upstream, ADR-0107).
    Form {
        form_id: "bstart_tmov_32_211446509efb",
        mnemonic: "BSTART.TMOV",
        variant: Some("TMOV.S2L.BROADCAST"),
        asm: "BSTART.TMOV DataType",
        mask: 0x07ff_ffff,
        matches: 0x00b1_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: DATR_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 11 },
    },
    // Shared TMOV (TLSU Function 12): decoded as the snapshot decodes it;
    // execution without its B.IOS binder is Fault_TileLegality, and the
    // movement itself is not modelled (withdrawn upstream, ADR-0107).
    Form {
        form_id: "bstart_tmov_32_211446509efb",
        mnemonic: "BSTART.TMOV",
        variant: Some("TMOV.S2L.EXTRACT"),
        asm: "BSTART.TMOV DataType",
        mask: 0x07ff_ffff,
        matches: 0x00c1_1181,
        fields: &[DATA_TYPE_27],
        constraints: &[Constraint {
            field: "DataType",
            values: DATR_DATA_TYPES,
        }],
        kind: FormKind::BundleStart { function: 12 },
    },
    // BSTART.TEPL (accepted spellings BSTART.VEC/BSTART.SFU): the TEPL
    // selector is Mode:Function. Only its operand half is modelled (see
    // `crate::operands`); the element-wise engines are not.
    Form {
        form_id: "bstart_tepl_32_d022db6dacb3",
        mnemonic: "BSTART.TEPL",
        variant: None,
        asm: "BSTART.TEPL Mode, Function, DataType",
        mask: 0x000f_ffff,
        matches: 0x0001_9181,
        fields: &[
            DATA_TYPE_27,
            Field {
                name: "Mode",
                width: 2,
                pieces: &[p(25, 0, 2)],
            },
            Field {
                name: "Function",
                width: 5,
                pieces: &[p(20, 0, 5)],
            },
        ],
        constraints: &[Constraint {
            field: "DataType",
            values: CONCRETE_DATA_TYPES,
        }],
        kind: FormKind::TeplStart,
    },
    Form {
        form_id: "b_dim_32_27602ab68929",
        mnemonic: "B.DIM",
        variant: None,
        asm: "B.DIM RegSrc, uimm, ->LB0",
        mask: 0x0000_707f,
        matches: 0x0000_0043,
        fields: DIM_FIELDS,
        constraints: DIM_CONSTRAINTS,
        kind: FormKind::BundleDimension { lb: 0 },
    },
    Form {
        form_id: "b_dim_32_4191099a5f4d",
        mnemonic: "B.DIM",
        variant: None,
        asm: "B.DIM RegSrc, uimm, ->LB1",
        mask: 0x0000_707f,
        matches: 0x0000_1043,
        fields: DIM_FIELDS,
        constraints: DIM_CONSTRAINTS,
        kind: FormKind::BundleDimension { lb: 1 },
    },
    Form {
        form_id: "b_dim_32_1caa1aa2944a",
        mnemonic: "B.DIM",
        variant: None,
        asm: "B.DIM RegSrc, uimm, ->LB2",
        mask: 0x0000_707f,
        matches: 0x0000_2043,
        fields: DIM_FIELDS,
        constraints: DIM_CONSTRAINTS,
        kind: FormKind::BundleDimension { lb: 2 },
    },
    Form {
        form_id: "b_ior_32_c3ea71404eb3",
        mnemonic: "B.IOR",
        variant: None,
        asm: "B.IOR [<gpr>[, <gpr>[, <gpr>]]][, -><gpr>]",
        mask: 0x0600_707f,
        matches: 0x0000_0013,
        fields: &[
            Field {
                name: "RegDst",
                width: 5,
                pieces: &[p(7, 0, 5)],
            },
            Field {
                name: "RegSrc0",
                width: 5,
                pieces: &[p(15, 0, 5)],
            },
            Field {
                name: "RegSrc1",
                width: 5,
                pieces: &[p(20, 0, 5)],
            },
            Field {
                name: "RegSrc2",
                width: 5,
                pieces: &[p(27, 0, 5)],
            },
        ],
        constraints: &[
            Constraint {
                field: "RegDst",
                values: GPR_SELECTORS,
            },
            Constraint {
                field: "RegSrc0",
                values: GPR_SELECTORS,
            },
            Constraint {
                field: "RegSrc1",
                values: GPR_SELECTORS,
            },
            Constraint {
                field: "RegSrc2",
                values: GPR_SELECTORS,
            },
        ],
        kind: FormKind::ScalarIo,
    },
    // B.IOT: narrow source-only forms first (reviewed overlaps).
    Form {
        form_id: "b_iot_32_c11eb189dd83",
        mnemonic: "B.IOT",
        variant: None,
        asm: "B.IOT SrcTile0, mask=PE_MASK, <last>",
        mask: 0xfc07_f07f,
        matches: 0x0000_5013,
        fields: &[F_SRC0, F_L, F_PEMODE],
        constraints: IOT_SRC_CONSTRAINTS,
        kind: FormKind::TileIo {
            src0: true,
            src1: false,
            dst: false,
        },
    },
    Form {
        form_id: "b_iot_32_10db6db84f5d",
        mnemonic: "B.IOT",
        variant: None,
        asm: "B.IOT SrcTile0, mask=PE_MASK, <last>, ->DstTile<SizeCode>",
        mask: 0xfc00_707f,
        matches: 0x0000_5013,
        fields: &[F_SRC0, F_L, F_SIZE, F_PEMODE, F_DST],
        constraints: IOT_DST_CONSTRAINTS,
        kind: FormKind::TileIo {
            src0: true,
            src1: false,
            dst: true,
        },
    },
    Form {
        form_id: "b_iot_32_2c07e7177fad",
        mnemonic: "B.IOT",
        variant: None,
        asm: "B.IOT SrcTile0, SrcTile1, mask=PE_MASK, <last>",
        mask: 0x0007_f07f,
        matches: 0x0000_4013,
        fields: &[F_SRC1, F_SRC0, F_L, F_PEMODE],
        constraints: IOT_SRC_CONSTRAINTS,
        kind: FormKind::TileIo {
            src0: true,
            src1: true,
            dst: false,
        },
    },
    Form {
        form_id: "b_iot_32_8b8bce6bffe8",
        mnemonic: "B.IOT",
        variant: None,
        asm: "B.IOT SrcTile0, SrcTile1, mask=PE_MASK, <last>, ->DstTile<SizeCode>",
        mask: 0x0000_707f,
        matches: 0x0000_4013,
        fields: &[F_SRC1, F_SRC0, F_L, F_SIZE, F_PEMODE, F_DST],
        constraints: IOT_DST_CONSTRAINTS,
        kind: FormKind::TileIo {
            src0: true,
            src1: true,
            dst: true,
        },
    },
    Form {
        form_id: "b_iot_32_efa0fe3fe49a",
        mnemonic: "B.IOT",
        variant: None,
        asm: "B.IOT mask=PE_MASK, <last>, ->DstTile<SizeCode>",
        mask: 0xfff0_707f,
        matches: 0x0000_6013,
        fields: &[F_L, F_SIZE, F_PEMODE, F_DST],
        constraints: IOT_DST_CONSTRAINTS,
        kind: FormKind::TileIo {
            src0: false,
            src1: false,
            dst: true,
        },
    },
    Form {
        form_id: "b_hint_32_69d942ff1583",
        mnemonic: "B.HINT",
        variant: None,
        asm: "B.HINT {BR.{likely, unlikely}, TEMP.{hot, warm, cool, none}, PRFSIZE}",
        mask: 0x0008_7fff,
        matches: 0x0000_0033,
        fields: &[
            Field {
                name: "L/UL",
                width: 1,
                pieces: &[p(16, 0, 1)],
            },
            Field {
                name: "V",
                width: 1,
                pieces: &[p(15, 0, 1)],
            },
            Field {
                name: "prefetch_size",
                width: 12,
                pieces: &[p(20, 0, 12)],
            },
            Field {
                name: "temp",
                width: 2,
                pieces: &[p(17, 0, 2)],
            },
        ],
        constraints: &[],
        kind: FormKind::Hint { trace: false },
    },
    Form {
        form_id: "b_hint_32_f7d01d734925",
        mnemonic: "B.HINT",
        variant: None,
        asm: "B.HINT TRACE.{begin, end}",
        mask: 0xffff_7fff,
        matches: 0x0000_1033,
        fields: &[Field {
            name: "B/E",
            width: 1,
            pieces: &[p(15, 0, 1)],
        }],
        constraints: &[],
        kind: FormKind::Hint { trace: true },
    },
    Form {
        form_id: "b_ios_32_4ba5ef98fdaa",
        mnemonic: "B.IOS",
        variant: None,
        asm: "B.IOS S<SharedTID>, mask=<PE_MASK> | B.IOS mask=<PE_MASK>, ->S<SharedTID><SizeCode>",
        mask: 0xf008_71ff,
        matches: 0x0000_1013,
        fields: &[
            Field {
                name: "SharedTID",
                width: 8,
                pieces: &[p(20, 0, 8)],
            },
            F_SIZE,
            F_PEMODE,
        ],
        constraints: &[
            Constraint {
                field: "SizeCode",
                values: SHARED_SIZE_CODES,
            },
            Constraint {
                field: "PEMode",
                values: PE_MODES,
            },
        ],
        kind: FormKind::SharedIo,
    },
    Form {
        form_id: "b_datr_32_c161a042ff38",
        mnemonic: "B.DATR",
        variant: None,
        asm: "B.DATR {layout, datatype, padvalue_or_byteid, cmode, rmode, sat, canonicalize}",
        mask: 0x000c_707f,
        matches: 0x0000_1023,
        fields: &[
            Field {
                name: "CMode",
                width: 3,
                pieces: &[p(29, 0, 3)],
            },
            Field {
                name: "PadValueOrByteId",
                width: 2,
                pieces: &[p(27, 0, 2)],
            },
            Field {
                name: "Sat",
                width: 1,
                pieces: &[p(26, 0, 1)],
            },
            Field {
                name: "Canonicalize",
                width: 1,
                pieces: &[p(25, 0, 1)],
            },
            Field {
                name: "DataType",
                width: 5,
                pieces: &[p(20, 0, 5)],
            },
            Field {
                name: "RMode",
                width: 3,
                pieces: &[p(15, 0, 3)],
            },
            Field {
                name: "Layout",
                width: 5,
                pieces: &[p(7, 0, 5)],
            },
        ],
        constraints: &[
            Constraint {
                field: "CMode",
                values: CMODES,
            },
            Constraint {
                field: "DataType",
                values: DATR_DATA_TYPES,
            },
            Constraint {
                field: "Layout",
                values: LAYOUT_CODES,
            },
        ],
        kind: FormKind::DataAttributes,
    },
    Form {
        form_id: "bstop_32_d25b09fdd59c",
        mnemonic: "BSTOP",
        variant: None,
        asm: "BSTOP",
        mask: 0xffff_ffff,
        matches: 0x0000_0001,
        fields: &[],
        constraints: &[],
        kind: FormKind::Stop,
    },
];

/// A decoded word: its form and every field value, extracted once by
/// [`decode`] into [`Fields`] so the command path reads them without a
/// lookup by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub word: u32,
    pub form: &'static Form,
    pub fields: Fields,
}

/// The field values of one decoded word, one member per field name of the
/// [`FORMS`] table (0 when the word's form has no such field). Filled from
/// the form's own field descriptions, so the table stays the one place that
/// knows where a field sits in a word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub data_type: u32,
    pub reg_src: u32,
    pub uimm17: u32,
    pub reg_dst: u32,
    pub reg_src0: u32,
    pub reg_src1: u32,
    pub reg_src2: u32,
    /// `B/E`.
    pub b_e: u32,
    pub v: u32,
    /// `L/UL`.
    pub l_ul: u32,
    pub temp: u32,
    pub prefetch_size: u32,
    pub layout: u32,
    pub pad_value_or_byte_id: u32,
    pub cmode: u32,
    pub rmode: u32,
    pub sat: u32,
    pub canonicalize: u32,
    pub pe_mode: u32,
    pub size_code: u32,
    pub shared_tid: u32,
    pub dst_tile: u32,
    pub src_tile0: u32,
    pub src_tile1: u32,
    pub l: u32,
    pub mode: u32,
    pub function: u32,
}

impl Fields {
    /// Every field of `form` extracted from `word`.
    fn extract(form: &Form, word: u32) -> Fields {
        let mut v = Fields::default();
        for f in form.fields {
            let x = f.extract(word);
            let slot = match f.name {
                "DataType" => &mut v.data_type,
                "RegSrc" => &mut v.reg_src,
                "uimm17" => &mut v.uimm17,
                "RegDst" => &mut v.reg_dst,
                "RegSrc0" => &mut v.reg_src0,
                "RegSrc1" => &mut v.reg_src1,
                "RegSrc2" => &mut v.reg_src2,
                "B/E" => &mut v.b_e,
                "V" => &mut v.v,
                "L/UL" => &mut v.l_ul,
                "temp" => &mut v.temp,
                "prefetch_size" => &mut v.prefetch_size,
                "Layout" => &mut v.layout,
                "PadValueOrByteId" => &mut v.pad_value_or_byte_id,
                "CMode" => &mut v.cmode,
                "RMode" => &mut v.rmode,
                "Sat" => &mut v.sat,
                "Canonicalize" => &mut v.canonicalize,
                "PEMode" => &mut v.pe_mode,
                "SizeCode" => &mut v.size_code,
                "SharedTID" => &mut v.shared_tid,
                "DstTile" => &mut v.dst_tile,
                "SrcTile0" => &mut v.src_tile0,
                "SrcTile1" => &mut v.src_tile1,
                "L" => &mut v.l,
                "Mode" => &mut v.mode,
                "Function" => &mut v.function,
                other => unreachable!("FORMS field `{other}` has no Fields member"),
            };
            *slot = x;
        }
        v
    }
}

impl Decoded {
    /// Value of field `name` (0 when the form has no such field).
    pub fn get(&self, name: &str) -> u32 {
        self.form.field(name).map_or(0, |f| f.extract(self.word))
    }
    /// Whether the form has field `name`.
    pub fn has(&self, name: &str) -> bool {
        self.form.field(name).is_some()
    }
}

/// Why a word does not decode (`DecodeCommandForm` finds no form, or
/// `CommandFormOperandsLegal` fails): an architectural rejection,
/// `Fault_IllegalInstruction`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// No form of the TLOAD/TSTORE path has these fixed bits.
    NoForm,
    /// A field holds a reserved or unassigned value.
    Reserved {
        mnemonic: &'static str,
        field: &'static str,
        value: u32,
    },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::NoForm => {
                f.write_str("no command form of the TLOAD/TSTORE path matches these fixed bits")
            }
            DecodeError::Reserved {
                mnemonic,
                field,
                value,
            } => write!(f, "{mnemonic} {field}={value} is reserved"),
        }
    }
}

/// `DecodeCommandForm` + `CommandFormOperandsLegal` for 32-bit words.
pub fn decode(word: u32) -> Result<Decoded, DecodeError> {
    let form = FORMS
        .iter()
        .find(|f| word & f.mask == f.matches)
        .ok_or(DecodeError::NoForm)?;
    for c in form.constraints {
        let field = form.field(c.field).expect("constraint names a field");
        let v = field.extract(word);
        if !c.values.contains(&v) {
            return Err(DecodeError::Reserved {
                mnemonic: form.mnemonic,
                field: c.field,
                value: v,
            });
        }
    }
    Ok(Decoded {
        word,
        form,
        fields: Fields::extract(form, word),
    })
}

/// `PTOv0PEMaskOfPEMode`: the fixed four-PE mask of a 3-bit PEMode, as a
/// 4-bit value whose bit 3 is PE0 (the spec writes it as the string
/// `'1000'`).
pub fn pe_mask_of_pe_mode(mode: u32) -> u8 {
    match mode & 7 {
        0 => 0b0000,
        1 => 0b1000,
        2 => 0b0100,
        3 => 0b0010,
        4 => 0b0001,
        5 => 0b1100,
        6 => 0b1110,
        _ => 0b1111,
    }
}

/// Inverse of [`pe_mask_of_pe_mode`]; `None` for masks no PEMode encodes.
pub fn pe_mode_of_pe_mask(mask: u8) -> Option<u32> {
    (0..8).find(|&m| pe_mask_of_pe_mode(m) == mask)
}

/// `PTOPEMaskBitOfPEIdentity`: PE `pe` is bit `3 - pe` of a mask.
pub fn pe_selected(mask: u8, pe: usize) -> bool {
    pe < 4 && mask & (1 << (3 - pe)) != 0
}

/// The mask as the spec writes it, `'1100'`: PE0 leftmost.
pub fn mask_string(mask: u8) -> String {
    (0..4)
        .map(|pe| if pe_selected(mask, pe) { '1' } else { '0' })
        .collect()
}

/// Parses a spec mask string (`"1100"`).
pub fn parse_mask_string(s: &str) -> Option<u8> {
    if s.len() != 4 {
        return None;
    }
    let mut m = 0u8;
    for (pe, c) in s.chars().enumerate() {
        match c {
            '1' => m |= 1 << (3 - pe),
            '0' => {}
            _ => return None,
        }
    }
    Some(m)
}

/// `TileSizeCodeBytes`: 1 → 128 … 12 → 262144.
pub fn tile_size_code_bytes(code: u32) -> Option<u64> {
    if (1..=12).contains(&code) {
        Some(64u64 << code)
    } else {
        None
    }
}

/// TLSU tile-operation selectors (tile-operations.json, family TLSU):
/// function 0 TLOAD, 1 TSTORE, 3 TPREFETCH; 15..31 reserved. Functions
/// 9–12 (Shared TMOV) decode but name no operation the model executes. Function 14 (TSTORE.SPART)
/// decodes to TSTORE (`BundleOperationDecodeCode`).
pub fn tlsu_operation_name(function: u32) -> Option<&'static str> {
    match function {
        0 => Some("TLOAD"),
        1 | 14 => Some("TSTORE"),
        3 => Some("TPREFETCH"),
        4 => Some("MGATHER"),
        5 => Some("MSCATTER"),
        13 => Some("GMOV"),
        _ => None,
    }
}

/// One TEPL tile operation of `tile-operations.json` (family TEPL): its
/// 7-bit selector (`DecodeTileOperation(TileDecode_TEPL, code)`), name, and
/// operand schema as `TileOperandPresent` gives it: how many Local
/// destinations (destination0/1) and sources (source0..4) it binds, and
/// which GPR-fed fields it has ([`G_ADDRESS`] … [`G_FLAG0`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeplOperationRow {
    pub selector: u32,
    pub name: &'static str,
    pub destinations: u8,
    pub sources: u8,
    pub gpr_fields: u8,
}

/// GPR-fed operand fields of [`TeplOperationRow::gpr_fields`], in the
/// architectural packing order.
pub const G_ADDRESS: u8 = 1;
pub const G_SCALAR0: u8 = 2;
pub const G_SCALAR1: u8 = 4;
pub const G_DIAGONAL: u8 = 8;
pub const G_FLAG0: u8 = 16;

const fn tepl(
    selector: u32,
    name: &'static str,
    destinations: u8,
    sources: u8,
    gpr_fields: u8,
) -> TeplOperationRow {
    TeplOperationRow {
        selector,
        name,
        destinations,
        sources,
        gpr_fields,
    }
}

/// Every TEPL operation of the pinned catalog, by selector; selectors not
/// listed are reserved (`DecodeTileOperation` returns
/// `PTO_TILE_OPERATION_COUNT`, the start is `Fault_IllegalInstruction`).
/// Checked against the catalog by `tests/decode_catalog.rs`.
pub static TEPL_OPERATIONS: &[TeplOperationRow] = &[
    tepl(0x000, "TADD", 1, 2, 0),
    tepl(0x001, "TSUB", 1, 2, 0),
    tepl(0x002, "TMUL", 1, 2, 0),
    tepl(0x003, "TDIV", 1, 2, 0),
    tepl(0x004, "TREM", 1, 2, 0),
    tepl(0x006, "TAND", 1, 2, 0),
    tepl(0x007, "TOR", 1, 2, 0),
    tepl(0x008, "TXOR", 1, 2, 0),
    tepl(0x009, "TSHL", 1, 2, 0),
    tepl(0x00a, "TSHR", 1, 2, 0),
    tepl(0x00b, "TMAX", 1, 2, 0),
    tepl(0x00c, "TMIN", 1, 2, 0),
    tepl(0x00d, "TCMP", 1, 2, 0),
    tepl(0x00f, "TABS", 1, 1, 0),
    tepl(0x010, "TNOT", 1, 1, 0),
    tepl(0x011, "TNEG", 1, 1, 0),
    tepl(0x012, "TEXP", 1, 1, 0),
    tepl(0x013, "TLOG", 1, 1, 0),
    tepl(0x014, "TRECIP", 1, 1, 0),
    tepl(0x015, "TSQRT", 1, 1, 0),
    tepl(0x016, "TRSQRT", 1, 1, 0),
    tepl(0x017, "TRELU", 1, 1, 0),
    tepl(0x01a, "TSEL", 1, 3, 0),
    tepl(0x01b, "TCVT", 1, 1, 0),
    tepl(0x01c, "TFMA", 1, 3, 0),
    tepl(0x020, "TADDS", 1, 1, G_SCALAR0),
    tepl(0x021, "TSUBS", 1, 1, G_SCALAR0),
    tepl(0x022, "TMULS", 1, 1, G_SCALAR0),
    tepl(0x023, "TDIVS", 1, 1, G_SCALAR0),
    tepl(0x024, "TREMS", 1, 1, G_SCALAR0),
    tepl(0x026, "TANDS", 1, 1, G_SCALAR0),
    tepl(0x027, "TORS", 1, 1, G_SCALAR0),
    tepl(0x028, "TXORS", 1, 1, G_SCALAR0),
    tepl(0x029, "TSHLS", 1, 1, G_SCALAR0),
    tepl(0x02a, "TSHRS", 1, 1, G_SCALAR0),
    tepl(0x02b, "TMAXS", 1, 1, G_SCALAR0),
    tepl(0x02c, "TMINS", 1, 1, G_SCALAR0),
    tepl(0x02d, "TCMPS", 1, 1, G_SCALAR0),
    tepl(0x03a, "TSELS", 1, 2, G_SCALAR0),
    tepl(0x03b, "TEXPANDS", 1, 0, G_SCALAR0),
    tepl(0x040, "TROWSUM", 1, 1, 0),
    tepl(0x041, "TROWMAX", 1, 1, 0),
    tepl(0x042, "TROWMIN", 1, 1, 0),
    tepl(0x043, "TROWPROD", 1, 1, 0),
    tepl(0x044, "TROWEXPAND", 1, 1, 0),
    tepl(0x045, "TROWEXPANDADD", 1, 2, 0),
    tepl(0x046, "TROWEXPANDSUB", 1, 2, 0),
    tepl(0x047, "TROWEXPANDMUL", 1, 2, 0),
    tepl(0x048, "TROWEXPANDDIV", 1, 2, 0),
    tepl(0x049, "TROWEXPANDMAX", 1, 2, 0),
    tepl(0x04a, "TROWEXPANDMIN", 1, 2, 0),
    tepl(0x04b, "TROWEXPANDEXPDIF", 1, 2, 0),
    tepl(0x04c, "TROWARGMAX", 1, 1, 0),
    tepl(0x04d, "TROWARGMIN", 1, 1, 0),
    tepl(0x050, "TCOLSUM", 1, 1, 0),
    tepl(0x051, "TCOLMAX", 1, 1, 0),
    tepl(0x052, "TCOLMIN", 1, 1, 0),
    tepl(0x053, "TCOLPROD", 1, 1, 0),
    tepl(0x054, "TCOLEXPAND", 1, 1, 0),
    tepl(0x055, "TCOLEXPANDADD", 1, 2, 0),
    tepl(0x056, "TCOLEXPANDSUB", 1, 2, 0),
    tepl(0x057, "TCOLEXPANDMUL", 1, 2, 0),
    tepl(0x058, "TCOLEXPANDDIV", 1, 2, 0),
    tepl(0x059, "TCOLEXPANDMAX", 1, 2, 0),
    tepl(0x05a, "TCOLEXPANDMIN", 1, 2, 0),
    tepl(0x05b, "TCOLEXPANDEXPDIF", 1, 2, 0),
    tepl(0x05c, "TCOLARGMAX", 1, 1, 0),
    tepl(0x05d, "TCOLARGMIN", 1, 1, 0),
    tepl(0x060, "TCONCAT", 1, 2, 0),
    tepl(0x062, "TEXTRACT", 1, 1, 0),
    tepl(0x063, "TINSERT", 1, 2, 0),
    tepl(0x064, "TIMG2COL", 1, 1, 0),
    tepl(0x065, "TFILLPAD", 1, 1, G_SCALAR0),
    tepl(0x066, "TCI", 1, 0, G_SCALAR0 | G_FLAG0),
    tepl(0x067, "TTRI", 1, 0, G_DIAGONAL | G_FLAG0),
    tepl(0x068, "THISTOGRAM", 1, 2, 0),
    tepl(0x06a, "TQUANT", 1, 1, G_SCALAR0 | G_SCALAR1),
    tepl(0x06b, "TDEQUANT", 1, 1, G_SCALAR0 | G_SCALAR1),
    tepl(0x06c, "TSORT", 2, 1, G_FLAG0),
    tepl(0x06d, "TMRGSORT", 1, 2, G_FLAG0),
    tepl(0x06e, "TTRANS", 1, 1, 0),
    tepl(0x06f, "TGATHER", 1, 2, 0),
    tepl(0x070, "TSCATTER", 1, 2, 0),
    tepl(0x071, "TPARTADD", 1, 2, 0),
    tepl(0x072, "TPARTMUL", 1, 2, 0),
    tepl(0x073, "TPARTMAX", 1, 2, 0),
    tepl(0x074, "TPARTMIN", 1, 2, 0),
];

/// `BundleSelectorCode` of a TEPL start: Mode in bits 6:5, Function in 4:0.
pub fn tepl_selector(mode: u32, function: u32) -> u32 {
    ((mode & 3) << 5) | (function & 31)
}

/// `DecodeTileOperation(TileDecode_TEPL, selector)`: the operation, or
/// `None` for a reserved selector.
pub fn tepl_operation(selector: u32) -> Option<&'static TeplOperationRow> {
    TEPL_OPERATIONS.iter().find(|o| o.selector == selector)
}

/// The TEPL operation called `name` (`TADDS`).
pub fn tepl_operation_named(name: &str) -> Option<&'static TeplOperationRow> {
    TEPL_OPERATIONS.iter().find(|o| o.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each typed member holds the value the form's field description
    /// extracts, for every form and a spread of words it matches.
    #[test]
    fn typed_fields_equal_the_by_name_extraction_for_every_form() {
        let mut checked = 0;
        for form in FORMS {
            for k in 0..4096u32 {
                let noise = k.wrapping_mul(0x9e37_79b9) ^ (k << 13);
                let word = (noise & !form.mask) | form.matches;
                let Ok(d) = decode(word) else { continue };
                if !std::ptr::eq(d.form, form) {
                    continue;
                }
                let f = d.fields;
                let typed = [
                    ("DataType", f.data_type),
                    ("RegSrc", f.reg_src),
                    ("uimm17", f.uimm17),
                    ("RegDst", f.reg_dst),
                    ("RegSrc0", f.reg_src0),
                    ("RegSrc1", f.reg_src1),
                    ("RegSrc2", f.reg_src2),
                    ("B/E", f.b_e),
                    ("V", f.v),
                    ("L/UL", f.l_ul),
                    ("temp", f.temp),
                    ("prefetch_size", f.prefetch_size),
                    ("Layout", f.layout),
                    ("PadValueOrByteId", f.pad_value_or_byte_id),
                    ("CMode", f.cmode),
                    ("RMode", f.rmode),
                    ("Sat", f.sat),
                    ("Canonicalize", f.canonicalize),
                    ("PEMode", f.pe_mode),
                    ("SizeCode", f.size_code),
                    ("SharedTID", f.shared_tid),
                    ("DstTile", f.dst_tile),
                    ("SrcTile0", f.src_tile0),
                    ("SrcTile1", f.src_tile1),
                    ("L", f.l),
                    ("Mode", f.mode),
                    ("Function", f.function),
                ];
                for (name, value) in typed {
                    assert_eq!(
                        value,
                        d.get(name),
                        "{} field {name} of {word:#010x}",
                        form.mnemonic
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > FORMS.len(), "only {checked} words decoded");
    }
}
