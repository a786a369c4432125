//! Guest program counters as places a user can read: the loaded object a pc
//! lies in, `symbol+0xoff` in it, and `file:line` from its DWARF line
//! tables.
//!
//! A process's code comes from several ELF files: the program, the dynamic
//! loader, and every library the loader maps. The Linux personality records
//! each as a [`LoadedObject`] (host path, the address range of an
//! executable mapping, and the file offset it maps, or the load bias when it
//! is known, as for the program and the loader); a [`Symbolizer`] answers
//! for all of them. It is lazy: an object's file is read, and its symbol
//! table and line tables parsed, only when a pc inside it is first asked
//! about (DWARF is costly and most diagnostics never need a library).
//!
//! Symbols come from `.symtab` when the file has one, else from the dynamic
//! symbol table (`.dynsym`, which stripped libraries keep), restricted to
//! code (functions and symbols in executable sections), chosen among equals
//! as objdump does ([`alpha_isa::symbols::Symbols`]). Line tables are read
//! with the `addr2line` crate (on gimli); a file without `.debug_line`
//! simply has no `file:line`. A mapping's load bias is worked out the way
//! `ld.so` maps segments: the mapping starts at the page holding its
//! `PT_LOAD` segment's first byte, so bias = start − page_down(p_vaddr) for
//! the segment whose page-rounded file offset is the mapping's offset.
//! An object is read only when it is a regular file of at most
//! [`crate::hostfile::MAX_ELF`] bytes (a FIFO or device put where a
//! library was has no symbols, rather than a read that never ends).

use object::read::elf::{FileHeader, ProgramHeader};
use object::{Object, ObjectSection};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// One executable mapping of an ELF file in a guest process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedObject {
    /// Host path of the file.
    pub path: PathBuf,
    /// Guest address range `[start, end)` of the mapping.
    pub start: u64,
    pub end: u64,
    /// File offset the mapping starts at.
    pub file_offset: u64,
    /// Address added to the file's link-time addresses, when the loader
    /// knows it; otherwise worked out from the program headers.
    pub bias: Option<u64>,
}

/// Where a pc is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Host path of the object holding the pc.
    pub object: PathBuf,
    /// The function (or nearest code symbol at or below the pc).
    pub symbol: Option<String>,
    /// Offset of the pc from `symbol`, or from the object's link address 0
    /// when there is no symbol.
    pub offset: u64,
    /// Source file and line from the object's line tables.
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl Location {
    /// `memcpy+0x40` (`memcpy` at offset 0); without a symbol (or past the
    /// end of the one below), the object's file name and link-time address:
    /// `libc.so.6.1+0xc579c`.
    pub fn symbol_text(&self) -> String {
        match &self.symbol {
            Some(s) if self.offset == 0 => s.clone(),
            Some(s) => format!("{s}+{:#x}", self.offset),
            None => format!("{}+{:#x}", self.object_name(), self.offset),
        }
    }

    /// The object's file name (`libc.so.6.1`).
    pub fn object_name(&self) -> String {
        self.object
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.object.display().to_string())
    }

    /// `file.c:12` when the line tables know the pc.
    pub fn file_line(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
            (Some(f), None) => Some(f.clone()),
            _ => None,
        }
    }
}

type Reader = gimli::EndianArcSlice<gimli::RunTimeEndian>;

/// An object's parsed tables.
struct Parsed {
    bias: u64,
    symbols: alpha_isa::symbols::Symbols,
    /// The file's executable sections, at link-time addresses.
    code: Vec<alpha_isa::elf::CodeSection>,
    lines: Option<Mutex<addr2line::Context<Reader>>>,
}

struct Entry {
    object: LoadedObject,
    parsed: OnceLock<Option<Parsed>>,
}

/// Answers pc lookups for a set of loaded objects (see the module docs).
pub struct Symbolizer {
    entries: Vec<Entry>,
}

impl Symbolizer {
    /// A symbolizer for `objects`; later entries win where ranges overlap
    /// (a newer mapping replaces an older one).
    pub fn new(objects: Vec<LoadedObject>) -> Symbolizer {
        Symbolizer {
            entries: objects
                .into_iter()
                .map(|object| Entry {
                    object,
                    parsed: OnceLock::new(),
                })
                .collect(),
        }
    }

    /// A symbolizer for the ELF file at `path` as it is linked (its own
    /// addresses, bias 0), as static tools see it.
    pub fn for_file(path: &std::path::Path) -> Symbolizer {
        Symbolizer::new(vec![LoadedObject {
            path: path.to_path_buf(),
            start: 0,
            end: u64::MAX,
            file_offset: 0,
            bias: Some(0),
        }])
    }

