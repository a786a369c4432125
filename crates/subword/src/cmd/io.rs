//! `alpha io encode` / `alpha io decode`: chipset window addresses from the
//! tables in `alpha_emu::chipset`.

use crate::{CmdResult, Failure, IoCmd, Outcome};
use alpha_emu::chipset::{self, Decoded, Encoded, WindowKind};
use serde_json::{json, Value};

fn hex(v: u64) -> String {
    format!("0x{v:x}")
}

/// A window named as the contract, a Linux header or a manual names it (a
/// chipset may answer to two names for one window: `Window::also`).
fn window(name: &str) -> Result<WindowKind, Failure> {
    WindowKind::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = WindowKind::ALL.iter().map(|k| k.name()).collect();
        Failure(format!(
            "unknown window `{name}` (one of: {})",
            names.join(" ")
        ))
    })
}

/// The contract's object; a window with a note (`Window::note`) adds
/// `"note"`.
fn encoded_json(e: &Encoded) -> Value {
    let mut v = json!({
        "chipset": e.chipset,
        "window": e.window.name(),
        "phys": hex(e.phys),
        "lane": e.lane,
        "length_code": e.length_code,
        "hae": e.hae.map(hex),
    });
    if let Some(n) = e.note {
        v["note"] = json!(n);
    }
    v
}

/// The window's note, as a second line of the text output.
fn note_line(e: &Encoded) {
    if let Some(n) = e.note {
        println!("note: {n}");
    }
}

fn encoded_text(e: &Encoded) -> String {
    let opt = |v: Option<u64>, h: bool| match v {
        None => "-".to_string(),
        Some(v) if h => hex(v),
        Some(v) => v.to_string(),
    };
    format!(
        "{} {} bus=0x{:x} size={}: phys=0x{:x} lane={} length_code={} hae={}",
        e.chipset,
        e.window.name(),
        e.bus,
        e.size,
        e.phys,
        opt(e.lane.map(u64::from), false),
        opt(e.length_code.map(u64::from), false),
        opt(e.hae, true)
    )
}

pub fn run(c: IoCmd) -> CmdResult {
    match c {
        IoCmd::Encode {
            chipset,
            window: w,
            bus_addr,
            size,
            json,
        } => {
            let cs = chipset::by_name(&chipset)?;
            let kind = window(&w)?;
            let e = chipset::encode(cs, kind, bus_addr, size)?;
            if json {
                println!("{}", encoded_json(&e));
            } else {
                println!("{}", encoded_text(&e));
                note_line(&e);
            }
        }
        IoCmd::Decode {
            chipset,
            phys_addr,
            hae,
            json,
        } => {
            let cs = chipset::by_name(&chipset)?;
            match chipset::decode(cs, phys_addr, &|_| hae)? {
                Decoded::Region(r) => {
                    if json {
                        println!(
                            "{}",
                            json!({"chipset": cs.name, "window": null, "region": r.name,
                                   "phys": hex(phys_addr), "bus_addr": null, "size": null,
                                   "lane": null, "length_code": null, "hae": null})
                        );
                    } else {
                        println!(
                            "{} phys=0x{phys_addr:x}: {} (not an I/O window; {})",
                            cs.name, r.name, r.source
                        );
                    }
                }
                Decoded::Window { enc } => {
                    let size = (enc.size != 0).then_some(enc.size);
                    if json {
                        let mut v = encoded_json(&enc);
                        v["bus_addr"] = json!(hex(enc.bus));
                        v["size"] = json!(size);
                        println!("{v}");
                    } else {
                        let size = match size {
                            None => "the instruction's width".to_string(),
                            Some(8) => "8 (LDQ/STQ)".to_string(),
                            Some(s) => s.to_string(),
                        };
                        println!(
                            "{} phys=0x{:x}: {} bus=0x{:x} size={} lane={} length_code={} hae={}",
                            enc.chipset,
                            enc.phys,
                            enc.window.name(),
                            enc.bus,
                            size,
                            enc.lane.map_or("-".into(), |l| l.to_string()),
                            enc.length_code.map_or("-".into(), |l| l.to_string()),
                            enc.hae.map_or("-".into(), hex)
                        );
                        note_line(&enc);
                    }
                }
            }
        }
    }
    Ok(Outcome::Status(0))
}
