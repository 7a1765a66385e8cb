//! Risk levels and modes: `[shell] mode = "readonly"` runs only low-risk commands,
//! `strict = true` asks before every other one, `mode = "audit"` runs everything and reports
//! what enforce would refuse, and `[risk]` overrides the built-in classification.
//!
//! Each case runs the real binary in a temporary directory and checks what the line did to
//! the files there, then the status and the message. Each refusal has a control under the
//! same policy in enforce mode, showing the line would have changed the file.

use std::fs;
use std::path::Path;

mod common;

use common::{Run, run_rsh};

fn policy(shell: &str, extra: &str) -> String {
    format!(
        r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
{shell}

[commands]
allow = ["ls", "cat", "cp", "rm", "sed", "awk", "echo", "sort", "touch", "git"]
deny = ["mv"]

[paths]
read = ["/"]
write = ["."]
{extra}"#
    )
}

/// A directory with `policy.toml` and `data.txt`, where rsh runs.
struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new(shell: &str, extra: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("policy.toml"), policy(shell, extra)).unwrap();
        fs::write(dir.path().join("enforce.toml"), policy("", extra)).unwrap();
        fs::write(dir.path().join("data.txt"), "b\na\n").unwrap();
        Case { dir }
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }

    fn run_with(&self, policy: &str, args: &[&str]) -> Run {
        run_rsh(&self.path(policy), self.dir.path(), args)
    }

    fn run(&self, script: &str) -> Run {
        self.run_with("policy.toml", &["-c", script])
    }

    /// SCRIPT creates `file` in enforce mode, and under the case's policy it is refused with
    /// a message holding `why`, and `file` does not appear.
    fn refuses_write(&self, script: &str, file: &str, why: &str) {
        let control = self.run_with("enforce.toml", &["-c", script]);
        assert!(
            self.path(file).exists(),
            "control: {script} should create {file}\n{}",
            control.describe()
        );
        fs::remove_file(self.path(file)).unwrap();
        let run = self.run(script);
        assert!(
            !self.path(file).exists(),
            "{script} created {file}\n{}",
            run.describe()
        );
        // 126 for a refused command, 1 for a refused redirection (as for a file that cannot
        // be opened).
        assert!(
            [1, 126].contains(&run.status),
            "{script}\n{}",
            run.describe()
        );
        assert!(
            run.stderr.starts_with("rsh: denied: ") && run.stderr.contains(why),
            "{script}: expected a denial naming {why:?}\n{}",
            run.describe()
        );
    }
}

fn exists(path: &Path) -> bool {
    path.exists()
}

#[test]
fn readonly_runs_readers_and_refuses_every_write() {
    let case = Case::new(r#"mode = "readonly""#, "");
    let why = r#"shell.mode = "readonly" runs only read-only commands"#;
    case.refuses_write("cp data.txt copy", "copy", why);
    case.refuses_write("touch made", "made", why);
    case.refuses_write("cat data.txt > out", "out", "writes out");
    case.refuses_write("echo x >> out", "out", why);
    case.refuses_write("sort -o sorted data.txt", "sorted", "writes sorted");
    case.refuses_write(
        "sed -n w/dev/stdout data.txt; sed w.wrote data.txt",
        ".wrote",
        why,
    );

    let run = case.run("cat data.txt; sort data.txt 2>/dev/null; sed -n 1p data.txt; ls");
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(
        run.stdout,
        "b\na\na\nb\nb\ndata.txt\nenforce.toml\npolicy.toml\n"
    );

    // rm is high risk with -r; without, it is medium: refused either way.
    let run = case.run("rm -f data.txt");
    assert!(exists(&case.path("data.txt")), "{}", run.describe());
    run.assert_stderr_has("medium risk");
    let run = case.run("rm -rf data.txt");
    assert!(exists(&case.path("data.txt")), "{}", run.describe());
    assert!(
        run.stderr
            .contains("high risk (built-in classification: hard to undo)"),
        "{}",
        run.describe()
    );
}

#[test]
fn strict_asks_before_everything_that_is_not_low_risk() {
    let case = Case::new("strict = true", "");
    let why = "shell.strict = true asks before every command that is not read-only";
    case.refuses_write("cp data.txt copy", "copy", why);
    case.refuses_write("cat data.txt > out", "out", why);
    let run = case.run("cp data.txt copy");
    assert!(
        run.stderr
            .contains("it needs confirmation and rsh cannot ask here"),
        "{}",
        run.describe()
    );
    let run = case.run("cat data.txt | sort");
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, "a\nb\n");
}

