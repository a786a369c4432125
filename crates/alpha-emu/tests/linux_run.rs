//! Programs run end to end through the minimal Linux personality: ELF
//! assembled by alpha-isa, loaded, started with a Linux initial stack,
//! system calls `write`/`exit`, and events turned into signals.

use alpha_emu::linux::{self, CaptureHost, Exit, Options};
use alpha_isa::MODELS;

fn elf(src: &str) -> Vec<u8> {
    alpha_isa::assemble(src, "test.s")
        .unwrap_or_else(|e| panic!("{e}"))
        .to_elf()
}

fn run(model: &str, src: &str) -> (Exit, CaptureHost) {
    let m = alpha_isa::model_by_name(model).unwrap();
    let mut host = CaptureHost::default();
    let opts = Options::new(m, vec!["prog".into()]);
    let exit = linux::run_program(&elf(src), &opts, &mut host).unwrap();
    (exit, host)
}

/// `_start` computes a value into $16 with `body`, then `exit($16)`.
fn exit_with(body: &str) -> String {
    format!(
        "    .text\n    .globl _start\n_start:\n{body}\n    lda $0, 1($31)\n    call_pal 0x83\n    halt\n"
    )
}

#[test]
fn exec_amask_per_model_exit_status_is_the_missing_feature_bits() {
    for m in MODELS {
        // Low byte: BWX(0) FIX(1) CIX(2); then bits 8-15: MVI(8), precise traps(9), prefetch(12).
        let (low, _) = run(
            m.name,
            &exit_with("    lda $16, 0xff($31)\n    amask $16, $16"),
        );
        assert_eq!(low, Exit::Exited((0xff & !m.amask) as u8), "{}", m.name);
        let (high, _) = run(
            m.name,
            &exit_with("    lda $16, 0x7f00($31)\n    amask $16, $16\n    srl $16, 8, $16"),
        );
        assert_eq!(
            high,
            Exit::Exited(((0x7f00 & !m.amask) >> 8) as u8),
            "{}",
            m.name
        );
    }
}

#[test]
fn exec_amask_of_one_is_zero_exactly_with_bwx() {
    for m in MODELS {
        let (e, _) = run(
            m.name,
            &exit_with("    lda $16, 1($31)\n    amask $16, $16"),
        );
        let has_bwx = m.has(alpha_isa::Ext::Bwx);
        assert_eq!(e == Exit::Exited(0), has_bwx, "{}", m.name);
    }
}

#[test]
fn exec_implver_per_model_exit_status() {
    for m in MODELS {
        let (e, _) = run(m.name, &exit_with("    implver $16"));
        assert_eq!(e, Exit::Exited(m.implver as u8), "{}", m.name);
    }
}

const HELLO: &str = "
    .text
    .globl _start
_start:
    lda $16, 1($31)
    lda $17, msg
    lda $18, 6($31)
    lda $0, 4($31)
    call_pal 0x83
    mov $0, $9
    lda $16, 42($31)
    lda $0, 1($31)
    call_pal 0x83
    .data
msg: .ascii \"hello\\n\"
";

#[test]
fn exec_write_and_exit_syscalls() {
    let (e, host) = run("ev4", HELLO);
    assert_eq!(e, Exit::Exited(42));
    assert_eq!(host.stdout, b"hello\n");
}

