//! `docs/pto-scenarios.md` lists every scenario operation exactly as
//! `pto_scenario::OPS` defines it (name, fields, primitive), so the reference
//! cannot drift from the parser. `UPDATE_DOCS=1 cargo test -p pto-scenario
//! --test docs` rewrites the table from the definitions.

use pto_scenario::ops::{Group, OPS};

const BEGIN: &str = "<!-- operations: generated from pto_scenario::OPS -->\n";
const END: &str = "<!-- end of operations -->\n";

fn table() -> String {
    let mut out = String::new();
    let mut group: Option<Group> = None;
    for d in OPS {
        if group != Some(d.group) {
            if group.is_some() {
                out.push('\n');
            }
            group = Some(d.group);
            out.push_str(&format!("### {}\n\n", d.group.title()));
            out.push_str("| op | fields | spec primitive |\n| --- | --- | --- |\n");
        }
        for cell in [d.fields, d.primitive] {
            assert!(
                !cell.contains('|'),
                "{}: a `|` would split the table row",
                d.name
            );
        }
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            d.name, d.fields, d.primitive
        ));
    }
    out
}

#[test]
fn the_scenario_reference_lists_every_operation_as_defined() {
    let path = testkit::workspace_root().join("docs/pto-scenarios.md");
    let doc = std::fs::read_to_string(&path).expect("docs/pto-scenarios.md");
    let a = doc.find(BEGIN).expect("the begin marker") + BEGIN.len();
    let b = doc.find(END).expect("the end marker");
    let want = table();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &doc[..a], &doc[b..])).unwrap();
        return;
    }
    assert_eq!(
        &doc[a..b],
        want,
        "docs/pto-scenarios.md is not the table of OPS: UPDATE_DOCS=1 cargo test -p pto-scenario --test docs"
    );
}

#[test]
fn every_operation_has_a_name_fields_and_primitive_once() {
    let mut names: Vec<&str> = OPS.iter().map(|d| d.name).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "an operation defined twice");
    for d in OPS {
        assert!(!d.primitive.trim().is_empty(), "{}: no primitive", d.name);
        assert!(
            pto_scenario::ops::find(d.name).is_some_and(|f| std::ptr::eq(f, d)),
            "{}",
            d.name
        );
    }
}
