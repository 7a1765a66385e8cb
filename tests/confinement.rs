//! Every program rsh starts is confined by the kernel, whatever the program then tries.
//!
//! Each test runs the real `rsh` binary in a fresh temporary directory with a small policy that
//! allows the program under test, lets it try something the confinement forbids (read or write
//! outside the roots, start another program, open a network connection, signal rsh, push
//! characters into the terminal, outlive a time limit), and checks the effect first — the
//! canary file is absent, the secret is not in the output, no connection was accepted, no
//! process is left — then rsh's status and message.
//!
//! Where it makes the test meaningful, the same line also runs under `[sandbox] mode = "off"`
//! and must then do the forbidden thing: that proves the line really would have escaped.
//!
//! Landlock ABI 6 and seccomp are required; on a kernel without them every test prints
//! `SKIPPED: …` and passes. A test marked `#[ignore = "needs …"]` checks what only a newer
//! kernel lets rsh enforce (`cargo test --test confinement -- --ignored`).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::{self, Read};
use std::net::TcpListener;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt, symlink};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

mod common;

use common::{has_view, processes_with_arg, write_refused};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

/// No single run of rsh in these tests should take anywhere near this long.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The commands every test policy allows (by name, looked up on `[shell] path`).
const ALLOWED: &[&str] = &[
    "find", "env", "python3", "cat", "touch", "ls", "sleep", "dd", "kill", "nice", "sh", "cp",
    "taskset", "stdbuf", "timeout",
];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Why confinement cannot be tested on this kernel, if it cannot.
fn missing_confinement() -> Option<String> {
    // SAFETY: the documented version query: no attribute, size 0, LANDLOCK_CREATE_RULESET_VERSION.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    if abi < 6 {
        return Some(format!(
            "this kernel's Landlock ABI is {abi} (6 or newer needed; -1: no Landlock)"
        ));
    }
    // A kernel with seccomp filters fails to read the (null) program: EFAULT. Nothing is
    // installed either way.
    // SAFETY: the null pointer is only handed to the kernel, which checks it.
    let rc = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            std::ptr::null::<libc::c_void>(),
        )
    };
    if rc != -1 || io::Error::last_os_error().raw_os_error() != Some(libc::EFAULT) {
        return Some("this kernel cannot filter system calls (seccomp)".to_string());
    }
    None
}

/// Returns from the test, loudly, when the kernel cannot confine.
macro_rules! require_confinement {
    () => {
        if let Some(why) = missing_confinement() {
            eprintln!("SKIPPED: {why}");
            return;
        }
    };
}

/// Whether a control that needs root's privileges can run; says so loudly when it cannot.
fn root_for_control() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("SKIPPED (control only): not running as root");
    }
    root
}

/// A policy: the parts tests change, the rest fixed.
#[derive(Clone)]
struct Policy {
    mode: &'static str,
    /// The body of `[paths]`.
    paths: String,
    /// The body of `[limits]`.
    limits: String,
    /// Commands allowed besides `ALLOWED`.
    allow: Vec<String>,
    /// Lines after `allow` in `[commands]` (command profiles), then any further tables.
    commands: String,
}

impl Policy {
    /// Enforced confinement: read everywhere, write in the directory rsh starts in, no network,
    /// no subprocesses, a 10 s timeout.
    fn new() -> Policy {
        Policy {
            mode: "enforce",
            paths: r#"read = ["/"]
write = ["."]
exec = ["/usr/bin", "/bin"]"#
                .to_string(),
            limits: "timeout = 10".to_string(),
            allow: Vec::new(),
            commands: String::new(),
        }
    }

    fn mode(mut self, mode: &'static str) -> Policy {
        self.mode = mode;
        self
    }

    /// The control: the same policy with nothing confined.
    fn off(&self) -> Policy {
        self.clone().mode("off")
    }

    fn paths(mut self, body: &str) -> Policy {
        self.paths = body.to_string();
        self
    }

    /// The paths so far, with `path` denied.
    fn deny(self, path: &Path) -> Policy {
        let paths = format!("{}\ndeny = [{path:?}]", self.paths);
        self.paths(&paths)
    }

    fn limits(mut self, body: &str) -> Policy {
        self.limits = body.to_string();
        self
    }

    fn allow(mut self, command: &str) -> Policy {
        self.allow.push(command.to_string());
        self
    }

    fn commands(mut self, text: &str) -> Policy {
        self.commands = text.to_string();
        self
    }

    fn text(&self) -> String {
        let allow: Vec<String> = ALLOWED
            .iter()
            .map(|s| s.to_string())
            .chain(self.allow.iter().cloned())
            .map(|name| format!("{name:?}"))
            .collect();
        format!(
            r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[sandbox]
mode = "{mode}"

[paths]
{paths}

[limits]
{limits}

[commands]
allow = [{allow}]
{commands}
"#,
            mode = self.mode,
            paths = self.paths,
            limits = self.limits,
            allow = allow.join(", "),
            commands = self.commands,
        )
    }
}

/// What one run of rsh left behind.
struct Run {
    /// None: rsh was killed by a signal.
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Run {
    /// rsh's exit status; fails the test if rsh was killed by a signal.
    fn status(&self) -> i32 {
        self.code
            .unwrap_or_else(|| panic!("rsh was killed by a signal\n{}", self.describe()))
    }

    fn describe(&self) -> String {
        format!(
            "status: {:?}, signal: {:?}, after {:?}\nstdout: {:?}\nstderr: {:?}",
            self.code, self.signal, self.elapsed, self.stdout, self.stderr
        )
    }

    fn assert_status(&self, expected: i32) {
        assert_eq!(self.status(), expected, "wrong status\n{}", self.describe());
    }

    fn assert_stderr_has(&self, text: &str) {
        assert!(
            self.stderr.contains(text),
            "expected {text:?} on stderr\n{}",
            self.describe()
        );
    }

    fn assert_stdout_has(&self, text: &str) {
        assert!(
            self.stdout.contains(text),
            "expected {text:?} on stdout\n{}",
            self.describe()
        );
    }

    fn assert_stdout_lacks(&self, text: &str) {
        assert!(
            !self.stdout.contains(text),
            "{text:?} must not be on stdout\n{}",
            self.describe()
        );
    }
}

/// rsh while it runs.
struct Running {
    child: Child,
    stdout: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
    started: Instant,
}

impl Running {
    fn is_done(&mut self) -> bool {
        self.child.try_wait().expect("wait for rsh").is_some()
    }

    /// Waits for rsh (killing it after `TIMEOUT`) and collects what it printed.
    fn finish(mut self) -> Run {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for rsh") {
                break status;
            }
            if self.started.elapsed() > TIMEOUT {
                // What rsh started first, so that nothing is orphaned and left running.
                for pid in descendants(self.child.id() as i32) {
                    // SAFETY: kill with a pid and a signal number.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("rsh ran longer than {TIMEOUT:?}");
            }
            thread::sleep(Duration::from_millis(5));
        };
        let elapsed = self.started.elapsed();
        // A process rsh left behind may still hold the pipes open: then the output read so far
        // is not available, and the run says so instead of waiting for that process.
        let collect = |pipe: &mpsc::Receiver<String>| {
            pipe.recv_timeout(Duration::from_secs(2))
                .unwrap_or_else(|_| "<pipe still open: a process outlived rsh>".to_string())
        };
        Run {
            code: status.code(),
            signal: status.signal(),
            stdout: collect(&self.stdout),
            stderr: collect(&self.stderr),
            elapsed,
        }
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = send.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    receive
}

/// A temporary working directory for rsh, a second directory outside the write root (and
/// outside the read roots of policies that read only `.`), and a third holding the policy.
struct Case {
    dir: tempfile::TempDir,
    outside: tempfile::TempDir,
    conf: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let make = || tempfile::tempdir().expect("create a temporary directory");
        Case {
            dir: make(),
            outside: make(),
            conf: make(),
        }
    }

    /// The directory rsh runs in (`.` in policies).
    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    /// A directory in no root (unless a policy names it).
    fn outside(&self) -> &Path {
        self.outside.path()
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let file = self.file(name);
        if let Some(parent) = file.parent() {
            fs::create_dir_all(parent).expect("create a directory in the case");
        }
        fs::write(&file, text).expect("write a file in the case");
        file
    }

    fn exists(&self, name: &str) -> bool {
        self.file(name).symlink_metadata().is_ok()
    }

    /// `rsh --policy POLICY -c SCRIPT` in the case directory.
    fn run(&self, policy: &Policy, script: &str) -> Run {
        self.spawn(policy, script, |_| {}).finish()
    }

    /// The same, after `setup` has adjusted the command (environment, descriptors).
    fn run_with(&self, policy: &Policy, script: &str, setup: impl FnOnce(&mut Command)) -> Run {
        self.spawn(policy, script, setup).finish()
    }

    /// The same, started by `launcher`: a program, and its arguments, that runs the command
    /// given after them (as setpriv does).
    fn run_launched(&self, launcher: &[&str], policy: &Policy, script: &str) -> Run {
        self.spawn_launched(launcher, policy, script, |_| {})
            .finish()
    }

    fn spawn(&self, policy: &Policy, script: &str, setup: impl FnOnce(&mut Command)) -> Running {
        self.spawn_launched(&[], policy, script, setup)
    }

    fn spawn_launched(
        &self,
        launcher: &[&str],
        policy: &Policy,
        script: &str,
        setup: impl FnOnce(&mut Command),
    ) -> Running {
        let file = self.conf.path().join("policy.toml");
        fs::write(&file, policy.text()).expect("write the policy");
        let mut command = match launcher.split_first() {
            Some((program, arguments)) => {
                let mut command = Command::new(program);
                command.args(arguments).arg(RSH);
                command
            }
            None => Command::new(RSH),
        };
        command
            .arg("--policy")
            .arg(&file)
            .arg("-c")
            .arg(script)
            .current_dir(self.path())
            // Messages in plain ASCII, whatever the locale of the test run.
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        setup(&mut command);
        let mut child = command.spawn().expect("start rsh");
        Running {
            stdout: drain(child.stdout.take().expect("stdout pipe")),
            stderr: drain(child.stderr.take().expect("stderr pipe")),
            child,
            started: Instant::now(),
        }
    }
}

/// Every process below `pid`, children first found by scanning /proc.
fn descendants(pid: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    let pid: i32 = e.file_name().to_str()?.parse().ok()?;
                    let stat = fs::read_to_string(e.path().join("stat")).ok()?;
                    // The field after the command name (in parentheses) is the state, then ppid.
                    let ppid = stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()?;
                    Some((pid, ppid))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// A value nothing else on the machine uses: the test process's pid and the nanoseconds.
fn unique() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .subsec_nanos();
    format!("{}{:09}", std::process::id(), nanos)
}

/// Ends, by pid, every process the test started with `arg` that is still there when the guard
/// is dropped (a test that fails must not leave its `sleep` behind).
struct EndProcessesWith(String);

impl Drop for EndProcessesWith {
    fn drop(&mut self) {
        for pid in processes_with_arg(&self.0) {
            // SAFETY: kill with a pid and a signal number.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// What every attempt program starts with: the modules, and `call` for a libc function
/// (OSError on -1).
const PYTHON_PRELUDE: &str = "import ctypes, os, socket, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    if getattr(libc, name)(*args) == -1:
        raise OSError(ctypes.get_errno(), name)
";

/// Python that makes each attempt (NAME, statements) and prints `NAME ok` or `NAME errno N`,
/// so that a test sees exactly which attempt failed and how.
fn python_attempts(attempts: &[(&str, &str)]) -> String {
    let mut program = String::from(PYTHON_PRELUDE);
    for (name, code) in attempts {
        program.push_str(&format!(
            "try:\n    {code}\n    print({name:?} + ' ok', flush=True)\nexcept OSError as e:\n    print({name:?} + ' errno ' + str(e.errno), flush=True)\n"
        ));
    }
    program
}

/// Writes `hidden.py`, making `attempts` as `python_attempts` does, and returns the line that
/// runs it. The paths the attempts name are in the program, not on rsh's command line: rsh's
/// check of the files a command names never sees them, so only the kernel can refuse them.
fn hidden(case: &Case, attempts: &[(&str, &str)]) -> String {
    let program = case.write("hidden.py", &python_attempts(attempts));
    format!("python3 {}", program.display())
}

/// An attempt that prints what `path` holds.
fn py_read(path: impl AsRef<Path>) -> String {
    format!("sys.stdout.write(open({:?}).read())", path.as_ref())
}

/// An attempt that creates `path` (or opens it for writing).
fn py_create(path: impl AsRef<Path>) -> String {
    format!("open({:?}, 'a').close()", path.as_ref())
}

// ---------------------------------------------------------------------------------------------
// The tests are not vacuous
// ---------------------------------------------------------------------------------------------

#[test]
fn confined_program_still_works() {
    require_confinement!();
    let case = Case::new();
    case.write("in.txt", "hello\n");
    let run = case.run(&Policy::new(), "cat in.txt; touch made; ls");
    run.assert_status(0);
    run.assert_stdout_has("hello\n");
    run.assert_stdout_has("made");
    assert!(case.exists("made"), "touch did not run\n{}", run.describe());
    assert_eq!(run.stderr, "", "{}", run.describe());
}

/// Programs that carry a file's ACL over to the copy they write (`sed -i`, `cp -p`) find
/// extended attributes unsupported, not forbidden, and go on without a word, as on a file
/// system without them.
#[test]
fn editing_in_place_and_copying_with_modes_say_nothing() {
    require_confinement!();
    let case = Case::new();
    let file = case.write("notes", "draft\n");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let policy = Policy::new().allow("sed");
    let run = case.run(
        &policy,
        "sed -i s/draft/final/ notes && cp -p notes kept && cat kept",
    );
    assert_eq!(run.stderr, "", "{}", run.describe());
    run.assert_status(0);
    run.assert_stdout_has("final\n");
    let mode = |name: &str| fs::metadata(case.file(name)).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        (mode("notes"), mode("kept")),
        (0o640, 0o640),
        "{}",
        run.describe()
    );
}

/// The Landlock rulesets a running rsh holds open; None when its descriptors cannot be
/// inspected (rsh is not dumpable: even root needs CAP_SYS_PTRACE, which containers often
/// drop).
fn rulesets_held(rsh: u32) -> Option<usize> {
    let entries = match fs::read_dir(format!("/proc/{rsh}/fd")) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => return None,
        entries => entries.expect("rsh's descriptors"),
    };
    let mut held = 0;
    for entry in entries.flatten() {
        match fs::read_link(entry.path()) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => return None,
            Ok(target) if target.to_string_lossy().contains("landlock-ruleset") => held += 1,
            _ => {}
        }
    }
    Some(held)
}

/// Once the last program of a line has started, rsh closes the layers it kept for later
/// programs (the kernel then frees them while the program runs, not after it); while any
/// other program runs it keeps them. Either way the program stays confined: here it waits,
/// then reads a denied file.
#[test]
fn the_last_program_runs_with_the_kept_layers_closed() {
    require_confinement!();
    if !root_for_control() {
        // rsh cannot be inspected by its own user: it is not dumpable.
        return;
    }
    let case = Case::new();
    let secret = case.write("secret", "sesame\n");
    let policy = Policy::new().deny(&secret);
    let read_later = |pause: &str| {
        format!(
            "python3 -c 'import sys, time; time.sleep(float(sys.argv[1])); print(open(\"secret\").read())' {pause}"
        )
    };
    // The line, with READ for the program; its pause; whether the program is the last one.
    for (line, pause, last) in [
        ("READ; ls", "1.0131", false),
        ("ls; READ", "1.0132", true),
        ("cd . && READ", "1.0133", true),
        ("f() { READ; }; f", "1.0134", false),
    ] {
        let script = line.replace("READ", &read_later(pause));
        let mut running = case.spawn(&policy, &script, |_| {});
        let rsh = running.child.id();
        let deadline = Instant::now() + TIMEOUT;
        while processes_with_arg(pause).is_empty() {
            let gone = running.is_done() || Instant::now() > deadline;
            assert!(!gone, "{script}: python never started");
            thread::sleep(Duration::from_millis(2));
        }
        // rsh closes them just after the program has started: give it a moment.
        let Some(mut held) = rulesets_held(rsh) else {
            running.finish();
            eprintln!("SKIPPED: rsh's descriptors cannot be read (no CAP_SYS_PTRACE)");
            return;
        };
        let settle = Instant::now() + Duration::from_millis(2000);
        while last && held > 0 && Instant::now() < settle {
            thread::sleep(Duration::from_millis(2));
            held = rulesets_held(rsh).expect("rsh's descriptors, read a moment ago");
        }
        let run = running.finish();
        if last {
            assert_eq!(held, 0, "{script}: layers kept\n{}", run.describe());
        } else {
            assert!(held > 0, "{script}: no layer kept\n{}", run.describe());
        }
        run.assert_stdout_lacks("sesame");
        run.assert_stderr_has("Permission denied");
    }
}

