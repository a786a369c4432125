//! `subword`: the command-line front end. Argument syntax follows
//! `../shared/CONTRACT.md`; each command's work lives in `cmd::*`, which calls
//! into the library crates. Nothing here knows an instruction encoding.

mod cmd;

use subword::{files, numarg};

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use numarg::{parse_size, parse_u64};

/// What a command hands back to `main`: an exit status, or a one-line error.
pub enum Outcome {
    /// Exit with this status (0 success, 1 finding, 128+N guest signal, …).
    Status(u8),
}

/// A tool error: bad usage or bad input (exit 2), printed as one line.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

pub type CmdResult = Result<Outcome, Failure>;

/// Exit statuses of a command that only succeeds or refuses its input.
const EXIT_0_2: &str = "\
Exit status: 0 success; 2 bad usage or input (one `subword: ...` line on stderr).";

const EXPLORE_AFTER: &str = "\
The report: one block per finding, `==== KIND at ADDRESS`, KIND one of lost-store,
lock-range-contention, forward-progress, deadlock, crash. Then one line per side, each
naming thread, pc, <symbol+offset>, instruction and file:line: for a lost store
`write-back` (the STQ_U/STQ that wrote the quadword back), `its load` (the LDQ_U/LDQ
that read it) and `lost store` (the other thread's store it overwrote). Then which
schedule first showed it, how many did, how far it was minimised, and `replay:` with
the whole command that reruns it. Last, a summary line and the store-site coverage.

Replay strings: `S1`, then `-K.T` for each deviation from the default schedule (which
keeps running the current thread): at decision K (counted from 0) run thread T (0 is
the main thread, the others in creation order). S1-578.2-779.1 runs thread 2 at
decision 578 and thread 1 at 779; `S1` alone is the default schedule.

Exit status: 0 no finding; 1 at least one finding; 2 bad usage or input.

Details: docs/explore.md";

const MERGE_AFTER: &str = "\
Exit status: 0 no finding in the merged object; 1 findings; 2 unreadable input, or shards
that miss or repeat a slice, mix splits or were explored with different options.";

const SCAN_AFTER: &str = "\
Exit status: 0 no non-atomic sub-quadword store sequence; 1 at least one;
2 bad usage or a file that is not an Alpha ELF.";

const IO_AFTER: &str = "\
Exit status: 0 success; 2 a window the chipset lacks, a size the window cannot carry,
or bad usage.";

const MACHINE_AFTER: &str = "\
Exit status: the image's ($16 & 0xff at CALL_PAL halt); 3 a machine check or an
unsupported CALL_PAL; 124 --max-insns ran out; 2 bad usage or an unreadable image.

Details: docs/io-machine.md";

const PTO_RUN_AFTER: &str = "\
Exit status: 0 every expectation in every file held; 1 an expectation failed (each printed
as `FILE: step N (OP): expected ..., got ...`); 2 a file is malformed (file, step, reason).

Format: docs/pto-scenarios.md";

const FOOTPRINT_AFTER: &str = "\
Without --svg, one line per PE and transfer: the GM bytes it reads or writes, by row,
with the nibble (low or high) of packed four-bit elements.

Exit status: 0 every expectation held; 1 an expectation failed; 2 bad usage or a malformed
scenario.";

#[derive(Parser)]
#[command(
    name = "subword",
    version,
    about = "Sub-word memory access, executable and checkable: Alpha AXP and PTO TLOAD/TSTORE"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Alpha AXP: run, disassemble, assemble and analyse Alpha programs.
    #[command(subcommand)]
    Alpha(AlphaCmd),
    /// PTO tile ISA: run scenarios, assemble and disassemble commands.
    #[command(subcommand)]
    Pto(PtoCmd),
    /// The built-in tour: embedded Alpha and PTO examples, each explained.
    #[command(after_help = EXIT_0_2)]
    Demo(DemoArgs),
}

