//! subword vs qemu-alpha: wall-clock speed of the same compute-bound Alpha
//! programs under both (issue 3, "Speed").
//!
//! Run with `cargo bench -p subword --bench vs_qemu [NAME...]` (NAMEs filter
//! the workloads by substring). Cargo builds the `subword` binary in the bench
//! profile (release settings) before the bench and hands its path over as
//! `CARGO_BIN_EXE_subword`, so no separate `cargo build --release` is needed.
//!
//! Each workload in `benches/workloads/*.c` is compiled with
//! `alpha-linux-gnu-gcc -O2 -mcpu=ev67` (dynamic, glibc) and run under
//! `qemu-alpha -cpu ev67 -L /usr/alpha-linux-gnu` and under
//! `subword alpha run --cpu ev67 --sysroot /usr/alpha-linux-gnu`. Every run's
//! stdout and exit status must equal qemu's first run, or the bench fails
//! (exit 1). The table shows the best of 3 wall-clock runs each and
//! `speed = qemu time / subword time` (1.0 = as fast as qemu), for subword
//! as it runs by default (hot loops compiled) and with `--no-jit`
//! (interpreting only). Finally a
//! dynamic glibc hello world is timed (best of 10) for start-up cost.
//!
//! When the cross compiler, qemu-alpha or the sysroot is absent the bench
//! prints one `SKIPPED` line and exits 0. Under `cargo test --benches` (no
//! `--bench` argument) it only checks that the hello world agrees, once.
//!
//! Wall-clock figures depend on machine load: the header prints the load
//! average so a table can be read in context.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const SYSROOT: &str = "/usr/alpha-linux-gnu";
const CPU: &str = "ev67";
const RUNS: usize = 3;
const HELLO_RUNS: usize = 10;

/// Compute-bound workloads, in table order.
const WORKLOADS: &[&str] = &["int_loops", "strings", "fp_kernel"];

