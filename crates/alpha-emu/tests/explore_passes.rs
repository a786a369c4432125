//! Running through scheduling points (`Chooser::next_ask`) changes where
//! a schedule's run stops, never what it does: a chooser that names its
//! next decision and the same chooser asked at every decision run the same
//! schedule, with the same decision count, findings and replay string, and
//! the default schedule's write-back windows (what PCT aims at) are the
//! same decisions whether the run stopped at each of them or not. A run
//! told to end where a site first shows (`Spec::until`, what minimising
//! uses) records that finding as the whole run does.

use alpha_emu::explore::replay::Schedule;
use alpha_emu::explore::run::{self, Chooser, Decision, Outcome, Replay, Spec};
use alpha_emu::explore::strategy::{Random, Rng};
use alpha_emu::explore::SiteKey;
use alpha_emu::linux::Options;

/// `inner`, asked at every decision.
struct EveryPoint<C>(C);

impl<C: Chooser> Chooser for EveryPoint<C> {
    fn choose(&mut self, d: &Decision<'_>) -> usize {
        self.0.choose(d)
    }
}

fn program(test: &str) -> Option<(Vec<u8>, String)> {
    let path = testkit::explore_program(test, "adjacent_chars", "ev4")?;
    let elf = std::fs::read(&path).expect("read adjacent_chars_ev4");
    Some((elf, path.display().to_string()))
}

fn opts(path: &str) -> Options {
    let mut o = Options::new(
        alpha_isa::model_by_name("ev4").expect("ev4"),
        vec![path.to_string()],
    );
    // As the explorer runs a schedule (`Settings::run_opts`).
    o.jit = None;
    o.deterministic = true;
    o.inline_rduniq = false;
    o
}

fn run_with(prog: &(Vec<u8>, String), record_windows: bool, chooser: &mut dyn Chooser) -> Outcome {
    run_until(prog, record_windows, None, chooser)
}

fn run_until(
    (elf, path): &(Vec<u8>, String),
    record_windows: bool,
    until: Option<&SiteKey>,
    chooser: &mut dyn Chooser,
) -> Outcome {
    let opts = opts(path);
    let spec = Spec {
        start: None,
        elf,
        opts: &opts,
        max_insns: 50_000_000,
        lock_range: 8,
        record_taken: false,
        record_windows,
        watch: None,
        until,
    };
    run::run(&spec, chooser).expect("run")
}

fn summary(o: &Outcome) -> (String, u64, u64, Vec<String>) {
    let findings = o
        .findings
        .iter()
        .map(|(f, k)| format!("{}@{k}:{:?}", f.kind(), f.site_key().pcs))
        .collect();
    (o.schedule.to_string(), o.decisions, o.insns, findings)
}

#[test]
fn random_walk_runs_the_same_schedules_whether_it_looks_ahead_or_is_asked_everywhere() {
    let Some(prog) = program("random_walk_lookahead") else {
        return;
    };
    let mut found = 0;
    for index in 1..9 {
        let rng = Rng::for_schedule(0, index);
        let ahead = run_with(&prog, false, &mut Random::new(rng.clone()));
        let every = run_with(&prog, false, &mut EveryPoint(Random::new(rng)));
        assert!(
            ahead.decisions > 1000,
            "schedule {index} made decisions: {:?}",
            summary(&ahead)
        );
        assert_eq!(summary(&ahead), summary(&every), "schedule {index}");
        found += ahead.findings.len();
    }
    // adjacent_chars loses stores under random walks: the comparison
    // covered schedules with findings, not only clean ones.
    assert!(found > 0, "no schedule found anything");
}

