//! The scenario runner never panics on user input: arbitrary text is either a
//! parsed scenario or a `ScenarioError` naming the step, and any sequence of
//! well-formed steps with arbitrary numbers runs to the end (model refusals
//! become reported failures).

use proptest::prelude::*;

use pto_scenario::{self as scenario, RunOptions};

const DTYPES: &[&str] = &["FP32", "FP16", "U8", "S8", "U4X2", "S4X2", "U64", "E4M3"];

/// One well-formed step with arbitrary values; every op of `scenario::OPS`.
fn step() -> impl Strategy<Value = String> {
    prop_oneof![8 => first_steps(), 3 => more_steps()]
}

/// Steps for the ops `first_steps` leaves out: the tile shapes and
/// locations, fault and event bookkeeping, the remaining expectations and
/// `command` given as assembly text.
fn more_steps() -> impl Strategy<Value = String> {
    let n = prop_oneof![0u64..8, 0u64..5000, any::<u64>()];
    let small = 0u64..70;
    let faults = vec![
        "Fault_DataPage",
        "Fault_TileLegality",
        "Fault_DataAlignment",
        "Fault_BundleControl",
        "Fault_IllegalInstruction",
    ];
    prop_oneof![
        (small.clone(), prop::sample::select(vec![64u64, 128, 0x300, 4096, 100]), 0u64..40, 0u64..40, prop::sample::select(DTYPES.to_vec()), prop::sample::select(vec!["CUBE_M16", "CUBE_M32", "CUBE_N8", "RowMajor", "ZN"]), prop::sample::select(vec!["Matrix", "Vector", "Memory", "Any"]))
            .prop_map(|(i, c, r, col, d, l, loc)| format!(
                "op = \"cube-tile\"\nindex = {i}\ncapacity = {c}\nrows = {r}\ncols = {col}\ndtype = \"{d}\"\nlayout = \"{l}\"\nlocation = \"{loc}\""
            )),
        (small.clone(), prop::sample::select(vec!["Matrix", "Vector", "Memory", "Any"]))
            .prop_map(|(i, l)| format!("op = \"tile-location\"\nindex = {i}\nlocation = \"{l}\"")),
        (0u64..4).prop_map(|p| format!("op = \"pad-value\"\npad = {p}")),
        (prop::sample::select(faults.clone()), prop::option::of(n.clone()))
            .prop_map(|(c, a)| format!("op = \"fault\"\ncode = \"{c}\"\n{}", a.map(|a| format!("addr = \"{a:#x}\"")).unwrap_or_default())),
        prop::sample::select(faults).prop_map(|c| format!("op = \"expect-fault\"\ncode = \"{c}\"")),
        n.clone().prop_map(|a| format!("op = \"expect-fault-address\"\naddr = \"{a:#x}\"")),
        prop::option::of(0u64..4).prop_map(|p| format!("op = \"capture-events\"\n{}", p.map(|p| format!("pe = {p}")).unwrap_or_default())),
        Just("op = \"stop-capture\"".to_string()),
        (0u64..40).prop_map(|c| format!("op = \"expect-events\"\ncount = {c}")),
        (0u64..40, prop::sample::select(vec!["load", "store", "atomic"]), n.clone(), prop::sample::select(vec![1u64, 2, 4, 8]), n.clone(), 0u64..4, prop::sample::select(vec!["Relaxed", "Acquire", "Release", "AcquireRelease"]))
            .prop_map(|(i, k, a, s, v, g, o)| format!("op = \"expect-event\"\nn = {i}\nkind = \"{k}\"\naddr = \"{a:#x}\"\nsize = {s}\nread_value = \"{v:#x}\"\nwrite_value = 0\nagent = {g}\norder = \"{o}\"\nread_from = 0\nrank = 1")),
        (n.clone(), prop::collection::vec(any::<u8>(), 1..9))
            .prop_map(|(a, b)| format!("op = \"expect-memory\"\naddr = \"{a:#x}\"\nbytes = \"{}\"", b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" "))),
        (n.clone(), 0u64..256, n.clone())
            .prop_map(|(a, id, k)| format!("op = \"expect-memory-undefined-shared\"\naddr = \"{a:#x}\"\nid = {id}\nindex = \"{k:#x}\"")),
        any::<bool>().prop_map(|v| format!("op = \"expect-bundle-active\"\nvalue = {v}")),
        (0u64..6).prop_map(|c| format!("op = \"expect-binding-count\"\ncount = {c}")),
        (prop::option::of(0u64..4), n.clone(), n.clone(), prop::sample::select(vec!["omitted", "encoded"]))
            .prop_map(|(p, b, s, src)| format!("op = \"expect-transfer\"\n{}base = \"{b:#x}\"\nstride = \"{s:#x}\"\nstride_elements = 1\nsource = \"{src}\"", p.map(|p| format!("pe = {p}\n")).unwrap_or_default())),
        (any::<u32>(), prop::sample::select(vec!["BSTART", "B.IOR", "illegal", ""]))
            .prop_map(|(w, c)| format!("op = \"expect-disasm\"\nword = \"{w:#x}\"\ncontains = \"{c}\"")),
        (prop::sample::select(DTYPES.to_vec()), 0u64..300, 0u64..8, prop::sample::select(vec!["1111", "1000", "0000"]), 1u32..11, prop::sample::select(vec!["TLOAD", "TSTORE", "TPREFETCH"]), any::<bool>())
            .prop_map(|(d, c, r, m, z, o, stop)| {
                let tail = match o {
                    "TLOAD" => format!("; B.IOR a0, a1; B.IOT mask={m}, last, ->T<{z}>"),
                    "TSTORE" => format!("; B.IOR a0, a1; B.IOT T#1, mask={m}, last"),
                    _ => "; B.IOR a0, a1".to_string(),
                };
                format!(
                    "op = \"command\"\nasm = \"BSTART.{o} {d}; B.DIM LB0, {c}; B.DIM LB1, {r}{tail}{}\"\nexpect = \"rejected\"",
                    if stop { "; BSTOP" } else { "" }
                )
            }),
    ]
}

