//! What `--check-policy` says about a policy beyond its syntax: allowed commands that can run
//! arbitrary code or other programs, found by asking the decision engine itself; entries that
//! never decide anything; and `[users.NAME]`/`[groups.NAME]` sections for no one.
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
use crate::policy::{CommandRef, Place, Policy, SandboxMode, Verdict};

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
        decide::args::AWKS,
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
            let subprocesses = decide::profile(policy, &program, name).subprocesses
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

/// Something the policy says that has no effect, and where it says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `FILE:LINE` of the entry.
    pub at: String,
    pub message: String,
    /// Where the entry is in the order of all the policy's files.
    offset: usize,
}

fn finding(policy: &Policy, at: Place, message: String) -> Finding {
    Finding {
        at: policy.location(at),
        message,
        offset: at.offset,
    }
}

/// Whether two names in the policy mean the same program (the same name, or a file both
/// resolved to).
fn same_program(a: &CommandRef, b: &CommandRef) -> bool {
    a.name == b.name || a.shares_target(b)
}

/// Entries that can never decide (see DECISION ORDER in rsh-policy(5)):
/// - a `[commands]` list entry when a higher verdict's list names the same program, or when
///   the program's table sets `default`;
/// - an argument pattern written again for the same program with a higher verdict.
pub fn unreachable(policy: &Policy) -> Vec<Finding> {
    let mut found = Vec::new();
    for entry in policy.listed() {
        let default = policy
            .tables()
            .iter()
            .filter(|t| same_program(&t.command, &entry.command))
            .find_map(|t| Some((t, t.default?)));
        if let Some((table, (verdict, at))) = default {
            found.push(finding(
                policy,
                entry.at,
                format!(
                    "{} \"{}\" never decides: {}.default = \"{verdict}\" ({}) decides for that program",
                    entry.key,
                    entry.command.name,
                    table.key,
                    policy.location(at),
                ),
            ));
            continue;
        }
        let stronger = policy
            .listed()
            .iter()
            .filter(|other| {
                other.verdict > entry.verdict && same_program(&other.command, &entry.command)
            })
            .max_by_key(|other| other.verdict);
        if let Some(other) = stronger {
            found.push(finding(
                policy,
                entry.at,
                format!(
                    "{} \"{}\" never decides: {} \"{}\" ({}) names the same program, and {} wins",
                    entry.key,
                    entry.command.name,
                    other.key,
                    other.command.name,
                    policy.location(other.at),
                    other.verdict
                ),
            ));
        }
    }
    found.extend(repeated_patterns(policy));
    found.sort_by_key(|f| f.offset);
    found
}

/// Argument patterns for one program written twice with different verdicts: when they match,
/// the higher verdict is the one that counts.
fn repeated_patterns(policy: &Policy) -> Vec<Finding> {
    let mut patterns: Vec<(&CommandRef, &crate::policy::PatternRule)> = Vec::new();
    for table in policy.tables() {
        patterns.extend(table.patterns.iter().map(|p| (&table.command, p)));
    }
    patterns.extend(policy.rules().iter().map(|r| (&r.command, &r.rule)));
    let mut found = Vec::new();
    for &(command, rule) in &patterns {
        let stronger = patterns.iter().find(|(other_command, other)| {
            other.verdict > rule.verdict
                && other.pattern.text() == rule.pattern.text()
                && same_program(other_command, command)
        });
        if let Some((_, other)) = stronger {
            found.push(finding(
                policy,
                rule.at,
                format!(
                    "{} \"{}\" never decides: {} ({}) has the same pattern for the same program, and {} wins",
                    rule.key,
                    rule.text,
                    other.key,
                    policy.location(other.at),
                    other.verdict
                ),
            ));
        }
    }
    found
}

/// `[users.NAME]` sections naming no user of this system and `[groups.NAME]` sections naming
/// no group: they apply to no one (a typo, or an account not created yet).
pub fn nobody(policy: &Policy) -> Vec<Finding> {
    policy
        .sections()
        .iter()
        .filter(|(kind, name, _)| match *kind {
            "users" => !matches!(nix::unistd::User::from_name(name), Ok(Some(_))),
            _ => !matches!(nix::unistd::Group::from_name(name), Ok(Some(_))),
        })
        .map(|(kind, name, at)| {
            let what = if *kind == "users" { "user" } else { "group" };
            finding(
                policy,
                *at,
                format!(
                    "[{kind}.{name}] applies to no one: there is no {what} {name} on this system"
                ),
            )
        })
        .collect()
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
    fn the_shipped_default_policy_has_no_entry_that_never_decides() {
        let p = Policy::from_toml(DEFAULT_POLICY, "default", None).unwrap();
        assert_eq!(unreachable(&p), Vec::new());
    }

    fn messages(found: &[Finding]) -> Vec<String> {
        found
            .iter()
            .map(|f| format!("{}: {}", f.at, f.message))
            .collect()
    }

    #[test]
    fn entries_that_never_decide_are_named_with_what_decides_instead() {
        let p = policy(
            "[commands]\nallow = [\"ls\", \"cat\", \"git\", \"wc\"]\ndeny = [\"cat\"]\nask = [\"ls\"]\n\
             [commands.git]\ndefault = \"ask\"\nallow = [\"status\", \"log\"]\ndeny = [\"status\"]\n\
             [rules]\nallow = [\"git log\"]\nask = [\"git log\"]\n",
        );
        assert_eq!(
            messages(&unreachable(&p)),
            [
                "test.toml:4: commands.allow \"ls\" never decides: commands.ask \"ls\" \
                 (test.toml:6) names the same program, and ask wins",
                "test.toml:4: commands.allow \"cat\" never decides: commands.deny \"cat\" \
                 (test.toml:5) names the same program, and deny wins",
                "test.toml:4: commands.allow \"git\" never decides: commands.git.default = \
                 \"ask\" (test.toml:8) decides for that program",
                "test.toml:9: commands.git.allow \"status\" never decides: commands.git.deny \
                 (test.toml:10) has the same pattern for the same program, and deny wins",
                "test.toml:9: commands.git.allow \"log\" never decides: rules.ask \
                 (test.toml:13) has the same pattern for the same program, and ask wins",
                "test.toml:12: rules.allow \"git log\" never decides: rules.ask (test.toml:13) \
                 has the same pattern for the same program, and ask wins",
            ]
        );
        // Different patterns, or the same verdict twice, are not findings.
        let p = policy(
            "[commands]\nallow = [\"ls\"]\n[commands.ls]\nallow = [\"-l\"]\ndeny = [\"-R\"]\n\
             [rules]\nallow = [\"ls -l\"]\n",
        );
        assert_eq!(unreachable(&p), Vec::new());
    }

    #[test]
    fn user_and_group_sections_for_no_one_are_reported() {
        let text =
            "[users.root]\n[users.no-such-user-rsh]\n[groups.root]\n[groups.no-such-group-rsh]\n";
        let p = Policy::from_toml(text, "test.toml", None).unwrap();
        assert_eq!(
            messages(&nobody(&p)),
            [
                "test.toml:2: [users.no-such-user-rsh] applies to no one: there is no user \
                 no-such-user-rsh on this system",
                "test.toml:4: [groups.no-such-group-rsh] applies to no one: there is no group \
                 no-such-group-rsh on this system",
            ]
        );
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
