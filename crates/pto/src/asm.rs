//! Assembler and disassembler for the forms of [`crate::forms`], in the
//! spec's assembly syntax.

use std::fmt;

/// Assembly error: the 1-based statement and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub statement: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "statement {}: {}", self.statement, self.message)
    }
}

impl std::error::Error for AsmError {}

/// An undecodable word: an architectural rejection
/// (`Fault_IllegalInstruction`), with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub word: u32,
    pub reason: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rejected (Fault_IllegalInstruction): {}", self.reason)
    }
}

impl std::error::Error for Rejection {}

/// Assembles `;`- or newline-separated statements into 32-bit words.
pub fn assemble(text: &str) -> Result<Vec<u32>, AsmError> {
    let _ = text;
    Err(AsmError {
        statement: 1,
        message: "assembler not built yet".into(),
    })
}

/// Disassembles one word.
pub fn disassemble(word: u32) -> Result<String, Rejection> {
    Err(Rejection {
        word,
        reason: "disassembler not built yet".into(),
    })
}
