//! Alpha core-logic chipsets as data, and the address arithmetic that reads
//! them.
//!
//! Each chipset is one [`Chipset`] table (in [`tables`]): every I/O window's
//! physical base and size, how the window encodes a bus transaction (sparse:
//! bus address shifted left, transfer length and byte lane in the low
//! address bits; dense and byte/word: linear), its HAE register, the
//! windows the sources do not let us model (with the reason), and the
//! kernel's `trivial_*` flags, and the devices on its bus (the console
//! UART, the POST latch, PCI memory; Jensen's local devices). [`encode`] turns a bus address, size and
//! window into a physical address; [`decode`] does the reverse. `alpha io`,
//! the bare machine and the docs all read these tables: nothing else in
//! subword knows an I/O address.
//!
//! All addresses here are *physical* (Linux's `IDENT_ADDR` KSEG base taken
//! off; for Tsunami and Irongate, Linux's VA bit 40 `TS_BIAS` is the
//! physical bit 43 the 21264 maps it to).

pub mod tables;

use std::fmt;

/// The kind of an I/O window, spelled as the contract spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowKind {
    SparseIo,
    SparseMem,
    DenseMem,
    BwxIo,
    BwxMem,
    /// Jensen's VL82C106 local I/O window.
    LocalIo,
}

impl WindowKind {
    pub const ALL: [WindowKind; 6] = [
        WindowKind::SparseIo,
        WindowKind::SparseMem,
        WindowKind::DenseMem,
        WindowKind::BwxIo,
        WindowKind::BwxMem,
        WindowKind::LocalIo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WindowKind::SparseIo => "sparse-io",
            WindowKind::SparseMem => "sparse-mem",
            WindowKind::DenseMem => "dense-mem",
            WindowKind::BwxIo => "bwx-io",
            WindowKind::BwxMem => "bwx-mem",
            WindowKind::LocalIo => "local-io",
        }
    }

    pub fn by_name(s: &str) -> Option<WindowKind> {
        WindowKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Does the window address I/O (port) space rather than memory space?
    pub fn is_io_space(self) -> bool {
        matches!(
            self,
            WindowKind::SparseIo | WindowKind::BwxIo | WindowKind::LocalIo
        )
    }
}

/// How a window turns a CPU access into a bus transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `phys = base + (bus_offset << shift) + (code << len_shift)`: the bus
    /// address's low two bits (the byte lane) land in `phys<shift+1:shift>`,
    /// the length code in `phys<len_shift+1:len_shift>`. `codes[i]` is the
    /// length code for a transfer of `i + 1` bytes (None: not carried);
    /// `quad` is how a quadword (LDQ/STQ) is encoded, if the window carries
    /// one.
    Sparse {
        shift: u32,
        len_shift: u32,
        codes: [Option<u8>; 4],
        quad: Option<Quad>,
    },
    /// Linear: physical byte N is bus byte N. `bytes_words`: the window
    /// also carries byte and word transfers (a byte/word window).
    Linear { bytes_words: bool },
    /// Jensen local I/O: `phys = base + (port << shift)`, one byte in the
    /// low byte of a longword, no lanes.
    Local { shift: u32 },
}

/// A sparse quadword transfer: an 8-aligned bus address encoded with
/// length code `code` in the lane field `lane` (the 21164 boards' manuals:
/// code 3 with address bits <6:5> = 3, offset 0x78, by LDQ/STQ). The bus
/// address bit the lane field's neighbour carries (`phys<shift+2>`, the
/// manual's `addr<7>`) is taken as zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quad {
    pub code: u8,
    pub lane: u8,
}

/// How the HAE register holds the bus bits it supplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HaeFormat {
    /// The register holds the bus bits in place (`addr & mask`).
    InPlace,
    /// The register holds the bus bits shifted down to bit 0 (`addr >> lo`).
    Shifted,
}

/// A Host Address Extension register: supplies bus bits `hi..=lo` that the
/// sparse encoding cannot carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hae {
    /// Register name as the source spells it.
    pub name: &'static str,
    /// Physical address of the register.
    pub reg: u64,
    pub lo: u32,
    pub hi: u32,
    pub format: HaeFormat,
    /// Bus offsets below this are sent without the HAE (APECS and LCA
    /// sparse memory region 0: the first 16 MiB); 0 when it always applies.
    pub bypass_below: u64,
}

