//! CPU models as data: code name, part number, `IMPLVER`, `AMASK` bits,
//! default lock range. (To be completed with citations — see issue 2.)

use crate::Ext;

/// One Alpha processor model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    /// Code name as the contract spells it (`ev56`).
    pub name: &'static str,
    /// Part number (`21164a`).
    pub part: &'static str,
    /// Value `IMPLVER` returns.
    pub implver: u64,
    /// Architecture-mask bits of the features this model *has* (AMASK clears these).
    pub amask: u64,
    /// Default LDx_L/STx_C lock range in bytes (power of two, 8..=8192).
    pub lock_range: u64,
}

impl Model {
    /// Does this model implement extension `ext`?
    pub fn has(&self, ext: Ext) -> bool {
        match ext {
            Ext::Base => true,
            Ext::Bwx => self.amask & 1 != 0,
            Ext::Fix => self.amask & 2 != 0,
            Ext::Cix => self.amask & 4 != 0,
            Ext::Mvi => self.amask & 0x100 != 0,
        }
    }
}

/// Every model of the contract, oldest first. (Placeholder values: the ISA
/// work fills in and cites each number.)
pub const MODELS: &[Model] = &[];

/// Look up a model by code name or part number (case-insensitive).
pub fn model_by_name(name: &str) -> Option<&'static Model> {
    let n = name.to_ascii_lowercase();
    MODELS.iter().find(|m| m.name == n || m.part == n)
}
