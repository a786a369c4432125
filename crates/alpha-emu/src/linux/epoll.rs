//! epoll and timerfd.
//!
//! A guest epoll instance ([`Epoll`]) splits its interest list by what
//! the descriptor is. Host-backed descriptors (sockets, eventfds, host
//! streams) go into a host epoll instance owned by the guest's one, so the
//! host does level and edge triggering (and EPOLLONESHOT) for them, and a
//! blocked `epoll_wait` waits in the scheduler's host `poll` on that host
//! epoll descriptor. Guest-only objects (the in-memory pipes, timerfds)
//! are evaluated here: readiness is [`super::syscall`]'s `poll` answer, and
//! edge triggering reports an entry again only when its object's change
//! counter moved since the last report (a pipe counts writes, reads and
//! closes; a timerfd its expirations). Regular files and directories are
//! EPERM, as on Linux. An epoll inside an epoll is a guest-side entry,
//! readable while the inner one has events to report (with EPOLLET, once
//! per new event in it: its guest-side objects' change counters, and an
//! edge-triggered host watch of its host epoll), and the inner instance's host epoll
//! descriptor is also in the outer's host epoll, so a wait wakes for the
//! inner's host-backed descriptors and the host refuses loops and too
//! deep nesting with ELOOP, as Linux does. `struct epoll_event` is not packed on Alpha
//! (linux/eventpoll.h packs it only for x86-64): `events` at 0, `data`
//! at 8, 16 bytes.
//!
//! A timerfd is guest-side in both modes ([`TimerFd`]): its deadline is on
//! the guest's monotonic clock ([`Process::clock_ns`]), so under
//! `--deterministic` it follows the virtual clock (and a thread blocked on
//! it lets the scheduler jump the clock to the expiry) and by default the
//! host's. CLOCK_REALTIME deadlines are converted to the monotonic clock
//! when armed (a later change of the host's wall clock does not move them).

use std::cell::RefCell;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::rc::{Rc, Weak};

use super::errno::*;
use super::fs::{self, Fd, Object};
use super::syscall::{with_wait_mask, Outcome};
use super::{time, Host, Process, Wait};

// linux/eventpoll.h.
pub const EPOLL_CTL_ADD: u64 = 1;
pub const EPOLL_CTL_DEL: u64 = 2;
pub const EPOLL_CTL_MOD: u64 = 3;
pub const EPOLLIN: u32 = 0x1;
pub const EPOLLOUT: u32 = 0x4;
pub const EPOLLERR: u32 = 0x8;
pub const EPOLLHUP: u32 = 0x10;
pub const EPOLLRDHUP: u32 = 0x2000;
pub const EPOLLEXCLUSIVE: u32 = 1 << 28;
pub const EPOLLWAKEUP: u32 = 1 << 29;
pub const EPOLLONESHOT: u32 = 1 << 30;
pub const EPOLLET: u32 = 1 << 31;

/// timerfd flags (linux/timerfd.h): TFD_TIMER_ABSTIME, and TFD_NONBLOCK /
/// TFD_CLOEXEC = Alpha's O_NONBLOCK / O_CLOEXEC.
pub const TFD_TIMER_ABSTIME: u64 = 1;
pub const TFD_TIMER_CANCEL_ON_SET: u64 = 2;

/// `sizeof(struct epoll_event)` on Alpha.
const EVENT_SIZE: u64 = 16;

/// One guest-side interest entry.
#[derive(Debug)]
pub struct Entry {
    /// The guest descriptor number it was added under.
    pub fd: u64,
    pub obj: Weak<RefCell<Object>>,
    pub events: u32,
    pub data: u64,
    /// Edge triggering: the object's change counter at the last report.
    pub last_gen: Option<u64>,
    /// EPOLLONESHOT fired: nothing more until EPOLL_CTL_MOD.
    pub disabled: bool,
    /// A nested instance watched with EPOLLET: a host epoll holding the
    /// inner instance's host epoll edge-triggered, so a new event on its
    /// host-backed descriptors shows as an edge here.
    pub edge: Option<OwnedFd>,
    /// That edge was seen and not yet reported.
    pub host_edge: std::cell::Cell<bool>,
}

