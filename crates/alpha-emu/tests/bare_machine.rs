//! The bare machine (`alpha_emu::bare`) running the bare-metal examples in
//! `tests/bare/`: each chipset's console path, HAE, lanes, the 21164 write
//! buffer, and the machine checks, each asserting exactly what it must give.

use alpha_emu::bare::{Bare, FindingKind, Options, Report, Stop};
use alpha_emu::chipset;

fn source(name: &str, defs: &[(&str, i64)]) -> String {
    let path = format!("{}/tests/bare/{name}", env!("CARGO_MANIFEST_DIR"));
    let body = std::fs::read_to_string(&path).unwrap();
    let mut s = String::new();
    for (k, v) in defs {
        s += &format!("\t.set\t{k}, {v}\n");
    }
    s + &body
}

/// Assemble with subword's own assembler as a flat image at 0x20000.
fn image(src: &str) -> Vec<u8> {
    let p = alpha_isa::asm::assemble_at(src, "bare.s", 0x20000, None).unwrap();
    assert!(p.data.is_empty());
    p.text
}

fn run_on(cs: &str, cpu: &str, img: &[u8], max: Option<u64>) -> Report {
    let cs = chipset::by_name(cs).unwrap();
    let model = alpha_isa::model_by_name(cpu).unwrap();
    Bare::new(cs, model, &Options::default(), img)
        .unwrap()
        .run(max)
}

fn kinds(r: &Report) -> Vec<FindingKind> {
    r.findings.iter().map(|f| f.kind).collect()
}

fn io_hi(cs: &str, window: chipset::WindowKind) -> i64 {
    let w = chipset::by_name(cs).unwrap().window(window).unwrap();
    // The examples build the KSEG offset as IO_HI << 26; on the 21264 PA
    // bit 43 is KSEG VA bit 40 (Linux's TS_BIAS).
    let off = if w.base >> 43 != 0 {
        (w.base & ((1 << 40) - 1)) | (1 << 40)
    } else {
        w.base
    };
    assert_eq!(off & ((1 << 26) - 1), 0);
    (off >> 26) as i64
}

#[test]
fn exec_uart_hello_through_sparse_io_on_every_sparse_chipset() {
    for (cs, cpu) in [
        ("apecs", "ev4"),
        ("lca", "lca4"),
        ("cia", "ev5"),
        ("cia2", "ev56"),
        ("pyxis", "ev56"),
        ("t2", "ev4"),
        ("t2-gamma", "ev5"),
    ] {
        let hi = io_hi(cs, chipset::WindowKind::SparseIo);
        let r = run_on(
            cs,
            cpu,
            &image(&source("uart_sparse.s", &[("IO_HI", hi), ("SHIFT", 5)])),
            None,
        );
        assert_eq!(r.stop, Stop::Halt(0), "{cs}");
        assert_eq!(r.console, b"hello\n", "{cs}");
        assert!(r.findings.is_empty(), "{cs}: {:?}", r.findings);
        let first = &r.io[0];
        assert_eq!(
            (first.bus, first.size, first.lane, first.data),
            (0x3f8, 1, 0, b'h' as u64)
        );
    }
}

#[test]
fn exec_uart_hello_with_stb_through_the_bwx_window() {
    for (cs, cpu) in [
        ("pyxis", "ev56"),
        ("tsunami", "ev6"),
        ("irongate", "ev67"),
        ("polaris", "pca56"),
    ] {
        let hi = io_hi(cs, chipset::WindowKind::BwxIo);
        let r = run_on(
            cs,
            cpu,
            &image(&source("uart_bwx.s", &[("IO_HI", hi)])),
            None,
        );
        assert_eq!(r.stop, Stop::Halt(0), "{cs}");
        assert_eq!(r.console, b"hello\n", "{cs}");
        assert!(r.findings.is_empty(), "{cs}");
        assert!(r
            .io
            .iter()
            .all(|t| t.window == chipset::WindowKind::BwxIo && t.size == 1));
    }
}

#[test]
fn exec_jensen_local_uart_and_replicated_eisa_post_write() {
    let r = run_on("jensen", "ev4", &image(&source("jensen.s", &[])), None);
    assert_eq!(r.stop, Stop::Halt(0));
    assert_eq!(r.console, b"hello\n");
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let post = r.io.last().unwrap();
    assert_eq!(post.window, chipset::WindowKind::SparseIo);
    assert_eq!((post.bus, post.lane, post.data), (0x80, 0, 0x2a));
    assert!(r.io[..6]
        .iter()
        .all(|t| t.window == chipset::WindowKind::LocalIo && t.bus == 0x3f8));
}

