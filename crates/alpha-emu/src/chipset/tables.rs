//! One table per chipset. Every number cites its source; where the sources
//! are silent or disagree the window is a [`Refusal`] naming why.
//!
//! Sources (read, not copied):
//! - Linux `arch/alpha/include/asm/core_apecs.h`, `core_lca.h` (removed in
//!   6.10 by 430ad3f0ddd7), `jensen.h` (removed by f81f335a56a8),
//!   `core_cia.h`, `core_t2.h`, `core_tsunami.h`, `core_polaris.h`,
//!   `core_irongate.h`: the `*_IO`, `*_SPARSE_MEM`, `*_DENSE_MEM`, `*_BW_*`,
//!   `*_CONF`, `*_IACK_SC`, HAE register macros, the `*_SET_HAE` macros, the
//!   `ioread8`/`iowrite8` bodies (shift `<< 5` or `<< 7`/`<< 9`, length
//!   offsets `+ 0x00/0x08/0x18`) and the `*_trivial_*` defines.
//! - The 21171 TRM ch. 6 (quoted in core_cia.h's address-bit comment) for
//!   the tribyte code and the lane/length layout.
//!
//! Physical = Linux's address minus `IDENT_ADDR` (0xfffffc0000000000).

use super::*;

/// The sparse encoding of the 21164 boards' CIA and Pyxis: `bus << 5`,
/// length code in `phys<4:3>` (0 byte, 1 word, 2 tribyte, 3 longword).
/// Linux's `*_iowrite8/16/32` add 0x00/0x08/0x18; 0x10 (tribyte) is from the
/// 21171 TRM table in core_cia.h's comment. A quadword is code 3 with
/// `phys<6:5>` = 3 (offset 0x78), by LDQ/STQ, `addr<7>` taken as zero:
/// AlphaPC164 Motherboard TRM Table A–3 ("Quadword address encoding is
/// provided by addr<6:3> with addr<7> assumed to be zero by the CIA
/// hardware"), AlphaPC164LX Motherboard TRM Tables A–6 (sparse memory) and
/// A–8 (sparse I/O): "Quadword 11 11 LDQ,STQ", ad<2:0> = 000.
const SPARSE5_CIA: Encoding = Encoding::Sparse {
    shift: 5,
    len_shift: 3,
    codes: [Some(0), Some(1), Some(2), Some(3)],
    quad: Some(Quad { code: 3, lane: 3 }),
};

/// APECS (21071/21072): the same byte/word/tribyte/longword codes
/// (`apecs_iowrite8/16/32`: + 0x00/0x08/0x18). The AlphaPC64 User's Guide
/// §4.1.8 describes its sparse memory as the 21164 boards describe theirs
/// ("byte, word, tribyte, longword, or quadword granularity"; sysBus<7:3>
/// carry length, byte enables and ad<2:0>; "if a quadword is written to the
/// PCI, software must execute an STQ"), but its encoding table (Table 4–7)
/// was not available: the quadword row is the AlphaPC164LX's (code 3 with
/// `phys<6:5>` = 3), which that description matches.
const SPARSE5_APECS: Encoding = SPARSE5_CIA;

/// LCA (21066/21068) and T2: byte/word/tribyte/longword as above
/// (`lca_iowrite*`, `t2_outb/outw/outl`); no manual was available for their
/// quadword rule, and Linux never sends one to sparse space (`lca_readq`
/// reads dense space; `t2_readq` reads two longwords, at `+ 0x18` and
/// `+ 0x18 + (4 << 5)`): a quadword is refused rather than guessed.
const SPARSE5_NO_QUAD: Encoding = Encoding::Sparse {
    shift: 5,
    len_shift: 3,
    codes: [Some(0), Some(1), Some(2), Some(3)],
    quad: None,
};

/// Jensen EISA: `bus << 7`, length at `phys<6:5>`: `jensen_outb/outw/outl`
/// add 0x00, 0x20, 0x60 (codes 0, 1, 3). No Jensen manual was available;
/// jensen.h uses no tribyte code and splits a quadword into two longwords
/// (`jensen_readq`), so neither is carried here (refused, not guessed).
const SPARSE7: Encoding = Encoding::Sparse {
    shift: 7,
    len_shift: 5,
    codes: [Some(0), Some(1), None, Some(3)],
    quad: None,
};

const DENSE: Encoding = Encoding::Linear { bytes_words: false };
const BWX: Encoding = Encoding::Linear { bytes_words: true };

// ------------------------------------------------------------------ APECS

/// APECS HAXR1: `APECS_HAE_ADDRESS = APECS_IOC_HAXR1` = IDENT_ADDR +
/// 0x1A00001A0; `APECS_SET_HAE` writes `addr & 0xf8000000` (bits 31:27 in
/// place) only when `addr >= 1 << 24`: the first 16 MiB of sparse memory
/// bypass it (region 0), as the contract says.
const APECS_HAE: Hae = Hae {
    name: "HAXR1",
    reg: 0x1_A000_01A0,
    lo: 27,
    hi: 31,
    format: HaeFormat::InPlace,
    bypass_below: 1 << 24,
};

