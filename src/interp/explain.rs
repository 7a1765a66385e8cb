//! `rsh --explain LINE`: what every command of a line would meet, without running anything.
//!
//! Each simple command is expanded, resolved and decided by the very functions that run it
//! (`expand_argv`, `resolve_command`, `command_decisions`, `profile`, `checked_landing`); only
//! the last step, starting it, is left out. What cannot be known before the line runs — a word that
//! uses the output of `$(…)`, a variable the line itself sets, `$1`, a pattern matched after
//! `cd` — is said to be decided when it runs, with the reason, rather than guessed.

use std::collections::HashSet;

use serde::Serialize;

use crate::decide::Decision;
use crate::parse::{
    self, AndOr, Command, Compound, CondExpr, FunctionDef, Param, ParamOp, Program, RedirOp,
    Redirect, SimpleCommand, Word, WordPart,
};
use crate::policy::Verdict;

use super::Shell;
use super::builtins;
use super::redirect::ReadError;
use super::simple::{FileKind, Files, Lookup, Refusal, Target, riskiest, strongest};

/// Variables whose value changes by itself: never known in advance.
const VOLATILE: &[&str] = &[
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "BASHPID",
    "LINENO",
    "_",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "MAPFILE",
];

/// Variables that change how later words are split, globbed or expanded.
const SETTINGS_VARS: &[&str] = &["IFS", "HOME", "PATH", "CDPATH", "GLOBIGNORE"];

/// Builtins whose non-option arguments name variables they set.
const SETTERS: &[&str] = &[
    "read",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "getopts",
    "mapfile",
    "readarray",
    "printf",
    "let",
];

/// What `--explain` says about one command.
#[derive(Debug, Serialize)]
pub struct Segment {
    /// The command as written (its first line).
    pub text: String,
    /// 1-based line in the input.
    pub line: usize,
    /// Where the command sits when not at the top of the line: `function f`, `$(…)`, `eval`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
    /// The expanded words, when they can be known before the line runs.
    pub argv: Option<Vec<String>>,
    /// What would run: a file's canonical path, `builtin`, `function NAME`.
    pub program: Option<String>,
    /// `allow`, `ask` or `deny`; `unknown` when decided only as the line runs; `fails` when
    /// the command would fail before any decision (not found, an expansion error).
    pub verdict: &'static str,
    pub reason: String,
    /// The command's risk (its riskiest decision's), and what says so; None when no
    /// decision was made.
    pub risk: Option<&'static str>,
    pub risk_reason: Option<String>,
    /// The rules that decided (the program's, and a script's `#!` interpreter's).
    pub decisions: Vec<DecisionOut>,
    /// How the kernel would confine the program.
    pub confinement: Option<Confinement>,
    /// Files the shell would open for it (redirections), and whether the policy lets it.
    pub paths: Vec<PathCheck>,
}