/// A host epoll instance watching `inner` (a host epoll descriptor)
/// edge-triggered; `None` if the host refuses.
fn edge_watch(inner: std::os::fd::RawFd) -> Option<OwnedFd> {
    // SAFETY: plain system calls; the new descriptor is owned at once.
    unsafe {
        let fd = libc::epoll_create1(libc::EPOLL_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let own = OwnedFd::from_raw_fd(fd);
        let mut hev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLET) as u32,
            u64: 0,
        };
        (libc::epoll_ctl(fd, libc::EPOLL_CTL_ADD, inner, &mut hev) == 0).then_some(own)
    }
}

/// Whether edge watch `fd` saw a new event since it was last asked.
fn edge_fired(fd: &OwnedFd) -> bool {
    let mut hev = [libc::epoll_event { events: 0, u64: 0 }];
    // SAFETY: room for one event; timeout 0.
    unsafe { libc::epoll_wait(fd.as_raw_fd(), hev.as_mut_ptr(), 1, 0) > 0 }
}

/// A host-backed interest entry (the host epoll does the work).
#[derive(Debug)]
pub struct HostEntry {
    pub fd: u64,
    pub obj: Weak<RefCell<Object>>,
    pub data: u64,
}

/// A guest epoll instance.
#[derive(Debug)]
pub struct Epoll {
    pub host: OwnedFd,
    pub local: Vec<Entry>,
    pub hosted: Vec<HostEntry>,
}

impl Epoll {
    fn prune(&mut self) {
        self.local.retain(|e| e.obj.strong_count() > 0);
        self.hosted.retain(|e| e.obj.strong_count() > 0);
    }
}

/// A guest timerfd: its next expiry on the guest's monotonic clock.
#[derive(Debug, Clone)]
pub struct TimerFd {
    pub clock: u64,
    /// Next expiry (monotonic ns), `None` when disarmed.
    pub next: Option<u64>,
    pub interval: u64,
    /// Expirations not yet read.
    pub ticks: u64,
    /// Every expiration ever (edge triggering's change counter).
    pub gen: u64,
}

impl TimerFd {
    /// Count the expirations up to `now`.
    pub fn settle(&mut self, now: u64) {
        if let Some(n) = self.next {
            if now >= n {
                let k = (now - n).checked_div(self.interval).map_or(1, |q| q + 1);
                self.ticks = self.ticks.saturating_add(k);
                self.gen = self.gen.wrapping_add(k);
                self.next =
                    (self.interval > 0).then(|| n.saturating_add(k.saturating_mul(self.interval)));
            }
        }
    }

    /// Expirations unread at `now` (without counting them in).
    pub fn pending(&self, now: u64) -> u64 {
        let mut t = self.clone();
        t.settle(now);
        t.ticks
    }

    /// When it next becomes readable: `Some(0)` now, `None` never.
    pub fn ready_at(&self, now: u64) -> Option<u64> {
        if self.pending(now) > 0 {
            return Some(0);
        }
        self.next
    }
}

use super::uaccess::{put, read_bytes as read_mem};

/// Perform epoll/timerfd system call `nr`, if it is one.
pub fn dispatch(p: &mut Process, host: &dyn Host, nr: u64, a: [u64; 6]) -> Option<Outcome> {
    use Outcome::Return as R;
    let out = match nr {
        407 if (a[0] as i32) <= 0 => R(Err(EINVAL)),
        407 => R(epoll_create(p, 0)),
        486 => R(epoll_create(p, a[0])),
        408 => R(epoll_ctl(p, host, a[0], a[1], a[2], a[3])),
        409 => epoll_wait(p, host, a[0], a[1], a[2], ms_timeout(a[3] as i32)),
        474 => with_wait_mask(p, a[4], a[5], |p| {
            epoll_wait(p, host, a[0], a[1], a[2], ms_timeout(a[3] as i32))
        }),
        551 => match timespec_timeout(p, a[3]) {
            Ok(t) => with_wait_mask(p, a[4], a[5], |p| epoll_wait(p, host, a[0], a[1], a[2], t)),
            Err(e) => R(Err(e)),
        },
        481 => R(timerfd_create(p, a[0], a[1])),
        482 => R(timerfd_settime(p, a[0], a[1], a[2], a[3])),
        483 => R(timerfd_gettime(p, a[0], a[1])),
        _ => return None,
    };
    if !matches!(out, Outcome::Block(_)) {
        p.threads[p.cur].timeout_at = None;
    }
    Some(out)
}