/// Steps for the ops of PTO-SCENARIO.md's core and most of this model's own.
fn first_steps() -> impl Strategy<Value = String> {
    let n = prop_oneof![0u64..8, 0u64..5000, any::<u64>()];
    let small = 0u64..70;
    prop_oneof![
        Just("op = \"reset\"".to_string()),
        Just("op = \"reset-bundle\"".to_string()),
        Just("op = \"enter-bundle-body\"".to_string()),
        Just("op = \"reset-memory-execution\"".to_string()),
        (prop::sample::select(vec!["candidate-initial-write", "candidate-load", "candidate-store", "candidate-atomic"]), 0u64..4, n.clone(), prop::sample::select(vec![1u64, 2, 4, 8]), n.clone(), 0u64..4, any::<bool>())
            .prop_map(|(op, a, addr, s, v, r, w)| {
                let extra = match op {
                    "candidate-initial-write" => String::new(),
                    "candidate-load" => format!("agent = {a}\norder = \"MemoryOrder_Acquire\"\n"),
                    "candidate-store" => format!("agent = {a}\nrank = {r}\n"),
                    _ => format!("agent = {a}\nrank = {r}\nwrite_value = 1\nwrite_performed = {w}\norder = \"Release\"\n"),
                };
                format!("op = \"{op}\"\n{extra}addr = \"{addr:#x}\"\nsize = {s}\nvalue = \"{v:#x}\"")
            }),
        (0u64..12, 0u64..12).prop_map(|(r, s)| format!("op = \"candidate-read-from\"\nread = {r}\nsource = {s}")),
        prop::array::uniform6(any::<bool>()).prop_map(|b| format!(
            "op = \"control-attributes\"\ntrap_enabled = {}\natomic = {}\nacquire = {}\nrelease = {}\nfar = {}\ndimension_reduction = {}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )),
        prop::sample::select(vec!["MemoryCandidateExecutionValid", "MemoryExecutionAllowedTSO", "CandidateEventCount"])
            .prop_map(|n| format!("op = \"expect-predicate\"\nname = \"{n}\"\nvalue = true")),
        (0u64..256, small.clone(), prop::sample::select(vec!["1111", "1010", "0000"]), prop::option::of(0u64..70), any::<bool>())
            .prop_map(|(id, t, m, c, d)| format!("op = \"atomic-update-shared\"\nid = {id}\nfrom_tile = {t}\nmask = \"{m}\"\n{}contents_defined = {d}\nexpect = true", c.map(|c| format!("cols = {c}\nvalid_cols = {c}\n")).unwrap_or_default())),
        (0u64..256, prop::sample::select(vec!["1111", "0001"]), n.clone())
            .prop_map(|(id, m, k)| format!("op = \"expect-materialized\"\nid = {id}\nmask = \"{m}\"\nstorage = \"{k:#x}\"\nvalue = \"undefined\"")),
        (0u64..256, n.clone(), n.clone(), 0u64..13, 0u64..70, 0u64..70, 0u64..70, 0u64..70, prop::sample::select(DTYPES.to_vec()), prop::sample::select(vec!["1111", "0001", "0000"]))
            .prop_map(|(id, b, s, z, r, c, vr, vc, d, m)| format!("op = \"tload-shared\"\nid = {id}\nbase = \"{b:#x}\"\nstride = \"{s:#x}\"\nsize_code = {z}\nrows = {r}\ncols = {c}\nvalid_rows = {vr}\nvalid_cols = {vc}\ndtype = \"{d}\"\nmask = \"{m}\"\nexpect = \"any\"")),
        (prop::sample::select(vec!["TAND", "TSEL", "TINSERT", "TIMG2COL", "GMOV", "TPREFETCH", "TLOAD", "TNOPE"]), prop::sample::select(vec!["U64", "FP64", "U4X2", "31", "1", "HiF4X2"]))
            .prop_map(|(o, a)| format!("op = \"expect-predicate\"\nname = \"InstructionContractDataTypeLegal_{o}\"\nargs = [\"{a}\"]\nvalue = true")),
        (n.clone(), n.clone(), 0u64..70, 0u64..70, 0u64..70)
            .prop_map(|(b, s, vc, vr, c)| format!("op = \"tprefetch\"\nbase = \"{b:#x}\"\nstride_elements = \"{s:#x}\"\nvalid_cols = {vc}\nvalid_rows = {vr}\ncols = {c}\ndtype = \"U8\"\nexpect = \"any\"")),
        (0u64..16, prop::sample::select(vec!["1111", "1000", "0000"])).prop_map(|(n, m)| format!("op = \"expect-binding\"\nn = {n}\npe_mask = \"{m}\"\ndestination_size = {n}")),
        (0u64..4, prop::sample::select(vec!["0001", "0110"])).prop_map(|(n, m)| format!("op = \"expect-shared-binding\"\nn = {n}\npe_mask = \"{m}\"\nsize_code = {n}\nvalid = true")),
        (0u64..6).prop_map(|c| format!("op = \"expect-shared-binding-count\"\ncount = {c}")),
        prop::sample::select(vec!["CurrentBundlePadValue", "CurrentBundleDataTypeCode", "_BundleDataAttributesPresent", "PTO_MODEL_TILE_ELEMENTS", "PackedTileLogicalCapacity"])
            .prop_map(|n| format!("op = \"expect-predicate\"\nname = \"{n}\"\nargs = [\"128\", \"U4X2\"]\nvalue = \"TilePad_Null\"")),
        (0u64..4, 0u64..24, n.clone()).prop_map(|(pe, r, v)| format!("op = \"gpr\"\npe = {pe}\nreg = {r}\nvalue = \"{v:#x}\"")),
        (n.clone(), any::<u8>()).prop_map(|(a, b)| format!("op = \"memory\"\naddr = \"{a:#x}\"\nbytes = \"{b:02x}\"")),
        (n.clone(), prop::sample::select(vec![1u64, 2, 4, 8]), n.clone())
            .prop_map(|(a, s, v)| format!("op = \"store\"\naddr = \"{a:#x}\"\nsize = {s}\nvalue = \"{v:#x}\"")),
        (small.clone(), prop::sample::select(vec![64u64, 128, 256, 1024, 65536, 100]), 0u64..40, 0u64..40, 0u64..40, 0u64..40, prop::sample::select(DTYPES.to_vec()))
            .prop_map(|(i, c, r, col, vr, vc, d)| format!(
                "op = \"tile\"\nindex = {i}\ncapacity = {c}\nrows = {r}\ncols = {col}\nvalid_rows = {vr}\nvalid_cols = {vc}\ndtype = \"{d}\""
            )),
        (small.clone(), 0u64..40, 0u64..40, n.clone())
            .prop_map(|(i, r, c, v)| format!("op = \"tile-element\"\nindex = {i}\nrow = {r}\ncol = {c}\nvalue = \"{v:#x}\"")),
        (0u64..3, n.clone()).prop_map(|(i, v)| format!("op = \"dimension\"\nindex = {i}\nvalue = \"{v:#x}\"")),
        any::<u32>().prop_map(|w| format!("op = \"command\"\nword = \"{w:#x}\"\nexpect = \"rejected\"")),
        // Words near the real forms: BSTART.TLOAD/TSTORE, B.IOT, B.IOS, B.IOR, B.DATR, BSTOP.
        (prop::sample::select(vec![0x0001_1181u32, 0x0011_1181, 0x00e1_1181, 0x0031_1181, 0x0041_1181, 0x0051_1181, 0x00d1_1181, 0x00a1_1181, 0x33, 0x1033, 0x6013, 0x5013, 0x1013, 0x13, 0x1023, 0x1]), any::<u32>())
            .prop_map(|(base, noise)| format!("op = \"command\"\nword = \"{:#x}\"\nexpect = \"rejected\"", base | (noise & 0xfff8_0f80))),
        // BSTART.TEPL with any Mode, Function (reserved selectors too) and DataType.
        any::<u32>().prop_map(|noise| format!("op = \"command\"\nword = \"{:#x}\"\nexpect = \"rejected\"", 0x0001_9181 | (noise & 0xfff0_0000))),
        Just("op = \"execute\"\nexpect = \"any\"".to_string()),
        (small.clone(), n.clone(), small.clone(), prop::sample::select(vec!["Zero", "Max", "Min", "Null"]))
            .prop_map(|(i, b, x, p)| format!("op = \"mgather\"\nindex = {i}\nbase = \"{b:#x}\"\nindices = {x}\npad = \"{p}\"\nexpect = \"any\"")),
        (small.clone(), n.clone(), small.clone())
            .prop_map(|(i, b, x)| format!("op = \"mscatter\"\nindex = {i}\nbase = \"{b:#x}\"\nindices = {x}\nexpect = \"any\"")),
        (small.clone(), n.clone(), small.clone(), small.clone())
            .prop_map(|(i, b, x, k)| format!("op = \"mgather\"\nindex = {i}\nbase = \"{b:#x}\"\nindices = {x}\nmask = {k}\nexpect = \"any\"")),
        (small.clone(), n.clone(), small.clone(), small.clone())
            .prop_map(|(i, b, x, k)| format!("op = \"mscatter\"\nindex = {i}\nbase = \"{b:#x}\"\nindices = {x}\nmask = {k}\nexpect = \"any\"")),
        (small.clone(), n.clone(), small.clone(), small.clone(), small.clone())
            .prop_map(|(i, b, x, e, r)| format!("op = \"mgather-cas\"\nindex = {i}\nbase = \"{b:#x}\"\nindices = {x}\nexpected = {e}\nreplacement = {r}\nexpect = \"any\"")),
        (small.clone(), prop::sample::select(vec![0u64, 1, 2, 128, 300]), 0u64..40, 0u64..40, 0u64..40, 0u64..40)
            .prop_map(|(i, c, r, col, vr, vc)| format!("op = \"predicate-tile\"\nindex = {i}\ncapacity = {c}\nrows = {r}\ncols = {col}\nvalid_rows = {vr}\nvalid_cols = {vc}")),
        (small.clone(), small.clone(), n.clone())
            .prop_map(|(i, s, p)| format!("op = \"gmov\"\nindex = {i}\nsource = {s}\npeer_tid = \"{p:#x}\"\nexpect = \"any\"")),
        (small.clone(), small.clone())
            .prop_map(|(i, s)| format!("op = \"tmov\"\nindex = {i}\nsource = {s}\nexpect = \"any\"")),
        (0u64..32, 0u64..32, 0u64..32, 0u64..32)
            .prop_map(|(d, a, b, c)| format!("op = \"scalar-binding\"\ndestination = {d}\nsource0 = {a}\nsource1 = {b}\nsource2 = {c}")),
        (prop::sample::select(vec!["BundleTileInstructionOperands.scalar0", "BundleTileInstructionOperands.scalar1", "BundleTileInstructionOperands.diagonal", "BundleTileInstructionOperands.flag0", "BundleOperationGPRBindingValuesLegal", "BundleOperationBindingsComplete", "_BundleScalarBindings[[0]].source0", "_BundleScalarBindings[[0]].destination"]), prop::sample::select(vec!["TCI", "TTRI", "TSORT", "TMRGSORT", "TADDS", "TQUANT", "TLOAD", "TNOPE"]))
            .prop_map(|(n, o)| format!("op = \"expect-predicate\"\nname = \"{n}\"\nargs = [\"{o}\"]\nvalue = true")),
        (small.clone(), n.clone(), n.clone()).prop_map(|(i, b, s)| format!("op = \"tload\"\nindex = {i}\nbase = \"{b:#x}\"\nstride = \"{s:#x}\"\nexpect = \"any\"")),
        (small.clone(), n.clone(), n.clone()).prop_map(|(i, b, s)| format!("op = \"tstore\"\nindex = {i}\nbase = \"{b:#x}\"\nstride = \"{s:#x}\"\nexpect = \"any\"")),
        (0u64..256, small.clone(), prop::sample::select(vec!["1111", "1000", "0011", "0000"]))
            .prop_map(|(id, t, m)| format!("op = \"shared-tile\"\nid = {id}\nfrom_tile = {t}\nmask = \"{m}\"")),
        (small.clone(), 0u64..40, 0u64..40).prop_map(|(i, r, c)| format!("op = \"expect-tile-element\"\nindex = {i}\nrow = {r}\ncol = {c}\nvalue = 0")),
        (0u64..256, n.clone()).prop_map(|(id, k)| format!("op = \"expect-tile-element\"\nshared = {id}\nstorage = \"{k:#x}\"\nvalue = 0")),
        (0u64..256, n.clone(), n.clone()).prop_map(|(id, r, c)| format!("op = \"expect-tile-element\"\nshared = {id}\nrow = \"{r:#x}\"\ncol = \"{c:#x}\"\nvalue = 0")),
        (0u64..4).prop_map(|b| format!("op = \"expect-tile\"\nbinding = {b}\nallocated = true\ndefined_valid_elements = 1")),
        (n.clone(), prop::sample::select(vec![1u64, 2, 4, 8])).prop_map(|(a, s)| format!("op = \"expect-load\"\naddr = \"{a:#x}\"\nsize = {s}\nvalue = 0")),
        Just("op = \"expect-capacity-in-use\"\nbytes = 0".to_string()),
        Just("op = \"clear-fault\"".to_string()),
        Just("op = \"reset-bundle\"".to_string()),
        (0u64..16, prop::sample::select(vec!["1111", "1000", "0000"])).prop_map(|(n, m)| format!("op = \"expect-binding\"\nn = {n}\npe_mask = \"{m}\"\ndestination_size = {n}")),
        (0u64..4, prop::sample::select(vec!["0001", "0110"])).prop_map(|(n, m)| format!("op = \"expect-shared-binding\"\nn = {n}\npe_mask = \"{m}\"\nsize_code = {n}\nvalid = true")),
        (0u64..6).prop_map(|c| format!("op = \"expect-shared-binding-count\"\ncount = {c}")),
        prop::sample::select(vec!["CurrentBundlePadValue", "CurrentBundleDataTypeCode", "_BundleDataAttributesPresent", "PTO_MODEL_TILE_ELEMENTS", "PackedTileLogicalCapacity"])
            .prop_map(|n| format!("op = \"expect-predicate\"\nname = \"{n}\"\nargs = [\"128\", \"U4X2\"]\nvalue = \"TilePad_Null\"")),
        (0u64..16, any::<bool>()).prop_map(|(c, e)| format!("op = \"recover-trap\"\ncontext = {c}\nexpect = {e}")),
        (0u64..16, any::<bool>()).prop_map(|(c, v)| format!("op = \"expect-trap-context\"\ncontext = {c}\nvalid = {v}\nallocated_by_bundle = false")),
    ]
}

/// The generator reaches every op the parser accepts: a new op left out of
/// it (or out of `scenario::OPS`) fails here.
#[test]
fn the_step_generator_covers_every_op() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = step();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20_000 {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        let op = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("op = \""))
            .and_then(|l| l.strip_suffix('"'))
            .unwrap_or_else(|| panic!("step without a leading op: {text}"))
            .to_string();
        seen.insert(op);
    }
    let all: std::collections::BTreeSet<String> =
        scenario::OPS.iter().map(|d| d.name.to_string()).collect();
    let missing: Vec<_> = all.difference(&seen).collect();
    let unknown: Vec<_> = seen.difference(&all).collect();
    assert!(
        missing.is_empty(),
        "ops the fuzz never generates: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "generated ops the parser does not list: {unknown:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_parses_or_names_the_problem(text in "\\PC{0,200}") {
        if let Err(e) = scenario::parse("fuzz.toml", &text) {
            prop_assert!(e.to_string().starts_with("fuzz.toml: "));
        }
    }

    #[test]
    fn well_formed_steps_with_arbitrary_values_run_to_the_end(steps in prop::collection::vec(step(), 1..25), esm in any::<bool>()) {
        let text: String = steps.iter().map(|s| format!("[[step]]\n{s}\n")).collect();
        let sc = scenario::parse("fuzz.toml", &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let r = scenario::run(&sc, RunOptions { element_stride: esm });
        prop_assert_eq!(r.steps_run, steps.len());
        for line in r.failure_lines() {
            prop_assert!(line.starts_with("fuzz.toml: step "), "{}", line);
        }
    }
}

/// Each op this model added beyond PTO-SCENARIO.md (and the Shared
/// `row`/`col` form of `expect-tile-element`), malformed, is a
/// `ScenarioError` naming the file, the step and the reason.
#[test]
fn malformed_new_ops_name_the_step_and_the_reason() {
    let cases: &[(&str, &str)] = &[
        ("op = \"enter-bundle-body\"\nextra = 1", "unknown field `extra`"),
        ("op = \"predicate-tile\"\nindex = 1\ncapacity = 128\nrows = 1\ncols = 16\nvalid_rows = 1", "`valid_cols`"),
        ("op = \"mgather-cas\"\nindex = 1\nbase = 0\nindices = 2\nexpected = 3", "`replacement`"),
        ("op = \"mgather\"\nindex = 1\nbase = 0\nindices = 2\nmask = \"x\"", "`mask`"),
        ("op = \"atomic-update-shared\"\nid = 256\nfrom_tile = 0\nmask = \"1111\"", "`id`"),
        ("op = \"atomic-update-shared\"\nid = 1\nfrom_tile = 0\nmask = \"12\"", "`mask`"),
        ("op = \"expect-materialized\"\nid = 1\nmask = \"1111\"\nstorage = 0", "`value`"),
        ("op = \"tload-shared\"\nid = 1\nbase = 0\nstride = 0\nsize_code = 13\nrows = 1\ncols = 1\nvalid_rows = 1\nvalid_cols = 1\ndtype = \"U8\"\nmask = \"0001\"", "`size_code`"),
        ("op = \"candidate-store\"\nagent = 0\naddr = 0\nsize = 3\nvalue = 1\nrank = 1", "`size` = 3"),
        ("op = \"candidate-load\"\nagent = 4\naddr = 0\nsize = 8\nvalue = 1", "`agent`"),
        ("op = \"candidate-load\"\nagent = 0\naddr = 0\nsize = 8\nvalue = 1\norder = \"SeqCst\"", "`order` = `SeqCst`"),
        ("op = \"candidate-atomic\"\nagent = 0\naddr = 0\nsize = 8\nvalue = 1\nrank = 1\nwrite_value = 2", "`write_performed`"),
        ("op = \"candidate-read-from\"\nread = 1", "`source`"),
        ("op = \"expect-event\"\nn = 0\nkind = \"fence\"", "`kind` = `fence`"),
        ("op = \"expect-event\"\nn = 0\norder = \"SeqCst\"", "`order` = `SeqCst`"),
        ("op = \"control-attributes\"\ntrap_enabled = false\natomic = false\nacquire = true\nrelease = false\nfar = false", "`dimension_reduction`"),
        ("op = \"control-attributes\"\ntrap_enabled = false\natomic = false\nacquire = 1\nrelease = false\nfar = false\ndimension_reduction = false", "`acquire`"),
        ("op = \"tprefetch\"\nbase = 0\nvalid_cols = 1\nvalid_rows = 1\ncols = 1\ndtype = \"U8\"", "missing field `stride_elements`"),
        ("op = \"tprefetch\"\nbase = 0\nstride_elements = 1\nvalid_cols = 65536\nvalid_rows = 1\ncols = 1\ndtype = \"U8\"", "`valid_cols`"),
        ("op = \"tprefetch\"\nbase = 0\nstride_elements = 1\nvalid_cols = 1\nvalid_rows = 1\ncols = 1\ndtype = \"U5\"", "unknown dtype `U5`"),
        ("op = \"tprefetch\"\nbase = 0\nstride = 1\nstride_elements = 1\nvalid_cols = 1\nvalid_rows = 1\ncols = 1\ndtype = \"U8\"", "unknown field `stride`"),
        ("op = \"recover-trap\"", "missing field `context`"),
        ("op = \"recover-trap\"\ncontext = 256", "`context`"),
        ("op = \"recover-trap\"\ncontext = 0\nexpect = \"yes\"", "`expect`"),
        ("op = \"expect-trap-context\"\ncontext = 0\nring = 1", "unknown field `ring`"),
        ("op = \"expect-trap-context\"\ncontext = 0\nvalid = 1", "`valid`"),
        ("op = \"scalar-binding\"\ndestination = 32", "`destination`"),
        ("op = \"gmov\"\nindex = 1\nsource = 2\npeer_tid = -1", "`peer_tid`"),
        ("op = \"tmov\"\nindex = 1", "missing field `source`"),
        ("op = \"mgather-cas\"\nindex = 1\nbase = 0\nindices = 2\nexpected = 3\nreplacement = 4\nexpect = \"maybe\"", "`expect`"),
        ("op = \"expect-tile-element\"\nshared = 1\nrow = 0\ncol = 0\nstorage = 0\nvalue = 0", "not both"),
        ("op = \"expect-tile-element\"\nshared = 1\nrow = 0\nvalue = 0", "`row`/`col`"),
        ("op = \"expect-tile-element\"\nshared = 256\nstorage = 0\nvalue = 0", "`shared`"),
        ("op = \"expect-transfer\"\npe = 0", "checks nothing"),
        ("op = \"expect-transfer\"\nstride_elements = 1\nsource = \"guessed\"", "`source` = `guessed`"),
    ];
    for (step, reason) in cases {
        let text = format!("[[step]]\nop = \"reset\"\n\n[[step]]\n{step}\n");
        let e = scenario::parse("bad.toml", &text)
            .expect_err(step)
            .to_string();
        assert!(e.starts_with("bad.toml: step 2"), "{e}");
        assert!(e.contains(reason), "{step}: {e}");
    }
}
