//! Whole-process cost: `rsh -c /bin/true` on the built-in default policy (full confinement)
//! against `bash -c /bin/true`, run alternately so that both see the same machine; run as
//! root, also both as `nobody`, the kind of user rsh is for. Run with
//! `cargo bench --bench startup`; the numbers of record are in benches/README.md.
//!
//! Both shells run from copies written side by side as the benchmark starts. A program whose
//! file the page cache holds as it was written starts about 0.4 ms sooner than one read back
//! from disk (bash and rsh alike: its pages are mapped in larger pieces), so a freshly built
//! rsh against the system's bash, read back at boot, would flatter rsh by about a sixth.

use std::process::Command;
use std::time::{Duration, Instant};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const ROUNDS: usize = 500;
const WARM_UP: usize = 30;

#[derive(Clone)]
struct Case {
    name: &'static str,
    argv: Vec<String>,
    /// Run as this user (uid, gid, home) instead of the benchmark's.
    user: Option<(u32, u32, std::path::PathBuf)>,
    /// Started by `fork` and `execve`, as shells, sshd and cron start programs, instead of
    /// as `posix_spawn` starts them.
    forked: bool,
    times: Vec<Duration>,
}

impl Case {
    fn new(name: &'static str, argv: &[&str]) -> Case {
        Case {
            name,
            argv: argv.iter().map(|s| s.to_string()).collect(),
            user: None,
            forked: false,
            times: Vec::with_capacity(ROUNDS),
        }
    }

    /// The same, started by `fork`.
    fn by_fork(mut self) -> Case {
        self.forked = true;
        self
    }

    /// Whether `self` is the bash case that `other` is compared with: the same user, started
    /// the same way.
    fn is_bash_for(&self, other: &Case) -> bool {
        self.name.starts_with("bash")
            && self.forked == other.forked
            && self.user.as_ref().map(|u| u.0) == other.user.as_ref().map(|u| u.0)
    }

    /// The same, run by `nobody` with its own home.
    fn by_nobody(mut self) -> Case {
        let user = nix::unistd::User::from_name("nobody").ok().flatten();
        self.user = user.map(|u| (u.uid.as_raw(), u.gid.as_raw(), u.dir));
        self
    }

    /// One run, timed from just before the child is made to the end of the wait. The child
    /// is made as `posix_spawn` makes it (sharing the benchmark's memory until it execs), so
    /// that neither the benchmark's own size nor `Command`'s extra work (its pipe for exec
    /// errors, three opens of /dev/null: nearly a millisecond) is added to both sides of
    /// every ratio.
    fn run_once(&self, dir: &std::path::Path) -> Duration {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c = |s: &[u8]| CString::new(s).expect("no NUL");
        let program = c(which(&self.argv[0]).as_os_str().as_bytes());
        let argv: Vec<CString> = self.argv.iter().map(|a| c(a.as_bytes())).collect();
        // The environment of a login (not cargo's seventy variables, which both shells would
        // read in): the same for every case but HOME.
        let home = match &self.user {
            Some((_, _, home)) => home.clone(),
            None => std::env::var_os("HOME").unwrap_or_default().into(),
        };
        let env: Vec<CString> = [
            &b"PATH=/usr/local/bin:/usr/bin:/bin"[..],
            &[b"HOME=", home.as_os_str().as_bytes()].concat(),
            b"LANG=C.UTF-8",
            b"TERM=xterm-256color",
            b"SHELL=/bin/bash",
        ]
        .iter()
        .map(|v| c(v))
        .collect();
        let pointers = |list: &[CString]| -> Vec<*const libc::c_char> {
            list.iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        let (argv, env) = (pointers(&argv), pointers(&env));
        let dir = c(dir.as_os_str().as_bytes());
        let mut child = Child {
            program: program.as_ptr(),
            argv: argv.as_ptr(),
            env: env.as_ptr(),
            dir: dir.as_ptr(),
            ids: self.user.as_ref().map(|(uid, gid, _)| (*uid, *gid)),
        };
        let mut stack = vec![0u8; 64 * 1024];
        // SAFETY: the stack's top, 16-byte aligned, inside the vector.
        let top = unsafe { stack.as_mut_ptr().add(stack.len() - 64) };
        let top = ((top as usize) & !15) as *mut libc::c_void;
        let started = Instant::now();
        // SAFETY: CLONE_VFORK suspends this thread until the child has exec'd or exited, so
        // `child` and the stack outlive its use of them; the child makes only raw calls. The
        // benchmark has one thread, so a forked copy of it may run `start_child` too.
        let pid = unsafe {
            if self.forked {
                let pid = libc::fork();
                if pid == 0 {
                    start_child((&raw mut child).cast());
                }
                pid
            } else {
                libc::clone(
                    start_child,
                    top,
                    libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                    (&raw mut child).cast(),
                )
            }
        };
        assert!(pid > 0, "clone: {}", std::io::Error::last_os_error());
        let mut status = 0;
        // SAFETY: waits for the child just made; `status` is written by the call.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        let took = started.elapsed();
        assert_eq!(waited, pid, "waitpid: {}", std::io::Error::last_os_error());
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "{:?}: wait status {status:#x}",
            self.argv
        );
        took
    }

    fn median(&self) -> Duration {
        let mut sorted = self.times.clone();
        sorted.sort();
        sorted[sorted.len() / 2]
    }

    fn mean(&self) -> Duration {
        self.times.iter().sum::<Duration>() / self.times.len() as u32
    }
}

/// What a child needs, prepared before it is made.
struct Child {
    program: *const libc::c_char,
    argv: *const *const libc::c_char,
    env: *const *const libc::c_char,
    dir: *const libc::c_char,
    ids: Option<(u32, u32)>,
}

