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

/// Runs `script` under bash and under rsh (permissive policy), asserts that both print and
/// end alike, and returns bash's (stdout, stderr, status).
fn same_as_bash(script: &str) -> (String, String, i32) {
    let bash = run("bash", &[], script);
    let rsh = run(RSH, &["--policy", &permissive()], script);
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    bash
}

/// Snapshot scripts enumerate the environment, functions and aliases with `compgen`.
#[test]
fn compgen_listings_match_bash() {
    let script = "export LATE=1; X=3; f() { :; }; g() { :; }; alias zz=ls; alias ab=cat\n\
                  compgen -e; echo \"status $?\"\n\
                  compgen -A function; compgen -a; compgen -e A; echo \"status $?\"\n\
                  compgen -e NOPE; echo \"status $?\"\n\
                  compgen -A export -A function\n";
    let bash = same_as_bash(script);
    assert!(bash.0.contains("AGENT_TOKEN\nHOME\nLATE\n"), "{}", bash.0);
}

/// Wrappers `wait` for what they may have started; rsh starts nothing in the background, so
/// every pid or job is none of its children, as bash says of one that is not.
#[test]
fn wait_answers_as_bash_without_children() {
    same_as_bash(
        "wait; echo $?; wait 123 2>/dev/null; echo $?; wait %1 2>/dev/null; echo $?\n\
         wait -n; echo $?; wait abc 2>/dev/null; echo $?; wait -p v 12 2>/dev/null; echo $?",
    );
}

/// `${VAR:?}` ends a subshell or command substitution with 1, the shell itself with 127.
#[test]
fn unset_variable_errors_end_with_bash_statuses() {
    same_as_bash(
        "exec 2>/dev/null; (: ${zz:?m}); echo $?; x=$(: ${zz:?m}); echo $?\n\
         : ${zz:?m}; echo not-reached",
    );
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
    same_as_bash(script);
}

/// Wrapper scripts and the system's own (Debian's `which -a`) read their options with
/// `getopts`: grouped flags, attached and separate values, `--`, the silent `:` form, a
/// scan started over by assigning OPTIND in the middle of a group, and a caller's scan
/// going on after a function that scanned its own arguments with `local OPTIND`.
#[test]
fn getopts_reads_options_as_bash_does() {
    let script = r#"f() {
  local OPTIND
  while getopts ":ab:c" o "$@"; do echo "o=$o arg=${OPTARG-unset} ind=$OPTIND"; done
  shift $((OPTIND - 1)); echo "status $? rest: $*"
}
f -a -b x -cbVALUE -- -a z; f -ab; f -x -b
getopts abc o -abc; echo "$o $OPTIND"; OPTIND=1; getopts abc o -abc; echo "$o $OPTIND"
set -- -q file; while getopts q o; do echo "pos $o"; done; echo "ind $OPTIND status $?"
OPTERR=0; getopts a o -z; echo "status $? o=$o arg=${OPTARG-unset}"
getopts a 1x -a; echo "status $?"
OPTIND=1; getopts abc o -abc; f -b y; getopts abc o -abc; echo "resumed $o $OPTIND"
which -a sh; echo "which $?""#;
    let bash = run("bash", &[], script);
    let rsh = run(RSH, &[], script);
    assert_eq!(
        (&rsh.0, rsh.2),
        (&bash.0, bash.2),
        "rsh: {rsh:?}\nbash: {bash:?}"
    );
    assert!(rsh.0.contains("o=: arg=b ind=2"), "{}", rsh.0);

    // Not silent: the message names the script, as bash's does.
    let (out, err, status) = run(RSH, &["--policy", &permissive()], "getopts a o -z; echo $o");
    assert_eq!((out.as_str(), status), ("?\n", 0));
    assert!(err.contains(": illegal option -- z"), "{err}");
}

/// A script run by name is a new shell: its `$0` is the path it was found at, `$$` its own,
/// `$-` a script's (`set -u` ends it), and the starting shell's unexported variables,
/// functions and exported IFS do not reach it.
#[test]
fn a_script_run_by_name_starts_as_a_new_shell() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("show");
    std::fs::write(
        &script,
        "echo \"0=$0 x=$x y=$y f=$(type -t f) flags=$- own_pid=$([ $$ != $PPID ] && echo yes)\"\n\
         set -u; echo $unset_here; echo not-reached\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let line = format!(
        "x=1; export y=2; export IFS=:; f() {{ :; }}; PATH={}:$PATH; show; {}; echo st=$?",
        dir.path().display(),
        script.display()
    );
    let bash = run("bash", &[], &line);
    let rsh = run(RSH, &["--policy", &permissive()], &line);
    assert_eq!(
        (&rsh.0, rsh.2),
        (&bash.0, bash.2),
        "rsh: {rsh:?}\nbash: {bash:?}"
    );
    assert!(
        bash.0.contains(&format!("0={} x= y=2", script.display())),
        "{}",
        bash.0
    );
}

