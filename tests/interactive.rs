//! The interactive shell as a person meets it on a terminal: line editing and history recall,
//! Tab completion of what the policy allows (and nothing else), the history file, Ctrl-C at
//! the prompt and in a command, a full-screen program getting the terminal and giving it
//! back, the idle timeout, a login's message of the day, `help` and `logout`. rsh runs on a
//! real pseudo-terminal with a terminal type that has line editing.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

mod common;

use common::processes_with_arg;
use common::pty::Pty;
use std::time::Instant;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const WAIT: Duration = Duration::from_secs(10);
const PROMPT: &str = "rsh-test> ";
/// What the shell says of a kept `python3` job the watch ended because it ran while stopped.
const PYTHON_RAN_WHILE_STOPPED: &str =
    "rsh: python3: ran while stopped, not continued by fg; ended\r\n";

struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    /// A policy allowing a few commands, with `extra` added to its `[shell]` table.
    fn new(extra: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir(root.join("work")).unwrap();
        fs::write(root.join("work/public.txt"), "public text\n").unwrap();
        fs::write(root.join("work/secret.txt"), "secret text\n").unwrap();
        let policy = format!(
            r#"[shell]
path = ["/usr/bin", "/bin"]
prompt = "{PROMPT}"
history = "{history}"
{extra}

[commands]
allow = ["ls", "cat", "echo", "sleep", "less", "python3", "timeout"]
deny = ["shift"]

[commands.cat]
description = "Show a file"
default = "allow"

[paths]
read = ["/"]
write = ["{work}"]
deny = ["{secret}"]
"#,
            history = root.join("history").display(),
            work = root.join("work").display(),
            secret = root.join("work/secret.txt").display(),
        );
        fs::write(root.join("policy.toml"), policy).unwrap();
        Case { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn history(&self) -> String {
        fs::read_to_string(self.root().join("history")).unwrap_or_default()
    }

    /// rsh with this case's policy, started in `dir` with a terminal type of `term`.
    fn command(&self, term: &str, dir: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(RSH);
        command
            .arg("--policy")
            .arg(self.root().join("policy.toml"))
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("TERM", term)
            .env("HOME", self.root().join("work"))
            .env("PATH", "/usr/bin:/bin");
        command
    }

    /// As `new`, with the audit records in a file of the case (see `records_of`).
    fn audited(extra: &str) -> Case {
        let case = Case::new(extra);
        let path = case.root().join("policy.toml");
        let mut policy = fs::read_to_string(&path).unwrap();
        let log = case.root().join("audit.jsonl");
        policy.push_str(&format!(
            "\n[audit]\nsyslog = false\nfallback = {:?}\n",
            log.display().to_string()
        ));
        fs::write(&path, policy).unwrap();
        case
    }

    /// The audit records of the commands run as `program`.
    fn records_of(&self, program: &str) -> Vec<serde_json::Value> {
        fs::read_to_string(self.root().join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["argv"][0] == program)
            .collect()
    }

    /// Writes a file into the working directory.
    fn write(&self, name: &str, text: &str) {
        fs::write(self.root().join("work").join(name), text).unwrap();
    }

    /// rsh on a terminal that echoes, as a terminal emulator or `ssh -t` gives it.
    fn start(&self, args: &[&str]) -> Pty {
        let command = self.command("xterm", &self.root().join("work"), args);
        let mut pty = Pty::spawn(command, true);
        pty.expect(PROMPT, WAIT);
        pty
    }
}

/// Sends a line as typed (Enter is a carriage return on a terminal) and waits for `output`.
fn type_line(pty: &mut Pty, keys: &str, output: &str) -> String {
    pty.send(&format!("{keys}\r"));
    let seen = pty.expect(output, WAIT);
    pty.expect(PROMPT, WAIT);
    seen
}

#[test]
fn lines_are_edited_and_recalled() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    type_line(&mut pty, "echo first", "first\r\n");
    // Ctrl-A to the start of the line, then the missing letter.
    type_line(&mut pty, "cho edited\x01e", "edited\r\n");
    // Up arrow twice: the line before last, run again.
    type_line(&mut pty, "\x1b[A\x1b[A", "first\r\n");
    let seen = type_line(&mut pty, "history; echo $((40 + 2))", "42\r\n");
    assert!(seen.contains("    1  echo first\r\n    2  echo edited\r\n    3  echo first\r\n    4  history; echo $((40 + 2))\r\n"), "{seen:?}");
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn an_unfinished_command_continues_on_the_next_line() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    pty.send("for i in 1 2; do\r");
    pty.expect("> ", WAIT);
    pty.send("echo \"n$i\"\r");
    pty.expect("> ", WAIT);
    type_line(&mut pty, "done", "n1\r\nn2\r\n");
    pty.send("echo 'open\r");
    pty.expect("> ", WAIT);
    type_line(&mut pty, "quote'", "open\r\nquote\r\n");
    pty.send("cat <<EOF\r");
    pty.expect("> ", WAIT);
    pty.send("here\r");
    pty.expect("> ", WAIT);
    type_line(&mut pty, "EOF", "here\r\n");
    // Each whole command is one history entry.
    let seen = type_line(&mut pty, "history; echo $((40 + 2))", "42\r\n");
    for entry in [
        "    1  for i in 1 2; do\r\n",
        "    2  echo 'open\r\n",
        "    3  cat <<EOF\r\n",
    ] {
        assert!(seen.contains(entry), "{entry:?} in {seen:?}");
    }
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn tab_completes_only_allowed_commands() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    // `ca` + Tab: cat is allowed, so the line becomes `cat `.
    type_line(&mut pty, "ca\tpub\t", "public text\r\n");
    // `s` + Tab twice lists what starts with s: builtins and sleep, not sh, sed or sort.
    pty.send("s\t\t");
    let listing = pty.expect("source", WAIT);
    assert!(listing.contains("sleep"), "{listing:?}");
    pty.send("\x15");
    type_line(&mut pty, "echo listed", "listed\r\n");
    for refused in [" sh ", " sed ", " sort ", " shred "] {
        assert!(
            !listing.contains(refused),
            "{refused:?} offered: {listing:?}"
        );
    }
    // Builtins are offered, except those the policy denies.
    assert!(
        listing.contains("shopt") && !listing.contains("shift"),
        "{listing:?}"
    );
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn tab_does_not_offer_denied_files() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    // Only secret.txt starts with `sec`: denied, it is not completed.
    pty.send("ls sec\t\t");
    std::thread::sleep(Duration::from_millis(300));
    pty.send(" ; echo done\r");
    let seen = pty.expect("done\r\n", WAIT);
    assert!(!seen.contains("secret.txt"), "{seen:?}");
    // The public file is.
    type_line(&mut pty, "ls pu\t", "public.txt\r\n");
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn history_file_keeps_lines_that_ran() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    type_line(&mut pty, "echo kept", "kept\r\n");
    type_line(&mut pty, " echo private", "private\r\n");
    type_line(&mut pty, "sh -c id", "rsh: denied: sh -c id");
    type_line(&mut pty, "cat secret.txt", "denied");
    // Refused in a pipeline stage, which is another process.
    type_line(&mut pty, "echo x | sh -c id", "rsh: denied: sh -c id");
    // `exit` keeps the status of the refused command.
    assert_eq!(pty.exit(), Some(126));
    assert_eq!(case.history(), "echo kept\nexit\n");
    // The next session recalls them.
    let mut pty = case.start(&[]);
    type_line(&mut pty, "\x1b[A\x1b[A", "kept\r\n");
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn history_file_can_be_turned_off() {
    let case = Case::new("history_size = 0");
    let mut pty = case.start(&[]);
    type_line(&mut pty, "echo one", "one\r\n");
    let seen = type_line(&mut pty, "history; echo $((40 + 2))", "42\r\n");
    assert!(!seen.contains("echo one"), "{seen:?}");
    assert_eq!(pty.exit(), Some(0));
    assert!(!case.root().join("history").exists());
}

#[test]
fn ctrl_c_clears_the_line_and_ends_the_command_not_the_shell() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    pty.send("echo never");
    std::thread::sleep(Duration::from_millis(200));
    pty.send("\x03");
    // What is typed in the same instant as Ctrl-C is dropped with the line.
    std::thread::sleep(Duration::from_millis(200));
    let seen = type_line(&mut pty, "echo status $?", "status 130\r\n");
    assert!(!seen.contains("never\r\n"), "{seen:?}");
    pty.send("sleep 30\r");
    std::thread::sleep(Duration::from_millis(500));
    pty.send("\x03");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo after $?", "after 130\r\n");
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn a_full_screen_program_gets_the_terminal_and_gives_it_back() {
    if !Path::new("/usr/bin/less").exists() {
        eprintln!("SKIPPED: /usr/bin/less is not installed");
        return;
    }
    let case = Case::new("");
    let mut pty = case.start(&[]);
    pty.send("less public.txt\r");
    pty.expect("public text", WAIT);
    pty.send("q");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo back $?", "back 0\r\n");
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn idle_timeout_ends_the_session() {
    let case = Case::new("idle_timeout = 1");
    let mut pty = case.start(&[]);
    // /dev/null and the terminal stay everyone's, though rsh keeps them open for the timeout.
    type_line(&mut pty, "echo > /dev/null; echo active", "active\r\n");
    // Half a line typed, then nothing.
    pty.send("ech");
    let (status, seen) = pty.wait();
    assert!(
        seen.contains("no command line in 1 s (shell.idle_timeout): the session ends"),
        "{seen:?}"
    );
    assert!(status.is_some(), "{seen:?}");
}

#[test]
fn a_login_shows_the_message_of_the_day_and_may_log_out() {
    let case = Case::new("motd = \"Authorised use only.\"");
    let command = case.command("xterm", Path::new("/"), &["-l"]);
    let mut pty = Pty::spawn(command, true);
    let greeting = pty.expect(PROMPT, WAIT);
    assert!(greeting.contains("Authorised use only."), "{greeting:?}");
    // A login starts in the home directory.
    let work = case.root().join("work").display().to_string();
    type_line(&mut pty, "pwd", &format!("{work}\r\n"));
    pty.send("logout\r");
    let (status, seen) = pty.wait();
    assert_eq!(status, Some(0), "{seen:?}");
    // Not a login: no message, and logout says to use exit.
    let mut pty = case.start(&[]);
    type_line(&mut pty, "logout", "not login shell: use `exit'");
    // `exit` keeps the status of the failed logout.
    assert_eq!(pty.exit(), Some(1));
    // `rsh -lc` runs the command without greeting (scp and rsync read that output).
    let out = common::run_rsh(
        &case.root().join("policy.toml"),
        &case.root(),
        &["-lc", "echo quiet"],
    );
    assert_eq!(out.stdout, "quiet\n", "{}", out.describe());
}

#[test]
fn help_lists_what_the_policy_allows() {
    let case = Case::new("");
    let out = common::run_rsh(
        &case.root().join("policy.toml"),
        &case.root(),
        &["-c", "help"],
    );
    assert_eq!(out.status, 0, "{}", out.describe());
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("  cat ") && l.ends_with(" Show a file")),
        "{}",
        out.describe()
    );
    out.assert_stdout_has("You may run:");
    assert!(!out.stdout.contains(" sh "), "{}", out.describe());
    out.assert_stdout_has("Commands not named here are refused");
    let out = common::run_rsh(
        &case.root().join("policy.toml"),
        &case.root(),
        &["-c", "help sh -c id"],
    );
    out.assert_stdout_has("decision:  deny");
}