/// Links and renames from one directory to another inside a write root work (git stores
/// every pushed object so): the layer that restricts execution must not forbid them, while
/// a file still cannot be linked out of a denied directory.
#[test]
fn links_and_renames_across_directories_work_in_a_write_root() {
    require_confinement!();
    let case = Case::new();
    // The work in w/, beside the denied directory (the case directory itself only lists).
    case.write("w/a/f", "linked\n");
    case.write("w/a/g", "moved\n");
    case.write("hidden/h", "secret\n");
    let policy = Policy::new()
        .allow("ln")
        .allow("mv")
        .allow("mkdir")
        .deny(&case.file("hidden"));
    // python3 links and renames where rsh sees no file names: only the kernel stops it.
    let run = case.run(
        &policy,
        "cd w && mkdir b && ln a/f b/f && mv a/g b/g && cat b/f b/g; \
         python3 -c \"import os; os.link('../hidden/h', 'b/h')\"; \
         python3 -c \"import os; os.rename('../hidden/h', 'b/r')\"",
    );
    run.assert_stdout_has("linked\nmoved\n");
    assert!(
        !case.exists("w/a/g"),
        "mv copied instead of renaming\n{}",
        run.describe()
    );
    assert!(
        !case.exists("w/b/h") && !case.exists("w/b/r") && case.exists("hidden/h"),
        "a denied file was linked or moved out\n{}",
        run.describe()
    );
    // EXDEV for the link (the file would gain access), EACCES for the rename.
    assert_eq!(
        run.stderr.matches("Traceback").count(),
        2,
        "{}",
        run.describe()
    );
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/// A file outside the case directory holding a fresh secret: its path and the secret.
fn secret_outside(case: &Case) -> (PathBuf, String) {
    let secret = format!("secret-{}", unique());
    let file = case.outside().join("secret");
    fs::write(&file, &secret).unwrap();
    (file, secret)
}

/// A secret file outside the case directory, read by `cat` and by a program: confined under
/// `paths`, rsh refuses the `cat` that names it (for `reason`), and the kernel the program that
/// names it only inside; unconfined, both print it.
fn assert_secret_unreadable(paths: impl FnOnce(&Case) -> (String, String)) {
    let case = Case::new();
    let (file, secret) = secret_outside(&case);
    let (paths, reason) = paths(&case);
    let policy = Policy::new().paths(&paths);
    let f = file.display();
    let script = format!(
        "cat {f}; echo \"cat=$?\"; {}",
        hidden(&case, &[("read", &py_read(&file))])
    );

    let run = case.run(&policy, &script);
    run.assert_stdout_lacks(&secret);
    run.assert_stdout_has("cat=126\n");
    run.assert_stderr_has(&format!("rsh: denied: cat {f}: reads {f}: {reason}"));
    run.assert_stdout_has(&format!("read errno {}\n", libc::EACCES));
    run.assert_status(0);

    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has(&format!("{secret}cat=0\n{secret}read ok\n"));
}

#[test]
fn reading_outside_read_roots_is_refused() {
    require_confinement!();
    assert_secret_unreadable(|_| {
        (
            "read = [\".\"]\nwrite = [\".\"]".to_string(),
            "it is outside the read roots (paths.read)".to_string(),
        )
    });
}

#[test]
fn reading_a_denied_path_is_refused() {
    require_confinement!();
    assert_secret_unreadable(|case| {
        let outside = case.outside();
        (
            format!("read = [\"/\"]\nwrite = [\".\"]\ndeny = [{outside:?}]"),
            format!("{} is denied (paths.deny)", outside.display()),
        )
    });
}

/// As root the layer's entries are given their rules by its thread and by the shell together
/// (whoever takes each first). While another process keeps adding and removing entries beside
/// a denied file, every start keeps the file out and still reaches a sibling.
#[test]
fn a_denied_file_stays_out_while_its_directory_changes_under_a_shared_build() {
    require_confinement!();
    let case = Case::new();
    let (denied, secret) = secret_outside(&case);
    let many = case.outside();
    for i in 0..300 {
        fs::write(many.join(format!("f{i}")), format!("sibling-{i}\n")).unwrap();
    }
    let policy = Policy::new().paths(&format!(
        "read = [\"/\"]\nwrite = [\".\"]\ndeny = [{denied:?}]"
    ));
    let script = hidden(
        &case,
        &[
            ("secret", &py_read(&denied)),
            ("sibling", &py_read(many.join("f7"))),
        ],
    );
    /// Ends the churn when the runs end, also when an assertion fails among them (the scope
    /// would otherwise wait for it for ever).
    struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    let stop = std::sync::atomic::AtomicBool::new(false);
    thread::scope(|scope| {
        scope.spawn(|| {
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = fs::create_dir(many.join(format!("d{}", i % 50)));
                let _ = fs::remove_dir(many.join(format!("d{}", (i + 25) % 50)));
                let _ = fs::write(many.join(format!("n{}", i % 40)), "");
                let _ = fs::remove_file(many.join(format!("n{}", (i + 20) % 40)));
                i += 1;
            }
        });
        let _stop = Stop(&stop);
        for _ in 0..20 {
            let run = case.run(&policy, &script);
            run.assert_stdout_lacks(&secret);
            run.assert_stdout_has(&format!("secret errno {}\n", libc::EACCES));
            run.assert_stdout_has("sibling-7\nsibling ok\n");
            run.assert_status(0);
        }
    });
}

/// The file-system layer is built on a second thread while rsh starts; a subshell, a pipeline
/// stage or a substitution forked before it is ready still runs its program inside it. The
/// program names the file only inside, where rsh does not look; `cat` naming it is refused by
/// rsh in the forked shell too.
#[test]
fn first_program_in_a_forked_shell_is_confined() {
    require_confinement!();
    let case = Case::new();
    let (file, secret) = secret_outside(&case);
    let policy = Policy::new().deny(case.outside());
    let f = file.display();
    let forked = |program: &str| {
        [
            format!("({program}); echo done"),
            format!("{program} | cat; echo done"),
            format!("echo \"sub:$({program})\"; echo done"),
        ]
    };
    for script in forked(&hidden(&case, &[("read", &py_read(&file))])) {
        let run = case.run(&policy, &script);
        run.assert_stdout_lacks(&secret);
        run.assert_stdout_has(&format!("read errno {}\n", libc::EACCES));
        run.assert_stdout_has("done\n");
        let control = case.run(&policy.off(), &script);
        control.assert_stdout_has(&format!("{secret}read ok\n"));
    }
    for script in forked(&format!("cat {f}")) {
        let run = case.run(&policy, &script);
        run.assert_stdout_lacks(&secret);
        run.assert_stdout_has("done\n");
        run.assert_stderr_has(&format!(
            "rsh: denied: cat {f}: reads {f}: {} is denied (paths.deny)",
            case.outside().display()
        ));
    }
}

/// While rsh starts, a second thread builds the file-system layer, holding the ruleset and the
/// directories it grants at low descriptor numbers. A redirection that names such a number
/// waits for it: a program is never handed the ruleset (it could add rules to it, widening
/// every later program's confinement).
#[test]
fn redirections_cannot_reach_the_layer_being_built() {
    require_confinement!();
    let case = Case::new();
    case.write(
        "fds.py",
        "import os\nfor fd in range(3, 100):\n    try:\n        print(fd, os.readlink(f'/proc/self/fd/{fd}'))\n    except OSError:\n        pass\nprint('listed')\n",
    );
    // Granting around a file takes a rule per entry of its directory: a directory of
    // thousands makes the build slow enough that the script's redirections come first.
    let big = case.outside().join("big");
    fs::create_dir(&big).unwrap();
    for i in 0..4000 {
        fs::write(big.join(format!("f{i}")), "").unwrap();
    }
    let policy = Policy::new().deny(&big.join("f0"));
    let copies: String = (3..30)
        .map(|fd| format!("exec {}<&{fd} 2>/dev/null || true\n", fd + 40))
        .collect();
    for _ in 0..20 {
        let run = case.run(&policy, &format!("{copies}python3 fds.py"));
        run.assert_stdout_has("listed\n");
        run.assert_stdout_lacks("landlock");
    }
}

/// Input redirections and the files rsh reads itself open under `[paths]` as without.
#[test]
fn reading_redirections_work_under_paths() {
    require_confinement!();
    let case = Case::new();
    case.write("in.txt", "hello\n");
    case.write("lib.sh", "from_lib=yes\n");
    let script = "read x < in.txt; echo \"read:$x\"; cat < in.txt; echo \"sub:$(< in.txt)\"\n\
                  . ./lib.sh; echo \"lib:$from_lib\"; while read l; do echo \"loop:$l\"; done < in.txt";
    let run = case.run(&Policy::new(), script);
    run.assert_status(0);
    assert_eq!(
        run.stdout,
        "read:hello\nhello\nsub:hello\nlib:yes\nloop:hello\n",
        "{}",
        run.describe()
    );
}

/// `touch` naming a file outside the write roots is refused by rsh; a program naming it only
/// inside, by the kernel. Unconfined, both create theirs.
#[test]
fn writing_outside_write_roots_is_refused() {
    require_confinement!();
    let case = Case::new();
    let canary = case.outside().join("CANARY");
    let created = case.outside().join("CREATED");
    let c = canary.display();
    let script = format!(
        "touch {c}; echo \"touch=$?\"; {}",
        hidden(&case, &[("create", &py_create(&created))])
    );

    let run = case.run(&Policy::new(), &script);
    assert!(
        !canary.exists() && !created.exists(),
        "a file was written outside the roots\n{}",
        run.describe()
    );
    run.assert_stdout_has("touch=126\n");
    run.assert_stderr_has(&format!(
        "rsh: denied: touch {c}: writes {c}: it is outside the write roots (paths.write)"
    ));
    run.assert_stdout_has(&format!("create errno {}\n", write_refused()));

    let control = case.run(&Policy::new().off(), &script);
    control.assert_stdout_has("touch=0\ncreate ok\n");
    assert!(canary.exists(), "control: touch did not create {canary:?}");
    assert!(created.exists(), "control: no {created:?}");
}

/// Whether this process holds CAP_SYS_ADMIN, which rsh's read-only view takes; says so
/// loudly when it does not.
fn can_make_a_view() -> bool {
    let has = has_view();
    if !has {
        eprintln!("SKIPPED: no CAP_SYS_ADMIN here, so rsh builds no read-only view");
    }
    has
}

/// Landlock has no right for a file's mode or times: root's programs could change them
/// anywhere (make /etc/passwd writable for everyone). They run in a view where every mount
/// but the write roots is read-only, and a denied path under a write root read-only again,
/// so the kernel refuses: by path, through a descriptor rsh opened for them, and through
/// `/proc/self/exe` (the program itself, chmod to the mode it has: harmless if it went
/// through). In the write root both still work, in the directory the program started in.
#[test]
fn modes_and_times_outside_the_write_roots_stay_as_they_are() {
    require_confinement!();
    if !can_make_a_view() {
        return;
    }
    let case = Case::new();
    let target = case.outside().join("target");
    fs::write(&target, "kept\n").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
    let mtime = || fs::metadata(&target).unwrap().modified().unwrap();
    let before = mtime();
    let inside = case.write("inside", "mine\n");
    let key = case.write("keys/id", "private\n");
    fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).unwrap();
    let t = format!("{target:?}");
    let attempts = [
        ("chmod", format!("os.chmod({t}, 0o666)")),
        ("utime", format!("os.utime({t}, (0, 0))")),
        ("fchmod", "os.fchmod(0, 0o666)".to_string()),
        ("futimens", "os.utime(0, (0, 0))".to_string()),
        (
            "exe",
            "os.chmod('/proc/self/exe', os.stat('/proc/self/exe').st_mode & 0o7777)".to_string(),
        ),
        ("denied", format!("os.chmod({key:?}, 0o644)")),
        ("here", "print(os.getcwd())".to_string()),
        ("chmod-inside", "os.chmod('inside', 0o700)".to_string()),
        ("utime-inside", "os.utime('inside', (0, 0))".to_string()),
    ];
    let attempts: Vec<(&str, &str)> = attempts.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let script = format!("{} < {}", hidden(&case, &attempts), target.display());

    let policy = Policy::new().deny(&case.path().join("keys"));
    let run = case.run(&policy, &script);
    let mode = |file: &Path| fs::metadata(file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&target), 0o600, "the mode changed\n{}", run.describe());
    assert_eq!(
        mode(&key),
        0o600,
        "the denied file's mode changed\n{}",
        run.describe()
    );
    assert_eq!(mtime(), before, "the times changed\n{}", run.describe());
    let erofs = libc::EROFS;
    let here = case.path().canonicalize().unwrap();
    run.assert_stdout_has(&format!(
        "chmod errno {erofs}\nutime errno {erofs}\nfchmod errno {erofs}\nfutimens errno {erofs}\nexe errno {erofs}\ndenied errno {erofs}\n{}\nhere ok\nchmod-inside ok\nutime-inside ok\n",
        here.display()
    ));
    run.assert_status(0);
    assert_eq!(
        fs::metadata(&inside).unwrap().permissions().mode() & 0o777,
        0o700
    );

    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has("chmod ok\nutime ok\nfchmod ok\nfutimens ok\nexe ok\ndenied ok\n");
    assert_ne!(mtime(), before, "control: the times did not change");
}

/// A mount made in rsh's namespace during the session (a volume, an automounted directory)
/// arrives in the read-only view writable; the view is made again before the next program,
/// with it read-only. rsh runs in a mount namespace of the test's own (shared propagation,
/// as on a systemd host), where a background shell mounts a tmpfs once the first program
/// says it is running.
#[test]
fn a_mount_made_during_the_session_is_read_only_for_the_next_program() {
    require_confinement!();
    if !can_make_a_view() {
        return;
    }
    let case = Case::new();
    let mnt = case.outside().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let (ready, mounted) = (case.file("READY"), case.outside().join("MOUNTED"));
    let waits = format!(
        "import os, time\nopen({ready:?}, 'w').close()\nwhile not os.path.exists({mounted:?}): time.sleep(0.02)\n"
    );
    case.write("wait.py", &waits);
    let file = mnt.join("f");
    let attempt = [("chmod", format!("os.chmod({file:?}, 0o666)"))];
    let attempt: Vec<(&str, &str)> = attempt.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let script = format!("python3 wait.py; {}", hidden(&case, &attempt));
    let mounter = format!(
        "(while [ ! -e {r} ]; do sleep 0.02; done; mount -t tmpfs none {m} && echo x > {m}/f && chmod 600 {m}/f; touch {d}) & exec \"$@\"",
        r = ready.display(),
        m = mnt.display(),
        d = mounted.display()
    );
    let launcher = [
        "unshare",
        "-m",
        "--propagation",
        "shared",
        "sh",
        "-c",
        &mounter,
        "sh",
    ];

    let run = case.run_launched(&launcher, &Policy::new(), &script);
    run.assert_stdout_has(&format!("chmod errno {}\n", libc::EROFS));
    run.assert_status(0);

    fs::remove_file(&ready).unwrap();
    fs::remove_file(&mounted).unwrap();
    let control = case.run_launched(&launcher, &Policy::new().off(), &script);
    control.assert_stdout_has("chmod ok\n");
}

/// Where rsh, as root, cannot make the read-only view (here its caller took CAP_SYS_ADMIN
/// away, as many containers do), `--check-policy` says what that leaves open; with the
/// capability, and for another user, it says nothing of it.
#[test]
fn check_policy_says_when_roots_programs_would_get_no_read_only_view() {
    require_confinement!();
    if !can_make_a_view() || !can_set_capabilities() {
        eprintln!("SKIPPED: needs root with CAP_SYS_ADMIN, and setpriv to take it away");
        return;
    }
    let case = Case::new();
    let file = case.conf.path().join("policy.toml");
    fs::write(&file, Policy::new().text()).expect("write the policy");
    // Readable by the other user too.
    fs::set_permissions(case.conf.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    let check = |launcher: &[&str]| {
        let (program, arguments) = launcher.split_first().expect("a launcher");
        let out = Command::new(program)
            .args(arguments)
            .arg(RSH)
            .arg("--check-policy")
            .arg(&file)
            .current_dir("/")
            .stdin(Stdio::null())
            .output()
            .expect("run rsh --check-policy");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        // Checked, with or without warnings: not refused.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
        stderr
    };
    let warning = "as root on this system, programs can change the modes and times of files \
                   outside the write roots: there is no read-only view (unshare: Operation not \
                   permitted; it needs CAP_SYS_ADMIN";
    let without = check(&[
        SETPRIV,
        "--bounding-set",
        "-sys_admin",
        "--inh-caps",
        "-sys_admin",
    ]);
    assert!(without.contains(warning), "{without}");
    let with = check(&["/usr/bin/env"]);
    assert!(!with.contains("read-only view"), "{with}");
    let nobody = check(&[SETPRIV, "--reuid=65534", "--regid=65534", "--clear-groups"]);
    assert!(!nobody.contains("read-only view"), "{nobody}");
}

/// A link in the roots to a file outside them: rsh refuses `cat` and `cp` naming the link, and
/// the kernel a program that opens it; unconfined, all three go through it.
#[test]
fn symlink_in_a_root_does_not_lead_outside() {
    require_confinement!();
    let case = Case::new();
    let secret = format!("secret-{}", unique());
    let target = case.outside().join("target");
    fs::write(&target, &secret).unwrap();
    symlink(&target, case.file("link")).unwrap();
    case.write("replacement", "replaced\n");
    let policy = Policy::new().paths("read = [\".\"]\nwrite = [\".\"]");
    let program = hidden(
        &case,
        &[
            ("read", &py_read("link")),
            ("write", "open('link', 'w').write('rewritten')"),
        ],
    );
    let script =
        format!("cat link; echo \"cat=$?\"; cp replacement link; echo \"cp=$?\"; {program}");

    let run = case.run(&policy, &script);
    run.assert_stdout_lacks(&secret);
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        secret,
        "something wrote through the link\n{}",
        run.describe()
    );
    run.assert_stdout_has("cat=126\ncp=126\n");
    run.assert_stderr_has(
        "rsh: denied: cat link: reads link: it is outside the read roots (paths.read)",
    );
    run.assert_stderr_has(
        "rsh: denied: cp replacement link: writes link: it is outside the write roots (paths.write)",
    );
    let (eacces, refused) = (libc::EACCES, write_refused());
    run.assert_stdout_has(&format!("read errno {eacces}\nwrite errno {refused}\n"));

    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has(&format!(
        "{secret}cat=0\ncp=0\nreplaced\nread ok\nwrite ok\n"
    ));
    assert_eq!(fs::read_to_string(&target).unwrap(), "rewritten");
}

/// A denied directory inside the write root: rsh refuses commands that name what is in it,
/// and the kernel a program that names it only inside; unconfined, both get in.
#[test]
fn denied_directory_under_the_write_root() {
    require_confinement!();
    let case = Case::new();
    let key = format!("key-{}", unique());
    case.write("secret/key", &key);
    case.write("other/file", "other content\n");
    let policy = Policy::new().paths(
        "read = [\"/\"]\nwrite = [\".\"]\nexec = [\"/usr/bin\", \"/bin\"]\ndeny = [\"./secret\"]",
    );
    let program = hidden(
        &case,
        &[
            ("read", &py_read("secret/key")),
            ("overwrite", "open('secret/key', 'w').write('program\\n')"),
            ("create", &py_create("secret/made")),
            ("list", "print(*os.listdir('secret'))"),
        ],
    );
    let script = format!(
        "{program}
cat secret/key; echo \"read=$?\"
cp other/file secret/key; echo \"overwrite=$?\"
touch secret/new; echo \"create=$?\"
ls secret; echo \"list=$?\"
cat other/file
touch other/new; echo \"other=$?\""
    );

    let run = case.run(&policy, &script);
    run.assert_stdout_lacks(&key);
    assert_eq!(fs::read_to_string(case.file("secret/key")).unwrap(), key);
    assert!(
        !case.exists("secret/new") && !case.exists("secret/made"),
        "{}",
        run.describe()
    );
    // With the read-only view the denied directory is a read-only mount of its own: the
    // kernel refuses the writes there first.
    let (eacces, refused) = (libc::EACCES, write_refused());
    run.assert_stdout_has(&format!(
        "read errno {eacces}\noverwrite errno {refused}\ncreate errno {refused}\n"
    ));
    run.assert_stdout_has("read=126\noverwrite=126\ncreate=126\nlist=126\n");
    let denied = format!("{} is denied (paths.deny)", case.file("secret").display());
    run.assert_stderr_has(&format!(
        "rsh: denied: cat secret/key: reads secret/key: {denied}"
    ));
    run.assert_stderr_has(&format!(
        "rsh: denied: cp other/file secret/key: writes secret/key: {denied}"
    ));
    run.assert_stderr_has(&format!(
        "rsh: denied: touch secret/new: writes secret/new: {denied}"
    ));
    // The kernel lets names inside the denied directory be listed (rsh refuses `ls` naming
    // it); the rest of the root is untouched.
    run.assert_stdout_has("key\nlist ok\n");
    run.assert_stdout_has("other content\n");
    run.assert_stdout_has("other=0\n");
    assert!(case.exists("other/new"), "{}", run.describe());

    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has(&format!("{key}read ok\noverwrite ok\ncreate ok\n"));
    control.assert_stdout_has("program\nread=0\noverwrite=0\ncreate=0\n");
    assert!(case.exists("secret/new") && case.exists("secret/made"));
}

