//! `subword demo`: the built-in tour. [`alpha_demo`] is the Alpha half:
//! embedded assembly, assembled at run time by subword's own assembler and
//! run by subword's own interpreter — nothing else needs to be installed.

use crate::CmdResult;
use alpha_emu::linux::{self, CaptureHost, Exit, Options};
use alpha_emu::memory::Perm;
use alpha_emu::{Event, Machine};

pub fn run() -> CmdResult {
    alpha_demo().map_err(crate::Failure)?;
    println!();
    super::demo_pto::pto_demo().map_err(crate::Failure)?;
    Ok(crate::Outcome::Status(0))
}

const CODE: u64 = 0x10000;
const DATA: u64 = 0x100000;

fn model(name: &str) -> Result<&'static alpha_isa::Model, String> {
    alpha_isa::model_by_name(name).ok_or_else(|| format!("model {name} missing"))
}

/// A bare machine with `src` at CODE and 8 KiB of data at DATA.
fn snippet(model_name: &str, ncpus: usize, src: &str) -> Result<Machine, String> {
    let words = alpha_isa::assemble_words(src, CODE).map_err(|e| e.to_string())?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut m = Machine::new(model(model_name)?, ncpus, None);
    m.mem
        .map_zero(CODE, 0x2000, Perm::RX)
        .map_err(|e| e.to_string())?;
    m.mem.poke(CODE, &bytes).map_err(|e| e.to_string())?;
    m.mem
        .map_zero(DATA, 0x2000, Perm::RW)
        .map_err(|e| e.to_string())?;
    for c in &mut m.cpus {
        c.pc = CODE;
    }
    Ok(m)
}

fn halted(ev: Event) -> Result<(), String> {
    match ev {
        Event::CallPal { func: 0 } => Ok(()),
        other => Err(format!("demo snippet stopped with {other:?}")),
    }
}

fn quad(m: &Machine, addr: u64) -> Result<u64, String> {
    let mut b = [0u8; 8];
    m.mem.peek(addr, &mut b).map_err(|e| e.to_string())?;
    Ok(u64::from_le_bytes(b))
}

const BWX_PROGRAM: &str = r#"
    .text
    .globl _start
_start:
    lda   $16, 1($31)
    lda   $17, before
    lda   $18, 17($31)
    lda   $0, 4($31)            # write(1, before, 17)
    call_pal 0x83
    lda   $1, flag
    lda   $2, 0x5a($31)
    stb   $2, 0($1)             # BWX: one byte, neighbours untouched
    lda   $16, 1($31)
    lda   $17, after
    lda   $18, 17($31)
    lda   $0, 4($31)            # write(1, after, 17)
    call_pal 0x83
    clr   $16
    lda   $0, 1($31)            # exit(0)
    call_pal 0x83
    .data
before: .ascii "about to run stb\n"
after:  .ascii "stb ran; exit(0)\n"
flag:   .quad 0
"#;

fn demo_sigill() -> Result<(), String> {
    println!("== Alpha 1: the same BWX byte store on an EV5 and on an EV56 ==");
    println!(
        "One program stores a byte with STB (BWX, opcode 0x0E). The 21164 (EV5) has no BWX, so\n\
         the instruction is illegal there and Linux kills the process with SIGILL; the 21164A\n\
         (EV56) introduced BWX and runs it."
    );
    let elf = alpha_isa::assemble(BWX_PROGRAM, "bwx.s")
        .map_err(|e| e.to_string())?
        .to_elf();
    for name in ["ev5", "ev56"] {
        let m = model(name)?;
        let mut host = CaptureHost::default();
        let exit = linux::run_program(&elf, &Options::new(m, vec!["bwx".into()]), &mut host)?;
        println!("  --cpu {name} ({}): exit status {}", m.part, exit.status());
        for l in String::from_utf8_lossy(&host.stdout).lines() {
            println!("      guest: {}", l.trim());
        }
        if let Exit::Killed { why, .. } = &exit {
            println!("      subword: {why}");
        }
    }
    println!();
    Ok(())
}

/// The Handbook's pre-BWX byte store (§4.6.3), `$16` = address, `$17` = byte.
const PRE_BWX_STORE: &str = "
    ldq_u $1, 0($16)
    insbl $17, $16, $3
    mskbl $1, $16, $1
    or    $1, $3, $1
    stq_u $1, 0($16)
    halt";

