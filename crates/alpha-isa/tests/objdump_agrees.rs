//! Differential evidence against GNU objdump: ≥100,000 words covering every
//! table row and qualifier variant (random register/literal/displacement
//! fields, with and without the rows' fake-operand constraints met) plus
//! random words, disassembled by `alpha-linux-gnu-objdump -D -b binary -m
//! alpha` and by subword; the listings must agree line by line.

use alpha_isa::disasm;
use alpha_isa::table::ROWS;
use std::process::Command;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn corpus() -> Vec<u32> {
    let mut rng = Rng(0x5eed_a1fa);
    let mut words = Vec::new();
    for row in ROWS {
        for (_, bits) in row.variants() {
            for i in 0..48 {
                let w = bits | (rng.next() & !row.mask());
                words.push(w);
                if i % 2 == 0 {
                    words.push(row.apply_fakes(w));
                }
            }
        }
    }
    while words.len() < 110_000 {
        words.push(rng.next());
    }
    words
}

#[test]
fn objdump_agrees_on_every_row_and_random_words() {
    let Some(objdump) = testkit::require_tool(
        "objdump_agrees",
        "alpha-linux-gnu-objdump",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    let words = corpus();
    let dir = testkit::scratch_dir("objdump_agrees");
    let bin = dir.join("words.bin");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&bin, bytes).unwrap();
    let out = Command::new(objdump)
        .args(["-D", "-z", "-b", "binary", "-m", "alpha"])
        .arg(&bin)
        .output()
        .expect("run objdump");
    assert!(
        out.status.success(),
        "objdump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut theirs = Vec::with_capacity(words.len());
    for line in text.lines() {
        // "  addr:\tb0 b1 b2 b3 \tmnemonic\toperands"
        let mut parts = line.splitn(3, '\t');
        let (Some(a), Some(_bytes), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let a = a.trim();
        if let Some(addr) = a.strip_suffix(':') {
            if let Ok(addr) = u64::from_str_radix(addr, 16) {
                theirs.push((addr, rest.to_string()));
            }
        }
    }
    assert_eq!(
        theirs.len(),
        words.len(),
        "objdump listed a different number of words"
    );
    let mut bad = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let addr = 4 * i as u64;
        assert_eq!(theirs[i].0, addr);
        let ours = disasm(addr, *w);
        if norm(&ours) != norm(&theirs[i].1) {
            bad.push(format!(
                "{addr:#x} {w:#010x}: objdump `{}` subword `{}`",
                theirs[i].1, ours
            ));
        }
    }
    testkit::say(&format!(
        "objdump agreement: {}/{} words",
        words.len() - bad.len(),
        words.len()
    ));
    for b in bad.iter().take(60) {
        testkit::say(b);
    }
    assert!(bad.is_empty(), "{} words disagree with objdump", bad.len());
}
