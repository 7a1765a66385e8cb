//! Files named on the command line: rsh refuses a command that names a file the policy keeps
//! from it (`[paths]`) or a sensitive file (`[sensitive]`), however the path is spelled, before
//! anything runs.
//!
//! Every case runs the real binary in a temporary directory and checks what an attacker would
//! want: the secret is not on stdout, the file was not written. Then the status and the message.
//! A control run under a policy that checks nothing shows each line really would read the
//! secret or write the file.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

use common::Run;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

const SECRET: &str = "TOPSECRET";
const ENV_SECRET: &str = "ENVSECRET";

/// `work/` is where rsh runs and the only root; `outside/` holds the secret.
fn policy(extra: &str) -> String {
    format!(
        r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[commands]
allow = ["cat", "cp", "touch", "ls", "grep", "head", "tar", "ln", "mv", "tee", "sed", "dd", "echo", "mkdir", "rmdir", "gunzip", "gzip", "chmod", "awk", "git", "paste", "find", "jq", "timeout", "stat", "date", "du", "wc", "env", "zstd"]

[paths]
read = ["."]
write = ["."]
{extra}"#
    )
}

/// Checks nothing: no `[paths]`, no sensitive names, no kernel confinement.
const OPEN: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "allow"

[sandbox]
mode = "off"

[sensitive]
builtin = false
"#;

struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new(extra: &str) -> Case {
        Case::new_in(&std::env::temp_dir(), extra)
    }

    /// The same, in a temporary directory under `base`.
    fn new_in(base: &Path, extra: &str) -> Case {
        let dir = tempfile::tempdir_in(base).unwrap();
        let root = dir.path();
        fs::write(root.join("policy.toml"), policy(extra)).unwrap();
        fs::write(root.join("open.toml"), OPEN).unwrap();
        fs::create_dir(root.join("outside")).unwrap();
        fs::write(root.join("outside/secret.txt"), SECRET).unwrap();
        let work = root.join("work");
        fs::create_dir_all(work.join("keys")).unwrap();
        fs::write(work.join(".env"), ENV_SECRET).unwrap();
        fs::write(work.join("keys/server.pem"), ENV_SECRET).unwrap();
        fs::write(work.join("plain.txt"), "plain\n").unwrap();
        fs::write(work.join(".bashrc"), "alias ll='ls -l'\n").unwrap();
        fs::write(work.join("app.db"), ENV_SECRET).unwrap();
        symlink("../outside/secret.txt", work.join("link")).unwrap();
        symlink(".env", work.join("innocent")).unwrap();
        Case { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn work(&self) -> PathBuf {
        self.root().join("work")
    }

    fn run_with(&self, policy: &str, script: &str) -> Run {
        self.run_args(policy, &["-c", script])
    }

    /// `rsh --policy POLICY ARGS…` in `work/`.
    fn run_args(&self, policy: &str, args: &[&str]) -> Run {
        self.run_args_env(policy, args, &[])
    }

    /// The same, with the variables `env` set.
    fn run_args_env(&self, policy: &str, args: &[&str], env: &[(&str, &Path)]) -> Run {
        let out = common::without_terminal(&mut Command::new(RSH))
            .arg("--policy")
            .arg(self.root().join(policy))
            .args(args)
            .envs(env.iter().copied())
            .current_dir(self.work())
            .stdin(Stdio::null())
            .output()
            .expect("run rsh");
        Run::of(out)
    }

    fn run(&self, script: &str) -> Run {
        self.run_with("policy.toml", script)
    }

    /// SCRIPT reveals `secret` when nothing is checked, and is refused by the policy with a
    /// message holding `why`.
    fn refuses_read(&self, script: &str, secret: &str, why: &str) {
        let control = self.run_with("open.toml", script);
        assert!(
            control.stdout.contains(secret),
            "control: {script} should print the secret\n{}",
            control.describe()
        );
        let run = self.run(script);
        assert!(
            !run.stdout.contains(secret),
            "{script} printed the secret\n{}",
            run.describe()
        );
        assert_eq!(run.status, 126, "{script}\n{}", run.describe());
        assert!(
            run.stderr.starts_with("rsh: denied: ") && run.stderr.contains(why),
            "{script}: expected a denial naming {why:?}\n{}",
            run.describe()
        );
    }

    /// SCRIPT creates `file` (relative to the temporary directory) when nothing is checked,
    /// and is refused by the policy with a message holding `why`, leaving no file.
    fn refuses_write(&self, script: &str, file: &str, why: &str, status: i32) {
        let target = self.root().join(file);
        let exists = || fs::symlink_metadata(&target).is_ok();
        self.run_with("open.toml", script);
        assert!(exists(), "control: {script} should create {file}");
        fs::remove_file(&target).unwrap();
        let run = self.run(script);
        assert!(!exists(), "{script} wrote {file}\n{}", run.describe());
        assert_eq!(run.status, status, "{script}\n{}", run.describe());
        assert!(
            run.stderr.contains("rsh: denied: ") && run.stderr.contains(why),
            "{script}: expected a denial naming {why:?}\n{}",
            run.describe()
        );
    }
}

#[test]
fn reading_outside_the_roots_is_refused_under_every_spelling() {
    let case = Case::new("");
    let root = case.root().display().to_string();
    for script in [
        "cat ../outside/secret.txt".to_owned(),
        "cat link".to_owned(),
        "cat .//..//outside//./secret.txt".to_owned(),
        format!("cat /proc/self/root{root}/outside/secret.txt"),
        "head -n 1 ../outside/secret.txt".to_owned(),
        "grep -e TOP link".to_owned(),
        "tar -cf - ../outside".to_owned(),
        "dd if=../outside/secret.txt status=none".to_owned(),
    ] {
        case.refuses_read(&script, SECRET, "it is outside the read roots (paths.read)");
    }
}

#[test]
fn writing_outside_the_roots_is_refused() {
    let case = Case::new("");
    let why = "it is outside the write roots (paths.write)";
    case.refuses_write("touch ../outside/CANARY", "outside/CANARY", why, 126);
    case.refuses_write("cp plain.txt ../outside/CANARY", "outside/CANARY", why, 126);
    case.refuses_write("cp -t ../outside plain.txt", "outside/plain.txt", why, 126);
    case.refuses_write("echo x | tee ../outside/CANARY", "outside/CANARY", why, 126);
    case.refuses_write("ln -s x ../outside/CANARY", "outside/CANARY", why, 126);
    case.refuses_write(
        "dd if=plain.txt of=../outside/CANARY status=none",
        "outside/CANARY",
        why,
        126,
    );
    // A redirection is checked as rsh opens it: the command is not run, status 1.
    case.refuses_write("echo x > ../outside/CANARY", "outside/CANARY", why, 1);
}

/// rsh opens a redirection's file itself, unconfined, after checking where it lands. Where
/// a directory on the way is missing, `d/../../outside/secret.txt` cannot be made canonical;
/// checked as written it looked like a file under `work`, and if `d` appeared before the
/// open, the kernel took the `..` out. One side of a pipeline makes and removes `d` while
/// the other keeps opening through it: neither the read nor the write may ever get out.
/// A symbolic link that leads round in a loop, as the last component or a directory on the
/// way, is reported as bash reports it, under `[paths]` and without: it once read "it changed
/// while rsh checked it".
#[test]
fn a_link_loop_is_reported_as_bash_reports_it() {
    let case = Case::new("");
    symlink("loop", case.work().join("loop")).unwrap();
    symlink("a", case.work().join("b")).unwrap();
    symlink("b", case.work().join("a")).unwrap();
    for policy in ["policy.toml", "open.toml"] {
        for line in [
            "cat < loop",
            "echo x > loop",
            "echo x >> a",
            "cat < b",
            "cat < loop/y",
            "echo x > a/y",
            "echo x >> loop/y/z",
        ] {
            let run = case.run_with(policy, line);
            let name = line.rsplit(' ').next().unwrap();
            assert_eq!(run.status, 1, "{policy}: {line}\n{}", run.describe());
            assert_eq!(
                run.stderr,
                format!("rsh: {name}: Too many levels of symbolic links\n"),
                "{policy}: {line}"
            );
        }
    }
}

#[test]
fn a_directory_appearing_between_the_check_and_the_open_does_not_lead_out() {
    let case = Case::new("");
    let script = "{ i=0; while [ ! -e stop ] && [ $i -lt 5000 ]; do mkdir d; rmdir d; i=$((i+1)); done; } 2>/dev/null | {
        n=0
        while [ $n -lt 4000 ]; do
            n=$((n+1))
            { read -r x < d/../../outside/secret.txt && echo \"read $x\"; } 2>>errors
            { echo x > d/../../outside/CANARY; } 2>>errors
        done
        : > stop
    }";
    let run = case.run(script);
    assert!(!run.stdout.contains(SECRET), "{}", run.describe());
    assert!(
        !case.root().join("outside/CANARY").exists(),
        "the write got out\n{}",
        run.describe()
    );
    // Both states were met: `d` missing (the kernel's answer) and `d` there (the rule's).
    let errors = fs::read_to_string(case.work().join("errors")).unwrap();
    for expected in [
        "d/../../outside/secret.txt: No such file or directory",
        "it is outside the read roots (paths.read)",
        "it is outside the write roots (paths.write)",
    ] {
        assert!(errors.contains(expected), "no {expected:?} in\n{errors}");
    }
}

/// `rsh FILE` and `rsh -n FILE` read the file themselves, and a script's words show in its
/// error messages (`TOPSECRET: command not found`): the file is read under the file rules.
#[test]
fn a_script_named_on_the_command_line_is_read_under_the_file_rules() {
    let case = Case::new("");
    let run_args = |policy: &str, args: &[&str]| case.run_args(policy, args);
    let control = run_args("open.toml", &["../outside/secret.txt"]);
    assert!(
        control.stderr.contains(SECRET),
        "control\n{}",
        control.describe()
    );
    for args in [
        &["../outside/secret.txt"][..],
        &["-n", "../outside/secret.txt"],
    ] {
        let run = run_args("policy.toml", args);
        assert!(!run.stderr.contains(SECRET), "{args:?}\n{}", run.describe());
        assert!(!run.stdout.contains(SECRET), "{args:?}\n{}", run.describe());
        assert_eq!(run.status, 126, "{args:?}\n{}", run.describe());
        assert!(
            run.stderr.starts_with("rsh: denied: ")
                && run
                    .stderr
                    .contains("it is outside the read roots (paths.read)"),
            "{args:?}\n{}",
            run.describe()
        );
    }
    let missing = run_args("policy.toml", &["nothing-here.sh"]);
    assert_eq!(missing.status, 127, "{}", missing.describe());
    assert_eq!(
        missing.stderr,
        "rsh: nothing-here.sh: No such file or directory\n"
    );
    fs::write(case.work().join("ok.sh"), "echo ran $1\n").unwrap();
    let ok = run_args("policy.toml", &["ok.sh", "here"]);
    assert_eq!(
        (ok.status, ok.stdout.as_str()),
        (0, "ran here\n"),
        "{}",
        ok.describe()
    );
    assert_eq!(run_args("policy.toml", &["-n", "ok.sh"]).status, 0);
}

#[test]
fn cd_outside_the_read_roots_is_refused() {
    let case = Case::new("");
    let run = case.run("cd ../outside; pwd");
    assert!(
        run.stderr
            .contains("rsh: denied: cd ../outside: reads ../outside:"),
        "{}",
        run.describe()
    );
    assert_eq!(run.stdout.trim(), case.work().display().to_string());
    // A denied directory inside the roots: the message names the cd.
    let case_denied = Case::new("deny = [\"./keys\"]");
    let run = case_denied.run("cd keys; pwd");
    assert!(
        run.stderr.starts_with("rsh: denied: cd keys: ")
            && run.stderr.contains("is denied (paths.deny)"),
        "{}",
        run.describe()
    );
    assert_eq!(run.stdout.trim(), case_denied.work().display().to_string());
    // Inside the roots, cd works.
    let run = case.run("cd keys && pwd");
    assert_eq!(
        run.stdout.trim(),
        case.work().join("keys").display().to_string()
    );
}

#[test]
fn sensitive_files_are_refused_under_every_spelling() {
    let case = Case::new("");
    for script in [
        "cat .env",
        "cat ./.env",
        "cat innocent",
        "cat \"$PWD/.env\"",
        "cat ../work/.env",
        "cat keys/server.pem",
        "cat keys/*",
        "grep -h -e ENV .env plain.txt",
        "sed -n p .env",
        "tar -cf - .env",
        // Named inside the script.
        "sed 'R .env' plain.txt",
        "sed -e '1r .env' plain.txt",
    ] {
        case.refuses_read(script, ENV_SECRET, "matches sensitive.high");
    }
    let run = case.run("cat < .env");
    assert!(!run.stdout.contains(ENV_SECRET), "{}", run.describe());
    run.assert_stderr_has("rsh: denied: .env: ");
    let run = case.run("cp .env copy");
    assert!(!case.work().join("copy").exists(), "{}", run.describe());
    run.assert_stderr_has("reads .env: ");
}

/// Sensitive names hold for what rsh opens itself (redirections, `$(< …)`, `source`) under a
/// policy without `[paths]`, with confinement on or off, as they do for the files a command
/// names.
#[test]
fn sensitive_names_hold_for_redirections_without_paths() {
    let case = Case::new("");
    let shell =
        "[shell]\npath = [\"/usr/bin\", \"/bin\"]\n[commands]\nallow = [\"cat\", \"echo\"]\n";
    fs::write(case.root().join("no-paths.toml"), shell).unwrap();
    let off = format!("{shell}[sandbox]\nmode = \"off\"\n");
    fs::write(case.root().join("no-sandbox.toml"), off).unwrap();
    for policy in ["no-paths.toml", "no-sandbox.toml"] {
        for script in ["cat < .env", "echo \"$(< .env)\"", "source .env"] {
            let control = case.run_with("open.toml", script);
            assert!(
                control.stdout.contains(ENV_SECRET) || control.stderr.contains(ENV_SECRET),
                "control: {script}\n{}",
                control.describe()
            );
            let run = case.run_with(policy, script);
            assert!(
                !run.stdout.contains(ENV_SECRET) && !run.stderr.contains(ENV_SECRET),
                "{policy}: {script}\n{}",
                run.describe()
            );
            run.assert_stderr_has("rsh: denied: .env: ");
        }
        let run = case.run_with(policy, "echo planted > .bashrc; cat < plain.txt");
        assert_eq!(
            fs::read_to_string(case.work().join(".bashrc")).unwrap(),
            "alias ll='ls -l'\n",
            "{policy}\n{}",
            run.describe()
        );
        run.assert_stderr_has("rsh: denied: .bashrc: ");
        assert_eq!(run.stdout, "plain\n", "{policy}\n{}", run.describe());
    }
}

/// A trailing `/` on a redirection's file asks for a directory under `[paths]` as it does by
/// name: `> file/` and `> new/` fail with "Is a directory", `< file/` with "Not a directory".
/// rsh's own resolution once dropped the slash and wrote the file.
#[test]
fn a_trailing_slash_asks_for_a_directory() {
    let case = Case::new("");
    for (line, message) in [
        ("echo x > plain.txt/", "rsh: plain.txt/: Is a directory\n"),
        ("echo x >> plain.txt/", "rsh: plain.txt/: Is a directory\n"),
        ("echo x > new/", "rsh: new/: Is a directory\n"),
        ("cat < plain.txt/", "rsh: plain.txt/: Not a directory\n"),
    ] {
        let run = case.run(line);
        assert_eq!(run.status, 1, "{line}\n{}", run.describe());
        assert_eq!(run.stderr, message, "{line}");
    }
    assert_eq!(
        fs::read_to_string(case.work().join("plain.txt")).unwrap(),
        "plain\n"
    );
    assert!(!case.work().join("new").exists());
    assert_eq!(case.run("cat < keys/ 2>/dev/null; echo $?").stdout, "1\n");
}

/// `set -C` as bash has it: `>` refuses an existing regular file and a dangling link, and
/// creates a new file with `O_EXCL`, so a file another process puts there after rsh looked is
/// refused, never truncated. Another thread puts its own `racer` in place again and again
/// (written, then renamed over the name) and reads it back through its own descriptor.
#[test]
fn noclobber_never_truncates_a_file_created_meanwhile() {
    use std::io::{Read, Seek, Write};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let case = Case::new("");
    let work = case.work();
    symlink("absent", work.join("dangling")).unwrap();
    let script = "set -C; echo x > dangling; echo \"rc=$?\"; echo y > plain.txt; echo \"rc=$?\"
        echo z > /dev/null; echo \"rc=$?\"; echo new > fresh; cat fresh
        for i in {1..20000}; do echo mine > racer; done 2>/dev/null; echo looped";
    for policy in ["policy.toml", "open.toml"] {
        let _ = fs::remove_file(work.join("fresh"));
        let stop = AtomicBool::new(false);
        let (clobbered, rounds) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let run = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let mut file = fs::OpenOptions::new()
                        .read(true)
                        .write(true)
                        .create(true)
                        .truncate(true)
                        .open(work.join("tmp"))
                        .unwrap();
                    file.write_all(b"theirs\n").unwrap();
                    fs::rename(work.join("tmp"), work.join("racer")).unwrap();
                    std::thread::sleep(std::time::Duration::from_micros(50));
                    let mut read = String::new();
                    file.rewind().unwrap();
                    file.read_to_string(&mut read).unwrap();
                    if read != "theirs\n" {
                        clobbered.fetch_add(1, Ordering::Relaxed);
                    }
                    rounds.fetch_add(1, Ordering::Relaxed);
                    let _ = fs::remove_file(work.join("racer"));
                }
            });
            let run = case.run_with(policy, script);
            stop.store(true, Ordering::Relaxed);
            run
        });
        assert_eq!(
            run.stdout,
            "rc=1\nrc=1\nrc=0\nnew\nlooped\n",
            "{policy}\n{}",
            run.describe()
        );
        run.assert_stderr_has("rsh: dangling: cannot overwrite existing file");
        run.assert_stderr_has("rsh: plain.txt: cannot overwrite existing file");
        assert!(
            fs::symlink_metadata(work.join("absent")).is_err(),
            "{policy}"
        );
        assert_eq!(
            fs::read_to_string(work.join("plain.txt")).unwrap(),
            "plain\n"
        );
        let rounds = rounds.load(Ordering::Relaxed);
        assert_eq!(
            clobbered.load(Ordering::Relaxed),
            0,
            "{policy}: rsh truncated a file created meanwhile (in {rounds} rounds)"
        );
    }
}

