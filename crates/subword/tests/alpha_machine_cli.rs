//! `subword alpha io` and `subword alpha machine` end to end: the contract's
//! JSON shapes, `--trace-io` lines, exit statuses, bad input as one line, and
//! the bare-metal examples assembled by GNU as/ld giving the same result as
//! subword's own assembler.

use std::path::{Path, PathBuf};
use std::process::Command;
mod common;
use common::{one_stderr_line, subword};

fn example(name: &str) -> PathBuf {
    testkit::workspace_root()
        .join("crates/alpha-emu/tests/bare")
        .join(name)
}

/// Assemble an example with subword's assembler into a flat image at 0x20000.
fn flat(dir: &Path, name: &str, defs: &[(&str, u64)]) -> PathBuf {
    let mut src = String::new();
    for (k, v) in defs {
        src += &format!("\t.equ\t{k}, {v}\n");
    }
    src += &std::fs::read_to_string(example(name)).unwrap();
    let p = alpha_isa::asm::assemble_at(&src, name, 0x20000, None).unwrap();
    let out = dir.join(format!("{name}.bin"));
    std::fs::write(&out, &p.text).unwrap();
    out
}

#[test]
fn decode_io_encode_json_has_the_contract_fields() {
    let o = subword(&[
        "alpha",
        "io",
        "encode",
        "--chipset",
        "cia",
        "--window",
        "sparse-io",
        "--bus-addr",
        "0x3f9",
        "--size",
        "1",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"chipset": "cia", "window": "sparse-io", "phys": "0x8580007f20",
                           "lane": 1, "length_code": 0, "hae": "0x0"})
    );
    let o = subword(&[
        "alpha",
        "io",
        "encode",
        "--chipset",
        "tsunami",
        "--window",
        "bwx-io",
        "--bus-addr",
        "0x3f8",
        "--size",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["phys"], "0x801fc0003f8");
    assert!(v["lane"].is_null() && v["length_code"].is_null() && v["hae"].is_null());
    let o = subword(&[
        "alpha",
        "io",
        "decode",
        "--chipset",
        "apecs",
        "--hae",
        "0x8000000",
        "0x220000240",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            v["window"].as_str(),
            v["bus_addr"].as_str(),
            v["lane"].as_u64()
        ),
        (Some("sparse-mem"), Some("0x9000012"), Some(2))
    );
}

#[test]
fn fault_io_refusals_are_one_line_exit_2() {
    for (args, want) in [
        (
            vec![
                "--chipset",
                "cia",
                "--window",
                "sparse-io",
                "--bus-addr",
                "0x3fb",
                "--size",
                "2",
            ],
            "lane 3",
        ),
        (
            vec![
                "--chipset",
                "cia",
                "--window",
                "dense-mem",
                "--bus-addr",
                "0",
                "--size",
                "1",
            ],
            "longwords and quadwords only",
        ),
        (
            vec![
                "--chipset",
                "cia",
                "--window",
                "bwx-io",
                "--bus-addr",
                "0",
                "--size",
                "1",
            ],
            "21171",
        ),
        (
            vec![
                "--chipset",
                "nope",
                "--window",
                "bwx-io",
                "--bus-addr",
                "0",
                "--size",
                "1",
            ],
            "unknown chipset",
        ),
        (
            vec![
                "--chipset",
                "cia",
                "--window",
                "fast-io",
                "--bus-addr",
                "0",
                "--size",
                "1",
            ],
            "unknown window",
        ),
    ] {
        let mut a = vec!["alpha", "io", "encode"];
        a.extend(args);
        let o = subword(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        assert!(one_stderr_line(&o).contains(want), "{a:?}");
    }
}

#[test]
fn exec_machine_trace_io_lines_and_json() {
    let dir = testkit::scratch_dir("exec_machine_trace_io_lines_and_json");
    let img = flat(&dir, "uart_sparse.s", &[("IO_HI", 0x2160), ("SHIFT", 5)]);
    let img = img.to_str().unwrap();
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "cia",
        "--cpu",
        "ev5",
        "--trace-io",
        img,
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout, b"hello\n");
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[0],
        "io: pc=0x2003c sparse-io write size=1 bus=0x3f8 lane=0 data=0x68"
    );
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "cia",
        "--json",
        "--trace-io",
        img,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], 0);
    assert_eq!(v["console"], "hello\n");
    assert_eq!(v["io"].as_array().unwrap().len(), 6);
    assert!(v["findings"].as_array().unwrap().is_empty());
}

