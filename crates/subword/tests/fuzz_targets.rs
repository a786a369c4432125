//! Fuzz targets: every parser a command hands a file or an argument to,
//! driven by `proptest` on stable Rust. Each target mutates real inputs
//! (assembled and gcc-built Alpha ELF files, the repository's assembly
//! sources and PTO scenarios) or generates them, calls exactly what the
//! command calls, and checks that
//!
//! - nothing panics (proptest catches the panic and shrinks the input);
//! - nothing hangs: a watchdog aborts the process, printing the input, when
//!   one input runs longer than `SUBWORD_FUZZ_INPUT_SECS` (default 30 s);
//! - nothing allocates without bound: a counting global allocator refuses
//!   an allocation that would take one input past `SUBWORD_FUZZ_HARD_MIB`
//!   (default 1024) of heap, printing the input first (the process then
//!   aborts, as the allocator's failure handler does), and an input that
//!   peaked above `SUBWORD_FUZZ_INPUT_MIB` (default 256) fails and shrinks.
//!
//! A plain `cargo test` runs each target for a few seconds at a fixed seed.
//! `SUBWORD_FUZZ_CASES=N` runs N inputs per target and
//! `SUBWORD_FUZZ_SEED=S` picks another input sequence, so shards with
//! different seeds explore different inputs; `tools/fuzz-long.sh` runs the
//! long campaign that way (docs/fuzzing.md). `SUBWORD_FUZZ_LOG=FILE`
//! appends one line per finished target: name, seed, executions, seconds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

// ---------------------------------------------------------------------------
// The harness: allocation cap, hang watchdog, driver.

/// Bytes live on the heap now, and the most since the current input began.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The heap level an allocation may not take the process past (0: none).
static CAP: AtomicUsize = AtomicUsize::new(0);
/// The input being run (pointer and length; 0 between inputs) and when it
/// started (milliseconds since `epoch()`, plus one; 0 between inputs).
static INPUT_PTR: AtomicUsize = AtomicUsize::new(0);
static INPUT_LEN: AtomicUsize = AtomicUsize::new(0);
static STARTED: AtomicU64 = AtomicU64::new(0);

struct Counting;

/// Writes `bytes` to stderr without allocating (inside the allocator).
fn raw_stderr(bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: writing a valid buffer to fd 2.
        let n = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            return;
        }
        rest = &rest[n as usize..];
    }
}

/// Prints the current input as hex without allocating.
fn dump_input_raw() {
    let (p, n) = (
        INPUT_PTR.load(Ordering::SeqCst),
        INPUT_LEN.load(Ordering::SeqCst),
    );
    if p == 0 {
        return;
    }
    raw_stderr(b"fuzz: the input, in hex:\n");
    // SAFETY: the harness stores a live slice here for as long as the input runs.
    let input = unsafe { std::slice::from_raw_parts(p as *const u8, n.min(1 << 16)) };
    let hex = b"0123456789abcdef";
    for chunk in input.chunks(32) {
        let mut line = [0u8; 65];
        for (i, b) in chunk.iter().enumerate() {
            line[2 * i] = hex[(b >> 4) as usize];
            line[2 * i + 1] = hex[(b & 15) as usize];
        }
        line[2 * chunk.len()] = b'\n';
        raw_stderr(&line[..2 * chunk.len() + 1]);
    }
}