/// A denied name that does not exist when rsh starts is denied once it appears, in the same
/// session: by rsh to a command naming it, by the kernel to a program naming it only inside.
#[test]
fn denied_file_created_during_the_session() {
    require_confinement!();
    let case = Case::new();
    fs::create_dir(case.file("sub")).unwrap();
    let policy = Policy::new().paths(
        "read = [\"/\"]\nwrite = [\".\"]\nexec = [\"/usr/bin\", \"/bin\"]\ndeny = [\"./later.txt\"]",
    );
    let program = hidden(&case, &[("read", &py_read("later.txt"))]);
    let running = case.spawn(
        &policy,
        &format!("touch sub/started; sleep 1; cat later.txt; echo \"cat=$?\"; {program}"),
        |_| {},
    );
    // The file appears while rsh runs: after its first command, before `cat`.
    let started = Instant::now();
    while !case.exists("sub/started") && started.elapsed() < Duration::from_secs(8) {
        thread::sleep(Duration::from_millis(10));
    }
    let secret = format!("later-{}", unique());
    case.write("later.txt", &secret);
    let run = running.finish();
    assert!(case.exists("sub/started"), "{}", run.describe());
    run.assert_stdout_lacks(&secret);
    run.assert_stdout_has(&format!("cat=126\nread errno {}\n", libc::EACCES));
    run.assert_stderr_has(&format!(
        "rsh: denied: cat later.txt: reads later.txt: {} is denied (paths.deny)",
        case.file("later.txt").display()
    ));

    let control = case.run(&policy.off(), &format!("cat later.txt; {program}"));
    control.assert_stdout_has(&format!("{secret}{secret}read ok\n"));
}

/// A case for the test user: a directory of root's (mode 0755) holding what the policy
/// denies, the case directory the user's (the write root), all reachable by the user.
fn case_for_test_user(uid: u32, gid: u32) -> Case {
    let case = Case::new();
    for dir in [case.path(), case.outside(), case.conf.path()] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::os::unix::fs::chown(case.path(), Some(uid), Some(gid)).unwrap();
    case
}

/// Runs, as the test user, a program that reads `denied` (and first runs `before`), then
/// `change` while the session waits, then a program that reads it again: neither may get
/// `secret` (the first fails with `first_errno`, the second with EACCES). Without
/// confinement the second read must get it (`change` made it readable).
fn assert_denied_while_it_changes(
    case: &Case,
    ids: (u32, u32),
    denied: &Path,
    (secret, first_errno): (&str, i32),
    before: &[(&str, &str)],
    change: impl FnOnce(),
) {
    let policy = Policy::new().paths(&format!(
        "read = [\"/\"]\nwrite = [\".\"]\ndeny = [{denied:?}]"
    ));
    let mut first = before.to_vec();
    let read = py_read(denied);
    first.push(("first", &read));
    case.write("first.py", &python_attempts(&first));
    case.write(
        "wait.py",
        "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.01)\n",
    );
    case.write("second.py", &python_attempts(&[("second", &read)]));
    let as_user = |command: &mut Command| {
        command.uid(ids.0).gid(ids.1);
    };
    let script = "python3 first.py; touch ready; python3 wait.py; python3 second.py";
    let running = case.spawn(&policy, script, as_user);
    let started = Instant::now();
    while !case.exists("ready") && started.elapsed() < Duration::from_secs(10) {
        thread::sleep(Duration::from_millis(10));
    }
    change();
    case.write("go", "");
    let run = running.finish();
    run.assert_stdout_lacks(secret);
    let denied = libc::EACCES;
    run.assert_stdout_has(&format!(
        "first errno {first_errno}\nsecond errno {denied}\n"
    ));
    run.assert_status(0);

    let control = case.run_with(&policy.off(), "python3 second.py", as_user);
    control.assert_stdout_has(&format!("{secret}second ok\n"));
}

/// A denied file of the test user's own, unreadable (mode 000) when the session starts and made
/// readable by the user's program: still unreadable to it. The file was granted around, not
/// left to its permissions: its owner may change them at any time.
#[test]
fn denied_file_of_the_users_own_stays_unreachable() {
    require_confinement!();
    let Some(ids) = common::test_user() else {
        return;
    };
    let case = case_for_test_user(ids.0, ids.1);
    let mine = case.outside().join("mine");
    let secret = format!("mine-{}", unique());
    fs::write(&mine, &secret).unwrap();
    fs::set_permissions(&mine, fs::Permissions::from_mode(0o000)).unwrap();
    std::os::unix::fs::chown(&mine, Some(ids.0), Some(ids.1)).unwrap();
    let chmod = format!("os.chmod({mine:?}, 0o644)");
    let before = [("chmod", chmod.as_str())];
    assert_denied_while_it_changes(&case, ids, &mine, (&secret, libc::EACCES), &before, || {});
}

/// For a user who is not root, a denied path the user cannot reach anyway is left to its
/// permissions, and watched: a file of root's the user cannot read, made readable while the
/// session runs; a missing one the user could not create, created; one in a directory the
/// user cannot search, opened. The programs started after the change cannot read it.
#[test]
fn denied_paths_left_to_their_permissions_stay_unreachable_when_they_change() {
    require_confinement!();
    let Some(ids) = common::test_user() else {
        return;
    };
    let mode = |path: &Path, mode: u32| {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    };

    let case = case_for_test_user(ids.0, ids.1);
    let theirs = case.outside().join("theirs");
    let secret = format!("theirs-{}", unique());
    fs::write(&theirs, &secret).unwrap();
    mode(&theirs, 0o600);
    let expected = (secret.as_str(), libc::EACCES);
    assert_denied_while_it_changes(&case, ids, &theirs, expected, &[], || mode(&theirs, 0o644));

    let case = case_for_test_user(ids.0, ids.1);
    let later = case.outside().join("later");
    let secret = format!("later-{}", unique());
    assert_denied_while_it_changes(&case, ids, &later, (&secret, libc::ENOENT), &[], || {
        fs::write(&later, &secret).unwrap();
    });

    let case = case_for_test_user(ids.0, ids.1);
    let closed = case.outside().join("closed");
    fs::create_dir(&closed).unwrap();
    let behind = closed.join("key");
    let secret = format!("behind-{}", unique());
    fs::write(&behind, &secret).unwrap();
    mode(&closed, 0o700);
    let expected = (secret.as_str(), libc::EACCES);
    assert_denied_while_it_changes(&case, ids, &behind, expected, &[], || mode(&closed, 0o755));
}

/// A denied file cannot be given another name outside the denied directory: not by a hard
/// link, not by moving it or the directory, and a symbolic link to it leads nowhere. rsh
/// refuses `ln`, `mv` and `cat` naming it (in `secret`); the kernel, a program doing the same
/// with names only inside it (in `vault`, denied too).
#[test]
fn denied_file_cannot_be_linked_or_moved_out() {
    require_confinement!();
    let case = Case::new();
    let key = format!("key-{}", unique());
    case.write("secret/key", &key);
    let vault_key = format!("vault-{}", unique());
    case.write("vault/key", &vault_key);
    fs::create_dir(case.file("other")).unwrap();
    let policy = Policy::new()
        .paths(
            "read = [\"/\"]\nwrite = [\".\"]\nexec = [\"/usr/bin\", \"/bin\"]\ndeny = [\"./secret\", \"./vault\"]",
        )
        .allow("ln")
        .allow("mv");
    let program = hidden(
        &case,
        &[
            (
                "soft",
                "os.symlink('../vault/key', 'other/vsoft'); sys.stdout.write(open('other/vsoft').read())",
            ),
            ("hard", "os.link('vault/key', 'other/vhard')"),
            ("moved", "os.rename('vault/key', 'other/vmoved')"),
            ("stolen", "os.rename('vault', 'other/vstolen')"),
        ],
    );
    let script = format!(
        "ln -s ../secret/key other/soft; cat other/soft; echo \"soft=$?\"
ln secret/key other/hard; echo \"hard=$?\"
mv secret/key other/moved; echo \"moved=$?\"
mv secret other/stolen; echo \"stolen=$?\"
{program}"
    );

    let run = case.run(&policy, &script);
    run.assert_stdout_lacks(&key);
    run.assert_stdout_lacks(&vault_key);
    for name in ["hard", "moved", "stolen", "vhard", "vmoved", "vstolen"] {
        assert!(
            !case.exists(&format!("other/{name}")),
            "{name}\n{}",
            run.describe()
        );
    }
    assert_eq!(fs::read_to_string(case.file("secret/key")).unwrap(), key);
    assert_eq!(
        fs::read_to_string(case.file("vault/key")).unwrap(),
        vault_key
    );
    run.assert_stdout_has("soft=126\nhard=126\nmoved=126\nstolen=126\n");
    let denied = format!("{} is denied (paths.deny)", case.file("secret").display());
    run.assert_stderr_has(&format!(
        "rsh: denied: cat other/soft: reads other/soft: {denied}"
    ));
    run.assert_stderr_has(&format!(
        "rsh: denied: ln secret/key other/hard: writes secret/key: {denied}"
    ));
    run.assert_stderr_has(&format!(
        "rsh: denied: mv secret/key other/moved: writes secret/key: {denied}"
    ));
    run.assert_stderr_has(&format!(
        "rsh: denied: mv secret other/stolen: writes secret: {denied}"
    ));
    // Landlock refuses a link that would carry the file out of its grants with EXDEV; with
    // the read-only view, the denied directory is a mount of its own, and a rename out of it
    // is EXDEV too.
    let (eacces, exdev) = (libc::EACCES, libc::EXDEV);
    let moved = if has_view() { exdev } else { eacces };
    run.assert_stdout_has(&format!(
        "soft errno {eacces}\nhard errno {exdev}\nmoved errno {moved}\nstolen errno {eacces}\n"
    ));

    for name in ["soft", "vsoft"] {
        fs::remove_file(case.file("other").join(name)).unwrap();
    }
    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has(&key);
    control.assert_stdout_has(&format!(
        "{vault_key}soft ok\nhard ok\nmoved ok\nstolen ok\n"
    ));
    for name in ["hard", "moved", "stolen", "vhard", "vmoved", "vstolen"] {
        assert!(
            case.exists(&format!("other/{name}")),
            "control: {name}\n{}",
            control.describe()
        );
    }
}

/// Kernel settings and devices are never writable, even under a write root of `/`. The files
/// are only opened for writing (nothing is written), so the control changes nothing.
#[test]
fn proc_sys_and_dev_are_never_writable() {
    require_confinement!();
    let case = Case::new();
    let targets: Vec<&str> = [
        "/proc/sys/kernel/hostname",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/kernel/uevent_helper",
        "/dev/kmsg",
    ]
    .into_iter()
    .filter(|p| Path::new(p).exists())
    .collect();
    let canary = case.outside().join("CANARY");
    let mut attempts: Vec<(String, String)> = targets
        .iter()
        .map(|p| {
            (
                p.to_string(),
                format!("os.close(os.open({p:?}, os.O_WRONLY))"),
            )
        })
        .collect();
    // The write root itself works.
    attempts.push((
        "outside".to_string(),
        format!("open({:?}, 'w').close()", canary.to_str().unwrap()),
    ));
    let attempts: Vec<(&str, &str)> = attempts
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    case.write("prog.py", &python_attempts(&attempts));
    let policy = Policy::new().paths("read = [\"/\"]\nwrite = [\"/\"]");

    let run = case.run(&policy, "python3 prog.py");
    for target in &targets {
        run.assert_stdout_has(&format!("{target} errno {}\n", libc::EACCES));
    }
    run.assert_stdout_has("outside ok\n");
    assert!(canary.exists(), "{}", run.describe());
    run.assert_status(0);

    if !root_for_control() {
        return;
    }
    let control = case.run(&policy.off(), "python3 prog.py");
    for target in &targets {
        control.assert_stdout_has(&format!("{target} ok\n"));
    }
}

/// A root the policy names inside /dev (`/dev/shm`) is granted even beside `/`, which hides
/// /dev: the devices stay out of reach, the named directory is writable.
#[test]
fn a_root_inside_dev_is_granted_beside_one_above_it() {
    require_confinement!();
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("SKIPPED: this machine has no /dev/shm");
        return;
    }
    let case = Case::new();
    let made = shm.join(format!("rsh-test-{}", unique()));
    let attempts = [
        ("shm", py_create(&made)),
        (
            "kmsg",
            "os.close(os.open('/dev/kmsg', os.O_WRONLY))".to_string(),
        ),
    ];
    let attempts: Vec<(&str, &str)> = attempts.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let program = hidden(&case, &attempts);
    let above = case.run(
        &Policy::new().paths("read = [\"/\"]\nwrite = [\"/\"]"),
        &program,
    );
    above.assert_stdout_has(&format!("shm errno {}\n", libc::EACCES));
    assert!(!made.exists(), "{}", above.describe());
    let policy = Policy::new().paths("read = [\"/\"]\nwrite = [\"/\", \"/dev/shm\"]");
    let run = case.run(&policy, &program);
    let created = made.exists();
    let _ = std::fs::remove_file(&made);
    run.assert_stdout_has("shm ok\n");
    assert!(created, "{}", run.describe());
    if Path::new("/dev/kmsg").exists() {
        run.assert_stdout_has(&format!("kmsg errno {}\n", libc::EACCES));
    }
    // rsh's own check of a redirection agrees with the kernel.
    let run = case.run(&policy, &format!("echo x > {}; cat {0}", made.display()));
    let _ = std::fs::remove_file(&made);
    run.assert_stdout_has("x\n");
}

/// Landlock can only grant, and a grant covers everything beneath: a directory that holds a
/// denied entry is granted listing only, and its other entries one by one. So entries already
/// there keep the root's access (they can be read and rewritten), but programs can create,
/// remove or rename nothing directly in that directory (that would be granted inside the
/// denied entry too), and rsh's own redirections and its check of the files a command names
/// follow the same rule. rsh-policy(5) documents this.
#[test]
fn beside_a_denied_path_entries_change_but_none_appear_or_go() {
    require_confinement!();
    let case = Case::new();
    case.write("secret/key", "key\n");
    case.write("old", "old\n");
    case.write("older", "older\n");
    case.write("sub/file", "sub\n");
    let policy = Policy::new()
        .paths(
            "read = [\"/\"]\nwrite = [\".\"]\nexec = [\"/usr/bin\", \"/bin\"]\ndeny = [\"./secret\"]",
        )
        .allow("mkdir")
        .allow("rm")
        .allow("mv");
    // The program creates only what its text names, hidden from rsh: the kernel refuses it.
    let program = hidden(
        &case,
        &[
            ("create", &py_create("made")),
            ("mkdir", "os.mkdir('madedir')"),
        ],
    );
    let script = format!(
        "cp older old; echo \"rewrite=$?\"
echo x > redirected; echo \"redirect=$?\"
touch new; echo \"touch=$?\"
mkdir dir; echo \"mkdir=$?\"
rm older; echo \"rm=$?\"
touch sub/new; echo \"below=$?\"
{program}"
    );
    let run = case.run(&policy, &script);
    run.assert_stdout_has("rewrite=0\n");
    assert_eq!(fs::read_to_string(case.file("old")).unwrap(), "older\n");
    run.assert_stdout_has("redirect=1\n");
    assert!(!case.exists("redirected"), "{}", run.describe());
    run.assert_stdout_has("touch=126\n");
    run.assert_stdout_has("mkdir=126\n");
    run.assert_stderr_has(
        "rsh: denied: touch new: writes new: nothing can be created beside a denied path (paths.deny)",
    );
    run.assert_stderr_has(
        "rsh: denied: mkdir dir: writes dir: nothing can be created beside a denied path (paths.deny)",
    );
    run.assert_stdout_has("rm=1\n");
    let eacces = libc::EACCES;
    run.assert_stdout_has(&format!("create errno {eacces}\nmkdir errno {eacces}\n"));
    for name in ["new", "dir", "made", "madedir"] {
        assert!(!case.exists(name), "{name}\n{}", run.describe());
    }
    assert!(case.exists("older"), "{}", run.describe());
    // Below a sibling directory, everything is allowed as usual.
    run.assert_stdout_has("below=0\n");
    assert!(case.exists("sub/new"), "{}", run.describe());

    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has("redirect=0\ntouch=0\nmkdir=0\nrm=0\n");
    control.assert_stdout_has("create ok\nmkdir ok\n");
    for name in ["redirected", "new", "dir", "made", "madedir"] {
        assert!(case.exists(name), "control: {name}\n{}", control.describe());
    }
    assert!(!case.exists("older"), "{}", control.describe());
}

#[test]
fn only_harmless_devices_are_reachable() {
    require_confinement!();
    let case = Case::new();
    let reachable = [
        ("null", "open('/dev/null', 'r+b').write(b'x')"),
        ("zero", "assert open('/dev/zero', 'rb').read(4) == bytes(4)"),
        (
            "urandom",
            "assert len(open('/dev/urandom', 'rb').read(4)) == 4",
        ),
    ];
    let tty = ("tty", "os.close(os.open('/dev/tty', os.O_RDWR))");
    let raw: Vec<String> = [
        "/dev/mem",
        "/dev/kmsg",
        "/dev/sda",
        "/dev/vda",
        "/dev/nvme0n1",
        "/dev/loop0",
        "/dev/console",
    ]
    .into_iter()
    .filter(|p| Path::new(p).exists())
    .map(String::from)
    .collect();
    assert!(!raw.is_empty(), "no raw device to try on this machine");
    let opens: Vec<(String, String)> = raw
        .iter()
        .map(|p| {
            (
                p.clone(),
                format!("os.close(os.open({p:?}, os.O_RDONLY | os.O_NONBLOCK))"),
            )
        })
        .collect();
    let mut attempts: Vec<(&str, &str)> = reachable.to_vec();
    attempts.push(tty);
    attempts.extend(opens.iter().map(|(n, c)| (n.as_str(), c.as_str())));
    case.write("prog.py", &python_attempts(&attempts));

    let run = case.run(&Policy::new(), "python3 prog.py");
    for (name, _) in reachable {
        run.assert_stdout_has(&format!("{name} ok\n"));
    }
    // Without a controlling terminal the kernel answers ENXIO: past Landlock, which would
    // have answered EACCES.
    run.assert_stdout_has(&format!("tty errno {}\n", libc::ENXIO));
    for device in &raw {
        run.assert_stdout_has(&format!("{device} errno {}\n", libc::EACCES));
    }
    run.assert_status(0);

    if !root_for_control() {
        return;
    }
    // Root opens at least one of them without confinement.
    let control = case.run(&Policy::new().off(), "python3 prog.py");
    assert!(
        raw.iter()
            .any(|d| control.stdout.contains(&format!("{d} ok\n"))),
        "control: no raw device could be opened even unconfined\n{}",
        control.describe()
    );
}

