//! What AI coding agents' shell wrappers run: the same output and status as bash.

use std::process::Command;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

fn permissive() -> String {
    format!("{}/policy/permissive.toml", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `script` with `-c` under `shell` (with `extra` arguments first), in a clean
/// environment, in a fresh directory; returns (stdout, stderr, status).
fn run(shell: &str, extra: &[&str], script: &str) -> (String, String, i32) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(shell)
        .args(extra)
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.path())
        .env("AGENT_TOKEN", "x")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Snapshot scripts enumerate the environment, functions and aliases with `compgen`.
#[test]
fn compgen_listings_match_bash() {
    let script = "export LATE=1; X=3; f() { :; }; g() { :; }; alias zz=ls; alias ab=cat\n\
                  compgen -e; echo \"status $?\"\n\
                  compgen -A function; compgen -a; compgen -e A; echo \"status $?\"\n\
                  compgen -e NOPE; echo \"status $?\"\n\
                  compgen -A export -A function\n";
    let bash = run("bash", &[], script);
    let rsh = run(RSH, &["--policy", &permissive()], script);
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    assert!(rsh.0.contains("AGENT_TOKEN\nHOME\nLATE\n"), "{}", rsh.0);
}

#[test]
fn compgen_variables_include_unexported_ones() {
    let (out, _, status) = run(RSH, &["--policy", &permissive()], "X=3; compgen -v X");
    assert_eq!((out.as_str(), status), ("X\n", 0));
}

/// Completing commands or files is the line editor's job: refused, with status 2, by name.
#[test]
fn compgen_completion_forms_are_refused() {
    for (args, named) in [("-c ls", "-c"), ("-A file", "-A file"), ("-W 'a b'", "-W")] {
        let (out, err, status) = run(
            RSH,
            &["--policy", &permissive()],
            &format!("compgen {args}"),
        );
        assert_eq!(status, 2, "compgen {args}: {err}");
        assert_eq!(out, "");
        assert!(
            err.contains(&format!("rsh: compgen: {named}: not supported by rsh")),
            "{err}"
        );
    }
}

/// Snapshot scripts copy `shopt -p` into the snapshot, and source it into every command.
#[test]
fn shopt_listing_matches_bash() {
    let script = "shopt -p; shopt -u restricted_shell compat31; echo \"status $?\"";
    let bash = run("bash", &[], script);
    let rsh = run(RSH, &["--policy", &permissive()], script);
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
}

/// Codex's snapshot reads `compgen -e` through `done < <(…)`; scripts diff two outputs.
#[test]
fn process_substitution_matches_bash() {
    let script = "cat <(echo one) <(echo two)\n\
                  diff <(printf 'a\\nb\\n') <(printf 'a\\nc\\n'); echo \"diff $?\"\n\
                  while read -r l; do echo \"got $l\"; done < <(printf '1\\n2\\n'); echo \"loop $?\"\n\
                  head -n 1 <(yes); echo \"head $?\"\n\
                  read -r x < <(while :; do echo y; done); echo \"read $x\"\n\
                  f() { cat \"$1\"; }; f <(echo from-function)\n\
                  x=$(cat <(cat <(echo nested))); echo \"$x\"\n\
                  source <(echo 'echo sourced $((1 + 1))')\n\
                  echo \"<(quoted)\" '>(too)'\n\
                  exec 3< <(seq 1 100000); read -r a <&3; read -r b <&3; echo \"$a $b\"; exec 3<&-\n";
    let bash = run("bash", &[], script);
    let rsh = run(RSH, &["--policy", &permissive()], script);
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    // Numbered from 63 down as in bash (which may still hold earlier ones at this point).
    let (out, _, _) = run(RSH, &["--policy", &permissive()], "echo <(true) >(true)");
    assert_eq!(out, "/dev/fd/63 /dev/fd/62\n");
}

/// The list inside `<(…)` is decided command by command, like any other line.
#[test]
fn process_substitution_commands_are_decided() {
    let dir = tempfile::tempdir().unwrap();
    let canary = dir.path().join("canary");
    let script = format!(
        "cat <(sh -c 'touch {0}'); : > >(sh -c 'touch {0}'); echo \"status $?\"",
        canary.display()
    );
    let (out, err, status) = run(RSH, &[], &script);
    assert!(!canary.exists(), "the substituted shell ran");
    assert_eq!((out.as_str(), status), ("status 0\n", 0), "{err}");
    assert_eq!(err.matches("rsh: denied: sh -c").count(), 2, "{err}");
}

// ---------------------------------------------------------------------------------------------
// Interactive harnesses: a shell kept on a terminal, prompts as markers
// ---------------------------------------------------------------------------------------------

mod common;

use common::pty::Pty;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A directory holding `bash`, a link to `target`: what an operator puts first in PATH.
fn shim(target: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(target, dir.path().join("bash")).unwrap();
    dir
}

/// The real bash, by absolute path (the shim directory comes first in PATH).
fn real_bash() -> String {
    for candidate in ["/usr/bin/bash", "/bin/bash"] {
        if Path::new(candidate).exists() {
            return candidate.to_string();
        }
    }
    panic!("bash is needed as the reference shell");
}

/// A workspace with a subdirectory, and a home directory without rc files.
struct Workspace {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        Workspace {
            dir,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// `/usr/bin/env bash` with the shim first in PATH, on a terminal.
    fn shell_command(&self, shim: &Path, env: &[(&str, &str)]) -> Command {
        let mut command = Command::new("/usr/bin/env");
        command
            .arg("bash")
            .current_dir(self.path())
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", shim.display()))
            .env("HOME", self.home.path())
            .env("TERM", "dumb");
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }
}

const SWE_PS1: &str = "SHELLPS1PREFIX";

/// SWE-agent's session (SWE-ReX `BashSession`): `/usr/bin/env bash` on a terminal without
/// echo, PS1 a marker, PS2 and PS0 empty; each command is followed by an empty line and
/// `echo EXITCODESTART$?EXITCODEEND`.
struct SweSession {
    pty: Pty,
}

impl SweSession {
    fn start(workspace: &Workspace, shim: &Path) -> SweSession {
        let env = [("PS1", SWE_PS1), ("PS2", ""), ("PS0", "")];
        let mut pty = Pty::spawn(workspace.shell_command(shim, &env), false);
        pty.drain(Duration::from_millis(300));
        pty.send_line(&format!(
            "export PS1='{SWE_PS1}' ; export PS2='' ; export PS0=''"
        ));
        pty.expect(SWE_PS1, Duration::from_secs(10));
        SweSession { pty }
    }

    /// (output, exit code) as SWE-ReX reads them.
    fn run(&mut self, command: &str) -> (String, i32) {
        self.pty.send_line(command);
        let output = self.pty.expect(SWE_PS1, Duration::from_secs(30));
        self.exit_code(output)
    }

    fn exit_code(&mut self, mut output: String) -> (String, i32) {
        self.pty.send_line("\necho EXITCODESTART$?EXITCODEEND");
        let raw = self.pty.expect("EXITCODEEND", Duration::from_secs(5));
        self.pty.expect(SWE_PS1, Duration::from_secs(5));
        let (before, code) = raw.split_once("EXITCODESTART").expect("exit code marker");
        output.push_str(before);
        let output = output.replace(SWE_PS1, "").replace("\r\n", "\n");
        (output, code.trim().parse().expect("a numeric exit code"))
    }
}

/// SWE-ReX checks each command's syntax with `/usr/bin/env bash -n << 'SOUNIQUEEOF'`.
fn swe_syntax_check(workspace: &Workspace, shim: &Path, command: &str) -> i32 {
    let script = format!("/usr/bin/env bash -n << 'SOUNIQUEEOF'\n{command}\nSOUNIQUEEOF");
    Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .current_dir(workspace.path())
        .env("PATH", format!("{}:/usr/bin:/bin", shim.display()))
        .output()
        .unwrap()
        .status
        .code()
        .unwrap_or(-1)
}

const SWE_COMMANDS: &[&str] = &[
    "echo hi ; ls -d /tmp",
    "false",
    "cd sub ; pwd",
    "x=3 ; echo $((x * 2))",
    "cat <<'EOF'\nline one\nEOF",
    "grep -c . /etc/hostname",
];

#[test]
fn swe_agent_session_matches_bash() {
    let bash_shim = shim(&real_bash());
    let rsh_shim = shim(RSH);
    let mut seen = Vec::new();
    for shim in [&bash_shim, &rsh_shim] {
        let workspace = Workspace::new();
        let mut session = SweSession::start(&workspace, shim.path());
        let mut results: Vec<(String, i32)> = SWE_COMMANDS
            .iter()
            .map(|command| session.run(command))
            .collect();
        // An interrupt: Ctrl-C ends the command, the prompt comes back, the shell goes on.
        session.pty.send_line("sleep 30");
        std::thread::sleep(Duration::from_millis(300));
        session.pty.send("\x03");
        session.pty.expect(SWE_PS1, Duration::from_secs(5));
        results.push(session.run("echo after"));
        let root = workspace.path().display().to_string();
        for (output, _) in &mut results {
            *output = output.replace(&root, "<ws>");
        }
        assert_eq!(session.pty.exit(), Some(0));
        let syntax = [
            swe_syntax_check(&workspace, shim.path(), "echo ok"),
            swe_syntax_check(&workspace, shim.path(), "if true; then"),
        ];
        seen.push((results, syntax));
    }
    assert_eq!(seen[1], seen[0], "rsh (left) and bash (right) differ");
    assert_eq!(seen[1].0[2], ("<ws>/sub\n".to_string(), 0));
    assert_eq!(seen[1].1[0], 0);
    assert_ne!(seen[1].1[1], 0);
}

#[test]
fn swe_agent_session_refuses_a_denied_command() {
    let rsh_shim = shim(RSH);
    let workspace = Workspace::new();
    let canary = workspace.path().join("canary");
    let mut session = SweSession::start(&workspace, rsh_shim.path());
    let (output, code) = session.run(&format!("sh -c 'touch {}'", canary.display()));
    assert_eq!(code, 126, "{output}");
    assert!(output.contains("rsh: denied: sh -c"), "{output}");
    assert!(!canary.exists(), "the denied shell ran");
    // The session goes on.
    assert_eq!(session.run("echo still"), ("still\n".to_string(), 0));
}

/// OpenHands' prompt (`CmdOutputMetadata.to_ps1_prompt`), set through PROMPT_COMMAND: JSON
/// between markers, with `$?`, `\u`, `\h`, `$(pwd)` and a command substitution that fails.
fn openhands_prompt_command() -> String {
    let json = "{\n  \"pid\": \"$!\",\n  \"exit_code\": \"$?\",\n  \"username\": \"\\u\",\n  \
                \"hostname\": \"\\h\",\n  \"working_dir\": \"$(pwd)\",\n  \
                \"py_interpreter_path\": \"$(which python 2>/dev/null || echo \"\")\"\n}";
    let ps1 = format!(
        "\n###PS1JSON###\n{}\n###PS1END###\n",
        json.replace('"', "\\\"")
    );
    format!("export PROMPT_COMMAND='export PS1=\"{ps1}\"'; export PS2=\"\"")
}

/// Each prompt's JSON text, in order. The echo of the line that set the prompt is not one
/// (how a multi-line input is echoed is the line editor's business).
fn prompt_blocks(screen: &str) -> Vec<String> {
    screen
        .split("###PS1JSON###")
        .skip(1)
        .filter_map(|rest| rest.split_once("###PS1END###"))
        .map(|(json, _)| json.replace("\r\n", "\n").trim().to_string())
        .filter(|json| !json.contains("$?"))
        .collect()
}

#[test]
fn openhands_session_matches_bash() {
    let bash_shim = shim(&real_bash());
    let rsh_shim = shim(RSH);
    let mut seen = Vec::new();
    for shim in [&bash_shim, &rsh_shim] {
        let workspace = Workspace::new();
        // tmux's pane: a terminal that echoes.
        let mut pty = Pty::spawn(workspace.shell_command(shim.path(), &[]), true);
        pty.drain(Duration::from_millis(300));
        pty.send_line(&openhands_prompt_command());
        let mut screen = String::new();
        for command in ["", "cd sub", "false", "echo hi; (exit 3)", "echo done"] {
            if !command.is_empty() {
                pty.send_line(command);
            }
            let before = pty.expect("###PS1END###", Duration::from_secs(10));
            screen.push_str(&before);
            screen.push_str("###PS1END###");
        }
        assert_eq!(pty.exit(), Some(0));
        let root = workspace.path().display().to_string();
        let blocks: Vec<String> = prompt_blocks(&screen)
            .into_iter()
            .map(|block| block.replace(&root, "<ws>"))
            .collect();
        assert!(screen.contains("hi\r\n"), "{screen:?}");
        seen.push(blocks);
    }
    assert_eq!(seen[1], seen[0], "rsh (left) and bash (right) differ");
    let codes: Vec<bool> = ["\"0\"", "\"0\"", "\"1\"", "\"3\""]
        .iter()
        .zip(&seen[1])
        .map(|(code, block)| block.contains(&format!("\"exit_code\": {code}")))
        .collect();
    assert_eq!(codes, [true; 4], "{:#?}", seen[1]);
    assert!(
        seen[1][1].contains("\"working_dir\": \"<ws>/sub\""),
        "{}",
        seen[1][1]
    );
}

/// Prompt escapes, expansions in prompts, PS0 and PS2 where bash shows them.
#[test]
fn prompts_match_bash() {
    let bash_shim = shim(&real_bash());
    let rsh_shim = shim(RSH);
    let mut seen = Vec::new();
    for shim in [&bash_shim, &rsh_shim] {
        let workspace = Workspace::new();
        let mut pty = Pty::spawn(workspace.shell_command(shim.path(), &[]), false);
        pty.drain(Duration::from_millis(300));
        pty.send_line(
            "cd sub; n=5; PS0='<ps0>'; PS2='<ps2>'; \
             PS1='[\\u \\W \\w|\\$|$((n+1))|\\\\|\\101|\\[x\\]|\"q\" $?]'; echo START",
        );
        pty.expect("START", Duration::from_secs(10));
        pty.send_line("false");
        pty.send_line("echo 'a");
        pty.send_line("b'");
        pty.send_line("echo END");
        let screen = pty.expect("END\r\n", Duration::from_secs(10));
        assert_eq!(pty.exit(), Some(0));
        let root = workspace.path().display().to_string();
        seen.push(screen.replace(&root, "<ws>"));
    }
    assert_eq!(seen[1], seen[0], "rsh (left) and bash (right) differ");
    assert!(seen[1].contains("|6|\\|A|x|\"q\" 1]"), "{}", seen[1]);
}
