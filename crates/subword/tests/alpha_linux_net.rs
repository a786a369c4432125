//! Sockets, epoll, eventfd and timerfd reach the guest as Linux delivers
//! them: `tests/c/net/net.c` (one probe per argument; every line it prints
//! is independent of ports, pids and timing) is built for ev4, ev56 and
//! ev67, dynamic and static, and each probe's output under `subword alpha
//! run` must equal, line for line, its output under `qemu-alpha`, which
//! hands these calls to the host kernel. Where qemu-alpha is wrong (it
//! drops flag bits it cannot translate) the qemu line is asserted as qemu
//! prints it and the Linux line is expected from subword instead (see
//! [`QEMU_WRONG`]). The timerfd, epoll and eventfd probes also run under
//! `--deterministic` (the virtual clock) and must print the same. TCP uses
//! port 0 and getsockname, AF_UNIX paths and abstract names carry the pid,
//! so parallel runs cannot collide.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const MODELS: [&str; 3] = ["ev4", "ev56", "ev67"];
const SYSROOT: &str = testkit::ALPHA_SYSROOT;

/// A built probe binary.
struct Build {
    model: &'static str,
    dynamic: bool,
    bin: PathBuf,
}

fn builds() -> Option<&'static Vec<Build>> {
    static B: OnceLock<Option<Vec<Build>>> = OnceLock::new();
    B.get_or_init(|| {
        let gcc = testkit::alpha_gcc("alpha_linux_net")?;
        let dir = testkit::scratch_dir("alpha_linux_net");
        let src = std::fs::read_to_string(
            testkit::workspace_root().join("crates/subword/tests/c/net/net.c"),
        )
        .expect("net.c");
        let mut v = Vec::new();
        for m in MODELS {
            for dynamic in [true, false] {
                let cpu = format!("-mcpu={m}");
                let mut flags = vec!["-pthread", cpu.as_str()];
                if !dynamic {
                    flags.extend(["-static", "-Wl,--no-relax"]);
                }
                let name = format!("net-{m}-{}", if dynamic { "dyn" } else { "static" });
                let bin = testkit::compile_c(&gcc, &dir, &name, &src, &flags);
                v.push(Build {
                    model: m,
                    dynamic,
                    bin,
                });
            }
        }
        Some(v)
    })
    .as_ref()
}

fn qemu() -> Option<PathBuf> {
    testkit::require_tool("alpha_linux_net", "qemu-alpha", "qemu-user")
}

/// Run `c` with no stdin under a one-minute watchdog that kills the whole
/// process group (forked guests included): a hang fails the test.
fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null());
    let what = format!("{c:?}");
    testkit::watchdog::output(&what, c, testkit::watchdog::PROBE_LIMIT)
}

fn subword_cmd(b: &Build, extra: &[&str], probe: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--cpu", b.model]).args(extra);
    if b.dynamic {
        c.args(["--sysroot", SYSROOT]);
    }
    c.arg(&b.bin).arg(probe);
    c
}

fn qemu_cmd(q: &Path, b: &Build, probe: &str) -> Command {
    let mut c = Command::new(q);
    c.args(["-cpu", b.model]);
    if b.dynamic {
        c.args(["-L", SYSROOT]);
    }
    c.arg(&b.bin).arg(probe);
    c
}

/// Exit status and stdout, as one text to compare.
fn transcript(o: &Output) -> String {
    use std::os::unix::process::ExitStatusExt;
    let st = o
        .status
        .code()
        .unwrap_or_else(|| 128 + o.status.signal().unwrap_or(0));
    format!("{}exit {st}\n", String::from_utf8_lossy(&o.stdout))
}

