//! Memory: mmap of anonymous memory and of files (the address space
//! itself is [`crate::linux::mm`]).

use crate::linux::errno::*;
use crate::linux::fs::{self, Object};
use crate::linux::Process;
use crate::memory::PAGE_SIZE;

pub(crate) fn mmap(p: &mut Process, a: [u64; 6]) -> Result<u64, u64> {
    let (addr, len, prot, flags, fd, off) = (a[0], a[1], a[2], a[3], a[4], a[5]);
    let mut backing = None;
    let contents = if flags & crate::linux::mm::MAP_ANONYMOUS == 0 {
        if off & (PAGE_SIZE - 1) != 0 {
            return Err(EINVAL);
        }
        if len > 1 << 32 {
            return Err(ENOMEM);
        }
        let obj = p.fds.get(fd)?.obj.clone();
        let o = obj.borrow();
        let Object::File { file, path } = &*o else {
            return Err(if matches!(&*o, Object::Dir { .. }) {
                ENODEV_
            } else {
                EACCES
            });
        };
        use std::os::unix::fs::FileExt;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let want = len.min(size.saturating_sub(off)) as usize;
        let mut b = vec![0u8; want];
        let mut got = 0;
        while got < want {
            match file.read_at(&mut b[got..], off + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => return Err(fs::host_errno(&e)),
            }
        }
        b.truncate(got);
        backing = Some((path.clone(), file.metadata().ok()));
        Some(b)
    } else {
        None
    };
    let at = p.aspace.mmap(
        &mut p.machine.mem,
        addr,
        len,
        prot,
        flags,
        contents.as_deref(),
    )?;
    let Some((path, meta)) = backing else {
        return Ok(at);
    };
    let end = at.saturating_add(crate::linux::mm::page_up(len).unwrap_or(len));
    // The kernel names the file it maps, symbolic links resolved.
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let name = real.to_string_lossy();
    p.aspace.note_file(
        at,
        crate::linux::mm::FileMap::of(meta.as_ref(), &name, end, off),
    );
    // A file mapped executable is code a diagnostic may need to name
    // (the libraries ld.so maps).
    if prot & crate::linux::mm::PROT_EXEC != 0 {
        p.note_mapping(crate::symbols::LoadedObject {
            path,
            start: at,
            end: at.saturating_add(len),
            file_offset: off,
            bias: None,
        });
    }
    Ok(at)
}

pub(crate) const ENODEV_: u64 = 19;

/// `munmap(addr, len)`: the range is gone, and so are the names of what
/// was mapped there.
pub(crate) fn munmap(p: &mut Process, addr: u64, len: u64) -> Result<u64, u64> {
    let r = p.aspace.munmap(&mut p.machine.mem, addr, len);
    if r.is_ok() {
        p.note_unmap(addr, len);
    }
    r
}