#[test]
fn a_terminal_without_editing_gets_plain_prompts() {
    let case = Case::new("");
    let mut pty = Pty::spawn(case.command("dumb", &case.root(), &[]), true);
    let first = pty.expect(PROMPT, WAIT);
    pty.send_line("echo plain");
    let seen = pty.expect("plain\r\n", WAIT);
    assert!(
        !first.contains('\x1b') && !seen.contains('\x1b'),
        "{first:?} {seen:?}"
    );
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn idle_timeout_drops_a_half_typed_line_without_editing() {
    let case = Case::new("idle_timeout = 1");
    let mut pty = Pty::spawn(case.command("dumb", &case.root(), &[]), true);
    pty.expect(PROMPT, WAIT);
    // Ctrl-D hands the half line to rsh without a line break; then nothing more comes.
    pty.send("echo PARTIAL\x04");
    let (status, seen) = pty.wait();
    assert!(seen.contains("no command line in 1 s"), "{seen:?}");
    // Only the terminal's echo of what was typed: the line did not run.
    assert_eq!(
        seen.matches("PARTIAL").count(),
        1,
        "the half line ran: {seen:?}"
    );
    assert!(status.is_some());
}

/// Waits (up to `WAIT`) for `done`; fails saying `what` did not happen.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + WAIT;
    while !done() {
        assert!(std::time::Instant::now() < deadline, "not so: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_hang_up_ends_the_shell_and_its_running_command() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    // A duration no other test uses, to find the process by.
    let marker = format!("1000.{}", std::process::id());
    pty.send(&format!("sleep {marker}\r"));
    wait_until("sleep started", || !processes_with_arg(&marker).is_empty());
    pty.hang_up();
    assert!(
        pty.ended_within(WAIT).is_some(),
        "rsh outlived its terminal"
    );
    wait_until("the command ended with the terminal", || {
        processes_with_arg(&marker).is_empty()
    });
}

#[test]
fn a_program_killed_in_raw_mode_does_not_leave_the_terminal_so() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    // Raw mode (no output processing: a line break without a carriage return), then death.
    pty.send(
        "python3 -c 'import tty, os, signal; tty.setraw(0); os.kill(os.getpid(), signal.SIGKILL)'\r",
    );
    pty.expect("Killed", WAIT);
    pty.expect(PROMPT, WAIT);
    // A line typed now is echoed and answered as on a terminal in its normal mode.
    pty.send("echo $((6 * 7))\r");
    pty.expect("42\r\n", WAIT);
    pty.expect(PROMPT, WAIT);
    assert_eq!(pty.exit(), Some(0));
}

#[test]
fn ctrl_c_ends_a_subshell_with_its_command() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    // As in bash: the rest of the subshell does not run.
    pty.send("(sleep 30; echo not-reached)\r");
    std::thread::sleep(Duration::from_millis(500));
    pty.send("\x03");
    let seen = pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo status $?", "status 130\r\n");
    assert!(!seen.contains("not-reached\r\n"), "{seen:?}");
    assert_eq!(pty.exit(), Some(0));
}

/// As in bash, Ctrl-C that ends the command holding the terminal abandons the rest of the
/// line: a loop stops, and what comes after `;` or `||` does not run.
#[test]
fn ctrl_c_abandons_the_rest_of_the_line() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    for line in [
        "for i in 1 2 3; do sleep 30; echo not-reached$i; done; echo not-reached",
        "sleep 30 || echo not-reached; echo not-reached",
        // A subshell and a command substitution share the shell's group: Ctrl-C ends them
        // and the line as well.
        "(sleep 30; echo not-reached); echo not-reached",
        "x=$(sleep 30); echo not-reached",
    ] {
        ctrl_c_abandons(&mut pty, line);
    }
    // A program that takes Ctrl-C itself and ends normally lets the line go on.
    pty.send(
        "python3 -c 'import signal, sys, time; \
         signal.signal(signal.SIGINT, lambda *_: sys.exit(0)); time.sleep(30)'; \
         echo went-on\r",
    );
    std::thread::sleep(Duration::from_millis(800));
    pty.send("\x03");
    pty.expect("went-on\r\n", WAIT);
    // SIGINT that the command's own `timeout` sent is no Ctrl-C: the program ends with 124
    // and the line goes on, in the shell and in a subshell.
    type_line(
        &mut pty,
        "timeout -s INT 1 sleep 30; echo went-on $?",
        "went-on 124\r\n",
    );
    type_line(
        &mut pty,
        "(timeout -s INT 1 sleep 30; echo inner $?); echo outer $?",
        "inner 124\r\nouter 0\r\n",
    );
    assert_eq!(pty.exit(), Some(0));
}

/// Ctrl-C while the shell runs its own builtins (a loop, `read`), in itself or in a forked copy
/// of it, abandons the line as in bash; those once ran on, and `while :; do :; done` could not
/// be stopped at all. So does Ctrl-C that ends a subshell whose pipeline stage waits for it.
#[test]
fn ctrl_c_interrupts_the_shells_own_loops() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    for line in [
        "while :; do :; done; echo not-reached",
        "for ((;;)); do x=1; done; echo not-reached",
        "(while :; do :; done; echo not-reached); echo not-reached",
        "x=$(while :; do :; done); echo not-reached",
        "{ while :; do :; done; echo not-reached; } | cat; echo not-reached",
        "echo | (sleep 30; echo not-reached); echo not-reached",
        "read x; echo not-reached",
        "(read x; echo not-reached); echo not-reached",
    ] {
        ctrl_c_abandons(&mut pty, line);
    }
    // The next line runs whole: the Ctrl-C was for the line before, and so was the one the
    // shell noted with a subshell's (PROMPT_COMMAND runs).
    type_line(&mut pty, "echo a; echo b", "a\r\nb\r\n");
    type_line(&mut pty, "PROMPT_COMMAND='echo pc-ran'", "pc-ran\r\n");
    pty.send("(while :; do :; done)\r");
    std::thread::sleep(Duration::from_millis(500));
    pty.send("\x03");
    pty.expect("pc-ran\r\n", WAIT);
    pty.expect(PROMPT, WAIT);
    // `read` from a descriptor open only to write fails at once rather than wait.
    type_line(&mut pty, "read -u 1 x | cat; echo st=$?", "st=0\r\n");
    assert_eq!(pty.exit(), Some(0));
}

