//! Output safety end to end: with `[output]`, what the session prints through a pipe (an
//! agent's transcript) has its secrets replaced and is cut at `max_bytes`; what goes to a
//! terminal is left alone unless `terminals = true`.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

use common::Run;
use common::pty::Pty;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

fn policy(dir: &std::path::Path, output: &str) -> PathBuf {
    let path = dir.join("policy.toml");
    let text = format!(
        "[shell]\npath = [\"/usr/local/bin\", \"/usr/bin\", \"/bin\"]\nunknown = \"allow\"\n\
         [sandbox]\nmode = \"off\"\n[output]\n{output}\n"
    );
    fs::write(&path, text).unwrap();
    path
}

fn rsh(policy: &std::path::Path, line: &str) -> Run {
    let out = common::without_terminal(&mut Command::new(RSH))
        .arg("--policy")
        .arg(policy)
        .arg("-c")
        .arg(line)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run::of(out)
}

#[test]
fn secrets_in_programs_output_are_redacted_on_both_streams() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("secrets.txt");
    fs::write(
        &secrets,
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n\
         -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n\
         visible line\n",
    )
    .unwrap();
    let policy = policy(dir.path(), "redact = true\npatterns = [\"ticket-[0-9]+\"]");
    let line = format!(
        "cat {}; echo 'db password=hunter22' >&2; printf 'ticket-7'; exit 4",
        secrets.display()
    );
    let run = rsh(&policy, &line);
    assert_eq!(run.status, 4, "{}", run.describe());
    assert_eq!(
        run.stdout,
        "AWS_ACCESS_KEY_ID=[REDACTED]\n[REDACTED]\nvisible line\n[REDACTED]"
    );
    assert_eq!(run.stderr, "db password=[REDACTED]\n");
}

#[test]
fn output_past_max_bytes_is_cut_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let policy = policy(dir.path(), "max_bytes = 100");
    let run = rsh(&policy, "seq 1 1000");
    assert_eq!(run.status, 0, "{}", run.describe());
    let (shown, notice) = run.stdout.split_at(100);
    assert!(shown.starts_with("1\n2\n3\n"), "{shown}");
    assert_eq!(
        notice,
        "\n[rsh: output.max_bytes: 3793 more bytes not shown]\n"
    );
}

#[test]
fn terminals_are_left_alone_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    for (setting, shown) in [
        ("redact = true", "AKIAIOSFODNN7EXAMPLE"),
        ("redact = true\nterminals = true", "[REDACTED]"),
    ] {
        let policy = policy(dir.path(), setting);
        let mut command = Command::new(RSH);
        command
            .arg("--policy")
            .arg(&policy)
            .arg("-c")
            .arg("echo key AKIAIOSFODNN7EXAMPLE end");
        let mut pty = Pty::spawn(command, false);
        let seen = pty.expect(" end", Duration::from_secs(10));
        assert!(
            seen.contains(&format!("key {shown}")),
            "{setting}: {seen:?}"
        );
        assert_eq!(pty.wait().0, Some(0));
    }
}
