//! Footprint picture (`subword pto footprint SCENARIO --svg FILE`): the GM
//! bytes — and the nibbles of packed four-bit elements — each PE reads or
//! writes in a scenario's TLOAD/TSTORE steps, drawn as hand-written SVG.
//!
//! Layout: one panel per transfer. GM is drawn as lines of `W` bytes, `W`
//! being the row stride of the lowest selected PE when that is a sensible
//! width (so each tile row starts a line and row gaps show as grey cells),
//! otherwise 32. Lines with no access are folded into a "… N lines" marker.
//! Each byte cell has two halves (low nibble on the right, as a hex byte is
//! written); a whole-byte access fills both. Colour = PE; solid = write,
//! pale = read; a red frame marks a byte written by two PEs (a conflict).
//!
//! Invariant: the output depends only on the access log, never on
//! rendering state; the same scenario gives the same bytes of SVG.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::runner::Transfer;
use pto::{GmAccess, Nibble};

const CELL: u64 = 18;
const LEFT: u64 = 96;
const PE_COLOURS: [&str; 4] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"];
const PE_PALE: [&str; 4] = ["#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5"];

#[derive(Default, Clone, Copy)]
struct Half {
    /// Bit set of PEs that read / write this half.
    read: u8,
    write: u8,
}

#[derive(Default, Clone, Copy)]
struct Cell {
    low: Half,
    high: Half,
    /// (pe, row, col) of the first accesses, for the tooltip.
    who: [Option<(usize, u64, u64)>; 4],
}

/// Bytes per drawn line and the address a line starts at (the first row's
/// base of the lowest PE, so every tile row starts a line).
fn geometry(accesses: &[GmAccess]) -> (u64, u64) {
    let pe = accesses.iter().map(|a| a.pe).min().unwrap_or(0);
    let mine: Vec<&GmAccess> = accesses
        .iter()
        .filter(|a| a.pe == pe && a.col == 0)
        .collect();
    let r0 = mine.iter().min_by_key(|a| a.row);
    let r1 = r0.and_then(|r0| mine.iter().filter(|a| a.row > r0.row).min_by_key(|a| a.row));
    let anchor = r0.map(|a| a.addr).unwrap_or(0);
    if let (Some(a), Some(b)) = (r0, r1) {
        let d = b.addr.wrapping_sub(a.addr);
        let rows = b.row - a.row;
        if rows > 0 && d % rows == 0 {
            let s = d / rows;
            if (4..=64).contains(&s) {
                return (s, anchor % s);
            }
        }
    }
    (32, anchor % 32)
}

fn width_for(accesses: &[GmAccess]) -> u64 {
    geometry(accesses).0
}

