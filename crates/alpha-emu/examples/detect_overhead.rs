//! How fast guest code runs with memory tracing on and every record fed to
//! the detectors, next to plain interpretation (no compiling tier, no
//! tracing) of the same loop. Run: `cargo run --release -p alpha-emu
//! --example detect_overhead [INSNS]` (default 20 million per loop).
//! Each loop runs on two CPUs in turns of 4096 instructions, the trace
//! drained into one `Detectors` after every turn, as an explorer would.

use alpha_emu::bench::LOOPS;
use alpha_emu::detect::{Config, Detectors};
use alpha_emu::memory::Perm;
use alpha_emu::Machine;

const CODE: u64 = 0x10000;
const DATA: u64 = 0x200000;
const TURN: u64 = 4096;

fn thread_cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace()
        .next()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}

fn machine(src: &str, model: &'static alpha_isa::Model, apart: u64) -> Machine {
    let words = alpha_isa::assemble_words(src, CODE).expect("bench loop assembles");
    let mut m = Machine::new(model, 2, None);
    m.set_jit(None);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    m.mem.map_zero(CODE, 0x2000, Perm::RX).unwrap();
    m.mem.poke(CODE, &bytes).unwrap();
    m.mem.map_zero(DATA, 0x30000, Perm::RW).unwrap();
    for (i, c) in m.cpus.iter_mut().enumerate() {
        c.pc = CODE;
        // CPU 1 works `apart` bytes after CPU 0.
        c.r[16] = DATA + apart * i as u64;
    }
    m
}

/// Guest instructions per CPU-second over `insns` instructions.
fn rate(src: &str, model: &'static alpha_isa::Model, insns: u64, apart: u64, detect: bool) -> f64 {
    let mut m = machine(src, model, apart);
    m.mem.set_trace(detect);
    let mut d = Detectors::new(Config { lock_range: 64 });
    let t0 = thread_cpu_s();
    let mut done = 0;
    let mut turn = 0;
    let mut buf = Vec::new();
    let trace_only = std::env::var_os("TRACE_ONLY").is_some();
    while done < insns {
        let c = turn % 2;
        let before = m.cpus[c].icount;
        m.run(c, TURN);
        done += m.cpus[c].icount - before;
        if detect {
            m.mem.swap_trace(&mut buf);
            if !trace_only {
                for rec in &buf {
                    d.access(rec.agent as u32, rec, &m.mem);
                }
            }
        }
        turn += 1;
    }
    let rate = done as f64 / (thread_cpu_s() - t0).max(1e-9);
    assert!(d.findings().len() < 1000);
    rate
}

fn main() {
    let insns: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    let model = alpha_isa::model_by_name("ev56").expect("ev56 model");
    // 8: both CPUs walk one area (every quadword shared, the worst case);
    // 0x10000: each CPU its own area (what most accesses of a program are).
    println!("loop              CPUs' data   plain Minsn/s   detectors Minsn/s   ratio");
    for apart in [8u64, 0x10000] {
        let what = if apart == 8 { "shared" } else { "private" };
        for l in LOOPS {
            let plain = rate(l.src, model, insns, apart, false);
            let det = rate(l.src, model, insns, apart, true);
            println!(
                "{:<17} {:>10} {:>15.1} {:>19.1} {:>6.0}%",
                l.name,
                what,
                plain / 1e6,
                det / 1e6,
                100.0 * det / plain,
            );
        }
    }
}
