//! Golden listings: `tests/programs/*.s` assembled by subword and listed in
//! the contract's `ADDR:\tWORD\tMNEMONIC\tOPERANDS` format (ELF symbols
//! naming branch targets) must equal `tests/golden/*.lst`.
//! Update switch: `UPDATE_GOLDEN=1 cargo test -p alpha-isa --test golden_listing`.

use alpha_isa::disasm::listing;
use alpha_isa::elf::{read_code, read_symbols};
use alpha_isa::symbols::Symbols;
use std::path::Path;

#[test]
fn golden_listing_of_assembled_programs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut files: Vec<_> = std::fs::read_dir(root.join("programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut checked = 0;
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "s"))
    {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        let prog = alpha_isa::assemble(&std::fs::read_to_string(f).unwrap(), &name).unwrap();
        let elf = prog.to_elf();
        let all = read_symbols(&elf).unwrap();
        let mut text = String::new();
        for s in read_code(&elf).unwrap() {
            let syms = Symbols::for_section(&all, &s.name);
            text.push_str(&listing(s.addr, &s.bytes, Some(&syms)));
        }
        let golden = root.join("golden").join(format!("{name}.lst"));
        if update {
            std::fs::write(&golden, &text).unwrap();
        } else {
            let want = std::fs::read_to_string(&golden).unwrap_or_else(|_| {
                panic!("{} missing: run with UPDATE_GOLDEN=1", golden.display())
            });
            assert_eq!(
                text,
                want,
                "{name}: listing differs from {}",
                golden.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 3);
}
