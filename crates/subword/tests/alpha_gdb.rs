//! `subword alpha run -g PORT` under a real `gdb-multiarch`: connect, break
//! at `main`, single-step, read registers and memory, a write watchpoint on
//! a global, continue to the exit (whose status GDB and subword report).

use std::process::{Command, Stdio};

const PROG: &str = r#"
#include <stdio.h>
int counter;
int add(int a, int b) { return a + b; }
int main(void) {
    for (int i = 0; i < 3; i++) counter = add(counter, i + 1);
    printf("counter %d\n", counter);
    return 7;
}
"#;

#[test]
fn gdb_breaks_at_main_steps_reads_registers_and_memory_watches_and_continues_to_exit() {
    let test = "gdb_session";
    let Some(gdb) = testkit::require_tool(test, "gdb-multiarch", "gdb-multiarch") else {
        return;
    };
    let Some(gcc) = testkit::alpha_gcc(test) else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_gdb");
    let bin = testkit::compile_c(
        &gcc,
        &dir,
        "gprog",
        PROG,
        &["-O1", "-g", "-static", "-Wl,--no-relax"],
    );
    // A free port: bind, read it, release (the stub binds it again).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut guest = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "run", "-g", &port.to_string()])
        .arg(&bin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start subword");
    // GDB may come before the stub listens: retry the connection (a
    // readiness wait, not part of the verdict).
    let mut text = String::new();
    for _ in 0..100 {
        let out = Command::new(&gdb)
            .args(["-batch", "-nx"])
            .args(["-ex", "set architecture alpha:ev6"])
            .args(["-ex", &format!("file {}", bin.display())])
            .args(["-ex", &format!("target remote 127.0.0.1:{port}")])
            .args(["-ex", "break main", "-ex", "continue"])
            .args(["-ex", "stepi", "-ex", "info registers pc"])
            .args(["-ex", "print/x $zero", "-ex", "x/1xw main"])
            .args([
                "-ex",
                "watch counter",
                "-ex",
                "continue",
                "-ex",
                "print counter",
            ])
            .args(["-ex", "delete", "-ex", "continue"])
            .output()
            .expect("run gdb");
        text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        if !text.contains("Connection refused") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let g = guest.wait().expect("subword ends");
    let mut stdout = String::new();
    use std::io::Read;
    guest
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(text.contains("Breakpoint 1, main () at"), "{text}");
    // One instruction after the breakpoint: pc is main+4.
    assert!(
        text.lines()
            .any(|l| l.starts_with("pc ") && l.contains("<main+4>")),
        "{text}"
    );
    assert!(text.contains("$1 = 0x0"), "r31 reads zero:\n{text}");
    // The first word of main as the ELF holds it (ldah gp,…(t12): 0x27bb….).
    assert!(
        text.lines().any(|l| l.contains("<main>:\t0x27bb")),
        "{text}"
    );
    assert!(text.contains("Hardware watchpoint 2: counter"), "{text}");
    assert!(text.contains("New value = 6"), "{text}");
    assert!(text.contains("exited with code 07"), "{text}");
    assert_eq!(g.code(), Some(7));
    assert_eq!(stdout, "counter 6\n");
}
