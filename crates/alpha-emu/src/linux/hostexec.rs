//! `execve` of a program that is not an Alpha one, handed to the host's
//! `execve` as qemu-user does: a host ELF (the host's `/bin/sh` behind
//! `system()` and `popen()` when the sysroot has no Alpha shell), or a
//! `#!` script whose interpreter is a host program. The host process stops
//! being subword and becomes that program, with what Linux passes through
//! `execve`:
//!
//! - the guest's descriptors without close-on-exec, at the guest's
//!   numbers (in-process pipes become host pipes first, as at `fork`;
//!   sockets get back the guest's blocking mode); every other host
//!   descriptor, subword's own included, is closed by the exec;
//!   timerfds and epoll instances have no host object and do not pass;
//! - signals the guest ignores stay ignored, every other one is default
//!   (subword ignores SIGPIPE for itself; the new program gets the
//!   guest's disposition), and the calling thread's signal mask;
//! - the guest's working directory.
//!
//! Everything is arranged so that it can be put back: when the host's
//! `execve` fails (ENOEXEC for a file no host can run, ENOENT for a
//! missing interpreter…), descriptors, dispositions, mask and working
//! directory are restored and the guest gets the errno.

use super::errno::*;
use super::fs::{self, Object};
use super::signal;
use super::{host_signal, Process};
use std::ffi::CString;
use std::os::fd::AsRawFd;

/// Is `bytes` an ELF file for another machine than Alpha (what the host
/// is asked to run)? Anything else but a script is ENOEXEC already.
pub fn foreign_elf(bytes: &[u8]) -> bool {
    const EM_ALPHA: u16 = 0x9026;
    bytes.len() >= 20
        && bytes.starts_with(b"\x7fELF")
        && u16::from_le_bytes([bytes[18], bytes[19]]) != EM_ALPHA
}

/// One host descriptor the new program gets at guest number `fd`.
struct Pass {
    fd: i32,
    /// A descriptor of ours for it, above every target number.
    tmp: i32,
    /// A host socket whose `O_NONBLOCK` was changed to the guest's view:
    /// the flags to put back.
    flags_back: Option<i32>,
}

/// What was at a target number before, to put back on failure.
struct Saved {
    fd: i32,
    /// A copy of the descriptor that was there (None: it was free), with
    /// its close-on-exec flag.
    copy: Option<(i32, i32)>,
}

fn cstring(b: &[u8]) -> Result<CString, u64> {
    CString::new(b.to_vec()).map_err(|_| EINVAL)
}

/// The host descriptor behind a guest object, when it has one (a
/// directory is opened again). `Ok(None)`: nothing to pass.
fn host_fd_of(o: &Object) -> Result<Option<(i32, bool)>, u64> {
    Ok(match o {
        // Only streams the host has open are in the table
        // (`Process::close_streams_closed_in`).
        Object::Stdio(n) => Some((*n as i32, false)),
        Object::File { file, .. } => Some((file.as_raw_fd(), false)),
        Object::Dir { path, .. } => {
            use std::os::unix::ffi::OsStrExt;
            let c = cstring(path.as_os_str().as_bytes())?;
            // SAFETY: a valid C string; the descriptor is closed below.
            let fd = unsafe {
                libc::open(
                    c.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            };
            (fd >= 0).then_some((fd, true))
        }
        Object::Host(h) => Some((h.raw(), false)),
        Object::PipeRead(_) | Object::PipeWrite(_) | Object::TimerFd(_) | Object::Epoll(_) => None,
    })
}

/// Close-on-exec flags of every open host descriptor.
fn open_host_fds() -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .collect()
}

/// Run host program `path` in place of this process (see the module
/// docs). Returns only on failure, with the Alpha errno, everything put
/// back.
pub fn exec(p: &mut Process, path: &[u8], argv: &[String], envp: &[String]) -> u64 {
    match try_exec(p, path, argv, envp) {
        Ok(never) => match never {},
        Err(e) => e,
    }
}

