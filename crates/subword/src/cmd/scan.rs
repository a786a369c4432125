//! `subword alpha scan [--json] BINARY`: which ISA extensions the code of
//! an Alpha ELF needs (count and first addresses, from each instruction's
//! table row) and the non-atomic read-modify-write sub-quadword store
//! sequences it holds (`alpha_isa::scan`), each site with its symbol and,
//! when the binary has DWARF line tables, its `file:line`
//! (`alpha_emu::symbols`). `--json` also lists those store sequences as
//! `sites`, the places a lost-store finding of `alpha explore` can come from
//! (write-back pc, load pc, symbol, line, shape, the window's
//! instructions from the load to the write-back;
//! `alpha_emu::symbols::store_sites`). Exit status as for every checker
//! of the contract: 0 when the code holds no non-atomic sub-quadword store
//! sequence, 1 when it holds at least one (extension use alone is reported,
//! not a finding).

use alpha_emu::symbols::{StoreSite, Symbolizer};
use alpha_isa::disasm::REG_NAMES;
use alpha_isa::scan::{scan, Code, ExtUse, Report};
use alpha_isa::symbols::Symbols;
use alpha_isa::Ext;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

use crate::{CmdResult, Failure, Outcome, ScanArgs};

const EXTS: [(Ext, &str); 4] = [
    (Ext::Bwx, "BWX"),
    (Ext::Fix, "FIX"),
    (Ext::Cix, "CIX"),
    (Ext::Mvi, "MVI"),
];

/// The symbol and source line of addresses in one binary.
struct Names {
    syms: Symbols,
    lines: Symbolizer,
}

impl Names {
    fn new(path: &Path, syms: Symbols) -> Names {
        let lines = Symbolizer::for_file(path);
        Names { syms, lines }
    }

    fn symbol(&self, a: u64) -> Option<String> {
        self.syms.describe(a)
    }

    /// `file.c:12`, when the line tables know `a`.
    fn line(&self, a: u64) -> Option<String> {
        self.lines.lookup(a)?.file_line()
    }

    /// `0x… <sym+0xNN> (file.c:12)`.
    fn where_(&self, a: u64) -> String {
        let mut s = format!("{a:#x}");
        if let Some(d) = self.symbol(a) {
            s += &format!(" <{d}>");
        }
        if let Some(l) = self.line(a) {
            s += &format!(" ({l})");
        }
        s
    }
}

fn shape(s: &alpha_isa::scan::RmwStore) -> &'static str {
    alpha_emu::symbols::store_shape(s)
}

fn load(path: &Path) -> Result<(Report, Names, Vec<u8>), String> {
    let name = crate::files::display(path, false);
    let data = crate::files::read(path, crate::files::Input::Elf)?;
    let code = alpha_isa::elf::read_code(&data).map_err(|e| format!("{name}: {e}"))?;
    let all = alpha_isa::elf::read_symbols(&data).map_err(|e| format!("{name}: {e}"))?;
    let syms = Symbols::for_section(&all, ".text");
    let secs: Vec<Code> = code
        .iter()
        .map(|s| Code {
            addr: s.addr,
            bytes: &s.bytes,
        })
        .collect();
    let rep = scan(&secs);
    Ok((rep, Names::new(path, syms), data))
}

fn ext_json(u: &ExtUse, names: &Names) -> Value {
    json!({
        "count": u.count,
        "first": u.first.iter().map(|&(a, w)| json!({
            "address": format!("{a:#x}"),
            "symbol": names.symbol(a),
            "line": names.line(a),
            "insn": alpha_isa::disasm(a, w).replace('\t', " "),
        })).collect::<Vec<_>>(),
    })
}

fn report_json(path: &str, rep: &Report, names: &Names, sites: &[StoreSite]) -> Value {
    let mut exts = serde_json::Map::new();
    for (e, name) in EXTS {
        exts.insert(
            name.to_string(),
            ext_json(rep.ext(e).expect("extension"), names),
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
            "symbol": names.symbol(s.store),
            "line": names.line(s.store),
            "base": REG_NAMES[s.base as usize],
            "disp": s.disp,
            "unaligned": s.unaligned,
        })).collect::<Vec<_>>(),
        "sites": sites.iter().map(|s| json!({
            "pc": format!("{:#x}", s.pc),
            "load_pc": format!("{:#x}", s.load_pc),
            "symbol": s.symbol,
            "line": s.line,
            "shape": s.shape,
            "width": s.width,
            "load_symbol": names.symbol(s.load_pc),
            "load_line": names.line(s.load_pc),
            "insns": s.insns.iter().map(|(pc, i)| json!({"pc": format!("{pc:#x}"), "insn": i})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

pub fn run(a: ScanArgs) -> CmdResult {
    let name = crate::files::display(&a.binary, false);
    let (rep, names, data) = load(&a.binary).map_err(Failure)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if a.json {
        let sites = alpha_emu::symbols::store_sites(&a.binary, &data).map_err(Failure)?;
        writeln!(out, "{}", report_json(&name, &rep, &names, &sites))
    } else {
        write_text(&mut out, &name, &rep, &names)
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
    names: &Names,
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
                    names.where_(ad),
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
            shape(s),
            s.width.name(),
            s.load,
            s.mask,
            names.where_(s.store),
            s.disp,
            REG_NAMES[s.base as usize]
        )?;
    }
    Ok(())
}
