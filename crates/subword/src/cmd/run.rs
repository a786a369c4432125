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

pub fn run(a: RunArgs) -> CmdResult {
    let model = model(&a.cpu.cpu)?;
    let lock_range = lock_range(a.lock_range)?;
    let path = a.command[0].clone();
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
    opts.sysroot = a.sysroot.clone();
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
    opts.envp = std::env::vars_os()
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_str()?, v.to_str()?)))
        .collect();
    let exit = linux::run_program(&elf, &opts, &mut StdHost)
        .map_err(|e| Failure(format!("{path}: {e}")))?;
    Ok(Outcome::Status(exit.status()))
}
