//! `subword alpha bench`: guest instructions per second of the interpreter
//! on embedded integer loops (see `alpha_emu::bench`).

use crate::{BenchArgs, CmdResult, Failure, Outcome};
use alpha_emu::bench;

pub fn run(a: BenchArgs) -> CmdResult {
    let model = super::run::model(&a.cpu.cpu)?;
    let build = if cfg!(debug_assertions) {
        "debug build: expect far less than a release build"
    } else {
        "release build"
    };
    println!(
        "subword alpha bench: {} guest instructions per loop on {} ({build})",
        a.insns, model.name
    );
    let mut total_insns = 0u64;
    let mut total_secs = 0f64;
    for l in bench::LOOPS {
        match bench::run(l, model, a.insns).map_err(Failure)? {
            Some(m) => {
                total_insns += m.insns;
                total_secs += m.cpu_seconds.unwrap_or(m.seconds);
                let time = match m.cpu_seconds {
                    Some(c) => format!("{c:.2} s CPU, {:.2} s wall", m.seconds),
                    None => format!("{:.2} s wall", m.seconds),
                };
                println!(
                    "  {:<17} {:>8.1} M insns/s  ({time})  {}",
                    l.name,
                    m.per_second() / 1e6,
                    l.what
                );
            }
            None => println!(
                "  {:<17} skipped: {} lacks {:?}",
                l.name, model.name, l.needs
            ),
        }
    }
    if total_secs > 0.0 {
        println!(
            "  {:<17} {:>8.1} M insns/s",
            "overall",
            total_insns as f64 / total_secs / 1e6
        );
    }
    Ok(Outcome::Status(0))
}