#[test]
fn exec_pci_memory_above_the_hae_reach_written_sparse_read_dense() {
    let r = run_on(
        "apecs",
        "ev4",
        &image(&source("pci_hae.s", &[("SET_HAE", 1)])),
        None,
    );
    assert_eq!(r.stop, Stop::Halt(0x5a), "{:?}", r.findings);
    assert!(r.findings.is_empty());
    let w = &r.io[0];
    assert_eq!(
        (w.window, w.bus, w.lane, w.data),
        (chipset::WindowKind::SparseMem, 0x0900_0012, 2, 0x5a)
    );
}

#[test]
fn fault_wrong_hae_is_hae_mismatch_and_the_write_is_lost() {
    let r = run_on(
        "apecs",
        "ev4",
        &image(&source("pci_hae.s", &[("SET_HAE", 0)])),
        None,
    );
    assert_eq!(r.stop, Stop::Halt(0));
    assert_eq!(kinds(&r), [FindingKind::HaeMismatch]);
    assert!(
        r.findings[0].message.contains("HAXR1=0x8000000"),
        "{}",
        r.findings[0].message
    );
}

#[test]
fn fault_missing_insbl_delivers_the_byte_in_the_named_lane() {
    // The same program as the hello, but to port 0x3f9 (lane 1) without
    // INSBL: the UART's IER gets lane 1 of the data, which is 0.
    let src = source(
        "uart_sparse.s",
        &[
            ("IO_HI", io_hi("cia", chipset::WindowKind::SparseIo)),
            ("SHIFT", 5),
        ],
    )
    .replace("lda\t$5, 0x3f8($31)", "lda\t$5, 0x3f9($31)")
    .replace("insbl\t$4, $5, $4", "nop");
    let r = run_on("cia", "ev5", &image(&src), None);
    assert_eq!(r.stop, Stop::Halt(0));
    assert!(r.console.is_empty());
    assert_eq!(kinds(&r), vec![FindingKind::LaneMismatch; 6]);
    assert_eq!((r.io[0].bus, r.io[0].lane, r.io[0].data), (0x3f9, 1, 0));
}

#[test]
fn fault_missing_mb_on_a_21164_merges_writes_in_the_write_buffer() {
    let src = source(
        "uart_sparse.s",
        &[
            ("IO_HI", io_hi("cia", chipset::WindowKind::SparseIo)),
            ("SHIFT", 5),
        ],
    )
    .replace("\tmb\t\t\t\t# mandatory", "\tnop\t\t\t\t# missing");
    let r = run_on("cia", "ev5", &image(&src), None);
    assert_eq!(r.stop, Stop::Halt(0));
    // Every write merged into the next: only the last reaches the UART.
    assert_eq!(r.console, b"\n");
    assert_eq!(kinds(&r), vec![FindingKind::MbMissing; 5]);
    let f = &r.findings[0];
    // Both writes come from the one STL in the loop.
    assert_eq!(f.other_pc, Some(f.pc));
    // The same program on an EV4 (no such write buffer) prints everything.
    let hi = io_hi("apecs", chipset::WindowKind::SparseIo);
    let src = source("uart_sparse.s", &[("IO_HI", hi), ("SHIFT", 5)])
        .replace("\tmb\t\t\t\t# mandatory", "\tnop\t\t\t\t# missing");
    let r = run_on("apecs", "ev4", &image(&src), None);
    assert_eq!(r.console, b"hello\n");
    assert!(r.findings.is_empty());
}

fn stb_at(kseg_off_hi: i64, disp: i64) -> Vec<u8> {
    image(&format!(
        "\t.text\n\t.globl _start\n_start:\n\tlda $2, {kseg_off_hi}($31)\n\tsll $2, 26, $2\n\tlda $3, -4($31)\n\tsll $3, 40, $3\n\taddq $2, $3, $2\n\tlda $4, 0x41($31)\n\tstb $4, {disp}($2)\n\tmov $31, $16\n\tcall_pal 0\n"
    ))
}

#[test]
fn fault_byte_store_to_a_dense_window_is_a_machine_check() {
    let img = stb_at(io_hi("cia", chipset::WindowKind::DenseMem), 0x10);
    let r = run_on("cia", "ev56", &img, None);
    let Stop::MachineCheck(m) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert!(m.starts_with("machine check: pc=0x20018 `stb"), "{m}");
    assert!(m.contains("phys=0x8600000010 window=dense-mem"), "{m}");
    assert_eq!(r.stop.status(), 3);
    assert!(r.findings.is_empty() && r.io.is_empty());
}