#[derive(Debug, Serialize)]
pub struct DecisionOut {
    /// `program`, or `#! interpreter NAME`.
    pub about: String,
    pub verdict: &'static str,
    pub reason: String,
    /// `low`, `medium` or `high`, and what says so.
    pub risk: &'static str,
    pub risk_reason: String,
    pub rule: String,
    pub pattern: Option<String>,
    pub origin: String,
    pub rule_line: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct Confinement {
    pub network: bool,
    pub unix_sockets: bool,
    pub subprocesses: bool,
    /// Seconds of wall-clock time; None when nothing is confined.
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct PathCheck {
    /// The target as written, or as expanded.
    pub path: String,
    /// Where it lands (canonical), when known.
    pub resolved: Option<String>,
    pub access: &'static str,
    pub verdict: &'static str,
    pub reason: String,
}

impl Segment {
    /// Whether this command would run without anyone being asked.
    pub fn allowed(&self) -> bool {
        self.verdict == "allow"
    }
}

/// Names the line itself assigns, and the functions it defines: their values and bodies are
/// only known as it runs.
#[derive(Default)]
struct Known {
    assigned: HashSet<String>,
    functions: HashSet<String>,
    /// Alias names the line defines; `*` when one cannot be known.
    aliases: HashSet<String>,
}

struct Explainer<'s> {
    shell: &'s mut Shell,
    known: Known,
    /// Set once a `cd` (or pushd, popd, or a command whose name is not known) has been seen:
    /// later relative paths and patterns depend on where it leads.
    moved: bool,
    /// Set once `set`, `shopt` or an assignment to IFS, HOME, PATH, … has been seen: later
    /// unquoted expansions and patterns depend on the settings it leaves.
    resettled: bool,
    /// eval and source levels, bounded as when running.
    depth: usize,
    within: Vec<String>,
    out: Vec<Segment>,
}

impl Shell {
    /// Explains every command of `program` (see the module documentation).
    pub fn explain(&mut self, program: &Program) -> Vec<Segment> {
        let mut known = Known::default();
        collect_list(&program.body, &mut known);
        self.explaining = true;
        let mut explainer = Explainer {
            shell: self,
            known,
            moved: false,
            resettled: false,
            depth: 0,
            within: Vec::new(),
            out: Vec::new(),
        };
        explainer.list(&program.body);
        let out = std::mem::take(&mut explainer.out);
        self.explaining = false;
        out
    }
}

// ----- what the line assigns ---------------------------------------------------------------

/// Every command of a list, in the order written.
fn commands(list: &[AndOr]) -> impl Iterator<Item = &Command> {
    list.iter()
        .flat_map(|and_or| std::iter::once(&and_or.first).chain(and_or.rest.iter().map(|(_, p)| p)))
        .flat_map(|pipeline| &pipeline.commands)
}

fn collect_list(list: &[AndOr], known: &mut Known) {
    for command in commands(list) {
        collect_command(command, known);
    }
}

fn collect_command(command: &Command, known: &mut Known) {
    match command {
        Command::Simple(cmd) => {
            for a in &cmd.assignments {
                known.assigned.insert(a.name.clone());
                collect_word(&a.value, known);
            }
            let words: Vec<Option<String>> = cmd.words.iter().map(Word::static_text).collect();
            match words.first() {
                Some(Some(name)) if name == "let" => {
                    for word in &cmd.words[1..] {
                        collect_arith(word, known);
                    }
                }
                Some(Some(name)) if name == "alias" => {
                    for word in &words[1..] {
                        match word.as_deref().and_then(|w| w.split_once('=')) {
                            Some((alias, _)) => known.aliases.insert(alias.to_owned()),
                            None if word.is_none() => known.aliases.insert("*".to_owned()),
                            None => false,
                        };
                    }
                }
                Some(Some(name)) if SETTERS.contains(&name.as_str()) => {
                    for word in words.iter().skip(1).flatten() {
                        let name = word.split(['=', '+', '[']).next().unwrap_or_default();
                        if parse::is_name(name) {
                            known.assigned.insert(name.to_owned());
                        }
                    }
                }
                _ => {}
            }
            for word in &cmd.words {
                collect_word(word, known);
            }
            for r in &cmd.redirects {
                collect_word(&r.target, known);
            }
        }
        Command::Compound(compound) => collect_compound(&compound.kind, known),
        Command::FunctionDef(def) => {
            known.functions.insert(def.name.clone());
            collect_compound(&def.body.kind, known);
        }
    }
}

fn collect_compound(kind: &Compound, known: &mut Known) {
    match kind {
        Compound::For { var, .. } => {
            known.assigned.insert(var.clone());
        }
        Compound::Arith(word) => collect_arith(word, known),
        Compound::ArithFor {
            init, cond, step, ..
        } => {
            for word in [init, cond, step].into_iter().flatten() {
                collect_arith(word, known);
            }
        }
        _ => {}
    }
    for child in children(kind) {
        match child {
            Child::List(list) => collect_list(list, known),
            Child::Word(word) => collect_word(word, known),
        }
    }
}

/// What a compound command is made of, in the order it runs.
enum Child<'a> {
    List(&'a [AndOr]),
    Word(&'a Word),
}

fn children(kind: &Compound) -> Vec<Child<'_>> {
    match kind {
        Compound::Group(list) | Compound::Subshell(list) => vec![Child::List(list)],
        Compound::If {
            branches,
            otherwise,
        } => branches
            .iter()
            .flat_map(|(cond, body)| [Child::List(cond), Child::List(body)])
            .chain(otherwise.iter().map(|list| Child::List(list)))
            .collect(),
        Compound::For { words, body, .. } => words
            .iter()
            .flatten()
            .map(Child::Word)
            .chain([Child::List(body)])
            .collect(),
        Compound::ArithFor {
            init,
            cond,
            step,
            body,
        } => [init, cond, step]
            .into_iter()
            .flatten()
            .map(Child::Word)
            .chain([Child::List(body)])
            .collect(),
        Compound::While { cond, body, .. } => vec![Child::List(cond), Child::List(body)],
        Compound::Case { subject, items } => std::iter::once(Child::Word(subject))
            .chain(items.iter().flat_map(|item| {
                item.patterns
                    .iter()
                    .map(Child::Word)
                    .chain([Child::List(&item.body)])
            }))
            .collect(),
        Compound::Cond(expr) => {
            let mut words = Vec::new();
            cond_words(expr, &mut words);
            words.into_iter().map(Child::Word).collect()
        }
        Compound::Arith(word) => vec![Child::Word(word)],
    }
}

/// Assignments hidden in words: `${x:=v}`, `$((i++))`, and the commands in `$(…)`.
fn collect_word(word: &Word, known: &mut Known) {
    collect_parts(&word.parts, known);
}

fn collect_parts(parts: &[WordPart], known: &mut Known) {
    for part in parts {
        match part {
            WordPart::DoubleQuoted(inner) => collect_parts(inner, known),
            WordPart::Param(p) => {
                if let (
                    Param::Var(name),
                    ParamOp::Test {
                        kind: parse::TestKind::Assign,
                        ..
                    },
                ) = (&p.param, &p.op)
                {
                    known.assigned.insert(name.clone());
                }
                for word in op_words(&p.op) {
                    collect_word(word, known);
                }
            }
            WordPart::CommandSub(program) | WordPart::ProcessSub { program, .. } => {
                collect_list(&program.body, known)
            }
            WordPart::Arith(word) => {
                collect_arith(word, known);
                collect_word(word, known);
            }
            WordPart::Literal(_) | WordPart::Quoted(_) => {}
        }
    }
}

/// Arithmetic that assigns (`=`, `+=`, `++`, `--`): every name in it may change. (The
/// commands in its `$(…)` are the word walkers' business.)
fn collect_arith(word: &Word, known: &mut Known) {
    let text = word.static_text().unwrap_or_default();
    if arith_assigns(&text) {
        known.assigned.extend(names(&text).map(str::to_owned));
    }
}

/// The variable names in arithmetic text.
fn names(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|name| parse::is_name(name))
}

