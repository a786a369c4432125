//! `alpha io encode` / `alpha io decode`: chipset window addresses from the
//! tables in `alpha_emu::chipset`.

use crate::{CmdResult, Failure, IoCmd, Outcome};
use alpha_emu::chipset::{self, Decoded, Encoded, WindowKind};
use serde_json::{json, Value};

fn hex(v: u64) -> String {
    format!("0x{v:x}")
}

fn window(name: &str) -> Result<WindowKind, Failure> {
    WindowKind::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = WindowKind::ALL.iter().map(|k| k.name()).collect();
        Failure(format!(
            "unknown window `{name}` (one of: {})",
            names.join(" ")
        ))
    })
}

fn encoded_json(e: &Encoded) -> Value {
    json!({
        "chipset": e.chipset,
        "window": e.window.name(),
        "phys": hex(e.phys),
        "lane": e.lane,
        "length_code": e.length_code,
        "hae": e.hae.map(hex),
    })
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
                Decoded::Window { enc, or_quad } => {
                    let size = (enc.size != 0).then_some(enc.size);
                    if json {
                        let mut v = encoded_json(&enc);
                        v["bus_addr"] = json!(hex(enc.bus));
                        v["size"] = json!(size);
                        v["or_quadword"] = json!(or_quad);
                        println!("{v}");
                    } else {
                        let size = match (size, or_quad) {
                            (None, _) => "the instruction's width".to_string(),
                            (Some(s), true) => format!("{s} (or 8 by LDQ/STQ)"),
                            (Some(s), false) => s.to_string(),
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
                    }
                }
            }
        }
    }
    Ok(Outcome::Status(0))
}