/// Found through a relative $PATH entry, a script's `$0` is that entry joined with its name,
/// as bash's search spells it (`bin/show`), not an absolute path.
#[test]
fn a_script_found_through_a_relative_path_entry_sees_it_as_0() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    for name in ["bin/show", "show2"] {
        let script = dir.path().join(name);
        std::fs::write(&script, "echo \"0=$0\"\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    let line = format!(
        "cd {}; PATH=bin:$PATH show; PATH=:$PATH show2; PATH=.:$PATH show2; \
         PATH=./bin/../bin:$PATH show; PATH=$PWD/bin:$PATH show",
        dir.path().display()
    );
    let bash = same_as_bash(&line);
    assert!(bash.0.starts_with("0=bin/show\n0=./show2\n"), "{}", bash.0);
}

/// A case pattern with quoted text after a glob (`*".txt"`, `*"?"`) is one pattern, its
/// quoted part literal: it once split into `*` or `"?"`, and `*` matched everything.
#[test]
fn case_patterns_with_quoted_parts_after_a_glob_are_one_pattern() {
    let line = r#"for s in ab 'a?' x.txt x.md; do
        case $s in *"?") echo "$s: q";; *".txt"|*.c) echo "$s: txt";; a"*"|x) echo "$s: lit";; *) echo "$s: none";; esac
    done"#;
    let bash = same_as_bash(line);
    assert!(
        bash.0.starts_with("ab: none\na?: q\nx.txt: txt\n"),
        "{}",
        bash.0
    );
}

/// Words with several expansions are one word wherever they stand. A special parameter takes
/// one character as its name, so `x=/x/$$/y/$$/z` once assigned `/x/PID/y/` and ran a command
/// `$/z`. tree-sitter-bash ends some words early after an expansion (`w=/a/$x/b/$y/c` came as
/// `w=/a/$x/b/$` and a command `y/c`), in assignments, redirection targets and here-strings;
/// the assignments after such a word are still assignments.
#[test]
fn words_with_several_expansions_stay_one_word() {
    let line = r#"set -- a b; x=/x/$?/y/$#/z$?$; echo "$x"; y=$#$$$; echo "${y%%[0-9]*}${y##*[0-9]}"
        mkdir -p d/0/2; echo hi > d/$?/$#/f; cat d/0/2/f; z=/$$/$$/; [ "$z" = "/$$/$$/" ] && echo same
        p=1 q=2 r=3; w=/a/$p/b/$q/c$r/d; echo "$w"; v=a$?b$?c$?d$?e; echo "$v"
        echo to >a$?b$?c$?d; cat a0b0c0d; cat <a$?b$?c$?d; cat <<< a$?b$?c$?d
        cat <<E >f$?g$?h$?i
        doc
E
        cat f0g0h0i; { echo hi >&-; } 2>&1 | sed 's/.*echo: //'
        x=/a/$p/$q/b w=1 u+=2; echo "$x $w $u"; x=a$?b$?c w=3 printenv w; >g$?h$?i w=4 printenv w; cat g0h0i
        x=/a/$p/$q/b >/dev/null w=5 printenv w; x=/a/$p/$q/b w=6 >/dev/null v=7; echo $w$v"#;
    let bash = same_as_bash(line);
    assert_eq!(
        bash.0,
        "/x/0/y/2/z0$\n$\nhi\nsame\n/a/1/b/2/c3/d\na0b0c0d0e\nto\nto\na0b0c0d\n        doc\n\
         write error: Bad file descriptor\n/a/1/2/b 1 2\n3\n4\n67\n"
    );
}

/// The redirections of `VAR=value command` are expanded without its bindings, as bash does
/// (`x=def cmd >$x` once wrote `def`, where bash writes the file `$x` named before), for every
/// kind of redirection and command. A target that is not one word (`>$unset`, `>*` with two
/// matches) fails its redirection with status 1 and the line goes on, as in bash; it once
/// abandoned the rest of the line.
#[test]
fn redirections_are_expanded_before_the_commands_own_bindings() {
    let line = r#"x=abc; x=def cat >$x </dev/null; x=def printf '%s\n' w >>$x; x=def cat <<<$x
        x=def cat <<E
$x
E
        f() { echo "f sees $x"; }; x=def f >>$x; x=def command echo c >>$x; n=1; n=2 echo out >&$n
        x=def exec 3>>$x; echo three >&3; exec 3>&-; cat abc; x=def eval 'echo e >$x'; cat def
        rm abc def; { y=1 cat >$y; } 2>/dev/null </dev/null; echo "unset $?"; ls
        { echo >$nope; echo "next $?"; } 2>/dev/null; touch a b; { echo >*; } 2>/dev/null || echo "glob $?"
        { x=$(<$nope); } 2>/dev/null; echo "read $?""#;
    let bash = same_as_bash(line);
    assert_eq!(
        bash.0,
        "abc\nabc\nout\nw\nf sees def\nc\nthree\ne\nunset 1\nnext 1\nglob 1\nread 1\n"
    );
}

