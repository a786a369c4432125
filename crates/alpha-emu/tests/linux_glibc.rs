//! Real glibc programs (built here by alpha-linux-gnu-gcc) under the Linux
//! personality: the initial stack and auxv as the Alpha kernel builds them
//! (and where qemu-alpha departs from it), dynamic loading through the
//! sysroot, the relaxed-static `__ctype_init` crash, and deterministic threads.

use alpha_emu::linux::{self, CaptureHost, Exit, Options};
use std::path::Path;
use std::process::Command;

const SYSROOT: &str = testkit::ALPHA_SYSROOT;
use testkit::{alpha_gcc as gcc, compile_c as build};

fn run(bin: &Path, model: &str, f: impl FnOnce(&mut Options)) -> (Exit, CaptureHost) {
    let m = alpha_isa::model_by_name(model).unwrap();
    let mut opts = Options::new(m, vec![bin.display().to_string()]);
    opts.sysroot = Some(SYSROOT.into());
    opts.max_insns = Some(200_000_000);
    f(&mut opts);
    let mut host = CaptureHost::default();
    let elf = std::fs::read(bin).unwrap();
    let e = linux::run_program(&elf, &opts, &mut host).unwrap();
    (e, host)
}

const AUXV: &str = r#"
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
int main(int argc, char **argv) {
    char probe;
    printf("l1d %lu ", getauxval(35));
    printf("pagesz %lu hwcap %lu platform %s base-set %d entry-set %d random-set %d execfn-ok %d\n",
           getauxval(AT_PAGESZ), getauxval(AT_HWCAP), (char *)getauxval(AT_PLATFORM),
           getauxval(AT_BASE) != 0, getauxval(AT_ENTRY) != 0, getauxval(AT_RANDOM) != 0,
           strcmp((char *)getauxval(AT_EXECFN), argv[0]) == 0);
    return argc;
}
"#;

#[test]
fn state_auxv_is_the_alpha_kernels_pagesize_hwcap_and_platform() {
    let Some(gcc) = gcc("state_auxv") else { return };
    let dir = testkit::scratch_dir("linux_glibc_auxv");
    let bin = build(&gcc, &dir, "auxv", AUXV, &[]);
    // AT_L1D_CACHESHAPE (35): CSHAPE(size, log2 line, ways) of setup.c:
    // 8 KiB/32 B/direct on EV4, EV5 and PCA56; 64 KiB/64 B/2-way on EV6.
    for (model, hwcap, platform, l1d) in [
        ("ev4", 0, "ev4", 8192 | 0x50 | 1),
        ("ev56", 1, "ev56", 8192 | 0x50 | 1),
        ("ev67", 0x1307, "ev67", 65536 | 0x60 | 2),
        ("pca56", 0x101, "ev56", 8192 | 0x50 | 1),
    ] {
        let m = alpha_isa::model_by_name(model).unwrap();
        assert_eq!(m.amask, hwcap, "{model} AMASK");
        let (e, host) = run(&bin, model, |_| {});
        assert_eq!(e, Exit::Exited(1), "{model}: {:?}", host.diags);
        let out = String::from_utf8_lossy(&host.stdout);
        assert_eq!(
            out.trim(),
            format!("l1d {l1d} pagesz 8192 hwcap {hwcap} platform {platform} base-set 1 entry-set 1 random-set 1 execfn-ok 1"),
            "{model}"
        );
    }
    // Where qemu-alpha departs from the kernel: qemu-alpha 7.2 reports
    // AT_HWCAP 0 and no AT_PLATFORM (getauxval gives NULL, printed
    // "(null)"); Alpha Linux reports the AMASK feature bits (asm/elf.h
    // ELF_HWCAP) and ELF_PLATFORM's model name, and qemu omits the
    // ARCH_DLINFO cache shapes. (Its AT_PAGESZ is 8192 like
    // the kernel's.) If qemu changes, this pin must be revisited.
    if let Some(qemu) = testkit::require_tool("state_auxv", "qemu-alpha", "qemu-user") {
        let out = Command::new(qemu)
            .args(["-cpu", "ev67", "-L", SYSROOT])
            .arg(&bin)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.starts_with("l1d 0 pagesz 8192 hwcap 0 platform (null) "),
            "qemu: {text}"
        );
    }
}

