//! The decoded-instruction value shared by every reader of the table.
//!
//! INTERFACE CONTRACT (relied on by `alpha-emu`; extend, do not rename):
//! - `decode(word: u32) -> Insn` is total: every 32-bit word yields an `Insn`;
//!   words no row claims have `op == Op::Illegal` (the hardware's OPCDEC).
//! - `Insn` is `Copy`, small, and holds already-extracted fields.
//! - `Op::ext()` names the extension an instruction needs (`Ext::Base` when none).

/// Instruction formats of the Handbook (section 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// PALcode: opcode 0x00, 26-bit function.
    Pal,
    /// Memory: `ra, disp(rb)`, 16-bit signed displacement.
    Memory,
    /// Memory with function code in the displacement field (opcode 0x18: MB, RPCC, …).
    MemoryFunc,
    /// Memory-format jump (opcode 0x1A): `ra, (rb), hint`.
    Jump,
    /// Branch: `ra, disp`, 21-bit signed longword displacement.
    Branch,
    /// Integer operate: `ra, rb|#lit, rc`, 7-bit function.
    Operate,
    /// Floating-point operate: `fa, fb, fc`, 11-bit function.
    FpOperate,
}

/// ISA extensions gated by `AMASK` (Handbook Appendix D, table D-3), plus the
/// floating-point unit itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ext {
    /// Always present.
    Base,
    /// Byte/word extension, AMASK bit 0.
    Bwx,
    /// Square-root and floating-point convert extension, AMASK bit 1.
    Fix,
    /// Count extension, AMASK bit 2.
    Cix,
    /// Multimedia extension, AMASK bit 8.
    Mvi,
}

/// A decoded instruction. Field meaning depends on `op`'s format:
/// - Memory / Jump / MemoryFunc: `ra`, `rb`; `disp` is the sign-extended
///   16-bit displacement (Jump: the 14-bit hint, zero-extended; MemoryFunc:
///   the 16-bit function).
/// - Branch: `ra`; `disp` is the sign-extended 21-bit *longword* displacement.
/// - Operate: `ra`, `rb` or `lit` (when `lit` is `Some`), `rc`.
/// - FpOperate: `ra`, `rb`, `rc` are floating registers; `func` is the full
///   11-bit function (qualifiers included).
/// - Pal: `func` is the 26-bit PALcode function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub op: Op,
    pub ra: u8,
    pub rb: u8,
    pub rc: u8,
    pub lit: Option<u8>,
    pub disp: i32,
    pub func: u32,
}

