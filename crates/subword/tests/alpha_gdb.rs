//! `subword alpha run -g PORT` under a real `gdb-multiarch`: connect, break
//! at `main`, single-step, read registers and memory, a write watchpoint on
//! a global, continue to the exit (whose status GDB and subword report);
//! read and access watchpoints stopping at the load and the store.

use std::process::{Command, Stdio};

const PROG: &str = r#"
#include <stdio.h>
int counter;
int add(int a, int b) { return a + b; }
int main(void) {
    for (int i = 0; i < 3; i++) counter = add(counter, i + 1);
    printf("counter %d\n", counter);
    return 7;
}
"#;

#[test]
fn gdb_breaks_at_main_steps_reads_registers_and_memory_watches_and_continues_to_exit() {
    let Some((gdb, bin)) = prepare("gdb_session", "gprog", PROG) else {
        return;
    };
    let (text, g, stdout) = session(
        &gdb,
        &bin,
        &[
            "break main",
            "continue",
            "stepi",
            "info registers pc",
            "print/x $zero",
            "x/1xw main",
            "watch counter",
            "continue",
            "print counter",
            "delete",
            "continue",
        ],
    );
    assert!(text.contains("Breakpoint 1, main () at"), "{text}");
    // One instruction after the breakpoint: pc is main+4.
    assert!(
        text.lines()
            .any(|l| l.starts_with("pc ") && l.contains("<main+4>")),
        "{text}"
    );
    assert!(text.contains("$1 = 0x0"), "r31 reads zero:\n{text}");
    // The first word of main as the ELF holds it (ldah gp,…(t12): 0x27bb….).
    assert!(
        text.lines().any(|l| l.contains("<main>:\t0x27bb")),
        "{text}"
    );
    assert!(text.contains("Hardware watchpoint 2: counter"), "{text}");
    assert!(text.contains("New value = 6"), "{text}");
    assert!(text.contains("exited with code 07"), "{text}");
    assert_eq!(g.code(), Some(7));
    assert_eq!(stdout, "counter 6\n");
}

/// gdb-multiarch and `src` built static with debug information as
/// `name`, or `None` (said plainly) when GDB or the cross compiler is
/// missing. Each test builds in its own scratch directory (named `test`),
/// since a scratch directory starts empty and tests run in parallel.
fn prepare(test: &str, name: &str, src: &str) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let gdb = testkit::require_tool(test, "gdb-multiarch", "gdb-multiarch")?;
    let gcc = testkit::alpha_gcc(test)?;
    let dir = testkit::scratch_dir(test);
    let bin = testkit::compile_c(
        &gcc,
        &dir,
        name,
        src,
        &["-O1", "-g", "-static", "-Wl,--no-relax"],
    );
    Some((gdb, bin))
}

/// Run `bin` under `subword alpha run -g` and a batch `gdb-multiarch`
/// giving it `commands`; GDB's output, subword's exit status and stdout.
fn session(
    gdb: &std::path::Path,
    bin: &std::path::Path,
    commands: &[&str],
) -> (String, std::process::ExitStatus, String) {
    // A free port: bind, read it, release (the stub binds it again).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut guest = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "run", "-g", &port.to_string()])
        .arg(bin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start subword");
    // GDB may come before the stub listens: retry the connection (a
    // readiness wait, not part of the verdict).
    let mut text = String::new();
    for _ in 0..100 {
        let mut cmd = Command::new(gdb);
        cmd.args(["-batch", "-nx"])
            .args(["-ex", "set architecture alpha:ev6"])
            .args(["-ex", &format!("file {}", bin.display())])
            .args(["-ex", &format!("target remote 127.0.0.1:{port}")]);
        for c in commands {
            cmd.args(["-ex", c]);
        }
        let out = cmd.output().expect("run gdb");
        text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        if !text.contains("Connection refused") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let g = guest.wait().expect("subword ends");
    let mut stdout = String::new();
    use std::io::Read;
    guest
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    (text, g, stdout)
}

const WATCHED: &str = r#"
#include <stdio.h>
volatile int limit = 4;
volatile int total;
int main(void) {
    int s = 0;
    for (int i = 0; i < 3; i++) s += i;
    int l = limit;          /* the first load of limit */
    total = 0;              /* a store of total's old value */
    total = s + l;
    printf("total %d\n", total);
    return 0;
}
"#;

#[test]
fn gdb_read_watchpoint_stops_at_the_load_and_access_watchpoint_at_a_same_value_store() {
    let Some((gdb, bin)) = prepare("gdb_rwatch", "wprog", WATCHED) else {
        return;
    };
    let (text, g, stdout) = session(
        &gdb,
        &bin,
        &[
            "break main",
            "continue",
            "rwatch limit",
            "awatch total",
            "continue",
            "print $pc",
            "continue",
            "print $pc",
            "delete",
            "continue",
        ],
    );
    // The stop at the load names the watchpoint and the value it read.
    assert!(
        text.contains("Hardware read watchpoint 2: limit\n\nValue = 4")
            || text.contains("Hardware read watchpoint 2: limit\nValue = 4"),
        "{text}"
    );
    // The store of 0 over 0 stops the access watchpoint (a watch on
    // changes alone would miss it), before any later access.
    assert!(
        text.contains("Hardware access (read/write) watchpoint 3: total\n\nValue = 0")
            || text.contains("Hardware access (read/write) watchpoint 3: total\nValue = 0"),
        "{text}"
    );
    assert!(
        text.contains("10\t    total = s + l;"),
        "stopped after the zero store:\n{text}"
    );
    assert!(text.contains("exited normally"), "{text}");
    assert!(g.success());
    assert_eq!(stdout, "total 7\n");
}

/// A timed wait nobody ends, a sleep and an interval timer: under the stub
/// the guest runs in the same run loop as without it, so the wait times
/// out, the sleeper wakes and the timer's signal is delivered, and the
/// program ends as it does under `alpha run` (the stub's own loop of old
/// reported a deadlock at the timed wait).
const TIMED: &str = r#"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static volatile int alarms;
static void on_alarm(int s) { (void)s; alarms++; }
static void *nap(void *a) { usleep(2000); return a; }
int main(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    pthread_mutex_lock(&m);
    int r = pthread_cond_timedwait(&c, &m, &ts);
    pthread_mutex_unlock(&m);
    signal(SIGALRM, on_alarm);
    struct itimerval it = {{0, 0}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, 0);
    pthread_t t;
    pthread_create(&t, 0, nap, 0);
    pthread_join(t, 0);
    while (!alarms) usleep(100);
    printf("timedwait %s, alarm %d\n", r == ETIMEDOUT ? "ETIMEDOUT" : "other", alarms);
    return 3;
}
"#;

#[test]
fn gdb_runs_timed_waits_sleepers_and_timers_as_alpha_run_does() {
    let Some((gdb, bin)) = prepare("gdb_timed", "timed", TIMED) else {
        return;
    };
    let plain = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "run"])
        .arg(&bin)
        .output()
        .expect("run subword");
    assert_eq!(
        String::from_utf8_lossy(&plain.stdout),
        "timedwait ETIMEDOUT, alarm 1\n"
    );
    assert_eq!(plain.status.code(), Some(3));
    let (text, g, stdout) = session(
        &gdb,
        &bin,
        &["break main", "continue", "delete", "continue"],
    );
    assert!(text.contains("exited with code 03"), "{text}");
    assert_eq!(g.code(), Some(3));
    assert_eq!(stdout, "timedwait ETIMEDOUT, alarm 1\n");
}