impl Hae {
    /// Mask of the bus bits the register supplies.
    pub fn mask(&self) -> u64 {
        (((1u64 << (self.hi + 1)) - 1) >> self.lo) << self.lo
    }
    /// The register value that supplies the high bits of `bus`.
    pub fn value_for(&self, bus: u64) -> u64 {
        let bits = bus & self.mask();
        match self.format {
            HaeFormat::InPlace => bits,
            HaeFormat::Shifted => bits >> self.lo,
        }
    }
    /// The bus bits a register value supplies.
    pub fn bits_of(&self, value: u64) -> u64 {
        let v = match self.format {
            HaeFormat::InPlace => value,
            HaeFormat::Shifted => value << self.lo,
        };
        v & self.mask()
    }
}

/// One I/O window of a chipset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The window's name, as the chipset's Linux header names it.
    pub kind: WindowKind,
    /// Other names that denote this same window (the manual's or another
    /// header's), accepted wherever a window is named.
    pub also: &'static [WindowKind],
    /// Physical base address.
    pub base: u64,
    /// Size in bytes of the physical range.
    pub size: u64,
    pub encoding: Encoding,
    pub hae: Option<Hae>,
    /// Where the numbers come from.
    pub source: &'static str,
    /// What the sources say about the window beyond its numbers, shown with
    /// every address encoded through it.
    pub note: Option<&'static str>,
}

impl Window {
    /// Is `kind` one of this window's names?
    pub fn is(&self, kind: WindowKind) -> bool {
        self.kind == kind || self.also.contains(&kind)
    }
    /// Bus bytes reachable through the window without its HAE.
    pub fn reach(&self) -> u64 {
        match self.encoding {
            Encoding::Sparse { shift, .. } | Encoding::Local { shift } => self.size >> shift,
            Encoding::Linear { .. } => self.size,
        }
    }
    pub fn contains(&self, phys: u64) -> bool {
        phys >= self.base && phys - self.base < self.size
    }
}

/// A window kind the chipset lacks or that the sources do not let us model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: WindowKind,
    pub reason: &'static str,
}

/// Another physical region of the chipset (configuration space, interrupt
/// acknowledge, CSRs): named for decode; the bare machine claims only the
/// HAE registers in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub name: &'static str,
    pub base: u64,
    pub size: u64,
    pub source: &'static str,
}

/// The Linux machine vector's `trivial_*` flags (`asm/io_trivial.h`):
/// `rw_*` for readb/w (bw) and readl/q (lq), `io_*` for ioread8/16 and
/// ioread32; 1 = a plain dereference, 2 = dense for l/q only, 0 = the
/// chipset's own routines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trivial {
    pub rw_bw: u8,
    pub io_bw: u8,
    pub rw_lq: u8,
    pub io_lq: u8,
    pub source: &'static str,
}

/// Which bus address space a device answers in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusSpace {
    /// ISA/PCI (on Jensen, EISA) I/O ports.
    Io,
    /// PCI (EISA) memory.
    Mem,
    /// Jensen's VL82C106 local I/O, reached only through `local-io`.
    Local,
}

/// What a device is: the bare machine models each kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// A 16550 UART: its registers from `base` in the 16550's order
    /// (THR at +0, LSR at +5).
    Uart16550,
    /// The POST diagnostic latch: keeps the last byte written.
    PostLatch,
    /// Plain memory on the bus.
    Memory,
    /// A device that accepts writes and reads as 0.
    Inert,
}

/// A device on the chipset's bus, at the address the platform puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    pub name: &'static str,
    pub kind: DeviceKind,
    pub space: BusSpace,
    /// First bus address and number of bus bytes it answers.
    pub base: u64,
    pub size: u64,
    pub source: &'static str,
}

impl Device {
    /// Does the device answer every byte of `size` bytes at `bus`?
    pub fn claims(&self, space: BusSpace, bus: u64, size: u64) -> bool {
        space == self.space
            && bus >= self.base
            && bus
                .checked_add(size)
                .is_some_and(|end| end <= self.base + self.size)
    }
}