#[derive(Args)]
pub struct DemoArgs {
    /// Directory for the pictures and example programs, kept after the tour
    /// (default: subword-demo in the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum AlphaCmd {
    /// Run an Alpha Linux ELF executable.
    Run(RunArgs),
    /// Run a multi-threaded guest under many schedules and report lost sub-quadword stores.
    #[command(after_help = EXPLORE_AFTER)]
    Explore(Box<ExploreArgs>),
    /// Merge the `--json` outputs of several `explore --shard` runs into one.
    #[command(after_help = MERGE_AFTER)]
    ExploreMerge(ExploreMergeArgs),
    /// Disassemble an ELF's executable sections, or raw little-endian words.
    #[command(after_help = EXIT_0_2)]
    Disasm(DisasmArgs),
    /// Assemble GNU-as syntax into a static Alpha ELF executable (entry `_start`).
    #[command(after_help = EXIT_0_2)]
    Asm(AsmArgs),
    /// Report the ISA extensions a binary needs and its non-atomic sub-quadword store sequences.
    #[command(after_help = SCAN_AFTER)]
    Scan(ScanArgs),
    /// Encode or decode chipset I/O window addresses.
    #[command(subcommand)]
    Io(IoCmd),
    /// Run a bare-metal image on a chipset with its I/O windows.
    #[command(after_help = MACHINE_AFTER)]
    Machine(MachineArgs),
    /// Measure interpreter speed (guest instructions per second) on embedded integer loops.
    #[command(after_help = EXIT_0_2)]
    Bench(BenchArgs),
}

#[derive(Args)]
pub struct CpuArg {
    /// Processor model by code name or part number (ev4 21064 … ev7 21364).
    #[arg(long, default_value = "ev67")]
    pub cpu: String,
}

#[derive(Args)]
#[command(after_help = RUN_AFTER_HELP)]
pub struct RunArgs {
    /// Processor model by code name, part number or qemu name (ev4 21064
    /// ev4-alpha-cpu … ev7 21364; default ev67; `help` lists them; qemu's -cpu).
    #[arg(long, value_name = "MODEL")]
    pub cpu: Option<String>,
    /// Directory holding the guest's dynamic loader and libraries; absolute
    /// paths the guest executes are tried in it first (qemu's -L).
    #[arg(long, short = 'L', value_name = "DIR")]
    pub sysroot: Option<PathBuf>,
    /// Print each system call with its arguments and result (qemu's -strace).
    #[arg(long)]
    pub strace: bool,
    /// Size of the guest's initial stack (default 8M; qemu's -s).
    #[arg(long, short = 's', value_name = "SIZE", value_parser = parse_size)]
    pub stack_size: Option<u64>,
    /// Stop the guest after N instructions (exit status 124).
    #[arg(long, value_parser = parse_u64)]
    pub max_insns: Option<u64>,
    /// Size in bytes of the aligned LDx_L/STx_C lock range (power of two, 8..8192).
    #[arg(long, value_parser = parse_u64)]
    pub lock_range: Option<u64>,
    /// Cap on guest memory: bytes, or with a K/M/G (KiB/MiB/GiB) suffix.
    #[arg(long, value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Instructions each guest thread runs before the scheduler switches.
    #[arg(long, value_parser = parse_u64)]
    pub quantum: Option<u64>,
    /// Interpret only: never compile guest loops to host code.
    #[arg(long, conflicts_with = "jit_threshold")]
    pub no_jit: bool,
    /// Compile a guest loop to host code once its head has been reached N times (default 1000).
    #[arg(long, value_parser = parse_u64)]
    pub jit_threshold: Option<u64>,
    /// When the guest ends, report on stderr what was compiled to host code.
    #[arg(long)]
    pub jit_stats: bool,
    /// Reproducible run: guest time advances with retired instructions and the
    /// identity (pid, uid, gid) is fixed, instead of the host's.
    #[arg(long)]
    pub deterministic: bool,
    /// Live processes the guest may fork at once, the whole tree counted (default 1024); at the cap fork fails with EAGAIN.
    #[arg(long, value_parser = parse_u64)]
    pub max_processes: Option<u64>,
    /// Wait for GDB on TCP PORT (127.0.0.1) before the first instruction (like qemu's -g).
    #[arg(long = "gdb", short = 'g', value_name = "PORT", value_parser = clap::value_parser!(u16))]
    pub gdb: Option<u16>,
    /// Set VAR=VALUE in the guest's environment (qemu's -E); repeatable, and
    /// `A=1,B=2` sets two (a comma not followed by NAME= stays in the value).
    #[arg(long = "env", short = 'E', value_name = "VAR=VALUE")]
    pub set_env: Vec<String>,
    /// Remove VAR from the guest's environment (qemu's -U); repeatable, and
    /// `A,B` removes two.
    #[arg(long = "unset-env", short = 'U', value_name = "VAR")]
    pub unset_env: Vec<String>,
    /// PROGRAM (the Alpha ELF executable) and its ARGS: options end at
    /// PROGRAM, everything after it goes to the guest (as with qemu-user).
    #[arg(
        value_name = "PROGRAM [ARGS]",
        required_unless_present = "cpu",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
}

