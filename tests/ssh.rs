//! rsh as a login shell behind a real OpenSSH server: the test makes a throwaway user whose
//! shell is the built rsh, starts sshd on 127.0.0.1 on a free port with a private
//! configuration and host key, and logs in with a key, as `ssh host cmd` (sshd runs
//! `rsh -c 'cmd'`), as sftp, and interactively on a pty. The user gets the built-in default
//! policy, or a system policy the test installs for its own sshd only (the file-transfer-only
//! preset, with sftp, scp and rsync). Without sshd and ssh (`apt-get install openssh-server openssh-client`), or when
//! not root, the tests say so and are skipped.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Run;
use common::pty::Pty;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const SSHD: &str = "/usr/sbin/sshd";

/// A user whose login shell is rsh, and an sshd that lets them in with a key.
struct Server {
    dir: tempfile::TempDir,
    user: String,
    port: u16,
    sshd: Child,
}

fn run(program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(status.success(), "{program} {args:?}: {status}");
}

impl Server {
    /// The user gets the built-in default policy.
    fn start(name: &str) -> Option<Server> {
        Server::start_with(name, None)
    }

    /// With `policy` as the system policy, /etc/rsh/policy.toml, for this sshd and the
    /// sessions it starts only: sshd runs in a mount namespace of its own in which /etc/rsh
    /// is a directory of the test's. Other tests, and the machine, keep theirs.
    fn start_with(name: &str, policy: Option<&str>) -> Option<Server> {
        let missing: Vec<&str> = [
            SSHD,
            "/usr/bin/ssh",
            "/usr/bin/ssh-keygen",
            "/usr/sbin/useradd",
        ]
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
        if !missing.is_empty() || !nix::unistd::geteuid().is_root() {
            eprintln!(
                "SKIPPED: rsh behind sshd needs root and {missing:?} \
                 (apt-get install openssh-server openssh-client)"
            );
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // The user must reach their shell: everything on the way is root's and 0755.
        fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
        fs::create_dir(root.join("bin")).unwrap();
        let shell = root.join("bin/rsh");
        fs::copy(RSH, &shell).unwrap();
        fs::set_permissions(&shell, fs::Permissions::from_mode(0o755)).unwrap();

        let user = format!("rsh{name}{}", std::process::id() % 100_000);
        let home = root.join("home");
        // `*`: no password, but not a locked account (sshd without PAM refuses those).
        run(
            "/usr/sbin/useradd",
            &[
                "-m",
                "-d",
                home.to_str().unwrap(),
                "-s",
                shell.to_str().unwrap(),
                "-p",
                "*",
                &user,
            ],
        );
        let key = root.join("id");
        run(
            "/usr/bin/ssh-keygen",
            &["-q", "-t", "ed25519", "-N", "", "-f", key.to_str().unwrap()],
        );
        run(
            "/usr/bin/ssh-keygen",
            &[
                "-q",
                "-t",
                "ed25519",
                "-N",
                "",
                "-f",
                root.join("host").to_str().unwrap(),
            ],
        );
        let ssh_dir = home.join(".ssh");
        fs::create_dir_all(&ssh_dir).unwrap();
        fs::copy(root.join("id.pub"), ssh_dir.join("authorized_keys")).unwrap();
        fs::set_permissions(&ssh_dir, fs::Permissions::from_mode(0o700)).unwrap();
        run(
            "/bin/chown",
            &["-R", &format!("{user}:"), home.to_str().unwrap()],
        );

        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {host}\nPidFile {pid}\n\
             AuthorizedKeysFile .ssh/authorized_keys\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nUsePAM no\nStrictModes yes\nAllowUsers {user}\n\
             Subsystem sftp /usr/lib/openssh/sftp-server\nLogLevel ERROR\n",
            host = root.join("host").display(),
            pid = root.join("sshd.pid").display(),
        );
        fs::write(root.join("sshd_config"), config).unwrap();
        // sshd's privilege separation directory, which its service would make.
        fs::create_dir_all("/run/sshd").unwrap();
        let mut sshd = Command::new(SSHD);
        if let Some(policy) = policy {
            let etc = root.join("etc-rsh");
            fs::create_dir(&etc).unwrap();
            fs::set_permissions(&etc, fs::Permissions::from_mode(0o755)).unwrap();
            fs::write(etc.join("policy.toml"), policy).unwrap();
            fs::set_permissions(etc.join("policy.toml"), fs::Permissions::from_mode(0o644))
                .unwrap();
            // The mount point; an empty /etc/rsh means the built-in policy, as no /etc/rsh.
            fs::create_dir_all("/etc/rsh").unwrap();
            in_namespace_with(&mut sshd, &etc, Path::new("/etc/rsh"));
        }
        let sshd = sshd
            .args(["-D", "-e", "-f"])
            .arg(root.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(
                fs::File::create(root.join("sshd.log")).unwrap(),
            ))
            .spawn()
            .expect("start sshd");
        let server = Server {
            dir,
            user,
            port,
            sshd,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "sshd did not listen: {}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// The options every client needs here.
    fn client_args(&self) -> Vec<String> {
        vec![
            "-i".into(),
            self.dir.path().join("id").display().to_string(),
            "-o".into(),
            "StrictHostKeyChecking=no".into(),
            "-o".into(),
            "UserKnownHostsFile=/dev/null".into(),
            "-o".into(),
            "BatchMode=yes".into(),
            "-o".into(),
            "LogLevel=ERROR".into(),
        ]
    }

    /// `ssh user@host COMMAND`.
    fn ssh(&self, command: &str) -> Run {
        let out = Command::new("/usr/bin/ssh")
            .args(self.client_args())
            .args(["-p", &self.port.to_string()])
            .arg(format!("{}@127.0.0.1", self.user))
            .arg(command)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run::of(out)
    }
}

/// Starts `command` in a mount namespace of its own in which `source` is mounted on `target`.
fn in_namespace_with(command: &mut Command, source: &Path, target: &Path) {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    let source = CString::new(source.as_os_str().as_bytes()).unwrap();
    let target = CString::new(target.as_os_str().as_bytes()).unwrap();
    // SAFETY: unshare and mount are async-signal-safe; the strings were made before fork.
    unsafe {
        command.pre_exec(move || {
            let none = c"none";
            if libc::unshare(libc::CLONE_NEWNS) != 0
                || libc::mount(
                    none.as_ptr(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                || libc::mount(
                    source.as_ptr(),
                    target.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.sshd.kill();
        let _ = self.sshd.wait();
        // Whatever the user still runs, then the user.
        let _ = Command::new("/usr/bin/pkill")
            .args(["-KILL", "-u", &self.user])
            .status();
        let _ = Command::new("/usr/sbin/userdel").arg(&self.user).status();
    }
}

#[test]
fn ssh_host_cmd_runs_through_the_policy() {
    let Some(server) = Server::start("cmd") else {
        return;
    };
    let run = server.ssh("echo hello from $0; ls -d / | wc -l");
    assert_eq!(run.status, 0, "{}\nsshd: {}", run.describe(), server.log());
    // sshd runs the shell by its name, as `rsh -c 'COMMAND'`.
    assert_eq!(run.stdout, "hello from rsh\n1\n");

    // A shell is refused; its status is what ssh exits with, and nothing of it ran.
    let canary = server.home().join("CANARY");
    let run = server.ssh(&format!("sh -c 'touch {}'", canary.display()));
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("rsh: denied: sh -c");
    assert!(!canary.exists());

    // ~/.ssh/rc, which sshd runs through the user's shell at each login (`rsh -c '/bin/sh
    // ~/.ssh/rc'`), is decided like anything else: the default policy refuses sh, and the
    // session goes on.
    let rc_canary = server.home().join("RC-RAN");
    let rc = server.home().join(".ssh/rc");
    fs::write(&rc, format!("touch {}\n", rc_canary.display())).unwrap();
    let run_rc = server.ssh("echo after rc");
    fs::remove_file(&rc).unwrap();
    assert_eq!(run_rc.stdout, "after rc\n", "{}", run_rc.describe());
    run_rc.assert_stderr_has(&format!("rsh: denied: /bin/sh {}", rc.display()));
    assert!(!rc_canary.exists(), "~/.ssh/rc ran");

    // The user's own keys are out of reach, even of the commands they may run.
    let run = server.ssh("cat ~/.ssh/authorized_keys");
    assert_ne!(run.status, 0, "{}", run.describe());
    assert!(!run.stdout.contains("ssh-ed25519"), "{}", run.describe());
    run.assert_stderr_has(".ssh");
}

#[test]
fn sftp_is_refused_by_the_default_policy() {
    let Some(server) = Server::start("sftp") else {
        return;
    };
    let local = server.dir.path().join("upload.txt");
    fs::write(&local, "data\n").unwrap();
    let batch = server.dir.path().join("batch");
    fs::write(&batch, format!("put {} uploaded.txt\n", local.display())).unwrap();
    let out = Command::new("/usr/bin/sftp")
        .args(server.client_args())
        .args(["-P", &server.port.to_string(), "-b"])
        .arg(&batch)
        .arg(format!("{}@127.0.0.1", server.user))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let run = Run::of(out);
    assert_ne!(run.status, 0, "{}", run.describe());
    assert!(!server.home().join("uploaded.txt").exists());
}

#[test]
fn an_interactive_login_is_a_login_shell_on_the_pty() {
    let Some(server) = Server::start("tty") else {
        return;
    };
    let mut command = Command::new("/usr/bin/ssh");
    command
        .args(server.client_args())
        .args(["-tt", "-p", &server.port.to_string()])
        .arg(format!("{}@127.0.0.1", server.user));
    let mut pty = Pty::spawn(command, true);
    pty.send_line("echo \"[$0] [$PWD] [$SHELL] [$USER]\"");
    let seen = pty.expect(&format!("[{}]\r\n", server.user), Duration::from_secs(15));
    let shell = format!("{}/bin/rsh", server.dir.path().display());
    // The prompt of a user other than root, drawn by the line editor (the client's TERM
    // came through), then what a login shell has.
    assert!(
        seen.contains("\x1b[K$ ")
            && seen.contains(&format!("[-rsh] [{}] [{shell}] ", server.home().display()))
            && !seen.contains("__RSH"),
        "{seen:?}\nsshd: {}",
        server.log()
    );
    pty.send_line("sh -c id");
    let seen = pty.expect("listed in commands.deny", Duration::from_secs(10));
    assert!(seen.contains("rsh: denied: sh -c id"), "{seen:?}");
    // Ctrl-C ends the command, through sshd's pty, and the session goes on.
    pty.send_line("sleep 30");
    std::thread::sleep(Duration::from_millis(500));
    pty.send("\x03");
    std::thread::sleep(Duration::from_millis(200));
    pty.send_line("echo still here $?");
    pty.expect("still here 130\r\n", Duration::from_secs(10));
    assert_eq!(pty.exit(), Some(0));
}

/// A file-transfer-only account (the shipped `policy/transfer-only.toml` as the system
/// policy) with the real clients through the real sshd: sftp, scp and rsync move files in and
/// out of the home directory; the same clients are refused outside it (by the kernel, for
/// files the user's permissions would allow), and a shell is refused.
#[test]
fn a_transfer_only_account_moves_files_in_its_home_and_nowhere_else() {
    let preset =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("policy/transfer-only.toml"))
            .unwrap();
    let Some(server) = Server::start_with("xfer", Some(&preset)) else {
        return;
    };
    let root = server.dir.path();
    // Outside the home: a file and a directory the user's permissions alone would allow.
    let outside = root.join("outside");
    fs::create_dir(&outside).unwrap();
    fs::set_permissions(&outside, fs::Permissions::from_mode(0o777)).unwrap();
    fs::write(outside.join("secret.txt"), "SECRET\n").unwrap();
    fs::set_permissions(
        outside.join("secret.txt"),
        fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let local = root.join("local.txt");
    fs::write(&local, "uploaded\n").unwrap();
    let home = server.home();
    // Files go into a directory in the home (~ itself only lists, as ~/.ssh is denied).
    run(
        "/usr/bin/install",
        &[
            "-d",
            "-o",
            &server.user,
            home.join("files").to_str().unwrap(),
        ],
    );
    let home = home.join("files");
    let target = format!("{}@127.0.0.1", server.user);
    let port = server.port.to_string();
    let client = |program: &str, args: &[String]| -> Run {
        let out = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run::of(out)
    };
    let mut ssh_options = server.client_args();

    // sftp: put, ls and get in the home directory.
    let batch = root.join("batch");
    let fetched = root.join("fetched.txt");
    fs::write(
        &batch,
        format!(
            "put {} files/via-sftp.txt\nls files\nget files/via-sftp.txt {}\n",
            local.display(),
            fetched.display()
        ),
    )
    .unwrap();
    let mut args = ssh_options.clone();
    args.extend([
        "-P".into(),
        port.clone(),
        "-b".into(),
        batch.display().to_string(),
        target.clone(),
    ]);
    let run = client("/usr/bin/sftp", &args);
    assert_eq!(run.status, 0, "{}\nsshd: {}", run.describe(), server.log());
    assert_eq!(
        fs::read_to_string(home.join("via-sftp.txt")).unwrap(),
        "uploaded\n"
    );
    assert_eq!(fs::read_to_string(&fetched).unwrap(), "uploaded\n");
    run.assert_stdout_has("via-sftp.txt");

    // sftp outside the home, and into ~/.ssh: the kernel refuses sftp-server itself.
    for command in [
        format!(
            "get {}/secret.txt {}/leaked.txt",
            outside.display(),
            root.display()
        ),
        format!("put {} {}/planted.txt", local.display(), outside.display()),
        format!("get .ssh/authorized_keys {}/keys.txt", root.display()),
    ] {
        fs::write(&batch, format!("{command}\n")).unwrap();
        let run = client("/usr/bin/sftp", &args);
        assert_ne!(run.status, 0, "{command}: {}", run.describe());
    }
    assert!(!root.join("leaked.txt").exists());
    assert!(!outside.join("planted.txt").exists());
    assert!(!root.join("keys.txt").exists());

    // scp, legacy protocol (`scp -t` / `scp -f` on the server): up, down, and not outside.
    ssh_options.extend(["-P".into(), port.clone(), "-O".into()]);
    let mut args = ssh_options.clone();
    args.extend([
        local.display().to_string(),
        format!("{target}:files/via-scp.txt"),
    ]);
    let run = client("/usr/bin/scp", &args);
    assert_eq!(run.status, 0, "{}\nsshd: {}", run.describe(), server.log());
    assert_eq!(
        fs::read_to_string(home.join("via-scp.txt")).unwrap(),
        "uploaded\n"
    );
    let mut args = ssh_options.clone();
    args.extend([
        format!("{target}:files/via-scp.txt"),
        root.join("down.txt").display().to_string(),
    ]);
    assert_eq!(client("/usr/bin/scp", &args).status, 0);
    assert_eq!(
        fs::read_to_string(root.join("down.txt")).unwrap(),
        "uploaded\n"
    );
    let mut args = ssh_options.clone();
    args.extend([
        local.display().to_string(),
        format!("{target}:{}/by-scp.txt", outside.display()),
    ]);
    assert_ne!(client("/usr/bin/scp", &args).status, 0);
    assert!(!outside.join("by-scp.txt").exists());

    // rsync over ssh: into the home, and not outside it.
    if Path::new("/usr/bin/rsync").exists() {
        let ssh = format!("ssh -p {port} {}", server.client_args().join(" "));
        let run = client(
            "/usr/bin/rsync",
            &[
                "-e".into(),
                ssh.clone(),
                local.display().to_string(),
                format!("{target}:files/via-rsync.txt"),
            ],
        );
        assert_eq!(run.status, 0, "{}\nsshd: {}", run.describe(), server.log());
        assert_eq!(
            fs::read_to_string(home.join("via-rsync.txt")).unwrap(),
            "uploaded\n"
        );
        let run = client(
            "/usr/bin/rsync",
            &[
                "-e".into(),
                ssh,
                local.display().to_string(),
                format!("{target}:{}/by-rsync.txt", outside.display()),
            ],
        );
        assert_ne!(run.status, 0, "{}", run.describe());
        assert!(!outside.join("by-rsync.txt").exists());
    } else {
        eprintln!("SKIPPED: rsync through sshd needs rsync (apt-get install rsync)");
    }

    // Anything else is refused, a shell first of all.
    let canary = server.home().join("files/CANARY");
    let run = server.ssh(&format!("sh -c 'touch {}'", canary.display()));
    assert_eq!(run.status, 126, "{}", run.describe());
    assert!(!canary.exists());
}

/// A git-only account (the shipped `policy/git-only.toml` as the system policy): `git clone`
/// and `git push` over the real sshd work on a repository in the home directory; `git`
/// itself, which is the same file as git-upload-pack, is refused, and so is a shell.
#[test]
fn a_git_only_account_clones_and_pushes_and_runs_nothing_else() {
    let git = "/usr/bin/git";
    if !Path::new(git).exists() || !Path::new("/usr/bin/git-upload-pack").exists() {
        eprintln!("SKIPPED: git over ssh needs git (apt-get install git)");
        return;
    }
    let preset =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("policy/git-only.toml"))
            .unwrap();
    let Some(server) = Server::start_with("git", Some(&preset)) else {
        return;
    };
    let root = server.dir.path();
    let repos = server.home().join("repos");
    run(
        "/usr/bin/install",
        &["-d", "-o", &server.user, repos.to_str().unwrap()],
    );
    let bare = repos.join("project.git");
    run(git, &["init", "-q", "--bare", bare.to_str().unwrap()]);
    // A hook in the repository: the kernel does not let git start it, though what it
    // would do (write in the home directory) the account may do.
    let hook_canary = repos.join("HOOK-RAN");
    let hook = bare.join("hooks/post-receive");
    fs::write(
        &hook,
        format!("#!/bin/sh\ntouch {}\n", hook_canary.display()),
    )
    .unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    run(
        "/bin/chown",
        &["-R", &format!("{}:", server.user), bare.to_str().unwrap()],
    );

    let ssh = format!("ssh -p {} {}", server.port, server.client_args().join(" "));
    let git_client = |dir: &Path, args: &[&str]| -> Run {
        let out = Command::new(git)
            .args(args)
            .current_dir(dir)
            .env("GIT_SSH_COMMAND", &ssh)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run::of(out)
    };
    let url = format!("{}@127.0.0.1:repos/project.git", server.user);
    let run_clone = git_client(root, &["clone", "-q", &url, "work"]);
    assert_eq!(
        run_clone.status,
        0,
        "{}\nsshd: {}",
        run_clone.describe(),
        server.log()
    );
    let work = root.join("work");
    fs::write(work.join("README"), "pushed through rsh\n").unwrap();
    for args in [
        &["add", "README"][..],
        &["commit", "-q", "-m", "first"],
        &["push", "-q", "origin", "HEAD:refs/heads/main"],
    ] {
        let run = git_client(&work, args);
        assert_eq!(
            run.status,
            0,
            "git {args:?}: {}\nsshd: {}",
            run.describe(),
            server.log()
        );
    }
    let shown = Command::new(git)
        .args(["--git-dir", bare.to_str().unwrap(), "show", "main:README"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout),
        "pushed through rsh\n"
    );
    assert!(!hook_canary.exists(), "the repository's hook ran");
    // A second clone gets what was pushed.
    let run = git_client(root, &["clone", "-q", "-b", "main", &url, "again"]);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(
        fs::read_to_string(root.join("again/README")).unwrap(),
        "pushed through rsh\n"
    );

    // git itself is the same file as git-upload-pack, but not what the policy allows.
    let canary = server.home().join("repos/CANARY");
    let run = server.ssh(&format!(
        "git -C repos/project.git -c core.pager='touch {}' log",
        canary.display()
    ));
    assert_eq!(run.status, 126, "{}", run.describe());
    // Refused under the name git by the table's default (a denial holds under any name).
    run.assert_stderr_has("rsh: denied: git -C");
    run.assert_stderr_has("commands.git-upload-pack.default = \"deny\"");
    // A builtin's redirection into the repository (its config, which whoever runs git on
    // it later obeys).
    let config = fs::read_to_string(bare.join("config")).unwrap();
    let run = server.ssh("printf '[alias]\\n\\tx = !touch /tmp/x\\n' >> repos/project.git/config");
    assert_ne!(run.status, 0, "{}", run.describe());
    run.assert_stderr_has("sensitive.high");
    assert_eq!(fs::read_to_string(bare.join("config")).unwrap(), config);
    // An option instead of a repository, and a shell.
    let run = server.ssh("git-upload-pack --help");
    assert_eq!(run.status, 126, "{}", run.describe());
    let run = server.ssh(&format!("sh -c 'touch {}'", canary.display()));
    assert_eq!(run.status, 126, "{}", run.describe());
    assert!(!canary.exists());
}
