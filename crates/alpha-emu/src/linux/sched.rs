//! The run loop: the one place guest threads are driven, whoever decides
//! which thread runs. [`Process::run_with`] runs slices of threads and, around
//! them, does what a kernel's scheduler does between slices: expires
//! interval timers and wakes sleepers ([`Process::tick`]), queues host
//! signals ([`Process::forward_host_signals`]), wakes threads blocked in
//! system calls whose waits hold ([`Process::wake_ready`]), expires a timed
//! futex wait when nothing else can run, and, when every thread waits, waits
//! on the host (descriptors, deadlines, host signals) or ends the run as a
//! deadlock. When the guest is the host process (`alpha run`) outside
//! `--deterministic`, a host signal can always come (a shell's `kill`), so
//! every thread waiting with nothing else to wake it waits for one, as
//! under qemu-user, instead of ending as a deadlock. A pending signal is delivered when its thread next runs
//! ([`Process::step_thread`]).
//!
//! The only decision it leaves to others is *which runnable thread runs
//! next, for how long*: a [`Scheduler`] answers it ([`Scheduler::pick`])
//! and is told what each slice did ([`Scheduler::ran`]). Three implement
//! it: [`RoundRobin`] (`alpha run`: each thread a quantum of instructions
//! in turn; one instruction per slice under the GDB stub, which stops the
//! loop at a breakpoint or watchpoint), and the schedule explorer's
//! (`crate::explore::run`), whose strategies decide at every scheduling
//! point while two or more threads can run.
//!
//! Under `--deterministic` a slice never runs past the next time event (a
//! sleeper's or a blocked call's deadline, an interval timer): it ends
//! exactly there, so what wakes when is a function of retired instructions
//! alone, never of where slices happen to end.
//!
//! Every queue the loop reads ([`super::thread::Queues`]) is kept as threads
//! change state, so a slice costs the same however many threads are
//! blocked: picking the next runnable thread, waking a futex waiter and
//! finding the next deadline are O(log n) in the number of threads; only
//! threads blocked in a system call on a descriptor are probed, each time
//! some thread has made a system call or a slice ended.

use super::errno;
use super::{epoll, fs, process, signal, syscall, time, Exit, Host, Process, Wait};
use crate::exec::Event;

/// One slice: run `thread` for at most `budget` instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Index of a runnable thread.
    pub thread: usize,
    /// Most instructions to run; the loop lowers it to the run's
    /// instruction limit and, under `--deterministic`, to the next time
    /// event.
    pub budget: u64,
    /// Stop before the thread's next scheduling point (a data access)
    /// after its first instruction ([`crate::Machine::stop_at_points`]).
    pub points: bool,
    /// With `points`: scheduling points to run through before stopping
    /// ([`crate::Memory::set_point_passes`]).
    pub passes: u64,
}

/// What a scheduler answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    Run(Slice),
    /// Stop the loop here ([`Ended::Paused`]); calling
    /// [`Process::run_with`] again resumes it.
    Pause,
}

/// What a slice did, told to the scheduler that chose it.
#[derive(Debug)]
pub struct Ran<'a> {
    pub slice: Slice,
    /// The event that ended it (already handled: a system call made, a
    /// signal frame built…), or the end of the process.
    pub result: &'a Result<Event, Exit>,
    /// Instructions retired.
    pub executed: u64,
    /// Scheduling points run through (with `points`).
    pub passed: u64,
    /// The thread gave up the processor (`sched_yield`, a sleep, a system
    /// call to be restarted after the others ran).
    pub yielded: bool,
    /// The loop ended the slice early at a time event (`--deterministic`).
    pub cut: bool,
    /// `execve` replaced the process: every thread index is new.
    pub replaced: bool,
}

/// Go on, or stop the loop after this slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Go,
    Pause,
}

/// How [`Process::run_with`] returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The process is over (the instruction limit included).
    Exit(Exit),
    /// The scheduler paused the loop.
    Paused,
}

/// The one scheduling decision: which runnable thread runs next, and how.
pub trait Scheduler {
    /// Choose the next slice. Called only while some thread is runnable
    /// ([`Process::runnable`]); the thread chosen must be one of them.
    fn pick(&mut self, p: &mut Process) -> Pick;
    /// What the slice just run did.
    fn ran(&mut self, p: &mut Process, r: &Ran<'_>) -> Flow;
}

/// `alpha run`'s scheduler: the running thread keeps the processor for
/// `quantum` instructions (a fresh quantum after each system call or trap
/// it comes back from), unless it blocks or yields; then the next runnable
/// thread after it in index order runs. `step` bounds each slice (1 under
/// the GDB stub, which looks at every instruction).
#[derive(Clone, Debug)]
pub struct RoundRobin {
    pub quantum: u64,
    pub step: u64,
    left: u64,
    switch: bool,
}

impl RoundRobin {
    pub fn new(quantum: u64) -> RoundRobin {
        RoundRobin {
            quantum: quantum.max(1),
            step: u64::MAX,
            left: quantum.max(1),
            switch: false,
        }
    }