/// What `alpha run --help` says after the options: qemu-user's spellings
/// and environment variables.
const RUN_AFTER_HELP: &str = "\
qemu-user's spellings work too: -L DIR, -cpu MODEL, -strace, -s SIZE, -E VAR=VALUE,
-U VAR, -g PORT (before PROGRAM). So do the environment variables qemu-user reads,
each standing for its option when the option is not given:
  QEMU_LD_PREFIX=DIR     --sysroot (after SUBWORD_SYSROOT)
  QEMU_CPU=MODEL         --cpu
  QEMU_STRACE            --strace (set to anything)
  QEMU_STACK_SIZE=SIZE   --stack-size
  QEMU_GDB=PORT          --gdb
  QEMU_SET_ENV=VAR=VALUE[,VAR=VALUE...]   --env, before those on the command line
  QEMU_UNSET_ENV=VAR[,VAR...]             --unset-env, before those on the command line
A bad value is an error as the option's would be (exit 2). Without --sysroot,
SUBWORD_SYSROOT, else QEMU_LD_PREFIX, names the sysroot. --cpu help lists the models.

Exit status: the guest's own; 128+N when the guest is killed by signal N (SIGILL 132,
SIGBUS 135, SIGFPE 136, SIGSEGV 139, SIGPIPE 141); 124 when --max-insns ran out;
2 bad usage or a file that is not an Alpha executable.

Details: docs/run.md";

#[derive(Args)]
pub struct ExploreArgs {
    /// Processor model(s), comma-separated (`ev4,ev56`: explore each and
    /// say which findings disappear with BWX).
    #[arg(long, default_value = "ev67")]
    pub cpu: String,
    /// Directory holding the guest's dynamic loader and libraries (like qemu's -L).
    #[arg(long)]
    pub sysroot: Option<PathBuf>,
    /// Schedules to run (default 1000).
    #[arg(long, value_parser = parse_u64)]
    pub schedules: Option<u64>,
    /// Seed of the random and pct strategies (default 0).
    #[arg(long, value_parser = parse_u64)]
    pub seed: Option<u64>,
    /// random, pct (default) or exhaustive.
    #[arg(long)]
    pub strategy: Option<String>,
    /// PCT depth d: d-1 priority change points per schedule (default 3, at most 1000).
    #[arg(long, value_parser = parse_u64)]
    pub depth: Option<u64>,
    /// Exhaustive: most preemptions per schedule (default 2, at most 64).
    #[arg(long, value_parser = parse_u64)]
    pub preemptions: Option<u64>,
    /// Stop starting schedules after this many seconds.
    #[arg(long, value_parser = parse_u64)]
    pub time_limit: Option<u64>,
    /// Instructions per schedule before it is cut off (default 50000000).
    #[arg(long, value_parser = parse_u64)]
    pub max_insns: Option<u64>,
    /// Size in bytes of the aligned LDx_L/STx_C lock range (power of two, 8..8192).
    #[arg(long, value_parser = parse_u64)]
    pub lock_range: Option<u64>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Rerun exactly the schedule this replay string names.
    #[arg(long)]
    pub replay: Option<String>,
    /// Host threads running schedules (never changes what is found).
    #[arg(long, value_parser = parse_u64)]
    pub jobs: Option<u64>,
    /// Cap on each guest's memory (each schedule's process; with --jobs N at
    /// most N guests at once): bytes, or with a K/M/G (KiB/MiB/GiB) suffix.
    #[arg(long, value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Run only the I-th of N disjoint slices of the schedules (1 <= I <= N).
    #[arg(long)]
    pub shard: Option<String>,
    /// Draw the first finding's schedule as SVG into FILE.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// MODEL=PROGRAM: explore MODEL (one of a --cpu list after the first)
    /// with its own build of the program, e.g. `ev56=./prog_ev56`; findings
    /// are then compared across models by source line (repeatable).
    #[arg(long, value_name = "MODEL=PROGRAM")]
    pub program_for: Vec<String>,
    /// The Alpha ELF executable and the arguments passed to the guest
    /// (options end at PROGRAM).
    #[arg(
        value_name = "PROGRAM [ARGS]...",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true
    )]
    pub program: Vec<String>,
}