#[test]
fn state_initial_stack_has_argc_argv_and_auxv_pagesz_8192() {
    // exit(argc * 16 + strlen(argv[1])), and AT_PAGESZ is checked by walking auxv.
    let src = "
    .text
    .globl _start
_start:
    ldq $1, 0($30)          # argc
    ldq $2, 16($30)         # argv[1]
    clr $3
1:  ldbu $4, 0($2)
    beq $4, 2f
    addq $3, 1, $3
    addq $2, 1, $2
    br 1b
2:  # skip argv (argc+1 words) and envp (until NULL) to reach auxv
    s8addq $1, $30, $5
    addq $5, 16, $5
3:  ldq $6, 0($5)
    addq $5, 8, $5
    bne $6, 3b
4:  ldq $6, 0($5)           # a_type
    ldq $7, 8($5)           # a_val
    addq $5, 16, $5
    beq $6, 9f
    cmpeq $6, 6, $8         # AT_PAGESZ
    beq $8, 4b
    lda $8, 8192($31)
    cmpeq $7, $8, $8
    beq $8, 9f
    sll $1, 4, $16
    addq $16, $3, $16
    lda $0, 1($31)
    call_pal 0x83
9:  lda $16, 255($31)
    lda $0, 1($31)
    call_pal 0x83
";
    let m = alpha_isa::model_by_name("ev56").unwrap();
    let mut host = CaptureHost::default();
    let mut opts = Options::new(m, vec!["prog".into(), "abcde".into(), "x".into()]);
    opts.envp = vec!["A=1".into(), "B=2".into()];
    let e = linux::run_program(&elf(src), &opts, &mut host).unwrap();
    assert_eq!(e, Exit::Exited(3 * 16 + 5));
}