impl Counting {
    fn grow(&self, by: usize) -> bool {
        let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        let cap = CAP.load(Ordering::Relaxed);
        if cap != 0 && now > cap {
            LIVE.fetch_sub(by, Ordering::Relaxed);
            CAP.store(0, Ordering::SeqCst);
            raw_stderr(b"fuzz: an input took the heap past SUBWORD_FUZZ_HARD_MIB\n");
            dump_input_raw();
            return false;
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        true
    }
}

// SAFETY: every call is forwarded to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if !self.grow(l.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(l) };
        if p.is_null() {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if !self.grow(l.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(l) };
        if p.is_null() {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() && !self.grow(new - l.size()) {
            return std::ptr::null_mut();
        }
        let q = unsafe { System.realloc(p, l, new) };
        if q.is_null() {
            if new > l.size() {
                LIVE.fetch_sub(new - l.size(), Ordering::Relaxed);
            }
        } else if new < l.size() {
            LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
        Err(_) => default,
    }
}

fn epoch() -> Instant {
    static E: OnceLock<Instant> = OnceLock::new();
    *E.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64 + 1
}

/// Starts (once) the thread that aborts the process when one input runs
/// longer than `SUBWORD_FUZZ_INPUT_SECS`.
fn watchdog() {
    static STARTED_DOG: OnceLock<()> = OnceLock::new();
    STARTED_DOG.get_or_init(|| {
        let limit = env_u64("SUBWORD_FUZZ_INPUT_SECS", 30) * 1000;
        epoch();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(250));
            let s = STARTED.load(Ordering::SeqCst);
            if s != 0 && now_ms().saturating_sub(s) > limit {
                raw_stderr(b"fuzz: one input ran longer than SUBWORD_FUZZ_INPUT_SECS\n");
                dump_input_raw();
                std::process::abort();
            }
        });
    });
}

/// An input as bytes, shown as text (control characters escaped) and as
/// hex when a target fails.
#[derive(Clone)]
struct Bytes(Vec<u8>);

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: String = String::from_utf8_lossy(&self.0)
            .chars()
            .flat_map(|c| {
                if c.is_control() && c != '\n' {
                    c.escape_default().collect::<Vec<_>>()
                } else {
                    vec![c]
                }
            })
            .collect();
        let hex: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        write!(
            f,
            "{} bytes\n--- text ---\n{text}\n--- hex ---\n{hex}",
            self.0.len()
        )
    }
}

/// Runs `f` as one input (`input` is what the watchdog and the allocation
/// cap print): time-bounded, heap-capped, and failed when its heap peak
/// passes `SUBWORD_FUZZ_INPUT_MIB`.
fn exec<T>(input: &[u8], f: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let hard = env_hard();
    CAP.store(base + hard, Ordering::SeqCst);
    INPUT_PTR.store(input.as_ptr() as usize, Ordering::SeqCst);
    INPUT_LEN.store(input.len(), Ordering::SeqCst);
    STARTED.store(now_ms(), Ordering::SeqCst);
    let guard = Clear;
    let out = f();
    drop(guard);
    let peak = PEAK.load(Ordering::SeqCst).saturating_sub(base);
    let soft = env_soft();
    if peak > soft {
        return Err(TestCaseError::fail(format!(
            "one input peaked at {peak} bytes of heap (more than SUBWORD_FUZZ_INPUT_MIB)"
        )));
    }
    Ok(out)
}

/// Clears the current input on the way out, a panic included.
struct Clear;
impl Drop for Clear {
    fn drop(&mut self) {
        STARTED.store(0, Ordering::SeqCst);
        CAP.store(0, Ordering::SeqCst);
        INPUT_PTR.store(0, Ordering::SeqCst);
        INPUT_LEN.store(0, Ordering::SeqCst);
    }
}

fn env_hard() -> usize {
    static H: OnceLock<usize> = OnceLock::new();
    *H.get_or_init(|| (env_u64("SUBWORD_FUZZ_HARD_MIB", 1024) << 20) as usize)
}

fn env_soft() -> usize {
    static S: OnceLock<usize> = OnceLock::new();
    *S.get_or_init(|| (env_u64("SUBWORD_FUZZ_INPUT_MIB", 256) << 20) as usize)
}

