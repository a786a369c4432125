//! The Linux personality at the system-call, signal and PALcode level, with
//! programs assembled by alpha-isa (no reference tools needed). Each test
//! exits with a value that a wrong implementation would get wrong: errno
//! numbers are Alpha's (arch/alpha/include/uapi/asm/errno.h), signal
//! numbers Alpha's (asm/signal.h), frames as arch/alpha/kernel/signal.c.

use alpha_emu::linux::{self, CaptureHost, Exit, Options};

fn elf(src: &str) -> Vec<u8> {
    alpha_isa::assemble(src, "test.s")
        .unwrap_or_else(|e| panic!("{e}"))
        .to_elf()
}

fn run_opts(src: &str, f: impl FnOnce(&mut Options)) -> (Exit, CaptureHost) {
    let m = alpha_isa::model_by_name("ev67").unwrap();
    let mut host = CaptureHost::default();
    let mut opts = Options::new(m, vec!["prog".into()]);
    opts.max_insns = Some(10_000_000);
    f(&mut opts);
    let exit = linux::run_program(&elf(src), &opts, &mut host).unwrap();
    (exit, host)
}

/// Run with the fixed identity of `--deterministic` (pid 1000: the
/// programs `kill` themselves by that number).
fn run(src: &str) -> (Exit, CaptureHost) {
    run_opts(src, |o| o.deterministic = true)
}

/// A program: `body` then `exit($16)`; `data` goes to .data.
fn prog(body: &str, data: &str) -> String {
    format!(
        "    .text\n    .globl _start\n_start:\n{body}\n    lda $0, 1($31)\n    call_pal 0x83\n    halt\n{RESTORER}\n    .data\n{data}\n"
    )
}

/// glibc-style sigreturn stubs (the restorer passed to rt_sigaction).
const RESTORER: &str =
    "rt_restorer:\n    mov $30, $16\n    lda $0, 351($31)\n    call_pal 0x83\n    halt\n";

/// `syscall nr` with arguments already in a0..; leaves v0/a3.
fn sys(nr: u64) -> String {
    format!("    lda $0, {nr}($31)\n    call_pal 0x83\n")
}

#[test]
fn syscall_write_from_unmapped_buffer_is_efault_with_error_flag() {
    // write(1, 0x10, 5): EFAULT (14), a3 = 1  -> exit 14 + 100.
    let body = format!(
        "    lda $16, 1($31)\n    lda $17, 0x10($31)\n    lda $18, 5($31)\n{}    mulq $19, 100, $19\n    addq $0, $19, $16",
        sys(4)
    );
    let (e, host) = run(&prog(&body, ""));
    assert_eq!(e, Exit::Exited(114));
    assert!(host.stdout.is_empty());
}

#[test]
fn syscall_huge_mmap_is_enomem_not_a_crash() {
    // mmap(0, 1<<60, RW, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0): ENOMEM = 12.
    let body = format!(
        "    mov $31, $16\n    lda $17, 1($31)\n    sll $17, 60, $17\n    lda $18, 3($31)\n    lda $19, 0x12($31)\n    lda $20, -1($31)\n    mov $31, $21\n{}    mulq $19, 100, $19\n    addq $0, $19, $16",
        sys(71)
    );
    let (e, _) = run(&prog(&body, ""));
    assert_eq!(e, Exit::Exited(112));
}

#[test]
fn bound_max_memory_caps_anonymous_mmap() {
    // 4 MiB under a 2 MiB cap fails with ENOMEM; 64 KiB succeeds and is usable.
    let body = format!(
        "    mov $31, $16\n    lda $17, 64($31)\n    sll $17, 16, $17\n    lda $18, 3($31)\n    lda $19, 0x12($31)\n    lda $20, -1($31)\n    mov $31, $21\n{}    mov $0, $9\n    mov $19, $10\n\
         mov $31, $16\n    lda $17, 1($31)\n    sll $17, 16, $17\n    lda $18, 3($31)\n    lda $19, 0x12($31)\n    lda $20, -1($31)\n    mov $31, $21\n{}    bne $19, bad\n    stq $9, 8($0)\n    ldq $16, 8($0)\n    mulq $10, 100, $10\n    addq $16, $10, $16\n    br done\nbad:\n    lda $16, 255($31)\ndone:",
        sys(71),
        sys(71)
    );
    let (e, _) = run_opts(&prog(&body, ""), |o| o.max_memory = Some(12 << 20));
    // 12 MiB cap: the 8 MiB stack plus the image leave less than 4 MiB.
    assert_eq!(e, Exit::Exited(112));
}

