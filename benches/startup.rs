//! Whole-process cost: `rsh -c /bin/true` on the built-in default policy (full confinement)
//! against `bash -c /bin/true`, run alternately so that both see the same machine; run as
//! root, also both as `nobody`, the kind of user rsh is for. Run with
//! `cargo bench --bench startup`; the numbers of record are in benches/README.md.

use std::process::Command;
use std::time::{Duration, Instant};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const ROUNDS: usize = 500;
const WARM_UP: usize = 30;

struct Case {
    name: &'static str,
    argv: Vec<String>,
    /// Run as this user (uid, gid, home) instead of the benchmark's.
    user: Option<(u32, u32, std::path::PathBuf)>,
    times: Vec<Duration>,
}

impl Case {
    fn new(name: &'static str, argv: &[&str]) -> Case {
        Case {
            name,
            argv: argv.iter().map(|s| s.to_string()).collect(),
            user: None,
            times: Vec::with_capacity(ROUNDS),
        }
    }

    /// The same, run by `nobody` with its own home.
    fn by_nobody(mut self) -> Case {
        let user = nix::unistd::User::from_name("nobody").ok().flatten();
        self.user = user.map(|u| (u.uid.as_raw(), u.gid.as_raw(), u.dir));
        self
    }

    /// One run, timed from just before the fork to the end of the wait. The child is started
    /// with a bare fork and execve, as a C shell or sshd would start it: `Command` costs
    /// nearly a millisecond more per run (its pipe for exec errors, three opens of
    /// /dev/null), which would be added to both sides of every ratio.
    fn run_once(&self, dir: &std::path::Path) -> Duration {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c = |s: &[u8]| CString::new(s).expect("no NUL");
        let program = c(which(&self.argv[0]).as_os_str().as_bytes());
        let argv: Vec<CString> = self.argv.iter().map(|a| c(a.as_bytes())).collect();
        let mut env: Vec<CString> = std::env::vars_os()
            .filter(|(k, _)| self.user.is_none() || k != "HOME")
            .map(|(k, v)| c(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect();
        if let Some((_, _, home)) = &self.user {
            env.push(c(&[b"HOME=", home.as_os_str().as_bytes()].concat()));
        }
        let pointers = |list: &[CString]| -> Vec<*const libc::c_char> {
            list.iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        let (argv_ptrs, env_ptrs) = (pointers(&argv), pointers(&env));
        let dir = c(dir.as_os_str().as_bytes());
        let ids = self.user.as_ref().map(|(uid, gid, _)| (*uid, *gid));
        let started = Instant::now();
        // SAFETY: the child makes only async-signal-safe calls on data prepared above, then
        // execs or exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: as above.
            unsafe {
                if let Some((uid, gid)) = ids
                    && (libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(gid) != 0
                        || libc::setuid(uid) != 0)
                {
                    libc::_exit(126);
                }
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                if libc::chdir(dir.as_ptr()) != 0 || null < 0 {
                    libc::_exit(126);
                }
                for fd in 0..3 {
                    libc::dup2(null, fd);
                }
                libc::execve(program.as_ptr(), argv_ptrs.as_ptr(), env_ptrs.as_ptr());
                libc::_exit(127);
            }
        }
        assert!(pid > 0, "fork: {}", std::io::Error::last_os_error());
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
    let permissive = concat!(env!("CARGO_MANIFEST_DIR"), "/policy/permissive.toml");
    let mut cases = vec![
        Case::new("bash -c /bin/true", &["bash", "-c", "/bin/true"]),
        Case::new(
            "rsh -c /bin/true (default policy, confined)",
            &[RSH, "-c", "/bin/true"],
        ),
        Case::new(
            "rsh -c /bin/true (permissive policy, not confined)",
            &[RSH, "--policy", permissive, "-c", "/bin/true"],
        ),
        Case::new(
            "rsh -c true (default policy, builtin)",
            &[RSH, "-c", "true"],
        ),
        Case::new("/bin/true (process start alone)", &["/bin/true"]),
    ];
    // As root, the default policy's denied files in /etc are granted around, entry by entry;
    // a user who cannot read them anyway leaves them to their permissions.
    if nix::unistd::geteuid().is_root()
        && nix::unistd::User::from_name("nobody").is_ok_and(|u| u.is_some())
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("open the directory to nobody");
        cases.push(
            Case::new(
                "bash -c /bin/true (as nobody)",
                &["bash", "-c", "/bin/true"],
            )
            .by_nobody(),
        );
        cases.push(
            Case::new(
                "rsh -c /bin/true (default policy, confined, as nobody)",
                &[RSH, "-c", "/bin/true"],
            )
            .by_nobody(),
        );
    }
    // A kernel that cannot confine makes rsh refuse to start: say so rather than measure it.
    let probe = Command::new(RSH)
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
    let bash = cases[0].median();
    println!("{ROUNDS} alternating runs each; wall time per process, including fork and wait");
    println!(
        "{:<55} {:>10} {:>10} {:>9}",
        "command", "median", "mean", "vs bash"
    );
    for case in &cases {
        let median = case.median();
        println!(
            "{:<55} {:>8.3}ms {:>8.3}ms {:>8.2}x",
            case.name,
            median.as_secs_f64() * 1e3,
            case.mean().as_secs_f64() * 1e3,
            median.as_secs_f64() / bash.as_secs_f64()
        );
    }
}