/// Another session's terminal (here one this test holds, with keys typed into it): a program
/// can neither read what is typed there nor write to its screen, and neither can rsh's own
/// redirections. Nor can a new terminal be made, whose other end is another name under
/// /dev/pts, unless the policy grants them all (`[paths] terminals = "all"`).
#[test]
fn other_terminals_are_out_of_reach() {
    require_confinement!();
    let case = Case::new();
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty fills in two descriptors of this test's own.
    let made = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(made, 0, "openpty: {}", std::io::Error::last_os_error());
    let victim = std::fs::read_link(format!("/proc/self/fd/{slave}")).unwrap();
    // SAFETY: writes to the master this test holds: keys typed in the other session.
    unsafe { libc::write(master, b"typed-secret\n".as_ptr().cast(), 13) };
    let attempts = [
        (
            "read",
            format!("open({victim:?}, 'rb', buffering=0).read(5)"),
        ),
        (
            "write",
            format!("open({victim:?}, 'wb', buffering=0).write(b'WROTE')"),
        ),
        ("pty", "[os.close(fd) for fd in os.openpty()]".to_string()),
    ];
    let attempts: Vec<(&str, &str)> = attempts.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let line = hidden(&case, &attempts);

    // A root of /dev, or of /dev/pts itself, does not bring them back.
    let roots = [
        r#"read = ["/"]"#,
        r#"read = ["/", "/dev"]"#,
        r#"read = ["/", "/dev/pts"]"#,
    ];
    for read in roots {
        let policy = Policy::new().paths(&format!("{read}\nwrite = [\".\"]"));
        let run = case.run(&policy, &line);
        for name in ["read", "write", "pty"] {
            run.assert_stdout_has(&format!("{name} errno {}\n", libc::EACCES));
        }
    }
    let shown = victim.display();
    let run = case.run(
        &Policy::new(),
        &format!("echo injected > {shown}; head -c 5 < {shown}"),
    );
    run.assert_stderr_has(&format!(
        "rsh: denied: {shown}: it is another session's terminal"
    ));
    let all = Policy::new();
    let all = all
        .clone()
        .paths(&format!("{}\nterminals = \"all\"", all.paths));
    let run = case.run(&all, &line);
    for name in ["read", "write", "pty"] {
        run.assert_stdout_has(&format!("{name} ok\n"));
    }
    let mut typed = [0u8; 64];
    // SAFETY: reads what reached the other session's screen, without waiting.
    let n = unsafe {
        libc::fcntl(master, libc::F_SETFL, libc::O_NONBLOCK);
        libc::read(master, typed.as_mut_ptr().cast(), typed.len())
    };
    let screen = String::from_utf8_lossy(&typed[..n.max(0) as usize]).into_owned();
    assert!(
        screen.contains("WROTE"),
        "only with terminals = \"all\": {screen:?}"
    );
    assert!(!screen.contains("injected"), "{screen:?}");
    // SAFETY: closes the descriptors openpty gave.
    unsafe {
        libc::close(master);
        libc::close(slave);
    }
}

/// Another process's System V shared memory is reached by its key, which no file rule
/// covers: a confined program can neither read nor change it.
#[test]
fn shared_memory_of_another_process_is_out_of_reach() {
    require_confinement!();
    const SECRET_WORD: &str = "TOPSECRET";
    let case = Case::new();
    let key = 0x7273_0000 | (std::process::id() as i32 & 0xffff);
    // SAFETY: a new segment of this test's own, attached, written, detached.
    let id = unsafe { libc::shmget(key, 4096, libc::IPC_CREAT | libc::IPC_EXCL | 0o666) };
    assert!(id >= 0, "shmget: {}", std::io::Error::last_os_error());
    // SAFETY: attaches the segment just made.
    let segment = unsafe { libc::shmat(id, std::ptr::null(), 0) } as *mut u8;
    assert_ne!(
        segment as isize,
        -1,
        "shmat: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: the segment is 4096 bytes long.
    unsafe { std::ptr::copy_nonoverlapping(SECRET_WORD.as_ptr(), segment, SECRET_WORD.len()) };
    // SAFETY: reads the start of the attached segment.
    let content = || unsafe { std::slice::from_raw_parts(segment, SECRET_WORD.len()).to_vec() };
    case.write(
        "shm.py",
        &format!(
            "import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
sid = libc.shmget({key}, 0, 0)
if sid == -1:
    print('shmget errno', ctypes.get_errno()); sys.exit(0)
a = libc.shmat(sid, None, 0)
if a in (None, ctypes.c_void_p(-1).value):
    print('shmat errno', ctypes.get_errno()); sys.exit(0)
print('read', ctypes.string_at(a, {len}).decode())
ctypes.memmove(a, b'X' * {len}, {len})
",
            len = SECRET_WORD.len()
        ),
    );
    let run = case.run(&Policy::new(), "python3 shm.py");
    let confined = content();
    let control = case.run(&Policy::new().off(), "python3 shm.py");
    let unconfined = content();
    // SAFETY: detaches and removes the segment made above.
    unsafe {
        libc::shmdt(segment as *const libc::c_void);
        libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
    }
    run.assert_stdout_has(&format!("shmget errno {}\n", libc::EPERM));
    assert!(!run.stdout.contains(SECRET_WORD), "{}", run.describe());
    assert_eq!(
        confined,
        SECRET_WORD.as_bytes(),
        "the confined program changed it"
    );
    control.assert_stdout_has(&format!("read {SECRET_WORD}\n"));
    assert_ne!(unconfined, SECRET_WORD.as_bytes(), "control: unchanged");
}

/// POSIX message queues are named outside any file system a program reaches, and the kernel
/// makes and removes them without asking Landlock: a confined program can neither remove
/// another's queue nor make one that outlives it.
#[test]
fn message_queues_are_out_of_reach() {
    require_confinement!();
    let case = Case::new();
    let name = |what: &str| format!("/rsh-test-{what}-{}", std::process::id());
    let (theirs, made) = (name("theirs"), name("made"));
    let open = |name: &str, flags: libc::c_int| {
        let name = std::ffi::CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name; mode and attributes for O_CREAT (null: defaults).
        let queue = unsafe {
            libc::mq_open(
                name.as_ptr(),
                flags,
                0o666,
                std::ptr::null_mut::<libc::mq_attr>(),
            )
        };
        if queue >= 0 {
            // SAFETY: the descriptor just opened.
            unsafe { libc::mq_close(queue) };
        }
        queue >= 0
    };
    let unlink = |name: &str| {
        let name = std::ffi::CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name.
        unsafe { libc::mq_unlink(name.as_ptr()) };
    };
    assert!(
        open(&theirs, libc::O_CREAT | libc::O_RDWR),
        "mq_open: {}",
        std::io::Error::last_os_error()
    );
    case.write(
        "mq.py",
        &format!(
            "import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for what, rc in (('unlink', libc.mq_unlink(b'{theirs}')),
                 ('create', libc.mq_open(b'{made}', 0o102, 0o666, None))):
    print(what, 'errno' if rc == -1 else 'ok', ctypes.get_errno() if rc == -1 else '')
"
        ),
    );
    let run = case.run(&Policy::new(), "python3 mq.py");
    let (kept, planted) = (open(&theirs, libc::O_RDWR), open(&made, libc::O_RDWR));
    let control = case.run(&Policy::new().off(), "python3 mq.py");
    let (control_kept, control_planted) = (open(&theirs, libc::O_RDWR), open(&made, libc::O_RDWR));
    unlink(&theirs);
    unlink(&made);
    run.assert_stdout_has(&format!("unlink errno {}\n", libc::EPERM));
    run.assert_stdout_has(&format!("create errno {}\n", libc::EPERM));
    assert!(
        kept,
        "the confined program removed the queue\n{}",
        run.describe()
    );
    assert!(
        !planted,
        "the confined program made a queue\n{}",
        run.describe()
    );
    assert!(
        !control_kept,
        "control: not removed\n{}",
        control.describe()
    );
    assert!(control_planted, "control: not made\n{}", control.describe());
}

/// A device the policy denies gets no rule of its own: the kernel refuses it like any other
/// device, and the terminals under a denied /dev/pts too.
#[test]
fn denied_devices_are_unreachable() {
    require_confinement!();
    let case = Case::new();
    let attempts = [
        ("null", "open('/dev/null', 'r+b').write(b'x')"),
        (
            "urandom",
            "assert len(open('/dev/urandom', 'rb').read(4)) == 4",
        ),
        ("pty", "[os.close(fd) for fd in os.openpty()]"),
    ];
    case.write("prog.py", &python_attempts(&attempts));
    let base = Policy::new();
    let policy = base.clone().paths(&format!(
        "{}\ndeny = [\"/dev/urandom\", \"/dev/pts\"]",
        base.paths
    ));

    let run = case.run(&policy, "python3 prog.py");
    run.assert_stdout_has("null ok\n");
    run.assert_stdout_has(&format!("urandom errno {}\n", libc::EACCES));
    run.assert_stdout_has(&format!("pty errno {}\n", libc::EACCES));
    run.assert_status(0);
    // rsh holds its own opens to the same rule.
    let run = case.run(&policy, "cat < /dev/urandom");
    run.assert_stderr_has("rsh: denied: /dev/urandom: /dev/urandom is denied (paths.deny)");
    run.assert_status(1);

    let control = case.run(&policy.off(), "python3 prog.py");
    control.assert_stdout_has("urandom ok\n");
    control.assert_stdout_has("pty ok\n");
}

/// Redirections, `$(< file)` and `source` are opened by rsh itself, and held to the same roots:
/// directly, through a symlink in the working directory, and through `..`.
#[test]
fn redirections_obey_the_roots() {
    require_confinement!();
    let case = Case::new();
    let (file, secret) = secret_outside(&case);
    symlink(&file, case.file("link")).unwrap();
    let canary = case.outside().join("CANARY");
    let policy = Policy::new().paths(&format!(
        "read = [\"/\"]\nwrite = [\".\"]\ndeny = [{:?}]",
        file
    ));
    let secret_path = file.display();
    let dotdot = format!(
        "../{}/secret",
        case.outside().file_name().unwrap().to_str().unwrap()
    );
    let script = format!(
        "cat < {secret_path}; cat < link; cat < {dotdot}; x=$(< link); echo \"x=$x\"
source {secret_path}
echo x > {}",
        canary.display()
    );

    let run = case.run(&policy, &script);
    assert!(
        !canary.exists(),
        "echo wrote outside the roots\n{}",
        run.describe()
    );
    run.assert_stdout_lacks(&secret);
    assert!(!run.stderr.contains(&secret), "{}", run.describe());
    run.assert_stdout_has("x=\n");
    run.assert_stderr_has(&format!("rsh: denied: {secret_path}: "));
    run.assert_stderr_has("rsh: denied: link: ");
    run.assert_stderr_has(&format!("rsh: denied: {dotdot}: "));
    run.assert_stderr_has("(paths.deny)");
    run.assert_stderr_has(&format!(
        "rsh: denied: {}: it is outside the write roots (paths.write)",
        canary.display()
    ));
    run.assert_status(1);

    let control = case.run(&policy.off(), &script);
    control.assert_stdout_has(&format!("{secret}{secret}{secret}x={secret}\n"));
    assert!(canary.exists(), "control: echo did not write {canary:?}");
}

// ---------------------------------------------------------------------------------------------
// Starting other programs
// ---------------------------------------------------------------------------------------------

/// Runs `script`, which would create CANARY by starting another program: confined it must
/// not (with `message` on stderr and `status`), unconfined it must (the line really escapes).
fn assert_cannot_start_programs(script: &str, message: &str, status: i32) {
    let case = Case::new();
    let run = case.run(&Policy::new(), script);
    assert!(
        !case.exists("CANARY"),
        "a program was started\n{}",
        run.describe()
    );
    run.assert_stderr_has(message);
    run.assert_status(status);

    case.run(&Policy::new().off(), script);
    assert!(
        case.exists("CANARY"),
        "control: `{script}` did not create CANARY"
    );
}

#[test]
fn find_exec_cannot_fork() {
    require_confinement!();
    assert_cannot_start_programs(
        r"find . -maxdepth 0 -exec /bin/sh -c 'touch CANARY' \;",
        "find: cannot fork: Operation not permitted",
        1,
    );
}

/// A wrapper rsh knows is refused before it runs: what it runs would get its confinement.
#[test]
fn stdbuf_cannot_exec() {
    require_confinement!();
    assert_cannot_start_programs(
        "stdbuf -o0 /bin/sh -c 'touch CANARY'",
        "rsh: denied: stdbuf -o0 /bin/sh -c 'touch CANARY': runs /bin/sh -c 'touch CANARY', \
         and may not start programs (give stdbuf subprocesses = true to let it)",
        126,
    );
}

/// env, nice and timeout are performed by rsh: the command they run starts directly,
/// confined as itself (here a shell, which cannot start anything), and their own programs
/// never run.
#[test]
fn env_and_nice_start_their_command_confined_as_itself() {
    require_confinement!();
    for wrapper in [
        "env A=1",
        "nice -n 1",
        "env -i nice",
        "timeout 5",
        "timeout 9 env A=1",
    ] {
        assert_cannot_start_programs(
            &format!("{wrapper} /bin/sh -c 'touch CANARY'"),
            "Cannot fork",
            2,
        );
    }
}

/// One rsh does not know as a wrapper is stopped by the kernel when it tries.
#[test]
fn unknown_wrapper_cannot_exec() {
    require_confinement!();
    assert_cannot_start_programs(
        "taskset -c 0 /bin/sh -c 'touch CANARY'",
        "taskset: failed to execute /bin/sh: Operation not permitted",
        126,
    );
}

/// An allowed shell starts, but cannot start anything itself.
#[test]
fn allowed_shell_cannot_start_programs() {
    require_confinement!();
    let case = Case::new();
    let script = "sh -c 'touch CANARY; touch CANARY2'";

    let run = case.run(&Policy::new(), script);
    assert!(
        !case.exists("CANARY") && !case.exists("CANARY2"),
        "sh started touch\n{}",
        run.describe()
    );
    // dash's status for a command it could not fork for.
    run.assert_stderr_has("sh: 1: Cannot fork");
    run.assert_status(2);

    case.run(&Policy::new().off(), script);
    assert!(case.exists("CANARY"), "control: sh did not run touch");
}

#[test]
fn python_cannot_fork_or_exec_but_threads_work() {
    require_confinement!();
    let case = Case::new();
    // execveat is what rsh itself uses to start the program; the filter lets it through only
    // with rsh's own (secret) pathname pointer.
    let execveat = |path: &str| {
        format!(
            "fd = os.open('/bin/sh', os.O_PATH)\n    argv = (ctypes.c_char_p * 4)(b'sh', b'-c', b'touch CANARY', None)\n    call('syscall', 322, fd, {path}, argv, None, 0x1000)"
        )
    };
    let (empty, null) = (execveat("b''"), execveat("None"));
    case.write(
        "prog.py",
        &python_attempts(&[
            // The child, if there were one, would leave FORKED and end at once.
            (
                "fork",
                "pid = os.fork()\n    if pid == 0: open('FORKED', 'w'); os._exit(0)",
            ),
            ("execveat", &empty),
            ("execveat_null", &null),
            ("execv", "os.execv('/bin/sh', ['sh', '-c', 'touch CANARY'])"),
            ("subprocess", "subprocess.run(['/usr/bin/touch', 'CANARY'])"),
            (
                "spawn",
                "os.posix_spawn('/usr/bin/touch', ['touch', 'CANARY'], {})",
            ),
            (
                "thread",
                "t = threading.Thread(target=lambda: open('THREAD', 'w')); t.start(); t.join()",
            ),
        ]),
    );

    let run = case.run(&Policy::new(), "python3 prog.py");
    thread::sleep(Duration::from_millis(100));
    assert!(
        !case.exists("CANARY") && !case.exists("FORKED"),
        "python started a program\n{}",
        run.describe()
    );
    let attempts = [
        "fork",
        "execveat",
        "execveat_null",
        "execv",
        "subprocess",
        "spawn",
    ];
    for name in attempts {
        run.assert_stdout_has(&format!("{name} errno {}\n", libc::EPERM));
    }
    run.assert_stdout_has("thread ok\n");
    assert!(case.exists("THREAD"), "{}", run.describe());
    run.assert_status(0);

    // Unconfined, fork leaves FORKED and execveat replaces python by the shell, which leaves
    // the canary.
    let control = case.run(&Policy::new().off(), "python3 prog.py");
    thread::sleep(Duration::from_millis(100));
    assert!(
        case.exists("FORKED") && case.exists("CANARY"),
        "control: python started nothing\n{}",
        control.describe()
    );
}

#[test]
fn fork_bomb_stops_at_the_first_fork() {
    require_confinement!();
    let case = Case::new();
    // Bounded (at most 2^6 processes), so that a confinement that let fork through fails the
    // test instead of taking the machine down.
    case.write("bomb.py", "import os\nfor _ in range(6):\n    os.fork()\n");
    let run = case.run(&Policy::new(), "python3 bomb.py");
    run.assert_stderr_has("PermissionError: [Errno 1] Operation not permitted");
    run.assert_status(1);
    assert!(
        run.elapsed < Duration::from_secs(5),
        "the fork bomb ran for {:?}\n{}",
        run.elapsed,
        run.describe()
    );
}

/// The ELF loader run as a command maps the program itself, in its own process: the program
/// runs, under the loader's confinement, and cannot start anything.
#[test]
fn loader_run_directly_cannot_start_programs() {
    require_confinement!();
    let loader = "/lib64/ld-linux-x86-64.so.2";
    if !Path::new(loader).exists() {
        eprintln!("SKIPPED: no {loader} on this system");
        return;
    }
    let case = Case::new();
    let policy = Policy::new().allow(loader);
    let script = format!("{loader} /bin/sh -c 'touch CANARY; touch CANARY2'");

    let run = case.run(&policy, &script);
    assert!(
        !case.exists("CANARY") && !case.exists("CANARY2"),
        "the loader's shell started touch\n{}",
        run.describe()
    );
    run.assert_stderr_has("/bin/sh: 1: Cannot fork");
    run.assert_status(2);

    case.run(&policy.off(), &script);
    assert!(
        case.exists("CANARY"),
        "control: the loader's shell ran nothing"
    );
}

