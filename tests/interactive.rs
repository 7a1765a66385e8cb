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

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const WAIT: Duration = Duration::from_secs(10);
const PROMPT: &str = "rsh-test> ";

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
allow = ["ls", "cat", "echo", "sleep", "less", "python3"]
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
