//! Alpha AXP machine: state, memory, interpreter, loader and OS personalities.
//!
//! - [`memory`]: sparse little-endian guest memory with 8 KiB pages, the
//!   predecoded-code cache and every agent's LDx_L/STx_C reservation.
//! - [`cpu`]: one processor's architectural state (plain data).
//! - [`exec`]: the interpreter; returns [`exec::Event`] values for anything an
//!   OS must decide (CALL_PAL, OPCDEC, traps, faults).
//! - [`fp`]: IEEE and VAX floating point, exact (rounding modes, FPCR flags).
//! - [`icache`]: the predecoded-instruction cache the interpreter runs from.
//! - [`jit`]: the compiling tier (Cranelift), observationally the
//!   interpreter.
//! - [`machine`]: CPUs sharing a memory.
//! - [`detect`]: lost-store, lock-range-contention and forward-progress
//!   detectors over the access trace.
//! - [`explore`]: the schedule explorer (strategies, replay strings,
//!   minimisation, parallel and sharded runs) driving [`detect`].
//! - [`loader`]: ELF64 Alpha executables into memory.
//! - [`hostfile`]: the one bounded reader of whole host files (regular
//!   files only, at most a caller's limit).
//! - [`linux`]: the Linux user-mode personality (processes, threads, system
//!   calls, signals, sockets, time, a guest `/proc`).
//! - [`bare`] and [`chipset`]: the bare machine in kernel mode on an Alpha
//!   core-logic chipset's I/O windows (sparse, dense, BWX, HAE, Jensen).
//! - [`gdb`]: the GDB remote stub of `alpha run -g`.
//! - [`bench`]: the embedded loops of `alpha bench`.
//! - [`symbols`]: guest pcs to object, `symbol+0xoff` and `file:line`, for
//!   the program and every library a process has loaded.
//!
//! **Architecture Invariant:** the CPU core does no I/O and knows no
//! operating system; only [`linux`] turns events into signals and syscalls.

pub mod bare;
pub mod bench;
pub mod chipset;
pub mod cpu;
pub mod detect;
pub mod exec;
pub mod explore;
pub mod fp;
pub mod gdb;
pub mod hostfile;
pub mod icache;
pub mod jit;
pub mod linux;
pub mod loader;
pub mod machine;
pub mod memory;
pub mod symbols;

pub use cpu::Cpu;
pub use exec::Event;
pub use machine::Machine;
pub use memory::{MemFault, Memory};