/// The child: the user, the directory, /dev/null for 0, 1 and 2, then the program. Raw
/// system calls only: it shares the benchmark's memory (glibc's setuid would try to change
/// the ids of the benchmark's threads too).
extern "C" fn start_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Child` of `run_once`, alive until this process execs or exits.
    let child = unsafe { &*arg.cast::<Child>() };
    // SAFETY: system calls on the prepared, NUL-terminated data.
    unsafe {
        if let Some((uid, gid)) = child.ids
            && (libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0
                || libc::syscall(libc::SYS_setgid, gid) != 0
                || libc::syscall(libc::SYS_setuid, uid) != 0)
        {
            libc::syscall(libc::SYS_exit_group, 126);
        }
        let null = libc::syscall(libc::SYS_open, c"/dev/null".as_ptr(), libc::O_RDWR);
        if libc::syscall(libc::SYS_chdir, child.dir) != 0 || null < 0 {
            libc::syscall(libc::SYS_exit_group, 126);
        }
        for fd in 0..3 {
            libc::syscall(libc::SYS_dup2, null, fd);
        }
        libc::syscall(libc::SYS_execve, child.program, child.argv, child.env);
        libc::syscall(libc::SYS_exit_group, 127);
    }
    127
}

/// A copy of `program` in `dir`, written now, executable by everyone: its path.
fn fresh_copy(program: &std::path::Path, dir: &std::path::Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let copy = dir.join(program.file_name().expect("a file name"));
    std::fs::copy(program, &copy).expect("copy a shell");
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755))
        .expect("make the copy executable");
    copy.to_str().expect("a UTF-8 temporary path").to_string()
}

/// `name` as execve needs it: itself when it has a slash, else the first file of that name
/// on PATH.
fn which(name: &str) -> std::path::PathBuf {
    if name.contains('/') {
        return name.into();
    }
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
        .unwrap_or_else(|| panic!("{name} is not on PATH"))
}

fn main() {
    // `cargo test` runs benches with --bench absent only when asked; a plain `cargo bench`
    // passes --bench. Nothing to do under `cargo test --benches`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let shells = tempfile::tempdir().expect("a temporary directory");
    let bash = fresh_copy(&which("bash"), shells.path());
    let rsh = fresh_copy(std::path::Path::new(RSH), shells.path());
    let (bash, rsh) = (bash.as_str(), rsh.as_str());
    let permissive = concat!(env!("CARGO_MANIFEST_DIR"), "/policy/permissive.toml");
    let mut cases = vec![
        Case::new("bash -c /bin/true", &[bash, "-c", "/bin/true"]),
        Case::new(
            "rsh -c /bin/true (default policy, confined)",
            &[rsh, "-c", "/bin/true"],
        ),
        Case::new(
            "rsh -c /bin/true (permissive policy, not confined)",
            &[rsh, "--policy", permissive, "-c", "/bin/true"],
        ),
        Case::new(
            "rsh -c true (default policy, builtin)",
            &[rsh, "-c", "true"],
        ),
        Case::new("/bin/true (process start alone)", &["/bin/true"]),
    ];
    // As root, the default policy's denied files in /etc are granted around, entry by entry;
    // a user who cannot read them anyway leaves them to their permissions.
    if nix::unistd::geteuid().is_root()
        && nix::unistd::User::from_name("nobody").is_ok_and(|u| u.is_some())
    {
        use std::os::unix::fs::PermissionsExt;
        for open in [dir.path(), shells.path()] {
            std::fs::set_permissions(open, std::fs::Permissions::from_mode(0o755))
                .expect("open the directory to nobody");
        }
        cases.push(
            Case::new("bash -c /bin/true (as nobody)", &[bash, "-c", "/bin/true"]).by_nobody(),
        );
        cases.push(
            Case::new(
                "rsh -c /bin/true (default policy, confined, as nobody)",
                &[rsh, "-c", "/bin/true"],
            )
            .by_nobody(),
        );
    }
    // Started as a shell or sshd starts them, each compared with bash started so.
    let by_fork: Vec<Case> = cases
        .iter()
        .filter(|c| c.name.starts_with("bash") || c.argv == [rsh, "-c", "/bin/true"])
        .map(|c| c.clone().by_fork())
        .collect();
    cases.extend(by_fork);
    // A kernel that cannot confine makes rsh refuse to start: say so rather than measure it.
    let probe = Command::new(rsh)
        .args(["-c", "/bin/true"])
        .current_dir(dir.path())
        .output()
        .expect("start rsh");
    if !probe.status.success() {
        eprintln!(
            "SKIPPED: rsh cannot run on its default policy here: {}",
            String::from_utf8_lossy(&probe.stderr)
        );
        return;
    }
    for case in &cases {
        for _ in 0..WARM_UP {
            case.run_once(dir.path());
        }
    }
    for _ in 0..ROUNDS {
        for case in cases.iter_mut() {
            let took = case.run_once(dir.path());
            case.times.push(took);
        }
    }
    println!("{ROUNDS} alternating runs each; wall time per process, including fork and wait");
    println!("vs bash: against bash run by the same user and started the same way");
    println!(
        "{:<55} {:>7} {:>10} {:>10} {:>9}",
        "command", "start", "median", "mean", "vs bash"
    );
    for case in &cases {
        let median = case.median();
        let bash = cases
            .iter()
            .find(|b| b.is_bash_for(case))
            .unwrap_or(&cases[0])
            .median();
        println!(
            "{:<55} {:>7} {:>8.3}ms {:>8.3}ms {:>8.2}x",
            case.name,
            if case.forked { "fork" } else { "spawn" },
            median.as_secs_f64() * 1e3,
            case.mean().as_secs_f64() * 1e3,
            median.as_secs_f64() / bash.as_secs_f64()
        );
    }
}
