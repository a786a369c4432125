//! `subword alpha explore`: runs a multi-threaded guest under many
//! schedules (`alpha_emu::explore`) and prints what was found — as
//! sanitizer-style reports, or one JSON object (`--json`, the contract's
//! shape plus extra fields that `explore-merge` reads), optionally an SVG
//! of a finding's schedule. Exit 0: nothing found; 1: findings; 2: bad
//! usage or input. Everything that decides what is found lives in the
//! library; this file only parses, prints and draws.
//!
//! While schedules run, a progress bar (schedules done/total,
//! schedules/s, findings so far) is drawn on stderr when stderr is a
//! terminal and `--json` is not given, whatever stdout is: `explore PROG >
//! report.txt` on a terminal shows the bar and the file gets the report
//! alone (as cargo does); with stderr redirected, or `--json`, nothing of
//! it is drawn anywhere. The report on stdout never carries any of it.

use super::explore_json::{Explore, ExploreOptions, Finding, StoreSite};
use crate::{CmdResult, ExploreArgs, Failure, Outcome};
use alpha_emu::explore::{self, replay::Schedule, Found, Reported, Settings, Strategy};
use alpha_emu::linux::Options;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};

/// Names for the pcs of one run: the program, its loader and libraries
/// as the run loaded them (`alpha_emu::symbols::Symbolizer` over the
/// run's loaded objects, so a PIE program's and a library's pcs get their
/// symbols, instruction words and `file:line`), and the program's scanned
/// store sites.
pub struct Code {
    /// The run's loaded objects (the program first), or the program file
    /// alone at its link-time addresses when the run recorded none.
    names: alpha_emu::symbols::Symbolizer,
    /// The program's mapping: pcs in `[start, end)` are the program's.
    prog: (u64, u64),
    /// The program's load bias (0 unless it is PIE).
    pub bias: u64,
    /// The non-atomic sub-quadword store sites `alpha scan` finds in the
    /// program, at its link-time addresses.
    pub scan_sites: Vec<alpha_isa::scan::RmwStore>,
}

impl Code {
    /// `elf`, read from `path`, as run `objects` (a run's loaded objects;
    /// empty: the file at its own addresses).
    pub fn new(
        elf: &[u8],
        path: &std::path::Path,
        objects: &[alpha_emu::symbols::LoadedObject],
    ) -> Code {
        let sections = alpha_isa::elf::read_code(elf).unwrap_or_default();
        let secs: Vec<alpha_isa::scan::Code> = sections
            .iter()
            .map(|s| alpha_isa::scan::Code {
                addr: s.addr,
                bytes: &s.bytes,
            })
            .collect();
        let scan_sites = alpha_isa::scan::scan(&secs).stores;
        let mut c = Code::renamed(path, objects);
        c.scan_sites = scan_sites;
        c
    }

    /// The same program's names for another run's `objects` (its store
    /// sites are not scanned).
    fn renamed(path: &std::path::Path, objects: &[alpha_emu::symbols::LoadedObject]) -> Code {
        match objects.first() {
            Some(p) => Code {
                names: alpha_emu::symbols::Symbolizer::new(objects.to_vec()),
                prog: (p.start, p.end),
                bias: alpha_emu::symbols::mapping_bias(p).unwrap_or(0),
                scan_sites: Vec::new(),
            },
            None => Code {
                names: alpha_emu::symbols::Symbolizer::for_file(path),
                prog: (0, u64::MAX),
                bias: 0,
                scan_sites: Vec::new(),
            },
        }
    }

    /// `pc` lies in the program (not the loader or a library).
    fn in_program(&self, pc: u64) -> bool {
        self.prog.0 <= pc && pc < self.prog.1
    }

    /// The run-time pc of the program's link-time address `link`.
    pub fn runtime(&self, link: u64) -> u64 {
        link.wrapping_add(self.bias)
    }

    /// `func+0xNN` (or `libfoo.so+0xNN` where a library has no symbol).
    pub fn symbol(&self, pc: u64) -> Option<String> {
        let l = self.names.lookup(pc)?;
        (l.symbol.is_some() || !self.in_program(pc)).then(|| l.symbol_text())
    }

    /// The file name of the library or loader holding `pc`; `None` for
    /// the program's own pcs.
    pub fn object(&self, pc: u64) -> Option<String> {
        if self.in_program(pc) {
            return None;
        }
        self.names.lookup(pc).map(|l| l.object_name())
    }