fn ms_timeout(ms: i32) -> Option<u64> {
    (ms >= 0).then(|| ms as u64 * 1_000_000)
}

fn timespec_timeout(p: &Process, ts: u64) -> Result<Option<u64>, u64> {
    if ts == 0 {
        return Ok(None);
    }
    let b = read_mem(p, ts, 16)?;
    let s = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
    let ns = u64::from_le_bytes(b[8..].try_into().unwrap_or([0; 8]));
    time::timespec_ns(s, ns).map(Some)
}

fn epoll_create(p: &mut Process, flags: u64) -> Result<u64, u64> {
    if flags & !fs::O_CLOEXEC != 0 {
        return Err(EINVAL);
    }
    // SAFETY: epoll_create1 has no memory preconditions.
    let raw = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if raw < 0 {
        return Err(from_host_errno(
            std::io::Error::last_os_error().raw_os_error().unwrap_or(5),
        ));
    }
    // SAFETY: a descriptor we just created.
    let host = unsafe { OwnedFd::from_raw_fd(raw) };
    let fd = Fd {
        obj: Rc::new(RefCell::new(Object::Epoll(Epoll {
            host,
            local: Vec::new(),
            hosted: Vec::new(),
        }))),
        cloexec: flags & fs::O_CLOEXEC != 0,
        flags: fs::O_RDWR,
    };
    p.fds.install(fd, 0)
}

/// How a descriptor takes part in epoll.
enum Kind {
    Hosted(i32),
    Local,
    /// Another epoll instance (its host epoll descriptor): a local entry,
    /// with that descriptor in this one's host epoll to wake a wait.
    Nested(i32),
}

/// The host epoll key of a nested instance's wake-up registration (never
/// a guest descriptor number, so no hosted entry matches it).
fn nest_key(fd: u64) -> u64 {
    fd | 1 << 63
}

fn kind_of(host: &dyn Host, o: &Object) -> Result<Kind, u64> {
    Ok(match o {
        Object::Host(h) => Kind::Hosted(h.raw()),
        Object::Stdio(n) => match host.raw_fd(*n) {
            Some(raw) => Kind::Hosted(raw),
            None => Kind::Local,
        },
        Object::PipeRead(_) | Object::PipeWrite(_) | Object::TimerFd(_) => Kind::Local,
        Object::File { .. } | Object::Dir { .. } => return Err(EPERM),
        Object::Epoll(inner) => Kind::Nested(inner.host.as_raw_fd()),
    })
}

