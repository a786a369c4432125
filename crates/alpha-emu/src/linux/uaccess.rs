//! Guest memory as the system calls see it (Linux's `copy_from_user` /
//! `copy_to_user`): every read and write checks the guest's page
//! permissions, and a bad pointer is EFAULT, never a crash. Strings are
//! bytes (a file name is whatever bytes the guest wrote, never text);
//! integers are little-endian, as Alpha stores them.

use super::errno::{EFAULT, ENAMETOOLONG};
use super::Process;

/// The longest NUL-terminated path the guest may pass, terminator
/// included (Linux's `PATH_MAX`).
pub const PATH_MAX: usize = 4096;

/// `len` guest bytes at `addr`.
pub fn read_bytes(p: &Process, addr: u64, len: usize) -> Result<Vec<u8>, u64> {
    let mut b = vec![0u8; len];
    if len > 0 {
        p.machine.mem.read_user(addr, &mut b).map_err(|_| EFAULT)?;
    }
    Ok(b)
}

/// The guest's 32-bit word at `addr`.
pub fn read_u32(p: &Process, addr: u64) -> Result<u32, u64> {
    let mut b = [0u8; 4];
    p.machine.mem.read_user(addr, &mut b).map_err(|_| EFAULT)?;
    Ok(u32::from_le_bytes(b))
}

/// The guest's 64-bit word at `addr`.
pub fn read_u64(p: &Process, addr: u64) -> Result<u64, u64> {
    let mut b = [0u8; 8];
    p.machine.mem.read_user(addr, &mut b).map_err(|_| EFAULT)?;
    Ok(u64::from_le_bytes(b))
}

/// A NUL-terminated guest string (the bytes before the NUL), at most
/// [`PATH_MAX`] bytes with its terminator (ENAMETOOLONG beyond).
pub fn read_cstr(p: &Process, addr: u64) -> Result<Vec<u8>, u64> {
    read_cstr_max(p, addr, PATH_MAX).map_err(|e| if e == 0 { ENAMETOOLONG } else { e })
}

/// A NUL-terminated guest string of at most `max` bytes with its
/// terminator; a longer one is `Err(0)` (each caller names its errno).
pub fn read_cstr_max(p: &Process, addr: u64, max: usize) -> Result<Vec<u8>, u64> {
    let mut out = Vec::new();
    let mut a = addr;
    loop {
        // Whole chunks up to the next page boundary, then the NUL search.
        let room = (4096 - (a & 4095)) as usize;
        let mut chunk = [0u8; 4096];
        let chunk = &mut chunk[..room];
        p.machine.mem.read_user(a, chunk).map_err(|_| EFAULT)?;
        match chunk.iter().position(|&b| b == 0) {
            Some(n) if out.len() + n < max => {
                out.extend_from_slice(&chunk[..n]);
                return Ok(out);
            }
            Some(_) => return Err(0),
            None => out.extend_from_slice(chunk),
        }
        if out.len() >= max {
            return Err(0);
        }
        a = a.wrapping_add(room as u64);
    }
}

/// Write `bytes` to the guest at `addr` (nothing to write always succeeds).
pub fn put(p: &mut Process, addr: u64, bytes: &[u8]) -> Result<(), u64> {
    if bytes.is_empty() {
        return Ok(());
    }
    p.machine.mem.write_user(addr, bytes).map_err(|_| EFAULT)
}

/// Write a 32-bit word to the guest.
pub fn put_u32(p: &mut Process, addr: u64, v: u32) -> Result<(), u64> {
    put(p, addr, &v.to_le_bytes())
}

/// Write a 64-bit word to the guest.
pub fn put_u64(p: &mut Process, addr: u64, v: u64) -> Result<(), u64> {
    put(p, addr, &v.to_le_bytes())
}

/// The little-endian 64-bit word at byte `at` of `b` (a structure read
/// with [`read_bytes`]).
pub fn word(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}
