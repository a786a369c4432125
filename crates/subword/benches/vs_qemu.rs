//! subword vs qemu-alpha: wall-clock speed of the same whole Alpha programs
//! under both, with a native x86-64 build of the same C source as the
//! physical limit.
//!
//! Run with `cargo bench -p subword --bench vs_qemu [-- [--quick] [FILTER...]]`.
//! A FILTER keeps the rows whose `workload/cpu` name contains it (`lua`,
//! `sort`, `ev4`, `coremark/ev67`); `--quick` times every row once and skips
//! the `--no-jit` runs. Cargo builds the `subword` binary in the bench
//! profile (release settings) before the bench and hands its path over as
//! `CARGO_BIN_EXE_subword`, so no separate `cargo build --release` is needed.
//!
//! The workloads, each built at `-mcpu=ev4` (no BWX) and `-mcpu=ev67`:
//! - `lua`: the Lua 5.5 interpreter (`../shared/workloads/lua/onelua.c`)
//!   running its own test suite in `lua/testes` (`-e_U=true all.lua`); every
//!   runner's stdout must contain the line `final OK !!!` and exit 0 (the
//!   rest of its output reports times and memory, which differ);
//! - `coremark`: EEMBC CoreMark (`../shared/workloads/coremark`, posix port,
//!   `PERFORMANCE_RUN`), run as `coremark 0 0 0x66 3000` — the performance
//!   seeds and 3000 iterations (the posix port takes both from its
//!   arguments); the `Iterations` and CRC lines must agree and name no CRC
//!   error (the timing lines, and the "at least 10 secs" complaint, differ);
//! - `int_loops`, `strings`, `fp_kernel`, `compress` (an LZ77 + Huffman
//!   round trip) and `sort` (qsort and a hand merge sort) from
//!   `benches/workloads/*.c`: the whole stdout must agree.
//!
//! Every guest binary is built dynamic (glibc) with `alpha-linux-gnu-gcc -O2`
//! into `target/tmp/vs_qemu/`, named by a hash of its sources and flags, so
//! a binary is rebuilt only when its source changes; Lua and CoreMark are
//! compiled in place from the shared folder, never copied. Each row runs the
//! binary under `qemu-alpha -cpu CPU -L /usr/alpha-linux-gnu`, under
//! `subword alpha run --cpu CPU --sysroot /usr/alpha-linux-gnu` (by default,
//! hot loops compiled, then with `--no-jit`), and the host build (`gcc -O2`)
//! natively. Every run must agree with qemu's first run, or the bench fails
//! (exit 1). Each time is the best of a few wall-clock runs (fewer for the
//! long workloads); `qemu/subword` is qemu's time over subword's (1.0 = as
//! fast as qemu, higher is better), and the geometric mean of those ratios
//! closes the table. Finally a dynamic glibc hello world is timed (best of
//! 10) for start-up cost, against its 20 ms budget.
//!
//! When the cross compiler, qemu-alpha or the sysroot is absent the bench
//! prints one `SKIPPED` line and exits 0 (under `CI=true` it fails); without
//! `../shared/workloads` the Lua and CoreMark rows are skipped the same way.
//! Under `cargo test --benches` (no `--bench` argument) it only checks that
//! the Lua and CoreMark output checks judge sample outputs right and that
//! the hello world agrees, once.
//!
//! Wall-clock figures depend on machine load: the header prints the date,
//! the machine and the load average, and the footer the load average again.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant, SystemTime};

const SYSROOT: &str = "/usr/alpha-linux-gnu";
const CPUS: &[&str] = &["ev4", "ev67"];
const HELLO_RUNS: usize = 10;
/// The start-up budget of a dynamic hello world under subword.
const HELLO_BUDGET_MS: f64 = 20.0;

/// Where a workload's source lives and how it is built and run.
#[derive(Clone, Copy)]
enum Source {
    /// `benches/workloads/NAME.c`, one file, run without arguments.
    Bench,
    /// The Lua interpreter from `workloads/lua/onelua.c`, running its test
    /// suite.
    Lua,
    /// CoreMark from `workloads/coremark`, posix port.
    CoreMark,
}

struct Workload {
    name: &'static str,
    source: Source,
    /// Best of this many runs (per runner).
    runs: usize,
}