#[test]
fn fault_machine_findings_json_and_machine_check_status_3() {
    let dir = testkit::scratch_dir("fault_machine_findings_json_and_machine_check_status_3");
    let img = flat(&dir, "pci_hae.s", &[("SET_HAE", 0)]);
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "apecs",
        "--cpu",
        "ev4",
        "--json",
        img.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["findings"][0]["kind"], "hae-mismatch");
    assert!(v["findings"][0]["other_pc"].is_null());
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "apecs",
        "--cpu",
        "ev4",
        img.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("subword: warning: hae-mismatch: "), "{err}");
    // The BWX window on the 21171: one machine-check line, status 3.
    let img = flat(&dir, "uart_bwx.s", &[("IO_HI", 0x2240)]);
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "cia",
        "--cpu",
        "ev56",
        img.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3));
    let line = one_stderr_line(&o);
    assert!(line.starts_with("subword: machine check: pc=0x"), "{line}");
    assert!(line.contains("phys=0x89000003f8"), "{line}");
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "pyxis",
        "--cpu",
        "ev56",
        img.to_str().unwrap(),
    ]);
    assert_eq!(
        (o.status.code(), o.stdout.as_slice()),
        (Some(0), &b"hello\n"[..])
    );
}

#[test]
fn bad_input_machine_is_one_line_exit_2_and_max_insns_is_124() {
    let dir = testkit::scratch_dir("bad_input_machine_is_one_line_exit_2_and_max_insns_is_124");
    let big = dir.join("big.bin");
    std::fs::write(&big, vec![0u8; 2 << 20]).unwrap();
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "cia",
        "--memory",
        "0x100000",
        big.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_stderr_line(&o).contains("does not fit"));
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "vax",
        big.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_stderr_line(&o).contains("unknown chipset"));
    // An ELF with no loadable segment.
    let mut elf = alpha_isa::asm::assemble("\t.globl _start\n_start:\n\tnop\n", "x.s")
        .unwrap()
        .to_elf();
    // e_phnum (offset 56) = 0.
    elf[56] = 0;
    elf[57] = 0;
    let e = dir.join("noseg.elf");
    std::fs::write(&e, &elf).unwrap();
    let o = subword(&["alpha", "machine", "--chipset", "cia", e.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_stderr_line(&o).contains("no loadable segment"));
    // A runaway image.
    let p = alpha_isa::asm::assemble_at(
        "\t.globl _start\n_start:\n1:\tbr $31, 1b\n",
        "x.s",
        0x20000,
        None,
    )
    .unwrap();
    let r = dir.join("loop.bin");
    std::fs::write(&r, &p.text).unwrap();
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "cia",
        "--max-insns",
        "1000",
        r.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(124));
    assert!(one_stderr_line(&o).contains("--max-insns 1000"));
}

