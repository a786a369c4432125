//! How fast `alpha explore` runs guest code, next to a plain run.
//!
//! Run with `cargo bench -p alpha-emu --bench explore`. It builds
//! `tests/c/explore/adjacent_chars.c` for ev4 with the explorer test
//! programs' flags three times, `-DITERS=200` (the test program),
//! `-DITERS=5000` (a two-thread race of about 10^5 guest instructions) and
//! `-DITERS=200000` (about 4·10^6: long enough that a plain run reaches the
//! interpreter's steady state instead of being mostly decoding), and for
//! each prints, in one run:
//!
//! - **plain**: the program run by `Process::run` as `alpha run --no-jit
//!   --deterministic` runs it (interpreter only, output discarded), guest
//!   instructions per CPU second of the run itself (loading excluded), and
//!   of the whole (load + run) for reference;
//! - **random** and **pct**: `explore::explore` with `--jobs 1`, every
//!   detector on and every finding minimised, as the CLI does: schedules
//!   per CPU second and guest instructions per CPU second;
//! - the two goals: exploring runs guest code at ≥ 30 % of plain (the
//!   run-only figure), and the ~10^5-instruction race explores ≥ 500
//!   schedules per CPU second.
//!
//! Times are process CPU seconds (`getrusage`), since the machines this
//! runs on are shared; the header prints the load average. Without the
//! cross compiler it prints one `SKIPPED` line and exits 0; under
//! `cargo test --benches` (no `--bench`) it runs a few schedules only.

use alpha_emu::explore::{self, Settings, Strategy};
use alpha_emu::linux::{Exit, Host, Options, Process};
use std::path::PathBuf;

struct Quiet;

impl Host for Quiet {
    fn write(&mut self, _fd: u32, _bytes: &[u8]) {}
    fn diag(&mut self, _line: &str) {}
}