/// One chipset.
#[derive(Clone, Copy, Debug)]
pub struct Chipset {
    /// Name as the contract spells it (`cia`).
    pub name: &'static str,
    pub part: &'static str,
    pub windows: &'static [Window],
    pub refused: &'static [Refusal],
    pub regions: &'static [Region],
    pub trivial: Trivial,
    /// The devices on its bus (the bare machine's).
    pub devices: &'static [Device],
    /// The CPU family it serves and what is peculiar about it.
    pub notes: &'static str,
}

impl Chipset {
    pub fn window(&self, kind: WindowKind) -> Result<&'static Window, IoError> {
        if let Some(w) = self.windows.iter().find(|w| w.is(kind)) {
            return Ok(w);
        }
        let reason = self
            .refused
            .iter()
            .find(|r| r.kind == kind)
            .map_or("the chipset has no such window", |r| r.reason);
        Err(IoError(format!(
            "{} has no {} window: {reason}",
            self.name,
            kind.name()
        )))
    }

    /// The window whose physical range holds `phys`.
    pub fn window_at(&self, phys: u64) -> Option<&'static Window> {
        self.windows.iter().find(|w| w.contains(phys))
    }

    /// The device answering `size` bytes at `bus` in `space`.
    pub fn device_at(&self, space: BusSpace, bus: u64, size: u64) -> Option<&'static Device> {
        self.devices.iter().find(|d| d.claims(space, bus, size))
    }

    /// The first device of `kind` (the console UART, the POST latch…).
    pub fn device(&self, kind: DeviceKind) -> Option<&'static Device> {
        self.devices.iter().find(|d| d.kind == kind)
    }

    /// Every HAE register the chipset has.
    pub fn haes(&self) -> Vec<Hae> {
        let mut v: Vec<Hae> = Vec::new();
        for w in self.windows {
            if let Some(h) = w.hae {
                if !v.iter().any(|x| x.reg == h.reg) {
                    v.push(h);
                }
            }
        }
        v
    }
}

/// The chipset called `name` (contract spelling).
pub fn by_name(name: &str) -> Result<&'static Chipset, IoError> {
    tables::ALL
        .iter()
        .copied()
        .find(|c| c.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = tables::ALL.iter().map(|c| c.name).collect();
            IoError(format!(
                "unknown chipset `{name}` (one of: {})",
                names.join(" ")
            ))
        })
}

/// Why an address cannot be encoded or decoded: one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoError(pub String);

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IoError {}

/// A CPU access through a window, as physical address and bus transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    pub chipset: &'static str,
    pub window: WindowKind,
    pub phys: u64,
    /// Full bus address of the transaction (lane bits included).
    pub bus: u64,
    /// Transfer size in bytes.
    pub size: u8,
    /// Byte lane (sparse windows).
    pub lane: Option<u8>,
    /// Length code (sparse windows).
    pub length_code: Option<u8>,
    /// HAE register value the access needs (None: the HAE does not apply).
    pub hae: Option<u64>,
    /// The window's note, if its sources say more than its numbers.
    pub note: Option<&'static str>,
}

fn size_name(n: u64) -> &'static str {
    match n {
        1 => "byte",
        2 => "word",
        3 => "tribyte",
        4 => "longword",
        8 => "quadword",
        _ => "transfer",
    }
}

