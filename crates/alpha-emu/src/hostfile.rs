//! Reading a host file whole, bounded: the one reader for every file the
//! tools and the emulator read in one piece (a program, a machine image, a
//! program interpreter, a library read for its symbols, and the `subword`
//! command inputs, which wrap it with their own limits).
//!
//! Only a regular file is read: a FIFO would block the open or never end,
//! a device such as `/dev/zero` never ends, a directory has no bytes. The
//! file's type is checked before it is opened (opening a FIFO for reading
//! waits for a writer) and again on the opened file (opened non-blocking,
//! so a FIFO swapped in between cannot block). A file larger than the
//! caller's limit is refused before a byte is read; a stream is read up to
//! the limit, the buffer never growing past it.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The largest ELF file (program, interpreter, library) the emulator reads.
pub const MAX_ELF: u64 = 256 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The host refused (no such file, no permission, an I/O error).
    Io(std::io::Error),
    /// Not a regular file: what it is (`a FIFO`, `a directory`, …).
    NotRegular(&'static str),
    /// Larger than `limit` bytes; `size` when the file said how large.
    TooBig { size: Option<u64>, limit: u64 },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegular(what) => write!(f, "not a regular file ({what})"),
            ReadError::TooBig {
                size: Some(n),
                limit,
            } => write!(f, "{n} bytes, larger than the {} allowed", bytes(*limit)),
            ReadError::TooBig { size: None, limit } => {
                write!(f, "more than the {} allowed", bytes(*limit))
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// `n` bytes as a message says it (`16 MiB` when whole mebibytes).
pub fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

fn type_name(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

/// Reads the regular file at `path` whole: at most `limit` bytes.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(type_name(meta.file_type())));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(ReadError::Io)?;
    let meta = f.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(type_name(meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooBig {
            size: Some(meta.len()),
            limit,
        });
    }
    read_bounded(f, limit, meta.len())
}

/// Reads `r` to its end: at most `limit` bytes, `hint` the expected size.
/// The buffer never grows past `limit`, so the most held at once is the
/// limit and half of it (while the buffer grows).
pub fn read_bounded(mut r: impl Read, limit: u64, hint: u64) -> Result<Vec<u8>, ReadError> {
    let cap = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut v: Vec<u8> = Vec::with_capacity(usize::try_from(hint).unwrap_or(0).min(cap));
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(v),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        if n > cap - v.len() {
            return Err(ReadError::TooBig { size: None, limit });
        }
        if v.capacity() - v.len() < n {
            let want = v.capacity().saturating_mul(2).max(v.len() + n).min(cap);
            v.reserve_exact(want - v.len());
        }
        v.extend_from_slice(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::{read_bounded, read_file, ReadError};
    use std::path::Path;

    #[test]
    fn devices_and_directories_are_refused_before_a_read() {
        let e = read_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a character device)");
        let e = read_file(Path::new("/"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a directory)");
    }

    #[test]
    fn a_stream_is_read_up_to_the_limit_and_no_further() {
        let ok = read_bounded(&[7u8; 100][..], 100, 0).unwrap();
        assert_eq!(ok, [7u8; 100]);
        let zero = std::fs::File::open("/dev/zero").unwrap();
        match read_bounded(zero, 3 << 20, 0) {
            Err(ReadError::TooBig { size: None, limit }) => assert_eq!(limit, 3 << 20),
            other => panic!("{other:?}"),
        }
    }
}