/// One assignment with redirections (`x=$(cmd) 2>/dev/null`) ends where bash ends it:
/// tree-sitter-bash read on into the next command, so that the line was refused as a syntax
/// error (`;`, `&&`, `|`) or a line break in a command. Inside `$( )` and `<( )` too.
#[test]
fn an_assignment_with_redirections_ends_its_command() {
    let line = r#"x=def >f; echo "ok $x"; x=$(echo err >&2; echo v) 2>/dev/null
        echo "done $? $x"; x=$(false) 2>/dev/null; echo "s=$?"; y=1 >g && echo and
        z=1 >h | cat; echo "p $z"; { w=1 >i; echo "in $w"; }; if v=2 >j; then echo "then $v"; fi
        f() { u=3 >k
        echo "fn $u"; }; f; t=1 >l echo arg; cat l; echo keep >m
        v=$(test -s m || r=1 2>m; echo ok); cat m; echo "$(s=1 >n | cat; echo "[$s]")"
        cat <(false && q=1 >o | echo not-run); ls"#;
    let bash = same_as_bash(line);
    assert_eq!(
        bash.0,
        "ok def\ndone 0 v\ns=1\nand\np \nin 1\nthen 2\nfn 3\narg\nkeep\n[]\n\
         f\ng\nh\ni\nj\nk\nl\nm\nn\n"
    );
}

/// A here-document ends at its delimiter alone, and a body line starting with `\` is text:
/// tree-sitter-bash took `\x /etc/hostname` after `cat <<'E'` for arguments of `cat` (and a
/// LaTeX file's `\documentclass` lines with it), and ended the body at a line that only
/// starts with the delimiter, running the lines after it; inside `"$( )"` (a common way to
/// pass a commit message) and after a line continuation too.
#[test]
fn here_documents_end_where_bash_ends_them() {
    let line = "cat <<'E'\n\\x /etc/hostname\nE\ncat >notes.txt <<EOF\ntext\nEOF ;\n\
        touch CANARY\n  EOF\nE; x\n\\documentclass{article}\nEOF\ncat notes.txt; ls\n\
        cat <<E\n\\$HOME\n\\\\ back\nline \\\ncont\n\\\nstart\nE\n\
        x=$(cat <<E\n\\in $(echo sub)\nE\n); echo \"$x\"\n\
        m=\"$(cat <<'EOF'\nEOF ;\n\\item \"q\" $(x)\nEOF\n)\"; echo \"$m\"\ncat <<E\nfoo\\\nE\nbar\nE\n";
    let bash = same_as_bash(line);
    assert_eq!(
        bash.0,
        "\\x /etc/hostname\ntext\nEOF ;\ntouch CANARY\n  EOF\nE; x\n\\documentclass{article}\n\
         notes.txt\n$HOME\n\\ back\nline cont\nstart\n\\in sub\nEOF ;\n\\item \"q\" $(x)\nfooE\nbar\n"
    );
}

/// An escaped blank is part of its word after an expansion too: tree-sitter-bash drops it and
/// splits the word there, so `x=$y\ true cmd` ran `true cmd` where bash assigns `Y true` and
/// runs `cmd`. The scanner also read the `<<` of `<<<` as a here-document.
#[test]
fn an_escaped_blank_after_an_expansion_stays_in_its_word() {
    let line = "y=Y; x=$y\\ true printf '<%s>' touch not-run; echo \"[$x]\"
        printf '<%s>' $y\\ a \"$y\"\\ b `echo d`\\ c $y\\  $y\\\tt a$y\\ \\ b; echo
        echo hi >$y\\ a; cat 'Y a'; cat <<< $y\\ a; export v=$y\\ a; echo \"$v\"
        for i in $y\\ a b; do echo \"[$i]\"; done";
    let bash = same_as_bash(line);
    assert_eq!(
        bash.0,
        "<touch><not-run>[]\n<Y a><Y b><d c><Y ><Y\tt><aY  b>\nhi\nY a\nY a\n[Y a]\n[b]\n"
    );
}

/// `local -p NAME` prints a declaration, `local` and `local -p` the function's own variables
/// (not its caller's), as bash does.
#[test]
fn local_prints_the_functions_own_variables() {
    let line = r#"f() { local a=1 b; local -p a; local -p nosuch 2>/dev/null; echo "rc=$?"; g; local; }
        g() { local y="x z"; local -p; }; top=1; f"#;
    let bash = same_as_bash(line);
    assert!(
        bash.0.contains("rc=1\ndeclare -- y=\"x z\"\n"),
        "{}",
        bash.0
    );
}

