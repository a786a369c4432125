//! `alpha explore --svg FILE`: one finding's schedule drawn by hand as SVG.
//! Threads are lanes (rows); each access to the finding's quadword is a
//! box in its thread's lane, in global order from left to right (loads
//! hollow, stores filled; `⋯` marks accesses left out). For a lost store the write-back thread's
//! load→write-back window is shaded, and the lost store inside it is red;
//! under the legend the write-back, its load and the lost store are named
//! (pc, symbol, library when not the program, instruction, `file:line`).

use super::explore::Code;
use alpha_emu::explore::{run::Step, Found, Reported};
use std::fmt::Write;

/// Accesses drawn around each of the load, the lost store and the write-back.
const CONTEXT: usize = 12;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// (load index, write-back index, lost-store index) in `steps`.
fn window(r: &Reported, steps: &[Step]) -> Option<(usize, usize, Option<usize>)> {
    let Found::Detector(f) = &r.found else {
        return None;
    };
    let by = f.by;
    for (w, s) in steps.iter().enumerate() {
        if !(s.store && s.thread == by.thread && s.pc == by.pc) {
            continue;
        }
        let load = steps[..w].iter().rposition(|l| {
            !l.store && l.thread == by.thread && Some(l.pc) == f.by_load_pc.or(Some(l.pc))
        });
        let Some(load) = load else { continue };
        let lost = f.other.and_then(|o| {
            (load..w)
                .find(|&i| steps[i].store && steps[i].thread == o.thread && steps[i].pc == o.pc)
        });
        if lost.is_some() || f.other.is_none() {
            return Some((load, w, lost));
        }
    }
    None
}