/// Under `set -C`, a dangling link put in place of a name rsh found absent is not written
/// through: `O_EXCL` is about the name, as bash has it, also where rsh resolves links itself
/// (`[paths]`).
#[test]
fn noclobber_does_not_write_through_a_link_put_there_meanwhile() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let case = Case::new("");
    let work = case.work();
    let script = "set -C; for i in {1..80000}; do echo mine > racer; done 2>/dev/null; echo looped";
    for policy in ["policy.toml", "open.toml"] {
        let stop = AtomicBool::new(false);
        let (through, rounds) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let run = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let _ = symlink("target", work.join("racer"));
                    std::thread::sleep(std::time::Duration::from_micros(20));
                    if fs::remove_file(work.join("target")).is_ok() {
                        through.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = fs::remove_file(work.join("racer"));
                    rounds.fetch_add(1, Ordering::Relaxed);
                }
            });
            let run = case.run_with(policy, script);
            stop.store(true, Ordering::Relaxed);
            run
        });
        assert_eq!(run.stdout, "looped\n", "{policy}\n{}", run.describe());
        let rounds = rounds.load(Ordering::Relaxed);
        assert_eq!(
            through.load(Ordering::Relaxed),
            0,
            "{policy}: rsh wrote through a link put there meanwhile (in {rounds} rounds)"
        );
    }
}

/// Exchanges `sw` and `other` in `dir` (renameat2 RENAME_EXCHANGE) again and again, as an
/// attacker racing rsh's checks would, until `stop`.
fn keep_exchanging(dir: &Path, stop: &std::sync::atomic::AtomicBool) {
    use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
    let (sw, other) = (dir.join("sw"), dir.join("other"));
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        renameat2(
            AT_FDCWD,
            &sw,
            AT_FDCWD,
            &other,
            RenameFlags::RENAME_EXCHANGE,
        )
        .unwrap();
    }
}