#[test]
fn syscall_brk_grows_the_heap_and_refuses_shrinking_below_start() {
    // b = brk(0); brk(b + 100000) == b + 100000; store at the last byte;
    // brk(1) (below the start) fails with ENOMEM.
    let body = format!(
        "    mov $31, $16\n{}    mov $0, $9\n    lda $16, 100($9)\n    lda $1, 1000($31)\n    mulq $1, 100, $1\n    addq $9, $1, $16\n{}    subq $0, $9, $10\n    addq $9, $10, $2\n    stb $10, -1($2)\n    lda $16, 1($31)\n{}    mov $0, $11\n    mov $19, $12\n    lda $1, 1000($31)\n    mulq $1, 100, $1\n    cmpeq $10, $1, $16\n    addq $16, $11, $16\n    mulq $12, 100, $12\n    addq $16, $12, $16",
        sys(17),
        sys(17),
        sys(17)
    );
    let (e, _) = run(&prog(&body, ""));
    // 1 (grew by exactly 100000) + 12 (ENOMEM) + 100 (error flag).
    assert_eq!(e, Exit::Exited(113));
}

#[test]
fn syscall_unknown_number_returns_alpha_enosys() {
    let body = format!("{}    addq $0, $19, $16", sys(9999));
    let (e, _) = run(&prog(&body, ""));
    assert_eq!(e, Exit::Exited(79));
}

#[test]
fn syscall_uname_machine_is_alpha() {
    // uname(buf): machine is the fifth 65-byte field; exit with its first
    // two bytes' sum ('a' + 'l' = 97 + 108 = 205).
    let body = format!(
        "    lda $16, buf\n{}    lda $1, buf\n    ldbu $2, 260($1)\n    ldbu $3, 261($1)\n    addq $2, $3, $16",
        sys(339)
    );
    let (e, _) = run(&prog(&body, "buf:\n    .space 400\n"));
    assert_eq!(e, Exit::Exited(205));
}

/// rt_sigaction(sig, &act, 0, 8, rt_restorer) with act = {handler, flags, 0}.
fn install(sig: u64, flags: u64) -> String {
    format!(
        "    lda $1, act\n    lda $2, handler\n    stq $2, 0($1)\n    lda $2, {flags}($31)\n    stq $2, 8($1)\n    stq $31, 16($1)\n    lda $16, {sig}($31)\n    lda $17, act\n    mov $31, $18\n    lda $19, 8($31)\n    lda $20, rt_restorer\n{}",
        sys(352)
    )
}

#[test]
fn signal_handler_runs_on_frame_and_sigreturn_restores_registers() {
    // SIGUSR1 (30 on Alpha) with SA_SIGINFO: the handler records a0 (the
    // signal), si_code from the siginfo (a1) and clobbers $9/$10; after
    // rt_sigreturn the main line sees its own $9/$10 again.
    let body = format!(
        "{}    lda $9, 7($31)\n    lda $10, 11($31)\n    lda $16, 1000($31)\n    lda $17, 30($31)\n{}    lda $1, seen\n    ldq $2, 0($1)\n    ldl $3, 8($1)\n    addq $2, $9, $16\n    addq $16, $10, $16\n    addq $16, $3, $16\n    br out\nhandler:\n    lda $1, seen\n    stq $16, 0($1)\n    ldl $2, 8($17)\n    stl $2, 8($1)\n    lda $9, 100($31)\n    lda $10, 100($31)\n    ret $31, ($26), 1\nout:",
        install(30, 0x40),
        sys(37)
    );
    let (e, _) = run(&prog(&body, "act:\n    .space 24\nseen:\n    .space 16\n"));
    // 30 (signal) + 7 + 11 + si_code SI_USER (0).
    assert_eq!(e, Exit::Exited(48));
}