/// A program that may start others starts only what lies in `[paths] exec`.
#[test]
fn subprocesses_only_from_exec_dirs() {
    require_confinement!();
    let case = Case::new();
    let copy = case.file("mytouch");
    fs::copy("/usr/bin/touch", &copy).unwrap();
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
    case.write(
        "prog.py",
        &python_attempts(&[
            (
                "system",
                "subprocess.run(['/usr/bin/touch', 'ALLOWED'], check=True)",
            ),
            (
                "copy",
                "subprocess.run(['./mytouch', 'CANARY'], check=True)",
            ),
        ]),
    );
    let policy = Policy::new().commands("python3 = { subprocesses = true }");

    let run = case.run(&policy, "python3 prog.py");
    assert!(
        !case.exists("CANARY"),
        "python ran ./mytouch\n{}",
        run.describe()
    );
    run.assert_stdout_has("system ok\n");
    assert!(case.exists("ALLOWED"), "{}", run.describe());
    run.assert_stdout_has(&format!("copy errno {}\n", libc::EACCES));
    run.assert_status(0);

    case.run(&policy.off(), "python3 prog.py");
    assert!(case.exists("CANARY"), "control: ./mytouch did not run");
}

/// What root could do to the machine: the filter refuses it whoever runs the program. Each
/// attempt is harmless unconfined too (the mount and the trace name nothing that exists), and
/// then fails differently or succeeds: the EPERM is the filter's.
#[test]
fn privileged_system_calls_are_refused() {
    require_confinement!();
    let case = Case::new();
    fs::create_dir(case.file("mnt")).unwrap();
    case.write(
        "prog.py",
        &python_attempts(&[
            ("unshare", "call('unshare', 0x00020000)"),
            ("personality", "call('personality', 0x0040000)"),
            (
                "sethostname",
                "h = os.uname().nodename.encode(); call('sethostname', h, len(h))",
            ),
            // MS_REMOUNT of a directory that is not a mount point: EINVAL.
            ("mount", "call('mount', None, b'mnt', None, 0x20, None)"),
            // PTRACE_ATTACH to a pid above any pid_max: ESRCH.
            ("ptrace", "call('ptrace', 16, 0x7ffffff0, 0, 0)"),
            // Opening files by handle would bypass every path rule; io_uring's operations are
            // never seen by seccomp. With null arguments: EFAULT.
            (
                "name_to_handle_at",
                "call('syscall', 303, -100, b'/etc/passwd', None, None, 0)",
            ),
            ("open_by_handle_at", "call('syscall', 304, -100, None, 0)"),
            ("io_uring_setup", "call('syscall', 425, 1, None)"),
            // Last: unconfined, it changes what the paths above mean.
            ("chroot", "os.chroot('.')"),
        ]),
    );
    let names = [
        "unshare",
        "personality",
        "sethostname",
        "chroot",
        "mount",
        "ptrace",
        "name_to_handle_at",
        "open_by_handle_at",
        "io_uring_setup",
    ];

    let run = case.run(&Policy::new(), "python3 prog.py");
    for name in names {
        run.assert_stdout_has(&format!("{name} errno {}\n", libc::EPERM));
    }
    run.assert_status(0);

    if !root_for_control() {
        return;
    }
    let control = case.run(&Policy::new().off(), "python3 prog.py");
    for name in &names[..4] {
        control.assert_stdout_has(&format!("{name} ok\n"));
    }
    control.assert_stdout_has(&format!("mount errno {}\n", libc::EINVAL));
    control.assert_stdout_has(&format!("ptrace errno {}\n", libc::ESRCH));
    control.assert_stdout_has(&format!("name_to_handle_at errno {}\n", libc::EFAULT));
    control.assert_stdout_has(&format!("open_by_handle_at errno {}\n", libc::EFAULT));
    // io_uring may be switched off for everyone (kernel.io_uring_disabled).
    let io_uring = fs::read_to_string("/proc/sys/kernel/io_uring_disabled").unwrap_or_default();
    if io_uring.trim() == "0" {
        control.assert_stdout_has(&format!("io_uring_setup errno {}\n", libc::EFAULT));
    }
}

// ---------------------------------------------------------------------------------------------
// Network
// ---------------------------------------------------------------------------------------------

/// Python that connects to 127.0.0.1:PORT and tries the other socket families.
fn network_program(port: u16) -> String {
    python_attempts(&[
        (
            "tcp",
            &format!("socket.create_connection(('127.0.0.1', {port}), timeout=2).close()"),
        ),
        ("udp", "socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"),
        (
            "inet6",
            "socket.socket(socket.AF_INET6, socket.SOCK_STREAM)",
        ),
        (
            "netlink",
            "socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)",
        ),
        ("unix", "socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)"),
        (
            "unix datagram",
            "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)",
        ),
        ("socketpair", "socket.socketpair()"),
        (
            "abstract name",
            "a, b = socket.socketpair(); a.bind(b'\\0rsh-test-squat-%d' % os.getpid())",
        ),
    ])
}

/// Whether a connection is waiting on the listener (without blocking).
fn accepted(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept: {e}"),
    }
}

#[test]
fn network_is_refused() {
    require_confinement!();
    let case = Case::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    case.write("prog.py", &network_program(port));

    let run = case.run(&Policy::new(), "python3 prog.py");
    assert!(!accepted(&listener), "python connected\n{}", run.describe());
    // A pair, yes; bound to an abstract name (squatting it against another program), no.
    for name in [
        "tcp",
        "udp",
        "inet6",
        "netlink",
        "unix",
        "unix datagram",
        "abstract name",
    ] {
        run.assert_stdout_has(&format!("{name} errno {}\n", libc::EPERM));
    }
    run.assert_stdout_has("socketpair ok\n");
    run.assert_status(0);

    let control = case.run(&Policy::new().off(), "python3 prog.py");
    control.assert_stdout_has("tcp ok\n");
    control.assert_stdout_has("abstract name ok\n");
    assert!(accepted(&listener), "control: no connection arrived");
}

#[test]
fn network_allowed_for_one_command() {
    require_confinement!();
    let case = Case::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    case.write("prog.py", &network_program(port));
    let policy = Policy::new().commands("python3 = { network = true }");

    let run = case.run(&policy, "python3 prog.py");
    run.assert_stdout_has("tcp ok\n");
    run.assert_stdout_has("udp ok\n");
    // A unix socket needs its own setting.
    run.assert_stdout_has(&format!("unix errno {}\n", libc::EPERM));
    run.assert_stdout_has(&format!("unix datagram errno {}\n", libc::EPERM));
    assert!(
        accepted(&listener),
        "no connection arrived\n{}",
        run.describe()
    );
    run.assert_status(0);
}

/// Python that connects to the unix socket ADDRESS (a leading NUL: abstract) and says hello.
fn unix_client(address: &str) -> String {
    python_attempts(&[(
        "connect",
        &format!(
            "c = socket.socket(socket.AF_UNIX); c.connect({address:?}.replace('@', '\\0', 1)); c.send(b'hello')"
        ),
    )])
}

/// Whether a connection is waiting on a unix listener (without blocking).
fn unix_accepted(listener: &std::os::unix::net::UnixListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept: {e}"),
    }
}

/// Fails unless `unix_client`'s connection was refused (EPERM) and none reached `listener`.
fn assert_not_connected(run: &Run, listener: &std::os::unix::net::UnixListener) {
    assert!(
        !unix_accepted(listener),
        "python connected\n{}",
        run.describe()
    );
    run.assert_stdout_has(&format!("connect errno {}\n", libc::EPERM));
    run.assert_status(0);
}

/// Abstract unix sockets have no file for the roots to guard: Landlock scopes them to the
/// program's own domain, for a program that may make unix sockets at all.
#[test]
fn abstract_unix_socket_outside_the_program_is_unreachable() {
    require_confinement!();
    use std::os::linux::net::SocketAddrExt;
    let case = Case::new();
    let name = format!("rsh-test-{}", unique());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind_addr(&address).unwrap();
    case.write("prog.py", &unix_client(&format!("@{name}")));

    let local = Policy::new().commands("python3 = { unix_sockets = true }");
    assert_not_connected(&case.run(&local, "python3 prog.py"), &listener);

    let control = case.run(&Policy::new().off(), "python3 prog.py");
    control.assert_stdout_has("connect ok\n");
    assert!(unix_accepted(&listener), "control: no connection arrived");
}

