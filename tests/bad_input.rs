//! Bad input gets a clear message and a status, and nothing of it runs.
//!
//! Syntax errors, unsupported constructs, unreadable or hostile scripts, broken policies and
//! bad command lines: each test puts a command that would leave a file behind (`touch CANARY`)
//! *before* the bad part of the input, and checks, in this order, that the file was not
//! created, the status, and the message. Every run of rsh is bounded by a timeout and must end
//! with an exit status, never with a signal.

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

/// A policy under which `touch` runs (so a canary would appear) and little else does.
const POLICY: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "deny"

[commands]
allow = ["touch", "echo", "cat", "true", "false", "printf", "ls", "tr", "sleep"]
deny = ["sh", "dash", "bash"]
"#;

/// Generous: every case here takes well under a second on a slow machine.
const TIMEOUT: Duration = Duration::from_secs(20);

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "status: {}\nstdout: {:?}\nstderr: {:?}",
            self.status,
            shorten(&self.stdout),
            shorten(&self.stderr)
        )
    }
}

/// Long outputs are cut in failure messages.
fn shorten(text: &str) -> String {
    const MAX: usize = 600;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// A temporary directory with `policy.toml`; rsh runs inside it.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("create a temporary directory");
        fs::write(dir.path().join("policy.toml"), POLICY).expect("write policy.toml");
        Sandbox { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn policy(&self) -> PathBuf {
        self.path().join("policy.toml")
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let file = self.path().join(name);
        fs::write(&file, bytes).expect("write a file in the sandbox");
        file
    }

    /// `rsh --policy <tmp>/policy.toml -c SCRIPT` in the temporary directory.
    fn run(&self, script: &str) -> Run {
        let policy = self.policy();
        self.rsh(&[
            "--policy".as_ref(),
            policy.as_os_str(),
            "-c".as_ref(),
            script.as_ref(),
        ])
    }

    /// `rsh --policy <tmp>/policy.toml FILE`.
    fn run_file(&self, file: &Path) -> Run {
        let policy = self.policy();
        self.rsh(&["--policy".as_ref(), policy.as_os_str(), file.as_os_str()])
    }

    /// rsh with exactly ARGS, in the temporary directory, stdin empty.
    fn rsh(&self, args: &[&OsStr]) -> Run {
        rsh(self.path(), args)
    }

    fn assert_no_canary(&self, what: &str, run: &Run) {
        assert!(
            !self.path().join("CANARY").exists(),
            "`touch CANARY` ran although the input was refused:\n  {}\n{}",
            shorten(what),
            run.describe()
        );
    }

    /// The common checks: no canary, status 2, nothing on stdout, stderr starting with PREFIX.
    fn refused(&self, what: &str, run: &Run, prefix: &str) {
        self.assert_no_canary(what, run);
        assert_eq!(
            run.status,
            2,
            "wrong status for\n  {}\n{}",
            shorten(what),
            run.describe()
        );
        assert_eq!(run.stdout, "", "{}", run.describe());
        assert!(
            run.stderr.starts_with(prefix),
            "stderr should start with {prefix:?} for\n  {}\n{}",
            shorten(what),
            run.describe()
        );
    }
}

/// Runs rsh and returns its status, stdout and stderr. Fails the test when rsh is killed by a
/// signal (a crash: stack overflow, abort, ...) or runs longer than `TIMEOUT`.
fn rsh(cwd: &Path, args: &[&OsStr]) -> Run {
    rsh_as(None, cwd, args)
}

/// As `rsh`, as the user with id UID when given.
fn rsh_as(uid: Option<u32>, cwd: &Path, args: &[&OsStr]) -> Run {
    let started = Instant::now();
    let mut command = Command::new(RSH);
    if let Some(uid) = uid {
        std::os::unix::process::CommandExt::uid(&mut command, uid);
        std::os::unix::process::CommandExt::gid(&mut command, uid);
    }
    let mut child = command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rsh");
    let stdout = drain(child.stdout.take().expect("stdout pipe"));
    let stderr = drain(child.stderr.take().expect("stderr pipe"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for rsh") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rsh ran longer than {TIMEOUT:?} (killed)");
        }
        thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    let stdout = stdout.join().expect("read stdout");
    let stderr = stderr.join().expect("read stderr");
    let Some(code) = status.code() else {
        panic!(
            "rsh was killed by signal {:?} (a crash)\nstderr: {:?}",
            status.signal(),
            shorten(&stderr)
        );
    };
    Run {
        status: code,
        stdout,
        stderr,
        elapsed,
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The `L:C` position at the end of the first line of a message (`... at 1:19`).
fn position(message: &str) -> Option<(usize, usize)> {
    let first = message.lines().next()?;
    let (_, tail) = first.rsplit_once(" at ")?;
    let (line, column) = tail.trim().split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

// ---------------------------------------------------------------------------------------------
// The canary works
// ---------------------------------------------------------------------------------------------

#[test]
fn canary_appears_for_valid_input() {
    // Without the bad part, the same input does create the canary.
    let sb = Sandbox::new();
    let run = sb.run("touch CANARY; echo ok");
    assert!(sb.path().join("CANARY").exists(), "{}", run.describe());
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
    assert_eq!(run.stderr, "", "{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// Syntax errors
// ---------------------------------------------------------------------------------------------

fn syntax_error(script: &str) -> Run {
    let sb = Sandbox::new();
    let run = sb.run(script);
    sb.refused(script, &run, "rsh: syntax error");
    assert!(
        position(&run.stderr).is_some(),
        "a syntax error should give its L:C position\n{}",
        run.describe()
    );
    run
}

/// A here-document whose delimiter line never comes, or whose delimiter tree-sitter-bash
/// reads otherwise (`<<"E"F` is `EF`), is refused: lines of its body once ran as commands.
#[test]
fn syntax_error_here_document_body_never_runs() {
    syntax_error("cat <<'E'\nE;\ntouch CANARY\n");
    syntax_error("cat <<\"E\"F\nE\ntouch CANARY\nEF\n");
}

/// A case terminator outside `case` is bash's syntax error; tree-sitter-bash let `echo a;;
/// echo b` pass, and rsh ran both commands.
#[test]
fn syntax_error_case_terminator_outside_case() {
    for script in [
        "touch CANARY;; echo b",
        "touch CANARY; { echo a;; }",
        "touch CANARY; if true; then echo a;; fi",
        "touch CANARY; x=1 >f;;",
        "touch CANARY; x=$(echo a;; echo b)",
        "touch CANARY; cat <(echo a;; echo b)",
    ] {
        let run = syntax_error(script);
        assert!(run.stderr.contains("unexpected `;"), "{}", run.describe());
    }
}

/// `esac` right after a simple command's words, or a redirection, is one more word to bash,
/// which then misses the end of `case`; tree-sitter-bash ended the `case` there, and the
/// command ran. After a compound command it is the end of `case`, as in bash.
#[test]
fn syntax_error_esac_as_an_argument() {
    for script in [
        "case a in a) touch CANARY esac",
        "case a in a) echo 1;; b) echo 2;; *) touch CANARY esac",
        "case a in a) true && touch CANARY esac",
        "case a in a) ! touch CANARY esac",
        "case a in a) touch CANARY >/dev/null esac",
        "case a in a) (touch CANARY) >/dev/null esac",
        "case a in a) [ a ] && touch CANARY | cat esac",
        "x=$(case a in a) touch CANARY esac)",
    ] {
        let run = syntax_error(script);
        assert!(
            run.stderr.contains("`esac` here is an argument"),
            "{}",
            run.describe()
        );
    }
    let sandbox = Sandbox::new();
    for script in [
        "case a in a) (echo 1) esac",
        "case a in a) { echo 1; } esac",
        "case a in a) if true; then echo 1; fi esac",
        "case a in a) [[ a ]] && echo 1; esac",
        "case a in a) echo 1 # esac\nesac",
        "case a in a) echo 1 & esac",
    ] {
        let run = sandbox.run(script);
        if script.contains('&') {
            assert!(!run.stderr.contains("`esac`"), "{}", run.describe());
            continue;
        }
        assert_eq!(
            (run.status, run.stdout.as_str()),
            (0, "1\n"),
            "{}",
            run.describe()
        );
    }
}

#[test]
fn syntax_error_if_then() {
    syntax_error("touch CANARY; if then");
}

#[test]
fn syntax_error_unterminated_single_quote() {
    syntax_error("touch CANARY; echo 'unterminated");
}

#[test]
fn syntax_error_unterminated_double_quote() {
    syntax_error("touch CANARY; echo \"unterminated");
}

#[test]
fn syntax_error_unclosed_subshell() {
    syntax_error("touch CANARY; ( echo");
}

#[test]
fn syntax_error_unclosed_group() {
    syntax_error("touch CANARY; { echo");
}

#[test]
fn syntax_error_unclosed_command_substitution() {
    syntax_error("touch CANARY; echo $(echo");
}

#[test]
fn syntax_error_stray_fi() {
    syntax_error("touch CANARY; fi");
}

#[test]
fn syntax_error_stray_done() {
    syntax_error("touch CANARY; done");
}

#[test]
fn syntax_error_stray_close_paren() {
    syntax_error("touch CANARY; echo )");
}

#[test]
fn syntax_error_pipe_without_command() {
    syntax_error("touch CANARY; | cat");
}

#[test]
fn syntax_error_dangling_and() {
    syntax_error("touch CANARY; echo &&");
}

#[test]
fn syntax_error_on_a_later_line() {
    syntax_error("touch CANARY\necho ok\nif then\n");
}

#[test]
fn syntax_error_points_at_the_line_of_the_mistake() {
    // The mistake is on line 3; the message must not blame the first command.
    let run = syntax_error("touch CANARY\necho ok\nif then\n");
    let (line, _) = position(&run.stderr).expect("a position");
    assert_eq!(
        line,
        3,
        "the syntax error is reported on the wrong line\n{}",
        run.describe()
    );
}

#[test]
fn syntax_error_in_a_script_file() {
    let sb = Sandbox::new();
    let file = sb.write("script", "touch CANARY\necho ok\nif then\n");
    let run = sb.run_file(&file);
    sb.refused(
        "rsh script",
        &run,
        &format!("rsh: {}: syntax error", file.display()),
    );
}

// ---------------------------------------------------------------------------------------------
// Unsupported constructs
// ---------------------------------------------------------------------------------------------

/// Refused with `rsh: unsupported: CONSTRUCT ... at L:C`, the position inside `at` (the byte
/// range of the construct on line `line`, as columns).
fn unsupported(
    script: &str,
    construct: &str,
    line: usize,
    columns: std::ops::RangeInclusive<usize>,
) {
    let sb = Sandbox::new();
    let run = sb.run(script);
    sb.refused(script, &run, "rsh: unsupported: ");
    assert!(
        run.stderr.contains(construct),
        "the message should name {construct:?}\n{}",
        run.describe()
    );
    let at = position(&run.stderr);
    assert!(
        matches!(at, Some((l, c)) if l == line && columns.contains(&c)),
        "expected a position {line}:{columns:?}, found {at:?}\n{}",
        run.describe()
    );
}

#[test]
fn unsupported_construct_on_a_later_line() {
    unsupported("touch CANARY\necho ok; coproc cat\n", "coproc", 2, 10..=19);
}

#[test]
fn unsupported_inside_a_function_never_called() {
    // Refused when the text is read, not when the function would run.
    unsupported("touch CANARY; f() { coproc cat; }", "coproc", 1, 21..=30);
}

#[test]
fn unsupported_background_job() {
    unsupported("touch CANARY; sleep 1 &", "background", 1, 23..=23);
}

#[test]
fn unsupported_background_job_mid_list() {
    unsupported("touch CANARY; sleep 1 & echo x", "background", 1, 23..=23);
}

/// bash joins the lines: `x` is empty and `true touch CANARY` runs. tree-sitter took `true`
/// for the value, and rsh ran `touch CANARY`. Refused rather than guessed at.
#[test]
fn unsupported_blank_after_a_continued_assignment() {
    unsupported(
        "touch CANARY; x=\\\n true touch CANARY",
        "line continuation",
        1,
        17..=17,
    );
}

/// `$\<newline>#` is `$#` to bash, which joins the lines first, so `<<E` after it starts a
/// here-document and the next line is its text; tree-sitter kept the `$` as text and took `#`
/// for a comment, and rsh ran that line.
#[test]
fn unsupported_dollar_before_a_line_continuation() {
    let script = "touch CANARY; echo a$\\\n# <<E\ntouch CANARY\nE\n";
    unsupported(script, "line continuation", 1, 21..=21);
    unsupported("echo \"a$\\\nHOME\" >$\\\nz; touch CANARY", "`$`", 1, 8..=8);
}

/// bash joins continued lines before it reads a name: `$HO\<newline>ME` is `$HOME`, in a word
/// and in a here-document, where rsh read `$HO` and the text `ME` (and a here-document kept
/// `$\<newline>` as text).
#[test]
fn unsupported_line_continuation_inside_a_name() {
    unsupported("touch CANARY; echo $HO\\\nME", "parameter name", 1, 23..=23);
    unsupported(
        "touch CANARY; echo $HO\\\n\\\nME",
        "parameter name",
        1,
        23..=23,
    );
    unsupported(
        "touch CANARY; cat <<E\nx $HOME\\\ny\nE\n",
        "parameter name",
        2,
        8..=8,
    );
    unsupported("touch CANARY; cat <<E\n$\\\nHOME\nE\n", "`$`", 2, 1..=1);
}

#[test]
fn unsupported_array_assignment() {
    unsupported("touch CANARY; a=(1 2)", "array", 1, 15..=21);
}

#[test]
fn unsupported_array_subscript() {
    unsupported("touch CANARY; echo ${a[1]}", "array", 1, 20..=26);
}

/// `{fd}>file` names a descriptor bash opens; rsh took `{fd}` for a word and wrote
/// `hi {fd}` to the file.
#[test]
fn unsupported_named_descriptor() {
    unsupported(
        "touch CANARY; echo hi {fd}>f",
        "named file descriptors",
        1,
        23..=23,
    );
    unsupported(
        "touch CANARY; exec {fd}<f",
        "named file descriptors",
        1,
        20..=20,
    );
    // Line continuations are gone before bash reads the word.
    unsupported(
        "touch CANARY; echo hi {fd}\\\n>f",
        "named file descriptors",
        1,
        23..=23,
    );
    unsupported(
        "touch CANARY; echo hi {f\\\nd}>f",
        "named file descriptors",
        1,
        23..=23,
    );
    // `&>` names no descriptor: `{a}` is a word there, as in bash.
    let sb = Sandbox::new();
    let run = sb.run("echo hi {a}&>f; cat f");
    assert_eq!(run.stdout, "hi {a}\n", "{}", run.describe());
}

#[test]
fn unsupported_coproc() {
    unsupported("touch CANARY; coproc cat", "coproc", 1, 15..=24);
}

#[test]
fn unsupported_named_coproc() {
    unsupported("touch CANARY; coproc c { cat; }", "coproc", 1, 15..=31);
}

#[test]
fn unsupported_select() {
    unsupported(
        "touch CANARY; select x in a b; do echo $x; done",
        "select",
        1,
        15..=20,
    );
}

// ---------------------------------------------------------------------------------------------
// Hostile scripts
// ---------------------------------------------------------------------------------------------

#[test]
fn nul_byte_in_a_script_file() {
    let sb = Sandbox::new();
    let file = sb.write("script", b"touch CANARY\necho a\0b\n");
    let run = sb.run_file(&file);
    sb.refused("script with a NUL byte", &run, "rsh: ");
    assert!(run.stderr.contains("NUL"), "{}", run.describe());
    assert_eq!(position(&run.stderr), Some((2, 7)), "{}", run.describe());
}

#[test]
fn invalid_utf8_in_a_script_file() {
    let sb = Sandbox::new();
    let file = sb.write("script", b"touch CANARY\necho \xff\xfe\n");
    let run = sb.run_file(&file);
    sb.refused("script with invalid UTF-8", &run, "rsh: ");
    assert!(run.stderr.contains("UTF-8"), "{}", run.describe());
    assert_eq!(position(&run.stderr), Some((2, 6)), "{}", run.describe());
}

/// A `-c` command, an argument or a line of standard input that is not UTF-8 is refused as a
/// script file with such bytes is, not run with its bytes replaced (which would name another
/// file than the one given).
#[test]
fn invalid_utf8_in_arguments_and_standard_input() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    let policy = sb.policy();
    let command = OsStr::from_bytes(b"touch CANARY; echo \xff");
    let run = sb.rsh(&[
        "--policy".as_ref(),
        policy.as_os_str(),
        "-c".as_ref(),
        command,
    ]);
    sb.refused("-c with invalid UTF-8", &run, "rsh: argument 4: ");
    assert_eq!(position(&run.stderr), Some((1, 20)), "{}", run.describe());
    let name = OsStr::from_bytes(b"a\xffb");
    let args = ["--policy".as_ref(), policy.as_os_str(), "-c".as_ref()];
    let args = [&args[..], &["touch CANARY".as_ref(), "sh".as_ref(), name]].concat();
    let run = sb.rsh(&args);
    sb.refused("an argument with invalid UTF-8", &run, "rsh: argument 6: ");
    // Standard input runs line by line: what came before runs, the script stops there.
    let input = sb.write("input", b"echo first\necho a\xffb\ntouch CANARY\n");
    let out = Command::new(RSH)
        .arg("--policy")
        .arg(&policy)
        .current_dir(sb.path())
        .stdin(fs::File::open(&input).unwrap())
        .output()
        .expect("run rsh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(out.stdout, b"first\n", "{stderr}");
    assert_eq!(stderr, "rsh: input is not valid UTF-8 at 1:7\n");
    assert!(!sb.path().join("CANARY").exists());
}

#[test]
fn one_megabyte_single_line_runs() {
    // A single argument of `-c` is limited by the kernel (MAX_ARG_STRLEN, 128 KiB), so the
    // line is given as a script file.
    let sb = Sandbox::new();
    let word = "a".repeat(1 << 20);
    let file = sb.write("script", format!("echo {word}\n"));
    let run = sb.run_file(&file);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stderr, "", "{}", run.describe());
    assert!(run.stdout == format!("{word}\n"), "{}", run.describe());
}

#[test]
fn input_over_the_size_limit_is_refused() {
    let sb = Sandbox::new();
    let mut text = String::from("touch CANARY; echo ");
    text.push_str(&"a".repeat(17 << 20));
    let file = sb.write("script", text);
    let run = sb.run_file(&file);
    sb.refused("a 17 MB script", &run, "rsh: ");
    assert!(run.stderr.contains("too large"), "{}", run.describe());
}

/// Deeply nested input must end in a clear error, with status 2, quickly, without a crash.
fn too_deep(sb: &Sandbox, what: &str, run: &Run) {
    sb.refused(what, run, "rsh: ");
    assert!(
        run.stderr.contains("nest") || run.stderr.contains("syntax error"),
        "the message should say what is wrong\n{}",
        run.describe()
    );
    assert!(
        run.stderr.len() < 4096,
        "the message should be short, not {} bytes",
        run.stderr.len()
    );
    assert!(run.elapsed < TIMEOUT, "took {:?}", run.elapsed);
}

fn nested(open: &str, middle: &str, close: &str, depth: usize) -> String {
    format!(
        "touch CANARY; {}{middle}{}",
        open.repeat(depth),
        close.repeat(depth)
    )
}

#[test]
fn deep_command_substitution() {
    let sb = Sandbox::new();
    let script = nested("echo $(", "echo x", ")", 10_000);
    let run = sb.run(&script);
    too_deep(&sb, "10 000 nested $( )", &run);
}

#[test]
fn deep_quoted_command_substitution() {
    let sb = Sandbox::new();
    let script = nested("echo \"$(", "echo x", ")\"", 10_000);
    let run = sb.run(&script);
    too_deep(&sb, "10 000 nested \"$( )\"", &run);
}

#[test]
fn deep_subshells() {
    let sb = Sandbox::new();
    let script = nested("( ", "echo x", " )", 10_000);
    let run = sb.run(&script);
    too_deep(&sb, "10 000 nested ( )", &run);
}

#[test]
fn deep_groups() {
    let sb = Sandbox::new();
    let script = nested("{ ", "echo x", "; }", 10_000);
    let run = sb.run(&script);
    too_deep(&sb, "10 000 nested { }", &run);
}

#[test]
fn deep_if() {
    // 140 KB: too long for one `-c` argument, so given as a script file.
    let sb = Sandbox::new();
    let file = sb.write("script", nested("if true; then ", "echo x", "; fi", 10_000));
    let run = sb.run_file(&file);
    too_deep(&sb, "10 000 nested if", &run);
}

#[test]
fn deep_parameter_expansion() {
    let sb = Sandbox::new();
    let script = nested("echo ${x:-", "y", "}", 10_000);
    let run = sb.run(&script);
    too_deep(&sb, "10 000 nested ${x:-...}", &run);
}

#[test]
fn deep_conditional_expression() {
    let sb = Sandbox::new();
    let script = format!(
        "touch CANARY; [[ {}a{} ]]",
        "( ".repeat(10_000),
        " )".repeat(10_000)
    );
    let run = sb.run(&script);
    too_deep(&sb, "10 000 nested ( ) in [[ ]]", &run);
}

/// `$(( ((((...1)))) ))` and `(( ((((...1)))) ))`, `((` nested 100 000 times: 400 KB, too long
/// for one `-c` argument.
fn deep_arithmetic_scripts() -> [String; 2] {
    let (open, close) = ("((".repeat(100_000), "))".repeat(100_000));
    [
        format!("touch CANARY; echo $(({open}1{close}))\n"),
        format!("touch CANARY; (( {open}1{close} ))\n"),
    ]
}

#[test]
fn deep_arithmetic_ends_without_crash() {
    for script in deep_arithmetic_scripts() {
        let sb = Sandbox::new();
        let file = sb.write("script", &script);
        let run = sb.run_file(&file);
        // rsh returned (no signal, no timeout), with an error that says what is wrong.
        assert_ne!(run.status, 0, "{}", run.describe());
        assert!(run.stderr.starts_with("rsh: "), "{}", run.describe());
        assert!(
            run.stderr.contains("nest") || run.stderr.contains("recursion"),
            "the message should say the expression is too deep\n{}",
            run.describe()
        );
        assert!(run.elapsed < TIMEOUT, "took {:?}", run.elapsed);
    }
}

#[test]
fn deep_arithmetic_fails_when_evaluated_with_a_short_message() {
    // Arithmetic text is evaluated when its command runs, as in bash (which also runs the
    // `touch` first): the expression fails with status 1, and the message quotes only the
    // start of the 400 KB expression.
    for script in deep_arithmetic_scripts() {
        let sb = Sandbox::new();
        let file = sb.write("script", &script);
        let run = sb.run_file(&file);
        assert_eq!(run.status, 1, "{}", run.describe());
        assert!(run.stderr.contains("recursion"), "{}", run.describe());
        assert!(
            run.stderr.len() < 1024,
            "the message should be short, got {} bytes",
            run.stderr.len()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Broken policies
// ---------------------------------------------------------------------------------------------

/// Writes POLICY as `bad.toml`, runs `rsh --policy bad.toml -c 'touch CANARY'`, and checks
/// the refusal: status 2, `rsh: cannot start: policy <file>:<line>:`, and each of MENTIONS.
fn broken_policy(policy: &str, line: usize, mentions: &[&str]) {
    let sb = Sandbox::new();
    let file = sb.write("bad.toml", policy);
    let run = sb.rsh(&[
        "--policy".as_ref(),
        file.as_os_str(),
        "-c".as_ref(),
        "touch CANARY".as_ref(),
    ]);
    let prefix = format!("rsh: cannot start: policy {}:{line}:", file.display());
    sb.refused(&format!("policy:\n{policy}"), &run, &prefix);
    for mention in mentions {
        assert!(
            run.stderr.contains(mention),
            "the message should mention {mention:?}\n{}",
            run.describe()
        );
    }
}

#[test]
fn policy_unknown_key_in_shell() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\nfrobnicate = 1\n[commands]\nallow = [\"touch\"]\n",
        3,
        &["unknown key", "frobnicate"],
    );
}

#[test]
fn policy_unknown_top_level_table() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\n\n[frobnicate]\nx = 1\n",
        4,
        &["unknown key", "frobnicate"],
    );
}

#[test]
fn policy_unknown_key_in_command_table() {
    broken_policy(
        "[commands]\nallow = [\"touch\"]\n\n[commands.touch]\nalow = [\"x\"]\n",
        5,
        &["unknown key", "alow"],
    );
}

#[test]
fn policy_misspelled_list_in_commands() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[commands]\nalow = [\"touch\"]\n",
        4,
        &["alow"],
    );
}

#[test]
fn policy_wrong_type_string_for_list() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[commands]\nallow = \"touch\"\n",
        4,
        &["commands.allow", "invalid type"],
    );
}

#[test]
fn policy_wrong_type_integer_for_verdict() {
    broken_policy(
        "[shell]\nunknown = 3\n[commands]\nallow = [\"touch\"]\n",
        2,
        &["shell.unknown"],
    );
}

#[test]
fn policy_wrong_value_for_verdict() {
    broken_policy(
        "[shell]\nunknown = \"maybe\"\n[commands]\nallow = [\"touch\"]\n",
        2,
        &["shell.unknown", "maybe"],
    );
}

#[test]
fn policy_wrong_type_array_for_command_table() {
    // `[commands]` NAME must be a table; an array is not another way to write one.
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[commands]\ntouch = [\"allow\", [], [], []]\n",
        4,
        &["commands.touch"],
    );
}

#[test]
fn policy_toml_syntax_error() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[commands\nallow = [\"touch\"]\n",
        3,
        &["TOML syntax"],
    );
}

#[test]
fn policy_duplicate_table() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[shell]\nunknown = \"allow\"\n",
        3,
        &["TOML syntax", "duplicate"],
    );
}