/// Physical address (and HAE value) for a `size`-byte access to bus address
/// `bus` through `kind`, or why the chipset cannot carry it.
pub fn encode(
    cs: &'static Chipset,
    kind: WindowKind,
    bus: u64,
    size: u64,
) -> Result<Encoded, IoError> {
    let w = cs.window(kind)?;
    let err = |m: String| Err(IoError(format!("{} {}: {m}", cs.name, kind.name())));
    if !matches!(size, 1 | 2 | 3 | 4 | 8) {
        return err(format!("size {size} is not 1, 2, 3, 4 or 8 bytes"));
    }
    if bus >> 32 != 0 {
        return err(format!("bus address 0x{bus:x} is beyond the 32-bit bus"));
    }
    let what = size_name(size);
    match w.encoding {
        Encoding::Sparse {
            shift,
            len_shift,
            codes,
            quad,
        } => {
            let (code, lane_field, lane) = if size == 8 {
                let Some(q) = quad else {
                    return err(format!("the window carries no {what} transfer"));
                };
                if bus & 7 != 0 {
                    return err(format!(
                        "a quadword needs an 8-aligned bus address, not 0x{bus:x}"
                    ));
                }
                (q.code, q.lane as u64, None)
            } else {
                let Some(code) = codes[size as usize - 1] else {
                    return err(format!("the window carries no {what} transfer"));
                };
                let lane = bus & 3;
                if lane + size > 4 {
                    return err(format!(
                        "a {what} in lane {lane} would cross the longword (lanes 0..{})",
                        4 - size
                    ));
                }
                (code, 0, Some(lane as u8))
            };
            let (offset, hae) = split_hae(cs, w, bus)?;
            let phys = w.base + ((offset | lane_field) << shift) + ((code as u64) << len_shift);
            Ok(Encoded {
                chipset: cs.name,
                window: w.kind,
                phys,
                bus,
                size: size as u8,
                lane,
                length_code: Some(code),
                hae,
                note: w.note,
            })
        }
        Encoding::Linear { bytes_words } => {
            if size == 3 {
                return err("a tribyte exists only in sparse space".into());
            }
            if size < 4 && !bytes_words {
                return err(format!(
                    "a dense window carries longwords and quadwords only, not a {what}"
                ));
            }
            if !bus.is_multiple_of(size) {
                return err(format!(
                    "a {what} needs a {size}-aligned bus address, not 0x{bus:x}"
                ));
            }
            if bus >= w.reach() {
                return err(format!(
                    "bus address 0x{bus:x} is beyond the window's 0x{:x} bytes",
                    w.reach()
                ));
            }
            Ok(Encoded {
                chipset: cs.name,
                window: w.kind,
                phys: w.base + bus,
                bus,
                size: size as u8,
                lane: None,
                length_code: None,
                hae: None,
                note: w.note,
            })
        }
        Encoding::Local { shift } => {
            if size != 1 {
                return err(format!(
                    "the local I/O window carries bytes only, not a {what}"
                ));
            }
            if bus >= w.reach() {
                return err(format!("port 0x{bus:x} is beyond the window"));
            }
            Ok(Encoded {
                chipset: cs.name,
                window: w.kind,
                phys: w.base + (bus << shift),
                bus,
                size: 1,
                lane: None,
                length_code: None,
                hae: None,
                note: w.note,
            })
        }
    }
}

/// Split a sparse bus address into the offset the address carries and the
/// HAE value that must supply the rest.
fn split_hae(cs: &Chipset, w: &Window, bus: u64) -> Result<(u64, Option<u64>), IoError> {
    let reach = w.reach();
    let Some(h) = w.hae else {
        if bus >= reach {
            return Err(IoError(format!(
                "{} {}: bus address 0x{bus:x} is beyond the window's reach 0x{reach:x} and it has no HAE",
                cs.name,
                w.kind.name()
            )));
        }
        return Ok((bus, None));
    };
    if h.bypass_below != 0 && bus < h.bypass_below {
        return Ok((bus, None));
    }
    let offset = bus & !h.mask();
    if offset >= reach {
        return Err(IoError(format!(
            "{} {}: bus address 0x{bus:x} needs bits the window and {} cannot supply",
            cs.name,
            w.kind.name(),
            h.name
        )));
    }
    if h.bypass_below != 0 && offset < h.bypass_below {
        return Err(IoError(format!(
            "{} {}: bus 0x{bus:x} is unreachable: its offset 0x{offset:x} under the {} bits falls in the first 0x{:x} bytes, which the chipset sends without {} (to bus 0x{offset:x})",
            cs.name,
            w.kind.name(),
            h.name,
            h.bypass_below,
            h.name
        )));
    }
    Ok((offset, Some(h.value_for(bus))))
}

