//! `RecoverTrapContext` and the saving of a context at a fault: the
//! operations on the state of [`super`].

use super::*;
use crate::machine::Machine;

impl Machine {
    /// `CurrentACR`.
    pub fn current_acr(&self) -> u8 {
        self.current_acr
    }

    /// `_TrapContexts[[ring]]` (`None` for a ring outside 0..16).
    pub fn trap_context(&self, ring: u32) -> Option<&TrapContext> {
        self.trap_contexts.get(ring as usize)
    }

    /// `SaveTrapContext(target, source)` (reference profile).
    pub(crate) fn save_trap_context(&mut self, target: u8, source: u8) {
        let ctx = TrapContext {
            valid: true,
            source_acr: source,
            tpc: 0,
            bpc: 0,
            bundle: self.bundle.clone(),
        };
        self.trap_contexts[target as usize] = ctx;
    }

    /// The trap half of `SetFaultWithCause`: a fault other than
    /// `Fault_None` saves the trap context of its target ring and makes that
    /// ring current.
    pub(crate) fn trap_on_fault(&mut self, code: Fault) {
        if code == Fault::None {
            return;
        }
        let source = self.current_acr;
        let ring = trap_target_for_fault(source);
        self.save_trap_context(ring, source);
        self.current_acr = ring;
    }

    /// `RollBackBundleTileDestinations`' last step: memory faults save the
    /// block before the speculative destination is released, so the saved
    /// tile bindings are replaced by the rolled-back live ones.
    pub(crate) fn trap_context_follow_rollback(&mut self) {
        let ring = self.current_acr as usize;
        if self.last_fault != Fault::None && self.trap_contexts[ring].valid {
            self.trap_contexts[ring].bundle.tile_bindings = self.bundle.tile_bindings;
        }
    }

    /// `TrapContextRecoverable(target)`: a valid context with even TPC and
    /// BPC.
    pub fn trap_context_recoverable(&self, target: u32) -> bool {
        self.trap_contexts
            .get(target as usize)
            .is_some_and(|c| c.valid && c.bpc & 1 == 0 && c.tpc & 1 == 0)
    }

    /// `RecoverTrapContext(target)`: restores the saved bundle state and the
    /// source ring and invalidates the context; false (nothing changed) when
    /// the context is not recoverable. GM, tiles, GPRs and `_LastFault` are
    /// not part of the context: the caller fixes the cause, recovers, clears
    /// the fault and reissues the block.
    pub fn recover_trap_context(&mut self, target: u32) -> bool {
        if !self.trap_context_recoverable(target) {
            return false;
        }
        let ctx = &mut self.trap_contexts[target as usize];
        ctx.valid = false;
        self.bundle = ctx.bundle.clone();
        self.current_acr = ctx.source_acr;
        true
    }
}