#[test]
fn fault_relaxed_static_glibc_crashes_in_ctype_init_like_qemu() {
    // Debian's Alpha binutils relax glibc's weak reference to
    // `__ehdr_start` into the constant 0 in static links, so glibc never
    // finds PT_TLS, never sets up TLS, and `__ctype_init` loads through a
    // null thread pointer: SIGSEGV on any correct Alpha (qemu-alpha too).
    // Linking with -Wl,--no-relax avoids it.
    let Some(gcc) = gcc("fault_relaxed_static") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_relaxed");
    let src = "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n";
    let relaxed = build(&gcc, &dir, "relaxed", src, &["-static"]);
    let (e, host) = run(&relaxed, "ev67", |_| {});
    assert_eq!(e.status(), 139, "{:?}", host.diags);
    assert!(host.stdout.is_empty());
    let d = host.diags.join("\n");
    assert!(
        d.contains("SIGSEGV") && d.contains("__ctype_init") && d.contains("ldq"),
        "{d}"
    );
    // The crash is recognised and explained in one line after it.
    assert_eq!(host.diags.len(), 2, "{d}");
    assert!(
        host.diags[1].contains("__ehdr_start") && host.diags[1].contains("-Wl,--no-relax"),
        "{d}"
    );
    let fixed = build(&gcc, &dir, "norelax", src, &["-static", "-Wl,--no-relax"]);
    let (e, host) = run(&fixed, "ev67", |_| {});
    assert_eq!(e, Exit::Exited(0), "{:?}", host.diags);
    assert_eq!(host.stdout, b"hello\n");
}

const THREADS: &str = r#"
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static __thread long mine;
static void *work(void *arg) {
    mine = (long)arg;
    for (int i = 0; i < 2000; i++) { pthread_mutex_lock(&mu); counter++; pthread_mutex_unlock(&mu); }
    return (void *)(mine * 10);
}
int main(void) {
    pthread_t t[4];
    long sum = 0;
    for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, work, (void *)(i + 1));
    for (int i = 0; i < 4; i++) { void *r; pthread_join(t[i], &r); sum += (long)r; }
    printf("counter %ld sum %ld\n", counter, sum);
    return 0;
}
"#;

#[test]
fn order_pthreads_join_and_mutex_agree_under_every_quantum() {
    let Some(gcc) = gcc("order_pthreads") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_threads");
    let bin = build(&gcc, &dir, "threads", THREADS, &["-pthread"]);
    for q in [3, 100, 10_000, 1_000_000] {
        let (e, host) = run(&bin, "ev67", |o| {
            o.quantum = Some(q);
            o.strace = true;
        });
        assert_eq!(e, Exit::Exited(0), "quantum {q}: {:?}", host.diags.last());
        let out = String::from_utf8_lossy(&host.stdout);
        assert_eq!(out, "counter 8000 sum 100\n", "quantum {q}");
        let trace = host.diags.join("\n");
        assert!(trace.contains(" clone("), "quantum {q}");
    }
    // Same program, same quantum: the same interleaving (identical trace).
    let trace = |q| {
        let (_, h) = run(&bin, "ev67", |o| {
            o.quantum = Some(q);
            o.strace = true;
        });
        h.diags.join("\n")
    };
    assert_eq!(trace(3), trace(3));
}

#[test]
fn bad_input_dynamic_program_without_sysroot_interpreter_is_one_line() {
    let Some(gcc) = gcc("bad_input_no_sysroot") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_nosysroot");
    let bin = build(&gcc, &dir, "dyn", "int main(void){return 3;}\n", &[]);
    let m = alpha_isa::model_by_name("ev67").unwrap();
    let mut opts = Options::new(m, vec!["dyn".into()]);
    opts.sysroot = Some(dir.join("no-such-root"));
    let elf = std::fs::read(&bin).unwrap();
    match linux::Process::new(&elf, &opts) {
        Ok(_) => panic!("loaded without an interpreter"),
        Err(e) => {
            assert!(!e.contains('\n'), "{e}");
            assert!(e.contains("interpreter"), "{e}");
        }
    }
    let (e, _) = run(&bin, "ev67", |_| {});
    assert_eq!(e, Exit::Exited(3));
}

