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

/// Runs rsh with `line`, its standard output and error going to `stdout` and `stderr`;
/// killed, with everything it started, if it has not ended within a minute.
fn rsh_until_done(policy: &std::path::Path, line: &str, stdout: Stdio, stderr: Stdio) -> i32 {
    let mut child = common::without_terminal(&mut Command::new(RSH))
        .arg("--policy")
        .arg(policy)
        .arg("-c")
        .arg(line)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if std::time::Instant::now() > deadline {
            // SAFETY: a signal to the session's process group (rsh, its filter and its
            // programs), which rsh leads.
            unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
            let _ = child.wait();
            panic!("{line}: still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Lines of every kind, some of them longer than the filter's pieces and blocks, in a
/// fixed random order: about `size` bytes.
fn mixed_output(size: usize) -> String {
    let long = "y".repeat(40_000);
    let very_long = "z ".repeat(150_000);
    let lines = [
        "plain text without anything",
        "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
        "key AKIAIOSFODNN7EXAMPLE ok",
        "password = hunter22; api_key: 'k3yk3y' and Bearer abcdefghijklmnop0123",
        "db: postgres://app:s3cr3t@db:5432/x",
        "let token = next_token(&mut tokens); // words, no values",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "windows line\r",
        &long,
        &format!("{long} password=inalongline"),
        &format!("{very_long}AKIAIOSFODNN7EXAMPLE"),
    ];
    let mut text = String::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    while text.len() < size {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // The long lines rarely.
        let i = (seed % 1000) as usize;
        let line = if i < 997 {
            lines[i % 8]
        } else {
            lines[8 + i % 3]
        };
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// What the filter of rsh's library makes of `text`, fed at once.
fn filtered(config: &rsh::policy::OutputConfig, text: &str) -> String {
    let rules = rsh::redact::Rules::new(config).unwrap();
    let mut filter = rsh::redact::Filter::new(&rules);
    let mut out = Vec::new();
    filter.feed(text.as_bytes(), &mut out);
    filter.finish(&mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn large_output_through_a_pipe_or_to_a_file_is_filtered_as_in_one_piece() {
    let dir = tempfile::tempdir().unwrap();
    let text = mixed_output(3 << 20);
    let input = dir.path().join("input.txt");
    fs::write(&input, &text).unwrap();
    let config = rsh::policy::OutputConfig {
        redact: true,
        patterns: vec!["ticket-[0-9]+".into()],
        max_bytes: None,
        terminals: false,
    };
    let expected = filtered(&config, &text);
    assert!(expected.matches("[REDACTED]").count() > 1000);
    let policy = policy(dir.path(), "redact = true\npatterns = [\"ticket-[0-9]+\"]");
    let cat = format!("cat {}", input.display());
    // To a pipe (the filter moves what it lets through from pipe to pipe), on either stream
    // and on both together.
    for (line, on_stderr) in [
        (cat.clone(), false),
        (format!("{cat} >&2"), true),
        (format!("{cat} 2>&1"), false),
    ] {
        let run = rsh(&policy, &line);
        assert_eq!(run.status, 0, "{line}");
        let got = if on_stderr { &run.stderr } else { &run.stdout };
        assert!(*got == expected, "{line}: the output differs");
    }
    // To a file (read and written).
    let output = dir.path().join("output.txt");
    let file = fs::File::create(&output).unwrap();
    assert_eq!(rsh_until_done(&policy, &cat, file.into(), Stdio::null()), 0);
    assert!(
        fs::read_to_string(&output).unwrap() == expected,
        "to a file"
    );
}

#[test]
fn output_written_a_byte_at_a_time_without_a_line_end_keeps_flowing() {
    // Each byte is written alone, with time for the filter to take it before the next: more
    // pieces of one line than the filter's own pipes have slots for.
    let dir = tempfile::tempdir().unwrap();
    let policy = policy(dir.path(), "redact = true");
    let (read, write) = std::io::pipe().unwrap();
    let (sender, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(std::io::read_to_string(read).unwrap()));
    let line = "for i in $(seq 1 100); do printf x; sleep 0.002; done; echo ' password=hunter22'";
    let mut child = common::without_terminal(&mut Command::new(RSH))
        .args(["--policy", policy.to_str().unwrap(), "-c", line])
        .stdin(Stdio::null())
        .stdout(write)
        .spawn()
        .unwrap();
    // The filter may outlive rsh (rsh waits five seconds for it); its output ends with it.
    let shown = received.recv_timeout(Duration::from_secs(60));
    // SAFETY: a signal to the session's process group, which rsh leads.
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    assert_eq!(
        shown,
        Ok(format!("{} password=[REDACTED]\n", "x".repeat(100)))
    );
}

#[test]
fn the_start_of_a_line_is_shown_when_the_output_pauses() {
    let dir = tempfile::tempdir().unwrap();
    let policy = policy(dir.path(), "redact = true");
    let mut child = common::without_terminal(&mut Command::new(RSH))
        .arg("--policy")
        .arg(&policy)
        .arg("-c")
        .arg("printf 'Password: '; sleep 5; echo 'token=abcdef'")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (sender, seen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut buf = [0u8; 64];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || sender.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let first = seen.recv_timeout(Duration::from_secs(3));
    assert_eq!(
        first.as_deref(),
        Ok(&b"Password: "[..]),
        "before the pause ended"
    );
    let rest: Vec<u8> = seen.iter().flatten().collect();
    assert_eq!(rest, b"token=[REDACTED]\n");
    assert!(child.wait().unwrap().success());
}
