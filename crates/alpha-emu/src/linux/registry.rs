//! The guest processes of one process tree, published for each other's
//! guest `/proc` ([`super::procfs`]): guest processes are host processes,
//! and what the host's `/proc` knows of them (a `subword` command line)
//! is not what the guest should see, so each guest process writes its own
//! `comm`, executable and command line into a slot of a shared anonymous
//! mapping that every process of the tree inherits through `fork`.
//!
//! The mapping's first page holds the tree's live-process counter
//! (`--max-processes`, see [`super::process`]) and the number of slots
//! ever used; each further page is one slot. A slot belongs to the host
//! pid written in it, and counts only while that host process is the one
//! that wrote it (its start time in the host's `/proc/PID/stat` is the one
//! recorded): a process that ended, however it ended, leaves a slot that
//! the next claimant takes over. Contents are written under a sequence
//! count (odd while written) and read until two counts agree, in words
//! that are atomics, so neither side ever sees torn text.
//!
//! Only the pages of slots used are touched; a tree of a few processes
//! costs a few pages. A tree with more live processes than slots leaves
//! the later ones out of the guest `/proc`.

use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

/// Bytes of the header and of each slot (one small page each).
const PAGE: usize = 4096;
/// Most slots a tree has (later processes are not listed).
pub const MAX_SLOTS: usize = 16384;
/// Words of text in a slot: after pid, sequence and start time.
const WORDS: usize = (PAGE - 16) / 8;

#[repr(C)]
struct Header {
    /// Live processes of the tree, the root not counted.
    live: AtomicU32,
    /// Slots ever claimed (those at or after it are untouched).
    used: AtomicU32,
}

#[repr(C)]
struct Slot {
    pid: AtomicI32,
    seq: AtomicU32,
    /// The owner's start time (`/proc/PID/stat` field 22).
    start: AtomicU64,
    words: [AtomicU64; WORDS],
}

/// What a guest process publishes of itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub pid: i32,
    /// `comm` (at most 15 bytes).
    pub comm: Vec<u8>,
    /// The executable's host path (`/proc/PID/exe`).
    pub exe: Vec<u8>,
    /// argv, each NUL-terminated (`/proc/PID/cmdline`), cut to fit a slot.
    pub cmdline: Vec<u8>,
}

/// A tree's shared mapping (its address; copied into every forked child
/// along with the mapping itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registry {
    base: usize,
    slots: usize,
}

/// The start time of host process `pid`, or None when there is none.
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state …": comm may hold spaces and parentheses; the
    // start time is field 22, the 20th after comm.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

impl Registry {
    /// Map a registry for a tree of at most `max` live processes besides
    /// its root. `None`: the host refused the mapping.
    pub fn map(max: u32) -> Option<Registry> {
        let slots = (max as usize).saturating_add(1).min(MAX_SLOTS);
        let len = PAGE * (1 + slots);
        // SAFETY: a fresh shared anonymous mapping, never unmapped (forked
        // children share it); NORESERVE: untouched slots cost nothing.
        let a = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        (a != libc::MAP_FAILED).then_some(Registry {
            base: a as usize,
            slots,
        })
    }