const PIPE_THREADS: &str = r#"
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static int fds[2];
static void *producer(void *arg) {
    (void)arg;
    for (volatile long i = 0; i < 200000; i++) ;   /* let main block first */
    write(fds[1], "ping", 4);
    close(fds[1]);
    return 0;
}
int main(void) {
    pthread_t t;
    char buf[16];
    pipe(fds);
    pthread_create(&t, 0, producer, 0);
    ssize_t n = read(fds[0], buf, sizeof buf);
    ssize_t m = read(fds[0], buf + 4, sizeof buf - 4);
    pthread_join(t, 0);
    printf("read %zd then %zd: %.4s\n", n, m, buf);
    return 0;
}
"#;

#[test]
fn order_read_of_an_empty_pipe_waits_for_the_writer_thread() {
    let Some(gcc) = gcc("order_pipe_threads") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_pipe");
    let bin = build(&gcc, &dir, "pipe", PIPE_THREADS, &["-pthread"]);
    for q in [50, 10_000] {
        let (e, host) = run(&bin, "ev67", |o| o.quantum = Some(q));
        assert_eq!(e, Exit::Exited(0), "quantum {q}: {:?}", host.diags);
        // The first read waits for "ping"; the second sees end of file.
        assert_eq!(
            String::from_utf8_lossy(&host.stdout),
            "read 4 then 0: ping\n",
            "quantum {q}"
        );
    }
}

const THREAD_KILL: &str = r#"
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile pid_t handled_by, worker_tid;
static volatile int stop;
static void on_usr1(int sig) { (void)sig; handled_by = gettid(); }
static void *worker(void *arg) {
    (void)arg;
    worker_tid = gettid();
    while (!stop) sched_yield();
    return 0;
}
int main(void) {
    signal(SIGUSR1, on_usr1);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    while (!worker_tid) sched_yield();
    pthread_kill(t, SIGUSR1);
    while (!handled_by) sched_yield();
    stop = 1;
    pthread_join(t, 0);
    printf("handled by worker %d, not main %d\n", handled_by == worker_tid, handled_by != getpid());
    return 0;
}
"#;

#[test]
fn order_pthread_kill_runs_the_handler_in_the_target_thread() {
    let Some(gcc) = gcc("order_pthread_kill") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_pthread_kill");
    let bin = build(&gcc, &dir, "tkill", THREAD_KILL, &["-pthread"]);
    let (e, host) = run(&bin, "ev67", |o| o.quantum = Some(1000));
    assert_eq!(e, Exit::Exited(0), "{:?}", host.diags);
    assert_eq!(
        String::from_utf8_lossy(&host.stdout),
        "handled by worker 1, not main 1\n"
    );
}

const SUSPEND: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static volatile int got;
static void on_usr1(int sig) { got = sig; }
int main(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, 0);
    sigset_t block, old, wait;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old);
    kill(getpid(), SIGUSR1);
    printf("before suspend %d\n", got);
    sigemptyset(&wait);
    int r = sigsuspend(&wait);
    sigset_t now;
    sigprocmask(SIG_SETMASK, 0, &now);
    printf("after suspend %d r %d usr1-still-blocked %d\n", got == SIGUSR1, r, sigismember(&now, SIGUSR1));
    return 0;
}
"#;

#[test]
fn signal_sigsuspend_delivers_the_pending_signal_and_restores_the_mask() {
    let Some(gcc) = gcc("signal_sigsuspend") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_sigsuspend");
    let bin = build(&gcc, &dir, "suspend", SUSPEND, &[]);
    let (e, host) = run(&bin, "ev56", |_| {});
    assert_eq!(e, Exit::Exited(0), "{:?}", host.diags);
    assert_eq!(
        String::from_utf8_lossy(&host.stdout),
        "before suspend 0\nafter suspend 1 r -1 usr1-still-blocked 1\n"
    );
}

/// A scheduler of the process's run loop that runs any runnable thread
/// (by a seeded LCG) for 1-16 instructions.
struct Lcg {
    x: u64,
    slices: u64,
}

impl linux::sched::Scheduler for Lcg {
    fn pick(&mut self, p: &mut linux::Process) -> linux::sched::Pick {
        let r = p.runnable();
        assert!(!r.is_empty(), "the loop asks only while a thread can run");
        self.x = self
            .x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.slices += 1;
        linux::sched::Pick::Run(linux::sched::Slice {
            thread: r[(self.x >> 33) as usize % r.len()],
            budget: 1 + (self.x >> 20) % 16,
            points: false,
            passes: 0,
        })
    }

