//! `subword alpha run`: load an Alpha Linux executable and run it under the
//! Linux personality; the guest's exit status (or 128+signal, or 124 for
//! `--max-insns`) becomes ours.

use crate::{CmdResult, Failure, Outcome, RunArgs};
use alpha_emu::cpu::valid_lock_range;
use alpha_emu::icache::MAX_JIT_THRESHOLD;
use alpha_emu::linux::{self, Options, StdHost};

/// The `--cpu` model, or a one-line error listing the known names. qemu's
/// type names (`ev67-alpha-cpu`) name the same models.
pub fn model(name: &str) -> Result<&'static alpha_isa::Model, Failure> {
    let short = name.strip_suffix("-alpha-cpu").unwrap_or(name);
    alpha_isa::model_by_name(short).ok_or_else(|| {
        let known: Vec<String> = alpha_isa::MODELS
            .iter()
            .map(|m| format!("{} ({})", m.name, m.part))
            .collect();
        Failure(format!(
            "unknown CPU model `{name}`; known models: {}",
            known.join(", ")
        ))
    })
}

/// Check `--lock-range`.
pub fn lock_range(r: Option<u64>) -> Result<Option<u64>, Failure> {
    match r {
        Some(n) if !valid_lock_range(n) => Err(Failure(format!(
            "--lock-range {n}: must be a power of two from 8 to 8192 (the page size)"
        ))),
        r => Ok(r),
    }
}

/// `--cpu help`: the models, one a line (qemu's `-cpu help`).
fn list_models() {
    println!("Available CPUs:");
    for m in alpha_isa::MODELS {
        println!("  {:<6} {:<8} {}", m.name, m.part, ext_list(m));
    }
}

fn ext_list(m: &alpha_isa::Model) -> String {
    use alpha_isa::Ext;
    let e: Vec<&str> = [
        (Ext::Bwx, "BWX"),
        (Ext::Fix, "FIX"),
        (Ext::Cix, "CIX"),
        (Ext::Mvi, "MVI"),
    ]
    .iter()
    .filter(|(x, _)| m.has(*x))
    .map(|(_, n)| *n)
    .collect();
    if e.is_empty() {
        "base".to_string()
    } else {
        e.join(" ")
    }
}

/// The default sysroot from the environment: `SUBWORD_SYSROOT`, else
/// qemu-user's `QEMU_LD_PREFIX`.
fn env_sysroot() -> Option<std::path::PathBuf> {
    ["SUBWORD_SYSROOT", "QEMU_LD_PREFIX"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()))
        .map(Into::into)
}

/// A qemu-user environment variable standing for an option not given on
/// the command line (set and not empty; `QEMU_STRACE` counts when set at
/// all, as qemu reads it).
fn qemu_var(name: &str) -> Option<String> {
    let v = std::env::var_os(name)?;
    match v.into_string() {
        Ok(v) => Some(v),
        // Not text: kept as is, so the option's check refuses it.
        Err(v) => Some(v.to_string_lossy().into_owned()),
    }
}

