//! Floating-point qualifiers, decoded from the 11-bit function field.
//!
//! Layout of the function field `fn11` = instruction bits <15:5>
//! (Handbook §4.10, "Floating-point instruction function field format";
//! the same split is used by the Linux kernel's `arch/alpha/math-emu/math.c`
//! and by binutils' qualifier masks in `opcodes/alpha-opc.c`):
//!
//! | fn11 bits | insn bits | meaning |
//! |-----------|-----------|---------|
//! | <3:0>     | <8:5>     | function (ADD 0, SUB 1, MUL 2, DIV 3, CMPxUN 4 … CMPxLE 7, SQRT 0xB, CVTxS 0xC, CVTxT 0xE, CVTxQ 0xF) |
//! | <5:4>     | <10:9>    | source datatype: 00 S (or F), 01 D, 10 T (or G), 11 Q |
//! | <7:6>     | <12:11>   | rounding: 00 chopped `/C`, 01 minus infinity `/M`, 10 normal (no qualifier), 11 dynamic `/D` (FPCR<59:58>) |
//! | <8>       | <13>      | `/U` underflow enable (arithmetic) or `/V` integer-overflow enable (CVTTQ, CVTQL) |
//! | <9>       | <14>      | `/I` inexact enable |
//! | <10>      | <15>      | `/S` software completion |
//!
//! CVTST is the exception: DEC encoded it as CVTTS with source T and bit 8
//! set (fn11 0x2AC, 0x6AC for /S), so for CVTST bit 8 is part of the opcode
//! and not `/U` (Linux math-emu notes the same oddity). The decoder already
//! tells `Op::Cvtst` from `Op::Cvtts`; [`Qual::of`] takes the op into account.

use alpha_isa::Op;

/// Rounding mode named by an instruction (before resolving `/D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundQual {
    /// `/C`: toward zero.
    Chopped,
    /// `/M`: toward minus infinity.
    Minus,
    /// No qualifier: round to nearest, ties to even.
    Normal,
    /// `/D`: the dynamic mode held in FPCR<59:58>.
    Dynamic,
}

/// Rounding mode in effect for one execution (after resolving `/D`).
/// Plus infinity is reachable only through the FPCR dynamic field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Chopped,
    Minus,
    Normal,
    Plus,
}

impl Rounding {
    /// Decode FPCR<59:58> (Handbook §4.7.8, table 4-14): 00 chopped,
    /// 01 minus infinity, 10 normal, 11 plus infinity.
    pub fn from_fpcr(fpcr: u64) -> Rounding {
        match (fpcr >> 58) & 3 {
            0 => Rounding::Chopped,
            1 => Rounding::Minus,
            2 => Rounding::Normal,
            _ => Rounding::Plus,
        }
    }
}

/// The qualifiers of one floating-point operate instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Qual {
    pub round: RoundQual,
    /// `/U` (arithmetic) or `/V` (integer conversions): bit 8.
    pub u_or_v: bool,
    /// `/I`: bit 9.
    pub inexact: bool,
    /// `/S`: bit 10.
    pub software: bool,
}

impl Qual {
    /// Qualifiers of an instruction with function field `func` (11 bits).
    pub fn of(op: Op, func: u32) -> Qual {
        let round = match (func >> 6) & 3 {
            0 => RoundQual::Chopped,
            1 => RoundQual::Minus,
            2 => RoundQual::Normal,
            _ => RoundQual::Dynamic,
        };
        Qual {
            round,
            u_or_v: op != Op::Cvtst && func & 0x100 != 0,
            inexact: func & 0x200 != 0,
            software: func & 0x400 != 0,
        }
    }

    /// The rounding mode in effect given the current FPCR.
    pub fn rounding(self, fpcr: u64) -> Rounding {
        match self.round {
            RoundQual::Chopped => Rounding::Chopped,
            RoundQual::Minus => Rounding::Minus,
            RoundQual::Normal => Rounding::Normal,
            RoundQual::Dynamic => Rounding::from_fpcr(fpcr),
        }
    }
}
