//! `subword pto run` / `pto footprint` against the command-line contract: exit 0 when every
//! expectation held, 1 with `FILE: step N (OP): expected …, got …` lines when
//! any failed, 2 with `subword: FILE: step N: reason` for a malformed file;
//! `--json` parses; warnings go to stderr as `subword: warning: …`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn subword() -> Command {
    Command::new(env!("CARGO_BIN_EXE_subword"))
}

fn run(args: &[&str]) -> Output {
    subword().args(args).output().expect("subword runs")
}

fn examples() -> PathBuf {
    testkit::workspace_root().join("tests/pto/examples")
}

/// Writes `text` to a fresh scratch directory named after the test and file
/// (`testkit::scratch_dir` empties its directory, so one per file).
fn scratch(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = testkit::scratch_dir(&format!("{test}-{}", name.replace('.', "_")));
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const PASSING: &str = r#"
name = "store then load"
[[step]]
op = "store"
addr = "0x40"
size = 4
value = "0x11223344"
[[step]]
op = "expect-memory"
addr = "0x40"
bytes = "44 33 22 11"
"#;

const FAILING: &str = r#"
[[step]]
op = "memory"
addr = 16
bytes = "aa"
[[step]]
op = "expect-memory"
addr = 16
bytes = "bb"
[[step]]
op = "expect-load"
addr = 16
size = 1
value = "0xcc"
[[step]]
op = "expect-fault"
code = "Fault_None"
"#;

#[test]
fn run_exits_0_when_every_expectation_holds() {
    let p = scratch("pto_cli_ok", "ok.toml", PASSING);
    let o = run(&["pto", "run", s(&p)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("every expectation held"));
}

#[test]
fn run_exits_1_and_lists_every_failure_with_file_step_op_expected_got() {
    let p = scratch("pto_cli_fail", "fail.toml", FAILING);
    let o = run(&["pto", "run", s(&p)]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(": step ")).collect();
    assert_eq!(
        lines.len(),
        2,
        "both failures, and the run went on past the first: {out}"
    );
    assert_eq!(
        lines[0],
        format!(
            "{}: step 2 (expect-memory): expected bytes bb at 0x10, got aa",
            p.display()
        )
    );
    assert_eq!(
        lines[1],
        format!(
            "{}: step 3 (expect-load): expected LoadUnsigned(0x10, 1) = 0xcc, got 0xaa",
            p.display()
        )
    );
}

#[test]
fn run_exits_2_naming_file_step_and_reason_for_malformed_files() {
    let cases = [
        ("badtoml.toml", "[[step]\nop = 1\n", "bad TOML"),
        ("unknown-op.toml", "[[step]]\nop = \"reset\"\n[[step]]\nop = \"teleport\"\n", "step 2: unknown op `teleport`"),
        ("missing.toml", "[[step]]\nop = \"store\"\naddr = 0\nsize = 4\n", "step 1: missing field `value`"),
        ("range.toml", "[[step]]\nop = \"gpr\"\nreg = 99\nvalue = 1\n", "step 1: `reg` = 99 is out of range"),
        (
            "dtype.toml",
            "[[step]]\nop = \"tile\"\nindex = 0\ncapacity = 128\nrows = 1\ncols = 1\nvalid_rows = 1\nvalid_cols = 1\ndtype = \"U3\"\n",
            "step 1: unknown dtype `U3`",
        ),
        (
            "mgather-pad.toml",
            "[[step]]\nop = \"mgather\"\nindex = 1\nbase = 0\nindices = 2\npad = \"Huge\"\n",
            "step 1: unknown pad `Huge`",
        ),
        (
            "mscatter-missing.toml",
            "[[step]]\nop = \"reset\"\n[[step]]\nop = \"mscatter\"\nindex = 1\nbase = 0\n",
            "step 2: missing field `indices`",
        ),
        (
            "gmov-field.toml",
            "[[step]]\nop = \"gmov\"\nindex = 1\nsource = 2\npeer = 1\n",
            "step 1: unknown field `peer`",
        ),
        (
            "tprefetch-missing.toml",
            "[[step]]\nop = \"tprefetch\"\nbase = 0\nvalid_cols = 1\nvalid_rows = 1\ncols = 1\ndtype = \"U8\"\n",
            "step 1: missing field `stride_elements`",
        ),
        (
            "recover-range.toml",
            "[[step]]\nop = \"reset\"\n[[step]]\nop = \"recover-trap\"\ncontext = 256\n",
            "step 2: `context` = 256 is out of range",
        ),
        (
            "shared-element-both.toml",
            "[[step]]\nop = \"expect-tile-element\"\nshared = 1\nrow = 0\ncol = 0\nstorage = 0\nvalue = 0\n",
            "step 1: give `row` and `col`, or `storage`, not both",
        ),
    ];
    for (name, text, want) in cases {
        let p = scratch("pto_cli_malformed", name, text);
        let o = run(&["pto", "run", s(&p)]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        let line = err
            .lines()
            .find(|l| l.starts_with("subword: "))
            .unwrap_or_default();
        assert!(
            line.starts_with(&format!("subword: {}: ", p.display())),
            "{name}: {err}"
        );
        assert!(line.contains(want), "{name}: want `{want}` in `{line}`");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn a_malformed_file_among_good_ones_is_exit_2_before_anything_runs() {
    let good = scratch("pto_cli_mixed", "good.toml", PASSING);
    let bad = scratch("pto_cli_mixed", "bad.toml", "[[step]]\nop = \"nope\"\n");
    assert_eq!(
        run(&["pto", "run", s(&good)]).status.code(),
        Some(0),
        "the good file alone passes"
    );
    let o = run(&["pto", "run", s(&good), s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.toml: step 1: unknown op `nope`"));
    assert!(
        o.stdout.is_empty(),
        "nothing ran: {}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn undecodable_words_are_architectural_rejections_not_panics() {
    let p = scratch(
        "pto_cli_reject",
        "reject.toml",
        "[[step]]\nop = \"command\"\nword = \"0xffffffff\"\nexpect = \"rejected\"\n[[step]]\nop = \"command\"\nword = \"0xfffffffe\"\n",
    );
    let o = run(&["pto", "run", s(&p)]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("step 2 (command): expected 0xfffffffe executed, got rejected (Fault_"),
        "{out}"
    );
}

#[test]
fn json_output_parses_and_counts_failures() {
    let ok = scratch("pto_cli_json", "ok.toml", PASSING);
    let bad = scratch("pto_cli_json", "fail.toml", FAILING);
    let o = run(&["pto", "run", "--json", s(&ok), s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("--json prints one JSON object");
    assert_eq!(v["passed"], false);
    assert_eq!(v["files_run"], 2);
    assert_eq!(v["failure_count"], 2);
    assert_eq!(v["element_stride"], false);
    assert_eq!(v["files"][0]["passed"], true);
    assert_eq!(v["files"][0]["name"], "store then load");
    let f = &v["files"][1]["failures"][0];
    assert_eq!(f["step"], 2);
    assert_eq!(f["op"], "expect-memory");
    assert_eq!(f["expected"], "bytes bb at 0x10");
    assert_eq!(f["got"], "aa");
}

#[test]
fn json_with_a_malformed_file_is_still_one_object_listing_it_and_exits_2() {
    let ok = scratch("pto_cli_json_malformed", "ok.toml", PASSING);
    let bad = scratch(
        "pto_cli_json_malformed",
        "bad.toml",
        "[[step]]\nop = \"store\"\naddr = 1\nsize = 3\nvalue = 0\n",
    );
    let o = run(&["pto", "run", "--json", s(&ok), s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .expect("--json prints one JSON object even with a malformed file");
    assert_eq!(v["passed"], false);
    assert_eq!(v["files_run"], 1, "the well-formed file still runs");
    assert_eq!(v["files"][0]["passed"], true);
    assert_eq!(v["malformed_count"], 1);
    let m = &v["malformed"][0];
    assert_eq!(m["file"], s(&bad));
    assert_eq!(m["step"], 1);
    assert!(m["reason"].as_str().unwrap().contains("size"), "{m}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines().filter(|l| l.starts_with("subword: ")).count(),
        1,
        "{err}"
    );
}

#[test]
fn warnings_go_to_stderr_and_do_not_change_the_status() {
    let o = run(&[
        "pto",
        "run",
        s(&examples().join("conflict-two-pes-one-row.toml")),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines()
            .any(|l| l.starts_with("subword: warning: ") && l.contains("conflict: PE0 and PE1")),
        "{err}"
    );
    let o = run(&[
        "pto",
        "run",
        "--json",
        s(&examples().join("stride-unit-element-count.toml")),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0]["warnings"][0]["kind"], "stride-unit");
}

#[test]
fn element_stride_what_if_is_opt_in_and_announced() {
    let f = examples().join("stride-unit-element-count.toml");
    let o = run(&["pto", "run", "--element-stride", s(&f)]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "old element-unit stride reads other bytes"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("pre-ADR-0074"), "{err}");
}

#[test]
fn boundary_example_warns_each_unit_and_element_stride_reinterprets_only_tload() {
    let f = examples().join("boundary-tload-bytes-tprefetch-elements.toml");
    let o = run(&["pto", "run", s(&f)]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    let warnings: Vec<_> = err
        .lines()
        .filter(|l| l.starts_with("subword: warning: ") && l.contains("stride-unit"))
        .collect();
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(
        warnings[0].contains("step 31 (execute)")
            && warnings[0].contains("TPREFETCH row stride 64 elements"),
        "{err}"
    );
    assert!(
        warnings[1].contains("step 35 (execute)")
            && warnings[1].contains("row stride 16 bytes")
            && !warnings[1].contains("TPREFETCH"),
        "{err}"
    );
    // The what-if changes the TLOAD's rows (its row-1 element is read from
    // elsewhere) and nothing of TPREFETCH: its event and memory
    // expectations still hold.
    let o = run(&["pto", "run", "--element-stride", s(&f)]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let failures: Vec<_> = out.lines().filter(|l| l.contains(": step ")).collect();
    assert_eq!(failures.len(), 1, "{out}");
    assert!(
        failures[0].contains("step 9 (expect-tile-element)"),
        "{out}"
    );
}

#[test]
fn footprint_writes_an_svg_with_a_legend() {
    let dir = testkit::scratch_dir("pto_cli_footprint");
    let svg = dir.join("fp.svg");
    let o = run(&[
        "pto",
        "footprint",
        s(&examples().join("adr0074-packed-row-pitch.toml")),
        "--svg",
        s(&svg),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{text}");
    assert!(text.contains("PE0 write / read"));
    assert!(
        text.contains("0x320: PE0 row 0 col 0"),
        "row 0 element drawn"
    );
    assert!(
        text.contains("0x324: PE0 row 1 col 0"),
        "row 1 restarts at the byte-strided base"
    );
}

/// Without `--svg` the footprint is listed: one line per PE and row, the
/// packed rows at their byte-strided bases, nibble by nibble.
#[test]
fn footprint_without_svg_lists_each_row_by_byte_and_nibble() {
    let o = run(&[
        "pto",
        "footprint",
        s(&examples().join("adr0074-packed-row-pitch.toml")),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "step 12 (execute): 4 element access(es)",
            "  PE0 writes row 0: 0x320.lo..=0x320.hi (cols 0..=1)",
            "  PE0 writes row 1: 0x324.lo..=0x324.hi (cols 0..=1)",
        ],
        "{out}"
    );
    // Byte-wide elements: a row is one byte range; the old unit moves row 1.
    let f = examples().join("stride-unit-element-count.toml");
    let now = String::from_utf8_lossy(&run(&["pto", "footprint", s(&f)]).stdout).into_owned();
    let old =
        String::from_utf8_lossy(&run(&["pto", "footprint", s(&f), "--element-stride"]).stdout)
            .into_owned();
    assert!(now.contains("row 1: 0x404..=0x413 (cols 0..=3)"), "{now}");
    assert!(old.contains("row 1: 0x410..=0x41f (cols 0..=3)"), "{old}");
}

#[test]
fn footprint_element_stride_what_if_draws_the_old_binary_rows() {
    let dir = testkit::scratch_dir("pto_cli_footprint_what_if");
    let f = examples().join("stride-unit-element-count.toml");
    let (now, old) = (dir.join("bytes.svg"), dir.join("elements.svg"));
    assert_eq!(
        run(&["pto", "footprint", s(&f), "--svg", s(&now)])
            .status
            .code(),
        Some(0)
    );
    let o = run(&[
        "pto",
        "footprint",
        s(&f),
        "--svg",
        s(&old),
        "--element-stride",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the old unit reads other bytes, so the expectation fails"
    );
    let (now, old) = (
        std::fs::read_to_string(now).unwrap(),
        std::fs::read_to_string(old).unwrap(),
    );
    let title = |svg: &str, addr: &str| {
        svg.lines()
            .find_map(|l| {
                l.split("<title>")
                    .nth(1)
                    .filter(|t| t.starts_with(addr))
                    .map(str::to_string)
            })
            .unwrap_or_default()
    };
    assert!(
        title(&now, "0x404:").contains("PE0 row 1 col 0"),
        "byte stride 4: row 1 at 0x404"
    );
    assert!(
        title(&old, "0x410:").contains("PE0 row 1 col 0"),
        "element stride 4 x 4 bytes: row 1 at 0x410"
    );
    assert!(
        !title(&old, "0x404:").contains("row 1"),
        "no row 1 element at 0x404 in the old unit"
    );
    assert!(old.contains("pre-ADR-0074"));
}

#[test]
fn disasm_of_a_binary_file_without_raw_is_exit_2_pointing_at_raw() {
    let dir = testkit::scratch_dir("pto_cli_disasm_binary");
    let p = dir.join("words.bin");
    std::fs::write(&p, [0xff, 0xfe, 0x00, 0x81]).unwrap();
    let o = run(&["pto", "disasm", s(&p)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("subword: ") && err.contains("--raw"),
        "{err}"
    );
    // The same bytes with --raw are one word, reported, not refused.
    let o = run(&["pto", "disasm", "--raw", s(&p)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("8100feff\t"));
}

#[test]
fn tepl_starts_assemble_by_operation_name_and_disassemble_back() {
    let p = scratch(
        "pto_cli_tepl",
        "tepl.s",
        "BSTART.TEPL TADDS, U64\nBSTART.TEPL 3, 10, U8\n",
    );
    let o = run(&["pto", "asm", s(&p)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let words = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(
        words.split_whitespace().collect::<Vec<_>>(),
        ["0xc2019181", "0xdea19181"]
    );
    let w = scratch("pto_cli_tepl", "words.txt", &words);
    let o = run(&["pto", "disasm", s(&w)]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("BSTART.TEPL TADDS, U64"), "{text}");
    assert!(text.contains("BSTART.TEPL TQUANT, U8"), "{text}");
    // An unknown operation is one line naming it, exit 2.
    let bad = scratch("pto_cli_tepl", "bad.s", "BSTART.TEPL TNOPE, U64\n");
    let o = run(&["pto", "asm", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("TNOPE"), "{err}");
}
