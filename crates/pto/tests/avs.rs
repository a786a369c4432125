//! The spec's own verification points (AVS, pto-spec `tests/asl/`) on the
//! TLOAD/TSTORE path, translated step for step into scenarios under
//! `tests/pto/avs/`, run against the model; plus the scenario examples of
//! `tests/pto/examples/` and the beyond-the-spec reports they show.
//!
//! Prints `N/M AVS points pass`. Every point of `tests/pto/avs/POINTS.txt`
//! must be a passing scenario, a static test (`avs_static.rs`) or listed in
//! `tests/pto/avs/UNEXPRESSIBLE.md` with its reason.

use std::path::{Path, PathBuf};

use pto_scenario::{self as scenario, FileReport, RunOptions, WarningKind};

fn avs_dir() -> PathBuf {
    testkit::workspace_root().join("tests/pto/avs")
}

fn examples_dir() -> PathBuf {
    testkit::workspace_root().join("tests/pto/examples")
}

fn tomls(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reads and parses a scenario of the repository.
fn load(p: &Path) -> Result<scenario::Scenario, scenario::ScenarioError> {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    scenario::parse(&p.display().to_string(), &text)
}

fn run_file(p: &Path, opts: RunOptions) -> FileReport {
    let sc = load(p).unwrap_or_else(|e| panic!("malformed scenario: {e}"));
    scenario::run(&sc, opts)
}

struct Point {
    disposition: String,
    rel: String,
}

fn points() -> Vec<Point> {
    let text = std::fs::read_to_string(avs_dir().join("POINTS.txt")).expect("POINTS.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            Point {
                disposition: it.next().unwrap().to_string(),
                rel: it.next().unwrap().to_string(),
            }
        })
        .collect()
}

/// `(stem, reason)` of every whole-point row of UNEXPRESSIBLE.md.
fn unexpressible_reasons() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(avs_dir().join("UNEXPRESSIBLE.md")).expect("UNEXPRESSIBLE.md");
    let whole = text
        .split("## Not expressible (whole point)")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .unwrap_or("");
    whole
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            (
                cells[0]
                    .trim_start_matches("| ")
                    .trim_matches('`')
                    .to_string(),
                cells.last().unwrap().trim_end_matches(" |").to_string(),
            )
        })
        .collect()
}

#[test]
fn every_translated_avs_point_passes() {
    let files = tomls(&avs_dir());
    assert!(
        files.len() >= 50,
        "the AVS translations are present ({} files)",
        files.len()
    );
    let mut failed = Vec::new();
    for f in &files {
        let r = run_file(f, RunOptions::default());
        if !r.passed() {
            failed.push(r.failure_lines().join("\n"));
        }
    }
    let pts = points();
    let count = |d: &str| pts.iter().filter(|p| p.disposition == d).count();
    // Static points pass when avs_static.rs passes (it runs beside this test).
    testkit::say(&format!(
        "{}/{} AVS points pass ({} scenarios of {}, {} static checks in avs_static.rs); {} unexpressible:",
        files.len() - failed.len() + count("static"),
        pts.len(),
        files.len() - failed.len(),
        count("scenario"),
        count("static"),
        count("unexpressible")
    ));
    for (stem, reason) in unexpressible_reasons() {
        testkit::say(&format!("  unexpressible {stem}: {reason}"));
    }
    assert!(
        failed.is_empty(),
        "{} AVS scenario(s) fail:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn every_avs_point_of_the_issue_is_translated_static_or_listed_with_a_reason() {
    let pts = points();
    assert_eq!(
        pts.len(),
        88,
        "POINTS.txt holds the 88 points of pto-spec e599a3d3 that execute TLOAD/TSTORE"
    );
    assert_eq!(
        unexpressible_reasons().len(),
        pts.iter()
            .filter(|p| p.disposition == "unexpressible")
            .count(),
        "every unexpressible point has one reason row"
    );
    let unexpressible =
        std::fs::read_to_string(avs_dir().join("UNEXPRESSIBLE.md")).expect("UNEXPRESSIBLE.md");
    let static_tests =
        std::fs::read_to_string(testkit::workspace_root().join("crates/pto/tests/avs_static.rs"))
            .expect("avs_static.rs");
    let mut translated = std::collections::BTreeSet::new();
    for p in &pts {
        let stem = p.rel.trim_end_matches(".asl");
        let toml = avs_dir().join(format!("{stem}.toml"));
        match p.disposition.as_str() {
            "scenario" => {
                assert!(
                    toml.exists(),
                    "{} is translated at {}",
                    p.rel,
                    toml.display()
                );
                translated.insert(toml);
            }
            "static" => {
                let id = scenario_free_static_id(&p.rel);
                assert!(
                    static_tests.contains(&id),
                    "{}: avs_static.rs names {id}",
                    p.rel
                );
            }
            "unexpressible" => {
                assert!(
                    unexpressible.contains(stem),
                    "{} is listed in UNEXPRESSIBLE.md",
                    p.rel
                )
            }
            d => panic!("unknown disposition {d}"),
        }
    }
    // No stray scenario outside the list.
    for f in tomls(&avs_dir()) {
        assert!(
            translated.contains(&f),
            "{} is not a point of POINTS.txt",
            f.display()
        );
    }
}

/// The AVS id of a static point, as avs_static.rs cites it in a doc comment.
fn scenario_free_static_id(rel: &str) -> String {
    match rel {
        r if r.contains("arch-static-global-memory-access") => {
            "PTO-AVS-ARCH-MEMORY-MODEL-GLOBAL-MEMORY-ACCESS-STATIC-001"
        }
        r if r.contains("block-static-shared-tlsu") => {
            "PTO-AVS-BLOCK-MODEL-DISPATCH-SHARED-TLSU-STATIC-001"
        }
        r if r.contains("block-static-tlsu-layout-conversion") => {
            "PTO-AVS-BLOCK-MODEL-DISPATCH-TLSU-LAYOUT-CONVERSION-STATIC-001"
        }
        r if r.contains("tile-static-load-store") => {
            "PTO-AVS-TILE-MODEL-MEMORY-LOAD-STORE-STATIC-001"
        }
        r => panic!("no static id for {r}"),
    }
    .to_string()
}

#[test]
fn scenarios_are_named_by_avs_id_with_the_spec_summary() {
    for f in tomls(&avs_dir()) {
        let sc = load(&f).unwrap();
        let name = sc.name.unwrap_or_default();
        assert!(
            name.starts_with("PTO-AVS-"),
            "{}: name `{name}` is the AVS id",
            f.display()
        );
        let d = sc.description.unwrap_or_default();
        assert!(
            d.contains("Pass: "),
            "{}: description carries the pass condition",
            f.display()
        );
    }
}

#[test]
fn the_examples_pass() {
    let files = tomls(&examples_dir());
    assert!(files.len() >= 3);
    for f in files {
        let r = run_file(&f, RunOptions::default());
        assert!(r.passed(), "{}", r.failure_lines().join("\n"));
    }
}

#[test]
fn conflict_example_names_both_pes_and_the_byte_range() {
    let r = run_file(
        &examples_dir().join("conflict-two-pes-one-row.toml"),
        RunOptions::default(),
    );
    let c: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Conflict)
        .collect();
    assert_eq!(c.len(), 1, "one conflicting PE pair: {:?}", r.warnings);
    let m = &c[0].message;
    assert!(m.contains("PE0 and PE1"), "{m}");
    assert!(m.contains("0x100..=0x11f"), "{m}");
    assert!(
        m.contains("(0, 0)") && m.contains("(1, 0)"),
        "rows/cols of both PEs: {m}"
    );
}