/// Without `[paths]` rsh checks a redirection's name and then opens it by name, so a link
/// switched in between could lead to a sensitive file: what was opened is checked again. `sw`
/// changes again and again between a FIFO, which another thread reads or writes as fast as it
/// can, and a link to `.env` (for reading) or to `.bashrc` (for writing); each run must get the
/// FIFO or a denial, never the sensitive file.
#[test]
fn a_link_switched_in_during_a_redirections_check_is_caught() {
    use nix::fcntl::OFlag;
    use std::sync::atomic::{AtomicBool, Ordering};
    let case = Case::new("");
    let work = case.work();
    let shell = "[shell]\npath = [\"/usr/bin\", \"/bin\"]\n[commands]\nallow = [\"head\", \"echo\"]\n[limits]\ntimeout = 5\n";
    fs::write(case.root().join("no-paths.toml"), shell).unwrap();
    let made = Command::new("mkfifo")
        .arg(work.join("fifo"))
        .status()
        .unwrap();
    assert!(made.success());
    for (script, target, mode) in [
        ("head -n1 < sw", ".env", OFlag::O_WRONLY),
        ("echo planted >> sw", ".bashrc", OFlag::O_RDONLY),
    ] {
        // The switching stopped anywhere last time.
        for name in ["sw", "other"] {
            let _ = fs::remove_file(work.join(name));
        }
        fs::hard_link(work.join("fifo"), work.join("sw")).unwrap();
        symlink(target, work.join("other")).unwrap();
        let stop = AtomicBool::new(false);
        let (mut fifo, mut denied, mut leaked) = (0, 0, None);
        std::thread::scope(|scope| {
            scope.spawn(|| keep_exchanging(&work, &stop));
            // The FIFO's other end, opened without waiting: it succeeds while rsh waits.
            scope.spawn(|| {
                let fifo = work.join("fifo");
                while !stop.load(Ordering::Relaxed) {
                    let flags = mode | OFlag::O_NONBLOCK;
                    let Ok(end) = nix::fcntl::open(&fifo, flags, nix::sys::stat::Mode::empty())
                    else {
                        continue;
                    };
                    let _ = nix::unistd::write(&end, b"fifo\n");
                    let _ = nix::unistd::read(&end, &mut [0; 64]);
                }
            });
            for _ in 0..150 {
                let run = case.run_with("no-paths.toml", script);
                if run.stdout.contains(ENV_SECRET) {
                    leaked = Some(run);
                    break;
                }
                if run.stderr.contains("rsh: denied: sw: ") {
                    denied += 1;
                } else if run.status == 0 {
                    fifo += 1;
                }
            }
            stop.store(true, Ordering::Relaxed);
        });
        if let Some(run) = leaked {
            panic!("{script} read .env\n{}", run.describe());
        }
        assert_eq!(
            fs::read_to_string(work.join(".bashrc")).unwrap(),
            "alias ll='ls -l'\n",
            "{script}"
        );
        // Both sides of the switch were met.
        assert!(
            fifo > 0 && denied > 0,
            "{script}: fifo {fifo}, denied {denied}"
        );
    }
}

