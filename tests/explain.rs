//! `rsh --explain`: it runs nothing, and what it says is what running the line does.
//!
//! Each case explains a line with `--json`, checks the verdict, the rule and its line in the
//! policy file, then runs the same line with `-c` and checks that rsh did what the explanation
//! said: a command explained as denied (or needing confirmation) is refused with the same
//! reason and leaves no file behind; one explained as allowed runs.

use std::fs;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

/// Line numbers matter: the tests check that rules are reported where they are written.
const POLICY: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[commands]
allow = ["touch", "echo", "cat", "ls", "printf", "rm", "sed"]
ask = ["make"]
deny = ["sh", "dash", "bash"]

[commands.rm]
deny = ["*:-r*:*"]

[commands.make]
unix_sockets = true

[paths]
read = ["/"]
write = ["."]
deny = ["SECRET"]
"#;

/// A temporary directory: `policy.toml`, `secret/` (denied) and `work/`, where rsh runs. The
/// denied directory is beside the working directory, not in it: Landlock can only deny a path
/// inside a granted one by granting its directory for listing alone.
struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir::with_shell("")
    }

    /// With `settings` added to the policy's `[shell]` table (line numbers then move).
    fn with_shell(settings: &str) -> Dir {
        let dir = tempfile::tempdir().expect("temporary directory");
        let secret = dir.path().join("secret");
        let policy = POLICY
            .replace("SECRET", secret.to_str().unwrap())
            .replace("[shell]\n", &format!("[shell]\n{settings}"));
        fs::write(dir.path().join("policy.toml"), policy).expect("write policy");
        fs::create_dir(&secret).expect("mkdir secret");
        fs::create_dir(dir.path().join("work")).expect("mkdir work");
        Dir { dir }
    }

    /// The working directory.
    fn path(&self) -> std::path::PathBuf {
        self.dir.path().join("work")
    }

    fn rsh(&self, args: &[&str]) -> Output {
        self.rsh_env(args, &[])
    }

    /// rsh with ARGS in the working directory, with ENV added to its environment.
    fn rsh_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let policy = self.dir.path().join("policy.toml");
        Command::new(RSH)
            .arg("--policy")
            .arg(&policy)
            .args(args)
            .envs(env.iter().copied())
            .current_dir(self.path())
            .stdin(Stdio::null())
            .output()
            .expect("run rsh")
    }

    /// `--explain LINE --json`: the status and the parsed document.
    fn explain(&self, line: &str) -> (i32, Value) {
        self.explain_env(line, &[])
    }

    fn explain_env(&self, line: &str, env: &[(&str, &str)]) -> (i32, Value) {
        let out = self.rsh_env(&["--explain", line, "--json"], env);
        let text = String::from_utf8_lossy(&out.stdout);
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {text:?}\nstderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().expect("an exit status"), doc)
    }

    fn exists(&self, name: &str) -> bool {
        self.path().join(name).exists()
    }
}