/// What a physical address means on a chipset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// An access through an I/O window. A sparse address names its size
    /// (a quadword is its own encoding); a linear one does not (`size` 0:
    /// the instruction's width).
    Window { enc: Encoded },
    /// Another region of the chipset (configuration, IACK, CSRs).
    Region(&'static Region),
}

/// Decode `phys` on `cs`, taking the bus bits an HAE supplies from `hae`
/// (register values by register address; a register not listed reads 0).
pub fn decode(
    cs: &'static Chipset,
    phys: u64,
    hae: &dyn Fn(u64) -> u64,
) -> Result<Decoded, IoError> {
    let Some(w) = cs.window_at(phys) else {
        if let Some(r) = cs
            .regions
            .iter()
            .find(|r| phys >= r.base && phys - r.base < r.size)
        {
            return Ok(Decoded::Region(r));
        }
        return Err(IoError(format!(
            "0x{phys:x} is in no window or region of {}",
            cs.name
        )));
    };
    let err = |m: String| {
        Err(IoError(format!(
            "{} {} 0x{phys:x}: {m}",
            cs.name,
            w.kind.name()
        )))
    };
    let rel = phys - w.base;
    match w.encoding {
        Encoding::Sparse {
            shift,
            len_shift,
            codes,
            quad,
        } => {
            if rel & ((1 << len_shift) - 1) != 0 {
                return err(format!(
                    "sparse addresses have bits <{}:0> clear",
                    len_shift - 1
                ));
            }
            let code = ((rel >> len_shift) & 3) as u8;
            let offset = rel >> shift;
            let lane = offset & 3;
            if quad.is_some_and(|q| q.code == code && q.lane as u64 == lane) {
                // The quadword row: the lane field is part of the encoding
                // and the next address bit (bus bit 2) is taken as zero.
                let offset = offset & !7;
                let (bus, hv) = hae_bits(w, offset, hae);
                return Ok(Decoded::Window {
                    enc: Encoded {
                        chipset: cs.name,
                        window: w.kind,
                        phys,
                        bus,
                        size: 8,
                        lane: None,
                        length_code: Some(code),
                        hae: hv,
                        note: w.note,
                    },
                });
            }
            let Some(size) = codes.iter().position(|c| *c == Some(code)) else {
                return err(format!("length code {code} is not one the window carries"));
            };
            let size = size as u64 + 1;
            if lane + size > 4 {
                return err(format!(
                    "lane {lane} with length code {code} ({}) would cross the longword{}",
                    size_name(size),
                    if quad.is_none() {
                        " (the window has no quadword encoding)"
                    } else {
                        ""
                    }
                ));
            }
            let (bus, hv) = hae_bits(w, offset, hae);
            Ok(Decoded::Window {
                enc: Encoded {
                    chipset: cs.name,
                    window: w.kind,
                    phys,
                    bus,
                    size: size as u8,
                    lane: Some(lane as u8),
                    length_code: Some(code),
                    hae: hv,
                    note: w.note,
                },
            })
        }
        Encoding::Linear { .. } => Ok(Decoded::Window {
            enc: Encoded {
                chipset: cs.name,
                window: w.kind,
                phys,
                bus: rel,
                size: 0,
                lane: None,
                length_code: None,
                hae: None,
                note: w.note,
            },
        }),
        Encoding::Local { shift } => {
            if rel & ((1 << shift) - 1) != 0 {
                return err(format!(
                    "local I/O addresses have bits <{}:0> clear",
                    shift - 1
                ));
            }
            Ok(Decoded::Window {
                enc: Encoded {
                    chipset: cs.name,
                    window: w.kind,
                    phys,
                    bus: rel >> shift,
                    size: 1,
                    lane: None,
                    length_code: None,
                    hae: None,
                    note: w.note,
                },
            })
        }
    }
}

/// The bus address a sparse offset reaches with the HAE value `hae` gives
/// its register, and that value (None: the HAE does not apply).
fn hae_bits(w: &Window, offset: u64, hae: &dyn Fn(u64) -> u64) -> (u64, Option<u64>) {
    match w.hae {
        Some(h) if !(h.bypass_below != 0 && offset < h.bypass_below) => {
            let v = hae(h.reg);
            (h.bits_of(v) | offset, Some(v))
        }
        _ => (offset, None),
    }
}
