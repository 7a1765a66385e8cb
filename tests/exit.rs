//! How rsh ends: its memory is undone by a helper that ends with it (see
//! `src/spawn/teardown.rs`). The only test in its binary, because it makes the test process a
//! subreaper: the helper, orphaned when rsh exits, comes to it, where it can be seen.

mod common;

use std::time::{Duration, Instant};

use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

#[test]
fn the_helper_that_undoes_rsh_s_memory_ends_with_it_and_holds_nothing() {
    // SAFETY: prctl with integer arguments.
    assert_eq!(
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) },
        0
    );
    let dir = std::env::temp_dir();
    let out = common::without_terminal(&mut std::process::Command::new(env!("CARGO_BIN_EXE_rsh")))
        .args(["-c", "/bin/echo hello; echo world"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run rsh");
    // `output` read both pipes to their end: the helper's copies of them were closed.
    let run = common::Run::of(out);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, "hello\nworld\n", "{}", run.describe());

    let mut helpers = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Ok(WaitStatus::StillAlive) => panic!("a helper of rsh outlived it by 10 s"),
            Ok(status) => helpers.push(status),
            Err(nix::errno::Errno::ECHILD) => break,
            Err(e) => panic!("waitpid: {e}"),
        }
    }
    assert_eq!(helpers.len(), 1, "one helper, orphaned to us: {helpers:?}");
    assert!(
        matches!(helpers[0], WaitStatus::Exited(_, 0)),
        "{helpers:?}"
    );
}
