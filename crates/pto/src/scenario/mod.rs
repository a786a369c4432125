//! PTO scenario runner (`subword pto run`), format: `PTO-SCENARIO.md`.
//!
//! A scenario drives the model the way the spec's AVS points drive the ASL
//! model: set state, execute encoded command instructions, check memory,
//! tiles and faults. Each step mirrors one model primitive, so an AVS point
//! translates step for step (see `tests/pto/avs/`). The ops added to the
//! format beyond PTO-SCENARIO.md (direct `tload`/`tstore`, memory events,
//! descriptor and binding read-back, contract predicates by ASL name, …) are
//! listed in `tests/pto/README.md`.
//!
//! - [`parse`]: TOML text to typed steps; malformed input is a
//!   [`ScenarioError`] (file, step, reason), never a panic.
//! - [`exec`]: runs the steps on a fresh [`crate::Machine`]; a failed
//!   expectation is recorded and the run continues.
//! - [`report`]: beyond-the-spec warnings (cross-PE conflicts, stride units).
//!
//! Architecture invariant: a run's outcome (pass/fail) depends only on the
//! expectations; warnings never change it.

pub mod exec;
pub mod parse;
pub mod report;

use std::path::Path;

pub use exec::{run, run_on, FileReport, RunOptions, StepFailure, Transfer};
pub use parse::{parse, CandidateKind, Op, Scenario, ScenarioError, OPS};
pub use report::{Warning, WarningKind};

/// Reads and parses a scenario file; the error names the file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: file.clone(),
        step: None,
        reason: format!("cannot read: {e}"),
    })?;
    parse(&file, &text)
}

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