/// Whether arithmetic text assigns: `=` and the compound `+=` … `<<=` `>>=`, `++`, `--`; not
/// the comparisons `==` `!=` `<=` `>=`.
fn arith_assigns(text: &str) -> bool {
    if text.contains("++") || text.contains("--") {
        return true;
    }
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        if b != b'=' || bytes.get(i + 1) == Some(&b'=') {
            return false;
        }
        let before = if i > 0 { bytes[i - 1] } else { 0 };
        let shifted = i >= 2 && matches!(&bytes[i - 2..i], b"<<" | b">>");
        shifted || !matches!(before, b'=' | b'!' | b'<' | b'>')
    })
}

// ----- walking the line ------------------------------------------------------------------

impl Explainer<'_> {
    fn list(&mut self, list: &[AndOr]) {
        for command in commands(list) {
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(cmd) => self.simple(cmd),
            Command::Compound(compound) => {
                for r in &compound.redirects {
                    self.nested(&r.target);
                }
                self.compound(&compound.kind);
                if !compound.redirects.is_empty() {
                    self.redirections_only(
                        &compound_text(compound),
                        compound.line,
                        &compound.redirects,
                        None,
                    );
                }
            }
            Command::FunctionDef(def) => self.function(def),
        }
    }

    fn function(&mut self, def: &FunctionDef) {
        self.within.push(format!("function {}", def.name));
        self.command(&Command::Compound(def.body.clone()));
        self.within.pop();
    }

    fn compound(&mut self, kind: &Compound) {
        for child in children(kind) {
            match child {
                Child::List(list) => self.list(list),
                Child::Word(word) => self.nested(word),
            }
        }
    }

    /// The commands inside a word's `$(…)` and `<(…)`, which run before the word is used.
    fn nested(&mut self, word: &Word) {
        self.nested_parts(&word.parts);
    }

    fn nested_parts(&mut self, parts: &[WordPart]) {
        for part in parts {
            match part {
                WordPart::DoubleQuoted(inner) => self.nested_parts(inner),
                WordPart::CommandSub(program) => self.inside("$(…)", &program.body),
                WordPart::ProcessSub { program, output } => {
                    self.inside(if *output { ">(…)" } else { "<(…)" }, &program.body)
                }
                WordPart::Arith(word) => self.nested(word),
                WordPart::Param(p) => {
                    for word in op_words(&p.op) {
                        self.nested(word);
                    }
                }
                WordPart::Literal(_) | WordPart::Quoted(_) => {}
            }
        }
    }

    fn inside(&mut self, what: &str, list: &[AndOr]) {
        self.within.push(what.to_owned());
        self.list(list);
        self.within.pop();
    }

    // ----- one simple command --------------------------------------------------------------

    fn simple(&mut self, cmd: &SimpleCommand) {
        for a in &cmd.assignments {
            self.nested(&a.value);
        }
        for word in &cmd.words {
            self.nested(word);
        }
        for r in &cmd.redirects {
            self.nested(&r.target);
        }
        // A trailing redirection may sit outside the command's own span (see parse).
        let end = cmd
            .redirects
            .iter()
            .map(|r| r.span.end)
            .filter(|&end| end > cmd.span.start)
            .fold(cmd.span.end, usize::max);
        let text = first_line(cmd.source.get(cmd.span.start..end).unwrap_or(""));
        if cmd
            .assignments
            .iter()
            .any(|a| SETTINGS_VARS.contains(&a.name.as_str()))
            && cmd.words.is_empty()
        {
            self.resettled = true;
        }
        if cmd.words.is_empty() {
            if !cmd.redirects.is_empty() {
                self.redirections_only(&text, cmd.line, &cmd.redirects, Some(&cmd.source));
            }
            return;
        }
        let mut segment = self.segment(&text, cmd.line);
        segment.paths = self.paths(&cmd.redirects, Some(&cmd.source));
        let dynamic = cmd.words.iter().find_map(|w| self.dynamic(w));
        let name = cmd.words[0].static_text();
        let alias = name
            .as_deref()
            .filter(|n| self.known.aliases.contains(*n) || self.known.aliases.contains("*"));
        let path_changes = cmd.assignments.iter().any(|a| a.name == "PATH")
            || (self.resettled && self.known.assigned.contains("PATH"));
        let why = if let Some(alias) = alias {
            Some(format!("{alias} may be an alias the line defines"))
        } else if path_changes
            && self.shell.policy().search_path().is_none()
            && name.as_deref().is_some_and(|n| !n.contains('/'))
        {
            Some("the line changes PATH, where it is looked up".to_owned())
        } else {
            dynamic
        };
        // What the command changes for those after it, even when it is not known itself.
        match name.as_deref() {
            Some("cd" | "pushd" | "popd") | None => self.moved = true,
            Some("set" | "shopt") => self.resettled = true,
            _ => {}
        }
        if let Some(why) = why {
            self.settle(segment, "unknown", format!("decided when it runs: {why}"));
            return;
        }
        let argv = match self.shell.expand_argv(&cmd.words) {
            Ok(argv) => argv,
            Err(err) => {
                self.settle(
                    segment,
                    "fails",
                    format!("expansion fails: {}", err.message),
                );
                return;
            }
        };
        if argv.is_empty() {
            segment.argv = Some(argv);
            let reason = "the words expand to nothing: no command runs".to_owned();
            self.settle(segment, "allow", reason);
            return;
        }
        self.argv(segment, argv, Lookup::All);
    }

    /// Decides an expanded command; `segment` has its text, place and paths.
    fn argv(&mut self, mut segment: Segment, argv: Vec<String>, lookup: Lookup) {
        let name = argv[0].clone();
        if matches!(name.as_str(), "cd" | "pushd" | "popd") {
            self.moved = true;
        }
        if lookup == Lookup::All && self.known.functions.contains(&name) {
            // Whether the definition has run by then is only known as the line runs: unless
            // the command is allowed either way, it is not known.
            let otherwise = match self.shell.resolve_command(&argv, Lookup::SkipFunctions) {
                Ok(target) => strongest(&self.shell.command_decisions(&argv, &target, Files::All))
                    .map_or(Verdict::Allow, |r| r.decision.verdict),
                Err(_) => Verdict::Deny,
            };
            segment.program = Some(format!("function {name}"));
            segment.argv = Some(argv);
            let (verdict, reason) = if otherwise == Verdict::Allow {
                (
                    "allow",
                    "a function this line defines (its commands are listed where it is \
                     defined), or else an allowed command"
                        .to_owned(),
                )
            } else {
                (
                    "unknown",
                    format!(
                        "decided when it runs: {name} is a function this line defines, if \
                         the definition has run by then; otherwise the command {name} \
                         ({otherwise})"
                    ),
                )
            };
            self.settle(segment, verdict, reason);
            return;
        }
        segment.argv = Some(argv.clone());
        if builtins::is_refused(&name) && lookup != Lookup::ExternalOnly {
            segment.program = Some("builtin".to_owned());
            self.settle(segment, "fails", format!("{name}: not supported by rsh"));
            return;
        }
        if self.moved && name.contains('/') && !name.starts_with('/') {
            let why =
                format!("decided when it runs: {name} is found from the directory `cd` leads to");
            self.settle(segment, "unknown", why);
            return;
        }
        let target = match self.shell.resolve_command(&argv, lookup) {
            Ok(target) => target,
            Err(reason) => {
                let verdict = match reason {
                    super::simple::NotRunnable::Denied(_) => "deny",
                    _ => "fails",
                };
                self.settle(segment, verdict, reason.message(&name));
                return;
            }
        };
        segment.program = Some(self.describe(&target));
        let files = self.files(&argv, &target);
        segment.paths.extend(files);
        // The decisions a run makes, from the same code; only files found relative to a
        // directory an earlier `cd` of the line leads to are left out (they are "unknown").
        let files = if self.moved {
            Files::Absolute
        } else {
            Files::All
        };
        let mut decisions = self.shell.command_decisions(&argv, &target, files);
        self.shell.add_mode(&mut decisions);
        self.decided(&mut segment, &decisions);
        if let Target::External(resolved) = &target
            && !matches!(resolved.kind, FileKind::ShellText { .. })
        {
            let profile = self.shell.profile(&argv, resolved);
            let timeout = self
                .shell
                .sandbox()
                .ok()
                .and_then(|s| s.timeout())
                .map(|t| t.as_secs());
            segment.confinement = Some(Confinement {
                network: profile.network,
                unix_sockets: profile.unix_sockets,
                subprocesses: profile.subprocesses,
                timeout,
            });
        }
        let runs_inner = matches!(target, Target::Builtin(_)) && segment.verdict == "allow";
        let text = segment.text.clone();
        let line = segment.line;
        self.out.push(segment);
        if runs_inner {
            self.inner(&text, line, &argv);
        }
    }

    /// Builtins that run another command or line: `exec`, `command`, `builtin`, `eval`.
    fn inner(&mut self, text: &str, line: usize, argv: &[String]) {
        let rest = |skip: &[&str]| -> Vec<String> {
            let mut args = &argv[1..];
            while let Some(first) = args.first() {
                if first == "--" {
                    args = &args[1..];
                    break;
                }
                if !skip.contains(&first.as_str()) {
                    break;
                }
                args = &args[1..];
            }
            args.to_vec()
        };
        let (what, inner, lookup) = match argv[0].as_str() {
            "exec" => ("exec", rest(&[]), Lookup::ExternalOnly),
            "builtin" => ("builtin", rest(&[]), Lookup::SkipFunctions),
            "command" if !argv[1..].iter().any(|a| a == "-v" || a == "-V") => {
                ("command", rest(&["-p"]), Lookup::SkipFunctions)
            }
            "eval" => {
                let joined = argv[1..].join(" ");
                self.nested_text("eval", text, line, parse::parse(&joined));
                return;
            }
            "source" | "." if argv.len() > 1 => {
                let file = argv[1].clone();
                let what = format!("source {file}");
                let parsed = match self.shell.read_for_command(&file) {
                    Ok(bytes) => parse::parse_bytes(&bytes).map_err(|e| e.to_string()),
                    Err(ReadError::Denied(message)) | Err(ReadError::Io(message)) => Err(message),
                };
                self.nested_text(&what, text, line, parsed);
                return;
            }
            _ => return,
        };
        if inner.is_empty() {
            return;
        }
        let mut segment = self.segment(text, line);
        segment.within = Some(self.within_with(what));
        if what == "builtin" && crate::interp::builtins::lookup(&inner[0]).is_none() {
            let reason = format!("builtin: {}: not a shell builtin", inner[0]);
            segment.argv = Some(inner);
            self.settle(segment, "fails", reason);
            return;
        }
        self.argv(segment, inner, lookup);
    }

    /// The commands of a line given to `eval` or read by `source`, one level deeper.
    fn nested_text<E: std::fmt::Display>(
        &mut self,
        what: &str,
        text: &str,
        line: usize,
        parsed: Result<Program, E>,
    ) {
        let failure = match parsed {
            Ok(_) if self.depth >= super::MAX_CALL_DEPTH => format!(
                "maximum eval/source nesting level exceeded ({})",
                super::MAX_CALL_DEPTH
            ),
            Ok(program) => {
                let mut known = Known::default();
                collect_list(&program.body, &mut known);
                self.known.assigned.extend(known.assigned);
                self.known.functions.extend(known.functions);
                self.known.aliases.extend(known.aliases);
                self.depth += 1;
                self.inside(what, &program.body);
                self.depth -= 1;
                return;
            }
            Err(err) => format!("{what}: {err}"),
        };
        let mut segment = self.segment(text, line);
        segment.within = Some(self.within_with(what));
        self.settle(segment, "fails", failure);
    }

    fn decided(&self, segment: &mut Segment, decisions: &[Refusal]) {
        segment.decisions = decisions.iter().map(decision_out).collect();
        if let Some(riskiest) = riskiest(decisions) {
            segment.risk = Some(riskiest.decision.risk.as_str());
            segment.risk_reason = Some(riskiest.decision.risk_reason.clone());
        }
        let refusal = strongest(decisions)
            .filter(|r| r.decision.verdict != Verdict::Allow)
            .cloned();
        let audited = refusal.is_some()
            && self
                .shell
                .unless_audit(&segment.text, refusal.clone())
                .is_none();
        match strongest(decisions).map(|r| &r.decision) {
            Some(decision) if audited => {
                segment.verdict = "allow";
                segment.reason = format!(
                    "shell.mode = \"audit\": it runs, and rsh reports that it would {}: {}",
                    decision.verdict, decision.reason
                );
            }
            Some(decision) => {
                segment.verdict = decision.verdict.as_str();
                segment.reason = decision.reason.clone();
            }
            None => {
                segment.verdict = "allow";
                segment.reason = "a function: its commands are decided as they run".to_owned();
            }
        }
        // A file the command may not have stops it like a denial of the command.
        if segment.verdict != "deny"
            && let Some(denied) = segment.paths.iter().find(|p| p.verdict != "allow")
        {
            segment.verdict = denied.verdict;
            segment.reason = denied.reason.clone();
        }
    }

    fn describe(&self, target: &Target) -> String {
        match target {
            Target::Function(_) => "function".to_owned(),
            Target::Builtin(_) => "builtin".to_owned(),
            Target::External(resolved) if resolved.performs.is_some() => {
                let mut wrappers = Vec::new();
                let mut at = resolved;
                while let Some(performs) = &at.performs {
                    wrappers.extend(at.canonical.file_name().map(|n| n.to_string_lossy()));
                    at = &performs.runs;
                }
                format!(
                    "{} (in place of {}, which rsh performs itself)",
                    self.describe_file(at),
                    wrappers.join(" and ")
                )
            }
            Target::External(resolved) => self.describe_file(resolved),
        }
    }

    fn describe_file(&self, resolved: &super::simple::Resolved) -> String {
        let path = if resolved.canonical.as_os_str().is_empty() {
            &resolved.path
        } else {
            &resolved.canonical
        };
        match &resolved.kind {
            FileKind::Binary => path.display().to_string(),
            FileKind::Script {
                name, interpreter, ..
            } => format!(
                "{} (a script: runs as its #! interpreter {name}, {})",
                path.display(),
                interpreter.canonical.display()
            ),
            FileKind::ShellText { .. } => format!(
                "{} (a shell script: rsh runs it, deciding each of its commands)",
                path.display()
            ),
        }
    }

    /// Redirections of a command that has no words, or of a compound command.
    fn redirections_only(
        &mut self,
        text: &str,
        line: usize,
        redirects: &[Redirect],
        source: Option<&str>,
    ) {
        let mut segment = self.segment(text, line);
        segment.paths = self.paths(redirects, source);
        let (verdict, reason) = match segment.paths.iter().find(|p| p.verdict != "allow") {
            Some(p) => (p.verdict, p.reason.clone()),
            None => ("allow", "redirections only".to_owned()),
        };
        self.settle(segment, verdict, reason);
    }

    /// The files the command names in its arguments, checked as a run checks them.
    fn files(&mut self, argv: &[String], target: &Target) -> Vec<PathCheck> {
        let mut checks = Vec::new();
        let named = self.shell.named_files(argv, target);
        // A word that names a sensitive file is listed when it counts (`git show HEAD:.env`).
        for word in named.mentioned_only() {
            let counted = !self.moved || word.starts_with('/');
            if let Some(decision) = self.shell.mention_decision(word).filter(|_| counted) {
                checks.push(PathCheck {
                    path: word.clone(),
                    resolved: None,
                    access: "read",
                    verdict: decision.verdict.as_str(),
                    reason: decision.reason,
                });
            }
        }
        for touch in named.touches {
            let access = touch.access();
            let (verdict, reason) = if self.moved && !touch.path.starts_with('/') {
                let why = "decided when it runs: it is found from the directory `cd` leads to";
                ("unknown", why.to_owned())
            } else {
                match self.shell.touch_decision(&touch) {
                    Some(decision) => (decision.verdict.as_str(), decision.reason),
                    None => ("allow", "the policy lets commands have it".to_owned()),
                }
            };
            checks.push(PathCheck {
                path: touch.path,
                resolved: None,
                access,
                verdict,
                reason,
            });
        }
        checks
    }

    /// `source` is the text the redirections were parsed from, to show a target as written.
    fn paths(&mut self, redirects: &[Redirect], source: Option<&str>) -> Vec<PathCheck> {
        redirects
            .iter()
            .filter_map(|r| self.path(r, source))
            .collect()
    }

    /// The file a redirection opens, checked as the shell checks it before opening.
    fn path(&mut self, redirect: &Redirect, source: Option<&str>) -> Option<PathCheck> {
        let write = match redirect.op {
            RedirOp::Read => false,
            RedirOp::Write
            | RedirOp::Append
            | RedirOp::Clobber
            | RedirOp::ReadWrite
            | RedirOp::WriteBoth
            | RedirOp::AppendBoth => true,
            RedirOp::DupWrite => {
                // A number or `-` duplicates or closes; a file name (or what only expands to
                // one as the line runs) is written.
                if let Some(text) = redirect.target.static_text()
                    && (text == "-" || text.trim_end_matches('-').parse::<i32>().is_ok())
                {
                    return None;
                }
                true
            }
            RedirOp::DupRead | RedirOp::HereDoc | RedirOp::HereString => return None,
        };
        let access = if write { "write" } else { "read" };
        let span = redirect.target.span;
        let written = redirect.target.static_text().unwrap_or_else(|| {
            source
                .and_then(|text| text.get(span.start..span.end))
                .unwrap_or("(an expansion)")
                .to_owned()
        });
        let unknown = |reason: String| PathCheck {
            path: written.clone(),
            resolved: None,
            access,
            verdict: "unknown",
            reason,
        };
        if let Some(why) = self.dynamic(&redirect.target) {
            return Some(unknown(format!("decided when it runs: {why}")));
        }
        let path = match crate::expand::redirect_target(self.shell, &redirect.target) {
            Ok(Some(path)) => path,
            Ok(None) => {
                return Some(unknown(crate::expand::ambiguous_redirect(
                    &redirect.written,
                )));
            }
            Err(err) => return Some(unknown(format!("expansion fails: {}", err.message))),
        };
        if self.moved && !path.starts_with('/') {
            return Some(unknown(format!(
                "decided when it runs: {path} is found from the directory `cd` leads to"
            )));
        }
        let checked = match write {
            true => self.shell.redirect_write(&path).map(|_| ()),
            false => Ok(()),
        };
        Some(
            match checked.and_then(|()| self.shell.checked_landing(&path, write)) {
                Ok(landing) => PathCheck {
                    path,
                    resolved: Some(landing.display().to_string()),
                    access,
                    verdict: "allow",
                    reason: "the policy lets commands have it".to_owned(),
                },
                Err(ReadError::Denied(message)) | Err(ReadError::Io(message)) => PathCheck {
                    path,
                    resolved: None,
                    access,
                    verdict: "deny",
                    reason: message
                        .strip_prefix("denied: ")
                        .unwrap_or(&message)
                        .to_owned(),
                },
            },
        )
    }

    /// Why a word's value cannot be known before the line runs; None when it can.
    fn dynamic(&self, word: &Word) -> Option<String> {
        self.dynamic_parts(&word.parts, false)
    }

    fn dynamic_parts(&self, parts: &[WordPart], quoted: bool) -> Option<String> {
        parts.iter().find_map(|part| match part {
            WordPart::Literal(text) if !quoted && has_pattern(text) && self.moved => Some(format!(
                "the pattern {text:?} is matched in the directory `cd` leads to"
            )),
            WordPart::Literal(text) if !quoted && has_pattern(text) && self.resettled => Some(
                format!("the pattern {text:?} depends on settings the line changes (set, shopt)"),
            ),
            WordPart::Literal(text)
                if !quoted && text.starts_with('~') && self.known.assigned.contains("HOME") =>
            {
                Some("~ depends on $HOME, which the line sets".to_owned())
            }
            WordPart::Param(_) if !quoted && self.resettled => Some(
                "its splitting depends on settings the line changes (IFS, set, shopt)".to_owned(),
            ),
            WordPart::Literal(_) => None,
            WordPart::Quoted(_) => None,
            WordPart::DoubleQuoted(inner) => self.dynamic_parts(inner, true),
            WordPart::CommandSub(_) => Some("it uses the output of $(…)".to_owned()),
            WordPart::ProcessSub { .. } => {
                Some("it names a pipe made when it runs (<(…) or >(…))".to_owned())
            }
            WordPart::Arith(word) => {
                let text = word.static_text().unwrap_or_default();
                let uses_assigned = names(&text).find(|name| self.known.assigned.contains(*name));
                match uses_assigned {
                    Some(name) => Some(format!("it uses ${name}, which the line sets")),
                    None => self.dynamic(word),
                }
            }
            WordPart::Param(p) => {
                if p.indirect {
                    return Some("it uses an indirect expansion ${!…}".to_owned());
                }
                if let Some(why) = op_words(&p.op).into_iter().find_map(|w| self.dynamic(w)) {
                    return Some(why);
                }
                match &p.param {
                    Param::Positional(n) => Some(format!("it uses ${n}, set when it runs")),
                    Param::Special(_) => {
                        Some("it uses a special parameter ($?, $@, $$, …)".to_owned())
                    }
                    Param::Var(name) if VOLATILE.contains(&name.as_str()) => {
                        Some(format!("${name} changes as the line runs"))
                    }
                    Param::Var(name)
                        if self.known.assigned.contains(name)
                            || (self.moved && matches!(name.as_str(), "PWD" | "OLDPWD")) =>
                    {
                        Some(format!("it uses ${name}, which the line sets"))
                    }
                    Param::Var(_) => None,
                }
            }
        })
    }

    fn segment(&self, text: &str, line: usize) -> Segment {
        Segment {
            text: text.to_owned(),
            line,
            within: (!self.within.is_empty()).then(|| self.within.join(", ")),
            argv: None,
            program: None,
            verdict: "unknown",
            reason: String::new(),
            risk: None,
            risk_reason: None,
            decisions: Vec::new(),
            confinement: None,
            paths: Vec::new(),
        }
    }

    fn within_with(&self, what: &str) -> String {
        let mut all = self.within.clone();
        all.push(what.to_owned());
        all.join(", ")
    }

    /// Gives `segment` its verdict and reason, and adds it to the explanation.
    fn settle(&mut self, mut segment: Segment, verdict: &'static str, reason: String) {
        segment.verdict = verdict;
        segment.reason = reason;
        self.out.push(segment);
    }
}

