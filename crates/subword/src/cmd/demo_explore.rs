//! `subword demo`, the explorer's part: a two-thread Linux program written
//! in assembly (assembled at run time by subword's own assembler, so
//! nothing else needs to be installed), written into the tour's directory
//! and explored by `subword alpha explore` exactly as a user would run it —
//! once storing its two neighbouring bytes with the pre-BWX LDQ_U…STQ_U
//! sequence (drawing the finding's schedule), once with `STB`.

use super::demo::{say, say_hanging};
use std::path::Path;
use std::process::{Command, Stdio};

/// The program (`tests/c/explore_cli/byte_pair.s`, which the explorer's
/// tests assemble too): `_start` clones a thread (CLONE_VM|CLONE_FS|
/// CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, as pthread_create
/// asks); the parent stores 0xaa into byte 0 of `pair`, the thread 0xbb into
/// byte 1 and then sets `done`, which the parent waits for before
/// exit_group. `store_byte` (`*(char *)$16 = $17`) is the file's pre-BWX
/// body, or `STORE_BYTE` in its place.
fn program(store_byte: &str) -> String {
    SOURCE.replace(PRE_BWX, store_byte)
}

const SOURCE: &str = include_str!("../../tests/c/explore_cli/byte_pair.s");

const PRE_BWX: &str = "        insbl   $17, $16, $17
        ldq_u   $1, 0($16)
        mskbl   $1, $16, $1
        bis     $17, $1, $17
        stq_u   $17, 0($16)";

const BWX: &str = "        stb     $17, 0($16)";

/// Writes the program into `dir` and runs `subword alpha explore` on it
/// there, as a user would (a child process of this very binary, its
/// output captured and wrapped to the tour's width). The status and the
/// report's lines.
fn explore(dir: &Path, name: &str, body: &str, options: &[&str]) -> Result<(u8, String), String> {
    let elf = alpha_isa::assemble(&program(body), name)
        .map_err(|e| e.to_string())?
        .to_elf();
    let path = super::demo::write_file(dir, name, &elf)?;
    make_executable(&path)?;
    let prog = format!("./{name}");
    println!("    $ subword alpha explore {} {prog}", options.join(" "));
    let exe = std::env::current_exe().map_err(|e| format!("subword itself: {e}"))?;
    let out = Command::new(exe)
        .args(["alpha", "explore"])
        .args(options)
        .arg(&prog)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running alpha explore: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in stdout
        .lines()
        .chain(String::from_utf8_lossy(&out.stderr).lines())
    {
        super::demo::say_hanging(line, 4);
    }
    let status = out.status.code().unwrap_or(255) as u8;
    Ok((status, stdout))
}

fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

pub fn demo_explore(dir: &Path) -> Result<(), String> {
    println!("== Alpha 6: the schedule explorer finds the lost store in a real program ==");
    println!(
        "A two-thread Alpha Linux program: the main thread stores 0xaa into byte 0 of a quadword,"
    );
    println!(
        "a cloned thread stores 0xbb into byte 1. `alpha explore` runs it under many deterministic"
    );
    println!("schedules, watches every byte, and reports the schedule in which one thread's STQ_U writes");
    println!("back a stale neighbour, with the command that replays it and a picture of it:");
    say(&format!("    $ cd {}", dir.display()));
    let (racy, report) = explore(
        dir,
        "byte_pair_prebwx",
        PRE_BWX,
        &[
            "--cpu",
            "ev4",
            "--schedules",
            "100",
            "--svg",
            "lost-store.svg",
        ],
    )?;
    println!();
    println!("The same program with STB (one byte written, nothing else):");
    let (clean, _) = explore(
        dir,
        "byte_pair_stb",
        BWX,
        &["--cpu", "ev56", "--schedules", "100"],
    )?;
    if racy != 1 || clean != 0 {
        return Err("the explorer demo did not find exactly the pre-BWX lost store".into());
    }
    let replay = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: "))
        .ok_or("the explorer's report has no replay line")?;
    println!();
    println!(
        "The picture of that schedule is lost-store.svg; the schedule replays after the tour too:"
    );
    say(&format!("    $ cd {}", dir.display()));
    say_hanging(&format!("    $ {replay}"), 4);
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stb_variant_replaces_the_pre_bwx_body() {
        let stb = super::program(super::BWX);
        assert!(stb.contains(super::BWX) && !stb.contains("stq_u"));
    }
}