/// An option's value, or else its qemu variable's (`QEMU_CPU=…`), checked
/// by `parse`; an error names where the bad value came from.
fn option_or_var<T>(
    given: Option<T>,
    var: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, Failure> {
    if given.is_some() {
        return Ok(given);
    }
    match qemu_var(var).filter(|v| !v.is_empty()) {
        Some(v) => parse(&v)
            .map(Some)
            .map_err(|e| Failure(format!("{var}={v}: {e}"))),
        None => Ok(None),
    }
}

/// `-E A=1,B=2`: qemu splits a list at commas; here a comma splits only
/// where `NAME=` follows it, so a value may still hold a comma.
fn split_settings(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in s.match_indices(',') {
        let rest = &s[i + 1..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if name_len > 0 && rest[name_len..].starts_with('=') {
            out.push(&s[start..i]);
            start = i + 1;
        }
    }
    out.push(&s[start..]);
    out
}

/// The guest's environment: the host's, then `QEMU_SET_ENV`,
/// `QEMU_UNSET_ENV`, `--unset-env` and `--env` applied in that order (as
/// qemu applies its variables, then -U and -E). Each list comes with the
/// name its errors cite.
fn guest_env(
    sets: &[(&str, Vec<String>)],
    unsets: &[(&str, Vec<String>)],
) -> Result<Vec<String>, Failure> {
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let set = |env: &mut Vec<(String, String)>, what: &str, list: &[String]| {
        for s in list {
            for item in split_settings(s) {
                let Some((k, v)) = item.split_once('=').filter(|(k, _)| !k.is_empty()) else {
                    return Err(Failure(format!("{what} {s}: expected VAR=VALUE")));
                };
                match env.iter_mut().find(|(ek, _)| ek == k) {
                    Some(e) => e.1 = v.to_string(),
                    None => env.push((k.to_string(), v.to_string())),
                }
            }
        }
        Ok(())
    };
    let unset = |env: &mut Vec<(String, String)>, list: &[String]| {
        for u in list.iter().flat_map(|u| u.split(',')) {
            env.retain(|(k, _)| k != u);
        }
    };
    // qemu's order: its variables first (QEMU_SET_ENV before
    // QEMU_UNSET_ENV), then the command line.
    set(&mut env, sets[0].0, &sets[0].1)?;
    unset(&mut env, &unsets[0].1);
    unset(&mut env, &unsets[1].1);
    set(&mut env, sets[1].0, &sets[1].1)?;
    Ok(env.into_iter().map(|(k, v)| format!("{k}={v}")).collect())
}

/// Smallest and largest `--stack-size`: a page, and what fits below
/// the program's usual load address.
const MIN_STACK: u64 = 64 << 10;
const MAX_STACK: u64 = 4 << 30;

fn stack_size(n: u64) -> Result<u64, String> {
    if !(MIN_STACK..=MAX_STACK).contains(&n) {
        return Err(format!(
            "the stack size must be from {} KiB to {} GiB",
            MIN_STACK >> 10,
            MAX_STACK >> 30
        ));
    }
    Ok(n.next_multiple_of(alpha_emu::memory::PAGE_SIZE))
}

pub fn run(a: RunArgs) -> CmdResult {
    let cpu = option_or_var(a.cpu.clone(), "QEMU_CPU", |v| Ok(v.to_string()))?;
    if matches!(cpu.as_deref(), Some("help" | "?")) {
        list_models();
        return Ok(Outcome::Status(0));
    }
    let model = match (&a.cpu, &cpu) {
        (None, Some(v)) => model(v).map_err(|Failure(e)| Failure(format!("QEMU_CPU={v}: {e}")))?,
        _ => model(cpu.as_deref().unwrap_or("ev67"))?,
    };
    let strace = a.strace || std::env::var_os("QEMU_STRACE").is_some();
    let gdb = option_or_var(a.gdb, "QEMU_GDB", |v| {
        v.parse::<u16>()
            .map_err(|e| format!("invalid value for --gdb PORT: {e}"))
    })?;
    let stack = match a.stack_size {
        Some(n) => Some(stack_size(n).map_err(|e| Failure(format!("--stack-size {n}: {e}")))?),
        None => option_or_var(None, "QEMU_STACK_SIZE", |v| {
            stack_size(crate::numarg::parse_size(v)?)
        })?,
    };
    let memory = memory_kind()?;
    let lock_range = lock_range(a.lock_range)?;
    let Some(path) = a.command.first().cloned() else {
        return Err(Failure(
            "missing PROGRAM (see subword alpha run --help)".into(),
        ));
    };
    if path.starts_with('-') && path.len() > 1 {
        // Only reached by an option after the one that takes no value
        // would have been accepted: an unknown option before PROGRAM.
        return Err(Failure(format!(
            "unknown option `{path}` before PROGRAM (see subword alpha run --help)"
        )));
    }
    let elf = crate::files::read_file(path.as_ref(), crate::files::Input::Elf).map_err(Failure)?;
    let argv = a.command.clone();
    let mut opts = Options::new(model, argv);
    opts.lock_range = lock_range;
    opts.max_insns = a.max_insns;
    opts.max_memory =
        match a.max_memory {
            Some(0) => return Err(Failure(
                "--max-memory 0: the cap must be above 0 bytes (leave the option out for no cap)"
                    .into(),
            )),
            m => m,
        };
    opts.strace = strace;
    opts.stack_size = stack;
    opts.sysroot = a.sysroot.clone().or_else(env_sysroot);
    opts.jit_stats = a.jit_stats;
    opts.deterministic = a.deterministic;
    opts.host_exec = true;
    opts.host_signals = true;
    opts.ignored_signals = linux::guest_ignored(crate::signals_ignored_at_start());
    opts.jit = match (a.no_jit, a.jit_threshold) {
        (true, _) => None,
        (false, None) => opts.jit,
        (false, Some(n)) if (1..=MAX_JIT_THRESHOLD as u64).contains(&n) => Some(n as u32),
        (false, Some(n)) => {
            return Err(Failure(format!(
                "--jit-threshold {n}: must be from 1 to {MAX_JIT_THRESHOLD}"
            )))
        }
    };
    if let Some(q) = a.quantum {
        if q == 0 {
            return Err(Failure("--quantum must be at least 1".into()));
        }
        opts.quantum = Some(q);
    }
    opts.max_processes = match a.max_processes {
        Some(n) if n > u32::MAX as u64 => {
            return Err(Failure(format!(
                "--max-processes {n}: must be at most {}",
                u32::MAX
            )))
        }
        n => n.map(|n| n as u32),
    };
    let from_var = |k: &str| qemu_var(k).into_iter().collect::<Vec<String>>();
    opts.envp = guest_env(
        &[
            ("QEMU_SET_ENV", from_var("QEMU_SET_ENV")),
            ("--env", a.set_env.clone()),
        ],
        &[
            ("QEMU_UNSET_ENV", from_var("QEMU_UNSET_ENV")),
            ("--unset-env", a.unset_env.clone()),
        ],
    )?;
    opts.memory = memory;
    let mut host = StdHost::new(crate::stdio_closed_at_start());
    let exit = match gdb {
        Some(port) => {
            // One instruction at a time under the stub: no compiled code.
            opts.jit = None;
            let mut p =
                linux::Process::new(&elf, &opts).map_err(|e| Failure(format!("{path}: {e}")))?;
            p.close_streams_closed_in(&host);
            let l = std::net::TcpListener::bind(("127.0.0.1", port))
                .map_err(|e| Failure(format!("-g {port}: {e}")))?;
            let (conn, _) = l.accept().map_err(|e| Failure(format!("-g {port}: {e}")))?;
            alpha_emu::gdb::serve(&mut p, &mut host, conn, opts.max_insns)
                .map_err(|e| Failure(format!("{path}: {e}")))?
        }
        None => linux::run_program(&elf, &opts, &mut host)
            .map_err(|e| Failure(format!("{path}: {e}")))?,
    };
    Ok(Outcome::Status(exit.status()))
}

/// The guest memory `alpha run` uses: host-mapped (the default), or the
/// portable implementation when `SUBWORD_MEMORY=portable` (a diagnostic
/// switch, so tests can run programs on both).
fn memory_kind() -> Result<alpha_emu::memory::MemoryKind, Failure> {
    use alpha_emu::memory::MemoryKind;
    match std::env::var("SUBWORD_MEMORY") {
        Err(_) => Ok(MemoryKind::HostMapped),
        Ok(v) => match v.as_str() {
            "" | "host" => Ok(MemoryKind::HostMapped),
            "portable" => Ok(MemoryKind::Portable),
            _ => Err(Failure(format!(
                "SUBWORD_MEMORY={v}: must be `host` or `portable`"
            ))),
        },
    }
}
