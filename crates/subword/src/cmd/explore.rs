//! `subword alpha explore`: runs a multi-threaded guest under many
//! schedules (`alpha_emu::explore`) and prints what was found — as
//! sanitizer-style reports, or one JSON object (`--json`, the contract's
//! shape plus extra fields that `explore-merge` reads), optionally an SVG
//! of a finding's schedule. Exit 0: nothing found; 1: findings; 2: bad
//! usage or input. Everything that decides what is found lives in the
//! library; this file only parses, prints and draws.

use crate::{CmdResult, ExploreArgs, Failure, Outcome};
use alpha_emu::explore::{self, replay::Schedule, Found, Reported, Settings, Strategy};
use alpha_emu::linux::Options;
use alpha_isa::symbols::Symbols;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};

/// Instruction words and symbols of the program, for reports.
pub struct Code {
    sections: Vec<alpha_isa::elf::CodeSection>,
    syms: Symbols,
    /// `file:line` from the program's DWARF line tables.
    lines: alpha_emu::symbols::Symbolizer,
    /// The non-atomic sub-quadword store sites `alpha scan` finds.
    pub scan_sites: Vec<alpha_isa::scan::RmwStore>,
}

impl Code {
    pub fn new(elf: &[u8], path: &std::path::Path) -> Code {
        let sections = alpha_isa::elf::read_code(elf).unwrap_or_default();
        let syms = alpha_isa::elf::read_symbols(elf)
            .map(|s| Symbols::for_section(&s, ".text"))
            .unwrap_or_else(|_| Symbols::for_section(&[], ".text"));
        let secs: Vec<alpha_isa::scan::Code> = sections
            .iter()
            .map(|s| alpha_isa::scan::Code {
                addr: s.addr,
                bytes: &s.bytes,
            })
            .collect();
        let scan_sites = alpha_isa::scan::scan(&secs).stores;
        Code {
            sections,
            syms,
            lines: alpha_emu::symbols::Symbolizer::for_file(path),
            scan_sites,
        }
    }

    fn word(&self, pc: u64) -> Option<u32> {
        self.sections.iter().find_map(|s| {
            let off = pc.checked_sub(s.addr)? as usize;
            let b = s.bytes.get(off..off + 4)?;
            Some(u32::from_le_bytes(b.try_into().ok()?))
        })
    }

    pub fn symbol(&self, pc: u64) -> Option<String> {
        self.syms.describe(pc)
    }

    pub fn insn(&self, pc: u64) -> String {
        match self.word(pc) {
            Some(w) => alpha_isa::disasm(pc, w).replace('\t', " "),
            None => "?".into(),
        }
    }

    /// `file.c:12` for `pc`, when the program has line tables for it.
    pub fn line(&self, pc: u64) -> Option<String> {
        self.lines.lookup(pc).and_then(|l| l.file_line())
    }

    fn side(&self, thread: u32, pc: u64) -> Value {
        json!({
            "thread": thread,
            "pc": format!("{pc:#x}"),
            "symbol": self.symbol(pc),
            "line": self.line(pc),
            "insn": self.insn(pc),
        })
    }

    /// `pc <symbol> insn  file:line`, for the human report.
    fn at(&self, pc: u64) -> String {
        let sym = self
            .symbol(pc)
            .map(|s| format!(" <{s}>"))
            .unwrap_or_default();
        let line = self.line(pc).map(|l| format!("  {l}")).unwrap_or_default();
        format!("pc {pc:#x}{sym}  {}{line}", self.insn(pc))
    }
}

/// The command line that reruns one schedule.
fn replay_command(a: &ExploreArgs, cpu: &str, sched: &Schedule) -> String {
    let mut v = vec!["subword alpha explore".to_string(), format!("--cpu {cpu}")];
    if let Some(r) = &a.sysroot {
        v.push(format!("--sysroot {}", r.display()));
    }
    if let Some(l) = a.lock_range {
        v.push(format!("--lock-range {l}"));
    }
    if let Some(m) = a.max_insns {
        v.push(format!("--max-insns {m}"));
    }
    v.push(format!("--replay {sched}"));
    v.extend(a.program.iter().cloned());
    v.join(" ")
}

