//! CPU models as data: code name, part number, `IMPLVER`, `AMASK` bits,
//! default LDx_L/STx_C lock range.
//!
//! Sources for every number:
//! - IMPLVER values (Alpha Architecture Handbook v4, 4.11.3 and appendix D,
//!   table D-4): 0 = 21064 (EV4) family, 1 = 21164 (EV5) family, 2 = 21264
//!   (EV6) family. EV7 (21364) keeps the EV6 core and reports 2 (Linux
//!   `arch/alpha/include/asm/special_insns.h` `implver()` users treat EV7 as
//!   `IMPLVER_EV6`; QEMU `target/alpha/cpu.h` has no other value).
//! - AMASK bits (Handbook v4 appendix D, table D-3): bit 0 BWX, bit 1 FIX,
//!   bit 2 CIX, bit 8 MVI, bit 9 precise arithmetic traps, bit 12 prefetch
//!   with modify intent. Per model as QEMU `target/alpha/cpu.c`
//!   (`alpha_cpu_list`/`cpu_defs`: ev4 0; ev5 0; ev56 BWX; pca56 BWX|MVI;
//!   ev6 BWX|FIX|MVI|TRAP; ev67 and ev68 BWX|FIX|CIX|MVI|TRAP|PREFETCH) and
//!   the Linux cpuinfo/`amask` usage (`arch/alpha/kernel/setup.c`); the EV45,
//!   LCA4 and LCA45 are EV4 cores (no extensions); the EV7 has every EV68
//!   feature (21364 = EV68 core plus on-chip memory controller and router).
//! - Lock range: the architecture lets an implementation lock an aligned
//!   block of 2^N bytes, at least 16 (Handbook v4, 4.2.4 "Load Memory Data
//!   into Integer Register Locked"; the first edition said 8) and at most a
//!   page, and encourages hardware to lock no more than 128 bytes and software
//!   to keep locked locations 128 bytes apart. Hardware tracks the
//!   reservation per cache block: the 21264/EV68A keeps the lock flag with
//!   the 64-byte Dcache line (21264/EV68A Hardware Reference Manual, 4.6
//!   "Lock Mechanism"), so the EV6 family and the EV7 (same core) get 64; the
//!   EV4 and EV5 families have 32-byte primary data cache blocks (Linux
//!   `arch/alpha/include/asm/cache.h` uses `L1_CACHE_BYTES` 32 for them), so
//!   they get 32. These are defaults; `--lock-range` overrides them, e.g.
//!   with the architectural 128.

use crate::Ext;

/// AMASK bit 0: byte/word extension.
pub const AMASK_BWX: u64 = 1 << 0;
/// AMASK bit 1: square root and floating-point convert extension.
pub const AMASK_FIX: u64 = 1 << 1;
/// AMASK bit 2: count extension.
pub const AMASK_CIX: u64 = 1 << 2;
/// AMASK bit 8: multimedia extension.
pub const AMASK_MVI: u64 = 1 << 8;
/// AMASK bit 9: precise arithmetic trap reporting.
pub const AMASK_PRECISE_TRAP: u64 = 1 << 9;
/// AMASK bit 12: prefetch with modify intent.
pub const AMASK_PREFETCH: u64 = 1 << 12;

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
            Ext::Bwx => self.amask & AMASK_BWX != 0,
            Ext::Fix => self.amask & AMASK_FIX != 0,
            Ext::Cix => self.amask & AMASK_CIX != 0,
            Ext::Mvi => self.amask & AMASK_MVI != 0,
        }
    }

    /// What `AMASK Rb, Rc` writes: `Rb` with the bits of present features cleared.
    pub fn amask_result(&self, rb: u64) -> u64 {
        rb & !self.amask
    }
}

const EV6_ALL: u64 =
    AMASK_BWX | AMASK_FIX | AMASK_CIX | AMASK_MVI | AMASK_PRECISE_TRAP | AMASK_PREFETCH;

/// Every model of the contract, oldest first.
pub const MODELS: &[Model] = &[
    Model {
        name: "ev4",
        part: "21064",
        implver: 0,
        amask: 0,
        lock_range: 32,
    },
    Model {
        name: "ev45",
        part: "21064a",
        implver: 0,
        amask: 0,
        lock_range: 32,
    },
    Model {
        name: "lca4",
        part: "21066",
        implver: 0,
        amask: 0,
        lock_range: 32,
    },
    Model {
        name: "lca45",
        part: "21068",
        implver: 0,
        amask: 0,
        lock_range: 32,
    },
    Model {
        name: "ev5",
        part: "21164",
        implver: 1,
        amask: 0,
        lock_range: 32,
    },
    Model {
        name: "ev56",
        part: "21164a",
        implver: 1,
        amask: AMASK_BWX,
        lock_range: 32,
    },
    Model {
        name: "pca56",
        part: "21164pc",
        implver: 1,
        amask: AMASK_BWX | AMASK_MVI,
        lock_range: 32,
    },
    Model {
        name: "ev6",
        part: "21264",
        implver: 2,
        amask: AMASK_BWX | AMASK_FIX | AMASK_MVI | AMASK_PRECISE_TRAP,
        lock_range: 64,
    },
    Model {
        name: "ev67",
        part: "21264a",
        implver: 2,
        amask: EV6_ALL,
        lock_range: 64,
    },
    Model {
        name: "ev68",
        part: "21264c",
        implver: 2,
        amask: EV6_ALL,
        lock_range: 64,
    },
    Model {
        name: "ev7",
        part: "21364",
        implver: 2,
        amask: EV6_ALL,
        lock_range: 64,
    },
];

/// The default model of the contract (`--cpu` default).
pub const DEFAULT_MODEL: &str = "ev67";

/// Look up a model by code name or part number (case-insensitive).
pub fn model_by_name(name: &str) -> Option<&'static Model> {
    let n = name.to_ascii_lowercase();
    MODELS.iter().find(|m| m.name == n || m.part == n)
}
