//! The bare machine: an Alpha CPU in kernel mode on a chipset, with RAM from
//! physical 0, the chipset's I/O windows and the devices its table puts on
//! the bus (`Chipset::devices`: where each sits is the table's, what each
//! does — a 16550's THR and LSR, a POST latch, memory — is this module's).
//! It knows nothing of Linux, and no I/O address.
//!
//! The CPU core stays unaware of I/O: RAM is the only thing mapped in
//! [`Memory`] (at its physical addresses and again under the KSEG
//! superpage), so a load or store anywhere else — an I/O window — comes
//! back from the interpreter (or from compiled code, which hands every
//! access it cannot finish to the interpreter) as a memory-fault event
//! before any effect. This module then decodes the instruction, turns its
//! virtual address into a physical one (identity below 2^44, KSEG
//! `0xfffffc0000000000 + PA`, the 21264's VA bit 40 as PA bit 43), decodes
//! the physical address with the chipset table ([`crate::chipset`]) into a
//! bus transaction (window, bus address, size, lane, data) and delivers it
//! to the device that claims it, exactly as the chipset would: a device
//! sees only the lanes the transaction enables. What the hardware would do
//! silently wrong is a [`Finding`]; what it cannot do is a machine check.
//!
//! On a 21164-family CPU a sparse write is held in a one-entry model of the
//! write buffer until an `MB`/`WMB`, another I/O access, or 64 instructions
//! pass; a second sparse write to the same 32-byte block before that merges
//! into it (the first never reaches the device) and both are reported as
//! `mb-missing`. While a write is held the CPU runs one instruction at a
//! time so the barrier is seen.

use crate::chipset::{
    self, BusSpace, Chipset, Decoded, Device, DeviceKind, Encoding, Window, WindowKind,
};
use crate::exec::Event;
use crate::machine::Machine;
use crate::memory::{Access, Perm, PAGE_SIZE};
use alpha_isa::{decode, disasm, pal, Model, Op};

/// KSEG superpage base (Linux `IDENT_ADDR`).
pub const KSEG: u64 = 0xffff_fc00_0000_0000;
/// Default flat-image load address.
pub const DEFAULT_LOAD: u64 = 0x20000;
/// How long (instructions) the write-buffer model holds a sparse write.
pub const WRITE_BUFFER_HOLD: u64 = 64;

/// How to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub memory: u64,
    pub load: u64,
    /// Compile hot loops (the default tier setting) or interpret only.
    pub jit_threshold: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            memory: 64 << 20,
            load: DEFAULT_LOAD,
            jit_threshold: Some(50),
        }
    }
}

/// Kinds of finding, as the contract spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingKind {
    MbMissing,
    HaeMismatch,
    LaneMismatch,
}

impl FindingKind {
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::MbMissing => "mb-missing",
            FindingKind::HaeMismatch => "hae-mismatch",
            FindingKind::LaneMismatch => "lane-mismatch",
        }
    }
}

/// Something the hardware would get wrong silently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    pub pc: u64,
    pub phys: u64,
    pub other_pc: Option<u64>,
    pub message: String,
}

/// One bus transaction as the device saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoRecord {
    pub pc: u64,
    pub window: WindowKind,
    pub write: bool,
    pub size: u8,
    pub bus: u64,
    pub lane: u8,
    /// The bytes transferred, lane-shifted down to bit 0.
    pub data: u64,
}

impl IoRecord {
    /// The contract's `--trace-io` line (without the trailing newline).
    pub fn line(&self) -> String {
        format!(
            "io: pc=0x{:x} {} {} size={} bus=0x{:x} lane={} data=0x{:x}",
            self.pc,
            self.window.name(),
            if self.write { "write" } else { "read" },
            self.size,
            self.bus,
            self.lane,
            self.data
        )
    }
}

/// How the run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `halt` with this status.
    Halt(u8),
    /// A machine check or an unsupported CALL_PAL/instruction (status 3).
    MachineCheck(String),
    /// `--max-insns` ran out (status 124).
    OutOfInsns(String),
}

