//! `subword alpha disasm [--raw] [--base ADDR] FILE`: one line per word,
//! `ADDR:\tWORD\tMNEMONIC\tOPERANDS`, spelled as GNU objdump spells it
//! (`objdump -D -b binary -m alpha` for `--raw`, `objdump -d` for an ELF,
//! whose branch targets read `120000394 <abort+0x184>`).

use std::io::Write;

use alpha_isa::symbols::Symbols;

use crate::{CmdResult, DisasmArgs, Failure, Outcome};

fn list(
    out: &mut impl Write,
    addr: u64,
    bytes: &[u8],
    syms: Option<&Symbols>,
) -> std::io::Result<()> {
    for (i, c) in bytes.chunks_exact(4).enumerate() {
        let a = addr.wrapping_add(4 * i as u64);
        let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        writeln!(out, "{}", alpha_isa::disasm::listing_line(a, w, syms))?;
    }
    Ok(())
}

pub fn run(a: DisasmArgs) -> CmdResult {
    let name = crate::files::display(&a.file, false);
    let data = crate::files::read(&a.file).map_err(|e| Failure(format!("{name}: {e}")))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if a.raw {
        if data.len() % 4 != 0 {
            return Err(Failure(format!(
                "{name}: {} bytes is not a whole number of 32-bit words",
                data.len()
            )));
        }
        list(&mut out, a.base, &data, None)
    } else {
        let sections =
            alpha_isa::elf::read_code(&data).map_err(|e| Failure(format!("{name}: {e}")))?;
        // Branch targets are named after the ELF's symbols, as `objdump -d` names them.
        let all =
            alpha_isa::elf::read_symbols(&data).map_err(|e| Failure(format!("{name}: {e}")))?;
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
