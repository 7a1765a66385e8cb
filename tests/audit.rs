//! The audit trail end to end: the real binary sends its records to a real rsyslogd, started
//! in the foreground on a private socket with a private configuration, and the test reads
//! what rsyslogd wrote to its file. Without rsyslogd (`apt-get install rsyslog`) those tests
//! say so and are skipped; the fallback-file cases need no daemon.

use std::fs;
use std::io::Read;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Run;
use common::syslog::{Line, Syslog};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

fn policy(dir: &Path, audit: &str) -> PathBuf {
    let path = dir.join("policy.toml");
    let text = format!(
        r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]

[commands]
allow = ["ls", "head", "touch", "cat", "true"]
ask = ["rm"]
deny = ["sh"]

[paths]
read = ["/"]
write = ["."]

[audit]
{audit}
"#
    );
    fs::write(&path, text).unwrap();
    path
}

/// `[audit]` lines sending records to `socket`, then `more`.
fn to_socket(socket: &Path, more: &str) -> String {
    format!("socket = {:?}\n{more}", socket.display().to_string())
}

fn rsh(policy: &Path, dir: &Path, line: &str) -> Run {
    let out = Command::new(RSH)
        .arg("--policy")
        .arg(policy)
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("SSH_CONNECTION", "10.1.2.3 5555 10.0.0.1 22")
        .stdin(Stdio::null())
        .output()
        .expect("run rsh");
    Run::of(out)
}

fn sha256(path: &Path) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_command_run_or_refused_is_one_record_in_syslog() {
    let Some(syslog) = Syslog::start() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let policy = policy(work.path(), &to_socket(&syslog.socket(), ""));
    fs::write(work.path().join("victim"), "x").unwrap();
    let line = "ls / | head -1; touch made; rm victim; \
                sh -c \"x\n{\\\"event\\\":\\\"forged\\\"}\"";
    let run = rsh(&policy, work.path(), line);
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("denied: sh -c");
    assert!(work.path().join("made").exists(), "{}", run.describe());
    assert!(
        work.path().join("victim").exists(),
        "rm needed confirmation"
    );

    let records = syslog.records(7);
    let events: Vec<&str> = records.iter().map(Line::event).collect();
    assert_eq!(
        events,
        [
            "session-start",
            "command",
            "command",
            "command",
            "command",
            "command",
            "session-end"
        ],
        "{records:#?}"
    );
    for record in &records {
        assert_eq!(record.facility, "authpriv", "{record:?}");
        assert_eq!(record.app, "rsh", "{record:?}");
        let j = &record.json;
        assert_eq!(j["user"], "root", "{record:?}");
        assert_eq!(j["uid"], 0, "{record:?}");
        assert_eq!(j["ssh"], "10.1.2.3 5555", "{record:?}");
        assert_eq!(j["session"], records[0].json["session"], "one session");
    }
    let start = &records[0].json;
    assert_eq!(start["kind"], "command");
    assert_eq!(start["command"], line);
    assert_eq!(start["policy"][0]["file"], policy.display().to_string());
    assert_eq!(start["policy"][0]["sha256"], sha256(&policy));

    // The pipeline's stages replaced forked copies of rsh; the shell that reaped them sent
    // their records, in the order they ended.
    let mut stages: Vec<Vec<&str>> = records[1..3].iter().map(Line::argv).collect();
    stages.sort();
    assert_eq!(stages, [vec!["head", "-1"], vec!["ls", "/"]]);
    for stage in &records[1..4] {
        let j = &stage.json;
        assert_eq!(stage.severity, "info");
        assert_eq!(j["decision"], "allow", "{stage:?}");
        assert_eq!(j["approval"], "auto", "{stage:?}");
        assert_eq!(j["status"], 0, "{stage:?}");
        assert_eq!(j["cwd"], work.path().display().to_string());
        assert!(j["line"].as_str().unwrap().starts_with("ls / | head -1;"));
        assert!(j["duration_ms"].as_f64().is_some(), "{stage:?}");
        assert!(j["cpu_ms"].as_f64().is_some(), "{stage:?}");
        assert!(j["max_rss_kib"].as_u64().unwrap() > 0, "{stage:?}");
    }
    let touch = &records[3].json;
    assert_eq!(records[3].argv(), ["touch", "made"]);
    assert_eq!(touch["program"], "/usr/bin/touch");
    assert!(
        touch["rule"]
            .as_str()
            .unwrap()
            .starts_with("commands.allow \"touch\"")
    );

    let rm = &records[4];
    assert_eq!(rm.argv(), ["rm", "victim"]);
    assert_eq!(rm.severity, "notice");
    assert_eq!(rm.json["decision"], "ask");
    assert_eq!(rm.json["approval"], "none");
    assert_eq!(rm.json["status"], 126);
    assert!(rm.json.get("duration_ms").is_none(), "{rm:?}");

    // The forging attempt stays inside its own record, escaped.
    let sh = &records[5];
    assert_eq!(sh.argv(), ["sh", "-c", "x\n{\"event\":\"forged\"}"]);
    assert_eq!(sh.json["decision"], "deny");
    assert_eq!(sh.json["risk"], "high");
    let end = &records[6].json;
    assert_eq!(end["status"], 126);
}