/// `read -t` takes what bash takes: digits with a fraction, a huge number as no limit, and
/// 0 (or nothing) to ask whether input is waiting, reading none. Anything else is refused;
/// `inf` and `1e400` once ended rsh with a panic.
#[test]
fn read_timeouts_are_taken_as_bash_takes_them() {
    let line = "for t in inf 1e400 99999999999999999999 1.5 abc -1 .5 1.2.3 '' 0 0.0; do \
                x=; read -t \"$t\" x <<< hi 2>/dev/null; echo \"$t $? $x\"; done; \
                read -t 0 < /dev/null; echo \"null $?\"";
    let bash = same_as_bash(line);
    assert!(
        bash.0.contains("inf 1 \n") && bash.0.contains("\n0 0 \n"),
        "{}",
        bash.0
    );
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
                  exec 3< <(seq 1 100000); read -r a <&3; read -r b <&3; echo \"$a $b\"; exec 3<&-\n\
                  while read -r l; do x=$(echo \"$l\"); echo \"sub $x\"; done < <(printf 'a\\n'; sleep 0.3; printf 'b\\n')\n\
                  cat <(sleep 0.2; echo after-a-fork) $(echo /dev/null)\n";
    // The last two: a forked copy of the shell (`$(…)`) does not end the lists it inherits.
    same_as_bash(script);
    // Numbered from 63 down as in bash (which may still hold earlier ones at this point).
    let (out, _, _) = run(RSH, &["--policy", &permissive()], "echo <(true) >(true)");
    assert_eq!(out, "/dev/fd/63 /dev/fd/62\n");
}

/// The list inside `<(…)` is decided command by command, like any other line.
#[test]
fn process_substitution_commands_are_decided() {
    let dir = tempfile::tempdir().unwrap();
    let canary = dir.path().join("canary");
    // rsh does not wait for a `>(…)` list, as bash does not: this one leaves a mark when it
    // is done, and the script waits for the mark.
    let script = format!(
        "cat <(sh -c 'touch {0}'); : > >(sh -c 'touch {0}'; : > done); echo \"status $?\"\n\
         until [ -e done ]; do sleep 0.05; done",
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

/// Runs `session` with the real bash in front (through a shim directory), then with rsh;
/// returns what each gave, bash's first.
fn bash_and_rsh<T>(mut session: impl FnMut(&Path) -> T) -> (T, T) {
    let bash = shim(&real_bash());
    let rsh = shim(RSH);
    (session(bash.path()), session(rsh.path()))
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
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::new();
        let mut session = SweSession::start(&workspace, shim);
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
            swe_syntax_check(&workspace, shim, "echo ok"),
            swe_syntax_check(&workspace, shim, "if true; then"),
        ];
        (results, syntax)
    });
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    assert_eq!(rsh.0[2], ("<ws>/sub\n".to_string(), 0));
    assert_eq!(rsh.1[0], 0);
    assert_ne!(rsh.1[1], 0);
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
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::new();
        // tmux's pane: a terminal that echoes.
        let mut pty = Pty::spawn(workspace.shell_command(shim, &[]), true);
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
        blocks
    });
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    let codes: Vec<bool> = ["\"0\"", "\"0\"", "\"1\"", "\"3\""]
        .iter()
        .zip(&rsh)
        .map(|(code, block)| block.contains(&format!("\"exit_code\": {code}")))
        .collect();
    assert_eq!(codes, [true; 4], "{:#?}", rsh);
    assert!(
        rsh[1].contains("\"working_dir\": \"<ws>/sub\""),
        "{}",
        rsh[1]
    );
}

/// Prompt escapes, expansions in prompts, PS0 and PS2 where bash shows them.
#[test]
fn prompts_match_bash() {
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::new();
        let mut pty = Pty::spawn(workspace.shell_command(shim, &[]), false);
        pty.drain(Duration::from_millis(300));
        pty.send_line(
            "cd sub; n=5; PS0='<ps0>'; PS2='<ps2>'; \
             PS1='[\\u \\W \\w|\\$|$((n+1))|\\\\|\\101|\\1|\\01|\\000|\\7a|\\[x\\]|\"q\" $?]'; \
             echo START",
        );
        pty.expect("START", Duration::from_secs(10));
        pty.send_line("false");
        pty.send_line("echo 'a");
        pty.send_line("b'");
        pty.send_line("echo END");
        let screen = pty.expect("END\r\n", Duration::from_secs(10));
        assert_eq!(pty.exit(), Some(0));
        let root = workspace.path().display().to_string();
        screen.replace(&root, "<ws>")
    });
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    assert!(rsh.contains("|6|\\|A|\\1|\\01||\\7a|x|\"q\" 1]"), "{}", rsh);
}