    /// The function `pc` is in, without the offset.
    fn function(&self, pc: u64) -> Option<String> {
        self.names.lookup(pc)?.symbol
    }

    pub fn insn(&self, pc: u64) -> String {
        match self.names.word(pc) {
            Some(w) => alpha_isa::disasm(pc, w).replace('\t', " "),
            None => "?".into(),
        }
    }

    /// `file.c:12` for `pc`, when its object has line tables for it.
    pub fn line(&self, pc: u64) -> Option<String> {
        self.names.lookup(pc).and_then(|l| l.file_line())
    }

    fn side(&self, thread: u32, pc: u64) -> Value {
        let mut v = json!({
            "thread": thread,
            "pc": format!("{pc:#x}"),
            "symbol": self.symbol(pc),
            "line": self.line(pc),
            "insn": self.insn(pc),
        });
        if let Some((o, link)) = self.names.link_address(pc) {
            if link != pc {
                v["link_pc"] = json!(format!("{link:#x}"));
            }
            if !self.in_program(pc) {
                v["object"] = json!(o.path.display().to_string());
            }
        }
        v
    }

    /// Where `pc` is in source terms, for matching findings across
    /// binaries: `file:line`, else the function, else the library and
    /// link-time offset (`libc.so.6.1+0x9d0c0`), else the pc.
    fn source(&self, pc: u64) -> String {
        self.line(pc)
            .or_else(|| self.function(pc))
            .or_else(|| self.symbol(pc))
            .unwrap_or_else(|| format!("{pc:#x}"))
    }

    /// `pc <symbol> insn  file:line` (` in libfoo.so` for a library's pc),
    /// for the human report.
    pub fn at(&self, pc: u64) -> String {
        let sym = self
            .symbol(pc)
            .map(|s| format!(" <{s}>"))
            .unwrap_or_default();
        let obj = self
            .object(pc)
            .map(|o| format!(" in {o}"))
            .unwrap_or_default();
        let line = self.line(pc).map(|l| format!("  {l}")).unwrap_or_default();
        format!("pc {pc:#x}{sym}{obj}  {}{line}", self.insn(pc))
    }
}

/// A finding's sites in source terms (kind, then each side's `file:line`
/// or function): what matches findings across the binaries of different
/// models, whose pcs differ.
pub fn source_site(code: &Code, f: &Found) -> String {
    let k = f.site_key();
    let pcs: Vec<String> = match f {
        Found::Crash { pc, signal, .. } => vec![code.source(*pc), format!("signal {signal}")],
        _ => k.pcs.iter().map(|&p| code.source(p)).collect(),
    };
    format!("{}:{}", k.kind, pcs.join(","))
}