fn try_exec(
    p: &mut Process,
    path: &[u8],
    argv: &[String],
    envp: &[String],
) -> Result<std::convert::Infallible, u64> {
    let cpath = cstring(path)?;
    let cargs: Vec<CString> = argv
        .iter()
        .map(|a| cstring(a.as_bytes()))
        .collect::<Result<_, _>>()?;
    let cenv: Vec<CString> = envp
        .iter()
        .map(|a| cstring(a.as_bytes()))
        .collect::<Result<_, _>>()?;
    let mut argp: Vec<*const libc::c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
    argp.push(std::ptr::null());
    let mut envpp: Vec<*const libc::c_char> = cenv.iter().map(|c| c.as_ptr()).collect();
    envpp.push(std::ptr::null());
    // Pipes inside this process become host pipes (their bytes move along).
    super::process::hostify_pipes(p)?;

    // The descriptors to pass, each copied above every target number.
    let top = p.fds.fds.len() as i32;
    let mut passes: Vec<Pass> = Vec::new();
    let mut opened: Vec<i32> = Vec::new();
    let mut fail: Option<u64> = None;
    for (n, slot) in p.fds.fds.iter().enumerate() {
        let Some(f) = slot.as_ref().filter(|f| !f.cloexec) else {
            continue;
        };
        let obj = f.obj.borrow();
        let (src, fresh) = match host_fd_of(&obj) {
            Ok(Some(x)) => x,
            Ok(None) => continue,
            Err(e) => {
                fail = Some(e);
                break;
            }
        };
        if fresh {
            opened.push(src);
        }
        // SAFETY: duplicating a descriptor we hold; the copy is ours.
        let tmp = unsafe { libc::fcntl(src, libc::F_DUPFD_CLOEXEC, top.max(3)) };
        if tmp < 0 {
            fail = Some(fs::host_errno(&std::io::Error::last_os_error()));
            break;
        }
        let mut flags_back = None;
        if let Object::Host(_) = &*obj {
            // Host sockets are non-blocking for subword; the new program
            // gets the guest's mode.
            // SAFETY: fcntl on a descriptor we hold.
            let fl = unsafe { libc::fcntl(tmp, libc::F_GETFL) };
            let want = if f.flags & fs::O_NONBLOCK != 0 {
                fl | libc::O_NONBLOCK
            } else {
                fl & !libc::O_NONBLOCK
            };
            if fl >= 0 && want != fl {
                // SAFETY: as above.
                unsafe { libc::fcntl(tmp, libc::F_SETFL, want) };
                flags_back = Some(fl);
            }
        }
        passes.push(Pass {
            fd: n as i32,
            tmp,
            flags_back,
        });
    }
    for fd in opened {
        // SAFETY: directories opened above; their copies live on in `tmp`.
        unsafe { libc::close(fd) };
    }
    let undo_passes = |passes: &[Pass]| {
        for ps in passes {
            // SAFETY: our copies; restoring flags on the shared open file.
            unsafe {
                if let Some(fl) = ps.flags_back {
                    libc::fcntl(ps.tmp, libc::F_SETFL, fl);
                }
                libc::close(ps.tmp);
            }
        }
    };
    if let Some(e) = fail {
        undo_passes(&passes);
        return Err(e);
    }

    // Save what occupies the target numbers, then put the copies there.
    let mut saved: Vec<Saved> = Vec::new();
    for ps in &passes {
        // SAFETY: fcntl/dup on descriptor numbers; a free one fails.
        let fdflags = unsafe { libc::fcntl(ps.fd, libc::F_GETFD) };
        let copy = if fdflags >= 0 {
            // SAFETY: as above.
            let c = unsafe { libc::fcntl(ps.fd, libc::F_DUPFD_CLOEXEC, top.max(3)) };
            if c < 0 {
                let e = fs::host_errno(&std::io::Error::last_os_error());
                restore_targets(&saved);
                undo_passes(&passes);
                return Err(e);
            }
            Some((c, fdflags))
        } else {
            None
        };
        saved.push(Saved { fd: ps.fd, copy });
    }
    for ps in &passes {
        // SAFETY: dup2 onto a number whose old occupant is saved above;
        // the new descriptor has no close-on-exec flag.
        unsafe { libc::dup2(ps.tmp, ps.fd) };
    }
    // Every other host descriptor closes at the exec.
    let targets: Vec<i32> = passes.iter().map(|ps| ps.fd).collect();
    let mut made_cloexec = Vec::new();
    for fd in open_host_fds() {
        if targets.contains(&fd) {
            continue;
        }
        // SAFETY: fcntl on a descriptor number; a closed one fails.
        let fl = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if fl >= 0 && fl & libc::FD_CLOEXEC == 0 {
            // SAFETY: as above.
            unsafe { libc::fcntl(fd, libc::F_SETFD, fl | libc::FD_CLOEXEC) };
            made_cloexec.push(fd);
        }
    }

    // Dispositions: ignored stays ignored, everything else default.
    // SAFETY: zeroed sigactions are valid out-parameters.
    let mut old_actions: Vec<(i32, libc::sigaction)> = Vec::new();
    for sig in 1..=signal::NSIG as u8 {
        let h = if sig <= 31 {
            host_signal(sig) as i32
        } else {
            sig as i32
        };
        if matches!(h, libc::SIGKILL | libc::SIGSTOP) || h > libc::SIGRTMAX() {
            continue;
        }
        if old_actions.iter().any(|(s, _)| *s == h) {
            continue;
        }
        let ign = p.signals.actions[sig as usize].handler == signal::SIG_IGN;
        // SAFETY: a zeroed sigaction with an empty mask is valid.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = if ign { libc::SIG_IGN } else { libc::SIG_DFL };
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(h, &sa, &mut old) == 0 {
                old_actions.push((h, old));
            }
        }
    }
    // The calling thread's mask, in host numbers.
    let guest_mask = p.threads[p.cur].sigmask;
    // SAFETY: sigset_t is plain data; sigaddset/pthread_sigmask on locals.
    let mut old_mask: libc::sigset_t = unsafe { std::mem::zeroed() };
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in 1..=signal::NSIG as u8 {
            if guest_mask & signal::bit(sig) != 0 {
                let h = if sig <= 31 {
                    host_signal(sig) as i32
                } else {
                    sig as i32
                };
                if h <= libc::SIGRTMAX() {
                    libc::sigaddset(&mut set, h);
                }
            }
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &set, &mut old_mask);
    }
    // The guest's working directory.
    // SAFETY: opening "." for a later fchdir back.
    let here = unsafe {
        libc::open(
            c".".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    let cwd_ok = {
        use std::os::unix::ffi::OsStrExt;
        match CString::new(p.cwd.as_os_str().as_bytes()) {
            // SAFETY: a valid C string.
            Ok(c) => unsafe { libc::chdir(c.as_ptr()) == 0 },
            Err(_) => false,
        }
    };
    // A forked guest's slot in the tree's count goes with it: the host
    // program is no guest process.
    let slot = super::process::give_back_slot(p);
    let published = super::process::unpublish(p);

    // SAFETY: valid NUL-terminated path and NULL-terminated arrays that
    // live until the call; on success it does not return.
    unsafe { libc::execve(cpath.as_ptr(), argp.as_ptr(), envpp.as_ptr()) };
    let err = fs::host_errno(&std::io::Error::last_os_error());

    // It failed: put everything back.
    if slot {
        super::process::take_back_slot(p);
    }
    if published {
        super::process::publish(p);
    }
    // SAFETY: restoring state saved above, on descriptors we hold.
    unsafe {
        if here >= 0 {
            if cwd_ok {
                libc::fchdir(here);
            }
            libc::close(here);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut());
        for (h, old) in &old_actions {
            libc::sigaction(*h, old, std::ptr::null_mut());
        }
        for fd in made_cloexec {
            let fl = libc::fcntl(fd, libc::F_GETFD);
            if fl >= 0 {
                libc::fcntl(fd, libc::F_SETFD, fl & !libc::FD_CLOEXEC);
            }
        }
    }
    restore_targets(&saved);
    undo_passes(&passes);
    Err(err)
}

/// Put back what occupied each target number (or free it).
fn restore_targets(saved: &[Saved]) {
    for s in saved {
        // SAFETY: descriptors we hold or numbers we took over.
        unsafe {
            match s.copy {
                Some((c, fl)) => {
                    libc::dup2(c, s.fd);
                    libc::fcntl(s.fd, libc::F_SETFD, fl);
                    libc::close(c);
                }
                None => {
                    libc::close(s.fd);
                }
            }
        }
    }
}