#[derive(Args)]
pub struct ExploreMergeArgs {
    /// `alpha explore --json` outputs of several shards (`-`: standard input).
    #[arg(required = true)]
    pub files: Vec<String>,
}

#[derive(Args)]
pub struct DisasmArgs {
    /// Treat FILE as raw little-endian 32-bit words.
    #[arg(long)]
    pub raw: bool,
    /// Address of the first word with --raw.
    #[arg(long, value_parser = parse_u64, default_value = "0")]
    pub base: u64,
    /// An Alpha ELF file, or with --raw a file of words (`-`: standard input).
    pub file: PathBuf,
}

#[derive(Args)]
pub struct AsmArgs {
    /// GNU-as syntax source (`-`: standard input).
    pub input: PathBuf,
    /// Output ELF executable (`-`: standard output).
    #[arg(short = 'o')]
    pub output: PathBuf,
}

#[derive(Args)]
pub struct ScanArgs {
    /// Print one JSON object on stdout (with every store site's window of instructions).
    #[arg(long)]
    pub json: bool,
    /// The Alpha ELF executable or library to scan.
    pub binary: PathBuf,
}

#[derive(Subcommand)]
pub enum IoCmd {
    /// Bus address to physical address in a chipset window.
    #[command(after_help = IO_AFTER)]
    Encode {
        /// apecs lca cia cia2 pyxis t2 t2-gamma tsunami polaris irongate jensen.
        #[arg(long)]
        chipset: String,
        /// sparse-io sparse-mem dense-mem bwx-io bwx-mem (local-io: jensen).
        #[arg(long)]
        window: String,
        /// Address on the PCI/ISA/EISA bus.
        #[arg(long, value_parser = parse_u64)]
        bus_addr: u64,
        /// Access size in bytes: 1, 2, 3, 4 or 8.
        #[arg(long, value_parser = parse_u64)]
        size: u64,
        /// Print one JSON object: chipset, window, phys, lane, length_code, hae.
        #[arg(long)]
        json: bool,
    },
    /// Physical address to window, bus address, lane and length.
    #[command(after_help = IO_AFTER)]
    Decode {
        /// apecs lca cia cia2 pyxis t2 t2-gamma tsunami polaris irongate jensen.
        #[arg(long)]
        chipset: String,
        /// Physical address the CPU accesses.
        #[arg(value_parser = parse_u64)]
        phys_addr: u64,
        /// Value of the window's HAE register, for the bus bits it supplies.
        #[arg(long, value_parser = parse_u64, default_value = "0")]
        hae: u64,
        /// Print one JSON object: chipset, window, bus address, size, lane, length_code, hae.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct MachineArgs {
    /// apecs lca cia cia2 pyxis t2 t2-gamma tsunami polaris irongate jensen.
    #[arg(long)]
    pub chipset: String,
    #[command(flatten)]
    pub cpu: CpuArg,
    /// RAM in bytes from physical address 0.
    #[arg(long, value_parser = parse_u64, default_value = "0x4000000")]
    pub memory: u64,
    /// Load (and entry) address of a flat image.
    #[arg(long, value_parser = parse_u64, default_value = "0x20000")]
    pub load: u64,
    /// Stop after N instructions (status 124).
    #[arg(long, value_parser = parse_u64)]
    pub max_insns: Option<u64>,
    /// Print every bus transaction on stderr.
    #[arg(long)]
    pub trace_io: bool,
    /// Print one JSON object on stdout instead of the console.
    #[arg(long)]
    pub json: bool,
    /// Draw the bus transactions per window as SVG into FILE.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// ELF64 image (loaded by p_paddr) or flat binary (loaded at --load).
    pub image: PathBuf,
}

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub cpu: CpuArg,
    /// Guest instructions to run per benchmark loop.
    #[arg(long, value_parser = parse_u64, default_value = "300000000")]
    pub insns: u64,
    /// Also print the results as docs/benchmarks.md's dated table (for .ci/bench-docs).
    #[arg(long)]
    pub markdown: bool,
}

