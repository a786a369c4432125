//! Alpha AXP instruction set: the one instruction table and its readers.
//!
//! **Architecture Invariant:** nothing outside this crate knows an Alpha
//! instruction encoding. The table in [`table`] (one row per instruction:
//! mnemonic, format, opcode, function code, operand syntax, required
//! extension) is read by [`decode()`], the disassembler, the assembler, and —
//! through [`Op`] — by the interpreter in `alpha-emu`.
//!
//! Names follow the Alpha Architecture Handbook, version 4 (formats
//! Memory, Memory-function, Branch, Operate, FP operate, PALcode; fields
//! `ra rb rc lit disp func`).
//!
//! Code map: [`table`] (the rows), [`decode`](mod@decode) (word → [`Insn`], total and
//! allocation-free), [`disasm`](mod@disasm) (objdump spelling), [`asm`] (GNU-as syntax
//! → [`Program`]), [`elf`] (static executable writer, code/symbol reader),
//! [`symbols`] (objdump's `<sym+off>` naming), [`models`] (IMPLVER, AMASK,
//! lock range per CPU), [`pal`] (the PALcode function codes). Evidence: `tests/objdump_agrees.rs`,
//! `tests/objdump_elf_agrees.rs`, `tests/gas_agrees.rs`, `tests/qemu_runs.rs`,
//! `tests/decode_closure.rs`.

pub mod asm;
pub mod decode;
pub mod disasm;
pub mod elf;
pub mod insn;
pub mod models;
pub mod pal;
pub mod scan;
pub mod symbols;
pub mod table;

pub use asm::{assemble, assemble_words, AsmError, Program};
pub use decode::{decode, opcode};
pub use disasm::{disasm, disasm_with};
pub use insn::{Ext, Format, Insn, Op};
pub use models::{model_by_name, Model, MODELS};