/// SIGINT sent to an interactive rsh without a terminal (an agent's interrupt, sent to its
/// process group) ends the command, which rsh passes it on to, and abandons the line, as
/// Ctrl-C does; the line once went on after the command.
#[test]
fn sigint_to_an_interactive_shell_without_a_terminal_abandons_the_line() {
    use std::io::Write;
    use std::process::Stdio;
    let case = Case::new("");
    let mut command = case.command("dumb", &case.root().join("work"), &["-i"]);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = common::without_terminal(&mut command).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"for i in 1 2 3; do sleep 2; echo not-reached$i; done; echo not-reached\n")
        .unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    // SAFETY: a signal to the group of the child started above, which leads it.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(300));
    stdin.write_all(b"echo status $?\nexit\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("status 130\n"), "{stdout:?}");
    assert!(!stdout.contains("not-reached"), "{stdout:?}");
}

/// Types `line`, then Ctrl-C half a second later: the prompt comes back with `$?` 130, and
/// nothing printed `not-reached` at the start of a line (the line typed holds the words too).
fn ctrl_c_abandons(pty: &mut Pty, line: &str) {
    pty.send(&format!("{line}\r"));
    std::thread::sleep(Duration::from_millis(500));
    pty.send("\x03");
    let seen = pty.expect(PROMPT, WAIT);
    assert!(!seen.contains("\nnot-reached"), "{line}: {seen:?}");
    type_line(pty, "echo status $?", "status 130\r\n");
}

/// `rsh -c` on a terminal (a script run from an interactive shell): as in bash, Ctrl-C that
/// ends the command running ends the script too, by SIGINT, whether the command runs in the
/// shell itself, in a subshell or in a command substitution (those once went on with the
/// rest of the script, status 130). A program that takes Ctrl-C and ends normally lets it go
/// on.
#[test]
fn ctrl_c_ends_a_script_on_a_terminal_wherever_its_command_runs() {
    use std::os::unix::process::ExitStatusExt;
    let case = Case::new("");
    let work = case.root().join("work");
    let handles = "python3 -c 'import signal, sys, time; \
         signal.signal(signal.SIGINT, lambda *_: sys.exit(0)); time.sleep(30)'";
    for (line, ends) in [
        ("sleep 30; echo not-reached".to_string(), true),
        ("(sleep 30); echo not-reached".to_string(), true),
        ("x=$(sleep 30); echo not-reached".to_string(), true),
        (
            "( (sleep 30); echo not-reached); echo not-reached".to_string(),
            true,
        ),
        (
            "echo $(echo $(sleep 30)); echo not-reached".to_string(),
            true,
        ),
        ("(sleep 30) | cat; echo not-reached".to_string(), true),
        (format!("{handles}; echo went-on"), false),
        (format!("({handles}); echo went-on"), false),
    ] {
        let mut pty = Pty::spawn(case.command("xterm", &work, &["-c", &line]), true);
        std::thread::sleep(Duration::from_millis(800));
        pty.send("\x03");
        let status = pty.ended_within(WAIT).expect("the script ended");
        let (_, seen) = pty.wait();
        if ends {
            assert_eq!(status.signal(), Some(libc::SIGINT), "{line}: {seen:?}");
            assert!(!seen.contains("not-reached"), "{line}: {seen:?}");
        } else {
            assert_eq!(status.code(), Some(0), "{line}: {seen:?}");
            assert!(seen.contains("went-on"), "{line}: {seen:?}");
        }
    }
}

/// SIGINT that some process sends a subshell (no Ctrl-C) ends only the subshell: the script
/// goes on, as in bash, terminal or not.
#[test]
fn sigint_sent_to_a_subshell_ends_only_the_subshell() {
    let case = Case::new("");
    let work = case.root().join("work");
    let line = "(sleep 3; echo not-reached); echo went-on";
    let mut rsh = case.command("xterm", &work, &["-c", line]);
    let child = rsh
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let shell = child.id();
    let children = format!("/proc/{shell}/task/{shell}/children");
    let mut copy = None;
    wait_until("the subshell started", || {
        copy = fs::read_to_string(&children)
            .ok()
            .and_then(|c| c.split_whitespace().next()?.parse::<i32>().ok());
        copy.is_some()
    });
    // The copy's own program starts too, so that the copy is waiting for it.
    std::thread::sleep(Duration::from_millis(300));
    signal(copy.unwrap(), libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout, "went-on\n");
}

/// Ctrl-C that ends a command substitution abandons the command whose words it was in, as
/// in bash: the command does not run with the substitution cut short.
#[test]
fn ctrl_c_in_a_command_substitution_stops_its_command() {
    let case = Case::new("");
    let fifo = case.root().join("work/fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut pty = case.start(&[]);
    for (line, ran) in [
        ("cat public.txt$(sleep 30)", "public text"),
        ("cat public.txt$(< fifo)", "public text"),
        ("for i in $(sleep 30) x; do echo ran\"\"$i; done", "ranx"),
        ("echo x > made$(sleep 30)", ""),
        // In a forked copy of the shell too, which ends by it for the shell to abandon its
        // line as well.
        ("(cat public.txt$(sleep 30)); echo ran\"\"-on", "ran-on"),
        ("cat public.txt$(sleep 30) | cat", "public text"),
        ("echo $(cat public.txt$(sleep 30))", "public text"),
    ] {
        pty.send(&format!("{line}\r"));
        std::thread::sleep(Duration::from_millis(500));
        pty.send("\x03");
        let seen = pty.expect(PROMPT, WAIT);
        assert!(ran.is_empty() || !seen.contains(ran), "{line}: {seen:?}");
        type_line(&mut pty, "echo status $?", "status 130\r\n");
    }
    assert!(!case.root().join("work/made").exists());
    // Ctrl-C that ends a prompt's substitution abandons only the prompt's text.
    pty.send(&format!("PS1='$(sleep 2){PROMPT}'\r"));
    std::thread::sleep(Duration::from_millis(700));
    pty.send("\x03");
    pty.expect(PROMPT, WAIT);
    pty.send(&format!("PS1='{PROMPT}'; echo a; echo b\r"));
    pty.expect("a\r\nb\r\n", WAIT);
    pty.expect(PROMPT, WAIT);
    // In PS0's, shown before the line runs, it abandons the line, as in bash.
    type_line(&mut pty, "PS0='$(sleep 2)'", "");
    pty.send("echo one; echo two\r");
    std::thread::sleep(Duration::from_millis(700));
    pty.send("\x03");
    let seen = pty.expect(PROMPT, WAIT);
    assert!(!seen.contains("\r\none\r\n"), "{seen:?}");
    type_line(&mut pty, "echo status $?", "status 130\r\n");
    type_line(&mut pty, "PS0=", "");
    assert_eq!(pty.exit(), Some(0));
}

/// A redirection from a FIFO that nothing writes to waits in rsh itself, before any program
/// starts: Ctrl-C ends that wait as it ends a program (status 130, the rest of the line
/// abandoned), and the shell goes on. Ctrl-C at the prompt afterwards is ignored again.
#[test]
fn ctrl_c_ends_a_wait_for_a_fifo() {
    let case = Case::new("");
    let fifo = case.root().join("work/fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut pty = case.start(&[]);
    pty.send("cat < fifo; echo not-reached\r");
    std::thread::sleep(Duration::from_millis(500));
    pty.send("\x03");
    let seen = pty.expect(PROMPT, WAIT);
    assert!(!seen.contains("\nnot-reached"), "{seen:?}");
    assert!(seen.contains("fifo: interrupted"), "{seen:?}");
    type_line(&mut pty, "echo status $?", "status 130\r\n");
    pty.send("\x03");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo alive", "alive\r\n");
    assert_eq!(pty.exit(), Some(0));
}

// ---------------------------------------------------------------------------------------------
// Job control: Ctrl-Z keeps a job stopped, `jobs` and `fg`; a kept job stays stopped
// ---------------------------------------------------------------------------------------------

/// An argument no other test uses, to find a process by (`kind` tells the tests apart).
fn marker(kind: u32) -> String {
    format!("{kind}.{}", std::process::id())
}

/// The state letter of a process in /proc (`T` stopped), None once it is gone.
fn state_of(pid: i32) -> Option<char> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].trim().chars().next()
}