    /// At most `step` instructions per slice.
    pub fn with_step(mut self, step: u64) -> RoundRobin {
        self.step = step.max(1);
        self
    }
}

impl RoundRobin {
    /// Make the thread that runs next `p.cur`: a switch the last slice
    /// called for (or the running thread no longer runnable) goes to the
    /// next runnable thread after it.
    pub fn settle(&mut self, p: &mut Process) {
        let cur = p.cur;
        if self.switch || !p.threads.get(cur).is_some_and(|t| t.runnable()) {
            self.switch = false;
            self.left = self.quantum;
            if let Some(n) = p.pick_next(cur) {
                p.cur = n;
            }
        }
    }
}

impl Scheduler for RoundRobin {
    fn pick(&mut self, p: &mut Process) -> Pick {
        self.settle(p);
        Pick::Run(Slice {
            thread: p.cur,
            budget: self.left.min(self.step).max(1),
            points: false,
            passes: 0,
        })
    }

    fn ran(&mut self, p: &mut Process, r: &Ran<'_>) -> Flow {
        if r.replaced {
            // execve: its one thread runs next, with a fresh quantum.
            p.cur = 0;
            self.left = self.quantum;
            self.switch = false;
            return Flow::Go;
        }
        self.left = self.left.saturating_sub(r.executed);
        match r.result {
            // A time event the loop stopped at: the turn goes on.
            Ok(Event::BudgetExhausted) if r.cut => {}
            Ok(Event::BudgetExhausted) => {
                if self.left == 0 {
                    self.switch = true;
                }
            }
            Ok(_) => self.left = self.quantum,
            Err(_) => {}
        }
        if self.left == 0 {
            self.left = self.quantum;
            self.switch = true;
        }
        // Each thread has its own CPU, so switching threads is
        // interleaving processors, not a context switch: the reservation
        // stays armed (another CPU's store clears it).
        if r.yielded || !p.threads.get(r.slice.thread).is_some_and(|t| t.runnable()) {
            self.switch = true;
        }
        Flow::Go
    }
}

/// What [`Process::probe`] found for one wait.
enum Probe {
    Ready,
    NotReady,
    /// Poll this host descriptor for these events.
    Host(i32, i16),
    /// Holds once the guest clock reaches this many ns.
    At(u64),
}

impl Process {
    /// Index of the next runnable thread after `from` in index order,
    /// wrapping around (`from` itself last), if any.
    pub fn pick_next(&self, from: usize) -> Option<usize> {
        let q = self.queues.runnable();
        q.range(from.saturating_add(1)..)
            .next()
            .or_else(|| q.first())
            .copied()
    }

    /// Threads that can run now (indices into `threads`, increasing).
    pub fn runnable(&self) -> Vec<usize> {
        self.queues.runnable().iter().copied().collect()
    }

    /// The scheduling queues (runnable threads, futex waiters, sleepers…).
    pub fn queues(&self) -> &super::thread::Queues {
        &self.queues
    }

    /// Run to the end (or to `max_insns`) under [`RoundRobin`] with the
    /// process's quantum.
    pub fn run(&mut self, host: &mut dyn Host, max_insns: Option<u64>) -> Exit {
        let mut rr = RoundRobin::new(self.quantum);
        match self.run_with(host, &mut rr, max_insns) {
            Ended::Exit(Exit::InsnLimit(done)) => {
                let pc = self
                    .threads
                    .get(self.cur)
                    .map_or(0, |t| self.machine.cpus[t.cpu].pc);
                host.diag(&format!(
                    "stopped after {done} instructions (--max-insns) at pc 0x{pc:x}"
                ));
                Exit::InsnLimit(done)
            }
            Ended::Exit(e) => e,
            // RoundRobin never pauses.
            Ended::Paused => Exit::InsnLimit(self.insns),
        }
    }