/// A FIFO switched in for a file while rsh checks a redirection cannot hold rsh past the
/// command's timeout: what rsh opens is what it looked at.
#[test]
fn a_fifo_switched_in_during_a_redirections_check_waits_no_longer_than_the_timeout() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let case = Case::new("");
    let work = case.work();
    let shell = "[shell]\npath = [\"/usr/bin\", \"/bin\"]\n[commands]\nallow = [\"cat\"]\n[limits]\ntimeout = 1\n";
    fs::write(case.root().join("no-paths.toml"), shell).unwrap();
    fs::write(
        case.root().join("paths.toml"),
        policy("[limits]\ntimeout = 1"),
    )
    .unwrap();
    let made = Command::new("mkfifo")
        .arg(work.join("other"))
        .status()
        .unwrap();
    assert!(made.success());
    fs::write(work.join("sw"), "plain\n").unwrap();
    let stop = AtomicBool::new(false);
    let mut hung = None;
    std::thread::scope(|scope| {
        scope.spawn(|| keep_exchanging(&work, &stop));
        'runs: for policy in ["no-paths.toml", "paths.toml"] {
            for _ in 0..10 {
                let mut child = common::without_terminal(&mut Command::new(RSH))
                    .arg("--policy")
                    .arg(case.root().join(policy))
                    .args(["-c", "cat < sw"])
                    .current_dir(&work)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                while child.try_wait().unwrap().is_none() {
                    if std::time::Instant::now() > deadline {
                        let _ = child.kill();
                        let _ = child.wait();
                        hung = Some(policy);
                        break 'runs;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert_eq!(hung, None, "rsh waited on the FIFO past its timeout");
}

/// `[shell] mode = "readonly"` lets a redirection write to a terminal or `/dev/null` only:
/// a file switched in for the device while rsh checks it is not written.
#[test]
fn readonly_mode_writes_only_the_device_it_checked() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let case = Case::new("");
    let work = case.work();
    let shell = "[shell]\nmode = \"readonly\"\npath = [\"/usr/bin\", \"/bin\"]\n[commands]\nallow = [\"echo\"]\n";
    fs::write(case.root().join("readonly.toml"), shell).unwrap();
    fs::write(work.join("sw"), "keep\n").unwrap();
    symlink("/dev/null", work.join("other")).unwrap();
    let stop = AtomicBool::new(false);
    let (mut denied, mut written_to_null) = (0, 0);
    std::thread::scope(|scope| {
        scope.spawn(|| keep_exchanging(&work, &stop));
        for _ in 0..150 {
            let run = case.run_with("readonly.toml", "echo PLANTED >> sw");
            match run.status {
                0 => written_to_null += 1,
                _ => denied += 1,
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    let file = ["sw", "other"]
        .iter()
        .map(|name| work.join(name))
        .find(|path| !fs::symlink_metadata(path).unwrap().is_symlink())
        .unwrap();
    assert_eq!(fs::read_to_string(file).unwrap(), "keep\n");
    assert!(
        denied > 0 && written_to_null > 0,
        "denied {denied}, to /dev/null {written_to_null}"
    );
}

/// Without `[paths]`, a working directory moved deeper than PATH_MAX while rsh is in it
/// leaves no name that can be followed to where a file is: sensitive names cannot be
/// checked there, so nothing is opened for a command.
#[test]
fn a_working_directory_deeper_than_path_max_is_refused() {
    use std::io::Write;
    use std::os::fd::AsFd;
    let case = Case::new("");
    let work = case.work();
    let shell =
        "[shell]\npath = [\"/usr/bin\", \"/bin\"]\n[commands]\nallow = [\"cat\", \"echo\"]\n";
    fs::write(case.root().join("no-paths.toml"), shell).unwrap();
    symlink(".bashrc", work.join("rc")).unwrap();
    // 18 directories of 250 bytes, made one inside the other.
    let name = "d".repeat(250);
    let mut dir = fs::File::open(case.root()).unwrap();
    for _ in 0..18 {
        nix::sys::stat::mkdirat(dir.as_fd(), name.as_str(), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let inner = nix::fcntl::openat(
            dir.as_fd(),
            name.as_str(),
            nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_DIRECTORY,
            nix::sys::stat::Mode::empty(),
        )
        .unwrap();
        dir = fs::File::from(inner);
    }
    let script = "read x; cat < innocent; cat innocent; echo \"$(< innocent)\"; \
                  echo planted >> rc; echo end";
    let mut child = Command::new(RSH)
        .arg("--policy")
        .arg(case.root().join("no-paths.toml"))
        .args(["-c", script])
        .current_dir(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let root = fs::File::open(case.root()).unwrap();
    nix::fcntl::renameat(root.as_fd(), "work", dir.as_fd(), "work").unwrap();
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    let run = Run::of(child.wait_with_output().unwrap());
    assert!(!run.stdout.contains(ENV_SECRET), "{}", run.describe());
    assert!(run.stdout.contains("end"), "{}", run.describe());
    let bashrc = nix::fcntl::openat(
        dir.as_fd(),
        "work/.bashrc",
        nix::fcntl::OFlag::O_RDONLY,
        nix::sys::stat::Mode::empty(),
    )
    .unwrap();
    let mut text = String::new();
    use std::io::Read;
    fs::File::from(bashrc).read_to_string(&mut text).unwrap();
    assert_eq!(text, "alias ll='ls -l'\n", "{}", run.describe());
    run.assert_stderr_has("rsh: denied: innocent: its path is longer than rsh can check");
    run.assert_stderr_has("rsh: denied: cat innocent: reads innocent: its path is longer");
    // The temporary directory is removed by path, which cannot reach this deep.
    nix::fcntl::renameat(dir.as_fd(), "work", root.as_fd(), "work").unwrap();
}

/// A pipeline stage is a forked copy of rsh: without `[paths]` too, it may not open the
/// shell's descriptors through `/proc/$$/fd` (the pipes that carry the audit records of the
/// other stages), while its own `/proc/self` stays its own.
#[test]
fn another_rsh_process_descriptors_are_refused_without_paths() {
    let case = Case::new("");
    let shell = "[shell]\npath = [\"/usr/bin\", \"/bin\"]\n[commands]\nallow = [\"cat\", \"head\", \"true\"]\n";
    fs::write(case.root().join("no-paths.toml"), shell).unwrap();
    let run = case.run_with("no-paths.toml", "true | cat < /proc/$$/fd/0");
    assert_eq!(run.status, 1, "{}", run.describe());
    run.assert_stderr_has("/fd/0: it belongs to another process");
    let run = case.run_with("no-paths.toml", "true | cat < /proc/self/status | head -1");
    assert_eq!(run.stdout, "Name:\tcat\n", "{}", run.describe());
}

/// A path that goes through a directory link reaches its file by the name spelled through
/// the link too: `repo/.git/config` is a repository's configuration wherever `repo/.git`
/// leads, and `keys/.ssh/id` a key.
#[test]
fn a_sensitive_name_spelled_through_a_directory_link_counts() {
    let case = Case::new("");
    let work = case.work();
    fs::create_dir_all(work.join("elsewhere/hooks")).unwrap();
    fs::create_dir_all(work.join("repo")).unwrap();
    symlink("../elsewhere", work.join("repo/.git")).unwrap();
    fs::create_dir_all(work.join("keys")).unwrap();
    symlink("../outside-keys", work.join("keys/.ssh")).unwrap();
    fs::create_dir_all(work.join("outside-keys")).unwrap();
    fs::write(work.join("outside-keys/id"), ENV_SECRET).unwrap();
    for (script, file, status) in [
        (
            "cp plain.txt repo/.git/config",
            "work/elsewhere/config",
            126,
        ),
        (
            "cp plain.txt repo/.git/hooks/x",
            "work/elsewhere/hooks/x",
            126,
        ),
        (
            "echo planted > repo/.git/hooks/y",
            "work/elsewhere/hooks/y",
            1,
        ),
    ] {
        case.refuses_write(script, file, "sensitive.high \"write:.git/", status);
    }
    case.refuses_read("cat keys/.ssh/id", ENV_SECRET, "sensitive.high \".ssh\"");
    // The same files by their own names are no secret.
    let run = case.run("cp plain.txt elsewhere/config; cat outside-keys/id");
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, ENV_SECRET, "{}", run.describe());
}

/// A sed or awk script file is read for the files it names before the command runs; one
/// that cannot be read first (standard input, a pipe) is refused rather than run unseen.
#[test]
fn script_files_are_read_first_or_refused() {
    let case = Case::new("");
    fs::create_dir_all(case.work().join(".git/hooks")).unwrap();
    let hook = "work/.git/hooks/post-commit";
    fs::write(
        case.work().join("s.awk"),
        "BEGIN { print \"touch planted\" > \".git/hooks/post-commit\" }\n",
    )
    .unwrap();
    for script in ["awk -f s.awk", "awk -W exec s.awk", "awk -We s.awk"] {
        case.refuses_write(script, hook, "sensitive.high \"write:.git/hooks\"", 126);
    }
    for script in [
        "echo 'w .git/hooks/post-commit' | sed -n -f - plain.txt",
        "sed -n -f <(echo 'w .git/hooks/post-commit') plain.txt",
        "echo 'w .git/hooks/post-commit' | sed -n -f /dev/stdin plain.txt",
    ] {
        case.refuses_write(
            script,
            hook,
            "script cannot be looked at before it runs",
            126,
        );
    }
}

/// rsh's reading of a program's options can miss a file (`HEAD:.env` is a file git reads
/// from the repository): any word naming a sensitive file that is there is refused,
/// whatever the program makes of it. Not a pattern the program matches.
#[test]
fn any_word_naming_a_sensitive_file_is_refused() {
    let case = Case::new("");
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(case.work())
            .stdout(Stdio::null())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-f", ".env"]);
    git(&["commit", "-qm", "env"]);
    for script in [
        "git show HEAD:.env",
        "git cat-file -p HEAD:.env",
        "git --no-pager show HEAD:./.env",
        "paste -s .env",
    ] {
        case.refuses_read(script, ENV_SECRET, "matches sensitive.high \".env\"");
    }
    // Patterns and excluded names, also under a wrapper.
    let run = case.run(
        "grep -c .env plain.txt; find . -maxdepth 1 -name .env; timeout 5 grep -c .env \
         plain.txt; ls -I .env keys; grep -c KEY --exclude .env plain.txt; echo done",
    );
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "0\n./.env\n0\nserver.pem\n0\ndone\n"),
        "{}",
        run.describe()
    );
    case.refuses_read("timeout 5 git show HEAD:.env", ENV_SECRET, "names .env");
}

/// A sensitive file's name and attributes are no secret: `ls -l`, `stat`, `du`, `date -r` and
/// `touch -r` take them, while reading it (`date -f`, a list in it) and listing a sensitive
/// directory stay refused.
#[test]
fn attributes_of_a_sensitive_file_are_no_secret() {
    let case = Case::new("");
    fs::create_dir(case.work().join(".aws")).unwrap();
    fs::write(case.work().join(".aws/credentials"), ENV_SECRET).unwrap();
    let run = case.run(
        "ls -l .env keys/server.pem | wc -l; stat -c %s .env; du -b .env; \
         date -r .env +%Y >/dev/null && touch -r .env plain.txt && echo dated",
    );
    assert_eq!(
        (run.status, run.stdout.as_str(), run.stderr.as_str()),
        (0, "2\n9\n9\t.env\ndated\n", ""),
        "{}",
        run.describe()
    );
    for script in ["date -f .env 2>&1", "du --files0-from=.env 2>&1"] {
        case.refuses_read(script, ENV_SECRET, "reads .env: ");
    }
    let run = case.run("ls -a .aws");
    assert_eq!(run.status, 126, "{}", run.describe());
    assert!(
        run.stderr.contains("reads .aws: ") && !run.stdout.contains("credentials"),
        "{}",
        run.describe()
    );
}

/// `test -r` and `-w` answer for the shell's commands: a file the policy keeps from them is
/// neither, whatever its modes say (root reads anything).
#[test]
fn test_r_and_w_follow_the_policy() {
    let case = Case::new("");
    let script = "for f in .env plain.txt ../outside/secret.txt; do \
                  [ -r $f ] && echo r $f; [[ -w $f ]] && echo w $f; done; true";
    let control = case.run_with("open.toml", script);
    assert_eq!(
        control.stdout,
        "r .env\nw .env\nr plain.txt\nw plain.txt\nr ../outside/secret.txt\n\
         w ../outside/secret.txt\n",
        "{}",
        control.describe()
    );
    let run = case.run(script);
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "r plain.txt\nw plain.txt\n"),
        "{}",
        run.describe()
    );
}

/// The shell lists a directory for pathname expansion only where its commands may read:
/// `echo DIR/*` shows no more than `ls DIR` could.
#[test]
fn globs_list_only_what_commands_may_read() {
    let case = Case::new("deny = [\"./keys\"]");
    let script = "echo keys/* ../outside/* ../o*/*.txt; echo p*";
    let control = case.run_with("open.toml", script);
    assert_eq!(
        control.stdout,
        "keys/server.pem ../outside/secret.txt ../outside/secret.txt\nplain.txt\n",
        "{}",
        control.describe()
    );
    let run = case.run(script);
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "keys/* ../outside/* ../o*/*.txt\nplain.txt\n"),
        "{}",
        run.describe()
    );
    // The pattern stays as written, a name no file has.
    let script = "cat ../outs*/secret.*";
    assert!(case.run_with("open.toml", script).stdout.contains(SECRET));
    let run = case.run(script);
    assert!(!run.stdout.contains(SECRET), "{}", run.describe());
    assert!(
        run.stderr.contains("'../outs*/secret.*': No such file"),
        "{}",
        run.describe()
    );
}

/// What sed writes besides its files: the backup `-i SUFFIX` renames each file to, and the
/// `w` file after an address whose delimiter sits in a bracket expression (`/[/]/`).
#[test]
fn sed_backups_and_bracketed_delimiters_are_seen() {
    let case = Case::new("");
    fs::create_dir_all(case.work().join(".git/hooks")).unwrap();
    let hook = "work/.git/hooks/post-commit";
    for script in [
        "cp plain.txt post-commit && sed -i'.git/hooks/*' s/^// post-commit",
        "cp plain.txt .git/hooks/post && sed -i-commit s/^// .git/hooks/post",
        "mkdir -p hooks && cp plain.txt hooks/post-commit && sed -i'.git/*' s/^// hooks/post-commit",
        "sed -n '/[/]*/w .git/hooks/post-commit' plain.txt",
        "sed 's/[/]/x/w .git/hooks/post-commit' plain.txt",
    ] {
        case.refuses_write(script, hook, "sensitive.high \"write:.git/hooks\"", 126);
    }
    case.refuses_read(
        "sed '/[/]*/r .env' plain.txt",
        ENV_SECRET,
        "sensitive.high \".env\"",
    );
}

/// A file that lists the files to work on (`tar -T`) is read first, and what it lists is
/// decided as if it were on the command line; one from standard input is refused.
#[test]
fn files_a_list_names_are_decided() {
    let case = Case::new("");
    fs::write(case.work().join("list"), "plain.txt\n.env\n").unwrap();
    case.refuses_read("tar -cf - -T list", ENV_SECRET, "sensitive.high \".env\"");
    case.refuses_read(
        "tar -cf - --files-from=list",
        ENV_SECRET,
        "sensitive.high \".env\"",
    );
    let run = case.run("echo .env | tar -cf - -T -");
    assert!(!run.stdout.contains(ENV_SECRET), "{}", run.describe());
    run.assert_stderr_has("the files it lists cannot be looked at");
    fs::write(case.work().join("list"), "plain.txt\n").unwrap();
    let run = case.run("tar -cf - -T list");
    assert_eq!(run.status, 0, "{}", run.describe());
}

/// A jq module is a file jq reads: `import "./credentials" as $c` reads credentials.json.
#[test]
fn jq_modules_are_files_it_reads() {
    if Command::new("jq").arg("--version").output().is_err() {
        eprintln!("SKIPPED jq_modules_are_files_it_reads: jq is not installed");
        return;
    }
    let case = Case::new("");
    fs::write(
        case.work().join("credentials.json"),
        format!("{{\"key\": \"{ENV_SECRET}\"}}"),
    )
    .unwrap();
    fs::write(
        case.work().join("m.jq"),
        "import \"credentials\" as $c; $c\n",
    )
    .unwrap();
    // A module that imports from the directory it names.
    fs::create_dir(case.work().join("lib")).unwrap();
    let nested = format!(
        "import \"credentials\" as $c {{search: \"{}\"}}; def x: $c;\n",
        case.work().display()
    );
    fs::write(case.work().join("lib/n.jq"), nested).unwrap();
    // jq also looks in ~/.jq.
    fs::create_dir(case.work().join(".jq")).unwrap();
    fs::copy(case.work().join("lib/n.jq"), case.work().join(".jq/h.jq")).unwrap();
    let work = case.work();
    let from_home = |policy: &str| {
        let args = ["-c", "jq -nc 'import \"h\" as h; h::x'"];
        case.run_args_env(policy, &args, &[("HOME", &work)])
    };
    let control = from_home("open.toml");
    assert!(
        control.stdout.contains(ENV_SECRET),
        "{}",
        control.describe()
    );
    let run = from_home("policy.toml");
    assert!(!run.stdout.contains(ENV_SECRET), "{}", run.describe());
    assert_eq!(run.status, 126, "{}", run.describe());
    for script in [
        "jq -n 'import \"cred\\u0065ntials\" as $c; $c'",
        "jq -n -L lib 'include \"n\"; x'",
        "jq -n -L lib 'import \"n\" as n; n::x'",
        "jq -n 'import \"./credentials\" as $c; $c'",
        "jq -n 'import \"credentials\" as $c {search: \".\"}; $c'",
        "jq -n -L . 'import \"credentials\" as $c; $c'",
        "jq -n -L . -f m.jq",
        // The HOME a wrapper gives it.
        "env HOME=\"$PWD\" jq -nc 'import \"h\" as h; h::x'",
        "timeout 5 env HOME=\"$PWD\" jq -nc 'import \"h\" as h; h::x'",
    ] {
        case.refuses_read(script, ENV_SECRET, "sensitive.high \"credentials.json\"");
    }
}

#[test]
fn startup_files_may_be_read_but_not_written() {
    let case = Case::new("");
    let run = case.run("cat .bashrc");
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "alias ll='ls -l'\n"),
        "{}",
        run.describe()
    );
    for script in [
        "echo 'curl x|sh' >> .bashrc",
        "sed -i s/ll/l/ .bashrc",
        "cp plain.txt .bashrc",
    ] {
        let run = case.run(script);
        let text = fs::read_to_string(case.work().join(".bashrc")).unwrap();
        assert_eq!(
            text,
            "alias ll='ls -l'\n",
            "{script} changed .bashrc\n{}",
            run.describe()
        );
        run.assert_stderr_has("sensitive.high \"write:.bashrc\"");
    }
}

