//! A denied command never runs, wherever it stands in the input.
//!
//! Every test runs the real `rsh` binary in a fresh temporary directory with a small policy that
//! allows a few harmless tools and denies the shells. The denied action is always one that would
//! leave a file behind (`sh -c 'touch CANARY'`), so "it did not run" is checked by looking for
//! that file, not by trusting a status or a message. Then the status and the message are checked.
//!
//! Where the test depends on how a program is reached (a symlink, a hard link, a copy, a script),
//! the same line is also run under a policy that allows everything, and must then create the
//! canary: that proves the line really would have run a shell.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

/// The denied action: if a shell ran it, `CANARY` would appear in the working directory.
const CANARY_SH: &str = "sh -c 'touch CANARY'";

/// The policy under test: a few harmless tools allowed, the shells denied, the rest unknown.
const POLICY: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[commands]
allow = ["touch", "echo", "cat", "true", "false", "printf", "ls", "tr"]
deny = ["sh", "dash", "bash"]
"#;

/// The control policy: nothing denied and nothing confined, so a line that would run a shell
/// does run it.
const PERMISSIVE: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "allow"

[sandbox]
mode = "off"
"#;

/// No single run of rsh in these tests should take anywhere near this long.
const TIMEOUT: Duration = Duration::from_secs(20);

/// What one run of rsh left behind.
struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

