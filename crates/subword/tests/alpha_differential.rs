//! Differential corpus: real glibc programs under qemu-alpha and under
//! `subword alpha run`.
//!
//! The C programs live in `crates/alpha-emu/tests/c/*.c`. Each one starts
//! with header comments the test reads:
//!
//! - `/* status: N */` — the exit status it must end with;
//! - `/* cflags: ... */` — extra compiler/linker flags (`-mieee`, `-lm`, …);
//! - `/* args (separated by |): a|b c|d */` — command-line arguments;
//! - `/* env: NAME=VALUE */` — one environment variable to set.
//!
//! Every program is compiled with `alpha-linux-gnu-gcc -O2` for
//! `-mcpu=ev4`, `ev56` and `ev67`, dynamic and static (static with
//! `-Wl,--no-relax`, see below), in parallel. Then:
//!
//! 1. **The corpus is proven meaningful** (hard failures): each dynamic
//!    binary under `qemu-alpha -cpu MODEL -L /usr/alpha-linux-gnu` must
//!    print exactly `expected/NAME.out` (or `expected/NAME.MODEL.out` when
//!    the output depends on the model, e.g. AMASK) and exit with its
//!    declared status; each static binary under qemu must do the same.
//!    The expected files were generated from qemu-alpha 7.2 once and
//!    committed; regenerate them with `SUBWORD_BLESS=1`.
//! 2. **subword is compared** with that reference: each binary, dynamic and
//!    static, runs under `subword alpha run --cpu MODEL --sysroot
//!    /usr/alpha-linux-gnu`, and its stdout and exit status are compared
//!    with the expected ones. The test prints `subword: N/M agree` and
//!    lists every disagreement. Each ev67 dynamic binary also runs with
//!    `--jit-threshold 1`, so every loop in it and in glibc is compiled to
//!    host code on its second pass (`dynamic-jit1` cases).
//!
//! **The ratchet.** The Linux personality that runs glibc programs is being
//! built in steps, so for now only the cases listed in
//! `crates/alpha-emu/tests/c/MUST_AGREE` make this test fail when they
//! disagree; the others are reported. A case agreeing that is not listed
//! is printed as a ratchet candidate. Tighten the list as the personality
//! grows; the goal is every case (then the list becomes `*`).
//!
//! **Where qemu-alpha departs from Linux** the kernel's behaviour is
//! committed as `expected/NAME.linux.out`, which subword must match
//! instead of qemu's output:
//!
//! - `fpieee`: (a) 0.0/0.0 compiled with `-mieee` (DIVT/SU) traps and the
//!   kernel's software completion (`arch/alpha/math-emu/math.c` with
//!   `_FP_NANSIGN_D 1` in `arch/alpha/include/asm/sfp-machine.h`) returns
//!   the Alpha canonical quiet NaN, which has its sign bit set (Alpha
//!   Architecture Handbook §4.7.10.3), so glibc prints `-nan` and
//!   `signbit` is 1; qemu-alpha returns the positive default NaN. (b) With
//!   `feenableexcept(FE_DIVBYZERO)`, 1.0/0.0 raises SIGFPE with si_code
//!   FPE_FLTDIV (3) from `alpha_fp_emul`; qemu-alpha reports FPE_FLTINV (7).
//! - `uac`: `osf_setsysinfo(SSI_NVPAIRS, [SSIN_UACPROC, UAC_SIGBUS])` returns
//!   0 and later unaligned accesses raise SIGBUS with BUS_ADRALN
//!   (`arch/alpha/kernel/osf_sys.c`, `traps.c: do_entUnaUser` →
//!   `give_sigbus`); qemu-alpha 7.2 fails the call (-1) and keeps fixing
//!   the accesses up.
//! - `procself`: Linux's `/proc/self/maps` names the brk area `[heap]`
//!   (fs/proc/task_mmu.c), `/proc/self/status` and `/proc/cpuinfo` are the
//!   process's own and an Alpha's (arch/alpha/kernel/setup.c
//!   `show_cpuinfo`), and `/proc/self/maps` cannot be opened for writing
//!   (EACCES); qemu-alpha 7.2 shows no `[heap]`, passes the host's status
//!   and cpuinfo through, and opens maps for writing.
//! - `sys_process`: Linux's `set_robust_list` records the list (0, and
//!   EINVAL for a length other than 24, kernel/futex/syscalls.c); qemu-alpha
//!   7.2 answers ENOSYS for every call.
//!
//! **The relaxed static binary.** Debian's Alpha binutils relax glibc's
//! weak reference to `__ehdr_start` into the constant 0 when linking
//! statically, so glibc never finds `PT_TLS`, never initialises TLS, and
//! the program dies with SIGSEGV in `__ctype_init` on any correct Alpha.
//! All static programs are therefore linked with `-Wl,--no-relax`, and
//! one relaxed static `hello` is kept to check that qemu-alpha and subword
//! both end it with status 139.
//!
//! **Bare programs.** `tests/c/bare/*.c` are freestanding (`-nostdlib
//! -static -ffreestanding`, their own `_start`, only `write` and `exit`
//! through `callsys`): they exercise the CPU (floating point, traps) without
//! the Linux personality and are named `bare/NAME` (expected output in
//! `expected/bare/`).
//!
//! **BWX on ev5.** `charshort` built with `-mcpu=ev56` (byte stores are
//! STB) is also run with `--cpu ev5`, which lacks BWX: SIGILL, status 132.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MODELS: [&str; 3] = ["ev4", "ev56", "ev67"];
const SYSROOT: &str = "/usr/alpha-linux-gnu";
/// Wall-clock limit for one guest run.
const RUN_TIMEOUT: Duration = Duration::from_secs(30);
/// Total wall-clock budget for all subword runs, so a hanging interpreter
/// cannot stall CI: cases not started within it count as disagreeing.
const SUBWORD_BUDGET: Duration = Duration::from_secs(240);

