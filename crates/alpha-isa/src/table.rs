//! The one Alpha instruction table.
//!
//! One [`Row`] per instruction or alias: mnemonic as GNU objdump spells it,
//! the [`Op`] it decodes to, format, opcode, function code, operand syntax,
//! required extension, and — for floating-point operates — the set of
//! qualifier variants it expands to. The decoder, the disassembler, the
//! assembler and (through [`Op`]) the interpreter all read this table; no
//! other module knows an encoding.
//!
//! Sources (facts only; no code was copied): Alpha Architecture Handbook v4
//! (EC-QD2KC-TE), chapter 3 (formats), chapter 4 (integer instructions),
//! 4.7-4.10 (floating point, qualifier encodings in table 4-14 and appendix
//! C "Instruction Summary"), appendix A.4 (pseudo-operations), appendix D
//! (PALcode function names of the Linux/OSF PALcode); the mnemonic spelling,
//! alias precedence and the "fake operand" rules (a register field that must
//! be R31, RB equal to RA) were checked against GNU binutils
//! `opcodes/alpha-opc.c` and the behaviour of `alpha-linux-gnu-objdump`.
//!
//! Disassembly picks the *first* row in table order whose encoding and fake
//! operands match, so aliases sit before the instruction they rename — exactly
//! where objdump prints them. Rows flagged [`Kind::AsmOnly`] are accepted by
//! the assembler but never printed (objdump prints another name first).

use crate::insn::{Ext, Format, Op};
use crate::pal;

/// How one operand is written and where it lives in the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// Integer register in the Ra field (bits 25:21).
    Ra,
    /// Integer register in the Rb field (bits 20:16); in Operate format this
    /// is the register form (bit 12 clear).
    Rb,
    /// Integer register in the Rc field (bits 4:0).
    Rc,
    /// Floating register in the Fa / Fb / Fc field.
    Fa,
    Fb,
    Fc,
    /// Operate format second operand: register Rb (bit 12 clear) or the
    /// 8-bit zero-extended literal in bits 20:13 (bit 12 set).
    RbLit,
    /// Operate format literal only (bit 12 set).
    Lit,
    /// Signed 16-bit memory displacement (bits 15:0), printed in decimal.
    Mdisp,
    /// Rb in parentheses after a displacement: `disp(rb)`.
    Prb,
    /// Rb in parentheses after a comma (jump format): `ra,(rb)`.
    Cprb,
    /// Branch displacement (bits 20:0, longwords), printed as the target.
    Bdisp,
    /// 26-bit PALcode function, printed in hex.
    PalFn,
    /// Jump hint (bits 13:0, signed longwords), printed as the target.
    JmpHint,
    /// RET / JSR_COROUTINE hint (bits 13:0), printed as an unsigned number.
    RetHint,
    /// Fake: bits `shift..shift+width` must hold `value`; not written.
    Fix {
        shift: u8,
        width: u8,
        value: u16,
    },
    /// Fake: the Rb field must equal the Ra field; not written.
    Rba,
    /// Fake: the Rc field must equal the Ra field; not written.
    Rca,
}

/// Fake operand: Ra is R31.
pub const ZA: Operand = Operand::Fix {
    shift: 21,
    width: 5,
    value: 31,
};
/// Fake operand: Rb is R31 (in Operate format also the register form).
pub const ZB: Operand = Operand::Fix {
    shift: 16,
    width: 5,
    value: 31,
};
/// Fake operand: Rc is R31.
pub const ZC: Operand = Operand::Fix {
    shift: 0,
    width: 5,
    value: 31,
};

use Operand::*;

const NONE: &[Operand] = &[];
const OPR: &[Operand] = &[Ra, RbLit, Rc];
const OPR_REG: &[Operand] = &[Ra, Rb, Rc];
const OPRZ1: &[Operand] = &[ZA, Rb, Rc];
const OPRZ1_LIT: &[Operand] = &[ZA, RbLit, Rc];
const MEM: &[Operand] = &[Ra, Mdisp, Prb];
const FMEM: &[Operand] = &[Fa, Mdisp, Prb];
const BRA: &[Operand] = &[Ra, Bdisp];
const FBRA: &[Operand] = &[Fa, Bdisp];
const FP: &[Operand] = &[Fa, Fb, Fc];
const FPZ1: &[Operand] = &[ZA, Fb, Fc];
const PCD: &[Operand] = &[PalFn];
const JMP: &[Operand] = &[Ra, Cprb, JmpHint];
const RET: &[Operand] = &[Ra, Cprb, RetHint];
const ZA_PRB: &[Operand] = &[ZA, Prb];

/// Whether a row is a machine instruction, a printed alias, or an
/// assembler-only spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The instruction itself: the row `decode` maps the encoding to.
    Insn,
    /// A pseudo-instruction or alias that objdump prints when its fake
    /// operands match (Handbook A.4: `nop`, `mov`, `negq`, …).
    Alias,
    /// Another accepted spelling that is never printed (`bis` is printed as
    /// `or`/`mov`; `chmk` as `callsys`).
    AsmOnly,
}

