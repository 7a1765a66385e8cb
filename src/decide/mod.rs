//! The decision: a pure function from a loaded policy and one fully expanded simple command
//! (its argv and the program that would run) to a verdict, the rule that produced it, and a
//! sentence saying why.
//!
//! No I/O happens here: the caller has already resolved the program to a canonical path and a
//! (device, inode), and the policy resolved its names when it was loaded. Same inputs, same
//! answer. This module knows nothing of parsing, expansion, confirmation or spawning.

pub mod args;
pub mod risk;
pub mod scripts;
pub mod wrapper;

use std::fmt;
use std::path::Path;

use crate::policy::{
    CommandRef, CommandTable, Level, Listed, Mode, Place, Policy, Risk, RiskRule, Rule, Verdict,
};

/// The program a simple command would run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program<'a> {
    /// A shell builtin, by name (`cd`, `export`, ...). Matched against policy names only.
    Builtin(&'a str),
    /// An executable file. `path` is the absolute, canonical path (symlinks resolved) that
    /// will be executed; `dev` and `ino` are its device and inode numbers.
    External { path: &'a Path, dev: u64, ino: u64 },
}

/// One simple command, after expansion.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// argv\[0\] as typed; the arguments the policy judges are argv\[1..\].
    pub argv: &'a [String],
    pub program: Program<'a>,
}

/// The part of the policy that decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRef {
    /// The policy key, e.g. `commands.git.deny`, `commands.deny`, `commands.git.default`,
    /// `rules.ask`, `shell.unknown`; `builtin` for a builtin the policy does not name.
    pub key: String,
    /// The list entry that matched, as written: an argument pattern, a `[rules]` entry, or a
    /// command name.
    pub pattern: Option<String>,
    /// The policy's origin (its file name, or "built-in default policy").
    pub origin: String,
    /// 1-based line of the entry, when it is written in the policy.
    pub line: Option<usize>,
}

impl RuleRef {
    /// `origin:line`, or just the origin when there is no line.
    pub fn location(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}", self.origin),
            None => self.origin.clone(),
        }
    }
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key)?;
        if let Some(pattern) = &self.pattern {
            write!(f, " {pattern:?}")?;
        }
        write!(f, " ({})", self.location())
    }
}

/// What to do with a command, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub rule: RuleRef,
    /// A short sentence naming the rule, e.g.
    /// `matches commands.git.deny "*:-c:*" (/etc/rsh/policy.toml:14)`.
    pub reason: String,
    /// How much harm the command can do, and what says so.
    pub risk: Risk,
    pub risk_reason: String,
    /// The policy itself set the risk (`[risk]`, a table's `risk`): the files the command
    /// writes do not raise it.
    pub risk_set: bool,
}

/// How a started program is confined, as far as the policy decides it per command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommandProfile {
    /// May open network sockets.
    pub network: bool,
    /// May make unix sockets (other than stream socket pairs), which reach a service's socket
    /// file.
    pub unix_sockets: bool,
    /// May start other programs.
    pub subprocesses: bool,
}

impl CommandProfile {
    /// What both profiles allow: a program run by another (a wrapper, a `#!` interpreter)
    /// is held to both.
    pub fn and(self, other: CommandProfile) -> CommandProfile {
        CommandProfile {
            network: self.network && other.network,
            unix_sockets: self.unix_sockets && other.unix_sockets,
            subprocesses: self.subprocesses && other.subprocesses,
        }
    }
}

/// The confinement profile of a program called `name` (argv\[0\]): its command tables'
/// `network`, `unix_sockets` and `subprocesses` settings, else the `[sandbox]` defaults. When several tables
/// name the program, a permission needs all of those that say something to grant it; a
/// table written for the same file under another name can take a permission away, not
/// grant it (a multi-call program does what its name says).
pub fn profile(policy: &Policy, program: &Program, name: &str) -> CommandProfile {
    let name = last_part(name);
    let tables: Vec<_> = policy
        .tables()
        .iter()
        .filter(|t| match *program {
            Program::Builtin(name) => t.command.matches_builtin(name),
            Program::External { path, dev, ino } => t.command.matches_file(path, dev, ino),
        })
        .map(|t| {
            let own = name.is_empty()
                || matches!(program, Program::Builtin(_))
                || last_part(&t.command.name) == name;
            (t, own)
        })
        .collect();
    let setting = |get: fn(&crate::policy::CommandTable) -> Option<bool>, default: bool| {
        let said: Vec<(bool, bool)> = tables
            .iter()
            .filter_map(|(t, own)| get(t).map(|x| (x, *own)))
            .collect();
        if said.iter().any(|&(x, _)| !x) {
            false
        } else if said.iter().any(|&(_, own)| own) {
            true
        } else {
            default
        }
    };
    let sandbox = policy.sandbox();
    CommandProfile {
        network: setting(|t| t.network, sandbox.network),
        unix_sockets: setting(|t| t.unix_sockets, sandbox.unix_sockets),
        subprocesses: setting(|t| t.subprocesses, sandbox.subprocesses),
    }
}

/// Pure: same inputs, same answer; no I/O.
///
/// 1. Every argument pattern that matches, from the tables of the commands the program is and
///    from the `[rules]` entries for those commands: the highest verdict wins (the first such
///    pattern in the file is reported).
/// 2. Otherwise the base verdict: the table's `default`; else the `[commands]` lists naming the
///    program (highest verdict); else allow for a builtin; else `[shell] unknown`.
pub fn decide(policy: &Policy, request: &Request) -> Decision {
    let naming = Naming::of(policy, &request.program);
    // Looked up once: both the verdict and the risk are taken twice when it is so.
    let named_otherwise = naming.named_otherwise(request);
    let (verdict, rule, reason) = judge_by_name(policy, &naming, request, named_otherwise);
    let (risk, risk_reason, risk_set) = risk_of(policy, &naming, request, named_otherwise);
    Decision {
        verdict,
        rule,
        reason,
        risk,
        risk_reason,
        risk_set,
    }
}

/// The verdict on a request. What an entry allows or asks about, it does only for the
/// program called by the entry's name: a multi-call program (git, busybox) is the same file
/// under all its names, and does what its name says. Entries of the same file under other
/// names can only make the verdict stricter: it is the stronger of the verdict with them
/// left out (so that `git` is not allowed by `allow = ["git-upload-pack"]`) and the one with
/// every entry of the file (so that an ask for `git` still asks for `git-upload-pack`, which
/// another entry allows).
fn judge_by_name(
    policy: &Policy,
    naming: &Naming,
    request: &Request,
    named_otherwise: bool,
) -> (Verdict, RuleRef, String) {
    let named = judge(policy, naming, request, true);
    if named.0 == Verdict::Deny || !named_otherwise {
        return named;
    }
    let any_name = judge(policy, naming, request, false);
    if any_name.0 > named.0 {
        any_name
    } else {
        named
    }
}

