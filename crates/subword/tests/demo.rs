//! `subword demo` as a newcomer's first five minutes: it opens with a
//! three-line summary, keeps every line within 100 characters, writes the
//! pictures it promises into the directory it names, prints a replay
//! command that still works once the tour has ended, and ends with how to
//! explore one's own program.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn subword() -> Command {
    Command::new(env!("CARGO_BIN_EXE_subword"))
}

/// Runs the tour with its pictures and programs in a fresh `dir`.
fn demo(test: &str) -> (Output, String, PathBuf) {
    let dir = testkit::scratch_dir(test).join("pictures");
    let o = subword()
        .args(["demo", "--dir", dir.to_str().unwrap()])
        .output()
        .expect("subword demo runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (o, out, dir)
}

#[test]
fn demo_opens_with_a_three_line_summary_then_names_its_directory() {
    let (_, out, dir) = demo("demo_summary");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("subword demo: "), "{}", lines[0]);
    assert!(
        lines[1].starts_with("Alpha: ") && lines[2].contains("PTO: "),
        "{out}"
    );
    assert!(lines[3].contains("directory"), "{}", lines[3]);
    assert_eq!(
        lines[4].trim(),
        dir.to_str().unwrap(),
        "the directory, on its own line"
    );
    assert!(lines[5].is_empty(), "a blank line ends the opening");
}

#[test]
fn demo_lines_are_at_most_100_characters() {
    let (o, out, _) = demo("demo_width");
    let long: Vec<(usize, usize)> = out
        .lines()
        .chain(String::from_utf8_lossy(&o.stderr).lines())
        .enumerate()
        .map(|(i, l)| (i + 1, l.chars().count()))
        .filter(|&(_, n)| n > 100)
        .collect();
    assert!(long.is_empty(), "(line, length) over 100: {long:?}\n{out}");
}

#[test]
fn demo_writes_the_lost_store_schedule_and_the_pto_footprint_as_svg() {
    let (_, out, dir) = demo("demo_pictures");
    for (name, inside) in [
        ("lost-store.svg", "stq_u"),
        ("pto-footprint.svg", "0x324: PE0 row 1 col 0"),
    ] {
        let p = dir.join(name);
        let svg =
            std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}\n{out}", p.display()));
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{name}"
        );
        assert!(svg.contains(inside), "{name} lacks {inside}");
        assert!(out.contains(name), "the tour names {name}");
    }
}

/// The PTO half says what the example shows, with the bytes the model left.
#[test]
fn demo_explains_tile_stride_and_nibble_with_the_bytes() {
    let (_, out, _) = demo("demo_pto_words");
    let pto = &out[out.find("== PTO 1").expect("PTO section")..];
    for word in [
        "A tile is",
        "row stride counts bytes",
        "low nibble",
        "high nibble",
    ] {
        assert!(pto.contains(word), "{word}\n{pto}");
    }
    assert!(
        pto.contains("    0x320: 21 00 00 00 43 00 00 00"),
        "GM after the TSTORE\n{pto}"
    );
}

/// The replay command printed after the explorer's finding works once
/// the tour has exited: same finding, same schedule, exit status 1.
#[test]
fn demo_replay_command_works_after_the_demo_exits() {
    let (_, out, dir) = demo("demo_replay");
    let tail = &out[out.find("replays after the tour").expect("replay part")..];
    let mut cmds = tail.lines().filter_map(|l| l.trim().strip_prefix("$ "));
    let cd = cmds.next().expect("cd line");
    let replay = cmds.next().expect("replay line");
    let cd = Path::new(cd.strip_prefix("cd ").expect("cd DIR"));
    assert_eq!(cd, dir.as_path());
    let args: Vec<&str> = replay.split_whitespace().collect();
    assert_eq!(&args[..3], ["subword", "alpha", "explore"], "{replay}");
    assert!(args.contains(&"--replay"), "{replay}");
    let o = subword()
        .args(&args[1..])
        .current_dir(cd)
        .output()
        .expect("replay runs");
    let report = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{report}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(report.matches("==== lost-store at ").count(), 1, "{report}");
    assert!(report.contains("run as given"), "{report}");
}

#[test]
fn demo_ends_with_how_to_explore_your_own_program() {
    let (_, out, _) = demo("demo_last_line");
    let last = out.lines().last().expect("output");
    assert_eq!(last.trim(), "subword alpha explore --cpu ev4 ./prog");
    assert!(out.contains("-mcpu=ev4 prog.c -o prog"), "{out}");
}
