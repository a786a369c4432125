//! The explorer's C test programs (`tests/c/explore/`) and their MANIFEST:
//! every program is listed for both models, builds for ev4 and ev56, exits
//! 0 under the Linux personality, its racy stores are the pre-BWX
//! read-modify-write on ev4 and single STB/STW on ev56, and the ev4 races
//! really lose a store under some round-robin quantum while ev56 never does.

use alpha_emu::linux::{self, CaptureHost, Exit, Options};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const CPUS: [&str; 2] = ["ev4", "ev56"];

fn run(bin: &Path, model: &str, quantum: u64) -> (Exit, CaptureHost) {
    let m = alpha_isa::model_by_name(model).unwrap();
    let mut opts = Options::new(m, vec![bin.display().to_string()]);
    opts.max_insns = Some(20_000_000);
    opts.quantum = Some(quantum);
    opts.deterministic = true;
    let mut host = CaptureHost::default();
    let elf = std::fs::read(bin).unwrap();
    let e = linux::run_program(&elf, &opts, &mut host).unwrap();
    (e, host)
}

#[test]
fn manifest_lists_every_program_for_ev4_and_ev56() {
    let manifest = testkit::explore_manifest();
    let programs = testkit::explore_programs();
    assert!(programs.len() >= 15, "{programs:?}");
    let listed: BTreeSet<(String, String)> = manifest
        .iter()
        .map(|e| (e.program.clone(), e.cpu.clone()))
        .collect();
    for p in &programs {
        for cpu in CPUS {
            assert!(
                listed.contains(&(p.clone(), cpu.to_string())),
                "{p} {cpu} not in MANIFEST"
            );
        }
    }
    for e in &manifest {
        assert!(
            programs.contains(&e.program),
            "MANIFEST names unknown program {}",
            e.program
        );
        if e.kind == "nothing" {
            let others = manifest
                .iter()
                .filter(|o| o.program == e.program && o.cpu == e.cpu && o.kind != "nothing");
            assert_eq!(
                others.count(),
                0,
                "{} {}: nothing and findings",
                e.program,
                e.cpu
            );
        }
    }
}

#[test]
fn manifest_sides_match_in_either_order_and_only_named_symbols() {
    let m = testkit::parse_explore_manifest(
        "p ev4 lost-store a|b c # comment\np ev56 nothing\nq ev4 forward-progress f\n",
    );
    assert_eq!(m.len(), 3);
    assert!(m[0].matches("lost-store", &["b", "c"]));
    assert!(m[0].matches("lost-store", &["c", "a"]));
    assert!(!m[0].matches("lost-store", &["a", "b"]));
    assert!(!m[0].matches("lock-range-contention", &["a", "c"]));
    assert!(m[1].matches("nothing", &[]));
    assert!(m[2].matches("forward-progress", &["f"]));
    assert!(!m[2].matches("forward-progress", &["g"]));
}

/// The instructions of function `func` in `bin`, as objdump prints them
/// (mnemonic and operands).
fn disassemble(objdump: &Path, bin: &Path, func: &str) -> Vec<String> {
    let out = Command::new(objdump)
        .args(["-d", "--no-show-raw-insn"])
        .arg(format!("--disassemble={func}"))
        .arg(bin)
        .output()
        .expect("run objdump");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let insns: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_once(":\t").map(|(_, i)| i.trim().to_string()))
        .collect();
    assert!(!insns.is_empty(), "no function {func} in {}", bin.display());
    insns
}

