//! Helpers shared by the integration tests.

// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

pub mod pty;
pub mod syslog;

/// What one run of rsh did.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn of(out: std::process::Output) -> Run {
        Run {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "status: {}\nstdout: {:?}\nstderr: {:?}",
            self.status, self.stdout, self.stderr
        )
    }

    pub fn assert_stderr_has(&self, text: &str) {
        assert!(
            self.stderr.contains(text),
            "expected {text:?} on stderr\n{}",
            self.describe()
        );
    }

    pub fn assert_stdout_has(&self, text: &str) {
        assert!(
            self.stdout.contains(text),
            "expected {text:?} on stdout\n{}",
            self.describe()
        );
    }
}

/// Starts `command` in a session of its own, without a controlling terminal: a command the
/// policy asks about is refused, as under cron or `ssh host cmd`, instead of asking on the
/// terminal of whoever runs the tests.
pub fn without_terminal(command: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        })
    }
}

/// Runs the rsh under test with `--policy POLICY ARGS…` in `dir`, stdin empty, without a
/// controlling terminal.
pub fn run_rsh(policy: &std::path::Path, dir: &std::path::Path, args: &[&str]) -> Run {
    let out = without_terminal(&mut std::process::Command::new(env!("CARGO_BIN_EXE_rsh")))
        .arg("--policy")
        .arg(policy)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run rsh");
    Run::of(out)
}

/// The pids of the processes whose command line has `arg` as an argument (to find, or make
/// sure there is no more, a process a test started with a unique argument).
pub fn processes_with_arg(arg: &str) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|&b| b == 0).any(|a| a == arg.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// A throwaway user (and a group it belongs to) for tests that run rsh as someone other than
/// root: the same on every test run, made by `test_user`.
pub const TEST_USER: &str = "rsh-t-ann";
pub const TEST_GROUP: &str = "rsh-t-ops";

/// The test user's uid and gid (a member of `TEST_GROUP`), made once; None (with a message)
/// where that is impossible.
pub fn test_user() -> Option<(u32, u32)> {
    static MADE: std::sync::OnceLock<Option<(u32, u32)>> = std::sync::OnceLock::new();
    *MADE.get_or_init(|| {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("SKIPPED: making a test user needs root");
            return None;
        }
        let run = |program: &str, args: &[&str]| {
            std::process::Command::new(program)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if nix::unistd::Group::from_name(TEST_GROUP)
            .ok()
            .flatten()
            .is_none()
        {
            run("groupadd", &[TEST_GROUP]);
        }
        if nix::unistd::User::from_name(TEST_USER)
            .ok()
            .flatten()
            .is_none()
        {
            run(
                "useradd",
                &[
                    "-M",
                    "-N",
                    "-s",
                    "/usr/sbin/nologin",
                    "-G",
                    TEST_GROUP,
                    TEST_USER,
                ],
            );
        }
        match nix::unistd::User::from_name(TEST_USER) {
            Ok(Some(user)) => Some((user.uid.as_raw(), user.gid.as_raw())),
            _ => {
                eprintln!("SKIPPED: could not make the user {TEST_USER} (useradd, groupadd)");
                None
            }
        }
    })
}

/// Whether rsh, run as this process, gives its programs the read-only view: root with
/// CAP_SYS_ADMIN.
pub fn has_view() -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let effective = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    root && effective & (1 << CAP_SYS_ADMIN) != 0
}

/// How the kernel refuses a program's write outside the write roots: the read-only view
/// answers before Landlock does.
pub fn write_refused() -> i32 {
    if has_view() {
        libc::EROFS
    } else {
        libc::EACCES
    }
}