/// `epoll_ctl`, its checks in the kernel's order (the event is copied
/// first, then both descriptors, then what they are).
fn epoll_ctl(
    p: &mut Process,
    host: &dyn Host,
    epfd: u64,
    op: u64,
    fd: u64,
    ev: u64,
) -> Result<u64, u64> {
    let (events, data) = if op == EPOLL_CTL_DEL {
        (0, 0)
    } else {
        let b = read_mem(p, ev, EVENT_SIZE as usize)?;
        (
            u32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4])),
            u64::from_le_bytes(b[8..].try_into().unwrap_or([0; 8])),
        )
    };
    let epobj = p.fds.get(epfd)?.obj.clone();
    let target = p.fds.get(fd)?.obj.clone();
    let kind = kind_of(host, &target.borrow());
    if let Err(EPERM) = kind {
        return Err(EPERM);
    }
    if !matches!(&*epobj.borrow(), Object::Epoll(_)) || epfd == fd || Rc::ptr_eq(&epobj, &target) {
        return Err(EINVAL);
    }
    let kind = kind?;
    if !matches!(op, EPOLL_CTL_ADD | EPOLL_CTL_DEL | EPOLL_CTL_MOD) {
        return Err(EINVAL);
    }
    let mut eb = epobj.borrow_mut();
    let Object::Epoll(ep) = &mut *eb else {
        return Err(EINVAL);
    };
    ep.prune();
    let same = |w: &Weak<RefCell<Object>>, n: u64, fdn: u64| {
        n == fdn && w.upgrade().is_some_and(|o| Rc::ptr_eq(&o, &target))
    };
    let has_local = ep.local.iter().position(|e| same(&e.obj, e.fd, fd));
    let has_host = ep.hosted.iter().position(|e| same(&e.obj, e.fd, fd));
    let exists = has_local.is_some() || has_host.is_some();
    match op {
        EPOLL_CTL_ADD if exists => return Err(EEXIST),
        EPOLL_CTL_MOD | EPOLL_CTL_DEL if !exists => return Err(ENOENT),
        _ => {}
    }
    let events = events & !EPOLLWAKEUP;
    if op == EPOLL_CTL_MOD && events & EPOLLEXCLUSIVE != 0 {
        return Err(EINVAL);
    }
    match kind {
        Kind::Hosted(raw) => {
            let hop = match op {
                EPOLL_CTL_ADD => libc::EPOLL_CTL_ADD,
                EPOLL_CTL_MOD => libc::EPOLL_CTL_MOD,
                _ => libc::EPOLL_CTL_DEL,
            };
            let mut hev = libc::epoll_event { events, u64: fd };
            // SAFETY: `hev` is a valid epoll_event; `raw` is a host
            // descriptor the guest holds.
            let r = unsafe { libc::epoll_ctl(ep.host.as_raw_fd(), hop, raw, &mut hev) };
            if r < 0 {
                return Err(from_host_errno(
                    std::io::Error::last_os_error().raw_os_error().unwrap_or(5),
                ));
            }
            match (op, has_host) {
                (EPOLL_CTL_ADD, _) => ep.hosted.push(HostEntry {
                    fd,
                    obj: Rc::downgrade(&target),
                    data,
                }),
                (EPOLL_CTL_MOD, Some(i)) => ep.hosted[i].data = data,
                (_, Some(i)) => {
                    ep.hosted.remove(i);
                }
                _ => {}
            }
        }
        Kind::Nested(raw) if op != EPOLL_CTL_MOD => {
            // The host checks loops and depth (ELOOP) as Linux does, since
            // host nesting mirrors the guest's.
            let hop = if op == EPOLL_CTL_ADD {
                libc::EPOLL_CTL_ADD
            } else {
                libc::EPOLL_CTL_DEL
            };
            let mut hev = libc::epoll_event {
                events: libc::EPOLLIN as u32,
                u64: nest_key(fd),
            };
            // SAFETY: `hev` is a valid epoll_event; `raw` is the nested
            // instance's host epoll descriptor.
            let r = unsafe { libc::epoll_ctl(ep.host.as_raw_fd(), hop, raw, &mut hev) };
            if r < 0 {
                return Err(from_host_errno(
                    std::io::Error::last_os_error().raw_os_error().unwrap_or(5),
                ));
            }
            local_ctl(ep, op, has_local, fd, &target, (events, data), Some(raw));
        }
        Kind::Nested(raw) => local_ctl(ep, op, has_local, fd, &target, (events, data), Some(raw)),
        Kind::Local => local_ctl(ep, op, has_local, fd, &target, (events, data), None),
    }
    Ok(0)
}