impl Stop {
    pub fn status(&self) -> u8 {
        match self {
            Stop::Halt(s) => *s,
            Stop::MachineCheck(_) => 3,
            Stop::OutOfInsns(_) => 124,
        }
    }
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct Report {
    pub stop: Stop,
    pub console: Vec<u8>,
    pub findings: Vec<Finding>,
    pub io: Vec<IoRecord>,
    pub insns: u64,
    /// Regions the compiling tier compiled during the run.
    pub jit_regions: u64,
    /// Code pages decoded during the run (a page is decoded once, however
    /// often stores change words in it).
    pub decoded_pages: u64,
}

/// Bad input (exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadImage(pub String);

impl std::fmt::Display for BadImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// 16550 register offsets from the UART's base (the 16550 data sheet's
/// register map): transmitter holding register and line status register.
const UART_THR: u64 = 0;
const UART_LSR: u64 = 5;
/// LSR value: THRE and TEMT (transmitter empty).
const UART_LSR_EMPTY: u64 = 0x60;

/// The devices, seen only through bus transactions. Where each sits is the
/// chipset table's (`Chipset::devices`); this is what each does.
#[derive(Clone)]
struct Devices {
    table: &'static [Device],
    console: Vec<u8>,
    post: u8,
    /// The bytes of each `DeviceKind::Memory` device, by table index
    /// (empty for other kinds; zeroed lazily by the host).
    mem: Vec<Vec<u8>>,
}

/// The device (its table index) that claims a transaction.
type Dev = usize;

impl Devices {
    fn new(table: &'static [Device]) -> Devices {
        Devices {
            table,
            console: Vec::new(),
            post: 0,
            mem: table
                .iter()
                .map(|d| match d.kind {
                    DeviceKind::Memory => vec![0; d.size as usize],
                    _ => Vec::new(),
                })
                .collect(),
        }
    }

    fn claim(&self, space: BusSpace, bus: u64, size: u64) -> Option<Dev> {
        self.table.iter().position(|d| d.claims(space, bus, size))
    }

    fn write(&mut self, dev: Dev, bus: u64, size: u64, data: u64) {
        let d = &self.table[dev];
        let off = bus - d.base;
        match d.kind {
            DeviceKind::Uart16550 => {
                if off == UART_THR {
                    self.console.push(data as u8);
                }
            }
            DeviceKind::PostLatch => self.post = data as u8,
            DeviceKind::Memory => {
                let off = off as usize;
                let b = data.to_le_bytes();
                self.mem[dev][off..off + size as usize].copy_from_slice(&b[..size as usize]);
            }
            DeviceKind::Inert => {}
        }
    }

    fn read(&mut self, dev: Dev, bus: u64, size: u64) -> u64 {
        let d = &self.table[dev];
        let off = bus - d.base;
        match d.kind {
            DeviceKind::Uart16550 => u64::from(off == UART_LSR) * UART_LSR_EMPTY,
            DeviceKind::PostLatch => self.post as u64,
            DeviceKind::Memory => {
                let off = off as usize;
                let mut b = [0u8; 8];
                b[..size as usize].copy_from_slice(&self.mem[dev][off..off + size as usize]);
                u64::from_le_bytes(b)
            }
            DeviceKind::Inert => 0,
        }
    }
}

/// A sparse write held in the write-buffer model.
#[derive(Clone)]
struct Held {
    pc: u64,
    phys: u64,
    tx: Tx,
    age: u64,
}

/// A decoded transaction ready for a device.
#[derive(Clone)]
struct Tx {
    window: WindowKind,
    dev: Dev,
    bus: u64,
    size: u64,
    lane: u8,
    data: u64,
}

/// The bare machine.
pub struct Bare {
    pub machine: Machine,
    chipset: &'static Chipset,
    ram: u64,
    ram_pages: Ram,
    hae: Vec<(u64, u64)>,
    dev: Devices,
    findings: Vec<Finding>,
    io: Vec<IoRecord>,
    held: Option<Held>,
    ipl: u64,
    write_buffer: bool,
}

/// The machine's RAM, `[0, size)` physical, mapped into `Memory` one 8 KiB
/// page at a time when first touched (by the loader, or by a fault the run
/// loop sees), at its physical address and again under KSEG. A page never
/// touched costs nothing, so `--memory` can be as large as the host could
/// give without the host giving it up front.
#[derive(Clone)]
struct Ram {
    size: u64,
    mapped: std::collections::HashSet<u64>,
}

impl Ram {
    fn new(size: u64) -> Ram {
        Ram {
            size,
            mapped: Default::default(),
        }
    }