#[derive(Subcommand)]
pub enum PtoCmd {
    /// Run PTO scenario files (exit 0 all held, 1 an expectation failed, 2 malformed).
    #[command(after_help = PTO_RUN_AFTER)]
    Run(PtoRunArgs),
    /// Assemble PTO command assembly into 32-bit words.
    #[command(after_help = EXIT_0_2)]
    Asm {
        /// Assembly in the spec's syntax, `;` between commands (`-`: standard input).
        file: PathBuf,
    },
    /// Disassemble PTO command words (text of hex words, or --raw little-endian binary).
    #[command(after_help = EXIT_0_2)]
    Disasm {
        /// Read FILE as little-endian 32-bit words instead of hex text.
        #[arg(long)]
        raw: bool,
        /// Hex words, one per line as `pto asm` prints them (`-`: standard input).
        file: PathBuf,
    },
    /// List, or draw, the GM bytes and nibbles each PE reads or writes in a scenario.
    #[command(after_help = FOOTPRINT_AFTER)]
    Footprint {
        /// The scenario file (TOML) whose TLOAD/TSTORE steps are shown.
        scenario: PathBuf,
        /// Draw the footprint as SVG into FILE instead of listing it.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// What-if: draw it with the superseded pre-ADR-0074 element-unit row stride (never the default).
        #[arg(long)]
        element_stride: bool,
    },
    /// Measure TLOAD/TSTORE bandwidth next to memcpy.
    #[command(after_help = EXIT_0_2)]
    Bench {
        /// Also print the results as docs/benchmarks.md's dated table (for .ci/bench-docs).
        #[arg(long)]
        markdown: bool,
    },
}

#[derive(Args)]
pub struct PtoRunArgs {
    /// Print one JSON object on stdout: every file's failures and warnings, and malformed files.
    #[arg(long)]
    pub json: bool,
    /// What-if: use the superseded pre-ADR-0074 element-unit row stride (never the default).
    #[arg(long)]
    pub element_stride: bool,
    /// Scenario files (TOML, format: docs/pto-scenarios.md).
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
}

/// Which of fds 0-2 were closed as the process started. Recorded from
/// `.init_array` — before the Rust runtime reopens closed standard streams
/// on `/dev/null` — so `alpha run` can give the guest a closed stdout
/// (EBADF) rather than a silent sink; the signals ignored as it starts
/// are recorded there too, before the Rust runtime ignores SIGPIPE for
/// itself, so `alpha run` gives the guest the dispositions it inherited.
/// Statics because nothing runs earlier that could hold a value: the only
/// process-wide state of the binary, read by [`stdio_closed_at_start`] and
/// [`signals_ignored_at_start`] and handed to the library as values.
static STDIO_CLOSED_AT_START: [AtomicBool; 3] = [
    AtomicBool::new(false),
    AtomicBool::new(false),
    AtomicBool::new(false),
];
static SIGNALS_IGNORED_AT_START: AtomicU64 = AtomicU64::new(0);

extern "C" fn note_closed_stdio() {
    for fd in 0..3 {
        // SAFETY: F_GETFD on any descriptor number has no preconditions.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            STDIO_CLOSED_AT_START[fd as usize].store(true, Ordering::Relaxed);
        }
    }
    let mut ignored = 0u64;
    for sig in 1..64 {
        // SAFETY: reading a disposition into a zeroed out-parameter.
        let ign = unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
        };
        if ign {
            ignored |= 1 << sig;
        }
    }
    SIGNALS_IGNORED_AT_START.store(ignored, Ordering::Relaxed);
}

#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STDIO: extern "C" fn() = note_closed_stdio;

/// Host signals (bit n: signal n) that were ignored when subword started.
pub fn signals_ignored_at_start() -> u64 {
    SIGNALS_IGNORED_AT_START.load(Ordering::Relaxed)
}

/// Streams 0-2 that were closed when subword started.
pub fn stdio_closed_at_start() -> [bool; 3] {
    std::array::from_fn(|fd| STDIO_CLOSED_AT_START[fd].load(Ordering::Relaxed))
}

/// Ignore SIGPIPE: a write to a pipe whose reader left fails with EPIPE,
/// which `alpha run` hands to the guest (raising the guest's SIGPIPE) and
/// every other command treats as the end of its output (status 141, the
/// status a shell shows for a process SIGPIPE ended, and no panic).
fn ignore_sigpipe() {
    // SAFETY: installing SIG_IGN for SIGPIPE before any thread starts has no
    // preconditions; it only changes what the kernel does on a closed pipe.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info)
    }));
}

/// `subword alpha run`-style path of the subcommand the command line
/// names (as far as it names one), for pointing a usage error at its help.
fn help_path() -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut path = vec!["subword".to_string()];
    for a in std::env::args().skip(1) {
        match cmd.find_subcommand(&a) {
            Some(sub) => {
                path.push(a.clone());
                cmd = sub.clone();
            }
            None if a.starts_with('-') => continue,
            None => break,
        }
    }
    path.join(" ")
}