    /// A symbolizer for every object loaded in `p` so far.
    pub fn for_process(p: &crate::linux::Process) -> Symbolizer {
        Symbolizer::new(p.objects.clone())
    }

    /// The objects it knows.
    pub fn objects(&self) -> impl Iterator<Item = &LoadedObject> {
        self.entries.iter().map(|e| &e.object)
    }

    /// The entry holding `pc` and its parsed tables.
    fn holding(&self, pc: u64) -> Option<(&Entry, &Parsed)> {
        let e = self
            .entries
            .iter()
            .rev()
            .find(|e| e.object.start <= pc && pc < e.object.end)?;
        let p = e.parsed.get_or_init(|| parse(&e.object)).as_ref()?;
        Some((e, p))
    }

    /// The object holding `pc` and the pc's link-time address in that
    /// file (the pc minus the object's load bias).
    pub fn link_address(&self, pc: u64) -> Option<(&LoadedObject, u64)> {
        let (e, p) = self.holding(pc)?;
        Some((&e.object, pc.wrapping_sub(p.bias)))
    }

    /// The instruction word at `pc`, read from the file of the object
    /// holding it (what the guest ran, unless it wrote to its own code).
    pub fn word(&self, pc: u64) -> Option<u32> {
        let (_, p) = self.holding(pc)?;
        let vma = pc.wrapping_sub(p.bias);
        p.code.iter().find_map(|s| {
            let off = usize::try_from(vma.checked_sub(s.addr)?).ok()?;
            let b = s.bytes.get(off..off.checked_add(4)?)?;
            Some(u32::from_le_bytes(b.try_into().ok()?))
        })
    }

    /// Where `pc` is, or `None` when no loaded object holds it (or its file
    /// cannot be read as an Alpha ELF file).
    pub fn lookup(&self, pc: u64) -> Option<Location> {
        let (e, p) = self.holding(pc)?;
        let vma = pc.wrapping_sub(p.bias);
        // A pc past the end of the symbol below it (an unexported function
        // of a stripped library) is named by object and offset instead.
        let (symbol, offset) = match p.symbols.lookup(vma) {
            Some(s) if s.value <= vma && (s.size == 0 || vma - s.value < s.size) => {
                (Some(s.name.clone()), vma - s.value)
            }
            _ => (None, vma),
        };
        let (file, line) = p
            .lines
            .as_ref()
            .and_then(|ctx| {
                let ctx = ctx.lock().ok()?;
                let l = ctx.find_location(vma).ok()??;
                Some((l.file.map(str::to_string), l.line))
            })
            .unwrap_or((None, None));
        Some(Location {
            object: e.object.path.clone(),
            symbol,
            offset,
            file,
            line,
        })
    }
}

/// The bytes of object file `path`, read through [`crate::hostfile`].
fn read_object(path: &std::path::Path) -> Option<Vec<u8>> {
    crate::hostfile::read_file(path, crate::hostfile::MAX_ELF).ok()
}

fn parse(o: &LoadedObject) -> Option<Parsed> {
    let data: Arc<[u8]> = read_object(&o.path)?.into();
    let bias = match o.bias {
        Some(b) => b,
        None => bias_of(&data, o.start, o.file_offset)?,
    };
    let code: Vec<_> = alpha_isa::elf::read_symbols(&data)
        .ok()?
        .into_iter()
        .filter(|s| {
            s.func
                || s.section.starts_with(".text")
                || matches!(s.section.as_str(), ".init" | ".fini" | ".plt")
        })
        .collect();
    let symbols = alpha_isa::symbols::Symbols::for_section(&code, ".text");
    Some(Parsed {
        bias,
        symbols,
        code: alpha_isa::elf::read_code(&data).unwrap_or_default(),
        lines: line_tables(&data).map(Mutex::new),
    })
}

/// The load bias of `o` (given, or worked out from its file's program
/// headers); `None` when the file cannot be read as ELF.
pub fn mapping_bias(o: &LoadedObject) -> Option<u64> {
    match o.bias {
        Some(b) => Some(b),
        None => bias_of(&read_object(&o.path)?, o.start, o.file_offset),
    }
}

/// The load bias of a mapping of `data` at `start` from file offset `off`.
fn bias_of(data: &[u8], start: u64, off: u64) -> Option<u64> {
    use object::LittleEndian as LE;
    const PAGE: u64 = crate::memory::PAGE_SIZE;
    let hdr = object::elf::FileHeader64::<LE>::parse(data).ok()?;
    let e = hdr.endian().ok()?;
    let seg = hdr
        .program_headers(e, data)
        .ok()?
        .iter()
        .filter(|ph| ph.p_type(e) == object::elf::PT_LOAD)
        .find(|ph| ph.p_offset(e) & !(PAGE - 1) == off)?;
    Some(start.wrapping_sub(seg.p_vaddr(e) & !(PAGE - 1)))
}

