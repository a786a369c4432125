//! `subword alpha explore` and `alpha explore-merge` through the CLI, on
//! real glibc programs built with alpha-linux-gnu-gcc and small assembled
//! ones (`tests/c/explore_cli/*.s`): usage errors, the single-threaded
//! case, deadlock and crash findings with replay, `--jobs` and `--shard`
//! (through GNU parallel) never changing what is found, the merge's
//! refusals, replay strings that do not fit, `--lock-range`,
//! `--max-insns` and `--time-limit` as documented, `--svg` with nothing
//! to draw, guest time and `getrandom` fixed by the schedule, and the
//! progress bar on a terminal stderr only (under util-linux `script`).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
mod common;
use common::subword;

fn cli_dir() -> PathBuf {
    testkit::workspace_root().join("crates/subword/tests/c/explore_cli")
}

/// `tests/c/explore_cli/byte_pair.s` assembled by `subword alpha asm` in a
/// scratch directory named `scratch`: the directory and the program.
fn byte_pair(scratch: &str) -> (PathBuf, PathBuf) {
    let dir = testkit::scratch_dir(scratch);
    let bin = dir.join("byte_pair");
    let src = cli_dir().join("byte_pair.s");
    let o = subword(&[
        "alpha",
        "asm",
        src.to_str().unwrap(),
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (dir, bin)
}

/// Build `tests/c/explore_cli/NAME.c` (static, as the explorer programs).
fn build_cli_program(test: &str, name: &str) -> Option<PathBuf> {
    let gcc = testkit::alpha_gcc(test)?;
    let dir = testkit::scratch_dir(&format!("alpha_explore_{test}"));
    let src = std::fs::read_to_string(cli_dir().join(format!("{name}.c"))).expect("source");
    Some(testkit::compile_c(
        &gcc,
        &dir,
        name,
        &src,
        &["-g", "-pthread", "-static", "-Wl,--no-relax", "-mcpu=ev4"],
    ))
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

fn one_line_exit_2(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("subword: "), "{err}");
    err
}

#[test]
fn bad_usage_is_one_line_and_exit_2() {
    // None of these gets as far as reading the program.
    let cases: &[(&[&str], &str)] = &[
        (&["--strategy", "dfs", "prog"], "unknown strategy `dfs`"),
        (&["--replay", "S1-3", "prog"], "malformed replay string"),
        (
            &["--replay", "S1-9.1-3.0", "prog"],
            "decision numbers must increase",
        ),
        (&["--shard", "5/4", "prog"], "--shard 5/4"),
        (&["--shard", "0/4", "prog"], "--shard 0/4"),
        (&["--shard", "x", "prog"], "--shard x"),
        (&["--cpu", "ev4,ev99", "prog"], "unknown CPU model `ev99`"),
        (
            &["--cpu", "ev4,21064", "prog"],
            "`21064` names the same model as `ev4`",
        ),
        (&["--schedules", "0", "prog"], "--schedules"),
        (
            &["--preemptions", "65", "prog"],
            "--preemptions 65: at most 64",
        ),
        (&["--depth", "1001", "prog"], "--depth 1001: at most 1000"),
        // A sign is not a digit: `str::parse` alone took `+1`.
        (&["--replay", "S1-+1.+1", "prog"], "malformed replay string"),
        // Options end at PROGRAM: an unknown one is named as an option.
        (&["--bogus", "prog"], "unknown option `--bogus`"),
        (&["--max-memory", "0", "prog"], "--max-memory 0"),
        (&["--max-memory", "lots", "prog"], "--max-memory"),
        // Refused before any schedule runs (and before PROGRAM is read).
        (
            &["--svg", "/nonexistent/dir/x.svg", "prog"],
            "--svg /nonexistent/dir/x.svg",
        ),
        (&["/nonexistent/program"], "/nonexistent/program"),
    ];
    for (args, want) in cases {
        let mut v = vec!["alpha", "explore"];
        v.extend_from_slice(args);
        let err = one_line_exit_2(&subword(&v));
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // PROGRAM is required; options after it belong to the guest.
    one_line_exit_2(&subword(&["alpha", "explore"]));
    let err = one_line_exit_2(&subword(&["alpha", "explore-merge", "/nonexistent.json"]));
    assert!(err.contains("/nonexistent.json"), "{err}");
}

#[test]
fn single_threaded_program_says_nothing_can_interleave() {
    let Some(gcc) = testkit::alpha_gcc("explore_single") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_explore_single");
    let src =
        "#include <stdio.h>\nint main(int c, char **v) { printf(\"%s\\n\", v[1]); return 0; }\n";
    let bin = testkit::compile_c(&gcc, &dir, "one", src, &["-static", "-Wl,--no-relax"]);
    // `--json` after PROGRAM is the guest's argument, not ours.
    let o = subword(&["alpha", "explore", bin.to_str().unwrap(), "--json"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("nothing can interleave"), "{out}");
    let o = subword(&["alpha", "explore", "--json", bin.to_str().unwrap(), "x"]);
    let v = json_of(&o);
    assert_eq!(v["schedules_run"], 1);
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
    assert_eq!(v["threads"], 1);
}

fn only_finding<'a>(v: &'a Value, kind: &str) -> &'a Value {
    let f: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .collect();
    assert_eq!(f.len(), 1, "{v:#}");
    f[0]
}

/// `--replay` of a reported finding reports that same finding again.
fn assert_replays(bin: &Path, f: &Value, extra: &[&str]) {
    let mut args = vec!["alpha", "explore", "--json"];
    args.extend_from_slice(extra);
    let r = f["replay"].as_str().unwrap();
    args.extend_from_slice(&["--replay", r, bin.to_str().unwrap()]);
    let o = subword(&args);
    assert_eq!(o.status.code(), Some(1));
    // Every deviation of a printed replay string is one the run makes.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("warning"), "replay {r}: {err}");
    let v = json_of(&o);
    assert_eq!(v["schedules_run"], 1);
    let again = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["site"] == f["site"])
        .unwrap_or_else(|| panic!("replay {r} lost {}: {v:#}", f["site"]));
    for k in ["kind", "address", "by", "lost", "replay"] {
        assert_eq!(again[k], f[k], "{k}");
    }
    assert!(
        f["preemptions"].as_u64() <= f["original_preemptions"].as_u64(),
        "{f:#}"
    );
}

#[test]
fn opposite_lock_order_is_a_deadlock_finding_that_replays() {
    let Some(bin) = build_cli_program("deadlock", "deadlock") else {
        return;
    };
    let b = bin.to_str().unwrap();
    let o = subword(&[
        "alpha",
        "explore",
        "--json",
        "--strategy",
        "exhaustive",
        "--preemptions",
        "1",
        "--schedules",
        "5000",
        b,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_of(&o);
    let f = only_finding(&v, "deadlock");
    assert_eq!(f["preemptions"], 1, "{f:#}");
    let blocked: Vec<&str> = f["blocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["symbol"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(blocked.len(), 3, "{blocked:?}");
    assert!(
        blocked
            .iter()
            .filter(|s| s.starts_with("__lll_lock_wait"))
            .count()
            == 2,
        "{blocked:?}"
    );
    assert_eq!(v["covered"], true);
    assert_replays(&bin, f, &[]);
}

#[test]
fn use_after_clear_is_a_crash_finding_that_replays() {
    let Some(bin) = build_cli_program("crash", "crash") else {
        return;
    };
    let b = bin.to_str().unwrap();
    let o = subword(&["alpha", "explore", "--json", "--schedules", "200", b]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_of(&o);
    let f = only_finding(&v, "crash");
    assert_eq!(f["signal"], 11);
    assert!(
        f["by"]["symbol"].as_str().unwrap().starts_with("use_ptr"),
        "{f:#}"
    );
    assert_replays(&bin, f, &[]);
    // The human report names the replay command line.
    let o = subword(&["alpha", "explore", "--schedules", "200", b]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("==== crash: SIGSEGV"), "{out}");
    assert!(
        out.contains(&format!("--replay {} {b}", f["replay"].as_str().unwrap())),
        "{out}"
    );
}

#[test]
fn jobs_never_change_what_is_found() {
    let Some(bin) = build_cli_program("jobs", "crash") else {
        return;
    };
    let b = bin.to_str().unwrap();
    for strategy in ["pct", "random", "exhaustive"] {
        let run = |jobs: &str| {
            json_of(&subword(&[
                "alpha",
                "explore",
                "--json",
                "--strategy",
                strategy,
                "--schedules",
                "120",
                "--preemptions",
                "1",
                "--jobs",
                jobs,
                b,
            ]))
        };
        let one = run("1");
        assert_eq!(one, run("2"), "{strategy}");
        assert_eq!(one, run("3"), "{strategy}");
    }
}

#[test]
fn four_shards_through_gnu_parallel_merge_to_the_unsharded_result() {
    let Some(bin) = build_cli_program("shards", "crash") else {
        return;
    };
    let Some(parallel) = testkit::require_tool("explore_shards", "parallel", "parallel") else {
        return;
    };
    let b = bin.to_str().unwrap();
    let me = env!("CARGO_BIN_EXE_subword");
    let dir = testkit::scratch_dir("alpha_explore_shards_out");
    for strategy in ["pct", "exhaustive"] {
        let common = [
            "--json",
            "--strategy",
            strategy,
            "--schedules",
            "150",
            "--preemptions",
            "1",
        ];
        let mut args = vec!["alpha", "explore"];
        args.extend_from_slice(&common);
        args.push(b);
        let whole = json_of(&subword(&args));
        // The README's recipe: one shard per job, then merge.
        let out = dir.join(strategy);
        std::fs::create_dir_all(&out).unwrap();
        let st = Command::new(&parallel)
            .arg("--will-cite")
            .arg(format!(
                "{me} alpha explore {} --shard {{}}/4 {b} > {}/shard-{{}}.json",
                common.join(" "),
                out.display()
            ))
            .arg(":::")
            .args(["1", "2", "3", "4"])
            .status()
            .expect("run parallel");
        // Exit status: how many jobs failed; findings exit 1 each.
        assert!(st.code().is_some_and(|c| c <= 4), "{st}");
        let files: Vec<String> = (1..=4)
            .map(|i| out.join(format!("shard-{i}.json")).display().to_string())
            .collect();
        let shards: Vec<Value> = files
            .iter()
            .map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
            .collect();
        let sum: u64 = shards
            .iter()
            .map(|s| s["schedules_run"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, whole["schedules_run"].as_u64().unwrap(), "{strategy}");
        let mut margs = vec!["alpha", "explore-merge"];
        margs.extend(files.iter().map(String::as_str));
        let merged = json_of(&subword(&margs));
        assert_eq!(merged, whole, "{strategy}");
        // `-` reads one of them from standard input.
        let mut child = Command::new(me)
            .args([
                "alpha",
                "explore-merge",
                "-",
                &files[1],
                &files[2],
                &files[3],
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(std::fs::read(&files[0]).unwrap().as_slice())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(json_of(&o), whole, "{strategy} via stdin");
    }
}

#[test]
fn cpu_list_explores_each_model_and_compares_them() {
    let Some(bin) = build_cli_program("cpus", "crash") else {
        return;
    };
    let v = json_of(&subword(&[
        "alpha",
        "explore",
        "--json",
        "--cpu",
        "ev4,ev56",
        "--schedules",
        "60",
        bin.to_str().unwrap(),
    ]));
    assert_eq!(v["cpus"], serde_json::json!(["ev4", "ev56"]));
    let cpus: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cpu"].as_str().unwrap())
        .collect();
    // The same binary races the same way on both: nothing disappears.
    assert!(cpus.contains(&"ev4") && cpus.contains(&"ev56"), "{cpus:?}");
    assert_eq!(v["disappear_with_later_cpus"], serde_json::json!([]));
    let ev56 = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["cpu"] == "ev56")
        .unwrap();
    assert!(ev56["replay_command"]
        .as_str()
        .unwrap()
        .contains("--cpu ev56"));
}

/// PCT places its change points in the default schedule's write-back
/// windows: the demo's race, one decision wide in each thread of a run of
/// more than a thousand decisions (the parent spins), is found within a few
/// schedules for every seed (with change points uniform over the run's
/// length PCT missed it within 50).
#[test]
fn pct_finds_a_one_decision_window_race_within_ten_schedules() {
    let (_, bin) = byte_pair("alpha_explore_pct_window");
    for seed in ["0", "1", "2", "3"] {
        let o = subword(&[
            "alpha",
            "explore",
            "--cpu",
            "ev4",
            "--strategy",
            "pct",
            "--schedules",
            "10",
            "--seed",
            seed,
            "--json",
            bin.to_str().unwrap(),
        ]);
        let v = json_of(&o);
        assert_eq!(o.status.code(), Some(1), "seed {seed}: {v}");
        let f = only_finding(&v, "lost-store");
        assert_replays(&bin, f, &["--cpu", "ev4"]);
    }
}

/// A replay string written for another program (a thread it never has, a
/// decision it never reaches) is not silently taken for the default
/// schedule: one warning line names the deviations the run could not
/// make and what it replayed instead, and the exit status is still the
/// findings' (0 here), so replaying after a fix keeps working.
#[test]
fn replay_string_that_does_not_fit_the_program_is_named_in_a_warning() {
    let (_, bin) = byte_pair("alpha_explore_replay_misfit");
    let b = bin.to_str().unwrap();
    let o = subword(&[
        "alpha",
        "explore",
        "--cpu",
        "ev4",
        "--json",
        "--replay",
        "S1-1.9-1000000000.1",
        b,
    ]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("subword: warning: --replay S1-1.9-1000000000.1 on ev4"),
        "{err}"
    );
    assert!(err.contains("could not take 1.9 1000000000.1"), "{err}");
    assert!(err.contains("so it replayed S1"), "{err}");
    let v = json_of(&o);
    assert_eq!(v["findings"].as_array().unwrap().len(), 0, "{v:#}");
    // A string that fits: no warning, and the text report says the
    // schedule ran as given (a replay minimises nothing).
    let o = subword(&[
        "alpha",
        "explore",
        "--cpu",
        "ev4",
        "--replay",
        "S1-0.1-2.0",
        b,
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("==== lost-store"), "{out}");
    assert!(
        out.contains("the replayed schedule shows it (2 preemption(s), run as given)"),
        "{out}"
    );
    assert!(!out.contains("minimised"), "{out}");
}

/// `explore-merge` refuses inputs that are not every shard of one split
/// exactly once with the same options (a shard twice would count its
/// schedules twice, a missing one would be merged into a `1/1` object
/// claiming an exploration that never ran): one line naming the problem,
/// exit 2. The complete set merges.
#[test]
fn merge_refuses_missing_repeated_mixed_shards_and_different_options() {
    let (dir, bin) = byte_pair("alpha_explore_merge_refusals");
    let b = bin.to_str().unwrap();
    let shard = |name: &str, extra: &[&str]| {
        let mut args = vec!["alpha", "explore", "--cpu", "ev4", "--json"];
        args.extend_from_slice(&["--schedules", "20"]);
        args.extend_from_slice(extra);
        args.push(b);
        let o = subword(&args);
        json_of(&o);
        let path = dir.join(name);
        std::fs::write(&path, &o.stdout).unwrap();
        path.display().to_string()
    };
    let one = shard("one.json", &["--shard", "1/2"]);
    let two = shard("two.json", &["--shard", "2/2"]);
    let two_of_three = shard("two3.json", &["--shard", "2/3"]);
    let two_seed = shard("two_seed.json", &["--shard", "2/2", "--seed", "7"]);
    let cases: &[(&[&str], &str)] = &[
        (&[&one], "shard(s) 2/2 missing"),
        (&[&one, &one, &two], "shard 1/2 is given twice"),
        (&[&one, &two_of_three], "different splits"),
        (&[&one, &two_seed], "different options"),
    ];
    for (files, want) in cases {
        let mut args = vec!["alpha", "explore-merge"];
        args.extend_from_slice(files);
        let err = one_line_exit_2(&subword(&args));
        assert!(err.contains(want), "{files:?}: {err}");
    }
    let o = subword(&["alpha", "explore-merge", &one, &two]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    let v = json_of(&o);
    assert_eq!(v["schedules_run"], 20, "{v:#}");
    assert_eq!(v["shard"], "1/1");
}

/// `--svg FILE` when nothing was found writes no file and says so on
/// stderr (instead of silently leaving FILE absent, or an older drawing in
/// place).
#[test]
fn svg_without_a_finding_says_nothing_was_written() {
    let (dir, bin) = byte_pair("alpha_explore_svg_none");
    let b = bin.to_str().unwrap();
    let svg = dir.join("none.svg");
    let s = svg.to_str().unwrap();
    // The default schedule (`S1`) loses no store.
    let o = subword(&[
        "alpha", "explore", "--cpu", "ev4", "--replay", "S1", "--svg", s, b,
    ]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        err.trim_end(),
        format!("subword: warning: --svg {s}: no finding to draw, nothing written")
    );
    assert!(!svg.exists());
}

/// Runs a finding's `replay_command` (with `--json` added) as printed.
fn run_replay_command(f: &Value) -> (Option<i32>, Value) {
    let cmd = f["replay_command"].as_str().unwrap();
    let words: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(&words[..3], ["subword", "alpha", "explore"], "{cmd}");
    let mut args = vec!["alpha", "explore", "--json"];
    args.extend_from_slice(&words[3..]);
    let o = subword(&args);
    (o.status.code(), json_of(&o))
}

/// `--lock-range` is the range in force: with 8 bytes (the locked
/// quadword only) the neighbouring counters of `atomic_counters` do not
/// contend, with 16 and 4096 they do and the finding says which range it
/// was, and its replay command carries the option, so running it as
/// printed shows the same finding.
#[test]
fn lock_range_option_decides_contention_and_its_replay_command_keeps_it() {
    let Some(bin) = testkit::explore_program("cli_lock_range", "atomic_counters", "ev4") else {
        return;
    };
    let b = bin.to_str().unwrap();
    let run = |lr: &str| {
        let o = subword(&[
            "alpha",
            "explore",
            "--cpu",
            "ev4",
            "--json",
            "--schedules",
            "100",
            "--lock-range",
            lr,
            b,
        ]);
        (o.status.code(), json_of(&o))
    };
    let (code, v) = run("8");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["findings"].as_array().unwrap().len(), 0, "{v:#}");
    for lr in [16u64, 4096] {
        let (code, v) = run(&lr.to_string());
        assert_eq!(code, Some(1), "{v:#}");
        let f = only_finding(&v, "lock-range-contention");
        assert_eq!(f["lock_range"], lr, "{f:#}");
        let (a, o) = (
            f["address"].as_str().unwrap(),
            f["other_address"].as_str().unwrap(),
        );
        let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
        assert_ne!(hex(a) & !7, hex(o) & !7, "{f:#}");
        assert_eq!(hex(a) & !(lr - 1), hex(o) & !(lr - 1), "{f:#}");
        assert_eq!(f["distance"], hex(a).abs_diff(hex(o)), "{f:#}");
        let cmd = f["replay_command"].as_str().unwrap();
        assert!(cmd.contains(&format!("--lock-range {lr} ")), "{cmd}");
        let (code, again) = run_replay_command(f);
        assert_eq!(code, Some(1), "{again:#}");
        let g = only_finding(&again, "lock-range-contention");
        for k in ["address", "other_address", "by", "lost", "lock_range"] {
            assert_eq!(g[k], f[k], "{k}");
        }
    }
}

/// `--max-insns` cuts each schedule off (the default schedule of
/// `byte_pair` runs about 4000 instructions): the report counts the cut
/// schedules, and a finding's replay command carries the limit, so the
/// printed command shows the same finding under the same cut-off.
#[test]
fn max_insns_cuts_schedules_off_and_the_replay_command_keeps_the_limit() {
    let (_, bin) = byte_pair("alpha_explore_max_insns");
    let b = bin.to_str().unwrap();
    let o = subword(&[
        "alpha",
        "explore",
        "--cpu",
        "ev4",
        "--max-insns",
        "1000",
        "--replay",
        "S1",
        b,
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("(1000 guest instructions)"), "{out}");
    assert!(
        out.contains("1 schedule(s) cut off by --max-insns"),
        "{out}"
    );
    let o = subword(&[
        "alpha",
        "explore",
        "--cpu",
        "ev4",
        "--json",
        "--schedules",
        "5",
        "--max-insns",
        "1000",
        b,
    ]);
    let v = json_of(&o);
    assert!(v["insn_limited"].as_u64().unwrap() >= 1, "{v:#}");
    let f = only_finding(&v, "lost-store");
    let cmd = f["replay_command"].as_str().unwrap();
    assert!(cmd.contains("--max-insns 1000 "), "{cmd}");
    let (code, again) = run_replay_command(f);
    assert_eq!(code, Some(1), "{again:#}");
    let g = only_finding(&again, "lost-store");
    for k in ["address", "by", "lost", "replay"] {
        assert_eq!(g[k], f[k], "{k}");
    }
}

/// `--time-limit` stops starting schedules (0: after the first), and
/// `--json` says so (`timed_out`), as the text report does, so a script
/// can tell a cut exploration from a complete one; a merge of shards is
/// cut when any shard was.
#[test]
fn time_limit_stops_the_exploration_and_json_says_it_timed_out() {
    let (dir, bin) = byte_pair("alpha_explore_time_limit");
    let b = bin.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["alpha", "explore", "--cpu", "ev4", "--schedules", "50"];
        args.extend_from_slice(extra);
        args.push(b);
        subword(&args)
    };
    let o = run(&["--time-limit", "0"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("stopped by --time-limit"));
    let cut = json_of(&run(&["--json", "--time-limit", "0", "--shard", "1/2"]));
    assert_eq!(cut["schedules_run"], 1, "{cut:#}");
    assert_eq!(cut["timed_out"], true, "{cut:#}");
    let whole = json_of(&run(&["--json", "--time-limit", "0"]));
    assert_eq!(whole["timed_out"], true, "{whole:#}");
    let other = json_of(&run(&["--json", "--time-limit", "0", "--shard", "2/2"]));
    let (f1, f2) = (dir.join("1.json"), dir.join("2.json"));
    std::fs::write(&f1, cut.to_string()).unwrap();
    let mut other = other;
    other["timed_out"] = Value::Bool(false);
    std::fs::write(&f2, other.to_string()).unwrap();
    let merged = json_of(&subword(&[
        "alpha",
        "explore-merge",
        f1.to_str().unwrap(),
        f2.to_str().unwrap(),
    ]));
    assert_eq!(merged["timed_out"], true, "{merged:#}");
    let v = json_of(&run(&["--json"]));
    assert_eq!(v["schedules_run"], 50, "{v:#}");
    assert_eq!(v["timed_out"], false, "{v:#}");
}

/// Guest time and `getrandom` are part of the schedule, not of the host:
/// `random_pair` picks the byte it stores from both (so the lost store's
/// address depends on them), and two explorations, one on two host
/// threads, report the same findings, each of which replays at the same
/// address. With host randomness or host time the address would differ
/// from run to run and from the replay.
#[test]
fn guest_time_and_getrandom_are_the_same_in_every_run_and_replay() {
    let dir = testkit::scratch_dir("alpha_explore_random_pair");
    let bin = dir.join("random_pair");
    let src = cli_dir().join("random_pair.s");
    let b = bin.to_str().unwrap();
    let o = subword(&["alpha", "asm", src.to_str().unwrap(), "-o", b]);
    assert_eq!(o.status.code(), Some(0));
    let run = |jobs: &str| {
        json_of(&subword(&[
            "alpha",
            "explore",
            "--cpu",
            "ev4",
            "--json",
            "--strategy",
            "random",
            "--schedules",
            "100",
            "--jobs",
            jobs,
            b,
        ]))
    };
    let v = run("1");
    assert_eq!(v, run("1"));
    assert_eq!(v, run("2"));
    let findings = v["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "{v:#}");
    for f in findings {
        assert_eq!(f["kind"], "lost-store", "{f:#}");
        assert_replays(&bin, f, &["--cpu", "ev4"]);
    }
}

/// `--depth` (PCT) and `--preemptions` (exhaustive) given to a strategy
/// that has no use for them are ignored with one warning line each, not
/// silently; given to their own strategy they draw no warning.
#[test]
fn options_the_strategy_ignores_are_named_in_a_warning() {
    let (_, bin) = byte_pair("alpha_explore_unused_options");
    let b = bin.to_str().unwrap();
    let stderr_of = |extra: &[&str]| {
        let mut args = vec![
            "alpha",
            "explore",
            "--cpu",
            "ev4",
            "--json",
            "--schedules",
            "5",
        ];
        args.extend_from_slice(extra);
        args.push(b);
        let o = subword(&args);
        json_of(&o);
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let err = stderr_of(&["--strategy", "random", "--depth", "2", "--preemptions", "1"]);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains(
            "warning: --depth applies to --strategy pct only; --strategy random ignores it"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "warning: --preemptions applies to --strategy exhaustive only; --strategy random ignores it"
        ),
        "{err}"
    );
    let err = stderr_of(&["--strategy", "pct", "--depth", "2"]);
    assert!(err.is_empty(), "{err}");
    let err = stderr_of(&["--strategy", "exhaustive", "--preemptions", "1"]);
    assert!(err.is_empty(), "{err}");
}

/// `s` quoted for the shell `script -c` hands its command to.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Run the shell command line `cmd` with its standard input, output and
/// error on a pseudo-terminal (util-linux `script -qfec CMD /dev/null`):
/// its exit status and everything the terminal showed.
fn on_a_terminal(script: &Path, cmd: &str) -> (Option<i32>, String) {
    let o = Command::new(script)
        .args(["-qfec", cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("run script");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// Whether `text` holds a frame of the explore progress bar for a run of
/// `total` schedules: `N/TOTAL schedules, R/s, K finding(s)`, N, R and K
/// numbers (R as indicatif writes it, `1,234.5678`).
fn shows_progress_bar(text: &str, total: u64) -> bool {
    let marker = format!("/{total} schedules, ");
    text.match_indices(&marker).any(|(i, _)| {
        let done = text[..i].ends_with(|c: char| c.is_ascii_digit());
        let rest = &text[i + marker.len()..];
        let Some((rate, rest)) = rest.split_once("/s, ") else {
            return false;
        };
        let rate_is_number = !rate.is_empty()
            && rate
                .chars()
                .all(|c| c.is_ascii_digit() || c == ',' || c == '.');
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        done && rate_is_number && digits > 0 && rest[digits..].starts_with(" finding(s)")
    })
}

/// Whether any trace of the bar is in `text`: its frame, or the carriage
/// returns and escape sequences it redraws with.
fn any_of_the_bar(text: &str) -> bool {
    text.contains(" schedules, ")
        || text.contains("finding(s) ")
        || text.contains('\r')
        || text.contains('\x1b')
}

/// The progress bar is drawn on stderr when stderr is a terminal, also
/// when stdout is redirected to a file (which gets the report alone, as
/// with cargo), and nowhere when stderr is not a terminal or with
/// `--json`; the report and exit status are the same either way.
#[test]
fn progress_bar_is_drawn_on_a_terminal_stderr_only_and_never_with_json() {
    let Some(script) = testkit::require_tool("explore_progress_bar", "script", "bsdutils") else {
        return;
    };
    let (dir, bin) = byte_pair("alpha_explore_progress_bar");
    let b = bin.to_str().unwrap();
    let args = ["alpha", "explore", "--cpu", "ev4", "--schedules", "300"];
    let cmd = |extra: &[&str], redirect: &str| {
        let mut v: Vec<String> = vec![sh_quote(env!("CARGO_BIN_EXE_subword"))];
        v.extend(args.iter().chain(extra).map(|s| sh_quote(s)));
        v.push(sh_quote(b));
        v.push(redirect.to_string());
        v.join(" ")
    };
    let report = "==== lost-store at ";

    // Both on the terminal: the bar, then the report.
    let (code, shown) = on_a_terminal(&script, &cmd(&[], ""));
    assert_eq!(code, Some(1), "{shown}");
    assert!(
        shows_progress_bar(&shown, 300),
        "no bar on a terminal: {shown:?}"
    );
    assert!(shown.contains(report), "{shown:?}");

    // stdout to a file, stderr on the terminal: the bar on the terminal,
    // the file the report alone.
    let out = dir.join("report.txt");
    let redirect = format!("> {}", sh_quote(out.to_str().unwrap()));
    let (code, shown) = on_a_terminal(&script, &cmd(&[], &redirect));
    assert_eq!(code, Some(1), "{shown}");
    assert!(
        shows_progress_bar(&shown, 300),
        "no bar on a terminal stderr with stdout in a file: {shown:?}"
    );
    assert!(!shown.contains(report), "{shown:?}");
    let file = std::fs::read_to_string(&out).unwrap();
    assert!(file.contains(report), "{file:?}");
    assert!(!any_of_the_bar(&file), "the bar in stdout's file: {file:?}");

    // stderr to a file, stdout on the terminal: no bar anywhere.
    let err = dir.join("stderr.txt");
    let redirect = format!("2> {}", sh_quote(err.to_str().unwrap()));
    let (code, shown) = on_a_terminal(&script, &cmd(&[], &redirect));
    assert_eq!(code, Some(1), "{shown}");
    assert!(shown.contains(report), "{shown:?}");
    assert!(
        !shown.contains(" schedules, ") && !shown.contains('\x1b'),
        "a bar with stderr in a file: {shown:?}"
    );
    let file = std::fs::read_to_string(&err).unwrap();
    assert!(!any_of_the_bar(&file), "the bar in stderr's file: {file:?}");

    // --json on the terminal: no bar, and what the terminal showed is the
    // JSON object alone (the terminal ends its lines with \r\n).
    let (code, shown) = on_a_terminal(&script, &cmd(&["--json"], ""));
    assert_eq!(code, Some(1), "{shown}");
    assert!(
        !shown.contains(" schedules, ") && !shown.contains('\x1b'),
        "a bar with --json: {shown:?}"
    );
    let v: Value = serde_json::from_str(&shown.replace("\r\n", "\n"))
        .unwrap_or_else(|e| panic!("not JSON alone ({e}): {shown:?}"));
    assert_eq!(v["schedules_run"], 300);
    only_finding(&v, "lost-store");

    // Neither a terminal (both piped): nothing of it.
    let mut v = args.to_vec();
    v.push(b);
    let o = subword(&v);
    assert_eq!(o.status.code(), Some(1));
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(out.contains(report), "{out}");
    assert!(!any_of_the_bar(&out) && !any_of_the_bar(&err), "{out}{err}");
}

/// Waits that end by themselves are not deadlocks: a worker in `usleep`
/// while `main` joins it, a reader blocked on a pipe another thread
/// writes, a condition wait with a timeout, an interval timer's signal
/// (`crates/alpha-emu/tests/c/sched/timed_waits.c`). The explorer runs
/// them in the same run loop as `alpha run`, so every strategy's
/// schedules end as `alpha run --deterministic` does, with no finding.
#[test]
fn sleeping_and_blocked_threads_are_not_deadlocks_under_explore() {
    let Some(gcc) = testkit::alpha_gcc("explore_timed_waits") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_explore_timed_waits");
    let src = std::fs::read_to_string(
        testkit::workspace_root().join("crates/alpha-emu/tests/c/sched/timed_waits.c"),
    )
    .expect("source");
    let bin = testkit::compile_c(
        &gcc,
        &dir,
        "timed_waits",
        &src,
        &[
            "-O2",
            "-g",
            "-pthread",
            "-static",
            "-Wl,--no-relax",
            "-mcpu=ev4",
        ],
    );
    let b = bin.to_str().unwrap();
    let run = subword(&["alpha", "run", "--deterministic", b]);
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "timedwait ETIMEDOUT\nread abcd\njoined; alarms fired\n"
    );
    for strategy in ["random", "pct", "exhaustive"] {
        let o = subword(&[
            "alpha",
            "explore",
            "--json",
            "--cpu",
            "ev4",
            "--strategy",
            strategy,
            "--schedules",
            "40",
            b,
        ]);
        let v = json_of(&o);
        assert_eq!(
            v["findings"].as_array().map(Vec::len),
            Some(0),
            "{strategy}: {v:#}"
        );
        assert_eq!(o.status.code(), Some(0), "{strategy}");
        assert_eq!(v["insn_limited"], 0, "{strategy}");
        assert!(
            v["threads"].as_u64() >= Some(5),
            "{strategy}: {}",
            v["threads"]
        );
    }
}

/// `--schedules 2^64-1 --time-limit 2`: the schedule indices are made as
/// they are run, so the time limit ends the run in about two seconds with
/// little memory (collecting every index first took 9 GB and ignored the
/// limit).
#[test]
fn a_huge_schedule_count_with_a_time_limit_stops_in_time_with_bounded_memory() {
    let (_dir, bin) = byte_pair("alpha_explore_huge_count");
    let t0 = std::time::Instant::now();
    let o = subword(&[
        "alpha",
        "explore",
        "--json",
        "--strategy",
        "random",
        "--schedules",
        "0xffffffffffffffff",
        "--time-limit",
        "2",
        bin.to_str().unwrap(),
    ]);
    let wall = t0.elapsed();
    let v = json_of(&o);
    assert_eq!(v["timed_out"], true, "{v:#}");
    assert!(
        v["schedules_run"].as_u64() > Some(10),
        "{}",
        v["schedules_run"]
    );
    // Two seconds of schedules plus start-up and minimising (generous: the
    // machine may be loaded); the old code never got here.
    assert!(wall < std::time::Duration::from_secs(60), "{wall:?}");
    // SAFETY: getrusage writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    // Peak resident memory of the largest child so far (KiB).
    assert!(u.ru_maxrss < 1 << 20, "peak RSS {} KiB", u.ru_maxrss);
}

/// `--shard` reads its numbers as every option does (`0x` hex too), and
/// the merge takes the shards it names.
#[test]
fn shard_numbers_in_hex_are_accepted() {
    let (dir, bin) = byte_pair("alpha_explore_shard_hex");
    let b = bin.to_str().unwrap();
    let mut files = Vec::new();
    for (name, shard) in [("a.json", "0x1/0x2"), ("b.json", "2/0x2")] {
        let o = subword(&[
            "alpha",
            "explore",
            "--cpu",
            "ev4",
            "--json",
            "--schedules",
            "20",
            "--shard",
            shard,
            b,
        ]);
        json_of(&o);
        let path = dir.join(name);
        std::fs::write(&path, &o.stdout).unwrap();
        files.push(path.display().to_string());
    }
    let o = subword(&["alpha", "explore-merge", &files[0], &files[1]]);
    let v = json_of(&o);
    assert_eq!(v["schedules_run"], 20, "{v:#}");
}

/// A shard file that is JSON but not explore's shape is refused with one
/// line (the merge used to panic on a store site that is not an object),
/// and counts that overflow 64 bits are refused instead of wrapping.
#[test]
fn merge_refuses_malformed_shards_and_overflowing_counts() {
    let (dir, bin) = byte_pair("alpha_explore_merge_malformed");
    let b = bin.to_str().unwrap();
    let shard = |i: u64| {
        let s = format!("{i}/3");
        let o = subword(&[
            "alpha",
            "explore",
            "--cpu",
            "ev4",
            "--json",
            "--schedules",
            "9",
            "--shard",
            &s,
            b,
        ]);
        json_of(&o)
    };
    let shards: Vec<Value> = (1..=3).map(shard).collect();
    let write = |name: &str, v: &Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.display().to_string()
    };
    // A store site that is a number, a string or null; a count that is a
    // string; a finding without its site.
    let mut bad_site = shards[0].clone();
    for (name, site) in [
        ("site_num.json", json_value("5")),
        ("site_str.json", json_value("\"x\"")),
        ("site_null.json", Value::Null),
    ] {
        bad_site["store_site_details"] = Value::Array(vec![site]);
        let f = write(name, &bad_site);
        let g = write("two.json", &shards[1]);
        let h = write("three.json", &shards[2]);
        let err = one_line_exit_2(&subword(&["alpha", "explore-merge", &f, &g, &h]));
        assert!(err.contains("not `alpha explore --json` output"), "{err}");
    }
    let mut bad_count = shards[0].clone();
    bad_count["schedules_run"] = json_value("\"3\"");
    let f = write("count_str.json", &bad_count);
    let err = one_line_exit_2(&subword(&["alpha", "explore-merge", &f]));
    assert!(
        err.contains("schedules_run") || err.contains("invalid type"),
        "{err}"
    );
    // Three shards of 2^64-1 schedules each.
    let files: Vec<String> = shards
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut v = v.clone();
            v["schedules_run"] = Value::from(u64::MAX);
            write(&format!("max{i}.json"), &v)
        })
        .collect();
    let err = one_line_exit_2(&subword(&[
        "alpha",
        "explore-merge",
        &files[0],
        &files[1],
        &files[2],
    ]));
    assert!(err.contains("schedules_run add up to more than"), "{err}");
    // The untouched shards still merge.
    let files: Vec<String> = shards
        .iter()
        .enumerate()
        .map(|(i, v)| write(&format!("ok{i}.json"), v))
        .collect();
    let o = subword(&["alpha", "explore-merge", &files[0], &files[1], &files[2]]);
    assert_eq!(json_of(&o)["schedules_run"], 9);
}

fn json_value(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

/// `--max-memory` caps each guest: a thread's 64 MiB allocation fails
/// under a 40 MiB cap (its own 8 MiB stack fits; the guest aborts, a crash finding), and succeeds
/// without it.
#[test]
fn max_memory_caps_each_guest_of_the_exploration() {
    let Some(bin) = build_cli_program("big_alloc", "big_alloc") else {
        return;
    };
    let b = bin.to_str().unwrap();
    let o = subword(&["alpha", "explore", "--json", "--schedules", "3", b]);
    let v = json_of(&o);
    assert_eq!(o.status.code(), Some(0), "{v:#}");
    let o = subword(&[
        "alpha",
        "explore",
        "--json",
        "--schedules",
        "3",
        "--jobs",
        "2",
        "--max-memory",
        "40M",
        b,
    ]);
    let v = json_of(&o);
    assert_eq!(o.status.code(), Some(1), "{v:#}");
    let f = only_finding(&v, "crash");
    assert_eq!(f["signal"], 6, "{f:#}");
    assert_eq!(v["options"]["max_memory"], 40 << 20, "{v:#}");
}
