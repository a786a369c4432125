//! PTO tile ISA: executable model of the TLOAD/TSTORE path (ADR 0074).
//!
//! The model mirrors the normative ASL of PTO-ISA/pto-spec: one module per
//! ASL unit it implements, functions named after the ASL functions, data
//! types and faults spelled as the spec spells them. All state lives in a
//! [`Machine`] value; nothing is global.
//!
//! Module map (ASL unit in brackets):
//! - [`types`]: DataType, TileLayout, TileLocation, Fault
//!   (`asl/arch/data-types/*`).
//! - [`gm`]: global memory, dense or sparse (`asl/arch/memory-model/*`).
//! - [`tile`]: Local tile registers, descriptors, allocation and capacity
//!   (`asl/tile/model/state/*`).
//! - [`shared`]: Shared tile registers S0..S255 (`asl/tile/model/state/shared-registers.asl`).
//! - [`addressing`]: GM byte address of a tile element, ADR 0074
//!   (`asl/tile/model/memory/stride.asl`).
//! - [`forms`]: the one table of command/tile encodings on this path.
//! - [`contract`]: the other families' `InstructionContractDataTypeLegal_*`
//!   DataType predicates (`asl/tile/model/legality/dtype-layout.asl`).
//! - [`asm`]: assembler and disassembler driven by [`forms`].
//! - [`machine`]: the machine and its state primitives.
//! - [`memory`]: TLOAD/TSTORE of Local and Shared tiles, preflight, commit
//!   (`asl/tile/model/memory/load-store.asl`, `shared-movement.asl`).
//! - [`memory_model`]: the PTO-TSO candidate-execution checker over hand-built
//!   events (`asl/arch/memory-model/ordering.asl`).
//! - [`block`]: the bundle machine, as `asl/block/model/` is organised: its
//!   state, command words, the operation at commit and its halves, the
//!   shared schema checks, the TEPL operand half.
//! - [`trap`]: trap contexts saved by a fault and `RecoverTrapContext`
//!   (`asl/arch/state/trap-context.asl`, `asl/arch/profile/trap-context-recovery.asl`).
//! - [`prefetch`]: TPREFETCH, whose row stride counts elements (the other
//!   side of ADR 0074's boundary; `asl/tile/model/memory/gather-scatter.asl`).
//! - [`gather`]: MGATHER/MSCATTER (indexed TLSU, byte displacements) and
//!   GMOV (`asl/tile/model/memory/gather-scatter.asl`, `shared-movement.asl`).
//! - `rows` (private): the row-run fast path of [`memory`], observably
//!   identical to its per-element path (property-tested).
//! - `aligned` (private): cache-line aligned byte buffers for tile payloads
//!   and GM pages.
//!
//! Scenario files, their runner and the footprint drawing live beside the
//! model in the `pto-scenario` crate; this crate knows no file format.
//!
//! Invariants: every GM address of a TLOAD/TSTORE comes from
//! [`addressing::tile_memory_strided_byte_address`] (ADR 0074's byte row
//! stride) except under the opt-in `--element-stride` what-if; nothing but
//! [`forms::FORMS`] knows an encoding; a faulting transfer changes nothing
//! but `_LastFault` and the trap context (complete preflight before the
//! first effect), and `RecoverTrapContext` reissues it whole.

pub mod addressing;
mod aligned;
pub mod asm;
pub mod block;
pub mod contract;
pub mod forms;
pub mod gather;
pub mod gm;
pub mod machine;
pub mod memory;
pub mod memory_model;
pub mod prefetch;
mod rows;
pub mod shared;
pub mod tile;
pub mod trap;
pub mod types;

pub use machine::{
    CommandExecution, GmAccess, Machine, Nibble, TileConfig, PTO_ABSOLUTE_GPR_COUNT,
    PTO_MODEL_MEMORY_AGENTS, PTO_MODEL_MEMORY_BYTES, PTO_SHARED_TILE_COUNT,
    PTO_TILE_REGISTER_COUNT,
};
pub use types::{DataType, Fault, TileLayout, TileLocation};