#[test]
fn fault_bwx_window_on_the_21171_is_a_machine_check() {
    // CIA_BW_IO exists on Pyxis, not on the 21171.
    let img = stb_at(io_hi("pyxis", chipset::WindowKind::BwxIo), 0x3f8);
    let r = run_on("cia", "ev56", &img, None);
    let Stop::MachineCheck(m) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert!(m.contains("phys=0x89000003f8"), "{m}");
    assert!(r.console.is_empty());
    // On Pyxis the same image prints 'A'.
    let r = run_on("pyxis", "ev56", &img, None);
    assert_eq!(
        (r.stop.clone(), r.console.clone()),
        (Stop::Halt(0), b"A".to_vec())
    );
}

#[test]
fn fault_byte_store_to_sparse_space_is_a_machine_check() {
    let img = stb_at(io_hi("cia", chipset::WindowKind::SparseIo), 0x7f00);
    let r = run_on("cia", "ev56", &img, None);
    let Stop::MachineCheck(m) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert!(
        m.contains("window=sparse-io") && m.contains("longword"),
        "{m}"
    );
}

#[test]
fn bound_max_insns_stops_a_runaway_image() {
    let img = image("\t.text\n\t.globl _start\n_start:\n1:\tbr $31, 1b\n");
    let r = run_on("cia", "ev5", &img, Some(10_000));
    assert_eq!(r.stop.status(), 124);
    assert_eq!(r.insns, 10_000);
}

#[test]
fn fault_wild_jump_and_unsupported_call_pal_stop_with_status_3() {
    let img = image("\t.text\n\t.globl _start\n_start:\n\tldah $1, 0x4000($31)\n\tjmp $31, ($1)\n");
    let r = run_on("cia", "ev5", &img, None);
    let Stop::MachineCheck(m) = &r.stop else {
        panic!()
    };
    assert!(m.contains("wild jump"), "{m}");
    let img = image("\t.text\n\t.globl _start\n_start:\n\tcall_pal 0x83\n");
    let r = run_on("cia", "ev5", &img, None);
    let Stop::MachineCheck(m) = &r.stop else {
        panic!()
    };
    assert!(m.contains("unsupported CALL_PAL 0x83"), "{m}");
}

#[test]
fn state_entry_registers_and_halt_status() {
    // halt with $16 & 0xff: $16 holds the RAM size at entry; sp is KSEG top.
    let img = image("\t.text\n\t.globl _start\n_start:\n\tsrl $30, 44, $1\n\tsrl $16, 20, $16\n\taddq $16, $1, $16\n\tcall_pal 0\n");
    let r = run_on("cia", "ev5", &img, None);
    // 64 MiB >> 20 = 64; 0xfffffc0004000000 >> 44 = 0xfffff: sum & 0xff = 0x3f.
    assert_eq!(r.stop, Stop::Halt(((64u64 + 0xfffff) & 0xff) as u8));
}

#[test]
fn bad_input_image_too_big_and_elf_without_segments() {
    let cs = chipset::by_name("cia").unwrap();
    let m = alpha_isa::model_by_name("ev5").unwrap();
    let opts = Options {
        memory: 1 << 20,
        ..Options::default()
    };
    let big = vec![0u8; 2 << 20];
    let e = Bare::new(cs, m, &opts, &big).err().unwrap();
    assert!(e.0.contains("does not fit"), "{e}");
}

#[test]
fn exec_jit_compiled_loop_hands_io_accesses_back() {
    // Hot loops (compiled after their threshold: a delay loop nested in a
    // loop that writes the UART through sparse I/O): every write must still
    // reach the device, handed back from compiled code to the interpreter.
    let src = "\t.text\n\t.globl _start\n_start:\n\tlda $2, IO_HI($31)\n\tsll $2, 26, $2\n\tlda $6, 0x7f00($2)\n\tlda $7, 500($31)\n1:\tlda $4, 0x2e($31)\n\tlda $8, 20($31)\n2:\tsubq $8, 1, $8\n\tbne $8, 2b\n\tstl $4, 0($6)\n\tmb\n\tsubq $7, 1, $7\n\tbne $7, 1b\n\tmov $31, $16\n\tcall_pal 0\n";
    let src = format!(
        "\t.set IO_HI, {}\n{src}",
        io_hi("cia", chipset::WindowKind::SparseIo)
    );
    let img = image(&src);
    let cs = chipset::by_name("cia").unwrap();
    let model = alpha_isa::model_by_name("ev5").unwrap();
    let opts = Options {
        jit_threshold: Some(2),
        ..Options::default()
    };
    let mut b = Bare::new(cs, model, &opts, &img).unwrap();
    b.machine.set_jit_background(false);
    let r = b.run(None);
    assert_eq!(r.stop, Stop::Halt(0));
    assert_eq!(r.console, vec![b'.'; 500]);
    assert!(r.jit_regions > 0, "the loop was compiled");
}

