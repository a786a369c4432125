//! File arguments: `-` names standard input where a file is read and
//! standard output where one is written, as in the usual Unix tools.

use std::io::{Read, Write};
use std::path::Path;

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

/// Read a file argument whole (`-`: all of stdin).
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    if is_std(path) {
        let mut v = Vec::new();
        std::io::stdin().lock().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}

/// Write a file argument whole (`-`: to stdout).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if is_std(path) {
        let mut o = std::io::stdout().lock();
        o.write_all(bytes)?;
        o.flush()
    } else {
        std::fs::write(path, bytes)
    }
}