#[test]
fn policy_bad_pattern_unbalanced_quote() {
    broken_policy(
        "[commands]\nallow = [\"touch\"]\n[commands.touch]\ndeny = [\"log 'x\"]\n",
        4,
        &["invalid pattern", "quote"],
    );
}

#[test]
fn policy_bad_pattern_regex() {
    broken_policy(
        "[commands]\nallow = [\"touch\"]\n[commands.touch]\ndeny = [\"re:(\"]\n",
        4,
        &["invalid pattern", "regular expression"],
    );
}

#[test]
fn policy_bad_pattern_misplaced_star() {
    broken_policy(
        "[commands]\nallow = [\"touch\"]\n[commands.touch]\ndeny = [\"a:*:b\"]\n",
        4,
        &["invalid pattern", ":*"],
    );
}

#[test]
fn policy_bad_rule_reversed_range() {
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[rules]\ndeny = [\"touch [z-a]\"]\n",
        4,
        &["rules.deny", "z-a"],
    );
}

#[test]
fn policy_duplicate_command_name() {
    // Reported on the second occurrence, with the line of the first.
    broken_policy(
        "[shell]\nunknown = \"deny\"\n[commands]\nallow = [\n  \"touch\",\n  \"ls\",\n  \"touch\",\n]\n",
        7,
        &["\"touch\" is listed twice", "line 5"],
    );
}