pub static APECS: Chipset = Chipset {
    name: "apecs",
    part: "21071/21072",
    windows: &[
        Window {
            kind: WindowKind::SparseIo,
            also: &[],
            // APECS_IO = IDENT_ADDR + 0x1c0000000, up to APECS_CONF 0x1e0000000.
            base: 0x1_C000_0000,
            size: 0x2000_0000,
            encoding: SPARSE5_APECS,
            hae: None,
            source: "core_apecs.h APECS_IO, apecs_iowrite8 (addr << 5) + APECS_IO + 0x00",
            note: None,
        },
        Window {
            kind: WindowKind::SparseMem,
            also: &[],
            // APECS_SPARSE_MEM = IDENT_ADDR + 0x200000000, up to APECS_DENSE_MEM.
            base: 0x2_0000_0000,
            size: 0x1_0000_0000,
            encoding: SPARSE5_APECS,
            hae: Some(APECS_HAE),
            source: "core_apecs.h APECS_SPARSE_MEM, APECS_SET_HAE",
            note: None,
        },
        Window {
            kind: WindowKind::DenseMem,
            also: &[],
            // APECS_DENSE_MEM = IDENT_ADDR + 0x300000000 (4 GiB to 0x400000000).
            base: 0x3_0000_0000,
            size: 0x1_0000_0000,
            encoding: DENSE,
            hae: None,
            source: "core_apecs.h APECS_DENSE_MEM",
            note: None,
        },
    ],
    refused: &[
        Refusal {
            kind: WindowKind::BwxIo,
            reason:
                "the 21071/21072 has no byte/word window (byte/word windows arrived with Pyxis)",
        },
        Refusal {
            kind: WindowKind::BwxMem,
            reason:
                "the 21071/21072 has no byte/word window (byte/word windows arrived with Pyxis)",
        },
        Refusal {
            kind: WindowKind::LocalIo,
            reason: "only Jensen has a local I/O window",
        },
    ],
    regions: &[
        Region {
            name: "csr (21071-DA, HAXR1 at 0x1a00001a0)",
            base: 0x1_A000_0000,
            size: 0x1000_0000,
            source: "core_apecs.h APECS_IOC_*",
        },
        Region {
            name: "iack",
            base: 0x1_B000_0000,
            size: 0x1000_0000,
            source: "core_apecs.h APECS_IACK_SC",
        },
        Region {
            name: "pci-config",
            base: 0x1_E000_0000,
            size: 0x2000_0000,
            source: "core_apecs.h APECS_CONF",
        },
    ],
    trivial: Trivial {
        rw_bw: 2,
        io_bw: 0,
        rw_lq: 1,
        io_lq: 0,
        source: "core_apecs.h apecs_trivial_*",
    },
    devices: PC_DEVICES,
    notes: "EV4 core logic; sparse memory region 0 (first 16 MiB) bypasses HAXR1",
};

// -------------------------------------------------------------------- LCA

/// LCA_IOC_HAE (`LCA_HAE_ADDRESS`) = IDENT_ADDR + 0x180000000; `LCA_SET_HAE`
/// is APECS_SET_HAE's twin (bits 31:27 in place, only from 16 MiB up).
const LCA_HAE: Hae = Hae {
    name: "IOC_HAE",
    reg: 0x1_8000_0000,
    lo: 27,
    hi: 31,
    format: HaeFormat::InPlace,
    bypass_below: 1 << 24,
};

pub static LCA: Chipset = Chipset {
    name: "lca",
    part: "21066/21068",
    windows: &[
        Window {
            kind: WindowKind::SparseIo,
            also: &[],
            // LCA_IO = IDENT_ADDR + 0x1c0000000; "The LCA limits I/O address
            // space to the bottom 24 bits" (core_lca.h): 16 MiB << 5.
            base: 0x1_C000_0000,
            size: 0x2000_0000,
            encoding: SPARSE5_NO_QUAD,
            hae: None,
            source: "core_lca.h LCA_IO, lca_iowrite8",
            note: None,
        },
        Window {
            kind: WindowKind::SparseMem,
            also: &[],
            base: 0x2_0000_0000,
            size: 0x1_0000_0000,
            encoding: SPARSE5_NO_QUAD,
            hae: Some(LCA_HAE),
            source: "core_lca.h LCA_SPARSE_MEM, LCA_SET_HAE",
            note: None,
        },
        Window {
            kind: WindowKind::DenseMem,
            also: &[],
            base: 0x3_0000_0000,
            size: 0x1_0000_0000,
            encoding: DENSE,
            hae: None,
            source: "core_lca.h LCA_DENSE_MEM (\"restricted to aligned 32 and 64 bit accesses\")",
            note: None,
        },
    ],
    refused: &[
        Refusal {
            kind: WindowKind::BwxIo,
            reason: "the 21066/21068 has no byte/word window",
        },
        Refusal {
            kind: WindowKind::BwxMem,
            reason: "the 21066/21068 has no byte/word window",
        },
        Refusal {
            kind: WindowKind::LocalIo,
            reason: "only Jensen has a local I/O window",
        },
    ],
    regions: &[
        Region {
            name: "csr (IOC, HAE at 0x180000000)",
            base: 0x1_8000_0000,
            size: 0x1000_0000,
            source: "core_lca.h LCA_IOC_*",
        },
        Region {
            name: "iack",
            base: 0x1_A000_0000,
            size: 0x2000_0000,
            source: "core_lca.h LCA_IACK_SC",
        },
        Region {
            name: "pci-config",
            base: 0x1_E000_0000,
            size: 0x2000_0000,
            source: "core_lca.h LCA_CONF",
        },
    ],
    trivial: Trivial {
        rw_bw: 2,
        io_bw: 0,
        rw_lq: 1,
        io_lq: 0,
        source: "core_lca.h lca_trivial_*",
    },
    devices: PC_DEVICES,
    notes: "EV4 with integrated core logic; HAE like APECS",
};