fn segments(doc: &Value) -> &Vec<Value> {
    doc["segments"].as_array().expect("segments")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn explaining_runs_nothing() {
    let d = Dir::new();
    let line = "touch A; echo $(touch B) > C; cat <(touch D); make; sh -c 'touch E'";
    let (status, doc) = d.explain(line);
    assert_eq!(status, 1, "{doc}");
    for name in ["A", "B", "C", "D", "E"] {
        assert!(!d.exists(name), "--explain created {name}");
    }
    let texts: Vec<&str> = segments(&doc)
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    // Commands inside $(…) and <(…) are explained before the command that uses them.
    assert_eq!(
        texts,
        [
            "touch A",
            "touch B",
            "echo $(touch B) > C",
            "touch D",
            "cat <(touch D)",
            "make",
            "sh -c 'touch E'"
        ]
    );
    let within: Vec<&str> = segments(&doc)
        .iter()
        .map(|s| s["within"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(within, ["", "$(…)", "", "<(…)", "", "", ""]);
}

/// Each line is one command; explained, then run: both must agree.
#[test]
fn the_explanation_is_what_running_does() {
    let d = Dir::new();
    // (line, verdict, rule key, pattern, policy line)
    let cases = [
        ("touch made", "allow", "commands.allow", "touch", 6),
        ("sh -c 'touch shell'", "deny", "commands.deny", "sh", 8),
        ("make touch-make", "ask", "commands.ask", "make", 7),
        ("rm -rf gone", "deny", "commands.rm.deny", "*:-r*:*", 11),
    ];
    for (line, verdict, key, pattern, rule_line) in cases {
        let (status, doc) = d.explain(line);
        let s = &segments(&doc)[0];
        assert_eq!(s["verdict"], verdict, "{line}: {doc}");
        let decision = &s["decisions"][0];
        assert_eq!(decision["rule"], key, "{line}");
        assert_eq!(decision["pattern"], pattern, "{line}");
        assert_eq!(decision["rule_line"], rule_line, "{line}");
        assert_eq!(status, if verdict == "allow" { 0 } else { 1 }, "{line}");

        let out = d.rsh(&["-c", line]);
        let reason = s["reason"].as_str().unwrap();
        if verdict == "allow" {
            assert_eq!(out.status.code(), Some(0), "{line}: {}", stderr(&out));
        } else {
            assert_eq!(out.status.code(), Some(126), "{line}");
            assert!(
                stderr(&out).contains(reason),
                "{line}: running said {:?}, explaining said {reason:?}",
                stderr(&out)
            );
        }
    }
    assert!(d.exists("made"));
    assert!(!d.exists("shell"));
    assert!(!d.exists("touch-make"));
}

#[test]
fn a_file_the_rules_refuse_is_explained_as_running_refuses_it() {
    let d = Dir::new();
    let line = "echo leak > ../secret/out";
    let (status, doc) = d.explain(line);
    assert_eq!(status, 1);
    let s = &segments(&doc)[0];
    assert_eq!(s["verdict"], "deny", "{doc}");
    let path = &s["paths"][0];
    assert_eq!(path["access"], "write");
    assert_eq!(path["verdict"], "deny");
    let out = d.rsh(&["-c", line]);
    assert!(!d.exists("../secret/out"));
    assert_eq!(out.status.code(), Some(1));
    let reason = path["reason"].as_str().unwrap();
    assert!(stderr(&out).contains(reason), "{}", stderr(&out));

    let (status, doc) = d.explain("echo fine > out");
    assert_eq!(status, 0, "{doc}");
    let path = &segments(&doc)[0]["paths"][0];
    assert_eq!(path["verdict"], "allow");
    let expected = fs::canonicalize(d.path()).unwrap().join("out");
    assert_eq!(path["resolved"], expected.to_str().unwrap());
}

/// A file a command writes without naming it on the line (through its sed script's `w`) is
/// listed with the others, as the decision saw it.
#[test]
fn files_named_inside_a_script_are_listed() {
    let d = Dir::new();
    fs::write(d.path().join("s.sed"), "w .env\n").unwrap();
    fs::write(d.path().join("data"), "x\n").unwrap();
    let line = "sed -n -f s.sed data";
    let (status, doc) = d.explain(line);
    assert_eq!(status, 1, "{doc}");
    let s = &segments(&doc)[0];
    assert_eq!(s["verdict"], "deny", "{doc}");
    let paths = s["paths"].as_array().expect("paths");
    let env = paths
        .iter()
        .find(|p| p["path"] == ".env")
        .unwrap_or_else(|| panic!("no .env among the paths: {doc}"));
    assert_eq!(
        (&env["access"], &env["verdict"]),
        (&"write".into(), &"deny".into())
    );
    let out = d.rsh(&["-c", line]);
    assert!(!d.exists(".env"));
    assert_eq!(out.status.code(), Some(126));
    let reason = env["reason"].as_str().unwrap();
    assert!(stderr(&out).contains(reason), "{}", stderr(&out));
}

#[test]
fn what_is_only_known_as_the_line_runs_is_not_guessed() {
    let d = Dir::new();
    let cases = [
        (
            "for f in a b; do rm \"$f\"; done",
            "rm \"$f\"",
            "$f, which the line sets",
        ),
        ("x=ls; $x", "$x", "$x, which the line sets"),
        ("ls $(echo /)", "ls $(echo /)", "the output of $(…)"),
        ("f() { rm $1; }", "rm $1", "$1"),
        ("cd /tmp && ls *", "ls *", "in the directory `cd` leads to"),
        ("echo $RANDOM", "echo $RANDOM", "$RANDOM changes"),
    ];
    for (line, text, why) in cases {
        let (status, doc) = d.explain(line);
        assert_eq!(status, 1, "{line}");
        let s = segments(&doc)
            .iter()
            .find(|s| s["text"] == text)
            .unwrap_or_else(|| panic!("{line}: no segment {text:?} in {doc}"));
        assert_eq!(s["verdict"], "unknown", "{line}");
        let reason = s["reason"].as_str().unwrap();
        assert!(reason.starts_with("decided when it runs: "), "{reason}");
        assert!(reason.contains(why), "{line}: {reason}");
    }
    // A variable from the environment is known: it is expanded and decided.
    let (status, doc) = d.explain("ls $HOME");
    assert_eq!(status, 0, "{doc}");
    assert_eq!(segments(&doc)[0]["argv"][1], std::env::var("HOME").unwrap());
}

#[test]
fn builtins_that_run_commands_explain_the_command_they_run() {
    let d = Dir::new();
    let (_, doc) = d.explain("eval 'sh -c x'; command sh; exec rm -r x");
    let inner: Vec<(&str, &str, &str)> = segments(&doc)
        .iter()
        .filter(|s| s["within"].is_string())
        .map(|s| {
            (
                s["within"].as_str().unwrap(),
                s["argv"][0].as_str().unwrap(),
                s["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        inner,
        [
            ("eval", "sh", "deny"),
            ("command", "sh", "deny"),
            ("exec", "rm", "deny")
        ]
    );
}

#[test]
fn text_output_names_the_program_the_rule_and_the_confinement() {
    let d = Dir::new();
    let out = d.rsh(&["--explain", "ls -l | sh"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let policy = d.dir.path().join("policy.toml");
    let policy = policy.display();
    assert!(text.contains("ls -l\n"), "{text}");
    assert!(
        text.contains(&format!(
            "  decision:  allow: listed in commands.allow ({policy}:6)\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("  confined:  files per [paths], no network, starts no programs"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  decision:  deny: listed in commands.deny ({policy}:8)\n"
        )),
        "{text}"
    );
    let out = d.rsh(&["--explain", "make -v"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  confined:  files per [paths], no network, unix sockets, starts no"),
        "{text}"
    );
}

#[test]
fn bad_lines_and_bad_usage_are_errors() {
    let d = Dir::new();
    let out = d.rsh(&["--explain", "echo 'unterminated"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("rsh: "), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let out = d.rsh(&["--explain"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--explain: option requires a command line"));
    let out = d.rsh(&["--json", "-c", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--json: only with --explain"));
}

/// Lines on which explaining once said "allowed" while running refused something: now each is
/// explained as not (or not yet) allowed, and running still refuses.
#[test]
fn explain_never_allows_what_running_refuses() {
    let d = Dir::new();
    fs::write(d.path().join("f"), "sh -c 'touch c5'\n").unwrap();
    let cases = [
        "for f in a; do cat; done <<E\n$(sh -c 'touch c1')\nE",
        "if false; then sh() { :; }; fi; sh -c 'touch c2'",
        "[[ ${o:=-r} ]]; rm $o c3",
        "IFS=,; rm $OPTS",
        "echo hi >&$(echo ../secret/c4)",
        "source ./f",
        "cd \"$(echo ../secret)\"; cat < s",
        "shopt -s expand_aliases\nalias ls=\"sh -c 'touch c6'\"\nls",
    ];
    for line in cases {
        let (status, doc) = d.explain_env(line, &[("OPTS", "c7,-r")]);
        assert_eq!(status, 1, "{line}: {doc}");
        assert_eq!(doc["allowed"], false, "{line}: {doc}");
        let out = d.rsh_env(&["-c", line], &[("OPTS", "c7,-r")]);
        assert!(stderr(&out).contains("denied"), "{line}: {}", stderr(&out));
    }
    for canary in ["c1", "c2", "c5", "c6", "../secret/c4"] {
        assert!(!d.exists(canary), "{canary}");
    }
}

/// The risk explained is the one a run goes by: a command's own, raised by the files it
/// names and writes; a redirection is the shell's write, decided (and refused) on its own.
#[test]
fn the_risk_explained_is_the_risk_a_run_goes_by() {
    let d = Dir::with_shell("mode = \"readonly\"\n");
    // (line, the command's risk, the segment's verdict, where the refusal is)
    let cases = [
        ("ls > listed", "low", "deny", "path"),
        ("touch touched", "medium", "deny", "decision"),
        ("cat /etc/hostname", "low", "allow", ""),
    ];
    for (line, risk, verdict, refused) in cases {
        let (_, doc) = d.explain(line);
        let s = &segments(&doc)[0];
        assert_eq!(s["risk"], risk, "{line}: {doc}");
        assert_eq!(s["verdict"], verdict, "{line}: {doc}");
        let out = d.rsh(&["-c", line]);
        let reason = match refused {
            "path" => s["paths"][0]["reason"].as_str().unwrap(),
            "decision" => s["reason"].as_str().unwrap(),
            _ => {
                assert_eq!(out.status.code(), Some(0), "{line}: {}", stderr(&out));
                continue;
            }
        };
        assert!(
            stderr(&out).contains(reason),
            "{line}: running said {:?}, explaining said {reason:?}",
            stderr(&out)
        );
    }
    assert!(!d.exists("listed") && !d.exists("touched"));
}

#[test]
fn the_text_explanation_shows_escapes_and_invisible_characters() {
    let d = Dir::new();
    // A carriage return outside quotes is refused; inside them it is text.
    let out = d.rsh(&["--explain", "echo a\u{1b}[2Jb \u{202e}hs.txt'\r'X"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains(['\u{1b}', '\u{202e}', '\r']),
        "raw characters in {text:?}"
    );
    assert!(
        text.starts_with("echo a\\x1b[2Jb \\u{202e}hs.txt'\\x0d'X\n"),
        "{text}"
    );
}