/// Table order.
const WORKLOADS: &[Workload] = &[
    Workload {
        name: "lua",
        source: Source::Lua,
        runs: 1,
    },
    Workload {
        name: "coremark",
        source: Source::CoreMark,
        runs: 2,
    },
    Workload {
        name: "compress",
        source: Source::Bench,
        runs: 2,
    },
    Workload {
        name: "sort",
        source: Source::Bench,
        runs: 2,
    },
    Workload {
        name: "int_loops",
        source: Source::Bench,
        runs: 3,
    },
    Workload {
        name: "strings",
        source: Source::Bench,
        runs: 3,
    },
    Workload {
        name: "fp_kernel",
        source: Source::Bench,
        runs: 3,
    },
];

/// The arguments CoreMark's posix port reads its seeds and iteration count
/// from: the performance-run seeds (0, 0, 0x66) and 3000 iterations.
const COREMARK_ARGS: &[&str] = &["0", "0", "0x66", "3000"];
const COREMARK_FILES: &[&str] = &[
    "core_list_join.c",
    "core_main.c",
    "core_matrix.c",
    "core_state.c",
    "core_util.c",
    "posix/core_portme.c",
];

/// Which compiler a binary is built with.
#[derive(Clone, Copy)]
enum Target<'a> {
    /// `alpha-linux-gnu-gcc -mcpu=CPU`.
    Alpha(&'a str),
    /// The host's `gcc`, for the native column.
    Native,
}

impl Target<'_> {
    fn label(self) -> String {
        match self {
            Target::Alpha(cpu) => cpu.to_string(),
            Target::Native => "native".to_string(),
        }
    }
}

/// One finished run: what must agree between runners, and how long it took.
struct Outcome {
    /// The part of stdout that must agree (all of it, or the lines the
    /// workload's check picks out).
    signature: Vec<u8>,
    status: Option<i32>,
    wall: Duration,
    /// User plus system CPU time of the process (all its threads).
    cpu: Duration,
}

/// The tools and directories every measurement needs.
struct Env {
    alpha_gcc: PathBuf,
    host_gcc: Option<PathBuf>,
    qemu: PathBuf,
    subword: PathBuf,
    bench_src: PathBuf,
    /// `../shared/workloads`, when present.
    shared: Option<PathBuf>,
    out_dir: PathBuf,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench_mode = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick");
    let filters: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    match run(bench_mode, quick, &filters) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("vs_qemu: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn skip(msg: &str) -> Result<(), String> {
    if testkit::in_ci() {
        return Err(format!("{msg} (required under CI)"));
    }
    println!("SKIPPED vs_qemu: {msg}; nothing was measured");
    Ok(())
}

fn run(bench_mode: bool, quick: bool, filters: &[&str]) -> Result<(), String> {
    let gcc = testkit::which("alpha-linux-gnu-gcc");
    let qemu = testkit::which("qemu-alpha");
    let (Some(alpha_gcc), Some(qemu)) = (gcc, qemu) else {
        return skip(
            "alpha-linux-gnu-gcc or qemu-alpha not found \
             (Debian packages gcc-alpha-linux-gnu, qemu-user)",
        );
    };
    if !Path::new(SYSROOT).join("lib").is_dir() {
        return skip(&format!("sysroot {SYSROOT} not found"));
    }
    let shared = testkit::shared_dir().join("workloads");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vs_qemu");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let env = Env {
        alpha_gcc,
        host_gcc: testkit::which("gcc"),
        qemu,
        subword: PathBuf::from(env!("CARGO_BIN_EXE_subword")),
        bench_src: Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("benches")
            .join("workloads"),
        shared: shared.join("lua").is_dir().then_some(shared),
        out_dir,
    };

    let hello = env.build("hello", Source::Bench, Target::Alpha("ev67"))?;
    if !bench_mode {
        // `cargo test --benches`: a quick agreement check, no timing.
        checks_pick_what_must_agree()?;
        let want = time_once(env.qemu_cmd(&hello, "ev67"), "qemu-alpha hello", check_all)?;
        let got = time_once(
            env.subword_cmd(&hello, "ev67", &[]),
            "subword hello",
            check_all,
        )?;
        agree("hello", &want, &got)?;
        println!("vs_qemu: hello agrees (run `cargo bench -p subword --bench vs_qemu` to measure)");
        return Ok(());
    }