/// Without `unix_sockets` a program cannot connect to a socket file, wherever it is: a
/// service's socket (a container engine's, the user's systemd or D-Bus) would run what it is
/// asked outside the confinement. Landlock before ABI 9 does not govern connecting to one, so
/// the program cannot make a unix socket, with network or without.
#[test]
fn unix_socket_files_need_unix_sockets() {
    require_confinement!();
    let case = Case::new();
    let socket = case.file("service.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    case.write("prog.py", &unix_client(socket.to_str().unwrap()));

    let networked = Policy::new().commands("python3 = { network = true }");
    for policy in [Policy::new(), networked] {
        assert_not_connected(&case.run(&policy, "python3 prog.py"), &listener);
    }

    let local = Policy::new().commands("python3 = { unix_sockets = true }");
    let control = case.run(&local, "python3 prog.py");
    control.assert_stdout_has("connect ok\n");
    assert!(unix_accepted(&listener), "control: no connection arrived");
}

/// The end of a datagram socket pair can send to any datagram socket file (a syslog daemon's,
/// say): without `unix_sockets` only stream pairs can be made.
#[test]
fn datagram_socket_files_need_unix_sockets_even_from_a_pair() {
    require_confinement!();
    let case = Case::new();
    let socket = case.file("log.sock");
    let service = std::os::unix::net::UnixDatagram::bind(&socket).unwrap();
    service.set_nonblocking(true).unwrap();
    let send = format!(
        "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b'forged', {:?})",
        socket.to_str().unwrap()
    );
    let stream = "a, b = socket.socketpair(); a.send(b'x'); b.recv(1)";
    case.write(
        "prog.py",
        &python_attempts(&[("send", &send), ("stream", stream)]),
    );
    let received = || {
        let mut buffer = [0u8; 16];
        service.recv(&mut buffer).is_ok()
    };

    let run = case.run(&Policy::new(), "python3 prog.py");
    assert!(!received(), "a datagram arrived\n{}", run.describe());
    run.assert_stdout_has(&format!("send errno {}\n", libc::EPERM));
    run.assert_stdout_has("stream ok\n");

    let local = Policy::new().commands("python3 = { unix_sockets = true }");
    let control = case.run(&local, "python3 prog.py");
    control.assert_stdout_has("send ok\n");
    assert!(
        received(),
        "control: nothing arrived\n{}",
        control.describe()
    );
}

/// A socket file in a denied directory (an agent's socket under ~/.gnupg or ~/.ssh, say) is
/// part of what `deny` makes unreachable, for a command with `unix_sockets` too.
#[test]
#[ignore = "needs Landlock ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX): before it, Landlock does not govern connecting to pathname unix sockets, and rsh-policy(5) documents the gap"]
fn unix_socket_in_a_denied_directory_is_unreachable() {
    require_confinement!();
    let case = Case::new();
    let socket = case.outside().join("agent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    case.write("prog.py", &unix_client(socket.to_str().unwrap()));
    let policy = Policy::new()
        .paths(&format!(
            "read = [\"/\"]\nwrite = [\".\"]\ndeny = [{:?}]",
            case.outside()
        ))
        .commands("python3 = { unix_sockets = true }");

    let run = case.run(&policy, "python3 prog.py");
    assert!(
        !unix_accepted(&listener),
        "python connected to {socket:?}\n{}",
        run.describe()
    );
    run.assert_stdout_has("connect errno ");
}

// ---------------------------------------------------------------------------------------------
// rsh itself: signals, memory, descriptors
// ---------------------------------------------------------------------------------------------

#[test]
fn program_cannot_signal_rsh() {
    require_confinement!();
    let case = Case::new();
    // `$$` is rsh's pid; /bin/kill is the program, not a builtin.
    let script = "/bin/kill -TERM $$; echo \"kill=$?\"";

    let run = case.run(&Policy::new(), script);
    assert_eq!(run.signal, None, "rsh was killed\n{}", run.describe());
    run.assert_stdout_has("kill=1\n");
    run.assert_stderr_has("Operation not permitted");
    run.assert_status(0);

    let control = case.run(&Policy::new().off(), script);
    assert_eq!(
        control.signal,
        Some(libc::SIGTERM),
        "control: rsh survived its SIGTERM\n{}",
        control.describe()
    );
}

#[test]
fn program_cannot_read_rsh_environment() {
    require_confinement!();
    let case = Case::new();
    let secret = format!("secret-{}", unique());
    case.write(
        "prog.py",
        "import sys, os\ntry:\n    sys.stdout.buffer.write(open('/proc/%d/environ' % os.getppid(), 'rb').read())\nexcept OSError as e:\n    print('errno', e.errno)\n",
    );
    let script = "cat /proc/$$/environ; echo; python3 prog.py";
    let with_secret = |c: &mut Command| {
        c.env("RSH_TEST_SECRET", &secret);
    };

    let run = case.run_with(&Policy::new(), script, with_secret);
    run.assert_stdout_lacks(&secret);
    run.assert_stderr_has("environ: Permission denied");
    run.assert_stdout_has(&format!("errno {}\n", libc::EACCES));
    run.assert_status(0);

    let control = case.run_with(&Policy::new().off(), script, with_secret);
    control.assert_stdout_has(&secret);
}

/// What rsh opens for a command (a redirection, `$(< …)`, `source`) is never one of rsh's own
/// entries in /proc: its memory, its maps (which show where the address its execveat
/// filter compares lives) and its environment stay as out of reach as they are for the
/// program, which Landlock keeps from tracing rsh. A program's own `/proc/self` is its own.
#[test]
fn rsh_opens_none_of_its_own_proc_entries_for_a_command() {
    require_confinement!();
    let case = Case::new();
    let secret = format!("secret-{}", unique());
    let script = "m=$(< /proc/self/maps); echo \"maps ${m:0:200}\"
        exec 5</proc/self/mem; echo \"mem $?\"
        read -r line < /proc/$$/maps; echo \"pid $line\"
        read -r line < /proc/thread-self/maps; echo \"thread $line\"
        source /proc/self/environ; echo \"environ $?\"
        cat /proc/self/status";
    let with_secret = |c: &mut Command| {
        c.env("RSH_TEST_SECRET", &secret);
    };
    let run = case.run_with(&Policy::new(), script, with_secret);
    run.assert_stdout_lacks("r-xp");
    run.assert_stdout_lacks(&secret);
    for path in [
        "/proc/self/maps",
        "/proc/self/mem",
        "/maps",
        "/proc/thread-self/maps",
        "/proc/self/environ",
    ] {
        run.assert_stderr_has(&format!("{path}: it is rsh's own process"));
    }
    run.assert_stdout_has("mem 1\n");
    run.assert_stdout_has("Name:");
    run.assert_status(0);

    let control = case.run_with(&Policy::new().off(), script, with_secret);
    control.assert_stdout_has("r-xp");
}

/// rsh itself, seen from outside while its program runs: not dumpable (so its /proc entries
/// belong to root, and the user's other processes cannot read its environment or memory, nor
/// attach to it), and no_new_privs set. Apart from Landlock's scoping, which keeps rsh's own
/// programs away from it in any case.
#[test]
fn rsh_is_not_dumpable_and_has_no_new_privs() {
    require_confinement!();
    let Some(ids) = common::test_user() else {
        return;
    };
    let case = case_for_test_user(ids.0, ids.1);
    let secret = format!("secret-{}", unique());
    let as_user = |command: &mut Command| {
        command
            .uid(ids.0)
            .gid(ids.1)
            .env("RSH_TEST_SECRET", &secret);
    };
    // While rsh waits for `sleep`: the owner of its environ, its NoNewPrivs line, and what
    // another process of the same user read of its environment.
    let seen = |policy: &Policy| {
        let mut running = case.spawn(policy, "sleep 5", as_user);
        let rsh = running.child.id() as i32;
        let started = Instant::now();
        while descendants(rsh).is_empty() && started.elapsed() < TIMEOUT {
            thread::sleep(Duration::from_millis(5));
        }
        let environ = format!("/proc/{rsh}/environ");
        let owner = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(&environ)
                .map(|m| m.uid())
                .expect("rsh's environ")
        };
        let status = fs::read_to_string(format!("/proc/{rsh}/status")).unwrap_or_default();
        let no_new_privs = status
            .lines()
            .find_map(|l| l.strip_prefix("NoNewPrivs:"))
            .map(|v| v.trim().to_string());
        let read = Command::new("cat")
            .arg(&environ)
            .uid(ids.0)
            .gid(ids.1)
            .output()
            .expect("run cat as the test user");
        let leaked = String::from_utf8_lossy(&read.stdout).contains(&secret);
        for pid in descendants(rsh) {
            // SAFETY: kill with a pid and a signal number.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        let _ = running.child.kill();
        let _ = running.finish();
        (owner, no_new_privs, leaked)
    };

    assert_eq!(seen(&Policy::new()), (0, Some("1".to_string()), false));
    assert_eq!(
        seen(&Policy::new().off()),
        (ids.0, Some("0".to_string()), true),
        "control"
    );
}

#[test]
fn inherited_descriptors_are_not_passed_on() {
    require_confinement!();
    let case = Case::new();
    let marker = case.outside().join(format!("inherited-{}", unique()));
    fs::write(&marker, "").unwrap();
    let file = fs::File::open(&marker).unwrap();
    let raw = file.as_raw_fd();
    // dup2 leaves the copy open across exec: rsh inherits descriptor 5.
    let with_fd5 = |c: &mut Command| {
        // SAFETY: dup2 is async-signal-safe.
        unsafe {
            c.pre_exec(move || {
                if libc::dup2(raw, 5) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    };
    case.write(
        "prog.py",
        "import os\nfor fd in sorted(os.listdir('/proc/self/fd'), key=int):\n    print(fd, os.readlink('/proc/self/fd/' + fd) if os.path.exists('/proc/self/fd/' + fd) else '?')\n",
    );
    let run = case.run_with(&Policy::new(), "python3 prog.py", with_fd5);
    run.assert_status(0);
    run.assert_stdout_has("0 ");
    let marker_name = marker.file_name().unwrap().to_str().unwrap();
    run.assert_stdout_lacks(marker_name);
    assert!(
        !run.stdout.lines().any(|l| l.starts_with("5 ")),
        "descriptor 5 reached the program\n{}",
        run.describe()
    );

    // Unconfined, rsh passes what it inherited on, as bash does.
    let control = case.run_with(&Policy::new().off(), "python3 prog.py", with_fd5);
    control.assert_stdout_has(&format!("5 {}\n", marker.display()));
    drop(file);
}

// ---------------------------------------------------------------------------------------------
// The terminal
// ---------------------------------------------------------------------------------------------

/// Python that pushes `x` and `\n` into its terminal's input queue (the second with a request
/// number that has high bits set), reports how much is queued, and tries the virtual console
/// ioctl.
const TERMINAL_PROGRAM: &str = r#"import ctypes, fcntl, struct
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
FIONREAD = 0x541B
out = []
try:
    fcntl.ioctl(0, TIOCSTI, b"x")
    out.append("sti ok")
except OSError as e:
    out.append("sti errno %d" % e.errno)
# The kernel keeps the low 32 bits of the request: this is TIOCSTI too.
libc = ctypes.CDLL(None, use_errno=True)
if libc.ioctl(0, ctypes.c_ulong(TIOCSTI | 1 << 32), ctypes.c_char_p(b"\n")) == 0:
    out.append("sti_high ok")
else:
    out.append("sti_high errno %d" % ctypes.get_errno())
queued = struct.unpack("i", fcntl.ioctl(0, FIONREAD, b"\0\0\0\0"))[0]
out.append("queued %d" % queued)
try:
    fcntl.ioctl(0, TIOCLINUX, b"\x06\0")
    out.append("linux ok")
except OSError as e:
    out.append("linux errno %d" % e.errno)
print(", ".join(out))
"#;

/// Runs SCRIPT with a fresh pseudo-terminal as rsh's stdin and controlling terminal.
fn run_on_terminal(case: &Case, policy: &Policy, script: &str) -> Run {
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let slave: OwnedFd = pty.slave;
    let run = case.run_with(policy, script, move |c| {
        c.stdin(Stdio::from(slave));
        // SAFETY: setsid and ioctl are async-signal-safe.
        unsafe {
            c.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    // The master stays open until rsh is done: closing it would hang up the terminal.
    drop(pty.master);
    run
}

#[test]
fn terminal_input_cannot_be_injected() {
    require_confinement!();
    let case = Case::new();
    case.write("prog.py", TERMINAL_PROGRAM);

    let run = run_on_terminal(&case, &Policy::new(), "python3 prog.py");
    run.assert_stdout_has(&format!(
        "sti errno {eperm}, sti_high errno {eperm}, queued 0, linux errno {eperm}\n",
        eperm = libc::EPERM
    ));
    run.assert_status(0);

    let legacy = fs::read_to_string("/proc/sys/dev/tty/legacy_tiocsti").unwrap_or_default();
    if legacy.trim() == "0" {
        eprintln!(
            "SKIPPED (control only): dev.tty.legacy_tiocsti is 0, TIOCSTI fails even unconfined"
        );
        return;
    }
    let control = run_on_terminal(&case, &Policy::new().off(), "python3 prog.py");
    control.assert_stdout_has("sti ok, sti_high ok, queued 2, ");
    control.assert_stdout_lacks(&format!("linux errno {}", libc::EPERM));
}

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

#[test]
fn cpu_limit_ends_a_busy_program() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 10\ncpu = 1");
    let run = case.run(&policy, "python3 -c 'while True: pass'");
    run.assert_stderr_has("CPU time limit exceeded");
    run.assert_status(152);
    assert!(run.elapsed < Duration::from_secs(6), "{}", run.describe());
}

/// Without a controlling terminal no stop comes from one: a program that stops itself with
/// SIGTSTP goes on at once, and so does the line, instead of rsh stopping with it and
/// waiting, past every timeout, for a SIGCONT that never comes.
#[test]
fn a_program_stopping_itself_without_a_terminal_goes_on() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 5");
    let script = "python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGTSTP); \
                  print(\"resumed\")'; echo after";
    // A session of its own, without a terminal, and rsh in a group of its own in it whose
    // parent is in the session too: a stop is not dropped as in an orphaned group.
    let launcher = "import os, sys\nos.setsid()\npid = os.fork()\nif pid == 0:\n    \
                    os.setpgid(0, 0)\n    os.execv(sys.argv[1], sys.argv[1:])\n\
                    _, status = os.waitpid(pid, 0)\nsys.exit(os.waitstatus_to_exitcode(status))\n";
    let run = case.run_launched(&["python3", "-c", launcher], &policy, script);
    run.assert_stdout_has("resumed\nafter\n");
    run.assert_status(0);
    assert!(run.elapsed < Duration::from_secs(4), "{}", run.describe());
}

#[test]
fn file_size_limit_stops_a_write() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 10\nfile_size = \"1M\"");
    let run = case.run(&policy, "dd if=/dev/zero of=big bs=1M count=5");
    run.assert_stderr_has("File size limit exceeded");
    run.assert_status(153);
    let size = fs::metadata(case.file("big")).unwrap().len();
    assert_eq!(size, 1 << 20, "{}", run.describe());
}

/// A builtin writes from rsh itself, and is held to the same size: the write fails, the
/// shell goes on.
#[test]
fn file_size_limit_holds_what_builtins_write() {
    require_confinement!();
    let case = Case::new();
    let line = "x".repeat(1023);
    let script =
        format!("i=0; while [ $i -lt 2000 ]; do echo {line}; i=$((i+1)); done > big; echo after");
    let size = || fs::metadata(case.file("big")).unwrap().len();
    let control = case.run(&Policy::new().limits("timeout = 10"), &script);
    assert_eq!(size(), 2000 << 10, "control\n{}", control.describe());
    let policy = Policy::new().limits("timeout = 10\nfile_size = \"1M\"");
    let run = case.run(&policy, &script);
    assert_eq!(size(), 1 << 20, "{}", run.describe());
    run.assert_stderr_has("rsh: echo: write error: File too large");
    run.assert_stdout_has("after\n");
    run.assert_status(0);
}

#[test]
fn memory_and_open_file_limits() {
    require_confinement!();
    let case = Case::new();
    case.write(
        "prog.py",
        "files = []\ntry:\n    while len(files) < 1000:\n        files.append(open('/dev/null'))\nexcept OSError as e:\n    print('files', len(files), 'errno', e.errno)\ntry:\n    b = bytearray(600 * 1024 * 1024)\n    print('memory ok')\nexcept MemoryError:\n    print('memory refused')\n",
    );
    let policy = Policy::new().limits("timeout = 10\nmemory = \"256M\"\nopen_files = 64");
    let run = case.run(&policy, "python3 prog.py");
    run.assert_stdout_has(&format!("errno {}\n", libc::EMFILE));
    let opened: usize = run
        .stdout
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count\n{}", run.describe()));
    assert!(opened < 64, "{opened} files opened\n{}", run.describe());
    run.assert_stdout_has("memory refused\n");
    run.assert_status(0);
}

/// Forks children that wait for it until a fork fails or there are 40; prints how many and
/// the errno of the failure (None when there was none).
const FORK_UNTIL_REFUSED: &str = "import os
r, w = os.pipe()
n, err = 0, None
while n < 40:
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        os._exit(0)
    n += 1
print('forked', n, 'errno', err)
os.close(w)
for _ in range(n):
    os.wait()
";

/// `limits.processes` stops a program that may start others from starting more than that
/// many, as its user: a fork bomb through an allowed interpreter ends at the limit. The
/// kernel counts every process and thread of the user, and exempts root.
#[test]
fn process_limit_stops_a_fork_bomb() {
    require_confinement!();
    let Some(ids) = common::test_user() else {
        return;
    };
    let case = case_for_test_user(ids.0, ids.1);
    case.write("bomb.py", FORK_UNTIL_REFUSED);
    let as_user = |command: &mut Command| {
        command.uid(ids.0).gid(ids.1);
    };
    let policy = Policy::new().commands("python3 = { subprocesses = true }");
    let limited = policy.clone().limits("timeout = 10\nprocesses = 20");

    let run = case.run_with(&limited, "python3 bomb.py", as_user);
    run.assert_stdout_has(&format!(" errno {}\n", libc::EAGAIN));
    let forked: usize = run
        .stdout
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count\n{}", run.describe()));
    // rsh and python3 count too, and any other process of the user.
    assert!(forked < 20, "{forked} children forked\n{}", run.describe());
    run.assert_status(0);

    let control = case.run_with(&policy, "python3 bomb.py", as_user);
    control.assert_stdout_has("forked 40 errno None\n");
    // As documented: the kernel does not apply the limit to root.
    let root = case.run(&limited, "python3 bomb.py");
    root.assert_stdout_has("forked 40 errno None\n");
}

/// Sets its parent-death signal to SIGKILL again, then tries to clear it and to change it to
/// SIGTERM, which it ignores (recording the three results in `ready`), then writes CANARY two
/// seconds later.
const OUTLIVE_RSH: &str = "import ctypes, signal, time
libc = ctypes.CDLL(None, use_errno=True)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
again = libc.prctl(1, 9, 0, 0, 0)
cleared = libc.prctl(1, 0, 0, 0, 0), ctypes.get_errno()
changed = libc.prctl(1, 15, 0, 0, 0), ctypes.get_errno()
with open('ready', 'w') as f:
    f.write('%d %d %d %d %d' % ((again,) + cleared + changed))
time.sleep(2)
open('CANARY', 'w').close()
";

/// A program cannot keep running after rsh is killed (and with it the command's timeout) by
/// clearing or changing the parent-death signal rsh gave it.
#[test]
fn a_program_dies_with_rsh_whatever_it_tries() {
    require_confinement!();
    let case = Case::new();
    case.write("outlive.py", OUTLIVE_RSH);
    let attempt = |policy: &Policy| {
        let mut running = case.spawn(policy, "python3 outlive.py", |_| {});
        let started = Instant::now();
        while !case.exists("ready") && started.elapsed() < TIMEOUT {
            thread::sleep(Duration::from_millis(10));
        }
        running.child.kill().expect("kill rsh");
        running.child.wait().expect("wait for rsh");
        thread::sleep(Duration::from_secs(3));
        let results = fs::read_to_string(case.file("ready")).unwrap_or_default();
        fs::remove_file(case.file("ready")).ok();
        results
    };
    let eperm = libc::EPERM;
    let results = attempt(&Policy::new());
    assert_eq!(results, format!("0 -1 {eperm} -1 {eperm}"));
    assert!(!case.exists("CANARY"), "the program outlived rsh");

    let control = attempt(&Policy::new().off());
    assert_eq!(control, "0 0 0 0 0");
    assert!(
        case.exists("CANARY"),
        "the control's program did not outlive rsh"
    );
}

/// rsh's own copies of itself (a subshell, a stage of a pipeline, a process substitution)
/// end with it, however it ends: killed or hung up, it could no longer end them when their
/// time is up, and they would go on starting programs unwatched.
#[test]
fn the_shells_copies_end_with_it() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new();
    let looping = "while :; do touch CANARY; sleep 0.2; done";
    for script in [
        format!("( {looping} ); echo after"),
        format!("{looping} | cat"),
        format!("echo <({looping}); sleep 100"),
    ] {
        for signal in [libc::SIGKILL, libc::SIGHUP, libc::SIGTERM] {
            let mut running = case.spawn(&policy, &script, |_| {});
            let pid = running.child.id() as i32;
            // Running: the canary comes back once removed.
            for _ in 0..2 {
                let started = Instant::now();
                while !case.exists("CANARY") && started.elapsed() < TIMEOUT {
                    thread::sleep(Duration::from_millis(20));
                }
                assert!(case.exists("CANARY"), "{script}: the loop does not run");
                fs::remove_file(case.file("CANARY")).unwrap();
            }
            let below = descendants(pid);
            // SAFETY: kill with a pid this test started.
            unsafe { libc::kill(pid, signal) };
            running.child.wait().expect("wait for rsh");
            thread::sleep(Duration::from_millis(300));
            fs::remove_file(case.file("CANARY")).ok();
            thread::sleep(Duration::from_secs(1));
            let outlived = case.exists("CANARY");
            // What is left of this case's rsh (its copies keep its command line).
            let ours = case.conf.path().join("policy.toml");
            for orphan in below {
                let line = fs::read(format!("/proc/{orphan}/cmdline")).unwrap_or_default();
                if String::from_utf8_lossy(&line).contains(&*ours.to_string_lossy()) {
                    // SAFETY: kill with a pid that runs this case's rsh.
                    unsafe { libc::kill(orphan, libc::SIGKILL) };
                }
            }
            assert!(
                !outlived,
                "{script}: a copy of rsh outlived signal {signal}"
            );
        }
    }
}

#[test]
fn timeout_ends_a_command() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 2");
    // The command ends with SIGTERM's status; the script goes on, as after any failure.
    let run = case.run(&policy, "sleep 100; echo \"status=$?\"");
    run.assert_stderr_has("rsh: sleep: timed out after 2 s (limits.timeout); ended");
    run.assert_stderr_has("Terminated");
    run.assert_stdout_has("status=143\n");
    run.assert_status(0);
    assert!(
        run.elapsed >= Duration::from_millis(1900) && run.elapsed < Duration::from_secs(6),
        "{}",
        run.describe()
    );
}

/// A pipeline stage whose last command has a process substitution used to become that
/// command's program: nobody was left to end the list, and the program's parent-death signal
/// does not cross its Landlock signal scope, so the list ran on after rsh, for good. The
/// stage now stays to end it, as any shell ends its lists.
#[test]
fn a_process_substitution_in_a_stage_does_not_outlive_rsh() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new();
    let tick = case.path().join("tick");
    for script in [
        "ls <(while :; do touch tick; sleep 0.2; done) | cat",
        "{ exec ls <(while :; do touch tick; sleep 0.2; done); } | cat",
    ] {
        let run = case.run(&policy, script);
        run.assert_status(0);
        let _ = fs::remove_file(&tick);
        thread::sleep(Duration::from_millis(800));
        assert!(
            !tick.exists(),
            "{script}: the list outlived rsh\n{}",
            run.describe()
        );
    }
}

/// Stopping and continuing rsh interrupts its wait for the job: each time, the wait used to
/// start over with the whole time that was left, and a job stopped every few tenths of a
/// second never reached its deadline.
#[test]
fn timeout_holds_while_rsh_is_stopped_and_continued() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 1");
    for script in ["sleep 100", "sleep 100 | cat"] {
        let mut running = case.spawn(&policy, script, |_| {});
        let pid = running.child.id() as i32;
        let poking = Instant::now();
        while !running.is_done() && poking.elapsed() < Duration::from_secs(8) {
            thread::sleep(Duration::from_millis(200));
            // SAFETY: rsh is not waited for yet: the number is still its.
            unsafe {
                libc::kill(pid, libc::SIGSTOP);
                thread::sleep(Duration::from_millis(10));
                libc::kill(pid, libc::SIGCONT);
            }
        }
        let run = running.finish();
        run.assert_stderr_has("timed out after 1 s (limits.timeout); ended");
        run.assert_status(143);
        assert!(
            run.elapsed < Duration::from_secs(4),
            "{script}\n{}",
            run.describe()
        );
    }
}

/// rsh opens a redirection's file itself, and a FIFO's open waits for the other end: that
/// wait ends at the timeout (the redirection fails, the script goes on, and nothing of rsh is
/// left holding the FIFO), and on a signal that ends rsh. With a writer it reads as before.
#[test]
fn timeout_ends_a_wait_for_a_fifo() {
    require_confinement!();
    let case = Case::new();
    let made = Command::new("mkfifo")
        .arg(case.file("fifo"))
        .status()
        .unwrap();
    assert!(made.success());
    let policy = Policy::new().limits("timeout = 1");
    let no_reader = "python3 -c 'import os\ntry: os.open(\"fifo\", os.O_WRONLY | os.O_NONBLOCK)\n\
                     except OSError as e: print(\"no reader\", e.errno)'";
    let script = format!(
        "cat < fifo; echo \"read=$?\"; echo x > fifo; echo \"write=$?\"; \
         y=$(< fifo); echo \"substitution=$?\"; {no_reader}"
    );
    let run = case.run(&policy, &script);
    run.assert_stderr_has(
        "rsh: fifo: nothing opened the other end of the FIFO within 1 s (limits.timeout)",
    );
    run.assert_stdout_has("read=1\nwrite=1\nsubstitution=1\n");
    run.assert_stdout_has(&format!("no reader {}\n", libc::ENXIO));
    assert!(run.elapsed < Duration::from_secs(8), "{}", run.describe());

    // The wait ends without rsh opening the other end itself: another reader waiting on the
    // FIFO is not let go with nothing to read.
    let fifo = case.file("fifo");
    let (opened, other_reader) = mpsc::channel();
    let reader = thread::spawn({
        let fifo = fifo.clone();
        move || {
            let file = fs::File::open(fifo);
            let _ = opened.send(());
            file
        }
    });
    let run = case.run(&policy, "cat < fifo");
    run.assert_stderr_has("nothing opened the other end of the FIFO within 1 s");
    let released = other_reader
        .recv_timeout(Duration::from_millis(500))
        .is_ok();
    // Lets the test's reader go.
    let writer = fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo);
    reader.join().unwrap().expect("open the FIFO in the test");
    drop(writer);
    assert!(
        !released,
        "rsh opened the FIFO's other end\n{}",
        run.describe()
    );

    let writer = thread::spawn(move || fs::write(fifo, "through\n"));
    let run = case.run(&Policy::new().limits("timeout = 10"), "cat < fifo");
    writer.join().unwrap().expect("write into the FIFO");
    assert_eq!(run.stdout, "through\n", "{}", run.describe());

    for signal in [libc::SIGTERM, libc::SIGHUP] {
        let patient = Policy::new().limits("timeout = 100");
        let running = case.spawn(&patient, "cat < fifo; echo went-on", |_| {});
        thread::sleep(Duration::from_millis(500));
        // SAFETY: kill with a pid this test started.
        unsafe { libc::kill(running.child.id() as i32, signal) };
        let run = running.finish();
        assert_eq!(run.signal, Some(signal), "{}", run.describe());
        run.assert_stdout_lacks("went-on");
        assert!(run.elapsed < Duration::from_secs(5), "{}", run.describe());
    }
}

