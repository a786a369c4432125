//! `subword alpha bench`: guest instructions per second on embedded integer
//! loops (see `alpha_emu::bench`), interpreted and compiled to host code.

use crate::{BenchArgs, CmdResult, Failure, Outcome};
use alpha_emu::bench::{self, Measurement};

pub fn run(a: BenchArgs) -> CmdResult {
    let model = super::run::model(&a.cpu.cpu)?;
    let load_before = super::bench_doc::load_average();
    let mut rows = Vec::new();
    let build = if cfg!(debug_assertions) {
        "debug build: expect far less than a release build"
    } else {
        "release build"
    };
    println!(
        "subword alpha bench: {} guest instructions per loop on {} ({build})",
        a.insns, model.name
    );
    println!(
        "  {:<17} {:>12} {:>12}  (M guest instructions per CPU second)",
        "loop", "interpreted", "compiled"
    );
    let mut totals = [(0u64, 0f64); 2];
    for l in bench::LOOPS {
        let mut rates = Vec::new();
        for (jit, total) in [false, true].into_iter().zip(totals.iter_mut()) {
            match bench::run(l, model, a.insns, jit).map_err(Failure)? {
                Some(m) => {
                    total.0 += m.insns;
                    total.1 += seconds(&m);
                    rates.push(format!("{:>12.1}", m.per_second() / 1e6));
                }
                None => rates.push(format!("{:>12}", "-")),
            }
        }
        if rates.iter().all(|r| r.trim() == "-") {
            println!(
                "  {:<17} skipped: {} lacks {:?}",
                l.name, model.name, l.needs
            );
        } else {
            println!("  {:<17} {} {}  {}", l.name, rates[0], rates[1], l.what);
            rows.push(format!(
                "| {} | {} | {} | {} |",
                l.name,
                l.what,
                rates[0].trim(),
                rates[1].trim()
            ));
        }
    }
    if totals.iter().all(|t| t.1 > 0.0) {
        println!(
            "  {:<17} {:>12.1} {:>12.1}",
            "overall",
            totals[0].0 as f64 / totals[0].1 / 1e6,
            totals[1].0 as f64 / totals[1].1 / 1e6
        );
    }
    if a.markdown {
        use super::bench_doc;
        println!();
        println!("{}", bench_doc::begin("alpha-bench"));
        println!(
            "{} `--cpu {}`, {} instructions per loop, {build}.",
            bench_doc::stamp(load_before),
            model.name,
            a.insns
        );
        println!();
        println!("| loop | what it runs | interpreted M/s | compiled M/s |");
        println!("| --- | --- | ---: | ---: |");
        for r in &rows {
            println!("{r}");
        }
        println!("{}", bench_doc::end("alpha-bench"));
    }
    Ok(Outcome::Status(0))
}

/// CPU time where the host reports it (the compiler runs in this thread
/// here, so it is included), else wall time.
fn seconds(m: &Measurement) -> f64 {
    m.cpu_seconds.unwrap_or(m.seconds)
}