fn demo_same_memory() -> Result<(), String> {
    println!("== Alpha 2: the pre-BWX byte store writes the same memory as STB ==");
    println!(
        "Without BWX a byte store is LDQ_U, INSBL, MSKBL, OR, STQ_U: load the whole quadword,\n\
         replace one byte, store all eight back. Run on an EV4 at every offset, it leaves memory\n\
         exactly as STB does on an EV56:"
    );
    let fill = 0x1122_3344_5566_7788u64;
    let mut same = 0;
    for off in 0..8u64 {
        let mut results = Vec::new();
        for (cpu, src) in [("ev4", PRE_BWX_STORE), ("ev56", "stb $17, 0($16)\n halt")] {
            let mut m = snippet(cpu, 1, src)?;
            m.mem
                .poke(DATA, &fill.to_le_bytes())
                .map_err(|e| e.to_string())?;
            m.cpus[0].r[16] = DATA + off;
            m.cpus[0].r[17] = 0xab;
            halted(m.run(0, 100))?;
            results.push(quad(&m, DATA)?);
        }
        let ok = results[0] == results[1];
        same += ok as u32;
        println!(
            "  offset {off}: ev4 sequence 0x{:016x}   ev56 stb 0x{:016x}   {}",
            results[0],
            results[1],
            if ok { "same" } else { "DIFFERENT" }
        );
    }
    println!("  {same}/8 offsets identical.");
    println!();
    if same != 8 {
        return Err("the pre-BWX sequence disagreed with STB".into());
    }
    Ok(())
}

fn demo_lost_store() -> Result<(), String> {
    println!("== Alpha 3: why it matters: two CPUs, two neighbouring bytes, one store lost ==");
    println!(
        "CPU 0 stores byte 0 and CPU 1 stores byte 1 of the same quadword. With the pre-BWX\n\
         sequence, CPU 1's whole store lands between CPU 0's LDQ_U and STQ_U, and CPU 0 writes\n\
         back the old byte 1: CPU 1's store is silently lost. With STB both bytes survive."
    );
    for (cpu, src, first) in [
        ("ev4", PRE_BWX_STORE, 1u64),
        ("ev56", "stb $17, 0($16)\n halt", 0),
    ] {
        let mut m = snippet(cpu, 2, src)?;
        m.cpus[0].r[16] = DATA;
        m.cpus[0].r[17] = 0xaa;
        m.cpus[1].r[16] = DATA + 1;
        m.cpus[1].r[17] = 0xbb;
        // CPU 0 runs its first instruction(s) (the LDQ_U), CPU 1 runs to the
        // end, then CPU 0 finishes.
        if first > 0 {
            let ev = m.run(0, first);
            if ev != Event::BudgetExhausted {
                return Err(format!("unexpected {ev:?}"));
            }
        }
        halted(m.run(1, 100))?;
        halted(m.run(0, 100))?;
        let q = quad(&m, DATA)?;
        let b = q.to_le_bytes();
        println!(
            "  {cpu:<4} {:<28} quadword 0x{q:016x}: byte 0 = 0x{:02x}, byte 1 = 0x{:02x}{}",
            if first > 0 {
                "(LDQ_U..STQ_U interleaved)"
            } else {
                "(STB)"
            },
            b[0],
            b[1],
            if b[1] == 0xbb {
                ""
            } else {
                "   <- CPU 1's 0xbb lost"
            }
        );
    }
    println!();
    Ok(())
}

fn demo_amask() -> Result<(), String> {
    println!("== Alpha 4: AMASK and IMPLVER per CPU model ==");
    println!(
        "AMASK clears the bits of the features a CPU has (bit 0 BWX, 1 FIX, 2 CIX, 8 MVI,\n\
         9 precise traps, 12 prefetch-with-modify), so `amask(1) == 0` means BWX is present;\n\
         IMPLVER gives the family (0 EV4, 1 EV5, 2 EV6). Each line ran `amask`/`implver`:"
    );
    let src = "
        lda $16, 0x1307($31)
        amask $16, $1
        lda $17, 1($31)
        amask $17, $2
        implver $3
        halt";
    for m in alpha_isa::MODELS {
        let mut mach = snippet(m.name, 1, src)?;
        halted(mach.run(0, 100))?;
        let r = &mach.cpus[0].r;
        let present = 0x1307 & !r[1];
        let names: Vec<&str> = [
            (1, "BWX"),
            (2, "FIX"),
            (4, "CIX"),
            (0x100, "MVI"),
            (0x200, "precise-traps"),
            (0x1000, "prefetch-m"),
        ]
        .iter()
        .filter(|(b, _)| present & b != 0)
        .map(|&(_, n)| n)
        .collect();
        println!(
            "  {:<6} {:<8} implver {}  amask(0x1307) = 0x{:04x}  amask(1) = {}  has: {}",
            m.name,
            m.part,
            r[3],
            r[1],
            r[2],
            if names.is_empty() {
                "-".to_string()
            } else {
                names.join(" ")
            }
        );
    }
    println!();
    Ok(())
}

/// The Alpha examples of the tour.
pub fn alpha_demo() -> Result<(), String> {
    demo_sigill()?;
    demo_same_memory()?;
    demo_lost_store()?;
    demo_amask()?;
    super::demo_chipset::demo_chipsets()?;
    super::demo_explore::demo_explore()
}
