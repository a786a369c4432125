//! `subword demo`, Alpha 5: the chipset tour. The same `outb(0x3f8, 'A')` on
//! APECS, CIA, Pyxis (BWX) and Jensen, run on the bare machine
//! (`alpha_emu::bare`), with the physical address, lane and data each puts
//! on the bus; then what a missing `INSBL` does.

use alpha_emu::bare::{Bare, Options, Report};
use alpha_emu::chipset::{self, DeviceKind, WindowKind};

/// The console UART's port, from the chipset table (the same on every
/// chipset of the tour).
fn uart_port(cs: &str) -> Result<u64, String> {
    let c = chipset::by_name(cs).map_err(|e| e.0)?;
    Ok(c.device(DeviceKind::Uart16550).ok_or("no UART")?.base)
}

/// 16550 line control register offset (lane 3 of the UART's first longword).
const UART_LCR: u64 = 3;

/// Instructions that leave the 64-bit `v` in `$2`, a byte at a time.
fn constant(v: u64) -> String {
    let mut s = String::from("\tmov $31, $2\n");
    for i in (0..8).rev() {
        s += &format!("\tsll $2, 8, $2\n\tbis $2, {}, $2\n", (v >> (8 * i)) & 0xff);
    }
    s
}

fn run(cs: &str, cpu: &str, body: &str) -> Result<Report, String> {
    let src = format!("\t.text\n\t.globl _start\n_start:\n{body}\tmov $31, $16\n\tcall_pal 0\n");
    let p =
        alpha_isa::asm::assemble_at(&src, "tour.s", 0x20000, None).map_err(|e| e.to_string())?;
    let c = chipset::by_name(cs).map_err(|e| e.0)?;
    let m = alpha_isa::model_by_name(cpu).ok_or("model missing")?;
    let b = Bare::new(c, m, &Options::default(), &p.text).map_err(|e| e.0)?;
    Ok(b.run(Some(100_000)))
}

/// `outb(b, port)` as the chipset's Linux helper does it.
fn outb(cs: &str, b: u8, port: u64, insbl: bool) -> Result<(String, u64), String> {
    let c = chipset::by_name(cs).map_err(|e| e.0)?;
    let (window, store) = match cs {
        "pyxis" => (WindowKind::BwxIo, "stb"),
        "jensen" => (WindowKind::LocalIo, "stl"),
        _ => (WindowKind::SparseIo, "stl"),
    };
    let e = chipset::encode(c, window, port, 1).map_err(|e| e.0)?;
    let mut s = constant(e.phys);
    s += &format!("\tlda $4, {b}($31)\n\tlda $5, {port}($31)\n");
    if insbl && window == WindowKind::SparseIo {
        s += "\tinsbl $4, $5, $4\n";
    }
    s += &format!("\t{store} $4, 0($2)\n\tmb\n");
    Ok((s, e.phys))
}

pub fn demo_chipsets() -> Result<(), String> {
    println!(
        "== Alpha 5: the same outb(0x{:x}, 'A') on four chipsets ==",
        uart_port("cia")?
    );
    println!("  An EV4 cannot put a byte on the bus: sparse space encodes length and lane");
    println!("  in the address and software puts the byte in its lane (INSBL). Pyxis adds a");
    println!("  byte window for BWX CPUs; the Jensen has its own local I/O path.");
    for (cs, cpu, how) in [
        (
            "apecs",
            "ev4",
            "apecs_iowrite8: insbl, stl to (port<<5)+APECS_IO",
        ),
        ("cia", "ev5", "cia_iowrite8: insbl, stl to (port<<5)+CIA_IO"),
        ("pyxis", "ev56", "cia_bwx outb: stb to CIA_BW_IO+port"),
        (
            "jensen",
            "ev4",
            "jensen_local_outb: stl to (port<<9)+EISA_VL82C106",
        ),
    ] {
        let (body, phys) = outb(cs, b'A', uart_port(cs)?, true)?;
        let r = run(cs, cpu, &body)?;
        let t = r.io.first().ok_or("no bus transaction")?;
        println!(
            "  {cs:<6} ({cpu:<4}) phys 0x{phys:<12x} {:<9} bus 0x{:x} lane {} data 0x{:x}  console {:?}",
            t.window.name(),
            t.bus,
            t.lane,
            t.data,
            String::from_utf8_lossy(&r.console)
        );
        println!("                as Linux's {how}");
    }
    let lcr = uart_port("cia")? + UART_LCR;
    println!("  Without INSBL: outb(0x83, 0x{lcr:x}) (the UART's LCR, lane 3) on CIA:");
    for insbl in [true, false] {
        let (body, _) = outb("cia", 0x83, lcr, insbl)?;
        let r = run("cia", "ev5", &body)?;
        let t = r.io.first().ok_or("no bus transaction")?;
        let finding = r.findings.first().map_or("no finding".to_string(), |f| {
            format!("finding {}", f.kind.name())
        });
        println!(
            "    {} INSBL: the device got 0x{:02x} in lane {}  ({finding})",
            if insbl { "with   " } else { "without" },
            t.data,
            t.lane
        );
    }
    println!("  (subword alpha io encode/decode; subword alpha machine --trace-io)");
    println!();
    Ok(())
}