/// The one process with `arg`, once it runs.
fn started(arg: &str) -> i32 {
    wait_until(&format!("{arg} started"), || {
        !processes_with_arg(arg).is_empty()
    });
    processes_with_arg(arg)[0]
}

/// Runs `line`, presses Ctrl-Z once its process (found by `arg`) runs (and has written
/// `ready`, if given), and waits for the prompt after bash's line for the stopped job.
fn stop(pty: &mut Pty, line: &str, arg: &str, number: usize, ready: Option<&str>) -> i32 {
    pty.send(&format!("{line}\r"));
    let pid = started(arg);
    if let Some(ready) = ready {
        pty.expect(ready, WAIT);
    }
    std::thread::sleep(Duration::from_millis(200));
    pty.send("\x1a");
    pty.expect(
        &format!("[{number}]+  Stopped                 {line}\r\n"),
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    pid
}

#[test]
fn ctrl_z_stops_a_command_and_fg_continues_it() {
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let arg = marker(300);
    let pid = stop(&mut pty, &format!("sleep {arg}"), &arg, 1, None);
    type_line(&mut pty, "echo back $?", "back 148\r\n");
    assert_eq!(state_of(pid), Some('T'));
    type_line(
        &mut pty,
        "jobs",
        &format!("[1]+  Stopped                 sleep {arg}\r\n"),
    );
    // fg gives it the terminal again: Ctrl-C now ends it.
    pty.send("fg\r");
    pty.expect(&format!("sleep {arg}\r\n"), WAIT);
    wait_until("sleep continued", || state_of(pid) != Some('T'));
    pty.send("\x03");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo status $?", "status 130\r\n");
    assert!(processes_with_arg(&arg).is_empty());
    let seen = type_line(&mut pty, "jobs; echo none", "none\r\n");
    assert!(!seen.contains("Stopped"), "{seen:?}");
    assert_eq!(pty.exit(), Some(0));
    // One record for the command, completed when it ended, with the signal that ended it.
    let records = case.records_of("sleep");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGINT", "{records:?}");
}

#[test]
fn a_full_screen_program_stops_and_comes_back() {
    if !Path::new("/usr/bin/less").exists() {
        eprintln!("SKIPPED: /usr/bin/less is not installed");
        return;
    }
    let case = Case::new("");
    let mut pty = case.start(&[]);
    pty.send("less public.txt\r");
    pty.expect("public text", WAIT);
    // less handles Ctrl-Z itself (it puts the terminal back and stops itself), once it waits
    // for a key: until then it notes the signal and forgets it.
    pty.expect("(END)", WAIT);
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x1a");
    pty.expect("[1]+  Stopped                 less public.txt\r\n", WAIT);
    pty.expect(PROMPT, WAIT);
    // The shell has the terminal, in its own settings: a line is echoed and run.
    type_line(&mut pty, "echo between $?", "between 148\r\n");
    pty.send("fg\r");
    pty.expect("public text", WAIT);
    pty.send("q");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo back $?", "back 0\r\n");
    assert_eq!(pty.exit(), Some(0));
}

/// A pipeline is one job; it has not ended while any of its processes runs, though its
/// first stage has.
#[test]
fn a_pipeline_whose_first_stage_ended_is_kept_until_all_of_it_ends() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    let arg = marker(301);
    let line = format!("echo hi | sleep {arg}");
    let pid = stop(&mut pty, &line, &arg, 1, None);
    // The prompt is back for good: the job is not taken for ended and waited for.
    type_line(&mut pty, "echo alive", "alive\r\n");
    type_line(&mut pty, "echo again", "again\r\n");
    assert_eq!(state_of(pid), Some('T'));
    type_line(
        &mut pty,
        "jobs",
        &format!("[1]+  Stopped                 {line}\r\n"),
    );
    pty.send("fg %1\r");
    pty.expect(&format!("{line}\r\n"), WAIT);
    wait_until("sleep continued", || state_of(pid) != Some('T'));
    pty.send("\x03");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo status $?", "status 130\r\n");
    wait_until("the pipeline ended", || processes_with_arg(&arg).is_empty());
    assert_eq!(pty.exit(), Some(0));
}

/// A program that stops itself and has a timer continue it would run in the background
/// while the prompt waits: the watch over kept jobs ends it.
#[test]
fn a_kept_job_that_runs_again_without_fg_is_ended() {
    let case = Case::audited("");
    case.write(
        "sneak.py",
        &format!(
            "{CONTINUED_BY_A_TIMER}
# SIGCONT half a second after it stops, and every 10 ms after that.
continue_me(0.5, 0.01)
os.kill(os.getpid(), signal.SIGTSTP)
time.sleep(1.5)
open(sys.argv[1], 'w').write('ran in the background')
"
        ),
    );
    // Made before rsh starts: the policy lets programs write to files in `work`, not create
    // them there (it denies a file in it).
    case.write("canary", "");
    let canary = case.root().join("work/canary");
    let mut pty = case.start(&[]);
    let arg = marker(302);
    pty.send(&format!("python3 sneak.py canary {arg}\r"));
    pty.expect(
        &format!("[1]+  Stopped                 python3 sneak.py canary {arg}\r\n"),
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    // Nothing is typed: the prompt waits, and the job is ended all the same.
    wait_until("the job ended", || processes_with_arg(&arg).is_empty());
    // Past the time it would have written its file in the background.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        fs::read_to_string(&canary).unwrap(),
        "",
        "a kept job ran in the background"
    );
    pty.send("\r");
    pty.expect(PYTHON_RAN_WHILE_STOPPED, WAIT);
    pty.expect(
        &format!("[1]+  Killed                  python3 sneak.py canary {arg}\r\n"),
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    assert_eq!(pty.exit(), Some(148));
    let records = case.records_of("python3");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGKILL", "{records:?}");
}

/// A kept job that a timer continues while another command holds the terminal can change the
/// terminal's settings (it ignores SIGTTOU) before the watch ends it; the command then ends by
/// itself, and the shell would take the change over as that command's (`stty`). It is undone
/// once the job is known to have run.
#[test]
fn a_kept_job_that_ran_does_not_leave_its_terminal_settings() {
    let case = Case::audited("");
    case.write(
        "noecho.py",
        &format!(
            "{CONTINUED_BY_A_TIMER}
import termios
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
continue_me(1.0)
os.kill(os.getpid(), signal.SIGTSTP)
modes = termios.tcgetattr(0)
modes[3] &= ~(termios.ECHO | termios.ICANON)
termios.tcsetattr(0, termios.TCSANOW, modes)
time.sleep(5)
"
        ),
    );
    let mut pty = case.start(&[]);
    let arg = marker(304);
    pty.send(&format!("python3 noecho.py {arg}\r"));
    pty.expect(
        &format!("[1]+  Stopped                 python3 noecho.py {arg}\r\n"),
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    // The job runs (and is ended) while this holds the terminal.
    pty.send("sleep 2\r");
    pty.expect(PYTHON_RAN_WHILE_STOPPED, WAIT);
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, ECHO_CHECK, "echo True\r\n");
}

/// What the user set with a command of their own (`stty -echo`) stays when a kept job runs
/// later, while the prompt waits: only settings taken over from a command during which the
/// job ran are undone.
#[test]
fn a_kept_job_that_ran_at_the_prompt_leaves_the_users_settings() {
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let arg = marker(307);
    stopped_by_itself(&case, &mut pty, 2.0, &arg);
    // The user's own `stty -echo`, taken over by the shell.
    pty.send(
        "python3 -c 'import termios; m = termios.tcgetattr(0); m[3] &= ~termios.ECHO; \
         termios.tcsetattr(0, termios.TCSANOW, m)'\r",
    );
    pty.expect(PROMPT, WAIT);
    wait_until("the job ended", || processes_with_arg(&arg).is_empty());
    pty.send(":\r");
    pty.expect(PYTHON_RAN_WHILE_STOPPED, WAIT);
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, ECHO_CHECK, "echo False\r\n");
}

/// `exit` warns only of jobs still kept: one the watch ended meanwhile is reported, and the
/// shell ends at the first `exit`.
#[test]
fn exit_does_not_warn_of_a_job_the_watch_ended() {
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let arg = marker(305);
    stopped_by_itself(&case, &mut pty, 0.3, &arg);
    wait_until("the job ended", || processes_with_arg(&arg).is_empty());
    pty.send("exit\r");
    let (status, shown) = pty.wait();
    assert!(!shown.contains("There are stopped jobs"), "{shown:?}");
    assert!(
        shown.contains(PYTHON_RAN_WHILE_STOPPED.trim_end()),
        "{shown:?}"
    );
    assert_eq!(status, Some(148), "{shown:?}");
}