fn panel(out: &mut String, y0: u64, t: &Transfer) -> u64 {
    let mut cells: BTreeMap<u64, Cell> = BTreeMap::new();
    for a in &t.accesses {
        let n = if a.nibble.is_some() {
            1
        } else {
            a.size.max(1) as u64
        };
        for b in a.addr..a.addr.saturating_add(n) {
            let c = cells.entry(b).or_default();
            let bit = 1u8 << (a.pe & 3);
            let halves: &mut [&mut Half] = &mut match a.nibble {
                Some(Nibble::Low) => vec![&mut c.low],
                Some(Nibble::High) => vec![&mut c.high],
                None => vec![&mut c.low, &mut c.high],
            };
            for h in halves.iter_mut() {
                if a.write {
                    h.write |= bit;
                } else {
                    h.read |= bit;
                }
            }
            let me = Some((a.pe, a.row, a.col));
            if !c.who.contains(&me) {
                if let Some(slot) = c.who.iter_mut().find(|w| w.is_none()) {
                    *slot = me;
                }
            }
        }
    }
    let (w, origin) = geometry(&t.accesses);
    // Line n covers [origin + (n - 1) * w, origin + n * w): line 0 holds the bytes below origin.
    let line_of = |b: u64| if b < origin { 0 } else { (b - origin) / w + 1 };
    let lines: BTreeSet<u64> = cells.keys().map(|&b| line_of(b)).collect();
    let kind = if t.accesses.iter().any(|a| a.write) {
        "TSTORE (writes)"
    } else {
        "TLOAD (reads)"
    };
    let pes: BTreeSet<usize> = t.accesses.iter().map(|a| a.pe).collect();
    let _ = writeln!(
        out,
        r#"<text x="8" y="{}" class="h">step {} ({}): {kind}, {} element accesses by PE {}; {w} bytes per line</text>"#,
        y0 + 14,
        t.step,
        t.op,
        t.accesses.len(),
        pes.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut y = y0 + 24;
    // Column header: byte offset within the line.
    for x in 0..w {
        if x % 4 == 0 {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" class="s">+{x}</text>"#,
                LEFT + x * CELL + 1,
                y + 10
            );
        }
    }
    y += 14;
    let mut prev: Option<u64> = None;
    for &line in &lines {
        if let Some(p) = prev {
            if line > p + 1 {
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" class="s">… {} line{} ({} bytes) not accessed</text>"#,
                    LEFT,
                    y + 12,
                    line - p - 1,
                    if line - p - 1 == 1 { "" } else { "s" },
                    (line - p - 1) * w
                );
                y += CELL;
            }
        }
        prev = Some(line);
        let base = if line == 0 {
            0
        } else {
            origin + (line - 1) * w
        };
        let _ = writeln!(
            out,
            r#"<text x="8" y="{}" class="a">{base:#08x}</text>"#,
            y + 13
        );
        for x in 0..w {
            let addr = base + x;
            let px = LEFT + x * CELL;
            let c = cells.get(&addr).copied().unwrap_or_default();
            // high nibble on the left half, low on the right, as "0xHL" reads.
            for (half, hx) in [(c.high, px), (c.low, px + CELL / 2)] {
                let fill = fill_of(half);
                let _ = writeln!(
                    out,
                    r#"<rect x="{hx}" y="{y}" width="{}" height="{}" fill="{fill}"/>"#,
                    CELL / 2,
                    CELL - 2
                );
            }
            // Two elements of one PE on the same half: overlapping rows (a row
            // stride smaller than the row) or a zero stride aliasing rows.
            let same_pe_twice = c.who.iter().flatten().fold([0u8; 4], |mut n, w| {
                n[w.0 & 3] += 1;
                n
            });
            if same_pe_twice.iter().any(|&k| k > 1) {
                let _ = writeln!(
                    out,
                    r##"<circle cx="{}" cy="{}" r="3" fill="#000000"/>"##,
                    px + CELL / 2,
                    y + (CELL - 2) / 2
                );
            }
            let conflict = (c.low.write.count_ones() > 1)
                || (c.high.write.count_ones() > 1)
                || (c.low.write != 0 && c.high.write != 0 && c.low.write != c.high.write);
            if conflict {
                let second = (c.low.write | c.high.write)
                    & !(1u8 << ((c.low.write | c.high.write).trailing_zeros()));
                if second != 0 {
                    let _ = writeln!(
                        out,
                        r#"<rect x="{px}" y="{}" width="{CELL}" height="5" fill="{}"/>"#,
                        y + CELL - 7,
                        PE_COLOURS[second.trailing_zeros() as usize & 3]
                    );
                }
            }
            let stroke = if conflict {
                r##"stroke="#d62728" stroke-width="2.5""##
            } else {
                r##"stroke="#ffffff" stroke-width="1""##
            };
            let who: Vec<String> = c
                .who
                .iter()
                .flatten()
                .map(|(pe, r, col)| format!("PE{pe} row {r} col {col}"))
                .collect();
            let title = if who.is_empty() {
                format!("<title>{addr:#x}: not accessed</title>")
            } else {
                format!("<title>{addr:#x}: {}</title>", who.join("; "))
            };
            let _ = writeln!(
                out,
                r#"<rect x="{px}" y="{y}" width="{CELL}" height="{}" fill="none" {stroke}>{title}</rect>"#,
                CELL - 2
            );
        }
        y += CELL;
    }
    y + 10
}

fn fill_of(h: Half) -> &'static str {
    if h.write != 0 {
        PE_COLOURS[h.write.trailing_zeros() as usize & 3]
    } else if h.read != 0 {
        PE_PALE[h.read.trailing_zeros() as usize & 3]
    } else {
        "#e8e8e8"
    }
}

