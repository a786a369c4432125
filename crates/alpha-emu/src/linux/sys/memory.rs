//! Memory: mmap of anonymous memory and of files (the address space
//! itself is [`crate::linux::mm`]).

use crate::linux::errno::*;
use crate::linux::fs::{self, Object};
use crate::linux::uaccess::put;
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
                ENODEV
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

/// `munmap(addr, len)`: the range is gone, and so are the names of what
/// was mapped there.
pub(crate) fn munmap(p: &mut Process, addr: u64, len: u64) -> Result<u64, u64> {
    let r = p.aspace.munmap(&mut p.machine.mem, addr, len);
    if r.is_ok() {
        p.note_unmap(addr, len);
    }
    r
}

/// ENOMEM unless every page of `[addr, addr+len)` is mapped; EINVAL for
/// an address not on a page boundary (the checks mlock, msync and mincore
/// share).
fn mapped(p: &Process, addr: u64, len: u64, aligned: bool) -> Result<(), u64> {
    if aligned && addr & (PAGE_SIZE - 1) != 0 {
        return Err(EINVAL);
    }
    let start = addr & !(PAGE_SIZE - 1);
    let len = len + (addr - start);
    if len == 0 {
        return Ok(());
    }
    if !p
        .machine
        .mem
        .range_ok(start, len, crate::memory::Perm::NONE)
    {
        return Err(ENOMEM);
    }
    Ok(())
}

/// `mlock`/`munlock`/`mlock2(addr, len[, flags])`: guest memory is
/// always resident, so locking only checks the range.
pub(crate) fn mlock(p: &mut Process, addr: u64, len: u64, flags: u64) -> Result<u64, u64> {
    if flags & !1 != 0 {
        return Err(EINVAL);
    }
    mapped(p, addr, len, false).map(|_| 0)
}

/// `mlockall(flags)`: MCL_CURRENT, MCL_FUTURE, MCL_ONFAULT (Alpha's 8192,
/// 16384, 32768).
pub(crate) fn mlockall(flags: u64) -> Result<u64, u64> {
    if flags == 0 || flags & !(8192 | 16384 | 32768) != 0 || flags == 32768 {
        return Err(EINVAL);
    }
    Ok(0)
}

/// `msync(addr, len, flags)`: MS_ASYNC 1, MS_SYNC 2, MS_INVALIDATE 4
/// (not ASYNC with SYNC); the range must be mapped.
pub(crate) fn msync(p: &mut Process, addr: u64, len: u64, flags: u64) -> Result<u64, u64> {
    if flags & !7 != 0 || flags & 3 == 3 {
        return Err(EINVAL);
    }
    mapped(p, addr, len, true).map(|_| 0)
}

/// `mincore(addr, len, vec)`: one byte per page, 1 (resident) for every
/// mapped page.
pub(crate) fn mincore(p: &mut Process, addr: u64, len: u64, vec: u64) -> Result<u64, u64> {
    mapped(p, addr, len, true)?;
    let pages = len.div_ceil(PAGE_SIZE) as usize;
    if pages > 1 << 24 {
        return Err(ENOMEM);
    }
    put(p, vec, &vec![1u8; pages]).map(|_| 0)
}