/// qemu-user's single-dash long options of `alpha run` (`-cpu`, `-strace`,
/// `-help`) as clap spells them, up to PROGRAM: everything from PROGRAM on
/// is the guest's and stays as it is. Which options take a value is read
/// from `RunArgs` itself.
fn qemu_spellings(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if args.len() < 3 || args[1] != "alpha" || args[2] != "run" {
        return args;
    }
    let cmd = RunArgs::augment_args(clap::Command::new("run"));
    let takes_value = |a: &clap::Arg| a.get_action().takes_values();
    let mut i = 3;
    while i < args.len() {
        let Some(a) = args[i].to_str().map(str::to_string) else {
            break;
        };
        if a == "--" || !a.starts_with('-') || a == "-" {
            break;
        }
        let spelled = match a.as_str() {
            "-cpu" => "--cpu",
            "-strace" => "--strace",
            "-help" => "--help",
            _ => a.as_str(),
        };
        let spelled = spelled.to_string();
        let value_follows = if let Some(long) = spelled.strip_prefix("--") {
            !long.contains('=')
                && cmd
                    .get_arguments()
                    .any(|x| x.get_long() == Some(long) && takes_value(x))
        } else {
            let mut chars = spelled.chars().skip(1);
            let short = chars.next();
            chars.next().is_none()
                && cmd
                    .get_arguments()
                    .any(|x| x.get_short() == short && takes_value(x))
        };
        args[i] = spelled.into();
        i += if value_follows { 2 } else { 1 };
    }
    args
}

fn main() -> ExitCode {
    ignore_sigpipe();
    let cli = match Cli::try_parse_from(qemu_spellings(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::from(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        2
                    } else {
                        0
                    },
                );
            }
            // One line, as the contract asks: clap's first line without its "error: " prefix.
            let text = e.render().to_string();
            let head: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let line = head.join(" ");
            let line = line.strip_prefix("error: ").unwrap_or(&line);
            eprintln!(
                "subword: {} (see {} --help)",
                files::escape(line),
                help_path()
            );
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Alpha(c) => cmd::alpha(c),
        Command::Pto(c) => cmd::pto(c),
        Command::Demo(a) => cmd::demo::run(a),
    };
    match result {
        Ok(Outcome::Status(s)) => ExitCode::from(s),
        Err(Failure(msg)) => {
            eprintln!("subword: {}", files::escape(&msg));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every command, with its path from `subword`.
    fn commands() -> Vec<(String, clap::Command)> {
        let mut out = Vec::new();
        let mut todo = vec![("subword".to_string(), Cli::command())];
        while let Some((path, cmd)) = todo.pop() {
            for sub in cmd.get_subcommands() {
                todo.push((format!("{path} {}", sub.get_name()), sub.clone()));
            }
            out.push((path, cmd));
        }
        out
    }

    /// `--help` of every command describes every argument and option, and
    /// every command that does work says its exit statuses.
    #[test]
    fn every_argument_and_option_has_a_description_and_every_command_its_exit_status() {
        let mut blank = Vec::new();
        let mut no_status = Vec::new();
        let all = commands();
        for (path, cmd) in &all {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    blank.push(format!("{path}: {id}"));
                }
            }
            let leaf = cmd.get_subcommands().next().is_none();
            let after = cmd
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            if leaf && !after.contains("Exit status:") {
                no_status.push(path.clone());
            }
        }
        assert!(blank.is_empty(), "options without a description: {blank:?}");
        assert!(
            no_status.is_empty(),
            "commands without exit statuses: {no_status:?}"
        );
        assert!(
            all.len() > 15,
            "walked the whole tree ({} commands)",
            all.len()
        );
    }

    /// The explorer's help explains the report and the replay syntax.
    #[test]
    fn explore_help_explains_the_report_and_the_replay_string() {
        let mut cmd = Cli::command();
        let help = cmd
            .find_subcommand_mut("alpha")
            .and_then(|a| a.find_subcommand_mut("explore"))
            .expect("alpha explore")
            .render_long_help()
            .to_string();
        for part in [
            "write-back",
            "its load",
            "lost store",
            "replay:",
            "S1-",
            "Exit status",
        ] {
            assert!(help.contains(part), "explore --help lacks {part}");
        }
    }
}