// ----------------------------------------------------- CIA, CIA-2, Pyxis

/// CIA_IOC_HAE_MEM = IDENT_ADDR + 0x8740000400; core_cia.h: "HHH = 31:29
/// HAE_MEM CSR" for sparse memory region 1 (CIA_MEM_R1_MASK 29 bits).
const CIA_HAE_MEM: Hae = Hae {
    name: "HAE_MEM",
    reg: 0x87_4000_0400,
    lo: 29,
    hi: 31,
    format: HaeFormat::InPlace,
    bypass_below: 0,
};

/// CIA_IOC_HAE_IO = IDENT_ADDR + 0x8740000440: supplies bus bits 31:26 of
/// sparse I/O (the window reaches 2 GiB >> 5 = 64 MiB = 26 bits). The
/// in-place format is the 21171 TRM's; Linux only ever writes 0.
const CIA_HAE_IO: Hae = Hae {
    name: "HAE_IO",
    reg: 0x87_4000_0440,
    lo: 26,
    hi: 31,
    format: HaeFormat::InPlace,
    bypass_below: 0,
};

const CIA_SPARSE: [Window; 3] = [
    Window {
        kind: WindowKind::SparseIo,
        also: &[],
        // CIA_IO = IDENT_ADDR + 0x8580000000, up to CIA_DENSE_MEM 0x8600000000.
        base: 0x85_8000_0000,
        size: 0x8000_0000,
        encoding: SPARSE5_CIA,
        hae: Some(CIA_HAE_IO),
        source: "core_cia.h CIA_IO, cia_iowrite8 (addr << 5) + CIA_IO + 0x00",
        note: None,
    },
    Window {
        kind: WindowKind::SparseMem,
        also: &[],
        // CIA_SPARSE_MEM = IDENT_ADDR + 0x8000000000, region 1 up to
        // CIA_SPARSE_MEM_R2 0x8400000000 (16 GiB >> 5 = 512 MiB, 29 bits).
        base: 0x80_0000_0000,
        size: 0x4_0000_0000,
        encoding: SPARSE5_CIA,
        hae: Some(CIA_HAE_MEM),
        source: "core_cia.h CIA_SPARSE_MEM, CIA_MEM_R1_MASK",
        note: None,
    },
    Window {
        kind: WindowKind::DenseMem,
        also: &[],
        // CIA_DENSE_MEM = IDENT_ADDR + 0x8600000000, up to CIA_CONF 0x8700000000.
        base: 0x86_0000_0000,
        size: 0x1_0000_0000,
        encoding: DENSE,
        hae: None,
        source: "core_cia.h CIA_DENSE_MEM",
        note: None,
    },
];

/// CIA_BW_MEM = IDENT_ADDR + 0x8800000000 (4 GiB to CIA_BW_IO); FreeBSD
/// ciareg.h CIA_EV56_BWMEM 0x8800000000 ("EV56 Byte/Word PCI MEM Space").
const CIA_BW_MEM: Window = Window {
    kind: WindowKind::BwxMem,
    also: &[],
    base: 0x88_0000_0000,
    size: 0x1_0000_0000,
    encoding: BWX,
    hae: None,
    source: "core_cia.h CIA_BW_MEM, cia_bwx_ioremap; FreeBSD ciareg.h CIA_EV56_BWMEM",
    note: None,
};

/// CIA_BW_IO = IDENT_ADDR + 0x8900000000 (4 GiB to CIA_BW_CFG_0); FreeBSD
/// ciareg.h CIA_EV56_BWIO 0x8900000000.
const CIA_BW_IO: Window = Window {
    kind: WindowKind::BwxIo,
    also: &[],
    base: 0x89_0000_0000,
    size: 0x1_0000_0000,
    encoding: BWX,
    hae: None,
    source: "core_cia.h CIA_BW_IO, cia_bwx_ioportmap; FreeBSD ciareg.h CIA_EV56_BWIO",
    note: None,
};

