//! `expect-tile-element` with `shared` + `row`/`col`, as PTO-SCENARIO.md
//! writes it: ReadSharedTileWord(id, TileLogicalLinearIndex(tile, row, col))
//! for every data type and generic layout, checked against the raw
//! `storage` index the layout's formula gives (asl/tile/model/definedness/
//! elements.asl, packed-boundary.asl).

use pto_scenario::{self as scenario, RunOptions};

const DTYPES: [(&str, u64); 25] = [
    ("FP64", 64),
    ("FP32", 32),
    ("TF32", 32),
    ("HF32", 32),
    ("FP16", 16),
    ("BF16", 16),
    ("HiF8", 8),
    ("E4M3", 8),
    ("E5M2", 8),
    ("E3M2", 8),
    ("E2M3", 8),
    ("E2M1X2", 4),
    ("E1M2X2", 4),
    ("E8M0", 8),
    ("HiF4X2", 4),
    ("S64", 64),
    ("S32", 32),
    ("S16", 16),
    ("S8", 8),
    ("S4X2", 4),
    ("U64", 64),
    ("U32", 32),
    ("U16", 16),
    ("U8", 8),
    ("U4X2", 4),
];

/// The layout formulas of TileLinearIndex / TilePackedLinearIndex, written
/// out independently of the model.
fn linear(layout: &str, rows: u64, cols: u64, inner: u64, r: u64, c: u64) -> u64 {
    match layout {
        "RowMajor" => r * cols + c,
        "ColumnMajor" => c * rows + r,
        "ZN" => ((r / 16) * (cols / inner) + c / inner) * 16 * inner + (c % inner) * 16 + r % 16,
        "NZ" => ((c / inner) * (rows / 16) + r / 16) * 16 * inner + (r % 16) * inner + c % inner,
        _ => unreachable!(),
    }
}

fn run(text: &str) -> scenario::FileReport {
    let sc =
        scenario::parse("shared_elements.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    scenario::run(&sc, RunOptions::default())
}

fn shared_scenario(dtype: &str, bits: u64, layout: &str) -> (String, u64) {
    let inner = 256 / bits;
    let (rows, cols) = (32, 2 * inner);
    let (r, c) = (17, inner + 3); // fractal block (1, 1), inner (1, 3)
    let k = linear(layout, rows, cols, inner, r, c);
    let cap = rows * cols * bits / 8;
    let text = format!(
        r#"
[[step]]
op = "reset"
[[step]]
op = "tile"
index = 0
capacity = {cap}
rows = {rows}
cols = {cols}
valid_rows = {rows}
valid_cols = {cols}
dtype = "{dtype}"
layout = "{layout}"
[[step]]
op = "tile-element"
index = 0
row = {r}
col = {c}
value = 5
[[step]]
op = "tile-element"
index = 0
row = 0
col = 1
value = "0xd"
[[step]]
op = "shared-tile"
id = 7
from_tile = 0
mask = "1111"
[[step]]
op = "expect-tile-element"
shared = 7
row = {r}
col = {c}
value = 5
[[step]]
op = "expect-tile-element"
shared = 7
storage = {k}
value = 5
[[step]]
op = "expect-tile-element"
shared = 7
row = 0
col = 1
value = "0xd"
"#
    );
    (text, k)
}

#[test]
fn shared_row_col_reads_through_the_layouts_logical_linear_index_for_every_dtype() {
    let mut checked = 0;
    for (dtype, bits) in DTYPES {
        for layout in ["RowMajor", "ColumnMajor", "ZN", "NZ"] {
            let (text, k) = shared_scenario(dtype, bits, layout);
            let rep = run(&text);
            assert!(
                rep.passed(),
                "{dtype} {layout} (storage {k}): {:?}",
                rep.failure_lines()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 100);
}

#[test]
fn shared_row_col_value_mismatch_is_a_failure_not_a_pass() {
    // A wrong expected value at (row, col) must fail: the read is real.
    let (text, _) = shared_scenario("FP16", 16, "ZN");
    let text = text.replacen(
        "row = 0\ncol = 1\nvalue = \"0xd\"",
        "row = 0\ncol = 1\nvalue = 5",
        1,
    );
    let rep = run(&text);
    assert_eq!(rep.failures.len(), 1, "{:?}", rep.failure_lines());
    assert!(
        rep.failure_lines()[0].contains("0xd"),
        "{:?}",
        rep.failure_lines()
    );
}

#[test]
fn shared_row_col_without_a_valid_descriptor_fails_and_storage_still_reads() {
    // No descriptor: row/col cannot be mapped; `storage` gives the raw index,
    // which reads UndefinedSharedTileWord.
    let text = r#"
[[step]]
op = "reset"
[[step]]
op = "expect-tile-element"
shared = 3
row = 0
col = 0
value = 0
[[step]]
op = "expect-tile-element"
shared = 3
storage = 4
value = "undefined"
"#;
    let rep = run(text);
    assert_eq!(rep.failures.len(), 1, "{:?}", rep.failure_lines());
    assert_eq!(rep.failures[0].step, 2);
    assert!(
        rep.failures[0].got.contains("no valid descriptor"),
        "{:?}",
        rep.failures[0]
    );
}

/// PTO-SCENARIO.md's element expectation on a Shared tile, after AVS
/// block-exec-bstart-tload-shared-001 (ReadSharedTileWord(id, 0/32/64)):
/// a RowMajor 16x16 U4X2 descriptor puts elements 32 and 64 at rows 2
/// and 4, column 0.
#[test]
fn format_document_shared_row_col_example_reads_rows_of_an_installed_tile() {
    let text = r#"
name = "shared row/col"
[[step]]
op = "reset"
[[step]]
op = "tile"
index = 1
capacity = 128
rows = 16
cols = 16
valid_rows = 16
valid_cols = 16
dtype = "U4X2"
[[step]]
op = "tile-element"
index = 1
row = 2
col = 0
value = 9
[[step]]
op = "tile-element"
index = 1
row = 4
col = 0
value = 10
[[step]]
op = "shared-tile"
id = 31
from_tile = 1
mask = "1111"
[[step]]
op = "expect-tile-element"
shared = 31
row = 2
col = 0
value = 9
[[step]]
op = "expect-tile-element"
shared = 31
storage = 32
value = 9
[[step]]
op = "expect-tile-element"
shared = 31
row = 4
col = 0
value = "0xa"
[[step]]
op = "expect-tile-element"
shared = 31
storage = 64
value = 10
"#;
    let rep = run(text);
    assert!(rep.passed(), "{:?}", rep.failure_lines());
}
