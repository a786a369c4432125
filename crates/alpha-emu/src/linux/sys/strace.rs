//! `--strace` formatting of system-call arguments, by the argument kinds
//! of each call's row in [`super::TABLE`].

use super::fsmeta::AT_FDCWD;
use crate::linux::fs;
use crate::linux::signal;
use crate::linux::uaccess::read_cstr;
use crate::linux::{time, Process};

pub(crate) const OPEN_FLAGS: &[(u64, &str)] = &[
    (fs::O_CREAT, "O_CREAT"),
    (fs::O_EXCL, "O_EXCL"),
    (fs::O_TRUNC, "O_TRUNC"),
    (fs::O_APPEND, "O_APPEND"),
    (fs::O_NONBLOCK, "O_NONBLOCK"),
    (fs::O_DIRECTORY, "O_DIRECTORY"),
    (fs::O_CLOEXEC, "O_CLOEXEC"),
];
pub(crate) const PROT_FLAGS: &[(u64, &str)] =
    &[(4, "PROT_EXEC"), (1, "PROT_READ"), (2, "PROT_WRITE")];
pub(crate) const MAP_FLAGS: &[(u64, &str)] = &[
    (0x01, "MAP_SHARED"),
    (0x02, "MAP_PRIVATE"),
    (0x10, "MAP_ANONYMOUS"),
    (0x100, "MAP_FIXED"),
    (0x2000, "MAP_DENYWRITE"),
    (0x80000, "MAP_STACK"),
];

/// `A|B|…` for the bits of `v` named in `names`; `base` (< 4) picks a
/// leading access-mode name; bits without a name are printed in hex.
pub(crate) fn flag_names(v: u64, base: u64, names: &[(u64, &str)], modes: [&str; 4]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = v;
    if base < 4 {
        parts.push(modes[base as usize].to_string());
        rest &= !3;
    }
    for (bit, name) in names {
        if rest & bit != 0 {
            parts.push(name.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 || parts.is_empty() {
        parts.push(format!("0x{rest:x}"));
    }
    parts.join("|")
}

pub(crate) fn strace_args(p: &Process, nr: u64, a: &[u64; 6]) -> String {
    let kinds = super::lookup(nr).map_or("xxx", |c| c.args);
    let mut parts = Vec::new();
    for (i, k) in kinds.chars().enumerate() {
        let v = a[i];
        parts.push(match k {
            k if crate::linux::net::STRACE_KINDS.contains(k) => {
                crate::linux::net::strace_arg(p, k, i, a)
            }
            'd' => format!("{}", v as i64),
            'o' => format!("0{v:o}"),
            'c' => time::clock_name(v).map_or_else(|| format!("{}", v as i64), str::to_string),
            'w' => match v {
                0 => "ITIMER_REAL".to_string(),
                1 => "ITIMER_VIRTUAL".to_string(),
                2 => "ITIMER_PROF".to_string(),
                _ => format!("{}", v as i64),
            },
            'T' if v == time::TIMER_ABSTIME => "TIMER_ABSTIME".to_string(),
            'T' => format!("{}", v as i64),
            't' => match time::read_timespec_raw(p, v) {
                Some((sec, nsec)) => format!("{{tv_sec = {sec},tv_nsec = {nsec}}}"),
                None if v == 0 => "NULL".to_string(),
                None => format!("0x{v:x}"),
            },
            'f' if v == AT_FDCWD => "AT_FDCWD".to_string(),
            'f' => format!("{}", v as i64),
            'O' => flag_names(
                v,
                v & 3,
                OPEN_FLAGS,
                ["O_RDONLY", "O_WRONLY", "O_RDWR", "3"],
            ),
            'P' if v == 0 => "PROT_NONE".to_string(),
            'P' => flag_names(v, 4, PROT_FLAGS, ["", "", "", ""]),
            'M' => flag_names(v, 4, MAP_FLAGS, ["", "", "", ""]),
            'C' => crate::linux::process::clone_flag_names(v),
            'W' => crate::linux::process::wait_option_names(v),
            'S' if (1..=signal::NSIG as u64).contains(&v) => signal::name(v as u8),
            'A' if v != 0 => crate::linux::process::strace_str_array(p, v),
            's' => match read_cstr(p, v) {
                Ok(s) => format!("\"{}\"", String::from_utf8_lossy(&s)),
                Err(_) => format!("0x{v:x}"),
            },
            _ if v == 0 => "NULL".to_string(),
            _ => format!("0x{v:x}"),
        });
    }
    parts.join(",")
}