#[derive(Clone, Debug)]
struct Program {
    name: String,
    source: PathBuf,
    status: i32,
    cflags: Vec<String>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// A freestanding program of `tests/c/bare/` (no libc).
    bare: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Link {
    Dynamic,
    Static,
    /// Static without `--no-relax`: the `__ctype_init` crash case.
    StaticRelaxed,
    /// Dynamic, built for a BWX model but run on `ev5`, which lacks BWX.
    BwxOnEv5,
    /// Freestanding static (`tests/c/bare/`): no libc, only write and exit.
    Bare,
    /// Dynamic, run with `--jit-threshold 1`: every loop subword sees
    /// (glibc's and the program's) is compiled on its second pass.
    DynamicJitEager,
}

impl Link {
    fn name(self) -> &'static str {
        match self {
            Link::Dynamic => "dynamic",
            Link::Static => "static",
            Link::StaticRelaxed => "static-relaxed",
            Link::BwxOnEv5 => "bwx-on-ev5",
            Link::Bare => "bare",
            Link::DynamicJitEager => "dynamic-jit1",
        }
    }

    /// Cases that must die by a signal: (status, why).
    fn crash(self) -> Option<(i32, &'static str)> {
        match self {
            Link::StaticRelaxed => Some((139, "SIGSEGV in __ctype_init (relaxed static glibc)")),
            Link::BwxOnEv5 => Some((132, "SIGILL: a BWX instruction on ev5")),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
struct Case {
    prog: usize,
    model: &'static str,
    link: Link,
    binary: PathBuf,
}

impl Case {
    /// The model the binary runs on.
    fn run_model(&self) -> &'static str {
        if self.link == Link::BwxOnEv5 {
            "ev5"
        } else {
            self.model
        }
    }

    fn id(&self, progs: &[Program]) -> String {
        format!(
            "{}/{}/{}",
            progs[self.prog].name,
            self.model,
            self.link.name()
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Outcome {
    stdout: String,
    /// Exit status; 128+N when killed by signal N (as a shell reports it);
    /// -1 when it timed out or could not start.
    status: i32,
    note: String,
}

fn corpus_dir() -> PathBuf {
    testkit::workspace_root().join("crates/alpha-emu/tests/c")
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .take(12)
        .find_map(|l| {
            l.trim()
                .strip_prefix("/* ")?
                .strip_suffix(" */")?
                .strip_prefix(key)
        })
        .map(str::trim)
}

/// The programs of `dir`; bare ones are named `bare/NAME`.
fn load_programs(dir: &Path, bare: bool) -> Vec<Program> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read corpus dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|source| {
            let text = std::fs::read_to_string(&source).expect("read C source");
            let stem = source.file_stem().unwrap().to_string_lossy().into_owned();
            let name = if bare { format!("bare/{stem}") } else { stem };
            let status = header(&text, "status:")
                .unwrap_or_else(|| panic!("{name}.c: missing /* status: N */ header"))
                .parse()
                .unwrap_or_else(|_| panic!("{name}.c: bad status header"));
            let cflags = header(&text, "cflags:")
                .map(|s| s.split_whitespace().map(String::from).collect())
                .unwrap_or_default();
            let args = header(&text, "args (separated by |):")
                .map(|s| s.split('|').map(String::from).collect())
                .unwrap_or_default();
            let env = header(&text, "env:")
                .map(|s| {
                    let (k, v) = s.split_once('=').expect("env header NAME=VALUE");
                    vec![(k.to_string(), v.to_string())]
                })
                .unwrap_or_default();
            Program {
                name,
                source,
                status,
                cflags,
                args,
                env,
                bare,
            }
        })
        .collect()
}

/// Run `jobs` on two worker threads (the machine has two cores).
fn parallel<T: Send, R: Send>(jobs: Vec<T>, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let job = queue.lock().unwrap().pop();
                let Some((i, job)) = job else { break };
                let r = f(&job);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn compile(gcc: &Path, prog: &Program, model: &str, link: Link, out: &Path) -> Result<(), String> {
    let mut cmd = Command::new(gcc);
    cmd.arg("-O2")
        .arg(format!("-mcpu={model}"))
        .arg("-o")
        .arg(out)
        .arg(&prog.source);
    match link {
        Link::Dynamic | Link::BwxOnEv5 | Link::DynamicJitEager => {}
        Link::Bare => {
            cmd.args(["-nostdlib", "-static", "-ffreestanding"]);
        }
        Link::Static => {
            cmd.args(["-static", "-Wl,--no-relax"]);
        }
        Link::StaticRelaxed => {
            cmd.arg("-static");
        }
    }
    cmd.args(&prog.cflags);
    if link == Link::Bare {
        cmd.arg("-lgcc");
    }
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", gcc.display()))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// Run `cmd` with a timeout, capturing stdout; stderr is discarded. The
/// command leads its own process group and a timeout kills the whole group,
/// so processes a guest forked cannot keep the output pipes open.
fn run_capture(mut cmd: Command, timeout: Duration) -> Outcome {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                stdout: String::new(),
                status: -1,
                note: format!("cannot start: {e}"),
            }
        }
    };
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if start.elapsed() > timeout => {
                // SAFETY: kill has no memory preconditions; -pid names the
                // process group the child leads.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    let first_err = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string();
    match status {
        Some(st) => {
            let code = st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0));
            Outcome {
                stdout,
                status: code,
                note: first_err,
            }
        }
        None => Outcome {
            stdout,
            status: -1,
            note: format!("timed out after {timeout:?}"),
        },
    }
}

fn qemu_run(qemu: &Path, case: &Case, prog: &Program) -> Outcome {
    let mut cmd = Command::new(qemu);
    cmd.args(["-cpu", case.run_model(), "-L", SYSROOT])
        .arg(&case.binary)
        .args(&prog.args);
    cmd.envs(prog.env.iter().map(|(k, v)| (k, v)));
    run_capture(cmd, RUN_TIMEOUT)
}

fn subword_run(case: &Case, prog: &Program) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_subword"));
    cmd.args([
        "alpha",
        "run",
        "--cpu",
        case.run_model(),
        "--sysroot",
        SYSROOT,
        "--max-insns",
        "2000000000",
    ]);
    if case.link == Link::DynamicJitEager {
        cmd.args(["--jit-threshold", "1"]);
    }
    cmd.arg(&case.binary).args(&prog.args);
    cmd.envs(prog.env.iter().map(|(k, v)| (k, v)));
    run_capture(cmd, RUN_TIMEOUT)
}

