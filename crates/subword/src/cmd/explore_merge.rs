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
//! findings.

use crate::{CmdResult, ExploreMergeArgs, Failure, Outcome};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn read(name: &str) -> Result<Value, Failure> {
    let text =
        crate::files::read_text(name.as_ref(), crate::files::Input::Shard).map_err(Failure)?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| Failure(format!("{name}: not `alpha explore --json` output: {e}")))?;
    if !v["schedules_run"].is_u64() || !v["findings"].is_array() {
        return Err(Failure(format!(
            "{name}: not `alpha explore --json` output (no schedules_run/findings)"
        )));
    }
    Ok(v)
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The inputs' `shard` fields (`I/N`; none is `1/1`) must name every
/// slice of one split exactly once: a slice given twice would count its
/// schedules twice, and a missing one would make the merged object claim
/// (`"shard": "1/1"`) an exploration that never ran.
fn check_shards(inputs: &[Value]) -> Result<(), String> {
    let mut split: Option<u64> = None;
    let mut seen = std::collections::BTreeSet::new();
    for v in inputs {
        let s = v["shard"].as_str().unwrap_or("1/1");
        let bad = || format!("shard `{s}` in an input is not I/N");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: u64 = i.parse().map_err(|_| bad())?;
        let n: u64 = n.parse().map_err(|_| bad())?;
        if i == 0 || i > n {
            return Err(bad());
        }
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
    let missing: Vec<String> = (1..=n)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard(s) {} missing: merge the outputs of all {n} shards",
            missing.join(", ")
        ));
    }
    Ok(())
}

/// Merge parsed outputs (in any order) into one.
pub fn merge(inputs: &[Value]) -> Result<Value, String> {
    let first = inputs.first().ok_or("nothing to merge")?;
    let cpus = strs(&first["cpus"]);
    for v in inputs {
        if strs(&v["cpus"]) != cpus || v["strategy"] != first["strategy"] {
            return Err("the inputs explored different models or strategies".into());
        }
        if v["programs"] != first["programs"] {
            return Err("the inputs explored different programs".into());
        }
    }
    check_shards(inputs)?;
    for v in inputs {
        if v["options"] != first["options"] {
            return Err(format!(
                "the inputs explored with different options ({} and {})",
                first["options"], v["options"]
            ));
        }
    }
    let mut best: BTreeMap<(String, String), Value> = BTreeMap::new();
    for v in inputs {
        for f in v["findings"].as_array().into_iter().flatten() {
            let key = (
                f["cpu"].as_str().unwrap_or("").to_string(),
                f["site"].as_str().unwrap_or("").to_string(),
            );
            let hits = f["hits"].as_u64().unwrap_or(1);
            match best.get_mut(&key) {
                None => {
                    best.insert(key, f.clone());
                }
                Some(b) => {
                    let total = b["hits"].as_u64().unwrap_or(1) + hits;
                    if f["schedule"].as_u64() < b["schedule"].as_u64() {
                        *b = f.clone();
                    }
                    b["hits"] = json!(total);
                }
            }
        }
    }
    let mut findings: Vec<Value> = best.into_values().collect();
    let cpu_index = |f: &Value| {
        cpus.iter()
            .position(|c| Some(c.as_str()) == f["cpu"].as_str())
            .unwrap_or(usize::MAX)
    };
    findings.sort_by_key(|f| (cpu_index(f), f["schedule"].as_u64().unwrap_or(u64::MAX)));
    let sites = strs(&first["store_sites"]);
    let exercised_any: std::collections::BTreeSet<String> = inputs
        .iter()
        .flat_map(|v| strs(&v["exercised_store_sites"]))
        .collect();
    let exercised: Vec<&String> = sites
        .iter()
        .filter(|s| exercised_any.contains(*s))
        .collect();
    let unexercised: Vec<&String> = sites
        .iter()
        .filter(|s| !exercised_any.contains(*s))
        .collect();
    let covered = if inputs.iter().all(|v| v["covered"].is_boolean()) {
        json!(inputs.iter().all(|v| v["covered"] == json!(true)))
    } else {
        Value::Null
    };
    // As `explore` compares models: by source site (`file:line` or
    // function of each side), each once.
    let site_of = |f: &Value| {
        f["source_site"]
            .as_str()
            .or(f["site"].as_str())
            .unwrap_or("")
            .to_string()
    };
    let mut gone: Vec<String> = Vec::new();
    if cpus.len() > 1 {
        for f in &findings {
            let s = site_of(f);
            if f["cpu"].as_str() == Some(cpus[0].as_str())
                && !gone.contains(&s)
                && !findings
                    .iter()
                    .any(|g| g["cpu"].as_str() != Some(cpus[0].as_str()) && site_of(g) == s)
            {
                gone.push(s);
            }
        }
    }
    let details: Vec<Value> = first["store_site_details"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let mut d = d.clone();
            let pc = d["pc"].as_str().unwrap_or("").to_string();
            d["exercised"] = json!(exercised_any.contains(&pc));
            d
        })
        .collect();
    Ok(json!({
        "schedules_run": inputs.iter().filter_map(|v| v["schedules_run"].as_u64()).sum::<u64>(),
        "findings": findings,
        "strategy": first["strategy"],
        "options": first["options"],
        "cpus": cpus,
        "programs": first["programs"],
        "shard": "1/1",
        "threads": inputs.iter().filter_map(|v| v["threads"].as_u64()).max().unwrap_or(0),
        "covered": covered,
        "insn_limited": inputs.iter().filter_map(|v| v["insn_limited"].as_u64()).sum::<u64>(),
        "timed_out": inputs.iter().any(|v| v["timed_out"] == json!(true)),
        "store_sites": sites,
        "exercised_store_sites": exercised,
        "unexercised_store_sites": unexercised,
        "store_site_details": details,
        "disappear_with_later_cpus": gone,
    }))
}

pub fn run(a: ExploreMergeArgs) -> CmdResult {
    let mut inputs = Vec::new();
    for f in &a.files {
        inputs.push(read(f)?);
    }
    let m = merge(&inputs).map_err(Failure)?;
    let any = m["findings"].as_array().is_some_and(|f| !f.is_empty());
    println!("{m}");
    Ok(Outcome::Status(if any { 1 } else { 0 }))
}