#[test]
fn programs_cannot_reach_the_log_socket() {
    let Some(syslog) = Syslog::start() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let policy = policy(work.path(), &to_socket(&syslog.socket(), ""));
    // rsh's own descriptors (the log socket among them) start at 100, where redirections
    // cannot reach, and no program inherits them.
    let line = r#"echo '{"event":"forged"}' >&100; ls -l /proc/self/fd/ | cat"#;
    let run = rsh(&policy, work.path(), line);
    run.assert_stderr_has("100");
    assert!(!run.stdout.contains("socket:"), "{}", run.describe());
    let records = syslog.records(4);
    let events: Vec<&str> = records.iter().map(Line::event).collect();
    assert_eq!(
        events,
        ["session-start", "command", "command", "session-end"],
        "{records:#?}"
    );
}

#[test]
fn required_records_without_syslog_mean_nothing_runs() {
    let work = tempfile::tempdir().unwrap();
    // No daemon at all, then a socket whose daemon is gone.
    let stale = work.path().join("stale.sock");
    drop(UnixDatagram::bind(&stale).unwrap());
    for socket in [work.path().join("missing.sock"), stale] {
        let policy = policy(work.path(), &to_socket(&socket, "required = true"));
        let run = rsh(&policy, work.path(), "touch canary");
        assert_eq!(run.status, 126, "{}", run.describe());
        run.assert_stderr_has("audit.required: syslog at");
        run.assert_stderr_has("nothing runs until it can");
        assert!(!work.path().join("canary").exists(), "{}", run.describe());
    }

    let Some(syslog) = Syslog::start() else {
        return;
    };
    let policy = policy(work.path(), &to_socket(&syslog.socket(), "required = true"));
    let run = rsh(&policy, work.path(), "touch canary");
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(work.path().join("canary").exists());
    assert_eq!(syslog.records(3).len(), 3);
}