pub fn draw(code: &Code, r: &Reported, cpu: &str) -> String {
    let steps = &r.steps;
    let win = window(r, steps);
    // Columns: accesses near the load, the lost store and the write-back,
    // with one gap column (`None`) where others are left out.
    let keep: Vec<usize> = match win {
        Some((l, w, lost)) => {
            let mut v: Vec<usize> = [Some(l), lost, Some(w)]
                .into_iter()
                .flatten()
                .flat_map(|i| i.saturating_sub(CONTEXT / 2)..(i + CONTEXT / 2 + 1).min(steps.len()))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }
        None => (0..steps.len().min(2 * CONTEXT + 1)).collect(),
    };
    let mut cols: Vec<Option<usize>> = Vec::new();
    for (n, &i) in keep.iter().enumerate() {
        if n > 0 && keep[n - 1] + 1 != i {
            cols.push(None);
        }
        cols.push(Some(i));
    }
    let shown: Vec<&Step> = keep.iter().map(|&i| &steps[i]).collect();
    let threads = shown.iter().map(|s| s.thread).max().map_or(1, |t| t + 1) as usize;
    let (lane_h, box_w, left, top) = (60.0, 28.0, 110.0, 70.0);
    let width = left + box_w * cols.len().max(1) as f64 + 40.0;
    // Under the legend, one line per named access: the write-back, its
    // load, the lost store (pc, symbol, library, instruction, file:line).
    let named: Vec<(&str, u32, u64)> = match &r.found {
        Found::Detector(f) => {
            let mut v = vec![("write-back", f.by.thread, f.by.pc)];
            if let Some(l) = f.by_load_pc {
                v.push(("its load", f.by.thread, l));
            }
            if let Some(o) = f.other {
                v.push(("lost store", o.thread, o.pc));
            }
            v
        }
        _ => Vec::new(),
    };
    let label_w = named
        .iter()
        .map(|(k, t, pc)| {
            format!("{k:<11} thread {t}  {}", code.at(*pc))
                .chars()
                .count()
        })
        .max()
        .unwrap_or(0) as f64
        * 7.3
        + 20.0;
    let width = width.max(label_w);
    let height = top + lane_h * threads as f64 + 90.0 + 18.0 * named.len() as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="12">"#
    );
    let title = match &r.found {
        Found::Detector(f) => format!("{} at {:#x} ({cpu})", f.kind.as_str(), f.address),
        other => format!("{} ({cpu})", other.kind()),
    };
    let _ = writeln!(
        s,
        r#"<text x="10" y="20" font-size="14">{}</text>"#,
        esc(&title)
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="40">replay {} — accesses to the quadword, in global order</text>"#,
        esc(&r.schedule.to_string())
    );
    for t in 0..threads {
        let y = top + lane_h * t as f64;
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{y2}" x2="{x2}" y2="{y2}" stroke="#bbb"/><text x="10" y="{yt}">thread {t}</text>"##,
            y2 = y + lane_h / 2.0,
            x2 = width - 20.0,
            yt = y + lane_h / 2.0 + 4.0
        );
    }
    let col_of = |i: usize| cols.iter().position(|c| *c == Some(i)).unwrap_or(0);
    if let Some((l, w, _)) = win {
        let t = steps[w].thread as f64;
        let x = left + box_w * col_of(l) as f64;
        let wd = box_w * (col_of(w) - col_of(l) + 1) as f64;
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{y}" width="{wd}" height="{lane_h}" fill="#fde7a7" stroke="#d9a400"><title>load → write-back window</title></rect>"##,
            y = top + lane_h * t
        );
    }
    for (c, col) in cols.iter().enumerate() {
        let x = left + box_w * c as f64 + 4.0;
        let Some(idx) = *col else {
            let _ = writeln!(s, r#"<text x="{x}" y="{y}">⋯</text>"#, y = top - 8.0);
            continue;
        };
        let st = &steps[idx];
        let y = top + lane_h * st.thread as f64 + 15.0;
        let lost = win.and_then(|w| w.2) == Some(idx);
        let wb = win.map(|w| w.1) == Some(idx);
        let (fill, stroke) = match (st.store, lost, wb) {
            (_, true, _) => ("#e53935", "#b71c1c"),
            (_, _, true) => ("#1e88e5", "#0d47a1"),
            (true, _, _) => ("#90a4ae", "#455a64"),
            (false, _, _) => ("white", "#455a64"),
        };
        let sym = code.symbol(st.pc).unwrap_or_default();
        let tip = format!(
            "#{idx} thread {} pc {:#x} {} {}: {} {} bytes at {:#x}",
            st.thread,
            st.pc,
            sym,
            code.insn(st.pc),
            if st.store { "store" } else { "load" },
            st.size,
            st.addr
        );
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{bw}" height="30" fill="{fill}" stroke="{stroke}"><title>{}</title></rect>"#,
            esc(&tip),
            bw = box_w - 8.0
        );
    }
    let ly = top + lane_h * threads as f64 + 25.0;
    let _ = writeln!(
        s,
        r##"<rect x="10" y="{ly}" width="14" height="14" fill="white" stroke="#455a64"/><text x="30" y="{t}">load</text><rect x="80" y="{ly}" width="14" height="14" fill="#90a4ae"/><text x="100" y="{t}">store</text><rect x="150" y="{ly}" width="14" height="14" fill="#1e88e5"/><text x="170" y="{t}">write-back</text><rect x="260" y="{ly}" width="14" height="14" fill="#e53935"/><text x="280" y="{t}">lost store</text><rect x="370" y="{ly}" width="14" height="14" fill="#fde7a7"/><text x="390" y="{t}">load→write-back window</text>"##,
        t = ly + 12.0
    );
    for (n, (k, t, pc)) in named.iter().enumerate() {
        let fill = match *k {
            "lost store" => "#b71c1c",
            "write-back" => "#0d47a1",
            _ => "#000",
        };
        let _ = writeln!(
            s,
            r#"<text x="10" y="{y}" fill="{fill}" xml:space="preserve">{}</text>"#,
            esc(&format!("{k:<11} thread {t}  {}", code.at(*pc))),
            y = ly + 40.0 + 18.0 * n as f64
        );
    }
    s.push_str("</svg>\n");
    s
}