#[test]
fn policy_duplicate_pattern() {
    broken_policy(
        "[commands]\nallow = [\"touch\"]\n[commands.touch]\ndeny = [\n  \"-x\",\n  \"-x\",\n]\n",
        6,
        &["\"-x\" is listed twice", "line 5"],
    );
}

#[test]
fn policy_relative_command_path() {
    broken_policy(
        "[commands]\nallow = [\"touch\", \"bin/ls\"]\n",
        2,
        &["bin/ls"],
    );
}

#[test]
fn policy_file_missing() {
    let sb = Sandbox::new();
    let missing = sb.path().join("no-such-policy.toml");
    let run = sb.rsh(&[
        "--policy".as_ref(),
        missing.as_os_str(),
        "-c".as_ref(),
        "touch CANARY".as_ref(),
    ]);
    let prefix = format!("rsh: cannot start: policy {}", missing.display());
    sb.refused("a missing policy", &run, &prefix);
    assert!(run.stderr.contains("No such file"), "{}", run.describe());
}

#[test]
fn policy_is_a_directory() {
    let sb = Sandbox::new();
    let dir = sb.path().join("policy.d");
    fs::create_dir(&dir).expect("mkdir policy.d");
    let run = sb.rsh(&[
        "--policy".as_ref(),
        dir.as_os_str(),
        "-c".as_ref(),
        "touch CANARY".as_ref(),
    ]);
    let prefix = format!("rsh: cannot start: policy {}", dir.display());
    sb.refused("--policy naming a directory", &run, &prefix);
    assert!(run.stderr.contains("directory"), "{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// -n: syntax check only
// ---------------------------------------------------------------------------------------------

#[test]
fn check_only_runs_nothing() {
    let sb = Sandbox::new();
    let policy = sb.policy();
    let run = sb.rsh(&[
        "--policy".as_ref(),
        policy.as_os_str(),
        "-n".as_ref(),
        "-c".as_ref(),
        "touch CANARY".as_ref(),
    ]);
    sb.assert_no_canary("rsh -n -c 'touch CANARY'", &run);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, "", "{}", run.describe());
    assert_eq!(run.stderr, "", "{}", run.describe());
}

#[test]
fn check_only_runs_nothing_from_a_file() {
    let sb = Sandbox::new();
    let file = sb.write("script", "touch CANARY\necho ran\n");
    let run = sb.rsh(&["-n".as_ref(), file.as_os_str()]);
    sb.assert_no_canary("rsh -n script", &run);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert_eq!(run.stdout, "", "{}", run.describe());
    assert_eq!(run.stderr, "", "{}", run.describe());
}

#[test]
fn check_only_reports_syntax_errors() {
    let sb = Sandbox::new();
    let run = sb.rsh(&[
        "-n".as_ref(),
        "-c".as_ref(),
        "touch CANARY; if then".as_ref(),
    ]);
    sb.refused(
        "rsh -n -c 'touch CANARY; if then'",
        &run,
        "rsh: syntax error",
    );
}

#[test]
fn check_only_reports_unsupported_constructs() {
    let sb = Sandbox::new();
    let run = sb.rsh(&[
        "-n".as_ref(),
        "-c".as_ref(),
        "touch CANARY; coproc cat".as_ref(),
    ]);
    sb.refused(
        "rsh -n -c 'touch CANARY; coproc cat'",
        &run,
        "rsh: unsupported: ",
    );
}

// ---------------------------------------------------------------------------------------------
// Usage errors
// ---------------------------------------------------------------------------------------------

fn usage_error(args: &[&str], mention: &str) {
    let sb = Sandbox::new();
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let run = sb.rsh(&args);
    sb.refused(&format!("rsh {args:?}"), &run, "rsh: ");
    assert!(
        run.stderr.contains(mention),
        "the message should mention {mention:?}\n{}",
        run.describe()
    );
    assert!(
        run.stderr.contains("usage: rsh"),
        "a usage message should follow\n{}",
        run.describe()
    );
}

#[test]
fn usage_c_without_command() {
    usage_error(&["-c"], "-c: option requires an argument");
}

#[test]
fn usage_unknown_long_option() {
    usage_error(&["--frobnicate"], "--frobnicate: invalid option");
}

#[test]
fn usage_unknown_long_option_before_command() {
    usage_error(&["--frobnicate", "-c", "touch CANARY"], "--frobnicate");
}

#[test]
fn usage_unknown_short_option_before_command() {
    usage_error(&["-Z", "-c", "touch CANARY"], "-Z: invalid option");
}

/// A bad `-O` or `-o` name is refused by the builtin it goes to, in that builtin's one line.
#[test]
fn unknown_startup_option_names_are_refused_in_one_message() {
    let sb = Sandbox::new();
    for (args, message) in [
        (
            ["-O", "nosuch"],
            "rsh: shopt: nosuch: invalid shell option name\n",
        ),
        (["-o", "nosuch"], "rsh: set: nosuch: invalid option name\n"),
    ] {
        let args: Vec<&OsStr> = args
            .iter()
            .chain(&["-c", "touch CANARY"])
            .map(OsStr::new)
            .collect();
        let run = sb.rsh(&args);
        sb.refused(&format!("rsh {args:?}"), &run, "rsh: ");
        assert_eq!(run.stderr, message, "{}", run.describe());
    }
}

#[test]
fn usage_policy_without_file() {
    usage_error(&["--policy"], "--policy");
}

// ---------------------------------------------------------------------------------------------
// A policy others could change
// ---------------------------------------------------------------------------------------------

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// `rsh --policy FILE -c 'touch CANARY'` must refuse to start, naming FILE_OR_DIR and why.
fn untrusted_policy(sb: &Sandbox, file: &Path, uid: Option<u32>, mentions: &[&str]) {
    let run = rsh_as(
        uid,
        sb.path(),
        &[
            "--policy".as_ref(),
            file.as_os_str(),
            "-c".as_ref(),
            "touch CANARY".as_ref(),
        ],
    );
    let prefix = format!(
        "rsh: cannot start: policy {}: refused: the ",
        file.display()
    );
    sb.refused("touch CANARY", &run, &prefix);
    for mention in mentions {
        assert!(
            run.stderr.contains(mention),
            "{mention:?}\n{}",
            run.describe()
        );
    }
}

#[test]
fn a_policy_anyone_can_write_is_refused() {
    let sb = Sandbox::new();
    chmod(&sb.policy(), 0o666);
    untrusted_policy(
        &sb,
        &sb.policy(),
        None,
        &[
            "is writable by its group and by everyone (mode 0666)",
            "chmod go-w",
        ],
    );
    chmod(&sb.policy(), 0o664);
    untrusted_policy(
        &sb,
        &sb.policy(),
        None,
        &["writable by its group (mode 0664)"],
    );
}

#[test]
fn a_policy_in_a_directory_others_can_write_is_refused() {
    let sb = Sandbox::new();
    let open = sb.path().join("open");
    fs::create_dir(&open).unwrap();
    let file = open.join("policy.toml");
    fs::copy(sb.policy(), &file).unwrap();
    chmod(&open, 0o770);
    untrusted_policy(
        &sb,
        &file,
        None,
        &[&format!(
            "the directory {} is writable by its group",
            open.display()
        )],
    );
    // A link from a trusted place does not help: the file is judged where it really is.
    let link = sb.path().join("link.toml");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    untrusted_policy(&sb, &link, None, &[&open.display().to_string()]);
}

/// A user may run rsh on a policy of their own, or root's, but not on another user's.
#[test]
fn a_policy_must_be_owned_by_root_or_the_user_running_rsh() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: running rsh as another user needs root");
        return;
    }
    const USER: u32 = 47_101;
    const OTHER: u32 = 47_102;
    let sb = Sandbox::new();
    chmod(sb.path(), 0o755);
    std::os::unix::fs::chown(sb.path(), Some(USER), Some(USER)).unwrap();
    let run_as_user = |file: &Path| {
        rsh_as(
            Some(USER),
            sb.path(),
            &[
                "--policy".as_ref(),
                file.as_os_str(),
                "-c".as_ref(),
                "touch CANARY".as_ref(),
            ],
        )
    };

    // Root's policy: trusted.
    let run = run_as_user(&sb.policy());
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(sb.path().join("CANARY").exists(), "{}", run.describe());
    fs::remove_file(sb.path().join("CANARY")).unwrap();

    // The user's own: trusted (no system policy exists on a test machine).
    let own = sb.write("own.toml", POLICY);
    std::os::unix::fs::chown(&own, Some(USER), Some(USER)).unwrap();
    if Path::new("/etc/rsh/policy.toml").exists() {
        eprintln!("SKIPPED (own policy): /etc/rsh/policy.toml exists on this machine");
    } else {
        let run = run_as_user(&own);
        assert_eq!(run.status, 0, "{}", run.describe());
        assert!(sb.path().join("CANARY").exists(), "{}", run.describe());
        fs::remove_file(sb.path().join("CANARY")).unwrap();
    }

    // Another user's: refused, even readable.
    let theirs = sb.write("theirs.toml", POLICY);
    std::os::unix::fs::chown(&theirs, Some(OTHER), Some(OTHER)).unwrap();
    untrusted_policy(
        &sb,
        &theirs,
        Some(USER),
        &[&format!(
            "is owned by uid {OTHER}, not by root or uid {USER} (the user running rsh)"
        )],
    );
}