#[test]
fn signal_default_action_of_sigterm_kills_with_128_plus_15() {
    let body = format!("    lda $16, 1000($31)\n    lda $17, 15($31)\n{}", sys(37));
    let (e, _) = run(&prog(&body, ""));
    assert_eq!(e.status(), 143);
    assert!(matches!(e, Exit::Killed { signal: 15, ref why } if why.contains("SIGTERM")));
}

#[test]
fn signal_blocked_then_unblocked_is_delivered_on_unblock() {
    // Block SIGUSR2 (31), kill self, the handler has not run; unblock: it runs.
    let body = format!(
        "{}    lda $1, set\n    lda $2, 1($31)\n    sll $2, 30, $2\n    stq $2, 0($1)\n    lda $16, 1($31)\n    lda $17, set\n    mov $31, $18\n    lda $19, 8($31)\n{}    lda $16, 1000($31)\n    lda $17, 31($31)\n{}    lda $1, seen\n    ldq $9, 0($1)\n    lda $16, 2($31)\n    lda $17, set\n    mov $31, $18\n    lda $19, 8($31)\n{}    lda $1, seen\n    ldq $10, 0($1)\n    mulq $9, 10, $9\n    addq $9, $10, $16\n    br out\nhandler:\n    lda $1, seen\n    stq $16, 0($1)\n    ret $31, ($26), 1\nout:",
        install(31, 0x40),
        sys(353),
        sys(37),
        sys(353)
    );
    let (e, _) = run(&prog(
        &body,
        "act:\n    .space 24\nset:\n    .space 8\nseen:\n    .space 8\n",
    ));
    // Before unblocking 0, after 31.
    assert_eq!(e, Exit::Exited(31));
}

#[test]
fn fault_gentrap_intdiv_is_sigfpe_with_fpe_intdiv_code() {
    // The handler exits with si_code: GEN_INTDIV (-2) -> FPE_INTDIV (1).
    let body = format!(
        "{}    lda $16, -2($31)\n    call_pal 0xaa\n    lda $16, 99($31)\n    br out\nhandler:\n    ldl $16, 8($17)\n    addq $16, 40, $16\n    lda $0, 1($31)\n    call_pal 0x83\nout:",
        install(8, 0x40)
    );
    let (e, _) = run(&prog(&body, "act:\n    .space 24\n"));
    assert_eq!(e, Exit::Exited(41));
}

#[test]
fn fault_gentrap_without_handler_kills_with_sigfpe() {
    let (e, host) = run(&prog("    lda $16, -2($31)\n    call_pal 0xaa", ""));
    assert_eq!(e.status(), 136);
    assert!(host.diags[0].contains("SIGFPE"), "{:?}", host.diags);
}

#[test]
fn fault_bpt_is_sigtrap_and_privileged_palcode_is_sigill() {
    let (e, _) = run(&prog("    call_pal 0x80", ""));
    assert_eq!(e.status(), 133);
    // HALT (PAL 0) is privileged.
    let (e, host) = run(&prog("    call_pal 0x0", ""));
    assert_eq!(e.status(), 132);
    assert!(host.diags[0].contains("privileged"), "{:?}", host.diags);
}

#[test]
fn fault_segv_handler_gets_maperr_and_fault_address() {
    // Load from 0x18: handler exits with si_code (SEGV_MAPERR 1) * 100 + si_addr.
    let body = format!(
        "{}    lda $1, 0x18($31)\n    ldq $2, 0($1)\n    br out\nhandler:\n    ldl $16, 8($17)\n    mulq $16, 100, $16\n    ldq $2, 16($17)\n    addq $16, $2, $16\n    lda $0, 1($31)\n    call_pal 0x83\nout:",
        install(11, 0x40)
    );
    let (e, _) = run(&prog(&body, "act:\n    .space 24\n"));
    assert_eq!(e, Exit::Exited(124));
}

