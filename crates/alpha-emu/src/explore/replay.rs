//! Schedules as data, and the replay string that names one.
//!
//! A schedule is the list of *deviations* from the default policy: at
//! decision `k` (the k-th time, counted from 0, that two or more threads
//! could run and the explorer chose one) run thread `t` (an index into the
//! process's thread list, in creation order: 0 is the main thread) instead
//! of the one the default policy would run. The default policy keeps the
//! running thread while it can run, and otherwise takes the next runnable
//! thread after it in index order; a thread that has run
//! [`super::FAIRNESS`] decisions in a row is switched the same way (so a
//! spin-wait cannot starve the thread it waits for). The empty list is the
//! default schedule.
//!
//! The replay string is `S1` followed by `-K.T` per deviation, in
//! increasing `K`: `S1-402.1-517.0`. It is printable, needs no shell
//! quoting, and every strategy (random, pct, exhaustive, minimised) ends up
//! as one, so `--replay` is one code path for all of them.

use std::fmt;

/// One deviation: at decision `k`, run thread `thread`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Switch {
    pub k: u64,
    pub thread: u32,
}

/// A schedule: deviations from the default policy, `k` strictly increasing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub switches: Vec<Switch>,
}

impl Schedule {
    /// How many preemptions (deviations) the schedule makes.
    pub fn preemptions(&self) -> usize {
        self.switches.len()
    }

    /// The thread to run at decision `k`, if the schedule names one.
    /// `cursor` walks the list forward as `k` grows (decisions come in order).
    pub fn at(&self, k: u64, cursor: &mut usize) -> Option<u32> {
        while *cursor < self.switches.len() && self.switches[*cursor].k < k {
            *cursor += 1;
        }
        match self.switches.get(*cursor) {
            Some(s) if s.k == k => Some(s.thread),
            _ => None,
        }
    }

    /// Parse a replay string (see the module docs).
    pub fn parse(s: &str) -> Result<Schedule, String> {
        let bad = |why: &str| {
            format!(
                "malformed replay string `{}`: {why} (expected S1 or S1-K.T-K.T…)",
                s.escape_default()
            )
        };
        let mut parts = s.trim().split('-');
        if parts.next() != Some("S1") {
            return Err(bad("it must start with S1"));
        }
        let mut switches: Vec<Switch> = Vec::new();
        for p in parts {
            let (k, t) = p.split_once('.').ok_or_else(|| bad("a step lacks `.`"))?;
            // Digits only: `str::parse` would also take a sign (`+1`).
            let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
            let k: u64 = k
                .parse()
                .ok()
                .filter(|_| digits(k))
                .ok_or_else(|| bad(&format!("`{k}` is not a decision number")))?;
            let thread: u32 = t
                .parse()
                .ok()
                .filter(|_| digits(t))
                .ok_or_else(|| bad(&format!("`{t}` is not a thread number")))?;
            if switches.last().is_some_and(|l| l.k >= k) {
                return Err(bad("decision numbers must increase"));
            }
            switches.push(Switch { k, thread });
        }
        Ok(Schedule { switches })
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S1")?;
        for s in &self.switches {
            write!(f, "-{}.{}", s.k, s.thread)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_string_round_trips() {
        let s = Schedule {
            switches: vec![Switch { k: 3, thread: 1 }, Switch { k: 90, thread: 0 }],
        };
        assert_eq!(s.to_string(), "S1-3.1-90.0");
        assert_eq!(Schedule::parse("S1-3.1-90.0").unwrap(), s);
        assert_eq!(Schedule::parse("S1").unwrap(), Schedule::default());
    }

    #[test]
    fn malformed_replay_strings_are_refused() {
        for bad in [
            "",
            "S2",
            "S1-",
            "S1-3",
            "S1-3.x",
            "S1-5.1-5.0",
            "S1-9.1-3.0",
            "x1-1.1",
            "S1-+1.+1",
            "S1-1.+1",
            "S1- 1.1",
        ] {
            assert!(Schedule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cursor_finds_each_decision_once() {
        let s = Schedule::parse("S1-2.1-5.0").unwrap();
        let mut c = 0;
        let got: Vec<_> = (0..7).map(|k| s.at(k, &mut c)).collect();
        assert_eq!(got, vec![None, None, Some(1), None, None, Some(0), None]);
    }
}