/// A temporary directory holding `policy.toml` and `permissive.toml`; rsh runs inside it.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox::with_policy(POLICY)
    }

    fn with_policy(policy: &str) -> Sandbox {
        let dir = tempfile::tempdir().expect("create a temporary directory");
        fs::write(dir.path().join("policy.toml"), policy).expect("write policy.toml");
        fs::write(dir.path().join("permissive.toml"), PERMISSIVE).expect("write permissive.toml");
        Sandbox { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn policy(&self) -> PathBuf {
        self.path().join("policy.toml")
    }

    /// `rsh --policy <tmp>/policy.toml -c SCRIPT` in the temporary directory.
    fn run(&self, script: &str) -> Run {
        self.run_in(self.path(), script)
    }

    /// The same, from another working directory.
    fn run_in(&self, cwd: &Path, script: &str) -> Run {
        let policy = self.policy();
        rsh(
            cwd,
            &[
                "--policy".as_ref(),
                policy.as_os_str(),
                "-c".as_ref(),
                script.as_ref(),
            ],
        )
    }

    /// Writes a file in the temporary directory (mode 0755 when `executable`).
    fn write(&self, name: &str, text: &str, executable: bool) -> PathBuf {
        let file = self.path().join(name);
        fs::write(&file, text).expect("write a file in the sandbox");
        if executable {
            fs::set_permissions(&file, fs::Permissions::from_mode(0o755)).expect("chmod 755");
        }
        file
    }

    /// Every file called `CANARY` anywhere in the temporary directory.
    fn canaries(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut dirs = vec![self.path().to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in fs::read_dir(&dir).expect("list the sandbox").flatten() {
                let path = entry.path();
                let kind = entry.file_type().expect("file type");
                if kind.is_dir() {
                    dirs.push(path);
                } else if entry.file_name() == "CANARY" {
                    found.push(path);
                }
            }
        }
        found
    }

    fn assert_no_canary(&self, script: &str, run: &Run) {
        let found = self.canaries();
        assert!(
            found.is_empty(),
            "the denied command ran: {found:?} exists after\n  {script}\n{}",
            run.describe()
        );
    }

    /// Runs SCRIPT under the policy and checks, in this order: no canary anywhere, the
    /// status, and a `rsh: denied: COMMAND: ` line on stderr.
    fn denied(&self, script: &str, command: &str, status: i32) -> Run {
        self.denied_in(self.path(), script, command, status)
    }

    fn denied_in(&self, cwd: &Path, script: &str, command: &str, status: i32) -> Run {
        let run = self.run_in(cwd, script);
        self.assert_no_canary(script, &run);
        assert_eq!(
            run.status,
            status,
            "wrong status for\n  {script}\n{}",
            run.describe()
        );
        let expected = format!("rsh: denied: {command}: ");
        assert!(
            run.stderr.lines().any(|line| line.starts_with(&expected)),
            "expected a line starting with {expected:?} on stderr for\n  {script}\n{}",
            run.describe()
        );
        run
    }

    /// The control: under a policy that denies nothing, SCRIPT does create the canary (so the
    /// denial above was not vacuous). The canary is removed again.
    fn control_in(&self, cwd: &Path, script: &str) {
        let policy = self.path().join("permissive.toml");
        let run = rsh(
            cwd,
            &[
                "--policy".as_ref(),
                policy.as_os_str(),
                "-c".as_ref(),
                script.as_ref(),
            ],
        );
        let found = self.canaries();
        assert!(
            !found.is_empty(),
            "control: under a permissive policy\n  {script}\nshould have created CANARY\n{}",
            run.describe()
        );
        for file in found {
            fs::remove_file(file).expect("remove the canary");
        }
    }

    fn control(&self, script: &str) {
        self.control_in(self.path(), script);
    }
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "status: {}\nstdout: {:?}\nstderr: {:?}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// Runs rsh with ARGS in CWD, stdin empty, and returns (status, stdout, stderr) as a `Run`.
/// Fails the test if rsh is killed by a signal or runs longer than `TIMEOUT`.
fn rsh(cwd: &Path, args: &[&std::ffi::OsStr]) -> Run {
    let mut child = Command::new(RSH)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rsh");
    let stdout = drain(child.stdout.take().expect("stdout pipe"));
    let stderr = drain(child.stderr.take().expect("stderr pipe"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for rsh") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rsh {args:?} ran longer than {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(5));
    };
    let stdout = stdout.join().expect("read stdout");
    let stderr = stderr.join().expect("read stderr");
    let Some(code) = status.code() else {
        panic!(
            "rsh {args:?} was killed by signal {:?}\nstderr: {stderr:?}",
            status.signal()
        );
    };
    Run {
        status: code,
        stdout,
        stderr,
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

// ---------------------------------------------------------------------------------------------
// The tests are not vacuous
// ---------------------------------------------------------------------------------------------

#[test]
fn allowed_command_still_runs() {
    let sb = Sandbox::new();
    let run = sb.run("touch ALLOWED");
    assert!(
        sb.path().join("ALLOWED").exists(),
        "touch ALLOWED did not run\n{}",
        run.describe()
    );
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stderr, "", "{}", run.describe());
    assert!(sb.canaries().is_empty());
}

#[test]
fn canary_appears_when_sh_is_allowed() {
    let sb = Sandbox::new();
    sb.control(CANARY_SH);
}

// ---------------------------------------------------------------------------------------------
// Positions in a list
// ---------------------------------------------------------------------------------------------

#[test]
fn first_command_of_a_line() {
    let sb = Sandbox::new();
    let run = sb.denied(CANARY_SH, CANARY_SH, 126);
    assert!(
        run.stderr.contains("listed in commands.deny"),
        "the reason should name the rule\n{}",
        run.describe()
    );
}

#[test]
fn after_and() {
    Sandbox::new().denied("true && sh -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn after_or() {
    Sandbox::new().denied("false || sh -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn after_semicolon() {
    Sandbox::new().denied("true; sh -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn after_newline() {
    Sandbox::new().denied("true\nsh -c 'touch CANARY'\n", CANARY_SH, 126);
}

#[test]
fn after_negation() {
    // `!` inverts the status of a command that did not run: 126 becomes 0, as in bash.
    Sandbox::new().denied("! sh -c 'touch CANARY'", CANARY_SH, 0);
}

#[test]
fn with_prefix_assignment() {
    Sandbox::new().denied("X=1 sh -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn denied_command_opens_no_redirection() {
    let sb = Sandbox::new();
    sb.denied("sh -c 'touch CANARY' > out.txt 2> err.txt", CANARY_SH, 126);
    assert!(!sb.path().join("out.txt").exists(), "out.txt was created");
    assert!(!sb.path().join("err.txt").exists(), "err.txt was created");
}

// ---------------------------------------------------------------------------------------------
// The rest of the list after a denial
// ---------------------------------------------------------------------------------------------

#[test]
fn list_continues_after_denial() {
    let run = Sandbox::new().denied("sh -c 'touch CANARY'; echo after", CANARY_SH, 0);
    assert_eq!(run.stdout, "after\n");
}

#[test]
fn denial_counts_as_failure_for_and() {
    let run = Sandbox::new().denied("sh -c 'touch CANARY' && echo no", CANARY_SH, 126);
    assert_eq!(run.stdout, "", "`&&` ran its right side after a denial");
}

#[test]
fn denial_counts_as_failure_for_or() {
    let run = Sandbox::new().denied("sh -c 'touch CANARY' || echo yes", CANARY_SH, 0);
    assert_eq!(run.stdout, "yes\n");
}

#[test]
fn denial_status_is_visible_in_dollar_question() {
    let run = Sandbox::new().denied("sh -c 'touch CANARY'; echo status=$?", CANARY_SH, 0);
    assert_eq!(run.stdout, "status=126\n");
}

#[test]
fn errexit_stops_at_a_denial() {
    let run = Sandbox::new().denied("set -e; sh -c 'touch CANARY'; echo after", CANARY_SH, 126);
    assert_eq!(run.stdout, "", "set -e did not stop after the denial");
}

// ---------------------------------------------------------------------------------------------
// Substitutions
// ---------------------------------------------------------------------------------------------

#[test]
fn inside_command_substitution() {
    let sb = Sandbox::new();
    let run = sb.denied("echo \"[$(sh -c 'touch CANARY')]\"", CANARY_SH, 0);
    assert_eq!(run.stdout, "[]\n");
    let run = sb.denied("x=$(sh -c 'touch CANARY'); echo status=$?", CANARY_SH, 0);
    assert_eq!(run.stdout, "status=126\n");
}

#[test]
fn inside_backticks() {
    let sb = Sandbox::new();
    let run = sb.denied("echo \"[`sh -c 'touch CANARY'`]\"", CANARY_SH, 0);
    assert_eq!(run.stdout, "[]\n");
    let run = sb.denied("x=`sh -c 'touch CANARY'`; echo status=$?", CANARY_SH, 0);
    assert_eq!(run.stdout, "status=126\n");
}

#[test]
fn inside_nested_command_substitution() {
    let run = Sandbox::new().denied(
        "echo \"[$(echo \"$(sh -c 'touch CANARY')\")]\"",
        CANARY_SH,
        0,
    );
    assert_eq!(run.stdout, "[]\n");
}

#[test]
fn inside_here_document() {
    let run = Sandbox::new().denied("cat <<EOF\n[$(sh -c 'touch CANARY')]\nEOF\n", CANARY_SH, 0);
    assert_eq!(run.stdout, "[]\n");
}

#[test]
fn inside_redirection_target() {
    let sb = Sandbox::new();
    let run = sb.denied(
        "echo hi > \"$(sh -c 'touch CANARY'; echo target)\"; cat target",
        CANARY_SH,
        0,
    );
    assert_eq!(run.stdout, "hi\n");
}

#[test]
fn inside_arithmetic() {
    let run = Sandbox::new().denied("echo $(( $(sh -c 'touch CANARY') + 1 ))", CANARY_SH, 0);
    assert_eq!(run.stdout, "1\n");
}

// ---------------------------------------------------------------------------------------------
// Pipelines
// ---------------------------------------------------------------------------------------------

#[test]
fn pipeline_last_stage() {
    Sandbox::new().denied("echo x | sh -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn pipeline_first_stage() {
    let sb = Sandbox::new();
    // The pipeline's status is that of its last stage ...
    sb.denied("sh -c 'touch CANARY' | cat", CANARY_SH, 0);
    // ... unless pipefail is on.
    sb.denied(
        "set -o pipefail; sh -c 'touch CANARY' | cat",
        CANARY_SH,
        126,
    );
}

#[test]
fn pipeline_middle_stage() {
    let run = Sandbox::new().denied(
        "echo x | sh -c 'touch CANARY' | tr a b; echo end",
        CANARY_SH,
        0,
    );
    assert_eq!(run.stdout, "end\n");
}

// ---------------------------------------------------------------------------------------------
// Functions, eval, source, aliases
// ---------------------------------------------------------------------------------------------

#[test]
fn inside_function_body() {
    Sandbox::new().denied("f() { sh -c 'touch CANARY'; }; f", CANARY_SH, 126);
}

#[test]
fn inside_function_called_from_function() {
    Sandbox::new().denied(
        "f() { sh -c 'touch CANARY'; }\ng() { f; }\ng",
        CANARY_SH,
        126,
    );
}

#[test]
fn inside_eval() {
    Sandbox::new().denied("eval \"sh -c 'touch CANARY'\"", CANARY_SH, 126);
}

#[test]
fn inside_eval_built_from_pieces() {
    Sandbox::new().denied("a=s; b=h; eval \"$a$b -c 'touch CANARY'\"", CANARY_SH, 126);
}

#[test]
fn inside_sourced_file() {
    let sb = Sandbox::new();
    sb.write("inner.sh", "echo before\nsh -c 'touch CANARY'\n", false);
    let run = sb.denied("source ./inner.sh", CANARY_SH, 126);
    assert_eq!(run.stdout, "before\n");
    sb.denied(". ./inner.sh", CANARY_SH, 126);
}

#[test]
fn inside_file_written_then_sourced() {
    Sandbox::new().denied(
        "echo \"sh -c 'touch CANARY'\" > inner.sh; source ./inner.sh",
        CANARY_SH,
        126,
    );
}

#[test]
fn behind_an_alias() {
    Sandbox::new().denied(
        "shopt -s expand_aliases\nalias x=sh\nx -c 'touch CANARY'\n",
        CANARY_SH,
        126,
    );
}

// ---------------------------------------------------------------------------------------------
// The command name is computed
// ---------------------------------------------------------------------------------------------

#[test]
fn behind_a_variable() {
    let sb = Sandbox::new();
    sb.denied("c=sh; $c -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("c=sh; \"$c\" -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("${c:-sh} -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn behind_a_command_substitution() {
    Sandbox::new().denied("$(echo sh) -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn quoted_spellings() {
    let sb = Sandbox::new();
    sb.denied("\\sh -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("'s'h -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("\"sh\" -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("$'sh' -c 'touch CANARY'", CANARY_SH, 126);
}

// ---------------------------------------------------------------------------------------------
// Builtins that run other commands
// ---------------------------------------------------------------------------------------------

#[test]
fn via_command() {
    let sb = Sandbox::new();
    sb.denied("command sh -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("command -- sh -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("command -p sh -c 'touch CANARY'", CANARY_SH, 126);
    sb.denied("command command sh -c 'touch CANARY'", CANARY_SH, 126);
}

#[test]
fn via_builtin_and_command_eval() {
    let sb = Sandbox::new();
    sb.denied("builtin eval \"sh -c 'touch CANARY'\"", CANARY_SH, 126);
    sb.denied("command eval \"sh -c 'touch CANARY'\"", CANARY_SH, 126);
    sb.write("inner.sh", "sh -c 'touch CANARY'\n", false);
    sb.denied("builtin source ./inner.sh", CANARY_SH, 126);
}

#[test]
fn builtin_does_not_reach_external_programs() {
    let sb = Sandbox::new();
    let script = "builtin sh -c 'touch CANARY'";
    let run = sb.run(script);
    sb.assert_no_canary(script, &run);
    assert_eq!(run.status, 1, "{}", run.describe());
    assert!(
        run.stderr.contains("not a shell builtin"),
        "{}",
        run.describe()
    );
}

#[test]
fn via_exec() {
    let sb = Sandbox::new();
    let script = "exec sh -c 'touch CANARY'";
    let run = sb.run(script);
    sb.assert_no_canary(script, &run);
    assert_ne!(run.status, 0, "{}", run.describe());
    assert!(
        run.stderr
            .starts_with("rsh: denied: sh -c 'touch CANARY': ")
            || run.stderr.starts_with("rsh: exec: "),
        "{}",
        run.describe()
    );
}

// ---------------------------------------------------------------------------------------------
// The program is matched by identity, not by spelling
// ---------------------------------------------------------------------------------------------

#[test]
fn by_absolute_path() {
    let sb = Sandbox::new();
    for shell in ["/bin/sh", "/usr/bin/sh", "/bin/dash", "/usr/bin/dash"] {
        if !Path::new(shell).exists() {
            println!("skipped {shell}: not on this system");
            continue;
        }
        let command = format!("{shell} -c 'touch CANARY'");
        sb.denied(&command, &command, 126);
    }
}

#[test]
fn by_other_shell_names() {
    let sb = Sandbox::new();
    sb.denied("dash -c 'touch CANARY'", "dash -c 'touch CANARY'", 126);
    sb.denied("bash -c 'touch CANARY'", "bash -c 'touch CANARY'", 126);
    sb.denied(
        "/bin/bash -c 'touch CANARY'",
        "/bin/bash -c 'touch CANARY'",
        126,
    );
}

#[test]
fn via_symlink_in_the_current_directory() {
    let sb = Sandbox::new();
    symlink("/bin/sh", sb.path().join("sh")).expect("symlink ./sh -> /bin/sh");
    let script = "./sh -c 'touch CANARY'";
    sb.denied(script, script, 126);
    sb.control(script);
}

#[test]
fn via_relative_path_from_a_nested_directory() {
    let sb = Sandbox::new();
    symlink("/bin/sh", sb.path().join("sh")).expect("symlink ./sh -> /bin/sh");
    let nested = sb.path().join("a/b");
    fs::create_dir_all(&nested).expect("mkdir a/b");
    let script = "../../sh -c 'touch CANARY'";
    sb.denied_in(&nested, script, script, 126);
    sb.control_in(&nested, script);
}

/// The real file behind /bin/sh (dash on Debian).
fn real_sh() -> PathBuf {
    fs::canonicalize("/bin/sh").expect("/bin/sh exists")
}

#[test]
fn via_hard_link_to_the_shell() {
    let sb = Sandbox::new();
    let link = sb.path().join("harmless");
    match fs::hard_link(real_sh(), &link) {
        Ok(()) => {}
        Err(err) if err.raw_os_error() == Some(libc::EXDEV) => {
            println!(
                "skipped: {} and the temporary directory are on different file systems",
                real_sh().display()
            );
            return;
        }
        Err(err) => panic!("hard link to {}: {err}", real_sh().display()),
    }
    let script = "./harmless -c 'touch CANARY'";
    sb.denied(script, script, 126);
    sb.control(script);
}

#[test]
fn via_copy_named_like_an_allowed_command() {
    // A copy is a different file: not the denied shell, but not the allowed `true` or `ls`
    // either. It is an unknown command, and unknown is denied.
    let sb = Sandbox::new();
    for name in ["true", "ls"] {
        fs::copy(real_sh(), sb.path().join(name)).expect("copy the shell");
        let script = format!("./{name} -c 'touch CANARY'");
        let run = sb.denied(&script, &script, 126);
        assert!(
            run.stderr.contains("shell.unknown"),
            "the copy should be an unknown command\n{}",
            run.describe()
        );
        sb.control(&script);
    }
}

#[test]
fn shebang_script_is_refused() {
    let sb = Sandbox::new();
    sb.write("script.sh", "#!/bin/sh\ntouch CANARY\n", true);
    sb.denied("./script.sh", "./script.sh", 126);
    sb.control("./script.sh");
}

#[test]
fn shell_script_allowed_by_path_runs_under_rsh_with_its_commands_decided() {
    // A `#!/bin/sh` script is not handed to sh (which is denied): rsh runs it itself, and
    // the denied command inside it is refused like any other.
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let script = dir.path().join("script.sh");
    fs::write(&script, "#!/bin/sh\nsh -c 'touch CANARY'\necho inner=$?\n")
        .expect("write script.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let policy = POLICY.replace(r#""tr"]"#, &format!(r#""tr", "{}"]"#, script.display()));
    assert_ne!(policy, POLICY);
    let sb = Sandbox { dir };
    fs::write(sb.policy(), &policy).expect("write policy.toml");
    let run = sb.denied("./script.sh", CANARY_SH, 0);
    assert_eq!(run.stdout, "inner=126\n");
}

#[test]
fn script_allowed_by_path_is_refused_for_its_interpreter() {
    // An interpreter rsh does not take over (bash with an option it does not know) is
    // decided as the command that would run: denied here, so the script is refused.
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let script = dir.path().join("script.sh");
    fs::write(&script, "#!/bin/bash --norc\ntouch CANARY\n").expect("write script.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let policy = POLICY.replace(r#""tr"]"#, &format!(r#""tr", "{}"]"#, script.display()));
    let sb = Sandbox { dir };
    fs::write(sb.policy(), &policy).expect("write policy.toml");
    fs::write(sb.path().join("permissive.toml"), PERMISSIVE).expect("write permissive.toml");
    let run = sb.denied("./script.sh", "./script.sh", 126);
    assert!(
        run.stderr.contains("its #! interpreter /bin/bash"),
        "{}",
        run.describe()
    );
    sb.control("./script.sh");
}

#[test]
fn inside_a_script_without_shebang() {
    // An executable text file without `#!` is interpreted by rsh itself; its commands are
    // decided one by one.
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let script = dir.path().join("plain");
    fs::write(&script, "sh -c 'touch CANARY'\necho inner=$?\n").expect("write plain");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let policy = POLICY.replace(r#""tr"]"#, &format!(r#""tr", "{}"]"#, script.display()));
    let sb = Sandbox { dir };
    fs::write(sb.policy(), &policy).expect("write policy.toml");
    let run = sb.denied("./plain", CANARY_SH, 0);
    assert_eq!(run.stdout, "inner=126\n");
}

// ---------------------------------------------------------------------------------------------
// Compound commands
// ---------------------------------------------------------------------------------------------

#[test]
fn if_condition() {
    let run = Sandbox::new().denied(
        "if sh -c 'touch CANARY'; then echo then; else echo else; fi",
        CANARY_SH,
        0,
    );
    assert_eq!(run.stdout, "else\n");
}

#[test]
fn if_body() {
    Sandbox::new().denied("if true; then sh -c 'touch CANARY'; fi", CANARY_SH, 126);
}

#[test]
fn else_body() {
    Sandbox::new().denied(
        "if false; then :; else sh -c 'touch CANARY'; fi",
        CANARY_SH,
        126,
    );
}

#[test]
fn elif_condition() {
    let run = Sandbox::new().denied(
        "if false; then :; elif sh -c 'touch CANARY'; then echo elif; else echo else; fi",
        CANARY_SH,
        0,
    );
    assert_eq!(run.stdout, "else\n");
}

#[test]
fn while_condition() {
    let run = Sandbox::new().denied(
        "while sh -c 'touch CANARY'; do echo loop; done; echo end",
        CANARY_SH,
        0,
    );
    assert_eq!(run.stdout, "end\n");
}

#[test]
fn while_body() {
    Sandbox::new().denied(
        "n=0; while [ $n -lt 1 ]; do n=1; sh -c 'touch CANARY'; done",
        CANARY_SH,
        126,
    );
}

#[test]
fn until_condition() {
    Sandbox::new().denied("until sh -c 'touch CANARY'; do break; done", CANARY_SH, 0);
}

#[test]
fn for_body() {
    Sandbox::new().denied("for i in 1; do sh -c 'touch CANARY'; done", CANARY_SH, 126);
}

#[test]
fn case_body() {
    Sandbox::new().denied("case x in x) sh -c 'touch CANARY' ;; esac", CANARY_SH, 126);
}

#[test]
fn inside_subshell() {
    Sandbox::new().denied("( sh -c 'touch CANARY' )", CANARY_SH, 126);
}

#[test]
fn inside_group() {
    Sandbox::new().denied("{ sh -c 'touch CANARY'; }", CANARY_SH, 126);
}

#[test]
fn inside_nested_compounds() {
    Sandbox::new().denied(
        "( { if true; then ( sh -c 'touch CANARY' ); fi; } )",
        CANARY_SH,
        126,
    );
}

// ---------------------------------------------------------------------------------------------
// Other ways of giving rsh its input
// ---------------------------------------------------------------------------------------------

#[test]
fn first_command_of_a_script_file() {
    let sb = Sandbox::new();
    sb.write("script", "sh -c 'touch CANARY'\necho after=$?\n", false);
    let policy = sb.policy();
    let run = rsh(
        sb.path(),
        &["--policy".as_ref(), policy.as_os_str(), "script".as_ref()],
    );
    sb.assert_no_canary("rsh script", &run);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, "after=126\n", "{}", run.describe());
    assert!(
        run.stderr
            .starts_with("rsh: denied: sh -c 'touch CANARY': "),
        "{}",
        run.describe()
    );
}

// ---------------------------------------------------------------------------------------------
// The built-in default policy
// ---------------------------------------------------------------------------------------------

#[test]
fn default_policy_denies_shells() {
    let system = Path::new("/etc/rsh/policy.toml");
    if system.symlink_metadata().is_ok() {
        println!(
            "skipped: {} exists, so the built-in default policy is not in use",
            system.display()
        );
        return;
    }
    let sb = Sandbox::new();
    for script in [
        "sh -c 'touch CANARY'",
        "bash -c 'touch CANARY'",
        "/bin/sh -c 'touch CANARY'",
    ] {
        let run = rsh(sb.path(), &["-c".as_ref(), script.as_ref()]);
        sb.assert_no_canary(script, &run);
        assert_eq!(run.status, 126, "{script}\n{}", run.describe());
        assert!(
            run.stderr.starts_with(&format!("rsh: denied: {script}: ")),
            "{script}\n{}",
            run.describe()
        );
        assert!(
            run.stderr.contains("built-in default policy"),
            "the reason should name the built-in default policy\n{}",
            run.describe()
        );
    }
    // And an allowed command runs under it.
    let run = rsh(sb.path(), &["-c".as_ref(), "touch ALLOWED".as_ref()]);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(sb.path().join("ALLOWED").exists(), "{}", run.describe());
}

/// Password hashes, their backups (`/etc/shadow-`, which `passwd` and `useradd` leave) and the
/// old hashes pam_pwhistory keeps are out of reach under the built-in policy: by name, by a
/// redirection, and in the kernel for a program that walks /etc on its own.
#[test]
fn default_policy_keeps_password_hashes_and_their_backups() {
    if Path::new("/etc/rsh/policy.toml").symlink_metadata().is_ok() {
        println!(
            "skipped: /etc/rsh/policy.toml exists, so the built-in default policy is not in use"
        );
        return;
    }
    let sb = Sandbox::new();
    let files = [
        "/etc/shadow",
        "/etc/shadow-",
        "/etc/gshadow",
        "/etc/gshadow-",
        "/etc/security/opasswd",
    ];
    let mut checked = 0;
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            println!("skipped {file}: not on this system (or not readable by the test)");
            continue;
        };
        checked += 1;
        for script in [format!("cat {file}"), format!("head -n 5 < {file}")] {
            let run = rsh(sb.path(), &["-c".as_ref(), script.as_ref()]);
            let leaked = text
                .lines()
                .any(|l| !l.is_empty() && run.stdout.contains(l));
            assert!(!leaked, "{script} printed the file\n{}", run.describe());
            assert!(
                run.stderr
                    .contains(&format!("{file} is denied (paths.deny)")),
                "{script}\n{}",
                run.describe()
            );
        }
    }
    assert!(
        checked > 0,
        "none of {files:?} is readable here: nothing was checked"
    );
    // grep finds the files itself: only the kernel stands in its way.
    let run = rsh(sb.path(), &["-c".as_ref(), "grep -r -h '' /etc".as_ref()]);
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let first = passwd.lines().next().unwrap();
    assert!(
        run.stdout.contains(first),
        "grep -r /etc read nothing\n{}",
        run.describe()
    );
    for file in files {
        if let Ok(text) = std::fs::read_to_string(file) {
            let leaked = text
                .lines()
                .any(|l| l.contains(':') && run.stdout.contains(l));
            assert!(!leaked, "grep -r read {file}\n{}", run.stderr);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Attacks on the link between the decision and the execution
// ---------------------------------------------------------------------------------------------

/// rsh keeps the decided program open and executes that descriptor: a redirection onto the
/// descriptor's number (`3<`, `100<`) must not turn the allowed `ls` into dash.
#[test]
fn redirection_onto_the_program_descriptor_does_not_swap_the_program() {
    let sb = Sandbox::new();
    let fds: Vec<String> = [3, 4, 5, 6, 7, 8, 9, 100, 101]
        .iter()
        .map(|n| format!("{n}</bin/dash"))
        .collect();
    let script = format!("ls -c 'touch CANARY' {}; echo done", fds.join(" "));
    let run = sb.run(&script);
    sb.assert_no_canary(&script, &run);
    assert_eq!(run.stdout, "done\n", "{}", run.describe());
}

/// A deleted program still open on a descriptor, with a symlink named like its
/// `(deleted)` path pointing at an allowed program: rsh must decide on the file it opened.
#[test]
fn a_deleted_program_cannot_pass_as_the_symlink_named_like_it() {
    let sb = Sandbox::with_policy(&POLICY.replace(r#""tr"]"#, r#""tr", "cp", "rm", "ln"]"#));
    let script = r#"cp /bin/dash ./x; exec 3<./x; rm ./x; ln -s /usr/bin/ls "$PWD/x (deleted)"; /proc/self/fd/3 -c 'touch CANARY'"#;
    let run = sb.run(script);
    sb.assert_no_canary(script, &run);
    assert!(
        run.stderr.contains("rsh: denied: /proc/self/fd/3"),
        "{}",
        run.describe()
    );
}

/// The `#!` line is read as the kernel reads it (only spaces and tabs separate), so an
/// interpreter named `cat\f` is that file, not `cat`.
#[test]
fn a_shebang_interpreter_is_the_file_the_kernel_would_run() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let tools = dir.path().join("tools");
    fs::create_dir(&tools).expect("mkdir tools");
    symlink("/usr/bin/cat", tools.join("cat")).expect("symlink cat");
    symlink("/bin/dash", tools.join("cat\x0c")).expect("symlink cat\\f");
    let script = dir.path().join("user.sh");
    let interpreter = format!("#!{}/cat\x0c\n", tools.display());
    fs::write(&script, format!("{interpreter}touch CANARY\n")).expect("write user.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let policy = POLICY.replace(r#""tr"]"#, &format!(r#""tr", "{}"]"#, script.display()));
    let sb = Sandbox { dir };
    fs::write(sb.policy(), &policy).expect("write policy.toml");
    sb.denied("./user.sh", "./user.sh", 126);
}

/// A newline inside an argument must not hide the argument list from a `re:` deny pattern.
#[test]
fn a_newline_in_an_argument_does_not_defeat_a_regex_pattern() {
    let policy = format!("{POLICY}\n[commands.touch]\ndeny = [\"re:.*CANARY.*\"]\n");
    let sb = Sandbox::with_policy(&policy);
    let script = "touch $'x\\ny' CANARY";
    let run = sb.run(script);
    sb.assert_no_canary(script, &run);
    assert_eq!(run.status, 126, "{}", run.describe());
}

/// Variables that make a program load code are not passed on: a library named in LD_PRELOAD
/// never reaches an allowed program.
#[test]
fn code_injecting_variables_are_not_passed_to_programs() {
    let sb = Sandbox::with_policy(&POLICY.replace(r#""tr"]"#, r#""tr", "env"]"#));
    let run = sb.run("LD_PRELOAD=/nonexistent.so BASH_ENV=/x GIT_CONFIG_COUNT=1 env");
    assert_eq!(run.status, 0, "{}", run.describe());
    for name in ["LD_PRELOAD", "BASH_ENV", "GIT_CONFIG_COUNT"] {
        assert!(
            !run.stdout.contains(name),
            "{name} reached the program\n{}",
            run.describe()
        );
    }
    // PATH is the policy's, whatever the shell variable says.
    let run = sb.run("PATH=/tmp/evil:$PATH env");
    let path = run
        .stdout
        .lines()
        .find(|l| l.starts_with("PATH="))
        .unwrap_or("");
    assert_eq!(
        path,
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "{}",
        run.describe()
    );
}

/// `exec` replaces the shell only with a decided command.
#[test]
fn exec_runs_only_a_decided_command() {
    let sb = Sandbox::new();
    let run = sb.denied("exec sh -c 'touch CANARY'; echo after", CANARY_SH, 0);
    assert_eq!(run.stdout, "after\n");
    let run = sb.run("exec -a sh /bin/dash -c 'touch CANARY'");
    sb.assert_no_canary("exec -a", &run);
    assert_eq!(run.status, 2, "{}", run.describe());
    let run = sb.run("exec echo replaced; echo never");
    assert_eq!(run.stdout, "replaced\n", "{}", run.describe());
}

/// Wrappers are allowed here, and may start programs; what they run is decided as if typed.
const WRAPPERS: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[commands]
allow = ["nice", "timeout", "env", "xargs", "echo", "awk", "python3", "touch"]
deny = ["sh", "dash", "bash"]
nice = { subprocesses = true }
timeout = { subprocesses = true }
env = { subprocesses = true }
xargs = { subprocesses = true }
python3 = { subprocesses = true }

[paths]
read = ["/"]
write = ["."]
exec = ["/usr/bin", "/bin", "/usr/local/bin"]
"#;

#[test]
fn a_wrapped_command_is_decided_as_if_typed() {
    let sb = Sandbox::with_policy(WRAPPERS);
    for (script, command) in [
        ("nice sh -c 'touch CANARY'", "nice sh -c 'touch CANARY'"),
        (
            "nice -n 5 sh -c 'touch CANARY'",
            "nice -n 5 sh -c 'touch CANARY'",
        ),
        (
            "timeout 5 env A=1 sh -c 'touch CANARY'",
            "timeout 5 env A=1 sh -c 'touch CANARY'",
        ),
        (
            "echo x | xargs sh -c 'touch CANARY'",
            "xargs sh -c 'touch CANARY'",
        ),
        (
            "env -S \"sh -c 'touch CANARY'\"",
            "env -S 'sh -c '\\''touch CANARY'\\'''",
        ),
        (
            "env PATH=/bin sh -c 'touch CANARY'",
            "env PATH=/bin sh -c 'touch CANARY'",
        ),
        // awk may not start programs; under xargs, whose program runs it, it could.
        (
            "echo x | xargs awk 'BEGIN{system(\"touch CANARY\")}'",
            "xargs awk 'BEGIN{system(\"touch CANARY\")}'",
        ),
    ] {
        let run = sb.denied(script, command, 126);
        assert!(
            run.stderr.contains(": runs ") || run.stderr.contains("env "),
            "{}",
            run.describe()
        );
        sb.control(script);
    }
}

/// A wrapper's options read as its getopt_long reads them: an abbreviated long option, a
/// value inside a group of short options, an optional value that is not the next word. Read
/// otherwise, rsh would decide python3 (allowed, and may start programs) while the wrapper
/// runs the shell.
#[test]
fn a_wrapped_command_is_found_as_the_wrapper_finds_it() {
    let sb = Sandbox::with_policy(WRAPPERS);
    fs::write(sb.path().join("python3"), "touch CANARY\n").expect("write the script");
    for (script, command) in [
        (
            "env --sp=\"sh -c 'touch CANARY'\"",
            "env '--sp=sh -c '\\''touch CANARY'\\'''",
        ),
        (
            "env -iu python3 sh -c 'touch CANARY'",
            "env -iu python3 sh -c 'touch CANARY'",
        ),
        (
            "echo x | xargs -0I python3 sh -c 'touch CANARY'",
            "xargs -0I python3 sh -c 'touch CANARY'",
        ),
        (
            "echo x | xargs --replace sh python3",
            "xargs --replace sh python3",
        ),
        ("echo x | xargs -l sh python3", "xargs -l sh python3"),
    ] {
        sb.denied(script, command, 126);
        sb.control(script);
    }
}

/// A policy that denies `source` and `test`: their other names, `.` and `[`.
const SYNONYMS: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[commands]
allow = ["touch"]
deny = ["source", "test"]
"#;

#[test]
fn a_builtin_denied_by_one_name_is_denied_by_the_other() {
    let sb = Sandbox::with_policy(SYNONYMS);
    fs::write(sb.path().join("dotf"), "touch CANARY\n").expect("write the script");
    for (script, command) in [
        (". ./dotf", ". ./dotf"),
        ("command . ./dotf", ". ./dotf"),
        ("builtin . ./dotf", ". ./dotf"),
        ("[ 1 = 1 ] && touch CANARY", "'[' 1 = 1 ']'"),
    ] {
        sb.denied(script, command, 126);
        sb.control(script);
    }
}

/// A refusal shows the command as the confirmation question would: a right-to-left override
/// in a file name cannot make the line read as another.
#[test]
fn a_refusal_shows_invisible_characters_escaped() {
    let sb = Sandbox::new();
    let run = sb.run("sh -c 'touch CANARY' \u{202e}txt.sh");
    sb.assert_no_canary("sh", &run);
    assert!(!run.stderr.contains('\u{202e}'), "{}", run.describe());
    assert!(run.stderr.contains("\\u{202e}txt.sh"), "{}", run.describe());
}

/// rsh's other messages show names the same way: an escape sequence in a file or command
/// name (here one that clears the screen) reaches the terminal as text.
#[test]
fn messages_show_control_characters_in_names_escaped() {
    let sb = Sandbox::new();
    // The built-in policy, whose write roots leave /etc out.
    let default = |script: &str| rsh(sb.path(), &["-c".as_ref(), script.as_ref()]);
    for script in [
        // A redirection refused: writing outside the write roots.
        "echo x > \"/etc/$(printf 'a\\033[2Jb')\"",
        // A redirection that fails: no such directory.
        "cat < \"$(printf 'no\\033[2Jdir')/x\"",
        // A command that is not there.
        "\"$(printf 'no\\033[2Jcmd')\"",
        // A builtin's complaint.
        "cd \"$(printf 'no\\033[2Jdir')\"",
    ] {
        let run = default(script);
        let shown = format!("{script}: {}", run.describe());
        assert_ne!(run.status, 0, "{shown}");
        assert!(!run.stderr.contains('\u{1b}'), "{shown}");
        assert!(run.stderr.contains("\\x1b[2J"), "{shown}");
    }
    assert!(!std::path::Path::new("/etc/a\u{1b}[2Jb").exists());
}

#[test]
fn a_wrapped_command_that_is_allowed_runs() {
    let sb = Sandbox::with_policy(WRAPPERS);
    let run = sb.run("timeout 5 nice python3 -c 'open(\"made\", \"w\")' && echo ok");
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "ok\n"),
        "{}",
        run.describe()
    );
    assert!(sb.path().join("made").exists());
}

/// timeout is performed by rsh: the command starts directly, and rsh ends it when the time
/// passes (its signal to the command alone, not to the rest of a pipeline), with timeout's
/// statuses.
#[test]
fn timeout_is_performed_by_rsh() {
    let sb = Sandbox::new();
    let default = |script: &str| rsh(sb.path(), &["-c".as_ref(), script.as_ref()]);
    let started = std::time::Instant::now();
    let run = default(
        "timeout 0.5 sleep 30; echo \"ended $?\"; timeout 5 true; echo \"ran $?\"; \
         timeout -s KILL 0.2 sleep 30; echo \"killed $?\"; \
         timeout --preserve-status 0.2 sleep 30; echo \"kept $?\"; \
         timeout 0.3 sleep 30 | { sleep 1; echo alive; }",
    );
    assert_eq!(
        run.stdout,
        "ended 124\nran 0\nkilled 137\nkept 143\nalive\n",
        "{}",
        run.describe()
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{}",
        run.describe()
    );
    // What it runs is decided as if typed.
    refuses_the_shell_it_runs(&sb, "timeout 5");
}

/// `WRAPPER sh -c 'touch CANARY'` under the built-in default policy: refused as the shell
/// it runs, and nothing written.
fn refuses_the_shell_it_runs(sb: &Sandbox, wrapper: &str) {
    let script = format!("{wrapper} sh -c 'touch CANARY'");
    let run = rsh(sb.path(), &["-c".as_ref(), script.as_ref()]);
    assert_eq!(run.status, 126, "{}", run.describe());
    assert!(
        run.stderr
            .contains("runs sh -c 'touch CANARY': listed in commands.deny"),
        "{}",
        run.describe()
    );
    sb.assert_no_canary(&script, &run);
}

/// env and nice are performed by rsh, with no right to start programs: what they run is
/// started by rsh itself, decided as if typed and confined as itself (the built-in default
/// policy allows them).
#[test]
fn env_and_nice_are_performed_by_rsh() {
    let sb = Sandbox::new();
    let default = |script: &str| rsh(sb.path(), &["-c".as_ref(), script.as_ref()]);
    let run = default(
        "env LANG=C.UTF-8 printenv LANG; env -i printenv LANG || echo none; \
         env LD_PRELOAD=/nowhere.so printenv LD_PRELOAD || echo dropped; \
         nice -n 7 awk '{ print $19 }' /proc/self/stat; env -u HOME printenv HOME || echo unset",
    );
    assert_eq!(
        run.stdout,
        "C.UTF-8\nnone\ndropped\n7\nunset\n",
        "{}",
        run.describe()
    );
    // A confined program may not raise its priority (even root's loses CAP_SYS_NICE): it
    // runs at rsh's, with nice's warning.
    let run = default(
        "awk '{ print $19 }' /proc/self/stat; nice -n -5 awk '{ print $19 }' /proc/self/stat",
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines.len() == 2 && lines[0] == lines[1],
        "{}",
        run.describe()
    );
    assert!(
        run.stderr
            .contains("nice: cannot set niceness: Permission denied"),
        "{}",
        run.describe()
    );
    // What they run is still decided: a shell is refused, and awk cannot start one.
    refuses_the_shell_it_runs(&sb, "env A=1");
    refuses_the_shell_it_runs(&sb, "nice");
    let script = "nice awk 'BEGIN { system(\"touch CANARY\") }'";
    let run = default(script);
    sb.assert_no_canary(script, &run);
    sb.control(script);
}