/// The dedup key `explore-merge` uses: kind and the sites' pcs.
pub fn site_string(f: &Found) -> String {
    let k = f.site_key();
    let pcs: Vec<String> = k.pcs.iter().map(|p| format!("{p:#x}")).collect();
    format!("{}:{}", k.kind, pcs.join(","))
}

fn finding_json(code: &Code, cpu: &str, r: &Reported, replay: &str) -> Value {
    let mut v = match &r.found {
        Found::Detector(f) => {
            let mut by = code.side(f.by.thread, f.by.pc);
            if let Some(l) = f.by_load_pc {
                by["load_pc"] = json!(format!("{l:#x}"));
                by["load_symbol"] = json!(code.symbol(l));
                by["load_insn"] = json!(code.insn(l));
            }
            json!({
            "kind": f.kind.as_str(),
            "address": format!("{:#x}", f.address),
            "bytes": f.bytes.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>(),
            "by": by,
            "lost": f.other.map(|o| code.side(o.thread, o.pc)),
            "other_address": f.other_address.map(|a| format!("{a:#x}")),
            "lock_range": f.lock_range,
            "rule": f.rule,
            "offending": f.offending_pc.map(|p| code.side(f.by.thread, p)),
            })
        }
        Found::Deadlock { blocked } => json!({
            "kind": "deadlock",
            "address": null,
            "by": blocked.first().map(|b| code.side(b.0, b.1)),
            "lost": blocked.get(1).map(|b| code.side(b.0, b.1)),
            "blocked": blocked.iter().map(|b| code.side(b.0, b.1)).collect::<Vec<_>>(),
        }),
        Found::Crash {
            thread,
            pc,
            signal,
            why,
        } => json!({
            "kind": "crash",
            "address": null,
            "by": code.side(*thread, *pc),
            "lost": null,
            "signal": signal,
            "why": why,
        }),
    };
    v["replay"] = json!(r.schedule.to_string());
    v["replay_command"] = json!(replay);
    v["cpu"] = json!(cpu);
    v["site"] = json!(site_string(&r.found));
    v["schedule"] = json!(r.first_schedule);
    v["hits"] = json!(r.hits);
    v["preemptions"] = json!(r.schedule.preemptions());
    v["original_preemptions"] = json!(r.original_preemptions);
    v
}

