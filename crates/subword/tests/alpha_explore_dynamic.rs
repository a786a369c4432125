//! `subword alpha explore` on dynamic programs (non-PIE and PIE, pcs in
//! the program and in shared libraries, named from the loaded objects of
//! the run that found them), coverage of a dynamic program's own store
//! sites, and `--program-for`: each model of a `--cpu` list exploring its
//! own build, findings compared by source line.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
mod common;
use common::{one_stderr_line, subword};

const SYSROOT: &str = "/usr/alpha-linux-gnu";

fn explore_c(name: &str) -> PathBuf {
    testkit::explore_source_dir().join(format!("{name}.c"))
}

fn cli_c(name: &str) -> PathBuf {
    testkit::workspace_root().join(format!("crates/subword/tests/c/explore_cli/{name}.c"))
}

/// A fresh scratch folder for test `test`, or `None` (SKIPPED) without
/// the cross compiler.
fn scratch(test: &str) -> Option<PathBuf> {
    testkit::alpha_gcc(test)?;
    Some(testkit::scratch_dir(&format!(
        "alpha_explore_dynamic_{test}"
    )))
}

/// Build `src` with `-O2 -g -pthread -mcpu=CPU` plus `flags` into `dir`
/// as `out`.
fn build(dir: &Path, src: &Path, out: &str, cpu: &str, flags: &[&str]) -> PathBuf {
    let gcc = testkit::which("alpha-linux-gnu-gcc").expect("alpha-linux-gnu-gcc");
    let exe = dir.join(out);
    let o = std::process::Command::new(gcc)
        .args(["-O2", "-g", "-pthread", &format!("-mcpu={cpu}")])
        .args(flags)
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run gcc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    exe
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn explore(bin: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "alpha",
        "explore",
        "--json",
        "--sysroot",
        SYSROOT,
        "--schedules",
        "100",
    ];
    args.extend_from_slice(extra);
    args.push(bin.to_str().unwrap());
    json_of(&subword(&args))
}

fn findings<'a>(v: &'a Value, kind: &str) -> Vec<&'a Value> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .collect()
}

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// The function named by a side's `symbol` (`writer_a+0x38` → `writer_a`).
fn function(side: &Value) -> &str {
    str_of(side, "symbol").split('+').next().unwrap()
}

/// `adjacent_chars.c:17` of a side (the file name, without its folder).
fn file_line(side: &Value) -> String {
    let l = str_of(side, "line");
    l.rsplit('/').next().unwrap().to_string()
}

/// (write-back function, its line, lost-store function, its line) of each
/// lost-store finding, sorted.
fn lost_store_sides(v: &Value) -> Vec<(String, String, String, String)> {
    let mut s: Vec<_> = findings(v, "lost-store")
        .iter()
        .map(|f| {
            (
                function(&f["by"]).to_string(),
                file_line(&f["by"]),
                function(&f["lost"]).to_string(),
                file_line(&f["lost"]),
            )
        })
        .collect();
    s.sort();
    s
}

/// The program's own store sites (in `functions`) as (symbol, line,
/// exercised), sorted.
fn own_sites(v: &Value, functions: &[&str]) -> Vec<(String, String, bool)> {
    let mut s: Vec<_> = v["store_site_details"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| functions.contains(&function(d)))
        .map(|d| {
            (
                str_of(d, "symbol").to_string(),
                file_line(d),
                d["exercised"] == true,
            )
        })
        .collect();
    s.sort();
    s
}

