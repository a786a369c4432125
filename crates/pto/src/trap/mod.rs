//! Trap contexts: the saved bundle state a fault leaves behind, and the
//! recovery that restores it so the faulting block can be reissued whole.
//!
//! ASL: `asl/arch/data-types/trap-context.asl` (`TrapContext`),
//! `asl/arch/state/trap-context.asl` (`SavePortableTrapContext`,
//! `RecoverPortableTrapContext`), `asl/arch/profile/reference-profile.asl`
//! (the reference profile's `SaveTrapContext`), `asl/arch/profile/
//! trap-context-recovery.asl` (`TrapContextRecoverable`,
//! `RecoverTrapContext`), `asl/arch/memory-model/fault-precision.asl`
//! (`SetFaultWithCause`: a fault saves the context of its target ring and
//! switches to that ring), `asl/block/model/faults/rollback.asl` (the saved
//! tile bindings follow the destination rollback).
//!
//! Of the `TrapContext` record the model carries what it has state for: the
//! whole bundle control and header state ([`Bundle`]: `_BundleActive`,
//! `_BundleOperation`, dimensions, tile/Shared/scalar bindings, data
//! attributes, zero participation), the source ring, and TPC/BPC. The model
//! executes no scalar program, so TPC and BPC are always 0 (even, hence
//! recoverable); the reference profile's context registers 0x0f40/0x0f00
//! (control and ECSTATE) are written by the same save that fills the record
//! and checked only against it, so their checks reduce to the record's
//! `valid` bit here.

use crate::block::state::Bundle;
use crate::types::Fault;

/// `PTO_ACR_COUNT`: access control rings, one trap context each.
pub const PTO_ACR_COUNT: usize = 16;

/// `TrapContext` (the fields the model has state for).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrapContext {
    pub valid: bool,
    pub source_acr: u8,
    pub tpc: u64,
    pub bpc: u64,
    /// `bundle_active` … `bundle_zero_participation_seen`,
    /// `bundle_data_attributes(_present)`: the bundle state snapshot.
    pub bundle: Bundle,
}

/// `TrapTargetForFault`: ACR0 traps to itself, every other ring to ACR1.
pub fn trap_target_for_fault(source: u8) -> u8 {
    if source == 0 {
        0
    } else {
        1
    }
}

mod recover;