// ---------------------------------------------------------------------------------------------
// --check-policy
// ---------------------------------------------------------------------------------------------

#[test]
fn check_policy_reports_roots_that_do_not_exist() {
    let sb = Sandbox::new();
    let missing = sb.path().join("no-such-dir");
    let text = format!(
        "[shell]\npath = [\"/usr/bin\", \"/usr/bin/env\", \"/no-such-bin\"]\n[paths]\nread = [\"/\", {:?}]\nwrite = [\".\"]\ndeny = [\"./not-yet\"]\n",
        missing.to_str().unwrap()
    );
    let file = sb.write("roots.toml", &text);
    let run = sb.rsh(&[
        "--policy".as_ref(),
        file.as_os_str(),
        "--check-policy".as_ref(),
    ]);
    assert_eq!(run.status, 1, "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "paths.read: {} does not exist here, so it grants nothing",
            missing.display()
        )),
        "{}",
        run.describe()
    );
    // A search directory that is a file is a mistake; one that is missing is skipped by
    // design (a policy may list where each system keeps a program).
    assert!(
        run.stderr
            .contains("shell.path: /usr/bin/env is not a directory"),
        "{}",
        run.describe()
    );
    assert!(!run.stderr.contains("no-such-bin"), "{}", run.describe());
    // A denied path that does not exist yet is not a problem: it is denied when it appears.
    assert!(!run.stderr.contains("not-yet"), "{}", run.describe());
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.describe());
}