/// Process CPU time in seconds (all threads).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn build(iters: u32) -> Option<PathBuf> {
    let gcc = testkit::which("alpha-linux-gnu-gcc")?;
    let dir = testkit::workspace_root()
        .join("target")
        .join("explore-bench");
    std::fs::create_dir_all(&dir).expect("create target/explore-bench");
    let out = dir.join(format!("adjacent_chars_{iters}_ev4"));
    let src = testkit::explore_source_dir().join("adjacent_chars.c");
    let o = std::process::Command::new(gcc)
        .args(testkit::EXPLORE_CFLAGS)
        .arg("-mcpu=ev4")
        .arg(format!("-DITERS={iters}"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run alpha-linux-gnu-gcc");
    assert!(
        o.status.success(),
        "building {}: {}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    Some(out)
}

fn opts(path: &std::path::Path) -> Options {
    let mut o = Options::new(
        alpha_isa::model_by_name("ev4").expect("ev4"),
        vec![path.display().to_string()],
    );
    o.jit = None;
    o.deterministic = true;
    o
}

/// (guest insns per CPU second of the run only, of load + run, insns per run).
fn plain(path: &std::path::Path, elf: &[u8], runs: usize) -> (f64, f64, u64) {
    let (mut run_cpu, mut all_cpu, mut insns) = (0.0, 0.0, 0);
    for _ in 0..runs {
        let t0 = cpu_seconds();
        let mut p = Process::new(elf, &opts(path)).expect("load");
        let t1 = cpu_seconds();
        let e = p.run(&mut Quiet, None);
        let t2 = cpu_seconds();
        assert_eq!(e, Exit::Exited(0), "plain run");
        run_cpu += t2 - t1;
        all_cpu += t2 - t0;
        insns = p.insns;
    }
    let total = (insns * runs as u64) as f64;
    (total / run_cpu, total / all_cpu, insns)
}

/// (schedules per CPU second, guest insns per CPU second, findings).
fn explore_rate(
    path: &std::path::Path,
    elf: &[u8],
    strategy: Strategy,
    schedules: u64,
) -> (f64, f64, usize) {
    let mut s = Settings::new(opts(path));
    s.strategy = strategy;
    s.schedules = schedules;
    let t0 = cpu_seconds();
    let rep = explore::explore(elf, &s, &|_| {}).expect("explore");
    let cpu = cpu_seconds() - t0;
    (
        rep.schedules_run as f64 / cpu,
        rep.insns as f64 / cpu,
        rep.findings.len(),
    )
}

fn main() {
    let bench_mode = std::env::args().any(|a| a == "--bench");
    let programs: Vec<(u32, PathBuf)> = match [200, 5000, 200_000]
        .into_iter()
        .map(|i| build(i).map(|p| (i, p)))
        .collect::<Option<Vec<_>>>()
    {
        Some(v) => v,
        None => {
            println!("SKIPPED explore bench: alpha-linux-gnu-gcc not found; nothing was measured");
            return;
        }
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "alpha explore vs plain run, adjacent_chars.c on ev4, --jobs 1, CPU seconds; load average {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    println!(
        "{:<12} {:>9} {:<8} {:>10} {:>12} {:>14} {:>9}",
        "program", "insns", "strategy", "sched/s", "M insns/s", "plain M/s", "× plain"
    );
    // docs/benchmarks.md's table (`.ci/bench-docs explore …`): the
    // 10^5-instruction race and the steady state, as `--bench` runs them.
    let mut table = Vec::new();
    for (iters, path) in &programs {
        let elf = std::fs::read(path).expect("read program");
        let (runs, schedules) = match (bench_mode, *iters) {
            (false, 200_000) => (1, 1),
            (false, _) => (1, 4),
            (true, 200) => (200, 1000),
            (true, 5000) => (50, 300),
            (true, _) => (5, 10),
        };
        let (plain_run, plain_all, insns) = plain(path, &elf, runs);
        println!(
            "{:<12} {:>9} {:<8} {:>10} {:>12} {:>14.1} {:>9}",
            format!("ITERS={iters}"),
            insns,
            "plain",
            "",
            "",
            plain_run / 1e6,
            format!("(load+run {:.1})", plain_all / 1e6)
        );
        for st in [Strategy::Random, Strategy::Pct] {
            // A random walk stops at every one of the long program's ~10^6
            // scheduling points: a few schedules are enough to time it.
            let schedules = match st {
                Strategy::Random if *iters == 200_000 => schedules.min(3),
                _ => schedules,
            };
            let (sps, ips, found) = explore_rate(path, &elf, st, schedules);
            println!(
                "{:<12} {:>9} {:<8} {:>10.0} {:>12.1} {:>14.1} {:>8.0}%   ({found} finding(s))",
                format!("ITERS={iters}"),
                insns,
                st.name(),
                sps,
                ips / 1e6,
                plain_run / 1e6,
                100.0 * ips / plain_run
            );
            let what = match iters {
                5000 => Some("`-DITERS=5000` (10⁵-instruction race)"),
                200_000 => Some("`-DITERS=200000` (steady state)"),
                _ => None,
            };
            if let Some(what) = what {
                table.push(format!(
                    "| {what} | {}, {schedules} | {sps:.0} | {:.2} |",
                    st.name(),
                    ips / plain_run
                ));
            }
            if *iters == 5000 {
                println!(
                    "    goals: {:.0}% of plain (goal ≥ 30%: {}), {:.0} schedules/s (goal ≥ 500: {})",
                    100.0 * ips / plain_run,
                    if ips / plain_run >= 0.3 { "met" } else { "not met" },
                    sps,
                    if sps >= 500.0 { "met" } else { "not met" }
                );
            }
            if *iters == 200_000 {
                println!(
                    "    goal against the interpreter's steady state: {:.0}% of plain (goal ≥ 30%: {})",
                    100.0 * ips / plain_run,
                    if ips / plain_run >= 0.3 { "met" } else { "not met" }
                );
            }
        }
    }
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let load_end = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let first = |l: &str| l.split_whitespace().next().unwrap_or("?").to_string();
    println!();
    println!("<!-- bench:explore -->");
    println!(
        "{date}, load average {} at the start and {} at the end{}.",
        first(&load),
        first(&load_end),
        if bench_mode {
            ""
        } else {
            " (a test run: too few schedules to time)"
        }
    );
    println!();
    println!("| program (`adjacent_chars.c`, ev4) | strategy | schedules / CPU s | × plain |");
    println!("| --- | --- | ---: | ---: |");
    for row in &table {
        println!("{row}");
    }
    println!("<!-- /bench:explore -->");
}