    /// Map the page holding physical `pa` if it is RAM and not yet mapped;
    /// true when it mapped one.
    fn touch(&mut self, m: &mut Machine, pa: u64) -> Result<bool, String> {
        if pa >= self.size {
            return Ok(false);
        }
        let pn = pa / PAGE_SIZE;
        if !self.mapped.insert(pn) {
            return Ok(false);
        }
        let at = pn * PAGE_SIZE;
        m.mem
            .map_zero(at, PAGE_SIZE, Perm::R.union(Perm::W).union(Perm::X))
            .map_err(|e| e.to_string())?;
        m.mem
            .alias(KSEG + at, at, PAGE_SIZE)
            .map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// Map every page of `[pa, pa + len)` (the caller checked it is RAM).
    fn touch_range(&mut self, m: &mut Machine, pa: u64, len: u64) -> Result<(), String> {
        let mut p = pa & !(PAGE_SIZE - 1);
        while p < pa + len {
            self.touch(m, p)?;
            p += PAGE_SIZE;
        }
        Ok(())
    }
}

fn is_21164_family(m: &Model) -> bool {
    matches!(m.name, "ev5" | "ev56" | "pca56")
}

fn is_21264_family(m: &Model) -> bool {
    m.implver == 2
}

impl Bare {
    /// A machine with `opts.memory` bytes of RAM, the image loaded, the CPU
    /// at its entry state.
    pub fn new(
        chipset: &'static Chipset,
        model: &'static Model,
        opts: &Options,
        image: &[u8],
    ) -> Result<Bare, BadImage> {
        let ram = opts.memory;
        if ram < PAGE_SIZE || !ram.is_multiple_of(PAGE_SIZE) || ram > (1 << 36) {
            return Err(BadImage(format!(
                "--memory {ram}: RAM must be a multiple of {PAGE_SIZE} bytes, at least one page and at most 64 GiB"
            )));
        }
        let mut machine = Machine::new(model, 1, None);
        machine.set_jit(opts.jit_threshold);
        // RAM is mapped a page at a time as it is first touched (see
        // `Ram`), so untouched RAM costs the host nothing.
        let mut ram_pages = Ram::new(ram);
        let entry = load_image(&mut machine, &mut ram_pages, opts.load, image)?;
        let cpu = &mut machine.cpus[0];
        cpu.pc = entry;
        cpu.r[30] = KSEG + ram;
        cpu.r[16] = ram;
        Ok(Bare {
            machine,
            chipset,
            ram,
            ram_pages,
            hae: chipset.haes().iter().map(|h| (h.reg, 0)).collect(),
            dev: Devices::new(chipset.devices),
            findings: Vec::new(),
            io: Vec::new(),
            held: None,
            ipl: 7,
            write_buffer: is_21164_family(model),
        })
    }

    fn hae_value(&self, reg: u64) -> u64 {
        self.hae
            .iter()
            .find(|(r, _)| *r == reg)
            .map_or(0, |(_, v)| *v)
    }

    /// The bytes of the chipset's bus memory device (for tests and the
    /// demo).
    pub fn pci_mem(&self) -> &[u8] {
        self.dev
            .mem
            .iter()
            .find(|m| !m.is_empty())
            .map_or(&[], |m| m.as_slice())
    }

    /// Run until halt, a machine check or the instruction budget.
    pub fn run(mut self, max_insns: Option<u64>) -> Report {
        let limit = max_insns.unwrap_or(u64::MAX);
        let stop = loop {
            let done = self.machine.cpus[0].icount;
            if done >= limit {
                self.flush_held();
                break Stop::OutOfInsns(format!(
                    "--max-insns {limit} ran out at pc=0x{:x}",
                    self.machine.cpus[0].pc
                ));
            }
            let budget = if self.held.is_some() {
                if self.at_barrier() {
                    self.flush_held();
                }
                1
            } else {
                (limit - done).min(1 << 24)
            };
            let ev = self.machine.run(0, budget);
            if let Some(h) = &mut self.held {
                h.age += 1;
                if h.age > WRITE_BUFFER_HOLD {
                    self.flush_held();
                }
            }
            if let Event::MemFault { fault } = &ev {
                // First touch of a RAM page: map it and run the
                // instruction again.
                match self.translate(fault.addr).map(|pa| {
                    let r = &mut self.ram_pages;
                    r.touch(&mut self.machine, pa)
                }) {
                    Some(Ok(true)) => continue,
                    Some(Err(e)) => {
                        self.flush_held();
                        break Stop::MachineCheck(format!("machine check: RAM: {e}"));
                    }
                    _ => {}
                }
            }
            match ev {
                Event::BudgetExhausted => continue,
                Event::CallPal { func } => {
                    if let Some(s) = self.pal(func) {
                        break s;
                    }
                }
                Event::MemFault { fault } if fault.access != Access::Fetch => {
                    if let Err(s) = self.io_access() {
                        self.flush_held();
                        break s;
                    }
                }
                other => {
                    self.flush_held();
                    break Stop::MachineCheck(self.describe_stop(&other));
                }
            }
        };
        self.flush_held();
        Report {
            insns: self.machine.cpus[0].icount,
            jit_regions: self.machine.jit_stats().regions,
            decoded_pages: self.machine.icache.decoded_pages,
            stop,
            console: std::mem::take(&mut self.dev.console),
            findings: std::mem::take(&mut self.findings),
            io: std::mem::take(&mut self.io),
        }
    }