/// A loop of builtins starts no program for a timeout to end: the processor time the shell
/// spends on it is held to the timeout, and the line is abandoned (the next one runs).
/// Waiting for input is no work: a loop that reads slowly fed lines goes on past it.
#[test]
fn timeout_ends_a_loop_of_builtins_not_one_that_waits() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 1");
    let run = case.run(
        &policy,
        "while :; do x=1; done; echo same line\necho \"next=$?\"",
    );
    run.assert_stderr_has(
        "rsh: the shell's own commands ran 1 s of processor time without starting a program \
         (limits.timeout); the line is abandoned",
    );
    assert_eq!(run.stdout, "next=143\n", "{}", run.describe());
    run.assert_status(0);
    assert!(run.elapsed < Duration::from_secs(6), "{}", run.describe());

    let (reader, mut writer) = std::io::pipe().expect("pipe");
    let feeder = thread::spawn(move || {
        for line in ["a", "b", "c"] {
            io::Write::write_all(&mut writer, format!("{line}\n").as_bytes()).expect("feed a line");
            thread::sleep(Duration::from_millis(900));
        }
    });
    let script = "while read l; do echo \"got $l\"; done; echo done";
    let run = case.spawn(&policy, script, |c| {
        c.stdin(reader);
    });
    let run = run.finish();
    feeder.join().unwrap();
    assert_eq!(
        run.stdout,
        "got a\ngot b\ngot c\ndone\n",
        "{}",
        run.describe()
    );
    assert!(
        run.elapsed >= Duration::from_millis(2500),
        "{}",
        run.describe()
    );
}

/// Python (allowed to start programs) starts `sleep ARG` with the Popen options HOW, then
/// waits forever (WAIT) or exits. Returns the run, ARG, and a guard that ends a sleep the test
/// left behind.
fn start_a_child(
    case: &Case,
    policy: &Policy,
    how: &str,
    wait: bool,
) -> (Run, String, EndProcessesWith) {
    let seconds = format!("{}.{}", 1000 + std::process::id() % 1000, unique());
    let cleanup = EndProcessesWith(seconds.clone());
    case.write(
        "prog.py",
        &format!(
            "import subprocess, sys, time
try:
    subprocess.Popen(['sleep', {seconds:?}]{how})
    print('started', flush=True)
except OSError as e:
    print('refused errno', e.errno, flush=True)
if sys.argv[1] == 'wait':
    time.sleep(1000)
"
        ),
    );
    let script = if wait {
        "python3 prog.py wait"
    } else {
        "python3 prog.py exit"
    };
    let mut running = case.spawn(policy, script, |_| {});
    // Watched while rsh runs: a child that started and was ended is not a vacuous pass.
    let mut seen = false;
    while !running.is_done() && running.started.elapsed() < TIMEOUT {
        seen = seen || !processes_with_arg(&seconds).is_empty();
        thread::sleep(Duration::from_millis(20));
    }
    let run = running.finish();
    assert!(
        seen || run.stdout.contains("started\n")
            || run
                .stdout
                .contains(&format!("refused errno {}", libc::EPERM)),
        "sleep {seconds} neither started nor was refused\n{}",
        run.describe()
    );
    (run, seconds, cleanup)
}

/// Fails unless no process with ARG remains within a second.
fn assert_gone(seconds: &str, run: &Run) {
    let ended = Instant::now();
    let mut left = processes_with_arg(seconds);
    while !left.is_empty() && ended.elapsed() < Duration::from_secs(1) {
        thread::sleep(Duration::from_millis(20));
        left = processes_with_arg(seconds);
    }
    assert!(
        left.is_empty(),
        "sleep {seconds} outlived its command: pids {left:?}\n{}",
        run.describe()
    );
}

fn timeout_policy() -> Policy {
    Policy::new()
        .limits("timeout = 2")
        .commands("python3 = { subprocesses = true }")
}

#[test]
fn timeout_ends_the_programs_children() {
    require_confinement!();
    let case = Case::new();
    let (run, seconds, _cleanup) = start_a_child(&case, &timeout_policy(), "", true);
    run.assert_stdout_has("started\n");
    assert_gone(&seconds, &run);
    run.assert_status(143);
    run.assert_stderr_has("rsh: python3: timed out after 2 s (limits.timeout); ended");
}

/// A child in a session or process group of its own would not get the job's signals: leaving
/// them is refused, or the child is ended anyway.
#[test]
fn timeout_ends_children_that_leave_the_process_group() {
    require_confinement!();
    for how in [", start_new_session=True", ", process_group=0"] {
        let case = Case::new();
        let (run, seconds, _cleanup) = start_a_child(&case, &timeout_policy(), how, true);
        assert_gone(&seconds, &run);
        run.assert_status(143);
    }
}

#[test]
fn timeout_kills_a_program_that_ignores_sigterm() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 1");
    let run = case.run(
        &policy,
        "python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(100)'",
    );
    run.assert_stderr_has("rsh: python3: timed out after 1 s (limits.timeout); ended");
    run.assert_stderr_has("Killed");
    run.assert_status(137);
    // One second, then the two seconds of grace between SIGTERM and SIGKILL.
    assert!(run.elapsed < Duration::from_secs(6), "{}", run.describe());
}

/// `exec PROGRAM` replaces rsh: nobody is left to wait, and the timeout must still hold, also
/// for a program that uses the alarm clock itself.
#[test]
fn timeout_holds_after_exec() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 1");
    let run = case.run(
        &policy,
        "exec python3 -c 'import signal, time; signal.alarm(0); time.sleep(8); print(\"survived\")'",
    );
    run.assert_stdout_lacks("survived");
    assert!(
        run.elapsed < Duration::from_secs(5),
        "ran past the timeout\n{}",
        run.describe()
    );
}

/// The plain case: the alarm ends a program that leaves it alone.
#[test]
fn timeout_ends_an_exec_program() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().limits("timeout = 1");
    let run = case.run(&policy, "exec sleep 100; echo not reached");
    // rsh stays as the program's parent to end it, then ends with its status.
    run.assert_status(143);
    run.assert_stderr_has("rsh: sleep: timed out after 1 s (limits.timeout); ended");
    run.assert_stdout_lacks("not reached");
    assert!(run.elapsed < Duration::from_secs(4), "{}", run.describe());
}

/// A program that starts a child and exits at once: the child is part of the command and must
/// not run on, unlimited, after it.
#[test]
fn children_do_not_outlive_their_command() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().commands("python3 = { subprocesses = true }");
    let (run, seconds, _cleanup) = start_a_child(
        &case,
        &policy,
        ", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL",
        false,
    );
    assert_gone(&seconds, &run);
    run.assert_status(0);
}

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

/// Variables that make programs load code.
const INJECTING: &[(&str, &str)] = &[
    ("LD_PRELOAD", "libm.so.6"),
    ("BASH_ENV", "/tmp/evil"),
    ("PYTHONPATH", "/tmp/evil"),
    ("NODE_OPTIONS", "--require /tmp/evil"),
    ("GIT_SSH_COMMAND", "touch CANARY"),
    ("GIT_EXEC_PATH", "/tmp/evil"),
    ("PAGER", "touch CANARY"),
    ("EDITOR", "touch CANARY"),
    ("VISUAL", "touch CANARY"),
    ("ENV", "/tmp/evil"),
    ("PYTHONSTARTUP", "/tmp/evil"),
    ("PERL5OPT", "-Mevil"),
];

const PRINT_ENV: &str = "python3 -c 'import os; print(\"\\n\".join(k + \"=\" + v for k, v in sorted(os.environ.items())))'";

/// The environment python saw, under POLICY, with INJECTING and RSH_TEST_VAR set for rsh.
fn child_environment(case: &Case, policy: &Policy) -> HashMap<String, String> {
    child_environment_after(case, policy, "")
}

/// The same, with SCRIPT (assignments, exports) before the python command.
fn child_environment_after(case: &Case, policy: &Policy, script: &str) -> HashMap<String, String> {
    let run = case.run_with(policy, &format!("{script}{PRINT_ENV}"), |c| {
        c.envs(INJECTING.iter().copied())
            .env("RSH_TEST_VAR", "ordinary");
    });
    run.assert_status(0);
    run.stdout
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn code_injecting_variables_are_dropped() {
    require_confinement!();
    let case = Case::new();
    let env = child_environment(&case, &Policy::new());
    for (name, _) in INJECTING {
        assert!(
            !env.contains_key(*name),
            "{name} reached the program: {env:?}"
        );
    }
    assert!(!env.contains_key("RSH_TEST_VAR"), "{env:?}");
    assert_eq!(
        env.get("PATH").map(String::as_str),
        Some("/usr/local/bin:/usr/bin:/bin")
    );
    let shell = env.get("SHELL").expect("SHELL is set");
    assert_eq!(
        fs::canonicalize(shell).unwrap(),
        fs::canonicalize(RSH).unwrap(),
        "SHELL is not rsh"
    );
}

#[test]
fn env_allow_star_passes_everything_but_code_injection() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().commands("\n[env]\nallow = [\"*\"]");
    let env = child_environment(&case, &policy);
    assert_eq!(
        env.get("RSH_TEST_VAR").map(String::as_str),
        Some("ordinary")
    );
    for (name, _) in INJECTING {
        assert!(
            !env.contains_key(*name),
            "{name} reached the program: {env:?}"
        );
    }
}

#[test]
fn env_allow_by_exact_name_passes_ld_preload() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().commands("\n[env]\nallow = [\"LD_PRELOAD\"]");
    let env = child_environment(&case, &policy);
    assert_eq!(env.get("LD_PRELOAD").map(String::as_str), Some("libm.so.6"));
    assert!(!env.contains_key("PYTHONPATH"), "{env:?}");
    assert!(!env.contains_key("RSH_TEST_VAR"), "{env:?}");
}

// ---------------------------------------------------------------------------------------------
// Kernels that cannot confine
// ---------------------------------------------------------------------------------------------

/// A seccomp filter for rsh that makes the system calls in RULES fail with ERRNO: the kernel
/// then looks to rsh as if it lacked them.
fn hide_syscalls(
    rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>>,
    errno: i32,
) -> seccompiler::BpfProgram {
    let filter = seccompiler::SeccompFilter::new(
        rules,
        seccompiler::SeccompAction::Allow,
        seccompiler::SeccompAction::Errno(errno as u32),
        seccompiler::TargetArch::x86_64,
    )
    .expect("build the filter");
    filter.try_into().expect("compile the filter")
}

/// A kernel without Landlock: landlock_create_ruleset is not implemented.
fn no_landlock() -> seccompiler::BpfProgram {
    hide_syscalls(
        BTreeMap::from([(libc::SYS_landlock_create_ruleset, vec![])]),
        libc::ENOSYS,
    )
}

/// A kernel without seccomp filters: prctl(PR_SET_SECCOMP) and seccomp() say EINVAL.
fn no_seccomp() -> seccompiler::BpfProgram {
    use seccompiler::{SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompRule};
    let set_seccomp = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        libc::PR_SET_SECCOMP as u64,
    )
    .unwrap();
    hide_syscalls(
        BTreeMap::from([
            (libc::SYS_seccomp, vec![]),
            (
                libc::SYS_prctl,
                vec![SeccompRule::new(vec![set_seccomp]).unwrap()],
            ),
        ]),
        libc::EINVAL,
    )
}

/// Runs SCRIPT with FILTER installed in rsh before it starts.
fn run_filtered(
    case: &Case,
    policy: &Policy,
    script: &str,
    filter: seccompiler::BpfProgram,
) -> Run {
    case.run_with(policy, script, move |c| {
        // SAFETY: apply_filter makes two system calls and allocates nothing on success.
        unsafe {
            c.pre_exec(move || {
                seccompiler::apply_filter(&filter)
                    .map_err(|_| io::Error::from_raw_os_error(libc::EPERM))
            });
        }
    })
}

#[test]
fn enforce_without_landlock_runs_nothing() {
    require_confinement!();
    let case = Case::new();
    let run = run_filtered(&case, &Policy::new(), "touch CANARY", no_landlock());
    assert!(!case.exists("CANARY"), "touch ran\n{}", run.describe());
    run.assert_status(126);
    assert!(
        run.stderr.starts_with(
            "rsh: cannot start: the policy requires kernel confinement, and this kernel has no Landlock"
        ),
        "{}",
        run.describe()
    );
}

#[test]
fn enforce_without_seccomp_runs_nothing() {
    require_confinement!();
    let case = Case::new();
    let run = run_filtered(&case, &Policy::new(), "touch CANARY", no_seccomp());
    assert!(!case.exists("CANARY"), "touch ran\n{}", run.describe());
    run.assert_status(126);
    run.assert_stderr_has("rsh: cannot start: the policy requires kernel confinement");
    run.assert_stderr_has("seccomp");
}

#[test]
fn degraded_without_landlock_runs_with_seccomp() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().mode("degraded");
    let script = r"touch CANARY; find . -maxdepth 0 -exec /bin/sh -c 'touch FORKED' \;";
    let run = run_filtered(&case, &policy, script, no_landlock());
    assert!(
        case.exists("CANARY"),
        "touch did not run\n{}",
        run.describe()
    );
    // What this kernel still enforces, it enforces.
    assert!(
        !case.exists("FORKED"),
        "find ran a shell\n{}",
        run.describe()
    );
    run.assert_stderr_has("find: cannot fork: Operation not permitted");
}

/// In degraded mode, every record of a program that ran says what the kernel did not enforce,
/// and is sent as a warning: the session's first, a program rsh waited for, and the stages of
/// a pipeline (recorded by the shell that reaped them).
#[test]
fn degraded_mode_is_in_every_record_of_a_program() {
    require_confinement!();
    let Some(syslog) = common::syslog::Syslog::start() else {
        return;
    };
    let case = Case::new();
    let audit = format!(
        "\n[audit]\nsocket = {:?}",
        syslog.socket().display().to_string()
    );
    let policy = Policy::new().mode("degraded").commands(&audit);
    let run = run_filtered(
        &case,
        &policy,
        "touch CANARY; ls | cat; rm CANARY",
        no_landlock(),
    );
    run.assert_stderr_has("rsh: denied: rm CANARY");
    run.assert_status(126);
    assert!(
        case.exists("CANARY"),
        "touch did not run\n{}",
        run.describe()
    );

    let records = syslog.records(6);
    let summary: Vec<(String, String, Vec<&str>)> = records
        .iter()
        .map(|r| (r.event().to_string(), r.severity.clone(), r.argv()))
        .collect();
    assert_eq!(records.len(), 6, "{summary:#?}");
    for record in &records {
        let unenforced = record.json["unenforced"].as_array();
        let refused = record.json["decision"] == "deny";
        match record.event() {
            "session-start" => {}
            "command" if !refused => {}
            _ => {
                assert_eq!(unenforced, None, "{record:?}");
                continue;
            }
        }
        assert_eq!(record.severity, "warning", "{record:?}");
        let unenforced = unenforced.unwrap_or_else(|| panic!("no unenforced: {record:?}"));
        assert!(
            unenforced[0]
                .as_str()
                .is_some_and(|why| why.contains("this kernel has no Landlock")),
            "{record:?}"
        );
    }
    let mut programs: Vec<Vec<&str>> = records.iter().map(|r| r.argv()).collect();
    programs.retain(|argv| !argv.is_empty());
    programs.sort();
    assert_eq!(
        programs,
        [
            vec!["cat"],
            vec!["ls"],
            vec!["rm", "CANARY"],
            vec!["touch", "CANARY"]
        ]
    );
}

/// Without seccomp (degraded mode), Landlock alone still refuses TCP: no connection to a
/// listener on the machine, no port bound. UDP is beyond Landlock: only seccomp refuses it.
#[test]
fn degraded_without_seccomp_still_refuses_tcp() {
    require_confinement!();
    let case = Case::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    case.write(
        "prog.py",
        &python_attempts(&[
            (
                "connect",
                &format!("socket.create_connection(('127.0.0.1', {port}), timeout=2).close()"),
            ),
            ("bind", "socket.socket().bind(('127.0.0.1', 0))"),
        ]),
    );
    let policy = Policy::new().mode("degraded");

    let run = run_filtered(&case, &policy, "python3 prog.py", no_seccomp());
    assert!(!accepted(&listener), "python connected\n{}", run.describe());
    run.assert_stdout_has(&format!("connect errno {}\n", libc::EACCES));
    run.assert_stdout_has(&format!("bind errno {}\n", libc::EACCES));
    run.assert_status(0);

    let control = run_filtered(&case, &policy.off(), "python3 prog.py", no_seccomp());
    control.assert_stdout_has("connect ok\nbind ok\n");
    assert!(accepted(&listener), "control: no connection arrived");
}

#[test]
fn off_without_landlock_runs() {
    require_confinement!();
    let case = Case::new();
    let run = run_filtered(&case, &Policy::new().off(), "touch CANARY", no_landlock());
    assert!(
        case.exists("CANARY"),
        "touch did not run\n{}",
        run.describe()
    );
    run.assert_status(0);
}