/// A floating-point qualifier set (Handbook 4.7.9, appendix C.1): each
/// variant is a mnemonic suffix and the value of function bits 10:6
/// (trap-mode bits 10:8, rounding bits 7:6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quals(pub &'static [(&'static str, u16)]);

/// No qualifiers: the row's function code is used as is.
pub const Q_NONE: Quals = Quals(&[]);
/// IEEE arithmetic (ADDx SUBx MULx DIVx SQRTx CVTTS): trap modes none, /U,
/// /SU, /SUI times roundings /C, /M, normal, /D.
pub const Q_IEEE: Quals = Quals(&[
    ("/c", 0x000),
    ("/m", 0x040),
    ("", 0x080),
    ("/d", 0x0c0),
    ("/uc", 0x100),
    ("/um", 0x140),
    ("/u", 0x180),
    ("/ud", 0x1c0),
    ("/suc", 0x500),
    ("/sum", 0x540),
    ("/su", 0x580),
    ("/sud", 0x5c0),
    ("/suic", 0x700),
    ("/suim", 0x740),
    ("/sui", 0x780),
    ("/suid", 0x7c0),
]);
/// CVTTQ: integer-overflow trap modes none, /V, /SV, /SVI times the roundings.
pub const Q_CVTTQ: Quals = Quals(&[
    ("/c", 0x000),
    ("/m", 0x040),
    ("", 0x080),
    ("/d", 0x0c0),
    ("/vc", 0x100),
    ("/vm", 0x140),
    ("/v", 0x180),
    ("/vd", 0x1c0),
    ("/svc", 0x500),
    ("/svm", 0x540),
    ("/sv", 0x580),
    ("/svd", 0x5c0),
    ("/svic", 0x700),
    ("/svim", 0x740),
    ("/svi", 0x780),
    ("/svid", 0x7c0),
]);
/// CVTQS, CVTQT: only the inexact trap (/SUI) is meaningful.
pub const Q_CVTQ: Quals = Quals(&[
    ("/c", 0x000),
    ("/m", 0x040),
    ("", 0x080),
    ("/d", 0x0c0),
    ("/suic", 0x700),
    ("/suim", 0x740),
    ("/sui", 0x780),
    ("/suid", 0x7c0),
]);
/// IEEE compares: plain or /SU.
pub const Q_CMPT: Quals = Quals(&[("", 0x080), ("/su", 0x580)]);
/// CVTST: plain or /S.
pub const Q_CVTST: Quals = Quals(&[("", 0x280), ("/s", 0x680)]);
/// VAX arithmetic: trap modes none, /U, /S, /SU times roundings /C, normal.
pub const Q_VAX: Quals = Quals(&[
    ("/c", 0x000),
    ("", 0x080),
    ("/uc", 0x100),
    ("/u", 0x180),
    ("/sc", 0x400),
    ("/s", 0x480),
    ("/suc", 0x500),
    ("/su", 0x580),
]);
/// CVTGQ: overflow trap modes none, /V, /S, /SV times /C, normal.
pub const Q_CVTGQ: Quals = Quals(&[
    ("/c", 0x000),
    ("", 0x080),
    ("/vc", 0x100),
    ("/v", 0x180),
    ("/sc", 0x400),
    ("/s", 0x480),
    ("/svc", 0x500),
    ("/sv", 0x580),
]);
/// CVTQF, CVTQG: /C or normal rounding.
pub const Q_CVTQV: Quals = Quals(&[("/c", 0x000), ("", 0x080)]);
/// VAX compares: plain or /S.
pub const Q_CMPG: Quals = Quals(&[("", 0x080), ("/s", 0x480)]);
/// CVTQL: plain, /V, /SV.
pub const Q_CVTQL: Quals = Quals(&[("", 0x000), ("/v", 0x100), ("/sv", 0x500)]);
/// The `negf`/`negg` aliases exist for these VAX qualifiers only (objdump).
pub const Q_NEGV: Quals = Quals(&[("", 0x080), ("/s", 0x480)]);
/// The `negs`/`negt` aliases exist for these IEEE qualifiers only (objdump).
pub const Q_NEGI: Quals = Quals(&[("", 0x080), ("/su", 0x580), ("/sui", 0x780)]);

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Mnemonic as objdump spells it (FP rows: without the qualifier suffix).
    pub mnemonic: &'static str,
    /// What the encoding means (aliases name the instruction they stand for).
    pub op: Op,
    pub format: Format,
    /// Major opcode, bits 31:26.
    pub opcode: u8,
    /// Function code: Operate bits 11:5; FP operate bits 15:5 (low six bits
    /// and any fixed higher bits; qualifier bits come from `quals`);
    /// Memory-function bits 15:0; Jump bits 15:14; named PALcode bits 25:0.
    pub func: u32,
    /// Operand syntax, in written order (fake operands included).
    pub syntax: &'static [Operand],
    pub ext: Ext,
    pub kind: Kind,
    pub quals: Quals,
    /// Named PALcode functions and the exact `ret` form match all 32 bits.
    pub exact: bool,
}

#[allow(clippy::too_many_arguments)] // one argument per table column
const fn row(
    mnemonic: &'static str,
    op: Op,
    format: Format,
    opcode: u8,
    func: u32,
    syntax: &'static [Operand],
    ext: Ext,
    kind: Kind,
    quals: Quals,
) -> Row {
    Row {
        mnemonic,
        op,
        format,
        opcode,
        func,
        syntax,
        ext,
        kind,
        quals,
        exact: false,
    }
}