fn write_finding(
    out: &mut impl Write,
    code: &Code,
    r: &Reported,
    replay: &str,
) -> std::io::Result<()> {
    match &r.found {
        Found::Detector(f) => {
            let bytes = if f.bytes.len() > 1 {
                format!(
                    " ({} bytes: {})",
                    f.bytes.len(),
                    f.bytes
                        .iter()
                        .map(|b| format!("{b:#x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            } else {
                String::new()
            };
            writeln!(out, "==== {} at {:#x}{bytes}", f.kind.as_str(), f.address)?;
            let (by, other) = match f.kind.as_str() {
                "lost-store" => ("write-back", "lost store"),
                "lock-range-contention" => ("failed STx_C", "other store"),
                _ => ("LDx_L", "other"),
            };
            writeln!(
                out,
                "  {by:<12} thread {}  {}",
                f.by.thread,
                code.at(f.by.pc)
            )?;
            if let Some(l) = f.by_load_pc {
                writeln!(
                    out,
                    "  {:<12} thread {}  {}",
                    "its load",
                    f.by.thread,
                    code.at(l)
                )?;
            }
            if let Some(o) = f.other {
                let addr = f
                    .other_address
                    .map(|a| format!("  (to {a:#x}, {} bytes away)", a.abs_diff(f.address)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "  {other:<12} thread {}  {}{addr}",
                    o.thread,
                    code.at(o.pc)
                )?;
            }
            if let Some(lr) = f.lock_range {
                writeln!(
                    out,
                    "  lock range   {lr} bytes: separate the two by at least 128 bytes, or fold them into one word"
                )?;
            }
            if let Some(rule) = f.rule {
                writeln!(out, "  rule         {rule}")?;
            }
            if let Some(p) = f.offending_pc {
                writeln!(out, "  offending    {}", code.at(p))?;
            }
        }
        Found::Deadlock { blocked } => {
            writeln!(out, "==== deadlock: every live thread is blocked")?;
            for (t, pc) in blocked {
                writeln!(out, "  blocked      thread {t}  {}", code.at(*pc))?;
            }
        }
        Found::Crash {
            thread, pc, why, ..
        } => {
            writeln!(out, "==== crash: {why}")?;
            writeln!(out, "  thread {thread}  {}", code.at(*pc))?;
        }
    }
    writeln!(
        out,
        "  schedule {} first showed it ({} schedules in all); minimised from {} to {} preemption(s)",
        r.first_schedule,
        r.hits,
        r.original_preemptions,
        r.schedule.preemptions()
    )?;
    writeln!(out, "  replay: {replay}")?;
    Ok(())
}

fn parse_shard(s: &str) -> Result<(u64, u64), Failure> {
    let bad = || Failure(format!("--shard {s}: expected I/N with 1 <= I <= N"));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let i: u64 = i.trim().parse().map_err(|_| bad())?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// One model's exploration, for printing.
struct ModelRun {
    cpu: String,
    report: explore::Report,
}

pub fn run(a: ExploreArgs) -> CmdResult {
    let cpus: Vec<&str> = a.cpu.split(',').map(str::trim).collect();
    let mut models = Vec::new();
    for c in &cpus {
        models.push(super::run::model(c)?);
    }
    let lock_range = super::run::lock_range(a.lock_range)?;
    let strategy = Strategy::parse(a.strategy.as_deref().unwrap_or("pct")).map_err(Failure)?;
    let shard = match &a.shard {
        Some(s) => parse_shard(s)?,
        None => (1, 1),
    };
    let replay = match &a.replay {
        Some(r) => Some(Schedule::parse(r).map_err(Failure)?),
        None => None,
    };
    if a.schedules == Some(0) {
        return Err(Failure("--schedules must be at least 1".into()));
    }
    if a.jobs == Some(0) {
        return Err(Failure("--jobs must be at least 1".into()));
    }
    if a.depth == Some(0) {
        return Err(Failure("--depth must be at least 1".into()));
    }
    let path = a.program[0].clone();
    let elf = std::fs::read(&path).map_err(|e| Failure(format!("{path}: {e}")))?;
    let code = Code::new(&elf, std::path::Path::new(&path));
    let mut runs = Vec::new();
    for (m, cpu) in models.iter().zip(&cpus) {
        let mut opts = Options::new(m, a.program.clone());
        opts.lock_range = lock_range;
        opts.sysroot = a.sysroot.clone();
        let mut s = Settings::new(opts);
        s.strategy = strategy;
        s.schedules = a.schedules.unwrap_or(1000);
        s.seed = a.seed.unwrap_or(0);
        s.depth = a.depth.unwrap_or(3).min(1000) as u32;
        s.preemptions = a.preemptions.unwrap_or(2).min(64) as u32;
        s.max_insns = a.max_insns.unwrap_or(explore::DEFAULT_MAX_INSNS);
        s.time_limit = a.time_limit.map(std::time::Duration::from_secs);
        s.jobs = a.jobs.unwrap_or(1).min(256) as usize;
        s.shard = shard;
        let report = match &replay {
            Some(sched) => {
                replay_report(&elf, &s, sched).map_err(|e| Failure(format!("{path}: {e}")))?
            }
            None => {
                let bar = progress_bar(&a, cpu);
                let r = explore::explore(&elf, &s, &|p| {
                    if let Some(b) = &bar {
                        b.set_length(p.total);
                        b.set_position(p.done);
                        b.set_message(format!("{} finding(s)", p.findings));
                    }
                });
                if let Some(b) = bar {
                    b.finish_and_clear();
                }
                r.map_err(|e| Failure(format!("{path}: {e}")))?
            }
        };
        runs.push(ModelRun {
            cpu: cpu.to_string(),
            report,
        });
    }
    if let Some(svg) = &a.svg {
        if let Some((r, cpu)) = runs
            .iter()
            .find_map(|m| m.report.findings.first().map(|f| (f, &m.cpu)))
        {
            std::fs::write(svg, super::explore_svg::draw(&code, r, cpu))
                .map_err(|e| Failure(format!("{}: {e}", svg.display())))?;
        }
    }
    let any = runs.iter().any(|m| !m.report.findings.is_empty());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if a.json {
        writeln!(out, "{}", to_json(&a, &code, &runs, strategy))
    } else {
        write_text(&mut out, &a, &code, &runs, strategy)
    };
    match res.and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Failure(format!("writing the report: {e}"))),
    }
    Ok(Outcome::Status(if any { 1 } else { 0 }))
}

/// `--replay`: one schedule, every finding it shows.
fn replay_report(elf: &[u8], s: &Settings, sched: &Schedule) -> Result<explore::Report, String> {
    let o = explore::replay_one(elf, s, sched, None)?;
    let mut seen = BTreeSet::new();
    let mut findings = Vec::new();
    for (f, _) in o.findings {
        if !seen.insert(f.site_key()) {
            continue;
        }
        let steps = match explore::watch_of(&f) {
            Some(w) => explore::replay_one(elf, s, sched, Some(w))?.steps,
            None => Vec::new(),
        };
        findings.push(Reported {
            found: f,
            schedule: sched.clone(),
            first_schedule: 0,
            original_preemptions: sched.preemptions(),
            hits: 1,
            steps,
        });
    }
    Ok(explore::Report {
        schedules_run: 1,
        findings,
        threads: o.threads,
        insns: o.insns,
        insn_limited: o.insn_limit as u64,
        store_pcs: o.store_pcs.into_iter().collect(),
        ..Default::default()
    })
}

fn progress_bar(a: &ExploreArgs, cpu: &str) -> Option<indicatif::ProgressBar> {
    if a.json || !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new(0);
    b.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{cpu} [{{bar:30}}] {{pos}}/{{len}} schedules, {{per_sec}}, {{msg}}"
        ))
        .ok()?,
    );
    Some(b)
}