/// Under confinement `exec` runs its program as rsh's child and the session ends with it:
/// Ctrl-Z does not keep it (nothing would be left to continue it), it goes on.
#[test]
fn ctrl_z_does_not_stop_what_exec_runs() {
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let arg = marker(306);
    pty.send(&format!("exec sleep {arg}\r"));
    let pid = started(&arg);
    std::thread::sleep(Duration::from_millis(200));
    pty.send("\x1a");
    std::thread::sleep(Duration::from_millis(500));
    assert_ne!(state_of(pid), Some('T'), "the program stopped");
    assert!(pty.ended_within(Duration::ZERO).is_none(), "rsh ended");
    pty.send("\x03");
    let (status, _) = pty.wait();
    assert_eq!(status, Some(130));
}

/// Runs a program (found by `arg`) that stops itself, as with Ctrl-Z, and has a timer continue
/// it `after` seconds later; waits until the shell keeps it stopped.
fn stopped_by_itself(case: &Case, pty: &mut Pty, after: f64, arg: &str) {
    case.write(
        "sneak.py",
        &format!(
            "{CONTINUED_BY_A_TIMER}
continue_me({after})
os.kill(os.getpid(), signal.SIGTSTP)
time.sleep(5)
"
        ),
    );
    pty.send(&format!("python3 sneak.py {arg}\r"));
    pty.expect(
        &format!("[1]+  Stopped                 python3 sneak.py {arg}\r\n"),
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
}

/// A line that shows whether the terminal echoes what is typed: `echo True` or `echo False`.
const ECHO_CHECK: &str =
    "python3 -c 'import termios; print(\"echo\", bool(termios.tcgetattr(0)[3] & termios.ECHO))'";

/// Python that has a timer continue the process (SIGCONT) `after` seconds from now, and
/// every `every` seconds after that: a program that wants to run while it is kept stopped.
const CONTINUED_BY_A_TIMER: &str = "import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
class sigevent(ctypes.Structure):
    _fields_ = [('value', ctypes.c_void_p), ('signo', ctypes.c_int),
                ('notify', ctypes.c_int), ('pad', ctypes.c_int * 12)]
class timespec(ctypes.Structure):
    _fields_ = [('sec', ctypes.c_long), ('nsec', ctypes.c_long)]
class itimerspec(ctypes.Structure):
    _fields_ = [('interval', timespec), ('value', timespec)]
def spec(seconds):
    return timespec(int(seconds), int(seconds % 1 * 1e9))
def continue_me(after, every=0.0):
    event = sigevent(None, signal.SIGCONT, 0)
    timer = ctypes.c_void_p()
    assert libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) == 0
    times = itimerspec(spec(every), spec(after))
    assert libc.timer_settime(timer, 0, ctypes.byref(times), None) == 0
";

/// A process of a kept job whose name is not UTF-8 (any process may rename itself) is held
/// like any other: continued by its timer, it is ended, and does not run in the background
/// while `jobs` says it is stopped.
#[test]
fn a_kept_job_cannot_hide_from_the_watch_behind_its_name() {
    let case = Case::audited("[limits]\ntimeout = 30");
    case.write(
        "hide.py",
        &format!(
            "{CONTINUED_BY_A_TIMER}
libc.prctl(15, b'\\xff', 0, 0, 0)  # PR_SET_NAME
continue_me(1.0)
os.kill(os.getpid(), signal.SIGTSTP)
time.sleep(1.0)
open(sys.argv[1], 'w').write('ran in the background')
"
        ),
    );
    case.write("canary", "");
    let canary = case.root().join("work/canary");
    let mut pty = case.start(&[]);
    let arg = marker(311);
    let line = format!("python3 hide.py canary {arg} | cat");
    pty.send(&format!("{line}\r"));
    pty.expect(&format!("[1]+  Stopped                 {line}\r\n"), WAIT);
    pty.expect(PROMPT, WAIT);
    wait_until("the renamed process ended", || {
        processes_with_arg(&arg).is_empty()
    });
    // Past the time it would have written its file in the background.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        fs::read_to_string(&canary).unwrap(),
        "",
        "a kept job ran in the background"
    );
    pty.send("\r");
    pty.expect(
        "rsh: pipeline: ran while stopped, not continued by fg; ended\r\n",
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    assert_eq!(pty.exit(), Some(148));
}

/// The forked shell of a pipeline's stage ignored SIGTERM, as the interactive shell does: at
/// the timeout it went on (`echo after`, the next `sleep`) until SIGKILL, and the program's
/// record had no `timed_out`. It now ends by SIGTERM, as a bash subshell does.
#[test]
fn a_pipeline_stage_at_the_prompt_ends_at_the_timeout() {
    let case = Case::audited("[limits]\ntimeout = 1");
    let mut pty = case.start(&[]);
    pty.send("{ sleep 30; echo after; sleep 31; } | cat\r");
    pty.expect(
        "rsh: pipeline: timed out after 1 s (limits.timeout); ended\r\n",
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    assert_eq!(pty.exit(), Some(143));
    let records = case.records_of("sleep");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["timed_out"], true, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGTERM", "{records:?}");
}

/// A kept job's time runs on while it is stopped, and runs out while the prompt waits. It is
/// killed at once: a SIGTERM handler would run unseen in the background.
#[test]
fn a_kept_job_is_ended_at_its_deadline() {
    let case = Case::audited("[limits]\ntimeout = 2");
    let canary = case.root().join("canary");
    case.write(
        "handler.py",
        &format!(
            "import signal, sys, time\n\
             def on_term(*_):\n    open({canary:?}, 'w').write('ran')\n    sys.exit(0)\n\
             signal.signal(signal.SIGTERM, on_term)\nprint('ready', flush=True)\ntime.sleep(100)\n",
            canary = canary.to_str().unwrap()
        ),
    );
    let mut pty = case.start(&[]);
    let arg = marker(303);
    let started = Instant::now();
    let line = format!("python3 handler.py {arg}");
    stop(&mut pty, &line, &arg, 1, Some("ready"));
    // Ended while the prompt waits, with nothing typed.
    wait_until("the job ended at its deadline", || {
        processes_with_arg(&arg).is_empty()
    });
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert!(!canary.exists(), "the stopped job ran its SIGTERM handler");
    pty.send("\r");
    pty.expect(
        "rsh: python3: timed out after 2 s (limits.timeout); ended\r\n",
        WAIT,
    );
    pty.expect(&format!("[1]+  Killed                  {line}\r\n"), WAIT);
    pty.expect(PROMPT, WAIT);
    // `$?` is still the stop's: a job ending before a prompt does not change it, as in bash.
    assert_eq!(pty.exit(), Some(148));
    let records = case.records_of("python3");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["timed_out"], true, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGKILL", "{records:?}");
}

/// Ctrl-Z in what a subshell or command substitution runs: the shell waiting for it has no
/// job control of its own and does not stop (the interactive shell, which waits for it
/// without watching it stop, would freeze), so the command goes on, and nothing is kept.
#[test]
fn ctrl_z_in_a_subshell_or_substitution_lets_it_go_on() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    for (line, done) in [
        ("(sleep 1; echo sub-went-on)", "sub-went-on\r\n"),
        ("echo $(sleep 1; echo subst-went-on)", "subst-went-on\r\n"),
    ] {
        pty.send(&format!("{line}\r"));
        std::thread::sleep(Duration::from_millis(400));
        pty.send("\x1a");
        let seen = pty.expect(done, WAIT);
        assert!(
            seen.contains("rsh: this command cannot be stopped here; it goes on running"),
            "{seen:?}"
        );
        assert!(!seen.contains("Stopped"), "{seen:?}");
        pty.expect(PROMPT, WAIT);
    }
    let seen = type_line(&mut pty, "jobs; echo listed", "listed\r\n");
    assert!(!seen.contains("Stopped"), "{seen:?}");
    assert_eq!(pty.exit(), Some(0));
}