// ---------------------------------------------------------------------------------------------
// Non-interactive harnesses: snapshot files and wrapped `-c` commands
// ---------------------------------------------------------------------------------------------

/// What a user's ~/.bashrc brings into a snapshot: an alias, functions, an export.
const BASHRC: &str = "alias ll='ls -d'\n\
                      greet() { echo \"hello $1\"; }\n\
                      _completion_helper() { :; }\n\
                      export FOO='bar baz'\n";

/// Runs `shim/bash` with ARGS in the workspace, stdin empty, a clean environment:
/// (stdout, stderr, status).
fn run_shim(workspace: &Workspace, shim: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(shim.join("bash"))
        .args(args)
        .current_dir(workspace.path())
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", shim.display()))
        .env("HOME", workspace.home.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let root = workspace.path().display().to_string();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&root, "<ws>");
    (
        text(&out.stdout),
        text(&out.stderr),
        out.status.code().unwrap_or(-1),
    )
}

impl Workspace {
    fn with_bashrc() -> Workspace {
        let workspace = Workspace::new();
        std::fs::write(workspace.home.path().join(".bashrc"), BASHRC).unwrap();
        workspace
    }

    fn read(&self, name: &str) -> String {
        let root = self.path().display().to_string();
        std::fs::read_to_string(self.path().join(name))
            .unwrap_or_else(|_| "<missing>".to_string())
            .replace(&root, "<ws>")
    }
}

/// Claude Code's snapshot script: the commands it runs with `<shell> -c -l`, writing the
/// file that every later command sources.
const CLAUDE_SNAPSHOT: &str = r##"SNAPSHOT_FILE=snapshot.sh
source ~/.bashrc < /dev/null
echo "# Snapshot file" >| "$SNAPSHOT_FILE"
echo "# Unset all aliases to avoid conflicts with functions" >> "$SNAPSHOT_FILE"
echo "unalias -a 2>/dev/null || true" >> "$SNAPSHOT_FILE"
echo "# Functions" >> "$SNAPSHOT_FILE"
declare -f > /dev/null 2>&1
declare -F | cut -d' ' -f3 | grep -vE '^_[^_]' | while read func; do
  encoded_func=$(declare -f "$func" | base64 )
  echo "eval \"\$(echo '$encoded_func' | base64 -d)\" > /dev/null 2>&1" >> "$SNAPSHOT_FILE"
done
echo "# Shell Options" >> "$SNAPSHOT_FILE"
shopt -p | head -n 1000 >> "$SNAPSHOT_FILE"
set -o | grep "on" | awk '{print "set -o " $1}' | head -n 1000 >> "$SNAPSHOT_FILE"
echo "shopt -s expand_aliases" >> "$SNAPSHOT_FILE"
echo "# Aliases" >> "$SNAPSHOT_FILE"
alias | sed 's/^alias //g' | sed 's/^/alias -- /' | head -n 1000 >> "$SNAPSHOT_FILE"
echo "# Check for rg availability" >> "$SNAPSHOT_FILE"
echo "if ! command -v rg >/dev/null 2>&1; then" >> "$SNAPSHOT_FILE"
echo "  alias rg='/opt/claude/vendor/rg'" >> "$SNAPSHOT_FILE"
echo "fi" >> "$SNAPSHOT_FILE"
echo "export PATH=$(printf %q "$PATH")" >> "$SNAPSHOT_FILE"
"##;

/// Claude Code's wrapper around each command (its quotes escaped as `'\''`), with the
/// snapshot and the file that receives the final directory named absolutely.
fn claude_wrapper(workspace: &Workspace, command: &str) -> String {
    let root = workspace.path();
    format!(
        "source {} 2>/dev/null || true && {{ shopt -u extglob 2>/dev/null || \
         setopt NO_EXTENDED_GLOB 2>/dev/null || true; }} && eval '{}' < /dev/null && \
         pwd -P >| {}",
        root.join("snapshot.sh").display(),
        command.replace('\'', "'\\''"),
        root.join("cwd-file").display(),
    )
}

/// The snapshot without what legitimately differs: function bodies (bash prints its own
/// layout, rsh the source as written) and PATH (a login bash takes /etc/profile's).
fn comparable_snapshot(snapshot: &str) -> Vec<String> {
    snapshot
        .lines()
        .filter(|line| !line.starts_with("export PATH="))
        .map(|line| {
            if line.starts_with("eval \"$(echo '") {
                "eval <function>".to_string()
            } else {
                line.to_string()
            }
        })
        .collect()
}