fn decision_out(refusal: &Refusal) -> DecisionOut {
    let Decision {
        verdict,
        rule,
        reason,
        risk,
        risk_reason,
        ..
    } = &refusal.decision;
    DecisionOut {
        about: match &refusal.interpreter {
            Some(name) => format!("#! interpreter {name}"),
            None => "program".to_owned(),
        },
        verdict: verdict.as_str(),
        reason: reason.clone(),
        risk: risk.as_str(),
        risk_reason: risk_reason.clone(),
        rule: rule.key.clone(),
        pattern: rule.pattern.clone(),
        origin: rule.origin.clone(),
        rule_line: rule.line,
    }
}

/// The words of a `[[ … ]]` expression, in order.
fn cond_words<'a>(expr: &'a CondExpr, out: &mut Vec<&'a Word>) {
    match expr {
        CondExpr::Word(w) | CondExpr::Unary(_, w) => out.push(w),
        CondExpr::Binary(a, _, b) => out.extend([a, b]),
        CondExpr::Not(e) => cond_words(e, out),
        CondExpr::And(a, b) | CondExpr::Or(a, b) => {
            cond_words(a, out);
            cond_words(b, out);
        }
    }
}

/// The words inside a parameter expansion's operator (`${x:-WORD}`, `${x/PAT/REP}`, …).
fn op_words(op: &ParamOp) -> Vec<&Word> {
    match op {
        ParamOp::Plain | ParamOp::Length => Vec::new(),
        ParamOp::Test { word, .. } => vec![word],
        ParamOp::Strip { pattern, .. } | ParamOp::Case { pattern, .. } => vec![pattern],
        ParamOp::Replace {
            pattern,
            replacement,
            ..
        } => vec![pattern, replacement],
        ParamOp::Slice { offset, length } => std::iter::once(offset).chain(length).collect(),
    }
}