/// One variant per instruction of the Handbook (floating-point qualifier
/// variants share a variant; their qualifier bits stay in `Insn::func`).
/// Names are the Handbook mnemonics in CamelCase (`LDQ_U` → `LdqU`,
/// `S4ADDL` → `S4addl`, `ADDL/V` → `AddlV`, `MT_FPCR` → `MtFpcr`).
/// The table (`table.rs`) is the only place that gives each variant its
/// opcode, function code, format, operand syntax and extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// No row claims the word: OPCDEC on the hardware.
    Illegal,
    // PALcode format (opcode 0x00).
    CallPal,
    // Memory format, integer (0x08-0x0F, 0x28-0x2F).
    Lda,
    Ldah,
    Ldbu,
    LdqU,
    Ldwu,
    Stw,
    Stb,
    StqU,
    Ldl,
    Ldq,
    LdlL,
    LdqL,
    Stl,
    Stq,
    StlC,
    StqC,
    // Memory format, floating (0x20-0x27).
    Ldf,
    Ldg,
    Lds,
    Ldt,
    Stf,
    Stg,
    Sts,
    Stt,
    // Memory-function format (0x18).
    Trapb,
    Excb,
    Mb,
    Wmb,
    Fetch,
    FetchM,
    Rpcc,
    Rc,
    Ecb,
    Rs,
    Wh64,
    Wh64en,
    // Jump format (0x1A).
    Jmp,
    Jsr,
    Ret,
    JsrCoroutine,
    // Branch format (0x30-0x3F).
    Br,
    Fbeq,
    Fblt,
    Fble,
    Bsr,
    Fbne,
    Fbge,
    Fbgt,
    Blbc,
    Beq,
    Blt,
    Ble,
    Blbs,
    Bne,
    Bge,
    Bgt,
    // Integer arithmetic (0x10).
    Addl,
    S4addl,
    Subl,
    S4subl,
    Cmpbge,
    S8addl,
    S8subl,
    Cmpult,
    Addq,
    S4addq,
    Subq,
    S4subq,
    Cmpeq,
    S8addq,
    S8subq,
    Cmpule,
    AddlV,
    SublV,
    Cmplt,
    AddqV,
    SubqV,
    Cmple,
    // Integer logical (0x11).
    And,
    Bic,
    Cmovlbs,
    Cmovlbc,
    Bis,
    Cmoveq,
    Cmovne,
    Ornot,
    Xor,
    Cmovlt,
    Cmovge,
    Eqv,
    Amask,
    Cmovle,
    Cmovgt,
    Implver,
    // Shift and byte manipulation (0x12).
    Mskbl,
    Extbl,
    Insbl,
    Mskwl,
    Extwl,
    Inswl,
    Mskll,
    Extll,
    Insll,
    Zap,
    Zapnot,
    Mskql,
    Srl,
    Extql,
    Sll,
    Insql,
    Sra,
    Mskwh,
    Inswh,
    Extwh,
    Msklh,
    Inslh,
    Extlh,
    Mskqh,
    Insqh,
    Extqh,
    // Integer multiply (0x13).
    Mull,
    Mulq,
    Umulh,
    MullV,
    MulqV,
    // BWX sign extension, CIX, MVI, FIX moves (0x1C).
    Sextb,
    Sextw,
    Ctpop,
    Perr,
    Ctlz,
    Cttz,
    Unpkbw,
    Unpkbl,
    Pkwb,
    Pklb,
    Minsb8,
    Minsw4,
    Minub8,
    Minuw4,
    Maxub8,
    Maxuw4,
    Maxsb8,
    Maxsw4,
    Ftoit,
    Ftois,
    // Integer-to-floating and square root (0x14, FIX).
    Itofs,
    Sqrtf,
    Sqrts,
    Itoff,
    Itoft,
    Sqrtg,
    Sqrtt,
    // VAX floating (0x15).
    Addf,
    Subf,
    Mulf,
    Divf,
    Cvtdg,
    Addg,
    Subg,
    Mulg,
    Divg,
    Cmpgeq,
    Cmpglt,
    Cmpgle,
    Cvtgf,
    Cvtgd,
    Cvtgq,
    Cvtqf,
    Cvtqg,
    // IEEE floating (0x16).
    Adds,
    Subs,
    Muls,
    Divs,
    Addt,
    Subt,
    Mult,
    Divt,
    Cmptun,
    Cmpteq,
    Cmptlt,
    Cmptle,
    Cvtts,
    Cvttq,
    Cvtqs,
    Cvtqt,
    Cvtst,
    // Floating datatype-independent (0x17).
    Cvtlq,
    Cpys,
    Cpysn,
    Cpyse,
    MtFpcr,
    MfFpcr,
    Fcmoveq,
    Fcmovne,
    Fcmovlt,
    Fcmovge,
    Fcmovle,
    Fcmovgt,
    Cvtql,
    // Privileged PALcode-reserved opcodes (0x19, 0x1B, 0x1D-0x1F): illegal in user mode.
    Pal19,
    Pal1b,
    Pal1d,
    Pal1e,
    Pal1f,
}

impl Op {
    /// The extension this instruction needs (`Ext::Base` when none), from
    /// its table row.
    pub fn ext(self) -> Ext {
        crate::decode::row_of(self).map_or(Ext::Base, |r| r.ext)
    }

    /// The instruction's mnemonic as objdump spells it (floating-point:
    /// without qualifier suffix); `"illegal"` for `Op::Illegal`.
    pub fn mnemonic(self) -> &'static str {
        crate::decode::row_of(self).map_or("illegal", |r| r.mnemonic)
    }

    /// The instruction format (`None` for `Op::Illegal`).
    pub fn format(self) -> Option<Format> {
        crate::decode::row_of(self).map(|r| r.format)
    }
}

impl Insn {
    /// Floating-point qualifier bits 10:6 of `func` (FP operate only).
    pub fn fp_qualifier(&self) -> u32 {
        self.func & 0x7c0
    }
}