#[test]
fn exec_c_hello_with_linux_style_io_helpers_on_cia_apecs_jensen() {
    let t = "exec_c_hello_with_linux_style_io_helpers_on_cia_apecs_jensen";
    let Some(gcc) = testkit::require_tool(t, "alpha-linux-gnu-gcc", "gcc-alpha-linux-gnu") else {
        return;
    };
    let dir = testkit::scratch_dir(t);
    let src = format!("{}/tests/bare/hello.c", env!("CARGO_MANIFEST_DIR"));
    for (cs, cpu, def) in [
        ("cia", "ev5", "CHIPSET_CIA"),
        ("apecs", "ev4", "CHIPSET_APECS"),
        ("jensen", "ev4", "CHIPSET_JENSEN"),
    ] {
        let out = dir.join(format!("hello-{cs}.elf"));
        let st = std::process::Command::new(&gcc)
            .args(["-O2", "-mcpu=ev4", "-ffreestanding", "-nostdlib", "-static"])
            .arg(format!("-D{def}"))
            .args([
                "-Wl,-N",
                "-Wl,--build-id=none",
                "-Wl,--no-warn-rwx-segments",
                "-Wl,-Ttext=0x20000",
                "-o",
            ])
            .arg(&out)
            .arg(&src)
            .status()
            .unwrap();
        assert!(st.success(), "gcc {cs}");
        let r = run_on(cs, cpu, &std::fs::read(&out).unwrap(), None);
        assert_eq!(r.stop, Stop::Halt(7), "{cs}");
        assert_eq!(r.console, b"hello from C\n", "{cs}");
        assert!(r.findings.is_empty(), "{cs}: {:?}", r.findings);
        // Each byte: an LSR read, then the THR write.
        assert_eq!(r.io.len(), 26, "{cs}");
        assert!(!r.io[0].write && r.io[0].bus == 0x3fd && r.io[0].data == 0x60);
    }
}

#[test]
fn exec_lca_pci_memory_through_its_ioc_hae() {
    // pci_hae.s with LCA_IOC_HAE (0x180000000) for APECS_IOC_HAXR1; LCA's
    // sparse and dense memory bases are APECS's.
    let src = source("pci_hae.s", &[("SET_HAE", 1)]).replace(
        "\tlda\t$2, 0x1a0($31)\n\tsll\t$2, 24, $2\n\tlda\t$2, 0x1a0($2)",
        "\tlda\t$2, 0x180($31)\n\tsll\t$2, 24, $2\n\tlda\t$2, 0($2)",
    );
    let r = run_on("lca", "lca4", &image(&src), None);
    assert_eq!(r.stop, Stop::Halt(0x5a), "{:?}", r.findings);
    assert!(r.findings.is_empty());
    // On APECS that address is no HAE: the write goes to bus 0x01000012.
    let r = run_on("apecs", "ev4", &image(&src), None);
    let Stop::MachineCheck(m) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert!(m.contains("phys=0x180000000"), "{m}");
}