#[test]
fn unaligned_fixup_is_reported_once_per_site_then_uac_sigbus_kills() {
    // Three unaligned LDQs at one site: fixed, one report. Then
    // osf_setsysinfo(SSI_NVPAIRS, {SSIN_UACPROC, UAC_SIGBUS}) -> SIGBUS.
    let body = format!(
        "    lda $1, buf\n    lda $3, 3($31)\nloop:\n    ldq $2, 1($1)\n    subq $3, 1, $3\n    bne $3, loop\n    lda $16, 1($31)\n    lda $17, pairs\n    lda $18, 1($31)\n    mov $31, $19\n    mov $31, $20\n{}    ldq $2, 1($1)\n    mov $31, $16",
        sys(257)
    );
    let data = "buf:\n    .space 32\npairs:\n    .long 6\n    .long 4\n";
    let (e, host) = run_opts(&prog(&body, data), |o| o.strace = true);
    assert_eq!(e.status(), 135, "{:?}", host.diags);
    let reports = host
        .diags
        .iter()
        .filter(|d| d.contains("unaligned trap at"))
        .count();
    assert_eq!(reports, 1, "{:?}", host.diags);
    // Linux logs the fix-up to the kernel log, never to the program's
    // stderr: without --strace nothing is said.
    let (e, host) = run(&prog(&body, data));
    assert_eq!(e.status(), 135, "{:?}", host.diags);
    assert!(
        !host.diags.iter().any(|d| d.contains("unaligned trap")),
        "{:?}",
        host.diags
    );
}

#[test]
fn strace_names_calls_and_results() {
    let body = format!("{}    mov $31, $16", sys(9999));
    let (_, host) = run_opts(&prog(&body, ""), |o| o.strace = true);
    let text = host.diags.join("\n");
    assert!(
        text.contains("syscall_9999(") && text.contains("= -1 ENOSYS (Function not implemented)"),
        "{text}"
    );
    assert!(text.contains("exit(0) = ?"), "{text}");
}

#[test]
fn strace_names_unimplemented_calls_and_prints_null_only_for_pointers() {
    // getpgid(0): a number, 0 printed as 0; brk(0): a pointer, NULL;
    // osf_old_open (5, not implemented): named, with its errno by name.
    let z = "    mov $31, $16\n";
    let body = format!("{z}{}{z}{}{z}{}{z}", sys(233), sys(17), sys(5));
    let (_, host) = run_opts(&prog(&body, ""), |o| o.strace = true);
    let text = host.diags.join("\n");
    assert!(text.contains(" getpgid(0) = "), "{text}");
    assert!(text.contains(" brk(NULL) = 0x"), "{text}");
    assert!(
        text.contains(" osf_old_open(") && text.contains("-1 ENOSYS (Function not implemented)"),
        "{text}"
    );
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    /// Calls that change the host file system are left out (a random
    /// pointer could name a real path); everything else is fair game.
    const NRS: &[u64] = &[
        3, 4, 6, 17, 19, 20, 24, 33, 37, 41, 42, 47, 48, 54, 58, 64, 67, 68, 71, 73, 74, 75, 90,
        91, 92, 103, 116, 120, 121, 144, 235, 256, 257, 312, 334, 339, 340, 341, 349, 351, 352,
        353, 354, 359, 367, 377, 378, 381, 394, 411, 420, 421, 424, 425, 426, 427, 455, 460, 462,
        487, 488, 496, 511, 9999,
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn bound_random_syscalls_with_random_arguments_never_crash_subword(
            calls in proptest::collection::vec((0..NRS.len(), proptest::array::uniform6(prop_oneof![
                Just(0u64), Just(1u64), Just(u64::MAX), 0u64..64, any::<u64>(),
                Just(0x1_1fff_f000u64), Just(0x1_2000_0000u64),
            ])), 1..6)
        ) {
            let mut body = String::new();
            for (i, a) in &calls {
                for (k, v) in a.iter().enumerate() {
                    body += &format!("    ldiq ${}, {}\n", 16 + k, *v as i64);
                }
                body += &sys(NRS[*i]);
            }
            body += "    mov $31, $16";
            let (e, _) = run(&prog(&body, "buf:\n    .space 64\n"));
            // Any outcome is fine; reaching here means no panic or hang.
            let _ = e.status();
        }
    }
}