/// The same examples built by GNU as/ld (`--defsym` for the symbols) and
/// loaded as ELF by `p_paddr` give what subword's own assembler gives.
#[test]
fn exec_gnu_as_built_examples_match_subword_assembled_ones() {
    let t = "exec_gnu_as_built_examples_match_subword_assembled_ones";
    let Some(gas) = testkit::require_tool(t, "alpha-linux-gnu-as", "binutils-alpha-linux-gnu")
    else {
        return;
    };
    let Some(ld) = testkit::require_tool(t, "alpha-linux-gnu-ld", "binutils-alpha-linux-gnu")
    else {
        return;
    };
    let dir = testkit::scratch_dir(t);
    for (name, defs, chipset, cpu) in [
        (
            "uart_sparse.s",
            vec![("IO_HI", 0x2160u64), ("SHIFT", 5)],
            "cia",
            "ev5",
        ),
        (
            "uart_sparse.s",
            vec![("IO_HI", 0x70), ("SHIFT", 5)],
            "apecs",
            "ev4",
        ),
        ("uart_bwx.s", vec![("IO_HI", 0x407f)], "tsunami", "ev6"),
        ("jensen.s", vec![], "jensen", "ev4"),
        ("pci_hae.s", vec![("SET_HAE", 1)], "apecs", "ev4"),
    ] {
        let mut a: Vec<String> = vec!["-mev6".into()];
        for (k, v) in &defs {
            a.push(format!("--defsym={k}={v}"));
        }
        let obj = dir.join(format!("{chipset}-{name}.o"));
        let elf = dir.join(format!("{chipset}-{name}.elf"));
        let st = Command::new(&gas)
            .args(&a)
            .arg("-o")
            .arg(&obj)
            .arg(example(name))
            .status()
            .unwrap();
        assert!(st.success(), "gas {name}");
        let st = Command::new(&ld)
            .args(["-N", "--no-warn-rwx-segments", "-Ttext=0x20000", "-o"])
            .arg(&elf)
            .arg(&obj)
            .status()
            .unwrap();
        assert!(st.success(), "ld {name}");
        let img = flat(&dir, name, &defs);
        let ours = subword(&[
            "alpha",
            "machine",
            "--chipset",
            chipset,
            "--cpu",
            cpu,
            "--json",
            "--trace-io",
            img.to_str().unwrap(),
        ]);
        let gnu = subword(&[
            "alpha",
            "machine",
            "--chipset",
            chipset,
            "--cpu",
            cpu,
            "--json",
            "--trace-io",
            elf.to_str().unwrap(),
        ]);
        assert_eq!(gnu.status.code(), ours.status.code(), "{chipset} {name}");
        assert_eq!(
            String::from_utf8_lossy(&gnu.stdout),
            String::from_utf8_lossy(&ours.stdout),
            "{chipset} {name}"
        );
    }
}