/// The file's DWARF line tables, if it has any.
fn line_tables(data: &Arc<[u8]>) -> Option<addr2line::Context<Reader>> {
    let file = object::File::parse(&**data).ok()?;
    file.section_by_name(".debug_line")?;
    let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
        let bytes: Arc<[u8]> = match file.section_by_name(id.name()) {
            Some(s) => s
                .uncompressed_data()
                .map(|d| d.into_owned().into())
                .unwrap_or_default(),
            None => Arc::from(&[][..]),
        };
        Ok(gimli::EndianArcSlice::new(
            bytes,
            gimli::RunTimeEndian::Little,
        ))
    };
    let dwarf = gimli::Dwarf::load(load).ok()?;
    addr2line::Context::from_dwarf(dwarf).ok()
}

/// One non-atomic sub-quadword store sequence found by
/// [`alpha_isa::scan`]: a site a lost-store finding can come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreSite {
    /// The write-back (`STQ_U`/`STQ`), at its link-time address.
    pub pc: u64,
    /// The load of the quadword it writes back.
    pub load_pc: u64,
    /// `func+0xNN` of the write-back.
    pub symbol: Option<String>,
    /// `file.c:12` of the write-back, from the line tables.
    pub line: Option<String>,
    /// `unaligned-quadword` (LDQ_U…STQ_U) or `aligned-quadword` (LDQ…STQ).
    pub shape: &'static str,
    /// What the mask clears: `byte`, `word`, `longword` or `quadword`.
    pub width: &'static str,
    /// The instructions of the window, from the load to the write-back
    /// (`(pc, "ldq_u t2,0(a0)")` each): where another CPU's store to the
    /// quadword is lost.
    pub insns: Vec<(u64, String)>,
}

/// The shape name of a scanned store sequence.
pub fn store_shape(s: &alpha_isa::scan::RmwStore) -> &'static str {
    if s.unaligned {
        "unaligned-quadword"
    } else {
        "aligned-quadword"
    }
}

/// The non-atomic sub-quadword store sites in the code of the Alpha ELF
/// file `data` read from `path`, in scan order, each named by symbol and
/// line.
pub fn store_sites(path: &std::path::Path, data: &[u8]) -> Result<Vec<StoreSite>, String> {
    let name = path.display();
    let code = alpha_isa::elf::read_code(data).map_err(|e| format!("{name}: {e}"))?;
    let secs: Vec<alpha_isa::scan::Code> = code
        .iter()
        .map(|s| alpha_isa::scan::Code {
            addr: s.addr,
            bytes: &s.bytes,
        })
        .collect();
    let rep = alpha_isa::scan::scan(&secs);
    let names = Symbolizer::for_file(path);
    let word = |pc: u64| {
        code.iter().find_map(|s| {
            let off = usize::try_from(pc.checked_sub(s.addr)?).ok()?;
            let b = s.bytes.get(off..off.checked_add(4)?)?;
            Some(u32::from_le_bytes(b.try_into().ok()?))
        })
    };
    // A window is a handful of instructions; a longer span (the scanner
    // followed a long basic block) is cut to its ends.
    const MOST: u64 = 64;
    let window = |load: u64, store: u64| -> Vec<(u64, String)> {
        let n = store.saturating_sub(load) / 4 + 1;
        let pcs: Vec<u64> = if n <= MOST {
            (0..n).map(|i| load + 4 * i).collect()
        } else {
            (0..MOST / 2)
                .map(|i| load + 4 * i)
                .chain((0..MOST / 2).rev().map(|i| store - 4 * i))
                .collect()
        };
        pcs.into_iter()
            .filter_map(|pc| Some((pc, alpha_isa::disasm(pc, word(pc)?).replace('\t', " "))))
            .collect()
    };
    Ok(rep
        .stores
        .iter()
        .map(|s| {
            let l = names.lookup(s.store);
            StoreSite {
                pc: s.store,
                load_pc: s.load,
                symbol: l
                    .as_ref()
                    .and_then(|l| l.symbol.is_some().then(|| l.symbol_text())),
                line: l.as_ref().and_then(Location::file_line),
                shape: store_shape(s),
                width: s.width.name(),
                insns: if s.load <= s.store {
                    window(s.load, s.store)
                } else {
                    Vec::new()
                },
            }
        })
        .collect())
}