const fn pal(m: &'static str, f: u32, kind: Kind) -> Row {
    Row {
        exact: true,
        ..row(
            m,
            Op::CallPal,
            Format::Pal,
            0x00,
            f,
            NONE,
            Ext::Base,
            kind,
            Q_NONE,
        )
    }
}
const fn pcd(m: &'static str, op: Op, opcode: u8) -> Row {
    row(
        m,
        op,
        Format::Pal,
        opcode,
        0,
        PCD,
        Ext::Base,
        Kind::Insn,
        Q_NONE,
    )
}
const fn mem(m: &'static str, op: Op, opcode: u8, ext: Ext) -> Row {
    row(
        m,
        op,
        Format::Memory,
        opcode,
        0,
        MEM,
        ext,
        Kind::Insn,
        Q_NONE,
    )
}
const fn fmem(m: &'static str, op: Op, opcode: u8) -> Row {
    row(
        m,
        op,
        Format::Memory,
        opcode,
        0,
        FMEM,
        Ext::Base,
        Kind::Insn,
        Q_NONE,
    )
}
const fn mem_alias(m: &'static str, op: Op, opcode: u8, syntax: &'static [Operand]) -> Row {
    row(
        m,
        op,
        Format::Memory,
        opcode,
        0,
        syntax,
        Ext::Base,
        Kind::Alias,
        Q_NONE,
    )
}
const fn opr(m: &'static str, op: Op, opcode: u8, f: u32) -> Row {
    row(
        m,
        op,
        Format::Operate,
        opcode,
        f,
        OPR,
        Ext::Base,
        Kind::Insn,
        Q_NONE,
    )
}
const fn oprx(
    m: &'static str,
    op: Op,
    opcode: u8,
    f: u32,
    syntax: &'static [Operand],
    ext: Ext,
) -> Row {
    row(
        m,
        op,
        Format::Operate,
        opcode,
        f,
        syntax,
        ext,
        Kind::Insn,
        Q_NONE,
    )
}
const fn opr_alias(
    m: &'static str,
    op: Op,
    opcode: u8,
    f: u32,
    syntax: &'static [Operand],
    kind: Kind,
) -> Row {
    row(
        m,
        op,
        Format::Operate,
        opcode,
        f,
        syntax,
        Ext::Base,
        kind,
        Q_NONE,
    )
}
const fn fp(
    m: &'static str,
    op: Op,
    opcode: u8,
    f: u32,
    syntax: &'static [Operand],
    ext: Ext,
    quals: Quals,
) -> Row {
    row(
        m,
        op,
        Format::FpOperate,
        opcode,
        f,
        syntax,
        ext,
        Kind::Insn,
        quals,
    )
}
const fn fp_alias(
    m: &'static str,
    op: Op,
    opcode: u8,
    f: u32,
    syntax: &'static [Operand],
    quals: Quals,
) -> Row {
    row(
        m,
        op,
        Format::FpOperate,
        opcode,
        f,
        syntax,
        Ext::Base,
        Kind::Alias,
        quals,
    )
}
const fn mfc(m: &'static str, op: Op, f: u32, syntax: &'static [Operand], kind: Kind) -> Row {
    row(
        m,
        op,
        Format::MemoryFunc,
        0x18,
        f,
        syntax,
        Ext::Base,
        kind,
        Q_NONE,
    )
}
const fn jmp(m: &'static str, op: Op, f: u32, syntax: &'static [Operand], kind: Kind) -> Row {
    row(
        m,
        op,
        Format::Jump,
        0x1a,
        f,
        syntax,
        Ext::Base,
        kind,
        Q_NONE,
    )
}
const fn bra(m: &'static str, op: Op, opcode: u8, syntax: &'static [Operand]) -> Row {
    row(
        m,
        op,
        Format::Branch,
        opcode,
        0,
        syntax,
        Ext::Base,
        Kind::Insn,
        Q_NONE,
    )
}

use Ext::{Base, Bwx, Cix, Fix as FixExt, Mvi};
use Kind::{Alias, AsmOnly, Insn};