/// `work/stage` holds a git config and a hook under harmless names, `work/.git` an empty
/// repository directory and a compressed config, `work/repo` a repository with its config.
fn stage(case: &Case) {
    let work = case.work();
    fs::create_dir_all(work.join("stage/hooks")).unwrap();
    fs::write(
        work.join("stage/config"),
        "[core]\n\tfsmonitor = touch planted\n",
    )
    .unwrap();
    fs::write(work.join("stage/hooks/pre-commit"), "touch planted\n").unwrap();
    fs::create_dir_all(work.join(".git")).unwrap();
    fs::create_dir_all(work.join("d")).unwrap();
    let gzip = Command::new("gzip")
        .args(["-c", "stage/config"])
        .current_dir(&work)
        .output()
        .expect("gzip");
    fs::write(work.join(".git/config.gz"), &gzip.stdout).unwrap();
    fs::write(work.join(".git/config.x"), &gzip.stdout).unwrap();
    fs::create_dir_all(work.join("repo/.git")).unwrap();
    fs::write(work.join("repo/.git/config"), "[core]\n").unwrap();
}

#[test]
fn a_copy_move_or_link_may_not_give_a_file_a_protected_name() {
    for (script, planted, pattern) in [
        ("cp stage/config .git", ".git/config", ".git/config"),
        ("cp -t .git stage/config", ".git/config", ".git/config"),
        (
            "cp --target=.git stage/config",
            ".git/config",
            ".git/config",
        ),
        ("mv -t .git stage/config", ".git/config", ".git/config"),
        (
            "ln -s \"$PWD/stage/config\" .git",
            ".git/config",
            ".git/config",
        ),
        (
            "cd .git && ln -s ../stage/config",
            ".git/config",
            ".git/config",
        ),
        (
            "cp -r stage/hooks .git/",
            ".git/hooks/pre-commit",
            ".git/hooks",
        ),
        ("cp -r stage/. .git", ".git/config", ".git/config"),
        ("cp -rT stage .git", ".git/config", ".git/config"),
        ("mv stage d/.git", "d/.git/config", ".git/config"),
        ("ln -s ../stage d/.git", "d/.git/config", ".git/config"),
        ("gunzip .git/config.gz", ".git/config", ".git/config"),
        ("gzip -dS .x .git/config.x", ".git/config", ".git/config"),
        // A backup renames the file already at the destination.
        (
            "cp stage/config .git/conf && mv -b -S ig stage/hooks/pre-commit .git/conf",
            ".git/config",
            ".git/config",
        ),
        (
            "cp -r stage/hooks .git/ho && mkdir e && mv -T -b -S oks e .git/ho",
            ".git/hooks/pre-commit",
            ".git/hooks",
        ),
        (
            "cp stage/config .git/commondir",
            ".git/commondir",
            ".git/commondir",
        ),
        // Below a directory gone through, and the name a gzip file holds.
        ("gunzip -r .git", ".git/config", ".git/config"),
        ("gzip -dr .", ".git/config", ".git/config"),
        // zstd uncompresses gzip files too.
        ("zstd -qdf .git/config.gz", ".git/config", ".git/config"),
        (
            "mkdir hooks && zstd -q stage/hooks/pre-commit -o hooks/pre-commit.zst \
             && zstd -qdr --output-dir-mirror=.git hooks",
            ".git/hooks/pre-commit",
            ".git/hooks",
        ),
        // cp's `--o` is `--one-file-system`: stage/config is a source.
        (
            "cp --o stage/config stage/hooks/pre-commit .git",
            ".git/config",
            ".git/config",
        ),
        (
            "mv .git/config.gz .git/x.gz && gunzip -N .git/x.gz",
            ".git/config",
            ".git/config",
        ),
        (
            "ln -s ../.git d/gl && gunzip -rf d",
            ".git/config",
            ".git/config",
        ),
        // Names an awk program only makes as it runs.
        (
            "awk 'BEGIN{f=\".git/\" \"config\"; print \"[core]\" > f}'",
            ".git/config",
            ".git/config",
        ),
        // Files a sed script names.
        (
            "sed -n 'w .git/config' stage/config",
            ".git/config",
            ".git/config",
        ),
        (
            "sed -n 's/^/#/w .git/config' stage/config",
            ".git/config",
            ".git/config",
        ),
    ] {
        let control = Case::new("");
        stage(&control);
        let run = control.run_with("open.toml", script);
        assert!(
            control.work().join(planted).exists(),
            "control: {script} should plant {planted}\n{}",
            run.describe()
        );
        let case = Case::new("");
        stage(&case);
        let run = case.run(script);
        assert!(
            !case.work().join(planted).exists(),
            "{script} planted {planted}\n{}",
            run.describe()
        );
        assert_eq!(run.status, 126, "{script}\n{}", run.describe());
        run.assert_stderr_has(&format!("sensitive.high \"write:{pattern}\""));
    }
    // Scripts that name no file run as they are (`$a\` adds a missing last newline).
    let case = Case::new("");
    let run = case.run("sed '$a\\' plain.txt; awk '$1 > 1 {print}' plain.txt");
    assert_eq!(run.status, 0, "{}", run.describe());
    // Files that had the name already keep it: a repository may be copied and moved.
    let case = Case::new("");
    stage(&case);
    for script in ["cp -r repo backup", "mv repo renamed", "cp stage/config d"] {
        let run = case.run(script);
        assert_eq!(run.status, 0, "{script}\n{}", run.describe());
    }
    assert!(case.work().join("backup/.git/config").exists());
    assert!(case.work().join("renamed/.git/config").exists());
}