/// Lines qemu-alpha gets wrong: (probe, qemu's line, Linux's line).
/// qemu's `target_to_host_bitmask` silently drops bits it has no entry for,
/// so an invalid flag is accepted instead of EINVAL (Linux's
/// `__sys_socket` and `timerfd_create` check `flags & ~VALID`), and its
/// `accept4` translates flags through the fcntl table, where Alpha's
/// SOCK_NONBLOCK (0x40000000, bits/socket_type.h) is not O_NONBLOCK, so
/// the accepted socket stays blocking. Its `recvmmsg` ignores the timeout
/// argument altogether (`do_sendrecvmmsg` is called without it), so it
/// neither stops once the timeout has run out after a message (Linux's
/// `do_recvmmsg`), nor writes back the time left, nor checks the timespec
/// (`__sys_recvmmsg`: EFAULT, then `poll_select_set_timeout`'s EINVAL,
/// before the socket is looked at).
const QEMU_WRONG: &[(&str, &str, &str)] = &[
    ("errors", "socket bad flags: 4", "socket bad flags: EINVAL"),
    (
        "timerfd",
        "timerfd_create bad flags: 6",
        "timerfd_create bad flags: EINVAL",
    ),
    (
        "nonblock_connect",
        "accept4 nonblock 0",
        "accept4 nonblock 1",
    ),
    (
        "partial",
        "recvmmsg of 5, 2 queued, 50 ms timeout, 1 after 200 ms: 5",
        "recvmmsg of 5, 2 queued, 50 ms timeout, 1 after 200 ms: 3",
    ),
    ("partial", "timeout left: 0 50000000", "timeout left: 0 0"),
    (
        "partial",
        "recvmmsg of 5 MSG_DONTWAIT after the timeout: EAGAIN",
        "recvmmsg of 5 MSG_DONTWAIT after the timeout: 2",
    ),
    (
        "partial",
        "recvmmsg MSG_DONTWAIT, tv_nsec 1e9: EAGAIN",
        "recvmmsg MSG_DONTWAIT, tv_nsec 1e9: EINVAL",
    ),
    (
        "partial",
        "recvmmsg MSG_DONTWAIT, unreadable timeout: EAGAIN",
        "recvmmsg MSG_DONTWAIT, unreadable timeout: EFAULT",
    ),
];

/// What Linux prints for `probe`: qemu's transcript with [`QEMU_WRONG`]
/// corrected (each wrong line must be there as qemu prints it).
fn expected(probe: &str, qemu_out: &str, who: &str) -> String {
    let mut text = qemu_out.to_string();
    for (p, wrong, right) in QEMU_WRONG {
        if *p != probe {
            continue;
        }
        let w = format!("{wrong}\n");
        assert!(
            text.contains(&w),
            "{who}: qemu-alpha no longer prints {wrong:?}; drop it from QEMU_WRONG\n{text}"
        );
        text = text.replace(&w, &format!("{right}\n"));
    }
    text
}

/// Run `probe` in every build under qemu-alpha and subword and compare.
fn differential(probe: &str) {
    let Some(bs) = builds() else {
        return;
    };
    let Some(q) = qemu() else {
        return;
    };
    for b in bs {
        let who = format!(
            "{probe} {} {}",
            b.model,
            if b.dynamic { "dyn" } else { "static" }
        );
        let qo = run(qemu_cmd(&q, b, probe));
        let want = expected(probe, &transcript(&qo), &who);
        assert!(
            want.ends_with("exit 0\n"),
            "{who}: qemu-alpha failed\n{want}"
        );
        let so = run(subword_cmd(b, &[], probe));
        assert_eq!(
            transcript(&so),
            want,
            "{who}: subword differs from Linux (qemu-alpha)\nstderr: {}",
            String::from_utf8_lossy(&so.stderr)
        );
    }
}

#[test]
fn tcp_over_ipv4_loopback_echoes_between_guest_threads() {
    differential("tcp4");
}

#[test]
fn tcp_over_ipv6_loopback_echoes_between_guest_threads() {
    differential("tcp6");
}

#[test]
fn unix_stream_socket_on_a_path_connects_and_reports_its_name() {
    differential("unix_stream");
}

#[test]
fn unix_datagrams_keep_boundaries_truncate_and_scatter_into_iovecs() {
    differential("unix_dgram");
}

#[test]
fn socketpair_passes_a_descriptor_with_scm_rights() {
    differential("rights");
}

#[test]
fn socket_options_translate_alpha_numbers_and_rcvtimeo_bounds_a_recv() {
    differential("sockopts");
}

#[test]
fn nonblocking_connect_completes_through_poll_and_refused_is_econnrefused() {
    differential("nonblock_connect");
}

#[test]
fn blocking_send_write_and_writev_on_a_stream_socket_send_everything() {
    differential("bulk");
}

