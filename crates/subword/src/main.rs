//! `subword`: the command-line front end. Argument syntax follows
//! `../shared/CONTRACT.md`; each command's work lives in `cmd::*`, which calls
//! into the library crates. Nothing here knows an instruction encoding.

mod cmd;
mod files;
mod numarg;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

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
    Demo,
}

#[derive(Subcommand)]
pub enum AlphaCmd {
    /// Run an Alpha Linux ELF executable.
    Run(RunArgs),
    /// Run a multi-threaded guest under many schedules and report lost sub-quadword stores.
    Explore(Box<ExploreArgs>),
    /// Merge the `--json` outputs of several `explore --shard` runs into one.
    ExploreMerge(ExploreMergeArgs),
    /// Disassemble an ELF's executable sections, or raw little-endian words.
    Disasm(DisasmArgs),
    /// Assemble GNU-as syntax into a static Alpha ELF executable (entry `_start`).
    Asm(AsmArgs),
    /// Report the ISA extensions a binary needs and its non-atomic sub-quadword store sequences.
    Scan(ScanArgs),
    /// Encode or decode chipset I/O window addresses.
    #[command(subcommand)]
    Io(IoCmd),
    /// Run a bare-metal image on a chipset with its I/O windows.
    Machine(MachineArgs),
    /// Measure interpreter speed (guest instructions per second) on embedded integer loops.
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
A bad value is an error as the option's would be (exit 2).";

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
    pub file: PathBuf,
}

#[derive(Args)]
pub struct AsmArgs {
    pub input: PathBuf,
    /// Output ELF executable.
    #[arg(short = 'o')]
    pub output: PathBuf,
}

#[derive(Args)]
pub struct ScanArgs {
    #[arg(long)]
    pub json: bool,
    pub binary: PathBuf,
}

#[derive(Subcommand)]
pub enum IoCmd {
    /// Bus address to physical address in a chipset window.
    Encode {
        #[arg(long)]
        chipset: String,
        #[arg(long)]
        window: String,
        #[arg(long, value_parser = parse_u64)]
        bus_addr: u64,
        #[arg(long, value_parser = parse_u64)]
        size: u64,
        #[arg(long)]
        json: bool,
    },
    /// Physical address to window, bus address, lane and length.
    Decode {
        #[arg(long)]
        chipset: String,
        #[arg(value_parser = parse_u64)]
        phys_addr: u64,
        /// Value of the window's HAE register (default 0).
        #[arg(long, value_parser = parse_u64, default_value = "0")]
        hae: u64,
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
    pub image: PathBuf,
}

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub cpu: CpuArg,
    /// Guest instructions to run per benchmark loop.
    #[arg(long, value_parser = parse_u64, default_value = "300000000")]
    pub insns: u64,
}

#[derive(Subcommand)]
pub enum PtoCmd {
    /// Run PTO scenario files (exit 0 all held, 1 an expectation failed, 2 malformed).
    Run(PtoRunArgs),
    /// Assemble PTO command assembly into 32-bit words.
    Asm { file: PathBuf },
    /// Disassemble PTO command words (text of hex words, or --raw little-endian binary).
    Disasm {
        #[arg(long)]
        raw: bool,
        file: PathBuf,
    },
    /// Draw the GM bytes and nibbles each PE reads or writes in a scenario.
    Footprint {
        scenario: PathBuf,
        #[arg(long)]
        svg: PathBuf,
        /// What-if: draw it with the superseded pre-ADR-0074 element-unit row stride (never the default).
        #[arg(long)]
        element_stride: bool,
    },
    /// Measure TLOAD/TSTORE bandwidth next to memcpy.
    Bench,
}

#[derive(Args)]
pub struct PtoRunArgs {
    #[arg(long)]
    pub json: bool,
    /// What-if: use the superseded pre-ADR-0074 element-unit row stride (never the default).
    #[arg(long)]
    pub element_stride: bool,
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
}

/// Which of fds 0-2 are closed as the process starts, recorded from
/// `.init_array` — before the Rust runtime reopens closed standard streams
/// on `/dev/null` — so `alpha run` can give the guest a closed stdout
/// (EBADF) rather than a silent sink.
/// The signals ignored as the process starts are recorded there too,
/// before the Rust runtime ignores SIGPIPE for itself, so `alpha run`
/// gives the guest the dispositions it inherited.
extern "C" fn note_closed_stdio() {
    for fd in 0..3 {
        // SAFETY: F_GETFD on any descriptor number has no preconditions.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            alpha_emu::linux::STDIO_CLOSED_AT_START[fd as usize]
                .store(true, std::sync::atomic::Ordering::Relaxed);
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
    alpha_emu::linux::SIGNALS_IGNORED_AT_START.store(ignored, std::sync::atomic::Ordering::Relaxed);
}

#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STDIO: extern "C" fn() = note_closed_stdio;

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
            eprintln!("subword: {line} (see {} --help)", help_path());
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Alpha(c) => cmd::alpha(c),
        Command::Pto(c) => cmd::pto(c),
        Command::Demo => cmd::demo::run(),
    };
    match result {
        Ok(Outcome::Status(s)) => ExitCode::from(s),
        Err(Failure(msg)) => {
            eprintln!("subword: {msg}");
            ExitCode::from(2)
        }
    }
}