/// What the sources say of the 21172's byte/word windows, shown with every
/// address encoded through them.
const CIA2_BWX_NOTE: &str = "the 21172 decodes these windows when CNFG.BWEN is set (NetBSD cia.c: ALCOR revision >= 2 has CNFG; FreeBSD ciareg.h CIA_EV56_BW*); byte/word I/O on the 21172 was reported never to have worked, Pyxis being the first core logic to do it correctly, although FreeBSD later enabled it on a 21172-based AlphaServer 800 without reported problems";

const CIA2_WINDOWS: [Window; 5] = [
    CIA_SPARSE[0],
    CIA_SPARSE[1],
    CIA_SPARSE[2],
    Window {
        note: Some(CIA2_BWX_NOTE),
        source: "FreeBSD ciareg.h CIA_EV56_BWMEM 0x8800000000; NetBSD cia.c CNFG_BWEN (ALCOR rev >= 2); core_cia.h CIA_BW_MEM",
        ..CIA_BW_MEM
    },
    Window {
        note: Some(CIA2_BWX_NOTE),
        source: "FreeBSD ciareg.h CIA_EV56_BWIO 0x8900000000; NetBSD cia.c CNFG_BWEN (ALCOR rev >= 2); core_cia.h CIA_BW_IO",
        ..CIA_BW_IO
    },
];

const CIA_REGIONS: &[Region] = &[
    Region {
        name: "sparse-mem region 2 (HAE_MEM field not in the sources: not modelled)",
        base: 0x84_0000_0000,
        size: 0x1_0000_0000,
        source: "core_cia.h CIA_SPARSE_MEM_R2, CIA_MEM_R2_MASK",
    },
    Region {
        name: "sparse-mem region 3 (HAE_MEM field not in the sources: not modelled)",
        base: 0x85_0000_0000,
        size: 0x8000_0000,
        source: "core_cia.h CIA_SPARSE_MEM_R3, CIA_MEM_R3_MASK",
    },
    Region {
        name: "pci-config",
        base: 0x87_0000_0000,
        size: 0x2000_0000,
        source: "core_cia.h CIA_CONF",
    },
    Region {
        name: "iack",
        base: 0x87_2000_0000,
        size: 0x2000_0000,
        source: "core_cia.h CIA_IACK_SC",
    },
    Region {
        name: "csr (HAE_MEM 0x8740000400, HAE_IO 0x8740000440)",
        base: 0x87_4000_0000,
        size: 0x4000_0000,
        source: "core_cia.h CIA_IOC_*",
    },
];

const NO_LOCAL: Refusal = Refusal {
    kind: WindowKind::LocalIo,
    reason: "only Jensen has a local I/O window",
};

const CIA_TRIVIAL: Trivial = Trivial {
    rw_bw: 2,
    io_bw: 0,
    rw_lq: 1,
    io_lq: 0,
    source: "core_cia.h cia_trivial_* (the non-BWX vector)",
};

pub static CIA: Chipset = Chipset {
    name: "cia",
    part: "21171",
    windows: &CIA_SPARSE,
    refused: &[
        Refusal {
            kind: WindowKind::BwxIo,
            reason: "the 21171 has no byte/word window (CIA_BW_* are used only with CONFIG_ALPHA_PYXIS; Pyxis was the first core logic with working byte/word I/O)",
        },
        Refusal {
            kind: WindowKind::BwxMem,
            reason: "the 21171 has no byte/word window (CIA_BW_* are used only with CONFIG_ALPHA_PYXIS)",
        },
        NO_LOCAL,
    ],
    regions: CIA_REGIONS,
    trivial: CIA_TRIVIAL,
    devices: PC_DEVICES,
    notes: "21164 core logic: MB is required between sparse accesses (21171 TRM ch. 6)",
};

pub static CIA2: Chipset = Chipset {
    name: "cia2",
    part: "21172",
    windows: &CIA2_WINDOWS,
    refused: &[NO_LOCAL],
    regions: CIA_REGIONS,
    trivial: CIA_TRIVIAL,
    devices: PC_DEVICES,
    notes: "21164/21164A core logic, CIA address map; byte/word windows when CNFG.BWEN is set",
};

pub static PYXIS: Chipset = Chipset {
    name: "pyxis",
    part: "21174",
    windows: &[
        CIA_SPARSE[0],
        CIA_SPARSE[1],
        CIA_SPARSE[2],
        CIA_BW_MEM,
        CIA_BW_IO,
    ],
    refused: &[NO_LOCAL],
    regions: CIA_REGIONS,
    trivial: Trivial {
        rw_bw: 1,
        io_bw: 1,
        rw_lq: 1,
        io_lq: 1,
        source: "core_cia.h cia_bwx_trivial_* (__IO_PREFIX cia_bwx under CONFIG_ALPHA_PYXIS)",
    },
    devices: PC_DEVICES,
    notes: "21164A/21164PC core logic: CIA map plus byte/word windows",
};

// --------------------------------------------------------------------- T2

