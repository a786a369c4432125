//! The scenario operations, each defined once: one type per operation
//! implements [`Operation`] — its name, its fields and the specification
//! primitive it mirrors (the documentation's words), how it reads its fields
//! and what it does — and [`OPS`] lists them. Adding an operation is one
//! type and one line here; the parser and the runner only dispatch
//! ([`crate::scenario::parse`], [`crate::scenario::run`]), and
//! `docs/pto-scenarios.md`'s table is checked against [`OPS`]
//! (`tests/docs.rs`).
//!
//! The operations are grouped as the scenario format is: [`state`] (set
//! up the machine), [`bundle`] (command words and the bundle), [`direct`]
//! (the ASL's direct primitives), [`events`] (the memory-event list) and
//! [`expect`] (read state and compare).

pub mod bundle;
pub mod direct;
pub mod events;
pub mod expect;
pub mod state;

use std::fmt;

use crate::fields::Fields;
use crate::runner::Runner;

/// One scenario operation: a step `op = NAME`.
pub trait Operation: fmt::Debug + Sized + 'static {
    /// The `op` string.
    const NAME: &'static str;
    /// Its fields as the documentation lists them (`?` = optional).
    const FIELDS: &'static str;
    /// The specification primitive it mirrors, and what it does.
    const PRIMITIVE: &'static str;

    /// Reads the step's fields (unknown ones are refused afterwards).
    fn parse(f: &mut Fields) -> Result<Self, String>;

    /// Runs the step: calls the model, records failed expectations.
    fn run(&self, ctx: &mut Runner);
}

/// A parsed step, whatever its operation.
pub trait Step: fmt::Debug {
    /// The `op` string.
    fn name(&self) -> &'static str;
    /// Runs the step ([`Operation::run`]).
    fn exec(&self, ctx: &mut Runner);
}

impl<O: Operation> Step for O {
    fn name(&self) -> &'static str {
        O::NAME
    }
    fn exec(&self, ctx: &mut Runner) {
        self.run(ctx)
    }
}

/// The part of the format an operation belongs to (its module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    State,
    Bundle,
    Direct,
    Events,
    Expect,
}

impl Group {
    /// The heading the documentation gives the group.
    pub fn title(self) -> &'static str {
        match self {
            Group::State => "Setting up state",
            Group::Bundle => "Command words and the bundle",
            Group::Direct => "The ASL's direct primitives",
            Group::Events => "Memory events",
            Group::Expect => "Expectations",
        }
    }
}

/// One row of [`OPS`].
pub struct OpDef {
    pub group: Group,
    pub name: &'static str,
    pub fields: &'static str,
    pub primitive: &'static str,
    /// [`Operation::parse`], boxed.
    pub parse: fn(&mut Fields) -> Result<Box<dyn Step>, String>,
}

fn parse_boxed<O: Operation>(f: &mut Fields) -> Result<Box<dyn Step>, String> {
    Ok(Box::new(O::parse(f)?))
}

const fn def<O: Operation>(group: Group) -> OpDef {
    OpDef {
        group,
        name: O::NAME,
        fields: O::FIELDS,
        primitive: O::PRIMITIVE,
        parse: parse_boxed::<O>,
    }
}

/// Every operation a scenario may use, in the documentation's order.
pub static OPS: &[OpDef] = &[
    def::<state::Reset>(Group::State),
    def::<state::ResetBundle>(Group::State),
    def::<state::Gpr>(Group::State),
    def::<state::Memory>(Group::State),
    def::<state::Store>(Group::State),
    def::<state::Tile>(Group::State),
    def::<state::CubeTile>(Group::State),
    def::<state::TileElement>(Group::State),
    def::<state::SharedTile>(Group::State),
    def::<state::PredicateTile>(Group::State),
    def::<state::TileLocation>(Group::State),
    def::<state::Fault>(Group::State),
    def::<state::ClearFault>(Group::State),
    def::<bundle::Dimension>(Group::Bundle),
    def::<bundle::Command>(Group::Bundle),
    def::<bundle::Execute>(Group::Bundle),
    def::<bundle::EnterBundleBody>(Group::Bundle),
    def::<bundle::ScalarBinding>(Group::Bundle),
    def::<bundle::ControlAttributes>(Group::Bundle),
    def::<bundle::PadValue>(Group::Bundle),
    def::<bundle::RecoverTrap>(Group::Bundle),
    def::<direct::Tload>(Group::Direct),
    def::<direct::Tstore>(Group::Direct),
    def::<direct::TloadShared>(Group::Direct),
    def::<direct::Tprefetch>(Group::Direct),
    def::<direct::Mgather>(Group::Direct),
    def::<direct::Mscatter>(Group::Direct),
    def::<direct::MgatherCas>(Group::Direct),
    def::<direct::Gmov>(Group::Direct),
    def::<direct::Tmov>(Group::Direct),
    def::<direct::AtomicUpdateShared>(Group::Direct),
    def::<events::ResetMemoryExecution>(Group::Events),
    def::<events::CandidateInitialWrite>(Group::Events),
    def::<events::CandidateLoad>(Group::Events),
    def::<events::CandidateStore>(Group::Events),
    def::<events::CandidateAtomic>(Group::Events),
    def::<events::CandidateReadFrom>(Group::Events),
    def::<events::CaptureEvents>(Group::Events),
    def::<events::StopCapture>(Group::Events),
    def::<expect::ExpectMaterialized>(Group::Expect),
    def::<expect::ExpectMemory>(Group::Expect),
    def::<expect::ExpectMemoryUndefinedShared>(Group::Expect),
    def::<expect::ExpectLoad>(Group::Expect),
    def::<expect::ExpectTileElement>(Group::Expect),
    def::<expect::ExpectTile>(Group::Expect),
    def::<expect::ExpectFault>(Group::Expect),
    def::<expect::ExpectFaultAddress>(Group::Expect),
    def::<expect::ExpectCapacityInUse>(Group::Expect),
    def::<expect::ExpectEvents>(Group::Expect),
    def::<expect::ExpectEvent>(Group::Expect),
    def::<expect::ExpectBundleActive>(Group::Expect),
    def::<expect::ExpectBindingCount>(Group::Expect),
    def::<expect::ExpectSharedBindingCount>(Group::Expect),
    def::<expect::ExpectSharedBinding>(Group::Expect),
    def::<expect::ExpectBinding>(Group::Expect),
    def::<expect::ExpectTrapContext>(Group::Expect),
    def::<expect::ExpectPredicate>(Group::Expect),
    def::<expect::ExpectTransfer>(Group::Expect),
    def::<expect::ExpectDisasm>(Group::Expect),
];

/// The operation named `name`.
pub fn find(name: &str) -> Option<&'static OpDef> {
    OPS.iter().find(|d| d.name == name)
}
