//! The guest's own `/proc`: the host's `/proc` never shows through.
//!
//! `/proc/self`, `/proc/thread-self` and `/proc/PID` (the guest's pid) hold
//! `maps` (the guest's mappings, formatted as fs/proc/task_mmu.c
//! `show_map_vma` does), `exe` and `fd/N` (symbolic links), `auxv` (the
//! vector the initial stack was given, as the kernel's `saved_auxv`),
//! `cmdline`, `comm`, `status`, `stat`; `/proc/cpuinfo` is
//! arch/alpha/kernel/setup.c `show_cpuinfo` for the selected model. The
//! guest's other processes (those of its process tree, published in its
//! [`super::registry`]) are listed in `/proc` too, each `/proc/PID` with
//! the `cmdline`, `comm` and `exe` it published and the host's `stat` and
//! `status` under its guest name, so `ps` and `pidof` find them.
//! Everything else under `/proc` is ENOENT. A file is generated when opened and handed to the guest as an
//! anonymous host file (memfd), so read, lseek, fstat and mmap work on it
//! as on any file.

use super::errno::{EFAULT, ENOENT};
use super::Process;
use crate::memory::{Memory, Perm, PAGE_SIZE};

/// What a `/proc` path names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A regular file with these contents.
    File(Vec<u8>),
    /// A symbolic link to this path.
    Link(Vec<u8>),
    /// A directory (its entries are not listed).
    Dir,
}

/// The processor lists of `/sys` that glibc reads for `sysconf` and
/// `get_nprocs`: the guest's, so they agree with `/proc/cpuinfo`.
const SYS_CPU_LISTS: [&[u8]; 3] = [
    b"/sys/devices/system/cpu/online",
    b"/sys/devices/system/cpu/possible",
    b"/sys/devices/system/cpu/present",
];

/// Is `path` (absolute, normalised) inside `/proc`, or one of the `/sys`
/// processor lists the guest's view also answers?
pub fn is_proc(path: &[u8]) -> bool {
    path == b"/proc" || path.starts_with(b"/proc/") || SYS_CPU_LISTS.contains(&path)
}