/// Held by each target for its whole run: the heap counters and the
/// current input are process-wide, so targets (test threads) take turns.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static M: std::sync::Mutex<()> = std::sync::Mutex::new(());
    M.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs target `name`: `default_cases` inputs from `strategy` (or
/// `SUBWORD_FUZZ_CASES`), at seed `SUBWORD_FUZZ_SEED` (default 0).
fn fuzz<S: Strategy>(
    name: &str,
    default_cases: u64,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: fmt::Debug,
{
    let _turn = one_at_a_time();
    watchdog();
    let cases = env_u64("SUBWORD_FUZZ_CASES", default_cases);
    let seed = env_u64("SUBWORD_FUZZ_SEED", 0);
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    for (i, b) in name.bytes().enumerate() {
        key[8 + i % 24] ^= b;
    }
    let config = Config {
        cases: u32::try_from(cases).expect("SUBWORD_FUZZ_CASES fits 32 bits"),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key));
    let t = Instant::now();
    let result = runner.run(&strategy, test);
    let secs = t.elapsed().as_secs_f64();
    let status = match &result {
        Ok(()) => "ok".to_string(),
        Err(_) => "FAILED".to_string(),
    };
    eprintln!("fuzz {name}: seed {seed}: {cases} executions in {secs:.1} s: {status}");
    if let Ok(log) = std::env::var("SUBWORD_FUZZ_LOG") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("open SUBWORD_FUZZ_LOG");
        writeln!(f, "{name} {seed} {cases} {secs:.1} {status}").expect("write SUBWORD_FUZZ_LOG");
    }
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, input)) => {
            panic!("fuzz {name} (seed {seed}): {why}\nminimal input: {input:?}")
        }
        Err(TestError::Abort(why)) => panic!("fuzz {name} (seed {seed}): aborted: {why}"),
    }
}

// ---------------------------------------------------------------------------
// Mutation of seed inputs.

/// One edit of a seed input. Positions are taken modulo the length.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Byte(usize, u8),
    /// A boundary value (0, 1, −1, 2^k, 2^k−1, …) written in 1, 2, 4 or 8
    /// little-endian bytes.
    Boundary(usize, u8, u64),
    Insert(usize, Vec<u8>),
    /// Insert (or with `true`, overwrite with) dictionary entry `n`.
    Word(usize, usize, bool),
    Delete(usize, usize),
    /// Repeat `len` bytes at a position `times` times.
    Repeat(usize, usize, u8),
    /// Copy part of another seed in.
    Splice(usize, usize, usize, usize),
    Truncate(usize),
}

fn boundary() -> impl Strategy<Value = u64> {
    prop_oneof![
        (0u32..64).prop_map(|k| 1u64 << k),
        (0u32..64).prop_map(|k| (1u64 << k).wrapping_sub(1)),
        (0u32..64).prop_map(|k| (1u64 << k).wrapping_neg()),
        Just(0u64),
        Just(u64::MAX),
        any::<u64>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = prop_oneof![0usize..64, 0usize..4096, any::<usize>()];
    prop_oneof![
        (at.clone(), 0u8..8).prop_map(|(a, b)| Edit::Flip(a, b)),
        (at.clone(), any::<u8>()).prop_map(|(a, v)| Edit::Byte(a, v)),
        (
            at.clone(),
            prop::sample::select(vec![1u8, 2, 4, 8]),
            boundary()
        )
            .prop_map(|(a, w, v)| Edit::Boundary(a, w, v)),
        (at.clone(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(a, v)| Edit::Insert(a, v)),
        (at.clone(), any::<usize>(), any::<bool>()).prop_map(|(a, n, o)| Edit::Word(a, n, o)),
        (at.clone(), 1usize..64).prop_map(|(a, n)| Edit::Delete(a, n)),
        (at.clone(), 1usize..64, 1u8..64).prop_map(|(a, n, t)| Edit::Repeat(a, n, t)),
        (at.clone(), any::<usize>(), any::<usize>(), 1usize..512)
            .prop_map(|(a, s, f, n)| Edit::Splice(a, s, f, n)),
        at.prop_map(Edit::Truncate),
    ]
}

fn apply(seeds: &[Vec<u8>], dict: &[&[u8]], seed: usize, edits: &[Edit]) -> Vec<u8> {
    let mut v = seeds[seed % seeds.len()].clone();
    for e in edits {
        let at = |a: usize, v: &Vec<u8>| a % (v.len() + 1);
        match e {
            Edit::Flip(a, b) if !v.is_empty() => {
                let i = a % v.len();
                v[i] ^= 1 << b;
            }
            Edit::Byte(a, x) if !v.is_empty() => {
                let i = a % v.len();
                v[i] = *x;
            }
            Edit::Boundary(a, w, x) => {
                let i = at(*a, &v);
                let bytes = &x.to_le_bytes()[..*w as usize];
                let end = (i + bytes.len()).min(v.len());
                v.splice(i..end, bytes.iter().copied());
            }
            Edit::Insert(a, b) => {
                let i = at(*a, &v);
                v.splice(i..i, b.iter().copied());
            }
            Edit::Word(a, n, over) if !dict.is_empty() => {
                let i = at(*a, &v);
                let w = dict[n % dict.len()];
                let end = if *over { (i + w.len()).min(v.len()) } else { i };
                v.splice(i..end, w.iter().copied());
            }
            Edit::Delete(a, n) => {
                let i = at(*a, &v);
                let end = (i + n).min(v.len());
                v.drain(i..end);
            }
            Edit::Repeat(a, n, t) => {
                let i = at(*a, &v);
                let end = (i + n).min(v.len());
                let chunk = v[i..end].to_vec();
                for _ in 0..*t {
                    v.splice(end..end, chunk.iter().copied());
                }
            }
            Edit::Splice(a, s, f, n) => {
                let other = &seeds[s % seeds.len()];
                if !other.is_empty() {
                    let from = f % other.len();
                    let to = (from + n).min(other.len());
                    let i = at(*a, &v);
                    v.splice(i..i, other[from..to].iter().copied());
                }
            }
            Edit::Truncate(a) => {
                let i = at(*a, &v);
                v.truncate(i);
            }
            _ => {}
        }
    }
    v
}

/// Inputs made by up to `most` edits of one of `seeds`.
fn mutated(
    seeds: Arc<Vec<Vec<u8>>>,
    dict: &'static [&'static [u8]],
    most: usize,
) -> impl Strategy<Value = Bytes> {
    let n = seeds.len();
    (0..n, prop::collection::vec(edit(), 0..most))
        .prop_map(move |(s, e)| Bytes(apply(&seeds, dict, s, &e)))
}

fn root() -> PathBuf {
    testkit::workspace_root()
}

/// Every file under `dir` whose name ends in `ext`, sorted.
fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

// ---------------------------------------------------------------------------
// Seeds.

/// The repository's Alpha assembly sources (GNU as syntax).
fn asm_sources() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = files_under(&root().join("crates/alpha-isa/tests"), ".s")
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    v.extend(
        files_under(&root().join("crates/alpha-emu/tests"), ".s")
            .iter()
            .map(|p| std::fs::read(p).unwrap()),
    );
    assert!(v.len() >= 3, "assembly seeds missing");
    v
}

