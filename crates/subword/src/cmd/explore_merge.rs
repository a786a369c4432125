//! `subword alpha explore-merge FILE.json...`: merges the `--json` outputs
//! of several `alpha explore --shard I/N` runs (`-` reads standard input)
//! into one object of the same shape. Findings are deduplicated by model
//! and site (kind and pcs, the `site` field); of several shards' findings
//! for one site the one from the lowest schedule index is kept and the
//! hits are added, which is exactly what one unsharded run reports (see
//! `alpha_emu::explore`); store sites count as exercised when any shard
//! exercised them, and models are compared as `explore` compares them (by
//! `source_site`). The inputs must be every shard of one split exactly
//! once, explored with the same options (the `options` field); otherwise
//! the merge is refused (exit 2). Exit status as for `explore`: 0 none, 1
//! findings. The inputs are read into the typed model of
//! `explore_json` (a shard that is not `alpha explore --json` output is
//! refused with one line) and every sum is checked: counts that overflow
//! 64 bits are refused, not wrapped.

use super::explore_json::{checked_sum, one_line, Explore, Finding, ObjectCoverage, StoreSite};
use crate::{CmdResult, ExploreMergeArgs, Failure, Outcome};
use std::collections::{BTreeMap, BTreeSet};

fn read(name: &str) -> Result<Explore, Failure> {
    let text =
        crate::files::read_text(name.as_ref(), crate::files::Input::Shard).map_err(Failure)?;
    Explore::parse(&text).map_err(|e| Failure(format!("{}: {e}", one_line(name))))
}

/// The inputs' `shard` fields (`I/N`) must name every slice of one split
/// exactly once: a slice given twice would count its schedules twice, and
/// a missing one would make the merged object claim (`"shard": "1/1"`)
/// an exploration that never ran.
fn check_shards(inputs: &[Explore]) -> Result<(), String> {
    let mut split: Option<u64> = None;
    let mut seen = BTreeSet::new();
    for v in inputs {
        let (i, n) = v.shard()?;
        match split {
            Some(m) if m != n => {
                return Err(format!(
                    "the inputs are slices of different splits (shards of {m} and of {n})"
                ))
            }
            _ => split = Some(n),
        }
        if !seen.insert(i) {
            return Err(format!("shard {i}/{n} is given twice"));
        }
    }
    let n = split.unwrap_or(1);
    // More inputs than any split this large could have is caught above
    // (a repeat), so `n` here is at most the number of inputs when none
    // is missing: list at most a few missing ones.
    let missing: Vec<String> = (1..=n)
        .filter(|i| !seen.contains(i))
        .take(5)
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        let more = if n - seen.len() as u64 > missing.len() as u64 {
            " …"
        } else {
            ""
        };
        return Err(format!(
            "shard(s) {}{more} missing: merge the outputs of all {n} shards",
            missing.join(", ")
        ));
    }
    Ok(())
}

/// Merge parsed outputs (in any order) into one.
pub fn merge(inputs: &[Explore]) -> Result<Explore, String> {
    let first = inputs.first().ok_or("nothing to merge")?;
    let cpus = &first.cpus;
    for v in inputs {
        if &v.cpus != cpus || v.strategy != first.strategy {
            return Err("the inputs explored different models or strategies".into());
        }
        if v.programs != first.programs {
            return Err("the inputs explored different programs".into());
        }
    }
    check_shards(inputs)?;
    for v in inputs {
        if v.options != first.options {
            return Err(format!(
                "the inputs explored with different options ({} and {})",
                one_line(&serde_json::to_string(&first.options).unwrap_or_default()),
                one_line(&serde_json::to_string(&v.options).unwrap_or_default())
            ));
        }
    }
    let mut best: BTreeMap<(String, String), Finding> = BTreeMap::new();
    for v in inputs {
        for f in &v.findings {
            let key = (f.cpu.clone(), f.site.clone());
            match best.get_mut(&key) {
                None => {
                    best.insert(key, f.clone());
                }
                Some(b) => {
                    let total = checked_sum("hits of one finding", [b.hits, f.hits])?;
                    if f.schedule < b.schedule {
                        *b = f.clone();
                    }
                    b.hits = total;
                }
            }
        }
    }
    let mut findings: Vec<Finding> = best.into_values().collect();
    let cpu_index = |f: &Finding| cpus.iter().position(|c| c == &f.cpu).unwrap_or(usize::MAX);
    findings.sort_by_key(|f| (cpu_index(f), f.schedule));
    let sites = first.store_sites.clone();
    let exercised_any: BTreeSet<&String> = inputs
        .iter()
        .flat_map(|v| &v.exercised_store_sites)
        .collect();
    let exercised: Vec<String> = sites
        .iter()
        .filter(|s| exercised_any.contains(s))
        .cloned()
        .collect();
    let unexercised: Vec<String> = sites
        .iter()
        .filter(|s| !exercised_any.contains(s))
        .cloned()
        .collect();
    let covered = inputs
        .iter()
        .map(|v| v.covered)
        .collect::<Option<Vec<bool>>>()
        .map(|v| v.iter().all(|&c| c));
    // As `explore` compares models: by source site (`file:line` or
    // function of each side), each once.
    let site_of = |f: &Finding| f.source_site.clone().unwrap_or_else(|| f.site.clone());
    let mut gone: Vec<String> = Vec::new();
    if cpus.len() > 1 {
        for f in &findings {
            let s = site_of(f);
            if f.cpu == cpus[0]
                && !gone.contains(&s)
                && !findings.iter().any(|g| g.cpu != cpus[0] && site_of(g) == s)
            {
                gone.push(s);
            }
        }
    }
    let details: Vec<StoreSite> = first
        .store_site_details
        .iter()
        .map(|d| StoreSite {
            exercised: exercised_any.contains(&d.pc),
            ..d.clone()
        })
        .collect();
    // A library's sites: exercised in the merge as in the shard that
    // exercised the most of them (the shards do not list them one by one).
    let mut objects: Vec<ObjectCoverage> = first.object_coverage.clone();
    for o in &mut objects {
        o.exercised = inputs
            .iter()
            .flat_map(|v| &v.object_coverage)
            .filter(|p| p.object == o.object)
            .map(|p| p.exercised)
            .max()
            .unwrap_or(0);
    }
    Ok(Explore {
        schedules_run: checked_sum("schedules_run", inputs.iter().map(|v| v.schedules_run))?,
        findings,
        strategy: first.strategy.clone(),
        options: first.options.clone(),
        cpus: cpus.clone(),
        programs: first.programs.clone(),
        shard: "1/1".into(),
        threads: inputs.iter().map(|v| v.threads).max().unwrap_or(0),
        covered,
        insn_limited: checked_sum("insn_limited", inputs.iter().map(|v| v.insn_limited))?,
        timed_out: inputs.iter().any(|v| v.timed_out),
        store_sites: sites,
        exercised_store_sites: exercised,
        unexercised_store_sites: unexercised,
        store_site_details: details,
        object_coverage: objects,
        disappear_with_later_cpus: gone,
    })
}

pub fn run(a: ExploreMergeArgs) -> CmdResult {
    let mut inputs = Vec::new();
    for f in &a.files {
        inputs.push(read(f)?);
    }
    let m = merge(&inputs).map_err(Failure)?;
    let any = !m.findings.is_empty();
    let text = serde_json::to_string(&m)
        .map_err(|e| Failure(format!("writing the merged report: {e}")))?;
    println!("{text}");
    Ok(Outcome::Status(if any { 1 } else { 0 }))
}