/// Unquoted pattern characters: the word is matched against file names.
fn has_pattern(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim_end().to_owned()
}

fn compound_text(compound: &parse::CompoundCommand) -> String {
    match &compound.kind {
        Compound::Group(_) => "{ … }".to_owned(),
        Compound::Subshell(_) => "( … )".to_owned(),
        Compound::If { .. } => "if …; fi".to_owned(),
        Compound::For { var, .. } => format!("for {var} in …; done"),
        Compound::ArithFor { .. } => "for ((…)); done".to_owned(),
        Compound::While { until: false, .. } => "while …; done".to_owned(),
        Compound::While { until: true, .. } => "until …; done".to_owned(),
        Compound::Case { .. } => "case … esac".to_owned(),
        Compound::Cond(_) => "[[ … ]]".to_owned(),
        Compound::Arith(_) => "(( … ))".to_owned(),
    }
}

// ----- output ------------------------------------------------------------------------------

/// The explanation for people: one block per command, each line as it may be shown on a
/// terminal (the line explained, and the file names in it, may hold escapes and invisible
/// characters).
pub fn render_text(segments: &[Segment]) -> String {
    render_lines(segments)
        .lines()
        .map(|line| crate::confirm::printable(line) + "\n")
        .collect()
}

fn render_lines(segments: &[Segment]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push_str(&s.text);
        if let Some(within) = &s.within {
            out.push_str(&format!("    [{within}]"));
        }
        out.push('\n');
        if let Some(argv) = &s.argv
            && builtins::display_command(argv) != s.text
        {
            out.push_str(&format!(
                "  argv:      {}\n",
                builtins::display_command(argv)
            ));
        }
        if let Some(program) = &s.program {
            out.push_str(&format!("  program:   {program}\n"));
        }
        out.push_str(&format!("  decision:  {}: {}\n", s.verdict, s.reason));
        if let (Some(risk), Some(why)) = (s.risk, &s.risk_reason) {
            out.push_str(&format!("  risk:      {risk}: {why}\n"));
        }
        for d in s.decisions.iter().filter(|d| d.about != "program") {
            out.push_str(&format!("  {}:  {}: {}\n", d.about, d.verdict, d.reason));
        }
        if let Some(c) = &s.confinement {
            out.push_str(&format!("  confined:  {}\n", describe_confinement(c)));
        }
        for p in &s.paths {
            let place = match &p.resolved {
                Some(resolved) if *resolved != p.path => format!("{} ({resolved})", p.path),
                _ => p.path.clone(),
            };
            out.push_str(&format!(
                "  {}:{}{place}: {}: {}\n",
                p.access,
                if p.access == "read" {
                    "      "
                } else {
                    "     "
                },
                p.verdict,
                p.reason
            ));
        }
    }
    out
}

fn describe_confinement(c: &Confinement) -> String {
    let Some(seconds) = c.timeout else {
        return "nothing (sandbox mode \"off\")".to_owned();
    };
    let network = if c.network { "network" } else { "no network" };
    let unix = if c.unix_sockets { ", unix sockets" } else { "" };
    let programs = if c.subprocesses {
        "may start programs"
    } else {
        "starts no programs"
    };
    format!("files per [paths], {network}{unix}, {programs}, ended after {seconds} s")
}

/// The explanation for programs: `{"segments": [...]}`, one JSON object on one line.
pub fn render_json(segments: &[Segment]) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        allowed: bool,
        segments: &'a [Segment],
    }
    let out = Out {
        allowed: segments.iter().all(Segment::allowed),
        segments,
    };
    serde_json::to_string(&out).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
        + "\n"
}
