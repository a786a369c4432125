//! A machine: several CPUs sharing one memory. Everything is plain data, so
//! a schedule explorer can run many machines side by side and snapshot them.

use crate::cpu::Cpu;
use crate::exec::{self, Event};
use crate::icache::ICache;
use crate::memory::{Memory, MemoryKind};
use alpha_isa::Model;

/// CPUs and the memory they share. `Clone` is a full, independent snapshot.
#[derive(Clone)]
pub struct Machine {
    pub cpus: Vec<Cpu>,
    pub mem: Memory,
    pub icache: ICache,
    /// Stop every [`Machine::run`] before the next scheduling point (a data
    /// access) after its first instruction, as [`exec::fast::run_to_point`]
    /// says; the schedule explorer sets it while two or more threads can run.
    pub stop_at_points: bool,
}

impl Machine {
    /// A machine with `ncpus` CPUs of `model`, each with lock range
    /// `lock_range` bytes (or the model's default when `None`).
    pub fn new(model: &'static Model, ncpus: usize, lock_range: Option<u64>) -> Machine {
        Self::with_memory(model, ncpus, lock_range, Memory::new())
    }

    /// [`Machine::new`] over memory of `kind` ([`MemoryKind`]); a host that
    /// cannot give host-mapped memory gives portable memory, and the
    /// reason comes back as the second value.
    pub fn of_kind(
        model: &'static Model,
        ncpus: usize,
        lock_range: Option<u64>,
        kind: MemoryKind,
    ) -> (Machine, Option<String>) {
        let (mem, why) = Memory::of_kind(kind);
        (Self::with_memory(model, ncpus, lock_range, mem), why)
    }

    /// [`Machine::new`] over `mem`.
    pub fn with_memory(
        model: &'static Model,
        ncpus: usize,
        lock_range: Option<u64>,
        mem: Memory,
    ) -> Machine {
        let cpus = (0..ncpus.max(1))
            .map(|id| {
                let mut c = Cpu::new(id, model);
                if let Some(r) = lock_range {
                    c.lock_range = r;
                }
                c
            })
            .collect();
        Machine {
            cpus,
            mem,
            icache: ICache::new(),
            stop_at_points: false,
        }
    }

    /// A copy as independent as `clone`'s whose memory shares its pages
    /// with this machine's until either writes them ([`Memory::snapshot`];
    /// a copy of host-mapped memory is portable).
    pub fn snapshot(&mut self) -> Machine {
        let mem = std::mem::take(&mut self.mem);
        let mut copy = self.clone();
        self.mem = mem;
        copy.mem = self.mem.snapshot();
        copy
    }

    /// Run CPU `cpu` for at most `budget` instructions.
    pub fn run(&mut self, cpu: usize, budget: u64) -> Event {
        self.mem.enter_agent(cpu);
        if self.stop_at_points {
            return exec::fast::run_to_point(
                &mut self.cpus[cpu],
                &mut self.mem,
                &mut self.icache,
                budget,
            );
        }
        exec::run(&mut self.cpus[cpu], &mut self.mem, &mut self.icache, budget)
    }

    /// Use the specialised micro-ops (default) or only the reference
    /// `exec::execute` path (for differential tests).
    pub fn set_fast_path(&mut self, fast: bool) {
        self.mem.unmark_all_code();
        self.icache.set_fast_path(fast);
    }

    /// Compile hot code after `threshold` arrivals at a region's entry, or
    /// never (`None`); see [`crate::jit`].
    /// Compiling happens in a background thread unless
    /// [`Machine::set_jit_background`] says otherwise.
    pub fn set_jit(&mut self, threshold: Option<u32>) {
        self.icache.set_jit(threshold);
    }

    /// Run CALL_PAL `rduniq` in line instead of raising its event (see
    /// [`ICache::set_inline_rduniq`]).
    pub fn set_inline_rduniq(&mut self, on: bool) {
        self.icache.set_inline_rduniq(on);
    }

    /// Compile in a background thread (default) or at once (`false`).
    pub fn set_jit_background(&mut self, on: bool) {
        self.icache.set_jit_background(on);
    }

    /// Wait for the background compiler and install what it compiled.
    pub fn jit_wait(&mut self) {
        self.icache.jit_wait();
    }

    /// Continue in the child of a host `fork` (see [`crate::jit::Jit::after_fork`]).
    pub fn after_fork(&mut self) {
        self.icache.after_fork();
    }

    /// What the compiling tier has compiled so far.
    pub fn jit_stats(&self) -> crate::jit::JitStats {
        let mut s = self.icache.jit_stats();
        s.code_faults = self.mem.host_faults.code;
        s.lock_faults = self.mem.host_faults.lock;
        s
    }

    /// `IMB`: drop every predecoded instruction.
    pub fn flush_icache(&mut self) {
        self.mem.unmark_all_code();
        self.icache.clear();
    }
}
