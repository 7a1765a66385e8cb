//! rsh as a login shell behind a real OpenSSH server: the test makes a throwaway user whose
//! shell is the built rsh, starts sshd on 127.0.0.1 on a free port with a private
//! configuration and host key, and logs in with a key, as `ssh host cmd` (sshd runs
//! `rsh -c 'cmd'`), as sftp, and interactively on a pty. The user gets the built-in default
//! policy. Without sshd and ssh (`apt-get install openssh-server openssh-client`), or when
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
    fn start(name: &str) -> Option<Server> {
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
        let sshd = Command::new(SSHD)
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
    pty.send_line("echo still here");
    pty.expect("still here\r\n", Duration::from_secs(10));
    assert_eq!(pty.exit(), Some(0));
}