/// The table. Order matters for the disassembler (first match wins) and is
/// otherwise by opcode and function code.
#[rustfmt::skip]
pub static ROWS: &[Row] = &[
    // ---- PALcode format, opcode 0x00 (Handbook 3.3.5; names: appendix D
    // and the Linux/OSF PALcode, as objdump prints them).
    pal("halt", pal::HALT, Alias),
    pal("draina", pal::DRAINA, Alias),
    pal("bpt", pal::BPT, Alias),
    pal("bugchk", pal::BUGCHK, Alias),
    pal("callsys", pal::CALLSYS, Alias),
    pal("chmk", pal::CALLSYS, AsmOnly),
    pal("imb", pal::IMB, Alias),
    pal("rduniq", pal::RDUNIQ, Alias),
    pal("wruniq", pal::WRUNIQ, Alias),
    pal("gentrap", pal::GENTRAP, Alias),
    pcd("call_pal", Op::CallPal, 0x00),
    row("pal", Op::CallPal, Format::Pal, 0x00, 0, PCD, Base, AsmOnly, Q_NONE),

    // ---- Memory format, integer (Handbook 4.2).
    mem_alias("lda", Op::Lda, 0x08, &[Ra, Mdisp, ZB]),
    mem("lda", Op::Lda, 0x08, Base),
    mem_alias("ldah", Op::Ldah, 0x09, &[Ra, Mdisp, ZB]),
    mem("ldah", Op::Ldah, 0x09, Base),
    mem("ldbu", Op::Ldbu, 0x0a, Bwx),
    // UNOP is LDQ_U R31,0(Rx) (Handbook A.4.1); objdump prints any LDQ_U
    // to R31 as `unop`. The assembler encodes `unop` as LDQ_U R31,0(R30).
    mem_alias("unop", Op::LdqU, 0x0b, &[ZA]),
    mem("ldq_u", Op::LdqU, 0x0b, Base),
    mem("ldwu", Op::Ldwu, 0x0c, Bwx),
    mem("stw", Op::Stw, 0x0d, Bwx),
    mem("stb", Op::Stb, 0x0e, Bwx),
    mem("stq_u", Op::StqU, 0x0f, Base),

    // ---- Integer arithmetic, opcode 0x10 (Handbook 4.4).
    opr_alias("sextl", Op::Addl, 0x10, 0x00, OPRZ1_LIT, Alias),
    opr("addl", Op::Addl, 0x10, 0x00),
    opr("s4addl", Op::S4addl, 0x10, 0x02),
    opr_alias("negl", Op::Subl, 0x10, 0x09, OPRZ1_LIT, Alias),
    opr("subl", Op::Subl, 0x10, 0x09),
    opr("s4subl", Op::S4subl, 0x10, 0x0b),
    opr("cmpbge", Op::Cmpbge, 0x10, 0x0f),
    opr("s8addl", Op::S8addl, 0x10, 0x12),
    opr("s8subl", Op::S8subl, 0x10, 0x1b),
    opr("cmpult", Op::Cmpult, 0x10, 0x1d),
    opr("addq", Op::Addq, 0x10, 0x20),
    opr("s4addq", Op::S4addq, 0x10, 0x22),
    opr_alias("negq", Op::Subq, 0x10, 0x29, OPRZ1_LIT, Alias),
    opr("subq", Op::Subq, 0x10, 0x29),
    opr("s4subq", Op::S4subq, 0x10, 0x2b),
    opr("cmpeq", Op::Cmpeq, 0x10, 0x2d),
    opr("s8addq", Op::S8addq, 0x10, 0x32),
    opr("s8subq", Op::S8subq, 0x10, 0x3b),
    opr("cmpule", Op::Cmpule, 0x10, 0x3d),
    opr("addl/v", Op::AddlV, 0x10, 0x40),
    opr_alias("negl/v", Op::SublV, 0x10, 0x49, OPRZ1_LIT, Alias),
    opr("subl/v", Op::SublV, 0x10, 0x49),
    opr("cmplt", Op::Cmplt, 0x10, 0x4d),
    opr("addq/v", Op::AddqV, 0x10, 0x60),
    opr_alias("negq/v", Op::SubqV, 0x10, 0x69, OPRZ1_LIT, Alias),
    opr("subq/v", Op::SubqV, 0x10, 0x69),
    opr("cmple", Op::Cmple, 0x10, 0x6d),

    // ---- Logical and conditional move, opcode 0x11 (Handbook 4.5).
    opr("and", Op::And, 0x11, 0x00),
    // objdump prints BIC as `andnot` (its alias comes first).
    opr_alias("andnot", Op::Bic, 0x11, 0x08, OPR, Alias),
    opr("bic", Op::Bic, 0x11, 0x08),
    opr("cmovlbs", Op::Cmovlbs, 0x11, 0x14),
    opr("cmovlbc", Op::Cmovlbc, 0x11, 0x16),
    opr_alias("nop", Op::Bis, 0x11, 0x20, &[ZA, ZB, ZC], Alias),
    opr_alias("clr", Op::Bis, 0x11, 0x20, &[ZA, ZB, Rc], Alias),
    opr_alias("mov", Op::Bis, 0x11, 0x20, &[ZA, Rb, Rc], Alias),
    opr_alias("mov", Op::Bis, 0x11, 0x20, &[Ra, Rba, Rc], Alias),
    opr_alias("mov", Op::Bis, 0x11, 0x20, &[ZA, Lit, Rc], Alias),
    opr_alias("or", Op::Bis, 0x11, 0x20, OPR, Alias),
    opr("bis", Op::Bis, 0x11, 0x20),
    opr("cmoveq", Op::Cmoveq, 0x11, 0x24),
    opr("cmovne", Op::Cmovne, 0x11, 0x26),
    opr_alias("not", Op::Ornot, 0x11, 0x28, OPRZ1_LIT, Alias),
    opr("ornot", Op::Ornot, 0x11, 0x28),
    opr("xor", Op::Xor, 0x11, 0x40),
    opr("cmovlt", Op::Cmovlt, 0x11, 0x44),
    opr("cmovge", Op::Cmovge, 0x11, 0x46),
    opr("eqv", Op::Eqv, 0x11, 0x48),
    opr_alias("xornot", Op::Eqv, 0x11, 0x48, OPR, AsmOnly),
    // AMASK Rb.rq/#lit, Rc (Handbook 4.11.1); Ra must be R31.
    oprx("amask", Op::Amask, 0x11, 0x61, OPRZ1_LIT, Base),
    opr("cmovle", Op::Cmovle, 0x11, 0x64),
    opr("cmovgt", Op::Cmovgt, 0x11, 0x66),
    // IMPLVER Rc (Handbook 4.11.3): encoded with Ra = R31 and literal #1.
    oprx("implver", Op::Implver, 0x11, 0x6c, &[ZA, Fix { shift: 12, width: 9, value: 3 }, Rc], Base),

    // ---- Shift and byte manipulation, opcode 0x12 (Handbook 4.6).
    opr("mskbl", Op::Mskbl, 0x12, 0x02),
    opr("extbl", Op::Extbl, 0x12, 0x06),
    opr("insbl", Op::Insbl, 0x12, 0x0b),
    opr("mskwl", Op::Mskwl, 0x12, 0x12),
    opr("extwl", Op::Extwl, 0x12, 0x16),
    opr("inswl", Op::Inswl, 0x12, 0x1b),
    opr("mskll", Op::Mskll, 0x12, 0x22),
    opr("extll", Op::Extll, 0x12, 0x26),
    opr("insll", Op::Insll, 0x12, 0x2b),
    opr("zap", Op::Zap, 0x12, 0x30),
    opr("zapnot", Op::Zapnot, 0x12, 0x31),
    opr("mskql", Op::Mskql, 0x12, 0x32),
    opr("srl", Op::Srl, 0x12, 0x34),
    opr("extql", Op::Extql, 0x12, 0x36),
    opr("sll", Op::Sll, 0x12, 0x39),
    opr("insql", Op::Insql, 0x12, 0x3b),
    opr("sra", Op::Sra, 0x12, 0x3c),
    opr("mskwh", Op::Mskwh, 0x12, 0x52),
    opr("inswh", Op::Inswh, 0x12, 0x57),
    opr("extwh", Op::Extwh, 0x12, 0x5a),
    opr("msklh", Op::Msklh, 0x12, 0x62),
    opr("inslh", Op::Inslh, 0x12, 0x67),
    opr("extlh", Op::Extlh, 0x12, 0x6a),
    opr("mskqh", Op::Mskqh, 0x12, 0x72),
    opr("insqh", Op::Insqh, 0x12, 0x77),
    opr("extqh", Op::Extqh, 0x12, 0x7a),

    // ---- Integer multiply, opcode 0x13 (Handbook 4.4).
    opr("mull", Op::Mull, 0x13, 0x00),
    opr("mulq", Op::Mulq, 0x13, 0x20),
    opr("umulh", Op::Umulh, 0x13, 0x30),
    opr("mull/v", Op::MullV, 0x13, 0x40),
    opr("mulq/v", Op::MulqV, 0x13, 0x60),

    // ---- FIX: integer-to-float moves and square root, opcode 0x14
    // (Handbook 4.7.x, 4.10; AMASK bit 1).
    fp("itofs", Op::Itofs, 0x14, 0x004, &[Ra, ZB, Fc], FixExt, Q_NONE),
    fp("sqrtf", Op::Sqrtf, 0x14, 0x00a, FPZ1, FixExt, Q_VAX),
    fp("sqrts", Op::Sqrts, 0x14, 0x00b, FPZ1, FixExt, Q_IEEE),
    fp("itoff", Op::Itoff, 0x14, 0x014, &[Ra, ZB, Fc], FixExt, Q_NONE),
    fp("itoft", Op::Itoft, 0x14, 0x024, &[Ra, ZB, Fc], FixExt, Q_NONE),
    fp("sqrtg", Op::Sqrtg, 0x14, 0x02a, FPZ1, FixExt, Q_VAX),
    fp("sqrtt", Op::Sqrtt, 0x14, 0x02b, FPZ1, FixExt, Q_IEEE),

    // ---- VAX floating, opcode 0x15 (Handbook 4.10).
    fp("addf", Op::Addf, 0x15, 0x000, FP, Base, Q_VAX),
    fp_alias("negf", Op::Subf, 0x15, 0x001, FPZ1, Q_NEGV),
    fp("subf", Op::Subf, 0x15, 0x001, FP, Base, Q_VAX),
    fp("mulf", Op::Mulf, 0x15, 0x002, FP, Base, Q_VAX),
    fp("divf", Op::Divf, 0x15, 0x003, FP, Base, Q_VAX),
    fp("cvtdg", Op::Cvtdg, 0x15, 0x01e, FPZ1, Base, Q_VAX),
    fp("addg", Op::Addg, 0x15, 0x020, FP, Base, Q_VAX),
    fp_alias("negg", Op::Subg, 0x15, 0x021, FPZ1, Q_NEGV),
    fp("subg", Op::Subg, 0x15, 0x021, FP, Base, Q_VAX),
    fp("mulg", Op::Mulg, 0x15, 0x022, FP, Base, Q_VAX),
    fp("divg", Op::Divg, 0x15, 0x023, FP, Base, Q_VAX),
    fp("cmpgeq", Op::Cmpgeq, 0x15, 0x025, FP, Base, Q_CMPG),
    fp("cmpglt", Op::Cmpglt, 0x15, 0x026, FP, Base, Q_CMPG),
    fp("cmpgle", Op::Cmpgle, 0x15, 0x027, FP, Base, Q_CMPG),
    fp("cvtgf", Op::Cvtgf, 0x15, 0x02c, FPZ1, Base, Q_VAX),
    fp("cvtgd", Op::Cvtgd, 0x15, 0x02d, FPZ1, Base, Q_VAX),
    fp("cvtgq", Op::Cvtgq, 0x15, 0x02f, FPZ1, Base, Q_CVTGQ),
    fp("cvtqf", Op::Cvtqf, 0x15, 0x03c, FPZ1, Base, Q_CVTQV),
    fp("cvtqg", Op::Cvtqg, 0x15, 0x03e, FPZ1, Base, Q_CVTQV),

    // ---- IEEE floating, opcode 0x16 (Handbook 4.10).
    fp("adds", Op::Adds, 0x16, 0x000, FP, Base, Q_IEEE),
    fp_alias("negs", Op::Subs, 0x16, 0x001, FPZ1, Q_NEGI),
    fp("subs", Op::Subs, 0x16, 0x001, FP, Base, Q_IEEE),
    fp("muls", Op::Muls, 0x16, 0x002, FP, Base, Q_IEEE),
    fp("divs", Op::Divs, 0x16, 0x003, FP, Base, Q_IEEE),
    fp("addt", Op::Addt, 0x16, 0x020, FP, Base, Q_IEEE),
    fp_alias("negt", Op::Subt, 0x16, 0x021, FPZ1, Q_NEGI),
    fp("subt", Op::Subt, 0x16, 0x021, FP, Base, Q_IEEE),
    fp("mult", Op::Mult, 0x16, 0x022, FP, Base, Q_IEEE),
    fp("divt", Op::Divt, 0x16, 0x023, FP, Base, Q_IEEE),
    fp("cmptun", Op::Cmptun, 0x16, 0x024, FP, Base, Q_CMPT),
    fp("cmpteq", Op::Cmpteq, 0x16, 0x025, FP, Base, Q_CMPT),
    fp("cmptlt", Op::Cmptlt, 0x16, 0x026, FP, Base, Q_CMPT),
    fp("cmptle", Op::Cmptle, 0x16, 0x027, FP, Base, Q_CMPT),
    fp("cvtts", Op::Cvtts, 0x16, 0x02c, FPZ1, Base, Q_IEEE),
    fp("cvttq", Op::Cvttq, 0x16, 0x02f, FPZ1, Base, Q_CVTTQ),
    fp("cvtqs", Op::Cvtqs, 0x16, 0x03c, FPZ1, Base, Q_CVTQ),
    fp("cvtqt", Op::Cvtqt, 0x16, 0x03e, FPZ1, Base, Q_CVTQ),
    fp("cvtst", Op::Cvtst, 0x16, 0x02c, FPZ1, Base, Q_CVTST),

    // ---- Floating datatype-independent, opcode 0x17 (Handbook 4.9).
    fp("cvtlq", Op::Cvtlq, 0x17, 0x010, FPZ1, Base, Q_NONE),
    fp_alias("fnop", Op::Cpys, 0x17, 0x020, &[ZA, ZB, ZC], Q_NONE),
    fp_alias("fclr", Op::Cpys, 0x17, 0x020, &[ZA, ZB, Fc], Q_NONE),
    fp_alias("fabs", Op::Cpys, 0x17, 0x020, FPZ1, Q_NONE),
    fp_alias("fmov", Op::Cpys, 0x17, 0x020, &[Fa, Rba, Fc], Q_NONE),
    fp("cpys", Op::Cpys, 0x17, 0x020, FP, Base, Q_NONE),
    fp_alias("fneg", Op::Cpysn, 0x17, 0x021, &[Fa, Rba, Fc], Q_NONE),
    fp("cpysn", Op::Cpysn, 0x17, 0x021, FP, Base, Q_NONE),
    fp("cpyse", Op::Cpyse, 0x17, 0x022, FP, Base, Q_NONE),
    fp("mt_fpcr", Op::MtFpcr, 0x17, 0x024, &[Fa, Rba, Rca], Base, Q_NONE),
    fp("mf_fpcr", Op::MfFpcr, 0x17, 0x025, &[Fa, Rba, Rca], Base, Q_NONE),
    fp("fcmoveq", Op::Fcmoveq, 0x17, 0x02a, FP, Base, Q_NONE),
    fp("fcmovne", Op::Fcmovne, 0x17, 0x02b, FP, Base, Q_NONE),
    fp("fcmovlt", Op::Fcmovlt, 0x17, 0x02c, FP, Base, Q_NONE),
    fp("fcmovge", Op::Fcmovge, 0x17, 0x02d, FP, Base, Q_NONE),
    fp("fcmovle", Op::Fcmovle, 0x17, 0x02e, FP, Base, Q_NONE),
    fp("fcmovgt", Op::Fcmovgt, 0x17, 0x02f, FP, Base, Q_NONE),
    fp("cvtql", Op::Cvtql, 0x17, 0x030, FPZ1, Base, Q_CVTQL),

    // ---- Memory-function format, opcode 0x18 (Handbook 4.11).
    mfc("trapb", Op::Trapb, 0x0000, NONE, Insn),
    mfc("draint", Op::Trapb, 0x0000, NONE, AsmOnly),
    mfc("excb", Op::Excb, 0x0400, NONE, Insn),
    mfc("mb", Op::Mb, 0x4000, NONE, Insn),
    mfc("wmb", Op::Wmb, 0x4400, NONE, Insn),
    mfc("fetch", Op::Fetch, 0x8000, ZA_PRB, Insn),
    mfc("fetch_m", Op::FetchM, 0xa000, ZA_PRB, Insn),
    mfc("rpcc", Op::Rpcc, 0xc000, &[Ra, ZB], Alias),
    mfc("rpcc", Op::Rpcc, 0xc000, &[Ra, Rb], Insn),
    mfc("rc", Op::Rc, 0xe000, &[Ra], Insn),
    mfc("ecb", Op::Ecb, 0xe800, ZA_PRB, Insn),
    mfc("rs", Op::Rs, 0xf000, &[Ra], Insn),
    mfc("wh64", Op::Wh64, 0xf800, ZA_PRB, Insn),
    mfc("wh64en", Op::Wh64en, 0xfc00, ZA_PRB, Insn),

    // ---- PALcode-reserved opcodes (HW_MFPR, HW_LD, HW_MTPR, HW_REI, HW_ST
    // are implementation specific; objdump -m alpha prints palNN).
    pcd("pal19", Op::Pal19, 0x19),

    // ---- Jump format, opcode 0x1A (Handbook 4.3.2).
    jmp("jmp", Op::Jmp, 0, &[ZA, Cprb, Fix { shift: 0, width: 14, value: 0 }], Alias),
    jmp("jmp", Op::Jmp, 0, JMP, Insn),
    jmp("jsr", Op::Jsr, 1, JMP, Insn),
    // `ret` alone is RET R31,(R26),1 exactly (Handbook A.4.2); printed without operands.
    Row { exact: true, ..jmp("ret", Op::Ret, 0x03fa_8001, NONE, Alias) },
    jmp("ret", Op::Ret, 2, RET, Insn),
    jmp("jcr", Op::JsrCoroutine, 3, RET, Alias),
    jmp("jsr_coroutine", Op::JsrCoroutine, 3, RET, Insn),

    pcd("pal1b", Op::Pal1b, 0x1b),

    // ---- Opcode 0x1C: BWX sign extension, CIX counts, MVI, FIX moves
    // (Handbook 4.6.x, 4.12, 4.13).
    oprx("sextb", Op::Sextb, 0x1c, 0x00, OPRZ1, Bwx),
    oprx("sextw", Op::Sextw, 0x1c, 0x01, OPRZ1, Bwx),
    oprx("ctpop", Op::Ctpop, 0x1c, 0x30, OPRZ1, Cix),
    oprx("perr", Op::Perr, 0x1c, 0x31, OPR_REG, Mvi),
    oprx("ctlz", Op::Ctlz, 0x1c, 0x32, OPRZ1, Cix),
    oprx("cttz", Op::Cttz, 0x1c, 0x33, OPRZ1, Cix),
    oprx("unpkbw", Op::Unpkbw, 0x1c, 0x34, OPRZ1, Mvi),
    oprx("unpkbl", Op::Unpkbl, 0x1c, 0x35, OPRZ1, Mvi),
    oprx("pkwb", Op::Pkwb, 0x1c, 0x36, OPRZ1, Mvi),
    oprx("pklb", Op::Pklb, 0x1c, 0x37, OPRZ1, Mvi),
    oprx("minsb8", Op::Minsb8, 0x1c, 0x38, OPR, Mvi),
    oprx("minsw4", Op::Minsw4, 0x1c, 0x39, OPR, Mvi),
    oprx("minub8", Op::Minub8, 0x1c, 0x3a, OPR, Mvi),
    oprx("minuw4", Op::Minuw4, 0x1c, 0x3b, OPR, Mvi),
    oprx("maxub8", Op::Maxub8, 0x1c, 0x3c, OPR, Mvi),
    oprx("maxuw4", Op::Maxuw4, 0x1c, 0x3d, OPR, Mvi),
    oprx("maxsb8", Op::Maxsb8, 0x1c, 0x3e, OPR, Mvi),
    oprx("maxsw4", Op::Maxsw4, 0x1c, 0x3f, OPR, Mvi),
    fp("ftoit", Op::Ftoit, 0x1c, 0x070, &[Fa, ZB, Rc], FixExt, Q_NONE),
    fp("ftois", Op::Ftois, 0x1c, 0x078, &[Fa, ZB, Rc], FixExt, Q_NONE),

    pcd("pal1d", Op::Pal1d, 0x1d),
    pcd("pal1e", Op::Pal1e, 0x1e),
    pcd("pal1f", Op::Pal1f, 0x1f),

    // ---- Memory format, floating (Handbook 4.8).
    fmem("ldf", Op::Ldf, 0x20),
    fmem("ldg", Op::Ldg, 0x21),
    fmem("lds", Op::Lds, 0x22),
    fmem("ldt", Op::Ldt, 0x23),
    fmem("stf", Op::Stf, 0x24),
    fmem("stg", Op::Stg, 0x25),
    fmem("sts", Op::Sts, 0x26),
    fmem("stt", Op::Stt, 0x27),

    // ---- Memory format, integer, longword/quadword (Handbook 4.2).
    mem("ldl", Op::Ldl, 0x28, Base),
    mem("ldq", Op::Ldq, 0x29, Base),
    mem("ldl_l", Op::LdlL, 0x2a, Base),
    mem("ldq_l", Op::LdqL, 0x2b, Base),
    mem("stl", Op::Stl, 0x2c, Base),
    mem("stq", Op::Stq, 0x2d, Base),
    mem("stl_c", Op::StlC, 0x2e, Base),
    mem("stq_c", Op::StqC, 0x2f, Base),

    // ---- Branch format (Handbook 4.3.1, 4.9.x).
    row("br", Op::Br, Format::Branch, 0x30, 0, &[ZA, Bdisp], Base, Alias, Q_NONE),
    bra("br", Op::Br, 0x30, BRA),
    bra("fbeq", Op::Fbeq, 0x31, FBRA),
    bra("fblt", Op::Fblt, 0x32, FBRA),
    bra("fble", Op::Fble, 0x33, FBRA),
    bra("bsr", Op::Bsr, 0x34, BRA),
    bra("fbne", Op::Fbne, 0x35, FBRA),
    bra("fbge", Op::Fbge, 0x36, FBRA),
    bra("fbgt", Op::Fbgt, 0x37, FBRA),
    bra("blbc", Op::Blbc, 0x38, BRA),
    bra("beq", Op::Beq, 0x39, BRA),
    bra("blt", Op::Blt, 0x3a, BRA),
    bra("ble", Op::Ble, 0x3b, BRA),
    bra("blbs", Op::Blbs, 0x3c, BRA),
    bra("bne", Op::Bne, 0x3d, BRA),
    bra("bge", Op::Bge, 0x3e, BRA),
    bra("bgt", Op::Bgt, 0x3f, BRA),
];