/// One finished guest run: what must agree between the two runners, and how
/// long it took.
struct Outcome {
    stdout: Vec<u8>,
    status: Option<i32>,
    wall: Duration,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench_mode = args.iter().any(|a| a == "--bench");
    let filters: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    match run(bench_mode, &filters) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("vs_qemu: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(bench_mode: bool, filters: &[&str]) -> Result<(), String> {
    let gcc = testkit::which("alpha-linux-gnu-gcc");
    let qemu = testkit::which("qemu-alpha");
    let (Some(gcc), Some(qemu)) = (gcc, qemu) else {
        println!(
            "SKIPPED vs_qemu: alpha-linux-gnu-gcc or qemu-alpha not found \
             (Debian packages gcc-alpha-linux-gnu, qemu-user); nothing was measured"
        );
        return Ok(());
    };
    if !Path::new(SYSROOT).join("lib").is_dir() {
        println!("SKIPPED vs_qemu: sysroot {SYSROOT} not found; nothing was measured");
        return Ok(());
    }
    let subword = PathBuf::from(env!("CARGO_BIN_EXE_subword"));
    let src_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join("workloads");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vs_qemu");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

    let qemu_cmd = |prog: &Path| {
        let mut c = Command::new(&qemu);
        c.args(["-cpu", CPU, "-L", SYSROOT]).arg(prog);
        c
    };
    let subword_tier = |prog: &Path, extra: &[&str]| {
        let mut c = Command::new(&subword);
        c.args(["alpha", "run", "--cpu", CPU, "--sysroot", SYSROOT])
            .args(extra)
            .arg(prog);
        c
    };
    let subword_cmd = |prog: &Path| subword_tier(prog, &[]);

    let hello = compile(&gcc, &src_dir, &out_dir, "hello")?;
    if !bench_mode {
        // `cargo test --benches`: a quick agreement check, no timing.
        let want = time_once(qemu_cmd(&hello), "qemu-alpha hello")?;
        let got = time_once(subword_cmd(&hello), "subword hello")?;
        agree("hello", &want, &got)?;
        println!("vs_qemu: hello agrees (run `cargo bench -p subword --bench vs_qemu` to measure)");
        return Ok(());
    }

    println!("subword vs qemu-alpha, -O2 -mcpu=ev67 dynamic glibc; best of {RUNS} wall-clock runs");
    println!("subword: {}", subword.display());
    println!("{}", machine_load());
    println!();
    println!(
        "{:<12} {:>9} {:>11} {:>8}   {:>16} {:>8}",
        "workload", "qemu s", "subword s", "speed", "interpreted s", "speed"
    );
    for name in WORKLOADS
        .iter()
        .filter(|w| filters.is_empty() || filters.iter().any(|f| w.contains(f)))
    {
        let prog = compile(&gcc, &src_dir, &out_dir, name)?;
        let q = best_of(RUNS, name, || qemu_cmd(&prog), None)?;
        let s = best_of(RUNS, name, || subword_cmd(&prog), Some(&q))?;
        let i = best_of(RUNS, name, || subword_tier(&prog, &["--no-jit"]), Some(&q))?;
        let (qs, ss, is) = (
            q.wall.as_secs_f64(),
            s.wall.as_secs_f64(),
            i.wall.as_secs_f64(),
        );
        println!(
            "{name:<12} {qs:>9.3} {ss:>11.3} {:>7.3}x   {is:>16.3} {:>7.3}x",
            qs / ss,
            qs / is
        );
    }
    println!("(speed = qemu time / subword time; higher is better, 1.0 = as fast as qemu;");
    println!(" subword compiles hot loops by default; \"interpreted\" is `--no-jit`)");

    let qh = best_of(HELLO_RUNS, "hello", || qemu_cmd(&hello), None)?;
    let sh = best_of(HELLO_RUNS, "hello", || subword_cmd(&hello), Some(&qh))?;
    println!();
    println!(
        "dynamic glibc hello world, best of {HELLO_RUNS}: subword {:.1} ms, qemu-alpha {:.1} ms",
        sh.wall.as_secs_f64() * 1e3,
        qh.wall.as_secs_f64() * 1e3
    );
    Ok(())
}

/// Compile `src_dir/name.c` to `out_dir/name` as the bench's brief asks.
fn compile(gcc: &Path, src_dir: &Path, out_dir: &Path, name: &str) -> Result<PathBuf, String> {
    let src = src_dir.join(format!("{name}.c"));
    let out = out_dir.join(name);
    let res = Command::new(gcc)
        .args(["-O2", "-mcpu=ev67", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", gcc.display()))?;
    if !res.status.success() {
        return Err(format!(
            "compiling {} failed:\n{}",
            src.display(),
            String::from_utf8_lossy(&res.stderr)
        ));
    }
    Ok(out)
}

/// Run `cmd` once, timing the whole process from spawn to exit.
fn time_once(mut cmd: Command, what: &str) -> Result<Outcome, String> {
    let start = Instant::now();
    let res = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let wall = start.elapsed();
    Ok(Outcome {
        stdout: res.stdout,
        status: res.status.code(),
        wall,
    })
}

/// Best wall-clock time of `n` runs. Every run must agree with `reference`
/// (or, without one, with this runner's first run).
fn best_of(
    n: usize,
    name: &str,
    mut make: impl FnMut() -> Command,
    reference: Option<&Outcome>,
) -> Result<Outcome, String> {
    let mut best: Option<Outcome> = None;
    for _ in 0..n {
        let cmd = make();
        let what = format!("{:?}", cmd.get_program());
        let o = time_once(cmd, &what)?;
        if let Some(r) = reference.or(best.as_ref()) {
            agree(name, r, &o)?;
        }
        if best.as_ref().is_none_or(|b| o.wall < b.wall) {
            best = Some(o);
        }
    }
    best.ok_or_else(|| format!("{name}: no runs"))
}

/// Fail loudly when two runs of the same program differ in stdout or status.
fn agree(name: &str, want: &Outcome, got: &Outcome) -> Result<(), String> {
    if want.status != got.status {
        return Err(format!(
            "{name}: exit status differs: expected {:?}, got {:?} (stdout {:?})",
            want.status,
            got.status,
            String::from_utf8_lossy(&got.stdout)
        ));
    }
    if want.stdout != got.stdout {
        return Err(format!(
            "{name}: stdout differs:\n  expected {:?}\n  got      {:?}",
            String::from_utf8_lossy(&want.stdout),
            String::from_utf8_lossy(&got.stdout)
        ));
    }
    Ok(())
}

/// One line describing how busy the machine is (the figures are wall-clock).
fn machine_load() -> String {
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("machine: {cpus} CPUs, load average (1/5/15 min) {load}")
}