/// T2_HAE_1 = IDENT_ADDR + GAMMA_BIAS + 0x38e0000e0. Linux defines
/// T2_ONE_HAE_WINDOW and never sets it; the other branch of `t2_set_hae`
/// writes `addr >> 27` (bits 31:27 shifted down) and masks the rest with
/// T2_MEM_R1_MASK (27 bits).
const fn t2_hae(bias: u64) -> Hae {
    Hae {
        name: "HAE_1",
        reg: bias + 0x3_8E00_00E0,
        lo: 27,
        hi: 31,
        format: HaeFormat::Shifted,
        bypass_below: 0,
    }
}

const fn t2_windows(bias: u64) -> [Window; 3] {
    [
        Window {
            kind: WindowKind::SparseIo,
            also: &[],
            // T2_IO = IDENT_ADDR + GAMMA_BIAS + 0x3a0000000, up to T2_DENSE_MEM.
            base: bias + 0x3_A000_0000,
            size: 0x2000_0000,
            encoding: SPARSE5_NO_QUAD,
            hae: None,
            source: "core_t2.h T2_IO, t2_outb (addr << 5) + T2_IO + 0x00",
            note: None,
        },
        Window {
            kind: WindowKind::SparseMem,
            also: &[],
            // T2_SPARSE_MEM = ... + 0x200000000; 27 bits (T2_MEM_R1_MASK) << 5 = 4 GiB.
            base: bias + 0x2_0000_0000,
            size: 0x1_0000_0000,
            encoding: SPARSE5_NO_QUAD,
            hae: Some(t2_hae(bias)),
            source: "core_t2.h T2_SPARSE_MEM, T2_MEM_R1_MASK, t2_set_hae",
            note: None,
        },
        Window {
            kind: WindowKind::DenseMem,
            also: &[],
            // T2_DENSE_MEM = ... + 0x3c0000000 (1 GiB to 0x400000000; its
            // own HAE_4 is not modelled: Linux never uses dense on T2).
            base: bias + 0x3_C000_0000,
            size: 0x4000_0000,
            encoding: DENSE,
            hae: None,
            source: "core_t2.h T2_DENSE_MEM",
            note: None,
        },
    ]
}

const T2_REFUSED: &[Refusal] = &[
    Refusal {
        kind: WindowKind::BwxIo,
        reason: "the T2 has no byte/word window (t2_trivial_rw_bw 0: must use sparse)",
    },
    Refusal {
        kind: WindowKind::BwxMem,
        reason: "the T2 has no byte/word window (t2_trivial_rw_bw 0: must use sparse)",
    },
    NO_LOCAL,
];

const T2_TRIVIAL: Trivial = Trivial {
    rw_bw: 0,
    io_bw: 0,
    rw_lq: 0,
    io_lq: 0,
    source: "core_t2.h t2_trivial_*",
};

const T2_W: [Window; 3] = t2_windows(0);
const T2G_W: [Window; 3] = t2_windows(0x80_0000_0000);

pub static T2: Chipset = Chipset {
    name: "t2",
    part: "T2 (Sable)",
    windows: &T2_W,
    refused: T2_REFUSED,
    regions: &[
        Region {
            name: "csr (T2 PCI bridge, HAE_1 at 0x38e0000e0)",
            base: 0x3_8E00_0000,
            size: 0x100_0000,
            source: "core_t2.h T2_IOCSR..T2_ICE",
        },
        Region {
            name: "pci-config",
            base: 0x3_9000_0000,
            size: 0x1000_0000,
            source: "core_t2.h T2_CONF",
        },
    ],
    trivial: T2_TRIVIAL,
    devices: PC_DEVICES,
    notes: "Sable; GAMMA_BIAS 0 (t2-gamma: the Gamma/Lynx bias)",
};

pub static T2_GAMMA: Chipset = Chipset {
    name: "t2-gamma",
    part: "T2 (Gamma-Sable, Lynx)",
    windows: &T2G_W,
    refused: T2_REFUSED,
    regions: &[
        Region {
            name: "csr (T2 PCI bridge, HAE_1 at 0x838e0000e0)",
            base: 0x83_8E00_0000,
            size: 0x100_0000,
            source: "core_t2.h T2_IOCSR..T2_ICE with _GAMMA_BIAS 0x8000000000",
        },
        Region {
            name: "pci-config",
            base: 0x83_9000_0000,
            size: 0x1000_0000,
            source: "core_t2.h T2_CONF",
        },
    ],
    trivial: T2_TRIVIAL,
    devices: PC_DEVICES,
    notes: "Sable with EV5 CPUs and all Lynx machines: _GAMMA_BIAS 0x8000000000",
};

// ------------------------------------------------------ Tsunami, Irongate

/// core_tsunami.h/core_irongate.h: TS_BIAS = IRONGATE_BIAS = 0x10000000000
/// (VA bit 40, without USE_48_BIT_KSEG); the 21264 takes KSEG VA bit 40 as
/// PA bit 43 (core_irongate.h: I/O space is PA[43]=1).
const PA43: u64 = 1 << 43;