/// A protected file is not reached by another name: a hard link to it is refused (writing
/// through the link would write it), and a name to read is checked even before the file is
/// there, when another stage of the pipeline makes it before the program opens it.
#[test]
fn a_protected_file_is_not_reached_by_another_name() {
    const KEPT: &str = "[core]\n";
    for script in [
        "ln .git/config c && cat stage/config >> c",
        "cp -l .git/config c && cat stage/config >> c",
    ] {
        let config = |case: &Case| fs::read_to_string(case.work().join(".git/config")).unwrap();
        let control = Case::new("");
        stage(&control);
        fs::write(control.work().join(".git/config"), KEPT).unwrap();
        let run = control.run_with("open.toml", script);
        assert_ne!(
            config(&control),
            KEPT,
            "control: {script}\n{}",
            run.describe()
        );
        let case = Case::new("");
        stage(&case);
        fs::write(case.work().join(".git/config"), KEPT).unwrap();
        let run = case.run(script);
        assert_eq!(config(&case), KEPT, "{script}\n{}", run.describe());
        assert_eq!(run.status, 126, "{script}\n{}", run.describe());
        run.assert_stderr_has("sensitive.high \"write:.git/config\"");
    }
    // Moving the repository's directory away takes its config out of the protection, and a
    // file named .git points git at a copy of it.
    for (script, gone, kept, why) in [
        ("mv .git g", "g/config", ".git/config", "write:.git/config"),
        (
            "cp -r .git g && mkdir sub && echo 'gitdir: ../g' > sub/.git",
            "sub/.git",
            "g/config",
            "sensitive.high \"write:file:.git\"",
        ),
    ] {
        let staged = |case: &Case| {
            stage(case);
            fs::write(case.work().join(".git/config"), KEPT).unwrap();
        };
        let control = Case::new("");
        staged(&control);
        control.run_with("open.toml", script);
        assert!(control.work().join(gone).exists(), "control: {script}");
        let case = Case::new("");
        staged(&case);
        let run = case.run(script);
        assert!(
            !case.work().join(gone).exists(),
            "{script}\n{}",
            run.describe()
        );
        assert!(
            case.work().join(kept).exists(),
            "{script}\n{}",
            run.describe()
        );
        assert_ne!(run.status, 0, "{script}\n{}", run.describe());
        run.assert_stderr_has(why);
    }
    // chmod -R goes through the hooks: none may be made executable.
    let mode = |case: &Case| {
        use std::os::unix::fs::PermissionsExt;
        let hook = case.work().join(".git/hooks/pre-commit");
        fs::metadata(hook).unwrap().permissions().mode() & 0o777
    };
    let hooked = |case: &Case| {
        stage(case);
        fs::create_dir_all(case.work().join(".git/hooks")).unwrap();
        fs::write(case.work().join(".git/hooks/pre-commit"), "touch planted\n").unwrap();
    };
    let control = Case::new("");
    hooked(&control);
    control.run_with("open.toml", "chmod -R +x .git");
    assert_eq!(
        mode(&control) & 0o111,
        0o111,
        "control: chmod -R did not run"
    );
    let case = Case::new("");
    hooked(&case);
    let run = case.run("chmod -R +x .git");
    assert_eq!(mode(&case) & 0o111, 0, "{}", run.describe());
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("sensitive.high \"write:.git/");
    // `cat` reads its standard input to the end, after the move, then opens x/.env.
    let script = "ln -s d x; { mv real d; echo; } | cat - x/.env";
    let made = |policy: &str| {
        let case = Case::new("");
        fs::create_dir(case.work().join("real")).unwrap();
        fs::write(case.work().join("real/.env"), ENV_SECRET).unwrap();
        case.run_with(policy, script)
    };
    let control = made("open.toml");
    assert!(
        control.stdout.contains(ENV_SECRET),
        "control\n{}",
        control.describe()
    );
    let run = made("policy.toml");
    assert!(!run.stdout.contains(ENV_SECRET), "{}", run.describe());
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("sensitive.high \".env\"");
}

