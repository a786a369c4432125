//! `subword alpha run` and time: the host's clocks by default, the virtual
//! clock of `--deterministic` (one nanosecond per retired instruction plus
//! the time slept, from 2023-11-14), sleeping, and interval timers firing in
//! both modes. (The timers against qemu-alpha are `tests/c/timers.c` of the
//! differential corpus.)

const SYSROOT: &str = testkit::ALPHA_SYSROOT;
use testkit::{alpha_gcc as gcc, compile_c as build};
mod common;
use common::subword;

/// Prints the clocks, sleeps 2 s (virtual or real), and counts a periodic
/// SIGALRM in a busy loop and SIGVTALRM of a CPU-time itimer.
const CLOCKS: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
static volatile int alrm, vt;
static void on_alrm(int s) { (void)s; alrm++; }
static void on_vt(int s) { (void)s; vt++; }
int main(void) {
    struct timespec a, b, r;
    struct timeval tv;
    clock_gettime(CLOCK_REALTIME, &r);
    gettimeofday(&tv, 0);
    clock_gettime(CLOCK_MONOTONIC, &a);
    struct timespec d = {2, 0};
    nanosleep(&d, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long slept_ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    signal(SIGALRM, on_alrm);
    signal(SIGVTALRM, on_vt);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, 0);
    setitimer(ITIMER_VIRTUAL, &it, 0);
    volatile unsigned long spin = 0;
    while (alrm < 3 || vt < 3) spin++;
    printf("realtime %ld %ld\nslept_ms %ld\nalrm>=3 %d vt>=3 %d\n",
           (long)r.tv_sec, (long)tv.tv_sec, slept_ms, alrm >= 3, vt >= 3);
    return 0;
}
"#;

#[test]
fn deterministic_clock_is_virtual_reproducible_and_sleeps_without_waiting() {
    let Some(gcc) = gcc("deterministic_clock") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_time_deterministic");
    let bin = build(&gcc, &dir, "clocks", CLOCKS, &[]);
    let b = bin.to_str().unwrap();
    let args = ["alpha", "run", "--deterministic", "--sysroot", SYSROOT, b];
    let one = subword(&args);
    let two = subword(&args);
    let out = String::from_utf8_lossy(&one.stdout).to_string();
    assert_eq!(
        one.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&one.stderr)
    );
    // The fixed epoch (1700000000 s) plus a few million instructions.
    assert!(out.starts_with("realtime 1700000000 1700000000\n"), "{out}");
    // Two virtual seconds pass while sleeping (plus the instructions).
    assert!(out.contains("slept_ms 2000\n"), "{out}");
    assert!(out.contains("alrm>=3 1 vt>=3 1\n"), "{out}");
    // Same program, same options: the same output, timers included.
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn default_clock_is_the_hosts_and_a_sleep_really_waits() {
    let Some(gcc) = gcc("host_clock") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_time_host");
    let bin = build(&gcc, &dir, "clocks", CLOCKS, &[]);
    let host_before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let o = subword(&["alpha", "run", "--sysroot", SYSROOT, bin.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut lines = out.lines();
    let rt: Vec<u64> = lines.next().unwrap()["realtime ".len()..]
        .split(' ')
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(rt[0] >= host_before && rt[0] < host_before + 60, "{out}");
    assert!(rt[1] >= rt[0] && rt[1] < rt[0] + 60, "{out}");
    let slept: u64 = lines.next().unwrap()["slept_ms ".len()..].parse().unwrap();
    // Generous: at least the 2 s asked for.
    assert!((2000..60_000).contains(&slept), "{out}");
    assert!(out.contains("alrm>=3 1 vt>=3 1\n"), "{out}");
}

#[test]
fn deterministic_alarm_kills_a_spinning_guest_with_sigalrm() {
    let Some(gcc) = gcc("alarm_kill") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_time_alarm");
    let src = "#include <unistd.h>\nint main(void){ alarm(1); for(;;); }\n";
    let bin = build(&gcc, &dir, "spin", src, &[]);
    let o = subword(&[
        "alpha",
        "run",
        "--deterministic",
        "--sysroot",
        SYSROOT,
        bin.to_str().unwrap(),
    ]);
    // SIGALRM's default action: 128 + 14, as a shell reports it.
    assert_eq!(o.status.code(), Some(142));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("subword: SIGALRM: a timer expired"),
        "{err}"
    );
}