/// A pipeline stage's shell has no job control of its own either: it stops with its
/// pipeline, which is one job of the interactive shell.
#[test]
fn a_pipeline_stage_stops_with_its_pipeline_as_one_job() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    let arg = marker(304);
    let line = format!("{{ sleep {arg}; echo stage-went-on; }} | cat");
    pty.send(&format!("{line}\r"));
    started(&arg);
    std::thread::sleep(Duration::from_millis(200));
    pty.send("\x1a");
    let seen = pty.expect(PROMPT, WAIT);
    assert_eq!(seen.matches("Stopped").count(), 1, "{seen:?}");
    assert!(
        seen.contains(&format!("[1]+  Stopped                 {line}\r\n")),
        "{seen:?}"
    );
    let seen = type_line(&mut pty, "jobs; echo listed", "listed\r\n");
    assert_eq!(seen.matches("Stopped").count(), 1, "{seen:?}");
    pty.send("fg\r");
    pty.expect(&format!("{line}\r\n"), WAIT);
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x03");
    let seen = pty.expect(PROMPT, WAIT);
    assert!(!seen.contains("stage-went-on"), "{seen:?}");
    wait_until("the pipeline ended", || processes_with_arg(&arg).is_empty());
    assert_eq!(pty.exit(), Some(130));
}

/// A forked copy of the shell does not get its kept jobs: it cannot continue them.
#[test]
fn forked_shells_cannot_continue_the_shells_jobs() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    let arg = marker(305);
    let pid = stop(&mut pty, &format!("sleep {arg}"), &arg, 1, None);
    for line in ["(fg)", "fg | cat", "echo \"[$(fg 2>&1)]\""] {
        let seen = type_line(&mut pty, &format!("{line}; echo tried"), "tried\r\n");
        assert_eq!(state_of(pid), Some('T'), "{line}: {seen:?}");
        assert!(seen.contains("fg: no job control"), "{line}: {seen:?}");
    }
    let seen = type_line(&mut pty, "(jobs); jobs | cat; echo listed", "listed\r\n");
    assert!(!seen.contains(&arg), "{seen:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(state_of(pid), Some('T'));
    type_line(
        &mut pty,
        "jobs",
        &format!("[1]+  Stopped                 sleep {arg}\r\n"),
    );
    // Right after `jobs`, `exit` ends the shell at once, as in bash.
    pty.send("exit\r");
    let (_, seen) = pty.wait();
    assert!(seen.contains("rsh: ending stopped job [1]"), "{seen:?}");
    wait_until("the kept job ended with the shell", || {
        processes_with_arg(&arg).is_empty()
    });
}

/// `exit` with a kept job warns once, as bash does, and the next ends the shell and the job,
/// hung up and then killed: even one that stops itself again when hung up, which is not kept
/// again (the session is ending), and whose record says how it ended, not that it timed out.
#[test]
fn exit_warns_once_then_ends_the_kept_jobs() {
    let case = Case::audited("");
    case.write(
        "stubborn.py",
        "import os, signal, time
signal.signal(signal.SIGHUP, lambda *_: os.kill(os.getpid(), signal.SIGTSTP))
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print('ready', flush=True)
time.sleep(300)
",
    );
    let mut pty = case.start(&[]);
    let arg = marker(306);
    let pid = stop(
        &mut pty,
        &format!("python3 stubborn.py {arg}"),
        &arg,
        1,
        Some("ready\r\n"),
    );
    pty.send("exit\r");
    pty.expect("exit\r\nThere are stopped jobs.\r\n", WAIT);
    pty.expect(PROMPT, WAIT);
    assert_eq!(state_of(pid), Some('T'));
    // Anything in between, and `exit` warns again.
    type_line(&mut pty, "echo between", "between\r\n");
    pty.send("exit\r");
    pty.expect("There are stopped jobs.", WAIT);
    pty.expect(PROMPT, WAIT);
    let asked = Instant::now();
    pty.send("exit\r");
    let (status, seen) = pty.wait();
    assert!(asked.elapsed() < Duration::from_secs(8), "{seen:?}");
    assert_eq!(status, Some(1), "{seen:?}");
    assert!(
        seen.contains(&format!(
            "rsh: ending stopped job [1]: python3 stubborn.py {arg}"
        )),
        "{seen:?}"
    );
    assert!(processes_with_arg(&arg).is_empty());
    let records = case.records_of("python3");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGKILL", "{records:?}");
    assert!(records[0].get("timed_out").is_none(), "{records:?}");
}

/// A hang-up while a command runs ends rsh, and the jobs it kept with it: recorded, like the
/// command that ran.
#[test]
fn a_hang_up_while_a_command_runs_ends_the_kept_jobs_too() {
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let (kept, running) = (marker(308), marker(309));
    stop(&mut pty, &format!("sleep {kept}"), &kept, 1, None);
    pty.send(&format!("sleep {running}\r"));
    started(&running);
    pty.hang_up();
    ended_by_the_hang_up(&case, &mut pty, WAIT, [&kept, &running]);
}

/// After a hang-up: rsh ends within `within`, and so do the two `sleep`s with these arguments,
/// each with one record that says SIGHUP ended it.
fn ended_by_the_hang_up(case: &Case, pty: &mut Pty, within: Duration, args: [&str; 2]) {
    assert!(
        pty.ended_within(within).is_some(),
        "rsh outlived its terminal"
    );
    wait_until("both ended", || {
        args.iter().all(|arg| processes_with_arg(arg).is_empty())
    });
    let records = case.records_of("sleep");
    for arg in args {
        let one: Vec<_> = records.iter().filter(|r| r["argv"][1] == arg).collect();
        assert_eq!(one.len(), 1, "{arg}: {records:?}");
        assert_eq!(one[0]["signal"], "SIGHUP", "{arg}: {records:?}");
    }
}

/// A hang-up at the prompt ends the shell cleanly: the kept jobs are ended (even one that
/// ignores the hang-up) and recorded, as is the session's end.
#[test]
fn a_hang_up_at_the_prompt_ends_the_kept_jobs_and_records_them() {
    let case = Case::audited("");
    case.write(
        "hupproof.py",
        "import signal, time
signal.signal(signal.SIGHUP, signal.SIG_IGN)
print('ready', flush=True)
time.sleep(300)
",
    );
    let mut pty = case.start(&[]);
    let arg = marker(307);
    stop(
        &mut pty,
        &format!("python3 hupproof.py {arg}"),
        &arg,
        1,
        Some("ready\r\n"),
    );
    pty.hang_up();
    assert!(
        pty.ended_within(WAIT).is_some(),
        "rsh outlived its terminal"
    );
    wait_until("the kept job ended", || processes_with_arg(&arg).is_empty());
    let records = case.records_of("python3");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGKILL", "{records:?}");
    assert!(records[0].get("timed_out").is_none(), "{records:?}");
    let log = fs::read_to_string(case.root().join("audit.jsonl")).unwrap();
    assert!(
        log.lines()
            .last()
            .is_some_and(|l| l.contains("\"session-end\"")),
        "{log}"
    );
}

/// The hang-up is noted, not acted on where it arrives: a shell busy with builtins still ends.
#[test]
fn a_hang_up_during_a_loop_of_builtins_ends_the_shell() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    pty.send("while :; do :; done\r");
    std::thread::sleep(Duration::from_millis(300));
    pty.hang_up();
    assert!(
        pty.ended_within(WAIT).is_some(),
        "rsh outlived its terminal"
    );
}

/// rsh killed outright (SIGKILL, which it cannot handle) leaves nothing of a kept job
/// running: not even a process the job started that ignores the hang-up the kernel then sends
/// (the program rsh started dies with rsh; what it started does not).
#[test]
fn killing_the_shell_does_not_let_a_kept_job_go_on() {
    let case = Case::new("[commands.python3]\nsubprocesses = true");
    case.write(
        "spawner.py",
        "import signal, subprocess, sys, time
child = 'import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); print(\\'ready\\', flush=True); time.sleep(300)'
subprocess.Popen([sys.executable, '-c', child, sys.argv[1]])
time.sleep(300)
",
    );
    let mut pty = case.start(&[]);
    let arg = marker(310);
    stop(
        &mut pty,
        &format!("python3 spawner.py {arg}"),
        &arg,
        1,
        Some("ready\r\n"),
    );
    assert_eq!(processes_with_arg(&arg).len(), 2);
    // SAFETY: a signal to the rsh this test started.
    unsafe { libc::kill(pty.pid(), libc::SIGKILL) };
    assert!(pty.ended_within(WAIT).is_some());
    wait_until("the kept job ended", || processes_with_arg(&arg).is_empty());
}

/// The process that watches the kept jobs of the rsh `shell`: its child that runs rsh.
fn watcher_of(shell: i32) -> i32 {
    let rsh = fs::canonicalize(RSH).unwrap();
    let found = || {
        fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .find(|pid| {
                let stat = fs::read(format!("/proc/{pid}/stat")).unwrap_or_default();
                let Some(close) = stat.iter().rposition(|&b| b == b')') else {
                    return false;
                };
                let parent = String::from_utf8_lossy(&stat[close + 2..])
                    .split(' ')
                    .nth(1)
                    .and_then(|p| p.parse::<i32>().ok());
                parent == Some(shell)
                    && fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == rsh)
            })
    };
    wait_until("the watch started", || found().is_some());
    found().unwrap()
}