    fn describe_stop(&self, ev: &Event) -> String {
        let pc = self.machine.cpus[0].pc;
        match ev {
            Event::Opcdec { missing, .. } => {
                let word = self.word_at(pc).unwrap_or(0);
                let what = match missing {
                    Some(ext) => format!(
                        "needs {ext:?}, which {} lacks",
                        self.machine.cpus[0].model.name
                    ),
                    None => "reserved opcode".into(),
                };
                format!(
                    "machine stopped: pc=0x{pc:x} `{}`: OPCDEC ({what})",
                    insn_text(pc, word)
                )
            }
            Event::MemFault { fault } => format!(
                "machine check: pc=0x{pc:x} instruction fetch from 0x{:x}: no RAM there (wild jump)",
                fault.addr
            ),
            Event::Unaligned { addr, .. } => format!(
                "machine stopped: pc=0x{pc:x} `{}`: unaligned access at 0x{addr:x}",
                insn_text(pc, self.word_at(pc).unwrap_or(0))
            ),
            other => format!("machine stopped: pc=0x{pc:x}: {other:?}"),
        }
    }

    fn word_at(&self, va: u64) -> Option<u32> {
        let pa = self.translate(va)?;
        if pa + 4 > self.ram {
            return None;
        }
        let mut b = [0u8; 4];
        self.machine.mem.peek(pa, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }

    /// Kernel-mode address translation (no page tables).
    fn translate(&self, va: u64) -> Option<u64> {
        if va < (1 << 44) {
            return Some(va);
        }
        if va >= KSEG && va - KSEG < (1 << 42) {
            let off = va - KSEG;
            if is_21264_family(self.machine.cpus[0].model) {
                if off & (1 << 41) != 0 {
                    return None;
                }
                return Some((off & ((1 << 40) - 1)) | (((off >> 40) & 1) << 43));
            }
            return Some(off);
        }
        None
    }

    fn at_barrier(&self) -> bool {
        let pc = self.machine.cpus[0].pc;
        self.word_at(pc)
            .is_some_and(|w| matches!(decode(w).op, Op::Mb | Op::Wmb))
    }

    fn flush_held(&mut self) {
        if let Some(h) = self.held.take() {
            self.deliver(h.pc, &h.tx);
        }
    }

    fn deliver(&mut self, pc: u64, tx: &Tx) {
        self.dev.write(tx.dev, tx.bus, tx.size, tx.data);
        self.io.push(IoRecord {
            pc,
            window: tx.window,
            write: true,
            size: tx.size as u8,
            bus: tx.bus,
            lane: tx.lane,
            data: tx.data,
        });
    }

    fn pal(&mut self, func: u32) -> Option<Stop> {
        let cpu = &mut self.machine.cpus[0];
        match func {
            pal::HALT => {
                let s = (cpu.r[16] & 0xff) as u8;
                Some(Stop::Halt(s))
            }
            // OSF/1 PALcode: imb, draina, swpipl, rdps, rdunique, wrunique.
            pal::IMB => {
                self.machine.flush_icache();
                None
            }
            pal::DRAINA => {
                self.flush_held();
                None
            }
            pal::SWPIPL => {
                let old = self.ipl;
                self.ipl = cpu.r[16] & 7;
                cpu.r[0] = old;
                None
            }
            pal::RDPS => {
                cpu.r[0] = self.ipl;
                None
            }
            pal::RDUNIQ => {
                cpu.r[0] = cpu.uniq;
                None
            }
            pal::WRUNIQ => {
                cpu.uniq = cpu.r[16];
                None
            }
            f => Some(Stop::MachineCheck(format!(
                "machine stopped: pc=0x{:x}: unsupported CALL_PAL 0x{f:x}",
                cpu.pc.wrapping_sub(4)
            ))),
        }
    }

    /// Emulate the load or store at pc that faulted outside RAM.
    fn io_access(&mut self) -> Result<(), Stop> {
        let pc = self.machine.cpus[0].pc;
        let word = self.word_at(pc).ok_or_else(|| {
            Stop::MachineCheck(format!("machine check: pc=0x{pc:x}: no RAM there"))
        })?;
        let insn = decode(word);
        let text = insn_text(pc, word);
        let mc = |phys: u64, window: &str, why: String| {
            Stop::MachineCheck(format!(
                "machine check: pc=0x{pc:x} `{text}` phys=0x{phys:x} window={window}: {why}"
            ))
        };
        let Some((isize, is_store)) = crate::exec::mem::shape(insn.op) else {
            return Err(mc(
                0,
                "-",
                "this instruction cannot reach I/O space in the model".into(),
            ));
        };
        let cpu = &self.machine.cpus[0];
        let mut va = cpu.r[(insn.rb & 31) as usize].wrapping_add(insn.disp as i64 as u64);
        if matches!(insn.op, Op::LdqU | Op::StqU) {
            va &= !7;
        }
        let value = cpu.r[(insn.ra & 31) as usize];
        let Some(phys) = self.translate(va) else {
            return Err(mc(
                va,
                "-",
                format!("virtual address 0x{va:x} maps to no physical address in kernel mode"),
            ));
        };
        if matches!(insn.op, Op::LdlL | Op::LdqL | Op::StlC | Op::StqC) {
            return Err(mc(phys, "-", "LDx_L/STx_C to I/O space".into()));
        }
        let isize = isize as u64;
        // HAE registers.
        if let Some(i) = self.hae.iter().position(|(r, _)| *r == phys) {
            if isize < 4 {
                return Err(mc(
                    phys,
                    "csr",
                    "HAE registers take longword or quadword accesses".into(),
                ));
            }
            if is_store {
                self.flush_held();
                self.hae[i].1 = value & 0xffff_ffff;
            } else {
                let v = self.hae[i].1;
                self.finish_load(insn.op, insn.ra, v);
            }
            self.advance();
            return Ok(());
        }
        if phys < self.ram {
            return Err(mc(phys, "ram", "RAM access faulted".into()));
        }
        let cs = self.chipset;
        let hae_of = |reg: u64| self.hae_value(reg);
        let dec = match chipset::decode(cs, phys, &hae_of) {
            Ok(d) => d,
            Err(e) => return Err(mc(phys, "-", format!("no device claims it ({e})"))),
        };
        let enc = match dec {
            Decoded::Region(r) => {
                return Err(mc(
                    phys,
                    r.name.split(' ').next().unwrap_or("region"),
                    "no device claims it".into(),
                ))
            }
            Decoded::Window { enc } => enc,
        };
        let w: &Window = cs.window(enc.window).map_err(|e| mc(phys, "-", e.0))?;
        let wname = enc.window.name();
        let space = match enc.window {
            WindowKind::LocalIo => BusSpace::Local,
            k if k.is_io_space() => BusSpace::Io,
            _ => BusSpace::Mem,
        };
        let (bus, size, lane, data) = match w.encoding {
            Encoding::Sparse { .. } => {
                if isize < 4 {
                    return Err(mc(
                        phys,
                        wname,
                        format!(
                            "a {} access to a sparse window: sparse space takes longword (or quadword) accesses",
                            if isize == 1 { "byte" } else { "word" }
                        ),
                    ));
                }
                // The address names the size: a quadword has its own
                // encoding (chipset::Quad), which LDQ/STQ must use and
                // LDL/STL must not.
                let size = enc.size as u64;
                if (isize == 8) != (size == 8) {
                    let quad_rule = match w.encoding {
                        Encoding::Sparse { quad: Some(q), .. } => format!(
                            "; {}'s quadword encoding is length code {} in lane field {}",
                            cs.name, q.code, q.lane
                        ),
                        _ => format!("; {} {wname} has no quadword encoding", cs.name),
                    };
                    return Err(mc(
                        phys,
                        wname,
                        format!(
                            "a {} access to a {} encoding (length code {}){quad_rule}",
                            if isize == 8 { "quadword" } else { "longword" },
                            match size {
                                1 => "byte",
                                2 => "word",
                                3 => "tribyte",
                                4 => "longword",
                                _ => "quadword",
                            },
                            enc.length_code.unwrap_or(0)
                        ),
                    ));
                }
                let lane = enc.lane.unwrap_or(0);
                let mask = if size >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * size)) - 1
                };
                let data = (value >> (8 * lane as u64)) & mask;
                (enc.bus, size, lane, data)
            }
            Encoding::Linear { bytes_words } => {
                if isize < 4 && !bytes_words {
                    return Err(mc(
                        phys,
                        wname,
                        format!(
                            "a {} access to a dense window without byte/word support",
                            if isize == 1 { "byte" } else { "word" }
                        ),
                    ));
                }
                let mask = if isize >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * isize)) - 1
                };
                (enc.bus, isize, (enc.bus & 3) as u8, value & mask)
            }
            Encoding::Local { .. } => {
                if isize != 4 {
                    return Err(mc(
                        phys,
                        wname,
                        "the local I/O window takes longword accesses".into(),
                    ));
                }
                (enc.bus, 1, 0, value & 0xff)
            }
        };
        let Some(dev) = self.dev.claim(space, bus, size) else {
            // Would another HAE value have reached a device?
            if let (Some(h), Encoding::Sparse { .. }) = (w.hae, w.encoding) {
                let offset = bus & !h.mask();
                let needed = (0..(1u64 << (h.hi - h.lo + 1)))
                    .map(|v| (v << h.lo) | offset)
                    .find(|b| self.dev.claim(space, *b, size).is_some());
                if let Some(nb) = needed {
                    let have = enc.hae.unwrap_or(0);
                    let want = h.value_for(nb);
                    self.findings.push(Finding {
                        kind: FindingKind::HaeMismatch,
                        pc,
                        phys,
                        other_pc: None,
                        message: format!(
                            "{wname} {} at pc=0x{pc:x} went to bus 0x{bus:x} with {}=0x{have:x}; the device at bus 0x{nb:x} needs {}=0x{want:x}",
                            if is_store { "write" } else { "read" },
                            h.name,
                            h.name
                        ),
                    });
                    // Nothing answers: a write is lost, a read returns ones.
                    self.flush_held();
                    if !is_store {
                        self.finish_load(insn.op, insn.ra, u64::MAX);
                    }
                    self.advance();
                    return Ok(());
                }
            }
            return Err(mc(
                phys,
                wname,
                format!("no device claims bus address 0x{bus:x}"),
            ));
        };
        if is_store {
            if let Encoding::Sparse { .. } = w.encoding {
                if size < 4 {
                    let lanes = ((1u64 << (8 * size)) - 1) << (8 * lane as u64);
                    let lw = value & 0xffff_ffff;
                    if lw & lanes == 0 && lw != 0 {
                        self.findings.push(Finding {
                            kind: FindingKind::LaneMismatch,
                            pc,
                            phys,
                            other_pc: None,
                            message: format!(
                                "{wname} write of {size} byte(s) at pc=0x{pc:x} names lane {lane} (bus 0x{bus:x}) but its data 0x{lw:x} has nothing there: the device got 0x{data:x} (missing INSBL?)"
                            ),
                        });
                    }
                }
            }
            let tx = Tx {
                window: enc.window,
                dev,
                bus,
                size,
                lane,
                data,
            };
            let sparse = matches!(w.encoding, Encoding::Sparse { .. });
            if sparse && self.write_buffer {
                if let Some(h) = self.held.take() {
                    let merge = h.phys & !31 == phys & !31;
                    self.findings.push(Finding {
                        kind: FindingKind::MbMissing,
                        pc,
                        phys,
                        other_pc: Some(h.pc),
                        message: format!(
                            "sparse writes at pc=0x{:x} and pc=0x{pc:x} with no MB between them on a {}: {}",
                            h.pc,
                            self.machine.cpus[0].model.name,
                            if merge {
                                format!("the write buffer merged them; the device saw only the second (0x{data:x}), the first (0x{:x}) was lost", h.tx.data)
                            } else {
                                "the write buffer may collapse or reorder them".to_string()
                            }
                        ),
                    });
                    if !merge {
                        self.deliver(h.pc, &h.tx);
                    }
                }
                self.held = Some(Held {
                    pc,
                    phys,
                    tx,
                    age: 0,
                });
            } else {
                self.flush_held();
                self.deliver(pc, &tx);
            }
        } else {
            self.flush_held();
            let got = self.dev.read(dev, bus, size);
            self.io.push(IoRecord {
                pc,
                window: enc.window,
                write: false,
                size: size as u8,
                bus,
                lane,
                data: got,
            });
            let v = match w.encoding {
                Encoding::Sparse { .. } => got << (8 * lane as u64),
                _ => got,
            };
            self.finish_load(insn.op, insn.ra, v);
        }
        self.advance();
        Ok(())
    }

    fn finish_load(&mut self, op: Op, ra: u8, v: u64) {
        let v = match op {
            Op::Ldl => v as u32 as i32 as i64 as u64,
            Op::Ldbu => v & 0xff,
            Op::Ldwu => v & 0xffff,
            _ => v,
        };
        if ra != 31 {
            self.machine.cpus[0].r[ra as usize] = v;
        }
    }

    fn advance(&mut self) {
        let cpu = &mut self.machine.cpus[0];
        cpu.pc = cpu.pc.wrapping_add(4);
        cpu.icount += 1;
    }
}