/// With syslog gone in the middle of a session, the command whose record fails has run; the
/// next is refused, in a forked copy of the shell too (a subshell sends its own records), and
/// its refusal is kept in the fallback file. Once syslog is back, it first gets a record
/// saying since when records went only to that file.
#[test]
fn a_refusal_for_lack_of_syslog_is_kept_in_the_fallback_file() {
    use std::io::Write;
    let work = tempfile::tempdir().unwrap();
    let socket = work.path().join("log.sock");
    let daemon = UnixDatagram::bind(&socket).unwrap();
    let fallback = work.path().join("audit.log");
    let more = format!(
        "required = true\nfallback = {:?}",
        fallback.display().to_string()
    );
    let policy = policy(work.path(), &to_socket(&socket, &more));
    let mut child = Command::new(RSH)
        .arg("--policy")
        .arg(&policy)
        .arg("-c")
        .arg("touch one; read x; (touch sub1); (touch sub2); touch three; read y; touch four")
        .current_dir(work.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // session-start, then `touch one`: the daemon goes away once it has both.
    let received = |daemon: &UnixDatagram, count: usize| -> Vec<String> {
        daemon
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut buffer = vec![0; 65536];
        (0..count)
            .map(|_| {
                let n = daemon.recv(&mut buffer).expect("a record from rsh");
                String::from_utf8_lossy(&buffer[..n]).into_owned()
            })
            .collect()
    };
    received(&daemon, 2);
    drop(daemon);
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while fallback_records(&fallback).len() < 3 {
        assert!(
            Instant::now() < deadline,
            "{:?}",
            fallback_records(&fallback)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Syslog is back.
    fs::remove_file(&socket).unwrap();
    let daemon = UnixDatagram::bind(&socket).unwrap();
    input.write_all(b"\n").unwrap();
    drop(input);
    // Read as they come: rsh waits until the record that ends the outage has been read.
    let back = received(&daemon, 3);
    let out = child.wait_with_output().unwrap();
    let run = Run::of(out);
    assert_eq!(run.status, 0, "{}", run.describe());
    for (file, ran) in [
        ("sub1", true),
        ("sub2", false),
        ("three", false),
        ("four", true),
    ] {
        assert_eq!(
            work.path().join(file).exists(),
            ran,
            "{file}\n{}",
            run.describe()
        );
    }
    run.assert_stderr_has("touch: audit.required: syslog at");
    run.assert_stderr_has("rsh: audit: cannot send records to syslog at");
    let records = fallback_records(&fallback);
    let argvs: Vec<String> = records.iter().map(|r| r["argv"].to_string()).collect();
    assert_eq!(records.len(), 3, "{argvs:?}");
    assert_eq!(records[0]["argv"], serde_json::json!(["touch", "sub1"]));
    assert_eq!(records[0]["status"], 0);
    for (refused, argv) in records[1..].iter().zip(["sub2", "three"]) {
        assert_eq!(refused["argv"], serde_json::json!(["touch", argv]));
        assert_eq!(refused["decision"], "deny");
        assert_eq!(refused["status"], 126);
        let rule = refused["rule"].as_str().unwrap();
        assert!(rule.starts_with("audit.required ("), "{refused}");
        let reason = refused["reason"].as_str().unwrap();
        assert!(reason.contains("cannot take records"), "{refused}");
    }
    assert!(
        back[0].contains(r#""event":"syslog-resumed""#)
            && back[0].contains(r#""since":""#)
            && back[0].contains(&format!(r#""fallback":"{}""#, fallback.display())),
        "{back:?}"
    );
    assert!(back[1].contains(r#""argv":["touch","four"]"#), "{back:?}");
    assert!(back[2].contains(r#""event":"session-end""#), "{back:?}");
}

/// A syslog daemon that stops reading lets rsh connect but takes nothing: once a record
/// waited in vain, the next command is refused.
#[test]
fn a_syslog_that_takes_nothing_stops_commands() {
    let work = tempfile::tempdir().unwrap();
    let socket = work.path().join("log.sock");
    // Bound, never read: its queue fills after a few records.
    let _daemon = UnixDatagram::bind(&socket).unwrap();
    let policy = policy(work.path(), &to_socket(&socket, "required = true"));
    let run = rsh(&policy, work.path(), "for i in {1..16}; do touch t$i; done");
    assert_eq!(run.status, 126, "{}", run.describe());
    let ran: Vec<bool> = (1..=16)
        .map(|i| work.path().join(format!("t{i}")).exists())
        .collect();
    let first_refused = ran.iter().position(|ran| !ran).expect("every command ran");
    assert!(
        first_refused > 0 && ran[first_refused..].iter().all(|ran| !ran),
        "{ran:?}\n{}",
        run.describe()
    );
    run.assert_stderr_has("it took nothing for 500 ms");
}

/// A syslog daemon on a stream socket `log.sock` in `dir`, in python3: `setup` runs with
/// `server` bound, then `serve` once the test may go on. None (said loudly) without python3.
fn stream_daemon(dir: &Path, setup: &str, serve: &str) -> Option<std::process::Child> {
    if Command::new("python3").arg("-c").arg("").status().is_err() {
        eprintln!("SKIPPED: python3 is not installed; the stream syslog cases are not checked");
        return None;
    }
    let socket = dir.join("log.sock");
    let program = format!(
        "import socket, os, time\nserver = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n\
         server.bind({socket:?})\n{setup}\nopen({ready:?}, 'w').close()\n{serve}\ntime.sleep(60)\n",
        socket = socket.display().to_string(),
        ready = dir.join("ready").display().to_string(),
    );
    let child = Command::new("python3")
        .arg("-c")
        .arg(program)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !dir.join("ready").exists() {
        assert!(Instant::now() < deadline, "the stream daemon did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child)
}

/// rsh with `policy` started on `line` in `dir`, its input empty, its output piped.
fn spawn_rsh(policy: &Path, dir: &Path, line: &str) -> std::process::Child {
    Command::new(RSH)
        .arg("--policy")
        .arg(policy)
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// rsh with `policy` running `line` in `dir`, killed if it takes more than 20 s.
fn rsh_bounded(policy: &Path, dir: &Path, line: &str) -> Run {
    let mut child = spawn_rsh(policy, dir, line);
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("rsh hung on a syslog daemon that takes nothing: {line}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Run::of(child.wait_with_output().unwrap())
}

/// A stream syslog daemon that stopped accepting (its queue of connections full) or stopped
/// reading holds rsh no longer than a datagram one: with `required`, nothing runs.
#[test]
fn a_stuck_stream_syslog_neither_hangs_rsh_nor_takes_its_records() {
    let work = tempfile::tempdir().unwrap();
    let socket = work.path().join("log.sock");
    let first = policy(work.path(), &to_socket(&socket, "required = true"));
    // Never accepts; two waiting connections fill a queue of one.
    let fill = "server.listen(0)\nfor _ in range(2):\n    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n    c.setblocking(False)\n    try:\n        c.connect(server.getsockname())\n    except OSError:\n        pass";
    let Some(mut daemon) = stream_daemon(work.path(), fill, "") else {
        return;
    };
    let run = rsh_bounded(&first, work.path(), "touch canary");
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("rsh: cannot start: audit.required");
    assert!(!work.path().join("canary").exists());

    // Reads the session's first two records, then drops the connection and takes new ones
    // without reading them.
    let work = tempfile::tempdir().unwrap();
    let socket = work.path().join("log.sock");
    let policy = policy(work.path(), &to_socket(&socket, "required = true"));
    let text = fs::read_to_string(&policy).unwrap();
    fs::write(
        &policy,
        text.replacen("\"true\"]", "\"true\", \"sleep\"]", 1),
    )
    .unwrap();
    let stall = "first, _ = server.accept()\nseen = b''\nwhile seen.count(b'\\0') < 2:\n    seen += first.recv(65536)\nfirst.close()\nkept = []\nserver.settimeout(30)\nimport threading\ndef take():\n    while True:\n        kept.append(server.accept()[0])\nthreading.Thread(target=take, daemon=True).start()";
    let Some(mut daemon) = stream_daemon(work.path(), "server.listen(8)", stall) else {
        return;
    };
    let line = "touch a; sleep 0.3; touch b; touch c; touch d; touch e";
    let run = rsh_bounded(&policy, work.path(), line);
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert_eq!(run.status, 126, "{}", run.describe());
    assert!(work.path().join("a").exists(), "{}", run.describe());
    // The daemon closes its first connection while `sleep` runs: the record that fails is
    // `sleep`'s, `b`'s or (under load) `c`'s, and that command ran. After it nothing runs.
    for refused in ["d", "e"] {
        assert!(
            !work.path().join(refused).exists(),
            "{refused}\n{}",
            run.describe()
        );
    }
    run.assert_stderr_has("it read nothing for 500 ms");
}

/// The records of a fallback file, one JSON object per line.
/// A policy in `dir` whose records go to a fallback file only (returned second), with
/// `more` after the `[audit]` lines.
fn without_syslog(dir: &Path, more: &str) -> (PathBuf, PathBuf) {
    let fallback = dir.join("audit.log");
    let audit = format!(
        "syslog = false\nfallback = {:?}\n{more}",
        fallback.display().to_string()
    );
    (policy(dir, &audit), fallback)
}

fn fallback_records(path: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect()
}

#[test]
fn unreachable_syslog_means_one_warning_and_the_fallback_file() {
    let work = tempfile::tempdir().unwrap();
    let fallback = work.path().join("audit.log");
    let fallback_line = format!("fallback = {:?}", fallback.display().to_string());
    let missing = work.path().join("missing.sock");
    let policy = policy(work.path(), &to_socket(&missing, &fallback_line));
    let run = rsh(&policy, work.path(), "touch one; touch two; sh -c x");
    assert_eq!(run.status, 126, "{}", run.describe());
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("rsh: audit:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.describe());
    assert!(
        warnings[0].contains("No such file or directory")
            && warnings[0].contains(&format!("records go to {}", fallback.display())),
        "{}",
        run.describe()
    );
    let records = fallback_records(&fallback);
    let argvs: Vec<String> = records.iter().map(|r| r["argv"].to_string()).collect();
    assert_eq!(records.len(), 5, "{argvs:?}");
    assert_eq!(records[1]["argv"], serde_json::json!(["touch", "one"]));
    assert_eq!(records[3]["decision"], "deny");
    assert_eq!(records[4]["event"], "session-end");
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(&fallback).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A line that does not parse runs nothing, and is recorded.
    let run = rsh(&policy, work.path(), "touch three; echo (");
    assert_eq!(run.status, 2, "{}", run.describe());
    assert!(!work.path().join("three").exists());
    let records = fallback_records(&fallback);
    let refused = &records[records.len() - 2];
    assert_eq!(refused["event"], "line-refused", "{records:?}");
    assert_eq!(refused["line"], "touch three; echo (");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .starts_with("syntax error")
    );
}

/// A refused file that rsh opens for a command (a redirection, `source`, `$(< …)`) is
/// recorded with the status the shell gives it, 1, as for a redirection that fails.
#[test]
fn a_refused_redirection_is_recorded_with_its_status() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = without_syslog(work.path(), "");
    let run = rsh(
        &policy,
        work.path(),
        "true > /etc/rsh-test; echo $?; source /etc/shadow",
    );
    assert_eq!(run.stdout, "1\n", "{}", run.describe());
    assert_eq!(run.status, 1, "{}", run.describe());
    let records = fallback_records(&fallback);
    let refused: Vec<_> = records.iter().filter(|r| r["approval"] == "none").collect();
    assert_eq!(refused.len(), 2, "{records:?}");
    assert_eq!(refused[0]["argv"], serde_json::json!(["true"]));
    assert_eq!(
        refused[1]["argv"],
        serde_json::json!(["source", "/etc/shadow"])
    );
    assert!(refused.iter().all(|r| r["status"] == 1), "{refused:?}");
}

#[test]
fn a_script_rsh_may_not_read_is_one_refused_record_with_126() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = without_syslog(work.path(), "");
    // A script without `#!` under a sensitive name, allowed as a command by its path.
    let script = work.path().join(".env");
    fs::write(&script, "true\n").unwrap();
    let mut mode = fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    fs::set_permissions(&script, mode).unwrap();
    let text = fs::read_to_string(&policy).unwrap();
    let allowed = format!("\"true\", {:?}]", script.display().to_string());
    fs::write(&policy, text.replacen("\"true\"]", &allowed, 1)).unwrap();

    let run = rsh(&policy, work.path(), "./.env; echo $?");
    assert_eq!(run.stdout, "126\n", "{}", run.describe());
    let file = Command::new(RSH)
        .arg("--policy")
        .arg(&policy)
        .arg("/etc/shadow")
        .current_dir(work.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(file.status.code(), Some(126), "{file:?}");

    let records = fallback_records(&fallback);
    let commands: Vec<_> = records.iter().filter(|r| r["event"] == "command").collect();
    assert_eq!(commands.len(), 2, "{records:?}");
    assert_eq!(commands[0]["argv"], serde_json::json!(["./.env"]));
    assert_eq!(commands[1]["argv"], serde_json::json!(["/etc/shadow"]));
    for record in commands {
        assert_eq!(record["approval"], "none", "{record}");
        assert_eq!(record["status"], 126, "{record}");
    }
}

/// A policy without syslog whose programs are ended after a second, allowing `more` too.
fn timed_out_after_a_second(dir: &Path, more: &[&str]) -> (PathBuf, PathBuf) {
    let (policy, fallback) = without_syslog(dir, "\n[limits]\ntimeout = 1");
    let text = fs::read_to_string(&policy).unwrap();
    let allowed: String = more.iter().map(|name| format!(", {name:?}")).collect();
    let text = text.replacen("\"true\"]", &format!("\"true\"{allowed}]"), 1);
    fs::write(&policy, text).unwrap();
    (policy, fallback)
}

#[test]
fn a_program_in_a_forked_shell_is_recorded_as_timed_out() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = timed_out_after_a_second(work.path(), &["sleep"]);
    // Each `sleep` runs in a forked copy of the shell, which the timeout's SIGTERM ends too;
    // in the last, that copy is a stage of a pipeline that is itself a stage.
    for line in [
        "{ sleep 30; } | cat",
        "x=$(sleep 30)",
        "{ { sleep 30; } | cat; } | cat",
    ] {
        let _ = fs::remove_file(&fallback);
        let run = rsh(&policy, work.path(), line);
        assert_eq!(run.status, 143, "{line}: {}", run.describe());
        let records = fallback_records(&fallback);
        let sleep: Vec<_> = records.iter().filter(|r| r["argv"][0] == "sleep").collect();
        assert_eq!(sleep.len(), 1, "{line}: {records:?}");
        assert_eq!(sleep[0]["timed_out"], true, "{line}: {records:?}");
        assert_eq!(sleep[0]["signal"], "SIGTERM", "{line}: {records:?}");
        assert_eq!(sleep[0]["status"], 143, "{line}: {records:?}");
        assert!(sleep[0].get("end_unseen").is_none(), "{line}: {records:?}");
        let duration = sleep[0]["duration_ms"].as_f64().unwrap();
        assert!((900.0..10_000.0).contains(&duration), "{line}: {records:?}");
    }
}

/// A pipeline is ended at its deadline by the shell that started it, whatever the shells of
/// its stages are doing: a stage's own deadline for the program it waits for (the same
/// timeout, counted from later) waits for that shell's SIGKILL too, and ends the program
/// itself only when that shell does not (here, stopped). Either way the record says so.
#[test]
fn a_pipeline_is_ended_at_its_deadline_by_the_shell_that_started_it() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = timed_out_after_a_second(work.path(), &["sleep"]);
    // Stopped past the pipeline's deadline, then past the stage's (three seconds in).
    for (stopped_for, ended_by) in [(1500, "pipeline"), (4500, "sleep")] {
        let _ = fs::remove_file(&fallback);
        let child = spawn_rsh(&policy, work.path(), "{ sleep 30; } | cat");
        let pid = child.id() as i32;
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: the child is not waited for yet: the number is still its.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        std::thread::sleep(Duration::from_millis(stopped_for));
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGCONT) };
        let run = Run::of(child.wait_with_output().unwrap());
        let what = format!("stopped {stopped_for} ms: {}", run.describe());
        assert_eq!(run.status, 143, "{what}");
        let message = format!("rsh: {ended_by}: timed out after 1 s (limits.timeout); ended");
        assert!(run.stderr.contains(&message), "{what}");
        let records = fallback_records(&fallback);
        let sleep: Vec<_> = records.iter().filter(|r| r["argv"][0] == "sleep").collect();
        assert_eq!(sleep.len(), 1, "{what}: {records:?}");
        assert_eq!(sleep[0]["timed_out"], true, "{what}: {records:?}");
        assert_eq!(sleep[0]["signal"], "SIGTERM", "{what}: {records:?}");
        let duration = sleep[0]["duration_ms"].as_f64().unwrap();
        let least = if ended_by == "sleep" { 2900.0 } else { 900.0 };
        assert!((least..10_000.0).contains(&duration), "{what}: {records:?}");
    }
}

/// SIGTERM sent to rsh before a pipeline's deadline is no timeout, even when the stage's
/// shell is reaped after the deadline (its program ignored SIGTERM).
#[test]
fn sigterm_before_the_deadline_is_no_timeout() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = timed_out_after_a_second(work.path(), &["python3"]);
    let _ = fs::remove_file(&fallback);
    let ignoring =
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1.5)";
    let line = format!("{{ python3 -c '{ignoring}'; }} | cat");
    let child = spawn_rsh(&policy, work.path(), &line);
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: the child is not waited for yet: the number is still its.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let run = Run::of(child.wait_with_output().unwrap());
    assert!(!run.stderr.contains("timed out"), "{}", run.describe());
    let records = fallback_records(&fallback);
    let python: Vec<_> = records
        .iter()
        .filter(|r| r["argv"][0] == "python3")
        .collect();
    assert_eq!(python.len(), 1, "{records:?}");
    assert!(python[0].get("timed_out").is_none(), "{records:?}");
}

/// A program the file rules keep rsh from running (here under a denied directory) is a
/// refused command, with its record.
#[test]
fn a_program_under_a_denied_path_is_recorded_as_refused() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = without_syslog(work.path(), "");
    let denied = work.path().join("denied");
    fs::create_dir(&denied).unwrap();
    fs::copy("/bin/true", denied.join("t")).unwrap();
    let text = fs::read_to_string(&policy).unwrap();
    let paths = format!(
        "write = [\".\"]\ndeny = [{:?}]",
        denied.display().to_string()
    );
    fs::write(&policy, text.replacen("write = [\".\"]", &paths, 1)).unwrap();
    let run = rsh(&policy, work.path(), "denied/t; echo $?");
    assert_eq!(run.stdout, "126\n", "{}", run.describe());
    let records = fallback_records(&fallback);
    let commands: Vec<_> = records.iter().filter(|r| r["event"] == "command").collect();
    assert_eq!(commands.len(), 1, "{records:?}");
    assert_eq!(commands[0]["argv"], serde_json::json!(["denied/t"]));
    assert_eq!(commands[0]["approval"], "none");
    assert_eq!(commands[0]["status"], 126);
}

#[test]
fn a_stuck_syslog_does_not_hang_the_shell() {
    let work = tempfile::tempdir().unwrap();
    let socket = work.path().join("stuck.sock");
    // A daemon that never reads: once its queue is full, a send blocks.
    let stuck = UnixDatagram::bind(&socket).unwrap();
    let filler = UnixDatagram::unbound().unwrap();
    filler.connect(&socket).unwrap();
    filler.set_nonblocking(true).unwrap();
    while filler.send(b"<14>1 - - filler - - - x").is_ok() {}
    let fallback = work.path().join("audit.log");
    let fallback_line = format!("fallback = {:?}", fallback.display().to_string());
    let policy = policy(work.path(), &to_socket(&socket, &fallback_line));
    let mut child = Command::new(RSH)
        .arg("--policy")
        .arg(&policy)
        .arg("-c")
        .arg("for i in 1 2 3 4 5 6 7 8 9 10; do true; touch f$i; done")
        .current_dir(work.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("rsh hung on a syslog socket that takes nothing");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(work.path().join("f10").exists());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("it took nothing for 500 ms"), "{stderr}");
    // Every record is kept: session start, ten touches, session end.
    assert_eq!(fallback_records(&fallback).len(), 12);
    drop(stuck);
}

#[test]
fn rsh_log_shows_rsh_s_own_account_apart_from_the_records() {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = without_syslog(work.path(), "");
    let out = Command::new(RSH)
        .arg("--policy")
        .arg(&policy)
        .args(["-c", "touch one; sh -c x"])
        .current_dir(work.path())
        .env("RSH_LOG", "debug")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let run = Run::of(out);
    run.assert_stderr_has("policy loaded");
    run.assert_stderr_has(r#"decided argv=["touch", "one"] verdict=allow"#);
    run.assert_stderr_has(r#"decided argv=["sh", "-c", "x"] verdict=deny"#);
    // The trail is the same with or without it.
    assert_eq!(fallback_records(&fallback).len(), 4);
    let quiet = rsh(&policy, work.path(), "touch two");
    assert_eq!(quiet.stderr, "", "{}", quiet.describe());
}

#[test]
fn a_session_ended_by_a_signal_still_records_its_command_and_end() {
    // A hang-up, and signals nothing in rsh handles, which end it by default.
    for (signal, name) in [
        (nix::sys::signal::Signal::SIGHUP, "SIGHUP"),
        (nix::sys::signal::Signal::SIGUSR1, "SIGUSR1"),
        (nix::sys::signal::Signal::SIGALRM, "SIGALRM"),
    ] {
        ended_by_signal(signal, name);
    }
}

fn ended_by_signal(signal: nix::sys::signal::Signal, name: &str) {
    let work = tempfile::tempdir().unwrap();
    let (policy, fallback) = without_syslog(work.path(), "");
    let mut command = Command::new(RSH);
    // As a login session has it, whatever the tests were started with (nohup ignores it).
    use std::os::unix::process::CommandExt;
    let number = signal as libc::c_int;
    // SAFETY: signal is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            libc::signal(number, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = command
        .arg("--policy")
        .arg(&policy)
        .args(["-c", "cat; touch after"])
        .current_dir(work.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // cat waits on its input: the session is in the middle of a command.
    let deadline = Instant::now() + Duration::from_secs(10);
    while fallback_records(&fallback).is_empty() {
        assert!(Instant::now() < deadline, "no session-start record");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(number), "{name}");
    assert!(!work.path().join("after").exists(), "{name}");
    let records = fallback_records(&fallback);
    let events: Vec<&str> = records
        .iter()
        .map(|r| r["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        ["session-start", "command", "session-end"],
        "{name}: {records:?}"
    );
    assert_eq!(records[1]["argv"], serde_json::json!(["cat"]));
    assert_eq!(records[1]["signal"], name);
    assert_eq!(records[1]["status"], 128 + number);
    assert_eq!(records[2]["status"], 128 + number);
}
