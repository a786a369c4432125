//! subword's form table (`pto::forms::FORMS`) against the PTO spec's own
//! catalogs (`../shared/pto-spec-catalog/command-forms.json`,
//! `tile-operations.json`): every form of the TLOAD/TSTORE path with its
//! fixed bits, fields, bit pieces and accepted values; plus decode closure
//! over the path's opcode space.

use pto::forms::{self, FORMS};
use serde_json::Value;

const PATH_MNEMONICS: &[&str] = &[
    "BSTART.TLOAD",
    "BSTART.TSTORE",
    "BSTART.MGATHER",
    "BSTART.MSCATTER",
    "BSTART.GMOV",
    "BSTART.TEPL",
    "B.DIM",
    "B.IOR",
    "B.IOT",
    "B.IOS",
    "B.DATR",
    "B.HINT",
    "BSTOP",
];

fn catalog(name: &str) -> Option<Value> {
    let p = testkit::shared_dir().join("pto-spec-catalog").join(name);
    match std::fs::read_to_string(&p) {
        Ok(t) => Some(serde_json::from_str(&t).expect("catalog is JSON")),
        Err(e) => {
            // Like testkit::require_tool: a failure under CI, a plain
            // SKIPPED line elsewhere (a clone without ../shared beside it).
            assert!(
                !testkit::in_ci(),
                "{}: {e} (../shared/pto-spec-catalog is required under CI)",
                p.display()
            );
            let test = std::thread::current()
                .name()
                .unwrap_or("catalog test")
                .to_string();
            testkit::say(&format!(
                "SKIPPED {test}: {name} not readable: {e} (../shared/pto-spec-catalog missing)"
            ));
            None
        }
    }
}

fn hex(v: &Value) -> u32 {
    let s = v.as_str().expect("hex string");
    u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex")
}