    println!(
        "subword vs qemu-alpha, {} UTC; dynamic glibc, alpha-linux-gnu-gcc -O2; \
         best of N wall-clock runs{}",
        utc_now(),
        if quick {
            " (--quick: N = 1, no --no-jit runs)"
        } else {
            ""
        }
    );
    println!("machine: {}", machine());
    println!("load average (1/5/15 min) at start: {}", load_average());
    println!("subword: {}", env.subword.display());
    println!("qemu: {}", first_line(&env.qemu, &["--version"]));
    if env.shared.is_none() {
        if testkit::in_ci() {
            return Err("../shared/workloads not found (required under CI)".into());
        }
        println!("SKIPPED vs_qemu: ../shared/workloads not found, so no Lua and CoreMark rows");
    }
    if env.host_gcc.is_none() {
        println!("(no host gcc: the native column is empty)");
    }
    // docs/benchmarks.md's table, from here to the hello line
    // (`.ci/bench-docs vs-qemu cargo bench -p subword --bench vs_qemu …`).
    println!();
    println!("<!-- bench:vs-qemu -->");
    println!(
        "{} UTC{}, {}, {}, load average {} at the start.",
        utc_now(),
        if quick { ", `--quick`" } else { "" },
        machine(),
        first_line(&env.qemu, &["--version"]),
        load_average()
    );
    println!();
    println!(
        "| workload | cpu | N | qemu s | subword s | qemu/subword | `--no-jit` s | qemu/`--no-jit` | native s |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");

    let mut ratios = Vec::new();
    let mut interp_ratios = Vec::new();
    for w in WORKLOADS {
        if !matches!(w.source, Source::Bench) && env.shared.is_none() {
            continue;
        }
        for &cpu in CPUS {
            let row = format!("{}/{cpu}", w.name);
            if !(filters.is_empty() || filters.iter().any(|f| row.contains(f))) {
                continue;
            }
            let runs = if quick { 1 } else { w.runs };
            let check = w.check();
            let prog = env.build(w.name, w.source, Target::Alpha(cpu))?;
            eprintln!("vs_qemu: {row}: qemu-alpha");
            let q = best_of(
                runs,
                &row,
                || env.guest(w, env.qemu_cmd(&prog, cpu)),
                None,
                check,
            )?;
            eprintln!("vs_qemu: {row}: subword");
            let s = best_of(
                runs,
                &row,
                || env.guest(w, env.subword_cmd(&prog, cpu, &[])),
                Some(&q),
                check,
            )?;
            let i = if quick {
                None
            } else {
                eprintln!("vs_qemu: {row}: subword --no-jit");
                Some(best_of(
                    runs,
                    &row,
                    || env.guest(w, env.subword_cmd(&prog, cpu, &["--no-jit"])),
                    Some(&q),
                    check,
                )?)
            };
            let native = match env.host_gcc {
                Some(_) => {
                    eprintln!("vs_qemu: {row}: native");
                    let exe = env.build(w.name, w.source, Target::Native)?;
                    Some(best_of(
                        runs,
                        &format!("{row} (native)"),
                        || env.guest(w, Command::new(&exe)),
                        Some(&q),
                        check,
                    )?)
                }
                None => None,
            };
            let (qs, ss) = (q.wall.as_secs_f64(), s.wall.as_secs_f64());
            ratios.push(qs / ss);
            let (is, ir) = match &i {
                Some(i) => {
                    let is = i.wall.as_secs_f64();
                    interp_ratios.push(qs / is);
                    (format!("{is:.3}"), format!("{:.3}×", qs / is))
                }
                None => ("–".into(), "–".into()),
            };
            let ns = native.map_or("–".into(), |n| format!("{:.3}", n.wall.as_secs_f64()));
            println!(
                "| {} | {cpu} | {runs} | {qs:.3} | {ss:.3} | {:.3}× | {is} | {ir} | {ns} |",
                w.name,
                qs / ss
            );
        }
    }
    if !ratios.is_empty() {
        let interp = if interp_ratios.is_empty() {
            "–".to_string()
        } else {
            format!("{:.3}×", geomean(&interp_ratios))
        };
        println!(
            "| geometric mean | | | | | {:.3}× | | {interp} | |",
            geomean(&ratios)
        );
    }
    println!();
    println!("(qemu/subword = qemu time / subword time: higher is better, 1.0 = as fast as qemu;");
    println!(" subword compiles hot loops by default, `--no-jit` interprets only;");
    println!(" native = the same C source built with the host's gcc -O2, run directly)");