    fn header(&self) -> &'static Header {
        // SAFETY: `base` is a live mapping of at least a page, zeroed at
        // creation (all-zero atomics are valid), never unmapped.
        unsafe { &*(self.base as *const Header) }
    }

    fn slot(&self, i: usize) -> &'static Slot {
        debug_assert!(i < self.slots);
        // SAFETY: slot `i` is inside the mapping (i < slots), as above.
        unsafe { &*((self.base + PAGE * (1 + i)) as *const Slot) }
    }

    /// The tree's live-process counter.
    pub fn live(&self) -> &'static AtomicU32 {
        &self.header().live
    }

    fn used(&self) -> usize {
        (self.header().used.load(Ordering::Acquire) as usize).min(self.slots)
    }

    /// Does slot `s` belong to a live process (the one that wrote it)?
    fn owned(s: &Slot) -> Option<i32> {
        let pid = s.pid.load(Ordering::Acquire);
        (pid > 0 && start_time(pid) == Some(s.start.load(Ordering::Acquire))).then_some(pid)
    }

    /// Claim a slot for this host process (`pid`, started at `start`):
    /// a free one, one whose owner is gone, or a new one.
    fn claim(&self, pid: i32, start: u64) -> Option<usize> {
        for i in 0..self.used() {
            let s = self.slot(i);
            let cur = s.pid.load(Ordering::Acquire);
            if cur == pid {
                return Some(i);
            }
            if (cur == 0 || Self::owned(s).is_none())
                && s.pid
                    .compare_exchange(cur, pid, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                s.start.store(start, Ordering::Release);
                return Some(i);
            }
        }
        let i = self.header().used.fetch_add(1, Ordering::AcqRel) as usize;
        if i >= self.slots {
            self.header().used.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        let s = self.slot(i);
        s.pid.store(pid, Ordering::Release);
        s.start.store(start, Ordering::Release);
        Some(i)
    }

    /// Publish `e` for this host process, in slot `hint` when it still
    /// holds it; returns the slot (None: no slot left, or no start time).
    pub fn publish(&self, hint: Option<usize>, e: &Entry) -> Option<usize> {
        let start = start_time(e.pid)?;
        let i = match hint {
            Some(i) if i < self.slots && self.slot(i).pid.load(Ordering::Acquire) == e.pid => i,
            _ => self.claim(e.pid, start)?,
        };
        let s = self.slot(i);
        let text = encode(e);
        s.seq.fetch_add(1, Ordering::AcqRel);
        for (w, chunk) in s.words.iter().zip(text.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            w.store(u64::from_le_bytes(b), Ordering::Relaxed);
        }
        s.seq.fetch_add(1, Ordering::AcqRel);
        Some(i)
    }

    /// Give slot `i` up (this process stops being a guest process).
    pub fn withdraw(&self, i: usize, pid: i32) {
        if i < self.slots {
            let _ = self
                .slot(i)
                .pid
                .compare_exchange(pid, 0, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    fn read(&self, i: usize) -> Option<Entry> {
        let s = self.slot(i);
        for _ in 0..1000 {
            let a = s.seq.load(Ordering::Acquire);
            if a % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let bytes: Vec<u8> = s
                .words
                .iter()
                .flat_map(|w| w.load(Ordering::Relaxed).to_le_bytes())
                .collect();
            if s.seq.load(Ordering::Acquire) == a {
                let pid = Self::owned(s)?;
                return decode(pid, &bytes);
            }
        }
        None
    }

    /// Every live guest process of the tree, by pid.
    pub fn list(&self) -> Vec<Entry> {
        let mut v: Vec<Entry> = (0..self.used()).filter_map(|i| self.read(i)).collect();
        v.sort_by_key(|e| e.pid);
        v.dedup_by_key(|e| e.pid);
        v
    }

    /// The guest process with host pid `pid`, if it is one of the tree.
    pub fn get(&self, pid: i32) -> Option<Entry> {
        (0..self.used())
            .filter(|&i| self.slot(i).pid.load(Ordering::Acquire) == pid)
            .find_map(|i| self.read(i))
    }
}

/// comm (16 bytes, NUL-padded), exe length and cmdline length (u16 each),
/// exe, cmdline; cut to a slot.
fn encode(e: &Entry) -> Vec<u8> {
    let room = WORDS * 8 - 20;
    let exe = &e.exe[..e.exe.len().min(room / 2)];
    let cmd = &e.cmdline[..e.cmdline.len().min(room - exe.len())];
    let mut b = vec![0u8; 16];
    let c = &e.comm[..e.comm.len().min(15)];
    b[..c.len()].copy_from_slice(c);
    b.extend_from_slice(&(exe.len() as u16).to_le_bytes());
    b.extend_from_slice(&(cmd.len() as u16).to_le_bytes());
    b.extend_from_slice(exe);
    b.extend_from_slice(cmd);
    b
}

fn decode(pid: i32, b: &[u8]) -> Option<Entry> {
    let comm: Vec<u8> = b
        .get(..16)?
        .iter()
        .copied()
        .take_while(|&c| c != 0)
        .collect();
    let el = u16::from_le_bytes([*b.get(16)?, *b.get(17)?]) as usize;
    let cl = u16::from_le_bytes([*b.get(18)?, *b.get(19)?]) as usize;
    let exe = b.get(20..20 + el)?.to_vec();
    let cmdline = b.get(20 + el..20 + el + cl)?.to_vec();
    Some(Entry {
        pid,
        comm,
        exe,
        cmdline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_entries_are_listed_and_withdrawn_ones_are_not() {
        let r = Registry::map(4).expect("map");
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let e = Entry {
            pid: me,
            comm: b"prog".to_vec(),
            exe: b"/bin/prog".to_vec(),
            cmdline: b"prog\0-x\0".to_vec(),
        };
        let slot = r.publish(None, &e).expect("slot");
        assert_eq!(r.list(), vec![e.clone()]);
        assert_eq!(r.get(me), Some(e.clone()));
        // Publishing again updates the same slot.
        let e2 = Entry {
            comm: b"other".to_vec(),
            ..e.clone()
        };
        assert_eq!(r.publish(Some(slot), &e2), Some(slot));
        assert_eq!(r.list(), vec![e2]);
        r.withdraw(slot, me);
        assert!(r.list().is_empty());
        assert_eq!(r.get(me), None);
    }

    #[test]
    fn a_slot_whose_owner_is_gone_is_not_listed() {
        let r = Registry::map(2).expect("map");
        // A pid with a start time that does not match any live process.
        let s = r.slot(0);
        r.header().used.store(1, Ordering::Release);
        s.pid.store(1, Ordering::Release);
        s.start.store(u64::MAX, Ordering::Release);
        assert!(r.list().is_empty());
    }

    #[test]
    fn long_text_is_cut_to_the_slot() {
        let e = Entry {
            pid: 1,
            comm: b"a-very-long-command-name".to_vec(),
            exe: vec![b'x'; 5000],
            cmdline: vec![b'y'; 5000],
        };
        let b = encode(&e);
        assert!(b.len() <= WORDS * 8);
        let d = decode(1, &b).unwrap();
        assert_eq!(d.comm, b"a-very-long-com");
        assert!(d.exe.len() + d.cmdline.len() <= WORDS * 8 - 20);
    }
}
