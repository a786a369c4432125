//! The PTO half of `subword demo`: the scenario files of
//! `tests/pto/examples/`, embedded at build time and run by subword's own PTO
//! model, each introduced by what it demonstrates.

use pto::scenario::{self, RunOptions};

/// (file name, scenario text, what it shows)
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "adr0074-packed-row-pitch.toml",
        include_str!("../../../../tests/pto/examples/adr0074-packed-row-pitch.toml"),
        "A U4X2 TSTORE with a 4-byte row pitch: each row restarts at its own byte base \
         (0x320, 0x324), column 0 in the low nibble and column 1 in the high one (ADR 0074).",
    ),
    (
        "four-pes-private-bases-asm.toml",
        include_str!("../../../../tests/pto/examples/four-pes-private-bases-asm.toml"),
        "One Shared TLOAD written in the spec's assembly syntax: B.IOR names GPRs, and each \
         of the four PEs reads them from its own private GPR file, so four bases and four \
         byte strides are resolved.",
    ),
    (
        "conflict-two-pes-one-row.toml",
        include_str!("../../../../tests/pto/examples/conflict-two-pes-one-row.toml"),
        "Two PEs of one TSTORE write the same GM bytes. The architecture orders nothing among \
         PEs, so subword warns and names the PEs, bytes, rows and columns.",
    ),
    (
        "stride-unit-element-count.toml",
        include_str!("../../../../tests/pto/examples/stride-unit-element-count.toml"),
        "An old binary's row stride counted in elements (4 FP32 columns) makes the rows \
         overlap under ADR 0074's byte stride; subword says which byte stride was probably meant.",
    ),
];

/// Runs every embedded example; Err if one fails to parse or an expectation fails.
pub fn pto_demo() -> Result<(), String> {
    println!("== PTO: TLOAD/TSTORE with a GM byte row stride (ADR 0074) ==");
    for (file, text, what) in EXAMPLES {
        let sc = scenario::parse(file, text).map_err(|e| e.to_string())?;
        let report = scenario::run(&sc, RunOptions::default());
        println!();
        println!("-- {file}");
        println!("   {what}");
        for w in report.warning_lines() {
            println!("   warning: {w}");
        }
        if !report.passed() {
            return Err(format!(
                "demo scenario {file} failed: {}",
                report.failure_lines().join("; ")
            ));
        }
        println!("   {} steps, every expectation held.", report.steps_run);
    }
    Ok(())
}