#[test]
fn claude_code_snapshot_and_commands_match_bash() {
    let commands = [
        "greet world",
        "ll sub",
        "echo \"$FOO\"",
        "cd sub && pwd",
        "x=$(printf '%s' \"it's\"); echo \"$x\" | tr a-z A-Z",
        "false",
        "ls no-such-file; echo \"status $?\"",
        "grep -c . /etc/hostname > count.txt && cat count.txt",
    ];
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::with_bashrc();
        let built = run_shim(&workspace, shim, &["-c", "-l", CLAUDE_SNAPSHOT]);
        assert_eq!(
            (built.1.as_str(), built.2),
            ("", 0),
            "building the snapshot"
        );
        let snapshot = workspace.read("snapshot.sh");
        let mut results = Vec::new();
        for command in commands {
            let _ = std::fs::remove_file(workspace.path().join("cwd-file"));
            let (out, err, status) = run_shim(
                &workspace,
                shim,
                &["-c", &claude_wrapper(&workspace, command)],
            );
            // Error messages name the shell; a command's own messages must match.
            let err = if err.starts_with("bash:") || err.starts_with("rsh:") {
                "<shell message>".to_string()
            } else {
                err
            };
            results.push((out, err, status, workspace.read("cwd-file")));
        }
        (comparable_snapshot(&snapshot), results)
    });
    assert_eq!(
        rsh.0, bash.0,
        "snapshots: rsh (left) and bash (right) differ"
    );
    assert_eq!(
        rsh.1, bash.1,
        "commands: rsh (left) and bash (right) differ"
    );
    assert!(rsh.0.contains(&"alias -- ll='ls -d'".to_string()));
    assert_eq!(rsh.1[3].3, "<ws>/sub\n");
}

#[test]
fn claude_code_wrapper_refuses_a_denied_command() {
    let workspace = Workspace::with_bashrc();
    let shim = shim(RSH);
    run_shim(&workspace, shim.path(), &["-c", "-l", CLAUDE_SNAPSHOT]);
    let canary = workspace.path().join("canary");
    let command = format!("sh -c 'touch {}'; cd sub", canary.display());
    let wrapper = claude_wrapper(&workspace, &command);
    let (out, err, status) = run_shim(&workspace, shim.path(), &["-c", &wrapper]);
    assert!(!canary.exists(), "the denied shell ran");
    assert!(err.contains("rsh: denied: sh -c"), "{err}");
    // The wrapper's own plumbing completes: the cwd file is written as bash would.
    assert_eq!((out.as_str(), status), ("", 0));
    assert_eq!(workspace.read("cwd-file"), "<ws>/sub\n");
}

/// Codex's bash snapshot script (`codex-rs/core/src/shell_snapshot.rs`), run with `-lc`;
/// the snapshot is its standard output.
const CODEX_SNAPSHOT: &str = r##"if [ -z "$BASH_ENV" ] && [ -r "$HOME/.bashrc" ]; then
  . "$HOME/.bashrc"
fi
echo '# Snapshot file'
echo '# Unset all aliases to avoid conflicts with functions'
unalias -a 2>/dev/null || true
echo '# Functions'
declare -f
echo ''
bash_opts=$(set -o | awk '$2=="on"{print $1}')
bash_opt_count=$(printf '%s\n' "$bash_opts" | sed '/^$/d' | wc -l | tr -d ' ')
echo "# setopts $bash_opt_count"
if [ -n "$bash_opts" ]; then
  printf 'set -o %s\n' $bash_opts