const NO_SPARSE_LINEAR: &str = "it can only use linear accesses (no sparse space)";

/// What the linear-only 21264 core logic (Tsunami, Irongate) refuses: no
/// sparse space. Its one PCI memory window is dense and carries bytes and
/// words, so both `dense-mem` and `bwx-mem` name it.
const LINEAR_BWX_ONLY: &[Refusal] = &[
    Refusal {
        kind: WindowKind::SparseIo,
        reason: NO_SPARSE_LINEAR,
    },
    Refusal {
        kind: WindowKind::SparseMem,
        reason: NO_SPARSE_LINEAR,
    },
    NO_LOCAL,
];

pub static TSUNAMI: Chipset = Chipset {
    name: "tsunami",
    part: "21272 (Tsunami/Typhoon)",
    windows: &[
        Window {
            kind: WindowKind::BwxMem,
            also: &[WindowKind::DenseMem],
            // TSUNAMI_MEM(0) = TSUNAMI_BASE + 0, up to _TSUNAMI_IACK_SC 0x1F8000000.
            base: PA43,
            size: 0x1_F800_0000,
            encoding: BWX,
            hae: None,
            source: "core_tsunami.h TSUNAMI_MEM(0)",
            note: None,
        },
        Window {
            kind: WindowKind::BwxIo,
            also: &[],
            // TSUNAMI_IO(0) = TSUNAMI_BASE + 0x1FC000000, up to TSUNAMI_CONF.
            base: PA43 + 0x1_FC00_0000,
            size: 0x200_0000,
            encoding: BWX,
            hae: None,
            source: "core_tsunami.h TSUNAMI_IO(0), TSUNAMI_IO_SPACE",
            note: None,
        },
    ],
    refused: LINEAR_BWX_ONLY,
    regions: &[
        Region {
            name: "iack",
            base: PA43 + 0x1_F800_0000,
            size: 0x400_0000,
            source: "core_tsunami.h _TSUNAMI_IACK_SC(0)",
        },
        Region {
            name: "pci-config",
            base: PA43 + 0x1_FE00_0000,
            size: 0x200_0000,
            source: "core_tsunami.h TSUNAMI_CONF(0)",
        },
    ],
    trivial: Trivial {
        rw_bw: 1,
        io_bw: 1,
        rw_lq: 1,
        io_lq: 1,
        source: "core_tsunami.h tsunami_trivial_*",
    },
    devices: PC_DEVICES,
    notes: "21264 core logic; hose 0 only (TSUNAMI_HOSE(h) = h << 33)",
};

pub static IRONGATE: Chipset = Chipset {
    name: "irongate",
    part: "AMD-751",
    windows: &[
        Window {
            kind: WindowKind::BwxMem,
            also: &[WindowKind::DenseMem],
            // IRONGATE_MEM = IDENT_ADDR | IRONGATE_BIAS | 0, up to IRONGATE_IACK_SC.
            base: PA43,
            size: 0x1_F800_0000,
            encoding: BWX,
            hae: None,
            source: "core_irongate.h IRONGATE_MEM",
            note: None,
        },
        Window {
            kind: WindowKind::BwxIo,
            also: &[],
            // IRONGATE_IO = ... | 0x1FC000000, up to IRONGATE_CONF.
            base: PA43 + 0x1_FC00_0000,
            size: 0x200_0000,
            encoding: BWX,
            hae: None,
            source: "core_irongate.h IRONGATE_IO",
            note: None,
        },
    ],
    refused: LINEAR_BWX_ONLY,
    regions: &[
        Region {
            name: "iack",
            base: PA43 + 0x1_F800_0000,
            size: 0x400_0000,
            source: "core_irongate.h IRONGATE_IACK_SC",
        },
        Region {
            name: "pci-config",
            base: PA43 + 0x1_FE00_0000,
            size: 0x200_0000,
            source: "core_irongate.h IRONGATE_CONF",
        },
    ],
    trivial: Trivial {
        rw_bw: 1,
        io_bw: 1,
        rw_lq: 1,
        io_lq: 1,
        source: "core_irongate.h irongate_trivial_*",
    },
    devices: PC_DEVICES,
    notes: "21264 (Nautilus); \"consistent with a subset of the Tsunami memory map\"",
};

// ---------------------------------------------------------------- Polaris

const POLARIS_SPARSE: &str = "core_polaris.h gives the sparse bases (0xf800000000 memory, 0xf980000000 I/O) but Linux supports \"only the BWX form\" and no source read gives Polaris's sparse encoding: refused rather than guessed";