#[test]
fn audit_runs_what_enforce_refuses_and_reports_it() {
    let case = Case::new(r#"mode = "audit""#, "");
    // mv is denied by the policy; in audit mode it runs, and rsh says what it would have done.
    let run = case.run("mv data.txt moved.txt; echo status=$?");
    assert!(exists(&case.path("moved.txt")), "{}", run.describe());
    assert_eq!(run.stdout, "status=0\n");
    assert!(
        run.stderr
            .contains("rsh: audit: would refuse mv data.txt moved.txt: listed in commands.deny"),
        "{}",
        run.describe()
    );
    // The file rules are the kernel's, and stay: a write outside the write roots is refused
    // by rsh for a redirection and by the kernel for a program.
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("out");
    let run = case.run(&format!("echo x > {0}; cp moved.txt {0}", target.display()));
    assert!(!exists(&target), "{}", run.describe());
    run.assert_stderr_has("outside the write roots");
}

#[test]
fn policy_risk_beats_the_built_in_classification() {
    let case = Case::new(
        "strict = true",
        "[risk]\nlow = [\"cp data.txt :*\"]\nhigh = [\"cat :*\"]\n",
    );
    let run = case.run("cp data.txt copy");
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(exists(&case.path("copy")));
    let run = case.run("cat data.txt");
    assert_eq!(run.stdout, "", "{}", run.describe());
    assert!(
        run.stderr
            .contains(r#"this is high risk (matches risk.high "cat :*""#),
        "{}",
        run.describe()
    );
    // Without the built-in classification, nothing is low unless the policy says so.
    let case = Case::new(r#"mode = "readonly""#, "[risk]\nbuiltin = false\n");
    let run = case.run("ls");
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("not known to only read");
}

#[test]
fn readonly_leaves_programs_no_write_roots() {
    // Even a command the policy calls low risk cannot write: the kernel gives it no write
    // roots.
    let case = Case::new(
        r#"mode = "readonly""#,
        "[risk]\nlow = [\"cp data.txt :*\", \"sed :*\", \"awk :*\"]\n",
    );
    let run = case.run("cp data.txt copy; sed -i s/a/x/ data.txt");
    assert!(!exists(&case.path("copy")), "{}", run.describe());
    assert_eq!(
        fs::read_to_string(case.path("data.txt")).unwrap(),
        "b\na\n",
        "{}",
        run.describe()
    );
    assert_ne!(run.status, 0, "{}", run.describe());

    // A write rsh cannot see (to a file whose name awk reads from its input) is stopped by
    // the kernel; in enforce mode the same line writes.
    let script = "echo copy2 | awk '{ print > $1 }'";
    let control = case.run_with("enforce.toml", &["-c", script]);
    assert!(exists(&case.path("copy2")), "{}", control.describe());
    fs::remove_file(case.path("copy2")).unwrap();
    let run = case.run(script);
    assert!(!exists(&case.path("copy2")), "{}", run.describe());
    let refused = nix::errno::Errno::from_raw(common::write_refused());
    run.assert_stderr_has(refused.desc());
}

#[test]
fn explain_reports_risk_and_what_the_mode_makes_of_it() {
    let case = Case::new(r#"mode = "readonly""#, "");
    let run = case.run_with("policy.toml", &["--explain", "cat data.txt; cp data.txt c"]);
    assert!(
        run.stdout
            .contains("  risk:      low: built-in classification: reads only\n"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout
            .contains("  decision:  deny: shell.mode = \"readonly\" runs only read-only commands"),
        "{}",
        run.describe()
    );
    let run = case.run_with("policy.toml", &["--explain", "cp data.txt c", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let segment = &json["segments"][0];
    assert_eq!(segment["risk"], "medium", "{}", run.stdout);
    assert_eq!(segment["verdict"], "deny", "{}", run.stdout);
    assert_eq!(json["allowed"], false);

    // In audit mode, explain says the line runs, and what would be reported.
    let case = Case::new(r#"mode = "audit""#, "");
    let run = case.run_with("policy.toml", &["--explain", "mv a b"]);
    run.assert_stdout_has(
        "decision:  allow: shell.mode = \"audit\": it runs, and rsh reports that it would deny",
    );
}

#[test]
fn a_bad_mode_or_risk_stops_rsh_with_its_place() {
    let case = Case::new(r#"mode = "plan""#, "");
    let run = case.run("echo hi");
    assert_ne!(run.status, 0);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains(":3:8: shell.mode: expected \"enforce\", \"readonly\" or \"audit\""),
        "{}",
        run.describe()
    );
    let case = Case::new("", "[commands.cat]\nrisk = \"none\"\n");
    let run = case.run("echo hi");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("expected \"low\", \"medium\" or \"high\""),
        "{}",
        run.describe()
    );
}

#[test]
fn the_session_ends_after_the_policy_s_number_of_refusals() {
    let case = Case::new("warnings = 2", "");
    let run = case.run("mv a b; echo one; mv c d; echo two");
    assert_eq!(run.status, 126, "{}", run.describe());
    assert_eq!(run.stdout, "one\n");
    run.assert_stderr_has("rsh: 2 commands refused (shell.warnings = 2); the session ends");

    // Interactively too: the prompt does not come back.
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_rsh"));
    command
        .arg("--policy")
        .arg(case.path("policy.toml"))
        .arg("-i")
        .current_dir(case.dir.path())
        .env("PS1", "PROMPT> ");
    let mut pty = common::pty::Pty::spawn(command, false);
    let wait = std::time::Duration::from_secs(10);
    pty.expect("PROMPT> ", wait);
    pty.send_line("mv a b");
    pty.expect("PROMPT> ", wait);
    pty.send_line("mv c d");
    pty.expect("the session ends", wait);
    let (status, rest) = pty.wait();
    assert_eq!(status, Some(126), "{rest}");
    assert!(!rest.contains("PROMPT> "), "{rest:?}");
}