/// `pipe()` (Alpha: read end in v0, write end in a4) into $9/$10.
fn pipe_fds() -> String {
    format!("{}    mov $0, $9\n    mov $20, $10\n", sys(42))
}

#[test]
fn write_to_pipe_with_its_reader_closed_raises_sigpipe_status_141() {
    // close(read end); write(write end, buf, 1): SIGPIPE, default action.
    let body = format!(
        "{}    mov $9, $16\n{}    mov $10, $16\n    lda $17, buf\n    lda $18, 1($31)\n{}",
        pipe_fds(),
        sys(6),
        sys(4)
    );
    let (e, _) = run(&prog(&body, "buf:\n    .quad 0\n"));
    assert_eq!(e.status(), 141);
    assert!(
        matches!(e, Exit::Killed { signal: 13, ref why } if why.contains("pipe with no reader")),
        "{e:?}"
    );
}

#[test]
fn write_to_pipe_with_sigpipe_ignored_fails_with_epipe() {
    // rt_sigaction(SIGPIPE, {SIG_IGN}) then the same write: EPIPE (32) + flag.
    let body = format!(
        "    lda $1, act\n    lda $2, 1($31)\n    stq $2, 0($1)\n    lda $16, 13($31)\n    lda $17, act\n    mov $31, $18\n    lda $19, 8($31)\n    mov $31, $20\n{}{}    mov $9, $16\n{}    mov $10, $16\n    lda $17, buf\n    lda $18, 1($31)\n{}    mulq $19, 100, $19\n    addq $0, $19, $16",
        sys(352),
        pipe_fds(),
        sys(6),
        sys(4)
    );
    let (e, _) = run(&prog(&body, "act:\n    .space 24\nbuf:\n    .quad 0\n"));
    assert_eq!(e, Exit::Exited(132)); // 32 + 100
}

#[test]
fn read_of_empty_pipe_with_writer_open_blocks_and_alone_is_a_deadlock() {
    // The only thread reads an empty pipe whose write end it holds: Linux
    // blocks forever (never EAGAIN); subword ends the run as a deadlock.
    let body = format!(
        "{}    mov $9, $16\n    lda $17, buf\n    lda $18, 1($31)\n{}    mov $0, $16",
        pipe_fds(),
        sys(3)
    );
    let (e, host) = run(&prog(&body, "buf:\n    .quad 0\n"));
    assert!(
        matches!(e, Exit::Killed { signal: 9, ref why } if why.contains("deadlock")),
        "{e:?} {host:?}"
    );
}

#[test]
fn umask_returns_the_previous_mask() {
    // Deterministic identity: umask starts 022; umask(077) -> 022 (18),
    // umask(022) -> 077 (63): exit 18 + 63 = 81.
    let body = format!(
        "    lda $16, 0x3f($31)\n{}    mov $0, $9\n    lda $16, 0x12($31)\n{}    addq $9, $0, $16",
        sys(60),
        sys(60)
    );
    let (e, _) = run(&prog(&body, ""));
    assert_eq!(e, Exit::Exited(81));
}

#[test]
fn wait4_without_children_is_echild() {
    // wait4(-1, 0, 0, 0): ECHILD (10) + error flag.
    let body = format!(
        "    lda $16, -1($31)\n    mov $31, $17\n    mov $31, $18\n    mov $31, $19\n{}    mulq $19, 100, $19\n    addq $0, $19, $16",
        sys(365)
    );
    let (e, _) = run(&prog(&body, ""));
    assert_eq!(e, Exit::Exited(110));
}