/// ADD, MOD or DEL of a local entry (`nested`: the host epoll of a nested
/// instance, watched for edges when `events` has EPOLLET).
fn local_ctl(
    ep: &mut Epoll,
    op: u64,
    has_local: Option<usize>,
    fd: u64,
    target: &Rc<RefCell<Object>>,
    (events, data): (u32, u64),
    nested: Option<std::os::fd::RawFd>,
) {
    let edge = nested
        .filter(|_| events & EPOLLET != 0)
        .and_then(edge_watch);
    match (op, has_local) {
        (EPOLL_CTL_ADD, _) => ep.local.push(Entry {
            fd,
            obj: Rc::downgrade(target),
            events,
            data,
            last_gen: None,
            disabled: false,
            edge,
            host_edge: Default::default(),
        }),
        (EPOLL_CTL_MOD, Some(i)) => {
            let e = &mut ep.local[i];
            e.events = events;
            e.data = data;
            e.last_gen = None;
            e.disabled = false;
            e.edge = edge;
            e.host_edge.set(false);
        }
        (_, Some(i)) => {
            ep.local.remove(i);
        }
        _ => {}
    }
}

/// A guest-only object's change counter at `now` (edge triggering). An
/// epoll instance's combines those of what it watches guest-side (so a
/// write to a pipe in it is a new event for an instance watching it with
/// EPOLLET; its host-backed descriptors' events come as host edges, see
/// [`Entry::edge`]).
fn generation(o: &Object, now: u64) -> u64 {
    match o {
        Object::PipeRead(pb) | Object::PipeWrite(pb) => pb.borrow().gen,
        Object::TimerFd(t) => {
            let mut t = t.clone();
            t.settle(now);
            t.gen
        }
        Object::Epoll(inner) => inner.local.iter().filter_map(|e| e.obj.upgrade()).fold(
            inner.local.len() as u64,
            |acc, o| {
                let g = o.try_borrow().map_or(0, |o| generation(&o, now));
                acc.wrapping_mul(0x100_0000_01b3).wrapping_add(g)
            },
        ),
        _ => 0,
    }
}

/// The events entry `e` would report now (0: none), and its object's
/// change counter.
fn local_report(p: &Process, host: &dyn Host, e: &Entry) -> (u32, u64) {
    if e.disabled {
        return (0, 0);
    }
    let Some(obj) = e.obj.upgrade() else {
        return (0, 0);
    };
    let want = (e.events & (EPOLLIN | EPOLLOUT | EPOLLRDHUP)) | EPOLLERR | EPOLLHUP;
    let o = obj.borrow();
    if let Object::Epoll(inner) = &*o {
        // A nested instance is readable while it has events to report;
        // with EPOLLET only when something new happened in it since the
        // last report (its guest-side generation moved, or a host edge).
        let gen = generation(&o, p.clock_ns());
        if let Some(fd) = &e.edge {
            if edge_fired(fd) {
                e.host_edge.set(true);
            }
        }
        let fresh = e.events & EPOLLET == 0 || e.last_gen != Some(gen) || e.host_edge.get();
        let got = if fresh && ready(p, host, inner) {
            EPOLLIN
        } else {
            0
        } & want;
        return (got, gen);
    }
    let rev = super::syscall::object_revents(host, &o, p.clock_ns(), want as i16) as u16 as u32;
    let gen = generation(&o, p.clock_ns());
    let got = rev & want;
    if got == 0 || (e.events & EPOLLET != 0 && e.last_gen == Some(gen)) {
        return (0, gen);
    }
    (got, gen)
}

/// Report entry `e` if it has events: record the report (edge and
/// one-shot bookkeeping) and return the events.
fn local_take(p: &Process, host: &dyn Host, e: &mut Entry) -> u32 {
    let (got, gen) = local_report(p, host, e);
    if got != 0 {
        e.last_gen = Some(gen);
        e.host_edge.set(false);
        if e.events & EPOLLONESHOT != 0 {
            e.disabled = true;
        }
    }
    got
}

