//! `subword alpha scan [--json] BINARY`: which ISA extensions the code of
//! an Alpha ELF needs (count and first addresses, from each instruction's
//! table row) and the non-atomic read-modify-write sub-quadword store
//! sequences it holds (`alpha_isa::scan`). Exit status as for every checker
//! of the contract: 0 when the code holds no non-atomic sub-quadword store
//! sequence, 1 when it holds at least one (extension use alone is reported,
//! not a finding).

use alpha_isa::disasm::REG_NAMES;
use alpha_isa::scan::{scan, Code, ExtUse, Report};
use alpha_isa::symbols::Symbols;
use alpha_isa::Ext;
use serde_json::{json, Value};
use std::io::Write;

use crate::{CmdResult, Failure, Outcome, ScanArgs};

const EXTS: [(Ext, &str); 4] = [
    (Ext::Bwx, "BWX"),
    (Ext::Fix, "FIX"),
    (Ext::Cix, "CIX"),
    (Ext::Mvi, "MVI"),
];

fn where_(syms: &Symbols, a: u64) -> String {
    match syms.describe(a) {
        Some(d) => format!("{a:#x} <{d}>"),
        None => format!("{a:#x}"),
    }
}

fn ext_json(u: &ExtUse, syms: &Symbols) -> Value {
    json!({
        "count": u.count,
        "first": u.first.iter().map(|&(a, w)| json!({
            "address": format!("{a:#x}"),
            "symbol": syms.describe(a),
            "insn": alpha_isa::disasm(a, w).replace('\t', " "),
        })).collect::<Vec<_>>(),
    })
}

fn report_json(path: &str, rep: &Report, syms: &Symbols) -> Value {
    let mut exts = serde_json::Map::new();
    for (e, name) in EXTS {
        exts.insert(
            name.to_string(),
            ext_json(rep.ext(e).expect("extension"), syms),
        );
    }
    json!({
        "binary": path,
        "instructions": rep.insns,
        "extensions": exts,
        "needs": EXTS.iter().filter(|(e, _)| rep.ext(*e).is_some_and(|u| u.count > 0)).map(|(_, n)| *n).collect::<Vec<_>>(),
        "sub_quadword_stores": rep.stores.iter().map(|s| json!({
            "width": s.width.name(),
            "load": format!("{:#x}", s.load),
            "mask": format!("{:#x}", s.mask),
            "store": format!("{:#x}", s.store),
            "symbol": syms.describe(s.store),
            "base": REG_NAMES[s.base as usize],
            "disp": s.disp,
            "unaligned": s.unaligned,
        })).collect::<Vec<_>>(),
    })
}

pub fn run(a: ScanArgs) -> CmdResult {
    let name = crate::files::display(&a.binary, false);
    let data = crate::files::read(&a.binary).map_err(|e| Failure(format!("{name}: {e}")))?;
    let code = alpha_isa::elf::read_code(&data).map_err(|e| Failure(format!("{name}: {e}")))?;
    let all = alpha_isa::elf::read_symbols(&data).map_err(|e| Failure(format!("{name}: {e}")))?;
    let syms = Symbols::for_section(&all, ".text");
    let secs: Vec<Code> = code
        .iter()
        .map(|s| Code {
            addr: s.addr,
            bytes: &s.bytes,
        })
        .collect();
    let rep = scan(&secs);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if a.json {
        writeln!(out, "{}", report_json(&name, &rep, &syms))
    } else {
        write_text(&mut out, &name, &rep, &syms)
    };
    let status = if rep.stores.is_empty() { 0 } else { 1 };
    match res.and_then(|_| out.flush()) {
        Ok(()) => Ok(Outcome::Status(status)),
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Outcome::Status(status)),
        Err(e) => Err(Failure(format!("writing the report: {e}"))),
    }
}

fn write_text(
    out: &mut impl Write,
    name: &str,
    rep: &Report,
    syms: &Symbols,
) -> std::io::Result<()> {
    writeln!(out, "{name}: {} instructions", rep.insns)?;
    for (e, label) in EXTS {
        let u = rep.ext(e).expect("extension");
        if u.count == 0 {
            writeln!(out, "{label}: not used")?;
            continue;
        }
        let firsts: Vec<String> = u
            .first
            .iter()
            .map(|&(ad, w)| {
                format!(
                    "{} {}",
                    where_(syms, ad),
                    alpha_isa::disasm(ad, w).replace('\t', " ")
                )
            })
            .collect();
        writeln!(
            out,
            "{label}: {} instruction(s); first: {}",
            u.count,
            firsts.join("; ")
        )?;
    }
    writeln!(
        out,
        "non-atomic sub-quadword stores (read-modify-write of the containing quadword): {}",
        rep.stores.len()
    )?;
    for s in &rep.stores {
        writeln!(
            out,
            "  {} {} store: load {:#x}, mask {:#x}, store {} to {}({})",
            if s.unaligned {
                "unaligned-quadword"
            } else {
                "aligned-quadword"
            },
            s.width.name(),
            s.load,
            s.mask,
            where_(syms, s.store),
            s.disp,
            REG_NAMES[s.base as usize]
        )?;
    }
    Ok(())
}
