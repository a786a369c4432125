//! `subword alpha run`: load an Alpha Linux executable and run it under the
//! Linux personality; the guest's exit status (or 128+signal, or 124 for
//! `--max-insns`) becomes ours.

use crate::{CmdResult, Failure, Outcome, RunArgs};
use alpha_emu::cpu::valid_lock_range;
use alpha_emu::icache::MAX_JIT_THRESHOLD;
use alpha_emu::linux::{self, Options, StdHost};

/// The `--cpu` model, or a one-line error listing the known names.
pub fn model(name: &str) -> Result<&'static alpha_isa::Model, Failure> {
    alpha_isa::model_by_name(name).ok_or_else(|| {
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

/// The guest's environment: the host's, then `--unset-env` and `--env`
/// applied in that order (as qemu applies -U and -E).
fn guest_env(set: &[String], unset: &[String]) -> Result<Vec<String>, Failure> {
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    for u in unset {
        env.retain(|(k, _)| k != u);
    }
    for s in set {
        let Some((k, v)) = s.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(Failure(format!("--env {s}: expected VAR=VALUE")));
        };
        match env.iter_mut().find(|(ek, _)| ek == k) {
            Some(e) => e.1 = v.to_string(),
            None => env.push((k.to_string(), v.to_string())),
        }
    }
    Ok(env.into_iter().map(|(k, v)| format!("{k}={v}")).collect())
}

pub fn run(a: RunArgs) -> CmdResult {
    if a.cpu.cpu == "help" || a.cpu.cpu == "?" {
        list_models();
        return Ok(Outcome::Status(0));
    }
    let model = model(&a.cpu.cpu)?;
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
    let elf = std::fs::read(&path).map_err(|e| Failure(format!("{path}: {e}")))?;
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
    opts.strace = a.strace;
    opts.sysroot = a.sysroot.clone().or_else(env_sysroot);
    opts.jit_stats = a.jit_stats;
    opts.deterministic = a.deterministic;
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
    opts.envp = guest_env(&a.set_env, &a.unset_env)?;
    opts.memory = memory;
    let exit = match a.gdb {
        Some(port) => {
            // One instruction at a time under the stub: no compiled code.
            opts.jit = None;
            let mut p =
                linux::Process::new(&elf, &opts).map_err(|e| Failure(format!("{path}: {e}")))?;
            let l = std::net::TcpListener::bind(("127.0.0.1", port))
                .map_err(|e| Failure(format!("-g {port}: {e}")))?;
            let (conn, _) = l.accept().map_err(|e| Failure(format!("-g {port}: {e}")))?;
            alpha_emu::gdb::serve(&mut p, &mut StdHost, conn, opts.max_insns)
                .map_err(|e| Failure(format!("{path}: {e}")))?
        }
        None => linux::run_program(&elf, &opts, &mut StdHost)
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
