//! Alpha Linux system calls (arch/alpha/kernel/syscalls/syscall.tbl).
//!
//! Convention: number in `v0` (r0), arguments in `a0`-`a5` (r16-r21); the
//! result goes to `v0`, and `a3` (r19) is 0 on success or 1 with a positive
//! errno in `v0` on failure (arch/alpha/kernel/entry.S).

use super::{Host, Process};

pub const SYS_EXIT: u64 = 1;
pub const SYS_WRITE: u64 = 4;
pub const SYS_EXIT_GROUP: u64 = 405;

pub const EBADF: u64 = 9;
pub const EFAULT: u64 = 14;
pub const EINVAL: u64 = 22;
pub const ENOSYS: u64 = 38;

/// The name of a system call number, for `--strace`.
pub fn name(nr: u64) -> Option<&'static str> {
    Some(match nr {
        SYS_EXIT => "exit",
        SYS_WRITE => "write",
        SYS_EXIT_GROUP => "exit_group",
        _ => return None,
    })
}

/// What a system call asks of the run loop.
pub enum Outcome {
    /// Return to the guest with this result.
    Return(Result<u64, u64>),
    /// The process exits with this status.
    Exit(u8),
}

/// Perform system call `nr` for CPU `cpu`.
pub fn dispatch(p: &mut Process, host: &mut dyn Host, cpu: usize, nr: u64) -> Outcome {
    let a = {
        let r = &p.machine.cpus[cpu].r;
        [r[16], r[17], r[18], r[19], r[20], r[21]]
    };
    match nr {
        SYS_EXIT | SYS_EXIT_GROUP => Outcome::Exit(a[0] as u8),
        SYS_WRITE => Outcome::Return(write(p, host, a[0], a[1], a[2])),
        _ => Outcome::Return(Err(ENOSYS)),
    }
}

fn write(p: &mut Process, host: &mut dyn Host, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
    if fd > 2 {
        return Err(EBADF);
    }
    if len as i64 <= 0 {
        return if len == 0 { Ok(0) } else { Err(EINVAL) };
    }
    // Copy in bounded chunks so a huge length cannot exhaust host memory;
    // a fault after some bytes returns the count written, as Linux does.
    let mut done = 0u64;
    let mut chunk = vec![0u8; 64 * 1024];
    while done < len {
        let n = (len - done).min(chunk.len() as u64) as usize;
        if p.machine
            .mem
            .read_user(buf.wrapping_add(done), &mut chunk[..n])
            .is_err()
        {
            // Find how many bytes are readable.
            let mut ok = 0;
            while ok < n
                && p.machine
                    .mem
                    .read_user(buf.wrapping_add(done + ok as u64), &mut chunk[ok..ok + 1])
                    .is_ok()
            {
                ok += 1;
            }
            if ok > 0 {
                host.write(fd as u32, &chunk[..ok]);
                done += ok as u64;
            }
            return if done == 0 { Err(EFAULT) } else { Ok(done) };
        }
        host.write(fd as u32, &chunk[..n]);
        done += n as u64;
    }
    Ok(done)
}
