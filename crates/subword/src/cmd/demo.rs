//! `subword demo`: the built-in tour, the first five minutes of subword.
//! [`alpha_demo`] is the Alpha half: embedded assembly, assembled at run
//! time by subword's own assembler and run by subword's own interpreter —
//! nothing else needs to be installed; then the PTO half
//! (`demo_pto`). Pictures and the example programs go to a directory the
//! tour names and keeps, so the commands it prints still work after it.
//! Every line it prints is at most [`WIDTH`] characters.

use crate::{CmdResult, DemoArgs};
use alpha_emu::linux::{self, CaptureHost, Exit, Options};
use alpha_emu::memory::Perm;
use alpha_emu::{Event, Machine};
use std::path::{Path, PathBuf};

/// The widest line the tour prints.
pub const WIDTH: usize = 100;

/// Where the pictures and programs go without `--dir`.
fn default_dir() -> PathBuf {
    std::env::temp_dir().join("subword-demo")
}

pub fn run(a: DemoArgs) -> CmdResult {
    let dir = a.dir.unwrap_or_else(default_dir);
    std::fs::create_dir_all(&dir).map_err(|e| crate::Failure(format!("{}: {e}", dir.display())))?;
    println!("subword demo: sub-word memory access, executed. Alpha first, then PTO; about five minutes.");
    println!(
        "Alpha: without byte stores (EV4, EV5) storing a byte rewrites the 8 bytes around it, so"
    );
    println!(
        "two threads can lose each other's bytes. PTO: where the rows and nibbles of a tile land."
    );
    println!("Its pictures and example programs go to this directory, and stay after the tour:");
    println!("    {}", dir.display());
    println!();
    alpha_demo(&dir).map_err(crate::Failure)?;
    super::demo_pto::pto_demo(&dir).map_err(crate::Failure)?;
    println!("== Now your own program ==");
    println!(
        "Build it for a pre-BWX Alpha, then explore it (README.md: \"Five minutes with your own"
    );
    println!("program\"; docs/explore.md for everything else):");
    println!(
        "    alpha-linux-gnu-gcc -O2 -g -pthread -static -Wl,--no-relax -mcpu=ev4 prog.c -o prog"
    );
    println!("    subword alpha explore --cpu ev4 ./prog");
    Ok(crate::Outcome::Status(0))
}

/// Prints `text` wrapped to [`WIDTH`]: the first line as is, the others
/// indented like it plus `hang` spaces. A word longer than a line stays whole.
pub fn say_hanging(text: &str, hang: usize) {
    for line in wrap(text, hang) {
        println!("{line}");
    }
}

/// [`say_hanging`] with continuation lines indented like the first.
pub fn say(text: &str) {
    say_hanging(text, 0)
}

/// The lines of [`say_hanging`]: a line that fits is kept as it is (its
/// spacing too); a longer one breaks at the last space that fits.
pub fn wrap(text: &str, hang: usize) -> Vec<String> {
    let indent = text.len() - text.trim_start().len();
    let cont = " ".repeat(indent + hang);
    let mut lines = Vec::new();
    let mut rest = text.trim_end().to_string();
    while rest.chars().count() > WIDTH {
        let limit = rest
            .char_indices()
            .nth(WIDTH)
            .map_or(rest.len(), |(i, _)| i);
        let floor = if lines.is_empty() { indent } else { cont.len() };
        let cut = match rest[..limit].rfind(' ').filter(|&i| i > floor) {
            Some(i) => i,
            // One word longer than a line stays whole.
            None => match rest[limit..].find(' ') {
                Some(i) => limit + i,
                None => break,
            },
        };
        let tail = rest[cut..].trim_start().to_string();
        rest.truncate(cut);
        lines.push(rest.trim_end().to_string());
        if tail.is_empty() {
            return lines;
        }
        rest = format!("{cont}{tail}");
    }
    lines.push(rest);
    lines
}

/// Writes `bytes` to `dir/name` whole: a file another tour is reading is
/// replaced, never seen half written.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
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
        Event::CallPal {
            func: alpha_isa::pal::HALT,
        } => Ok(()),
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
            "  {cpu:<4} {:<12}  quadword 0x{q:016x}  byte 0 = 0x{:02x}  byte 1 = 0x{:02x}{}",
            if first > 0 { "LDQ_U..STQ_U" } else { "STB" },
            b[0],
            b[1],
            if b[1] == 0xbb {
                ""
            } else {
                "  <- CPU 1's 0xbb lost"
            }
        );
    }
    println!();
    Ok(())
}

/// The models the AMASK table shows: one per step in the extensions.
const AMASK_MODELS: [&str; 6] = ["ev4", "ev5", "ev56", "pca56", "ev6", "ev67"];

fn demo_amask() -> Result<(), String> {
    println!("== Alpha 4: how a program asks for BWX: AMASK and IMPLVER ==");
    println!("AMASK clears the bits of the extensions a CPU has (bit 0 BWX, 1 FIX, 2 CIX, 8 MVI, 9 precise");
    println!("traps, 12 prefetch-with-modify); IMPLVER gives the family (0 EV4, 1 EV5, 2 EV6):");
    let src = "
        lda $16, 0x1307($31)
        amask $16, $1
        implver $3
        halt";
    for name in AMASK_MODELS {
        let m = model(name)?;
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
            "  {:<6} {:<8} implver {}  amask(0x1307) = 0x{:04x}  has: {}",
            m.name,
            m.part,
            r[3],
            r[1],
            if names.is_empty() {
                "-".to_string()
            } else {
                names.join(" ")
            }
        );
    }
    println!("  (every model: subword alpha run --cpu help)");
    println!();
    Ok(())
}

/// The Alpha examples of the tour; the explorer's programs and picture go to `dir`.
pub fn alpha_demo(dir: &Path) -> Result<(), String> {
    demo_sigill()?;
    demo_same_memory()?;
    demo_lost_store()?;
    demo_amask()?;
    super::demo_chipset::demo_chipsets()?;
    super::demo_explore::demo_explore(dir)
}

#[cfg(test)]
mod tests {
    use super::{wrap, WIDTH};

    #[test]
    fn wrap_keeps_short_lines_as_they_are_and_breaks_long_ones_at_spaces() {
        let short = "  write-back   thread 1  pc 0x120000198";
        assert_eq!(wrap(short, 4), [short]);
        let long = format!("  {}", ["word"; 60].join(" "));
        let lines = wrap(&long, 4);
        assert!(lines.len() > 1);
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:?}"
        );
        assert!(
            lines[1..].iter().all(|l| l.starts_with("      word")),
            "{lines:?}"
        );
        assert_eq!(
            lines
                .iter()
                .map(|l| l.split_whitespace().count())
                .sum::<usize>(),
            60
        );
        // A word longer than a line stays whole, on a line of its own.
        let word = "p".repeat(150);
        assert_eq!(wrap(&format!("x {word}"), 0), ["x".to_string(), word]);
    }
}