#[test]
fn fault_bwx_store_on_ev5_is_sigill_132_naming_insn_and_extension() {
    let src = exit_with("    lda $1, -64($30)\n    stb $31, 0($1)\n    clr $16");
    let (e, host) = run("ev5", &src);
    assert_eq!(e.status(), 132);
    match &e {
        Exit::Killed { signal: 4, why } => {
            assert!(why.starts_with("SIGILL: stb"), "{why}");
            assert!(why.ends_with("needs BWX, which ev5 lacks"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(host.diags.len(), 1);
    let (ok, _) = run("ev56", &src);
    assert_eq!(ok, Exit::Exited(0));
}

#[test]
fn fault_wild_store_is_sigsegv_139() {
    let (e, host) = run("ev67", &exit_with("    stq $31, 0($31)"));
    assert_eq!(e.status(), 139);
    assert!(host.diags[0].contains("SIGSEGV"), "{:?}", host.diags);
}

#[test]
fn exec_unaligned_ldq_is_fixed_up_and_counted() {
    let src = exit_with(
        "    lda $1, -64($30)\n    lda $2, 0x0102($31)\n    stq $2, 0($1)\n    stq $31, 8($1)\n    ldq $16, 1($1)",
    );
    let m = alpha_isa::model_by_name("ev67").unwrap();
    let mut p = linux::Process::new(&elf(&src), &Options::new(m, vec!["p".into()])).unwrap();
    let mut host = CaptureHost::default();
    let e = p.run(&mut host, None);
    assert_eq!(e, Exit::Exited(0x01));
    assert_eq!(p.unaligned_fixups, 1);
}

#[test]
fn exec_unaligned_stq_ldt_stt_are_fixed_up_byte_exactly() {
    // STQ at A+1, LDT from A+1, STT to A+35 (all unaligned), then LDBU A+36:
    // byte 1 of 0x1122334455667788 is 0x77.
    let src = exit_with(
        "    lda $1, -64($30)\n    ldiq $2, 0x1122334455667788\n    stq $2, 1($1)\n    ldt $f1, 1($1)\n    stt $f1, 35($1)\n    ldbu $16, 36($1)",
    );
    let m = alpha_isa::model_by_name("ev67").unwrap();
    let mut p = linux::Process::new(&elf(&src), &Options::new(m, vec!["p".into()])).unwrap();
    let e = p.run(&mut CaptureHost::default(), None);
    assert_eq!(e, Exit::Exited(0x77));
    assert_eq!(p.unaligned_fixups, 3);
}

#[test]
fn fault_unaligned_ldq_l_is_sigbus_135() {
    let (e, host) = run(
        "ev67",
        &exit_with("    lda $1, -63($30)\n    ldq_l $16, 0($1)"),
    );
    assert_eq!(e.status(), 135);
    assert!(host.diags[0].contains("SIGBUS: ldq_l"), "{:?}", host.diags);
}

#[test]
fn bound_max_insns_stops_a_runaway_with_status_124() {
    let src = ".text\n.globl _start\n_start:\n1: br 1b\n";
    let m = alpha_isa::model_by_name("ev67").unwrap();
    let mut host = CaptureHost::default();
    let mut opts = Options::new(m, vec!["p".into()]);
    opts.max_insns = Some(1000);
    let e = linux::run_program(&elf(src), &opts, &mut host).unwrap();
    assert_eq!(e, Exit::InsnLimit(1000));
    assert_eq!(e.status(), 124);
    assert!(host.diags[0].contains("--max-insns"));
}

#[test]
fn exec_unknown_syscall_returns_enosys_with_error_flag() {
    let src = exit_with(
        "    lda $0, 9999($31)\n    call_pal 0x83\n    mov $0, $16\n    addq $16, $19, $16",
    );
    let (e, _) = run("ev67", &src);
    // Alpha's ENOSYS is 78 (arch/alpha/include/uapi/asm/errno.h; qemu-alpha
    // -strace prints `errno=78 (Function not implemented)`), not x86's 38.
    assert_eq!(e, Exit::Exited(78 + 1));
}

// ---- bad input

fn load_err(bytes: &[u8]) -> String {
    let m = alpha_isa::model_by_name("ev67").unwrap();
    match linux::Process::new(bytes, &Options::new(m, vec!["p".into()])) {
        Ok(_) => panic!("accepted bad input of {} bytes", bytes.len()),
        Err(e) => {
            assert!(!e.contains('\n'), "one line: {e}");
            e
        }
    }
}

#[test]
fn fault_bad_elf_inputs_are_one_line_errors() {
    assert_eq!(load_err(b""), "not an ELF file");
    assert_eq!(load_err(b"#!/bin/sh\necho hi\n"), "not an ELF file");
    let good = elf(&exit_with("    clr $16"));
    let mut c32 = good.clone();
    c32[4] = 1;
    assert!(load_err(&c32).contains("32-bit"));
    let mut be = good.clone();
    be[5] = 2;
    assert!(load_err(&be).contains("big-endian"));
    let mut x86 = good.clone();
    x86[18..20].copy_from_slice(&0x3eu16.to_le_bytes());
    assert!(load_err(&x86).contains("not Alpha"));
    let mut rel = good.clone();
    rel[16..18].copy_from_slice(&1u16.to_le_bytes());
    assert!(load_err(&rel).contains("not an executable"));
    // Cut inside the identification, the header, the program headers, and
    // one byte before the end of the first PT_LOAD's file image.
    let phoff = u64::from_le_bytes(good[32..40].try_into().unwrap()) as usize;
    let seg_off = u64::from_le_bytes(good[phoff + 8..phoff + 16].try_into().unwrap()) as usize;
    let seg_len = u64::from_le_bytes(good[phoff + 32..phoff + 40].try_into().unwrap()) as usize;
    for cut in [6, 30, 63, phoff + 20, seg_off + seg_len - 1] {
        let e = load_err(&good[..cut]);
        assert!(
            e.contains("truncated") || e.contains("malformed"),
            "cut {cut}: {e}"
        );
    }
}

proptest::proptest! {
    #[test]
    fn fault_random_bytes_never_panic_the_loader(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
        let m = alpha_isa::model_by_name("ev67").unwrap();
        let _ = linux::Process::new(&bytes, &Options::new(m, vec!["p".into()]));
    }

    #[test]
    fn fault_mutated_elf_never_panics_the_loader(pos in 0usize..200, val: u8, cut in 0usize..400) {
        let mut e = elf(&exit_with("    clr $16"));
        if pos < e.len() { e[pos] = val; }
        e.truncate(cut.max(1).min(e.len()));
        let m = alpha_isa::model_by_name("ev67").unwrap();
        if let Ok(mut p) = linux::Process::new(&e, &Options::new(m, vec!["p".into()])) {
            let _ = p.run(&mut CaptureHost::default(), Some(10_000));
        }
    }
}