    let qh = best_of(
        HELLO_RUNS,
        "hello",
        || env.qemu_cmd(&hello, "ev67"),
        None,
        check_all,
    )?;
    let sh = best_of(
        HELLO_RUNS,
        "hello",
        || env.subword_cmd(&hello, "ev67", &[]),
        Some(&qh),
        check_all,
    )?;
    let sms = sh.wall.as_secs_f64() * 1e3;
    println!();
    println!(
        "dynamic glibc hello world start-up, best of {HELLO_RUNS}: subword {sms:.1} ms ({}; \
         {:.1} ms CPU), qemu-alpha {:.1} ms ({:.1} ms CPU)",
        if sms < HELLO_BUDGET_MS {
            format!("under the {HELLO_BUDGET_MS} ms budget")
        } else {
            format!("OVER the {HELLO_BUDGET_MS} ms budget")
        },
        sh.cpu.as_secs_f64() * 1e3,
        qh.wall.as_secs_f64() * 1e3,
        qh.cpu.as_secs_f64() * 1e3
    );
    println!("<!-- /bench:vs-qemu -->");
    println!("load average (1/5/15 min) at end: {}", load_average());
    Ok(())
}

impl Workload {
    /// What of a run's stdout must agree between the runners.
    fn check(&self) -> fn(&[u8]) -> Result<Vec<u8>, String> {
        match self.source {
            Source::Bench => check_all,
            Source::Lua => check_lua,
            Source::CoreMark => check_coremark,
        }
    }
}

/// The whole stdout must agree.
fn check_all(stdout: &[u8]) -> Result<Vec<u8>, String> {
    Ok(stdout.to_vec())
}

/// The Lua test suite passed: its `final OK !!!` line is there (followed
/// only by the interpreter's closing-state message).
fn check_lua(stdout: &[u8]) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(stdout);
    let mut tail = text
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty() && !l.contains("closing state"));
    match tail.next() {
        Some(l) if l.trim() == "final OK !!!" => Ok(b"final OK !!!".to_vec()),
        last => Err(format!(
            "the Lua test suite did not end with `final OK !!!` (last line {last:?})"
        )),
    }
}

/// CoreMark's `Iterations` and CRC lines (its timing lines differ from run
/// to run), and no CRC error among them.
fn check_coremark(stdout: &[u8]) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(stdout);
    let mut sig = String::new();
    for l in text.lines() {
        let crc = l.contains("crc");
        if crc && l.contains("ERROR") {
            return Err(format!("CoreMark reports a CRC error: {l}"));
        }
        if crc || l.starts_with("Iterations ") {
            sig.push_str(l);
            sig.push('\n');
        }
    }
    if !sig.contains("crcfinal") {
        return Err(format!("CoreMark printed no crcfinal line:\n{text}"));
    }
    Ok(sig.into_bytes())
}

/// The Lua and CoreMark checks accept a passing run, ignore what varies
/// between runs and reject a failing one (on outputs shaped as theirs are).
fn checks_pick_what_must_agree() -> Result<(), String> {
    let lua_ok = b"total time: 0.99s (wall time: 3s)\n\nfinal OK !!!\n>>> closing state <<<\n\n";
    let lua_failed = b"testing strings\nstrings.lua:12: assertion failed!\n";
    let cm = |ticks: &str, crcstate: &str| {
        format!(
            "Total ticks      : {ticks}\nIterations/Sec   : 1.0\nIterations       : 3000\n\
             seedcrc          : 0xe9f5\n[0]crclist       : 0xe714\n{crcstate}\n\
             [0]crcfinal      : 0xcc42\nErrors detected\n"
        )
    };
    let cm_a = cm("1000", "[0]crcstate      : 0x8e3a");
    let cm_b = cm("2500", "[0]crcstate      : 0x8e3a");
    let cm_bad = cm("1000", "[0]ERROR! state crc 0x1234 - should be 0x8e3a");
    let ok = check_lua(lua_ok).is_ok()
        && check_lua(lua_failed).is_err()
        && check_coremark(cm_a.as_bytes()) == check_coremark(cm_b.as_bytes())
        && check_coremark(cm_a.as_bytes()).is_ok()
        && check_coremark(cm_bad.as_bytes()).is_err()
        && check_coremark(b"Iterations       : 3000\n").is_err();
    if ok {
        Ok(())
    } else {
        Err("the Lua or CoreMark output check misjudges a sample output".into())
    }
}