fn insn_text(pc: u64, word: u32) -> String {
    disasm(pc, word).replace('\t', " ")
}

/// Load an ELF by its program headers' physical addresses, or a flat image
/// at `load`. Returns the entry point.
fn load_image(m: &mut Machine, r: &mut Ram, load: u64, image: &[u8]) -> Result<u64, BadImage> {
    let ram = r.size;
    if image.starts_with(b"\x7fELF") {
        return load_elf(m, r, image);
    }
    let end = load.checked_add(image.len() as u64);
    if end.is_none_or(|e| e > ram) {
        return Err(BadImage(format!(
            "flat image of {} bytes at 0x{load:x} does not fit in {ram} bytes of RAM",
            image.len()
        )));
    }
    if image.is_empty() {
        return Err(BadImage("flat image is empty".into()));
    }
    r.touch_range(m, load, image.len() as u64)
        .map_err(BadImage)?;
    m.mem
        .poke(load, image)
        .map_err(|e| BadImage(e.to_string()))?;
    Ok(load)
}

fn load_elf(m: &mut Machine, r: &mut Ram, data: &[u8]) -> Result<u64, BadImage> {
    let ram = r.size;
    use object::read::elf::{FileHeader, ProgramHeader};
    let hdr = crate::loader::check_header(data).map_err(|e| BadImage(e.to_string()))?;
    let e = object::LittleEndian;
    let phdrs = hdr
        .program_headers(e, data)
        .map_err(|_| BadImage("truncated or malformed ELF program headers".into()))?;
    let phys = |a: u64| if a >= KSEG { a - KSEG } else { a };
    let mut loaded = 0;
    for ph in phdrs {
        if ph.p_type(e) != object::elf::PT_LOAD || ph.p_memsz(e) == 0 {
            continue;
        }
        let pa = phys(ph.p_paddr(e));
        let memsz = ph.p_memsz(e);
        let fsz = ph.p_filesz(e);
        if fsz > memsz || pa.checked_add(memsz).is_none_or(|end| end > ram) {
            return Err(BadImage(format!(
                "ELF segment at physical 0x{pa:x} (0x{memsz:x} bytes) does not fit in {ram} bytes of RAM"
            )));
        }
        let bytes = ph
            .data(e, data)
            .map_err(|_| BadImage("ELF segment data lies outside the file".into()))?;
        r.touch_range(m, pa, memsz).map_err(BadImage)?;
        m.mem.poke(pa, bytes).map_err(|e| BadImage(e.to_string()))?;
        loaded += 1;
    }
    if loaded == 0 {
        return Err(BadImage("ELF file has no loadable segment".into()));
    }
    // Entered at e_entry as given: an image linked in KSEG (as a Linux
    // kernel is, at 0xfffffc0000310000) runs at its KSEG addresses, so its
    // pc-relative addresses are the ones it was linked for.
    let entry = hdr.e_entry(e);
    let at = if entry >= KSEG { entry - KSEG } else { entry };
    if at >= ram || (1 << 44..KSEG).contains(&entry) {
        return Err(BadImage(format!(
            "ELF entry 0x{entry:x} is not in RAM (identity below 0x{ram:x} or KSEG 0x{KSEG:x} + PA)"
        )));
    }
    Ok(entry)
}