/// Variables set by the script itself, exported or as prefix assignments, are held to the
/// same rules; PATH and SHELL stay the policy's and rsh's.
#[test]
fn variables_set_in_the_script_follow_the_same_rules() {
    require_confinement!();
    let case = Case::new();
    let policy = Policy::new().commands("\n[env]\nallow = [\"*\"]");
    let env = child_environment_after(
        &case,
        &policy,
        "export PYTHONPATH=/tmp/evil PATH=/tmp/evil:$PATH; LD_PRELOAD=libm.so.6 BASH_ENV=/tmp/evil SHELL=/bin/sh RSH_SCRIPT_VAR=set ",
    );
    assert_eq!(env.get("RSH_SCRIPT_VAR").map(String::as_str), Some("set"));
    for name in ["PYTHONPATH", "LD_PRELOAD", "BASH_ENV"] {
        assert!(
            !env.contains_key(name),
            "{name} reached the program: {env:?}"
        );
    }
    assert_eq!(
        env.get("PATH").map(String::as_str),
        Some("/usr/local/bin:/usr/bin:/bin")
    );
    let shell = env.get("SHELL").expect("SHELL is set");
    assert_eq!(
        fs::canonicalize(shell).unwrap(),
        fs::canonicalize(RSH).unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// rsh's own descriptors and opens
// ---------------------------------------------------------------------------------------------

/// Descriptors from 100 up are rsh's (the Landlock rulesets among them): a redirection that
/// names one is refused, so a command can neither swap its ruleset nor borrow one.
#[test]
fn rsh_descriptors_are_out_of_reach() {
    require_confinement!();
    let case = Case::new();
    let (file, secret) = secret_outside(&case);
    let policy = Policy::new().deny(case.outside());
    // The program names the secret only inside, so that only its confinement keeps it out.
    let program = hidden(&case, &[("read", &py_read(&file))]);
    // The first command builds the rulesets; later ones would apply whatever sits there.
    let mut script = String::from("cat /dev/null\n");
    for fd in 100..110 {
        script.push_str(&format!("exec 3<&{fd}; {program} 3<&{fd}\n"));
    }
    script.push_str(&format!(
        "{program} 105</dev/null; echo \"last=$?\"\n{program}"
    ));
    let run = case.run(&policy, &script);
    run.assert_stdout_lacks(&secret);
    run.assert_stderr_has("100: Bad file descriptor (descriptors from 100 up are rsh's own)");
    run.assert_stderr_has("105: Bad file descriptor (descriptors from 100 up are rsh's own)");
    // No redirection reached the program; run plainly at the end, the kernel refuses it.
    let expected = format!("last=1\nread errno {}\n", libc::EACCES);
    assert_eq!(run.stdout, expected, "{}", run.describe());

    let control = case.run(&policy.off(), &program);
    control.assert_stdout_has(&format!("{secret}read ok\n"));
}

/// A descriptor rsh inherited is closed: it cannot be handed to a program by `<&N` either.
#[test]
fn inherited_descriptors_cannot_be_redirected_to_programs() {
    require_confinement!();
    let case = Case::new();
    let secret = format!("inherited-{}", unique());
    let file = case.write("given", &secret);
    let run = case.run_with(&Policy::new(), "cat <&7; echo \"st=$?\"", |command| {
        let held = fs::File::open(&file).unwrap();
        let raw = held.as_raw_fd();
        // SAFETY: dup2 onto 7 in the child before exec; the file stays open in the test.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(raw, 7) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        std::mem::forget(held);
    });
    run.assert_stdout_lacks(&secret);
    run.assert_stderr_has("7: Bad file descriptor");
    run.assert_stdout_has("st=1\n");
}

/// `>` through a symbolic link that points at nothing would create the link's target: rsh
/// checks where that is, and refuses before anything is created.
#[test]
fn redirection_through_a_dangling_link_creates_nothing_outside() {
    require_confinement!();
    let case = Case::new();
    let denied = case.outside().join("denied");
    fs::create_dir(&denied).unwrap();
    let policy = Policy::new().paths(&format!(
        "read = [\"/\"]\nwrite = [\".\", {:?}]\nexec = [\"/usr/bin\", \"/bin\"]\ndeny = [{:?}]",
        case.outside().to_str().unwrap(),
        denied.to_str().unwrap()
    ));
    symlink(denied.join("created"), case.file("into-denied")).unwrap();
    symlink("/etc/rsh-test-canary", case.file("into-etc")).unwrap();
    let run = case.run(
        &policy,
        ": > into-denied; echo \"a=$?\"; echo x >> into-etc; echo \"b=$?\"; : <> into-etc; echo \"c=$?\"",
    );
    assert!(!denied.join("created").exists(), "{}", run.describe());
    assert!(
        !Path::new("/etc/rsh-test-canary").exists(),
        "{}",
        run.describe()
    );
    run.assert_stdout_has("a=1\n");
    run.assert_stdout_has("b=1\n");
    run.assert_stdout_has("c=1\n");
    run.assert_stderr_has("rsh: denied: into-denied:");
    run.assert_stderr_has("rsh: denied: into-etc: it is outside the write roots (paths.write)");
}

/// rsh does not read another process's /proc entries for a command (its programs could not),
/// nor reach an open file of another process through /proc/<pid>/fd; /dev/stdin and friends
/// are rsh's own descriptors.
#[test]
fn redirections_cannot_read_other_processes() {
    require_confinement!();
    let case = Case::new();
    let secret = format!("TOKEN={}", unique());
    let mut other = Command::new("sleep")
        .arg("30")
        .env("RSH_TEST_SECRET", &secret)
        .spawn()
        .unwrap();
    let pid = other.id();
    std::os::unix::fs::symlink(format!("/proc/{pid}/fd/0"), case.file("link")).unwrap();
    let script = format!(
        "cat < /proc/{pid}/environ; echo \"environ=$?\"
cat < /proc/{pid}/fd/0; echo \"fd=$?\"
cat < link; echo \"link=$?\"
cat < /proc/self/../{pid}/fd/0; echo \"dotdot=$?\"
echo to-stderr > /dev/stderr
cat < /dev/stdin"
    );
    let run = case.run_with(&Policy::new(), &script, |command| {
        command.stdin(Stdio::piped());
    });
    let _ = other.kill();
    let _ = other.wait();
    run.assert_stdout_lacks(&secret);
    run.assert_stdout_has("environ=1\n");
    run.assert_stdout_has("fd=1\n");
    run.assert_stdout_has("link=1\n");
    run.assert_stdout_has("dotdot=1\n");
    run.assert_stderr_has(&format!(
        "rsh: denied: /proc/{pid}/environ: it belongs to another process"
    ));
    run.assert_stderr_has("to-stderr\n");
}

/// A program in a denied directory is neither looked into (its `#!` line) nor run.
#[test]
fn a_program_in_a_denied_directory_is_not_read_or_run() {
    require_confinement!();
    let case = Case::new();
    let token = format!("sk-live-{}", unique());
    let program = case.outside().join("tool");
    fs::write(&program, format!("#!{token}\n")).unwrap();
    fs::set_permissions(&program, fs::Permissions::from_mode(0o755)).unwrap();
    let policy = Policy::new()
        .deny(case.outside())
        .commands(&format!(
            "{:?} = {{ subprocesses = false }}",
            program.to_str().unwrap()
        ))
        .allow(program.to_str().unwrap());
    let run = case.run(&policy, &program.display().to_string());
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(!all.contains(&token), "{}", run.describe());
    run.assert_stderr_has(&format!("rsh: denied: {}:", program.display()));
    run.assert_status(126);
}

/// Where programs cannot create an entry (beside a denied path), neither does rsh for them.
#[test]
fn redirections_create_nothing_beside_a_denied_path() {
    require_confinement!();
    let case = Case::new();
    case.write("secret/key", "key\n");
    case.write("old", "old\n");
    let policy = Policy::new().paths(
        "read = [\"/\"]\nwrite = [\".\"]\nexec = [\"/usr/bin\", \"/bin\"]\ndeny = [\"./secret\"]",
    );
    let run = case.run(
        &policy,
        "echo x > new; echo \"new=$?\"; echo y >> old; echo \"old=$?\"",
    );
    assert!(!case.exists("new"), "{}", run.describe());
    run.assert_stdout_has("new=1\n");
    run.assert_stdout_has("old=0\n");
    assert_eq!(fs::read_to_string(case.file("old")).unwrap(), "old\ny\n");
    run.assert_stderr_has("rsh: denied: new: nothing can be created beside a denied path");
}

// ---------------------------------------------------------------------------------------------
// What Landlock does not govern: owners, modes, limits and scheduling of others
// ---------------------------------------------------------------------------------------------

#[test]
fn owners_set_id_bits_and_extended_attributes_cannot_be_changed() {
    require_confinement!();
    let case = Case::new();
    let file = case.write("f", "x\n");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    case.write(
        "meta.py",
        "import os
def attempt(name, call):
    try:
        call()
        print(name, 'ok')
    except OSError as e:
        print(name, 'errno', e.errno)
attempt('chmod-suid', lambda: os.chmod('f', 0o4755))
attempt('chmod-sgid', lambda: os.chmod('f', 0o2755))
attempt('chmod-plain', lambda: os.chmod('f', 0o600))
attempt('chown', lambda: os.chown('f', 65534, 65534))
attempt('setxattr', lambda: os.setxattr('f', 'user.planted', b'x'))
",
    );
    let run = case.run(&Policy::new(), "python3 meta.py");
    let eperm = libc::EPERM;
    run.assert_stdout_has(&format!("chmod-suid errno {eperm}\n"));
    run.assert_stdout_has(&format!("chmod-sgid errno {eperm}\n"));
    run.assert_stdout_has("chmod-plain ok\n");
    run.assert_stdout_has(&format!("chown errno {eperm}\n"));
    // As on a file system without extended attributes (see `editing_in_place_and_copying_with_modes_say_nothing`).
    run.assert_stdout_has(&format!("setxattr errno {}\n", libc::EOPNOTSUPP));
    let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "{}", run.describe());

    if root_for_control() {
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let control = case.run(&Policy::new().off(), "python3 meta.py");
        control.assert_stdout_has("chmod-suid ok\n");
        control.assert_stdout_has("chown ok\n");
    }
}

/// Landlock's scoping covers signals, not resource limits or priorities: seccomp lets a
/// program change only its own.
#[test]
fn limits_and_priorities_of_other_processes_cannot_be_changed() {
    require_confinement!();
    let case = Case::new();
    case.write(
        "others.py",
        "import os, resource
def attempt(name, call):
    try:
        call()
        print(name, 'ok')
    except OSError as e:
        print(name, 'errno', e.errno)
rsh = os.getppid()
attempt('prlimit-rsh', lambda: resource.prlimit(rsh, resource.RLIMIT_NOFILE, (4, 4)))
attempt('prlimit-self', lambda: resource.prlimit(0, resource.RLIMIT_NOFILE, (64, 64)))
attempt('nice-rsh', lambda: os.setpriority(os.PRIO_PROCESS, rsh, 19))
attempt('nice-user', lambda: os.setpriority(os.PRIO_USER, 0, 19))
attempt('nice-self', lambda: os.setpriority(os.PRIO_PROCESS, 0, 5))
attempt('affinity-rsh', lambda: os.sched_setaffinity(rsh, {0}))
",
    );
    let run = case.run(&Policy::new(), "python3 others.py; ls /dev/null");
    let eperm = libc::EPERM;
    run.assert_stdout_has(&format!("prlimit-rsh errno {eperm}\n"));
    run.assert_stdout_has("prlimit-self ok\n");
    run.assert_stdout_has(&format!("nice-rsh errno {eperm}\n"));
    run.assert_stdout_has(&format!("nice-user errno {eperm}\n"));
    run.assert_stdout_has("nice-self ok\n");
    run.assert_stdout_has(&format!("affinity-rsh errno {eperm}\n"));
    // rsh kept its limits: the next command still runs.
    run.assert_stdout_has("/dev/null\n");
}

/// The capabilities a root program keeps: DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, KILL and
/// NET_BIND_SERVICE.
const KEPT_CAPABILITIES: u64 = 1 << 1 | 1 << 2 | 1 << 3 | 1 << 5 | 1 << 10;

const SETPRIV: &str = "/usr/bin/setpriv";

/// Whether rsh can be started with capability sets of the test's choosing.
fn can_set_capabilities() -> bool {
    root_for_control() && Path::new(SETPRIV).exists()
}

/// `line` run by rsh on `policy`, started by setpriv with `options` (capability sets), in the
/// case's directory.
fn run_under_setpriv(case: &Case, policy: &Policy, options: &[&str], line: &str) -> Run {
    case.run_launched(&[&[SETPRIV], options].concat(), policy, line)
}

/// Capabilities the caller handed rsh (inheritable, ambient) do not reach its programs, and a
/// root program keeps only the few it may need.
#[test]
fn programs_get_no_inherited_or_ambient_capabilities() {
    require_confinement!();
    if !can_set_capabilities() {
        eprintln!("SKIPPED: needs root and setpriv to hand rsh capabilities");
        return;
    }
    let case = Case::new();
    let out = run_under_setpriv(
        &case,
        &Policy::new(),
        &[
            "--inh-caps",
            "+sys_admin,+mknod",
            "--ambient-caps",
            "+sys_admin",
        ],
        "cat /proc/self/status",
    );
    let status = &out.stdout;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| u64::from_str_radix(v.trim(), 16).unwrap())
            .unwrap_or_else(|| panic!("no {name} in {status}"))
    };
    assert_eq!(field("CapInh:"), 0, "{status}");
    assert_eq!(field("CapAmb:"), 0, "{status}");
    assert_eq!(field("CapBnd:") & !KEPT_CAPABILITIES, 0, "{status}");
    assert_eq!(field("CapEff:") & !KEPT_CAPABILITIES, 0, "{status}");
}

/// As root, every way a program starts gets the shrunk bounding set: the first program and a
/// later one, a pipeline stage, a subshell, a command substitution and `exec`.
#[test]
fn every_program_gets_the_shrunk_bounding_set() {
    require_confinement!();
    if !root_for_control() {
        eprintln!("SKIPPED: needs root, whose programs lose capabilities");
        return;
    }
    let case = Case::new();
    let status = "cat /proc/self/status";
    let line = format!(
        "{status}; {status}; {status} | cat; ({status}); echo \"$({status})\"; exec {status}"
    );
    let run = case.run(&Policy::new(), &line);
    let bounding: Vec<u64> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CapBnd:"))
        .map(|v| u64::from_str_radix(v.trim(), 16).unwrap())
        .collect();
    assert_eq!(bounding, vec![KEPT_CAPABILITIES; 6], "{}", run.describe());
}

/// As root without CAP_SETPCAP, rsh cannot shrink the bounding set its programs inherit: it
/// runs none, and says why.
#[test]
fn without_the_right_to_drop_capabilities_no_program_runs() {
    require_confinement!();
    if !can_set_capabilities() {
        eprintln!("SKIPPED: needs root and setpriv to take CAP_SETPCAP from rsh");
        return;
    }
    let case = Case::new();
    let log = case.conf.path().join("audit.log");
    let audit = format!("\n[audit]\nsyslog = false\nfallback = {:?}", log.display());
    let policy = Policy::new().commands(&audit);
    let canary = case.path().join("canary");
    let line = format!("touch {}; echo status=$?", canary.display());
    let touch_with_bounding_set =
        |set: &str| run_under_setpriv(&case, &policy, &["--bounding-set", set], &line);
    let out = touch_with_bounding_set("-setpcap");
    let stderr = &out.stderr;
    assert!(!canary.exists(), "{stderr}");
    assert_eq!(out.stdout, "status=126\n", "{stderr}");
    assert!(
        stderr.contains("touch: cannot drop capabilities from rsh's bounding set")
            && stderr.contains("CAP_SETPCAP"),
        "{stderr}"
    );
    // The refused program is in the audit trail, with its status.
    let records = fs::read_to_string(&log).unwrap();
    let touch = records
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["event"] == "command" && r["argv"][0] == "touch");
    assert_eq!(
        touch.map(|r| r["status"].clone()),
        Some(126.into()),
        "{records}"
    );
    // Started with no more than its programs may have (by a confined program, say), rsh has
    // nothing to drop, and runs them.
    let out = touch_with_bounding_set(
        "-all,+dac_override,+dac_read_search,+fowner,+kill,+net_bind_service",
    );
    let stderr = &out.stderr;
    assert_eq!(out.stdout, "status=0\n", "{stderr}");
    assert!(canary.exists(), "{stderr}");
}

// ---------------------------------------------------------------------------------------------
// The timeout against a job that stops, and against signals to rsh
// ---------------------------------------------------------------------------------------------

/// A program that stops itself (or has its child stop it) does not stop the clock.
#[test]
fn a_job_that_stops_itself_still_times_out() {
    require_confinement!();
    let case = Case::new();
    let (seconds, _cleanup) = {
        let seconds = format!("{}.{}", 1000 + std::process::id() % 1000, unique());
        let cleanup = EndProcessesWith(seconds.clone());
        (seconds, cleanup)
    };
    case.write(
        "stop.py",
        &format!(
            "import os, signal, subprocess, time
subprocess.Popen(['sleep', {seconds:?}])
os.kill(os.getpid(), signal.SIGSTOP)
time.sleep(1000)
"
        ),
    );
    let run = case.run(&timeout_policy(), "python3 stop.py");
    assert!(run.elapsed < Duration::from_secs(8), "{}", run.describe());
    run.assert_stderr_has("rsh: python3: timed out after 2 s (limits.timeout); ended");
    assert_gone(&seconds, &run);
}

/// SIGTERM to rsh while it waits: passed on, and what ignores it is killed before rsh ends.
#[test]
fn terminating_rsh_ends_the_whole_job() {
    require_confinement!();
    let case = Case::new();
    let seconds = format!("{}.{}", 1000 + std::process::id() % 1000, unique());
    let _cleanup = EndProcessesWith(seconds.clone());
    case.write(
        "stubborn.py",
        &format!(
            "import signal, subprocess, time
stubborn = 'import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(float(sys.argv[1]))'
subprocess.Popen(['python3', '-c', stubborn, {seconds:?}])
time.sleep(100)
"
        ),
    );
    let policy = Policy::new()
        .limits("timeout = 60")
        .commands("python3 = { subprocesses = true }");
    let running = case.spawn(&policy, "python3 stubborn.py", |_| {});
    let started = Instant::now();
    while processes_with_arg(&seconds).is_empty() && started.elapsed() < Duration::from_secs(10) {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !processes_with_arg(&seconds).is_empty(),
        "the child never started"
    );
    // SAFETY: a signal to the rsh the test started.
    unsafe { libc::kill(running.child.id() as i32, libc::SIGTERM) };
    let run = running.finish();
    assert_eq!(run.signal, Some(libc::SIGTERM), "{}", run.describe());
    assert_gone(&seconds, &run);
}

/// A root (`/`) reached only because rsh was started in / does not make the system writable,
/// whatever stands before it in the list: not for rsh's check of `touch`, not for the kernel
/// holding a program that names its file only inside.
#[test]
fn dot_that_is_slash_grants_nothing_wherever_it_is_listed() {
    require_confinement!();
    let case = Case::new();
    let target = case.outside().join("written");
    let created = case.outside().join("created");
    let policy = Policy::new().paths(
        "read = [\"/\"]\nwrite = [\"/does-not-exist-rsh\", \".\"]\nexec = [\"/usr/bin\", \"/bin\"]",
    );
    let t = target.display();
    let script = format!(
        "touch {t}; echo \"st=$?\"; {}",
        hidden(&case, &[("create", &py_create(&created))])
    );
    let in_root = |command: &mut Command| {
        command.current_dir("/");
    };
    let run = case.run_with(&policy, &script, in_root);
    assert!(!target.exists() && !created.exists(), "{}", run.describe());
    run.assert_stdout_has(&format!("st=126\ncreate errno {}\n", write_refused()));
    run.assert_stderr_has(&format!(
        "rsh: denied: touch {t}: writes {t}: it is outside the write roots (paths.write)"
    ));

    let control = case.run_with(&policy.off(), &script, in_root);
    control.assert_stdout_has("st=0\ncreate ok\n");
    assert!(
        target.exists() && created.exists(),
        "{}",
        control.describe()
    );
}

/// A program that outlives the time `timeout` gives it is ended then: it does not get to
/// write what it would have written later.
#[test]
fn timeout_ends_its_command_in_time() {
    require_confinement!();
    let case = Case::new();
    let script = "timeout 0.5 python3 -c 'import time; time.sleep(3); open(\"CANARY\", \"w\")'";
    let run = case.run(&Policy::new(), script);
    run.assert_status(124);
    assert!(run.elapsed < Duration::from_secs(3), "{}", run.describe());
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !case.exists("CANARY"),
        "the command went on\n{}",
        run.describe()
    );
    case.run(
        &Policy::new(),
        "timeout 9 python3 -c 'open(\"CANARY\", \"w\")'",
    );
    assert!(case.exists("CANARY"), "control: the command did not run");
}