/// The policy's entries that name the request's program (under any of its names), each kind
/// in the order of the file. A decision looks at them several times: they are found in one
/// pass over the policy.
struct Naming<'p> {
    listed: Vec<&'p Listed>,
    tables: Vec<&'p CommandTable>,
    rules: Vec<&'p Rule>,
    risks: Vec<&'p RiskRule>,
}

impl<'p> Naming<'p> {
    fn of(policy: &'p Policy, program: &Program) -> Naming<'p> {
        Naming {
            listed: naming(policy.listed(), program, |l| &l.command),
            tables: naming(policy.tables(), program, |t| &t.command),
            rules: naming(policy.rules(), program, |r| &r.command),
            risks: naming(policy.risks(), program, |r| &r.command),
        }
    }

    /// Whether an entry naming the request's program is written with another name.
    fn named_otherwise(&self, request: &Request) -> bool {
        let typed = typed_name(request);
        let other = |command: &CommandRef| !called_as(command, typed, request);
        self.listed.iter().any(|l| other(&l.command))
            || self.tables.iter().any(|t| other(&t.command))
            || self.rules.iter().any(|r| other(&r.command))
            || self.risks.iter().any(|r| other(&r.command))
    }
}

/// The entries of `all` whose command is `program`.
fn naming<'p, T>(
    all: &'p [T],
    program: &Program,
    command: impl Fn(&T) -> &CommandRef,
) -> Vec<&'p T> {
    all.iter().filter(|e| is(command(e), program)).collect()
}

/// The last part of argv[0].
fn typed_name<'a>(request: &Request<'a>) -> &'a str {
    last_part(request.argv.first().map(String::as_str).unwrap_or_default())
}