/// The command line that reruns one schedule.
fn replay_command(a: &ExploreArgs, m: &ModelRun, sched: &Schedule) -> String {
    let cpu = &m.cpu;
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
    if let Some(m) = a.max_memory {
        v.push(format!("--max-memory {m}"));
    }
    v.push(format!("--replay {sched}"));
    v.push(m.program.clone());
    v.extend(a.program.iter().skip(1).cloned());
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
                by["load_line"] = json!(code.line(l));
                by["load_insn"] = json!(code.insn(l));
            }
            json!({
            "kind": f.kind.as_str(),
            "address": format!("{:#x}", f.address),
            "bytes": f.bytes.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>(),
            "by": by,
            "lost": f.other.map(|o| code.side(o.thread, o.pc)),
            "other_address": f.other_address.map(|a| format!("{a:#x}")),
            "distance": f.other_address.map(|a| a.abs_diff(f.address)),
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
    if let Some(c) = &r.cause {
        let q = c.address & !7;
        v["cause"] = json!({
            "kind": c.kind.as_str(),
            "site": site_string(&Found::Detector(c.clone())),
            "address": format!("{:#x}", c.address),
            "quadword": format!("{q:#x}"),
            "bytes": c.bytes.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>(),
            "load": c.by_load_pc.map(|l| code.side(c.by.thread, l)),
            "store": c.other.map(|o| code.side(o.thread, o.pc)),
            "write_back": code.side(c.by.thread, c.by.pc),
        });
        v["story"] = json!(story(c, &r.found)
            .iter()
            .map(|(what, t, pc)| {
                let mut e = code.side(*t, *pc);
                e["what"] = json!(what);
                e
            })
            .collect::<Vec<_>>());
    }
    v["replay"] = json!(r.schedule.to_string());
    v["replay_command"] = json!(replay);
    v["cpu"] = json!(cpu);
    v["site"] = json!(site_string(&r.found));
    v["source_site"] = json!(source_site(code, &r.found));
    v["schedule"] = json!(r.first_schedule);
    v["hits"] = json!(r.hits);
    v["preemptions"] = json!(r.schedule.preemptions());
    v["original_preemptions"] = json!(r.original_preemptions);
    v
}

/// The bytes a lost store named, as a range (`bytes 4-7 of the quadword`).
fn byte_range(d: &alpha_emu::detect::Finding) -> String {
    let offs: Vec<u64> = if d.bytes.is_empty() {
        vec![d.address & 7]
    } else {
        d.bytes.iter().map(|b| b & 7).collect()
    };
    let (lo, hi) = (
        offs.iter().min().copied().unwrap_or(0),
        offs.iter().max().copied().unwrap_or(0),
    );
    if lo == hi {
        format!("byte {lo}")
    } else {
        format!("bytes {lo}-{hi}")
    }
}

/// A deadlock's or crash's story told from the lost store that caused it:
/// the three anchors in the order they ran, then the consequence. Each
/// line is (what happened, thread, pc).
fn story(cause: &alpha_emu::detect::Finding, end: &Found) -> Vec<(String, u32, u64)> {
    let q = cause.address & !7;
    let mut v = Vec::new();
    let by = cause.by.thread;
    if let Some(l) = cause.by_load_pc {
        v.push((format!("loads the quadword at {q:#x}"), by, l));
    }
    if let Some(o) = cause.other {
        v.push((
            format!("stores into {} of it", byte_range(cause)),
            o.thread,
            o.pc,
        ));
    }
    let whose = cause.other.map_or("the other thread".to_string(), |o| {
        format!("thread {}", o.thread)
    });
    v.push((
        format!(
            "writes the quadword back: {whose}'s store to {} is lost",
            byte_range(cause)
        ),
        by,
        cause.by.pc,
    ));
    match end {
        Found::Deadlock { blocked } => {
            for &(t, pc) in blocked {
                v.push(("blocks for ever".to_string(), t, pc));
            }
        }
        Found::Crash {
            thread, pc, why, ..
        } => v.push((format!("dies: {why}"), *thread, *pc)),
        Found::Detector(_) => {}
    }
    v
}

/// One finding as a sanitizer-style report; `replayed`: it comes from
/// `--replay` (one schedule, run as given, nothing minimised).
fn write_finding(
    out: &mut impl Write,
    code: &Code,
    r: &Reported,
    replay: &str,
    replayed: bool,
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
        Found::Deadlock { .. } | Found::Crash { .. } if r.cause.is_some() => {
            let cause = r.cause.as_ref().map(|c| (c, story(c, &r.found)));
            if let Some((c, steps)) = cause {
                let what = match &r.found {
                    Found::Deadlock { .. } => "deadlock".to_string(),
                    Found::Crash { why, .. } => format!("crash ({why})"),
                    Found::Detector(_) => String::new(),
                };
                writeln!(
                    out,
                    "==== {what} caused by a lost store at {:#x}: one story",
                    c.address
                )?;
                for (i, (what, t, pc)) in steps.iter().enumerate() {
                    writeln!(out, "  {}. thread {t} {what}", i + 1)?;
                    writeln!(out, "       {}", code.at(*pc))?;
                }
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
    if replayed {
        writeln!(
            out,
            "  the replayed schedule shows it ({} preemption(s), run as given)",
            r.schedule.preemptions()
        )?;
    } else if r.schedule.preemptions() == 0 {
        // Nothing to minimise: the default schedule (which switches only
        // when a thread blocks, ends, or has run 1,000 decisions in a row)
        // shows it.
        writeln!(
            out,
            "  schedule {} first showed it ({} schedules in all); it needs no preemption: the default schedule shows it",
            r.first_schedule, r.hits,
        )?;
    } else {
        writeln!(
            out,
            "  schedule {} first showed it ({} schedules in all); minimised from {} to {} preemption(s)",
            r.first_schedule,
            r.hits,
            r.original_preemptions,
            r.schedule.preemptions()
        )?;
    }
    writeln!(out, "  replay: {replay}")?;
    Ok(())
}

fn parse_shard(s: &str) -> Result<(u64, u64), Failure> {
    super::explore_json::parse_shard(s).ok_or_else(|| {
        Failure(format!(
            "--shard {}: expected I/N with 1 <= I <= N (decimal or 0x hex)",
            super::explore_json::one_line(s)
        ))
    })
}

/// `--svg FILE` must be writable before any schedule runs, so a long run
/// does not end in "cannot write". An existing file is opened for
/// appending (and left as it is); a new one is created and removed again.
fn check_writable(path: &std::path::Path) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure(format!("--svg {}: {e}", path.display()));
    if path.is_dir() {
        return Err(Failure(format!(
            "--svg {}: is a directory, not a file",
            path.display()
        )));
    }
    if path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(fail)?;
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(fail)?;
        std::fs::remove_file(path).map_err(fail)?;
    }
    Ok(())
}

/// One model's exploration, for printing.
struct ModelRun {
    cpu: String,
    /// The program this model ran (`--program-for`, else PROGRAM).
    program: String,
    report: explore::Report,
    /// Names for the default schedule's loaded objects, and the program's
    /// scanned store sites.
    code: Code,
    /// Per finding, names for its own schedule's loaded objects where they
    /// differ from the default schedule's (a library loaded later).
    own: Vec<Option<Code>>,
}

impl ModelRun {
    /// The names for finding `i`.
    fn code_of(&self, i: usize) -> &Code {
        self.own
            .get(i)
            .and_then(Option::as_ref)
            .unwrap_or(&self.code)
    }

    /// `r` is the lost store another finding of this run (a deadlock or
    /// crash) names as its cause.
    fn is_cause(&self, r: &Reported) -> bool {
        let Found::Detector(d) = &r.found else {
            return false;
        };
        self.report
            .findings
            .iter()
            .filter_map(|o| o.cause.as_ref())
            .any(|c| c.site_key() == d.site_key())
    }

    /// Each finding with its names.
    fn findings(&self) -> impl Iterator<Item = (&Reported, &Code)> {
        self.report
            .findings
            .iter()
            .enumerate()
            .map(|(i, r)| (r, self.code_of(i)))
    }

    /// The program's scanned store sites some schedule of this model ran
    /// (link-time pcs).
    fn exercised(&self, site: &alpha_isa::scan::RmwStore) -> bool {
        self.report
            .store_pcs
            .contains(&self.code.runtime(site.store))
    }
}

/// `--program-for MODEL=PATH` values, as (model, path).
fn programs_for(a: &ExploreArgs, cpus: &[&str]) -> Result<Vec<(String, String)>, Failure> {
    let mut v: Vec<(String, String)> = Vec::new();
    for p in &a.program_for {
        let bad = || Failure(format!("--program-for {p}: expected MODEL=PROGRAM"));
        let (m, path) = p.split_once('=').ok_or_else(bad)?;
        let (m, path) = (m.trim(), path.trim());
        if m.is_empty() || path.is_empty() {
            return Err(bad());
        }
        if !cpus.contains(&m) {
            return Err(Failure(format!(
                "--program-for {p}: `{m}` is not in --cpu {}",
                a.cpu
            )));
        }
        if v.iter().any(|(c, _)| c == m) {
            return Err(Failure(format!("--program-for: `{m}` given twice")));
        }
        v.push((m.to_string(), path.to_string()));
    }
    Ok(v)
}

/// The largest `--depth` and `--preemptions` accepted (larger values are
/// refused rather than quietly lowered, so that an exhaustive run's
/// "covered every schedule with at most K preemption(s)" is about the K
/// the user gave).
const MAX_DEPTH: u64 = 1000;
const MAX_PREEMPTIONS: u64 = 64;

pub fn run(a: ExploreArgs) -> CmdResult {
    let cpus: Vec<&str> = a.cpu.split(',').map(str::trim).collect();
    let mut models = Vec::new();
    for c in &cpus {
        let m = super::run::model(c)?;
        if let Some(i) = models
            .iter()
            .position(|o: &&alpha_isa::Model| o.name == m.name)
        {
            return Err(Failure(format!(
                "--cpu {}: `{c}` names the same model as `{}`; list each model once",
                a.cpu, cpus[i]
            )));
        }
        models.push(m);
    }
    let per_model = programs_for(&a, &cpus)?;
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
    if a.max_memory == Some(0) {
        return Err(Failure(
            "--max-memory 0: the cap must be above 0 bytes (leave the option out for no cap)"
                .into(),
        ));
    }
    if let Some(p) = a
        .program
        .first()
        .filter(|p| p.starts_with('-') && p.len() > 1)
    {
        // Options end at PROGRAM, so an option clap does not know lands
        // here: name it as what it is rather than as a missing file.
        return Err(Failure(format!(
            "unknown option `{}` before PROGRAM (see subword alpha explore --help)",
            super::explore_json::one_line(p)
        )));
    }
    if let Some(svg) = &a.svg {
        check_writable(svg)?;
    }
    if a.schedules == Some(0) {
        return Err(Failure("--schedules must be at least 1".into()));
    }
    if a.jobs == Some(0) {
        return Err(Failure("--jobs must be at least 1".into()));
    }
    if a.depth == Some(0) {
        return Err(Failure("--depth must be at least 1".into()));
    }
    if let Some(d) = a.depth.filter(|&d| d > MAX_DEPTH) {
        return Err(Failure(format!("--depth {d}: at most {MAX_DEPTH}")));
    }
    if let Some(p) = a.preemptions.filter(|&p| p > MAX_PREEMPTIONS) {
        return Err(Failure(format!(
            "--preemptions {p}: at most {MAX_PREEMPTIONS}"
        )));
    }
    // Options the chosen strategy has no use for: said once, not refused
    // (a script may pass one set of options to every strategy).
    if a.replay.is_none() {
        let name = strategy.name();
        let unused = [
            ("--depth", a.depth.is_some(), "pct"),
            ("--preemptions", a.preemptions.is_some(), "exhaustive"),
        ];
        for (opt, given, only) in unused {
            if given && name != only {
                eprintln!(
                    "subword: warning: {opt} applies to --strategy {only} only; --strategy {name} ignores it"
                );
            }
        }
    }
    // Each model's program (the first model's is always PROGRAM), read once.
    let mut elfs: Vec<(String, Vec<u8>)> = Vec::new();
    let mut prog_of = Vec::new();
    for (i, cpu) in cpus.iter().enumerate() {
        let path = match per_model.iter().find(|(c, _)| c == cpu) {
            Some((_, p)) if i > 0 => p.clone(),
            Some((_, p)) if p != &a.program[0] => {
                return Err(Failure(format!(
                    "--program-for {cpu}={p}: the first model runs PROGRAM ({})",
                    a.program[0]
                )))
            }
            _ => a.program[0].clone(),
        };
        let k = match elfs.iter().position(|(p, _)| p == &path) {
            Some(k) => k,
            None => {
                let elf = crate::files::read_file(path.as_ref(), crate::files::Input::Elf)
                    .map_err(Failure)?;
                elfs.push((path, elf));
                elfs.len() - 1
            }
        };
        prog_of.push(k);
    }
    let mut runs = Vec::new();
    for ((m, cpu), &k) in models.iter().zip(&cpus).zip(&prog_of) {
        let (path, elf) = &elfs[k];
        let mut argv = a.program.clone();
        argv[0] = path.clone();
        let mut opts = Options::new(m, argv);
        opts.lock_range = lock_range;
        opts.sysroot = a.sysroot.clone();
        opts.max_memory = a.max_memory;
        let mut s = Settings::new(opts);
        s.strategy = strategy;
        s.schedules = a.schedules.unwrap_or(1000);
        s.seed = a.seed.unwrap_or(0);
        s.depth = a.depth.unwrap_or(3) as u32;
        s.preemptions = a.preemptions.unwrap_or(2) as u32;
        s.max_insns = a.max_insns.unwrap_or(explore::DEFAULT_MAX_INSNS);
        s.time_limit = a.time_limit.map(std::time::Duration::from_secs);
        s.jobs = a.jobs.unwrap_or(1).min(256) as usize;
        s.shard = shard;
        s.record_steps = a.svg.is_some();
        let report = match &replay {
            Some(sched) => {
                let (report, made, decisions) =
                    replay_report(elf, &s, sched).map_err(|e| Failure(format!("{path}: {e}")))?;
                if let Some(w) = unapplied_warning(sched, &made, decisions) {
                    eprintln!("subword: warning: --replay {sched} on {cpu}: {w}");
                }
                report
            }
            None => {
                let bar = progress_bar(&a, cpu);
                let r = explore::explore(elf, &s, &|p| {
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
        let file = std::path::Path::new(path);
        let code = Code::new(elf, file, &report.objects);
        let own = report
            .findings
            .iter()
            .map(|f| {
                (!f.objects.is_empty() && f.objects != report.objects)
                    .then(|| Code::renamed(file, &f.objects))
            })
            .collect();
        runs.push(ModelRun {
            cpu: cpu.to_string(),
            program: path.clone(),
            report,
            code,
            own,
        });
    }
    if let Some(svg) = &a.svg {
        match runs
            .iter()
            .find_map(|m| m.findings().next().map(|(r, c)| (r, c, &m.cpu)))
        {
            Some((r, code, cpu)) => std::fs::write(svg, super::explore_svg::draw(code, r, cpu))
                .map_err(|e| Failure(format!("{}: {e}", svg.display())))?,
            None => eprintln!(
                "subword: warning: --svg {}: no finding to draw, nothing written",
                svg.display()
            ),
        }
    }
    let any = runs.iter().any(|m| !m.report.findings.is_empty());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if a.json {
        let doc = to_json(&a, &runs, strategy).map_err(Failure)?;
        let text =
            serde_json::to_string(&doc).map_err(|e| Failure(format!("writing the report: {e}")))?;
        writeln!(out, "{text}")
    } else {
        write_text(&mut out, &a, &runs, strategy)
    };
    match res.and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Failure(format!("writing the report: {e}"))),
    }
    Ok(Outcome::Status(if any { 1 } else { 0 }))
}

/// What to tell the user when the replayed run did not make every
/// deviation `asked` names (`made`: those it made, in a run of `decisions`
/// decisions): the string was written for another program, model or
/// option set, or the program changed since. `None` when it made them all.
fn unapplied_warning(asked: &Schedule, made: &Schedule, decisions: u64) -> Option<String> {
    let missed: Vec<String> = asked
        .switches
        .iter()
        .filter(|s| !made.switches.contains(s))
        .map(|s| format!("{}.{}", s.k, s.thread))
        .collect();
    if missed.is_empty() {
        return None;
    }
    Some(format!(
        "the run made {decisions} scheduling decision(s) and could not take {} (no such decision, \
         that thread could not run there, or it ran there anyway), so it replayed {made}",
        missed.join(" ")
    ))
}

/// `--replay`: one schedule, every finding it shows; also the deviations
/// the run actually made and how many decisions it made.
fn replay_report(
    elf: &[u8],
    s: &Settings,
    sched: &Schedule,
) -> Result<(explore::Report, Schedule, u64), String> {
    let o = explore::replay_one(elf, s, sched, None)?;
    let (made, decisions) = (o.schedule.clone(), o.decisions);
    let mut seen = BTreeSet::new();
    let mut findings = Vec::new();
    for (f, _) in &o.findings {
        if !seen.insert(f.site_key()) {
            continue;
        }
        let cause = explore::cause_of(f, &o.findings);
        let f = f.clone();
        let steps = match explore::watch_of(&f) {
            Some(w) if s.record_steps => explore::replay_one(elf, s, sched, Some(w))?.steps,
            _ => Vec::new(),
        };
        findings.push(Reported {
            found: f,
            schedule: sched.clone(),
            first_schedule: 0,
            original_preemptions: sched.preemptions(),
            hits: 1,
            steps,
            objects: o.objects.clone(),
            cause,
        });
    }
    let report = explore::Report {
        schedules_run: 1,
        findings,
        threads: o.threads,
        insns: o.insns,
        insn_limited: o.insn_limit as u64,
        store_pcs: o.store_pcs.into_iter().collect(),
        objects: o.objects,
        ..Default::default()
    };
    Ok((report, made, decisions))
}

/// The progress bar for a run on `cpu`: on stderr, and only when stderr
/// is a terminal and `--json` is not given (the module doc's rule).
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

/// The runs of the first model's program (PROGRAM): what coverage counts.
fn first_program_runs(runs: &[ModelRun]) -> impl Iterator<Item = &ModelRun> {
    let first = runs.first().map(|m| m.program.clone());
    runs.iter()
        .filter(move |m| Some(&m.program) == first.as_ref())
}

/// PROGRAM's scanned store sites (link-time write-back pcs) that no
/// schedule of a model running PROGRAM executed.
fn unexercised(runs: &[ModelRun]) -> Vec<u64> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    first
        .code
        .scan_sites
        .iter()
        .filter(|s| !first_program_runs(runs).any(|m| m.exercised(s)))
        .map(|s| s.store)
        .collect()
}

/// Findings on the first model that no later model shows, matched by
/// source site (`file:line` or function of each side), so that a later
/// model's own binary (`--program-for`) is compared by what its code
/// means, not by its pcs.
fn disappearing(runs: &[ModelRun]) -> Vec<String> {
    let Some((first, rest)) = runs.split_first() else {
        return Vec::new();
    };
    if rest.is_empty() {
        return Vec::new();
    }
    let later: BTreeSet<String> = rest
        .iter()
        .flat_map(|m| m.findings().map(|(r, c)| source_site(c, &r.found)))
        .collect();
    let mut gone = Vec::new();
    for (r, c) in first.findings() {
        let k = source_site(c, &r.found);
        if !later.contains(&k) && !gone.contains(&k) {
            gone.push(k);
        }
    }
    gone
}

/// A finding's JSON object as the typed model's [`Finding`]: the fields
/// the merge computes with taken out of `v`, the rest kept as they are.
fn typed_finding(v: Value, cpu: &str, r: &Reported) -> Finding {
    let mut extra = match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    let mut take_str = |k: &str| match extra.remove(k) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let site = take_str("site").unwrap_or_default();
    let source_site = take_str("source_site");
    let kind = take_str("kind").unwrap_or_default();
    extra.remove("cpu");
    extra.remove("schedule");
    extra.remove("hits");
    Finding {
        kind,
        cpu: cpu.to_string(),
        site,
        source_site,
        schedule: r.first_schedule,
        hits: r.hits,
        extra,
    }
}

fn to_json(a: &ExploreArgs, runs: &[ModelRun], strategy: Strategy) -> Result<Explore, String> {
    let mut findings = Vec::new();
    for m in runs {
        for (r, code) in m.findings() {
            let cmd = replay_command(a, m, &r.schedule);
            let mut f = finding_json(code, &m.cpu, r, &cmd);
            if m.program != a.program[0] {
                f["program"] = json!(m.program);
            }
            if let Found::Detector(d) = &r.found {
                // The deadlock or crash this lost store caused.
                if let Some(end) = m.report.findings.iter().find(|o| {
                    o.cause
                        .as_ref()
                        .is_some_and(|c| c.site_key() == d.site_key())
                }) {
                    f["consequence"] = json!({
                        "kind": end.found.kind(),
                        "site": site_string(&end.found),
                    });
                }
            }
            findings.push(typed_finding(f, &m.cpu, r));
        }
    }
    let (sites, exercised, details) = match runs.first() {
        Some(first) => {
            let code = &first.code;
            let ex =
                |s: &alpha_isa::scan::RmwStore| first_program_runs(runs).any(|m| m.exercised(s));
            (
                code.scan_sites
                    .iter()
                    .map(|s| format!("{:#x}", s.store))
                    .collect::<Vec<_>>(),
                code.scan_sites
                    .iter()
                    .filter(|s| ex(s))
                    .map(|s| format!("{:#x}", s.store))
                    .collect::<Vec<_>>(),
                code.scan_sites
                    .iter()
                    .map(|s| {
                        let pc = code.runtime(s.store);
                        StoreSite {
                            pc: format!("{:#x}", s.store),
                            runtime_pc: format!("{pc:#x}"),
                            symbol: code.symbol(pc),
                            line: code.line(pc),
                            exercised: ex(s),
                            object: None,
                        }
                    })
                    .collect::<Vec<_>>(),
            )
        }
        None => Default::default(),
    };
    let covered = runs
        .iter()
        .map(|m| m.report.covered)
        .collect::<Option<Vec<bool>>>()
        .map(|v| v.iter().all(|&c| c));
    let sum = |f: &dyn Fn(&ModelRun) -> u64| {
        super::explore_json::checked_sum("counts", runs.iter().map(f))
    };
    Ok(Explore {
        schedules_run: sum(&|m| m.report.schedules_run)?,
        findings,
        strategy: strategy.name().to_string(),
        options: ExploreOptions {
            seed: a.seed.unwrap_or(0),
            schedules: a.schedules.unwrap_or(1000),
            depth: a.depth.unwrap_or(3),
            preemptions: a.preemptions.unwrap_or(2),
            max_insns: a.max_insns.unwrap_or(explore::DEFAULT_MAX_INSNS),
            lock_range: a.lock_range,
            time_limit: a.time_limit,
            max_memory: a.max_memory,
            args: a.program.get(1..).unwrap_or_default().to_vec(),
        },
        cpus: runs.iter().map(|m| m.cpu.clone()).collect(),
        programs: runs.iter().map(|m| m.program.clone()).collect(),
        shard: a.shard.clone().unwrap_or_else(|| "1/1".into()),
        threads: runs
            .iter()
            .map(|m| m.report.threads as u64)
            .max()
            .unwrap_or(0),
        covered,
        insn_limited: sum(&|m| m.report.insn_limited)?,
        timed_out: runs.iter().any(|m| m.report.timed_out),
        store_sites: sites,
        exercised_store_sites: exercised,
        unexercised_store_sites: unexercised(runs)
            .iter()
            .map(|p| format!("{p:#x}"))
            .collect(),
        store_site_details: details,
        object_coverage: Vec::new(),
        disappear_with_later_cpus: disappearing(runs),
    })
}

fn write_text(
    out: &mut impl Write,
    a: &ExploreArgs,
    runs: &[ModelRun],
    strategy: Strategy,
) -> std::io::Result<()> {
    for m in runs {
        let prog = &m.program;
        let r = &m.report;
        if r.single_threaded() {
            writeln!(
                out,
                "{prog} on {}: the program never runs a second thread, so nothing can interleave; no schedule to explore",
                m.cpu
            )?;
            continue;
        }
        let mut told = 0usize;
        for (f, code) in m.findings() {
            // A lost store that caused a deadlock or crash is told in that
            // finding's story, not twice.
            if m.is_cause(f) {
                continue;
            }
            told += 1;
            let cmd = replay_command(a, m, &f.schedule);
            write_finding(out, code, f, &cmd, a.replay.is_some())?;
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
        writeln!(out, "{prog} on {}: {what}, {told} finding(s)", m.cpu,)?;
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
        let later = runs[1..]
            .iter()
            .map(|m| m.cpu.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let rebuilt = if runs.iter().any(|m| m.program != runs[0].program) {
            " (each model's own program; findings matched by source line)"
        } else {
            ""
        };
        if gone.is_empty() {
            writeln!(
                out,
                "no finding on {} disappears on {later}{rebuilt}",
                runs[0].cpu
            )?;
        } else {
            writeln!(
                out,
                "findings on {} that disappear on {later}{rebuilt}:",
                runs[0].cpu
            )?;
            for g in gone {
                // The first finding of the site, its sides by name.
                let named = runs[0]
                    .findings()
                    .find(|(r, c)| source_site(c, &r.found) == g)
                    .map(|(r, c)| {
                        let k = r.found.site_key();
                        let sides: Vec<String> = k
                            .pcs
                            .iter()
                            .take(2)
                            .map(|&pc| {
                                let sym = c.symbol(pc).unwrap_or_else(|| format!("{pc:#x}"));
                                match c.line(pc) {
                                    Some(l) => format!("{sym} ({})", short_path(&l)),
                                    None => sym,
                                }
                            })
                            .collect();
                        format!("{}: {}", k.kind, sides.join(" / "))
                    });
                writeln!(out, "  {}", named.unwrap_or(g))?;
            }
        }
    }
    let Some(first) = runs.first() else {
        return Ok(());
    };
    let code = &first.code;
    if !code.scan_sites.is_empty() && runs.iter().any(|m| !m.report.single_threaded()) {
        let un = unexercised(runs);
        writeln!(
            out,
            "coverage: {} of {} non-atomic sub-quadword store site(s) `alpha scan` finds in {} were exercised",
            code.scan_sites.len() - un.len(),
            code.scan_sites.len(),
            first.program
        )?;
        for pc in un.iter().take(10) {
            writeln!(out, "  never exercised: {}", code.at(code.runtime(*pc)))?;
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

/// `file.c:12` of `/some/dir/file.c:12`.
fn short_path(line: &str) -> &str {
    line.rsplit('/').next().unwrap_or(line)
}