/// A confining policy without `[shell] path` looks its names up on the caller's PATH, which
/// the user sets: worth a warning. One that confines nothing (the permissive policy) is not.
#[test]
fn check_policy_warns_of_a_policy_that_searches_the_callers_path() {
    let sb = Sandbox::new();
    let file = sb.write("no-path.toml", "[commands]\nallow = [\"ls\"]\n");
    let run = sb.rsh(&[
        "--policy".as_ref(),
        file.as_os_str(),
        "--check-policy".as_ref(),
    ]);
    assert_eq!(run.status, 1, "{}", run.describe());
    let expected = format!(
        "rsh: warning: policy {}: no [shell] path: commands are looked up on the caller's PATH",
        file.display()
    );
    assert!(run.stderr.starts_with(&expected), "{}", run.describe());

    let permissive = Path::new(env!("CARGO_MANIFEST_DIR")).join("policy/permissive.toml");
    let run = sb.rsh(&[
        "--policy".as_ref(),
        permissive.as_os_str(),
        "--check-policy".as_ref(),
    ]);
    assert!(!run.stderr.contains("[shell] path"), "{}", run.describe());
}

#[test]
fn check_policy_accepts_a_sound_policy_and_refuses_a_broken_one() {
    let sb = Sandbox::new();
    let run = sb.rsh(&[
        "--policy".as_ref(),
        sb.policy().as_os_str(),
        "--check-policy".as_ref(),
    ]);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(run.stdout.ends_with(": ok\n"), "{}", run.describe());
    let file = sb.write("bad.toml", "[paths]\nread = [\"relative\"]\n");
    let run = sb.rsh(&[
        "--policy".as_ref(),
        file.as_os_str(),
        "--check-policy".as_ref(),
    ]);
    assert_eq!(run.status, 2, "{}", run.describe());
    assert!(
        run.stderr
            .contains("paths.read: \"relative\" is neither absolute"),
        "{}",
        run.describe()
    );
}