#[test]
fn write_back_windows_are_the_same_decisions_when_the_run_goes_through_them() {
    let Some(prog) = program("windows_through_points") else {
        return;
    };
    let default = Schedule::default();
    let through = run_with(&prog, true, &mut Replay::new(&default));
    let every = run_with(&prog, true, &mut EveryPoint(Replay::new(&default)));
    assert!(
        !every.windows.is_empty(),
        "the default schedule has windows"
    );
    assert_eq!(through.windows, every.windows);
    assert_eq!(summary(&through), summary(&every));
}

#[test]
fn a_run_ended_where_a_site_first_shows_records_that_finding_as_the_whole_run_does() {
    let Some(prog) = program("run_until_site") else {
        return;
    };
    let mut shorter = 0;
    for index in 1..9 {
        let rng = Rng::for_schedule(0, index);
        let whole = run_with(&prog, false, &mut Random::new(rng));
        let Some((first, k)) = whole.findings.first().cloned() else {
            continue;
        };
        let key = first.site_key();
        let cut = run_until(&prog, false, Some(&key), &mut Replay::new(&whole.schedule));
        let (f, kk) = cut
            .findings
            .iter()
            .find(|(f, _)| f.site_key() == key)
            .expect("the cut run shows the site");
        assert_eq!(
            format!("{f:?}@{kk}"),
            format!("{first:?}@{k}"),
            "schedule {index}"
        );
        let upto = |s: &Schedule| {
            s.switches
                .iter()
                .filter(|w| w.k <= k)
                .map(|w| (w.k, w.thread))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            upto(&cut.schedule),
            upto(&whole.schedule),
            "schedule {index}"
        );
        assert!(cut.insns <= whole.insns);
        shorter += (cut.insns < whole.insns) as u32;
    }
    // The race shows early in adjacent_chars: ending there saves work.
    assert!(shorter > 0, "no run ended before the program did");
}

/// `tests/c/sched/timed_waits.c` (a sleeper, a pipe between two threads,
/// a timed condition wait, an interval timer), built as the explorer
/// programs are.
fn timed_waits(test: &str) -> Option<(Vec<u8>, String)> {
    let gcc = testkit::alpha_gcc(test)?;
    let dir = testkit::scratch_dir(&format!("explore_passes_{test}"));
    let src = std::fs::read_to_string(
        testkit::workspace_root().join("crates/alpha-emu/tests/c/sched/timed_waits.c"),
    )
    .expect("timed_waits.c");
    let mut flags: Vec<&str> = testkit::EXPLORE_CFLAGS.to_vec();
    flags.push("-mcpu=ev4");
    let bin = testkit::compile_c(&gcc, &dir, "timed_waits", &src, &flags);
    let elf = std::fs::read(&bin).expect("read timed_waits");
    Some((elf, bin.display().to_string()))
}

/// Threads that wake by time (sleeps, a timed wait, timer signals) and
/// through a pipe wake at the same instruction whether the run stops at
/// every scheduling point or runs through them: the same schedules, and
/// replaying a schedule's string gives that schedule again. None of their
/// waits is a deadlock.
#[test]
fn time_and_pipe_wake_ups_do_not_depend_on_where_the_run_stops() {
    let Some(prog) = timed_waits("time_wakeups") else {
        return;
    };
    for index in 1..7 {
        let rng = Rng::for_schedule(3, index);
        let ahead = run_with(&prog, false, &mut Random::new(rng.clone()));
        let every = run_with(&prog, false, &mut EveryPoint(Random::new(rng)));
        assert!(
            ahead.decisions > 100,
            "schedule {index}: {:?}",
            summary(&ahead)
        );
        assert_eq!(summary(&ahead), summary(&every), "schedule {index}");
        let again = run_with(&prog, false, &mut Replay::new(&ahead.schedule));
        assert_eq!(summary(&again), summary(&ahead), "replay of {index}");
        assert!(
            ahead.findings.iter().all(|(f, _)| f.kind() != "deadlock"),
            "schedule {index}: {:?}",
            summary(&ahead)
        );
        assert!(!ahead.insn_limit, "schedule {index} ran to the end");
    }
}