/// Scanned store sites (store pcs) that no schedule executed.
fn unexercised(code: &Code, runs: &[ModelRun]) -> Vec<u64> {
    code.scan_sites
        .iter()
        .map(|s| s.store)
        .filter(|pc| !runs.iter().any(|m| m.report.store_pcs.contains(pc)))
        .collect()
}

/// Sites found on the first model that no later model shows.
fn disappearing(runs: &[ModelRun]) -> Vec<String> {
    let Some((first, rest)) = runs.split_first() else {
        return Vec::new();
    };
    first
        .report
        .findings
        .iter()
        .map(|r| site_string(&r.found))
        .filter(|k| {
            !rest.is_empty()
                && rest.iter().all(|m| {
                    !m.report
                        .findings
                        .iter()
                        .any(|r| &site_string(&r.found) == k)
                })
        })
        .collect()
}

fn to_json(a: &ExploreArgs, code: &Code, runs: &[ModelRun], strategy: Strategy) -> Value {
    let mut findings = Vec::new();
    for m in runs {
        for r in &m.report.findings {
            let cmd = replay_command(a, &m.cpu, &r.schedule);
            findings.push(finding_json(code, &m.cpu, r, &cmd));
        }
    }
    let sites: Vec<String> = code
        .scan_sites
        .iter()
        .map(|s| format!("{:#x}", s.store))
        .collect();
    let exercised: Vec<String> = code
        .scan_sites
        .iter()
        .filter(|s| runs.iter().any(|m| m.report.store_pcs.contains(&s.store)))
        .map(|s| format!("{:#x}", s.store))
        .collect();
    let covered = runs
        .iter()
        .map(|m| m.report.covered)
        .collect::<Option<Vec<bool>>>()
        .map(|v| v.iter().all(|&c| c));
    json!({
        "schedules_run": runs.iter().map(|m| m.report.schedules_run).sum::<u64>(),
        "findings": findings,
        "strategy": strategy.name(),
        "cpus": runs.iter().map(|m| m.cpu.clone()).collect::<Vec<_>>(),
        "shard": a.shard.clone().unwrap_or_else(|| "1/1".into()),
        "threads": runs.iter().map(|m| m.report.threads).max().unwrap_or(0),
        "covered": covered,
        "insn_limited": runs.iter().map(|m| m.report.insn_limited).sum::<u64>(),
        "store_sites": sites,
        "exercised_store_sites": exercised,
        "unexercised_store_sites": unexercised(code, runs).iter().map(|p| format!("{p:#x}")).collect::<Vec<_>>(),
        "disappear_with_later_cpus": disappearing(runs),
    })
}