#[test]
fn dynamic_and_pie_builds_name_the_race_by_symbol_and_line_and_cover_the_same_sites() {
    let Some(dir) = scratch("dynamic_pie") else {
        return;
    };
    let src = explore_c("adjacent_chars");
    let st = build(&dir, &src, "static", "ev4", &["-static", "-Wl,--no-relax"]);
    let dynamic = build(&dir, &src, "dynamic", "ev4", &[]);
    let pie = build(&dir, &src, "pie", "ev4", &["-fPIE", "-pie"]);
    let vs = explore(&st, &["--cpu", "ev4"]);
    let expected = lost_store_sides(&vs);
    assert!(!expected.is_empty(), "{vs:#}");
    for (a, la, b, lb) in &expected {
        let pair = [a.as_str(), b.as_str()];
        assert!(pair.contains(&"writer_a") && pair.contains(&"writer_b"));
        assert!(la.starts_with("adjacent_chars.c:") && lb.starts_with("adjacent_chars.c:"));
    }
    let fns = ["writer_a", "writer_b"];
    let static_sites = own_sites(&vs, &fns);
    assert_eq!(static_sites.len(), 2, "{static_sites:?}");
    assert!(static_sites.iter().all(|s| s.2), "{static_sites:?}");
    for (name, bin) in [("dynamic", &dynamic), ("pie", &pie)] {
        let v = explore(bin, &["--cpu", "ev4"]);
        assert_eq!(lost_store_sides(&v), expected, "{name}: {v:#}");
        assert_eq!(own_sites(&v, &fns), static_sites, "{name}: {v:#}");
        for f in findings(&v, "lost-store") {
            for side in [&f["by"], &f["lost"]] {
                assert!(str_of(side, "insn").starts_with("stq_u"), "{name}: {f:#}");
                assert!(side["object"].is_null(), "{name}: {f:#}");
            }
            assert!(str_of(&f["by"], "load_insn").starts_with("ldq_u"), "{f:#}");
        }
    }
    // The PIE program runs far from its link-time addresses: the pcs are
    // rebased, the link-time ones given as `link_pc`, and coverage lists
    // the link-time pcs `alpha scan` prints.
    let v = explore(&pie, &["--cpu", "ev4"]);
    let f = findings(&v, "lost-store")[0];
    let pc = u64::from_str_radix(str_of(&f["by"], "pc").trim_start_matches("0x"), 16).unwrap();
    let link =
        u64::from_str_radix(str_of(&f["by"], "link_pc").trim_start_matches("0x"), 16).unwrap();
    assert!(pc > link && link < 0x10_0000, "{f:#}");
    let scan = json_of(&subword(&[
        "alpha",
        "scan",
        "--json",
        pie.to_str().unwrap(),
    ]));
    let scanned: Vec<&str> = scan["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| str_of(s, "pc"))
        .collect();
    let listed: Vec<&str> = v["store_sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(listed, scanned);
    assert!(
        listed.contains(&f["by"]["link_pc"].as_str().unwrap()),
        "{v:#}"
    );
}

#[test]
fn a_race_inside_libc_is_named_by_the_library_function_and_replays() {
    let Some(dir) = scratch("libc") else {
        return;
    };
    let bin = build(
        &dir,
        &cli_c("lib_byte"),
        "lib_byte",
        "ev4",
        &["-fPIE", "-pie"],
    );
    let v = explore(&bin, &["--cpu", "ev4"]);
    let lost = findings(&v, "lost-store");
    assert!(!lost.is_empty(), "{v:#}");
    for f in &lost {
        let (lib, prog) = if f["by"]["object"].is_null() {
            (&f["lost"], &f["by"])
        } else {
            (&f["by"], &f["lost"])
        };
        assert!(str_of(lib, "object").ends_with("libc.so.6.1"), "{f:#}");
        assert!(["memmove", "memcpy"].contains(&function(lib)), "{f:#}");
        assert!(str_of(lib, "insn").starts_with("stq_u"), "{f:#}");
        assert_eq!(function(prog), "store_b", "{f:#}");
        assert!(file_line(prog).starts_with("lib_byte.c:"), "{f:#}");
        assert!(prog["object"].is_null(), "{f:#}");
    }
    // The replay of the first finding shows it again, named the same.
    let f = lost[0];
    let o = subword(&[
        "alpha",
        "explore",
        "--json",
        "--sysroot",
        SYSROOT,
        "--cpu",
        "ev4",
        "--replay",
        str_of(f, "replay"),
        bin.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let r = json_of(&o);
    let again = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["site"] == f["site"])
        .unwrap_or_else(|| panic!("{r:#}"));
    assert_eq!(again["by"], f["by"]);
    assert_eq!(again["lost"], f["lost"]);
    // The human report says which library holds the pc.
    let o = subword(&[
        "alpha",
        "explore",
        "--sysroot",
        SYSROOT,
        "--cpu",
        "ev4",
        "--replay",
        str_of(f, "replay"),
        bin.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        (text.contains("<memmove+0x") || text.contains("<memcpy+0x"))
            && text.contains(" in libc.so.6.1"),
        "{text}"
    );
    // `--svg` names the two sides under the drawing, the library's too.
    let svg = dir.join("race.svg");
    let o = subword(&[
        "alpha",
        "explore",
        "--sysroot",
        SYSROOT,
        "--cpu",
        "ev4",
        "--replay",
        str_of(f, "replay"),
        "--svg",
        svg.to_str().unwrap(),
        bin.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("&lt;store_b+0x"), "{drawn}");
    assert!(drawn.contains("in libc.so.6.1"), "{drawn}");
    assert!(drawn.contains("lib_byte.c:"), "{drawn}");
}

/// Explore `ev4,ev56` with each model's own static build of `name`.
fn per_model(test: &str, name: &str) -> Option<Value> {
    let dir = scratch(test)?;
    let src = explore_c(name);
    let flags = ["-static", "-Wl,--no-relax"];
    let ev4 = build(&dir, &src, &format!("{name}_ev4"), "ev4", &flags);
    let ev56 = build(&dir, &src, &format!("{name}_ev56"), "ev56", &flags);
    let for56 = format!("ev56={}", ev56.display());
    let v = json_of(&subword(&[
        "alpha",
        "explore",
        "--json",
        "--schedules",
        "100",
        "--cpu",
        "ev4,ev56",
        "--program-for",
        &for56,
        ev4.to_str().unwrap(),
    ]));
    assert_eq!(v["cpus"], serde_json::json!(["ev4", "ev56"]));
    assert_eq!(
        v["programs"],
        serde_json::json!([ev4.to_str().unwrap(), ev56.to_str().unwrap()])
    );
    Some(v)
}

#[test]
fn program_for_shows_the_ev4_lost_store_disappear_in_the_ev56_build() {
    let Some(v) = per_model("adjacent", "adjacent_chars") else {
        return;
    };
    let ev4: Vec<&Value> = findings(&v, "lost-store")
        .into_iter()
        .filter(|f| f["cpu"] == "ev4")
        .collect();
    assert!(!ev4.is_empty(), "{v:#}");
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["cpu"] == "ev4"),
        "{v:#}"
    );
    let gone: Vec<&str> = v["disappear_with_later_cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    let mut sites: Vec<&str> = ev4.iter().map(|f| str_of(f, "source_site")).collect();
    sites.dedup();
    assert_eq!(gone, sites, "{v:#}");
    assert!(gone
        .iter()
        .all(|g| g.starts_with("lost-store:") && g.contains("adjacent_chars.c:")));
    // The ev56 replay command names the ev56 build.
    let o = subword(&[
        "alpha",
        "explore",
        "--cpu",
        "ev4,ev56",
        "--schedules",
        "100",
        "--program-for",
        &format!("ev56={}", v["programs"][1].as_str().unwrap()),
        v["programs"][0].as_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("that disappear on ev56"), "{text}");
}

#[test]
fn program_for_keeps_a_block_copy_race_that_bwx_does_not_fix() {
    let Some(v) = per_model("block", "block_copy") else {
        return;
    };
    let of = |cpu: &str| -> Vec<String> {
        findings(&v, "lost-store")
            .into_iter()
            .filter(|f| f["cpu"] == cpu && function(&f["by"]) == "copy_name")
            .map(|f| {
                assert_eq!(function(&f["lost"]), "set_flag", "{f:#}");
                str_of(f, "source_site").to_string()
            })
            .collect()
    };
    let (ev4, ev56) = (of("ev4"), of("ev56"));
    assert!(!ev4.is_empty() && !ev56.is_empty(), "{v:#}");
    // Different binaries, different pcs, the same source lines.
    assert_eq!(ev4, ev56);
    let gone = v["disappear_with_later_cpus"].as_array().unwrap();
    assert!(
        !gone
            .iter()
            .any(|g| ev4.contains(&g.as_str().unwrap().to_string())),
        "{v:#}"
    );
}

#[test]
fn program_for_bad_values_are_one_line_and_exit_2() {
    let Some(dir) = scratch("bad_program_for") else {
        return;
    };
    let bin = build(
        &dir,
        &explore_c("adjacent_chars"),
        "prog",
        "ev4",
        &["-static", "-Wl,--no-relax"],
    );
    let b = bin.to_str().unwrap();
    let other = format!("ev56={b}");
    let first = "ev4=/nonexistent".to_string();
    for (cpu, pf, says) in [
        ("ev4,ev56", "ev56", "expected MODEL=PROGRAM"),
        ("ev4,ev56", "ev6=x", "not in --cpu"),
        ("ev4", other.as_str(), "not in --cpu"),
        ("ev4,ev56", first.as_str(), "the first model runs PROGRAM"),
        ("ev4,ev56", "ev56=/nonexistent/prog", "/nonexistent/prog"),
    ] {
        let o = subword(&["alpha", "explore", "--cpu", cpu, "--program-for", pf, b]);
        assert_eq!(o.status.code(), Some(2), "{pf}");
        let line = one_stderr_line(&o);
        assert!(line.contains(says), "{pf}: {line}");
    }
}

#[test]
fn scan_names_each_site_and_lists_the_instructions_of_its_window() {
    let Some(dir) = scratch("scan_sites") else {
        return;
    };
    let bin = build(
        &dir,
        &explore_c("adjacent_chars"),
        "pie",
        "ev4",
        &["-fPIE", "-pie"],
    );
    let b = bin.to_str().unwrap();
    let v = json_of(&subword(&["alpha", "scan", "--json", b]));
    let sites = v["sites"].as_array().unwrap();
    for f in ["writer_a", "writer_b"] {
        let s = sites
            .iter()
            .find(|s| function(s) == f)
            .unwrap_or_else(|| panic!("no site in {f}: {v:#}"));
        assert!(file_line(s).starts_with("adjacent_chars.c:"), "{s:#}");
        assert!(str_of(s, "load_symbol").starts_with(f), "{s:#}");
        let insns = s["insns"].as_array().unwrap();
        // From the LDQ_U to the STQ_U, one instruction every 4 bytes, the
        // byte masked in between.
        assert_eq!(insns[0]["pc"], s["load_pc"], "{s:#}");
        assert_eq!(insns.last().unwrap()["pc"], s["pc"], "{s:#}");
        assert!(str_of(&insns[0], "insn").starts_with("ldq_u"), "{s:#}");
        assert!(
            str_of(insns.last().unwrap(), "insn").starts_with("stq_u"),
            "{s:#}"
        );
        let text: Vec<&str> = insns.iter().map(|i| str_of(i, "insn")).collect();
        assert!(text.iter().any(|i| i.starts_with("mskbl")), "{text:?}");
        let load = u64::from_str_radix(str_of(s, "load_pc").trim_start_matches("0x"), 16).unwrap();
        let store = u64::from_str_radix(str_of(s, "pc").trim_start_matches("0x"), 16).unwrap();
        assert_eq!(insns.len() as u64, (store - load) / 4 + 1, "{s:#}");
    }
    let o = subword(&["alpha", "scan", b]);
    let text = String::from_utf8_lossy(&o.stdout);
    for f in ["writer_a", "writer_b"] {
        let line = text
            .lines()
            .find(|l| l.contains(&format!("<{f}+0x")))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("adjacent_chars.c:"), "{line}");
    }
}

#[test]
fn a_deadlock_in_a_pie_program_names_where_each_thread_blocks_in_libc() {
    let Some(dir) = scratch("deadlock") else {
        return;
    };
    let bin = build(
        &dir,
        &cli_c("deadlock"),
        "deadlock",
        "ev4",
        &["-fPIE", "-pie"],
    );
    let v = explore(&bin, &["--cpu", "ev4"]);
    let d = findings(&v, "deadlock");
    assert_eq!(d.len(), 1, "{v:#}");
    let blocked = d[0]["blocked"].as_array().unwrap();
    assert!(blocked.len() >= 2, "{v:#}");
    for b in blocked {
        // Each thread waits in the futex system call inside libc, whose
        // instruction is read from the library file at its load bias.
        assert!(str_of(b, "object").ends_with("libc.so.6.1"), "{b:#}");
        assert_eq!(str_of(b, "insn"), "callsys", "{b:#}");
        assert!(!str_of(b, "symbol").is_empty(), "{b:#}");
    }
}

/// glibc's own lost store (`pthread_kill_exit.c`: `start_thread`'s
/// write-back of `pd->exiting` over `__lll_lock_wait_private`'s STL_C to
/// `exit_lock`), static and dynamic: whichever strategy first shows it,
/// the reported schedule is minimised to at most 3 preemptions (the
/// canonical schedule: run the exiting thread to its load, preempt, run
/// the waiter to its store, resume), its replay string is short, and it
/// reproduces the finding; the deadlock it causes is reported as one
/// story with it (`cause`, `story`, `consequence` in JSON).
#[test]
fn glibc_pthread_kill_lost_wake_up_minimises_to_three_preemptions_or_fewer() {
    let Some(dir) = scratch("pthread_kill_exit") else {
        return;
    };
    let src = cli_c("pthread_kill_exit");
    let stat = build(
        &dir,
        &src,
        "pk_static",
        "ev4",
        &["-static", "-Wl,--no-relax"],
    );
    let dynamic = build(&dir, &src, "pk_dynamic", "ev4", &[]);
    for (bin, strategy, schedules) in [
        (&stat, "random", "300"),
        (&stat, "pct", "300"),
        (&dynamic, "random", "100"),
    ] {
        let v = json_of(&subword(&[
            "alpha",
            "explore",
            "--json",
            "--sysroot",
            SYSROOT,
            "--cpu",
            "ev4",
            "--strategy",
            strategy,
            "--schedules",
            schedules,
            bin.to_str().unwrap(),
        ]));
        let what = format!("{} {strategy}", bin.display());
        let lost: Vec<&Value> = findings(&v, "lost-store")
            .into_iter()
            .filter(|f| str_of(&f["lost"], "symbol").starts_with("__lll_lock_wait_private"))
            .collect();
        assert!(!lost.is_empty(), "{what}: {v:#}");
        if bin == &stat && strategy == "pct" {
            // In words: one block tells the story, the lost store is not
            // reported a second time on its own.
            let o = subword(&[
                "alpha",
                "explore",
                "--cpu",
                "ev4",
                "--strategy",
                strategy,
                "--schedules",
                schedules,
                bin.to_str().unwrap(),
            ]);
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(
                text.contains("==== deadlock caused by a lost store at "),
                "{text}"
            );
            assert!(text.contains("thread 0 blocks for ever"), "{text}");
            assert!(!text.contains("==== lost-store"), "{text}");
        }
        // The deadlock it causes is told as one story: the lost store's
        // three anchors in order, then the threads that block for ever.
        let dead: Vec<&Value> = findings(&v, "deadlock")
            .into_iter()
            .filter(|d| d["cause"]["kind"] == "lost-store")
            .collect();
        assert!(
            !dead.is_empty(),
            "{what}: no deadlock with its cause: {v:#}"
        );
        for d in &dead {
            let story: Vec<String> = d["story"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| format!("{} {}", str_of(e, "what"), str_of(e, "symbol")))
                .collect();
            assert!(story.len() >= 4, "{what}: {story:?}");
            assert!(story[0].starts_with("loads the quadword"), "{story:?}");
            assert!(story[1].contains("__lll_lock_wait_private"), "{story:?}");
            assert!(
                story[2].starts_with("writes the quadword back"),
                "{story:?}"
            );
            if bin == &stat {
                // (Debian's libc.so has no symbol for start_thread.)
                assert!(story[0].contains("start_thread"), "{story:?}");
                assert!(story[2].contains("start_thread"), "{story:?}");
            }
            assert!(story[3..].iter().any(|s| s.starts_with("blocks for ever")));
            let cause_site = d["cause"]["site"].clone();
            assert!(
                lost.iter()
                    .any(|f| f["site"] == cause_site && f["consequence"]["kind"] == "deadlock"),
                "{what}: {d:#}"
            );
        }
        for f in lost {
            let p = f["preemptions"].as_u64().unwrap();
            let replay = str_of(f, "replay");
            assert!(p <= 3, "{what}: {p} preemptions: {f:#}");
            assert!(replay.len() <= 40, "{what}: replay {replay}");
            // The string reruns it.
            let o = subword(&[
                "alpha",
                "explore",
                "--json",
                "--sysroot",
                SYSROOT,
                "--cpu",
                "ev4",
                "--replay",
                replay,
                bin.to_str().unwrap(),
            ]);
            let r = json_of(&o);
            assert!(
                findings(&r, "lost-store")
                    .iter()
                    .any(|g| g["site"] == f["site"]),
                "{what}: --replay {replay}: {r:#}"
            );
        }
    }
}
