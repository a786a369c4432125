//! Threads as Linux allows them: the C programs in
//! `crates/subword/tests/c/threads` run under `subword alpha run` and under
//! `qemu-alpha`, whose stdout and exit status must agree — 5,000 threads
//! created at once and joined, the Benchmarks Game's threadring (503
//! threads passing a token; C with POSIX semaphores, C++ with
//! `std::mutex`/`std::condition_variable`), and a ping-pong beside 1,000
//! blocked threads. Beyond what guest memory allows, `pthread_create`
//! fails with EAGAIN and the program goes on (subword only: qemu-alpha has
//! no memory cap). Every run is bounded by a watchdog.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// Generous: 5,000 threads take a few seconds on a loaded 2-core machine.
const LIMIT: Duration = Duration::from_secs(240);

struct Bins {
    many: PathBuf,
    ring_c: PathBuf,
    ring_cc: Option<PathBuf>,
    pingpong: PathBuf,
}

fn src(name: &str) -> String {
    let p = testkit::workspace_root()
        .join("crates/subword/tests/c/threads")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const STATIC: [&str; 3] = ["-static", "-Wl,--no-relax", "-pthread"];

fn bins() -> Option<&'static Bins> {
    static BINS: OnceLock<Option<Bins>> = OnceLock::new();
    BINS.get_or_init(|| {
        let gcc = testkit::alpha_gcc("alpha_run_threads")?;
        let dir = testkit::scratch_dir("alpha_run_threads");
        let c = |name: &str, file: &str| testkit::compile_c(&gcc, &dir, name, &src(file), &STATIC);
        let ring_cc = testkit::require_tool(
            "alpha_run_threads (C++ threadring)",
            "alpha-linux-gnu-g++",
            "g++-alpha-linux-gnu",
        )
        .map(|gxx| compile_cc(&gxx, &dir));
        Some(Bins {
            many: c("many", "many.c"),
            ring_c: c("threadring", "threadring.c"),
            ring_cc,
            pingpong: c("pingpong", "pingpong.c"),
        })
    })
    .as_ref()
}

fn compile_cc(gxx: &Path, dir: &Path) -> PathBuf {
    let source = dir.join("threadring.cc");
    std::fs::write(&source, src("threadring.cc")).expect("write threadring.cc");
    let out = dir.join("threadring-cc");
    let st = Command::new(gxx)
        .arg("-O2")
        .args(STATIC)
        .arg(&source)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run g++");
    assert!(st.success(), "g++ threadring.cc");
    out
}

fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null());
    let what = format!("{c:?}");
    testkit::watchdog::output(&what, c, LIMIT)
}

fn subword(bin: &Path, args: &[&str], extra: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run"]).args(extra).arg(bin).args(args);
    run(c)
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run `bin args` under subword and qemu-alpha: same stdout and status;
/// returns subword's stdout.
fn same_as_qemu(bin: &Path, args: &[&str]) -> String {
    let sw = subword(bin, args, &[]);
    let what = format!("{} {args:?}", bin.display());
    assert_eq!(
        sw.status.code(),
        Some(0),
        "subword {what}\nstderr: {}",
        String::from_utf8_lossy(&sw.stderr)
    );
    if let Some(q) = testkit::require_tool("alpha_run_threads", "qemu-alpha", "qemu-user") {
        let mut c = Command::new(q);
        c.arg(bin).args(args);
        let qo = run(c);
        assert_eq!(text(&sw), text(&qo), "{what}: subword vs qemu-alpha");
        assert_eq!(sw.status.code(), qo.status.code(), "{what}");
    }
    text(&sw)
}

#[test]
fn five_thousand_threads_are_created_and_joined_as_under_qemu() {
    let Some(b) = bins() else { return };
    let out = same_as_qemu(&b.many, &["5000"]);
    // Well past the fixed cap of 255 threads subword once had.
    assert!(out.starts_with("5000 threads, sum "), "{out}");
}

#[test]
fn threadring_in_c_hands_the_token_around_503_threads_as_under_qemu() {
    let Some(b) = bins() else { return };
    // 10,000 hand-offs: 10000 mod 503 = 443, so thread 444 ends it.
    assert_eq!(same_as_qemu(&b.ring_c, &["10000"]), "444\n");
    assert_eq!(same_as_qemu(&b.ring_c, &["502"]), "503\n");
}

#[test]
fn threadring_in_cpp_hands_the_token_around_503_threads_as_under_qemu() {
    let Some(b) = bins() else { return };
    let Some(cc) = &b.ring_cc else { return };
    assert_eq!(same_as_qemu(cc, &["10000"]), "444\n");
    assert_eq!(same_as_qemu(cc, &["0"]), "1\n");
}

#[test]
fn ping_pong_beside_a_thousand_blocked_threads_finishes_as_under_qemu() {
    let Some(b) = bins() else { return };
    assert_eq!(
        same_as_qemu(&b.pingpong, &["2000", "1000"]),
        "2000 rounds beside 1000 blocked threads\n"
    );
}

#[test]
fn a_thread_beyond_guest_memory_is_eagain_and_the_program_goes_on() {
    let Some(b) = bins() else { return };
    // Each thread's 8 MiB stack is guest memory: 1 GiB holds about 120.
    let o = subword(&b.many, &["5000"], &["--max-memory", "1GiB"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let mut lines = out.lines();
    let first = lines.next().unwrap_or_default();
    let made: usize = first
        .strip_prefix("create ")
        .and_then(|r| r.strip_suffix(": Resource temporarily unavailable"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("expected an EAGAIN line first:\n{out}"));
    assert!(made > 10 && made < 5000, "{out}");
    let last = lines.next().unwrap_or_default();
    assert!(last.starts_with(&format!("{made} threads, sum ")), "{out}");
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("panick"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
