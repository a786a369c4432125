//! PTO scenarios: the harness that drives the `pto` model the way the PTO
//! specification's AVS points drive its ASL model — set state, execute
//! encoded command instructions, check memory, tiles and faults — from TOML
//! files (format: `docs/pto-scenarios.md`). Like Sail's emulator harness it
//! lives beside the model, not in it: the `pto` crate mirrors the ASL and
//! knows no file format.
//!
//! - [`scenario`]: TOML text to a [`Scenario`] (malformed input is a
//!   [`ScenarioError`]: file, step, reason; never a panic), and running it.
//! - [`ops`]: the operations, one definition each (name, fields, parse,
//!   run) in one table, [`ops::OPS`].
//! - [`runner`]: the state of a run (a fresh [`pto::Machine`], the report
//!   so far) that operations run against; a failed expectation is recorded
//!   and the run continues.
//! - [`report`]: beyond-the-spec warnings (cross-PE conflicts, stride units).
//! - [`footprint`]: the GM bytes and nibbles each PE touched, as SVG or text.
//!
//! **Architecture Invariant:** a run's outcome (pass/fail) depends only on
//! the expectations; warnings never change it.

pub mod fields;
pub mod footprint;
pub mod ops;
pub mod report;
pub mod runner;
pub mod scenario;

pub use ops::OPS;
pub use report::{Warning, WarningKind};
pub use runner::{FileReport, RunOptions, Runner, StepFailure, Transfer};
pub use scenario::{parse, run, run_on, Scenario, ScenarioError};

/// The `--json` object of a run over several files; files that did not
/// parse are listed under `malformed` (and make `passed` false):
/// `{"element_stride": bool, "passed": bool, "files_run": N, "steps_run": N,
///   "failure_count": N, "warning_count": N, "malformed_count": N,
///   "malformed": [{"file", "step", "reason", "line"}],
///   "files": [{"file", "name", "passed", "steps_run",
///              "failures": [{"step", "op", "expected", "got", "line"}],
///              "warnings": [{"step", "op", "kind", "message"}]}]}`
pub fn to_json(
    reports: &[FileReport],
    malformed: &[ScenarioError],
    opts: RunOptions,
) -> serde_json::Value {
    use serde_json::json;
    let files: Vec<_> = reports
        .iter()
        .map(|r| {
            let lines = r.failure_lines();
            json!({
                "file": r.file,
                "name": r.name,
                "passed": r.passed(),
                "steps_run": r.steps_run,
                "failures": r.failures.iter().zip(lines).map(|(f, line)| json!({
                    "step": f.step, "op": f.op, "expected": f.expected, "got": f.got, "line": line,
                })).collect::<Vec<_>>(),
                "warnings": r.warnings.iter().map(|w| json!({
                    "step": w.step, "op": w.op, "kind": w.kind.name(), "message": w.message,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "element_stride": opts.element_stride,
        "passed": malformed.is_empty() && reports.iter().all(FileReport::passed),
        "files_run": reports.len(),
        "steps_run": reports.iter().map(|r| r.steps_run).sum::<usize>(),
        "failure_count": reports.iter().map(|r| r.failures.len()).sum::<usize>(),
        "warning_count": reports.iter().map(|r| r.warnings.len()).sum::<usize>(),
        "malformed_count": malformed.len(),
        "malformed": malformed.iter().map(|e| json!({
            "file": e.file, "step": e.step, "reason": e.reason, "line": format!("subword: {e}"),
        })).collect::<Vec<_>>(),
        "files": files,
    })
}