/// The expected stdout of `prog` on `model` as committed (qemu's), and
/// the Linux one where qemu departs from the kernel.
fn expected(prog: &Program, model: &str) -> (Option<String>, Option<String>) {
    let dir = corpus_dir().join("expected");
    let read = |f: String| std::fs::read_to_string(dir.join(f)).ok();
    let qemu =
        read(format!("{}.{model}.out", prog.name)).or_else(|| read(format!("{}.out", prog.name)));
    let linux = read(format!("{}.{model}.linux.out", prog.name))
        .or_else(|| read(format!("{}.linux.out", prog.name)));
    (qemu, linux)
}

/// Ratchet entries: `NAME` (every model and linkage) or `NAME/MODEL/LINK`.
fn must_agree() -> BTreeSet<String> {
    let text = std::fs::read_to_string(corpus_dir().join("MUST_AGREE")).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

fn listed(list: &BTreeSet<String>, id: &str, name: &str) -> bool {
    list.contains("*") || list.contains(id) || list.contains(name)
}

fn describe(o: &Outcome) -> String {
    let first = o.stdout.lines().next().unwrap_or("");
    format!(
        "status {} ({} bytes of stdout, first line {:?}) {}",
        o.status,
        o.stdout.len(),
        first,
        o.note
    )
}

#[test]
fn c_corpus_agrees_under_qemu_and_subword() {
    let test = "c_corpus_agrees_under_qemu_and_subword";
    let Some(gcc) = testkit::require_tool(test, "alpha-linux-gnu-gcc", "gcc-alpha-linux-gnu")
    else {
        return;
    };
    let Some(qemu) = testkit::require_tool(test, "qemu-alpha", "qemu-user") else {
        return;
    };
    if !Path::new(SYSROOT).join("lib/ld-linux.so.2").is_file() {
        assert!(
            !testkit::in_ci(),
            "{test}: {SYSROOT} is required in CI (Debian package libc6.1-dev-alpha-cross)"
        );
        testkit::say(&format!(
            "SKIPPED {test}: {SYSROOT} missing (install libc6.1-dev-alpha-cross)"
        ));
        return;
    }
    let started = Instant::now();
    let mut progs = load_programs(&corpus_dir(), false);
    assert!(
        progs.len() >= 10,
        "corpus went missing: {} programs",
        progs.len()
    );
    progs.extend(load_programs(&corpus_dir().join("bare"), true));
    let scratch = testkit::scratch_dir("alpha_differential");

    // Build every case.
    let mut cases = Vec::new();
    for (i, p) in progs.iter().enumerate() {
        for model in MODELS {
            let links: &[Link] = if p.bare {
                &[Link::Bare]
            } else {
                &[Link::Dynamic, Link::Static]
            };
            let eager: &[Link] = if p.bare || model != "ev67" {
                &[]
            } else {
                &[Link::DynamicJitEager]
            };
            for &link in links.iter().chain(eager) {
                let stem = p.name.replace('/', "-");
                let binary = scratch.join(format!("{stem}-{model}-{}", link.name()));
                cases.push(Case {
                    prog: i,
                    model,
                    link,
                    binary,
                });
            }
        }
    }
    let hello = progs
        .iter()
        .position(|p| p.name == "hello")
        .expect("hello.c in the corpus");
    cases.push(Case {
        prog: hello,
        model: "ev67",
        link: Link::StaticRelaxed,
        binary: scratch.join("hello-ev67-static-relaxed"),
    });
    // The BWX check: the same ev56 binary exits 132 on ev5.
    let charshort = progs
        .iter()
        .position(|p| p.name == "charshort")
        .expect("charshort.c in the corpus");
    cases.push(Case {
        prog: charshort,
        model: "ev56",
        link: Link::BwxOnEv5,
        binary: scratch.join("charshort-ev56-bwx-on-ev5"),
    });
    let built = parallel(cases.clone(), |c| {
        compile(&gcc, &progs[c.prog], c.model, c.link, &c.binary)
    });
    let build_errors: Vec<String> = cases
        .iter()
        .zip(&built)
        .filter_map(|(c, r)| r.as_ref().err().map(|e| format!("{}: {e}", c.id(&progs))))
        .collect();
    assert!(
        build_errors.is_empty(),
        "compile failures:\n{}",
        build_errors.join("\n")
    );
    let build_time = started.elapsed();

    // 1. qemu-alpha against the committed expectations.
    let qemu_out = parallel(cases.clone(), |c| qemu_run(&qemu, c, &progs[c.prog]));
    if std::env::var_os("SUBWORD_BLESS").is_some() {
        bless(&progs, &cases, &qemu_out);
    }
    let mut corpus_errors = Vec::new();
    for (c, q) in cases.iter().zip(&qemu_out) {
        let p = &progs[c.prog];
        if let Some((status, why)) = c.link.crash() {
            if q.status != status {
                corpus_errors.push(format!(
                    "{}: qemu should end with {status} ({why}), got {}",
                    c.id(&progs),
                    describe(q)
                ));
            }
            continue;
        }
        let (want, _) = expected(p, c.model);
        match want {
            None => corpus_errors.push(format!(
                "{}: no expected/{}.out (run with SUBWORD_BLESS=1)",
                c.id(&progs),
                p.name
            )),
            Some(w) if w != q.stdout || q.status != p.status => corpus_errors.push(format!(
                "{}: qemu-alpha gave {} but expected status {} and expected/{}.out",
                c.id(&progs),
                describe(q),
                p.status,
                p.name
            )),
            Some(_) => {}
        }
    }
    for (c, q) in cases.iter().zip(&qemu_out) {
        if let (Link::Dynamic, (_, Some(linux))) = (c.link, expected(&progs[c.prog], c.model)) {
            if linux == q.stdout {
                testkit::say(&format!(
                    "note: {}: qemu-alpha now prints the Linux output; expected/*.linux.out may go",
                    c.id(&progs)
                ));
            }
        }
    }
    assert!(
        corpus_errors.is_empty(),
        "the corpus itself is broken under qemu-alpha:\n{}",
        corpus_errors.join("\n")
    );
    let qemu_time = started.elapsed() - build_time;

    // 2. subword against the reference (Linux behaviour where it is pinned,
    // otherwise qemu's).
    let sub_start = Instant::now();
    let sub_out = parallel(cases.clone(), |c| {
        if sub_start.elapsed() > SUBWORD_BUDGET {
            return Outcome {
                stdout: String::new(),
                status: -1,
                note: "not run: time budget spent".into(),
            };
        }
        subword_run(c, &progs[c.prog])
    });
    let ratchet = must_agree();
    let mut agree = 0;
    let mut disagreements = Vec::new();
    let mut candidates = Vec::new();
    let mut ratchet_failures = Vec::new();
    let mut per_program: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (c, s) in cases.iter().zip(&sub_out) {
        let p = &progs[c.prog];
        let id = c.id(&progs);
        let (want_stdout, want_status) = if let Some((status, _)) = c.link.crash() {
            (None, status)
        } else {
            let (q, linux) = expected(p, c.model);
            (linux.or(q), p.status)
        };
        let stdout_ok = match &want_stdout {
            Some(w) => *w == s.stdout,
            None => true,
        };
        let ok = s.status == want_status && stdout_ok;
        let e = per_program.entry(&p.name).or_default();
        e.1 += 1;
        if ok {
            agree += 1;
            e.0 += 1;
            if !listed(&ratchet, &id, &p.name) {
                candidates.push(id);
            }
        } else {
            let line = format!(
                "DISAGREE {id}: want status {want_status}, subword {}",
                describe(s)
            );
            if listed(&ratchet, &id, &p.name) {
                ratchet_failures.push(line.clone());
            }
            disagreements.push(line);
        }
    }
    let total = cases.len();
    const SHOWN: usize = 24;
    for d in disagreements.iter().take(SHOWN) {
        testkit::say(d);
    }
    if disagreements.len() > SHOWN {
        testkit::say(&format!(
            "... and {} more disagreements",
            disagreements.len() - SHOWN
        ));
    }
    for (name, (a, n)) in &per_program {
        testkit::say(&format!("  {name:<12} {a}/{n}"));
    }
    if !candidates.is_empty() {
        testkit::say(&format!(
            "ratchet candidates (agree, not yet in MUST_AGREE): {}",
            candidates.join(" ")
        ));
    }
    testkit::say(&format!(
        "subword: {agree}/{total} agree (build {:.1}s, qemu {:.1}s, subword {:.1}s)",
        build_time.as_secs_f64(),
        qemu_time.as_secs_f64(),
        sub_start.elapsed().as_secs_f64()
    ));
    println!("subword: {agree}/{total} agree");
    assert!(
        ratchet_failures.is_empty(),
        "cases listed in crates/alpha-emu/tests/c/MUST_AGREE disagree:\n{}",
        ratchet_failures.join("\n")
    );
}

/// Write `expected/NAME.out` from qemu's dynamic runs (or one file per
/// model when the output depends on the model). `.linux.out` files are
/// written by hand and never touched here.
fn bless(progs: &[Program], cases: &[Case], outs: &[Outcome]) {
    let dir = corpus_dir().join("expected");
    std::fs::create_dir_all(&dir).expect("create expected/");
    for (i, p) in progs.iter().enumerate() {
        if let Some(parent) = dir.join(&p.name).parent() {
            std::fs::create_dir_all(parent).expect("create expected/ subdirectory");
        }
        let per_model: Vec<(&str, &Outcome)> = cases
            .iter()
            .zip(outs)
            .filter(|(c, _)| c.prog == i && matches!(c.link, Link::Dynamic | Link::Bare))
            .map(|(c, o)| (c.model, o))
            .collect();
        for m in MODELS {
            let _ = std::fs::remove_file(dir.join(format!("{}.{m}.out", p.name)));
        }
        let same = per_model.windows(2).all(|w| w[0].1.stdout == w[1].1.stdout);
        if same {
            std::fs::write(dir.join(format!("{}.out", p.name)), &per_model[0].1.stdout)
                .expect("write expected");
        } else {
            let _ = std::fs::remove_file(dir.join(format!("{}.out", p.name)));
            for (m, o) in per_model {
                std::fs::write(dir.join(format!("{}.{m}.out", p.name)), &o.stdout)
                    .expect("write expected");
            }
        }
        testkit::say(&format!("blessed {}", p.name));
    }
}