impl Row {
    /// Bits of the word this row fixes, besides fake operands: the opcode
    /// and the function field of its format.
    pub fn mask(&self) -> u32 {
        let op = 0xfc00_0000;
        if self.exact {
            return 0xffff_ffff;
        }
        match self.format {
            Format::Pal | Format::Memory | Format::Branch => op,
            Format::MemoryFunc => op | 0xffff,
            Format::Jump => op | 0xc000,
            Format::Operate => op | 0x0fe0,
            Format::FpOperate => op | 0xffe0,
        }
    }

    /// The fixed bits for qualifier variant `q` (value of function bits
    /// 10:6, or `None` for rows without qualifiers).
    pub fn bits(&self, q: Option<u16>) -> u32 {
        let op = (self.opcode as u32) << 26;
        if self.exact {
            return op | (self.func & 0x03ff_ffff);
        }
        match self.format {
            Format::Pal => op | (self.func & 0x03ff_ffff),
            Format::Memory | Format::Branch => op,
            Format::MemoryFunc => op | (self.func & 0xffff),
            Format::Jump => op | ((self.func & 3) << 14),
            Format::Operate => op | ((self.func & 0x7f) << 5),
            Format::FpOperate => {
                let f = match q {
                    Some(q) => (self.func & 0x3f) | q as u32,
                    None => self.func & 0x7ff,
                };
                op | (f << 5)
            }
        }
    }

