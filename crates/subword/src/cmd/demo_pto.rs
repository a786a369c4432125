//! The PTO half of `subword demo`: what a tile, a row stride and a nibble
//! are, shown byte by byte on the packed-row example, whose footprint is
//! drawn into the tour's directory; then the other scenario files of
//! `tests/pto/examples/`, embedded at build time and run by subword's own
//! PTO model, each introduced by what it demonstrates.

use std::path::Path;

use super::demo::{say, say_hanging};
use pto_scenario::{self as scenario, RunOptions};

/// The example the tour explains byte by byte.
const PACKED: (&str, &str) = (
    "adr0074-packed-row-pitch.toml",
    include_str!("../../../../tests/pto/examples/adr0074-packed-row-pitch.toml"),
);

/// Where its TSTORE writes, and how many bytes of GM the tour shows there.
const PACKED_BASE: u64 = 0x320;
const PACKED_SHOWN: usize = 8;

/// (file name, scenario text, what it shows)
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "four-pes-private-bases-asm.toml",
        include_str!("../../../../tests/pto/examples/four-pes-private-bases-asm.toml"),
        "Four processing elements (PEs) run one TLOAD together. Each reads the base and the \
         row stride from its own registers, so the one instruction reads four different \
         places of GM. (The file is written in the specification's assembly syntax.)",
    ),
    (
        "conflict-two-pes-one-row.toml",
        include_str!("../../../../tests/pto/examples/conflict-two-pes-one-row.toml"),
        "Two PEs of one TSTORE write the same GM bytes. The architecture orders nothing \
         among PEs, so the result is unpredictable; subword warns and names the PEs, bytes, \
         rows and columns.",
    ),
    (
        "stride-unit-element-count.toml",
        include_str!("../../../../tests/pto/examples/stride-unit-element-count.toml"),
        "An old binary's row stride counted in elements: 4, meaning 4 FP32 columns (16 \
         bytes). Read as bytes, as ADR 0074 reads it, the rows overlap; subword warns and \
         says which byte stride was probably meant.",
    ),
];

/// Runs the examples; Err if one fails to parse or an expectation fails.
/// The footprint picture of the packed example goes to `dir`.
pub fn pto_demo(dir: &Path) -> Result<(), String> {
    println!("== PTO 1: a tile, a row stride and a nibble ==");
    say(
        "A tile is a small matrix of elements that one PTO instruction moves between global \
         memory (GM) and a tile register: TLOAD reads it, TSTORE writes it. Row r of the tile \
         goes to GM at base + r x stride, and since ADR 0074 the row stride counts bytes (it \
         used to count elements; the instruction bits did not change). A four-bit type such \
         as U4X2 packs two elements into a byte: even columns in the low nibble (bits 3..0), \
         odd columns in the high nibble (bits 7..4), and each row starts on a byte of its own.",
    );
    println!();
    say(
        "The example: a 2 x 2 U4X2 tile, row 0 = (1, 2), row 1 = (3, 4), stored by TSTORE at \
         base 0x320 with a row stride of 4 bytes. Row 0 is one byte at 0x320, 0x21: 1 in the \
         low nibble, 2 in the high one. Row 1 starts 4 bytes later, at 0x324: 0x43. The bytes \
         in between are not touched. GM after the TSTORE, as the model left it:",
    );
    let (file, text) = PACKED;
    let sc = scenario::parse(file, text).map_err(|e| e.to_string())?;
    let (report, machine) = scenario::run_on(&sc, RunOptions::default());
    if !report.passed() {
        return Err(format!(
            "demo scenario {file} failed: {}",
            report.failure_lines().join("; ")
        ));
    }
    let mut gm = [0u8; PACKED_SHOWN];
    machine
        .read_memory(PACKED_BASE, &mut gm)
        .map_err(|f| format!("demo scenario {file}: reading GM: {f:?}"))?;
    let hex: Vec<String> = gm.iter().map(|b| format!("{b:02x}")).collect();
    println!("    0x{PACKED_BASE:x}: {}", hex.join(" "));
    let svg = pto_scenario::footprint::svg(
        "packed U4X2 TSTORE with a 4-byte row pitch (adr0074-packed-row-pitch.toml)",
        &report.transfers,
    );
    super::demo::write_file(dir, "pto-footprint.svg", svg.as_bytes())?;
    say(&format!(
        "  ({file}: {} steps, every expectation held. Its footprint, the GM bytes and nibbles \
         each PE wrote, is pto-footprint.svg.)",
        report.steps_run
    ));
    println!();
    println!("== PTO 2: more examples (tests/pto/examples/) ==");
    for (file, text, what) in EXAMPLES {
        let sc = scenario::parse(file, text).map_err(|e| e.to_string())?;
        let report = scenario::run(&sc, RunOptions::default());
        println!();
        println!("-- {file}");
        say(&format!("   {what}"));
        for w in report.warning_lines() {
            say_hanging(&format!("   warning: {w}"), 4);
        }
        if !report.passed() {
            return Err(format!(
                "demo scenario {file} failed: {}",
                report.failure_lines().join("; ")
            ));
        }
        println!("   {} steps, every expectation held.", report.steps_run);
    }
    println!();
    Ok(())
}