impl Env {
    fn qemu_cmd(&self, prog: &Path, cpu: &str) -> Command {
        let mut c = Command::new(&self.qemu);
        c.args(["-cpu", cpu, "-L", SYSROOT]).arg(prog);
        c
    }

    fn subword_cmd(&self, prog: &Path, cpu: &str, extra: &[&str]) -> Command {
        let mut c = Command::new(&self.subword);
        c.args(["alpha", "run", "--cpu", cpu, "--sysroot", SYSROOT])
            .args(extra)
            .arg(prog);
        c
    }

    /// Complete `cmd` (a runner with the program as its last argument) with
    /// the workload's arguments and working directory.
    fn guest(&self, w: &Workload, mut cmd: Command) -> Command {
        match w.source {
            Source::Bench => {}
            Source::Lua => {
                let shared = self.shared.as_deref().unwrap_or(Path::new("."));
                cmd.args(["-e_U=true", "all.lua"])
                    .current_dir(shared.join("lua").join("testes"));
            }
            Source::CoreMark => {
                cmd.args(COREMARK_ARGS);
            }
        }
        cmd
    }

    /// Build workload `name` for `target` into `out_dir`, unless a binary
    /// built from the same sources and flags is already there.
    fn build(&self, name: &str, source: Source, target: Target) -> Result<PathBuf, String> {
        let gcc = match target {
            Target::Alpha(_) => self.alpha_gcc.clone(),
            Target::Native => self
                .host_gcc
                .clone()
                .ok_or("no host gcc for the native build")?,
        };
        let mut flags: Vec<String> = vec!["-O2".into()];
        if let Target::Alpha(cpu) = target {
            flags.push(format!("-mcpu={cpu}"));
        }
        let shared = self.shared.as_deref().unwrap_or(Path::new("."));
        // The files whose contents decide the binary, and the compiler's
        // inputs.
        let (hashed, inputs, libs): (Vec<PathBuf>, Vec<PathBuf>, &[&str]) = match source {
            Source::Bench => {
                let src = self.bench_src.join(format!("{name}.c"));
                (vec![src.clone()], vec![src], &[])
            }
            Source::Lua => {
                let dir = shared.join("lua");
                flags.extend(["-std=c99", "-DLUA_USE_LINUX", "-w"].map(String::from));
                (files_in(&dir)?, vec![dir.join("onelua.c")], &["-lm"])
            }
            Source::CoreMark => {
                let dir = shared.join("coremark");
                flags.push(format!("-I{}", dir.join("posix").display()));
                flags.push(format!("-I{}", dir.display()));
                flags.extend(
                    [
                        "-DFLAGS_STR=\"-O2\"",
                        "-DITERATIONS=3000",
                        "-DPERFORMANCE_RUN=1",
                    ]
                    .map(String::from),
                );
                let mut hashed = files_in(&dir)?;
                hashed.extend(files_in(&dir.join("posix"))?);
                let inputs = COREMARK_FILES.iter().map(|f| dir.join(f)).collect();
                (hashed, inputs, &[])
            }
        };
        let mut h = Fnv::new();
        h.add(gcc.as_os_str().as_encoded_bytes());
        for f in &flags {
            h.add(f.as_bytes());
        }
        for f in &hashed {
            h.add(f.file_name().unwrap_or_default().as_encoded_bytes());
            h.add(&std::fs::read(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?);
        }
        let stem = format!("{name}-{}", target.label());
        let out = self.out_dir.join(format!("{stem}-{:016x}", h.0));
        if out.is_file() {
            return Ok(out);
        }
        eprintln!("vs_qemu: building {stem}");
        // Build under a unique name and rename, so two benches at once never
        // run a half-written binary.
        let tmp = self
            .out_dir
            .join(format!(".{stem}.{}.tmp", std::process::id()));
        let res = Command::new(&gcc)
            .args(&flags)
            .arg("-o")
            .arg(&tmp)
            .args(&inputs)
            .args(libs)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", gcc.display()))?;
        if !res.status.success() {
            return Err(format!(
                "building {stem} failed:\n{}",
                String::from_utf8_lossy(&res.stderr)
            ));
        }
        std::fs::rename(&tmp, &out).map_err(|e| format!("cannot rename {}: {e}", tmp.display()))?;
        // Drop older builds of the same workload and target.
        if let Ok(dir) = std::fs::read_dir(&self.out_dir) {
            for e in dir.flatten() {
                let n = e.file_name();
                let n = n.to_string_lossy();
                if n.starts_with(&format!("{stem}-")) && e.path() != out {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(out)
    }
}

/// The regular files directly in `dir`, sorted.
fn files_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    Ok(v)
}

/// 64-bit FNV-1a, for cache keys (stable across Rust versions, unlike
/// `DefaultHasher`). Each piece is followed by its length so the pieces'
/// boundaries count.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().chain(&(bytes.len() as u64).to_le_bytes()) {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Run `cmd` once, timing the whole process from spawn to exit.
fn time_once(
    mut cmd: Command,
    what: &str,
    check: fn(&[u8]) -> Result<Vec<u8>, String>,
) -> Result<Outcome, String> {
    let cpu_before = children_cpu();
    let start = Instant::now();
    let res = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let wall = start.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    let signature = check(&res.stdout).map_err(|e| {
        format!(
            "{what}: {e}\n  status {:?}, stderr tail: {}",
            res.status.code(),
            tail(&res.stderr)
        )
    })?;
    Ok(Outcome {
        signature,
        status: res.status.code(),
        wall,
        cpu,
    })
}

/// The CPU time (user + system) of every child this process has waited for
/// so far; the bench runs one child at a time, so the difference across a
/// run is that run's CPU time.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The last few hundred bytes of `bytes`, as text.
fn tail(bytes: &[u8]) -> String {
    let from = bytes.len().saturating_sub(400);
    String::from_utf8_lossy(&bytes[from..]).into_owned()
}

/// Best wall-clock time of `n` runs. Every run must agree with `reference`
/// (or, without one, with this runner's first run).
fn best_of(
    n: usize,
    name: &str,
    mut make: impl FnMut() -> Command,
    reference: Option<&Outcome>,
    check: fn(&[u8]) -> Result<Vec<u8>, String>,
) -> Result<Outcome, String> {
    let mut best: Option<Outcome> = None;
    for _ in 0..n {
        let cmd = make();
        let what = format!("{name}: {:?}", cmd.get_program());
        let o = time_once(cmd, &what, check)?;
        if let Some(r) = reference.or(best.as_ref()) {
            agree(&what, r, &o)?;
        }
        if best.as_ref().is_none_or(|b| o.wall < b.wall) {
            best = Some(o);
        }
    }
    best.ok_or_else(|| format!("{name}: no runs"))
}

/// Fail loudly when two runs of the same program differ in what must agree
/// or in exit status.
fn agree(name: &str, want: &Outcome, got: &Outcome) -> Result<(), String> {
    if want.status != got.status {
        return Err(format!(
            "{name}: exit status differs: expected {:?}, got {:?} (output {:?})",
            want.status,
            got.status,
            String::from_utf8_lossy(&got.signature)
        ));
    }
    if want.signature != got.signature {
        return Err(format!(
            "{name}: output differs:\n  expected {:?}\n  got      {:?}",
            String::from_utf8_lossy(&want.signature),
            String::from_utf8_lossy(&got.signature)
        ));
    }
    Ok(())
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// The 1, 5 and 15 minute load averages (the figures are wall-clock).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// CPU count and model.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{cpus} CPUs, {model}")
}

/// The first line `prog ARGS` prints, or "unknown".
fn first_line(prog: &Path, args: &[&str]) -> String {
    Command::new(prog)
        .args(args)
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Days since 1970-01-01 to a proleptic Gregorian date, counting in
    // 400-year eras that start on 1 March.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}