#[test]
fn exec_demo_chipset_tour_shows_phys_lane_data_and_the_missing_insbl() {
    let o = subword(&["demo"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    for want in [
        "apecs  (ev4 ) phys 0x1c0007f00    sparse-io bus 0x3f8 lane 0 data 0x41  console \"A\"",
        "cia    (ev5 ) phys 0x8580007f00   sparse-io bus 0x3f8 lane 0 data 0x41",
        "pyxis  (ev56) phys 0x89000003f8   bwx-io    bus 0x3f8 lane 0 data 0x41",
        "jensen (ev4 ) phys 0x1c007f000    local-io  bus 0x3f8 lane 0 data 0x41",
        "with    INSBL: the device got 0x83 in lane 3  (no finding)",
        "without INSBL: the device got 0x00 in lane 3  (finding lane-mismatch)",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }
}

#[test]
fn exec_machine_svg_draws_one_row_per_window() {
    let dir = testkit::scratch_dir("exec_machine_svg_draws_one_row_per_window");
    let img = flat(&dir, "jensen.s", &[]);
    let svg = dir.join("io.svg");
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "jensen",
        "--svg",
        svg.to_str().unwrap(),
        img.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(
        s.starts_with("<svg") && s.contains(">local-io</text>") && s.contains(">sparse-io</text>")
    );
    assert_eq!(s.matches("<title>").count(), 7);
}

fn io(args: &[&str]) -> std::process::Output {
    let mut a = vec!["alpha", "io"];
    a.extend_from_slice(args);
    subword(&a)
}

/// AlphaPC164LX Motherboard TRM Tables A–6/A–8: a sparse quadword is length
/// code 3 with addr_h<6:5> = 3 (offset 0x78), by LDQ/STQ. `io encode
/// --size 8` gives `+ 0x78`; `io decode` of that address is the quadword
/// (not "lane 3 would cross the longword").
#[test]
fn decode_io_sparse_quadword_at_offset_0x78() {
    let o = io(&[
        "encode",
        "--chipset",
        "pyxis",
        "--window",
        "sparse-io",
        "--bus-addr",
        "0x3f0",
        "--size",
        "8",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // core_cia.h CIA_IO 0x8580000000 + (0x3f0 << 5) + 0x78.
    assert_eq!(
        v["phys"],
        format!("0x{:x}", 0x85_8000_0000u64 + (0x3f0 << 5) + 0x78)
    );
    assert_eq!(
        (v["length_code"].as_u64(), v["lane"].is_null()),
        (Some(3), true)
    );
    let o = io(&["decode", "--chipset", "cia", "0x8580007e78", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["bus_addr"].as_str(), v["size"].as_u64()),
        (Some("0x3f0"), Some(8))
    );
}

/// The 21172's byte/word windows (FreeBSD ciareg.h CIA_EV56_BWIO
/// 0x8900000000) are encoded, and the seed's remark comes with them as a
/// `note:` line (text) or `"note"` (JSON) instead of a refusal.
#[test]
fn decode_io_cia2_bwx_window_with_its_note() {
    let args = [
        "encode",
        "--chipset",
        "cia2",
        "--window",
        "bwx-io",
        "--bus-addr",
        "0x3f8",
        "--size",
        "1",
    ];
    let o = io(&args);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].contains("phys=0x89000003f8"), "{out}");
    assert!(
        lines[1].starts_with("note: ") && lines[1].contains("never to have worked"),
        "{out}"
    );
    let mut j = args.to_vec();
    j.push("--json");
    let v: serde_json::Value = serde_json::from_slice(&io(&j).stdout).unwrap();
    assert!(v["note"].as_str().unwrap().contains("FreeBSD"), "{v}");
}

/// core_polaris.h POLARIS_DENSE_MEM_BASE (0xf900000000): Polaris's dense
/// memory window carries bytes and words; `--window dense-mem` and
/// `--window bwx-mem` both name it.
#[test]
fn decode_io_polaris_dense_mem_is_its_byte_word_memory_window() {
    for w in ["dense-mem", "bwx-mem"] {
        let o = io(&[
            "encode",
            "--chipset",
            "polaris",
            "--window",
            w,
            "--bus-addr",
            "0x8000001",
            "--size",
            "1",
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{w}: {o:?}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            (v["phys"].as_str(), v["window"].as_str()),
            (Some("0xf908000001"), Some("dense-mem")),
            "{w}"
        );
    }
}

/// `--memory` beyond what the host could give (its memory plus swap, from
/// /proc/meminfo) is bad input: one line, exit 2, before any RAM exists.
#[test]
fn bad_input_memory_beyond_the_host_is_refused() {
    let Ok(info) = std::fs::read_to_string("/proc/meminfo") else {
        println!("SKIPPED no /proc/meminfo on this host");
        return;
    };
    let field = |n: &str| -> u64 {
        info.lines().find(|l| l.starts_with(n)).map_or(0, |l| {
            l[n.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .unwrap()
                * 1024
        })
    };
    let host = field("MemTotal:") + field("SwapTotal:");
    let over = (host / 8192 + 1) * 8192;
    let dir = testkit::scratch_dir("bad_input_memory_beyond_the_host_is_refused");
    let img = flat(&dir, "uart_bwx.s", &[("IO_HI", 0x224)]);
    let o = subword(&[
        "alpha",
        "machine",
        "--chipset",
        "pyxis",
        "--memory",
        &over.to_string(),
        img.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let l = one_stderr_line(&o);
    assert!(l.contains("more than this host can give"), "{l}");
}