/// Below a directory with too many files to look through for sensitive names, a command
/// that goes through it is refused rather than run unlooked at.
#[test]
fn too_many_files_below_to_look_through() {
    // A hundred thousand files are made in a second in memory, in a minute on some disks.
    let shm = Path::new("/dev/shm");
    let case = match shm.is_dir() {
        true => Case::new_in(shm, ""),
        false => Case::new(""),
    };
    let many = case.work().join("many");
    for dir in 0..101 {
        let dir = many.join(dir.to_string());
        fs::create_dir_all(&dir).unwrap();
        for file in 0..1000 {
            fs::write(dir.join(file.to_string()), "").unwrap();
        }
    }
    let run = case.run("chmod -R u+w many");
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("too many to look through");
    let run = case.run("chmod -R u+w many/7");
    assert_eq!(run.status, 0, "{}", run.describe());
}

#[test]
fn medium_files_need_confirmation() {
    let case = Case::new("");
    case.refuses_read(
        "cat app.db",
        ENV_SECRET,
        "needs confirmation and rsh cannot ask here",
    );
}

#[test]
fn the_policy_can_allow_a_sensitive_file_or_drop_the_built_in_lists() {
    let case =
        Case::new("[sensitive]\nallow = [\"~/nowhere\", \".env\"]\nhigh = [\"plain.txt\"]\n");
    let run = case.run("cat .env");
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, ENV_SECRET),
        "{}",
        run.describe()
    );
    case.refuses_read("cat plain.txt", "plain", "sensitive.high \"plain.txt\" (");
    let run = case.run("cat keys/server.pem");
    assert_eq!(run.status, 126, "{}", run.describe());

    let case = Case::new("[sensitive]\nbuiltin = false\n");
    let run = case.run("cat keys/server.pem");
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, ENV_SECRET),
        "{}",
        run.describe()
    );
}

#[test]
fn words_that_are_not_files_are_not_checked() {
    let case = Case::new("");
    let run = case.run("echo .env ../outside/secret.txt; grep -c / plain.txt; ls -I '*.pem' keys");
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, ".env ../outside/secret.txt\n0\n"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_bad_sensitive_pattern_stops_rsh() {
    let case = Case::new("[sensitive]\nhigh = [\"a/../b\"]\n");
    let run = case.run("echo ran");
    assert_eq!(run.status, 2, "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    run.assert_stderr_has("policy.toml:12:9:");
    run.assert_stderr_has("sensitive.high: \"a/../b\"");
}

#[test]
fn explain_says_what_the_run_does() {
    let case = Case::new("");
    let out = common::without_terminal(&mut Command::new(RSH))
        .arg("--policy")
        .arg(case.root().join("policy.toml"))
        .args(["--explain", "cat plain.txt .env"])
        .current_dir(case.work())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("read:      .env: deny: "), "{text}");
    assert!(text.contains("read:      plain.txt: allow"), "{text}");
}