#[test]
fn check_policy_names_entries_that_never_decide_and_sections_for_no_one() {
    let sb = Sandbox::new();
    let text = "[shell]\npath = [\"/usr/bin\", \"/bin\"]\n\n\
                [commands]\nallow = [\"ls\", \"cat\"]\ndeny = [\"cat\"]\n\n\
                [users.no-such-user-rsh]\n";
    let file = sb.write("dead.toml", text);
    let run = sb.rsh(&["--check-policy".as_ref(), file.as_os_str()]);
    assert_eq!(run.status, 1, "{}", run.describe());
    let f = file.display();
    assert_eq!(
        run.stderr,
        format!(
            "rsh: warning: policy {f}:5: commands.allow \"cat\" never decides: commands.deny \
             \"cat\" ({f}:6) names the same program, and deny wins\n\
             rsh: warning: policy {f}:8: [users.no-such-user-rsh] applies to no one: there is no \
             user no-such-user-rsh on this system\n"
        ),
        "{}",
        run.describe()
    );
    assert_eq!(run.stdout, "", "{}", run.describe());
}

#[test]
fn check_policy_names_allowed_commands_that_escape_it() {
    let sb = Sandbox::new();
    if !Path::new("/bin/sh").exists() {
        eprintln!("SKIPPED: no /bin/sh here");
        return;
    }
    let text = "[shell]\npath = [\"/usr/local/bin\", \"/usr/bin\", \"/bin\"]\n\n\
                [commands]\nallow = [\"ls\", \"sh\"]\n";
    let file = sb.write("escape.toml", text);
    // `--check-policy FILE` is `--policy FILE --check-policy`.
    let run = sb.rsh(&["--check-policy".as_ref(), file.as_os_str()]);
    assert_eq!(run.status, 1, "{}", run.describe());
    let expected = format!(
        "rsh: warning: policy allows `sh -c id` (listed in commands.allow ({}:5)): ",
        file.display()
    );
    assert!(run.stderr.starts_with(&expected), "{}", run.describe());
    assert!(
        run.stderr.contains("is a shell: it runs any command line"),
        "{}",
        run.describe()
    );
    assert!(!sb.path().join("CANARY").exists());
}
