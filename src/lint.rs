//! What `--check-policy` says about a policy beyond its syntax: allowed commands that can run
//! arbitrary code or other programs, found by asking the decision engine itself.
//!
//! For each program known to have such an escape, a typical escaping command line (`find .
//! -exec sh ;`, `git -c core.pager=sh log`, `python3 -c …`) is decided against the policy,
//! on the file the name resolves to on the policy's path, exactly as if it had been typed. A
//! probe the policy allows is reported with the rule that allowed it. Escapes that only start
//! other programs are not reported when the kernel would stop that (`subprocesses = false`
//! for the command); shells, interpreters and the dynamic loader run code in-process and are
//! always reported.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use crate::decide::{self, Program, Request};
use crate::policy::{Policy, SandboxMode, Verdict};

/// How an escape works.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Runs code inside the process itself: confinement limits what it reaches, not what
    /// it does.
    InProcess,
    /// Starts another program: the kernel refuses that unless the command may start programs.
    StartsPrograms,
}

const INTERPRETER: &str = "is an interpreter: it runs any code it is given";

/// Program names, a probe (its arguments) and what the probe does.
const PROBES: &[(&[&str], &[&str], Kind, &str)] = &[
    (
        &[
            "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", "rbash", "csh", "tcsh",
        ],
        &["-c", "id"],
        Kind::InProcess,
        "is a shell: it runs any command line, which rsh does not decide",
    ),
    (
        &["python", "python3"],
        &["-c", "pass"],
        Kind::InProcess,
        INTERPRETER,
    ),
    (
        &["perl", "ruby", "node", "nodejs", "lua"],
        &["-e", "1"],
        Kind::InProcess,
        INTERPRETER,
    ),
    (&["php"], &["-r", "1;"], Kind::InProcess, INTERPRETER),
    (
        &["ld.so", "ld-linux-x86-64.so.2"],
        &["/bin/sh"],
        Kind::InProcess,
        "is the dynamic loader: it runs any program given as its argument, in its own process",
    ),
    (
        &[
            "flock",
            "watch",
            "script",
            "parallel",
            "taskset",
            "chrt",
            "strace",
            "ltrace",
            "su",
            "pkexec",
            "runuser",
            "setpriv",
            "systemd-run",
            "chroot",
            "unshare",
            "nsenter",
        ],
        // env, nice, timeout, xargs, sudo and the like are not here: rsh decides the command
        // they run as if it had been typed (see decide::wrapper).
        &["sh"],
        Kind::StartsPrograms,
        "runs the command given as its arguments, which rsh does not decide",
    ),
    (
        &[
            "vi", "vim", "nvim", "view", "ex", "ed", "emacs", "nano", "less", "more", "most",
            "man", "pager", "editor",
        ],
        &["file"],
        Kind::StartsPrograms,
        "has a shell escape (`!cmd`, `:!cmd`)",
    ),
    (
        &["find"],
        &[".", "-exec", "sh", ";"],
        Kind::StartsPrograms,
        "runs programs with -exec",
    ),
    (
        &["fd", "fdfind"],
        &["-x", "sh"],
        Kind::StartsPrograms,
        "runs programs with -x",
    ),
    (
        &["git"],
        &["-c", "core.pager=sh", "log"],
        Kind::StartsPrograms,
        "runs the program -c core.pager=… names",
    ),
    (
        &["rg"],
        &["--pre", "sh", "x"],
        Kind::StartsPrograms,
        "runs the program --pre names",
    ),
    (
        &["tar"],
        &["--to-command=sh", "-xf", "a.tar"],
        Kind::StartsPrograms,
        "runs the program --to-command names",
    ),
    (
        &["rsync"],
        &["-e", "sh", "a", "b"],
        Kind::StartsPrograms,
        "runs the program -e names",
    ),
    (
        &["sort"],
        &["--compress-program=sh", "f"],
        Kind::StartsPrograms,
        "runs the program --compress-program names",
    ),
    (
        &["awk", "gawk", "mawk", "nawk"],
        &["BEGIN { system(\"sh\") }"],
        Kind::StartsPrograms,
        "runs commands with system() and pipes",
    ),
    (
        &["sed"],
        &["1e sh", "f"],
        Kind::StartsPrograms,
        "runs commands with its `e` command",
    ),
    (
        &["ssh"],
        &["-o", "ProxyCommand=sh", "host"],
        Kind::StartsPrograms,
        "runs the program ProxyCommand names",
    ),
    (
        &["make"],
        &["-f", "Makefile"],
        Kind::StartsPrograms,
        "runs the commands of a Makefile",
    ),
];