#[test]
fn exec_jensen_eisa_memory_with_the_hae_and_replicated_lanes() {
    // jensen_writeb/readb: jensen_set_hae(addr) (addr >> 25), addr &=
    // JENSEN_HAE_MASK, *(vuip)((addr << 7) + EISA_MEM + 0x00) = b * 0x01010101,
    // then result >>= (addr & 3) * 8.
    let src = "\t.text\n\t.globl _start\n_start:\n\
        \tlda $3, -4($31)\n\tsll $3, 40, $3\n\
        \tldah $10, 0x800($31)\n\tlda $10, 3($10)\n\
        \tsrl $10, 25, $4\n\
        \tlda $2, 0x1d0($31)\n\tsll $2, 24, $2\n\taddq $2, $3, $2\n\
        \tstl $4, 0($2)\n\tmb\n\
        \tlda $5, 1($31)\n\tsll $5, 25, $5\n\tsubq $5, 1, $5\n\
        \tand $10, $5, $11\n\
        \tlda $6, 8($31)\n\tsll $6, 30, $6\n\taddq $6, $3, $6\n\
        \tsll $11, 7, $7\n\taddq $7, $6, $7\n\
        \tlda $8, 0x5a($31)\n\tldah $9, 0x101($31)\n\tlda $9, 0x101($9)\n\tmull $8, $9, $8\n\
        \tstl $8, 0($7)\n\tmb\n\
        \tldl $12, 0($7)\n\textbl $12, $11, $16\n\
        \tcall_pal 0\n";
    let r = run_on("jensen", "ev4", &image(src), None);
    assert_eq!(r.stop, Stop::Halt(0x5a), "{:?}", r.findings);
    assert!(r.findings.is_empty());
    let w = &r.io[0];
    assert_eq!(
        (w.window, w.bus, w.lane, w.data),
        (chipset::WindowKind::SparseMem, 0x0800_0003, 3, 0x5a)
    );
    // Without the HAE the access lands at bus 0x3: hae-mismatch.
    let r = run_on(
        "jensen",
        "ev4",
        &image(&src.replace("\tstl $4, 0($2)\n", "")),
        None,
    );
    assert_eq!(
        kinds(&r),
        [FindingKind::HaeMismatch, FindingKind::HaeMismatch]
    );
}

/// AlphaPC164LX Motherboard TRM Table A–6 (PCI memory sparse space):
/// "Quadword | addr_h<4:3> 11 | addr_h<6:5> 11 | LDQ,STQ". An STQ to
/// `(bus << 5) + CIA_SPARSE_MEM + 0x78` moves all eight bytes to the PCI
/// memory device and an LDQ there reads them back; an STQ to the longword
/// offset `+ 0x18` is not a quadword transfer: a machine check.
#[test]
fn exec_sparse_quadword_stq_ldq_at_offset_0x78_on_cia_and_pyxis() {
    // CIA_SPARSE_MEM (0x8000000000) + (0x08000008 << 5) = 0x8100000100.
    let hi = 0x81_0000_0000i64 >> 26;
    let prog = |off: u32| {
        image(&format!(
            "\t.text\n\t.globl _start\n_start:\n\
             \tlda $2, -4($31)\n\tsll $2, 40, $2\n\
             \tlda $3, {hi}($31)\n\tsll $3, 26, $3\n\taddq $2, $3, $2\n\
             \tlda $4, 0x1234($31)\n\tsll $4, 32, $4\n\tlda $4, 0x5678($4)\n\
             \tstq $4, {}($2)\n\tmb\n\
             \tldq $5, {}($2)\n\
             \tcmpeq $4, $5, $16\n\
             \tcall_pal 0\n",
            0x100 + off,
            0x100 + off
        ))
    };
    for (cs, cpu) in [("cia", "ev5"), ("pyxis", "ev56")] {
        let r = run_on(cs, cpu, &prog(0x78), None);
        assert_eq!(r.stop, Stop::Halt(1), "{cs}: {:?}", r.stop);
        let w = &r.io[0];
        assert_eq!(
            (w.window, w.write, w.size, w.bus, w.data),
            (
                chipset::WindowKind::SparseMem,
                true,
                8,
                0x0800_0008,
                0x1234_0000_5678
            ),
            "{cs}"
        );
        let rd = &r.io[1];
        assert_eq!((rd.write, rd.size, rd.data), (false, 8, 0x1234_0000_5678));
        // The longword offset with STQ: no such transfer.
        let r = run_on(cs, cpu, &prog(0x18), None);
        let Stop::MachineCheck(m) = &r.stop else {
            panic!("{cs}: {:?}", r.stop)
        };
        assert!(m.contains("`stq") && m.contains("quadword"), "{m}");
        assert!(r.io.is_empty());
    }
}

