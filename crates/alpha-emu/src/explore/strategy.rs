//! The strategies: seeded random walk and PCT (the exhaustive strategy
//! enumerates [`super::replay::Schedule`]s directly, in `super`), and the
//! chooser the minimiser steers by a finding's anchors ([`Guided`]).
//!
//! The random numbers come from SplitMix64 written out here rather than a
//! crate: a replay string is only ever a list of decisions, but schedule
//! `i` of seed `S` must stay the same schedule across releases so that
//! "seed 7 finds it at schedule 12" stays true in bug reports and in the
//! detection table; a crate's generator may change its stream.

use super::replay::Schedule;
use super::run::{Chooser, Decision, Replay};

/// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
/// generators", OOPSLA 2014).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator for schedule `index` of `seed`.
    pub fn for_schedule(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ 0x05ee_d0f5_c4ed_u64.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let a = r.next_u64();
        Rng(a ^ Rng(index.wrapping_add(0x1234_5678)).next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The value the `n`-th call of [`Rng::next_u64`] (counted from 0)
    /// returns, without making the calls before it or changing the state.
    pub fn nth(&self, n: u64) -> u64 {
        Rng(self.0.wrapping_add(n.wrapping_mul(0x9e37_79b9_7f4a_7c15))).next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Random walk: at every decision, any runnable thread, uniformly.
///
/// Decision `k` of a schedule is answered from the generator's `k`-th
/// draw (counted from 0), whichever decisions the run stopped at: a
/// SplitMix64 stream is a counter, so that draw is computed directly
/// ([`Rng::nth`]) rather than by stepping through the ones before it.
/// That lets the walk look ahead: after answering decision `k` with
/// thread `t` it finds the first later decision whose draw, over the same
/// runnable set, picks another thread, and [`Chooser::next_ask`] names it,
/// so the interpreter runs `t` through the points in between (with two
/// runnable threads, half of them) without stopping. The runnable set
/// changes only at an event, which stops the run and asks again, so every
/// decision gets the thread that asking at every point would give: the
/// schedules, and their replay strings, are the ones a walk that stopped
/// at every decision runs.
///
/// With two runnable threads (the common case) draw `k` picks by its top
/// bit alone, so the walk keeps those bits of the draws `base..base + 128`
/// in two words and finds the next switch with one `trailing_zeros`
/// instead of a data-dependent loop (whose mispredicted exit was most of a
/// decision's cost); any other count looks ahead draw by draw.
pub struct Random {
    rng: Rng,
    /// The decision [`Chooser::next_ask`] names.
    ask: u64,
    /// Bit `i` of `top[w]` is the top bit of draw `base + 64 w + i`
    /// (`base` a multiple of 64; `u64::MAX`: nothing cached yet).
    base: u64,
    top: [u64; 2],
}

/// How far past a decision the walk looks for the next switch; the run
/// stops at [`super::FAIRNESS`] decisions in a row anyway.
const RANDOM_LOOKAHEAD: u64 = super::FAIRNESS;

impl Random {
    pub fn new(rng: Rng) -> Random {
        Random {
            rng,
            ask: 0,
            base: u64::MAX,
            top: [0; 2],
        }
    }

    /// The thread draw `k` picks among `runnable`.
    fn pick(&self, k: u64, runnable: &[usize]) -> usize {
        let u = self.rng.nth(k);
        runnable[((u as u128 * runnable.len() as u128) >> 64) as usize]
    }

    /// The top bits of draws `w0..w0 + 64`, draw `w0 + i` at bit `i`.
    fn top_bits(&self, w0: u64) -> u64 {
        (0..64).fold(0, |m, i| m | (self.rng.nth(w0 + i) >> 63) << i)
    }

    /// The top bits of draws `k..k + 64`, draw `k + i` at bit `i`.
    fn top_bits_from(&mut self, k: u64) -> u64 {
        let w0 = k & !63;
        if w0 != self.base {
            self.top = if w0 == self.base.wrapping_add(64) {
                [self.top[1], self.top_bits(w0 + 64)]
            } else {
                [self.top_bits(w0), self.top_bits(w0 + 64)]
            };
            self.base = w0;
        }
        let both = (self.top[1] as u128) << 64 | self.top[0] as u128;
        (both >> (k - w0)) as u64
    }

    /// The first decision in `k + 1..end` whose draw picks another thread
    /// than draw `k` among `runnable`, or `end`; and draw `k`'s thread.
    fn run_from(&mut self, k: u64, end: u64, runnable: &[usize]) -> (u64, usize) {
        let mut j = k + 1;
        let t = if runnable.len() == 2 && k < u64::MAX - 128 {
            // Draw k picks runnable[top bit]; the first later draw with
            // the other top bit picks the other thread.
            let s = self.top_bits_from(k);
            let b = s & 1;
            let other = (s ^ b.wrapping_neg()) & !1;
            j = if other != 0 {
                k + u64::from(other.trailing_zeros())
            } else {
                k + 64
            };
            runnable[b as usize]
        } else {
            self.pick(k, runnable)
        };
        // Longer runs (2^-63 with two threads), and other thread counts.
        while j < end && self.pick(j, runnable) == t {
            j += 1;
        }
        (j.min(end), t)
    }
}

impl Chooser for Random {
    fn choose(&mut self, d: &Decision<'_>) -> usize {
        let end = d.k.saturating_add(RANDOM_LOOKAHEAD);
        let (j, t) = self.run_from(d.k, end, d.runnable);
        self.ask = j;
        t
    }

    /// The first decision after the last one answered whose draw picks a
    /// different thread of the same runnable set (see the type's docs).
    fn next_ask(&self, k: u64) -> u64 {
        self.ask.max(k + 1)
    }
}

/// How long a PCT change point may wait for the running thread to enter a
/// load…write-back or LDx_L…STx_C window before it fires anyway.
pub const PCT_WINDOW_WAIT: u64 = 64;

/// Write-back windows are *sparse* when at most one decision in this many
/// of the default schedule is inside one; only then does PCT aim its change
/// points at them (dense windows are hit by uniform change points anyway).
pub const SPARSE_WINDOWS: u64 = 16;

/// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
/// Nagarakatte: "A randomized scheduler with probabilistic guarantees of
/// finding bugs", ASPLOS 2010): every thread gets a random priority, the
/// highest-priority runnable thread runs, and at `depth - 1` random change
/// points the running thread drops below every other.
///
/// Where the change points go. A lost store or a broken reservation needs
/// a preemption inside a write-back window (between a load of a quadword
/// and the store that writes it back, or LDx_L…STx_C), and such windows can
/// be a handful of decisions in a run of thousands (a spin loop's loads
/// open windows that no store closes). So when the default schedule's
/// write-back windows ([`super::run::Outcome::windows`]) are sparse
/// ([`SPARSE_WINDOWS`]), each change point is, with probability 3/4, one
/// of their decisions, uniformly; otherwise (and when windows are dense,
/// always) it is uniform over the default schedule's length as in the
/// paper. A change point that falls where the running thread is
/// *not* inside a window (after any load and before its next store) waits
/// for up to [`PCT_WINDOW_WAIT`] decisions until it is.
pub struct Pct {
    rng: Rng,
    /// Priority per thread (higher runs first).
    prio: Vec<u64>,
    /// Change points (decision numbers), increasing.
    changes: Vec<u64>,
    next_change: usize,
    /// A change point fired and waits for a window since this decision.
    waiting: Option<u64>,
}

impl Pct {
    /// `depth` ≥ 1; `length` is the expected number of decisions of a
    /// schedule and `windows` its write-back window decisions (both from
    /// the default schedule).
    pub fn new(mut rng: Rng, depth: u32, length: u64, windows: &[u64]) -> Pct {
        let sparse = !windows.is_empty() && windows.len() as u64 * SPARSE_WINDOWS <= length;
        let mut changes: Vec<u64> = (1..depth.max(1))
            .map(|_| {
                if sparse && rng.below(4) != 0 {
                    windows[rng.below(windows.len() as u64) as usize]
                } else {
                    rng.below(length.max(1))
                }
            })
            .collect();
        changes.sort_unstable();
        Pct {
            rng,
            prio: Vec::new(),
            changes,
            next_change: 0,
            waiting: None,
        }
    }

    fn prio_of(&mut self, t: usize) -> u64 {
        while self.prio.len() <= t {
            // New threads get a random priority above every lowered one.
            let p = 1_000_000 + self.rng.below(1_000_000);
            self.prio.push(p);
        }
        self.prio[t]
    }
}

impl Chooser for Pct {
    fn choose(&mut self, d: &Decision<'_>) -> usize {
        while self.next_change < self.changes.len() && self.changes[self.next_change] <= d.k {
            self.next_change += 1;
            self.waiting.get_or_insert(d.k);
        }
        if let Some(since) = self.waiting {
            let inside = d.in_window.get(d.current).copied().unwrap_or(false);
            if inside || d.k >= since + PCT_WINDOW_WAIT {
                self.waiting = None;
                self.prio_of(d.current);
                // Below every other thread, later drops lower still.
                self.prio[d.current] = 1 + (self.changes.len() - self.next_change) as u64;
            }
        }
        if d.starved {
            // A spinning thread gives way for good, as if it had yielded.
            self.prio_of(d.current);
            self.prio[d.current] = 0;
        }
        let mut best = d.runnable[0];
        let mut best_p = None;
        for &t in d.runnable {
            let p = Some(self.prio_of(t));
            if p > best_p {
                best = t;
                best_p = p;
            }
        }
        best
    }

    /// Priorities change only at change points, at starvation and when a
    /// thread appears (an event): until the next change point the highest
    /// priority runnable thread, the one just chosen, stays the answer. A
    /// change point waiting for a window looks at every decision.
    fn next_ask(&self, k: u64) -> u64 {
        if self.waiting.is_some() {
            return k + 1;
        }
        self.changes
            .get(self.next_change)
            .copied()
            .unwrap_or(u64::MAX)
            .max(k + 1)
    }
}

/// A finding's three anchors: thread `by` loads at `load` and later
/// writes the unit back (or tries to: a store-conditional), and thread
/// `other` stores to the unit at `store` in between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchors {
    pub by: usize,
    pub load: u64,
    pub other: usize,
    pub store: u64,
}

/// The canonical schedule of a finding, built on a base schedule: the
/// base's deviations (and the default policy) until thread `by` has just
/// made its load at `load` while `other` can run; then `other` runs (one
/// preemption) until it has made its store at `store`; then `by` runs
/// again (a second preemption, unless `other` blocked and the default
/// policy returns to `by` by itself); then the default policy to the end.
/// The minimiser shrinks the base by delta debugging and keeps what still
/// shows the finding.
pub struct Guided<'a> {
    base: Replay<'a>,
    a: Anchors,
    phase: GuidedPhase,
    /// The decision at which `by`'s load was seen.
    trigger: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GuidedPhase {
    /// Following the base until `by`'s load.
    Base,
    /// `other` runs until its store.
    Other,
    /// The default policy.
    Rest,
}

impl<'a> Guided<'a> {
    pub fn new(base: &'a Schedule, a: Anchors) -> Guided<'a> {
        Guided {
            base: Replay::new(base),
            a,
            phase: GuidedPhase::Base,
            trigger: None,
        }
    }

    /// Of the deviations `made` (the run's), those made while following
    /// the base: what a shorter base must keep.
    pub fn base_used(&self, made: &Schedule) -> Vec<super::replay::Switch> {
        made.switches
            .iter()
            .filter(|w| self.trigger.is_none_or(|t| w.k < t))
            .copied()
            .collect()
    }
}

impl Chooser for Guided<'_> {
    fn choose(&mut self, d: &Decision<'_>) -> usize {
        let last = |t: usize| d.last_pc.get(t).copied().unwrap_or(0);
        let can = |t: usize| d.runnable.contains(&t);
        if self.phase == GuidedPhase::Base {
            if d.current == self.a.by && last(self.a.by) == self.a.load && can(self.a.other) {
                // `other` runs at least one access before its last one
                // is looked at.
                self.phase = GuidedPhase::Other;
                self.trigger = Some(d.k);
                return self.a.other;
            }
            return self.base.choose(d);
        }
        if self.phase == GuidedPhase::Other {
            if last(self.a.other) != self.a.store {
                return if can(self.a.other) && !(d.starved && d.current == self.a.other) {
                    self.a.other
                } else {
                    d.default
                };
            }
            self.phase = GuidedPhase::Rest;
            if can(self.a.by) {
                return self.a.by;
            }
        }
        d.default
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_draw_equals_stepping_the_generator() {
        let base = Rng::for_schedule(7, 12);
        let mut stepped = base.clone();
        for n in 0..1000 {
            assert_eq!(base.nth(n), stepped.next_u64(), "draw {n}");
        }
    }

    /// The two-thread shortcut (top bits, `trailing_zeros`) finds the same
    /// next switch as looking ahead draw by draw, wherever the decisions
    /// fall: in order, across the cached window's edge, after long jumps.
    #[test]
    fn two_thread_lookahead_by_top_bits_equals_drawing_one_by_one() {
        for seed in 0..8u64 {
            let rng = Rng::for_schedule(seed, 5);
            let mut fast = Random::new(rng.clone());
            let slow = Random::new(rng);
            let mut jumps = Rng::new(seed);
            let mut k = 0u64;
            for _ in 0..3_000 {
                for runnable in [&[0usize, 1][..], &[2, 5], &[0, 1, 2]] {
                    let end = k + RANDOM_LOOKAHEAD;
                    let t = slow.pick(k, runnable);
                    let mut j = k + 1;
                    while j < end && slow.pick(j, runnable) == t {
                        j += 1;
                    }
                    assert_eq!(
                        fast.run_from(k, end, runnable),
                        (j, t),
                        "seed {seed}, k {k}"
                    );
                    assert_eq!(fast.run_from(k, k + 3, runnable), (j.min(k + 3), t));
                }
                k += match jumps.below(10) {
                    0 => 64 + jumps.below(300),
                    1 => 1_000_000,
                    _ => 1 + jumps.below(5),
                };
            }
        }
    }

    /// A driver that asks the walk only where `next_ask` says (or after an
    /// event changed the runnable set) sees, at every decision, the thread
    /// the walk that draws once per decision and is asked at every one
    /// picks: the lookahead changes where the run stops, never a schedule.
    #[test]
    fn random_walk_with_lookahead_decides_as_asking_at_every_point() {
        for seed in 0..20u64 {
            let rng = Rng::for_schedule(seed, seed * 3 + 1);
            let mut every = rng.clone();
            let mut walk = Random::new(rng);
            // Runnable sets change at "events", a few dozen decisions apart.
            let sets: [&[usize]; 4] = [&[0, 1], &[0, 1, 2], &[1, 2], &[0, 2, 3]];
            let mut events = Rng::new(seed ^ 0xe7e7);
            let mut set = 0usize;
            let mut next_event = 1 + events.below(40);
            let mut cur = 0usize;
            let mut ask = 0u64;
            let mut stops = 0u64;
            for k in 0..5_000u64 {
                let runnable = sets[set];
                let want = runnable[every.below(runnable.len() as u64) as usize];
                let got = if k == ask || !runnable.contains(&cur) {
                    stops += 1;
                    let d = Decision {
                        k,
                        default: cur,
                        current: cur,
                        runnable,
                        starved: false,
                        in_window: &[],
                        last_pc: &[],
                    };
                    let t = walk.choose(&d);
                    ask = walk.next_ask(k);
                    assert!(ask > k);
                    t
                } else {
                    cur
                };
                assert_eq!(got, want, "seed {seed}, decision {k}");
                cur = got;
                if k == next_event {
                    // The run stops at an event and asks at the next decision.
                    set = (set + 1 + events.below(3) as usize) % sets.len();
                    next_event = k + 1 + events.below(40);
                    ask = k + 1;
                }
            }
            // With two or more threads runnable, about half the decisions
            // keep the running thread, and those are run through.
            assert!(stops < 4_000, "seed {seed}: {stops} stops");
        }
    }
}