    fn ran(&mut self, _p: &mut linux::Process, _r: &linux::sched::Ran<'_>) -> linux::sched::Flow {
        linux::sched::Flow::Go
    }
}

#[test]
fn order_an_explorer_can_pick_the_thread_for_every_few_instructions() {
    // The scheduler interface: instead of round robin, the run loop asks
    // a scheduler that picks any runnable thread (here by a seeded LCG)
    // and runs it for 1-16 instructions. Every schedule must give the
    // same answer for this correctly synchronised program.
    let Some(gcc) = gcc("order_explorer_hook") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_explorer");
    let bin = build(&gcc, &dir, "threads", THREADS, &["-pthread"]);
    let elf = std::fs::read(&bin).unwrap();
    let m = alpha_isa::model_by_name("ev67").unwrap();
    let mut opts = Options::new(m, vec!["threads".into()]);
    opts.sysroot = Some(SYSROOT.into());
    for seed in [1u64, 2, 3] {
        let mut p = linux::Process::new(&elf, &opts).unwrap();
        let mut host = CaptureHost::default();
        let mut lcg = Lcg { x: seed, slices: 0 };
        let exit = match p.run_with(&mut host, &mut lcg, Some(200_000_000)) {
            linux::sched::Ended::Exit(e) => e,
            linux::sched::Ended::Paused => panic!("the scheduler never pauses"),
        };
        assert_eq!(exit, Exit::Exited(0), "seed {seed}: {:?}", host.diags);
        assert_eq!(
            String::from_utf8_lossy(&host.stdout),
            "counter 8000 sum 100\n"
        );
        assert!(lcg.slices > 1000, "seed {seed}: {}", lcg.slices);
    }
}

const FUTEX_EINTR: &str = r#"
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static int word;
static volatile int handled;
static volatile pid_t worker_tid;
static void on_sig(int sig) { handled += sig; }
static void *worker(void *arg) {
    (void)arg;
    worker_tid = gettid();
    long r = syscall(SYS_futex, &word, FUTEX_WAIT, 0, 0, 0, 0);
    printf("futex %ld handled %d\n", r, handled);
    handled = 0;
    r = syscall(SYS_futex, &word, FUTEX_WAIT, 0, 0, 0, 0);
    printf("futex %ld handled %d word %d\n", r, handled, word);
    return 0;
}
int main(void) {
    struct sigaction sa = { 0 };
    sa.sa_handler = on_sig;
    sigaction(SIGUSR1, &sa, 0);          /* no SA_RESTART: EINTR */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &sa, 0);          /* SA_RESTART: the wait resumes */
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    while (!worker_tid) sched_yield();
    for (int i = 0; i < 50; i++) sched_yield();   /* let it block */
    pthread_kill(t, SIGUSR1);
    while (handled) sched_yield();
    for (int i = 0; i < 50; i++) sched_yield();
    pthread_kill(t, SIGUSR2);
    for (int i = 0; i < 50; i++) sched_yield();
    __atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &word, FUTEX_WAKE, 1, 0, 0, 0);
    pthread_join(t, 0);
    return 0;
}
"#;

#[test]
fn signal_interrupts_a_futex_wait_with_eintr_or_restarts_it_with_sa_restart() {
    let Some(gcc) = gcc("signal_futex_eintr") else {
        return;
    };
    let dir = testkit::scratch_dir("linux_glibc_futex_eintr");
    let bin = build(&gcc, &dir, "eintr", FUTEX_EINTR, &["-pthread"]);
    let (e, host) = run(&bin, "ev67", |o| o.quantum = Some(1000));
    assert_eq!(e, Exit::Exited(0), "{:?}", host.diags);
    // Without SA_RESTART syscall() returns -1 (EINTR) after the handler
    // (SIGUSR1 = 30 on Alpha); with SA_RESTART the wait resumes and ends
    // with the FUTEX_WAKE (0), after the SIGUSR2 (31) handler ran. The
    // same output as qemu-alpha.
    assert_eq!(
        String::from_utf8_lossy(&host.stdout),
        "futex -1 handled 30\nfutex 0 handled 31 word 1\n"
    );
}