/// An allowed escape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// The probe as a command line.
    pub command: String,
    /// The program the name resolved to.
    pub path: PathBuf,
    pub what: &'static str,
    /// The decision that lets the probe through (its reason names the rule and line).
    pub reason: String,
    /// The kernel would let it start other programs (or confines nothing at all).
    pub subprocesses: bool,
}

/// Every escape the policy allows, in the order of the table above.
pub fn escapes(policy: &Policy) -> Vec<Escape> {
    // Where the policy looked its own names up, so a probe names the file the policy meant.
    let dirs = policy.resolve_dirs();
    let mut found: Vec<Escape> = Vec::new();
    for (names, args, kind, what) in PROBES {
        for name in *names {
            let Some(path) = dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()) else {
                continue;
            };
            let Ok(real) = std::fs::canonicalize(&path) else {
                continue;
            };
            // Two names for one program (sh and dash): report it once.
            if found.iter().any(|e| e.path == real) {
                continue;
            }
            let Ok(meta) = std::fs::metadata(&real) else {
                continue;
            };
            let program = Program::External {
                path: &real,
                dev: meta.dev(),
                ino: meta.ino(),
            };
            let argv: Vec<String> = std::iter::once(*name)
                .chain(args.iter().copied())
                .map(str::to_owned)
                .collect();
            let decision = decide::decide(
                policy,
                &Request {
                    argv: &argv,
                    program,
                },
            );
            let subprocesses = decide::profile(policy, &program).subprocesses
                || policy.sandbox().mode == SandboxMode::Off;
            if decision.verdict == Verdict::Allow && (*kind == Kind::InProcess || subprocesses) {
                found.push(Escape {
                    command: argv.join(" "),
                    path: real,
                    what,
                    reason: decision.reason,
                    subprocesses,
                });
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::DEFAULT_POLICY;

    fn policy(body: &str) -> Policy {
        let text = format!("[shell]\npath = [\"/usr/local/bin\", \"/usr/bin\", \"/bin\"]\n{body}");
        Policy::from_toml(&text, "test.toml", None).unwrap()
    }

    fn exists(name: &str) -> bool {
        ["/usr/local/bin", "/usr/bin", "/bin"]
            .iter()
            .any(|d| std::path::Path::new(d).join(name).is_file())
    }

    #[test]
    fn the_shipped_default_policy_allows_no_escape() {
        let p = Policy::from_toml(DEFAULT_POLICY, "default", None).unwrap();
        assert_eq!(escapes(&p), Vec::new());
    }

    #[test]
    fn an_allowed_shell_is_reported_with_its_rule() {
        if !exists("sh") {
            eprintln!("SKIPPED: no sh on this system");
            return;
        }
        let p = policy("[commands]\nallow = [\"sh\", \"ls\"]\n");
        let found = escapes(&p);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].command, "sh -c id");
        assert!(found[0].what.starts_with("is a shell"));
        assert_eq!(found[0].reason, "listed in commands.allow (test.toml:4)");
    }

    #[test]
    fn find_is_reported_only_when_exec_is_allowed_and_the_kernel_lets_it_start_programs() {
        if !exists("find") {
            eprintln!("SKIPPED: no find on this system");
            return;
        }
        let p = policy("[commands]\nallow = [\"find\"]\n");
        assert_eq!(escapes(&p), Vec::new(), "subprocesses is off by default");
        let p = policy("[commands]\nallow = [\"find\"]\n[commands.find]\nsubprocesses = true\n");
        let found = escapes(&p);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].command, "find . -exec sh ;");
        assert!(found[0].subprocesses);
        let p = policy(
            "[commands]\nallow = [\"find\"]\n[commands.find]\nsubprocesses = true\ndeny = [\"*:-exec:*\"]\n",
        );
        assert_eq!(escapes(&p), Vec::new());
    }
}