fn write_text(
    out: &mut impl Write,
    a: &ExploreArgs,
    code: &Code,
    runs: &[ModelRun],
    strategy: Strategy,
) -> std::io::Result<()> {
    let prog = &a.program[0];
    for m in runs {
        let r = &m.report;
        if r.single_threaded() {
            writeln!(
                out,
                "{prog} on {}: the program never runs a second thread, so nothing can interleave; no schedule to explore",
                m.cpu
            )?;
            continue;
        }
        for f in &r.findings {
            write_finding(out, code, f, &replay_command(a, &m.cpu, &f.schedule))?;
        }
        let secs = r.elapsed.as_secs_f64().max(1e-9);
        let what = if a.replay.is_some() {
            format!("replayed 1 schedule ({} guest instructions)", r.insns)
        } else {
            format!(
                "{} schedule(s) ({}, {:.2} s, {:.0} schedules/s, {:.1}M guest insns/s)",
                r.schedules_run,
                strategy.name(),
                secs,
                r.schedules_run as f64 / secs,
                r.insns as f64 / secs / 1e6
            )
        };
        writeln!(
            out,
            "{prog} on {}: {what}, {} finding(s)",
            m.cpu,
            r.findings.len()
        )?;
        if let Some(c) = r.covered {
            let lv: Vec<String> = r
                .per_level
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{n} with {i}"))
                .collect();
            writeln!(
                out,
                "  exhaustive: {} (schedules by preemptions: {})",
                if c {
                    format!(
                        "covered every schedule with at most {} preemption(s)",
                        a.preemptions.unwrap_or(2)
                    )
                } else {
                    "the space was NOT covered (raise --schedules or --time-limit)".into()
                },
                lv.join(", ")
            )?;
        }
        if r.timed_out {
            writeln!(out, "  stopped by --time-limit")?;
        }
        if r.insn_limited > 0 {
            writeln!(
                out,
                "  {} schedule(s) cut off by --max-insns",
                r.insn_limited
            )?;
        }
    }
    let gone = disappearing(runs);
    if runs.len() > 1 {
        if gone.is_empty() {
            writeln!(
                out,
                "no finding on {} disappears on {}",
                runs[0].cpu,
                runs[1..]
                    .iter()
                    .map(|m| m.cpu.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            )?;
        } else {
            writeln!(
                out,
                "findings on {} that disappear on the later model(s):",
                runs[0].cpu
            )?;
            for g in gone {
                writeln!(out, "  {g}")?;
            }
        }
    }
    if !code.scan_sites.is_empty() && runs.iter().any(|m| !m.report.single_threaded()) {
        let un = unexercised(code, runs);
        writeln!(
            out,
            "coverage: {} of {} non-atomic sub-quadword store site(s) found by `alpha scan` were exercised",
            code.scan_sites.len() - un.len(),
            code.scan_sites.len()
        )?;
        for pc in un.iter().take(10) {
            writeln!(out, "  never exercised: {}", code.at(*pc))?;
        }
        if un.len() > 10 {
            writeln!(
                out,
                "  … and {} more (`--json` lists them all)",
                un.len() - 10
            )?;
        }
    }
    Ok(())
}