/// Sends `signal` to a process this test started (directly or through rsh).
fn signal(pid: i32, signal: libc::c_int) {
    // SAFETY: kill takes integers.
    unsafe { libc::kill(pid, signal) };
}

/// A watch that does not answer in time is ended before anything more is done to a job (its
/// answer could come later, taken for another's, and it could still act on a job the shell
/// reaps); `fg` goes on with its job in the foreground, and the next job stopped gets a new
/// watch.
#[test]
fn a_watch_that_does_not_answer_is_ended_and_fg_goes_on() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    let arg = marker(312);
    let pid = stop(&mut pty, &format!("sleep {arg}"), &arg, 1, None);
    let watcher = watcher_of(pty.pid());
    signal(watcher, libc::SIGSTOP);
    pty.send("fg\r");
    pty.expect(&format!("sleep {arg}\r\n"), WAIT);
    // Continued once the shell gave up on the answer, not hung up.
    wait_until("the job continued", || state_of(pid) == Some('S'));
    assert_eq!(state_of(watcher), None, "the silent watch is still there");
    pty.send("\x03");
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo status $?", "status 130\r\n");
    let arg = marker(313);
    stop(&mut pty, &format!("sleep {arg}"), &arg, 1, None);
    let again = watcher_of(pty.pid());
    assert_ne!(again, watcher);
    type_line(
        &mut pty,
        "jobs",
        &format!("[1]+  Stopped                 sleep {arg}\r\n"),
    );
    pty.send("exit\r");
    pty.wait();
}

/// A kept job continued behind the shell's back can take the terminal (and change its
/// settings) before the watch ends it: the shell takes it back, with its own settings, rather
/// than fail to read and end the session.
#[test]
fn a_kept_job_that_takes_the_terminal_does_not_keep_it() {
    let case = Case::new("");
    case.write(
        "steal.py",
        &format!(
            "{CONTINUED_BY_A_TIMER}
import termios
def take(*_):
    os.tcsetpgrp(0, os.getpgrp())
    modes = termios.tcgetattr(0)
    modes[3] &= ~(termios.ECHO | termios.ICANON)
    termios.tcsetattr(0, termios.TCSANOW, modes)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
signal.signal(signal.SIGCONT, take)
continue_me(1.0)
os.kill(os.getpid(), signal.SIGTSTP)
time.sleep(100)
"
        ),
    );
    let mut pty = case.start(&[]);
    let arg = marker(315);
    stop(&mut pty, &format!("python3 steal.py {arg}"), &arg, 1, None);
    wait_until("the job took the terminal", || {
        pty.foreground_group() != pty.pid()
    });
    wait_until("the job ended", || processes_with_arg(&arg).is_empty());
    // A key typed now is read by the shell's read that was already waiting; the read after it
    // fails, the terminal being another group's.
    pty.send("e");
    pty.expect(
        "rsh: a stopped job took the terminal; the shell took it back\r\n",
        WAIT,
    );
    pty.expect(PROMPT, WAIT);
    type_line(&mut pty, "echo hello", "hello\r\n");
    assert_eq!(pty.foreground_group(), pty.pid());
    type_line(&mut pty, ECHO_CHECK, "echo True\r\n");
    assert_eq!(pty.exit(), Some(0));
}

/// The records of a kept pipeline stay its own: a stage of it that has ended was reaped, and
/// a process the shell starts later may get its number (made to here, through
/// /proc/sys/kernel/ns_last_pid) before the kept job ends.
#[test]
fn a_kept_pipelines_records_stay_its_own_when_numbers_are_reused() {
    let last_pid = "/proc/sys/kernel/ns_last_pid";
    if fs::OpenOptions::new().write(true).open(last_pid).is_err() {
        eprintln!("SKIPPED: {last_pid} cannot be written here");
        return;
    }
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let arg = marker(316);
    let line = format!(
        "sleep {arg} | python3 -c 'import os, sys; print(os.getpid(), \"ended\" + \"-stage\"); sys.exit(3)'"
    );
    pty.send(&format!("{line}\r"));
    let stage: i32 = pty
        .expect(" ended-stage\r\n", WAIT)
        .rsplit('\n')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    wait_until("the stage ended", || state_of(stage).is_none());
    started(&arg);
    std::thread::sleep(Duration::from_millis(200));
    pty.send("\x1a");
    pty.expect(&format!("[1]+  Stopped                 {line}\r\n"), WAIT);
    pty.expect(PROMPT, WAIT);
    let ran_as_stage = |case: &Case| {
        case.records_of("python3")
            .iter()
            .any(|r| r["pid"] == stage && r["argv"][2] == "import sys; sys.exit(7)")
    };
    let mut reused = false;
    for _ in 0..30 {
        fs::write(last_pid, format!("{}", stage - 1)).unwrap();
        pty.send("python3 -c 'import sys; sys.exit(7)' | cat\r");
        pty.expect(PROMPT, WAIT);
        reused = ran_as_stage(&case)
            || case
                .records_of("python3")
                .iter()
                .any(|r| r["argv"][2] != "import sys; sys.exit(7)");
        if reused {
            break;
        }
    }
    if !reused {
        eprintln!("SKIPPED: the number {stage} was not reused");
    }
    pty.send("exit\r");
    pty.expect("There are stopped jobs.", WAIT);
    pty.expect(PROMPT, WAIT);
    pty.send("exit\r");
    pty.wait();
    let records: Vec<(String, serde_json::Value)> = case
        .records_of("python3")
        .iter()
        .map(|r| {
            (
                r["argv"][2].as_str().unwrap().to_string(),
                r["status"].clone(),
            )
        })
        .collect();
    let (ended, later): (Vec<_>, Vec<_>) = records
        .iter()
        .partition(|(code, _)| code != "import sys; sys.exit(7)");
    assert_eq!(ended.len(), 1, "{records:?}");
    assert_eq!(ended[0].1, 3, "{records:?}");
    assert!(later.iter().all(|(_, status)| *status == 7), "{records:?}");
}

/// A hang-up while the shell waits for a subshell (or a command substitution) reaches the
/// subshell too: it is a forked copy of the shell, in the shell's own process group, which
/// the terminal's hang-up does not reach, and its loop would go on with nobody there.
#[test]
fn a_hang_up_while_a_subshell_runs_ends_it_with_the_shell() {
    let case = Case::new("");
    case.write(
        "tick.py",
        "import sys, time\nopen(sys.argv[1], 'a').write('tick\\n')\ntime.sleep(0.2)\n",
    );
    case.write("canary", "");
    let canary = case.root().join("work/canary");
    for line in [
        "(while :; do python3 tick.py canary; done)",
        "echo $(while :; do python3 tick.py canary; done)",
    ] {
        let mut pty = case.start(&[]);
        pty.send(&format!("{line}\r"));
        wait_until("the loop ticks", || {
            fs::read_to_string(&canary).unwrap().len() > 10
        });
        pty.hang_up();
        assert!(
            pty.ended_within(WAIT).is_some(),
            "{line}: rsh outlived its terminal"
        );
        std::thread::sleep(Duration::from_millis(500));
        let ticks = fs::read_to_string(&canary).unwrap().len();
        std::thread::sleep(Duration::from_millis(1000));
        assert_eq!(
            fs::read_to_string(&canary).unwrap().len(),
            ticks,
            "{line}: the loop went on"
        );
        fs::write(&canary, "").unwrap();
    }
}

/// A hang-up that comes while the shell asks the watch to hold a job it stopped (here the
/// watch does not answer, so the job cannot be kept and goes on running) ends the job and
/// the shell: it is not lost because the shell was not waiting for the job just then.
#[test]
fn a_hang_up_while_a_job_is_being_kept_ends_it() {
    let case = Case::audited("");
    let mut pty = case.start(&[]);
    let (kept, stopping) = (marker(317), marker(318));
    stop(&mut pty, &format!("sleep {kept}"), &kept, 1, None);
    signal(watcher_of(pty.pid()), libc::SIGSTOP);
    pty.send(&format!("sleep {stopping}\r"));
    started(&stopping);
    std::thread::sleep(Duration::from_millis(200));
    pty.send("\x1a");
    // The shell waits for the watch's answer now.
    std::thread::sleep(Duration::from_millis(500));
    pty.hang_up();
    ended_by_the_hang_up(&case, &mut pty, Duration::from_secs(15), [&kept, &stopping]);
}

