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
    let bytes = crate::files::read(path).map_err(|e| Failure(format!("{name}: {e}")))?;
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

/// Parses a text file of hex words.
pub fn parse_hex_words(text: &str, name: &str) -> Result<Vec<u32>, Failure> {
    let mut words = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let h = tok
                .strip_prefix("0x")
                .or_else(|| tok.strip_prefix("0X"))
                .unwrap_or(tok);
            let w = u32::from_str_radix(&h.replace('_', ""), 16).map_err(|_| {
                Failure(format!(
                    "{name}:{}: `{tok}` is not a 32-bit hex word",
                    i + 1
                ))
            })?;
            words.push(w);
        }
    }
    Ok(words)
}

/// `subword pto disasm [--raw] FILE`.
pub fn disasm(raw: bool, file: &Path) -> CmdResult {
    let name = crate::files::display(file, false);
    let words = if raw {
        let data = crate::files::read(file).map_err(|e| Failure(format!("{name}: {e}")))?;
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
        parse_hex_words(&read_text(file)?, &name)?
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

#[cfg(test)]
mod tests {
    use super::parse_hex_words;

    #[test]
    fn hex_word_files_accept_prefixes_comments_and_name_bad_tokens() {
        let w = parse_hex_words("0xe0111181 00085e13 # comment\n0X0031_0013,1\n", "f").unwrap();
        assert_eq!(w, [0xe011_1181, 0x0008_5e13, 0x0031_0013, 1]);
        let e = parse_hex_words("1\n0x1g\n", "words.txt").unwrap_err();
        assert_eq!(e.0, "words.txt:2: `0x1g` is not a 32-bit hex word");
        assert!(
            parse_hex_words("123456789", "f").is_err(),
            "more than 32 bits"
        );
    }
}