/// The SVG text for a scenario's transfers. `title` names the scenario.
pub fn svg(title: &str, transfers: &[Transfer]) -> String {
    let mut body = String::new();
    let mut y = 40;
    if transfers.is_empty() {
        let _ = writeln!(
            body,
            r#"<text x="8" y="{}" class="h">no TLOAD/TSTORE accessed GM in this scenario</text>"#,
            y + 14
        );
        y += 30;
    }
    let mut max_w = 32;
    for t in transfers {
        max_w = max_w.max(width_for(&t.accesses));
        y = panel(&mut body, y, t);
    }
    // Legend: PE colours, then the cell conventions, one item per line.
    let mut legend = String::new();
    let ly = y + 6;
    for pe in 0..4 {
        let x = 8 + pe as u64 * 190;
        let _ = writeln!(
            legend,
            r#"<rect x="{x}" y="{ly}" width="14" height="14" fill="{}"/>"#,
            PE_COLOURS[pe]
        );
        let _ = writeln!(
            legend,
            r#"<rect x="{}" y="{ly}" width="14" height="14" fill="{}"/>"#,
            x + 16,
            PE_PALE[pe]
        );
        let _ = writeln!(
            legend,
            r#"<text x="{}" y="{}" class="a">PE{pe} write / read</text>"#,
            x + 36,
            ly + 12
        );
    }
    let items: [(&str, &str); 4] = [
        (r##"<rect x="8" y="{Y}" width="14" height="14" fill="#e8e8e8"/>"##, "not accessed (a row gap, or bytes between rows)"),
        (
            r##"<rect x="8" y="{Y}" width="7" height="14" fill="#1f77b4"/><rect x="15" y="{Y}" width="7" height="14" fill="#e8e8e8"/>"##,
            "packed 4-bit element: left half = high nibble (odd column), right half = low nibble (even column)",
        ),
        (
            r##"<rect x="8" y="{Y}" width="14" height="14" fill="none" stroke="#d62728" stroke-width="2.5"/>"##,
            "red frame: written by two PEs of one TSTORE (conflict); the lower band shows the second PE",
        ),
        (
            r##"<rect x="8" y="{Y}" width="14" height="14" fill="#aec7e8"/><circle cx="15" cy="{C}" r="3" fill="#000000"/>"##,
            "dot: two elements of one PE touch this byte (rows overlap, or a zero stride aliases them)",
        ),
    ];
    let mut iy = ly + 22;
    for (shape, text) in items {
        legend.push_str(
            &shape
                .replace("{Y}", &iy.to_string())
                .replace("{C}", &(iy + 7).to_string()),
        );
        legend.push('\n');
        let _ = writeln!(
            legend,
            r#"<text x="30" y="{}" class="a">{text}</text>"#,
            iy + 12
        );
        iy += 20;
    }
    let height = iy + 10;
    let width = (LEFT + max_w * CELL + 20)
        .max(800)
        .max(40 + title.chars().count() as u64 * 10);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace">"#
    );
    let _ = writeln!(
        out,
        "<style>.h{{font-size:13px;font-weight:bold}} .a{{font-size:12px}} .s{{font-size:10px;fill:#555}} .t{{font-size:15px;font-weight:bold}}</style>"
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r#"<text x="8" y="22" class="t">GM footprint: {}</text>"#,
        escape(title)
    );
    out.push_str(&body);
    out.push_str(&legend);
    out.push_str("</svg>\n");
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The footprint as text (`subword pto footprint SCENARIO` without `--svg`):
/// per transfer, one line per PE, direction and tile row, listing the GM
/// ranges it touches with the columns they hold. Packed four-bit elements
/// are named by nibble (`0x320.lo`, `0x320.hi`), so a run of them reads
/// `0x320.lo..=0x321.hi (cols 0..=3)`.
pub fn text(transfers: &[Transfer]) -> String {
    let mut out = String::new();
    if transfers.is_empty() {
        out.push_str("no TLOAD/TSTORE accessed GM in this scenario\n");
        return out;
    }
    for t in transfers {
        let _ = writeln!(
            out,
            "step {} ({}): {} element access(es)",
            t.step,
            t.op,
            t.accesses.len()
        );
        // (pe, write, row) -> accesses in column order.
        let mut rows: BTreeMap<(usize, bool, u64), Vec<&GmAccess>> = BTreeMap::new();
        for a in &t.accesses {
            rows.entry((a.pe, a.write, a.row)).or_default().push(a);
        }
        for ((pe, write, row), mut acc) in rows {
            acc.sort_by_key(|a| a.col);
            let runs = runs_of(&acc);
            let verb = if write { "writes" } else { "reads " };
            let _ = writeln!(out, "  PE{pe} {verb} row {row}: {}", runs.join(", "));
        }
    }
    out
}

/// Half-byte positions `[first, last]` an access covers (two per byte).
fn halves(a: &GmAccess) -> (u64, u64) {
    let base = a.addr.wrapping_mul(2);
    match a.nibble {
        Some(Nibble::Low) => (base, base),
        Some(Nibble::High) => (base + 1, base + 1),
        None => (base, base + 2 * a.size.max(1) as u64 - 1),
    }
}

/// Consecutive columns whose GM positions follow one another, as
/// `0xA..=0xB (cols C..=D)`.
fn runs_of(acc: &[&GmAccess]) -> Vec<String> {
    let packed = acc.iter().any(|a| a.nibble.is_some());
    let pos = |h: u64| {
        if packed {
            format!(
                "{:#x}.{}",
                h / 2,
                if h.is_multiple_of(2) { "lo" } else { "hi" }
            )
        } else {
            format!("{:#x}", h / 2)
        }
    };
    let mut runs = Vec::new();
    let mut i = 0;
    while i < acc.len() {
        let (first, mut last) = halves(acc[i]);
        let mut j = i + 1;
        while j < acc.len() && acc[j].col == acc[j - 1].col + 1 && halves(acc[j]).0 == last + 1 {
            last = halves(acc[j]).1;
            j += 1;
        }
        let (c0, c1) = (acc[i].col, acc[j - 1].col);
        let cols = if c0 == c1 {
            format!("col {c0}")
        } else {
            format!("cols {c0}..={c1}")
        };
        let span = if packed {
            if first == last {
                pos(first)
            } else {
                format!("{}..={}", pos(first), pos(last))
            }
        } else if first / 2 == last / 2 {
            pos(first)
        } else {
            format!("{}..={}", pos(first), pos(last))
        };
        runs.push(format!("{span} ({cols})"));
        i = j;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(accesses: Vec<GmAccess>) -> Transfer {
        Transfer {
            step: 4,
            op: "execute",
            accesses,
        }
    }

    #[test]
    fn rows_at_a_byte_stride_start_new_lines_and_gaps_are_grey() {
        // Two rows of two U32 at stride 12: line width 12, bytes 8..12 of each line untouched.
        let mut a = Vec::new();
        for r in 0..2u64 {
            for c in 0..2u64 {
                a.push(GmAccess {
                    pe: 0,
                    addr: 0x100 + r * 12 + c * 4,
                    size: 4,
                    nibble: None,
                    row: r,
                    col: c,
                    write: true,
                });
            }
        }
        let s = svg("x", &[t(a)]);
        assert!(s.starts_with("<svg"), "{s}");
        assert!(s.contains("12 bytes per line"), "{s}");
        assert!(
            s.contains("0x108: not accessed"),
            "the gap byte is drawn as not accessed: {s}"
        );
        assert!(s.contains("0x10c: PE0 row 1 col 0"), "row 1 starts a line");
    }

    #[test]
    fn nibble_writes_by_two_pes_on_one_byte_are_framed_red() {
        let a = vec![
            GmAccess {
                pe: 0,
                addr: 0x20,
                size: 1,
                nibble: Some(Nibble::Low),
                row: 0,
                col: 0,
                write: true,
            },
            GmAccess {
                pe: 1,
                addr: 0x20,
                size: 1,
                nibble: Some(Nibble::High),
                row: 0,
                col: 1,
                write: true,
            },
        ];
        let s = svg("x", &[t(a)]);
        assert!(
            s.contains("#d62728\" stroke-width=\"2.5\"><title>0x20"),
            "{s}"
        );
    }

    #[test]
    fn overlapping_rows_of_one_pe_are_dotted() {
        let a = vec![
            GmAccess {
                pe: 0,
                addr: 0x40,
                size: 4,
                nibble: None,
                row: 0,
                col: 1,
                write: false,
            },
            GmAccess {
                pe: 0,
                addr: 0x40,
                size: 4,
                nibble: None,
                row: 1,
                col: 0,
                write: false,
            },
            GmAccess {
                pe: 0,
                addr: 0x48,
                size: 4,
                nibble: None,
                row: 1,
                col: 2,
                write: false,
            },
        ];
        let s = svg("x", &[t(a)]);
        assert_eq!(
            s.matches("<circle").count(),
            4 + 1,
            "four bytes of the shared element, plus the legend"
        );
    }

    #[test]
    fn far_apart_lines_are_folded() {
        let a = vec![
            GmAccess {
                pe: 0,
                addr: 0,
                size: 1,
                nibble: None,
                row: 0,
                col: 0,
                write: false,
            },
            GmAccess {
                pe: 0,
                addr: 0x10000,
                size: 1,
                nibble: None,
                row: 1,
                col: 0,
                write: false,
            },
        ];
        let s = svg("x", &[t(a)]);
        assert!(s.contains("not accessed</text>"), "{s}");
        assert!(s.len() < 20_000, "folded output stays small: {}", s.len());
    }
}
