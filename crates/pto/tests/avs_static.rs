//! The AVS points that are static contract checks of the spec's own catalogs
//! (`*-static-*-contract-*` and the generated `*-decode-*-canonical-*` points),
//! translated into checks of subword's decode description (`pto::asm`, driven
//! by `pto::forms`) against `../shared/pto-spec-catalog/*.json`.
//!
//! In the spec these points assert that the ASL unit compiles and that the
//! catalog and ASL contract agree; here the question is the same for
//! subword: does our one description of the forms agree with the catalog?
//! Outside CI the tests skip with a printed reason when the catalog is absent.

use serde_json::Value;

fn catalog(name: &str) -> Option<Value> {
    let path = testkit::shared_dir().join("pto-spec-catalog").join(name);
    match std::fs::read_to_string(&path) {
        Ok(t) => Some(serde_json::from_str(&t).expect("catalog JSON parses")),
        Err(e) => {
            // Like testkit::require_tool: a failure under CI, a plain
            // SKIPPED line elsewhere (a clone without ../shared beside it).
            assert!(
                !testkit::in_ci(),
                "{}: {e} (../shared/pto-spec-catalog is required under CI)",
                path.display()
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

fn hexnum(v: &Value) -> u64 {
    let s = v.as_str().expect("hex string");
    u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex")
}

/// A field's bit pieces: (instruction_lsb, value_lsb, width).
type Pieces = Vec<(u32, u32, u32)>;

struct Form {
    mnemonic: String,
    mask: u32,
    matches: u32,
    fields: Vec<(String, Pieces)>,
    one_of: Vec<(String, Vec<u64>)>,
    variants: Vec<(u32, u32, u64)>, // mask, match, function
}

fn form(forms: &Value, index: usize) -> Form {
    let f = &forms["forms"][index];
    let enc = &f["encoding"][0];
    Form {
        mnemonic: f["mnemonic"].as_str().unwrap().to_string(),
        mask: hexnum(&enc["mask"]) as u32,
        matches: hexnum(&enc["match"]) as u32,
        fields: f["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|fl| {
                (
                    fl["name"].as_str().unwrap().to_string(),
                    fl["pieces"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| {
                            (
                                p["instruction_lsb"].as_u64().unwrap() as u32,
                                p["value_lsb"].as_u64().unwrap() as u32,
                                p["width"].as_u64().unwrap() as u32,
                            )
                        })
                        .collect(),
                )
            })
            .collect(),
        one_of: f["constraints"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["operator"] == "one-of")
            .map(|c| {
                (
                    c["field"].as_str().unwrap().to_string(),
                    c["values"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_u64().unwrap())
                        .collect(),
                )
            })
            .collect(),
        variants: f["encoding_variants"]
            .as_array()
            .map(|vs| {
                vs.iter()
                    .map(|v| {
                        let e = &v["encoding"][0];
                        (
                            hexnum(&e["mask"]) as u32,
                            hexnum(&e["match"]) as u32,
                            v["function"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn place(f: &Form, field: &str, value: u64) -> u32 {
    let (_, pieces) = f
        .fields
        .iter()
        .find(|(n, _)| n == field)
        .expect("field in catalog");
    let mut w = 0u32;
    for &(ilsb, vlsb, width) in pieces {
        let bits = ((value >> vlsb) & ((1u64 << width) - 1)) as u32;
        w |= bits << ilsb;
    }
    w
}

/// The catalog's canonical word disassembles to the catalog mnemonic, and the
/// text assembles back to the same word.
fn canonical_round_trip(f: &Form, word: u32) {
    assert_eq!(
        word & f.mask,
        f.matches,
        "word {word:#010x} is an instance of {}",
        f.mnemonic
    );
    let text = pto::asm::disassemble(word)
        .unwrap_or_else(|r| panic!("{} word {word:#010x} must decode: {r}", f.mnemonic));
    assert!(
        text.starts_with(&f.mnemonic),
        "{word:#010x}: subword says `{text}`, the catalog says {}",
        f.mnemonic
    );
    let back = pto::asm::assemble(&text).unwrap_or_else(|e| panic!("`{text}` must assemble: {e}"));
    assert_eq!(back, vec![word], "`{text}` assembles back to {word:#010x}");
}

fn form_index(forms: &Value, mnemonic: &str) -> usize {
    forms["forms"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f["mnemonic"] == mnemonic)
        .expect("form in catalog")
}

/// DataType constraint of BSTART.TLOAD/TSTORE: every listed code decodes,
/// every other code is an architectural rejection (reserved DataType).
fn data_type_domain(f: &Form, base: u32) {
    let (_, allowed) = f
        .one_of
        .iter()
        .find(|(n, _)| n == "DataType")
        .expect("DataType constraint");
    for code in 0..32u64 {
        let word = base | place(f, "DataType", code);
        let r = pto::asm::disassemble(word);
        if allowed.contains(&code) {
            canonical_round_trip(f, word);
        } else {
            assert!(
                r.is_err(),
                "{}: reserved DataType {code} must reject, got {r:?}",
                f.mnemonic
            );
        }
    }
}

/// PTO-AVS-BLOCK-BSTART-TLOAD-DECODE-001 (block-decode-bstart-tload-canonical-001).
#[test]
fn avs_bstart_tload_decode_001_catalog_form_40_matches_subword() {
    let Some(c) = catalog("command-forms.json") else {
        return;
    };
    let i = form_index(&c, "BSTART.TLOAD");
    assert_eq!(i, 40, "the AVS point names form 40");
    let f = form(&c, i);
    canonical_round_trip(&f, f.matches);
    data_type_domain(&f, f.matches);
}

/// PTO-AVS-BLOCK-BSTART-TSTORE-DECODE-001 and the catalog half of
/// PTO-AVS-BLOCK-TSTORE-FORMS-001: form 50, Function 1 and its TSTORE.SPART
/// Function 14 variant.
#[test]
fn avs_bstart_tstore_decode_001_catalog_form_50_and_spart_variant_match_subword() {
    let Some(c) = catalog("command-forms.json") else {
        return;
    };
    let i = form_index(&c, "BSTART.TSTORE");
    assert_eq!(i, 50, "the AVS point names form 50");
    let f = form(&c, i);
    canonical_round_trip(&f, f.matches);
    data_type_domain(&f, f.matches);
    assert_eq!(f.variants.len(), 1, "one encoding variant: TSTORE.SPART");
    let (mask, m, function) = f.variants[0];
    assert_eq!((mask, m, function), (0x07ff_ffff, 0x00e1_1181, 14));
    let text = pto::asm::disassemble(m).expect("Function 14 decodes");
    assert!(
        text.starts_with("BSTART.TSTORE"),
        "Function 14 is BSTART.TSTORE, got `{text}`"
    );
    assert_eq!(pto::asm::assemble(&text).expect("assembles"), vec![m]);
}

/// PTO-AVS-BLOCK-B-IOR-DECODE-001: form 7, RegDst/RegSrc0/RegSrc1/RegSrc2.
#[test]
fn avs_b_ior_decode_001_catalog_form_7_fields_round_trip() {
    let Some(c) = catalog("command-forms.json") else {
        return;
    };
    let i = form_index(&c, "B.IOR");
    assert_eq!(i, 7, "the AVS point names form 7");
    let f = form(&c, i);
    canonical_round_trip(&f, f.matches);
    // Each selector field independently carries every one of the 24 GPRs.
    for (name, _) in &f.fields {
        for v in [1u64, 2, 23] {
            canonical_round_trip(&f, f.matches | place(&f, name, v));
        }
    }
}

/// PTO-AVS-ARCH-MEMORY-MODEL-GLOBAL-MEMORY-ACCESS-STATIC-001: every command
/// form on the GM access path (PTO-ARCH-GM-ACCESS-001) is known to subword
/// under the catalog's mnemonic.
#[test]
fn avs_arch_gm_access_static_001_every_gm_path_form_decodes_under_its_catalog_name() {
    let Some(c) = catalog("command-forms.json") else {
        return;
    };
    for m in [
        "BSTART.TLOAD",
        "BSTART.TSTORE",
        "B.IOR",
        "B.IOS",
        "B.DATR",
        "BSTOP",
    ] {
        let f = form(&c, form_index(&c, m));
        canonical_round_trip(&f, f.matches);
    }
}

/// PTO-AVS-BLOCK-MODEL-DISPATCH-SHARED-TLSU-STATIC-001: the Shared binding
/// form B.IOS (Shared id, size code, PE mode) agrees with the catalog.
#[test]
fn avs_shared_tlsu_static_001_b_ios_fields_round_trip() {
    let Some(c) = catalog("command-forms.json") else {
        return;
    };
    let f = form(&c, form_index(&c, "B.IOS"));
    canonical_round_trip(&f, f.matches | place_first(&f, &["PEMode"], 7));
    for (name, pieces) in &f.fields {
        let width: u32 = pieces.iter().map(|p| p.2).sum();
        let v = (1u64 << width) - 1;
        let word = f.matches | place(&f, name, v);
        if let Ok(text) = pto::asm::disassemble(word) {
            assert_eq!(
                pto::asm::assemble(&text).expect("assembles"),
                vec![word],
                "`{text}`"
            );
        }
    }
}

fn place_first(f: &Form, names: &[&str], v: u64) -> u32 {
    for n in names {
        if f.fields.iter().any(|(x, _)| x == n) {
            return place(f, n, v);
        }
    }
    0
}

/// PTO-AVS-BLOCK-MODEL-DISPATCH-TLSU-LAYOUT-CONVERSION-STATIC-001: B.DATR
/// carries the CUBE conversion Layout codes 21..26 (ND2M32, ND2M16, ND2N8
/// and their TSTORE directions) with DTYPE_NONE.
#[test]
fn avs_tlsu_layout_conversion_static_001_b_datr_cube_layouts_round_trip() {
    let Some(c) = catalog("command-forms.json") else {
        return;
    };
    let f = form(&c, form_index(&c, "B.DATR"));
    let layout = f
        .fields
        .iter()
        .find(|(n, _)| n.contains("Layout"))
        .map(|(n, _)| n.clone())
        .expect("Layout field");
    let dtype = f
        .fields
        .iter()
        .find(|(n, _)| n.contains("DataType"))
        .map(|(n, _)| n.clone())
        .expect("DataType field");
    for code in 21..=26u64 {
        let word = f.matches | place(&f, &dtype, 31) | place(&f, &layout, code);
        canonical_round_trip(&f, word);
    }
}

/// PTO-AVS-TILE-MODEL-MEMORY-LOAD-STORE-STATIC-001, PTO-AVS-TILE-TLOAD-STATIC-001,
/// PTO-AVS-TILE-TSTORE-STATIC-001: the tile-operation catalog gives TLOAD
/// function 0 and TSTORE function 1 of BSTART.TLOAD/TSTORE with a
/// `row-stride-bytes` scalar (ADR 0074), and subword encodes the same
/// functions.
#[test]
fn avs_tile_load_store_static_001_tlsu_functions_and_byte_stride_role() {
    let Some(t) = catalog("tile-operations.json") else {
        return;
    };
    let ops = t["operations"].as_array().unwrap();
    for (name, function, bstart) in [("TLOAD", 0u64, 0x0001_1181u32), ("TSTORE", 1, 0x0011_1181)] {
        let op = ops
            .iter()
            .find(|o| o["name"] == name)
            .expect("operation in catalog");
        assert_eq!(op["function"].as_u64(), Some(function), "{name} function");
        assert_eq!(
            op["command_mnemonic"].as_str(),
            Some(format!("BSTART.{name}").as_str())
        );
        let roles: Vec<&str> = op["operands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["role"].as_str().unwrap())
            .collect();
        assert!(
            roles.contains(&"row-stride-bytes"),
            "{name}: the stride operand is a byte stride: {roles:?}"
        );
        assert!(roles.contains(&"base-address"), "{name}: {roles:?}");
        // subword: the BSTART word carrying this function is the named command.
        assert_eq!((bstart >> 20) & 0x1f, function as u32);
        let text = pto::asm::disassemble(bstart).expect("decodes");
        assert!(text.starts_with(&format!("BSTART.{name}")), "{text}");
    }
}
