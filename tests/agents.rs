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
