//! Confirmation of commands the policy asks about, driven as a person would: rsh runs on a
//! real pseudo-terminal of its own, the test reads the question there and types one key.
//! Without a terminal, the approver program answers; the shipped example approver is one of
//! them. Every case checks the file the command would make, the message, the status and the
//! audit record, in a real rsyslogd's file (or, without rsyslogd, in the fallback file).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

use common::pty::Pty;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const QUESTION: &str = "[n] deny";
const WAIT: Duration = Duration::from_secs(10);

struct Case {
    dir: tempfile::TempDir,
    syslog: Option<common::syslog::Syslog>,
}

impl Case {
    /// `touch` is asked about (medium risk), `rm` too at high risk.
    fn new(approval: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let syslog = common::syslog::Syslog::start();
        let log = dir.path().join("audit.log");
        let audit = match &syslog {
            Some(syslog) => format!("socket = {:?}", syslog.socket().display().to_string()),
            None => format!("syslog = false\nfallback = {:?}", log.display().to_string()),
        };
        let policy = format!(
            r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]

[commands]
allow = ["ls", "cat", "sleep"]
ask = ["touch", "rm"]

[commands.rm]
risk = "high"

[paths]
read = ["/"]
write = ["."]

[approval]
{approval}

[audit]
{audit}
"#
        );
        fs::write(dir.path().join("policy.toml"), policy).unwrap();
        Case { dir, syslog }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, line: &str) -> Command {
        let mut command = Command::new(RSH);
        command
            .arg("--policy")
            .arg(self.path("policy.toml"))
            .arg("-c")
            .arg(line)
            .current_dir(self.dir.path());
        command
    }

    fn on_terminal(&self, line: &str) -> Pty {
        Pty::spawn(self.command(line), false)
    }

    /// The audit records of commands: (argv, approval, confirmation, status).
    fn records(&self) -> Vec<(Vec<String>, String, String, i64)> {
        let records: Vec<serde_json::Value> = match &self.syslog {
            // The session's end is the last record.
            Some(syslog) => {
                let mut lines = syslog.records(1);
                for _ in 0..50 {
                    if lines.last().is_some_and(|l| l.event() == "session-end") {
                        break;
                    }
                    lines = syslog.records(lines.len() + 1);
                }
                lines.into_iter().map(|l| l.json).collect()
            }
            None => fs::read_to_string(self.path("audit.log"))
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
        };
        records
            .into_iter()
            .filter(|j| j["event"] == "command")
            .map(|j| {
                let argv = j["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_owned())
                    .collect();
                (
                    argv,
                    j["approval"].as_str().unwrap_or_default().to_owned(),
                    j["confirmation"].as_str().unwrap_or_default().to_owned(),
                    j["status"].as_i64().unwrap_or(-1),
                )
            })
            .collect()
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn yes_runs_the_command_once() {
    let case = Case::new("");
    // The command's own input is a file: the answer still comes from the terminal.
    let mut pty = case.on_terminal("touch made < /dev/null; echo after");
    let question = pty.expect(QUESTION, WAIT);
    assert!(question.contains("rsh: confirm: touch made"), "{question}");
    // Whatever scroll region or attributes an earlier program left, the question shows
    // whole: the whole screen scrolls, and its text is plain.
    assert!(
        question
            .contains("\x1b7\x1b[r\x1b8\x1b[?69l\x1b[?7h\x1b[0m\x1b(B\x0f\x1b[?25hrsh: confirm:"),
        "{question:?}"
    );
    assert!(question.contains("program: /usr/bin/touch"), "{question}");
    assert!(question.contains("listed in commands.ask"), "{question}");
    assert!(
        question.contains("[a] always"),
        "medium risk offers always: {question}"
    );
    pty.send("y");
    pty.expect("yes", WAIT);
    let (status, rest) = pty.wait();
    assert_eq!(status, Some(0), "{rest}");
    assert!(rest.contains("after"), "{rest}");
    assert!(case.path("made").exists());
    assert_eq!(
        case.records(),
        [(
            argv(&["touch", "made"]),
            "user".into(),
            "terminal: yes".into(),
            0
        )]
    );
}

#[test]
fn no_ctrl_c_end_of_input_and_silence_refuse_and_the_shell_goes_on() {
    let case = Case::new("timeout = 1");
    let line = "touch n; touch c; touch d; touch t; echo alive";
    let mut pty = case.on_terminal(line);
    for key in ["n", "\x03", "\x04"] {
        pty.expect(QUESTION, WAIT);
        pty.send(key);
        pty.expect("no", WAIT);
    }
    pty.expect(QUESTION, WAIT);
    // No answer: after the timeout, no.
    let (status, rest) = pty.wait();
    assert_eq!(status, Some(0), "echo ran last: {rest}");
    assert!(rest.contains("alive"), "{rest}");
    for file in ["n", "c", "d", "t"] {
        assert!(!case.path(file).exists(), "{file} was made");
    }
    assert!(
        rest.contains("rsh: denied: touch t: listed in commands.ask")
            && rest.contains("not confirmed: no answer within 1 s (approval.timeout)"),
        "{rest}"
    );
    let confirmations: Vec<String> = case.records().into_iter().map(|r| r.2).collect();
    assert_eq!(
        confirmations,
        [
            "terminal: answered n",
            "terminal: Ctrl-C at the question",
            "terminal: end of input at the question",
            "terminal: no answer within 1 s (approval.timeout)",
        ]
    );
    assert!(case.records().iter().all(|r| r.1 == "none" && r.3 == 126));
}

#[test]
fn always_holds_for_the_window_and_only_for_medium_risk() {
    let case = Case::new("remember = 1");
    let line = "touch a; touch a; sleep 1.5; touch a; rm a";
    let mut pty = case.on_terminal(line);
    pty.expect(QUESTION, WAIT);
    pty.send("a");
    pty.expect("always", WAIT);
    // The second `touch a` is not asked about; after the window, the third is.
    let between = pty.expect(QUESTION, WAIT);
    assert!(!between.contains("touch a; "), "{between}");
    assert!(between.contains("rsh: confirm: touch a"), "{between}");
    pty.send("y");
    // rm is high risk: "always" is not offered, and `a` is not a yes.
    let question = pty.expect(QUESTION, WAIT);
    assert!(question.contains("rsh: confirm: rm a"), "{question}");
    assert!(!question.contains("[a] always"), "{question}");
    pty.send("a");
    pty.expect("no", WAIT);
    let (status, rest) = pty.wait();
    assert_eq!(status, Some(126), "{rest}");
    assert!(case.path("a").exists());
    let records = case.records();
    let approvals: Vec<&str> = records.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(approvals, ["user", "remembered", "auto", "user", "none"]);
    assert_eq!(records[4].2, "terminal: answered 'a'");
}

#[test]
fn without_a_terminal_the_command_is_refused() {
    let case = Case::new("");
    let out = common::without_terminal(&mut case.command("touch x"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let run = common::Run::of(out);
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has("it needs confirmation and rsh cannot ask here");
    assert!(!case.path("x").exists());
}

/// An approver script in the case's directory; it keeps its request and environment.
fn approver(case: &Case, body: &str) -> PathBuf {
    let path = case.path("approver.sh");
    let dir = case.dir.path().display();
    let script = format!("#!/bin/sh\ncat > {dir}/request.json\nenv > {dir}/approver.env\n{body}\n");
    fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn run_without_terminal(case: &Case, line: &str) -> common::Run {
    let out = common::without_terminal(&mut case.command(line))
        .env("LD_PRELOAD_MARKER", "from-the-user")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    common::Run::of(out)
}

#[test]
fn the_approver_answers_where_there_is_no_terminal() {
    let cases: [(&str, Option<&str>, &str); 6] = [
        (r#"echo '{"decision":"allow"}'"#, None, "approver: yes"),
        (
            r#"echo '{"decision":"deny","message":"not on Fridays"}'"#,
            Some("the approver said no: not on Fridays"),
            "approver: the approver said no: not on Fridays",
        ),
        (
            r#"echo '{"decision":"allow"}'; exit 3"#,
            Some("the approver failed (exit status: 3)"),
            "approver: the approver failed (exit status: 3)",
        ),
        (
            "kill -KILL $$",
            Some("the approver failed (signal: 9 (SIGKILL))"),
            "approver: the approver failed (signal: 9 (SIGKILL))",
        ),
        (
            "echo 'allow, sure'",
            Some("the approver's answer is not a JSON object"),
            "approver: the approver's answer is not a JSON object",
        ),
        (
            "sleep 5; echo '{\"decision\":\"allow\"}'",
            Some("the approver gave no answer within 1 s"),
            "approver: the approver gave no answer within 1 s",
        ),
    ];
    for (body, refused, confirmation) in cases {
        let placeholder = Case::new("");
        let script = approver(&placeholder, body);
        let case = Case::new(&format!(
            "timeout = 1\napprover = {:?}",
            script.display().to_string()
        ));
        let run = run_without_terminal(&case, "touch x");
        match refused {
            None => {
                assert_eq!(run.status, 0, "{body}: {}", run.describe());
                assert!(case.path("x").exists(), "{body}");
            }
            Some(why) => {
                assert_eq!(run.status, 126, "{body}: {}", run.describe());
                run.assert_stderr_has(&format!("not confirmed: {why}"));
                assert!(!case.path("x").exists(), "{body}");
            }
        }
        let records = case.records();
        assert_eq!(records.len(), 1, "{body}: {records:?}");
        assert_eq!(records[0].2, confirmation, "{body}");

        let request: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(placeholder.path("request.json")).unwrap())
                .unwrap();
        assert_eq!(request["argv"], serde_json::json!(["touch", "x"]), "{body}");
        assert_eq!(request["risk"], "medium");
        assert_eq!(request["cwd"], case.dir.path().display().to_string());
        assert_eq!(request["id"].as_str().unwrap().len(), 16);
        // Nothing of the user's environment reaches the approver.
        let env = fs::read_to_string(placeholder.path("approver.env")).unwrap();
        assert!(!env.contains("from-the-user"), "{env}");
    }
}

/// As root, the approver runs with the bounding set of rsh's programs, whether it is asked
/// before the first program or after one.
#[test]
fn the_approver_gets_the_programs_bounding_set() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: needs root, whose programs lose capabilities");
        return;
    }
    let placeholder = Case::new("");
    let record = placeholder.path("bounding");
    let body = format!(
        "grep CapBnd /proc/self/status >> {}\necho '{{\"decision\":\"allow\"}}'",
        record.display()
    );
    let script = approver(&placeholder, &body);
    let case = Case::new(&format!("approver = {:?}", script.display().to_string()));
    let run = run_without_terminal(&case, "touch a; cat /dev/null; touch b");
    assert_eq!(run.status, 0, "{}", run.describe());
    // DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, KILL and NET_BIND_SERVICE.
    let kept = "CapBnd:\t000000000000042e\n";
    assert_eq!(fs::read_to_string(&record).unwrap(), kept.repeat(2));
}

/// An interactive shell handles Ctrl-C and ignores Ctrl-\, `kill` and Ctrl-Z for itself; the
/// approver it starts gets them as rsh found them, as its programs do: at their defaults here, and still
/// ignored when rsh's parent left them so.
#[test]
fn the_approver_gets_the_signals_rsh_started_with() {
    // SigIgn bits of SIGINT, SIGQUIT, SIGTERM and SIGTSTP.
    const SHELL_IGNORES: u64 = 1 << 1 | 1 << 2 | 1 << 14 | 1 << 19;
    for (entry, expected) in [
        ("--default-signal=INT,QUIT,TERM,TSTP", 0),
        ("--ignore-signal=INT", 1 << 1),
    ] {
        let placeholder = Case::new("");
        let record = placeholder.path("ignored");
        let body = format!(
            "grep SigIgn /proc/self/status > {}\necho '{{\"decision\":\"allow\"}}'",
            record.display()
        );
        let script = approver(&placeholder, &body);
        let case = Case::new(&format!("approver = {:?}", script.display().to_string()));
        let mut command = Command::new("env");
        command
            .args([entry, RSH, "--policy"])
            .arg(case.path("policy.toml"))
            .arg("-i")
            .current_dir(case.dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = common::without_terminal(&mut command).spawn().unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"touch x\nexit\n").unwrap();
        drop(stdin);
        let run = common::Run::of(child.wait_with_output().unwrap());
        assert_eq!(run.status, 0, "{entry}: {}", run.describe());
        assert!(case.path("x").exists(), "{entry}: {}", run.describe());
        let line = fs::read_to_string(&record).unwrap();
        let mask = line
            .trim()
            .strip_prefix("SigIgn:")
            .map(|hex| u64::from_str_radix(hex.trim(), 16).unwrap())
            .unwrap_or_else(|| panic!("{line}"));
        assert_eq!(mask & SHELL_IGNORES, expected, "{entry}: {line}");
    }
}

#[test]
fn the_example_approver_allows_by_its_rules() {
    let case = Case::new("");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/approver-example.py");
    let copy = case.path("approver.py");
    fs::copy(&example, &copy).unwrap();
    fs::write(case.path("approver.rules"), "touch ok[0-9]\n").unwrap();
    let policy = fs::read_to_string(case.path("policy.toml"))
        .unwrap()
        .replace(
            "[approval]\n",
            &format!("[approval]\napprover = {:?}\n", copy.display().to_string()),
        );
    fs::write(case.path("policy.toml"), policy).unwrap();
    let run = run_without_terminal(&case, "touch ok1; touch other");
    assert_eq!(run.status, 126, "{}", run.describe());
    assert!(case.path("ok1").exists(), "{}", run.describe());
    assert!(!case.path("other").exists());
    run.assert_stderr_has("not confirmed: the approver said no: no rule allows it");
    run.assert_stderr_has("approver: root: touch ok1: allow");
}

#[test]
fn keys_typed_before_the_question_answer_nothing() {
    let case = Case::new("timeout = 1");
    // Typed before rsh has even started.
    let mut pty = Pty::spawn_typed_ahead(case.command("touch early"), false, "y");
    pty.expect(QUESTION, WAIT);
    let (status, rest) = pty.wait();
    assert_eq!(status, Some(126), "{rest}");
    assert!(rest.contains("no answer within 1 s"), "{rest}");
    assert!(!case.path("early").exists());
}

#[test]
fn any_other_key_is_a_no() {
    let case = Case::new("");
    let mut pty = case.on_terminal("touch other");
    pty.expect(QUESTION, WAIT);
    // Enter, as the terminal turns it into a line feed.
    pty.send("\r");
    let (status, rest) = pty.wait();
    assert_eq!(status, Some(126), "{rest}");
    assert!(rest.contains("not confirmed: answered '\\n'"), "{rest}");
    assert!(!case.path("other").exists());
}