fi
echo ''
alias_count=$(alias -p | wc -l | tr -d ' ')
echo "# aliases $alias_count"
alias -p
echo ''
export_lines=$(
  while IFS= read -r name; do
    if [[ "$name" =~ ^(PWD|OLDPWD)$ ]]; then
      continue
    fi
    if [[ ! "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
      continue
    fi
    declare -xp "$name" 2>/dev/null || true
  done < <(compgen -e)
)
export_count=$(printf '%s\n' "$export_lines" | sed '/^$/d' | wc -l | tr -d ' ')
echo "# exports $export_count"
if [ -n "$export_lines" ]; then
  printf '%s\n' "$export_lines"
fi
"##;

/// The snapshot's sections that must be the same (functions are laid out differently, and
/// a login bash exports what /etc/profile sets).
fn codex_sections(snapshot: &str) -> (Vec<String>, bool) {
    let options_and_aliases = snapshot
        .lines()
        .skip_while(|line| !line.starts_with("# setopts"))
        .take_while(|line| !line.starts_with("# exports"))
        .map(str::to_string)
        .collect();
    (
        options_and_aliases,
        snapshot.contains("declare -x FOO=\"bar baz\"\n"),
    )
}

#[test]
fn codex_snapshot_and_commands_match_bash() {
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::with_bashrc();
        let (snapshot, err, status) = run_shim(&workspace, shim, &["-lc", CODEX_SNAPSHOT]);
        assert_eq!((err.as_str(), status), ("", 0), "building the snapshot");
        assert!(snapshot.starts_with("# Snapshot file\n"), "{snapshot}");
        std::fs::write(workspace.path().join("snap.sh"), &snapshot).unwrap();
        // Codex validates the snapshot before using it.
        let validated = run_shim(&workspace, shim, &["-c", "set -e; . \"snap.sh\""]);
        let wrapped = |argv: &[&str]| {
            let mut args = vec!["-c", ". \"$1\" && shift && exec \"$@\"", "codex", "snap.sh"];
            args.extend(argv);
            let (out, _, status) = run_shim(&workspace, shim, &args);
            (out, status)
        };
        let results = (
            validated.2,
            run_shim(&workspace, shim, &["-lc", "echo hi && ls -d sub; (exit 4)"]),
            wrapped(&["ls", "-d", "sub"]),
            wrapped(&["printf", "%s|", "a b", "c"]),
            wrapped(&["no-such-program"]),
        );
        (codex_sections(&snapshot), results)
    });
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    assert!(rsh.0.1, "the export of FOO is in the snapshot");
    // The script runs `unalias -a` before listing the aliases, in bash too.
    assert!(rsh.0.0.contains(&"# aliases 0".to_string()), "{:?}", rsh.0);
}

#[test]
fn codex_wrapped_argv_is_decided() {
    let workspace = Workspace::with_bashrc();
    let shim = shim(RSH);
    let (snapshot, _, _) = run_shim(&workspace, shim.path(), &["-lc", CODEX_SNAPSHOT]);
    std::fs::write(workspace.path().join("snap.sh"), snapshot).unwrap();
    let canary = workspace.path().join("canary");
    let touch = format!("touch {}", canary.display());
    let (_, err, status) = run_shim(
        &workspace,
        shim.path(),
        &[
            "-c",
            ". \"$1\" && shift && exec \"$@\"",
            "codex",
            "snap.sh",
            "sh",
            "-c",
            &touch,
        ],
    );
    assert_eq!(status, 126, "{err}");
    assert!(err.contains("rsh: denied: sh -c"), "{err}");
    assert!(!canary.exists(), "the denied shell ran");
}

/// Aider runs `[$SHELL, "-c", command]`: output, error output and status as bash's.
#[test]
fn aider_commands_match_bash() {
    let script = "echo out; echo err >&2; ls -d sub; cat missing 2>&1; exit 3";
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::new();
        run_shim(&workspace, shim, &["-c", script])
    });
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
}

/// gemini-cli's wrapper: the command in a group, then `pgrep -g 0` into a file, then the
/// command's status.
fn gemini_wrapper(command: &str, pgrep_file: &Path) -> String {
    format!(
        "{{ {command}; }}; __code=$?; pgrep -g 0 >{} 2>&1; exit $__code;",
        pgrep_file.display()
    )
}

#[test]
fn gemini_cli_commands_match_bash() {
    let (bash, rsh) = bash_and_rsh(|shim| {
        let workspace = Workspace::new();
        let pgrep_file = workspace.path().join("shell_pgrep_0.tmp");
        let mut results = Vec::new();
        for command in ["echo hi && ls -d sub", "cd sub; pwd; false", "(exit 7)"] {
            let (out, err, status) = run_shim(
                &workspace,
                shim,
                &["-c", &gemini_wrapper(command, &pgrep_file)],
            );
            // The process ids differ; what matters is that the file is only numbers.
            let pgrep = std::fs::read_to_string(&pgrep_file).expect("the pgrep file");
            assert!(
                pgrep.lines().all(|l| l.trim().parse::<u32>().is_ok()),
                "{pgrep:?}"
            );
            results.push((out, err, status));
        }
        results
    });
    assert_eq!(rsh, bash, "rsh (left) and bash (right) differ");
    assert_eq!(rsh[2].2, 7);
}

/// The ids of processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline
                .contains(needle)
                .then(|| entry.file_name().to_string_lossy().into_owned())
        })
        .collect()
}

/// As bash, rsh does not wait for a list its command did not read to the end; unlike bash, it
/// ends such a list when it exits, so nothing of it outlives the shell: not what its program
/// left running in the background either, after the program itself ended.
#[test]
fn process_substitution_lists_do_not_outlive_the_shell() {
    // In the durations, which sleep takes as they are: `30.{pid}7` seconds.
    let marker = format!(".{}7", std::process::id());
    let script = format!(
        ": <(while :; do :; done); echo <(exec sleep 30{marker}) >/dev/null; \
         exec 3< <(exec sleep 31{marker}); \
         cat <(perl -e 'if (fork() == 0) {{ open STDOUT, \">/dev/null\"; exec \"sleep\", \"32{marker}\" }}'); \
         echo after"
    );
    let (out, err, status) = run(RSH, &["--policy", &permissive()], &script);
    assert_eq!((out.as_str(), status), ("after\n", 0), "{err}");
    let left = processes_with(&marker);
    assert!(left.is_empty(), "still running after rsh exited: {left:?}");
}