pub static POLARIS: Chipset = Chipset {
    name: "polaris",
    part: "21164PC system controller",
    windows: &[
        Window {
            kind: WindowKind::DenseMem,
            also: &[WindowKind::BwxMem],
            // POLARIS_DENSE_MEM_BASE = IDENT_ADDR + 0xf900000000, up to
            // POLARIS_SPARSE_IO_BASE 0xf980000000: "Polaris allows all
            // accesses (byte/word as well as long/quad) to be done through
            // dense space".
            base: 0xF9_0000_0000,
            size: 0x8000_0000,
            encoding: BWX,
            hae: None,
            source: "core_polaris.h POLARIS_DENSE_MEM_BASE, polaris_ioremap",
            note: None,
        },
        Window {
            kind: WindowKind::BwxIo,
            also: &[],
            // POLARIS_DENSE_IO_BASE = IDENT_ADDR + 0xf9fc000000, up to
            // POLARIS_DENSE_CONFIG_BASE 0xf9fe000000.
            base: 0xF9_FC00_0000,
            size: 0x200_0000,
            encoding: BWX,
            hae: None,
            source: "core_polaris.h POLARIS_DENSE_IO_BASE, polaris_ioportmap",
            note: None,
        },
    ],
    refused: &[
        Refusal {
            kind: WindowKind::SparseIo,
            reason: POLARIS_SPARSE,
        },
        Refusal {
            kind: WindowKind::SparseMem,
            reason: POLARIS_SPARSE,
        },
        NO_LOCAL,
    ],
    regions: &[
        Region {
            name: "sparse-mem (encoding not in the sources: not modelled)",
            base: 0xF8_0000_0000,
            size: 0x1_0000_0000,
            source: "core_polaris.h POLARIS_SPARSE_MEM_BASE",
        },
        Region {
            name: "sparse-io (encoding not in the sources: not modelled)",
            base: 0xF9_8000_0000,
            size: 0x4000_0000,
            source: "core_polaris.h POLARIS_SPARSE_IO_BASE",
        },
        Region {
            name: "iack",
            base: 0xF9_F800_0000,
            size: 0x400_0000,
            source: "core_polaris.h POLARIS_IACK_BASE",
        },
        Region {
            name: "pci-config",
            base: 0xF9_FE00_0000,
            size: 0x200_0000,
            source: "core_polaris.h POLARIS_DENSE_CONFIG_BASE",
        },
    ],
    trivial: Trivial {
        rw_bw: 1,
        io_bw: 1,
        rw_lq: 1,
        io_lq: 1,
        source: "core_polaris.h polaris_trivial_*",
    },
    devices: PC_DEVICES,
    notes: "21164PC (PCA56, BWX) core logic",
};

// ----------------------------------------------------------------- Jensen

/// EISA_HAE = IDENT_ADDR + 0x1D0000000: "bits 25-31 of the EISA address",
/// written shifted (`jensen_set_hae`: `addr >>= 25`); JENSEN_HAE_MASK
/// 0x1ffffff. "also needed for EISA IO addresses ... (the hae needs to be
/// set to 0)": it applies to EISA I/O as well.
const JENSEN_HAE: Hae = Hae {
    name: "EISA_HAE",
    reg: 0x1_D000_0000,
    lo: 25,
    hi: 31,
    format: HaeFormat::Shifted,
    bypass_below: 0,
};

pub static JENSEN: Chipset = Chipset {
    name: "jensen",
    part: "DEC 2000 AXP / DECpc AXP 150",
    windows: &[
        Window {
            kind: WindowKind::LocalIo,
            also: &[],
            // EISA_VL82C106 = IDENT_ADDR + 0x1C0000000; jensen_local_outb:
            // (addr << 9) + EISA_VL82C106, the byte alone (no lanes), up to EISA_HAE.
            base: 0x1_C000_0000,
            size: 0x1000_0000,
            encoding: Encoding::Local { shift: 9 },
            hae: None,
            source: "jensen.h EISA_VL82C106, jensen_local_outb, jensen_is_local",
            note: None,
        },
        Window {
            kind: WindowKind::SparseMem,
            also: &[],
            // EISA_MEM = IDENT_ADDR + 0x200000000; (addr << 7) + EISA_MEM + 0x00/0x20/0x60.
            base: 0x2_0000_0000,
            size: 0x1_0000_0000,
            encoding: SPARSE7,
            hae: Some(JENSEN_HAE),
            source: "jensen.h EISA_MEM, jensen_writeb, JENSEN_HAE_MASK",
            note: None,
        },
        Window {
            kind: WindowKind::SparseIo,
            also: &[],
            // EISA_IO = IDENT_ADDR + 0x300000000; jensen_bus_outb:
            // (addr << 7) + EISA_IO + 0x00 = b * 0x01010101.
            base: 0x3_0000_0000,
            size: 0x1_0000_0000,
            encoding: SPARSE7,
            hae: Some(JENSEN_HAE),
            source: "jensen.h EISA_IO, jensen_bus_outb",
            note: None,
        },
    ],
    refused: &[
        Refusal {
            kind: WindowKind::DenseMem,
            reason: "the Jensen has no dense space (Torvalds, axp-list 1996: \"it has _no_ support for dense memory\")",
        },
        Refusal {
            kind: WindowKind::BwxIo,
            reason: "the Jensen has no byte/word window",
        },
        Refusal {
            kind: WindowKind::BwxMem,
            reason: "the Jensen has no byte/word window",
        },
    ],
    regions: &[
        Region {
            name: "iack",
            base: 0x1_0000_0000,
            size: 0x8000_0000,
            source: "jensen.h EISA_INTA",
        },
        Region {
            name: "feprom",
            base: 0x1_8000_0000,
            size: 0x4000_0000,
            source: "jensen.h EISA_FEPROM0/1",
        },
        Region {
            name: "csr (EISA_HAE 0x1d0000000, SYSCTL, SPARE)",
            base: 0x1_D000_0000,
            size: 0x3000_0000,
            source: "jensen.h EISA_HAE, EISA_SYSCTL, EISA_SPARE",
        },
    ],
    trivial: Trivial {
        rw_bw: 0,
        io_bw: 0,
        rw_lq: 0,
        io_lq: 0,
        source: "jensen.h jensen_trivial_*",
    },
    devices: JENSEN_DEVICES,
    notes: "EV4 EISA: 128-byte stride, software replicates bytes to all lanes, local devices on the VL82C106",
};

