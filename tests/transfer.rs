//! The file-transfer-only preset (`policy/transfer-only.toml`) with the real clients: sftp
//! talks to `rsh -c /usr/lib/openssh/sftp-server` (`sftp -D`, the command sshd would run), and
//! scp (legacy protocol) and rsync reach `rsh -c '…'` through a stand-in for ssh that runs
//! the remote command the way sshd does. The account's home is a temporary directory (the
//! preset's `~`); a canary outside it must neither leave nor be written. Without the clients
//! the tests say so and are skipped.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

use common::Run;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const SFTP_SERVER: &str = "/usr/lib/openssh/sftp-server";

struct Account {
    dir: tempfile::TempDir,
}

impl Account {
    fn new() -> Account {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("home/files")).unwrap();
        fs::create_dir_all(root.join("home/.ssh")).unwrap();
        fs::write(root.join("home/.ssh/authorized_keys"), "ssh-ed25519 KEY\n").unwrap();
        fs::create_dir_all(root.join("outside")).unwrap();
        fs::write(root.join("outside/secret.txt"), "SECRET\n").unwrap();
        fs::write(root.join("local.txt"), "uploaded\n").unwrap();
        // The shipped preset, with this account's home for `~`.
        let preset = fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("policy/transfer-only.toml"),
        )
        .unwrap()
        .replace("\"~", &format!("\"{}", root.join("home").display()));
        fs::write(root.join("policy.toml"), preset).unwrap();
        // A stand-in for ssh: drops its options and the host, and runs what is left as sshd
        // would, with the account's shell: `rsh -c 'COMMAND'`.
        let fake = format!(
            "#!/bin/sh\n\
             while [ $# -gt 0 ]; do\n\
               case \"$1\" in\n\
                 --) shift; break;;\n\
                 -[oplicFSJ]) shift 2;;\n\
                 -*) shift;;\n\
                 *) break;;\n\
               esac\n\
             done\n\
             shift\n\
             cd {home} && exec {RSH} --policy {policy} -c \"$*\"\n",
            home = root.join("home").display(),
            policy = root.join("policy.toml").display(),
        );
        fs::write(root.join("ssh"), fake).unwrap();
        fs::set_permissions(root.join("ssh"), fs::Permissions::from_mode(0o755)).unwrap();
        Account { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn run(&self, program: &str, args: &[String]) -> Run {
        let out = Command::new(program)
            .args(args)
            .current_dir(self.path("home"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run::of(out)
    }
}

fn missing(programs: &[&str]) -> bool {
    let absent: Vec<&&str> = programs.iter().filter(|p| !Path::new(p).exists()).collect();
    if !absent.is_empty() {
        eprintln!(
            "SKIPPED: {absent:?} not installed (apt-get install openssh-client openssh-server rsync)"
        );
    }
    !absent.is_empty()
}

#[test]
fn sftp_moves_files_inside_home_and_the_kernel_keeps_it_there() {
    if missing(&["/usr/bin/sftp", SFTP_SERVER]) {
        return;
    }
    let account = Account::new();
    let outside = account.path("outside");
    // `-` before a command: go on after it fails.
    let batch = format!(
        "put {local} files/up.txt\n\
         get files/up.txt {down}\n\
         -get {outside}/secret.txt {stolen}\n\
         -put {local} {outside}/planted.txt\n\
         -get .ssh/authorized_keys {keys}\n\
         -put {local} .ssh/rc\n",
        local = account.path("local.txt").display(),
        down = account.path("down.txt").display(),
        outside = outside.display(),
        stolen = account.path("stolen.txt").display(),
        keys = account.path("keys.txt").display(),
    );
    fs::write(account.path("batch"), batch).unwrap();
    let server = format!(
        "{RSH} --policy {} -c {SFTP_SERVER}",
        account.path("policy.toml").display()
    );
    let run = account.run(
        "/usr/bin/sftp",
        &[
            "-b".into(),
            account.path("batch").display().to_string(),
            "-D".into(),
            server,
        ],
    );
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(
        fs::read_to_string(account.path("home/files/up.txt")).unwrap(),
        "uploaded\n"
    );
    assert_eq!(
        fs::read_to_string(account.path("down.txt")).unwrap(),
        "uploaded\n"
    );
    // Outside the home, and its keys: refused by the kernel, under sftp-server itself.
    assert!(!account.path("stolen.txt").exists(), "{}", run.describe());
    assert!(!outside.join("planted.txt").exists());
    assert!(!account.path("keys.txt").exists());
    assert!(!account.path("home/.ssh/rc").exists());
    // A write is refused with EROFS in the read-only view (as root), which sftp reports as
    // a plain "Failure".
    let refused_writes = if common::has_view() {
        "Failure"
    } else {
        "Permission denied"
    };
    assert_eq!(
        run.stderr.matches("Permission denied").count() + run.stderr.matches("Failure").count(),
        4,
        "{}",
        run.describe()
    );
    assert!(
        run.stderr.matches("Permission denied").count() >= 2
            && run.stderr.matches(refused_writes).count() >= 2,
        "{}",
        run.describe()
    );
}

#[test]
fn legacy_scp_and_rsync_reach_only_the_home() {
    if missing(&["/usr/bin/scp", "/usr/bin/rsync"]) {
        return;
    }
    let account = Account::new();
    let ssh = account.path("ssh").display().to_string();
    let local = account.path("local.txt").display().to_string();
    let secret = account.path("outside/secret.txt").display().to_string();

    let scp = |args: &[&str]| {
        let mut all: Vec<String> = vec!["-O".into(), "-S".into(), ssh.clone()];
        all.extend(args.iter().map(|a| a.to_string()));
        account.run("/usr/bin/scp", &all)
    };
    let run = scp(&[&local, "host:files/scp.txt"]);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(
        fs::read_to_string(account.path("home/files/scp.txt")).unwrap(),
        "uploaded\n"
    );
    let stolen = account.path("scp-stolen.txt").display().to_string();
    let run = scp(&[&format!("host:{secret}"), &stolen]);
    assert_ne!(run.status, 0, "{}", run.describe());
    assert!(!Path::new(&stolen).exists());

    let rsync = |args: &[&str]| {
        let mut all: Vec<String> = vec!["-e".into(), ssh.clone()];
        all.extend(args.iter().map(|a| a.to_string()));
        account.run("/usr/bin/rsync", &all)
    };
    let run = rsync(&[&local, "host:files/rsync.txt"]);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(
        fs::read_to_string(account.path("home/files/rsync.txt")).unwrap(),
        "uploaded\n"
    );
    let stolen = account.path("rsync-stolen.txt").display().to_string();
    let run = rsync(&[&format!("host:{secret}"), &stolen]);
    assert_ne!(run.status, 0, "{}", run.describe());
    assert!(!Path::new(&stolen).exists());
}

#[test]
fn the_account_has_no_shell_and_no_other_program() {
    let account = Account::new();
    let policy = account.path("policy.toml").display().to_string();
    for (line, why, needs) in [
        ("sh -c id", "rsh: denied: sh -c id", None),
        ("ls", "rsh: denied: ls", None),
        // Refused by its arguments, so the program must be there to be found.
        (
            "rsync --daemon",
            "commands.rsync.default",
            Some("/usr/bin/rsync"),
        ),
        (
            "scp -S /bin/sh -t x",
            "rsh: denied: scp",
            Some("/usr/bin/scp"),
        ),
    ] {
        if needs.is_some_and(|program| missing(&[program])) {
            continue;
        }
        let run = account.run(
            RSH,
            &["--policy".into(), policy.clone(), "-c".into(), line.into()],
        );
        assert_eq!(run.status, 126, "{line}: {}", run.describe());
        run.assert_stderr_has(why);
    }
}
