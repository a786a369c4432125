//! `subword alpha disasm [--raw] [--base ADDR] FILE`: one line per word,
//! `ADDR:\tWORD\tMNEMONIC\tOPERANDS`, spelled as GNU objdump spells it
//! (`objdump -D -b binary -m alpha` for `--raw`, `objdump -d` for an ELF,
//! whose branch targets read `120000394 <abort+0x184>`).
//!
//! Words that would lie past the top of the 64-bit address space (a
//! `--base` near 2^64, or such a section) are refused: objdump prints them
//! at addresses wrapped to 0 and then stops with "out of bounds"; a listing
//! that restarts at 0 would be wrong either way.

use std::io::Write;

use alpha_isa::symbols::Symbols;

use crate::{CmdResult, DisasmArgs, Failure, Outcome};

/// Refuses `len` bytes at `addr` that would run past 2^64.
fn fits(name: &str, what: &str, addr: u64, len: usize) -> Result<(), Failure> {
    match len.checked_sub(1) {
        Some(last) if addr.checked_add(last as u64).is_none() => Err(Failure(format!(
            "{name}: {what} {addr:#x}: its {len} bytes would run past the top of the \
             address space (0xffffffffffffffff)"
        ))),
        _ => Ok(()),
    }
}

fn list(
    out: &mut impl Write,
    addr: u64,
    bytes: &[u8],
    syms: Option<&Symbols>,
) -> std::io::Result<()> {
    for (i, c) in bytes.chunks_exact(4).enumerate() {
        // In range: `fits` was asked first.
        let a = addr + 4 * i as u64;
        let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        writeln!(out, "{}", alpha_isa::disasm::listing_line(a, w, syms))?;
    }
    Ok(())
}

pub fn run(a: DisasmArgs) -> CmdResult {
    let name = crate::files::display(&a.file, false);
    let kind = if a.raw {
        crate::files::Input::Words
    } else {
        crate::files::Input::Elf
    };
    let data = crate::files::read(&a.file, kind).map_err(Failure)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if a.raw {
        if data.len() % 4 != 0 {
            return Err(Failure(format!(
                "{name}: {} bytes is not a whole number of 32-bit words",
                data.len()
            )));
        }
        fits(&name, "--base", a.base, data.len())?;
        list(&mut out, a.base, &data, None)
    } else {
        let sections =
            alpha_isa::elf::read_code(&data).map_err(|e| Failure(format!("{name}: {e}")))?;
        // Branch targets are named after the ELF's symbols, as `objdump -d` names them.
        let all =
            alpha_isa::elf::read_symbols(&data).map_err(|e| Failure(format!("{name}: {e}")))?;
        for s in &sections {
            fits(
                &name,
                &format!("section {} at", s.name),
                s.addr,
                s.bytes.len(),
            )?;
        }
        sections.iter().try_for_each(|s| {
            let syms = Symbols::for_section(&all, &s.name);
            list(
                &mut out,
                s.addr,
                &s.bytes[..s.bytes.len() / 4 * 4],
                Some(&syms),
            )
        })
    };
    match res.and_then(|_| out.flush()) {
        Ok(()) => Ok(Outcome::Status(0)),
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Outcome::Status(0)),
        Err(e) => Err(Failure(format!("writing the listing: {e}"))),
    }
}