/// Whether guest epoll `ep` has something to report now (without
/// consuming edges): for `poll` on an epoll descriptor.
pub fn ready(p: &Process, host: &dyn Host, ep: &Epoll) -> bool {
    if ep.local.iter().any(|e| local_report(p, host, e).0 != 0) {
        return true;
    }
    let mut f = libc::pollfd {
        fd: ep.host.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, timeout 0.
    unsafe { libc::poll(&mut f, 1, 0) > 0 }
}

/// The nearest expiry among the timerfds `ep` watches for reading.
fn next_timer(p: &Process, ep: &Epoll) -> Option<u64> {
    let now = p.clock_ns();
    ep.local
        .iter()
        .filter(|e| !e.disabled && e.events & EPOLLIN != 0)
        .filter_map(|e| e.obj.upgrade())
        .filter_map(|o| match &*o.borrow() {
            Object::TimerFd(t) => t.ready_at(now),
            _ => None,
        })
        .min()
}

fn epoll_wait(
    p: &mut Process,
    host: &dyn Host,
    epfd: u64,
    events: u64,
    max: u64,
    timeout: Option<u64>,
) -> Outcome {
    use Outcome::Return as R;
    let max = max as i32;
    if max <= 0 || max as u64 > (i32::MAX as u64) / EVENT_SIZE {
        return R(Err(EINVAL));
    }
    if !p
        .machine
        .mem
        .range_ok(events, max as u64 * EVENT_SIZE, crate::memory::Perm::W)
    {
        return R(Err(EFAULT));
    }
    let epobj = match p.fds.get(epfd) {
        Ok(f) => f.obj.clone(),
        Err(e) => return R(Err(e)),
    };
    let mut out: Vec<(u32, u64)> = Vec::new();
    {
        let mut eb = epobj.borrow_mut();
        let Object::Epoll(ep) = &mut *eb else {
            return R(Err(EINVAL));
        };
        ep.prune();
        for e in ep.local.iter_mut() {
            if out.len() >= max as usize {
                break;
            }
            let got = local_take(p, host, e);
            if got != 0 {
                out.push((got, e.data));
            }
        }
        let room = max as usize - out.len();
        if room > 0 && !ep.hosted.is_empty() {
            let mut hev = vec![libc::epoll_event { events: 0, u64: 0 }; room];
            // SAFETY: `hev` has room for `room` events; timeout 0.
            let n =
                unsafe { libc::epoll_wait(ep.host.as_raw_fd(), hev.as_mut_ptr(), room as i32, 0) };
            for h in hev.iter().take(n.max(0) as usize) {
                let (evs, key) = (h.events, h.u64);
                if let Some(e) = ep.hosted.iter().find(|e| e.fd == key) {
                    out.push((evs, e.data));
                }
            }
        }
    }
    if out.is_empty() {
        let t = p.cur;
        let now = p.clock_ns();
        let at = p.threads[t]
            .timeout_at
            .or(timeout.map(|ns| now.saturating_add(ns)));
        if !(timeout == Some(0) || at.is_some_and(|d| now >= d)) {
            p.threads[t].timeout_at = at;
            let mut waits = vec![Wait::Readable(epfd)];
            if let Object::Epoll(ep) = &*epobj.borrow() {
                waits.extend(next_timer(p, ep).map(Wait::Deadline));
            }
            waits.extend(at.map(Wait::Deadline));
            return Outcome::Block(waits);
        }
        return R(Ok(0));
    }
    let mut b = Vec::with_capacity(out.len() * EVENT_SIZE as usize);
    for (ev, data) in &out {
        b.extend_from_slice(&ev.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&data.to_le_bytes());
    }
    R(put(p, events, &b).map(|_| out.len() as u64))
}

/// `Readable(epfd)` for the scheduler: ready now, or the host epoll
/// descriptor to poll (see [`super::Process::wake_ready`]).
pub fn probe(p: &Process, host: &dyn Host, obj: &Rc<RefCell<Object>>) -> Result<(), i32> {
    let o = obj.borrow();
    let Object::Epoll(ep) = &*o else {
        return Ok(());
    };
    if ep.local.iter().any(|e| local_report(p, host, e).0 != 0) {
        return Ok(());
    }
    Err(ep.host.as_raw_fd())
}

fn timerfd_create(p: &mut Process, clock: u64, flags: u64) -> Result<u64, u64> {
    if flags & !(fs::O_NONBLOCK | fs::O_CLOEXEC) != 0 {
        return Err(EINVAL);
    }
    match clock {
        time::CLOCK_REALTIME
        | time::CLOCK_MONOTONIC
        | time::CLOCK_BOOTTIME
        | time::CLOCK_REALTIME_ALARM
        | time::CLOCK_BOOTTIME_ALARM => {}
        _ => return Err(EINVAL),
    }
    let fd = Fd {
        obj: Rc::new(RefCell::new(Object::TimerFd(TimerFd {
            clock,
            next: None,
            interval: 0,
            ticks: 0,
            gen: 0,
        }))),
        cloexec: flags & fs::O_CLOEXEC != 0,
        flags: fs::O_RDWR | (flags & fs::O_NONBLOCK),
    };
    p.fds.install(fd, 0)
}

/// The timerfd behind guest fd `fd` (EINVAL when it is not one).
fn timer_obj(p: &Process, fd: u64) -> Result<Rc<RefCell<Object>>, u64> {
    let obj = p.fds.get(fd)?.obj.clone();
    if !matches!(&*obj.borrow(), Object::TimerFd(_)) {
        return Err(EINVAL);
    }
    Ok(obj)
}

/// The `struct itimerspec` (interval, value) of a timer now.
fn itimerspec(t: &TimerFd, now: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..16].copy_from_slice(&time::timespec_bytes(t.interval));
    let left = t.next.map_or(0, |n| n.saturating_sub(now).max(1));
    b[16..].copy_from_slice(&time::timespec_bytes(left));
    b
}

