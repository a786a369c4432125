//! CPU models: IMPLVER and AMASK per model (Handbook v4 appendix D tables
//! D-3/D-4, QEMU target/alpha/cpu.c), lookup by code name or part number.

use alpha_isa::models::{
    AMASK_BWX, AMASK_CIX, AMASK_FIX, AMASK_MVI, AMASK_PRECISE_TRAP, AMASK_PREFETCH, DEFAULT_MODEL,
};
use alpha_isa::{model_by_name, Ext, MODELS};

#[test]
fn models_implver_and_amask_per_model_table() {
    let all = AMASK_BWX | AMASK_FIX | AMASK_CIX | AMASK_MVI | AMASK_PRECISE_TRAP | AMASK_PREFETCH;
    let want: &[(&str, &str, u64, u64)] = &[
        ("ev4", "21064", 0, 0),
        ("ev45", "21064a", 0, 0),
        ("lca4", "21066", 0, 0),
        ("lca45", "21068", 0, 0),
        ("ev5", "21164", 1, 0),
        ("ev56", "21164a", 1, 0x1),
        ("pca56", "21164pc", 1, 0x101),
        ("ev6", "21264", 2, 0x303),
        ("ev67", "21264a", 2, 0x1307),
        ("ev68", "21264c", 2, 0x1307),
        ("ev7", "21364", 2, 0x1307),
    ];
    assert_eq!(MODELS.len(), want.len());
    assert_eq!(all, 0x1307);
    for (m, w) in MODELS.iter().zip(want) {
        assert_eq!((m.name, m.part, m.implver, m.amask), *w);
        assert!(
            m.lock_range.is_power_of_two() && (8..=8192).contains(&m.lock_range),
            "{}",
            m.name
        );
    }
}

#[test]
fn models_lookup_by_code_name_or_part_number_any_case() {
    assert_eq!(model_by_name("EV56").unwrap().part, "21164a");
    assert_eq!(model_by_name("21164PC").unwrap().name, "pca56");
    assert_eq!(model_by_name("21364").unwrap().name, "ev7");
    assert!(model_by_name("ev8").is_none());
    assert!(model_by_name("").is_none());
    assert_eq!(model_by_name(DEFAULT_MODEL).unwrap().name, "ev67");
}

#[test]
fn models_bwx_starts_at_ev56_and_amask_clears_present_bits() {
    for m in MODELS {
        let pre_bwx = matches!(m.name, "ev4" | "ev45" | "lca4" | "lca45" | "ev5");
        assert_eq!(m.has(Ext::Bwx), !pre_bwx, "{}", m.name);
        // amask(1) == 0 means BWX present (the Linux idiom).
        assert_eq!(m.amask_result(1) == 0, m.has(Ext::Bwx));
        assert_eq!(m.amask_result(u64::MAX), !m.amask);
    }
    assert!(model_by_name("pca56").unwrap().has(Ext::Mvi));
    assert!(!model_by_name("ev6").unwrap().has(Ext::Cix));
    assert!(model_by_name("ev67").unwrap().has(Ext::Cix));
    assert!(model_by_name("ev6").unwrap().has(Ext::Fix));
    assert!(!model_by_name("pca56").unwrap().has(Ext::Fix));
}