    /// Every (suffix, fixed bits) encoding this row stands for.
    pub fn variants(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        let plain = std::iter::once(("", self.bits(None)));
        let quals = self.quals.0.iter().map(|&(s, q)| (s, self.bits(Some(q))));
        let has_quals = !self.quals.0.is_empty();
        plain.filter(move |_| !has_quals).chain(quals)
    }
}

impl Row {
    /// Set the fields this row's fake operands fix (R31 fields, RB = RA,
    /// RC = RA, the Operate register/literal form bit) in `word`.
    pub fn apply_fakes(&self, mut word: u32) -> u32 {
        let ra = (word >> 21) & 31;
        for op in self.syntax {
            match *op {
                Operand::Fix {
                    shift,
                    width,
                    value,
                } => {
                    let m = ((1u32 << width) - 1) << shift;
                    word = (word & !m) | ((value as u32) << shift);
                    if self.format == Format::Operate && shift == 16 {
                        word &= !0x1000;
                    }
                }
                Operand::Rba => {
                    word = (word & !(31 << 16)) | (ra << 16);
                    if self.format == Format::Operate {
                        word &= !0x1000;
                    }
                }
                Operand::Rca => word = (word & !31) | ra,
                Operand::Rb if self.format == Format::Operate => word &= !0x1000,
                Operand::Lit => word |= 0x1000,
                _ => {}
            }
        }
        word
    }
}
