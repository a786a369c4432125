//! `alpha scan`'s analysis: extension use and non-atomic read-modify-write
//! sub-quadword stores, on the Handbook sequences of the corpus and on
//! GCC output for ev4 (no BWX) versus ev56 (BWX).

use alpha_isa::asm::assemble_at;
use alpha_isa::elf::read_code;
use alpha_isa::scan::{scan, Code, Width};
use std::process::Command;

#[test]
fn scan_finds_the_handbook_byte_and_word_stores_and_counts_bwx() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/byte_access.s"
    ))
    .unwrap();
    let p = assemble_at(&src, "byte_access.s", 0x1000, None).unwrap();
    let rep = scan(&[Code {
        addr: p.text_addr,
        bytes: &p.text,
    }]);
    assert_eq!(rep.bwx.count, 6, "ldbu ldwu stb stw sextb sextw");
    assert_eq!((rep.fix.count, rep.cix.count, rep.mvi.count), (0, 0, 0));
    let kinds: Vec<(Width, i32, bool)> = rep
        .stores
        .iter()
        .map(|s| (s.width, s.disp, s.unaligned))
        .collect();
    // Handbook byte store, GCC byte store, Handbook unaligned word store (high, low);
    // the LDQ_L/STQ_C byte update is atomic and not reported.
    assert_eq!(
        kinds,
        vec![
            (Width::Byte, 5, true),
            (Width::Byte, 0, true),
            (Width::Word, 6, true),
            (Width::Word, 5, true)
        ]
    );
    for s in &rep.stores {
        assert!(s.load < s.mask && s.mask < s.store);
    }
}

#[test]
fn scan_sees_no_rmw_when_a_value_is_only_loaded_or_the_base_changes() {
    let src = "ldq_u $1, 0($16)\nmskbl $1, $16, $1\nlda $16, 8($16)\nstq_u $1, 0($16)\n\
               ldq_u $2, 0($17)\nextbl $2, $17, $2\nstq_u $2, 0($17)\n\
               ldq_u $3, 0($18)\nmskbl $3, $18, $3\nbr 1f\n1: stq_u $3, 0($18)\n";
    let words = alpha_isa::assemble_words(src, 0).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert!(scan(&[Code {
        addr: 0,
        bytes: &bytes
    }])
    .stores
    .is_empty());
}

#[test]
fn scan_gcc_ev4_byte_store_is_rmw_and_ev56_is_bwx() {
    let Some(gcc) = testkit::require_tool("scan_gcc", "alpha-linux-gnu-gcc", "gcc-alpha-linux-gnu")
    else {
        return;
    };
    let dir = testkit::scratch_dir("scan_gcc");
    let c = dir.join("s.c");
    std::fs::write(
        &c,
        "void put(char *p, char c) { p[3] = c; }\nvoid put2(short *p, short v) { p[1] = v; }\n",
    )
    .unwrap();
    let mut results = Vec::new();
    for cpu in ["ev4", "ev56"] {
        let o = dir.join(format!("s-{cpu}.o"));
        let st = Command::new(&gcc)
            .arg("-O2")
            .arg(format!("-mcpu={cpu}"))
            .arg("-c")
            .arg("-o")
            .arg(&o)
            .arg(&c)
            .status()
            .unwrap();
        assert!(st.success());
        let data = std::fs::read(&o).unwrap();
        let code = read_code(&data).unwrap();
        let secs: Vec<Code> = code
            .iter()
            .map(|s| Code {
                addr: s.addr,
                bytes: &s.bytes,
            })
            .collect();
        results.push(scan(&secs));
    }
    let (ev4, ev56) = (&results[0], &results[1]);
    assert_eq!(ev4.bwx.count, 0);
    let widths: Vec<Width> = ev4.stores.iter().map(|s| s.width).collect();
    assert!(
        widths.contains(&Width::Byte) && widths.contains(&Width::Word),
        "{:?}",
        ev4.stores
    );
    assert!(ev56.bwx.count >= 2, "stb and stw");
    assert!(ev56.stores.is_empty(), "{:?}", ev56.stores);
}

#[test]
fn scan_reports_a_zapnot_merge_into_a_loaded_quadword_as_a_partial_store_but_not_zero_extension() {
    // The block-copy tail merge: keep bytes 6-7 of the loaded quadword,
    // merge 6 new bytes, store the quadword back.
    let src = "zapnot $17, 0x3f, $17\nldq $1, 0($16)\nzapnot $1, 0xc0, $1\n\
               bis $1, $17, $1\nstq $1, 0($16)\n\
               ldq $2, 0($18)\nzapnot $2, 0xff, $2\nstq $2, 0($18)\n\
               ldq $3, 0($19)\nzapnot $3, $4, $3\nstq $3, 0($19)\n";
    let words = alpha_isa::assemble_words(src, 0).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let rep = scan(&[Code {
        addr: 0,
        bytes: &bytes,
    }]);
    let found: Vec<(Width, u64, u64, u64, bool)> = rep
        .stores
        .iter()
        .map(|s| (s.width, s.load, s.mask, s.store, s.unaligned))
        .collect();
    // Only the first: a mask keeping every byte, or one in a register
    // (unknown), is not a partial merge.
    assert_eq!(found, vec![(Width::Partial, 4, 8, 16, false)]);
}
