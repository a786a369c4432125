//! `alpha machine`: run a bare-metal image on a chipset (`alpha_emu::bare`).

use crate::cmd::run::model;
use crate::{CmdResult, Failure, MachineArgs, Outcome};
use alpha_emu::bare::{self, Bare, Report, Stop};
use alpha_emu::chipset;
use serde_json::json;
use std::io::Write;

/// What the host could give the guest at most: its memory plus swap, from
/// `/proc/meminfo` (None where that cannot be read: only the machine's own
/// 64 GiB bound applies).
fn host_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        kib.checked_mul(1024)
    };
    field("MemTotal:")?.checked_add(field("SwapTotal:").unwrap_or(0))
}

pub fn run(a: MachineArgs) -> CmdResult {
    if let Some(host) = host_memory() {
        if a.memory > host {
            return Err(Failure(format!(
                "--memory {}: more than this host can give ({host} bytes of memory and swap)",
                a.memory
            )));
        }
    }
    let cs = chipset::by_name(&a.chipset)?;
    let model = model(&a.cpu.cpu)?;
    let image = crate::files::read_file(&a.image, crate::files::Input::Image).map_err(Failure)?;
    let opts = bare::Options {
        memory: a.memory,
        load: a.load,
        ..bare::Options::default()
    };
    let m = Bare::new(cs, model, &opts, &image)
        .map_err(|e| Failure(format!("{}: {e}", a.image.display())))?;
    let r = m.run(a.max_insns);
    if let Some(svg) = &a.svg {
        std::fs::write(svg, draw(cs.name, &r))
            .map_err(|e| Failure(format!("{}: {e}", svg.display())))?;
    }
    let status = r.stop.status();
    if a.json {
        let findings: Vec<_> = r
            .findings
            .iter()
            .map(|f| {
                json!({"kind": f.kind.name(), "pc": format!("0x{:x}", f.pc),
                       "phys": format!("0x{:x}", f.phys),
                       "other_pc": f.other_pc.map(|p| format!("0x{p:x}")),
                       "message": f.message})
            })
            .collect();
        let io: Vec<_> = if a.trace_io {
            r.io.iter()
                .map(|t| {
                    json!({"pc": format!("0x{:x}", t.pc), "window": t.window.name(),
                           "op": if t.write { "write" } else { "read" }, "size": t.size,
                           "bus": format!("0x{:x}", t.bus), "lane": t.lane,
                           "data": format!("0x{:x}", t.data)})
                })
                .collect()
        } else {
            Vec::new()
        };
        println!(
            "{}",
            json!({"status": status, "console": String::from_utf8_lossy(&r.console),
                   "findings": findings, "io": io})
        );
        stop_line(&r);
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&r.console);
        let _ = out.flush();
        if a.trace_io {
            for t in &r.io {
                eprintln!("{}", t.line());
            }
        }
        for f in &r.findings {
            eprintln!("subword: warning: {}: {}", f.kind.name(), f.message);
        }
        stop_line(&r);
    }
    Ok(Outcome::Status(status))
}

fn stop_line(r: &Report) {
    match &r.stop {
        Stop::Halt(_) => {}
        Stop::MachineCheck(m) | Stop::OutOfInsns(m) => eprintln!("subword: {m}"),
    }
}

/// One row per window, one mark per transaction (x = order, y = bus
/// address within the window's span), labelled with lane and data.
fn draw(chipset: &str, r: &Report) -> String {
    let mut windows: Vec<&str> = Vec::new();
    for t in &r.io {
        if !windows.contains(&t.window.name()) {
            windows.push(t.window.name());
        }
    }
    let n = r.io.len().max(1);
    let colw = 28usize;
    let width = 160 + n * colw;
    let rowh = 120usize;
    let height = 60 + windows.len().max(1) * rowh;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"10\">\n<text x=\"8\" y=\"20\" font-size=\"14\">{chipset}: bus transactions per window (x: order; label: lane:data)</text>\n"
    );
    for (wi, w) in windows.iter().enumerate() {
        let y0 = 40 + wi * rowh;
        s += &format!(
            "<rect x=\"150\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\" stroke=\"#999\"/>\n<text x=\"8\" y=\"{}\">{w}</text>\n",
            n * colw,
            rowh - 10,
            y0 + 14
        );
        for (i, t) in r.io.iter().enumerate() {
            if t.window.name() != *w {
                continue;
            }
            let x = 150 + i * colw + 4;
            let h = 8 * t.size as usize;
            let y = y0 + 20 + (t.lane as usize) * 20;
            let fill = if t.write { "#3572b0" } else { "#4caf50" };
            s += &format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"20\" height=\"{}\" fill=\"{fill}\"><title>pc=0x{:x} bus=0x{:x} size={} lane={} data=0x{:x}</title></rect>\n<text x=\"{x}\" y=\"{}\">{}:{:x}</text>\n",
                h.min(64),
                t.pc,
                t.bus,
                t.size,
                t.lane,
                t.data,
                y0 + rowh - 14,
                t.lane,
                t.data & 0xff
            );
        }
    }
    s += "</svg>\n";
    s
}
