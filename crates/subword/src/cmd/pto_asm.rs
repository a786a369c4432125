//! `subword pto asm FILE` and `subword pto disasm [--raw] FILE`: the PTO
//! command forms of the TLOAD/TSTORE path, through `pto::asm` (which reads
//! the one form table `pto::forms`).
//!
//! `asm` prints one 32-bit word per line (`0x` and eight hex digits).
//! `disasm` prints `WORD\tTEXT` per word; a word no form accepts is an
//! architectural rejection, printed as `WORD\t<rejected: Fault_IllegalInstruction: reason>`.
//! The input of `disasm` is a text file of hex words (whitespace separated,
//! `0x` optional, `#` comments), or with `--raw` little-endian 32-bit words.

use std::io::Write;
use std::path::Path;

use crate::{CmdResult, Failure, Outcome};

fn read_text(path: &Path) -> Result<String, Failure> {
    let name = crate::files::display(path, false);
    let bytes = crate::files::read(path, crate::files::Input::Source).map_err(Failure)?;
    String::from_utf8(bytes).map_err(|_| {
        Failure(format!(
            "{name}: not a text file (for little-endian binary words use --raw)"
        ))
    })
}

fn finish(out: &mut impl Write) -> CmdResult {
    match out.flush() {
        Ok(()) => Ok(Outcome::Status(0)),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Outcome::Status(0)),
        Err(e) => Err(Failure(format!("stdout: {e}"))),
    }
}

/// `subword pto asm FILE`.
pub fn asm(file: &Path) -> CmdResult {
    let text = read_text(file)?;
    let words = pto::asm::assemble(&text)
        .map_err(|e| Failure(format!("{}: {e}", crate::files::display(file, false))))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for w in words {
        if let Err(e) = writeln!(out, "{w:#010x}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(Outcome::Status(0));
            }
            return Err(Failure(format!("stdout: {e}")));
        }
    }
    finish(&mut out)
}

/// `subword pto disasm [--raw] FILE`.
pub fn disasm(raw: bool, file: &Path) -> CmdResult {
    let name = crate::files::display(file, false);
    let words = if raw {
        let data = crate::files::read(file, crate::files::Input::Words).map_err(Failure)?;
        if data.len() % 4 != 0 {
            return Err(Failure(format!(
                "{name}: {} bytes is not a whole number of 32-bit words",
                data.len()
            )));
        }
        data.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    } else {
        crate::numarg::parse_hex_words(&read_text(file)?, &name).map_err(Failure)?
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for w in words {
        let text = match pto::asm::disassemble(w) {
            Ok(t) => t,
            Err(r) => format!("<rejected: Fault_IllegalInstruction: {}>", r.reason),
        };
        if let Err(e) = writeln!(out, "{w:08x}\t{text}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(Outcome::Status(0));
            }
            return Err(Failure(format!("stdout: {e}")));
        }
    }
    finish(&mut out)
}