    /// The run loop (see the module docs): slices chosen by `sched` until
    /// the process ends, it reaches `max_insns` retired instructions
    /// ([`Exit::InsnLimit`], no diagnostic), or `sched` pauses it.
    pub fn run_with(
        &mut self,
        host: &mut dyn Host,
        sched: &mut dyn Scheduler,
        max_insns: Option<u64>,
    ) -> Ended {
        loop {
            if let Some(m) = max_insns {
                if self.insns >= m {
                    return Ended::Exit(Exit::InsnLimit(self.insns));
                }
            }
            self.tick();
            self.forward_host_signals();
            if self.poll_due {
                self.poll_due = false;
                if !self.queues.blocked().is_empty() {
                    self.wake_ready(host, false);
                }
            }
            if self.queues.runnable().is_empty() {
                match self.idle(host) {
                    Some(exit) => return Ended::Exit(exit),
                    None => continue,
                }
            }
            let slice = match sched.pick(self) {
                Pick::Run(s) => s,
                Pick::Pause => return Ended::Paused,
            };
            let t = slice.thread;
            let mut budget = slice.budget;
            if let Some(m) = max_insns {
                budget = budget.min(m - self.insns);
            }
            let mut cut = false;
            if self.deterministic {
                if let Some(n) = self.insns_to_time_event() {
                    if n < budget {
                        budget = n;
                        cut = true;
                    }
                }
            }
            self.machine.stop_at_points = slice.points;
            let passes = if slice.points { slice.passes } else { 0 };
            self.machine.mem.set_point_passes(passes);
            let before = self.insns;
            let threads_before = self.threads.len();
            let incarnation = self.incarnation;
            let result = self.step_thread(host, t, budget);
            let passed = passes - self.machine.mem.point_passes();
            let replaced = self.incarnation != incarnation;
            let yielded = std::mem::take(&mut self.yield_now);
            let _ = threads_before;
            let ran = Ran {
                slice,
                result: &result,
                executed: self.insns - before,
                passed,
                yielded,
                cut: cut && matches!(result, Ok(Event::BudgetExhausted)),
                replaced,
            };
            // Something may now be ready for a thread blocked in a call:
            // a system call changed a pipe or a descriptor, time passed,
            // a slice ended (host descriptors are polled then).
            self.poll_due = true;
            let flow = sched.ran(self, &ran);
            if let Err(exit) = result {
                return Ended::Exit(exit);
            }
            if flow == Flow::Pause {
                return Ended::Paused;
            }
        }
    }

    /// Every live thread waits. Something ready now (a pipe written or
    /// closed, host input)? Else a timed futex waiter's timeout expires;
    /// else wait on the host for the descriptors and deadlines involved
    /// (and for host signals, when they are forwarded); else it is a
    /// deadlock, the end of the run. `None`: some thread can run now.
    fn idle(&mut self, host: &mut dyn Host) -> Option<Exit> {
        if self.wake_ready(host, false) {
            return None;
        }
        if let Some(i) = self.queues.first_timed() {
            self.wake_thread(i, Err(errno::ETIMEDOUT));
            self.cur = i;
            return None;
        }
        if self.wake_ready(host, true) {
            return None;
        }
        if self.threads.iter().all(|t| t.exited()) {
            return Some(Exit::Exited(self.last_exit));
        }
        let why = "every guest thread is blocked (deadlock)".to_string();
        host.diag(&why);
        Some(Exit::Killed {
            signal: signal::SIGKILL,
            why,
        })
    }

    /// When every thread waits with nothing else to wake it, the run
    /// waits for a host signal rather than ending as a deadlock
    /// ([`super::Options::host_signals`], outside `--deterministic`).
    pub fn waits_for_host_signals(&self) -> bool {
        self.procs.forward && self.opts.host_signals && !self.deterministic
    }

    /// Under `--deterministic`: instructions until the next time event
    /// (a sleeper's, a timer's or a blocked call's deadline), if any;
    /// at least 1.
    fn insns_to_time_event(&self) -> Option<u64> {
        let wall_now = self.clock.now(time::Domain::Wall, self.insns);
        let mut wall = self.next_time_event();
        for &t in self.queues.blocked() {
            for &w in &self.threads[t].waits {
                let at = match w {
                    Wait::Deadline(ns) => Some(ns),
                    Wait::Readable(fd) => match self.fds.get(fd).ok().map(|f| f.obj.clone()) {
                        Some(obj) => match &*obj.borrow() {
                            fs::Object::TimerFd(tf) => tf.ready_at(wall_now),
                            _ => None,
                        },
                        None => None,
                    },
                    _ => None,
                };
                if let Some(at) = at {
                    wall = Some(wall.map_or(at, |w: u64| w.min(at)));
                }
            }
        }
        let to_wall = wall.map(|w| w.saturating_sub(wall_now));
        let to_cpu = self
            .timers
            .earliest(time::Domain::Cpu)
            .map(|c| c.saturating_sub(self.clock.now(time::Domain::Cpu, self.insns)));
        let n = match (to_wall, to_cpu) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        n.map(|n| n.max(1))
    }