#[test]
fn msg_waitall_receives_everything_or_up_to_shutdown_or_rcvtimeo() {
    differential("waitall");
}

#[test]
fn sendmmsg_and_recvmmsg_move_several_datagrams_with_their_lengths() {
    differential("mmsg");
}

#[test]
fn a_signal_ends_a_part_done_waitall_recv_or_send_with_its_count_and_recvmmsg_waits_for_all() {
    differential("partial");
}

#[test]
fn nested_epoll_reports_the_inner_instances_pipe_and_socket_and_refuses_loops() {
    differential("nested_epoll");
}

#[test]
fn nested_epoll_with_epollet_reports_the_inner_once_per_new_event() {
    differential("nested_epoll_et");
}

#[test]
fn scm_rights_passes_a_timerfd_and_an_epoll_as_the_same_open_files() {
    differential("rights_guest_objects");
}

#[test]
fn scm_rights_passes_a_pipe_with_what_it_buffered() {
    differential("rights_pipe");
}

#[test]
fn epoll_on_a_pipe_is_level_edge_and_oneshot_with_timeouts() {
    differential("epoll_pipe");
}

#[test]
fn epoll_on_a_socket_is_level_edge_and_oneshot_with_timeouts() {
    differential("epoll_socket");
}

#[test]
fn eventfd_counts_wakes_a_blocked_reader_and_has_semaphore_mode() {
    differential("eventfd");
}

#[test]
fn timerfd_expires_periodically_and_absolutely() {
    differential("timerfd");
}

#[test]
fn bad_addresses_are_efault_and_bad_arguments_einval_never_a_crash() {
    differential("errors");
}

/// The timerfd, epoll-timeout and eventfd probes complete under
/// `--deterministic` (timerfd deadlines and epoll timeouts on the virtual
/// clock) with the same output, twice the same.
#[test]
fn timerfd_and_epoll_timeouts_complete_on_the_virtual_clock() {
    let Some(bs) = builds() else {
        return;
    };
    let Some(q) = qemu() else {
        return;
    };
    for probe in ["timerfd", "epoll_pipe", "epoll_socket", "eventfd"] {
        for b in bs.iter().filter(|b| b.model == "ev67") {
            let who = format!("{probe} {} --deterministic", b.model);
            let want = expected(probe, &transcript(&run(qemu_cmd(&q, b, probe))), &who);
            let one = run(subword_cmd(b, &["--deterministic"], probe));
            assert_eq!(transcript(&one), want, "{who}");
            if probe == "timerfd" {
                let two = run(subword_cmd(b, &["--deterministic"], probe));
                assert_eq!(one.stdout, two.stdout, "{who}: not reproducible");
            }
        }
    }
}

/// `--strace` names domains, types, levels and options, and prints
/// addresses as strace does.
#[test]
fn strace_decodes_socket_calls_and_addresses() {
    let Some(bs) = builds() else {
        return;
    };
    let b = bs.iter().find(|b| !b.dynamic).expect("a static build");
    let o = run(subword_cmd(b, &["--strace"], "tcp4"));
    let err = String::from_utf8_lossy(&o.stderr);
    for want in [
        " socket(AF_INET,SOCK_STREAM,0) = 3",
        " setsockopt(3,SOL_SOCKET,SO_REUSEADDR,",
        " bind(3,{sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")},16) = 0",
        " listen(3,4) = 0",
        " setsockopt(4,SOL_TCP,TCP_NODELAY,",
        " shutdown(4,1) = 0",
    ] {
        assert!(err.contains(want), "missing {want:?} in\n{err}");
    }
    assert!(
        err.contains(" connect(4,{sa_family=AF_INET, sin_port=htons("),
        "{err}"
    );
    let o = run(subword_cmd(b, &["--strace"], "tcp6"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            " bind(3,{sa_family=AF_INET6, sin6_port=htons(0), sin6_addr=inet_pton(AF_INET6, \"::1\")},28) = 0"
        ),
        "{err}"
    );
    let o = run(subword_cmd(b, &["--strace"], "unix_dgram"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(" socketpair(AF_UNIX,SOCK_DGRAM,0,"), "{err}");
    assert!(
        err.contains("{sa_family=AF_UNIX, sun_path=@\"subword-a-"),
        "{err}"
    );
}