/// An image linked at KSEG, as a Linux kernel is (0xfffffc0000310000), is
/// loaded by p_paddr and entered at e_entry as given: its pc-relative
/// address of `value` is a KSEG address, which reaches RAM; subtracting the
/// KSEG base gives the identity address, which reaches the same RAM. Entered
/// at the physical address instead, the subtraction would leave RAM.
#[test]
fn exec_kseg_linked_elf_runs_at_its_kseg_addresses() {
    let kseg = 0xffff_fc00_0000_0000u64;
    let text = kseg + 0x31_0000 + alpha_isa::elf::HEADERS_SIZE;
    let src = "\t.text\n\t.globl _start\n\
        value:\t.quad 0x0123456789abcdef\n\t.quad 0\n\
        _start:\tbr $1, here\n\
        here:\tlda $2, value-here($1)\n\
        \tldq $3, 0($2)\n\
        \tlda $4, -1($31)\n\tsll $4, 42, $4\n\
        \tsubq $2, $4, $5\n\
        \tldq $6, 0($5)\n\
        \tlda $7, 0x66($31)\n\tstq $7, 8($5)\n\tldq $8, 8($2)\n\
        \tcmpeq $3, $6, $9\n\tcmpeq $7, $8, $10\n\tand $9, $10, $9\n\
        \tsrl $2, 63, $11\n\tand $9, $11, $9\n\
        \tmull $9, 0x2a, $16\n\
        \tcall_pal 0\n";
    let p = alpha_isa::asm::assemble_at(src, "kseg.s", text, None).unwrap();
    assert_eq!(p.entry, text + 16);
    let elf = p.to_elf();
    let r = run_on("cia", "ev5", &elf, None);
    assert_eq!(r.stop, Stop::Halt(0x2a), "{:?}", r.stop);
}

/// RAM costs the host nothing until touched: a 16 GiB machine maps only the
/// pages its image occupies, and a page first touched through either name
/// (identity below 2^44, or KSEG) is the same RAM through the other.
#[test]
fn bound_untouched_ram_is_not_mapped_and_both_names_reach_a_touched_page() {
    let cs = chipset::by_name("cia").unwrap();
    let model = alpha_isa::model_by_name("ev5").unwrap();
    let opts = Options {
        memory: 16 << 30,
        ..Options::default()
    };
    // Store 0x2a at physical 15 GiB through the identity address, load it
    // back through KSEG; then the same at the top of RAM below sp.
    let src = "\t.text\n\t.globl _start\n_start:\n\
        \tlda $1, 15($31)\n\tsll $1, 30, $1\n\
        \tlda $2, -1($31)\n\tsll $2, 42, $2\n\
        \tlda $3, 0x2a($31)\n\tstq $3, 0($1)\n\
        \taddq $1, $2, $4\n\tldq $5, 0($4)\n\
        \tstq $5, -8($30)\n\tsubq $30, $2, $6\n\tldq $16, -8($6)\n\
        \tcall_pal 0\n";
    let b = Bare::new(cs, model, &opts, &image(src)).unwrap();
    assert!(
        b.machine.mem.mapped_bytes() <= 4 * 8192,
        "{} bytes mapped before the run",
        b.machine.mem.mapped_bytes()
    );
    let r = b.run(Some(1000));
    assert_eq!(r.stop, Stop::Halt(0x2a), "{:?}", r.stop);
}

/// Self-modifying-code checks are per decoded instruction, not per page: a
/// loop that stores into its own 8 KiB page (data beside code, as a kernel
/// image has) must not have the page decoded again for every store, and a
/// store that does change an instruction must take effect: the loop
/// rewrites the `lda $16, 1` it then executes into `lda $16, 42`.
#[test]
fn exec_stores_into_the_code_page_decode_only_the_changed_words() {
    // 5000 stores one page-half away from the loop, in the same page.
    let src = "\t.text\n\t.globl _start\n_start:\n\
        \tldah $1, 2($31)\n\tlda $1, 0x1000($1)\n\
        \tlda $2, 5000($31)\n\
        1:\tstq $2, 0($1)\n\tsubq $2, 1, $2\n\tbne $2, 1b\n\
        \tbr $3, 2f\n\
        2:\tldl $4, 16($3)\n\tlda $4, 41($4)\n\tstl $4, 16($3)\n\
        \tnop\n\
        \tlda $16, 1($31)\n\
        \tcall_pal 0\n";
    for jit in [None, Some(2)] {
        let cs = chipset::by_name("cia").unwrap();
        let model = alpha_isa::model_by_name("ev5").unwrap();
        let opts = Options {
            jit_threshold: jit,
            ..Options::default()
        };
        let mut b = Bare::new(cs, model, &opts, &image(src)).unwrap();
        b.machine.set_jit_background(false);
        let r = b.run(Some(1_000_000));
        assert_eq!(r.stop, Stop::Halt(42), "jit {jit:?}: {:?}", r.stop);
        assert!(
            r.decoded_pages <= 2,
            "jit {jit:?}: the code page was decoded {} times",
            r.decoded_pages
        );
    }
}