fn timerfd_settime(p: &mut Process, fd: u64, flags: u64, new: u64, old: u64) -> Result<u64, u64> {
    if flags & !(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET) != 0 {
        return Err(EINVAL);
    }
    let b = read_mem(p, new, 32)?;
    let q = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]));
    let interval = time::timespec_ns(q(0), q(8))?;
    let value = time::timespec_ns(q(16), q(24))?;
    let obj = timer_obj(p, fd)?;
    let now = p.clock_ns();
    let clock = match &*obj.borrow() {
        Object::TimerFd(t) => t.clock,
        _ => return Err(EINVAL),
    };
    let (_, offset) = p.clock.domain_of(clock, p.insns)?;
    let prev = {
        let mut o = obj.borrow_mut();
        let Object::TimerFd(t) = &mut *o else {
            return Err(EINVAL);
        };
        t.settle(now);
        itimerspec(t, now)
    };
    if old != 0 {
        put(p, old, &prev)?;
    }
    let mut o = obj.borrow_mut();
    let Object::TimerFd(t) = &mut *o else {
        return Err(EINVAL);
    };
    t.ticks = 0;
    t.interval = interval;
    t.next = if value == 0 {
        None
    } else if flags & TFD_TIMER_ABSTIME != 0 {
        Some((value as i128 + offset).clamp(0, u64::MAX as i128) as u64)
    } else {
        Some(now.saturating_add(value))
    };
    // A deadline already past expires at once (an absolute time before now).
    t.settle(now);
    Ok(0)
}

fn timerfd_gettime(p: &mut Process, fd: u64, cur: u64) -> Result<u64, u64> {
    let obj = timer_obj(p, fd)?;
    let now = p.clock_ns();
    let b = {
        let mut o = obj.borrow_mut();
        let Object::TimerFd(t) = &mut *o else {
            return Err(EINVAL);
        };
        t.settle(now);
        itimerspec(t, now)
    };
    put(p, cur, &b).map(|_| 0)
}

/// `read` of a timerfd: the unread expirations as 8 bytes, or EAGAIN
/// (`None`: the caller blocks a blocking descriptor).
pub fn timerfd_read(t: &mut TimerFd, now: u64, len: usize) -> Result<Option<Vec<u8>>, u64> {
    if len < 8 {
        return Err(EINVAL);
    }
    t.settle(now);
    if t.ticks == 0 {
        return Ok(None);
    }
    let n = std::mem::take(&mut t.ticks);
    Ok(Some(n.to_le_bytes().to_vec()))
}
