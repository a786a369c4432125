//! Differential evidence against qemu-alpha (user mode, `-cpu ev67`):
//! seeded random programs of integer, byte-manipulation, BWX, CIX and MVI
//! instructions on random register values write every result to stdout;
//! subword must print exactly what qemu prints. Reports `N/N agree`.

use alpha_emu::linux::{self, CaptureHost, Exit, Options};
use std::process::Command;

const OPS3: &[&str] = &[
    "addl", "addq", "subl", "subq", "s4addl", "s8addl", "s4addq", "s8addq", "s4subl", "s8subl",
    "s4subq", "s8subq", "cmpeq", "cmplt", "cmple", "cmpult", "cmpule", "cmpbge", "and", "bic",
    "bis", "ornot", "xor", "eqv", "cmoveq", "cmovne", "cmovlt", "cmovge", "cmovle", "cmovgt",
    "cmovlbs", "cmovlbc", "sll", "srl", "sra", "zap", "zapnot", "extbl", "extwl", "extll", "extql",
    "extwh", "extlh", "extqh", "insbl", "inswl", "insll", "insql", "inswh", "inslh", "insqh",
    "mskbl", "mskwl", "mskll", "mskql", "mskwh", "msklh", "mskqh", "mull", "mulq", "umulh",
    "minub8", "minsb8", "minuw4", "minsw4", "maxub8", "maxsb8", "maxuw4", "maxsw4", "perr",
];
const OPS2: &[&str] = &[
    "sextb", "sextw", "ctpop", "ctlz", "cttz", "pklb", "pkwb", "unpkbl", "unpkbw",
];

/// A tiny deterministic generator (xorshift64*), so failures are reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn interesting(rng: &mut Rng) -> u64 {
    match rng.below(6) {
        0 => rng.next() & 0xff,
        1 => rng.next() | 0x8000_0000_0000_0000,
        2 => rng.next() & 0xffff_ffff,
        3 => [
            0,
            1,
            u64::MAX,
            0x7fff_ffff,
            0x8000_0000,
            0x8080_8080_8080_8080,
        ][rng.below(6)],
        _ => rng.next(),
    }
}

/// One program: `n` operations, each on freshly loaded operands, results
/// stored to `buf`, then write(1, buf, 8n) and exit(0).
fn program(seed: u64, n: usize) -> String {
    let mut rng = Rng(seed | 1);
    let mut s = String::from(".text\n.globl _start\n_start:\n    lda $9, buf\n");
    for k in 0..n {
        let a = interesting(&mut rng);
        let b = interesting(&mut rng);
        let c = interesting(&mut rng);
        s += &format!(
            "    ldiq $1, {}\n    ldiq $2, {}\n    ldiq $3, {}\n",
            a as i64, b as i64, c as i64
        );
        if rng.below(4) == 0 {
            let op = OPS2[rng.below(OPS2.len())];
            s += &format!("    {op} $2, $3\n");
        } else {
            let op = OPS3[rng.below(OPS3.len())];
            if rng.below(3) == 0 && !op.starts_with("min") && !op.starts_with("max") && op != "perr"
            {
                s += &format!("    {op} $1, {}, $3\n", rng.below(256));
            } else {
                s += &format!("    {op} $1, $2, $3\n");
            }
        }
        s += &format!("    stq $3, {}($9)\n", k * 8);
    }
    s += &format!(
        "    lda $16, 1($31)\n    mov $9, $17\n    ldiq $18, {}\n    lda $0, 4($31)\n    call_pal 0x83\n    clr $16\n    lda $0, 1($31)\n    call_pal 0x83\n    .data\nbuf: .space {}\n",
        n * 8,
        n * 8
    );
    s
}

#[test]
fn exec_integer_and_extension_ops_agree_with_qemu_alpha() {
    let Some(qemu) = testkit::require_tool(
        "exec_integer_and_extension_ops_agree_with_qemu_alpha",
        "qemu-alpha",
        "qemu-user",
    ) else {
        return;
    };
    let dir = testkit::scratch_dir("qemu_differential");
    let model = alpha_isa::model_by_name("ev67").unwrap();
    let (mut agree, mut total) = (0, 0);
    for seed in 1..=30u64 {
        let src = program(seed * 0x9e37_79b9, 60);
        let elf = alpha_isa::assemble(&src, "diff.s")
            .unwrap_or_else(|e| panic!("{e}"))
            .to_elf();
        let path = dir.join(format!("diff{seed}"));
        std::fs::write(&path, &elf).unwrap();
        std::fs::write(path.with_extension("s"), &src).unwrap();
        // qemu-alpha refuses (silently, status 1) to run a file without x permission.
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let q = Command::new(&qemu)
            .args(["-cpu", "ev67"])
            .arg(&path)
            .output()
            .expect("run qemu-alpha");
        let mut host = CaptureHost::default();
        let exit =
            linux::run_program(&elf, &Options::new(model, vec!["diff".into()]), &mut host).unwrap();
        assert_eq!(exit, Exit::Exited(0));
        assert_eq!(
            q.status.code(),
            Some(0),
            "qemu failed on seed {seed} ({}): {}",
            path.display(),
            String::from_utf8_lossy(&q.stderr)
        );
        for (k, (ours, theirs)) in host.stdout.chunks(8).zip(q.stdout.chunks(8)).enumerate() {
            total += 1;
            if ours == theirs {
                agree += 1;
            } else {
                let op_line = src
                    .split("    stq $3")
                    .nth(k)
                    .and_then(|chunk| chunk.lines().rev().find(|l| !l.trim().is_empty()))
                    .unwrap_or("?");
                testkit::say(&format!(
                    "DISAGREE seed {seed} op {k} `{}`: subword {:02x?} qemu {:02x?}",
                    op_line.trim(),
                    ours,
                    theirs
                ));
            }
        }
        assert_eq!(host.stdout.len(), q.stdout.len());
    }
    testkit::say(&format!("qemu_differential: {agree}/{total} agree"));
    assert_eq!(agree, total);
}