/// A program a pipeline stage's shell runs and waits for (`{ prog; …; } | …`) keeps its record
/// when the stage's shell is killed with it: by the watch (the job ran while kept), or at the
/// session's end (it stayed after the hang-up). The record says the program's own end was not
/// seen.
#[test]
fn a_kept_pipeline_killed_keeps_the_records_of_its_stages_programs() {
    let case = Case::audited("");
    case.write(
        "sneak.py",
        &format!(
            "{CONTINUED_BY_A_TIMER}
continue_me(0.5, 0.01)
os.kill(os.getpid(), signal.SIGTSTP)
time.sleep(100)
"
        ),
    );
    case.write(
        "hupproof.py",
        "import signal, time
signal.signal(signal.SIGHUP, signal.SIG_IGN)
print('ready', flush=True)
time.sleep(300)
",
    );
    let mut pty = case.start(&[]);
    let (ran, stayed) = (marker(319), marker(320));
    let line = format!("{{ python3 sneak.py {ran}; true; }} | cat");
    pty.send(&format!("{line}\r"));
    pty.expect(&format!("[1]+  Stopped                 {line}\r\n"), WAIT);
    pty.expect(PROMPT, WAIT);
    wait_until("the job ended", || processes_with_arg(&ran).is_empty());
    pty.send("\r");
    pty.expect("ran while stopped, not continued by fg; ended", WAIT);
    pty.expect(PROMPT, WAIT);
    let line = format!("{{ python3 hupproof.py {stayed}; true; }} | cat");
    stop(&mut pty, &line, &stayed, 1, Some("ready\r\n"));
    pty.send("exit\r");
    pty.expect("There are stopped jobs.", WAIT);
    pty.expect(PROMPT, WAIT);
    pty.send("exit\r");
    pty.wait();
    let records = case.records_of("python3");
    for arg in [&ran, &stayed] {
        let one: Vec<_> = records.iter().filter(|r| r["argv"][2] == **arg).collect();
        assert_eq!(one.len(), 1, "{arg}: {records:?}");
        assert_eq!(one[0]["signal"], "SIGKILL", "{arg}: {records:?}");
        assert_eq!(one[0]["end_unseen"], true, "{arg}: {records:?}");
    }
}

/// The same in the foreground: a pipeline stage's program that outlives its timeout's SIGTERM
/// is killed with its shell, and keeps its record.
#[test]
fn a_timed_out_pipeline_keeps_the_records_of_its_stages_programs() {
    let case = Case::audited("[limits]\ntimeout = 1");
    case.write(
        "stubborn.py",
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(100)\n",
    );
    let mut pty = case.start(&[]);
    let arg = marker(321);
    pty.send(&format!("{{ python3 stubborn.py {arg}; true; }} | cat\r"));
    pty.expect("timed out after 1 s (limits.timeout); ended", WAIT);
    pty.expect(PROMPT, WAIT);
    assert_eq!(pty.exit(), Some(143));
    let records = case.records_of("python3");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["signal"], "SIGKILL", "{records:?}");
    assert_eq!(records[0]["timed_out"], true, "{records:?}");
    assert_eq!(records[0]["end_unseen"], true, "{records:?}");
}

/// `exec` ends the kept jobs, and the process that watches them: replaced by another program,
/// rsh could neither use nor collect it, and it would stay a zombie of that program's.
#[test]
fn exec_leaves_no_watch_behind() {
    // Without confinement (no timeout to enforce), `exec` replaces rsh.
    let case = Case::new("");
    let policy = case.root().join("policy.toml");
    let text = fs::read_to_string(&policy).unwrap();
    fs::write(&policy, format!("{text}\n[sandbox]\nmode = \"off\"\n")).unwrap();
    let mut pty = case.start(&[]);
    let (kept, after) = (marker(322), marker(323));
    stop(&mut pty, &format!("sleep {kept}"), &kept, 1, None);
    let watcher = watcher_of(pty.pid());
    pty.send(&format!("exec sleep {after}\r"));
    wait_until("rsh replaced", || {
        processes_with_arg(&after) == vec![pty.pid()]
    });
    wait_until("the kept job ended", || {
        processes_with_arg(&kept).is_empty()
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(state_of(watcher), None, "the watch was left behind");
}

/// The watch over stopped jobs is a copy of rsh, unconfined, that reads what confined
/// programs write (their names in /proc): it keeps only its socket to the shell and runs under
/// a seccomp filter of its own, which lets it do little more than read /proc and signal the
/// groups it holds.
#[test]
fn the_watch_runs_under_a_filter_of_its_own() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    let arg = marker(324);
    stop(&mut pty, &format!("sleep {arg}"), &arg, 1, None);
    let watcher = watcher_of(pty.pid());
    let status = fs::read_to_string(format!("/proc/{watcher}/status")).unwrap();
    assert!(status.contains("\nSeccomp:\t2\n"), "{status}");
    assert!(status.contains("\nNoNewPrivs:\t1\n"), "{status}");
    // Its socket, and whatever in /proc it reads just now.
    let open: Vec<PathBuf> = fs::read_dir(format!("/proc/{watcher}/fd"))
        .unwrap()
        .flatten()
        .filter_map(|entry| fs::read_link(entry.path()).ok())
        .collect();
    let sockets = open
        .iter()
        .filter(|target| target.to_string_lossy().starts_with("socket:"))
        .count();
    assert_eq!(sockets, 1, "{open:?}");
    assert!(
        open.iter()
            .all(|t| t.starts_with("/proc") || t.to_string_lossy().starts_with("socket:")),
        "{open:?}"
    );
    // It still does its work.
    type_line(
        &mut pty,
        "jobs",
        &format!("[1]+  Stopped                 sleep {arg}\r\n"),
    );
    pty.send("exit\r");
    pty.wait();
}

/// A zombie in a kept job's group is no part of the job: whoever reaps it (here the process
/// that runs rsh, a subreaper that collects orphans when told to) does not make the job count
/// as having run, and the job stays kept.
#[test]
fn a_zombie_reaped_while_a_job_is_kept_leaves_it_kept() {
    let case = Case::new("[commands.python3]\nsubprocesses = true");
    case.write(
        "reaper.py",
        "import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
shell = os.fork()
if shell == 0:
    os.execv(sys.argv[1], sys.argv[1:])
def reap(*_):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid == shell:
            os._exit(os.waitstatus_to_exitcode(status))
signal.signal(signal.SIGUSR1, reap)
_, status = os.waitpid(shell, 0)
sys.exit(os.waitstatus_to_exitcode(status))
",
    );
    case.write(
        "orphan.py",
        "import os, time
child = os.fork()
if child == 0:
    if os.fork() == 0:
        os._exit(0)  # an orphan, left to the subreaper: a zombie in this group
    os._exit(0)
os.waitpid(child, 0)
time.sleep(0.3)
print('ready', flush=True)
time.sleep(300)
",
    );
    let root = case.root();
    let mut command = Command::new("python3");
    command
        .arg(root.join("work/reaper.py"))
        .arg(RSH)
        .arg("--policy")
        .arg(root.join("policy.toml"))
        .current_dir(root.join("work"))
        .env_clear()
        .env("TERM", "xterm")
        .env("HOME", root.join("work"))
        .env("PATH", "/usr/bin:/bin");
    let mut pty = Pty::spawn(command, true);
    pty.expect(PROMPT, WAIT);
    let arg = marker(325);
    let pid = stop(
        &mut pty,
        &format!("python3 orphan.py {arg}"),
        &arg,
        1,
        Some("ready\r\n"),
    );
    signal(pty.pid(), libc::SIGUSR1);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(state_of(pid), Some('T'), "a kept job was ended");
    type_line(
        &mut pty,
        "jobs",
        &format!("[1]+  Stopped                 python3 orphan.py {arg}\r\n"),
    );
    pty.send("exit\r");
    pty.wait();
}

/// The watch stopped and continued (SIGSTOP, a debugger attaching) goes on watching: the
/// wait its stop interrupted goes on, and the shell gets its answer.
#[test]
fn a_watch_stopped_and_continued_goes_on() {
    let case = Case::new("");
    let mut pty = case.start(&[]);
    let arg = marker(326);
    let pid = stop(&mut pty, &format!("sleep {arg}"), &arg, 1, None);
    let watcher = watcher_of(pty.pid());
    signal(watcher, libc::SIGSTOP);
    pty.send("jobs\r");
    std::thread::sleep(Duration::from_millis(500));
    signal(watcher, libc::SIGCONT);
    let seen = pty.expect(
        &format!("[1]+  Stopped                 sleep {arg}\r\n"),
        WAIT,
    );
    assert!(!seen.contains("gone"), "{seen:?}");
    pty.expect(PROMPT, WAIT);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(state_of(pid), Some('T'));
    assert!(state_of(watcher).is_some_and(|s| s != 'Z'));
    pty.send("exit\r");
    pty.wait();
}