// ---------------------------------------------------------------- devices

/// The devices of a PC-style ISA/PCI machine, as the bare machine has them.
/// The ports are the PC/AT's, which the Alpha PCI/ISA platforms keep on
/// their ISA bridge.
pub static PC_DEVICES: &[Device] = &[
    Device {
        name: "com1 (16550)",
        kind: DeviceKind::Uart16550,
        space: BusSpace::Io,
        base: 0x3f8,
        size: 8,
        source: "PC/AT COM1 0x3f8-0x3ff (Linux arch/alpha/include/asm/serial.h SERIAL_PORT_DFNS, ttyS0 at 0x3F8)",
    },
    Device {
        name: "post",
        kind: DeviceKind::PostLatch,
        space: BusSpace::Io,
        base: 0x80,
        size: 1,
        source: "PC/AT POST diagnostic port 0x80 (in Linux arch/alpha/kernel/setup.c standard_io_resources \"dma page reg\" 0x80-0x8f)",
    },
    PCI_MEMORY,
];

/// subword's own PCI (EISA) memory device: 32 MiB at bus 0x0800_0000, above
/// the first 128 MiB so that a chipset whose sparse window reaches less
/// (APECS, LCA: 128 MiB, the first 16 MiB without HAE) needs its HAE.
const PCI_MEMORY: Device = Device {
    name: "pci memory",
    kind: DeviceKind::Memory,
    space: BusSpace::Mem,
    base: 0x0800_0000,
    size: 32 << 20,
    source: "subword's model (no source): placed to need the HAE on APECS and LCA",
};

/// The Jensen's devices: the VL82C106 combo chip's are local
/// (jensen.h `jensen_is_local`: keyboard 0x60/0x64, RTC 0x170/0x171, COM1
/// 0x3f8-0x3ff, COM2 0x2f8-0x2ff, LPT1 0x3bc-0x3be); EISA keeps the POST
/// port and memory.
pub static JENSEN_DEVICES: &[Device] = &[
    Device {
        name: "com1 (VL82C106 16550)",
        kind: DeviceKind::Uart16550,
        space: BusSpace::Local,
        base: 0x3f8,
        size: 8,
        source: "jensen.h jensen_is_local (0x3f8-0x3ff)",
    },
    Device {
        name: "keyboard data",
        kind: DeviceKind::Inert,
        space: BusSpace::Local,
        base: 0x60,
        size: 1,
        source: "jensen.h jensen_is_local (0x60)",
    },
    Device {
        name: "keyboard status",
        kind: DeviceKind::Inert,
        space: BusSpace::Local,
        base: 0x64,
        size: 1,
        source: "jensen.h jensen_is_local (0x64)",
    },
    Device {
        name: "rtc",
        kind: DeviceKind::Inert,
        space: BusSpace::Local,
        base: 0x170,
        size: 2,
        source: "jensen.h jensen_is_local (0x170, 0x171)",
    },
    Device {
        name: "com2",
        kind: DeviceKind::Inert,
        space: BusSpace::Local,
        base: 0x2f8,
        size: 8,
        source: "jensen.h jensen_is_local (0x2f8-0x2ff)",
    },
    Device {
        name: "lpt1",
        kind: DeviceKind::Inert,
        space: BusSpace::Local,
        base: 0x3bc,
        size: 3,
        source: "jensen.h jensen_is_local (0x3bc-0x3be)",
    },
    Device {
        name: "post",
        kind: DeviceKind::PostLatch,
        space: BusSpace::Io,
        base: 0x80,
        size: 1,
        source: "EISA POST port 0x80",
    },
    PCI_MEMORY,
];

/// Every chipset, in the contract's order (plus `t2-gamma`).
pub static ALL: &[&Chipset] = &[
    &APECS, &LCA, &CIA, &CIA2, &PYXIS, &T2, &T2_GAMMA, &TSUNAMI, &POLARIS, &IRONGATE, &JENSEN,
];