/// A command name without its directory: what a name is compared by.
fn last_part(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The verdict on a request, the rule that gave it, and why. `by_name`: allow and ask
/// entries count only for the program called by their name (see `judge_by_name`).
fn judge(
    policy: &Policy,
    naming: &Naming,
    request: &Request,
    by_name: bool,
) -> (Verdict, RuleRef, String) {
    let args = request.argv.get(1..).unwrap_or_default();
    let typed = typed_name(request);
    // Every entry of `naming` is the program; by name, allow and ask entries count only
    // under the name it was called by.
    let applies = |command: &CommandRef, verdict: Verdict| {
        !by_name || verdict == Verdict::Deny || called_as(command, typed, request)
    };

    let table_patterns = naming
        .tables
        .iter()
        .flat_map(|t| t.patterns.iter().map(move |p| (t, p)))
        .filter(|(t, p)| applies(&t.command, p.verdict))
        .map(|(_, p)| p);
    let rule_patterns = naming
        .rules
        .iter()
        .filter(|r| applies(&r.command, r.rule.verdict))
        .map(|r| &r.rule);
    // A pattern that cannot be compiled guards nothing: refuse rather than guess.
    if let Some((p, why)) = table_patterns
        .clone()
        .chain(rule_patterns.clone())
        .find_map(|p| p.pattern.compile_error().map(|why| (p, why)))
    {
        let rule = rule_ref(policy, &p.key, Some(&p.text), Some(p.at));
        let reason = format!(
            "{} {:?} ({}) cannot be compiled: {why}",
            p.key,
            p.text,
            rule.location()
        );
        return (Verdict::Deny, rule, reason);
    }
    let matched = strongest(
        table_patterns
            .chain(rule_patterns)
            .filter(|p| match p.verdict {
                Verdict::Allow => p.pattern.matches(args),
                Verdict::Ask | Verdict::Deny => p.pattern.matches_spelled(args),
            })
            .map(|p| (p.verdict, p.at, p)),
    );
    if let Some((verdict, at, p)) = matched {
        let rule = rule_ref(policy, &p.key, Some(&p.text), Some(at));
        let reason = format!("matches {} {:?} ({})", p.key, p.text, rule.location());
        return (verdict, rule, reason);
    }

    let default = strongest(
        naming
            .tables
            .iter()
            .filter_map(|t| t.default.map(|(verdict, at)| (verdict, at, t)))
            .filter(|(verdict, _, t)| applies(&t.command, *verdict)),
    );
    if let Some((verdict, at, table)) = default {
        let key = format!("{}.default", table.key);
        let rule = rule_ref(policy, &key, None, Some(at));
        let reason = format!(
            "no argument pattern matched; {key} = \"{verdict}\" ({})",
            rule.location()
        );
        return (verdict, rule, reason);
    }

    let listed = strongest(
        naming
            .listed
            .iter()
            .filter(|l| applies(&l.command, l.verdict))
            .map(|l| (l.verdict, l.at, l)),
    );
    if let Some((verdict, at, entry)) = listed {
        let name = &entry.command.name;
        let rule = rule_ref(policy, &entry.key, Some(name), Some(at));
        // Say which entry matched when the command was typed under another name.
        let reason = if called_as(&entry.command, typed, request) {
            format!("listed in {} ({})", entry.key, rule.location())
        } else {
            format!("listed in {} as {name:?} ({})", entry.key, rule.location())
        };
        return (verdict, rule, reason);
    }

    if let Program::Builtin(_) = request.program {
        return (
            Verdict::Allow,
            rule_ref(policy, "builtin", None, None),
            "shell builtin not named by the policy".to_owned(),
        );
    }

    let verdict = policy.unknown();
    let mut reason = match verdict {
        Verdict::Deny => format!("not allowed by the policy (shell.unknown = \"{verdict}\")"),
        Verdict::Allow | Verdict::Ask => {
            format!("not named by the policy (shell.unknown = \"{verdict}\")")
        }
    };
    // The program is named, under other names only: say so.
    let other_names: Vec<&str> = naming
        .listed
        .iter()
        .map(|l| &l.command)
        .chain(naming.tables.iter().map(|t| &t.command))
        .filter(|c| !called_as(c, typed, request))
        .map(|c| &*c.name)
        .collect();
    if let (Some(name), false) = (other_names.first(), verdict == Verdict::Allow) {
        reason.push_str(&format!(
            "; it is the program the policy names {name:?}, which counts only when called by that name"
        ));
    }
    let rule = rule_ref(policy, "shell.unknown", None, policy.unknown_at());
    (verdict, rule, reason)
}

/// Decisions already made under one policy. A decision depends on nothing but the policy
/// and the request (`decide` is pure), so it is kept by the request: argv and the program's
/// identity (a builtin's name; a file's canonical path, device and inode). Commands that
/// repeat (a loop, an agent running the same check again) are decided once.
pub struct Cache {
    /// Keyed by the request's bytes (see `encode`): a lookup allocates nothing.
    decisions: lru::LruCache<Vec<u8>, Decision>,
    scratch: Vec<u8>,
}

impl Cache {
    /// How many decisions a shell keeps.
    pub const SIZE: usize = 1024;

    pub fn new(size: usize) -> Cache {
        let size = std::num::NonZeroUsize::new(size).unwrap_or(std::num::NonZeroUsize::MIN);
        Cache {
            decisions: lru::LruCache::new(size),
            scratch: Vec::new(),
        }
    }

    /// As [`decide`], from the cache when this request was decided before. The cache must
    /// only ever see one policy.
    pub fn decide(&mut self, policy: &Policy, request: &Request) -> Decision {
        encode(request, &mut self.scratch);
        if let Some(decision) = self.decisions.get(self.scratch.as_slice()) {
            return decision.clone();
        }
        let decision = decide(policy, request);
        self.decisions.put(self.scratch.clone(), decision.clone());
        decision
    }
}

/// The request as bytes that differ whenever the requests do: the program's identity, then
/// each argument, every variable-length piece preceded by its length.
fn encode(request: &Request, out: &mut Vec<u8>) {
    fn piece(bytes: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(&bytes.len().to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out.clear();
    match request.program {
        Program::Builtin(name) => {
            out.push(b'b');
            piece(name.as_bytes(), out);
        }
        Program::External { path, dev, ino } => {
            out.push(b'x');
            out.extend_from_slice(&dev.to_le_bytes());
            out.extend_from_slice(&ino.to_le_bytes());
            piece(path.as_os_str().as_encoded_bytes(), out);
        }
    }
    for arg in request.argv {
        piece(arg.as_bytes(), out);
    }
}

/// Whether the request calls its program by the name `command` is written with (the last
/// part of a path). Builtins are matched by name already.
fn called_as(command: &CommandRef, typed: &str, request: &Request) -> bool {
    match request.program {
        Program::Builtin(_) => true,
        // No argv at all (not something a command line makes): the file decides.
        Program::External { .. } if request.argv.is_empty() => true,
        Program::External { .. } => last_part(&command.name) == typed,
    }
}

/// Whether the policy's `command` names `program`.
fn is(command: &CommandRef, program: &Program) -> bool {
    match *program {
        Program::Builtin(name) => command.matches_builtin(name),
        Program::External { path, dev, ino } => command.matches_file(path, dev, ino),
    }
}

/// The risk of a request, and what says so:
/// 1. the policy's `[risk]` patterns that match (the highest risk wins);
/// 2. else the `risk` of the program's command tables (the highest);
/// 3. else rsh's built-in classification of the program by its file name (unless
///    `[risk] builtin = false`), and low for a shell builtin;
/// 4. else medium.
fn risk_of(
    policy: &Policy,
    naming: &Naming,
    request: &Request,
    named_otherwise: bool,
) -> (Risk, String, bool) {
    let named = risk_of_entries(policy, naming, request, true);
    if !named_otherwise {
        return named;
    }
    // As for the verdict: entries under another name may raise the risk, not lower it.
    let any_name = risk_of_entries(policy, naming, request, false);
    if any_name.0 > named.0 {
        any_name
    } else {
        named
    }
}

/// The risk, from `[risk]` entries and tables for the program (`by_name`: only those written
/// with the name it was called by), else the built-in classification.
fn risk_of_entries(
    policy: &Policy,
    naming: &Naming,
    request: &Request,
    by_name: bool,
) -> (Risk, String, bool) {
    let args = request.argv.get(1..).unwrap_or_default();
    let typed = typed_name(request);
    let counts = |command: &CommandRef| !by_name || called_as(command, typed, request);
    // An entry that raises the risk catches abbreviated long options, as deny and ask
    // entries do; one that lowers it matches as written, as allow entries do.
    let matches = |r: &RiskRule| match r.risk {
        Risk::Low => r.entry.pattern.matches(args),
        Risk::Medium | Risk::High => r.entry.pattern.matches_spelled(args),
    };
    let matched = naming
        .risks
        .iter()
        .filter(|r| counts(&r.command) && matches(r))
        .min_by_key(|r| (std::cmp::Reverse(r.risk), r.entry.at.offset));
    if let Some(r) = matched {
        let rule = rule_ref(policy, &r.entry.key, None, Some(r.entry.at));
        let why = format!(
            "matches {} {:?} ({})",
            r.entry.key,
            r.entry.text,
            rule.location()
        );
        return (r.risk, why, true);
    }
    let table = naming
        .tables
        .iter()
        .filter(|t| counts(&t.command))
        .filter_map(|t| t.risk.map(|(risk, at)| (risk, at, t)))
        .min_by_key(|(risk, at, _)| (std::cmp::Reverse(*risk), at.offset));
    if let Some((risk, at, t)) = table {
        let rule = rule_ref(policy, &t.key, None, Some(at));
        let why = format!("{}.risk = \"{risk}\" ({})", t.key, rule.location());
        return (risk, why, true);
    }
    if policy.builtin_risk() {
        let classified = match request.program {
            Program::Builtin(_) => Some((Risk::Low, "a shell builtin")),
            Program::External { path, .. } => {
                let file = path.file_name().and_then(|n| n.to_str());
                let called = request.argv.first().and_then(|a| a.rsplit('/').next());
                // A multi-call program acts as the name it is called by (pkill is pgrep's
                // file, mkfs.ext4 mke2fs's), so a name that is high risk makes it so. A name
                // never lowers the risk of its file: `cat` may be a link to rm.
                let by_name = called
                    .filter(|&name| Some(name) != file)
                    .and_then(|name| risk::classify(name, request.argv))
                    .filter(|(risk, _)| *risk == Risk::High);
                by_name.or_else(|| file.and_then(|name| risk::classify(name, request.argv)))
            }
        };
        if let Some((risk, why)) = classified {
            return (risk, why.to_owned(), false);
        }
    }
    (Risk::Medium, UNCLASSIFIED.to_owned(), false)
}

/// Why a command nothing classifies is medium risk.
pub const UNCLASSIFIED: &str = "not known to only read";

/// What `[shell] mode` and `[shell] strict` make of a command of risk `risk` (`why` says what
/// gave it that risk): in readonly mode anything above low is denied; with strict, it needs
/// confirmation. None when they add nothing.
pub fn by_mode(policy: &Policy, risk: Risk, why: &str) -> Option<Decision> {
    if risk == Risk::Low {
        return None;
    }
    let (verdict, key, reason) = if policy.mode() == Mode::Readonly {
        let reason = format!(
            "shell.mode = \"readonly\" runs only read-only commands, and this is {risk} risk \
             ({why})"
        );
        (Verdict::Deny, "shell.mode", reason)
    } else if policy.strict() {
        let reason = format!(
            "shell.strict = true asks before every command that is not read-only, and this \
             is {risk} risk ({why})"
        );
        (Verdict::Ask, "shell.strict", reason)
    } else {
        return None;
    };
    Some(Decision {
        verdict,
        rule: rule_ref(policy, key, None, None),
        reason,
        risk,
        risk_reason: why.to_owned(),
        risk_set: false,
    })
}

/// A command writing a file the policy lets it have: allowed, and at least medium risk.
pub fn writes(policy: &Policy, path: &str) -> Decision {
    Decision {
        verdict: Verdict::Allow,
        rule: rule_ref(policy, "paths.write", None, None),
        reason: format!("writes {path}"),
        risk: Risk::Medium,
        risk_reason: format!("writes {path}"),
        risk_set: false,
    }
}

/// A refusal that no single policy entry makes: a file the file rules (`[paths]`) keep from
/// commands (`key` "paths"), a wrapper whose command cannot be known ("wrapper"). `reason`
/// says why.
pub fn refused(policy: &Policy, key: &str, reason: String) -> Decision {
    Decision {
        verdict: Verdict::Deny,
        rule: rule_ref(policy, key, None, None),
        risk_reason: reason.clone(),
        reason,
        risk: Risk::Medium,
        risk_set: false,
    }
}

/// What `[sensitive]` says about a command reading or writing a file: None when nothing (or
/// an allow entry) names it; else deny for `high` and ask for `medium`. `path` is absolute
/// and canonical; `home` is what the policy's `~` means; `dir` tells whether `path` is a
/// directory, for the entries that name files only.
pub fn sensitive(
    policy: &Policy,
    path: &Path,
    home: &Path,
    write: bool,
    dir: &dyn Fn() -> bool,
) -> Option<Decision> {
    let (level, entry) = policy.sensitive().level(path, home, write, dir)?;
    let (verdict, risk) = match level {
        Level::High => (Verdict::Deny, Risk::High),
        Level::Medium => (Verdict::Ask, Risk::Medium),
    };
    let rule = RuleRef {
        key: entry.key.to_string(),
        pattern: Some(entry.text.to_string()),
        origin: match entry.at {
            Some(at) => policy.origin_of(at).to_owned(),
            None => "built-in".to_owned(),
        },
        line: entry.at.map(|at| at.line),
    };
    let reason = format!(
        "{} matches {} {:?} ({})",
        path.display(),
        rule.key,
        entry.text,
        rule.location()
    );
    Some(Decision {
        verdict,
        rule,
        risk_reason: format!("a {} sensitive file", level.as_str()),
        reason,
        risk,
        risk_set: false,
    })
}

/// The item with the highest verdict; among equals, the one written first in the file.
fn strongest<'p, T>(
    items: impl Iterator<Item = (Verdict, Place, &'p T)>,
) -> Option<(Verdict, Place, &'p T)> {
    items.min_by_key(|(verdict, at, _)| (std::cmp::Reverse(*verdict), at.offset))
}

fn rule_ref(policy: &Policy, key: &str, pattern: Option<&str>, at: Option<Place>) -> RuleRef {
    RuleRef {
        key: key.to_owned(),
        pattern: pattern.map(str::to_owned),
        origin: match at {
            Some(at) => policy.origin_of(at).to_owned(),
            None => policy.origin().to_owned(),
        },
        line: at.map(|at| at.line),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;
    use std::path::PathBuf;

    use super::*;
    use crate::policy::{DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, PERMISSIVE_POLICY};

    const ORIGIN: &str = "/etc/rsh/policy.toml";

    /// An executable file as the shell would present it: canonical path, device, inode.
    struct Exe {
        path: PathBuf,
        dev: u64,
        ino: u64,
    }

    fn exe(path: &Path) -> Exe {
        let path = std::fs::canonicalize(path).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        Exe {
            dev: meta.dev(),
            ino: meta.ino(),
            path,
        }
    }

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn run(policy: &Policy, exe: &Exe, line: &str) -> Decision {
        let argv = words(line);
        let program = Program::External {
            path: &exe.path,
            dev: exe.dev,
            ino: exe.ino,
        };
        decide(
            policy,
            &Request {
                argv: &argv,
                program,
            },
        )
    }

    fn builtin(policy: &Policy, line: &str) -> Decision {
        let argv = words(line);
        let program = Program::Builtin(&argv[0]);
        decide(
            policy,
            &Request {
                argv: &argv,
                program,
            },
        )
    }

    /// A temporary directory with a `bin` of fake programs (regular files; nothing is run).
    struct Fixture {
        dir: tempfile::TempDir,
    }

    impl Fixture {
        fn new(programs: &[&str]) -> Fixture {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("bin")).unwrap();
            std::fs::create_dir(dir.path().join("home")).unwrap();
            for name in programs {
                std::fs::write(dir.path().join("bin").join(name), format!("#!{name}\n")).unwrap();
            }
            Fixture { dir }
        }

        fn bin(&self, name: &str) -> PathBuf {
            self.dir.path().join("bin").join(name)
        }

        fn home(&self, name: &str) -> PathBuf {
            self.dir.path().join("home").join(name)
        }

        fn exe(&self, name: &str) -> Exe {
            exe(&self.bin(name))
        }

        /// Loads `body` under a `[shell]` table whose path is this fixture's bin.
        fn policy(&self, shell: &str, body: &str) -> Policy {
            let bin = self.dir.path().join("bin");
            let text = format!(
                "[shell]\npath = [{:?}]\n{shell}\n{body}",
                bin.to_str().unwrap()
            );
            Policy::from_toml(&text, ORIGIN, None).unwrap_or_else(|e| panic!("{e}"))
        }
    }

    #[test]
    fn symlink_and_hard_link_match_but_a_copy_does_not() {
        let fx = Fixture::new(&["tool"]);
        let p = fx.policy("", "[commands]\nallow = [\"tool\"]\n");
        assert_eq!(run(&p, &fx.exe("tool"), "tool -x").verdict, Verdict::Allow);

        std::fs::create_dir(fx.home("links")).unwrap();
        std::os::unix::fs::symlink(fx.bin("tool"), fx.home("links/tool")).unwrap();
        assert_eq!(
            run(&p, &exe(&fx.home("links/tool")), "./links/tool").verdict,
            Verdict::Allow
        );
        std::fs::hard_link(fx.bin("tool"), fx.home("tool")).unwrap();
        let hard = exe(&fx.home("tool"));
        assert_ne!(hard.path, fx.exe("tool").path);
        assert_eq!(run(&p, &hard, "./tool").verdict, Verdict::Allow);

        // Under another name, the same file is not what the entry allows (a multi-call
        // program would do something else), and the reason says so.
        std::os::unix::fs::symlink(fx.bin("tool"), fx.home("link")).unwrap();
        let d = run(&p, &exe(&fx.home("link")), "./link");
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(
            d.reason
                .ends_with("it is the program the policy names \"tool\", which counts only when called by that name"),
            "{}",
            d.reason
        );
        // A denial holds under any name.
        let p = fx.policy("", "[commands]\ndeny = [\"tool\"]\n");
        let d = run(&p, &exe(&fx.home("link")), "./link");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.rule.key, "commands.deny");

        std::fs::remove_file(fx.home("tool")).unwrap();

        std::fs::copy(fx.bin("tool"), fx.home("tool")).unwrap();
        let d = run(&p, &exe(&fx.home("tool")), "./tool");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.rule.key, "shell.unknown");
    }

    #[test]
    fn entries_under_another_name_only_make_a_verdict_stricter() {
        let fx = Fixture::new(&["tool"]);
        std::os::unix::fs::symlink(fx.bin("tool"), fx.bin("alias")).unwrap();
        // `alias` is allowed by its name; `tool`, the same file, asks: so does `alias`.
        let p = fx.policy(
            "",
            "[commands]\nallow = [\"alias\"]\n[commands.tool]\ndefault = \"ask\"\n",
        );
        let alias = exe(&fx.bin("alias"));
        assert_eq!(run(&p, &alias, "alias x").verdict, Verdict::Ask);
        // And `tool` is not allowed by the entry for `alias`.
        let p = fx.policy("", "[commands]\nallow = [\"alias\"]\n");
        assert_eq!(run(&p, &fx.exe("tool"), "tool x").verdict, Verdict::Deny);
        assert_eq!(run(&p, &alias, "alias x").verdict, Verdict::Allow);
        // A lower risk under another name does not lower this one's.
        let p = fx.policy(
            "strict = true",
            "[commands]\nallow = [\"alias\"]\n[commands.tool]\nrisk = \"low\"\n",
        );
        let d = run(&p, &alias, "alias x");
        assert_eq!(d.risk, Risk::Medium, "{}", d.risk_reason);
        // A table grants confinement permissions to its own name only.
        let p = fx.policy("", "[commands.tool]\nsubprocesses = true\n");
        let program = Program::External {
            path: &alias.path,
            dev: alias.dev,
            ino: alias.ino,
        };
        assert!(profile(&p, &program, "tool").subprocesses);
        assert!(!profile(&p, &program, "./alias").subprocesses);
        // With unknown = "allow", an ask under another name still asks.
        let p = fx.policy("unknown = \"allow\"", "[commands]\nask = [\"tool\"]\n");
        assert_eq!(run(&p, &alias, "alias x").verdict, Verdict::Ask);
    }

    #[test]
    fn a_replaced_file_still_matches_by_path() {
        let fx = Fixture::new(&["tool"]);
        let p = fx.policy("", "[commands]\nallow = [\"tool\"]\n");
        let before = fx.exe("tool");
        std::fs::remove_file(fx.bin("tool")).unwrap();
        std::fs::write(fx.bin("tool"), "new").unwrap();
        let after = fx.exe("tool");
        assert_eq!(before.path, after.path);
        assert_eq!(run(&p, &after, "tool").verdict, Verdict::Allow);
    }

    #[test]
    fn a_symlinked_name_matches_its_target_under_any_name() {
        // Like Debian's /bin/sh -> dash.
        let fx = Fixture::new(&["dash"]);
        std::os::unix::fs::symlink("dash", fx.bin("sh")).unwrap();
        let p = fx.policy("unknown = \"allow\"", "[commands]\ndeny = [\"sh\"]\n");
        let dash = fx.exe("dash");
        let d = run(&p, &dash, "sh -c x");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.reason, format!("listed in commands.deny ({ORIGIN}:5)"));
        let d = run(&p, &dash, "/some/where/dash");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(
            d.reason,
            format!("listed in commands.deny as \"sh\" ({ORIGIN}:5)")
        );
        std::fs::hard_link(fx.bin("dash"), fx.home("innocent")).unwrap();
        assert_eq!(
            run(&p, &exe(&fx.home("innocent")), "innocent").verdict,
            Verdict::Deny
        );
    }

    #[test]
    fn an_unresolved_name_matches_only_the_builtin() {
        let fx = Fixture::new(&[]);
        let p = fx.policy(
            "unknown = \"allow\"",
            "[commands]\ndeny = [\"ghost\"]\n[commands.cd]\ndeny = [\"/etc*:*\"]\n",
        );
        assert_eq!(p.unresolved_names(), ["ghost", "cd"]);
        std::fs::write(fx.home("ghost"), "").unwrap();
        let d = run(&p, &exe(&fx.home("ghost")), "./ghost");
        assert_eq!(d.verdict, Verdict::Allow);
        assert_eq!(d.rule.key, "shell.unknown");
        let d = builtin(&p, "ghost");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.rule.key, "commands.deny");
        assert_eq!(builtin(&p, "cd /etc/ssh").verdict, Verdict::Deny);
        assert_eq!(builtin(&p, "cd /tmp").verdict, Verdict::Allow);
    }

    #[test]
    fn a_builtin_is_named_by_either_of_its_names() {
        let fx = Fixture::new(&[]);
        let p = fx.policy("", "[commands]\ndeny = [\"source\", \"[\", \"typeset\"]\n");
        for line in [
            ". f",
            "source f",
            "test -e f",
            "[ -e f ]",
            "declare x",
            "typeset x",
        ] {
            assert_eq!(builtin(&p, line).verdict, Verdict::Deny, "{line}");
        }
        assert_eq!(builtin(&p, "eval x").verdict, Verdict::Allow);
    }

    #[test]
    fn builtins_not_named_are_allowed_whatever_unknown_says() {
        let fx = Fixture::new(&[]);
        let p = fx.policy("unknown = \"deny\"", "");
        let d = builtin(&p, "export A=1");
        assert_eq!(d.verdict, Verdict::Allow);
        assert_eq!(d.rule.key, "builtin");
        assert_eq!(d.reason, "shell builtin not named by the policy");
        let p = fx.policy("", "[commands]\nask = [\"cd\"]\n");
        assert_eq!(builtin(&p, "cd /").verdict, Verdict::Ask);
    }

    #[test]
    fn a_matching_pattern_beats_default_and_lists() {
        let fx = Fixture::new(&["git"]);
        let git = fx.exe("git");
        let p = fx.policy(
            "",
            "[commands]\ndeny = [\"git\"]\n[commands.git]\ndefault = \"deny\"\nallow = [\"status:*\"]\n",
        );
        let d = run(&p, &git, "git status -s");
        assert_eq!(d.verdict, Verdict::Allow);
        assert_eq!(
            d.rule,
            RuleRef {
                key: "commands.git.allow".into(),
                pattern: Some("status:*".into()),
                origin: ORIGIN.into(),
                line: Some(8),
            }
        );
        assert_eq!(
            d.reason,
            format!("matches commands.git.allow \"status:*\" ({ORIGIN}:8)")
        );
        let d = run(&p, &git, "git log");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.rule.key, "commands.git.default");
        assert_eq!(
            d.reason,
            format!("no argument pattern matched; commands.git.default = \"deny\" ({ORIGIN}:7)")
        );
    }

    #[test]
    fn the_highest_matching_pattern_wins_and_the_first_is_reported() {
        let fx = Fixture::new(&["git"]);
        let git = fx.exe("git");
        let p = fx.policy(
            "",
            r#"
[commands.git]
allow = ["status:*", "*:-v:*"]
ask = ["push:*"]
deny = ["*:-c:*", "*:--exec-path*:*"]

[rules]
allow = ["git push origin:*"]
deny = ["git status --evil"]
"#,
        );
        let d = run(&p, &git, "git status --evil");
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Deny, "rules.deny")
        );
        assert_eq!(d.rule.pattern.as_deref(), Some("git status --evil"));
        assert_eq!(d.rule.line, Some(12));
        let d = run(&p, &git, "git push origin main");
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Ask, "commands.git.ask")
        );
        let d = run(&p, &git, "git status -v");
        assert_eq!(d.rule.pattern.as_deref(), Some("status:*"));
        let d = run(&p, &git, "git --exec-path=/x -c a=b status");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.rule.pattern.as_deref(), Some("*:-c:*"));
        assert_eq!(d.rule.line, Some(8));
    }

    #[test]
    fn without_a_default_the_lists_decide_then_unknown() {
        let fx = Fixture::new(&["find", "npm", "dash", "tool"]);
        std::os::unix::fs::symlink("dash", fx.bin("sh")).unwrap();
        let p = fx.policy(
            "unknown = \"ask\"",
            r#"
[commands]
allow = ["find", "dash", "tool"]
ask = ["tool"]
deny = ["sh"]

[commands.find]
deny = ["*:-exec:*"]

[commands.npm]
deny = ["*:--unsafe-perm:*"]

[rules]
allow = ["npm run test:*"]
"#,
        );
        let find = fx.exe("find");
        assert_eq!(run(&p, &find, "find . -name x").verdict, Verdict::Allow);
        let d = run(&p, &find, "find . -exec rm {} ;");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(
            d.reason,
            format!("matches commands.find.deny \"*:-exec:*\" ({ORIGIN}:11)")
        );

        let npm = fx.exe("npm");
        let d = run(&p, &npm, "npm run test --watch");
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Allow, "rules.allow")
        );
        assert_eq!(
            run(&p, &npm, "npm run test --unsafe-perm").verdict,
            Verdict::Deny
        );
        let d = run(&p, &npm, "npm run build");
        assert_eq!(d.verdict, Verdict::Ask);
        assert_eq!(d.rule.key, "shell.unknown");
        assert_eq!(d.rule.line, Some(3));
        assert_eq!(
            d.reason,
            "not named by the policy (shell.unknown = \"ask\")"
        );

        // Listed in several lists, or named by several entries: the highest verdict.
        let d = run(&p, &fx.exe("tool"), "tool");
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Ask, "commands.ask")
        );
        let d = run(&p, &fx.exe("dash"), "dash");
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Deny, "commands.deny")
        );
    }

    #[test]
    fn unknown_programs_get_the_shell_unknown_verdict() {
        let fx = Fixture::new(&["other"]);
        let p = fx.policy("", "");
        let d = run(&p, &fx.exe("other"), "other");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(
            d.reason,
            "not allowed by the policy (shell.unknown = \"deny\")"
        );
        assert_eq!(d.rule.line, None);
        assert_eq!(d.rule.to_string(), format!("shell.unknown ({ORIGIN})"));
        let p = fx.policy("unknown = \"allow\"", "");
        assert_eq!(run(&p, &fx.exe("other"), "other").verdict, Verdict::Allow);
    }

    #[test]
    fn empty_argv_and_regex_patterns() {
        let fx = Fixture::new(&["git"]);
        let git = fx.exe("git");
        let p = fx.policy(
            "",
            "[commands.git]\ndefault = \"allow\"\nask = [\"re:(-C \\\\S+ )*push( .*)?\"]\n",
        );
        let d = run(&p, &git, "git -C /tmp push origin");
        assert_eq!(d.verdict, Verdict::Ask);
        assert_eq!(
            d.rule.to_string(),
            format!("commands.git.ask \"re:(-C \\\\S+ )*push( .*)?\" ({ORIGIN}:6)")
        );
        assert_eq!(run(&p, &git, "git log push").verdict, Verdict::Allow);
        let empty: Vec<String> = Vec::new();
        let program = Program::External {
            path: &git.path,
            dev: git.dev,
            ino: git.ino,
        };
        let d = decide(
            &p,
            &Request {
                argv: &empty,
                program,
            },
        );
        assert_eq!(d.verdict, Verdict::Allow);
    }

    #[test]
    fn a_pattern_that_cannot_be_compiled_refuses_the_command() {
        let fx = Fixture::new(&["tool"]);
        // Valid syntax, but larger than the regex crate compiles: found when first matched.
        let p = fx.policy(
            "",
            "[commands.tool]\ndefault = \"allow\"\nallow = [\"re:\\\\w{1000}{100}\"]\n",
        );
        let d = run(&p, &fx.exe("tool"), "tool anything");
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(d.reason.contains("cannot be compiled"), "{}", d.reason);
    }

    #[test]
    fn deciding_is_repeatable() {
        let fx = Fixture::new(&["git"]);
        let p = fx.policy("", "[commands.git]\ndeny = [\"*:-c:*\"]\n");
        let git = fx.exe("git");
        let first = run(&p, &git, "git -c x=y log");
        for _ in 0..3 {
            assert_eq!(run(&p, &git, "git -c x=y log"), first);
        }
    }

    /// The shipped default, with its `[shell] path` pointed at fake programs so that the test
    /// does not depend on what is installed.
    fn default_policy_on(fx: &Fixture) -> Policy {
        let bin = fx.dir.path().join("bin");
        let line = "path = [\"/usr/local/bin\", \"/usr/bin\", \"/bin\", \"/usr/local/sbin\", \"/usr/sbin\", \"/sbin\"]";
        assert_eq!(
            DEFAULT_POLICY.matches(line).count(),
            1,
            "default.toml path line changed"
        );
        let text = DEFAULT_POLICY.replace(line, &format!("path = [{:?}]", bin.to_str().unwrap()));
        Policy::from_toml(&text, DEFAULT_POLICY_ORIGIN, None).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn shipped_default_policy_decides_as_documented() {
        let names = [
            "sh",
            "bash",
            "env",
            "xargs",
            "ls",
            "find",
            "git",
            "python3",
            "sed",
            "curl",
            "less",
            "vim",
            "ssh",
            "sudo",
            "timeout",
            "nice",
            "busybox",
            "make",
            "rm",
            "date",
            "sort",
            "fd",
            "frobnicate",
        ];
        let fx = Fixture::new(&names);
        let p = default_policy_on(&fx);
        let verdict = |line: &str| {
            let name = line.split_whitespace().next().unwrap();
            run(&p, &fx.exe(name), line).verdict
        };
        for line in [
            "ls -la",
            "find . -name x",
            "rm -rf build",
            "sort -u file",
            "fd -e txt",
            "sed -n 1p",
            "date -u",
            "date -dyesterday",
            "date -Rd tomorrow",
            "rm -r --preserve-root dir",
        ] {
            assert_eq!(verdict(line), Verdict::Allow, "{line}");
        }
        for line in [
            "sh -c id",
            "bash",
            "xargs sh",
            "curl http://x",
            "less file",
            "vim file",
            "ssh host",
            "sudo -i",
            "busybox sh",
            "find . -exec rm {} ;",
            "find / -delete",
            "find . -fprintf out x",
            "git -c core.pager=sh log",
            "git log --ext-diff",
            "git --exec-path=/tmp status",
            "git fetch --upload-pack=evil origin",
            "git fetch --upl=evil origin",
            "git clone -u evil url",
            "git clone --template=/tmp/t url",
            "git init --temp /tmp/t",
            "date -us 2020-01-01",
            "date -u -Rs 2020-01-01",
            "rm -r --no-pres /",
            "git grep -Oevil x",
            "rm -rf /",
            "rm -r --no-preserve-root /",
            "sort --compress-prog=sh file",
            "sort --files0-from=names",
            "sort --fil names",
            "fd -x rm",
            "fd -HX rm",
        ] {
            assert_eq!(verdict(line), Verdict::Deny, "{line}");
        }
        // git runs programs named by the repository's own configuration, with the network it
        // needs to fetch: it asks (the deny patterns above still refuse outright).
        for line in [
            "git status",
            "git log --oneline",
            "git diff --stat --exit-code",
            "git checkout --conflict=diff3 main",
            "git commit -m message",
            "git push",
            "git push origin main",
            "git -C dir push",
            "python3 x.py",
            "make all",
        ] {
            assert_eq!(verdict(line), Verdict::Ask, "{line}");
        }
        let d = run(&p, &fx.exe("frobnicate"), "frobnicate");
        assert_eq!(d.verdict, Verdict::Deny);
        assert_eq!(d.rule.key, "shell.unknown");
        let d = run(&p, &fx.exe("sh"), "sh");
        assert!(
            d.reason
                .starts_with("listed in commands.deny (built-in default policy:"),
            "{}",
            d.reason
        );
        assert_eq!(builtin(&p, "cd /tmp").verdict, Verdict::Allow);
    }

    #[test]
    fn shipped_default_policy_confines_by_command() {
        let fx = Fixture::new(&["ls", "sed", "python3", "make", "git", "cargo"]);
        let p = default_policy_on(&fx);
        let profile_of = |name: &str| {
            let e = fx.exe(name);
            profile(
                &p,
                &Program::External {
                    path: &e.path,
                    dev: e.dev,
                    ino: e.ino,
                },
                name,
            )
        };
        let plain = CommandProfile {
            network: false,
            unix_sockets: false,
            subprocesses: false,
        };
        assert_eq!(profile_of("ls"), plain);
        assert_eq!(profile_of("sed"), plain);
        let builder = CommandProfile {
            network: false,
            unix_sockets: false,
            subprocesses: true,
        };
        assert_eq!(profile_of("python3"), builder);
        assert_eq!(profile_of("make"), builder);
        let fetcher = CommandProfile {
            network: true,
            unix_sockets: false,
            subprocesses: true,
        };
        assert_eq!(profile_of("git"), fetcher);
        assert_eq!(profile_of("cargo"), fetcher);
    }

    #[test]
    fn a_permission_needs_every_table_that_names_the_program() {
        let fx = Fixture::new(&["tool"]);
        std::os::unix::fs::symlink(fx.bin("tool"), fx.bin("alias")).unwrap();
        let p = fx.policy(
            "[sandbox]\nnetwork = true\n",
            "[commands.tool]\nsubprocesses = true\nunix_sockets = true\n\
             [commands.alias]\nsubprocesses = false\n",
        );
        let e = fx.exe("tool");
        let got = profile(
            &p,
            &Program::External {
                path: &e.path,
                dev: e.dev,
                ino: e.ino,
            },
            "tool",
        );
        // Both tables name the same file; one refuses subprocesses, the program's own grants
        // unix sockets. Neither says anything about the network, so the [sandbox] default
        // holds.
        assert_eq!(
            got,
            CommandProfile {
                network: true,
                unix_sockets: true,
                subprocesses: false
            }
        );
    }

    #[test]
    fn risk_comes_from_the_policy_then_its_tables_then_the_built_in_classification() {
        let fx = Fixture::new(&["cat", "cp", "tool"]);
        let p = fx.policy(
            "",
            "[commands]\nallow = [\"cat\", \"cp\", \"tool\"]\n\
             [commands.cp]\nrisk = \"low\"\n\
             [risk]\nhigh = [\"cp -r :*\", \"cat /etc/shadow\"]\nmedium = [\"cp -r x y\"]\n",
        );
        let risk = |name: &str, line: &str| {
            let d = run(&p, &fx.exe(name), line);
            (d.risk, d.risk_set)
        };
        assert_eq!(risk("cat", "cat a"), (Risk::Low, false));
        assert_eq!(risk("cat", "cat /etc/shadow"), (Risk::High, true));
        assert_eq!(risk("cp", "cp a b"), (Risk::Low, true));
        // The highest of the matching [risk] entries.
        assert_eq!(risk("cp", "cp -r x y"), (Risk::High, true));
        // Entries that raise the risk catch abbreviations; one that lowers it does not.
        let spelled = fx.policy(
            "",
            "[commands]\nallow = [\"tool\"]\n\
             [risk]\nhigh = [\"tool --force :*\"]\nlow = [\"tool --dry-run\"]\n",
        );
        let tool = |line: &str| run(&spelled, &fx.exe("tool"), line).risk;
        assert_eq!(tool("tool --force x"), Risk::High);
        assert_eq!(tool("tool --forc x"), Risk::High);
        assert_eq!(tool("tool --dry-run"), Risk::Low);
        assert_eq!(tool("tool --dry"), Risk::Medium);
        assert_eq!(risk("tool", "tool"), (Risk::Medium, false));
        assert_eq!(run(&p, &fx.exe("tool"), "tool").risk_reason, UNCLASSIFIED);
        assert_eq!(builtin(&p, "cd /").risk, Risk::Low);
        // The verdict does not depend on the risk.
        assert_eq!(
            run(&p, &fx.exe("cat"), "cat /etc/shadow").verdict,
            Verdict::Allow
        );

        let off = fx.policy("", "[risk]\nbuiltin = false\n");
        assert_eq!(run(&off, &fx.exe("cat"), "cat a").risk, Risk::Medium);
        assert_eq!(builtin(&off, "cd /").risk, Risk::Medium);
    }

    /// A multi-call program acts as the name it is called by: a high-risk name makes it high
    /// risk, and no name makes its file less risky than it is.
    #[test]
    fn a_program_called_by_a_high_risk_name_is_high_risk() {
        let fx = Fixture::new(&["pgrep", "rm", "cat"]);
        let p = fx.policy("unknown = \"allow\"\n", "");
        let risk = |file: &str, line: &str| run(&p, &fx.exe(file), line).risk;
        assert_eq!(risk("pgrep", "pgrep x"), Risk::Low);
        assert_eq!(risk("pgrep", "pkill x"), Risk::High);
        assert_eq!(risk("pgrep", "mkfs.ext4 x"), Risk::High);
        assert_eq!(risk("rm", "cat x"), Risk::Medium);
        assert_eq!(risk("rm", "cat -r x"), Risk::High);
        assert_eq!(risk("cat", "mytool x"), Risk::Low);
    }

    #[test]
    fn the_cache_answers_as_decide_does_and_keeps_programs_apart() {
        let fx = Fixture::new(&["tool", "other"]);
        let p = fx.policy(
            "",
            "[commands]\nallow = [\"tool\"]\n[commands.tool]\ndeny = [\"-x\"]\n",
        );
        let mut cache = Cache::new(2);
        let (tool, other) = (fx.exe("tool"), fx.exe("other"));
        for _ in 0..2 {
            for (exe, line) in [(&tool, "tool -x"), (&tool, "tool -y"), (&other, "tool -y")] {
                let argv = words(line);
                let request = Request {
                    argv: &argv,
                    program: Program::External {
                        path: &exe.path,
                        dev: exe.dev,
                        ino: exe.ino,
                    },
                };
                assert_eq!(cache.decide(&p, &request), decide(&p, &request), "{line}");
            }
        }
    }

    #[test]
    fn cache_keys_differ_whenever_requests_do() {
        let path = std::path::Path::new("/bin/x");
        let key = |argv: &[&str], builtin: bool| {
            let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            let program = if builtin {
                Program::Builtin("x")
            } else {
                Program::External {
                    path,
                    dev: 1,
                    ino: 2,
                }
            };
            let mut out = Vec::new();
            encode(
                &Request {
                    argv: &argv,
                    program,
                },
                &mut out,
            );
            out
        };
        let keys = [
            key(&["x", "a b"], false),
            key(&["x", "a", "b"], false),
            key(&["x", "ab", ""], false),
            key(&["x", "", "ab"], false),
            key(&["x", "a", "b"], true),
            key(&["x"], false),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(key(&["x", "a"], false), key(&["x", "a"], false));
    }

    #[test]
    fn readonly_denies_and_strict_asks_above_low_risk() {
        let fx = Fixture::new(&[]);
        let enforce = fx.policy("", "");
        assert!(by_mode(&enforce, Risk::High, "x").is_none());
        let readonly = fx.policy("mode = \"readonly\"\nstrict = true", "");
        assert!(by_mode(&readonly, Risk::Low, "x").is_none());
        let d = by_mode(&readonly, Risk::Medium, "writes f").unwrap();
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Deny, "shell.mode")
        );
        assert!(
            d.reason.ends_with("this is medium risk (writes f)"),
            "{}",
            d.reason
        );
        let strict = fx.policy("strict = true", "");
        let d = by_mode(&strict, Risk::High, "x").unwrap();
        assert_eq!(
            (d.verdict, d.rule.key.as_str()),
            (Verdict::Ask, "shell.strict")
        );
        let audit = fx.policy("mode = \"audit\"", "");
        assert!(by_mode(&audit, Risk::High, "x").is_none());
    }

    #[test]
    fn shipped_default_policy_on_this_system() {
        let p = Policy::from_toml(DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, None).unwrap();
        let find = |name: &str| {
            p.search_path()
                .unwrap()
                .iter()
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
                .map(|path| exe(&path))
        };
        for name in ["sh", "bash", "stdbuf", "xargs"] {
            if let Some(e) = find(name) {
                assert_eq!(run(&p, &e, name).verdict, Verdict::Deny, "{name}");
            }
        }
        if let Some(e) = find("ls") {
            assert_eq!(run(&p, &e, "ls -l").verdict, Verdict::Allow);
        }
        let loader = Path::new("/lib64/ld-linux-x86-64.so.2");
        if loader.is_file() {
            let e = exe(loader);
            let d = run(&p, &e, "/lib64/ld-linux-x86-64.so.2 /bin/sh");
            assert_eq!(d.verdict, Verdict::Deny);
        }
    }

    #[test]
    fn shipped_permissive_policy_allows_everything() {
        let fx = Fixture::new(&["sh", "env", "anything"]);
        let bin = fx.dir.path().join("bin");
        let p = Policy::from_toml(PERMISSIVE_POLICY, "permissive.toml", bin.to_str()).unwrap();
        for line in ["sh -c id", "env X=1 sh", "anything --at all"] {
            let name = line.split_whitespace().next().unwrap();
            assert_eq!(
                run(&p, &fx.exe(name), line).verdict,
                Verdict::Allow,
                "{line}"
            );
        }
        std::fs::write(fx.home("mine"), "").unwrap();
        assert_eq!(
            run(&p, &exe(&fx.home("mine")), "./mine").verdict,
            Verdict::Allow
        );
        assert_eq!(builtin(&p, "cd /").verdict, Verdict::Allow);
    }
}