/// Agents time their builds and tests with the keyword `time`: what it reports (with the
/// numbers blanked), and where, is bash's.
#[test]
fn the_time_keyword_reports_as_bash_does() {
    let script = "time true; time -p echo out | cat; time { echo grouped; } 2>/dev/null\n\
                  x=$(time echo captured); echo \"[$x]\"; ! time false; echo \"status $?\"\n\
                  TIMEFORMAT='%R|%lU|%0S|%%|%P'; time (sleep 0.01)\n\
                  TIMEFORMAT=; time true; TIMEFORMAT='%Q'; time true; echo \"status $?\"";
    let blank = |text: &str| {
        let digits = regex::Regex::new(r"[0-9]+(\.[0-9]+)?").unwrap();
        digits
            .replace_all(text, "N")
            .replace("bash: line N: ", "rsh: ")
    };
    let bash = run("bash", &[], script);
    let rsh = run(RSH, &["--policy", &permissive()], script);
    assert_eq!(
        (rsh.0.as_str(), blank(&rsh.1), rsh.2),
        (bash.0.as_str(), blank(&bash.1), bash.2),
        "rsh (left) and bash (right) differ"
    );
    assert!(rsh.1.contains("\nreal\t"), "{}", rsh.1);
    assert!(
        rsh.1.contains("TIMEFORMAT: `Q': invalid format character"),
        "{}",
        rsh.1
    );
}

/// Signals left ignored by whoever started the shell (`nohup`, a script's `… &`, a process
/// manager) stay ignored in the programs it runs, as under bash, so that `nohup rsh -c JOB`
/// survives a hang-up, in a subshell and a pipeline's stage too; SIGPIPE and SIGCHLD are the
/// exceptions, by design at their defaults. A SIGCHLD left ignored does not keep rsh from
/// waiting for its programs (the kernel would otherwise reap them first) or from reporting
/// their status. Each run is bounded (`timeout`): the failure this guards against is a wait.
#[test]
fn signals_left_ignored_reach_programs_as_under_bash() {
    let script = "grep SigIgn /proc/self/status; ls /nonexistent-dir 2>/dev/null; echo status=$?; \
                  ( /bin/sh -c 'kill -HUP $PPID'; echo subshell ); \
                  { /bin/sh -c 'kill -HUP $PPID'; echo stage; } | cat";
    let asked = ["HUP", "INT", "TSTP", "PIPE", "CHLD"].join(",");
    let started = |signals: &str, shell: &str, extra: &[&str]| {
        let mut args = vec!["10", "env", signals, shell];
        args.extend_from_slice(extra);
        run("timeout", &args, script)
    };
    let ignoring = format!("--ignore-signal={asked}");
    let (bash, _, bash_status) = started(&ignoring, &real_bash(), &[]);
    let (rsh, rsh_err, rsh_status) = started(&ignoring, RSH, &["--policy", &permissive()]);
    let mask = |out: &str| {
        let hex = out
            .lines()
            .find_map(|l| l.strip_prefix("SigIgn:"))
            .expect("a SigIgn line");
        u64::from_str_radix(hex.trim(), 16).unwrap()
    };
    let bit = |sig: libc::c_int| 1u64 << (sig - 1);
    assert_eq!(
        mask(&rsh),
        mask(&bash) & !(bit(libc::SIGPIPE) | bit(libc::SIGCHLD)),
        "bash: {bash}\nrsh: {rsh}{rsh_err}"
    );
    assert_ne!(mask(&rsh) & bit(libc::SIGHUP), 0, "{rsh}");
    let tail = |out: &str| out.lines().skip(1).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        tail(&rsh),
        ["status=2", "subshell", "stage"],
        "{rsh}{rsh_err}"
    );
    assert_eq!(tail(&rsh), tail(&bash));
    assert_eq!((rsh_status, rsh_err.as_str()), (bash_status, ""));
    // Started with them at their defaults (whatever the test runs under), programs get them so.
    let defaults = format!("--default-signal={asked}");
    let (plain, _, _) = started(&defaults, RSH, &["--policy", &permissive()]);
    let asked = [
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGTSTP,
        libc::SIGPIPE,
        libc::SIGCHLD,
    ];
    let asked = asked.into_iter().fold(0, |all, sig| all | bit(sig));
    assert_eq!(mask(&plain) & asked, 0, "{plain}");
}
