//! End-to-end evidence for the assembler and ELF writer: the programs in
//! `tests/programs/*.s` are assembled by subword into static executables
//! and run under `qemu-alpha`; stdout and exit status must match the
//! `# expect-stdout:` / `# expect-status:` lines at the top of each file.

use alpha_isa::assemble;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Run to completion, or kill the child and give `None` after `limit`.
fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Option<Output> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stdout = Vec::new();
            let mut stderr = Vec::new();
            child
                .stdout
                .take()
                .unwrap()
                .read_to_end(&mut stdout)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_end(&mut stderr)
                .unwrap();
            return Some(Output {
                status,
                stdout,
                stderr,
            });
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn qemu_runs_subword_assembled_programs() {
    let Some(qemu) = testkit::require_tool("qemu_runs", "qemu-alpha", "qemu-user") else {
        return;
    };
    let dir = testkit::scratch_dir("qemu_runs");
    let progs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut files: Vec<_> = std::fs::read_dir(&progs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut ran = 0;
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "s"))
    {
        let src = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let want_out = src
            .lines()
            .find_map(|l| l.strip_prefix("# expect-stdout: "))
            .unwrap_or_else(|| panic!("{name}: no expect-stdout line"))
            .replace("\\n", "\n");
        let want_status: i32 = src
            .lines()
            .find_map(|l| l.strip_prefix("# expect-status: "))
            .unwrap_or_else(|| panic!("{name}: no expect-status line"))
            .trim()
            .parse()
            .unwrap();
        let prog = assemble(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        let exe = dir.join(name.trim_end_matches(".s"));
        std::fs::write(&exe, prog.to_elf()).unwrap();
        // qemu-user, like execve, wants the file executable.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let out = run_with_timeout(Command::new(&qemu).arg(&exe), Duration::from_secs(30))
            .unwrap_or_else(|| panic!("{name}: still running after 30 s under qemu-alpha"));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want_out,
            "{name} stdout"
        );
        assert_eq!(
            out.status.code(),
            Some(want_status),
            "{name} exit status; stderr {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 3);
}