#[test]
fn stride_unit_example_suggests_the_byte_stride() {
    let r = run_file(
        &examples_dir().join("stride-unit-element-count.toml"),
        RunOptions::default(),
    );
    let s: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::StrideUnit)
        .collect();
    assert_eq!(s.len(), 1, "{:?}", r.warnings);
    assert!(
        s[0].message.contains("row stride 4 bytes"),
        "{}",
        s[0].message
    );
    assert!(
        s[0].message.contains("probably meant is 16"),
        "{}",
        s[0].message
    );
}

#[test]
fn boundary_example_warns_tload_in_bytes_and_tprefetch_in_elements() {
    let f = examples_dir().join("boundary-tload-bytes-tprefetch-elements.toml");
    let r = run_file(&f, RunOptions::default());
    assert!(r.passed(), "{}", r.failure_lines().join("\n"));
    let s: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::StrideUnit)
        .collect();
    // The correct strides (64 bytes, 16 elements) raise nothing; each wrong
    // unit raises one warning naming the unit its operation counts.
    assert_eq!(s.len(), 2, "{:?}", r.warnings);
    assert!(
        s[0].message.contains("TPREFETCH row stride 64 elements")
            && s[0].message.contains("probably meant is 16"),
        "{}",
        s[0].message
    );
    assert!(
        s[1].message.contains("row stride 16 bytes")
            && !s[1].message.contains("TPREFETCH")
            && s[1].message.contains("16 elements = 64 bytes"),
        "{}",
        s[1].message
    );
    // --element-stride reinterprets TLOAD/TSTORE only: the TPREFETCH steps,
    // whose stride already counts elements, see the same GM either way.
    let what_if = run_file(
        &f,
        RunOptions {
            element_stride: true,
        },
    );
    let prefetch_steps = |r: &FileReport| {
        r.transfers
            .iter()
            .filter(|t| t.step == 19 || t.step == 31)
            .map(|t| t.accesses.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(prefetch_steps(&r), prefetch_steps(&what_if));
    assert!(!prefetch_steps(&r).is_empty());
}

#[test]
fn element_stride_what_if_moves_row_one_to_the_element_scaled_address() {
    // Byte stride (ADR 0074): row 1 starts at 0x404 and reads 0x3f800001.
    // The superseded element stride reads row 1 at 0x400 + 4 * 4 = 0x410.
    let f = examples_dir().join("stride-unit-element-count.toml");
    let byte = run_file(&f, RunOptions::default());
    assert!(byte.passed(), "{}", byte.failure_lines().join("\n"));
    let elem = run_file(
        &f,
        RunOptions {
            element_stride: true,
        },
    );
    assert_eq!(
        elem.failures.len(),
        1,
        "the what-if reads different bytes: {:?}",
        elem.failures
    );
    assert_eq!(elem.failures[0].got, "0x3f800100", "{:?}", elem.failures[0]);
    let row1 = |r: &FileReport| {
        r.transfers[0]
            .accesses
            .iter()
            .find(|a| a.row == 1 && a.col == 0)
            .map(|a| a.addr)
    };
    assert_eq!(row1(&byte), Some(0x404));
    assert_eq!(row1(&elem), Some(0x410));
}