#[test]
fn every_path_form_matches_the_catalog_fields_bits_and_values() {
    let Some(cat) = catalog("command-forms.json") else {
        return;
    };
    let cforms = cat["forms"].as_array().expect("forms");
    let mut checked = 0;
    for f in FORMS {
        let c = cforms
            .iter()
            .find(|c| c["form_id"] == f.form_id)
            .unwrap_or_else(|| panic!("{} not in the catalog", f.form_id));
        assert_eq!(c["mnemonic"], f.mnemonic, "{}", f.form_id);
        assert_eq!(c["asm"], f.asm, "{}", f.form_id);
        assert_eq!(c["length_bits"], 32);
        // Fixed bits: the form's own encoding or its named variant.
        let enc = match f.variant {
            None => &c["encoding"][0],
            Some(v) => {
                let var = c["encoding_variants"]
                    .as_array()
                    .and_then(|vs| vs.iter().find(|x| x["name"] == v))
                    .unwrap_or_else(|| panic!("{} variant {v} missing", f.form_id));
                &var["encoding"][0]
            }
        };
        assert_eq!(hex(&enc["mask"]), f.mask, "{} mask", f.form_id);
        assert_eq!(hex(&enc["match"]), f.matches, "{} match", f.form_id);
        // Fields and pieces.
        let cfields = c["fields"].as_array().expect("fields");
        assert_eq!(cfields.len(), f.fields.len(), "{} field count", f.form_id);
        for cf in cfields {
            let name = cf["name"].as_str().expect("name");
            let ours = f
                .field(name)
                .unwrap_or_else(|| panic!("{}: field {name} missing", f.form_id));
            assert_eq!(
                cf["width"].as_u64(),
                Some(ours.width as u64),
                "{} {name} width",
                f.form_id
            );
            let pieces: Vec<(u32, u32, u32)> = cf["pieces"]
                .as_array()
                .expect("pieces")
                .iter()
                .map(|p| {
                    (
                        p["instruction_lsb"].as_u64().unwrap() as u32,
                        p["value_lsb"].as_u64().unwrap() as u32,
                        p["width"].as_u64().unwrap() as u32,
                    )
                })
                .collect();
            let mine: Vec<(u32, u32, u32)> = ours
                .pieces
                .iter()
                .map(|p| (p.instruction_lsb, p.value_lsb, p.width))
                .collect();
            assert_eq!(pieces, mine, "{} {name} pieces", f.form_id);
        }
        // Constraints: same fields, same accepted values.
        let ccons = c["constraints"].as_array().expect("constraints");
        assert_eq!(
            ccons.len(),
            f.constraints.len(),
            "{} constraint count",
            f.form_id
        );
        for cc in ccons {
            assert_eq!(cc["operator"], "one-of");
            let field = cc["field"].as_str().unwrap();
            let ours = f
                .constraints
                .iter()
                .find(|k| k.field == field)
                .unwrap_or_else(|| panic!("{}: constraint on {field} missing", f.form_id));
            let vals: Vec<u32> = cc["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect();
            assert_eq!(vals, ours.values, "{} {field} values", f.form_id);
        }
        checked += 1;
    }
    // The converse: every catalog form (and variant) of these mnemonics is in the table.
    for c in cforms {
        let m = c["mnemonic"].as_str().unwrap();
        if !PATH_MNEMONICS.contains(&m) {
            continue;
        }
        let id = c["form_id"].as_str().unwrap();
        assert!(
            FORMS.iter().any(|f| f.form_id == id && f.variant.is_none()),
            "catalog form {id} ({m}) missing from subword's table"
        );
        for v in c["encoding_variants"].as_array().into_iter().flatten() {
            let name = v["name"].as_str().unwrap();
            assert!(
                FORMS
                    .iter()
                    .any(|f| f.form_id == id && f.variant == Some(name)),
                "catalog variant {name} of {id} missing"
            );
        }
    }
    testkit::say(&format!(
        "{checked} command forms agree with command-forms.json"
    ));
    assert_eq!(checked, FORMS.len());
}

#[test]
fn reviewed_overlaps_are_exactly_the_table_overlaps_and_narrow_forms_win() {
    let Some(cat) = catalog("command-forms.json") else {
        return;
    };
    let reviewed: Vec<(String, String)> = cat["reviewed_encoding_overlaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["broad_form_id"].as_str().unwrap().to_string(),
                o["narrow_form_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Two forms overlap when some word satisfies both mask/match pairs.
    let mut used = 0;
    for (i, a) in FORMS.iter().enumerate() {
        for b in &FORMS[i + 1..] {
            let common = a.mask & b.mask;
            if a.matches & common != b.matches & common || a.form_id == b.form_id {
                continue;
            }
            let listed = reviewed.iter().any(|(br, nr)| {
                (br == a.form_id && nr == b.form_id) || (br == b.form_id && nr == a.form_id)
            });
            assert!(
                listed,
                "{} and {} overlap but the catalog does not review it",
                a.form_id, b.form_id
            );
            used += 1;
            // The narrow form (more fixed bits) decodes first.
            let (narrow, broad) = if a.mask.count_ones() > b.mask.count_ones() {
                (a, b)
            } else {
                (b, a)
            };
            let d = forms::decode(narrow.matches).expect("narrow example decodes");
            assert_eq!(
                d.form.form_id, narrow.form_id,
                "narrow {} loses to {}",
                narrow.form_id, broad.form_id
            );
        }
    }
    assert_eq!(
        used, 2,
        "the two reviewed B.IOT overlaps are the only ones on this path"
    );
}

#[test]
fn decode_is_total_over_the_path_opcode_space() {
    // Every word whose major opcode bits belong to a path form either decodes
    // to exactly the first matching row, or is a typed rejection — never a panic.
    let mut decoded = 0u32;
    let mut rejected = 0u32;
    let mut x: u32 = 0x1234_5678;
    for f in FORMS {
        for _ in 0..4000 {
            // xorshift: random bits outside the fixed ones.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let w = f.matches | (x & !f.mask);
            match forms::decode(w) {
                Ok(d) => {
                    decoded += 1;
                    assert_eq!(w & d.form.mask, d.form.matches);
                    let text = pto::asm::disassemble(w).expect("decodes, so disassembles");
                    let back = pto::asm::assemble(&text)
                        .unwrap_or_else(|e| panic!("{w:#010x} `{text}`: {e}"));
                    // Bits that are neither fixed nor in a field (B.IOT's
                    // DstTile bits in a source-only form) are don't-care in
                    // the catalog; the assembler writes them as zero.
                    let covered = d
                        .form
                        .fields
                        .iter()
                        .flat_map(|f| f.pieces)
                        .fold(d.form.mask, |m, p| {
                            m | (((1u64 << p.width) - 1) as u32) << p.instruction_lsb
                        });
                    assert_eq!(back, vec![w & covered], "`{text}` round-trips");
                }
                Err(e) => {
                    rejected += 1;
                    assert!(pto::asm::disassemble(w).is_err(), "{w:#010x}: {e}");
                }
            }
        }
    }
    assert!(
        decoded > 10_000 && rejected > 1_000,
        "{decoded} decoded, {rejected} rejected"
    );
}

#[test]
fn reserved_data_type_codes_reject_before_effects() {
    let mut m = pto::Machine::new(4096);
    for code in [15u32, 21, 22, 23, 29, 30, 31] {
        let w = 0x0001_1181 | (code << 27);
        assert_eq!(
            m.execute_command_instruction(w),
            pto::CommandExecution::Rejected,
            "DataType {code}"
        );
        assert_eq!(m.last_fault(), pto::Fault::IllegalInstruction);
        assert!(!m.bundle_active(), "no bundle began");
    }
    // Every concrete code decodes and names the spec's type.
    for t in pto::DataType::ALL {
        let w = 0x0001_1181 | (t.code() << 27);
        assert_eq!(
            pto::asm::disassemble(w).unwrap(),
            format!("BSTART.TLOAD {t}")
        );
    }
}

#[test]
fn tlsu_operations_match_tile_operations_catalog() {
    let Some(cat) = catalog("tile-operations.json") else {
        return;
    };
    let ops = cat["operations"].as_array().unwrap();
    for (name, function) in [("TLOAD", 0u32), ("TSTORE", 1)] {
        let o = ops
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(o["family"], "TLSU");
        assert_eq!(o["function"].as_u64(), Some(function as u64));
        assert_eq!(forms::tlsu_operation_name(function), Some(name));
        // Operand roles: base address and byte row stride (ADR 0074).
        let roles: Vec<&str> = o["operands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["role"].as_str().unwrap())
            .collect();
        assert!(roles.contains(&"row-stride-bytes"), "{name}: {roles:?}");
    }
    for range in cat["reserved"]["tlsu_functions"].as_array().unwrap() {
        let lo = range[0].as_u64().unwrap() as u32;
        let hi = range[1].as_u64().unwrap() as u32;
        for f in lo..=hi {
            assert_eq!(
                forms::tlsu_operation_name(f),
                None,
                "TLSU function {f} is reserved"
            );
        }
    }
}

/// The TEPL selector table (`forms::TEPL_OPERATIONS`) is the catalog's TEPL
/// family: every operation with its selector (Mode:Function), Local
/// destination and source counts and GPR-fed fields, and every reserved
/// selector range absent.
#[test]
fn tepl_operations_match_tile_operations_catalog() {
    let Some(cat) = catalog("tile-operations.json") else {
        return;
    };
    let ops = cat["operations"].as_array().unwrap();
    let tepl: Vec<&Value> = ops.iter().filter(|o| o["family"] == "TEPL").collect();
    assert_eq!(tepl.len(), forms::TEPL_OPERATIONS.len());
    for o in tepl {
        let name = o["name"].as_str().unwrap();
        let selector = hex(&o["selector"]);
        let row = forms::tepl_operation(selector)
            .unwrap_or_else(|| panic!("{name} ({selector:#05x}) missing"));
        assert_eq!(row.name, name);
        let mode = o["mode"].as_u64().unwrap() as u32;
        let function = o["function"].as_u64().unwrap() as u32;
        assert_eq!(forms::tepl_selector(mode, function), selector, "{name}");
        let fields: Vec<&str> = o["operands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["field"].as_str().unwrap())
            .collect();
        let count = |pred: &dyn Fn(&str) -> bool| fields.iter().filter(|f| pred(f)).count() as u8;
        assert_eq!(
            row.destinations,
            count(&|f| f == "destination0" || f == "destination1"),
            "{name} destinations"
        );
        assert_eq!(
            row.sources,
            count(&|f| f.starts_with("source")),
            "{name} sources"
        );
        let mut gpr = 0;
        for (field, bit) in [
            ("address", forms::G_ADDRESS),
            ("scalar0", forms::G_SCALAR0),
            ("scalar1", forms::G_SCALAR1),
            ("diagonal", forms::G_DIAGONAL),
            ("flag0", forms::G_FLAG0),
        ] {
            if fields.contains(&field) {
                gpr |= bit;
            }
        }
        assert_eq!(row.gpr_fields, gpr, "{name} GPR fields");
    }
    for range in cat["reserved"]["tepl_selector_ranges"].as_array().unwrap() {
        for s in hex(&range[0])..=hex(&range[1]) {
            assert_eq!(
                forms::tepl_operation(s),
                None,
                "TEPL selector {s:#05x} is reserved"
            );
        }
    }
}