/// Alpha ELF files: every assembly seed that assembles, and (with the
/// cross compiler) a C program built static and dynamic with debug
/// information, so symbol tables, dynamic sections, `PT_INTERP` and DWARF
/// line tables are mutated too.
fn elf_seeds() -> Arc<Vec<Vec<u8>>> {
    static S: OnceLock<Arc<Vec<Vec<u8>>>> = OnceLock::new();
    S.get_or_init(|| {
        let mut v: Vec<Vec<u8>> = asm_sources()
            .iter()
            .filter_map(|s| alpha_isa::assemble(&String::from_utf8_lossy(s), "seed.s").ok())
            .map(|p| p.to_elf())
            .collect();
        if let Some(gcc) = testkit::alpha_gcc("fuzz_targets") {
            // One directory per process: shards run side by side.
            let dir = testkit::scratch_dir(&format!("fuzz_targets_elf_{}", std::process::id()));
            let src = "#include <stdio.h>\n#include <string.h>\nchar buf[64];\n\
                       int main(int c, char **v) { strcpy(buf, v[0]); buf[c] = 'x'; \
                       printf(\"%s %d\\n\", buf, c); return c > 2; }\n";
            for (name, flags) in [
                ("static", &["-static", "-g"][..]),
                ("dynamic", &["-g"][..]),
                ("pie", &["-fPIE", "-pie"][..]),
            ] {
                let p = testkit::compile_c(&gcc, &dir, name, src, flags);
                v.push(std::fs::read(p).unwrap());
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert!(v.len() >= 3, "ELF seeds missing");
        Arc::new(v)
    })
    .clone()
}

const ELF_DICT: &[&[u8]] = &[
    b"\x7fELF\x02\x01\x01",
    b"/dev/zero\0",
    b"/proc/self/mem\0",
    b"/lib/ld-linux.so.2\0",
    b"\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\x00\x00\x00\x00\x00\x00\x00\x80",
    b"\x00\x00\x01\x00\x00\x00\x00\x00",
    b"\x26\x90",
    b".text\0",
    b".symtab\0",
    b".debug_line\0",
];

const ASM_DICT: &[&[u8]] = &[
    b"\n",
    b" ",
    b",",
    b":",
    b"(",
    b")",
    b"\"",
    b"'",
    b"=",
    b".",
    b"+",
    b"-",
    b"*",
    b"/",
    b"%",
    b"<<",
    b">>",
    b"~",
    b"|",
    b"&",
    b"^",
    b"_start",
    b"1b",
    b"1f",
    b"0",
    b"0x7fffffffffffffff",
    b"-9223372036854775808",
    b"0xffffffffffffffff",
    b"65536",
    b"$31",
    b"$f31",
    b"$sp",
    b".text",
    b".data",
    b".align 63",
    b".p2align 62",
    b".balign 0x8000000000000000",
    b".space 0x7fffffff",
    b".space -1",
    b".skip 1<<40",
    b".quad",
    b".long",
    b".word",
    b".byte",
    b".ascii \"",
    b".asciz",
    b".double 1e308",
    b".comm x,1<<62",
    b".set",
    b".equ",
    b".rept 1000000",
    b".endr",
    b".org 0x7fffffffffff",
    b"lda",
    b"ldah",
    b"ldiq $1,",
    b"ldq_u",
    b"stq_u",
    b"jsr",
    b"br",
    b"bsr",
    b"ret",
    b"addq",
    b"call_pal",
    b"\\",
    b"#",
    b"/*",
    b"*/",
    b";",
    b"\t",
];

const TOML_DICT: &[&[u8]] = &[
    b"\n[[step]]\n",
    b"op = \"",
    b"\"\n",
    b" = ",
    b"0xffffffffffffffff",
    b"18446744073709551615",
    b"-1",
    b"4294967296",
    b"1e308",
    b"nan",
    b"[",
    b"]",
    b"{",
    b"}",
    b"\"\"\"",
    b"memory_bytes = 18446744073709551615\n",
    b"rows = 4294967295\n",
    b"cols = 65536\n",
    b"count = 100000000\n",
    b"stride = \"0x8000000000000000\"\n",
    b"index = 255\n",
    b"repeat = 1000000\n",
];

fn scenario_seeds() -> Arc<Vec<Vec<u8>>> {
    static S: OnceLock<Arc<Vec<Vec<u8>>>> = OnceLock::new();
    S.get_or_init(|| {
        let v: Vec<Vec<u8>> = files_under(&root().join("tests/pto"), ".toml")
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        assert!(v.len() >= 10, "scenario seeds missing");
        Arc::new(v)
    })
    .clone()
}

/// Text that `pto asm` reads: the disassembly of words every form accepts.
fn pto_text_seeds() -> Arc<Vec<Vec<u8>>> {
    static S: OnceLock<Arc<Vec<Vec<u8>>>> = OnceLock::new();
    S.get_or_init(|| {
        let mut v = Vec::new();
        let mut x: u32 = 0x1234_5678;
        let mut tries = 0;
        while v.len() < 64 && tries < 2_000_000 {
            tries += 1;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if let Ok(t) = pto::asm::disassemble(x) {
                v.push(format!("{t}\n").into_bytes());
            }
        }
        assert!(!v.is_empty(), "no PTO word disassembles");
        Arc::new(v)
    })
    .clone()
}

// ---------------------------------------------------------------------------
// Targets.

/// `alpha disasm FILE` and `alpha scan FILE`: the ELF reader, symbols,
/// listing and scanner on mutated ELF files.
#[test]
fn fuzz_elf_reader() {
    fuzz("elf_reader", 4000, mutated(elf_seeds(), ELF_DICT, 8), |b| {
        exec(&b.0, || {
            let Ok(code) = alpha_isa::elf::read_code(&b.0) else {
                return;
            };
            let Ok(all) = alpha_isa::elf::read_symbols(&b.0) else {
                return;
            };
            for s in &code {
                let syms = alpha_isa::symbols::Symbols::for_section(&all, &s.name);
                for (i, w) in s.bytes.chunks_exact(4).take(256).enumerate() {
                    let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    let _ = alpha_isa::disasm::listing_line(
                        s.addr.wrapping_add(4 * i as u64),
                        w,
                        Some(&syms),
                    );
                }
            }
            let secs: Vec<alpha_isa::scan::Code> = code
                .iter()
                .map(|s| alpha_isa::scan::Code {
                    addr: s.addr,
                    bytes: &s.bytes,
                })
                .collect();
            let _ = alpha_isa::scan::scan(&secs);
        })
    });
}

/// `alpha run FILE` / `alpha explore FILE` (the Linux process set-up: ELF
/// loader, interpreter, stack) and `alpha machine FILE` (the bare machine's
/// image loader, then a few thousand instructions) on mutated ELF files.
#[test]
fn fuzz_elf_loader() {
    let model = &alpha_isa::MODELS[0];
    let cia = alpha_emu::chipset::by_name("cia").unwrap();
    fuzz("elf_loader", 8000, mutated(elf_seeds(), ELF_DICT, 8), |b| {
        exec(&b.0, || {
            let mut mem = alpha_emu::memory::Memory::new();
            let _ = alpha_emu::loader::load(&mut mem, &b.0, 0x1_0000_0000);
            let opts = alpha_emu::linux::Options::new(model, vec!["prog".into()]);
            let _ = alpha_emu::linux::Process::new(&b.0, &opts);
            let bo = alpha_emu::bare::Options {
                memory: 1 << 20,
                load: 0x20000,
                jit_threshold: None,
            };
            if let Ok(m) = alpha_emu::bare::Bare::new(cia, model, &bo, &b.0) {
                let _ = m.run(Some(2000));
            }
        })
    });
}

/// `alpha disasm --raw`: any words at any base (that fits), decoded,
/// listed and scanned.
#[test]
fn fuzz_disasm_words() {
    let words = prop::collection::vec(
        prop_oneof![
            any::<u32>(),
            (0u32..64).prop_map(|op| op << 26 | 0x3ff_ffff)
        ],
        1..64,
    );
    fuzz(
        "disasm_words",
        40000,
        (words, any::<u64>()),
        |(ws, base)| {
            let bytes: Vec<u8> = ws.iter().flat_map(|w| w.to_le_bytes()).collect();
            let base = base & !3;
            let base = base.min(u64::MAX - bytes.len() as u64 + 1);
            exec(&bytes, || {
                for (i, &w) in ws.iter().enumerate() {
                    let a = base + 4 * i as u64;
                    let line = alpha_isa::disasm::listing_line(a, w, None);
                    assert!(!line.is_empty() && !line.contains('\n'));
                    let _ = alpha_isa::decode(w);
                }
                let _ = alpha_isa::scan::scan(&[alpha_isa::scan::Code {
                    addr: base,
                    bytes: &bytes,
                }]);
            })
        },
    );
}

/// `alpha asm FILE`: mutated sources and token soup, assembled; what
/// assembles must be an ELF file the reader takes back.
#[test]
fn fuzz_asm_source() {
    let seeds = Arc::new(asm_sources());
    let soup = prop::collection::vec(prop::sample::select(ASM_DICT.to_vec()), 0..48)
        .prop_map(|t| Bytes(t.concat()));
    let inputs = prop_oneof![3 => mutated(seeds, ASM_DICT, 10), 1 => soup];
    fuzz("asm_source", 6000, (inputs, any::<u64>()), |(b, base)| {
        let src = String::from_utf8_lossy(&b.0).into_owned();
        exec(&b.0, || {
            if let Ok(p) = alpha_isa::assemble(&src, "fuzz.s") {
                let elf = p.to_elf();
                let back = alpha_isa::elf::read_code(&elf);
                assert!(
                    back.is_ok(),
                    "the assembler's ELF does not read back: {back:?}"
                );
            }
            let _ = alpha_isa::assemble_words(&src, base);
        })?;
        Ok(())
    });
}

/// `pto run FILE` / `pto footprint FILE`: mutated scenarios parsed, and
/// what parses run (both stride settings) and reported as JSON.
#[test]
fn fuzz_pto_scenario() {
    fuzz(
        "pto_scenario",
        3000,
        (mutated(scenario_seeds(), TOML_DICT, 6), any::<bool>()),
        |(b, es)| {
            let text = String::from_utf8_lossy(&b.0).into_owned();
            exec(&b.0, || {
                if let Ok(sc) = pto_scenario::parse("fuzz.toml", &text) {
                    let opts = pto_scenario::RunOptions { element_stride: es };
                    let r = pto_scenario::run(&sc, opts);
                    let _ = r.failure_lines();
                    let _ = pto_scenario::footprint::text(&r.transfers);
                    let _ = pto_scenario::to_json(std::slice::from_ref(&r), &[], opts);
                }
            })
        },
    );
}

/// `pto disasm [--raw] FILE` and `pto asm FILE`: any word disassembled;
/// mutated assembly text assembled; hex-word text parsed.
#[test]
fn fuzz_pto_words() {
    let text = mutated(pto_text_seeds(), ASM_DICT, 6);
    fuzz("pto_words", 50000, (any::<u32>(), text), |(w, t)| {
        let s = String::from_utf8_lossy(&t.0).into_owned();
        exec(&t.0, || {
            if let Ok(dis) = pto::asm::disassemble(w) {
                assert!(!dis.contains('\n'));
                let _ = pto::asm::assemble(&dis);
            }
            let _ = pto::asm::assemble(&s);
            let _ = subword::numarg::parse_hex_words(&s, "fuzz.txt");
        })
    });
}

/// `alpha explore --replay S`: replay strings near the grammar; what
/// parses prints back as itself.
#[test]
fn fuzz_replay_strings() {
    let part = prop_oneof![
        Just("S1".to_string()),
        Just("-".to_string()),
        Just(".".to_string()),
        Just("+".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        (0u64..1000).prop_map(|n| n.to_string()),
        Just("18446744073709551616".to_string()),
        Just("0x10".to_string()),
        "[ -~]{0,3}",
    ];
    let s = prop::collection::vec(part, 0..12).prop_map(|p| p.concat());
    fuzz("replay_strings", 100000, s, |s| {
        exec(s.as_bytes(), || {
            if let Ok(sched) = alpha_emu::explore::replay::Schedule::parse(&s) {
                let again = sched.to_string();
                let back =
                    alpha_emu::explore::replay::Schedule::parse(&again).unwrap_or_else(|e| {
                        panic!("`{s}` printed as `{again}`, which does not parse: {e}")
                    });
                assert_eq!(back.to_string(), again, "`{s}`");
            }
            let _ = alpha_emu::explore::Strategy::parse(&s);
        })
    });
}

/// Option values: numbers, sizes, and the escaping every error line uses.
#[test]
fn fuzz_option_values() {
    let part = prop_oneof![
        Just("0x".to_string()),
        Just("0X".to_string()),
        Just("_".to_string()),
        Just("-".to_string()),
        Just("+".to_string()),
        Just(" ".to_string()),
        prop::sample::select(vec!["K", "M", "G", "KiB", "MiB", "GiB", "B", "b", "T", "k"])
            .prop_map(str::to_string),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| format!("{n:x}")),
        "[0-9a-fA-F]{1,20}",
        "\\PC{0,3}",
    ];
    let s = prop::collection::vec(part, 0..6).prop_map(|p| p.concat());
    fuzz("option_values", 100000, s, |s| {
        exec(s.as_bytes(), || {
            if let Ok(v) = subword::numarg::parse_u64(&s) {
                assert_eq!(subword::numarg::parse_u64(&v.to_string()), Ok(v));
                assert_eq!(subword::numarg::parse_u64(&format!("{v:#x}")), Ok(v));
            }
            if let Ok(v) = subword::numarg::parse_size(&s) {
                assert_eq!(subword::numarg::parse_size(&v.to_string()), Ok(v));
            }
            let e = subword::files::escape(&s);
            assert!(!e.chars().any(char::is_control), "{e:?}");
        })
    });
}

/// The harness itself: an input whose heap peaks past the per-input cap
/// fails, and one that frees what it takes does not.
#[test]
fn harness_fails_an_input_whose_heap_passes_the_cap() {
    let _turn = one_at_a_time();
    let over = env_soft() + (1 << 20);
    let r = exec(b"big", || std::hint::black_box(vec![0u8; over]).len());
    assert!(r.is_err(), "{over} bytes passed the cap");
    let r = exec(b"small", || std::hint::black_box(vec![0u8; 4096]).len());
    assert_eq!(r.ok(), Some(4096));
}