/// Normalise an absolute guest path: collapse `//`, `.` and `..`.
pub fn normalise(path: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::new();
    for c in path.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let mut out = Vec::new();
    for c in parts {
        out.push(b'/');
        out.extend_from_slice(c);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

/// Look up a `/proc` path (absolute, normalised). `None`: ENOENT.
pub fn lookup(p: &Process, path: &[u8]) -> Option<Node> {
    if SYS_CPU_LISTS.contains(&path) {
        let list = match p.ncpus {
            0 | 1 => "0\n".to_string(),
            n => format!("0-{}\n", n - 1),
        };
        return Some(Node::File(list.into_bytes()));
    }
    let rest = path.strip_prefix(b"/proc")?;
    let rest = rest.strip_prefix(b"/").unwrap_or(rest);
    let mut it = rest.splitn(2, |&b| b == b'/');
    let first = it.next().unwrap_or(b"");
    let tail = it.next();
    let pid = p.id.pid.to_string();
    match first {
        b"" => Some(Node::Dir),
        b"cpuinfo" if tail.is_none() => Some(Node::File(cpuinfo(p).into_bytes())),
        b"self" | b"thread-self" if tail.is_none() => Some(Node::Link(pid.into_bytes())),
        f if f == pid.as_bytes() => per_process(p, tail),
        f => {
            let n: i32 = std::str::from_utf8(f).ok()?.parse().ok()?;
            if f.starts_with(b"0") || f.starts_with(b"+") {
                return None;
            }
            per_other(&p.procs.registry?.get(n)?, tail)
        }
    }
}

/// `/proc/PID` of another guest process of the tree.
fn per_other(e: &super::registry::Entry, tail: Option<&[u8]>) -> Option<Node> {
    let Some(t) = tail else {
        return Some(Node::Dir);
    };
    let comm = String::from_utf8_lossy(&e.comm);
    Some(match t {
        b"cmdline" => Node::File(e.cmdline.clone()),
        b"comm" => Node::File([&e.comm[..], b"\n"].concat()),
        b"exe" => Node::Link(e.exe.clone()),
        b"stat" => {
            let host = std::fs::read_to_string(format!("/proc/{}/stat", e.pid)).ok()?;
            let rest = host.rsplit_once(')')?.1;
            Node::File(format!("{} ({comm}){rest}", e.pid).into_bytes())
        }
        b"status" => {
            let host = std::fs::read_to_string(format!("/proc/{}/status", e.pid)).ok()?;
            let text: String = host
                .lines()
                .map(|l| {
                    if l.starts_with("Name:") {
                        format!("Name:\t{comm}\n")
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            Node::File(text.into_bytes())
        }
        _ => return None,
    })
}

/// What a directory of the guest `/proc` lists (besides `.` and `..`):
/// (name, inode, `d_type`).
pub fn entries(p: &Process, path: &[u8]) -> Vec<(Vec<u8>, u64, u8)> {
    const DIR: u8 = 4;
    const FILE: u8 = 8;
    const LINK: u8 = 10;
    let own = p.id.pid.to_string();
    let ino = |name: &[u8]| {
        // A stable number per path (the kernel's are per inode).
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for &b in path.iter().chain(b"/").chain(name) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        h | 1
    };
    let mut v: Vec<(Vec<u8>, u8)> = Vec::new();
    let rest = path.strip_prefix(b"/proc").unwrap_or(path);
    let parts: Vec<&[u8]> = rest
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty())
        .collect();
    match parts.as_slice() {
        [] => {
            // SAFETY: getpid has no preconditions.
            let host_pid = unsafe { libc::getpid() };
            let mut pids: Vec<u32> = match p.procs.registry {
                Some(r) => r
                    .list()
                    .iter()
                    .map(|e| {
                        if e.pid == host_pid {
                            p.id.pid
                        } else {
                            e.pid as u32
                        }
                    })
                    .collect(),
                None => Vec::new(),
            };
            pids.push(p.id.pid);
            pids.sort_unstable();
            pids.dedup();
            v.extend(pids.iter().map(|n| (n.to_string().into_bytes(), DIR)));
            v.push((b"cpuinfo".to_vec(), FILE));
            v.push((b"self".to_vec(), LINK));
            v.push((b"thread-self".to_vec(), LINK));
        }
        [pid] if *pid == own.as_bytes() => {
            for (n, t) in [
                ("auxv", FILE),
                ("cmdline", FILE),
                ("comm", FILE),
                ("exe", LINK),
                ("fd", DIR),
                ("maps", FILE),
                ("stat", FILE),
                ("status", FILE),
            ] {
                v.push((n.as_bytes().to_vec(), t));
            }
        }
        [_] => {
            for (n, t) in [
                ("cmdline", FILE),
                ("comm", FILE),
                ("exe", LINK),
                ("stat", FILE),
                ("status", FILE),
            ] {
                v.push((n.as_bytes().to_vec(), t));
            }
        }
        [pid, b"fd"] if *pid == own.as_bytes() => {
            for (n, f) in p.fds.fds.iter().enumerate() {
                if f.is_some() {
                    v.push((n.to_string().into_bytes(), LINK));
                }
            }
        }
        _ => {}
    }
    v.into_iter()
        .map(|(n, t)| (n.clone(), ino(&n), t))
        .collect()
}

fn per_process(p: &Process, tail: Option<&[u8]>) -> Option<Node> {
    use std::os::unix::ffi::OsStrExt;
    let Some(t) = tail else {
        return Some(Node::Dir);
    };
    Some(match t {
        b"maps" => Node::File(maps(p).into_bytes()),
        b"exe" => Node::Link(p.exe_path.as_os_str().as_bytes().to_vec()),
        b"auxv" => Node::File(p.auxv.clone()),
        b"cmdline" => Node::File(p.cmdline.clone()),
        b"comm" => Node::File(format!("{}\n", p.comm).into_bytes()),
        b"status" => Node::File(status(p).into_bytes()),
        b"stat" => Node::File(stat(p).into_bytes()),
        b"fd" => Node::Dir,
        t => {
            let n = t.strip_prefix(b"fd/")?;
            let n: u64 = std::str::from_utf8(n).ok()?.parse().ok()?;
            Node::Link(fd_target(p, n)?)
        }
    })
}

/// What `/proc/self/fd/N` points to, as Linux spells it.
fn fd_target(p: &Process, n: u64) -> Option<Vec<u8>> {
    use super::fs::Object;
    use std::os::unix::ffi::OsStrExt;
    let f = p.fds.get(n).ok()?;
    let o = f.obj.borrow();
    Some(match &*o {
        Object::Stdio(_) => b"/dev/pts/0".to_vec(),
        Object::File { path, .. } | Object::Dir { path, .. } => {
            path.as_os_str().as_bytes().to_vec()
        }
        Object::PipeRead(pb) | Object::PipeWrite(pb) => {
            // An inode-like number that both ends share.
            format!(
                "pipe:[{}]",
                std::rc::Rc::as_ptr(pb) as usize % 1_000_000_007
            )
            .into_bytes()
        }
        // As Linux names them: socket:[inode], anon_inode:[eventfd], …
        Object::Host(h) => match h.kind {
            super::net::HostKind::EventFd => b"anon_inode:[eventfd]".to_vec(),
            _ => {
                use std::os::fd::AsRawFd;
                std::fs::read_link(format!("/proc/self/fd/{}", h.fd.as_raw_fd()))
                    .map(|t| t.as_os_str().as_bytes().to_vec())
                    .unwrap_or_else(|_| b"socket:[0]".to_vec())
            }
        },
        Object::TimerFd(_) => b"anon_inode:[timerfd]".to_vec(),
        Object::Epoll(_) => b"anon_inode:[eventpoll]".to_vec(),
    })
}

/// Copy the auxiliary vector the initial stack holds at `sp` (argc, argv,
/// NULL, envp, NULL, then the (type, value) pairs up to AT_NULL).
pub fn saved_auxv(mem: &Memory, sp: u64) -> Vec<u8> {
    let word = |a: u64| {
        let mut b = [0u8; 8];
        mem.read_user(a, &mut b).map(|_| u64::from_le_bytes(b))
    };
    let mut out = Vec::new();
    let Ok(argc) = word(sp) else { return out };
    let mut a = sp + 8 * (argc + 2);
    // Skip the environment.
    for _ in 0..1 << 16 {
        match word(a) {
            Ok(0) => break,
            Ok(_) => a += 8,
            Err(_) => return out,
        }
    }
    a += 8;
    for _ in 0..256 {
        let (Ok(t), Ok(v)) = (word(a), word(a + 8)) else {
            break;
        };
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
        if t == 0 {
            break;
        }
        a += 16;
    }
    out
}

/// `/proc/self/maps`: runs of pages with the same permissions and the
/// same backing, formatted as `show_map_vma` (fs/proc/task_mmu.c) does:
/// a file mapping (the program's and its interpreter's segments, the
/// libraries and files `mmap`ed) shows its file offset, device, inode and
/// path; anonymous memory is `[heap]`, `[stack]` or unnamed, offset 0.
pub fn maps(p: &Process) -> String {
    struct Run {
        lo: u64,
        hi: u64,
        perm: Perm,
        file: bool,
        offset: u64,
        dev: u64,
        ino: u64,
        name: String,
    }
    let stack_lo = super::stack::STACK_TOP - p.opts.stack_bytes();
    let anon_name = |a: u64| -> &'static str {
        if a >= p.aspace.brk_start && a < p.aspace.brk.max(p.aspace.brk_start) {
            "[heap]"
        } else if (stack_lo..super::stack::STACK_TOP).contains(&a) {
            "[stack]"
        } else {
            ""
        }
    };
    let mut runs: Vec<Run> = Vec::new();
    for (a, perm) in p.machine.mem.mapped_pages() {
        let (file, offset, dev, ino, name) = match p.aspace.file_at(a) {
            Some((m, off)) => (true, off, m.dev, m.ino, &*m.path),
            None => (false, 0, 0, 0, anon_name(a)),
        };
        if let Some(last) = runs.last_mut() {
            // A file run goes on only where the file does.
            let follows = offset == 0 && last.offset == 0 && !last.file
                || offset == last.offset + (last.hi - last.lo);
            if last.hi == a
                && last.perm == perm
                && last.file == file
                && last.name == name
                && (last.dev, last.ino) == (dev, ino)
                && follows
            {
                last.hi = a + PAGE_SIZE;
                continue;
            }
        }
        runs.push(Run {
            lo: a,
            hi: a + PAGE_SIZE,
            perm,
            file,
            offset,
            dev,
            ino,
            name: name.to_string(),
        });
    }
    let mut out = String::new();
    for r in runs {
        let flag = |bit: Perm, c: char| if r.perm.contains(bit) { c } else { '-' };
        let (major, minor) = (libc::major(r.dev), libc::minor(r.dev));
        let line = format!(
            "{:08x}-{:08x} {}{}{}p {:08x} {major:02x}:{minor:02x} {} ",
            r.lo,
            r.hi,
            flag(Perm::R, 'r'),
            flag(Perm::W, 'w'),
            flag(Perm::X, 'x'),
            r.offset,
            r.ino,
        );
        out.push_str(&line);
        if !r.name.is_empty() {
            // show_map_vma pads the line to 25 + 6 * sizeof(void *) - 1
            // columns, then a space (seq_pad), then the name.
            for _ in line.len()..72 {
                out.push(' ');
            }
            out.push(' ');
            out.push_str(&r.name);
        }
        out.push('\n');
    }
    out
}

fn sigset(bits: u64) -> String {
    format!("{bits:016x}")
}

/// `/proc/self/status`, the fields programs read (fs/proc/array.c order).
pub fn status(p: &Process) -> String {
    use super::signal::{SIG_DFL, SIG_IGN};
    let live = p.live_threads();
    let mut ign = 0u64;
    let mut cgt = 0u64;
    for (s, a) in p.signals.actions.iter().enumerate().skip(1) {
        if a.handler == SIG_IGN {
            ign |= 1 << (s - 1);
        } else if a.handler != SIG_DFL {
            cgt |= 1 << (s - 1);
        }
    }
    let pending = p.signals.pending.iter().fold(0u64, |m, i| {
        if i.target == 0 {
            m | super::signal::bit(i.signo)
        } else {
            m
        }
    });
    let kb = p.machine.mem.mapped_bytes() / 1024;
    let id = &p.id;
    format!(
        "Name:\t{}\nUmask:\t{:04o}\nState:\tR (running)\nTgid:\t{}\nNgid:\t0\nPid:\t{}\nPPid:\t{}\n\
         TracerPid:\t0\nUid:\t{}\t{}\t{}\t{}\nGid:\t{}\t{}\t{}\t{}\nFDSize:\t64\nGroups:\t\n\
         VmPeak:\t{kb:8} kB\nVmSize:\t{kb:8} kB\nVmRSS:\t{kb:8} kB\nThreads:\t{live}\n\
         SigQ:\t{}/63352\nSigPnd:\t{}\nShdPnd:\t{}\nSigBlk:\t{}\nSigIgn:\t{}\nSigCgt:\t{}\n\
         Cpus_allowed:\t1\nCpus_allowed_list:\t0\n",
        p.comm,
        id.umask,
        id.pid,
        id.pid,
        super::process::parent_pid(p),
        id.uid,
        id.euid,
        id.euid,
        id.euid,
        id.gid,
        id.egid,
        id.egid,
        id.egid,
        p.signals.pending.len(),
        sigset(0),
        sigset(pending),
        sigset(p.threads[p.cur].sigmask),
        sigset(ign),
        sigset(cgt),
    )
}

/// `/proc/self/stat`: pid, (comm), state, ppid and zeros elsewhere except
/// the thread count and virtual size.
pub fn stat(p: &Process) -> String {
    let live = p.live_threads();
    let id = &p.id;
    let mut f: Vec<String> = vec![
        id.pid.to_string(),
        format!("({})", p.comm),
        "R".into(),
        super::process::parent_pid(p).to_string(),
    ];
    // Fields 5..=52 (fs/proc/array.c do_task_stat); 20 = num_threads,
    // 23 = vsize.
    for field in 5..=52 {
        f.push(match field {
            20 => live.to_string(),
            23 => p.machine.mem.mapped_bytes().to_string(),
            _ => "0".into(),
        });
    }
    f.join(" ") + "\n"
}

/// `/proc/cpuinfo` as arch/alpha/kernel/setup.c `show_cpuinfo` prints it.
pub fn cpuinfo(p: &Process) -> String {
    let m = p.machine.cpus[0].model;
    // The kernel's cpu_names table spells the processor types in capitals;
    // both LCA parts are "LCA4" (the variation tells them apart).
    let name = match m.name {
        "lca45" => "LCA4".to_string(),
        n => n.to_ascii_uppercase(),
    };
    // A plausible clock for each part (the HWRPB's cycle_freq).
    let mhz: u64 = match m.name {
        "ev4" => 150,
        "ev45" => 275,
        "lca4" => 166,
        "lca45" => 233,
        "ev5" => 333,
        "ev56" => 500,
        "pca56" => 533,
        "ev6" => 500,
        "ev67" => 667,
        "ev68" => 1000,
        _ => 1150,
    };
    let ncpu = p.ncpus.clamp(1, 64) as u64;
    let bogo = mhz * 2;
    format!(
        "cpu\t\t\t: Alpha\ncpu model\t\t: {name}\ncpu variation\t\t: 0\ncpu revision\t\t: 0\n\
         cpu serial number\t: \nsystem type\t\t: subword\nsystem variation\t: user-mode\n\
         system revision\t\t: 0\nsystem serial number\t: \n\
         cycle frequency [Hz]\t: {} \ntimer frequency [Hz]\t: 1024.00\n\
         page size [bytes]\t: {PAGE_SIZE}\nphys. address bits\t: {}\nmax. addr. space #\t: {}\n\
         BogoMIPS\t\t: {bogo}.00\nkernel unaligned acc\t: 0 (pc=0,va=0)\n\
         user unaligned acc\t: {} (pc=0,va=0)\nplatform string\t\t: subword {} ({}) user-mode machine\n\
         cpus detected\t\t: {ncpu}\ncpus active\t\t: {ncpu}\ncpu active mask\t\t: {:016x}\n\
         L1 Icache\t\t: n/a\nL1 Dcache\t\t: n/a\nL2 cache\t\t: n/a\nL3 cache\t\t: n/a\n",
        mhz * 1_000_000,
        if m.implver >= 2 { 44 } else { 34 },
        if m.implver >= 2 { 255 } else { 63 },
        p.unaligned_fixups,
        m.name,
        m.part,
        u64::MAX >> (64 - ncpu),
    )
}

/// Make an anonymous host file holding `data`, positioned at 0.
pub fn memfile(data: &[u8]) -> Result<std::fs::File, u64> {
    use std::io::{Seek, Write};
    use std::os::fd::FromRawFd;
    // SAFETY: the name is a NUL-terminated string; memfd_create returns a
    // new descriptor this File then owns.
    let fd = unsafe { libc::memfd_create(c"subword-proc".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(EFAULT);
    }
    // SAFETY: `fd` is a fresh descriptor nothing else owns.
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    f.write_all(data).map_err(|_| EFAULT)?;
    f.rewind().map_err(|_| EFAULT)?;
    Ok(f)
}

/// Resolve `/proc` links in `path` for an open: follows `self` and
/// `exe`-like links. Returns the final node, or ENOENT.
pub fn resolve(p: &Process, path: &[u8]) -> Result<(Vec<u8>, Node), u64> {
    let mut cur = normalise(path);
    for _ in 0..8 {
        // Expand /proc/self and /proc/thread-self at the front.
        for pre in [&b"/proc/self"[..], b"/proc/thread-self"] {
            if cur.starts_with(pre) && (cur.len() == pre.len() || cur[pre.len()] == b'/') {
                let mut n = format!("/proc/{}", p.id.pid).into_bytes();
                n.extend_from_slice(&cur[pre.len()..]);
                cur = n;
            }
        }
        match lookup(p, &cur).ok_or(ENOENT)? {
            Node::Link(t) if t.starts_with(b"/proc") => cur = normalise(&t),
            n => return Ok((cur, n)),
        }
    }
    Err(ENOENT)
}

/// The host file an `execve` of the guest `/proc` path `path` (absolute,
/// normalised) runs: `/proc/self/exe` is the running program's file;
/// `/proc/self/fd/N` the file open at N (through the host's own
/// `/proc/self/fd`, so a memfd or a deleted file runs too); anything else
/// in `/proc` is not executable (EACCES) or missing (ENOENT).
pub fn exec_target(p: &Process, path: &[u8]) -> Result<std::path::PathBuf, u64> {
    use std::os::unix::ffi::OsStrExt;
    let (at, node) = resolve(p, path)?;
    let fd_prefix = format!("/proc/{}/fd/", p.id.pid);
    if let Some(n) = at
        .strip_prefix(fd_prefix.as_bytes())
        .and_then(|n| std::str::from_utf8(n).ok()?.parse::<u64>().ok())
    {
        let f = p.fds.get(n).map_err(|_| ENOENT)?;
        if let super::fs::Object::File { file, .. } = &*f.obj.borrow() {
            use std::os::fd::AsRawFd;
            return Ok(format!("/proc/self/fd/{}", file.as_raw_fd()).into());
        }
        return Err(super::errno::EACCES);
    }
    match node {
        Node::Link(t) => Ok(std::ffi::OsStr::from_bytes(&t).into()),
        _ => Err(super::errno::EACCES),
    }
}

/// The `/proc` path a system call names, when it names one: absolute
/// paths, and relative ones from a guest working directory in `/proc`.
pub fn guest_proc_path(p: &Process, path: &[u8]) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let full = if path.first() == Some(&b'/') {
        normalise(path)
    } else {
        let mut c = p.cwd.as_os_str().as_bytes().to_vec();
        c.push(b'/');
        c.extend_from_slice(path);
        normalise(&c)
    };
    is_proc(&full).then_some(full)
}

/// `readlink` of a `/proc` path: the link's target, without following it.
pub fn readlink(p: &Process, path: &[u8]) -> Result<Vec<u8>, u64> {
    let (dir, last) = match path.iter().rposition(|&b| b == b'/') {
        Some(i) => (&path[..i], &path[i..]),
        None => (&b""[..], path),
    };
    // Follow links in the directory part only.
    let (mut d, node) = if dir == b"/proc" || dir.is_empty() {
        (b"/proc".to_vec(), Node::Dir)
    } else {
        resolve(p, dir)?
    };
    if node != Node::Dir {
        return Err(super::errno::ENOTDIR);
    }
    d.extend_from_slice(last);
    match lookup(p, &d).ok_or(ENOENT)? {
        Node::Link(t) => Ok(t),
        _ => Err(super::errno::EINVAL),
    }
}

/// Host metadata standing for a `/proc` node (for `stat`).
pub fn metadata(p: &Process, path: &[u8]) -> Result<std::fs::Metadata, u64> {
    match resolve(p, path)?.1 {
        Node::File(data) => memfile(&data)?.metadata().map_err(|_| EFAULT),
        Node::Dir => std::fs::metadata("/").map_err(|_| EFAULT),
        Node::Link(t) => {
            use std::os::unix::ffi::OsStrExt;
            std::fs::metadata(std::ffi::OsStr::from_bytes(&t)).map_err(|_| ENOENT)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_collapses_dots_and_slashes() {
        assert_eq!(normalise(b"/proc//self/./fd/../maps"), b"/proc/self/maps");
        assert_eq!(normalise(b"/.."), b"/");
    }

    #[test]
    fn proc_paths_are_recognised_exactly() {
        assert!(is_proc(b"/proc"));
        assert!(is_proc(b"/proc/self/maps"));
        assert!(!is_proc(b"/processes"));
    }
}
