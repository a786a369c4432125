//! File arguments: every file a command reads goes through [`read`] or
//! [`read_file`], which (through [`alpha_emu::hostfile`]) refuse what is
//! not a regular file (a FIFO, a device, a directory: reading one would
//! block or never end) and a file larger than its kind's limit
//! ([`Input::limit`], listed in docs/limits.md), so no input makes the host
//! allocate without bound.
//! `-` names standard input where a file is read (read up to the same
//! limit, whatever it is connected to) and standard output where one is
//! written, as in the usual Unix tools.
//!
//! [`escape`] makes text from an input safe to quote in a one-line
//! message: control characters are written as escapes, never raw.

use alpha_emu::hostfile::{self, ReadError};
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// What a file argument holds; each kind has its own size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// An Alpha ELF program or object (`alpha run`, `explore`, `scan`,
    /// `disasm`).
    Elf,
    /// A bare-metal image, raw or ELF (`alpha machine`).
    Image,
    /// Little-endian 32-bit words (`alpha disasm --raw`, `pto disasm --raw`).
    Words,
    /// Assembly source (`alpha asm`, `pto asm`) or a text file of hex words
    /// (`pto disasm`).
    Source,
    /// A PTO scenario (`pto run`, `pto footprint`).
    Scenario,
    /// One `alpha explore --json` output (`alpha explore-merge`).
    Shard,
}

const MIB: u64 = 1 << 20;

impl Input {
    /// The largest file of this kind a command reads, in bytes.
    pub const fn limit(self) -> u64 {
        match self {
            Input::Elf => hostfile::MAX_ELF,
            Input::Words => 256 * MIB,
            Input::Image => 256 * MIB,
            Input::Source => 64 * MIB,
            Input::Scenario => 16 * MIB,
            Input::Shard => 64 * MIB,
        }
    }

    /// How a file of this kind is called in messages.
    pub const fn what(self) -> &'static str {
        match self {
            Input::Elf => "an Alpha ELF file",
            Input::Image => "a machine image",
            Input::Words => "a file of raw words",
            Input::Source => "a source file",
            Input::Scenario => "a scenario file",
            Input::Shard => "an explore --json file",
        }
    }
}

/// Whether `path` is the `-` that stands for a standard stream.
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a file argument is named in messages (`-` as `<stdin>`/`<stdout>`).
pub fn display(path: &Path, write: bool) -> String {
    match (is_std(path), write) {
        (true, false) => "<stdin>".into(),
        (true, true) => "<stdout>".into(),
        _ => path.display().to_string(),
    }
}

/// The one-line message for `e` reading a `kind` file named `name`.
fn message(name: &str, kind: Input, e: ReadError) -> String {
    match e {
        ReadError::TooBig { .. } => format!("{name}: {e} for {}", kind.what()),
        e => format!("{name}: {e}"),
    }
}

/// Reads the regular file at `path` whole, at most `kind.limit()` bytes
/// (through [`alpha_emu::hostfile`]); `-` is a file name here like any
/// other. The error names the file.
pub fn read_file(path: &Path, kind: Input) -> Result<Vec<u8>, String> {
    hostfile::read_file(path, kind.limit())
        .map_err(|e| message(&path.display().to_string(), kind, e))
}

/// Reads a file argument whole (`-`: standard input, whatever it is
/// connected to, up to the same limit), at most `kind.limit()` bytes. The
/// error names the file.
pub fn read(path: &Path, kind: Input) -> Result<Vec<u8>, String> {
    if is_std(path) {
        hostfile::read_bounded(std::io::stdin().lock(), kind.limit(), 0)
            .map_err(|e| message("<stdin>", kind, e))
    } else {
        read_file(path, kind)
    }
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, kind: Input) -> Result<String, String> {
    let bytes = read(path, kind)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not UTF-8 text (at byte {})",
            display(path, false),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Writes a file argument whole (`-`: to stdout).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if is_std(path) {
        let mut o = std::io::stdout().lock();
        o.write_all(bytes)?;
        o.flush()
    } else {
        std::fs::write(path, bytes)
    }
}

/// Whether `c` must not appear raw in a message line: a control character
/// (C0, DEL, C1) or a Unicode bidirectional override or isolate, which
/// reorders what a terminal shows.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character written as an escape (`\n`, `\t`,
/// `\r`, `\u{1b}`, …), so text quoted from an input cannot break a message
/// into lines or drive the terminal. Everything else is kept as it is.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::{escape, read_file, Input};
    use std::path::Path;

    #[test]
    fn escape_writes_control_characters_as_escapes_and_keeps_the_rest() {
        assert_eq!(escape("plain `x`: é"), "plain `x`: é");
        assert_eq!(escape("a\nb\tc\rd"), "a\\nb\\tc\\rd");
        assert_eq!(escape("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(escape("\u{7f}\u{85}\u{202e}"), "\\u{7f}\\u{85}\\u{202e}");
        assert!(!escape("x\0y").contains('\0'));
    }

    #[test]
    fn devices_and_directories_are_not_regular_files() {
        let e = read_file(Path::new("/dev/zero"), Input::Elf).unwrap_err();
        assert_eq!(e, "/dev/zero: not a regular file (a character device)");
        let e = read_file(Path::new("/"), Input::Scenario).unwrap_err();
        assert_eq!(e, "/: not a regular file (a directory)");
    }
}