fn mnemonics(insns: &[String]) -> BTreeSet<String> {
    insns
        .iter()
        .map(|i| i.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn racy_stores_are_quadword_rmw_on_ev4_and_single_byte_stores_on_ev56() {
    let Some(objdump) = testkit::require_tool(
        "racy_stores_shape",
        "alpha-linux-gnu-objdump",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    // (program, writer functions) whose stores are plain C byte/word stores.
    let plain = [
        ("adjacent_chars", &["writer_a", "writer_b"][..]),
        ("short_char", &["writer_short", "writer_char"]),
        ("three_bytes", &["writer_a", "writer_b", "writer_c"]),
        ("done_flag", &["fill_data", "set_done"]),
        ("unaligned_short", &["writer_short", "writer_next"]),
    ];
    for (prog, funcs) in plain {
        let Some(ev4) = testkit::explore_program("racy_stores_shape", prog, "ev4") else {
            return;
        };
        let ev56 = testkit::explore_program("racy_stores_shape", prog, "ev56").unwrap();
        for f in funcs {
            let m4 = mnemonics(&disassemble(&objdump, &ev4, f));
            assert!(
                m4.contains("ldq_u") && m4.contains("stq_u") && !m4.contains("stb"),
                "{prog} ev4 {f}: {m4:?}"
            );
            let m56 = mnemonics(&disassemble(&objdump, &ev56, f));
            assert!(
                !m56.contains("stq_u") && (m56.contains("stb") || m56.contains("stw")),
                "{prog} ev56 {f}: {m56:?}"
            );
        }
    }
    // The block copy merges with LDQ/STQ on both models; its neighbour is
    // STB with BWX.
    for cpu in CPUS {
        let bin = testkit::explore_program("racy_stores_shape", "block_copy", cpu).unwrap();
        let m = mnemonics(&disassemble(&objdump, &bin, "copy_name"));
        assert!(
            m.contains("ldq") && m.contains("stq"),
            "{cpu} copy_name: {m:?}"
        );
    }
    let bin = testkit::explore_program("racy_stores_shape", "block_copy", "ev56").unwrap();
    assert!(mnemonics(&disassemble(&objdump, &bin, "set_flag")).contains("stb"));
    // The hand-written LL/SC sequences hold exactly the offending
    // instruction between LDx_L and STx_C.
    for (prog, func, offender) in [
        ("llsc_load", "inc_load_inside", "ldq"),
        ("llsc_branch", "inc_branch_inside", "br"),
        ("llsc_fp", "inc_fp_inside", "addt"),
        ("llsc_syscall", "inc_syscall_inside", "callsys"),
    ] {
        let bin = testkit::explore_program("racy_stores_shape", prog, "ev4").unwrap();
        let insns = disassemble(&objdump, &bin, func);
        let l = insns.iter().position(|i| i.starts_with("ldq_l")).unwrap();
        let c = insns.iter().position(|i| i.starts_with("stq_c")).unwrap();
        assert!(
            insns[l + 1..c]
                .iter()
                .any(|i| i.split_whitespace().next() == Some(offender)),
            "{prog}: {:?}",
            &insns[l..=c]
        );
    }
    let bin = testkit::explore_program("racy_stores_shape", "llsc_long", "ev4").unwrap();
    let insns = disassemble(&objdump, &bin, "inc_too_long");
    let l = insns.iter().position(|i| i.starts_with("ldq_l")).unwrap();
    let c = insns.iter().position(|i| i.starts_with("stq_c")).unwrap();
    assert!(c - l - 1 > 40, "llsc_long holds {} instructions", c - l - 1);
    let bin = testkit::explore_program("racy_stores_shape", "llsc_ok", "ev4").unwrap();
    let insns = disassemble(&objdump, &bin, "inc_ok");
    let l = insns.iter().position(|i| i.starts_with("ldq_l")).unwrap();
    let c = insns.iter().position(|i| i.starts_with("stq_c")).unwrap();
    assert_eq!(c - l, 2, "llsc_ok: {:?}", &insns[l..=c]);
}

#[test]
fn every_program_exits_0_on_ev4_and_ev56() {
    for prog in testkit::explore_programs() {
        for cpu in CPUS {
            let Some(bin) = testkit::explore_program("explore_programs_exit", &prog, cpu) else {
                return;
            };
            let (e, host) = run(&bin, cpu, 3);
            assert_eq!(e, Exit::Exited(0), "{prog} {cpu}: {:?}", host.diags);
            assert!(!host.stdout.is_empty(), "{prog} {cpu} printed nothing");
        }
    }
}

#[test]
fn ev4_races_lose_a_store_under_some_quantum_and_ev56_never_does() {
    // Each program's writers store an increasing value; the last stores
    // are ITERS (200) + k. A final value below that is a lost store.
    let want = [
        ("adjacent_chars", "a=200 b=201"),
        ("three_bytes", "a=200 b=201 c=202"),
        ("done_flag", "data=200 done=1"),
        ("short_char", "w=51400 c=201"),
    ];
    for (prog, intact) in want {
        let mut lost_on_ev4 = false;
        for cpu in CPUS {
            let Some(bin) = testkit::explore_program("explore_programs_lose", prog, cpu) else {
                return;
            };
            for quantum in [1, 3, 7] {
                let (e, host) = run(&bin, cpu, quantum);
                assert_eq!(e, Exit::Exited(0), "{prog} {cpu}: {:?}", host.diags);
                let out = String::from_utf8_lossy(&host.stdout).trim().to_string();
                if cpu == "ev56" {
                    assert_eq!(out, intact, "{prog} ev56 quantum {quantum} lost a store");
                } else if out != intact {
                    lost_on_ev4 = true;
                }
            }
        }
        assert!(lost_on_ev4, "{prog}: no quantum loses a store on ev4");
    }
    // The seed's wrong LDL_L byte atomic never changes the byte at an
    // address with bit 2 set, on any model and schedule.
    for cpu in CPUS {
        let bin = testkit::explore_program("explore_programs_lose", "ldl_l_byte", cpu).unwrap();
        let (_, host) = run(&bin, cpu, 3);
        assert_eq!(
            String::from_utf8_lossy(&host.stdout).trim(),
            "b1=200 b5=0",
            "{cpu}"
        );
    }
}