    /// The guest clock in nanoseconds, the one [`Wait::Deadline`] counts in.
    pub fn clock_ns(&self) -> u64 {
        self.clock.now(time::Domain::Wall, self.insns)
    }

    /// Wake the blocked threads whose waits hold. With `block`, when none
    /// holds yet, first wait on the host, without spinning, for the first
    /// of them: a `poll` on the host descriptors involved with a timeout
    /// for the nearest deadline (in deterministic mode a deadline is
    /// reached at once: the guest clock counts instructions, and none run
    /// while every thread waits). Returns whether a thread woke; `false`
    /// with `block` means nothing can ever wake them (a deadlock).
    pub fn wake_ready(&mut self, host: &mut dyn Host, block: bool) -> bool {
        let now = self.clock_ns();
        let mut woke = false;
        let mut polls: Vec<(usize, libc::pollfd)> = Vec::new();
        let mut nearest: Option<(u64, usize)> = None;
        let blocked: Vec<usize> = self.queues.blocked().iter().copied().collect();
        for t in blocked {
            let mut ready = false;
            for w in self.threads[t].waits.clone() {
                match self.probe(&*host, w) {
                    Probe::Ready => ready = true,
                    Probe::NotReady => {}
                    Probe::Host(fd, events) => polls.push((
                        t,
                        libc::pollfd {
                            fd,
                            events,
                            revents: 0,
                        },
                    )),
                    Probe::At(ns) if ns <= now => ready = true,
                    Probe::At(ns) => {
                        if nearest.is_none_or(|(d, _)| ns < d) {
                            nearest = Some((ns, t));
                        }
                    }
                }
            }
            if ready {
                self.unblock(t);
                woke = true;
            }
        }
        if woke {
            return true;
        }
        // A host signal (another process's kill, a child's exit) can wake
        // a thread too: its self-pipe is polled, in a process tree and
        // when the guest is the host process outside `--deterministic`
        // (with nothing else to wait for, the run waits for one).
        if block && (self.procs.tree || self.waits_for_host_signals()) {
            if let Some(fd) = process::wake_fd() {
                polls.push((
                    usize::MAX,
                    libc::pollfd {
                        fd,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ));
            }
        }
        // A sleeper's or a timer's deadline ([`time`]) bounds the wait too.
        let timed = if block { self.next_time_event() } else { None };
        if polls.is_empty() && nearest.is_none() {
            return block && timed.is_some() && self.idle_wait();
        }
        if polls.is_empty() && !block {
            return false;
        }
        let first = match (nearest.map(|n| n.0), timed) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let timeout_ms: i32 = match (block, first) {
            (false, _) => 0,
            (true, None) => -1,
            (true, Some(_)) if self.deterministic => 0,
            (true, Some(ns)) => ns
                .saturating_sub(now)
                .div_ceil(1_000_000)
                .min(i32::MAX as u64) as i32,
        };
        let mut fds: Vec<libc::pollfd> = polls.iter().map(|(_, p)| *p).collect();
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structures.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if n > 0 {
            for (k, f) in fds.iter().enumerate() {
                let t = polls[k].0;
                if f.revents != 0 && t == usize::MAX {
                    // The run loop queues the caught signals next.
                    process::drain_wake();
                    woke = true;
                } else if f.revents != 0 && self.threads[t].state() == super::ThreadState::Blocked {
                    self.unblock(t);
                    woke = true;
                }
            }
        } else if n == 0 && block {
            // The nearest deadline has passed (on the host's clock: the
            // call sees its timeout expired even if the guest clock lags),
            // or a sleeper's or timer's did.
            match nearest {
                Some((ns, t)) if Some(ns) == first => {
                    // Deterministic: the virtual clock jumps to it.
                    self.clock.wait_until(ns, self.insns);
                    if self.threads[t].timeout_at.is_some() {
                        self.threads[t].timeout_at = Some(0);
                    }
                    self.unblock(t);
                    woke = true;
                }
                _ => {
                    if let Some(ns) = first {
                        self.clock.wait_until(ns, self.insns);
                    }
                    self.tick();
                    woke = true;
                }
            }
        }
        // n < 0: EINTR (a host signal); the scheduler comes back here.
        woke || (block && n < 0)
    }

    /// Whether wait `w` holds now, or what to poll on the host for it.
    fn probe(&self, host: &dyn Host, w: Wait) -> Probe {
        let (fd, events) = match w {
            Wait::Deadline(ns) => return Probe::At(ns),
            Wait::Child(pid) => {
                return match (process::child_ready(pid), process::wake_fd()) {
                    (false, Some(fd)) => Probe::Host(fd, libc::POLLIN),
                    _ => Probe::Ready,
                }
            }
            Wait::Readable(fd) => (fd, libc::POLLIN),
            Wait::Writable(fd) => (fd, libc::POLLOUT),
        };
        let Ok(f) = self.fds.get(fd) else {
            return Probe::Ready; // closed meanwhile: the call reports EBADF
        };
        let o = f.obj.borrow();
        let read = events == libc::POLLIN;
        match &*o {
            fs::Object::PipeRead(pb) if read => {
                let pb = pb.borrow();
                if !pb.data.is_empty() || pb.writers == 0 {
                    Probe::Ready
                } else {
                    Probe::NotReady
                }
            }
            // Only another thread's close changes these: wake then.
            fs::Object::PipeRead(_) => Probe::NotReady,
            fs::Object::PipeWrite(pb) if read => {
                if pb.borrow().readers == 0 {
                    Probe::Ready
                } else {
                    Probe::NotReady
                }
            }
            fs::Object::Stdio(n) => match host.raw_fd(*n) {
                Some(raw) => Probe::Host(raw, events),
                None => Probe::Ready,
            },
            fs::Object::File { file, .. } => {
                use std::os::fd::AsRawFd;
                Probe::Host(file.as_raw_fd(), events)
            }
            fs::Object::Host(h) => Probe::Host(h.raw(), events),
            fs::Object::TimerFd(t) if read => match t.ready_at(self.clock_ns()) {
                Some(0) => Probe::Ready,
                Some(ns) => Probe::At(ns),
                None => Probe::NotReady,
            },
            fs::Object::Epoll(_) if read => match epoll::probe(self, host, &f.obj) {
                Ok(()) => Probe::Ready,
                Err(raw) => Probe::Host(raw, libc::POLLIN),
            },
            _ => Probe::Ready,
        }
    }

    /// Make blocked thread `t` runnable: it re-executes its system call.
    pub(crate) fn unblock(&mut self, t: usize) {
        self.set_state(t, super::ThreadState::Runnable);
        self.threads[t].waits.clear();
    }

    /// Run thread `t` (which must be runnable) for at most `budget`
    /// instructions: first its deliverable pending signals, then its CPU
    /// until the budget or its first event, which is handled (system call,
    /// fix-up, signal). Returns the event, or the end of the process (its
    /// diagnosis already reported). This is the run loop's primitive.
    fn step_thread(&mut self, host: &mut dyn Host, t: usize, budget: u64) -> Result<Event, Exit> {
        self.cur = t;
        if self.threads[t].progress.is_some_and(|g| g.interrupted) {
            // A signal cut short a call that had done part of its work: it
            // returns that part now, and then the handler runs.
            let c = self.threads[t].cpu;
            let cpu = &mut self.machine.cpus[c];
            cpu.pc = cpu.pc.wrapping_add(4);
            if let Some(exit) = syscall::callsys(self, host, c) {
                return Err(self.finish(host, exit));
            }
        }
        if let Some(exit) = self.deliver_pending(host) {
            return Err(self.finish(host, exit));
        }
        if !self.clock.deterministic {
            self.begin_turn(t);
        }
        let c = self.threads[t].cpu;
        let before = self.machine.cpus[c].icount;
        let ev = self.machine.run(c, budget);
        self.insns += self.machine.cpus[c].icount - before;
        if let Some(exit) = self.handle(host, c, ev) {
            return Err(self.finish(host, exit));
        }
        Ok(ev)
    }

    /// Every guest thread runs on this host thread, so a guest thread's
    /// CPU time is the host thread's over its turns: when another thread
    /// than the last one runs, the last one is charged for its turn (one
    /// clock read per switch, none while one thread runs on).
    fn begin_turn(&mut self, t: usize) {
        if self.turn.is_some_and(|(running, _)| running == t) {
            return;
        }
        let now = time::host_thread_cpu_ns();
        if let Some((prev, start)) = self.turn {
            if let Some(th) = self.threads.get_mut(prev) {
                th.cpu_ns += now.saturating_sub(start);
            }
        }
        self.turn = Some((t, now));
    }
}
