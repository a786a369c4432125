//! Helpers shared by the CLI test files: run the built `subword` binary.

#![allow(dead_code)]

use std::process::{Command, Output, Stdio};

/// Run `subword ARGS` with no standard input and capture its output.
pub fn subword(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run subword")
}

/// The one `subword: …` line a failing command must print on stderr.
pub fn one_stderr_line(o: &Output) -> String {
    let text = String::from_utf8_lossy(&o.stderr).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "expected one stderr line, got {lines:?}");
    assert!(lines[0].starts_with("subword: "), "{lines:?}");
    lines[0].to_string()
}
